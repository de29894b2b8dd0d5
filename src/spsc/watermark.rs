//! The pressure signal of an SPSC ring: a high and a low watermark, the
//! [`Level`] they define with hysteresis, and the producer's waits for the
//! ring to drain below the low one.
//!
//! # Model
//!
//! A ring of policy [`Marked`] made with
//! [`Ring::with_watermarks(low, high)`](Ring::with_watermarks) is
//! [`Level::Normal`] until a push leaves `high` items or more in it, then
//! [`Level::High`] until a pop (or a look of the producer's) finds `low`
//! items or fewer, then `Normal` again. Between the marks the level stays
//! what it was, so a producer that slows its source at `High` and speeds it
//! up at `Normal` does not flap (XON/XOFF). The transitions are counted
//! ([`Ring::transitions`]). The policy is a type parameter so that a
//! [`Reject`](super::Reject) ring, which has no marks, compiles to none of
//! the paths below; a `Marked` ring made with [`Ring::new`] has no marks
//! either and stays `Normal`.
//!
//! Who moves the level, and when:
//!
//! | transition | by | when |
//! |---|---|---|
//! | `Normal` to `High` | the producer | a `try_push` (or `push`, `push_blocking`, a burst or a bulk) that leaves at least `high` items, or [`Producer::level`] finding as many |
//! | `High` to `Normal` | the consumer | a pop (or a read chunk's commit, a peek's pop) that leaves at most `low` items, or a look that finds the ring empty |
//! | `High` to `Normal` | the producer | [`Producer::level`] or a wait finding at most `low` items, or its raise finding them at once (below) |
//!
//! A write chunk's commit and `push_iter` do not raise the level for the
//! items they add; the next push, chunk reservation or
//! [`Producer::level`] does.
//!
//! # State words
//!
//! Two words, each stored by one side only, so both sides use loads and
//! stores only (Cortex-M0 included) and an interrupt handler may be either
//! side:
//!
//! - `raised`, stored by the producer: `2 s + c`, where `s` counts the
//!   producer's raises and `c` is 1 when the producer itself ended raise
//!   `s` (its "cancel").
//! - `lowered`, stored by the consumer: a value of `raised` it has seen and
//!   dealt with (the raise it lowered, or a cancel it acknowledged).
//!
//! | `raised` | `lowered` | level |
//! |---|---|---|
//! | `2 s` | `2 s` | `Normal`: the consumer lowered raise `s` |
//! | `2 s` | anything else | `High`: raise `s` is on |
//! | `2 s + 1` | anything | `Normal`: the producer cancelled raise `s` |
//!
//! The producer raises only from `Normal` (to `2 s + 2`), cancels only from
//! `High` (to `2 s + 1`); the consumer stores `lowered` only with a value
//! it loaded from `raised`. So `raised` only grows, the transitions are
//! `2 s` less 1 while `High`, and no store can undo a later transition: a
//! consumer's store of `2 s` that lands after the producer's raise `s + 1`
//! leaves `raised != lowered`, which is `High`, as it should be. If both
//! sides end raise `s` at once, the level is `Normal` either way and the
//! raise is counted as ended once. (`raised` wraps after `2^(bits-1)`
//! raises; only a `lowered` left over from that many raises ago could then
//! be mistaken for the current one.)
//!
//! # Why the level does not stay `High` on a drained ring
//!
//! The race: the producer finds `high` items and stores a raise while the
//! consumer, which has not seen it yet, drains the ring to `low` or below
//! and stops popping. Nobody would lower it, and a producer waiting for the
//! ring to drain would wait for ever.
//!
//! - The producer's raise is followed by a `SeqCst` fence and a reload of
//!   `head`; if that finds at most `low` items, it cancels its raise. With
//!   the `async` feature every pop's release of its slot is followed by the
//!   waits' `SeqCst` fence (`src/wait.rs`), and the pop loads `raised`
//!   after it. The two fences are ordered: either the producer's reload
//!   sees the pop's `head` (so it cancels if that pop left `low` or fewer),
//!   or that pop's load sees the raise (and the pop lowers it). On one core
//!   (an interrupt handler against the main loop) program order gives the
//!   same without the fence.
//! - Without that fence (no `async`, two cores) a pop may miss a raise the
//!   producer's reload also missed. The consumer's next look at the ring
//!   (an empty pop included) loads `raised` again and lowers it; so does the
//!   producer's [`Producer::level`] or wait. The level is then `High` on a
//!   drained ring only until one side looks again.
//! - The waits ([`Producer::wait_below_low`],
//!   [`Producer::wait_below_low_blocking`]) do not depend on the level: they
//!   test the length themselves, registered in the producer's waker cell
//!   that every pop already notifies (the protocol of `src/wait.rs`), so no
//!   wake-up is lost.
//!
//! # Cost
//!
//! The producer keeps a position `raise_pos`, `high` positions after a
//! head it has seen (never after its cached head, so never after the true
//! one). A push, burst, bulk or chunk reservation loads it, compares its
//! new `tail` with it (wrapping) and branches: before it, fewer than `high`
//! items are in the ring; at or past it, there may be `high` or more, and
//! only then does an out-of-line path reload `head` and decide. That path
//! moves `raise_pos` on from the head
//! it has (so does every reload of `head` it makes), which keeps `tail`
//! within `N + 1` positions of `raise_pos` at every compare: a compare
//! finds `tail` before `raise_pos` or moves it on, and no more than `N`
//! positions are published between two compares (a chunk's commit, which
//! does not compare, is followed by a reservation or a push that does). So
//! the wrapping compare misses no raise however long the producer runs.
//!
//! A pop loads the two words, which sit on the consumer's own cache line,
//! and branches; it takes an out-of-line path only while the level is
//! `High` (it then loads `tail` to find the true length). Only a `Marked`
//! ring has these instructions (the policy's constant removes them from
//! the others); one made without marks pays the compares and never takes
//! the paths.

use super::sealed::{self, MarkWords as _, RaiseAt as _};
use super::{Consumer, Policy, Producer, Reject, Ring};
use crate::sync::{const_fn, fence, LoadStoreUsize, Ordering};
#[cfg(all(feature = "async", sluicegate_cas))]
pub use waits::BelowLow;

/// A ring's pressure level: [`High`](Level::High) from a push that leaves
/// `high` items until a pop that leaves `low` (see [`Ring::with_watermarks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Level {
    /// Below the high mark, or back at or below the low mark since.
    Normal,
    /// The ring reached the high mark and has not drained to the low one.
    High,
}

/// Policy: a full ring refuses new items, as under [`Reject`](super::Reject),
/// and the ring has watermarks and a [`Level`] (made with
/// [`Ring::with_watermarks`]). Only this policy's pushes and pops test the
/// marks: a `Reject` ring pays nothing for them.
#[derive(Debug)]
pub enum Marked {}

impl Policy for Marked {}

impl sealed::Sealed for Marked {
    const OVERWRITES: bool = false;
    const MARKED: bool = true;
    type Marks = Marks;
    type RaiseAt = usize;
    #[cfg(not(sluicegate_loom))]
    const NO_MARKS: Marks = Marks::new(0);
    #[cfg(sluicegate_loom)]
    fn no_marks() -> Marks {
        Marks::new(0)
    }
    const NO_RAISE: usize = 0;
    super::policy::never_evicts!();

    // As `Reject`: only the consumer stores `head`.
    #[inline(always)]
    fn load_head(head: &LoadStoreUsize, order: Ordering) -> usize {
        <Reject as sealed::Sealed>::load_head(head, order)
    }

    #[inline(always)]
    fn store_head(head: &LoadStoreUsize, value: usize, order: Ordering) {
        <Reject as sealed::Sealed>::store_head(head, value, order)
    }

    #[inline(always)]
    fn cas_head(
        head: &LoadStoreUsize,
        current: usize,
        new: usize,
        success: Ordering,
        failure: Ordering,
    ) -> Result<usize, usize> {
        <Reject as sealed::Sealed>::cas_head(head, current, new, success, failure)
    }
}

/// The watermark's words (see the module docs' table).
#[derive(Debug)]
pub struct Marks {
    /// Stored by the producer only: `2 s + cancelled`.
    raised: LoadStoreUsize,
    /// Stored by the consumer only: a value of `raised` it dealt with.
    lowered: LoadStoreUsize,
    /// The low mark (0 without marks). Set at construction only.
    low: usize,
}

impl sealed::MarkWords for Marks {
    #[inline(always)]
    fn get(&self) -> Option<&Marks> {
        Some(self)
    }
}

impl sealed::RaiseAt for usize {
    #[inline(always)]
    fn get(&self) -> usize {
        *self
    }

    #[inline(always)]
    fn at(head: usize, high: usize) -> usize {
        head.wrapping_add(high)
    }

    #[inline(always)]
    fn follow(&mut self, head: usize, high: usize) {
        *self = head.wrapping_add(high);
    }
}

/// The watermark's words and threshold of a policy without watermarks:
/// nothing (zero-sized).
#[derive(Debug)]
pub struct NoMarks;

impl<W> sealed::Maybe<W> for NoMarks {
    #[inline(always)]
    fn get(&self) -> Option<&W> {
        None
    }
}

impl sealed::MarkWords for NoMarks {
    #[inline(always)]
    fn get(&self) -> Option<&Marks> {
        None
    }
}

impl sealed::RaiseAt for NoMarks {
    #[inline(always)]
    fn get(&self) -> usize {
        0
    }

    #[inline(always)]
    fn at(_: usize, _: usize) -> NoMarks {
        NoMarks
    }

    #[inline(always)]
    fn follow(&mut self, _: usize, _: usize) {}
}

impl Marks {
    const_fn! {
        pub(super) fn new(low: usize) -> Self {
            Self {
                raised: LoadStoreUsize::new(0),
                lowered: LoadStoreUsize::new(0),
                low,
            }
        }
    }

    /// The level changes so far (see [`Ring::transitions`]).
    pub(super) fn transitions(&self) -> usize {
        let raised = self.raised.load(Ordering::Acquire);
        let high = Self::level(raised, self.lowered.load(Ordering::Acquire)) == Level::High;
        (raised >> 1).wrapping_mul(2).wrapping_sub(high as usize)
    }

    /// The level the two words encode.
    #[inline]
    fn level(raised: usize, lowered: usize) -> Level {
        if raised & 1 == 0 && raised != lowered {
            Level::High
        } else {
            Level::Normal
        }
    }
}

impl<T, const N: usize> Ring<T, N, Marked> {
    const_fn! {
        /// An empty ring with watermarks: [`Level::High`] from a push that
        /// leaves `high` items or more until a pop that leaves `low` or
        /// fewer (see the [module docs](crate::spsc) of `spsc` and
        /// [`Producer::level`]).
        ///
        /// # Panics
        ///
        /// Unless `low < high <= N`. In a `static` (or any `const`) that is
        /// a compile-time error:
        ///
        /// ```compile_fail,E0080
        /// static UART: sluicegate::spsc::Ring<u8, 64, sluicegate::spsc::Marked> = sluicegate::spsc::Ring::with_watermarks(48, 16);
        /// ```
        ///
        /// ```
        /// use sluicegate::spsc::{Level, Marked, Ring};
        ///
        /// static UART: Ring<u8, 64, Marked> = Ring::with_watermarks(16, 48);
        /// let (mut tx, mut rx) = UART.try_split().unwrap();
        /// for b in 0..48 {
        ///     tx.try_push(b).unwrap();
        /// }
        /// assert_eq!(UART.level(), Level::High); // the 48th push raised it: stop the sender
        /// while UART.len() > 17 {
        ///     rx.try_pop();
        ///     assert_eq!(UART.level(), Level::High); // no flapping between the marks
        /// }
        /// rx.try_pop();
        /// assert_eq!(UART.level(), Level::Normal); // the pop that left 16 lowered it
        /// assert_eq!(UART.transitions(), 2);
        /// ```
        pub fn with_watermarks(low: usize, high: usize) -> Self {
            assert!(
                low < high && high <= N,
                "sluicegate: watermarks need low < high <= N"
            );
            Self::with_start_marks(0, Marks::new(low), N + 1 - high)
        }
    }
}

impl<T, const N: usize> Ring<T, N, Marked> {
    const_fn! {
        /// [`with_watermarks`](Self::with_watermarks) whose positions start
        /// at `start` (wrapping). For tests of index wrap-around only.
        #[doc(hidden)]
        pub fn with_start_watermarks(start: usize, low: usize, high: usize) -> Self {
            assert!(
                low < high && high <= N,
                "sluicegate: watermarks need low < high <= N"
            );
            Self::with_start_marks(start, Marks::new(low), N + 1 - high)
        }
    }
}

impl<T, const N: usize> Ring<T, N, Marked> {
    /// The watermarks `(low, high)`, or `None` for a ring made without
    /// them.
    ///
    /// ```
    /// use sluicegate::spsc::{Marked, Ring};
    ///
    /// let marked: Ring<u8, 8, Marked> = Ring::with_watermarks(2, 6);
    /// let plain: Ring<u8, 8, Marked> = Ring::new();
    /// assert_eq!((marked.watermarks(), plain.watermarks()), (Some((2, 6)), None));
    /// ```
    pub fn watermarks(&self) -> Option<(usize, usize)> {
        let high = self.high();
        (high <= N).then_some((self.head.marks.low, high))
    }

    /// The level now, as the last transition left it (a snapshot, from any
    /// context: two loads). A ring without watermarks is always
    /// [`Level::Normal`].
    ///
    /// ```
    /// use sluicegate::spsc::{Level, Marked, Ring};
    ///
    /// let mut ring: Ring<u8, 4, Marked> = Ring::with_watermarks(1, 3);
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[1, 2, 3]);
    /// assert_eq!(rx.level(), Level::High);
    /// rx.try_pop();
    /// rx.try_pop();
    /// assert_eq!(rx.level(), Level::Normal);
    /// ```
    pub fn level(&self) -> Level {
        let marks = &self.head.marks;
        Marks::level(
            marks.raised.load(Ordering::Acquire),
            marks.lowered.load(Ordering::Acquire),
        )
    }

    /// How many times the level changed since the ring was made (wrapping
    /// at `2^usize::BITS`); odd while it is [`Level::High`].
    ///
    /// ```
    /// use sluicegate::spsc::{Marked, Ring};
    ///
    /// let mut ring: Ring<u8, 4, Marked> = Ring::with_watermarks(0, 2);
    /// let (mut tx, mut rx) = ring.split();
    /// for _ in 0..3 {
    ///     tx.push_burst(&[1, 2]); // High
    ///     rx.clear(); // Normal
    /// }
    /// drop((tx, rx));
    /// assert_eq!(ring.transitions(), 6);
    /// ```
    pub fn transitions(&self) -> usize {
        self.head.marks.transitions()
    }
}

impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// The high mark (`N + 1` without marks).
    #[inline]
    pub(super) fn high(&self) -> usize {
        N + 1 - self.producer.raise_at.get()
    }

    /// The consumer, after it moved `head` to `head`: lowers the level if it
    /// is `High` and `low` or fewer items are left. One compare of two
    /// loads from the consumer's own line unless the level changed.
    #[inline(always)]
    pub(super) fn lower_check(&self, head: usize) {
        let Some(marks) = self.head.marks.get() else {
            return;
        };
        // Relaxed: the cold path decides. With `async` this load comes after
        // the fence of the wake that precedes it (module docs).
        if marks.raised.load(Ordering::Relaxed) != marks.lowered.load(Ordering::Relaxed) {
            self.lower_cold(head);
        }
    }

    #[cold]
    #[inline(never)]
    fn lower_cold(&self, head: usize) {
        let Some(marks) = self.head.marks.get() else {
            return;
        };
        let raised = marks.raised.load(Ordering::Acquire);
        if raised & 1 != 0 {
            // The producer cancelled: acknowledge, so the pops' test passes.
            marks.lowered.store(raised, Ordering::Release);
            return;
        }
        if raised == marks.lowered.load(Ordering::Relaxed) {
            return;
        }
        // High: the true length, after the raise was seen (Acquire: the
        // tail is at least the one the producer had when it raised).
        let tail = self.producer.tail.load(Ordering::Acquire);
        let len = (tail.wrapping_sub(head & !P::BUSY) >> P::SHIFT).min(N);
        if len <= marks.low {
            marks.lowered.store(raised, Ordering::Release);
        }
    }
}

impl<T, const N: usize, P: Policy> Producer<'_, T, N, P> {
    /// After publishing (or before a chunk reservation): the one load,
    /// compare and branch a push pays for the watermarks. `tail` at or past
    /// `raise_pos` means `high` items or more by the cached head, which
    /// over-estimates the length (module docs, "Cost").
    #[inline(always)]
    pub(super) fn note_level(&mut self) {
        if P::MARKED && self.tail.wrapping_sub(self.raise_pos.get()) as isize >= 0 {
            self.raise_cold();
        }
    }

    /// `tail` reached `raise_pos`: the ring may hold `high` or more;
    /// decide on the true length.
    #[cold]
    #[inline(never)]
    pub(super) fn raise_cold(&mut self) {
        let ring = self.ring;
        let Some(marks) = ring.head.marks.get() else {
            return;
        };
        // At or past `raise_pos`: move it on from the cached head (no
        // load), so that `tail` is never far past it (module docs, "Cost").
        self.follow_head();
        let raised = marks.raised.load(Ordering::Relaxed);
        if marks.level_of(raised) == Level::Normal && self.true_len() >= ring.high() {
            self.raise(marks, raised);
        }
    }

    /// Reloads `head` into the cache and returns the items in the ring.
    #[inline]
    fn true_len(&mut self) -> usize {
        // Acquire, as in `free_for`.
        self.head = self.ring.load_head(Ordering::Acquire) & !P::BUSY;
        self.follow_head();
        self.tail.wrapping_sub(self.head) >> P::SHIFT
    }

    /// Moves `raise_pos` to `high` positions after the cached head.
    #[inline]
    fn follow_head(&mut self) {
        self.raise_pos
            .follow(self.head, self.ring.high() << P::SHIFT);
    }

    /// Normal to High, from `raised` (a `Normal` word of ours) in this
    /// ring's `marks`; cancelled at once if a reload after the fence finds
    /// `low` or fewer items.
    fn raise(&mut self, marks: &Marks, raised: usize) {
        let next = (raised & !1).wrapping_add(2);
        marks.raised.store(next, Ordering::Release);
        // SeqCst: the store-load order against a pop that released its slot
        // and loads `raised` after its own fence (module docs).
        fence(Ordering::SeqCst);
        if self.true_len() <= marks.low {
            marks.raised.store(next | 1, Ordering::Release);
        }
    }
}

impl Marks {
    /// The level by the words, `raised` being the producer's.
    #[inline]
    fn level_of(&self, raised: usize) -> Level {
        Self::level(raised, self.lowered.load(Ordering::Acquire))
    }

    /// Ends a `High` level of the producer's (`raised`), as the producer.
    #[inline]
    fn cancel(&self, raised: usize) {
        self.raised.store(raised | 1, Ordering::Release);
    }
}

impl<T, const N: usize> Producer<'_, T, N, Marked> {
    /// Whether `low` or fewer items are in the ring now; if so, a `High`
    /// level is lowered (the waits' test).
    fn below_low(&mut self) -> bool {
        let marks = &self.ring.head.marks;
        let raised = marks.raised.load(Ordering::Relaxed);
        if self.true_len() > marks.low {
            return false;
        }
        if marks.level_of(raised) == Level::High {
            marks.cancel(raised);
        }
        true
    }
}

impl<T, const N: usize> Producer<'_, T, N, Marked> {
    /// The level, decided now on the true length: raises it if `high` or
    /// more items are in the ring, lowers it if `low` or fewer are (so a
    /// level left `High` by a race, or by a write chunk's commit, is put
    /// right here). Wait-free (a few loads and at most two stores), so an
    /// interrupt handler may call it after its pushes.
    ///
    /// ```
    /// use sluicegate::spsc::{Level, Marked, Ring};
    ///
    /// let mut ring: Ring<u8, 8, Marked> = Ring::with_watermarks(2, 6);
    /// let (mut tx, mut rx) = ring.split();
    /// let mut rts = true; // the UART's flow control: the sender may send
    /// for byte in 0..6 {
    ///     tx.try_push(byte).unwrap();
    ///     rts = tx.level() == Level::Normal;
    /// }
    /// assert!(!rts); // six in the ring: the sender is told to stop
    /// rx.pop_burst(&mut [0; 4]);
    /// assert_eq!(tx.level(), Level::Normal); // two left: it may send again
    /// ```
    pub fn level(&mut self) -> Level {
        let ring = self.ring;
        let marks = &ring.head.marks;
        let raised = marks.raised.load(Ordering::Relaxed);
        let len = self.true_len();
        match marks.level_of(raised) {
            Level::High if len <= marks.low => marks.cancel(raised),
            Level::Normal if len >= ring.high() => self.raise(marks, raised),
            _ => {}
        }
        self.ring.level()
    }

    /// Waits until the ring holds the low watermark's count of items or
    /// fewer (0 on a ring without marks: until it is empty), and returns
    /// with the level [`Normal`](Level::Normal). If the consumer is gone
    /// with more in the ring, nobody can drain it: `Err(Closed(()))`. With
    /// the `std` feature the thread sleeps, woken by the consumer's pops
    /// (each pop while it waits wakes it to test the length again);
    /// without `std` it spins as [`push_blocking`](Self::push_blocking)
    /// does, and must not be called where it would preempt the consumer.
    ///
    /// ```
    /// use sluicegate::spsc::{Level, Marked, Ring};
    ///
    /// let mut ring: Ring<u32, 16, Marked> = Ring::with_watermarks(4, 12);
    /// let (mut tx, mut rx) = ring.split();
    /// std::thread::scope(|s| {
    ///     s.spawn(move || while rx.pop_blocking().is_some() {});
    ///     for i in 0..1000 {
    ///         tx.push_blocking(i).unwrap();
    ///         if tx.level() == Level::High {
    ///             // A source that can be slowed: stop it until the ring drains.
    ///             tx.wait_below_low_blocking().unwrap();
    ///             assert!(tx.len() <= 4);
    ///         }
    ///     }
    ///     drop(tx); // ends the consumer's loop
    /// });
    /// ```
    pub fn wait_below_low_blocking(&mut self) -> Result<(), crate::Closed<()>> {
        #[cfg(feature = "std")]
        {
            if self.below_low() {
                return Ok(());
            }
            crate::wait::park::block_on(self.wait_below_low())
        }
        #[cfg(not(feature = "std"))]
        crate::spin::until((), |()| {
            if self.below_low() {
                Ok(Ok(()))
            } else if self.is_abandoned() && !self.below_low() {
                Ok(Err(crate::Closed(())))
            } else {
                Err(())
            }
        })
    }
}

impl<T, const N: usize> Consumer<'_, T, N, Marked> {
    /// The ring's level now ([`Ring::level`]).
    ///
    /// ```
    /// use sluicegate::spsc::{Level, Marked, Ring};
    ///
    /// let mut ring: Ring<u8, 4, Marked> = Ring::with_watermarks(0, 1);
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push(1).unwrap();
    /// assert_eq!(rx.level(), Level::High);
    /// rx.try_pop();
    /// assert_eq!(rx.level(), Level::Normal);
    /// ```
    pub fn level(&self) -> Level {
        self.ring.level()
    }
}

#[cfg(all(feature = "async", sluicegate_cas))]
mod waits;

#[cfg(all(test, not(sluicegate_loom)))]
mod tests {
    use super::super::Ring;
    use super::super::{ConsumerSide, ProducerSide, Reject};
    use super::Marked;
    use core::mem::size_of;

    /// The push's wrapping compare is exact only while `tail` stays within
    /// `N + 1` positions of `raise_pos` (module docs, "Cost"). Write chunks
    /// (whose commits do not compare) and pushes, long past any wrap of a
    /// `u8`, with the ring between the marks, below and above them.
    #[test]
    fn tail_stays_near_the_raise_position() {
        const N: usize = 4;
        let mut ring: Ring<u8, N, Marked> = Ring::with_watermarks(1, 3);
        let (mut tx, mut rx) = ring.split();
        let near = |tx: &super::Producer<'_, u8, N, Marked>| {
            let d = tx.tail.wrapping_sub(tx.raise_pos) as isize;
            assert!(
                (-(N as isize + 1)..=N as isize).contains(&d),
                "tail - raise_pos = {d}"
            );
        };
        for round in 0..300usize {
            // Chunks only, filled to `round % 5` items, then drained to
            // `round % 3`.
            for k in 0..3 {
                let want = round % 5;
                // A hundred rounds of each reservation, then both.
                if round / 100 == 1 || (round >= 200 && k == 1) {
                    if let Ok(chunk) = tx.write_chunk_uninit(want) {
                        chunk.fill_from_iter(0..);
                    }
                } else {
                    tx.write_chunk_uninit_up_to(want).fill_from_iter(0..);
                }
                near(&tx);
            }
            while rx.len() > round % 3 {
                rx.try_pop();
            }
            if round % 7 == 0 {
                let _ = tx.try_push(1);
                near(&tx);
            }
        }
        // The compare still raises: fill past `high`.
        while tx.try_push(2).is_ok() {}
        assert_eq!(rx.level(), super::Level::High);
    }

    /// The four words (the two marks and the level's two) are in a
    /// `Marked` ring only.
    #[test]
    fn only_a_marked_ring_has_the_words() {
        let word = size_of::<usize>();
        assert_eq!(size_of::<ConsumerSide<Reject>>(), word);
        assert_eq!(size_of::<ConsumerSide<Marked>>(), 4 * word);
        assert_eq!(
            size_of::<ProducerSide<Marked>>() - size_of::<ProducerSide<Reject>>(),
            word
        );
        #[cfg(sluicegate_cas)]
        {
            use super::super::Overwrite;
            // The claim word and the dropped count; the void count.
            assert_eq!(size_of::<ConsumerSide<Overwrite>>(), 3 * word);
            assert_eq!(
                size_of::<ProducerSide<Overwrite>>(),
                size_of::<ProducerSide<Reject>>() + word
            );
        }
    }
}
