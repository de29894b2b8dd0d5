//! A kernel-bypass style packet path on threads.
//!
//! * 2 RX threads (the NIC queues) receive bursts of 32 fixed-size packet
//!   descriptors at a steady rate and push them into one shared
//!   `mpmc::Ring` (the RX ring). Before pushing, each descriptor takes a
//!   permit from the `limit::Limiter` gate, which bounds packets queued plus in
//!   processing; a descriptor without a permit is dropped at once (cause:
//!   "gate"). A full RX ring drops too (cause: "rx ring full"). The RX ring
//!   is the SCQ ring because its descriptors carry their permits (not
//!   `Copy`).
//! * 2 worker threads drain the RX ring in bursts of up to 32, "process" each
//!   packet (a fixed amount of spinning per packet, more in the second half
//!   of the run, as when a lookup table falls out of cache), and hand the
//!   burst to TX through one `mpmc::BurstRing` that both workers share (the
//!   TX ring: one claim and one commit per burst). Each permit ends with
//!   `success(µs)` (the packet's wait in the RX ring) or `dropped()` when the
//!   packet is older than the latency budget (cause: "stale") or TX refused
//!   it (causes "tx ring full" and "tx busy", below).
//! * 1 TX thread pops bursts from the TX ring.
//!
//! `Stop::Busy`: the burst ring never waits for another thread. A push or
//! pop whose next position is claimed by another operation that has not
//! finished (a worker preempted in the middle of its push, TX in the middle
//! of a pop on a nearly full ring) is answered `Busy`. A worker tries the
//! rest of its burst again a few times and then drops it (cause "tx busy");
//! TX counts the answer, yields its core if it got nothing (the worker that
//! holds the position may be waiting for it), and comes back on its next
//! round. Neither waits on a busy position.
//!
//! Prints packets/s delivered, drops by cause, the busy answers and the
//! gate's limit over time, then checks that every offered packet is
//! accounted for. Run: `cargo run --release --example packet_path`

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sluicegate::limit::{Limiter, LimiterConfig, Permit};
use sluicegate::mpmc;
use sluicegate::mpmc::burst_ring::{BurstRing, Moved, Stop};

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
/// How many times a worker pushes the rest of a burst again after a busy
/// answer before it drops it.
const TX_RETRIES: u32 = 4;

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
    tx_busy: AtomicU64,
    /// Still in the RX ring when the run ended (permit ignored).
    unprocessed: AtomicU64,
}

/// Calls of the TX ring answered `Stop::Busy`, by side.
#[derive(Default)]
struct Busy {
    push: AtomicU64,
    pop: AtomicU64,
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
    let tx_ring: BurstRing<u64, 2048, 64> = BurstRing::new();
    let drops = Drops::default();
    let busy = Busy::default();
    let offered = AtomicU64::new(0);
    let to_tx = AtomicU64::new(0);
    let sent = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let rx_left = AtomicUsize::new(RX_THREADS);
    let workers_left = AtomicUsize::new(WORKERS);
    let start = Instant::now();
    let now_ns = || start.elapsed().as_nanos() as u64;
    let mut limits = Vec::new();
    std::thread::scope(|s| {
        for rx in 0..RX_THREADS {
            let (gate, rx_ring, drops, offered, stop, rx_left) =
                (&gate, &rx_ring, &drops, &offered, &stop, &rx_left);
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
                // Release: the workers' last drain sees every push above.
                rx_left.fetch_sub(1, Ordering::Release);
            });
        }
        for _ in 0..WORKERS {
            let (rx_ring, tx_ring, drops, busy, to_tx, stop, rx_left, workers_left) = (
                &rx_ring,
                &tx_ring,
                &drops,
                &busy,
                &to_tx,
                &stop,
                &rx_left,
                &workers_left,
            );
            s.spawn(move || {
                let mut burst: Vec<Desc<'_>> = Vec::with_capacity(BURST);
                // The processed packets of a burst: their TX words and, in
                // the same order, their permits with the wait to report.
                let mut out = [0u64; BURST];
                let mut done: Vec<(Permit<'_>, u32)> = Vec::with_capacity(BURST);
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
                        out[done.len()] = d.rx_ns;
                        done.push((d.permit, u32::try_from(wait).unwrap_or(u32::MAX)));
                    }
                    // The whole burst to TX: one claim, one commit. A busy
                    // answer is tried again a few times, never waited out.
                    let n = done.len();
                    let (mut pushed, mut tries) = (0, 0);
                    let why = loop {
                        let Moved { count, stop: why } = tx_ring.push_burst(&out[pushed..n]);
                        pushed += count;
                        match why {
                            Some(Stop::Busy) => {
                                busy.push.fetch_add(1, Ordering::Relaxed);
                                if tries == TX_RETRIES {
                                    break Some(Stop::Busy);
                                }
                                tries += 1;
                                std::hint::spin_loop();
                            }
                            why => break why,
                        }
                    };
                    to_tx.fetch_add(pushed as u64, Ordering::Relaxed);
                    for (i, (permit, wait)) in done.drain(..).enumerate() {
                        if i < pushed {
                            permit.success(wait);
                        } else {
                            permit.dropped();
                            match why {
                                Some(Stop::Busy) => &drops.tx_busy,
                                _ => &drops.tx_full,
                            }
                            .fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                // Drain what is left so every permit ends: once the RX
                // threads are done, a pass that finds the ring empty is the
                // last.
                loop {
                    let rx_done = rx_left.load(Ordering::Acquire) == 0;
                    while let Some(d) = rx_ring.try_pop() {
                        d.permit.ignore();
                        drops.unprocessed.fetch_add(1, Ordering::Relaxed);
                    }
                    if rx_done {
                        break;
                    }
                    std::thread::sleep(Duration::from_micros(50));
                }
                // Release: TX's last pop sees every push above.
                workers_left.fetch_sub(1, Ordering::Release);
            });
        }
        {
            let (tx_ring, busy, sent, workers_left) = (&tx_ring, &busy, &sent, &workers_left);
            s.spawn(move || {
                let mut buf = [0u64; 64];
                loop {
                    // Read before the pop: once no worker is left, an empty
                    // answer is final.
                    let last = workers_left.load(Ordering::Acquire) == 0;
                    let Moved { count, stop: why } = tx_ring.pop_burst(&mut buf);
                    sent.fetch_add(count as u64, Ordering::Relaxed);
                    match why {
                        // A worker's push holds the next position: count it
                        // and come back on the next round. With nothing
                        // popped, that worker is likely preempted in its
                        // push: give it the core.
                        Some(Stop::Busy) => {
                            busy.pop.fetch_add(1, Ordering::Relaxed);
                            if count == 0 {
                                std::thread::yield_now();
                            }
                        }
                        Some(Stop::Empty) if count == 0 => {
                            if last {
                                break;
                            }
                            std::thread::sleep(Duration::from_micros(50));
                        }
                        _ => {}
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
    let causes = [
        ("gate (AIMD shed at RX)", drops.gate.load(Ordering::Relaxed)),
        ("rx ring full", drops.rx_full.load(Ordering::Relaxed)),
        ("stale (over budget)", drops.stale.load(Ordering::Relaxed)),
        ("tx ring full", drops.tx_full.load(Ordering::Relaxed)),
        ("tx busy", drops.tx_busy.load(Ordering::Relaxed)),
        (
            "unprocessed at the end",
            drops.unprocessed.load(Ordering::Relaxed),
        ),
    ];
    for (cause, n) in causes {
        println!("drops, {cause:<24}: {n:>9} ({:.1} %)", pct(n));
    }
    let (busy_push, busy_pop) = (
        busy.push.load(Ordering::Relaxed),
        busy.pop.load(Ordering::Relaxed),
    );
    let tx = tx_ring.stats();
    println!(
        "tx ring: busy answers {busy_push} to worker pushes, {busy_pop} to TX pops; \
         {} packets refused as full",
        tx.rejected
    );
    println!(
        "gate: {} limit cuts, baseline {:?} ticks of {TICK_US} us, final limit {}",
        st.decreases, st.baseline, st.limit
    );

    // Accounting, whatever the timing: every offered packet was delivered or
    // dropped for one cause, every permit ended, and the TX ring's counters
    // agree with what its callers saw.
    let dropped: u64 = causes.iter().map(|(_, n)| n).sum();
    assert_eq!(
        off,
        delivered + dropped,
        "every offered packet accounted for"
    );
    assert_eq!(
        delivered,
        to_tx.load(Ordering::Relaxed),
        "TX got every pushed packet"
    );
    assert_eq!(gate.in_flight(), 0, "every permit ended");
    assert_eq!(
        tx.busy as u64,
        busy_push + busy_pop,
        "busy answers counted by the ring"
    );
    assert_eq!(tx.rejected as u64, drops.tx_full.load(Ordering::Relaxed));
    assert!(tx_ring.is_empty());
    println!("accounting: ok");
}
