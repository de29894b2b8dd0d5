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

/// The burst ring's `push_iter` claims before it takes: an exact-size
/// iterator goes in with no void and keeps what does not fit; one that
/// cannot say it has ended leaves one void, which a pop passes; a
/// panicking one leaves the items it made and voids; a full, closed or busy
/// ring takes nothing from it; nothing counts as rejected.
#[test]
fn burst_push_iter_drain_clear() {
    let ring: mpmc::BurstRing<u32, 8, 1> = mpmc::BurstRing::new();
    assert_eq!(ring.push_iter([1, 2, 3]), 3);
    assert_eq!(ring.len(), 3, "no void after an exact-size iterator");
    let mut rest = 4..20;
    assert_eq!(ring.push_iter(&mut rest), 5);
    assert_eq!(
        rest.next(),
        Some(9),
        "what did not fit stays in the iterator"
    );
    let mut untouched = 100..;
    assert_eq!(ring.push_iter(&mut untouched), 0, "full");
    assert_eq!(untouched.next(), Some(100));
    assert_eq!(
        ring.drain().collect::<Vec<_>>(),
        (1..=8).collect::<Vec<_>>()
    );

    // No lower bound: one item per claim; an upper bound of 0 ends it
    // with no void, an iterator that cannot say leaves one.
    assert_eq!(ring.push_iter((10..13).filter(|_| true)), 3);
    assert_eq!(ring.len(), 3, "the upper bound said it had ended");
    let mut k = 13;
    let unknown = core::iter::from_fn(move || {
        k += 1;
        (k <= 15).then_some(k - 1)
    });
    assert_eq!(ring.push_iter(unknown), 2);
    assert_eq!(ring.len(), 6, "five items and the void");
    assert_eq!(ring.drain().collect::<Vec<_>>(), [10, 11, 12, 13, 14]);
    assert!(ring.is_empty(), "the void was passed");
    assert_eq!(ring.push_iter(core::iter::empty()), 0);
    assert!(ring.is_empty(), "an empty iterator claims nothing");

    // A read chunk holds the next slot's previous item: busy, nothing taken.
    ring.push_iter(0..7);
    let mut out = [0; 6];
    assert_eq!(ring.pop_burst(&mut out).count, 6);
    ring.push_iter([7, 8]);
    let held = ring.read_chunk(1).unwrap();
    ring.push_iter(9..=13);
    let mut blocked = 14..;
    assert_eq!(ring.push_iter(&mut blocked), 0, "the next slot is held");
    assert_eq!(blocked.next(), Some(14));
    held.release();
    assert_eq!(
        ring.drain().collect::<Vec<_>>(),
        (7..=13).collect::<Vec<_>>()
    );
    assert_eq!(ring.stats().rejected, 0);

    // A panicking iterator: the chunk publishes what it made, the rest of
    // the claim is void until a pop passes it.
    let ring: mpmc::BurstRing<u32, 4, 1> = mpmc::BurstRing::new();
    let r = catch_unwind(AssertUnwindSafe(|| ring.push_iter(panicking(2))));
    assert!(r.is_err());
    assert_eq!(ring.push_iter(3..), 0, "two items and two voids");
    assert_eq!(ring.drain().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(ring.push_iter(3..), 4, "every slot is usable after");
    assert_eq!(ring.clear(), 4);

    ring.close();
    let mut closed = 20..;
    assert_eq!(ring.push_iter(&mut closed), 0);
    assert_eq!(closed.next(), Some(20));
    assert!(ring.is_drained());
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
