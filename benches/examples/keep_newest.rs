//! How often `push_overwrite` on a full ring hands the *new* item back
//! instead of evicting the oldest, with a consumer thread that reads the
//! way users read. On the SPSC `Overwrite` ring: `try_pop`, `pop_burst` of
//! 16, `peek` then `pop`, and a read chunk of up to 16 held for 2 µs (a DMA
//! transfer straight from the ring); on `mpmc::Ring`: `try_pop` and
//! `pop_burst`; on the `BurstRing`: `try_pop`, `pop_burst` and the held
//! chunk (its refusals are `Busy`). A producer thread pushes `ITEMS`
//! numbers as fast as it can into a ring of 64; the consumer checks that
//! what it reads only ever increases, and the run checks the accounting
//! (every push was read, evicted or handed back).
//!
//! ```text
//! cargo run --release -p sluicegate-bench --example keep_newest [ITEMS]
//! ```
//!
//! Prints, per consumer, the overflows (pushes that found the ring full),
//! the share of them that handed the new item back, and the share of all pushes the
//! consumer received. Timed: the shares move with the machine and its load.

use sluicegate::mpmc::{self, burst_ring::BurstRing};
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

/// What one `push_overwrite` answered.
enum Answer {
    Stored,
    Evicted(u64),
    /// The new item handed back (`Rejected`, or the burst ring's `Busy`).
    Refused(u64),
}

/// Pushes `0..items` through `push` on this thread while another thread
/// reads with `read` (which returns `false` when it read nothing), checks
/// the order and the accounting, and counts the answers.
fn run_with<P, R>(items: u64, mut push: P, mut read: R) -> Outcome
where
    P: FnMut(u64) -> Answer,
    R: FnMut(&mut dyn FnMut(u64)) -> bool + Send,
{
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
                if !read(&mut got) && finished {
                    break;
                }
            }
            received
        });
        let (mut stored, mut evicted, mut rejected) = (0, 0, 0);
        let mut oldest_gone = 0;
        for v in 0..items {
            match push(v) {
                Answer::Stored => stored += 1,
                Answer::Evicted(old) => {
                    assert!(old >= oldest_gone, "evicted {old} after {oldest_gone}");
                    oldest_gone = old;
                    evicted += 1;
                }
                Answer::Refused(back) => {
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

fn answer(o: Overwritten<u64>) -> Answer {
    match o {
        Overwritten::Stored => Answer::Stored,
        Overwritten::Evicted(old) => Answer::Evicted(old),
        Overwritten::Rejected(back) => Answer::Refused(back),
    }
}

fn run(items: u64, read: Read) -> Outcome {
    let mut ring: Ring<u64, N, Overwrite> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    run_with(
        items,
        |v| answer(tx.push_overwrite(v)),
        |got| {
            let had = !rx.is_empty();
            read(&mut rx, got);
            had
        },
    )
}

/// The same run on an `mpmc::Ring` (no peek or chunks there: a pop holds
/// the one slot whose index it took, a burst those of its round).
fn run_mpmc(items: u64, burst: bool) -> Outcome {
    let ring: mpmc::Ring<u64, N> = mpmc::Ring::new();
    let ring = &ring;
    run_with(
        items,
        |v| answer(ring.push_overwrite(v)),
        move |got| {
            if burst {
                let mut out = [0; 16];
                let n = ring.pop_burst(&mut out);
                out[..n].iter().for_each(|&v| got(v));
                n > 0
            } else {
                ring.try_pop().map(got).is_some()
            }
        },
    )
}

/// How the consumer of a [`BurstRing`] reads.
#[derive(Clone, Copy)]
enum BurstRead {
    TryPop,
    PopBurst,
    HeldChunk,
}

/// The same run on a [`BurstRing`], whose `push_overwrite` answers `Busy`
/// (counted here as refused) where the oldest item is being read.
fn run_burst(items: u64, how: BurstRead) -> Outcome {
    let ring: BurstRing<u64, N, 2> = BurstRing::new();
    let ring = &ring;
    run_with(
        items,
        |v| match ring.push_overwrite(v) {
            Ok(None) => Answer::Stored,
            Ok(Some(old)) => Answer::Evicted(old),
            Err(e) => Answer::Refused(e.into_inner()),
        },
        move |got| match how {
            BurstRead::TryPop => ring.try_pop().map(got).is_ok(),
            BurstRead::PopBurst => {
                let mut out = [0; 16];
                let n = ring.pop_burst(&mut out).count;
                out[..n].iter().for_each(|&v| got(v));
                n > 0
            }
            BurstRead::HeldChunk => match ring.read_chunk(16) {
                Ok(chunk) => {
                    let (a, b) = chunk.as_slices();
                    a.iter().chain(b).for_each(|&v| got(v));
                    let until = Instant::now() + Duration::from_micros(2);
                    while Instant::now() < until {
                        std::hint::spin_loop();
                    }
                    chunk.release();
                    true
                }
                Err(_) => false,
            },
        },
    )
}

fn report(name: &str, items: u64, o: Outcome) {
    let overflows = o.evicted + o.rejected;
    println!(
        "{name:<22} overflows {overflows:>9}  refused {:>5.1} % of them  received {:>5.1} % of pushes  (stored {}, evicted {}, refused {})",
        100.0 * o.rejected as f64 / overflows.max(1) as f64,
        100.0 * o.received as f64 / items as f64,
        o.stored,
        o.evicted,
        o.rejected,
    );
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
        report(name, items, run(items, read));
    }
    println!("mpmc::Ring<u64, {N}>, one producer and one consumer thread");
    report("try_pop", items, run_mpmc(items, false));
    report("pop_burst(16)", items, run_mpmc(items, true));
    println!("mpmc::burst_ring::BurstRing<u64, {N}, 2>, one producer and one consumer thread");
    for (name, how) in [
        ("try_pop", BurstRead::TryPop),
        ("pop_burst(16)", BurstRead::PopBurst),
        ("chunk of 16 held 2 us", BurstRead::HeldChunk),
    ] {
        report(name, items, run_burst(items, how));
    }
}
