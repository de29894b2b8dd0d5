//! Rings under overload: what a bounded ring that rejects (or overwrites the
//! oldest) buys against an unbounded queue.
//!
//! A server takes one item per `SERVICE` ticks; arrivals come at a steady
//! random rate from half to three times what it can serve. Time is virtual
//! (a seeded generator, one simulated tick at a time), so the numbers are the
//! same on every machine; the queues are the crate's real rings.
//!
//! Run: `cargo run --release --example overload`

use std::collections::VecDeque;

use sluicegate::spsc::{Overwrite, Reject, Ring};

/// Ticks the server spends on one item.
const SERVICE: u64 = 10;
/// Ticks simulated per run.
const TICKS: u64 = 400_000;
/// Ring capacity.
const CAP: usize = 64;

/// xorshift64*: small, seeded, good enough for arrivals.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// True with probability `num / den`.
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next() % den < num
    }
}

/// A queue policy: offer an arrival (stamped with its arrival tick), take the next.
trait Queue {
    /// Returns how many items were shed by this offer (0 or 1).
    fn offer(&mut self, arrived: u64) -> u64;
    fn take(&mut self) -> Option<u64>;
    fn len(&self) -> usize;
}

struct Unbounded(VecDeque<u64>);
impl Queue for Unbounded {
    fn offer(&mut self, arrived: u64) -> u64 {
        self.0.push_back(arrived);
        0
    }
    fn take(&mut self) -> Option<u64> {
        self.0.pop_front()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

struct Rejecting<'a>(
    sluicegate::spsc::Producer<'a, u64, CAP, Reject>,
    sluicegate::spsc::Consumer<'a, u64, CAP, Reject>,
);
impl Queue for Rejecting<'_> {
    fn offer(&mut self, arrived: u64) -> u64 {
        self.0.try_push(arrived).is_err() as u64
    }
    fn take(&mut self) -> Option<u64> {
        self.1.try_pop()
    }
    fn len(&self) -> usize {
        self.1.len()
    }
}

struct Overwriting<'a>(
    sluicegate::spsc::Producer<'a, u64, CAP, Overwrite>,
    sluicegate::spsc::Consumer<'a, u64, CAP, Overwrite>,
);
impl Queue for Overwriting<'_> {
    fn offer(&mut self, arrived: u64) -> u64 {
        self.0.push_overwrite(arrived).is_some() as u64
    }
    fn take(&mut self) -> Option<u64> {
        self.1.try_pop()
    }
    fn len(&self) -> usize {
        self.1.len()
    }
}

struct Outcome {
    offered: u64,
    served: u64,
    shed: u64,
    p50: u64,
    p99: u64,
    peak_queue: usize,
}

/// Load is in percent of capacity.
fn run(queue: &mut dyn Queue, load_pct: u64, seed: u64) -> Outcome {
    let mut rng = Rng(seed);
    let mut latencies = Vec::new();
    let (mut offered, mut shed, mut peak) = (0, 0, 0);
    let mut busy_until = 0;
    for now in 0..TICKS {
        // Arrival with probability load / SERVICE per tick.
        if rng.chance(load_pct, 100 * SERVICE) {
            offered += 1;
            shed += queue.offer(now);
            peak = peak.max(queue.len());
        }
        if now >= busy_until {
            if let Some(arrived) = queue.take() {
                busy_until = now + SERVICE;
                latencies.push(busy_until - arrived);
            }
        }
    }
    latencies.sort_unstable();
    let pct = |p: usize| {
        latencies
            .get(latencies.len() * p / 100)
            .copied()
            .unwrap_or(0)
    };
    Outcome {
        offered,
        served: latencies.len() as u64,
        shed,
        p50: pct(50),
        p99: pct(99),
        peak_queue: peak,
    }
}

fn main() {
    println!("server: 1 item per {SERVICE} ticks; {TICKS} ticks per run; ring capacity {CAP}");
    println!("latency in ticks (arrival to end of service); unloaded latency = {SERVICE}\n");
    println!(
        "| {:<18} | {:>5} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>10} |",
        "policy", "load", "offered", "served", "shed", "p50", "p99", "peak queue"
    );
    println!(
        "|{:-<20}|{:->7}|{:->10}|{:->10}|{:->10}|{:->10}|{:->10}|{:->12}|",
        "", "", "", "", "", "", "", ""
    );
    for load in [50, 90, 150, 200, 300] {
        let mut reject_ring: Ring<u64, CAP, Reject> = Ring::new();
        let mut overwrite_ring: Ring<u64, CAP, Overwrite> = Ring::new();
        let (rt, rr) = reject_ring.split();
        let (ot, or) = overwrite_ring.split();
        let mut queues: [(&str, Box<dyn Queue>); 3] = [
            ("unbounded queue", Box::new(Unbounded(VecDeque::new()))),
            ("ring, reject", Box::new(Rejecting(rt, rr))),
            ("ring, drop oldest", Box::new(Overwriting(ot, or))),
        ];
        for (name, q) in queues.iter_mut() {
            let o = run(q.as_mut(), load, 0x5eed + load);
            println!(
                "| {:<18} | {:>4}% | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>10} |",
                name, load, o.offered, o.served, o.shed, o.p50, o.p99, o.peak_queue
            );
        }
    }
    println!("\nAbove 100% load the unbounded queue's p99 grows with the length of the run;");
    println!("the rings keep it bounded by capacity x service time and count what they shed.");
}
