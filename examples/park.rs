//! What a parked `pop_blocking` costs (feature `std`): the CPU time of a
//! thread blocked for one second on an empty ring, and the wake-up latency
//! from a `try_push` on another thread to the blocked `pop_blocking`
//! returning (p50/p99 over many wake-ups), for the SPSC and the MPMC ring.
//!
//! ```text
//! cargo run --release --features std --example park
//! ```
//!
//! Timed figures: they depend on the machine and its load. The CPU time is
//! read from `/proc/thread-self/schedstat` (Linux).

use sluicegate::{mpmc, spsc};
use std::thread;
use std::time::{Duration, Instant};

/// Nanoseconds of CPU this thread has used (Linux), if readable.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn report_cpu(name: &str, cpu: Option<(u64, Duration)>) {
    match cpu {
        Some((ns, wall)) => println!(
            "{name}: blocked {:.3} s, thread CPU {:.3} ms = {:.3} % of a core",
            wall.as_secs_f64(),
            ns as f64 / 1e6,
            ns as f64 / wall.as_nanos() as f64 * 100.0
        ),
        None => println!("{name}: /proc/thread-self/schedstat not readable"),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn report_latency(name: &str, mut lat: Vec<Duration>) {
    lat.sort_unstable();
    println!(
        "{name}: wake-up latency over {} wake-ups: p50 {:.1} us, p99 {:.1} us, max {:.1} us",
        lat.len(),
        percentile(&lat, 0.5).as_secs_f64() * 1e6,
        percentile(&lat, 0.99).as_secs_f64() * 1e6,
        lat.last().unwrap().as_secs_f64() * 1e6
    );
}

const WAKEUPS: usize = 2000;
const GAP: Duration = Duration::from_micros(300);

fn main() {
    // SPSC: CPU while blocked.
    let mut ring: spsc::Ring<Instant, 4> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    let cpu = thread::scope(|s| {
        let c = s.spawn(move || {
            let start = (thread_cpu_ns(), Instant::now());
            rx.pop_blocking().unwrap();
            let end = (thread_cpu_ns(), Instant::now());
            let lat: Vec<_> = (0..WAKEUPS)
                .map(|_| rx.pop_blocking().unwrap().elapsed())
                .collect();
            (
                start.0.zip(end.0).map(|(a, b)| (b - a, end.1 - start.1)),
                lat,
            )
        });
        thread::sleep(Duration::from_secs(1));
        tx.try_push(Instant::now()).unwrap();
        // Latency: one item at a time, the consumer parked before each.
        for _ in 0..WAKEUPS {
            thread::sleep(GAP);
            while tx.try_push(Instant::now()).is_err() {}
        }
        c.join().unwrap()
    });
    report_cpu("spsc pop_blocking", cpu.0);
    report_latency("spsc pop_blocking", cpu.1);

    // MPMC: the same.
    let ring: mpmc::Ring<Instant, 4> = mpmc::Ring::new();
    let cpu = thread::scope(|s| {
        let c = s.spawn(|| {
            let start = (thread_cpu_ns(), Instant::now());
            ring.pop_blocking().unwrap();
            let end = (thread_cpu_ns(), Instant::now());
            let lat: Vec<_> = (0..WAKEUPS)
                .map(|_| ring.pop_blocking().unwrap().elapsed())
                .collect();
            (
                start.0.zip(end.0).map(|(a, b)| (b - a, end.1 - start.1)),
                lat,
            )
        });
        thread::sleep(Duration::from_secs(1));
        ring.try_push(Instant::now()).unwrap();
        for _ in 0..WAKEUPS {
            thread::sleep(GAP);
            while ring.try_push(Instant::now()).is_err() {}
        }
        c.join().unwrap()
    });
    report_cpu("mpmc pop_blocking", cpu.0);
    report_latency("mpmc pop_blocking", cpu.1);
}
