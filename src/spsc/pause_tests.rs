//! A side stopped at every point inside an operation (as when an interrupt
//! handler preempts the main loop mid-pop) never makes the other side wait,
//! and nothing is lost or duplicated once it resumes.

extern crate std;

use super::{Consumer, Overwrite, Policy, Producer, Ring};
use crate::sync::pause::{self, stop_at};
use crate::Overwritten;
use std::vec::Vec;

impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// A producer handle on a `&'static` ring, without the once flag.
    fn producer_for_test(&'static self) -> Producer<'static, T, N, P> {
        self.handles().0
    }
    /// A consumer handle (one at a time, by the test's discipline).
    fn consumer_for_test(&'static self) -> Consumer<'static, T, N, P> {
        self.handles().1
    }
}

fn drain<const N: usize>(ring: &'static Ring<u32, N, Overwrite>) -> Vec<u32> {
    let mut rx = ring.consumer_for_test();
    core::iter::from_fn(|| rx.try_pop()).collect()
}

#[test]
fn producer_stores_new_items_while_consumer_reads_the_oldest() {
    static RING: Ring<u32, 4, Overwrite> = Ring::new();
    let mut tx = RING.producer_for_test();
    for i in 0..4 {
        assert_eq!(tx.push_overwrite(i), Overwritten::Stored);
    }
    let popped = stop_at(
        pause::SPSC_RELEASE,
        || RING.consumer_for_test().try_pop(),
        || {
            // The consumer holds item 0 mid-read; the ring is full. Every
            // push returns at once (never waiting), stores the new item and
            // evicts the oldest item the consumer does not hold.
            for i in 4..1004 {
                assert_eq!(tx.push_overwrite(i), Overwritten::Evicted(i - 3));
            }
            assert_eq!(RING.stats().rejected, 0);
            assert_eq!(RING.stats().overwritten, 1000);
            // Three items, and the held slot's position a void.
            assert_eq!(RING.len(), 3);
        },
    );
    assert_eq!(popped, Some(0));
    // Consumer done. The last lap left 1001, 1002, a void (the held slot's
    // position), 1003: the void keeps its place in the order until the
    // consumer or an eviction passes it, so eviction goes on oldest first.
    assert_eq!(tx.push_overwrite(2000), Overwritten::Evicted(1001));
    assert_eq!(tx.push_overwrite(2001), Overwritten::Evicted(1002));
    assert_eq!(RING.len(), 3);
    assert_eq!(drain(&RING), [1003, 2000, 2001]);
    assert_eq!(RING.stats().overwritten, 1002);
    assert_eq!(RING.stats().rejected, 0);
    // The void passed, all four slots hold items again.
    for i in 0..4 {
        assert_eq!(tx.push_overwrite(3000 + i), Overwritten::Stored);
    }
    assert_eq!(tx.push_overwrite(3004), Overwritten::Evicted(3000));
}

#[test]
fn producer_fills_free_slots_while_consumer_is_stopped_mid_pop() {
    static RING: Ring<u32, 8, Overwrite> = Ring::with_start(usize::MAX >> 1);
    let mut tx = RING.producer_for_test();
    assert_eq!(tx.push_overwrite(0), Overwritten::Stored);
    let popped = stop_at(
        pause::SPSC_RELEASE,
        || RING.consumer_for_test().try_pop(),
        || {
            // 7 free slots beside the one being read: all usable.
            for i in 1..8 {
                assert_eq!(tx.push_overwrite(i), Overwritten::Stored);
            }
            // Then the held slot is skipped and the oldest unread evicted.
            assert_eq!(tx.push_overwrite(8), Overwritten::Evicted(1));
        },
    );
    assert_eq!(popped, Some(0));
    assert_eq!(drain(&RING), [2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn consumer_stopped_before_claiming_loses_nothing() {
    static RING: Ring<u32, 4, Overwrite> = Ring::with_start(7);
    let mut tx = RING.producer_for_test();
    for i in 0..4 {
        assert_eq!(tx.push_overwrite(i), Overwritten::Stored);
    }
    let mut evicted = Vec::new();
    let popped = stop_at(
        pause::SPSC_CLAIM,
        || RING.consumer_for_test().try_pop(),
        || {
            // Not yet claimed: the producer evicts freely.
            for i in 4..10 {
                evicted.push(tx.push_overwrite(i).into_item().unwrap());
            }
        },
    );
    assert_eq!(evicted, [0, 1, 2, 3, 4, 5]);
    // The consumer's claim failed and it retried on the new oldest.
    assert_eq!(popped, Some(6));
    assert_eq!(drain(&RING), [7, 8, 9]);
    assert_eq!(RING.stats().overwritten, 6);
    assert_eq!(RING.stats().rejected, 0);
}

/// The producer is stopped just before its eviction CAS on a full ring; the
/// consumer pops meanwhile. The CAS then fails, and the producer uses the slot
/// the pop freed instead of evicting: nothing is evicted or rejected.
#[test]
fn producer_stopped_before_evicting_finds_the_room_a_pop_made() {
    static RING: Ring<u32, 2, Overwrite> = Ring::with_start(usize::MAX >> 1);
    let mut tx = RING.producer_for_test();
    assert_eq!(tx.push_overwrite(0), Overwritten::Stored);
    assert_eq!(tx.push_overwrite(1), Overwritten::Stored);
    let mut popped = None;
    let pushed = stop_at(
        pause::SPSC_EVICT,
        || tx.push_overwrite(2),
        || popped = RING.consumer_for_test().try_pop(),
    );
    assert_eq!(popped, Some(0));
    assert_eq!(pushed, Overwritten::Stored);
    assert_eq!(drain(&RING), [1, 2]);
    assert_eq!(RING.stats().overwritten, 0);
    assert_eq!(RING.stats().rejected, 0);
}
