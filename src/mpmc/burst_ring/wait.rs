//! Waiting on the burst ring: its side of the ring contract
//! (`src/contract.rs`), on which [`BurstRing::push`], [`BurstRing::pop`] and
//! the blocking calls are written once, and the wake-ups its commits send
//! the waiters (feature `async`; without it the wake-ups are empty).
//!
//! A waiter treats [`Stop::Busy`] as it treats full or
//! empty: it waits. What it waits for is always a commit that wakes it:
//!
//! - a pop is busy behind a push between its claim and its flip, or at a
//!   void a dropped write chunk left: the flip of `published` (a push, a
//!   burst, a write chunk's drop, an eviction) wakes the poppers; a pop is
//!   busy behind another's pass of voids: the end of the pass wakes as
//!   many poppers as positions are claimed behind the voids (their items'
//!   own wakes may have gone to pops that met the pass);
//! - a push is busy behind a pop between its claim and its flip, or behind
//!   an eviction's flag: the flip of `consumed` (a pop, a burst, a read
//!   chunk's drop, a skip of voids) wakes the pushers, and so does the end
//!   of an eviction (a pop may have freed a slot while the flag was set).
//!
//! On a closed ring a pop that woke to a push still in progress waits again;
//! the commit that ends it then wakes *every* popper (the ones whose only
//! wake was the close's must learn that the ring is drained now), which the
//! commits decide only when someone waits, after the fence. On a ring of
//! one slot, a pop of the last item in progress on a closed ring looks like
//! an eviction between its two claims (`claim.rs`, `pop_blocked`), so the
//! others wait for it: there the pops' commits check both sides (one fence,
//! two loads, only where `N == 1`) and wake every waiting pop of a closed
//! ring too.
//!
//! Waiting is counted neither as rejected nor as busy.

#[cfg(feature = "async")]
use super::NoMarks;
use super::{Bit, BurstRing, Marks, Stop, SHIFT};
use crate::contract::Waitable;
use crate::Closed;
#[cfg(feature = "async")]
use {
    super::CLOSED,
    crate::future,
    crate::sync::Ordering,
    crate::wait::{list::Node, list::Wake, Side},
    core::task::Poll,
};

// The wake-ups; empty without the feature. Every write of this ring that
// decides a waiter's try is a `SeqCst` operation where
// `sync::SEQCST_GATE` holds (the claims, the passes' stores and the
// evictions' flag are `SeqCst` everywhere; the bitmaps' read-modify-writes
// are `bits::HAND_OFF`), so there the wake-ups check the gate with `SeqCst`
// loads and no fence ("Without the notifier's fence" in `src/wait.rs`).
// The close's keep the fence.
impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// After `n` items were published (or voids left for pops to pass):
    /// wakes up to `n` waiting pops, or all of them on a closed ring.
    #[inline(always)]
    pub(super) fn wake_poppers(&self, n: usize) {
        #[cfg(feature = "async")]
        self.waiters[Side::Item as usize].notify_or_all_after_seqcst(n, || {
            // SeqCst: after the fence (or the gate's SeqCst load), so a
            // close before it is seen; a close after it wakes every waiter
            // itself.
            self.prod.load(Ordering::SeqCst) & CLOSED != 0
        });
        #[cfg(not(feature = "async"))]
        let _ = n;
    }

    /// After `n` slots were freed: wakes up to `n` waiting pushes (and, on
    /// a closed ring of one slot, every waiting pop: see the module docs).
    #[inline(always)]
    pub(super) fn wake_pushers(&self, n: usize) {
        #[cfg(feature = "async")]
        if N == 1 {
            if self.either_side_waits() {
                self.freed_and_waiting(n);
            }
        } else {
            self.waiters[Side::Room as usize].notify_after_seqcst(n);
        }
        #[cfg(not(feature = "async"))]
        let _ = n;
    }

    /// The wake-ups of [`wake_pushers`](Self::wake_pushers) on a ring of
    /// one slot when someone waits.
    #[cfg(feature = "async")]
    #[cold]
    #[inline(never)]
    fn freed_and_waiting(&self, n: usize) {
        self.waiters[Side::Room as usize].notify_after_seqcst(n);
        self.wake_poppers(0);
    }

    /// The protocol's fence (`src/wait.rs`), once for both sides, then
    /// whether a task waits on either (without the fence where the gate's
    /// `SeqCst` loads do its work: see `wake_poppers`).
    #[cfg(feature = "async")]
    #[inline(always)]
    fn either_side_waits(&self) -> bool {
        crate::wait::queue::either_waits_after_seqcst(&self.waiters)
    }

    /// After an eviction cleared its flag: it published one item, and the
    /// pushes it held back as busy may find a slot a pop freed meanwhile.
    #[inline(always)]
    pub(super) fn wake_after_eviction(&self) {
        #[cfg(feature = "async")]
        if self.either_side_waits() {
            self.evicted_and_waiting();
        }
    }

    /// The wake-ups of [`wake_after_eviction`](Self::wake_after_eviction)
    /// when someone waits.
    #[cfg(feature = "async")]
    #[cold]
    #[inline(never)]
    fn evicted_and_waiting(&self) {
        self.wake_poppers(1);
        self.waiters[Side::Room as usize].notify_all();
    }

    /// After the close: wakes every waiter and drain waiter, each list also
    /// if a waker of an earlier one panics.
    #[inline]
    pub(super) fn wake_all(&self) {
        #[cfg(feature = "async")]
        crate::wait::queue::close_sides(&self.waiters, &|| M::closed(&self.marks));
        #[cfg(not(feature = "async"))]
        M::closed(&self.marks);
    }
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> Waitable for BurstRing<T, N, W, M> {
    type Item = T;

    #[inline]
    fn push_now(&self, item: T) -> Result<Result<(), Closed<T>>, T> {
        match self.claim_push(1, 1) {
            Ok((h, _)) => {
                self.put(h, Bit::of::<N>(h >> SHIFT), item);
                Ok(Ok(()))
            }
            Err(Stop::Closed) => Ok(Err(Closed(item))),
            Err(_) => Err(item),
        }
    }

    #[inline]
    fn pop_now(&self) -> Option<Option<T>> {
        match self.claim_pop(1, 1) {
            Ok((c, _)) => Some(Some(self.take(c, Bit::of::<N>(c >> SHIFT)))),
            Err(Stop::Closed) => Some(None),
            Err(_) => None,
        }
    }

    #[cfg(feature = "async")]
    fn poll_push(
        &self,
        node: &Node,
        wake: Wake<'_>,
        item: &mut Option<T>,
    ) -> Poll<Result<(), Closed<T>>> {
        crate::contract::poll_push_in(self, &self.waiters[Side::Room as usize], node, wake, item)
    }

    #[cfg(feature = "async")]
    fn poll_pop(&self, node: &Node, wake: Wake<'_>) -> Poll<Option<T>> {
        self.waiters[Side::Item as usize].poll(node, wake, || self.pop_now())
    }

    #[cfg(feature = "async")]
    fn leave(&self, side: Side, node: &Node) {
        self.waiters[side as usize].leave(node);
    }

    #[cfg(feature = "std")]
    fn crowded(&self) -> bool {
        // A hint for the spin before a park: a stale answer costs a yield
        // or a park, so the gates' relaxed loads need no fence.
        crate::wait::queue::either_waits(&self.waiters)
    }
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// Pushes `item`, waiting (asynchronously) while the ring is full or the
    /// next slot is busy. Resolves to `Ok(())` once the item is in, or to
    /// `Err(Closed(item))` once the ring is closed. Any pop, burst or read
    /// chunk's release (an interrupt handler's `try_pop` included) or the
    /// close wakes it; any number of tasks may wait, none of them polling.
    /// A wait is counted neither as rejected nor as busy. The future is
    /// `!Unpin` ([`crate::future`]). Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::BurstRing;
    ///
    /// static JOBS: BurstRing<u32, 2, 1> = BurstRing::new();
    /// std::thread::scope(|s| {
    ///     s.spawn(|| pollster::block_on(async {
    ///         for i in 0..10 {
    ///             JOBS.push(i).await.unwrap();
    ///         }
    ///     }));
    ///     let sum: u32 = pollster::block_on(async {
    ///         let mut sum = 0;
    ///         for _ in 0..10 {
    ///             sum += JOBS.pop().await.unwrap();
    ///         }
    ///         sum
    ///     });
    ///     assert_eq!(sum, 45);
    /// });
    /// assert_eq!(JOBS.stats().rejected, 0); // waits are not refusals
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub fn push(&self, item: T) -> Push<'_, T, N, W, M> {
        future::Push::new(self, item)
    }

    /// Pops the oldest item, waiting (asynchronously) while the ring is
    /// empty or its oldest item is still being pushed; resolves to `None`
    /// once the ring is closed and drained. Any push or burst (an interrupt
    /// handler's `try_push` included) wakes one waiting pop per item, the
    /// close wakes them all. Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::BurstRing;
    ///
    /// static RX: BurstRing<u16, 64, 2> = BurstRing::new();
    /// let nic = std::thread::spawn(|| {
    ///     RX.push_burst(&[1, 2, 3]);
    ///     RX.close();
    /// });
    /// let got: Vec<u16> = pollster::block_on(async {
    ///     let mut got = Vec::new();
    ///     while let Some(v) = RX.pop().await {
    ///         got.push(v);
    ///     }
    ///     got
    /// });
    /// assert_eq!(got, [1, 2, 3]);
    /// nic.join().unwrap();
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub fn pop(&self) -> Pop<'_, T, N, W, M> {
        future::Pop::new(self)
    }

    /// Pushes `item`, waiting while the ring is full or the next slot is
    /// busy; hands the item back in [`Closed`] once the ring is closed. With
    /// `std` the thread tries again for a few microseconds, then sleeps until
    /// a pop or the close wakes it; without `std` it spins with
    /// [`crossbeam_utils::Backoff`]. **Never call this from an interrupt
    /// handler** that can preempt a pop of this ring: the wait would never
    /// end.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::BurstRing;
    ///
    /// let ring: BurstRing<u32, 2, 1> = BurstRing::new();
    /// std::thread::scope(|s| {
    ///     s.spawn(|| {
    ///         (0..100).for_each(|i| ring.push_blocking(i).unwrap());
    ///         ring.close();
    ///     });
    ///     let got: u32 = std::iter::from_fn(|| ring.pop_blocking()).sum();
    ///     assert_eq!(got, (0..100).sum());
    /// });
    /// ```
    pub fn push_blocking(&self, item: T) -> Result<(), Closed<T>> {
        crate::contract::push_blocking(self, item)
    }

    /// Pops the oldest item, waiting while the ring is empty or busy;
    /// `None` once it is closed and drained. Sleeps or spins as
    /// [`push_blocking`](Self::push_blocking) does, with the same warning.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 2, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.try_push(4).unwrap();
    /// assert_eq!(ring.pop_blocking(), Some(4));
    /// ring.close();
    /// assert_eq!(ring.pop_blocking(), None);
    /// ```
    pub fn pop_blocking(&self) -> Option<T> {
        crate::contract::pop_blocking(self)
    }
}

/// The future of [`BurstRing::push`] (feature `async`): [`future::Push`] on
/// this ring.
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub type Push<'r, T, const N: usize, const W: usize, M = NoMarks> =
    future::Push<'r, BurstRing<T, N, W, M>>;

/// The future of [`BurstRing::pop`] (feature `async`): [`future::Pop`] on
/// this ring.
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub type Pop<'r, T, const N: usize, const W: usize, M = NoMarks> =
    future::Pop<'r, BurstRing<T, N, W, M>>;
