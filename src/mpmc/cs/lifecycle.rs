//! The critical-section ring's lifecycle: closing it, the pops that know a
//! closed ring is drained, draining and clearing, pushing from an iterator,
//! the blocking calls, and dropping the ring with its items.

use super::{Marks, Ring, State};
use crate::contract::Waitable;
#[cfg(feature = "async")]
use crate::wait::{
    list::{Node, Wake},
    Side,
};
#[cfg(doc)]
use crate::Overwritten;
use crate::{Closed, TryPopError, TryPushError};
#[cfg(feature = "async")]
use core::task::Poll;

impl<T, const N: usize, M: Marks> Ring<T, N, M> {
    /// Closes the ring: from now on every push fails and hands its item
    /// back ([`TryPushError::Closed`], [`Closed`], or
    /// [`Overwritten::Rejected`] uncounted), while pops go on taking what
    /// is inside; once it is drained,
    /// [`try_pop_or_closed`](Self::try_pop_or_closed) answers
    /// [`TryPopError::Closed`] and [`pop_blocking`](Self::pop_blocking)
    /// `None`, and every waiting push and pop returns. Returns whether this
    /// call closed it. One critical section, so every push is before or
    /// after it and nothing is lost around it.
    ///
    /// ```
    /// use sluicegate::{TryPopError, TryPushError};
    ///
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 4> = sluicegate::mpmc::cs::Ring::new();
    /// ring.try_push(1).unwrap();
    /// assert!(ring.close());
    /// assert!(ring.is_closed() && !ring.close());
    /// assert_eq!(ring.try_push(2), Err(TryPushError::Closed(2)));
    /// assert_eq!(ring.try_pop_or_closed(), Ok(1));
    /// assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
    /// ```
    pub fn close(&self) -> bool {
        #[cfg(feature = "async")]
        {
            self.close_and_wake()
        }
        #[cfg(not(feature = "async"))]
        {
            self.with(|s| s.close())
        }
    }

    /// Whether [`close`](Self::close) has been called.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 2> = sluicegate::mpmc::cs::Ring::new();
    /// assert!(!ring.is_closed());
    /// ring.close();
    /// assert!(ring.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.with(|s| s.is_closed())
    }

    /// Pops the oldest item; without one, says whether more may come
    /// ([`TryPopError::Empty`]) or the ring is closed and drained
    /// ([`TryPopError::Closed`]). One critical section.
    ///
    /// ```
    /// use sluicegate::TryPopError;
    ///
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 2> = sluicegate::mpmc::cs::Ring::new();
    /// assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Empty));
    /// ring.try_push(7).unwrap();
    /// ring.close();
    /// assert_eq!(ring.try_pop_or_closed(), Ok(7));
    /// assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
    /// ```
    pub fn try_pop_or_closed(&self) -> Result<T, TryPopError> {
        self.with_pop(
            |s| match s.pop() {
                Some(item) => Ok(item),
                None if s.is_closed() => Err(TryPopError::Closed),
                None => Err(TryPopError::Empty),
            },
            Result::is_ok,
        )
    }

    /// An iterator that pops until the ring is empty, or closed and drained
    /// (each `next` is one critical section).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 4> = sluicegate::mpmc::cs::Ring::new();
    /// ring.push_iter([1, 2, 3]);
    /// assert_eq!(ring.drain().collect::<Vec<_>>(), [1, 2, 3]);
    /// ```
    pub fn drain(&self) -> impl Iterator<Item = T> + use<'_, T, N, M> {
        core::iter::from_fn(move || self.try_pop())
    }

    /// Pops and drops every item in the ring and returns how many; each
    /// `Drop` runs outside the critical sections, after its pop.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<String, 4> = sluicegate::mpmc::cs::Ring::new();
    /// ring.push_iter(["a".to_string(), "b".to_string()]);
    /// assert_eq!(ring.clear(), 2);
    /// assert!(ring.is_empty());
    /// ```
    pub fn clear(&self) -> usize {
        self.drain().count()
    }

    /// Pushes items from `iter` until it ends, the ring is full or it is
    /// closed; returns how many it pushed. It looks for room before taking
    /// each item from `iter`, so on a full ring the rest stay in it (pass
    /// `&mut iter` to keep them). The iterator runs outside the critical
    /// sections, so another context may take the room (or close the ring)
    /// meanwhile: that one item is then dropped and counted as rejected.
    /// Where that matters, use `try_push`, which hands it back.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 4> = sluicegate::mpmc::cs::Ring::new();
    /// let mut items = 1..=6;
    /// assert_eq!(ring.push_iter(&mut items), 4);
    /// assert_eq!(items.next(), Some(5));
    /// ```
    pub fn push_iter<I: IntoIterator<Item = T>>(&self, iter: I) -> usize {
        let mut iter = iter.into_iter();
        let mut n = 0;
        while self.with(|s| s.len < N) {
            let Some(item) = iter.next() else { break };
            // Refused only if the room went while `iter` ran: the item is
            // then rejected (a full ring counts it; a closed one does not,
            // as it hands items back, so it is counted here).
            let pushed = self.with_push(
                |s| match s.push(item) {
                    Err(TryPushError::Closed(item)) => {
                        s.rejected = s.rejected.wrapping_add(1);
                        s.rejected_with_room = s.rejected_with_room.wrapping_add(1);
                        Err(item)
                    }
                    r => r.map_err(TryPushError::into_inner),
                },
                Result::is_ok,
            );
            if let Err(lost) = pushed {
                drop(lost); // here, outside the critical section
                break;
            }
            n += 1;
        }
        n
    }

    /// Pushes `item`, waiting for a free slot: pressure travels upstream
    /// instead of being rejected. Hands the item back in [`Closed`] if the ring
    /// is closed before it finds room. With the `std` feature the thread
    /// tries again for a few microseconds (127 spin hints in all), then
    /// **sleeps** (parked) until a pop or the close wakes it (any number of
    /// threads and tasks sleep per side; a pop wakes one). Without `std` it
    /// **spins** with
    /// [`crossbeam_utils::Backoff`] between attempts, outside the critical
    /// section, and burns its core while it waits. A wait is not counted as
    /// a rejection.
    ///
    /// **Never call this from an interrupt handler** (or any context that
    /// can preempt a consumer on the same core): the consumer could not run
    /// to make room and the wait would never end.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u32, 2> = sluicegate::mpmc::cs::Ring::new();
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

    /// One critical section: pushes `item` (`Ok(Ok(()))`), or hands it back
    /// closed (`Ok(Err)`) or full (`Err`, not counted: a wait is not a
    /// rejection).
    #[inline]
    fn push_unless_full(&self, item: T) -> Result<Result<(), Closed<T>>, T> {
        self.with_push(|s| s.push_unless_full(item), |r| matches!(r, Ok(Ok(()))))
    }

    /// Pops the oldest item, waiting until there is one; `None` once the
    /// ring is closed and drained. With the `std` feature the thread sleeps
    /// until a push or the close wakes it (as in
    /// [`push_blocking`](Self::push_blocking)); without it, it spins with
    /// [`crossbeam_utils::Backoff`] outside the critical section. **Never
    /// call this from an interrupt handler** that can preempt a producer:
    /// the wait would never end.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 2> = sluicegate::mpmc::cs::Ring::new();
    /// ring.try_push(4).unwrap();
    /// assert_eq!(ring.pop_blocking(), Some(4));
    /// ring.close();
    /// assert_eq!(ring.pop_blocking(), None);
    /// ```
    pub fn pop_blocking(&self) -> Option<T> {
        crate::contract::pop_blocking(self)
    }
}

impl<T, const N: usize, M: Marks> Waitable for Ring<T, N, M> {
    type Item = T;

    #[inline]
    fn push_now(&self, item: T) -> Result<Result<(), Closed<T>>, T> {
        self.push_unless_full(item)
    }

    fn pop_now(&self) -> Option<Option<T>> {
        match self.try_pop_or_closed() {
            Ok(item) => Some(Some(item)),
            Err(TryPopError::Closed) => Some(None),
            Err(TryPopError::Empty) => None,
        }
    }

    #[cfg(feature = "async")]
    fn poll_push(
        &self,
        node: &Node,
        wake: Wake<'_>,
        item: &mut Option<T>,
    ) -> Poll<Result<(), Closed<T>>> {
        Ring::poll_push(self, node, wake, item)
    }

    #[cfg(feature = "async")]
    fn poll_pop(&self, node: &Node, wake: Wake<'_>) -> Poll<Option<T>> {
        Ring::poll_pop(self, node, wake)
    }

    #[cfg(feature = "async")]
    fn leave(&self, side: Side, node: &Node) {
        Ring::leave(self, side, node);
    }
}

impl<T, const N: usize, M: Marks> Drop for Ring<T, N, M> {
    fn drop(&mut self) {
        if core::mem::needs_drop::<T>() {
            // `&mut self`: no other context can reach the state, so no
            // critical section. Each item is popped (`head` and `len` move
            // past it) before its `Drop` runs; if one panics, unwinding
            // drops `left`, which pops and drops the rest (a second panic
            // then aborts, as in `Vec`).
            let left = Leftovers(self.state.get_mut().get_mut());
            while left.0.pop().is_some() {}
        }
    }
}

/// The items of a ring being dropped.
struct Leftovers<'r, T, const N: usize, M: Marks>(&'r mut State<T, N, M>);

impl<T, const N: usize, M: Marks> Drop for Leftovers<'_, T, N, M> {
    fn drop(&mut self) {
        while self.0.pop().is_some() {}
    }
}
