//! Waiting on the SCQ ring: its side of the ring contract
//! (`src/contract.rs`), on which [`Ring::push`], [`Ring::pop`] and the
//! blocking calls are written once, and the wake-ups the ring's other
//! operations send the waiters (feature `async`). The protocol and why it loses no
//! wake-up are in `src/wait.rs`; each side's waiters are a list of nodes
//! that live in the futures (`src/wait/queue.rs`), so any number wait and
//! none polls.
//!
//! Without the feature the wake-up helpers are empty and the ring is
//! unchanged.

use super::lifecycle::NoRoom;
#[cfg(feature = "async")]
use super::{FreeIndices, NoMarks};
use super::{FreePool, Marks, Ring};
use crate::contract::Waitable;
#[cfg(feature = "async")]
use crate::wait::{list::Node, list::Wake, queue, Side};
use crate::Closed;
#[cfg(feature = "async")]
use crate::{contract, future};
#[cfg(feature = "async")]
use core::task::Poll;

/// One waiter list per side (`Side as usize`).
#[cfg(feature = "async")]
pub(super) type RingWaiters = queue::Sides;

// The wake-ups, called by `publish`, `take`, `close`, the evictions, the
// bursts and `FreeSlot`'s drop; empty without the feature. The wake-ups
// after an item was published or a slot freed go through
// `notify_after_seqcst` (no fence where a `SeqCst` load of the gate does
// its work, "Without the notifier's fence" in `src/wait.rs`): every write
// of those operations that decides a waiter's try is a `SeqCst`
// read-modify-write or store of `aq`, `fq` or a free pool (the slot's
// contents travel with the index, as for any pop). The evictions' and the
// close's wake-ups keep the fence.
impl<T, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    /// After an item was published: wakes a task waiting in `pop`.
    #[inline(always)]
    pub(super) fn wake_poppers(&self) {
        #[cfg(feature = "async")]
        self.waiters[Side::Item as usize].notify_after_seqcst(1);
    }

    /// After `n` items were published: wakes up to `n` tasks waiting in
    /// `pop`.
    #[inline(always)]
    pub(super) fn wake_poppers_n(&self, n: usize) {
        #[cfg(feature = "async")]
        self.waiters[Side::Item as usize].notify_after_seqcst(n);
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

    /// After a look of `aq` (`POPS`) or `fq` found an index hidden: wakes
    /// every task waiting in `pop` (or `push`): several may have been told
    /// "empty" (or "full") meanwhile.
    #[cfg(feature = "async")]
    #[cold]
    #[inline(never)]
    fn wake_all_unhidden<const POPS: bool>(&self) {
        let side = if POPS { Side::Item } else { Side::Room };
        self.waiters[side as usize].notify_all();
    }

    /// The hook of `aq`'s dequeues: a look that ends a late-miss window
    /// wakes the pops. Without the feature nobody waits, and the hook is
    /// `()`: nothing passed, nothing called.
    #[inline(always)]
    pub(super) fn poppers(&self) -> impl super::scq::OnUnhide + '_ {
        #[cfg(feature = "async")]
        return Unhidden::<'_, T, N, F, M, true>(self);
        #[cfg(not(feature = "async"))]
        return;
    }

    /// The hook of `fq`'s dequeues: it wakes the pushes (`()` without the
    /// feature).
    #[inline(always)]
    pub(super) fn pushers(&self) -> impl super::scq::OnUnhide + '_ {
        #[cfg(feature = "async")]
        return Unhidden::<'_, T, N, F, M, false>(self);
        #[cfg(not(feature = "async"))]
        return;
    }

    /// After a slot went back to `fq`: wakes a task waiting in `push`.
    #[inline(always)]
    pub(super) fn wake_pushers(&self) {
        #[cfg(feature = "async")]
        self.waiters[Side::Room as usize].notify_after_seqcst(1);
    }

    /// After `n` slots went back to `fq`: wakes up to `n` tasks waiting in
    /// `push`.
    #[inline(always)]
    pub(super) fn wake_pushers_n(&self, n: usize) {
        #[cfg(feature = "async")]
        self.waiters[Side::Room as usize].notify_after_seqcst(n);
        #[cfg(not(feature = "async"))]
        let _ = n;
    }

    /// After the close: wakes every waiting task and drain waiter, each
    /// list also if a waker of an earlier one panics.
    #[inline]
    pub(super) fn wake_all(&self) {
        #[cfg(feature = "async")]
        crate::wait::queue::close_sides(&self.waiters, &|| M::closed(&self.marks));
        #[cfg(not(feature = "async"))]
        M::closed(&self.marks);
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    /// Pushes `item`, waiting (asynchronously) for a free slot. Resolves to
    /// `Ok(())` once the item is in, or to `Err(Closed(item))` once the ring
    /// is closed. Any pop (on any context, an interrupt handler's `try_pop`
    /// included) or the close wakes it; any number of tasks may wait, none
    /// of them polling (a pop wakes the one that waited longest). A wait is
    /// not counted as a rejection; dropping the future drops the item. The
    /// future is `!Unpin` ([`crate::future`]). Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::Ring;
    ///
    /// static JOBS: Ring<u32, 2> = Ring::new();
    /// std::thread::scope(|s| {
    ///     for t in 0..3 {
    ///         s.spawn(move || {
    ///             pollster::block_on(async {
    ///                 for i in 0..10 {
    ///                     JOBS.push(t * 10 + i).await.unwrap();
    ///                 }
    ///             })
    ///         });
    ///     }
    ///     let sum: u32 = pollster::block_on(async {
    ///         let mut sum = 0;
    ///         for _ in 0..30 {
    ///             sum += JOBS.pop().await.unwrap();
    ///         }
    ///         sum
    ///     });
    ///     assert_eq!(sum, (0..30).sum());
    /// });
    /// JOBS.close();
    /// assert!(pollster::block_on(JOBS.push(1)).is_err()); // handed back
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub fn push(&self, item: T) -> Push<'_, T, N, F, M> {
        future::Push::new(self, item)
    }

    /// Pops the oldest item, waiting (asynchronously) until there is one;
    /// resolves to `None` once the ring is closed and drained. Any push (an
    /// interrupt handler's `try_push` included) wakes one waiting pop, the
    /// one that waited longest; the close wakes them all. Any number of
    /// tasks may wait; the future is `!Unpin` (see [`push`](Self::push)).
    /// Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::Ring;
    ///
    /// static EVENTS: Ring<u8, 4> = Ring::new();
    /// let isr = std::thread::spawn(|| {
    ///     EVENTS.try_push(1).unwrap();
    ///     EVENTS.close();
    /// });
    /// assert_eq!(pollster::block_on(EVENTS.pop()), Some(1));
    /// assert_eq!(pollster::block_on(EVENTS.pop()), None); // closed and drained
    /// isr.join().unwrap();
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub fn pop(&self) -> Pop<'_, T, N, F, M> {
        future::Pop::new(self)
    }
}

impl<T, const N: usize, F: FreePool<N>, M: Marks> Waitable for Ring<T, N, F, M> {
    type Item = T;

    #[inline]
    fn push_now(&self, item: T) -> Result<Result<(), Closed<T>>, T> {
        self.push_if_room(item).map_err(|NoRoom(back)| back)
    }

    #[inline]
    fn pop_now(&self) -> Option<Option<T>> {
        self.pop_or_finished()
    }

    #[cfg(feature = "async")]
    fn poll_push(
        &self,
        node: &Node,
        wake: Wake<'_>,
        item: &mut Option<T>,
    ) -> Poll<Result<(), Closed<T>>> {
        contract::poll_push_in(self, &self.waiters[Side::Room as usize], node, wake, item)
    }

    #[cfg(feature = "async")]
    fn poll_pop(&self, node: &Node, wake: Wake<'_>) -> Poll<Option<T>> {
        self.waiters[Side::Item as usize].poll(node, wake, || self.pop_or_finished())
    }

    #[cfg(feature = "async")]
    fn leave(&self, side: Side, node: &Node) {
        self.waiters[side as usize].leave(node);
    }

    #[cfg(feature = "std")]
    fn crowded(&self) -> bool {
        // A hint for the spin before a park: a stale answer costs a yield
        // or a park, so the gates' relaxed loads need no fence.
        queue::either_waits(&self.waiters)
    }
}

/// The future of [`Ring::push`] (feature `async`): [`future::Push`] on this
/// ring.
///
/// ```
/// use sluicegate::mpmc::{Push, Ring};
///
/// let ring: Ring<u8, 1> = Ring::new();
/// let push: Push<'_, u8, 1> = ring.push(1);
/// assert_eq!(pollster::block_on(push), Ok(()));
/// ```
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub type Push<'r, T, const N: usize, F = FreeIndices<N>, M = NoMarks> =
    future::Push<'r, Ring<T, N, F, M>>;

/// The future of [`Ring::pop`] (feature `async`): [`future::Pop`] on this
/// ring.
///
/// ```
/// use sluicegate::mpmc::{Pop, Ring};
///
/// let ring: Ring<u8, 1> = Ring::new();
/// ring.try_push(2).unwrap();
/// let pop: Pop<'_, u8, 1> = ring.pop();
/// assert_eq!(pollster::block_on(pop), Some(2));
/// ```
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub type Pop<'r, T, const N: usize, F = FreeIndices<N>, M = NoMarks> =
    future::Pop<'r, Ring<T, N, F, M>>;

/// Test-only: a late decrement of `fq`'s (`free`) or `aq`'s `threshold`,
/// with the look and the wake of the crossing (`IndexRing::late_decrement`).
#[cfg(all(test, sluicegate_loom, feature = "async"))]
impl<T, const N: usize, M: Marks> Ring<T, N, FreeIndices<N>, M> {
    pub(crate) fn late_decrement(&self, free: bool) {
        if free {
            self.fq.late_decrement(self.pushers());
        } else {
            self.aq.late_decrement(self.poppers());
        }
    }
}

/// The hook a ring passes to the dequeues of `aq` (`POPS`) or `fq`:
/// [`Ring::poppers`], [`Ring::pushers`].
#[cfg(feature = "async")]
pub(super) struct Unhidden<'r, T, const N: usize, F: FreePool<N>, M: Marks, const POPS: bool>(
    &'r Ring<T, N, F, M>,
);

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>, M: Marks, const POPS: bool> super::scq::OnUnhide
    for Unhidden<'_, T, N, F, M, POPS>
{
    #[inline(always)]
    fn unhidden(&self) {
        self.0.wake_all_unhidden::<POPS>();
    }
}

// By hand: a derive would ask `T: Copy`.
#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>, M: Marks, const POPS: bool> Clone
    for Unhidden<'_, T, N, F, M, POPS>
{
    fn clone(&self) -> Self {
        *self
    }
}
#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>, M: Marks, const POPS: bool> Copy
    for Unhidden<'_, T, N, F, M, POPS>
{
}
