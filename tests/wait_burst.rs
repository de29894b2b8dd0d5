//! The waits of `mpmc::BurstRing` (feature `async`; the blocking ones park
//! with `std` too): the tests of `tests/common/ring_waits.rs`, which
//! `tests/wait.rs` and `tests/wait_cs.rs` run on the other MPMC rings,
//! through an adapter that gives the burst ring their names (its busy
//! answers read as full or empty, which a caller of those rings retries),
//! and the waits only this ring has: behind a push or pop in progress, and
//! on a closed ring whose last items were still being pushed.
#![cfg(not(sluicegate_loom))]

use sluicegate::mpmc::burst_ring::{self, BurstRing, PopError, PushError};
use sluicegate::{Overwritten, RingStats, TryPopError, TryPushError};
use std::pin::pin;
use std::task::Poll;

#[path = "common/ring_waits.rs"]
mod ring_waits;
use ring_waits::{counting, poll_pin, wakes};

/// A burst ring under the names of `mpmc::Ring`.
#[allow(missing_debug_implementations)] // a test adapter
pub struct Ring<T: Copy, const N: usize, const W: usize = 1>(BurstRing<T, N, W>);

/// The 64-slot ring of the shared tests.
type Ring64 = Ring<u32, 64, 2>;

// Each method is the `mpmc::Ring` method of the same name.
#[allow(missing_docs, clippy::new_without_default)]
impl<T: Copy, const N: usize, const W: usize> Ring<T, N, W> {
    pub const fn new() -> Self {
        Self(BurstRing::new())
    }
    pub fn try_push(&self, item: T) -> Result<(), TryPushError<T>> {
        self.0.try_push(item).map_err(|e| match e {
            PushError::Full(v) | PushError::Busy(v) => TryPushError::Full(v),
            PushError::Closed(v) => TryPushError::Closed(v),
        })
    }
    pub fn try_pop_or_closed(&self) -> Result<T, TryPopError> {
        self.0.try_pop().map_err(|e| match e {
            PopError::Empty | PopError::Busy => TryPopError::Empty,
            PopError::Closed => TryPopError::Closed,
        })
    }
    pub fn try_pop(&self) -> Option<T> {
        self.try_pop_or_closed().ok()
    }
    pub fn push_overwrite(&self, item: T) -> Overwritten<T> {
        match self.0.push_overwrite(item) {
            Ok(None) => Overwritten::Stored,
            Ok(Some(old)) => Overwritten::Evicted(old),
            Err(e) => Overwritten::Rejected(e.into_inner()),
        }
    }
    pub fn push_iter(&self, items: impl IntoIterator<Item = T>) -> usize {
        items
            .into_iter()
            .take_while(|&v| self.try_push(v).is_ok())
            .count()
    }
    pub fn push_burst(&self, items: &[T]) -> usize {
        self.0.push_burst(items).count
    }
    pub fn pop_burst(&self, out: &mut [T]) -> usize {
        self.0.pop_burst(out).count
    }
    pub fn drain(&self) -> impl Iterator<Item = T> + '_ {
        self.0.drain()
    }
    pub fn clear(&self) -> usize {
        self.0.clear()
    }
    pub fn close(&self) -> bool {
        self.0.close()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn stats(&self) -> RingStats {
        self.0.stats()
    }
    pub fn push(&self, item: T) -> burst_ring::Push<'_, T, N, W> {
        self.0.push(item)
    }
    pub fn pop(&self) -> burst_ring::Pop<'_, T, N, W> {
        self.0.pop()
    }
    #[cfg(feature = "std")]
    pub fn push_blocking(&self, item: T) -> Result<(), sluicegate::Closed<T>> {
        self.0.push_blocking(item)
    }
    #[cfg(feature = "std")]
    pub fn pop_blocking(&self) -> Option<T> {
        self.0.pop_blocking()
    }
}

/// A pop waiting behind a push in progress (a write chunk held) is woken by
/// its commit, and a push waiting behind a pop in progress (a read chunk
/// held) by its release; neither wait is counted as busy.
#[test]
fn waits_behind_operations_in_progress() {
    let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    let (count, waker) = counting();
    let chunk = ring.write_chunk(1).unwrap();
    let mut pop = pin!(ring.pop());
    assert!(poll_pin(pop.as_mut(), &waker).is_pending());
    chunk.fill_from_slice(&[7]);
    assert_eq!(count.wakes(), 1);
    assert_eq!(poll_pin(pop.as_mut(), &waker), Poll::Ready(Some(7)));

    let ring: BurstRing<u32, 1, 1> = BurstRing::new();
    let (count, waker) = counting();
    ring.try_push(1).unwrap();
    let chunk = ring.read_chunk(1).unwrap();
    let mut push = pin!(ring.push(2));
    assert!(poll_pin(push.as_mut(), &waker).is_pending());
    drop(chunk);
    assert_eq!(count.wakes(), 1);
    assert_eq!(poll_pin(push.as_mut(), &waker), Poll::Ready(Ok(())));
    assert_eq!(ring.stats().busy, 0, "a wait is not a busy answer");
}

/// A write chunk dropped without an item leaves a void: the pop waiting at
/// it is woken and passes it to the item behind.
#[test]
fn a_void_wakes_the_pop_waiting_at_it() {
    let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    let (count, waker) = counting();
    let chunk = ring.write_chunk(1).unwrap();
    let mut pop = pin!(ring.pop());
    assert!(poll_pin(pop.as_mut(), &waker).is_pending());
    drop(chunk);
    assert!(count.wakes() >= 1);
    assert!(
        poll_pin(pop.as_mut(), &waker).is_pending(),
        "nothing behind the void yet"
    );
    ring.try_push(3).unwrap();
    assert_eq!(poll_pin(pop.as_mut(), &waker), Poll::Ready(Some(3)));
}

/// Three pops wait on a ring closed while one push was still in progress:
/// the close wakes all three, each finds the push in progress and waits
/// again; the push's commit then wakes all of them, one gets the item and
/// the other two learn that the ring is drained. With a wake-one commit,
/// two would sleep for ever.
#[test]
fn a_commit_after_the_close_wakes_every_pop() {
    let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    let chunk = ring.write_chunk(1).unwrap();
    let wakers: Vec<_> = (0..3).map(|_| counting()).collect();
    let mut pops: Vec<_> = (0..3).map(|_| Box::pin(ring.pop())).collect();
    for (p, (_, w)) in pops.iter_mut().zip(&wakers) {
        assert!(poll_pin(p.as_mut(), w).is_pending());
    }
    ring.close();
    for (p, (_, w)) in pops.iter_mut().zip(&wakers) {
        assert!(
            poll_pin(p.as_mut(), w).is_pending(),
            "the push is in progress"
        );
    }
    chunk.fill_from_slice(&[5]);
    assert_eq!(
        wakes(&wakers),
        [2, 2, 2],
        "woken by the close, then by the commit"
    );
    let mut got: Vec<Option<u32>> = pops
        .iter_mut()
        .zip(&wakers)
        .map(|(p, (_, w))| match poll_pin(p.as_mut(), w) {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("a pop still waits on a drained ring"),
        })
        .collect();
    got.sort_unstable();
    assert_eq!(got, [None, None, Some(5)]);
}
