//! The pressure signal of the critical-section ring: a high and a low
//! watermark, the [`Level`] they define with hysteresis, and the waits for
//! the ring to drain to the low one.
//!
//! # Model
//!
//! A ring of marks policy [`Marked`], made with
//! [`Ring::with_watermarks(low, high)`](Ring::with_watermarks), is
//! [`Level::Normal`] until an operation leaves `high` items or more in it,
//! then [`Level::High`] until one leaves `low` or fewer, then `Normal`
//! again. Between the marks the level stays what it was, so a producer that
//! slows its source at `High` and speeds it up at `Normal` does not flap
//! (XON/XOFF). The transitions are counted
//! ([`RingStats::transitions`](crate::RingStats::transitions)). A ring of
//! the default policy, [`NoMarks`], has no marks, no level and none of the
//! code below.
//!
//! # Exact, with no protocol of its own
//!
//! Every change of the count is one critical section (`src/mpmc/cs.rs`),
//! and the level is decided inside it, on the count it leaves: the push
//! that makes the count reach `high` raises the level, the pop that takes
//! it down to `low` lowers it. So the level is never stale, never `High` on
//! a drained ring, and the same from every context; nothing here is
//! concurrent beyond what the critical section already excludes.
//!
//! | transition | by | when |
//! |---|---|---|
//! | `Normal` to `High` | any push (`try_push`, `push_overwrite` that stored, the bursts, `push_iter`, the waiting pushes) | it leaves `high` items or more |
//! | `High` to `Normal` | any pop (`try_pop`, the bursts, `drain`, `clear`, the fresh pops, the waiting pops) | it leaves `low` items or fewer |
//!
//! # Cost
//!
//! Two words decide when to look: `raise_above` (`high - 1` while
//! `Normal`, `usize::MAX` while `High`) and `lower_below` (`low + 1` while
//! `High`, 0 while `Normal`). A push compares the count it leaves with the
//! first and branches, a pop with the second; only a transition runs the
//! few stores that change them. Without `async` a pop compares in `take`;
//! with it, in the section's check for waiters (`with_notify` in
//! `src/mpmc/cs/wait.rs`), which also learns there whether the lowering
//! found drain waiters to wake. A [`NoMarks`] ring compiles to neither
//! compare (the policy's functions are empty), so its operations and its
//! size are those of a ring without this module. `BENCHMARKS.md` has the
//! counts.
//!
//! # Waiting for the drain
//!
//! [`Ring::wait_below_low`] (feature `async`) and
//! [`Ring::wait_below_low_blocking`] wait until the level is `Normal`:
//! while it is `High`, until a pop leaves `low` items or fewer. (Not "until
//! the count is at most `low`": only a lowering wakes the waiters, and once
//! the level is `Normal` the count may rise and fall above `low` with no
//! lowering to wake a waiter that waited for it.)
//!
//! The waiters have a list of their own, in the marks (only a `Marked` ring
//! has it), with the node protocol of the item and room lists
//! (`src/mpmc/cs/wait.rs`): a waiter tests the level and links itself in
//! one critical section, and the pop that lowers the level finds, in its
//! own section, whether any waiter is linked, and then wakes as many as
//! were linked then, from the head of the list, after it (as the close
//! does). One of the two sections comes entirely first, so no wake-up is
//! lost. A woken waiter that finds the level `High` again (producers raised
//! it before it ran) links itself again in its place, and waits for the next
//! lowering; the waiters behind it then also wait for that one, since the
//! level they would test is `High` too. Pops that leave the level `High`
//! wake none of them: a waiter sleeps through the whole drain. The close
//! wakes them too, and they answer `Closed`.
//!
//! As for the ring's other waits there is no loom model: the critical
//! section is a `std` mutex in the test binaries, which loom cannot see.
//! `tests/watermark_cs.rs` checks the waits on threads (under Miri too),
//! including a waiter woken by the lowering that polls only after the
//! count rose again, and the fuzz model (`fuzz/src/mpmc.rs`) checks the
//! level and the transitions after every step.

use super::{Ring, State, CLOSED};
use crate::spsc::Level;
#[cfg(feature = "async")]
use crate::sync::LoadStoreUsize;
#[cfg(feature = "async")]
use crate::wait::list::{Node, RawList, Wake};
#[cfg(feature = "async")]
use crate::wait::Side;
use crate::Closed;
use core::fmt;
#[cfg(feature = "async")]
use core::future::Future;
#[cfg(feature = "async")]
use core::pin::Pin;
#[cfg(feature = "async")]
use core::task::{Context, Poll};

/// The marks policy of a [`Ring`]: [`NoMarks`] (the default) or
/// [`Marked`]. Sealed.
pub trait Marks: sealed::Sealed {}

/// Marks policy: no watermarks (the default). The ring has no level and
/// pays nothing for the possibility.
#[derive(Debug)]
pub enum NoMarks {}

/// Marks policy: a high and a low watermark and the [`Level`] they define
/// (made with [`Ring::with_watermarks`]).
#[derive(Debug)]
pub enum Marked {}

impl Marks for NoMarks {}
impl Marks for Marked {}

// The trait is public only in name (its module is private): users cannot
// name it, call its functions or reach the crate-private list type they
// hand out, which the lint cannot see.
#[allow(private_interfaces)]
pub(super) mod sealed {
    #[cfg(feature = "async")]
    use crate::sync::LoadStoreUsize;
    #[cfg(feature = "async")]
    use crate::wait::list::RawList;

    pub trait Sealed {
        /// What the policy keeps in the ring's state (`Send`, so that the
        /// ring is `Send` and `Sync` for every policy when `T: Send`).
        type Words: Send;

        /// After a push that left `count` items.
        fn pushed(words: &mut Self::Words, count: usize);

        /// After a pop (or a try of one) that left `len` (the state's
        /// word: the count, with the closed bit). Returns whether it
        /// lowered the level with drain waiters linked, to wake after the
        /// critical section (never without `async`).
        fn popped(words: &mut Self::Words, len: usize) -> bool;

        /// When the ring is closed.
        fn closed(words: &mut Self::Words);

        /// The transitions so far.
        fn transitions(words: &Self::Words) -> usize;

        /// The level, if the policy has one (for `Debug`).
        fn level(words: &Self::Words) -> Option<super::Level>;

        /// The list of waiters for the drain, and its count.
        #[cfg(feature = "async")]
        fn low_list(words: &mut Self::Words) -> Option<(&mut RawList, &LoadStoreUsize)>;
    }
}

#[allow(private_interfaces)] // sealed (above)
impl sealed::Sealed for NoMarks {
    type Words = ();

    #[inline(always)]
    fn pushed((): &mut (), _: usize) {}

    #[inline(always)]
    fn popped((): &mut (), _: usize) -> bool {
        false
    }

    #[inline(always)]
    fn closed((): &mut ()) {}

    #[inline(always)]
    fn transitions((): &()) -> usize {
        0
    }

    fn level((): &()) -> Option<Level> {
        None
    }

    #[cfg(feature = "async")]
    #[inline(always)]
    fn low_list((): &mut ()) -> Option<(&mut RawList, &LoadStoreUsize)> {
        None
    }
}

#[allow(private_interfaces)] // sealed (above)
impl sealed::Sealed for Marked {
    type Words = MarkWords;

    #[inline(always)]
    fn pushed(words: &mut MarkWords, count: usize) {
        if count > words.raise_above {
            words.raise();
        }
    }

    #[inline(always)]
    fn popped(words: &mut MarkWords, len: usize) -> bool {
        // `len` carries the closed bit once the ring is closed, and so
        // does `lower_below` then (`closed`): one compare either way.
        len < words.lower_below && words.lower()
    }

    fn closed(words: &mut MarkWords) {
        if words.lower_below != 0 {
            words.lower_below |= CLOSED;
        }
    }

    #[inline(always)]
    fn transitions(words: &MarkWords) -> usize {
        words.transitions
    }

    fn level(words: &MarkWords) -> Option<Level> {
        Some(words.level())
    }

    #[cfg(feature = "async")]
    #[inline(always)]
    fn low_list(words: &mut MarkWords) -> Option<(&mut RawList, &LoadStoreUsize)> {
        Some((&mut words.list, &words.waiting))
    }
}

/// A [`Marked`] ring's marks, level and transition count (in its state,
/// inside the critical section).
pub struct MarkWords {
    low: usize,
    high: usize,
    /// A count above this raises the level: `high - 1` while `Normal`,
    /// `usize::MAX` while `High`.
    raise_above: usize,
    /// A count below this lowers the level: `low + 1` while `High`, 0
    /// while `Normal`; with the closed bit once the ring is closed, as the
    /// state's `len` has.
    lower_below: usize,
    transitions: usize,
    /// How many waiters are linked in `list`.
    #[cfg(feature = "async")]
    waiting: LoadStoreUsize,
    /// The tasks and threads waiting for the drain.
    #[cfg(feature = "async")]
    list: RawList,
}

impl MarkWords {
    /// Normal, with marks `low < high <= n` (a panic otherwise, which is a
    /// compile-time error in a `const`).
    const fn new(low: usize, high: usize, n: usize) -> Self {
        assert!(
            low < high && high <= n,
            "sluicegate: mpmc::cs watermarks need low < high <= N"
        );
        MarkWords {
            low,
            high,
            raise_above: high - 1,
            lower_below: 0,
            transitions: 0,
            #[cfg(feature = "async")]
            waiting: LoadStoreUsize::new(0),
            #[cfg(feature = "async")]
            list: RawList::new(),
        }
    }

    // Inlined into the branch that calls it: a call would make the
    // critical section's restore token live across it, which costs every
    // push a saved register.
    #[inline(always)]
    fn raise(&mut self) {
        self.raise_above = usize::MAX;
        self.lower_below = self.low + 1;
        self.transitions = self.transitions.wrapping_add(1);
    }

    /// Lowers the level; returns whether drain waiters are linked (the
    /// caller wakes them after its critical section).
    // Inlined, as `raise`.
    #[inline(always)]
    fn lower(&mut self) -> bool {
        self.raise_above = self.high - 1;
        self.lower_below = 0;
        self.transitions = self.transitions.wrapping_add(1);
        // Relaxed: inside the critical section, which orders it.
        #[cfg(feature = "async")]
        return self.waiting.load(crate::sync::Ordering::Relaxed) != 0;
        #[cfg(not(feature = "async"))]
        false
    }

    fn level(&self) -> Level {
        if self.lower_below != 0 {
            Level::High
        } else {
            Level::Normal
        }
    }
}

impl fmt::Debug for MarkWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MarkWords")
            .field("low", &self.low)
            .field("high", &self.high)
            .field("level", &self.level())
            .field("transitions", &self.transitions)
            .finish_non_exhaustive()
    }
}

impl<T, const N: usize> Ring<T, N, Marked> {
    /// An empty ring with watermarks `low < high <= N`: its [`Level`] is
    /// [`High`](Level::High) from an operation that leaves `high` items or
    /// more until one that leaves `low` or fewer (module docs of
    /// `mpmc::cs`, "Watermarks").
    ///
    /// # Panics
    ///
    /// Unless `low < high <= N`. In a `static` (or any `const`) that is a
    /// compile-time error:
    ///
    /// ```compile_fail,E0080
    /// static BAD: sluicegate::mpmc::cs::Ring<u8, 64, sluicegate::mpmc::cs::Marked> =
    ///     sluicegate::mpmc::cs::Ring::with_watermarks(48, 16);
    /// ```
    ///
    /// ```
    /// use sluicegate::mpmc::cs::{Level, Marked, Ring};
    ///
    /// static RX: Ring<u8, 64, Marked> = Ring::with_watermarks(16, 48);
    /// for b in 0..48 {
    ///     RX.try_push(b).unwrap(); // from the UART's interrupt handler
    /// }
    /// assert_eq!(RX.level(), Level::High); // the 48th push raised it: deassert RTS
    /// while RX.len() > 17 {
    ///     RX.try_pop();
    ///     assert_eq!(RX.level(), Level::High); // no flapping between the marks
    /// }
    /// RX.try_pop();
    /// assert_eq!(RX.level(), Level::Normal); // the pop that left 16 lowered it
    /// assert_eq!(RX.stats().transitions, 2);
    /// ```
    pub const fn with_watermarks(low: usize, high: usize) -> Self {
        Self::with_marks(MarkWords::new(low, high, N))
    }

    /// The watermarks `(low, high)`.
    ///
    /// ```
    /// use sluicegate::mpmc::cs::{Marked, Ring};
    ///
    /// let ring: Ring<u8, 8, Marked> = Ring::with_watermarks(2, 6);
    /// assert_eq!(ring.watermarks(), (2, 6));
    /// ```
    pub fn watermarks(&self) -> (usize, usize) {
        self.with(|s| (s.marks.low, s.marks.high))
    }

    /// The level now (one critical section): exact, since every transition
    /// is made in the critical section of the operation that moved the
    /// count across a mark.
    ///
    /// ```
    /// use sluicegate::mpmc::cs::{Level, Marked, Ring};
    ///
    /// let ring: Ring<u8, 4, Marked> = Ring::with_watermarks(1, 3);
    /// ring.push_burst(&[1, 2, 3]);
    /// assert_eq!(ring.level(), Level::High);
    /// ring.try_pop();
    /// ring.try_pop();
    /// assert_eq!(ring.level(), Level::Normal);
    /// ```
    pub fn level(&self) -> Level {
        self.with(|s| s.marks.level())
    }

    /// Waits until the level is [`Normal`](Level::Normal) (at once if it
    /// is), blocking the thread: that is, while it is `High`, until a pop
    /// leaves `low` items or fewer. `Ok(())` then, or `Err(Closed(()))`
    /// once the ring is closed (its pushes are over, so there is nothing
    /// left to slow). With the `std` feature the thread sleeps until the
    /// pop that lowers the level (or the close) wakes it; the pops before
    /// that do not. Without `std`
    /// it spins with [`crossbeam_utils::Backoff`] outside the critical
    /// section, and must not be called where it would preempt the
    /// consumers.
    ///
    /// ```
    /// use sluicegate::mpmc::cs::{Level, Marked, Ring};
    ///
    /// static LINE: Ring<u32, 16, Marked> = Ring::with_watermarks(4, 12);
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
        #[cfg(feature = "std")]
        {
            crate::wait::park::wait(self.wait_below_low())
        }
        #[cfg(not(feature = "std"))]
        crate::spin::until((), |()| self.drained().ok_or(()))
    }

    /// In one critical section: `Some(Ok(()))` at `low` items or fewer,
    /// `Some(Err)` closed, `None` to wait.
    #[cfg(not(feature = "std"))]
    fn drained(&self) -> Option<Result<(), Closed<()>>> {
        self.with(|s| drained(s))
    }
}

/// The test of a drain waiter, inside its critical section: the level,
/// not the count. Only a lowering wakes the waiters, so a waiter that
/// waited for the count could sleep through a rise and fall that stays
/// above `low` once the level is `Normal`, with nobody left to wake it.
#[inline(always)]
fn drained<T, const N: usize>(s: &mut State<T, N, Marked>) -> Option<Result<(), Closed<()>>> {
    if s.is_closed() {
        Some(Err(Closed(())))
    } else if s.marks.level() == Level::Normal {
        Some(Ok(()))
    } else {
        None
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> Ring<T, N, Marked> {
    /// Waits (asynchronously) until the level is [`Normal`](Level::Normal)
    /// (at once if it is): while it is `High`, until a pop leaves `low`
    /// items or fewer. Resolves to `Ok(())` then, or to `Err(Closed(()))`
    /// once the ring is closed. Only the pop that lowers the level (and the close) wakes it;
    /// any number of tasks may wait, and none polls. Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::cs::{Level, Marked, Ring};
    ///
    /// static LINE: Ring<u32, 16, Marked> = Ring::with_watermarks(4, 12);
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
    pub fn wait_below_low(&self) -> BelowLow<'_, T, N> {
        BelowLow {
            ring: self,
            node: Node::new(),
        }
    }
}

/// The future of [`Ring::wait_below_low`] (feature `async`). While it
/// waits, its node is linked into the ring's list of drain waiters, so it
/// is `!Unpin`; dropped, it leaves the list.
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
#[must_use = "futures do nothing unless polled"]
pub struct BelowLow<'r, T, const N: usize> {
    ring: &'r Ring<T, N, Marked>,
    node: Node,
}

#[cfg(feature = "async")]
impl<T, const N: usize> BelowLow<'_, T, N> {
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Result<(), Closed<()>>> {
        let this = self.into_ref().get_ref();
        this.ring
            .poll_wait(low_list, Side::Item, &this.node, wake, drained, |_| false)
    }
}

/// The drain waiters' list of a [`Marked`] ring's state.
#[cfg(feature = "async")]
fn low_list<T, const N: usize>(s: &mut State<T, N, Marked>) -> (&mut RawList, &LoadStoreUsize) {
    (&mut s.marks.list, &s.marks.waiting)
}

#[cfg(feature = "async")]
impl<T, const N: usize> Future for BelowLow<'_, T, N> {
    type Output = Result<(), Closed<()>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.poll_as(Wake::Task(cx.waker()))
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> Drop for BelowLow<'_, T, N> {
    fn drop(&mut self) {
        self.ring.leave_list(low_list, &self.node);
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> fmt::Debug for BelowLow<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BelowLow").finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl<T, const N: usize> crate::wait::park::Parkable for BelowLow<'_, T, N> {
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Self::Output> {
        BelowLow::poll_as(self, wake)
    }
}
