//! The ring's lifecycle: closing it, the pops that know a closed ring is
//! drained, draining and clearing, pushing from an iterator, the blocking
//! calls, and dropping the ring with its items.

use super::{FreePool, Marks, Ring, Settle, CLOSED, DRAINED};
use crate::sync::Ordering;
use crate::{Closed, TryPopError};
#[cfg(doc)]
use crate::{Overwritten, TryPushError};

/// What [`Ring::closed_state`] found.
enum Shut {
    /// Open, or closed with an eviction in progress.
    No,
    /// Closed, with no eviction in progress.
    Settled,
    /// Closed and found drained by an earlier pop.
    Drained,
}

/// An item that found no free slot (and the ring open).
pub(super) struct NoRoom<T>(pub(super) T);

impl<T, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    /// Closes the ring: from now on every push fails and hands its item
    /// back ([`TryPushError::Closed`], [`Closed`], or
    /// [`Overwritten::Rejected`] uncounted), while pops go on taking what
    /// is inside; once it is drained, [`try_pop_or_closed`](Self::try_pop_or_closed)
    /// answers [`TryPopError::Closed`] and [`pop_blocking`](Self::pop_blocking)
    /// `None`, and every waiting push and pop returns. Returns whether this
    /// call closed it (`false` if it was closed already). Lock-free; a
    /// closed ring stays closed.
    ///
    /// Nothing is lost around a close: every push either succeeds, and its
    /// item is popped or still inside, or fails and hands its item back.
    ///
    /// ```
    /// use sluicegate::{TryPopError, TryPushError};
    ///
    /// let ring: sluicegate::mpmc::Ring<u8, 4> = sluicegate::mpmc::Ring::new();
    /// ring.try_push(1).unwrap();
    /// assert!(ring.close());
    /// assert!(ring.is_closed() && !ring.close());
    /// assert_eq!(ring.try_push(2), Err(TryPushError::Closed(2)));
    /// assert_eq!(ring.pop_blocking(), Some(1));
    /// assert_eq!(ring.pop_blocking(), None); // closed and drained: no wait
    /// assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
    /// ```
    ///
    /// Why "closed and drained" is final. A push publishes its item by
    /// taking a position in `aq` (fetch-and-add on `tail`) and only then
    /// loading the flag, refusing if it is set; an eviction announces itself
    /// in `state` (`EVICTING`, a fetch-and-add) and gives up if the flag is
    /// set, and ends by adding 1 to `overwritten` (release) once its index is
    /// back in `aq`. The drained answer loads `state` (closed, `s`
    /// evictions started), then `overwritten` (acquire; `s` evictions
    /// ended, so none is in progress), then `aq`'s `head`, then reads its
    /// `tail` by adding 0, and requires `head >= tail`. A push whose
    /// fetch-and-add comes after that read in `tail`'s order reads from it,
    /// so the close (acquired by the drained answer's first load) happens
    /// before the push's load of the flag, which therefore sees it (even
    /// relaxed, by coherence): it refuses. A position below the `tail` read is below `head`:
    /// a dequeuer holds it, and either takes the index there (its pop
    /// returns the item) or closes the entry first, so that the push's
    /// placing fails and it takes a new position, which it refuses. Every
    /// change of `state` is a read-modify-write, so the value the drained
    /// answer read counts every eviction announced before the close, less
    /// those that gave up; one announced after it reads the flag and gives
    /// up, and never ends. So every ending counted in `overwritten` belongs
    /// to an eviction counted in `s`, and equal counts mean each of them has
    /// ended, its index back in `aq` before the drained answer looks there.
    /// The first drained answer marks `state` (`DRAINED`), and every later
    /// pop that reads the mark answers "closed and drained" at once: an
    /// eviction announced after the close, which will give up, would
    /// otherwise look like one in progress to a later pop until it has
    /// given up, and that pop would answer "empty".
    pub fn close(&self) -> bool {
        let first = self.state.fetch_or(CLOSED, Ordering::SeqCst) & CLOSED == 0;
        self.wake_all();
        first
    }

    /// Whether [`close`](Self::close) has been called.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u8, 2> = sluicegate::mpmc::Ring::new();
    /// assert!(!ring.is_closed());
    /// ring.close();
    /// assert!(ring.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.state.load(Ordering::SeqCst) & CLOSED != 0
    }

    /// Pops the oldest item; without one, says whether more may come
    /// ([`TryPopError::Empty`]) or the ring is closed and drained, so that
    /// nothing ever will ([`TryPopError::Closed`]). Lock-free.
    ///
    /// After a close, prefer this to [`try_pop`](Self::try_pop): pushes
    /// refused by the close leave unused positions behind, and `try_pop`,
    /// which stops after `3N-1` misses, may answer `None` while an item
    /// waits past them; this call steps past them.
    ///
    /// ```
    /// use sluicegate::TryPopError;
    ///
    /// let ring: sluicegate::mpmc::Ring<u8, 2> = sluicegate::mpmc::Ring::new();
    /// ring.try_push(7).unwrap();
    /// ring.close();
    /// assert_eq!(ring.try_pop_or_closed(), Ok(7));
    /// assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
    /// ```
    pub fn try_pop_or_closed(&self) -> Result<T, TryPopError> {
        // Each refused push uses up its slot for good, so a closed ring
        // has at most `N` unused positions beyond SCQ's own.
        for _ in 0..2 * N + 2 {
            if let Some(item) = self.try_pop() {
                return Ok(item);
            }
            match self.closed_state() {
                // Open, or an eviction in progress will put an item back.
                Shut::No => return Err(TryPopError::Empty),
                Shut::Drained => return Err(TryPopError::Closed),
                Shut::Settled => {}
            }
            match self.aq.settle() {
                Settle::Drained => {
                    // Release: a pop that reads the mark answers as this
                    // one, with what this one acquired.
                    self.state.fetch_or(DRAINED, Ordering::Release);
                    return Err(TryPopError::Closed);
                }
                Settle::Took(i) => {
                    // SAFETY: we took `i` from `aq`, so the slot holds an
                    // item and is ours.
                    let item = unsafe { self.take(i) };
                    // As every pop: the marks' test.
                    self.popped_marks();
                    return Ok(item);
                }
                Settle::Moved => {}
            }
        }
        Err(TryPopError::Empty)
    }

    /// Whether the ring is closed and drained already, closed with no
    /// eviction in progress, or neither (see [`close`](Self::close)).
    #[inline]
    fn closed_state(&self) -> Shut {
        let state = self.state.load(Ordering::SeqCst);
        if state & DRAINED != 0 {
            return Shut::Drained;
        }
        // `state` counts evictions in its `W - 2` high bits: compare modulo
        // `2^(W-2)`.
        let ended = self.overwritten.get_acquire() & (usize::MAX >> 2);
        if state & CLOSED != 0 && state >> 2 == ended {
            Shut::Settled
        } else {
            Shut::No
        }
    }

    /// An iterator that pops until the ring is empty, or closed and drained
    /// (each `next` is a [`try_pop_or_closed`](Self::try_pop_or_closed)).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u8, 4> = sluicegate::mpmc::Ring::new();
    /// ring.push_iter([1, 2, 3]);
    /// assert_eq!(ring.drain().collect::<Vec<_>>(), [1, 2, 3]);
    /// ```
    pub fn drain(&self) -> impl Iterator<Item = T> + use<'_, T, N, F, M> {
        core::iter::from_fn(move || self.try_pop_or_closed().ok())
    }

    /// Pops and drops every item in the ring and returns how many. Each
    /// item is popped before it is dropped, so a panicking `Drop` leaves the
    /// rest in the ring.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<String, 4> = sluicegate::mpmc::Ring::new();
    /// ring.push_iter(["a".to_string(), "b".to_string()]);
    /// assert_eq!(ring.clear(), 2);
    /// assert!(ring.is_empty());
    /// ```
    pub fn clear(&self) -> usize {
        self.drain().count()
    }

    /// Pushes items from `iter` until it ends, the ring is full or it is
    /// closed; returns how many it pushed. A free slot is taken before each
    /// item is taken from `iter`, so on a full ring the rest stay in it
    /// (pass `&mut iter` to keep them); what does not fit is not counted as
    /// rejected. If a close lands between taking an item from `iter` and
    /// publishing it, that one item is dropped and counted as rejected:
    /// use `try_push`, which hands it back, where that matters.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u8, 4> = sluicegate::mpmc::Ring::new();
    /// let mut items = 1..=6;
    /// assert_eq!(ring.push_iter(&mut items), 4);
    /// assert_eq!(items.next(), Some(5));
    /// assert_eq!(ring.try_pop(), Some(1));
    /// ```
    pub fn push_iter<I: IntoIterator<Item = T>>(&self, iter: I) -> usize {
        let mut iter = iter.into_iter();
        let mut n = 0;
        while !self.is_closed() {
            let Some(i) = self.fq.take_for(self.pushers()) else {
                break;
            };
            // Gives the slot back if `next` panics or the iterator ends.
            let slot = FreeSlot { ring: self, i };
            let Some(item) = iter.next() else { break };
            core::mem::forget(slot);
            // SAFETY: we took `i` from `fq`, so the slot is free and ours.
            unsafe { self.write(i, item) };
            if let Err(Closed(lost)) = self.publish(i) {
                self.rejected.add(1);
                self.rejected_with_room.add(1);
                drop(lost);
                break;
            }
            n += 1;
        }
        n
    }

    /// Pushes `item`, waiting for a free slot: pressure travels upstream
    /// instead of being rejected. Hands the item back in [`Closed`] if the ring
    /// is closed before it finds room. With the `std` feature the thread
    /// tries again for a few microseconds (127 spin hints in all, then up
    /// to 4 `yield_now`s while other threads wait on the ring), then
    /// **sleeps** (parked) until a pop or the close wakes it (any number of
    /// threads and tasks sleep per side; a pop wakes one). Without `std` it
    /// **spins** with
    /// [`crossbeam_utils::Backoff`] and burns its core while it waits. A wait
    /// is not counted as a rejection.
    ///
    /// **Never call this from an interrupt handler** (or any context that
    /// can preempt a consumer on the same core): the consumer could not
    /// run to make room and the wait would never end.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u32, 2> = sluicegate::mpmc::Ring::new();
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

    /// Pops the oldest item, waiting until there is one; `None` once the
    /// ring is closed and drained. With the `std` feature the thread sleeps
    /// until a push or the close wakes it (as in
    /// [`push_blocking`](Self::push_blocking)); without it, it spins with
    /// [`crossbeam_utils::Backoff`].
    /// **Never call this from an interrupt handler** that can preempt a
    /// producer: the wait would never end.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u8, 2> = sluicegate::mpmc::Ring::new();
    /// ring.try_push(4).unwrap();
    /// assert_eq!(ring.pop_blocking(), Some(4));
    /// ring.close();
    /// assert_eq!(ring.pop_blocking(), None);
    /// ```
    pub fn pop_blocking(&self) -> Option<T> {
        crate::contract::pop_blocking(self)
    }
}

impl<T, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    /// Pushes `item` if a slot is free, without counting a refusal:
    /// `Ok(Ok(()))` pushed, `Ok(Err(Closed))` closed, `Err(NoRoom)` full.
    #[inline]
    pub(super) fn push_if_room(&self, item: T) -> Result<Result<(), Closed<T>>, NoRoom<T>> {
        match self.fq.take_for(self.pushers()) {
            Some(i) => {
                // SAFETY: we took `i` from `fq`, so the slot is free and ours.
                unsafe { self.write(i, item) };
                Ok(self.publish(i))
            }
            None if self.is_closed() => Ok(Err(Closed(item))),
            None => Err(NoRoom(item)),
        }
    }

    /// `Some(Some(item))`, `Some(None)` if closed and drained, `None` if the
    /// caller must wait.
    pub(super) fn pop_or_finished(&self) -> Option<Option<T>> {
        match self.try_pop_or_closed() {
            Ok(item) => Some(Some(item)),
            Err(TryPopError::Closed) => Some(None),
            Err(TryPopError::Empty) => None,
        }
    }
}

impl<T, const N: usize, F: FreePool<N>, M: Marks> Drop for Ring<T, N, F, M> {
    fn drop(&mut self) {
        if core::mem::needs_drop::<T>() {
            // `&mut self`: no operation is in progress, so every item is
            // in `aq` and the pops below return them all. Each item is
            // popped (its slot freed) before its `Drop` runs; if one
            // panics, unwinding drops `left`, which pops and drops the
            // rest (a second panic then aborts, as in `Vec`).
            let left = Leftovers(self);
            while left.0.pop_left().is_some() {}
        }
    }
}

impl<T, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    /// Pops for `Drop` (no operation in progress): on a closed ring, until
    /// every position is passed.
    fn pop_left(&self) -> Option<T> {
        loop {
            match self.try_pop_or_closed() {
                Ok(item) => return Some(item),
                Err(TryPopError::Empty) if self.is_closed() => {}
                Err(_) => return None,
            }
        }
    }
}

/// A free slot taken by `push_iter` before it asks the iterator for an
/// item; dropped (the iterator ended or panicked), it goes back to `fq`.
struct FreeSlot<'r, T, const N: usize, F: FreePool<N>, M: Marks> {
    ring: &'r Ring<T, N, F, M>,
    i: usize,
}

impl<T, const N: usize, F: FreePool<N>, M: Marks> Drop for FreeSlot<'_, T, N, F, M> {
    fn drop(&mut self) {
        self.ring.fq.give(self.i);
        self.ring.wake_pushers();
    }
}

/// The items of a ring being dropped.
struct Leftovers<'r, T, const N: usize, F: FreePool<N>, M: Marks>(&'r Ring<T, N, F, M>);

impl<T, const N: usize, F: FreePool<N>, M: Marks> Drop for Leftovers<'_, T, N, F, M> {
    fn drop(&mut self) {
        while self.0.pop_left().is_some() {}
    }
}
