//! Multi-threaded stress of `mpmc::cs::Ring` on `critical-section`'s std
//! implementation, with exact accounting: every item pushed is popped,
//! evicted or handed back, exactly once; every consumer sees each producer's
//! items in push order; the counters equal what the callers saw.
#![cfg(not(sluicegate_loom))]

use core::sync::atomic::{AtomicUsize, Ordering};
use sluicegate::mpmc::cs::Ring;
use sluicegate::Overwritten;
use std::sync::Barrier;
use std::thread;

#[path = "common/ledger.rs"]
mod ledger;
use ledger::{item, Ledger, Order};

const PRODUCERS: usize = 4;
const CONSUMERS: usize = 4;

fn per_producer() -> usize {
    if cfg!(miri) {
        60
    } else {
        100_000
    }
}

fn run<const N: usize>(overwrite: bool) {
    let m = per_producer();
    let ring = Ring::<u64, N>::new();
    let ledger = Ledger::new(m);
    let (popped, evicted, full) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let producers_done = AtomicUsize::new(0);
    let start = Barrier::new(PRODUCERS + CONSUMERS);
    thread::scope(|sc| {
        for p in 0..PRODUCERS {
            let (ring, ledger, start) = (&ring, &ledger, &start);
            let (evicted, full, done) = (&evicted, &full, &producers_done);
            sc.spawn(move || {
                start.wait();
                let mut order = Order::new();
                for s in 0..m {
                    let mut v = item(p, s);
                    if overwrite {
                        if s % 8 == 0 {
                            thread::yield_now(); // let the consumers in
                        }
                        match ring.push_overwrite(v) {
                            Overwritten::Stored => {}
                            Overwritten::Evicted(old) => {
                                order.check(old);
                                ledger.mark(old);
                                evicted.fetch_add(1, Ordering::Relaxed);
                            }
                            Overwritten::Rejected(_) => panic!("cs ring rejected an overwrite"),
                        }
                    } else {
                        while let Err(e) = ring.try_push(v) {
                            full.fetch_add(1, Ordering::Relaxed);
                            v = e.into_inner();
                            thread::yield_now();
                        }
                    }
                }
                done.fetch_add(1, Ordering::Release);
            });
        }
        for _ in 0..CONSUMERS {
            let (ring, ledger, start) = (&ring, &ledger, &start);
            let (popped, done) = (&popped, &producers_done);
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
    assert!(
        ring.is_empty(),
        "consumers drain after the producers finish"
    );
    ledger.assert_complete();
    let (popped, evicted, full) = (popped.into_inner(), evicted.into_inner(), full.into_inner());
    assert_eq!(popped + evicted, PRODUCERS * m, "pushed = popped + evicted");
    assert_eq!(ring.stats().overwritten, evicted);
    assert_eq!(ring.stats().rejected, full);
    if !overwrite {
        assert_eq!(evicted, 0);
    }
    eprintln!("N={N} overwrite={overwrite}: popped {popped}, evicted {evicted}, Full {full}");
}

#[test]
fn stress_4x4_try_push_exact_accounting() {
    run::<8>(false);
    run::<1024>(false);
}

#[test]
fn stress_4x4_push_overwrite_exact_accounting() {
    run::<8>(true);
    run::<64>(true);
}

/// More threads (8) than slots: still exact accounting and order.
#[test]
fn stress_more_threads_than_capacity() {
    run::<1>(true);
    run::<1>(false);
    run::<2>(true);
    run::<2>(false);
}

/// heapless #583's scenario: two threads each pop one item and push it back
/// on a full ring. Every pop finds an item and every push finds a slot,
/// since no operation is ever half done when another one looks.
#[test]
fn no_spurious_full_pop_then_push_on_full_ring() {
    let iters = if cfg!(miri) { 200 } else { 200_000 };
    let ring = Ring::<u64, 4>::new();
    for i in 0..4 {
        ring.try_push(i).unwrap();
    }
    let start = Barrier::new(2);
    thread::scope(|sc| {
        for _ in 0..2 {
            let (ring, start) = (&ring, &start);
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
    assert_eq!(left, [0, 1, 2, 3]);
}
