//! `--real`: a smaller stand on OS threads, with the crate's primitives as
//! they run in production.
//!
//! One client thread offers requests as a Poisson process (open loop, its
//! clock runs on regardless of the server); `WORKERS` worker threads serve
//! them, each taking `SERVICE` of wall time by sleeping (a call to a slow
//! dependency, which costs no CPU, so the stand fits on two shared cores).
//! Clients wait `TIMEOUT`; there are no retries here (the simulation has
//! them). Workers skip requests whose client has already given up. The
//! numbers move from run to run and machine to machine; the simulation is the
//! reproducible reference.
//!
//! * unbounded: `Mutex<VecDeque>` + `Condvar` (the anti-pattern);
//! * reject / drop oldest: `mpmc::Ring::try_push` / `push_overwrite`;
//! * block: `mpmc::Ring::push_blocking` (the client thread waits for room);
//! * AIMD: `limit::Limiter::try_acquire` at the door, the permit travels with
//!   the request and ends with `success(µs)` or `dropped()`.
//!
//! Workers take work with `mpmc::Ring::pop_blocking` and stop on a sentinel.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use sluicegate::limit::{Limiter, LimiterConfig, Permit};
use sluicegate::mpmc::Ring;

use crate::sim::Rng;

const WORKERS: usize = 4;
const SERVICE: Duration = Duration::from_millis(2);
const TIMEOUT: Duration = Duration::from_millis(20);
const RUN: Duration = Duration::from_millis(1000);
const RING: usize = 16;
/// The limiter's own FIFO: larger than its `max_limit`, so never full.
const GATE_QUEUE: usize = 128;

/// The limiter for this stand: the default preset, with a maximum that fits
/// the gate's own FIFO.
const AIMD: LimiterConfig = LimiterConfig {
    max_limit: 100,
    ..crate::sim::AIMD
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Unbounded,
    Reject,
    Block,
    DropOldest,
    Limiter,
}

struct Req<'a> {
    /// When the client sent it (its scheduled arrival), ns since start.
    sent: u64,
    /// Sentinel: the worker stops.
    stop: bool,
    permit: Option<Permit<'a>>,
}

#[derive(Default)]
struct Tally {
    offered: usize,
    shed: usize,
    ok: usize,
    wasted: usize,
    skipped: usize,
    latencies_us: Vec<u64>,
    peak: usize,
}

/// `'q`: the queues; `'l`: the limiter, which the queued permits borrow.
enum Door<'q, 'l> {
    Unbounded(&'q (Mutex<VecDeque<Req<'l>>>, Condvar)),
    Ring(&'q Ring<Req<'l>, RING>),
    Gate(&'l Limiter, &'q Ring<Req<'l>, GATE_QUEUE>),
}

impl<'l> Door<'_, 'l> {
    fn take(&self) -> Req<'l> {
        match self {
            Door::Unbounded(q) => {
                let mut g = q.0.lock().expect("lock");
                loop {
                    if let Some(r) = g.pop_front() {
                        return r;
                    }
                    g = q.1.wait(g).expect("lock");
                }
            }
            Door::Ring(r) => r.pop_blocking().expect("the demo never closes its ring"),
            Door::Gate(_, r) => r.pop_blocking().expect("the demo never closes its ring"),
        }
    }

    fn len(&self) -> usize {
        match self {
            Door::Unbounded(q) => q.0.lock().expect("lock").len(),
            Door::Ring(r) => r.len(),
            Door::Gate(_, r) => r.len(),
        }
    }
}

fn run(kind: Kind, load_pct: u64, seed: u64) -> Tally {
    // Declared first: outlives the queues that hold its permits.
    let limiter = Limiter::new(AIMD);
    let unbounded = (Mutex::new(VecDeque::new()), Condvar::new());
    let ring: Ring<Req<'_>, RING> = Ring::new();
    let gate_q: Ring<Req<'_>, GATE_QUEUE> = Ring::new();
    let door = match kind {
        Kind::Unbounded => Door::Unbounded(&unbounded),
        Kind::Limiter => Door::Gate(&limiter, &gate_q),
        _ => Door::Ring(&ring),
    };
    let start = Instant::now();
    let now_ns = || start.elapsed().as_nanos() as u64;
    let timeout_ns = TIMEOUT.as_nanos() as u64;
    let ok = AtomicUsize::new(0);
    let wasted = AtomicUsize::new(0);
    let skipped = AtomicUsize::new(0);
    let latencies = Mutex::new(Vec::new());
    let mut t = Tally::default();
    std::thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let mut r = door.take();
                    if r.stop {
                        break;
                    }
                    if now_ns() >= r.sent + timeout_ns {
                        skipped.fetch_add(1, Ordering::Relaxed);
                        if let Some(p) = r.permit.take() {
                            p.dropped();
                        }
                        continue;
                    }
                    std::thread::sleep(SERVICE);
                    let lat = now_ns() - r.sent;
                    mine.push(lat / 1000);
                    if lat <= timeout_ns {
                        ok.fetch_add(1, Ordering::Relaxed);
                        if let Some(p) = r.permit.take() {
                            p.success(u32::try_from(lat / 1000).unwrap_or(u32::MAX));
                        }
                    } else {
                        wasted.fetch_add(1, Ordering::Relaxed);
                        if let Some(p) = r.permit.take() {
                            p.dropped();
                        }
                    }
                }
                latencies.lock().expect("lock").extend(mine);
            });
        }
        // The client: Poisson arrivals at load_pct % of capacity.
        let capacity = WORKERS as f64 / SERVICE.as_secs_f64();
        let mean_ns = 1e9 / (capacity * load_pct as f64 / 100.0);
        let mut rng = Rng::new(seed);
        let mut next = 0u64;
        let end = RUN.as_nanos() as u64;
        while next < end {
            let now = now_ns();
            if now < next {
                std::thread::sleep(Duration::from_nanos((next - now).min(200_000)));
                continue;
            }
            t.offered += 1;
            let req = Req {
                sent: next,
                stop: false,
                permit: None,
            };
            match &door {
                Door::Unbounded(q) => {
                    q.0.lock().expect("lock").push_back(req);
                    q.1.notify_one();
                }
                Door::Ring(r) => match kind {
                    Kind::Reject => t.shed += usize::from(r.try_push(req).is_err()),
                    Kind::DropOldest => {
                        t.shed += usize::from(r.push_overwrite(req).into_item().is_some())
                    }
                    _ => r
                        .push_blocking(req)
                        .expect("the demo never closes its ring"),
                },
                Door::Gate(l, q) => match l.try_acquire() {
                    Some(p) => {
                        let req = Req {
                            permit: Some(p),
                            ..req
                        };
                        if let Err(full) = q.try_push(req) {
                            // Cannot happen (max_limit < GATE_QUEUE); ends the permit.
                            drop(full.into_inner());
                            t.shed += 1;
                        }
                    }
                    None => t.shed += 1,
                },
            }
            t.peak = t.peak.max(door.len());
            next += Rng::exp(&mut rng, mean_ns);
        }
        // Stop the workers behind whatever is queued.
        for _ in 0..WORKERS {
            let stop = Req {
                sent: 0,
                stop: true,
                permit: None,
            };
            match &door {
                Door::Unbounded(q) => {
                    // Jump the queue: what is left would only be skipped.
                    q.0.lock().expect("lock").push_front(stop);
                    q.1.notify_one();
                }
                Door::Ring(r) => r
                    .push_blocking(stop)
                    .expect("the demo never closes its ring"),
                Door::Gate(_, q) => q
                    .push_blocking(stop)
                    .expect("the demo never closes its ring"),
            }
        }
    });
    t.ok = ok.into_inner();
    t.wasted = wasted.into_inner();
    t.skipped = skipped.into_inner();
    t.latencies_us = latencies.into_inner().expect("lock");
    t
}

pub fn main() {
    let capacity = WORKERS as f64 / SERVICE.as_secs_f64();
    println!(
        "--real: {WORKERS} worker threads x {} ms (sleep) = {capacity:.0} requests/s nominal; \
         one open-loop client thread; timeout {} ms, no retries; {} ms per run; ring {RING}.\n",
        SERVICE.as_millis(),
        TIMEOUT.as_millis(),
        RUN.as_millis()
    );
    let kinds = [
        (Kind::Unbounded, "unbounded (Mutex<VecDeque>)"),
        (Kind::Reject, "mpmc ring, try_push"),
        (Kind::Block, "mpmc ring, push_blocking"),
        (Kind::DropOldest, "mpmc ring, push_overwrite"),
        (Kind::Limiter, "Limiter gate"),
    ];
    for load in [100u64, 200] {
        println!("### Offered load {:.1}x\n", load as f64 / 100.0);
        println!(
            "| {:<27} | {:>8} | {:>6} | {:>6} | {:>5} | {:>6} | {:>6} |",
            "policy", "good-put", "p50 ms", "p99 ms", "shed", "wasted", "peak q"
        );
        println!(
            "|{:-<29}|{:->9}:|{:->7}:|{:->7}:|{:->6}:|{:->7}:|{:->7}:|",
            "", "", "", "", "", "", ""
        );
        for (i, &(kind, name)) in kinds.iter().enumerate() {
            crate::progress(&format!("--real: {load} % load, {name}"), true);
            let mut t = run(kind, load, 0x5eed + i as u64 + load);
            crate::progress("", false);
            t.latencies_us.sort_unstable();
            let q = |p: usize| {
                let l = &t.latencies_us;
                if l.is_empty() {
                    0.0
                } else {
                    l[(l.len() * p / 100).min(l.len() - 1)] as f64 / 1000.0
                }
            };
            let served = t.ok + t.wasted;
            println!(
                "| {:<27} | {:>7.0}% | {:>6.1} | {:>6.1} | {:>4.0}% | {:>5.0}% | {:>6} |",
                name,
                100.0 * t.ok as f64 / RUN.as_secs_f64() / capacity,
                q(50),
                q(99),
                100.0 * t.shed as f64 / t.offered.max(1) as f64,
                100.0 * t.wasted as f64 / served.max(1) as f64,
                t.peak
            );
        }
        println!();
    }
    println!(
        "Good-put is in % of the nominal capacity; sleeping overshoots, so the real pool serves \
         somewhat less. Latency is send to response of served requests."
    );
}
