//! The burst ring's watermarks: its two counters as the protocol of
//! `src/mpmc/marks.rs` reads them, and the faces of a [`Marked`] ring (the
//! constructor, the observers, the drain waits). The protocol, its proofs
//! and its cost are in that module's docs.

use super::{gap, BurstRing, CLOSED, FLAGS, ONE};
use crate::mpmc::marks::{self, Counts, Drainable, Level, MarkWords, Marked, Marks};
use crate::sync::Ordering;
use crate::Closed;

impl<T: Copy, const N: usize, const W: usize, M: Marks> Counts for BurstRing<T, N, W, M> {
    #[inline(always)]
    fn count_up(&self) -> (usize, usize) {
        let p = self.prod.load(Ordering::SeqCst) & !FLAGS;
        let c = self.front_at();
        // Pops may have passed `p` since: no count at all then.
        // `N + 1` while a `push_overwrite` holds its position and has not
        // yet taken the oldest: clamped.
        let count = if p.wrapping_sub(c) as isize > 0 {
            gap(p, c).min(N)
        } else {
            0
        };
        (count, c)
    }

    #[inline(always)]
    fn count_down(&self) -> (usize, usize) {
        let c = self.front_at();
        let p = self.prod.load(Ordering::SeqCst) & !FLAGS;
        // `N + 1` while a `push_overwrite` holds its position and has not
        // yet taken the oldest: clamped.
        (gap(p, c).min(N), c)
    }

    #[inline(always)]
    fn ahead(&self, c: usize, n: usize) -> usize {
        c.wrapping_add(n * ONE)
    }
}

impl<T: Copy, const N: usize, const W: usize> Drainable for BurstRing<T, N, W, Marked> {
    fn mark_words(&self) -> &MarkWords {
        &self.marks
    }

    fn is_closed_now(&self) -> bool {
        self.prod.load(Ordering::SeqCst) & CLOSED != 0
    }
}

impl<T: Copy, const N: usize, const W: usize> BurstRing<T, N, W, Marked> {
    crate::sync::const_fn! {
        /// An empty ring with watermarks `low < high <= N`: its [`Level`]
        /// is [`High`](Level::High) from a push that leaves `high` items or
        /// more claimed until a pop that leaves `low` or fewer (see the
        /// `marks` module docs for how exact that is under concurrency).
        ///
        /// # Panics
        ///
        /// Unless `low < high <= N`. In a `static` (or any `const`) that is
        /// a compile-time error:
        ///
        /// ```compile_fail,E0080
        /// use sluicegate::mpmc::burst_ring::{BurstRing, Marked};
        /// static BAD: BurstRing<u32, 64, 2, Marked> = BurstRing::with_watermarks(48, 16);
        /// ```
        ///
        /// ```
        /// use sluicegate::mpmc::burst_ring::{BurstRing, Level, Marked};
        ///
        /// static RX: BurstRing<u32, 64, 2, Marked> = BurstRing::with_watermarks(16, 48);
        /// RX.push_burst(&[0; 47]);
        /// assert_eq!(RX.level(), Level::Normal);
        /// RX.try_push(0).unwrap();
        /// assert_eq!(RX.level(), Level::High); // the 48th item raised it: pause the port
        /// let mut out = [0; 31];
        /// RX.pop_burst(&mut out); // 17 left
        /// assert_eq!(RX.level(), Level::High); // no flapping between the marks
        /// RX.try_pop().unwrap();
        /// assert_eq!(RX.level(), Level::Normal); // the pop that left 16 lowered it
        /// assert_eq!(RX.stats().transitions, 2);
        /// ```
        pub fn with_watermarks(low: usize, high: usize) -> Self {
            Self::starting_at(0, MarkWords::new(high * ONE, low, high, N))
        }
    }

    /// [`with_watermarks`](Self::with_watermarks), with the counters at
    /// position `start` (rounded down to a whole lap), as
    /// [`BurstRing::with_start`]. For tests of the counters' wrap only.
    #[doc(hidden)]
    pub fn with_start_and_watermarks(start: usize, low: usize, high: usize) -> Self {
        let word = ((start >> Self::LOG) << Self::LOG).wrapping_mul(ONE);
        let marks = MarkWords::new(word.wrapping_add(high * ONE), low, high, N);
        let ring = Self::starting_at(start, marks);
        ring.mark_lap_before(start);
        ring
    }

    /// The watermarks `(low, high)`.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Marked};
    ///
    /// let ring: BurstRing<u8, 8, 1, Marked> = BurstRing::with_watermarks(2, 6);
    /// assert_eq!(ring.watermarks(), (2, 6));
    /// ```
    pub fn watermarks(&self) -> (usize, usize) {
        self.marks.marks()
    }

    /// The level now: the last transition's (module docs of `marks`).
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Level, Marked};
    ///
    /// let ring: BurstRing<u8, 4, 1, Marked> = BurstRing::with_watermarks(1, 3);
    /// ring.push_burst(&[1, 2, 3]);
    /// assert_eq!(ring.level(), Level::High);
    /// ring.pop_burst(&mut [0; 2]);
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
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Level, Marked};
    ///
    /// static LINE: BurstRing<u32, 16, 1, Marked> = BurstRing::with_watermarks(4, 12);
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
impl<T: Copy, const N: usize, const W: usize> BurstRing<T, N, W, Marked> {
    /// Waits (asynchronously) until the level is [`Normal`](Level::Normal)
    /// (at once if it is): while it is `High`, until a pop leaves `low`
    /// items or fewer. Resolves to `Ok(())` then, or to `Err(Closed(()))`
    /// once the ring is closed. Only the lowering (and the close) wakes it;
    /// any number of tasks may wait, and none polls. Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Level, Marked};
    ///
    /// static LINE: BurstRing<u32, 16, 1, Marked> = BurstRing::with_watermarks(4, 12);
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
    pub fn wait_below_low(&self) -> BelowLow<'_, T, N, W> {
        marks::BelowLow::new(self)
    }
}

/// The future of [`BurstRing::wait_below_low`] (feature `async`): while it
/// waits, its node is linked into the ring's list of drain waiters, so it
/// is `!Unpin`; dropped, it leaves the list.
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub type BelowLow<'r, T, const N: usize, const W: usize> =
    marks::BelowLow<'r, BurstRing<T, N, W, Marked>>;
