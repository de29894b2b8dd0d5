//! The waits under real executors (feature `async`; the blocking ones need
//! `std` too): `pollster` (one future per thread), `futures`' single-threaded
//! `LocalPool` (many tasks on one thread), and threads that stand in for an
//! interrupt handler with plain `try_push`/`try_pop`. Every test checks exact
//! accounting: each item comes out once, in order per producer. The MPMC
//! ring's tests are in `tests/common/ring_waits.rs`, shared with the
//! critical-section ring.
#![cfg(not(sluicegate_loom))]

use ring_waits::{counting, poll_with, ITEMS};
use sluicegate::{spsc, Closed};
use std::thread;

/// The ring `tests/common/ring_waits.rs` tests here; `tests/wait_cs.rs` runs
/// the same tests on `mpmc::cs::Ring`.
use sluicegate::mpmc::Ring;
/// The 64-slot ring of the shared tests.
type Ring64 = Ring<u32, 64>;

#[path = "common/ring_waits.rs"]
mod ring_waits;

/// Polls `fut` once with a waker that counts (and is not checked).
fn poll_once<F: std::future::Future + Unpin>(fut: &mut F) -> std::task::Poll<F::Output> {
    poll_with(fut, &counting().1)
}

#[test]
fn spsc_async_both_sides_wait() {
    // A ring of 2: the producer waits for room and the consumer for items
    // over and over.
    let mut ring: spsc::Ring<u32, 2> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    thread::scope(|s| {
        s.spawn(move || {
            pollster::block_on(async {
                for i in 0..ITEMS {
                    tx.push(i).await.unwrap();
                }
            })
        });
        let got = pollster::block_on(async {
            let mut next = 0;
            while let Some(v) = rx.pop().await {
                assert_eq!(v, next);
                next += 1;
            }
            next
        });
        assert_eq!(got, ITEMS);
        assert_eq!(rx.stats().rejected, 0, "a wait is not a rejection");
    });
}

#[test]
fn spsc_async_pop_woken_by_interrupt_style_try_push() {
    // The "interrupt" only ever calls try_push (retrying when full); the
    // task's pop must be woken by it.
    static RING: spsc::Ring<u32, 4, spsc::Overwrite> = spsc::Ring::new();
    let (mut tx, mut rx) = RING.try_split().unwrap();
    let isr = thread::spawn(move || {
        let mut refused = 0u32;
        for i in 0..ITEMS {
            while tx.try_push(i).is_err() {
                refused += 1;
                thread::yield_now();
            }
        }
        refused
    });
    let got = pollster::block_on(async {
        let mut next = 0;
        while let Some(v) = rx.pop().await {
            assert_eq!(v, next);
            next += 1;
        }
        next
    });
    let refused = isr.join().unwrap();
    assert_eq!(got, ITEMS);
    assert_eq!(RING.stats().rejected as u32, refused);
}

#[test]
fn spsc_async_ends_on_the_other_handle_drop() {
    let mut ring: spsc::Ring<u32, 1> = spsc::Ring::new();
    let (mut tx, rx) = ring.split();
    tx.try_push(1).unwrap();
    let mut push = tx.push(2);
    assert!(poll_once(&mut push).is_pending());
    thread::scope(|s| {
        s.spawn(move || drop(rx));
        assert_eq!(pollster::block_on(push), Err(Closed(2)));
    });
    drop(tx);
    let (_tx, mut rx) = ring.split();
    assert_eq!(rx.try_pop(), Some(1));
    let mut pop = rx.pop();
    assert!(poll_once(&mut pop).is_pending());
    drop(_tx);
    assert_eq!(pollster::block_on(pop), None);
}

#[test]
fn spsc_async_leaked_future_leaves_no_polling_behind() {
    let mut ring: spsc::Ring<u32, 1> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    let mut pop = rx.pop();
    assert!(poll_once(&mut pop).is_pending());
    std::mem::forget(pop);
    // The next pop takes the one cell over and sleeps: its waker is not
    // called until a push (the polling fallback would wake it at once).
    let (count, waker) = counting();
    let mut pop = rx.pop();
    assert!(poll_with(&mut pop, &waker).is_pending());
    assert_eq!(count.wakes(), 0);
    tx.try_push(4).unwrap();
    assert_eq!(count.wakes(), 1);
    assert_eq!(pollster::block_on(pop), Some(4));
}

#[test]
fn spsc_async_dropped_future_frees_its_cell() {
    let mut ring: spsc::Ring<u32, 1> = spsc::Ring::new();
    let (tx, mut rx) = ring.split();
    for _ in 0..3 {
        let mut pop = rx.pop();
        assert!(poll_once(&mut pop).is_pending());
    }
    thread::scope(|s| {
        s.spawn(move || {
            let mut tx = tx;
            tx.try_push(9).unwrap();
            tx
        });
        assert_eq!(pollster::block_on(rx.pop()), Some(9));
    });
}

/// A resolved SPSC `pop` polled again pops again; a resolved `push` polled
/// again panics, holding no item to push.
#[test]
fn spsc_async_resolved_future_polled_again() {
    let mut ring: spsc::Ring<u32, 2> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    let mut push = tx.push(1);
    assert_eq!(poll_once(&mut push), std::task::Poll::Ready(Ok(())));
    let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll_once(&mut push)));
    assert!(again.is_err(), "a resolved push polled again panics");
    drop(push);
    tx.try_push(2).unwrap();
    let mut pop = rx.pop();
    assert_eq!(poll_once(&mut pop), std::task::Poll::Ready(Some(1)));
    assert_eq!(poll_once(&mut pop), std::task::Poll::Ready(Some(2)));
    assert!(poll_once(&mut pop).is_pending());
}

/// The SPSC blocking calls park (feature `std`): a producer thread on a
/// ring of two, and the consumer's last `pop_blocking` ends on its drop.
#[cfg(feature = "std")]
#[test]
fn spsc_blocking_waits_park_and_end_on_drop() {
    let per = ITEMS / 4;
    let mut spsc: spsc::Ring<u32, 2> = spsc::Ring::new();
    let (mut tx, mut rx) = spsc.split();
    thread::scope(|s| {
        s.spawn(move || (0..per).for_each(|i| tx.push_blocking(i).unwrap()));
        for i in 0..per {
            assert_eq!(rx.pop_blocking(), Some(i));
        }
        assert_eq!(rx.pop_blocking(), None);
    });
}
