//! A kernel-bypass style packet path on threads.
//!
//! * 2 RX threads (the NIC queues) receive bursts of 32 fixed-size packet
//!   descriptors at a steady rate and push them into one shared
//!   `mpmc::Ring` (the RX ring). Before pushing, each descriptor takes a
//!   permit from the `limit::Limiter` gate, which bounds packets queued plus in
//!   processing; a descriptor without a permit is dropped at once (cause:
//!   "gate"). A full RX ring drops too (cause: "rx ring full").
//! * 2 worker threads drain the RX ring in bursts of up to 32, "process" each
//!   packet (a fixed amount of spinning per packet, more in the second half
//!   of the run, as when a lookup table falls out of cache), and hand it to
//!   their own `spsc::Ring` towards TX. Each permit ends with `success(µs)`
//!   (the packet's wait in the RX ring) or `dropped()` when the packet
//!   is older than the latency budget (cause: "stale") or TX is full (cause:
//!   "tx ring full").
//! * 1 TX thread drains both SPSC rings.
//!
//! Prints packets/s delivered, drops by cause, and the gate's limit over
//! time. Run: `cargo run --release --example packet_path`

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sluicegate::limit::{Limiter, LimiterConfig, Permit};
use sluicegate::mpmc;
use sluicegate::spsc;

const BURST: usize = 32;
const RX_THREADS: usize = 2;
const WORKERS: usize = 2;
/// Packets offered per second per RX thread.
const RX_RATE: u64 = 200_000;
/// Latency budget: a packet older than this is dropped instead of processed.
const BUDGET_US: u64 = 2_000;
const RUN: Duration = Duration::from_secs(3);
/// The gate's clock tick.
const TICK_US: u64 = 100;

/// A fixed-size descriptor, as a NIC ring holds them (plus its permit).
struct Desc<'a> {
    /// Buffer index and length, as in a real descriptor.
    _buf: u32,
    _len: u16,
    rx_ns: u64,
    permit: Permit<'a>,
}

/// The gate bounds packets in the RX ring plus in processing. The latency it
/// is fed is each packet's wait in the RX ring (RX to dequeue), the part the
/// gate controls, in ticks of `TICK_US`: unqueued, a packet still waits for
/// the burst ahead of it and for a worker's 50 µs nap, and a µs clock would
/// call that jitter queueing. With 100 µs ticks the baseline is 1 tick and a
/// wait over 4 ticks (400 µs) is an overload signal.
const GATE: LimiterConfig = LimiterConfig {
    min_limit: 32,
    initial_limit: 256,
    max_limit: 4000,
    tolerance: 4 * 256,
    ..LimiterConfig::DEFAULT
};

#[derive(Default)]
struct Drops {
    gate: AtomicU64,
    rx_full: AtomicU64,
    stale: AtomicU64,
    tx_full: AtomicU64,
}

fn spin_for(ns: u64) {
    let t = Instant::now();
    while (t.elapsed().as_nanos() as u64) < ns {
        std::hint::spin_loop();
    }
}

fn main() {
    let gate = Limiter::new(GATE);
    let rx_ring: mpmc::Ring<Desc<'_>, 4096> = mpmc::Ring::new();
    let mut tx_rings: Vec<spsc::Ring<u64, 1024>> =
        (0..WORKERS).map(|_| spsc::Ring::new()).collect();
    let drops = Drops::default();
    let offered = AtomicU64::new(0);
    let sent = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let now_ns = || start.elapsed().as_nanos() as u64;
    let mut limits = Vec::new();
    let handles: Vec<_> = tx_rings.iter_mut().map(|r| r.split()).collect();
    let (txs, rxs): (Vec<_>, Vec<_>) = handles.into_iter().unzip();
    std::thread::scope(|s| {
        for rx in 0..RX_THREADS {
            let (gate, rx_ring, drops, offered, stop) = (&gate, &rx_ring, &drops, &offered, &stop);
            s.spawn(move || {
                let per_burst = Duration::from_nanos(BURST as u64 * 1_000_000_000 / RX_RATE);
                let mut next = Duration::ZERO;
                let mut buf = rx as u32 * 1_000_000;
                while !stop.load(Ordering::Relaxed) {
                    let now = start.elapsed();
                    if now < next {
                        std::thread::sleep((next - now).min(Duration::from_micros(200)));
                        continue;
                    }
                    next += per_burst;
                    for _ in 0..BURST {
                        offered.fetch_add(1, Ordering::Relaxed);
                        let Some(permit) = gate.try_acquire() else {
                            drops.gate.fetch_add(1, Ordering::Relaxed);
                            continue;
                        };
                        buf = buf.wrapping_add(1);
                        let d = Desc {
                            _buf: buf,
                            _len: 64,
                            rx_ns: now_ns(),
                            permit,
                        };
                        if let Err(full) = rx_ring.try_push(d) {
                            full.into_inner().permit.dropped();
                            drops.rx_full.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
        for mut tx in txs {
            let (rx_ring, drops, stop) = (&rx_ring, &drops, &stop);
            s.spawn(move || {
                let mut burst: Vec<Desc<'_>> = Vec::with_capacity(BURST);
                while !stop.load(Ordering::Relaxed) {
                    while burst.len() < BURST {
                        match rx_ring.try_pop() {
                            Some(d) => burst.push(d),
                            None => break,
                        }
                    }
                    if burst.is_empty() {
                        std::thread::sleep(Duration::from_micros(50));
                        continue;
                    }
                    // Per-packet work: 2 µs, 6 µs in the second half.
                    let slow = start.elapsed() > RUN / 2;
                    let dequeued = now_ns();
                    for d in burst.drain(..) {
                        let age_us = (now_ns() - d.rx_ns) / 1000;
                        if age_us > BUDGET_US {
                            d.permit.dropped();
                            drops.stale.fetch_add(1, Ordering::Relaxed);
                            continue;
                        }
                        spin_for(if slow { 6000 } else { 2000 });
                        let wait = dequeued.saturating_sub(d.rx_ns) / 1000 / TICK_US;
                        if tx.try_push(d.rx_ns).is_ok() {
                            d.permit.success(u32::try_from(wait).unwrap_or(u32::MAX));
                        } else {
                            d.permit.dropped();
                            drops.tx_full.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                // Drain what is left so every permit ends.
                while let Some(d) = rx_ring.try_pop() {
                    d.permit.ignore();
                }
            });
        }
        {
            let (sent, stop) = (&sent, &stop);
            s.spawn(move || {
                let mut rxs = rxs;
                let mut buf = [0u64; 64];
                while !stop.load(Ordering::Relaxed) {
                    let mut n = 0;
                    for rx in rxs.iter_mut() {
                        n += rx.pop_burst(&mut buf);
                    }
                    sent.fetch_add(n as u64, Ordering::Relaxed);
                    if n == 0 {
                        std::thread::sleep(Duration::from_micros(50));
                    }
                }
            });
        }
        // Sample the limit every 250 ms.
        let mut last_sent = 0;
        while start.elapsed() < RUN {
            std::thread::sleep(Duration::from_millis(250));
            let s = sent.load(Ordering::Relaxed);
            limits.push((
                start.elapsed().as_secs_f64(),
                gate.limit(),
                gate.in_flight(),
                (s - last_sent) * 4,
            ));
            last_sent = s;
        }
        stop.store(true, Ordering::Relaxed);
    });
    let secs = start.elapsed().as_secs_f64();
    let st = gate.stats();
    println!(
        "{RX_THREADS} RX threads x {} kpps offered in bursts of {BURST}; {WORKERS} workers \
         (2 us/packet, 6 us from {:.1} s); budget {BUDGET_US} us; {:.1} s\n",
        RX_RATE / 1000,
        RUN.as_secs_f64() / 2.0,
        secs
    );
    println!("| time s | limit | in flight | delivered pps |");
    println!("|-------:|------:|----------:|--------------:|");
    for (t, l, f, pps) in &limits {
        println!("| {t:>6.2} | {l:>5} | {f:>9} | {pps:>13} |");
    }
    let off = offered.load(Ordering::Relaxed);
    let delivered = sent.load(Ordering::Relaxed);
    let pct = |x: u64| 100.0 * x as f64 / off.max(1) as f64;
    println!(
        "\noffered {off} packets, delivered {delivered} ({:.0} pps, {:.1} %)",
        delivered as f64 / secs,
        pct(delivered)
    );
    for (cause, n) in [
        ("gate (AIMD shed at RX)", drops.gate.load(Ordering::Relaxed)),
        ("rx ring full", drops.rx_full.load(Ordering::Relaxed)),
        ("stale (over budget)", drops.stale.load(Ordering::Relaxed)),
        ("tx ring full", drops.tx_full.load(Ordering::Relaxed)),
    ] {
        println!("drops, {cause:<24}: {n:>9} ({:.1} %)", pct(n));
    }
    println!(
        "gate: {} limit cuts, baseline {:?} ticks of {TICK_US} us, final limit {}",
        st.decreases, st.baseline, st.limit
    );
}
