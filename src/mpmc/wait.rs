//! Waiting on the SCQ ring (feature `async`): [`Ring::push`] and
//! [`Ring::pop`], their futures [`Push`] and [`Pop`], and the wake-ups the
//! ring's other operations send them. The protocol and why it loses no
//! wake-up are in `src/wait.rs`; each side's waiters are a list of nodes
//! that live in the futures (`src/wait/queue.rs`), so any number wait and
//! none polls.
//!
//! Without the feature the wake-up helpers are empty and the ring is
//! unchanged.

#[cfg(feature = "async")]
use super::lifecycle::NoRoom;
#[cfg(feature = "async")]
use super::FreeIndices;
use super::{FreePool, Ring};
#[cfg(feature = "async")]
use crate::wait::{list::Node, list::Wake, queue, Side};
#[cfg(feature = "async")]
use crate::Closed;
#[cfg(feature = "async")]
use core::{pin::Pin, task::Poll};

/// One waiter list per side (`Side as usize`).
#[cfg(feature = "async")]
pub(super) type RingWaiters = queue::Sides;

// The wake-ups, called by `publish`, `take`, `close`, the evictions, the
// bursts and `FreeSlot`'s drop; empty without the feature.
impl<T, const N: usize, F: FreePool<N>> Ring<T, N, F> {
    /// After an item was published: wakes a task waiting in `pop`.
    #[inline(always)]
    pub(super) fn wake_poppers(&self) {
        #[cfg(feature = "async")]
        self.waiters[Side::Item as usize].notify(1);
    }

    /// After `n` items were published: wakes up to `n` tasks waiting in
    /// `pop`.
    #[inline(always)]
    pub(super) fn wake_poppers_n(&self, n: usize) {
        #[cfg(feature = "async")]
        self.waiters[Side::Item as usize].notify(n);
        #[cfg(not(feature = "async"))]
        let _ = n;
    }

    /// After an eviction ended or gave up: wakes every task waiting in
    /// `pop` (on a closed ring each may now answer "closed and drained").
    #[inline(always)]
    pub(super) fn wake_all_poppers(&self) {
        #[cfg(feature = "async")]
        self.waiters[Side::Item as usize].notify_all();
    }

    /// After a slot went back to `fq`: wakes a task waiting in `push`.
    #[inline(always)]
    pub(super) fn wake_pushers(&self) {
        #[cfg(feature = "async")]
        self.waiters[Side::Room as usize].notify(1);
    }

    /// After `n` slots went back to `fq`: wakes up to `n` tasks waiting in
    /// `push`.
    #[inline(always)]
    pub(super) fn wake_pushers_n(&self, n: usize) {
        #[cfg(feature = "async")]
        self.waiters[Side::Room as usize].notify(n);
        #[cfg(not(feature = "async"))]
        let _ = n;
    }

    /// After the close: wakes every waiting task.
    #[inline]
    pub(super) fn wake_all(&self) {
        #[cfg(feature = "async")]
        {
            self.waiters[Side::Item as usize].notify_all();
            self.waiters[Side::Room as usize].notify_all();
        }
    }
}

#[cfg(feature = "async")]
crate::wait::mpmc_wait_futures!("sluicegate::mpmc", F);

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>> Push<'_, T, N, F> {
    /// One poll, woken as `wake` says.
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Result<(), Closed<T>>> {
        // SAFETY: `node` is never moved out of the pinned future (only
        // borrowed); `item` is not pinned (it moves by value).
        let this = unsafe { self.get_unchecked_mut() };
        assert!(this.item.is_some(), "Push polled after it resolved");
        let (ring, item, node) = (this.ring, &mut this.item, &this.node);
        ring.waiters[Side::Room as usize].poll(node, wake, || {
            match ring.push_if_room(item.take()?) {
                Ok(done) => Some(done),
                Err(NoRoom(back)) => {
                    *item = Some(back);
                    None
                }
            }
        })
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>> Pop<'_, T, N, F> {
    /// One poll, woken as `wake` says.
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Option<T>> {
        let this = self.into_ref().get_ref();
        let ring = this.ring;
        ring.waiters[Side::Item as usize].poll(&this.node, wake, || ring.pop_or_finished())
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>> Drop for Push<'_, T, N, F> {
    fn drop(&mut self) {
        self.ring.waiters[Side::Room as usize].leave(&self.node);
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>> Drop for Pop<'_, T, N, F> {
    fn drop(&mut self) {
        self.ring.waiters[Side::Item as usize].leave(&self.node);
    }
}
