//! The SPSC ring's watermarks: the level at the band's edges, hysteresis
//! without flapping, the transition count, every push and pop path that
//! moves the level, and real threads where the producer slows its source on
//! `High` (exact accounting, the queue never above the high mark). The waits
//! (`wait_below_low`, `wait_below_low_blocking`) need `async` and `std`.
#![cfg(not(sluicegate_loom))]

use sluicegate::spsc::{Level, Marked, Ring};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

#[cfg(feature = "async")]
#[path = "common/wake_count.rs"]
mod wake_count;

#[test]
fn band_edges_every_pair_of_marks() {
    // Every (low, high) on a ring of 8: up to high - 1 items it stays
    // Normal; the push that leaves high raises it; pops down to low + 1 keep
    // it High; the pop that leaves low lowers it.
    for high in 1..=8 {
        for low in 0..high {
            let mut ring: Ring<u32, 8, Marked> = Ring::with_watermarks(low, high);
            assert_eq!(ring.watermarks(), Some((low, high)));
            let (mut tx, mut rx) = ring.split();
            for round in 0..3u32 {
                for i in 0..high {
                    assert_eq!(rx.level(), Level::Normal, "low {low} high {high} at {i}");
                    tx.try_push(i as u32).unwrap();
                }
                assert_eq!(rx.level(), Level::High, "low {low} high {high}");
                // Fill to N: still High, no new transition.
                while tx.try_push(0).is_ok() {}
                assert_eq!(tx.level(), Level::High);
                while rx.len() > low + 1 {
                    rx.try_pop().unwrap();
                    assert_eq!(rx.level(), Level::High, "low {low} high {high}");
                }
                rx.try_pop().unwrap();
                assert_eq!(rx.level(), Level::Normal, "low {low} high {high}");
                assert_eq!(rx.len(), low);
                rx.clear();
                assert_eq!(tx.level(), Level::Normal, "round {round}");
            }
            drop((tx, rx));
            assert_eq!(ring.transitions(), 6, "low {low} high {high}");
        }
    }
}

#[test]
fn hysteresis_does_not_flap_inside_the_band() {
    static RING: Ring<u8, 16, Marked> = Ring::with_watermarks(4, 12);
    let ring = &RING;
    let (mut tx, mut rx) = ring.try_split().unwrap();
    for _ in 0..12 {
        tx.try_push(1).unwrap();
    }
    assert_eq!(tx.level(), Level::High);
    // Oscillate between 5 and 11 many times: High throughout.
    for _ in 0..100 {
        while rx.len() > 5 {
            rx.try_pop();
        }
        while tx.len() < 11 {
            tx.try_push(1).unwrap();
        }
        assert_eq!(tx.level(), Level::High);
    }
    assert_eq!(ring.transitions(), 1);
    while rx.len() > 4 {
        rx.try_pop();
    }
    assert_eq!(rx.level(), Level::Normal);
    // Oscillate between 4 and 11 again: Normal throughout.
    for _ in 0..100 {
        while tx.len() < 11 {
            tx.try_push(1).unwrap();
        }
        while rx.len() > 4 {
            rx.try_pop();
        }
        assert_eq!(tx.level(), Level::Normal);
    }
    assert_eq!(ring.transitions(), 2);
}

#[test]
fn a_ring_without_marks_stays_normal() {
    let mut ring: Ring<u8, 4, Marked> = Ring::new();
    assert_eq!(ring.watermarks(), None);
    let (mut tx, mut rx) = ring.split();
    for _ in 0..3 {
        while tx.try_push(1).is_ok() {}
        assert_eq!(tx.level(), Level::Normal);
        rx.clear();
    }
    drop((tx, rx));
    assert_eq!(ring.transitions(), 0);
}

#[test]
fn every_push_and_pop_path_moves_the_level() {
    let mut ring: Ring<u32, 8, Marked> = Ring::with_watermarks(2, 6);
    let (mut tx, mut rx) = ring.split();
    // A burst raises.
    assert_eq!(tx.push_burst(&[0, 1, 2, 3, 4, 5]), 6);
    assert_eq!(rx.level(), Level::High);
    // A bulk pop lowers.
    let mut out = [0; 4];
    rx.pop_bulk(&mut out).unwrap();
    assert_eq!(rx.level(), Level::Normal);
    // A bulk push raises.
    tx.push_bulk(&[6, 7, 8, 9]).unwrap();
    assert_eq!(rx.level(), Level::High);
    // A read chunk's commit lowers.
    rx.read_chunk(4).unwrap().commit_all();
    assert_eq!(rx.level(), Level::Normal);
    // A write chunk's commit does not raise; the producer's look does.
    let n = tx.write_chunk_uninit(4).unwrap().fill_from_iter(10..14);
    assert_eq!((n, rx.level()), (4, Level::Normal));
    assert_eq!(tx.level(), Level::High);
    // A peek's pop lowers.
    while rx.len() > 3 {
        rx.try_pop();
    }
    rx.peek().unwrap().pop();
    assert_eq!(rx.level(), Level::Normal);
    assert_eq!(rx.drain().collect::<Vec<_>>(), [12, 13]);
}

#[test]
fn a_level_is_decided_on_the_true_length() {
    // A write chunk filled to the high mark raises nothing; drained to the
    // low mark before the producer looks, it never was High.
    let mut ring: Ring<u8, 4, Marked> = Ring::with_watermarks(1, 3);
    let (mut tx, mut rx) = ring.split();
    tx.write_chunk_uninit(3).unwrap().fill_from_iter([1, 2, 3]);
    rx.try_pop();
    rx.try_pop();
    assert_eq!(tx.level(), Level::Normal);
    // A push whose cached head is stale (the consumer popped since) but
    // whose true length is under the mark raises nothing either.
    tx.push_burst(&[4, 5]); // 3: High
    assert_eq!(tx.level(), Level::High);
    rx.clear(); // Normal
    tx.try_push(6).unwrap(); // the cached head says 4 > 3; the truth is 1
    assert_eq!(rx.level(), Level::Normal);
    drop((tx, rx));
    assert_eq!(ring.transitions(), 2);
}

#[test]
fn many_rounds_count_every_transition() {
    let mut ring: Ring<u32, 4, Marked> = Ring::with_watermarks(1, 3);
    let (mut tx, mut rx) = ring.split();
    for round in 0..1000u32 {
        tx.push_burst(&[round, round, round]);
        assert_eq!(rx.level(), Level::High);
        rx.try_pop();
        assert_eq!(rx.level(), Level::High);
        rx.try_pop();
        assert_eq!(rx.level(), Level::Normal);
        rx.try_pop();
    }
    drop((tx, rx));
    assert_eq!(ring.transitions(), 2000);
    assert_eq!(ring.stats().transitions, 2000);
}

/// A producer that slows its source on `High`: it stops producing until the
/// level is `Normal` again. The queue never holds more than `high` items
/// (the producer pushes one at a time and tests the level after each push),
/// nothing is rejected, and every item comes out once, in order.
#[test]
fn slowable_source_never_sheds_and_stays_under_high() {
    const ITEMS: u32 = if cfg!(miri) { 300 } else { 200_000 };
    const LOW: usize = 8;
    const HIGH: usize = 24;
    let mut ring: Ring<u32, 32, Marked> = Ring::with_watermarks(LOW, HIGH);
    let peak = AtomicUsize::new(0);
    let slowed = AtomicUsize::new(0);
    let (mut tx, mut rx) = ring.split();
    thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0;
            while i < ITEMS {
                if tx.level() == Level::High {
                    slowed.fetch_add(1, Ordering::Relaxed);
                    std::hint::spin_loop();
                    continue;
                }
                tx.try_push(i).expect("a slowed source is never rejected");
                let len = tx.len();
                peak.fetch_max(len, Ordering::Relaxed);
                i += 1;
            }
        });
        let mut next = 0;
        while next < ITEMS {
            if let Some(v) = rx.try_pop() {
                assert_eq!(v, next);
                next += 1;
                if next % 64 == 0 {
                    // A slow consumer now and then.
                    thread::yield_now();
                }
            }
        }
    });
    assert_eq!(rx.try_pop(), None);
    drop((tx, rx));
    assert_eq!(ring.stats().rejected, 0);
    assert!(
        peak.load(Ordering::Relaxed) <= HIGH,
        "peak {}",
        peak.load(Ordering::Relaxed)
    );
    assert!(ring.stats().peak <= HIGH);
    // Even transitions: it ended Normal (the consumer drained it).
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(ring.transitions() % 2, 0);
}

#[cfg(feature = "std")]
#[test]
fn wait_below_low_blocking_against_a_slow_consumer() {
    const ITEMS: u32 = if cfg!(miri) { 200 } else { 50_000 };
    let mut ring: Ring<u32, 16, Marked> = Ring::with_watermarks(4, 12);
    let (mut tx, mut rx) = ring.split();
    let waits = AtomicUsize::new(0);
    thread::scope(|s| {
        s.spawn(|| {
            for i in 0..ITEMS {
                tx.try_push(i)
                    .expect("never more than high + 1 in the ring");
                if tx.level() == Level::High {
                    waits.fetch_add(1, Ordering::Relaxed);
                    tx.wait_below_low_blocking().unwrap();
                    assert!(tx.len() <= 4);
                    assert_eq!(tx.level(), Level::Normal);
                }
            }
        });
        let mut next = 0;
        while next < ITEMS {
            if let Some(v) = rx.pop_blocking() {
                assert_eq!(v, next);
                next += 1;
            }
        }
    });
    drop((tx, rx));
    assert_eq!(ring.stats().rejected, 0);
    assert!(ring.stats().peak <= 12);
    assert!(waits.load(Ordering::Relaxed) > 0);
}

#[cfg(feature = "std")]
#[test]
fn wait_below_low_ends_when_the_consumer_is_gone() {
    let mut ring: Ring<u32, 8, Marked> = Ring::with_watermarks(2, 6);
    let (mut tx, rx) = ring.split();
    tx.push_burst(&[0, 1, 2, 3, 4, 5]);
    thread::scope(|s| {
        s.spawn(move || {
            thread::sleep(std::time::Duration::from_millis(20));
            drop(rx);
        });
        assert_eq!(tx.wait_below_low_blocking(), Err(sluicegate::Closed(())));
    });
}

#[cfg(feature = "async")]
#[test]
fn wait_below_low_async_wakes_on_the_pop_that_crosses() {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll};

    let (count, waker) = wake_count::counting();
    let mut cx = Context::from_waker(&waker);

    let mut ring: Ring<u32, 8, Marked> = Ring::with_watermarks(2, 6);
    let (mut tx, mut rx) = ring.split();
    tx.push_burst(&[0, 1, 2, 3, 4, 5]);
    assert_eq!(tx.level(), Level::High);
    {
        let mut wait = pin!(tx.wait_below_low());
        assert!(wait.as_mut().poll(&mut cx).is_pending());
        for popped in 1..=4 {
            rx.try_pop().unwrap();
            // Every pop wakes the waiter; only the fourth leaves 2.
            assert_eq!(count.wakes(), popped);
            let ready = wait.as_mut().poll(&mut cx);
            assert_eq!(ready.is_ready(), popped == 4, "after {popped} pops");
            if let Poll::Ready(out) = ready {
                assert_eq!(out, Ok(()));
                break;
            }
        }
    }
    assert_eq!(tx.level(), Level::Normal);
    // Under real threads, with pollster.
    thread::scope(|s| {
        s.spawn(|| {
            pollster::block_on(async {
                for i in 6..20_000 {
                    tx.push(i).await.unwrap();
                    if tx.level() == Level::High {
                        tx.wait_below_low().await.unwrap();
                        assert!(tx.len() <= 2);
                    }
                }
            })
        });
        pollster::block_on(async {
            for i in 4..20_000 {
                assert_eq!(rx.pop().await, Some(i));
            }
        });
    });
    drop((tx, rx));
    assert!(ring.stats().peak <= 6);
}
