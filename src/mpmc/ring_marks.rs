//! `Ring`'s watermarks: its index ring's two counters as the protocol of
//! `src/mpmc/marks.rs` reads them, the tests its pushes and pops run, and
//! the faces of a [`Marked`] ring (the constructor, the observers, the
//! drain waits). The protocol, its proofs and its cost are in that
//! module's docs.
//!
//! The count is `aq`'s `tail - head` (what [`Ring::len`] reads while the
//! ring is open). It counts the positions pushes took and pops did not,
//! so while operations are in progress it may count positions a push has
//! not filled yet or a pop passed empty-handed; once they end it is the
//! number of items, but for one case of concurrent use: a push whose
//! position's entry still held an index a slow pop had claimed and not
//! taken yet leaves that position unused and places its index at a later
//! one, and the unused position counts until a pop passes it. So after
//! such a race the level can stay `High`, and the drain waiters wait,
//! with `low` or fewer items in the ring, until the next pop. On a closed
//! ring the pushes the close refused leave positions in it: there both
//! readings take at most [`Ring::len`], which leaves them out. A push the
//! close refuses holds its slot until it gives it up, and [`Ring::len`]
//! counts it meanwhile, so once it has given it up it tests the marks as
//! a pop does: a pop of the last item that raced it may have counted the
//! slot as an item.

use super::marks::{self, Counts, Drainable, Level, MarkWords, Marked, Marks};
use super::{FreePool, Ring, CLOSED};
use crate::sync::{fence, Ordering};
use crate::Closed;

impl<T, const N: usize, F: FreePool<N>, M: Marks> Counts for Ring<T, N, F, M> {
    #[inline(always)]
    fn count_up(&self) -> (usize, usize) {
        let (head, tail) = self.aq.counters();
        let t = tail.load(Ordering::SeqCst);
        let h = head.load(Ordering::SeqCst);
        // Pops may have passed `t` since: no count at all then.
        let d = t.wrapping_sub(h) as isize;
        let count = if d > 0 { (d as usize).min(N) } else { 0 };
        (self.closed_count(count), h)
    }

    #[inline(always)]
    fn count_down(&self) -> (usize, usize) {
        let (count, h) = self.aq.len_and_head();
        (self.closed_count(count), h)
    }

    #[inline(always)]
    fn ahead(&self, c: usize, n: usize) -> usize {
        c.wrapping_add(n)
    }
}

impl<T, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    /// `count` (positions), or on a closed ring at most the items: the
    /// pushes the close refused left unused positions. In both readings,
    /// so that the lower one stays the lower one: a `settle` that read
    /// more in its raising row than in its lowering row would loop.
    ///
    /// A push the close refused counts in [`len`](Ring::len) until it
    /// gives its slot up, then tests the marks as a pop does
    /// ([`refused_marks`](Self::refused_marks)); a pop that took the last
    /// item gave its slot up before its test. Each side fences between
    /// its slot's move and its reading of the slots here (SeqCst), so at
    /// least one of them sees both moves and lowers a drained ring.
    #[inline(always)]
    fn closed_count(&self, count: usize) -> usize {
        if self.state.load(Ordering::SeqCst) & CLOSED != 0 {
            fence(Ordering::SeqCst);
            count.min(self.len())
        } else {
            count
        }
    }

    /// After a push the close refused gave its slot up: the pops' test,
    /// which the pop of the last item may have made while the slot still
    /// counted as an item. Out of line, so that the pushes that are not
    /// refused keep their frame.
    #[inline(always)]
    pub(super) fn refused_marks(&self) {
        if M::MARKED {
            self.refused_settle();
        }
    }

    #[cold]
    #[inline(never)]
    fn refused_settle(&self) {
        self.popped_marks();
    }

    /// After a push appended to `aq`: the watermarks' test (with marks
    /// only: it loads `aq`'s `tail`, which our fetch-and-add just brought
    /// in), and `settle` out of line if it says so.
    #[inline(always)]
    pub(super) fn pushed_marks(&self) {
        if M::MARKED {
            // Relaxed: at least the end of our own claim, which is all the
            // test needs (`src/mpmc/marks.rs`).
            let to = self.aq.counters().1.load(Ordering::Relaxed);
            if M::push_test(&self.marks, to) {
                self.settle_marks();
            }
        }
    }

    /// After a pop took from `aq`: the watermarks' test, and `settle` out
    /// of line if it says so.
    #[inline(always)]
    pub(super) fn popped_marks(&self) {
        if M::pop_test(&self.marks, self) {
            self.settle_marks();
        }
    }

    #[cold]
    #[inline(never)]
    fn settle_marks(&self) {
        M::settle(&self.marks, self);
    }
}

impl<T, const N: usize, F: FreePool<N>> Drainable for Ring<T, N, F, Marked> {
    fn mark_words(&self) -> &MarkWords {
        &self.marks
    }

    fn is_closed_now(&self) -> bool {
        self.state.load(Ordering::SeqCst) & CLOSED != 0
    }
}

impl<T, const N: usize, F: FreePool<N>> Ring<T, N, F, Marked> {
    crate::sync::const_fn! {
        /// An empty ring with watermarks `low < high <= N`: its [`Level`]
        /// is [`High`](Level::High) from a push that leaves `high` items or
        /// more until a pop that leaves `low` or fewer (the count is
        /// [`len`](Self::len)'s: `src/mpmc/ring_marks.rs` says how exact it
        /// is while operations are in progress).
        ///
        /// # Panics
        ///
        /// Unless `low < high <= N`. In a `static` (or any `const`) that is
        /// a compile-time error:
        ///
        /// ```compile_fail,E0080
        /// use sluicegate::mpmc::{FreeIndices, Marked, Ring};
        /// static BAD: Ring<u32, 64, FreeIndices<64>, Marked> = Ring::with_watermarks(48, 16);
        /// ```
        ///
        /// ```
        /// use sluicegate::mpmc::{FreeIndices, Level, Marked, Ring};
        ///
        /// static RX: Ring<u32, 64, FreeIndices<64>, Marked> = Ring::with_watermarks(16, 48);
        /// for i in 0..47 {
        ///     RX.try_push(i).unwrap();
        /// }
        /// assert_eq!(RX.level(), Level::Normal);
        /// RX.try_push(47).unwrap();
        /// assert_eq!(RX.level(), Level::High); // the 48th item raised it
        /// while RX.len() > 17 {
        ///     RX.try_pop();
        ///     assert_eq!(RX.level(), Level::High); // no flapping between the marks
        /// }
        /// RX.try_pop();
        /// assert_eq!(RX.level(), Level::Normal); // the pop that left 16 lowered it
        /// assert_eq!(RX.stats().transitions, 2);
        /// ```
        pub fn with_watermarks(low: usize, high: usize) -> Self {
            #[cfg(not(sluicegate_loom))]
            let fq = F::FULL;
            #[cfg(sluicegate_loom)]
            let fq = F::full(0);
            Self::build(0, fq, MarkWords::new(high, low, high, N))
        }
    }

    /// [`with_watermarks`](Self::with_watermarks), with the internal
    /// position counters at `start`, as [`Ring::with_start`]. For tests of
    /// the counters' wrap only.
    #[doc(hidden)]
    pub fn with_start_and_watermarks(start: usize, low: usize, high: usize) -> Self {
        let marks = MarkWords::new(start.wrapping_add(high), low, high, N);
        Self::build(start, F::full(start), marks)
    }

    /// The watermarks `(low, high)`.
    ///
    /// ```
    /// use sluicegate::mpmc::{FreeIndices, Marked, Ring};
    ///
    /// let ring: Ring<u8, 8, FreeIndices<8>, Marked> = Ring::with_watermarks(2, 6);
    /// assert_eq!(ring.watermarks(), (2, 6));
    /// ```
    pub fn watermarks(&self) -> (usize, usize) {
        self.marks.marks()
    }

    /// The level now: the last transition's (`src/mpmc/marks.rs`).
    ///
    /// ```
    /// use sluicegate::mpmc::{FreeIndices, Level, Marked, Ring};
    ///
    /// let ring: Ring<u8, 4, FreeIndices<4>, Marked> = Ring::with_watermarks(1, 3);
    /// ring.push_iter([1, 2, 3]);
    /// assert_eq!(ring.level(), Level::High);
    /// ring.try_pop();
    /// ring.try_pop();
    /// assert_eq!(ring.level(), Level::Normal);
    /// ```
    pub fn level(&self) -> Level {
        self.marks.level()
    }

    /// Waits until the level is [`Normal`](Level::Normal) (at once if it
    /// is), blocking the thread: while it is `High`, until a pop leaves
    /// `low` items or fewer. `Ok(())` then, or `Err(Closed(()))` once the
    /// ring is closed. With the `std` feature the thread sleeps until the
    /// lowering (or the close) wakes it; without it, it spins with
    /// [`crossbeam_utils::Backoff`].
    ///
    /// ```
    /// use sluicegate::mpmc::{FreeIndices, Level, Marked, Ring};
    ///
    /// static LINE: Ring<u32, 16, FreeIndices<16>, Marked> = Ring::with_watermarks(4, 12);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| while LINE.pop_blocking().is_some() {});
    ///     for i in 0..1000 {
    ///         LINE.push_blocking(i).unwrap();
    ///         if LINE.level() == Level::High {
    ///             LINE.wait_below_low_blocking().unwrap(); // slow the source
    ///         }
    ///     }
    ///     LINE.close();
    /// });
    /// assert_eq!(LINE.stats().rejected, 0);
    /// ```
    pub fn wait_below_low_blocking(&self) -> Result<(), Closed<()>> {
        marks::wait_blocking(self)
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>> Ring<T, N, F, Marked> {
    /// Waits (asynchronously) until the level is [`Normal`](Level::Normal)
    /// (at once if it is): while it is `High`, until a pop leaves `low`
    /// items or fewer. Resolves to `Ok(())` then, or to `Err(Closed(()))`
    /// once the ring is closed. Only the lowering (and the close) wakes it;
    /// any number of tasks may wait, and none polls. Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::{FreeIndices, Level, Marked, Ring};
    ///
    /// static LINE: Ring<u32, 16, FreeIndices<16>, Marked> = Ring::with_watermarks(4, 12);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| while LINE.pop_blocking().is_some() {});
    ///     pollster::block_on(async {
    ///         for i in 0..1000 {
    ///             LINE.push(i).await.unwrap();
    ///             if LINE.level() == Level::High {
    ///                 LINE.wait_below_low().await.unwrap(); // slow the source
    ///             }
    ///         }
    ///     });
    ///     LINE.close();
    /// });
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub fn wait_below_low(&self) -> BelowLow<'_, T, N, F> {
        marks::BelowLow::new(self)
    }
}

/// The future of [`Ring::wait_below_low`] (feature `async`): while it
/// waits, its node is linked into the ring's list of drain waiters, so it
/// is `!Unpin`; dropped, it leaves the list.
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub type BelowLow<'r, T, const N: usize, F = super::FreeIndices<N>> =
    marks::BelowLow<'r, Ring<T, N, F, Marked>>;
