//! The critical-section ring's watermarks: the level at the band's edges,
//! hysteresis without flapping, the transition count, every push and pop
//! path that moves the level, a ring without marks that has none, and real
//! threads where producers slow their source on `High` (exact accounting,
//! nothing shed, the queue never above the high mark). The waits need
//! `std` (and the async one `async`).
#![cfg(not(sluicegate_loom))]

use sluicegate::expire::{OlderThan, Stamp};
use sluicegate::mpmc::cs::{Level, Marked, Ring};
use sluicegate::RingStats;

#[test]
fn band_edges_every_pair_of_marks() {
    // Every (low, high) on a ring of 8: up to high - 1 items it stays
    // Normal; the push that leaves high raises it; pops down to low + 1 keep
    // it High; the pop that leaves low lowers it.
    for high in 1..=8 {
        for low in 0..high {
            let ring: Ring<u32, 8, Marked> = Ring::with_watermarks(low, high);
            assert_eq!(ring.watermarks(), (low, high));
            for round in 0..3 {
                for i in 0..high {
                    assert_eq!(ring.level(), Level::Normal, "low {low} high {high} at {i}");
                    ring.try_push(i as u32).unwrap();
                }
                assert_eq!(ring.level(), Level::High, "low {low} high {high}");
                // Fill to N, and evict: still High, no new transition.
                while ring.try_push(0).is_ok() {}
                let _ = ring.push_overwrite(0);
                assert_eq!(ring.level(), Level::High);
                while ring.len() > low + 1 {
                    ring.try_pop().unwrap();
                    assert_eq!(ring.level(), Level::High, "low {low} high {high}");
                }
                ring.try_pop().unwrap();
                assert_eq!(ring.level(), Level::Normal, "low {low} high {high}");
                assert_eq!(ring.len(), low);
                ring.clear();
                assert_eq!(ring.level(), Level::Normal, "round {round}");
                assert_eq!(ring.stats().transitions, 2 * (round + 1));
            }
        }
    }
}

#[test]
fn hysteresis_does_not_flap_inside_the_band() {
    static RING: Ring<u8, 16, Marked> = Ring::with_watermarks(4, 12);
    for _ in 0..12 {
        RING.try_push(1).unwrap();
    }
    assert_eq!(RING.level(), Level::High);
    // Oscillate between 5 and 11 many times: High throughout.
    for _ in 0..100 {
        while RING.len() > 5 {
            RING.try_pop();
            assert_eq!(RING.level(), Level::High);
        }
        while RING.len() < 11 {
            RING.try_push(1).unwrap();
            assert_eq!(RING.level(), Level::High);
        }
    }
    assert_eq!(RING.stats().transitions, 1);
    // Down to 4 lowers it; then between 5 and 11 again: Normal throughout.
    while RING.len() > 4 {
        RING.try_pop();
    }
    assert_eq!(RING.level(), Level::Normal);
    for _ in 0..100 {
        while RING.len() < 11 {
            RING.try_push(1).unwrap();
            assert_eq!(RING.level(), Level::Normal);
        }
        while RING.len() > 5 {
            RING.try_pop();
            assert_eq!(RING.level(), Level::Normal);
        }
    }
    assert_eq!(RING.stats().transitions, 2);
}

#[test]
fn a_ring_without_marks_counts_no_transition() {
    let ring: Ring<u8, 4> = Ring::new();
    for _ in 0..10 {
        ring.push_burst(&[1, 2, 3, 4, 5]);
        ring.clear();
    }
    let stats = ring.stats();
    assert_eq!(stats.transitions, 0);
    assert_eq!(stats.rejected, 10);
}

/// Raises the level with `push` (from 0 items to the high mark 3 of a
/// ring of 4, low mark 1), then lowers it with `pop` (down to 1): each
/// closure moves one item or a few, as its path does.
fn check_path(
    name: &str,
    push: impl Fn(&Ring<u32, 4, Marked>),
    pop: impl Fn(&Ring<u32, 4, Marked>),
) {
    let ring: Ring<u32, 4, Marked> = Ring::with_watermarks(1, 3);
    while ring.len() < 3 {
        assert_eq!(ring.level(), Level::Normal, "{name}: raised early");
        push(&ring);
    }
    assert_eq!(ring.level(), Level::High, "{name}: did not raise");
    while ring.len() > 1 {
        assert_eq!(ring.level(), Level::High, "{name}: lowered early");
        pop(&ring);
    }
    assert_eq!(ring.level(), Level::Normal, "{name}: did not lower");
    assert_eq!(ring.stats().transitions, 2, "{name}");
}

#[test]
fn every_push_and_pop_path_moves_the_level() {
    let push_one = |r: &Ring<u32, 4, Marked>| r.try_push(7).unwrap();
    let pop_one = |r: &Ring<u32, 4, Marked>| {
        r.try_pop().unwrap();
    };
    check_path("try_push/try_pop", push_one, pop_one);
    check_path(
        "push_overwrite/try_pop_or_closed",
        |r| assert!(r.push_overwrite(7).is_stored()),
        |r| {
            r.try_pop_or_closed().unwrap();
        },
    );
    check_path(
        "push_burst/pop_burst",
        |r| assert_eq!(r.push_burst(&[1, 2, 3]), 3),
        |r| assert_eq!(r.pop_burst(&mut [0; 2]), 2),
    );
    check_path(
        "push_iter/drain",
        |r| assert_eq!(r.push_iter([1, 2, 3]), 3),
        |r| assert_eq!(r.drain().take(2).count(), 2),
    );
    check_path(
        "push_blocking/pop_blocking",
        |r| r.push_blocking(7).unwrap(),
        |r| {
            r.pop_blocking().unwrap();
        },
    );
    // The fresh pop that discards: both the discarded item and the one it
    // returns leave the ring.
    let ring: Ring<Stamp<u32>, 4, Marked> = Ring::with_watermarks(1, 3);
    for at in [10, 20, 30] {
        ring.try_push(Stamp { at, item: 0 }).unwrap();
    }
    assert_eq!(ring.level(), Level::High);
    let fresh = ring.try_pop_fresh(OlderThan {
        now: 25,
        budget: 10,
    });
    assert_eq!(fresh.map(|s| s.at), Some(20)); // 10 is dropped
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(ring.stats().expired, 1);
    // clear lowers it too.
    ring.try_push(Stamp { at: 40, item: 0 }).unwrap();
    ring.try_push(Stamp { at: 50, item: 0 }).unwrap();
    assert_eq!(ring.level(), Level::High);
    assert_eq!(ring.clear(), 3);
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(ring.stats().transitions, 4);
}

#[test]
fn stats_carry_the_transitions() {
    let ring: Ring<u8, 4, Marked> = Ring::with_watermarks(0, 2);
    for _ in 0..5 {
        ring.push_burst(&[1, 2]);
        ring.clear();
    }
    assert_eq!(
        ring.stats(),
        RingStats {
            rejected: 0,
            overwritten: 0,
            busy: 0,
            expired: 0,
            transitions: 10,
            peak: 2
        }
    );
}

/// Producers that slow their source at `High` (wait for the drain) and a
/// slower consumer: nothing is refused, every item arrives once, and the
/// ring never holds more than the high mark plus one item per producer
/// beyond the one that raised it (each producer tests the level after its
/// own push). With one producer, exactly the high mark.
#[cfg(feature = "std")]
fn slowable_sources(producers: usize) {
    const PER: usize = if cfg!(miri) { 200 } else { 20_000 };
    static RING: [Ring<usize, 16, Marked>; 4] = [
        Ring::with_watermarks(4, 12),
        Ring::with_watermarks(4, 12),
        Ring::with_watermarks(4, 12),
        Ring::with_watermarks(4, 12),
    ];
    let ring = &RING[producers - 1];
    let seen = std::thread::scope(|s| {
        for p in 0..producers {
            s.spawn(move || {
                for i in 0..PER {
                    ring.try_push(p * PER + i).unwrap();
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
                // FIFO per producer.
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
    // N = 16 < 16 * 1: every pop samples the count, so `peak` is exact.
    assert!(stats.peak < 12 + producers, "peak {}", stats.peak);
    assert!(
        stats.transitions >= 2,
        "never raised: {}",
        stats.transitions
    );
    assert_eq!(stats.transitions % 2, 0, "ends High on a drained ring");
    assert_eq!(ring.level(), Level::Normal);
}

#[cfg(feature = "std")]
#[test]
fn one_slowable_source_sheds_nothing_and_stays_at_most_at_high() {
    slowable_sources(1);
}

#[cfg(feature = "std")]
#[test]
fn four_slowable_sources_shed_nothing() {
    slowable_sources(4);
}

#[cfg(feature = "std")]
#[test]
fn the_close_ends_the_drain_waits() {
    static RING: Ring<u8, 4, Marked> = Ring::with_watermarks(0, 2);
    RING.push_burst(&[1, 2]);
    std::thread::scope(|s| {
        let waiters: Vec<_> = (0..3)
            .map(|_| s.spawn(|| RING.wait_below_low_blocking()))
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(20));
        RING.close();
        for w in waiters {
            assert_eq!(w.join().unwrap(), Err(sluicegate::Closed(())));
        }
    });
    // Closed but not drained: the items are still there.
    assert_eq!(RING.len(), 2);
}

#[cfg(feature = "std")]
#[test]
fn async_drain_waiters_wake_only_on_the_crossing_pop() {
    use core::future::Future;
    use core::pin::pin;
    use core::task::{Context, Poll, Waker};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    let ring: Ring<u8, 8, Marked> = Ring::with_watermarks(2, 6);
    ring.push_burst(&[0; 6]);
    let wakes: Vec<_> = (0..3)
        .map(|_| Arc::new(Count(AtomicUsize::new(0))))
        .collect();
    let wakers: Vec<Waker> = wakes.iter().map(|w| Waker::from(w.clone())).collect();
    let mut f0 = pin!(ring.wait_below_low());
    let mut f1 = pin!(ring.wait_below_low());
    let mut f2 = pin!(ring.wait_below_low());
    let mut futs = [f0.as_mut(), f1.as_mut(), f2.as_mut()];
    for (f, w) in futs.iter_mut().zip(&wakers) {
        assert!(f.as_mut().poll(&mut Context::from_waker(w)).is_pending());
    }
    // Pops down to 3: above the low mark, nobody is woken.
    for _ in 0..3 {
        ring.try_pop().unwrap();
    }
    assert!(wakes.iter().all(|w| w.0.load(Ordering::SeqCst) == 0));
    // The pop that leaves 2 wakes all three, once each.
    ring.try_pop().unwrap();
    assert!(wakes.iter().all(|w| w.0.load(Ordering::SeqCst) == 1));
    for (f, w) in futs.iter_mut().zip(&wakers) {
        assert_eq!(
            f.as_mut().poll(&mut Context::from_waker(w)),
            Poll::Ready(Ok(()))
        );
    }
}

#[cfg(feature = "std")]
#[test]
fn a_dropped_drain_waiter_leaves_the_list() {
    use core::future::Future;
    use core::task::Context;

    let ring: Ring<u8, 4, Marked> = Ring::with_watermarks(0, 2);
    ring.push_burst(&[1, 2]);
    let waker = futures::task::noop_waker();
    for _ in 0..3 {
        let mut f = Box::pin(ring.wait_below_low());
        assert!(f
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        drop(f); // its node is unlinked here, before its memory goes
    }
    let mut kept = Box::pin(ring.wait_below_low());
    assert!(kept
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    ring.clear(); // lowers: wakes the one left, and touches no freed node
    assert!(kept
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_ready());
}

#[test]
fn a_closed_ring_lowers_as_it_drains() {
    let ring: Ring<u8, 8, Marked> = Ring::with_watermarks(2, 6);
    ring.push_burst(&[0; 7]);
    assert_eq!(ring.level(), Level::High);
    ring.close();
    while ring.len() > 3 {
        ring.try_pop().unwrap();
        assert_eq!(ring.level(), Level::High);
    }
    ring.try_pop_or_closed().unwrap();
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(ring.stats().transitions, 2);
    ring.clear();
    assert_eq!(ring.level(), Level::Normal);
}

/// A drain waiter woken by the lowering that polls only after the count
/// rose above the low mark again (the level still `Normal`) must finish:
/// no other lowering is coming to wake it.
#[cfg(feature = "std")]
#[test]
fn a_woken_drain_waiter_finishes_after_the_count_rose_again() {
    use core::future::Future;
    use core::task::{Context, Poll};

    let ring: Ring<u8, 8, Marked> = Ring::with_watermarks(2, 6);
    ring.push_burst(&[0; 6]);
    let waker = futures::task::noop_waker();
    let mut wait = Box::pin(ring.wait_below_low());
    assert!(wait
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    ring.pop_burst(&mut [0; 4]); // leaves 2: Normal, the waiter is woken
    ring.push_burst(&[0; 3]); // 5, still Normal
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(
        wait.as_mut().poll(&mut Context::from_waker(&waker)),
        Poll::Ready(Ok(()))
    );
}

#[test]
fn debug_shows_the_level() {
    let ring: Ring<u8, 4, Marked> = Ring::with_watermarks(1, 2);
    ring.push_burst(&[1, 2]);
    assert_eq!(
        format!("{ring:?}"),
        "Ring { capacity: 4, len: 2, closed: false, level: High, stats: RingStats { rejected: 0, overwritten: 0, busy: 0, expired: 0, transitions: 1, peak: 2 } }"
    );
}
