//! How often `push_overwrite` on a full SPSC `Overwrite` ring hands the
//! *new* item back (`Overwritten::Rejected`) instead of evicting the
//! oldest, with a consumer thread that reads the way users read: `try_pop`,
//! `pop_burst` of 16, `peek` then `pop`, and a read chunk of up to 16 held
//! for 2 µs (a DMA transfer straight from the ring). A producer thread
//! pushes `ITEMS` numbers as fast as it can into a ring of 64; the consumer
//! checks that what it reads only ever increases, and the run checks the
//! accounting (every push was read, evicted, handed back, or is still in
//! the ring).
//!
//! ```text
//! cargo run --release -p sluicegate-bench --example keep_newest [ITEMS]
//! ```
//!
//! Prints, per consumer, the overflows (pushes that found the ring full),
//! the share of them answered `Rejected`, and the share of all pushes the
//! consumer received. Timed: the shares move with the machine and its load.

use sluicegate::spsc::{Consumer, Overwrite, Ring};
use sluicegate::Overwritten;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const N: usize = 64;
type Sink<'a> = Consumer<'a, u64, N, Overwrite>;

/// One consumer pattern: reads what it can once, returning the items in
/// order through `got`.
type Read = fn(&mut Sink<'_>, &mut dyn FnMut(u64));

fn by_try_pop(rx: &mut Sink<'_>, got: &mut dyn FnMut(u64)) {
    if let Some(v) = rx.try_pop() {
        got(v);
    }
}

fn by_pop_burst(rx: &mut Sink<'_>, got: &mut dyn FnMut(u64)) {
    let mut out = [0; 16];
    let n = rx.pop_burst(&mut out);
    out[..n].iter().for_each(|&v| got(v));
}

fn by_peek(rx: &mut Sink<'_>, got: &mut dyn FnMut(u64)) {
    if let Some(guard) = rx.peek() {
        let seen = *guard;
        assert_eq!(guard.pop(), seen);
        got(seen);
    }
}

fn by_held_chunk(rx: &mut Sink<'_>, got: &mut dyn FnMut(u64)) {
    let chunk = rx.read_chunk_up_to(16);
    if chunk.is_empty() {
        return;
    }
    let (a, b) = chunk.as_slices();
    a.iter().chain(b).for_each(|&v| got(v));
    // The transfer that reads the slots in place.
    let until = Instant::now() + Duration::from_micros(2);
    while Instant::now() < until {
        std::hint::spin_loop();
    }
    chunk.commit_all();
}

struct Outcome {
    stored: u64,
    evicted: u64,
    rejected: u64,
    received: u64,
}

fn run(items: u64, read: Read) -> Outcome {
    let mut ring: Ring<u64, N, Overwrite> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    let done = AtomicBool::new(false);
    let (pushed, received) = std::thread::scope(|s| {
        let done = &done;
        let consumer = s.spawn(move || {
            let mut last = None;
            let mut received = 0u64;
            let mut got = |v: u64| {
                assert!(
                    last.is_none_or(|l| v > l),
                    "out of order: {v} after {last:?}"
                );
                last = Some(v);
                received += 1;
            };
            loop {
                let finished = done.load(Ordering::Acquire);
                read(&mut rx, &mut got);
                if finished && rx.is_empty() {
                    break;
                }
            }
            received
        });
        let (mut stored, mut evicted, mut rejected) = (0, 0, 0);
        let mut oldest_gone = 0;
        for v in 0..items {
            match tx.push_overwrite(v) {
                Overwritten::Stored => stored += 1,
                Overwritten::Evicted(old) => {
                    assert!(old >= oldest_gone, "evicted {old} after {oldest_gone}");
                    oldest_gone = old;
                    evicted += 1;
                }
                Overwritten::Rejected(back) => {
                    assert_eq!(back, v);
                    rejected += 1;
                }
            }
        }
        done.store(true, Ordering::Release);
        ((stored, evicted, rejected), consumer.join().unwrap())
    });
    let (stored, evicted, rejected) = pushed;
    assert_eq!(stored + evicted + rejected, items);
    // Each push answered `Stored` or `Evicted` put its item in, each
    // eviction took one out, and the consumer drained the ring.
    assert_eq!(received, stored, "accounting");
    Outcome {
        stored,
        evicted,
        rejected,
        received,
    }
}

fn main() {
    let items: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    println!("spsc::Ring<u64, {N}, Overwrite>, {items} pushes per consumer");
    let consumers: [(&str, Read); 4] = [
        ("try_pop", by_try_pop),
        ("pop_burst(16)", by_pop_burst),
        ("peek, then pop", by_peek),
        ("chunk of 16 held 2 us", by_held_chunk),
    ];
    for (name, read) in consumers {
        let o = run(items, read);
        let overflows = o.evicted + o.rejected;
        println!(
            "{name:<22} overflows {overflows:>9}  rejected {:>5.1} % of them  received {:>5.1} % of pushes  (stored {}, evicted {}, rejected {})",
            100.0 * o.rejected as f64 / overflows.max(1) as f64,
            100.0 * o.received as f64 / items as f64,
            o.stored,
            o.evicted,
            o.rejected,
        );
    }
}
