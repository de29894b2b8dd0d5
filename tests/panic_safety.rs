//! What a panic in a user's `Drop` or iterator leaves behind, through every
//! path that drops or moves items in place: no item is ever exposed or
//! dropped twice, and (as documented in `CONTRIBUTING.md`) nothing is leaked
//! either. Each test counts drops per item, so a double drop or a leak fails
//! the count; under Miri a use after free fails on its own.
#![cfg(not(sluicegate_loom))]

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use sluicegate::spsc::{Overwrite, Policy, Reject, Ring};

/// Drop counts per item id, shared by the items of one test.
#[derive(Clone)]
struct Ledger(Arc<Vec<AtomicU32>>);

impl Ledger {
    fn new(ids: usize) -> Self {
        Self(Arc::new((0..ids).map(|_| AtomicU32::new(0)).collect()))
    }
    /// An item that counts its drop and, if `bomb`, then panics.
    fn item(&self, id: usize, bomb: bool) -> Item {
        Item {
            id,
            bomb,
            ledger: self.clone(),
            _not_sync: Cell::new(()),
        }
    }
    fn drops(&self, id: usize) -> u32 {
        self.0[id].load(Ordering::Relaxed)
    }
    /// Every id in `ids` dropped exactly once, every other id not at all.
    fn assert_dropped_exactly(&self, ids: impl IntoIterator<Item = usize>) {
        let mut want = vec![0u32; self.0.len()];
        for id in ids {
            want[id] += 1;
        }
        let got: Vec<u32> = (0..self.0.len()).map(|id| self.drops(id)).collect();
        assert_eq!(got, want, "drop count per item id");
    }
}

/// `Send + !Sync` (the `Cell`), and panics in `drop` if it is a bomb.
struct Item {
    id: usize,
    bomb: bool,
    ledger: Ledger,
    _not_sync: Cell<()>,
}

impl Drop for Item {
    fn drop(&mut self) {
        let before = self.ledger.0[self.id].fetch_add(1, Ordering::Relaxed);
        assert_eq!(before, 0, "item {} dropped twice", self.id);
        if self.bomb {
            std::panic::panic_any(Bomb);
        }
    }
}

/// The payload of the panics these tests provoke.
struct Bomb;

/// Runs `f`, which must panic with [`Bomb`]. Those panics are not printed;
/// any other panic (a failed assertion) is, by the default hook.
fn expect_panic(f: impl FnOnce()) {
    static QUIET_BOMBS: std::sync::Once = std::sync::Once::new();
    QUIET_BOMBS.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Bomb>() {
                default(info);
            }
        }));
    });
    let result = catch_unwind(AssertUnwindSafe(f));
    match result {
        Err(payload) => assert!(payload.is::<Bomb>(), "a panic other than the provoked one"),
        Ok(()) => panic!("expected a panic"),
    }
}

/// `commit` over items whose second one panics in
/// `drop`. The two items up to the panic are gone (each dropped once), the
/// rest are still in the ring in order, and nothing is dropped twice.
fn commit_with_panicking_drop<P: Policy>(start: usize, commit_all: bool) {
    let ledger = Ledger::new(8);
    {
        let mut ring: Ring<Item, 8, P> = Ring::with_start(start);
        let (mut tx, mut rx) = ring.split();
        for id in 0..6 {
            assert!(tx.try_push(ledger.item(id, id == 1)).is_ok());
        }
        expect_panic(|| {
            let chunk = rx.read_chunk_up_to(4);
            assert_eq!(chunk.len(), 4);
            if commit_all {
                chunk.commit_all();
            } else {
                chunk.commit(4);
            }
        });
        ledger.assert_dropped_exactly([0, 1]);
        assert_eq!(rx.len(), 4);
        // The ring is usable: the next item is the one after the panic, alive.
        let next = rx.try_pop().expect("item 2 still in the ring");
        assert_eq!(next.id, 2);
        drop(next);
        // The freed slots are reusable by the producer.
        for id in 6..8 {
            assert!(tx.try_push(ledger.item(id, false)).is_ok());
        }
        assert_eq!(rx.len(), 5);
        // Items 3, 4, 5, 6, 7 are left for the ring's `Drop`.
    }
    ledger.assert_dropped_exactly(0..8);
}

#[test]
fn read_chunk_commit_survives_a_panicking_drop_reject() {
    commit_with_panicking_drop::<Reject>(0, false);
    commit_with_panicking_drop::<Reject>(0, true);
    // Across the wrap of the storage and of `usize`.
    commit_with_panicking_drop::<Reject>(usize::MAX - 2, false);
}

#[test]
fn read_chunk_commit_survives_a_panicking_drop_overwrite() {
    commit_with_panicking_drop::<Overwrite>(0, false);
    commit_with_panicking_drop::<Overwrite>(0, true);
    commit_with_panicking_drop::<Overwrite>((usize::MAX >> 1) - 2, true);
}

/// After a panic inside `commit` on an `Overwrite` ring, the claim is ended:
/// the producer evicts again instead of rejecting the new item.
#[test]
fn overwrite_claim_is_released_after_a_panicking_commit() {
    let ledger = Ledger::new(6);
    {
        let mut ring: Ring<Item, 2, Overwrite> = Ring::new();
        let (mut tx, mut rx) = ring.split();
        assert!(tx
            .push_overwrite(ledger.item(0, true))
            .into_item()
            .is_none());
        assert!(tx
            .push_overwrite(ledger.item(1, false))
            .into_item()
            .is_none());
        expect_panic(|| rx.read_chunk_up_to(1).commit(1));
        ledger.assert_dropped_exactly([0]);
        assert!(tx
            .push_overwrite(ledger.item(2, false))
            .into_item()
            .is_none());
        // Full again, nobody reading: evicts item 1 (not rejecting item 3).
        let evicted = tx
            .push_overwrite(ledger.item(3, false))
            .into_item()
            .expect("evicts");
        assert_eq!(evicted.id, 1);
        drop(evicted);
        assert_eq!(tx.stats().overwritten, 1);
        assert_eq!(tx.stats().rejected, 0);
        let peeked = rx.peek().expect("item 2");
        assert_eq!(peeked.id, 2);
        // While the guard lives the producer still stores, evicting item
        // 3 (the oldest not held); then the guard pops.
        let evicted = tx
            .push_overwrite(ledger.item(4, false))
            .into_item()
            .expect("evicts");
        assert_eq!(evicted.id, 3);
        drop(evicted);
        assert_eq!(tx.stats().rejected, 0);
        let popped = peeked.pop();
        assert_eq!(popped.id, 2);
        drop(popped);
    }
    ledger.assert_dropped_exactly(0..5);
}

/// The ring's own `Drop` drops every item left even when one of them
/// panics, so nothing is leaked and nothing dropped twice.
fn ring_drop_with_panicking_item<P: Policy>(start: usize) {
    let ledger = Ledger::new(8);
    expect_panic(|| {
        let mut ring: Ring<Item, 8, P> = Ring::with_start(start);
        let (mut tx, mut rx) = ring.split();
        for id in 0..8 {
            assert!(tx.try_push(ledger.item(id, id == 5)).is_ok());
        }
        drop(rx.try_pop());
        drop((tx, rx));
        drop(ring);
    });
    ledger.assert_dropped_exactly(0..8);
}

#[test]
fn ring_drop_survives_a_panicking_drop() {
    ring_drop_with_panicking_item::<Reject>(0);
    ring_drop_with_panicking_item::<Reject>(usize::MAX - 3);
    ring_drop_with_panicking_item::<Overwrite>((usize::MAX >> 1) - 3);
}

/// An iterator that yields `good` items, then panics.
struct PanickingIter<'l> {
    ledger: &'l Ledger,
    next: usize,
    good: usize,
}

impl Iterator for PanickingIter<'_> {
    type Item = Item;
    fn next(&mut self) -> Option<Item> {
        if self.next == self.good {
            std::panic::panic_any(Bomb);
        }
        self.next += 1;
        Some(self.ledger.item(self.next - 1, false))
    }
}

/// Items that `fill_from_iter` wrote before its iterator panicked are
/// published, not leaked: the consumer receives them.
fn fill_from_iter_with_panicking_iterator<P: Policy>(start: usize) {
    let ledger = Ledger::new(4);
    {
        let mut ring: Ring<Item, 4, P> = Ring::with_start(start);
        let (mut tx, mut rx) = ring.split();
        expect_panic(|| {
            let chunk = tx.write_chunk_uninit_up_to(4);
            chunk.fill_from_iter(PanickingIter {
                ledger: &ledger,
                next: 0,
                good: 3,
            });
        });
        ledger.assert_dropped_exactly([]);
        let got: Vec<usize> = std::iter::from_fn(|| rx.try_pop().map(|i| i.id)).collect();
        assert_eq!(got, [0, 1, 2]);
        // The producer's position moved with them: one more fits, then full.
        assert!(tx.try_push(ledger.item(3, false)).is_ok());
        assert_eq!(rx.len(), 1);
    }
    ledger.assert_dropped_exactly(0..4);
}

#[test]
fn fill_from_iter_publishes_what_it_wrote_before_a_panic() {
    fill_from_iter_with_panicking_iterator::<Reject>(0);
    fill_from_iter_with_panicking_iterator::<Reject>(usize::MAX - 1);
    fill_from_iter_with_panicking_iterator::<Overwrite>((usize::MAX >> 1) - 1);
}

/// The MPMC ring's `Drop` drops every item left even when one panics.
#[test]
fn mpmc_ring_drop_survives_a_panicking_drop() {
    let ledger = Ledger::new(8);
    expect_panic(|| {
        let ring: sluicegate::mpmc::Ring<Item, 8> = sluicegate::mpmc::Ring::new();
        for id in 0..8 {
            assert!(ring.try_push(ledger.item(id, id == 2)).is_ok());
        }
        drop(ring.try_pop());
        drop(ring);
    });
    ledger.assert_dropped_exactly(0..8);
}

/// The same for `mpmc::cs::Ring`, whose `Drop` pops without a critical
/// section (it has `&mut self`); the ring is dropped with its head in the
/// middle of the slots.
#[cfg(feature = "critical-section")]
#[test]
fn mpmc_cs_ring_drop_survives_a_panicking_drop() {
    let ledger = Ledger::new(10);
    expect_panic(|| {
        let ring: sluicegate::mpmc::cs::Ring<Item, 8> = sluicegate::mpmc::cs::Ring::new();
        for id in 0..8 {
            assert!(ring.try_push(ledger.item(id, id == 4)).is_ok());
        }
        drop(ring.try_pop());
        assert!(ring
            .push_overwrite(ledger.item(8, false))
            .into_item()
            .is_none());
        let evicted = ring.push_overwrite(ledger.item(9, false)).into_item();
        assert_eq!(evicted.map(|i| i.id), Some(1));
        drop(ring);
    });
    ledger.assert_dropped_exactly(0..10);
}

/// An evicted item of `mpmc::cs::Ring` that panics in `Drop` is dropped by
/// the caller, outside the critical section: the ring stays usable.
#[cfg(feature = "critical-section")]
#[test]
fn mpmc_cs_evicted_item_that_panics_is_dropped_outside_the_critical_section() {
    let ledger = Ledger::new(3);
    {
        let ring: sluicegate::mpmc::cs::Ring<Item, 1> = sluicegate::mpmc::cs::Ring::new();
        assert!(ring.try_push(ledger.item(0, true)).is_ok());
        expect_panic(|| drop(ring.push_overwrite(ledger.item(1, false)).into_item()));
        ledger.assert_dropped_exactly([0]);
        assert_eq!(ring.try_pop().map(|i| i.id), Some(1));
        assert!(ring.try_push(ledger.item(2, false)).is_ok());
    }
    ledger.assert_dropped_exactly(0..3);
}

/// Evicted and rejected items are handed back: their `Drop` runs in the caller,
/// after the ring's state is consistent again.
#[test]
fn evicted_item_that_panics_is_dropped_by_the_caller_after_the_push() {
    let ledger = Ledger::new(5);
    {
        let ring: sluicegate::mpmc::Ring<Item, 2> = sluicegate::mpmc::Ring::new();
        assert!(ring.try_push(ledger.item(0, true)).is_ok());
        assert!(ring.try_push(ledger.item(1, false)).is_ok());
        expect_panic(|| drop(ring.push_overwrite(ledger.item(2, false)).into_item()));
        ledger.assert_dropped_exactly([0]);
        assert_eq!(ring.try_pop().map(|i| i.id), Some(1));
        assert_eq!(ring.try_pop().map(|i| i.id), Some(2));

        let mut spsc: Ring<Item, 1, Overwrite> = Ring::new();
        let (mut tx, mut rx) = spsc.split();
        assert!(tx
            .push_overwrite(ledger.item(3, true))
            .into_item()
            .is_none());
        let evicted = tx.push_overwrite(ledger.item(4, false)).into_item();
        assert_eq!(evicted.as_ref().map(|i| i.id), Some(3));
        expect_panic(|| drop(evicted));
        ledger.assert_dropped_exactly([0, 1, 2, 3]);
        assert_eq!(rx.try_pop().map(|i| i.id), Some(4));
    }
    ledger.assert_dropped_exactly(0..5);
}

/// A chunk given back after the producer went past it (voids in its slots,
/// evictions past it): its items are dropped at the end of the claim, and
/// a panicking one stops neither the others nor the end of the claim.
#[test]
fn lapped_chunk_given_back_drops_every_item_despite_a_panic() {
    let ledger = Ledger::new(8);
    {
        let mut ring: Ring<Item, 4, Overwrite> = Ring::new();
        let (mut tx, mut rx) = ring.split();
        for id in 0..4 {
            assert!(tx.push_overwrite(ledger.item(id, id == 1)).is_stored());
        }
        let chunk = rx.read_chunk(3).unwrap();
        // The held slots get voids; 4 and then 5 evict the oldest item
        // not held (3, then 4).
        let mut evicted = Vec::new();
        for id in 4..6 {
            match tx.push_overwrite(ledger.item(id, false)) {
                sluicegate::Overwritten::Evicted(old) => evicted.push(old.id),
                other => panic!("push {id}: {:?}", other.is_stored()),
            }
        }
        // Nothing committed: the three go back only if nothing went past
        // them; here the producer did, so they are dropped, 1 panicking.
        expect_panic(|| drop(chunk));
        ledger.assert_dropped_exactly(evicted.iter().copied().chain([0, 1, 2]));
        assert_eq!(tx.stats().overwritten, evicted.len() + 3);
        assert_eq!(evicted, [3, 4]);
        // The claim ended: the held slots' voids are passed (nothing to
        // evict), and the consumer reads the two newest.
        assert!(matches!(
            tx.push_overwrite(ledger.item(6, false)),
            sluicegate::Overwritten::Stored
        ));
        let got: Vec<usize> = rx.drain().map(|i| i.id).collect();
        assert_eq!(got, [5, 6]);
        assert_eq!(tx.stats().rejected, 0);
    }
    ledger.assert_dropped_exactly(0..7);
}
