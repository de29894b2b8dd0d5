//! The burst ring's lifecycle and observers: close, drain, clear and
//! `push_iter`, the length and its relatives, `Debug` and `defmt`.

use core::fmt;

use super::{gap, BurstRing, Marks, CLOSED, EVICTING, FLAGS, PASSING};
use crate::sync::Ordering;

impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// Closes the ring: from now on every push answers closed and hands its
    /// items back, while pops go on taking what is inside; once it is
    /// drained, pops answer [`Stop::Closed`](super::Stop::Closed). Returns
    /// whether this call closed it. One atomic step: a claim either comes
    /// before it (and its items are popped or still inside) or fails.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, PopError, PushError};
    ///
    /// let ring: BurstRing<u8, 4, 1> = BurstRing::new();
    /// ring.try_push(1).unwrap();
    /// assert!(ring.close());
    /// assert!(ring.is_closed() && !ring.close());
    /// assert_eq!(ring.try_push(2), Err(PushError::Closed(2)));
    /// assert_eq!(ring.try_pop(), Ok(1));
    /// assert_eq!(ring.try_pop(), Err(PopError::Closed));
    /// ```
    pub fn close(&self) -> bool {
        // SeqCst: ordered with the claims (module docs, "Closed and drained").
        let was_open = self.prod.fetch_or(CLOSED, Ordering::SeqCst) & CLOSED == 0;
        self.wake_all();
        was_open
    }

    /// Whether [`close`](Self::close) has been called.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 2, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// assert!(!ring.is_closed());
    /// ring.close();
    /// assert!(ring.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.prod.load(Ordering::SeqCst) & CLOSED != 0
    }

    /// An iterator that pops until the ring answers anything but an item
    /// (empty, busy, or closed and drained); a stop at a busy position
    /// counts in `busy`, as a `try_pop` answered busy does.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.push_burst(&[1, 2, 3]);
    /// assert_eq!(ring.drain().collect::<Vec<_>>(), [1, 2, 3]);
    /// ```
    pub fn drain(&self) -> impl Iterator<Item = T> + use<'_, T, N, W, M> {
        core::iter::from_fn(move || self.try_pop().ok())
    }

    /// Pops every item there is now and returns how many (stops at a busy
    /// position, as [`drain`](Self::drain) does).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.push_burst(&[1, 2]);
    /// assert_eq!(ring.clear(), 2);
    /// assert!(ring.is_empty());
    /// ```
    pub fn clear(&self) -> usize {
        self.drain().count()
    }

    /// Pushes items from `iter` until it ends or the ring is full, busy or
    /// closed; returns how many it pushed. Room is claimed before an item is
    /// taken from `iter`, so on a full ring the rest stay in it (pass
    /// `&mut iter` to keep them); what does not fit is not counted as
    /// rejected (a stop at a busy position counts in `busy`, as the other
    /// pushes' do). It claims in runs as long as the iterator's lower size
    /// bound, one claim and one commit each (so an array's, a slice's or a
    /// range's items that fit take one). An iterator whose lower bound is 0
    /// (a `filter`, say) is taken one item per claim; if it ends without its
    /// upper bound saying so first (a `from_fn`), the claim that finds it
    /// ended is left a void (never an item): passed at once if it is the
    /// oldest position, else by the pop that reaches it (`len` counts it
    /// until then). If the iterator panics, what it made is published and
    /// the rest of that claim left void, the same way.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// let mut items = 1..=6;
    /// assert_eq!(ring.push_iter(&mut items), 4);
    /// assert_eq!(items.next(), Some(5)); // the rest are still there
    /// assert_eq!(ring.drain().collect::<Vec<_>>(), [1, 2, 3, 4]);
    /// ```
    pub fn push_iter<I: IntoIterator<Item = T>>(&self, iter: I) -> usize {
        let mut iter = iter.into_iter();
        let mut pushed = 0;
        loop {
            let (at_least, at_most) = iter.size_hint();
            if at_most == Some(0) {
                return pushed;
            }
            let Ok(chunk) = self.write_chunk(at_least) else {
                return pushed;
            };
            let room = chunk.len();
            let n = chunk.fill_from_iter(&mut iter);
            pushed += n;
            if n < room {
                // The iterator ended inside the chunk (its rest is void).
                return pushed;
            }
        }
    }

    /// Whether a pop would answer closed now: closed and drained.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.try_push(1).unwrap();
    /// ring.close();
    /// assert!(!ring.is_drained());
    /// ring.clear();
    /// assert!(ring.is_drained());
    /// ```
    pub fn is_drained(&self) -> bool {
        // SeqCst: the test of `pop_blocked` (module docs, "Closed and
        // drained is final").
        let p = self.prod.load(Ordering::SeqCst);
        let c = self.cons.load(Ordering::SeqCst);
        // A pass of voids holding the front, or an eviction in progress:
        // a pop would answer busy.
        p & CLOSED != 0 && p & EVICTING == 0 && c & PASSING == 0 && gap(p & !FLAGS, c) == 0
    }

    /// Number of items, as a snapshot: positions claimed by pushes and not
    /// by pops (items being pushed or popped included, and voids not yet
    /// passed, which take their position's room until a pop passes them).
    /// Exact when no operation is in progress; under concurrency an
    /// estimate in `0..=N`.
    ///
    /// This example covers `len`, [`is_empty`](Self::is_empty),
    /// [`is_full`](Self::is_full) and [`free_slots`](Self::free_slots):
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.try_push(1).unwrap();
    /// assert_eq!((ring.len(), ring.free_slots(), ring.is_empty(), ring.is_full()), (1, 3, false, false));
    /// ```
    pub fn len(&self) -> usize {
        // `cons` first: `prod` read after it is at least the `prod` of that
        // moment, so the difference is never negative; clamped to `N`.
        let c = self.front_at();
        let p = self.prod.load(Ordering::SeqCst) & !FLAGS;
        gap(p, c).min(N)
    }

    crate::observe::derived_observers! {
        obj: "ring",
        make: "let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =\n    sluicegate::mpmc::burst_ring::BurstRing::new();",
        push: "ring.try_push(1).unwrap();",
        caveat: ", with the same caveat as [`len`](Self::len).",
    }
}

impl<T: Copy, const N: usize, const W: usize> Default for BurstRing<T, N, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> fmt::Debug for BurstRing<T, N, W, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("BurstRing");
        d.field("capacity", &N)
            .field("len", &self.len())
            .field("closed", &self.is_closed());
        // A ring with watermarks shows its level (as `mpmc::cs::Ring`).
        if let Some(level) = M::level(&self.marks) {
            d.field("level", &level);
        }
        d.field("stats", &self.stats()).finish()
    }
}

/// The same summary as `Debug`: capacity, length, closed, counters.
#[cfg(feature = "defmt")]
impl<T: Copy, const N: usize, const W: usize, M: Marks> defmt::Format for BurstRing<T, N, W, M> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "BurstRing {{ capacity: {=usize}, len: {=usize}, closed: {=bool}, stats: {} }}",
            N,
            self.len(),
            self.is_closed(),
            self.stats()
        )
    }
}
