//! `drain`, `clear` and `push_iter` on every ring: what they take, what they
//! leave, and what a panicking iterator leaves behind.
#![cfg(not(sluicegate_loom))]

use sluicegate::{mpmc, spsc, TryPushError};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Items `1..`, and a panic when asked for the item after `panic_after`.
fn panicking(panic_after: u32) -> impl Iterator<Item = u32> {
    (1..).inspect(move |&i| assert!(i <= panic_after, "iterator panics on purpose"))
}

#[test]
fn spsc_push_iter_drain_clear() {
    let mut ring: spsc::Ring<u32, 4> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    let mut items = 1..=10;
    assert_eq!(tx.push_iter(&mut items), 4);
    assert_eq!(items.next(), Some(5), "only what fits is taken");
    assert_eq!(tx.push_iter(&mut items), 0);
    assert_eq!(tx.stats().rejected, 0);
    assert_eq!(rx.drain().take(2).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(tx.push_iter(&mut items), 2);
    assert_eq!(rx.clear(), 4);
    assert_eq!(rx.clear(), 0);
    assert_eq!(rx.drain().count(), 0);
    // A panicking iterator: what it yielded is published.
    let r = catch_unwind(AssertUnwindSafe(|| tx.push_iter(panicking(2))));
    assert!(r.is_err());
    assert_eq!(rx.drain().collect::<Vec<_>>(), [1, 2]);
}

#[test]
fn spsc_overwrite_push_iter_never_evicts() {
    let mut ring: spsc::Ring<u32, 2, spsc::Overwrite> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    assert_eq!(tx.push_iter(1..), 2);
    assert_eq!(tx.stats().overwritten, 0);
    assert_eq!(rx.drain().collect::<Vec<_>>(), [1, 2]);
}

#[test]
fn spsc_clear_drops_each_item_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    struct D(Arc<AtomicUsize>);
    impl Drop for D {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
    let mut ring: spsc::Ring<D, 8> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    assert_eq!(tx.push_iter((0..5).map(|_| D(drops.clone()))), 5);
    assert_eq!(rx.clear(), 5);
    assert_eq!(drops.load(Ordering::Relaxed), 5);
}

#[test]
fn scq_push_iter_drain_clear() {
    let ring: mpmc::Ring<u32, 4> = mpmc::Ring::new();
    let mut items = 1..=10;
    assert_eq!(ring.push_iter(&mut items), 4);
    assert_eq!(items.next(), Some(5), "only what fits is taken");
    assert_eq!(ring.stats().rejected, 0);
    assert_eq!(ring.drain().take(2).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(ring.push_iter(&mut items), 2);
    assert_eq!(ring.clear(), 4);
    assert_eq!(ring.clear(), 0);
    // The iterator ends first: the slot taken for the item that never came
    // is free again.
    assert_eq!(ring.push_iter([7]), 1);
    assert_eq!(ring.push_iter(8..), 3);
    assert_eq!(ring.drain().collect::<Vec<_>>(), [7, 8, 9, 10]);
    // A panicking iterator: nothing leaks, every slot is usable after.
    let r = catch_unwind(AssertUnwindSafe(|| ring.push_iter(panicking(2))));
    assert!(r.is_err());
    assert_eq!(
        ring.push_iter(3..),
        2,
        "the slot held during the panic is free"
    );
    assert_eq!(ring.try_push(0), Err(TryPushError::Full(0)));
    assert_eq!(ring.drain().collect::<Vec<_>>(), [1, 2, 3, 4]);
    // Closed: nothing is taken from the iterator.
    ring.close();
    let mut items = 1..;
    assert_eq!(ring.push_iter(&mut items), 0);
    assert_eq!(items.next(), Some(1));
}

#[test]
#[cfg(feature = "critical-section")]
fn cs_push_iter_drain_clear() {
    let ring: mpmc::cs::Ring<u32, 4> = mpmc::cs::Ring::new();
    let mut items = 1..=10;
    assert_eq!(ring.push_iter(&mut items), 4);
    assert_eq!(items.next(), Some(5), "only what fits is taken");
    assert_eq!(ring.stats().rejected, 0);
    assert_eq!(ring.drain().take(2).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(ring.push_iter(&mut items), 2);
    assert_eq!(ring.clear(), 4);
    let r = catch_unwind(AssertUnwindSafe(|| ring.push_iter(panicking(2))));
    assert!(r.is_err());
    assert_eq!(ring.push_iter(3..), 2);
    assert_eq!(ring.drain().collect::<Vec<_>>(), [1, 2, 3, 4]);
    ring.close();
    let mut items = 1..;
    assert_eq!(ring.push_iter(&mut items), 0);
    assert_eq!(items.next(), Some(1));
}
