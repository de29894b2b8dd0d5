//! The watermarks' waits and slowed sources of an MPMC ring, shared by
//! `tests/watermark_cs.rs` (`mpmc::cs::Ring`), `tests/watermark_burst.rs`
//! (`mpmc::BurstRing`) and `tests/watermark_mpmc.rs` (`mpmc::Ring`): all
//! promise the same drain waits, so one set of tests holds each to it. The including file names its ring with marks
//! `crate::MarkedRing<T, N>` (for `N` up to 16) and says whether its `peak`
//! is exact at 16 slots (`crate::EXACT_PEAK`), and calls
//! `drain_wait_tests!()` for the `#[test]` functions. Needs `std`.

use crate::{MarkedRing, EXACT_PEAK};
use sluicegate::Closed;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// `level()`'s type for both rings.
pub use sluicegate::spsc::Level;

/// Producers that test the level after each push and wait for the drain on
/// `High` shed nothing; each item arrives once, in its producer's order;
/// the ring ends `Normal` after an even number of transitions. Where
/// `peak` is exact, the queue was never more than one item per producer
/// beyond the one that raised it (each producer tests the level after its
/// own push).
pub fn slowable_sources(producers: usize) {
    const PER: usize = if cfg!(miri) { 200 } else { 20_000 };
    static RING: [MarkedRing<usize, 16>; 4] = [
        MarkedRing::with_watermarks(4, 12),
        MarkedRing::with_watermarks(4, 12),
        MarkedRing::with_watermarks(4, 12),
        MarkedRing::with_watermarks(4, 12),
    ];
    let ring = &RING[producers - 1];
    let seen = std::thread::scope(|s| {
        for p in 0..producers {
            s.spawn(move || {
                for i in 0..PER {
                    ring.push_blocking(p * PER + i).unwrap();
                    if ring.level() == Level::High {
                        ring.wait_below_low_blocking().unwrap();
                    }
                }
            });
        }
        let consumer = s.spawn(move || {
            // Nothing is popped before the first raise: the producers must
            // meet the high mark at least once, whatever the schedule.
            while ring.level() == Level::Normal {
                std::thread::yield_now();
            }
            let mut seen = vec![false; producers * PER];
            let mut last = vec![None; producers];
            for n in 0..producers * PER {
                let v = ring.pop_blocking().unwrap();
                assert!(!seen[v], "{v} twice");
                seen[v] = true;
                let p = v / PER;
                assert!(last[p] < Some(v), "producer {p} out of order");
                last[p] = Some(v);
                if n % 64 == 0 {
                    std::thread::yield_now(); // slower than the producers
                }
            }
            seen
        });
        consumer.join().unwrap()
    });
    assert!(seen.iter().all(|&s| s));
    let stats = ring.stats();
    assert_eq!(stats.rejected, 0);
    if EXACT_PEAK {
        assert!(stats.peak < 12 + producers, "peak {}", stats.peak);
    }
    assert!(
        stats.transitions >= 2,
        "never raised: {}",
        stats.transitions
    );
    assert_eq!(stats.transitions % 2, 0, "ends High on a drained ring");
    assert_eq!(ring.level(), Level::Normal);
}

/// Three threads wait for the drain of a `High` ring; the close ends their
/// waits with `Closed`, and leaves the items inside.
pub fn the_close_ends_the_drain_waits() {
    static RING: MarkedRing<u8, 4> = MarkedRing::with_watermarks(0, 2);
    RING.push_blocking(1).unwrap();
    RING.push_blocking(2).unwrap();
    std::thread::scope(|s| {
        let waiters: Vec<_> = (0..3)
            .map(|_| s.spawn(|| RING.wait_below_low_blocking()))
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(20));
        RING.close();
        for w in waiters {
            assert_eq!(w.join().unwrap(), Err(Closed(())));
        }
    });
    assert_eq!(RING.len(), 2);
}

#[path = "wake_count.rs"]
mod wake_count;
use wake_count::Count;

/// Three tasks wait for the drain of a ring at 6 (marks 2 and 6): the pops
/// down to 3 wake none of them, the one that leaves 2 wakes each once.
pub fn async_drain_waiters_wake_only_on_the_crossing_pop() {
    let ring: MarkedRing<u8, 8> = MarkedRing::with_watermarks(2, 6);
    for _ in 0..6 {
        ring.push_blocking(0).unwrap();
    }
    let wakes: Vec<_> = (0..3).map(|_| Arc::new(Count::default())).collect();
    let wakers: Vec<Waker> = wakes.iter().map(|w| Waker::from(w.clone())).collect();
    let mut f0 = pin!(ring.wait_below_low());
    let mut f1 = pin!(ring.wait_below_low());
    let mut f2 = pin!(ring.wait_below_low());
    let mut futs = [f0.as_mut(), f1.as_mut(), f2.as_mut()];
    for (f, w) in futs.iter_mut().zip(&wakers) {
        assert!(f.as_mut().poll(&mut Context::from_waker(w)).is_pending());
    }
    for _ in 0..3 {
        ring.pop_blocking().unwrap();
    }
    assert!(wakes.iter().all(|w| w.wakes() == 0));
    ring.pop_blocking().unwrap();
    assert!(wakes.iter().all(|w| w.wakes() == 1));
    for (f, w) in futs.iter_mut().zip(&wakers) {
        assert_eq!(
            f.as_mut().poll(&mut Context::from_waker(w)),
            Poll::Ready(Ok(()))
        );
    }
}

/// Waiters dropped while they wait leave the list before their memory
/// goes: the lowering then wakes the one kept and touches no freed node.
pub fn a_dropped_drain_waiter_leaves_the_list() {
    let ring: MarkedRing<u8, 4> = MarkedRing::with_watermarks(0, 2);
    ring.push_blocking(1).unwrap();
    ring.push_blocking(2).unwrap();
    let waker = futures::task::noop_waker();
    for _ in 0..3 {
        let mut f = Box::pin(ring.wait_below_low());
        assert!(f
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        drop(f);
    }
    let mut kept = Box::pin(ring.wait_below_low());
    assert!(kept
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    ring.clear();
    assert!(kept
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_ready());
}

/// A drain waiter woken by the lowering that polls only after the count
/// rose above the low mark again (the level still `Normal`) must finish:
/// no other lowering is coming to wake it.
pub fn a_woken_drain_waiter_finishes_after_the_count_rose_again() {
    let ring: MarkedRing<u8, 8> = MarkedRing::with_watermarks(2, 6);
    for _ in 0..6 {
        ring.push_blocking(0).unwrap();
    }
    let waker = futures::task::noop_waker();
    let mut wait = Box::pin(ring.wait_below_low());
    assert!(wait
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    for _ in 0..4 {
        ring.pop_blocking().unwrap(); // down to 2: Normal, the waiter is woken
    }
    for _ in 0..3 {
        ring.push_blocking(0).unwrap(); // 5, still Normal
    }
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(
        wait.as_mut().poll(&mut Context::from_waker(&waker)),
        Poll::Ready(Ok(()))
    );
}

/// The `#[test]` functions that run the tests above, in the including file.
macro_rules! drain_wait_tests {
    () => {
        #[test]
        fn one_slowable_source_sheds_nothing() {
            drain_waits::slowable_sources(1);
        }

        #[test]
        fn four_slowable_sources_shed_nothing() {
            drain_waits::slowable_sources(4);
        }

        #[test]
        fn the_close_ends_the_drain_waits() {
            drain_waits::the_close_ends_the_drain_waits();
        }

        #[test]
        fn async_drain_waiters_wake_only_on_the_crossing_pop() {
            drain_waits::async_drain_waiters_wake_only_on_the_crossing_pop();
        }

        #[test]
        fn a_dropped_drain_waiter_leaves_the_list() {
            drain_waits::a_dropped_drain_waiter_leaves_the_list();
        }

        #[test]
        fn a_woken_drain_waiter_finishes_after_the_count_rose_again() {
            drain_waits::a_woken_drain_waiter_finishes_after_the_count_rose_again();
        }
    };
}
