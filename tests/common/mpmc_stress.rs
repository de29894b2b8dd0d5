//! The threaded stress every MPMC ring passes, shared by
//! `tests/mpmc_stress.rs` (`mpmc::Ring` and its pools) and
//! `tests/mpmc_cs_stress.rs` (`mpmc::cs::Ring`), each of which implements
//! the contract's [`Mpmc`] for its rings: [`run`], producers and consumers
//! with exact accounting, and [`pop_then_push_never_full`] (heapless #583).

#[path = "ledger.rs"]
pub mod ledger;

use crate::contract::Mpmc;
use ledger::{item, Ledger, Order};
use sluicegate::Overwritten;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;
use std::thread;

pub const PRODUCERS: usize = 4;
pub const CONSUMERS: usize = 4;

/// How many `Full` answers a `try_push` producer takes for one item before
/// it gives the item up. Unbounded on real threads. Under Miri some
/// schedules (seeds) of eight threads retrying over one slot ran for more
/// than a quarter of an hour, against ten seconds for most; the bound keeps
/// every schedule's work finite.
fn max_tries() -> usize {
    if cfg!(miri) {
        256
    } else {
        usize::MAX
    }
}

/// What became of the items of a [`run`], as its threads saw them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub popped: usize,
    /// Evicted by a `push_overwrite` (an older item handed back).
    pub evicted: usize,
    /// Handed back by `push_overwrite` as its own item (`Rejected`).
    pub handed_back: usize,
    /// Given up by a `try_push` producer after [`max_tries`] `Full`s.
    pub given_up: usize,
    /// `Full` answers to `try_push`.
    pub full: usize,
}

/// [`PRODUCERS`] producers push `per` items each into `ring` (with
/// `push_overwrite` if `overwrite`, else `try_push` until the item goes in)
/// while [`CONSUMERS`] consumers pop until the producers are done and the
/// ring is empty. Checks that every item was popped, evicted, handed back or
/// given up, exactly once; that every consumer, and every producer among
/// the items it evicted, saw each producer's items in push order; that the
/// ring was left empty; and that its counters equal what the threads saw.
/// Returns the counts, for the caller's checks of what its ring may answer.
pub fn run<R: Mpmc<u64> + Sync>(ring: &R, per: usize, overwrite: bool) -> Counts {
    let ledger = Ledger::new(per);
    let tally: [AtomicUsize; 5] = Default::default();
    let [popped, evicted, handed_back, given_up, full] = &tally;
    let producers_done = AtomicUsize::new(0);
    let start = Barrier::new(PRODUCERS + CONSUMERS);
    let (ledger, done, start) = (&ledger, &producers_done, &start);
    thread::scope(|sc| {
        for p in 0..PRODUCERS {
            sc.spawn(move || {
                start.wait();
                let mut order = Order::new();
                for s in 0..per {
                    let mut v = item(p, s);
                    if overwrite {
                        if s % 8 == 0 {
                            // Let the consumers in: on few cores they would
                            // otherwise see nothing but evictions.
                            thread::yield_now();
                        }
                        match ring.push_overwrite(v) {
                            Overwritten::Stored => {}
                            Overwritten::Evicted(old) => {
                                order.check(old);
                                ledger.mark(old);
                                evicted.fetch_add(1, Ordering::Relaxed);
                            }
                            Overwritten::Rejected(back) => {
                                ledger.mark(back);
                                handed_back.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    } else {
                        let mut tries = 0;
                        while let Err(e) = ring.try_push(v) {
                            full.fetch_add(1, Ordering::Relaxed);
                            tries += 1;
                            v = e.into_inner();
                            if tries == max_tries() {
                                // Give the item up, as a caller that sheds
                                // would: it is accounted for, not pushed.
                                ledger.mark(v);
                                given_up.fetch_add(1, Ordering::Relaxed);
                                break;
                            }
                            thread::yield_now();
                        }
                    }
                }
                done.fetch_add(1, Ordering::Release);
            });
        }
        for _ in 0..CONSUMERS {
            sc.spawn(move || {
                start.wait();
                let mut order = Order::new();
                loop {
                    // The flag before the pop: if every producer had finished
                    // and the pop still finds nothing, nothing more can come.
                    let finished = done.load(Ordering::Acquire) == PRODUCERS;
                    match ring.try_pop() {
                        Some(v) => {
                            order.check(v);
                            ledger.mark(v);
                            popped.fetch_add(1, Ordering::Relaxed);
                        }
                        None if finished => break,
                        None => thread::yield_now(),
                    }
                }
            });
        }
    });
    let mut remaining = 0;
    while let Some(v) = ring.try_pop() {
        ledger.mark(v);
        remaining += 1;
    }
    assert_eq!(remaining, 0, "consumers drain after the producers finish");
    assert!(ring.is_empty());
    ledger.assert_complete();
    let [popped, evicted, handed_back, given_up, full] = tally.map(AtomicUsize::into_inner);
    let counts = Counts {
        popped,
        evicted,
        handed_back,
        given_up,
        full,
    };
    assert_eq!(
        popped + evicted + handed_back + given_up,
        PRODUCERS * per,
        "pushed = popped + evicted + handed back + given up: {counts:?}"
    );
    let stats = ring.stats();
    assert_eq!(stats.overwritten, evicted, "{counts:?}");
    assert_eq!(stats.rejected, handed_back + full, "{counts:?}");
    if overwrite {
        assert_eq!((full, given_up), (0, 0));
    } else {
        assert_eq!((evicted, handed_back), (0, 0));
    }
    eprintln!("N={} overwrite={overwrite}: {counts:?}", ring.capacity());
    counts
}

/// heapless #583: with Vyukov's queue, two threads that each pop one item
/// and push it back on a full ring see spurious `Full` (a pop that claimed
/// its slot but has not released it yet blocks the other thread's push).
/// Here, on a full `ring` (holding `0..capacity`), every pop finds an item
/// and every push finds a slot, `iters` times on each of two threads.
pub fn pop_then_push_never_full<R: Mpmc<u64> + Sync>(ring: &R, iters: usize) {
    let n = ring.capacity() as u64;
    assert_eq!(ring.len() as u64, n, "start from a full ring");
    let start = Barrier::new(2);
    thread::scope(|sc| {
        for _ in 0..2 {
            let start = &start;
            sc.spawn(move || {
                start.wait();
                for _ in 0..iters {
                    let v = ring.try_pop().expect("a full ring looked empty");
                    ring.try_push(v).expect("spurious Full");
                }
            });
        }
    });
    assert_eq!(ring.stats().rejected, 0);
    let mut left: Vec<u64> = core::iter::from_fn(|| ring.try_pop()).collect();
    left.sort_unstable();
    assert_eq!(left, (0..n).collect::<Vec<_>>());
}
