//! What waiting costs on `mpmc::Ring` (feature `std` of this package, which
//! turns on the library's): the CPU of 64 tasks awaiting `pop()` on an idle
//! ring and of 64 threads in `pop_blocking`, each for 2 s; blocking 8
//! producers x 8 consumers through a ring of 4 (and a `BurstRing` of 4)
//! against crossbeam-channel's `bounded(4)` (items/s and CPU, median of 5
//! runs); and the wake-up latency of one parked `pop_blocking` (p50/p99).
//!
//! ```text
//! cargo run --release -p sluicegate-bench --features std --example waiters
//! ```
//!
//! `SLUICEGATE_WAITERS=idle`, `8p8c` or `latency` runs that part alone.
//!
//! Timed figures: they depend on the machine and its load. CPU times come
//! from `/proc` (Linux).

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use sluicegate::mpmc::{BurstRing, Ring};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// CPU nanoseconds of the live threads of this process.
fn live_threads_cpu_ns() -> u64 {
    std::fs::read_dir("/proc/self/task")
        .map(|dir| {
            dir.flatten()
                .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
                .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0)
}

/// CPU seconds of this process, threads that ended included.
fn process_cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = s.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    ticks / 100.0
}

const IDLE: Duration = Duration::from_secs(2);
const WAITERS: usize = 64;

fn idle_async() {
    static RING: Ring<u32, 8> = Ring::new();
    static GOT: AtomicUsize = AtomicUsize::new(0);
    let pool = thread::spawn(|| {
        let mut pool = LocalPool::new();
        for _ in 0..WAITERS {
            pool.spawner()
                .spawn_local(async {
                    if RING.pop().await.is_some() {
                        GOT.fetch_add(1, Ordering::Relaxed);
                    }
                })
                .unwrap();
        }
        pool.run();
    });
    thread::sleep(Duration::from_millis(200)); // every task polled once
    let (cpu0, t0) = (live_threads_cpu_ns(), Instant::now());
    thread::sleep(IDLE);
    let (cpu1, t1) = (live_threads_cpu_ns(), Instant::now());
    for i in 0..WAITERS as u32 {
        RING.push_blocking(i).unwrap();
    }
    pool.join().unwrap();
    let cpu = (cpu1 - cpu0) as f64 / 1e9;
    println!(
        "idle async: {WAITERS} tasks (futures LocalPool) awaiting pop for {:.2} s: CPU {:.4} s = {:.3} % of a core; then {} of {WAITERS} items delivered",
        (t1 - t0).as_secs_f64(),
        cpu,
        cpu / (t1 - t0).as_secs_f64() * 100.0,
        GOT.load(Ordering::Relaxed)
    );
}

fn idle_blocking() {
    let ring: Ring<u32, 8> = Ring::new();
    thread::scope(|s| {
        let waiters: Vec<_> = (0..WAITERS)
            .map(|_| s.spawn(|| ring.pop_blocking()))
            .collect();
        thread::sleep(Duration::from_millis(200));
        let (cpu0, t0) = (live_threads_cpu_ns(), Instant::now());
        thread::sleep(IDLE);
        let (cpu1, t1) = (live_threads_cpu_ns(), Instant::now());
        for i in 0..WAITERS as u32 {
            ring.push_blocking(i).unwrap();
        }
        let got = waiters
            .into_iter()
            .filter_map(|w| w.join().unwrap())
            .count();
        let cpu = (cpu1 - cpu0) as f64 / 1e9;
        println!(
            "idle blocking: {WAITERS} threads in pop_blocking for {:.2} s: CPU {:.4} s = {:.3} % of a core; then {got} of {WAITERS} items delivered",
            (t1 - t0).as_secs_f64(),
            cpu,
            cpu / (t1 - t0).as_secs_f64() * 100.0,
        );
    });
}

const P: usize = 8;
const C: usize = 8;
const PER: usize = 100_000;

/// One 8P8C run: (items/s, CPU s).
fn run_8p8c(
    push: impl Fn(u64) + Sync,
    pop: impl Fn() -> Option<u64> + Sync,
    close: impl FnOnce(),
) -> (f64, f64) {
    let cpu0 = process_cpu_s();
    let t0 = Instant::now();
    let sum = thread::scope(|s| {
        let consumers: Vec<_> = (0..C)
            .map(|_| {
                s.spawn(|| {
                    let mut n = 0u64;
                    while let Some(v) = pop() {
                        n += v;
                    }
                    n
                })
            })
            .collect();
        let producers: Vec<_> = (0..P)
            .map(|_| s.spawn(|| (0..PER as u64).for_each(&push)))
            .collect();
        producers.into_iter().for_each(|p| p.join().unwrap());
        close();
        consumers
            .into_iter()
            .map(|c| c.join().unwrap())
            .sum::<u64>()
    });
    let dt = t0.elapsed().as_secs_f64();
    assert_eq!(
        sum,
        P as u64 * (PER as u64 * (PER as u64 - 1) / 2),
        "every item once"
    );
    ((P * PER) as f64 / dt, process_cpu_s() - cpu0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn blocking_8p8c() {
    let mut ours = (Vec::new(), Vec::new());
    let mut burst = (Vec::new(), Vec::new());
    let mut theirs = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let ring: Ring<u64, 4> = Ring::new();
        let (r, c) = run_8p8c(
            |v| ring.push_blocking(v).unwrap(),
            || ring.pop_blocking(),
            || {
                ring.close();
            },
        );
        ours.0.push(r);
        ours.1.push(c);
        let ring: BurstRing<u64, 4, 1> = BurstRing::new();
        let (r, c) = run_8p8c(
            |v| ring.push_blocking(v).unwrap(),
            || ring.pop_blocking(),
            || {
                ring.close();
            },
        );
        burst.0.push(r);
        burst.1.push(c);
        // The consumers end on a sentinel each (the producers' closure still
        // borrows the sender when the close runs).
        let (tx, rx) = crossbeam_channel::bounded::<u64>(4);
        let (r, c) = run_8p8c(
            |v| tx.send(v).unwrap(),
            || rx.recv().ok().filter(|&v| v != u64::MAX),
            || (0..C).for_each(|_| tx.send(u64::MAX).unwrap()),
        );
        theirs.0.push(r);
        theirs.1.push(c);
    }
    for (name, (rates, cpus)) in [
        ("sluicegate mpmc::Ring<_, 4>", ours),
        ("sluicegate mpmc::BurstRing<_, 4, 1>", burst),
        ("crossbeam-channel bounded(4)", theirs),
    ] {
        println!(
            "8P8C blocking, {name}: median {:.3} M items/s, CPU {:.2} s (runs: {:?} M/s)",
            median(rates.clone()) / 1e6,
            median(cpus),
            rates
                .iter()
                .map(|r| (r / 1e4).round() / 100.0)
                .collect::<Vec<_>>()
        );
    }
}

fn latency() {
    const WAKEUPS: usize = 2000;
    let ring: Ring<Instant, 4> = Ring::new();
    let mut lat = thread::scope(|s| {
        let c = s.spawn(|| {
            (0..WAKEUPS)
                .map(|_| ring.pop_blocking().unwrap().elapsed())
                .collect::<Vec<_>>()
        });
        for _ in 0..WAKEUPS {
            thread::sleep(Duration::from_micros(300));
            // Blocking: a consumer held up by the machine's load (more
            // than four pushes behind) delays the stamps, never fails them.
            ring.push_blocking(Instant::now()).unwrap();
        }
        c.join().unwrap()
    });
    lat.sort_unstable();
    let p = |q: f64| lat[((lat.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6;
    println!(
        "1P1C parked wake-up latency over {WAKEUPS}: p50 {:.1} us, p99 {:.1} us, max {:.1} us",
        p(0.5),
        p(0.99),
        p(1.0)
    );
}

fn main() {
    let only = std::env::var("SLUICEGATE_WAITERS").ok();
    let run = |part: &str| only.as_deref().is_none_or(|o| o == part);
    if run("idle") {
        idle_async();
        idle_blocking();
    }
    if run("8p8c") {
        blocking_8p8c();
    }
    if run("latency") {
        latency();
    }
}
