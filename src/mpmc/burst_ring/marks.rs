//! The pressure signal of the burst ring: a high and a low watermark, the
//! [`Level`] they define with hysteresis, and the waits for the ring to
//! drain to the low one.
//!
//! # Model
//!
//! A ring of marks policy [`Marked`], made with
//! [`BurstRing::with_watermarks(low, high)`](BurstRing::with_watermarks),
//! turns [`Level::High`] when a push's claim leaves `high` positions or
//! more claimed by pushes and not by pops (the count [`BurstRing::len`]
//! reads), and [`Level::Normal`] again when a pop's claim leaves `low` or
//! fewer. Between the marks the level stays what it was (XON/XOFF). Every
//! transition is counted
//! ([`RingStats::transitions`](crate::RingStats::transitions)). A ring of
//! the default policy, [`NoMarks`], has none of the words or code below.
//!
//! # Protocol
//!
//! Two words, on their own cache line on hosts:
//!
//! - `flips`: the level in bit 0 (`High` when set) and, as a whole, the
//!   number of transitions; a transition is one CAS from `f` to `f + 1`;
//! - `raise_at`: a counter word. Invariant: it is never more than
//!   `cons + high` positions for the `cons` of its moment (every value
//!   stored is a `cons` that was loaded, plus `high`).
//!
//! A push whose claim ends at counter word `to` compares `to` with
//! `raise_at` (wrapping): below it, fewer than `high` positions are
//! claimed past any `cons` since that value, so nothing is to raise. A pop
//! fences and tests bit 0 of `flips`: `Normal`, nothing is to lower;
//! `High`, it reads the count as the `High` row below does and goes on
//! only at `low` or fewer. A test that does not pass calls `settle`, which
//! loops:
//!
//! | level | loads (in this order) | then |
//! |---|---|---|
//! | `Normal` | `prod`, then `cons` | fewer than `high` between them: store `raise_at = cons + high`, done; else CAS `flips` to `High` and loop |
//! | `High` | `cons`, then `prod` | more than `low` between them: done; else CAS `flips` to `Normal`, store `raise_at = cons + high`, wake the drain waiters, and loop |
//!
//! **Every transition is justified.** Loading `prod` before `cons` gives
//! at most the count of the moment `prod` was loaded, so `high` or more
//! means the ring held that many then; loading `cons` before `prod` gives
//! at least the count of the moment `cons` was loaded, so `low` or fewer
//! means it held that few then. So the level never flaps on a stale
//! reading, and a transition that a concurrent one undid is retried only
//! on a new reading.
//!
//! **No level stays wrong once the operations stop.** The claims and the
//! CASes of `flips` are `SeqCst`, and a `SeqCst` fence stands between each
//! of them and the loads that follow it (a pop's test of `flips`, each
//! pass of `settle`): a context that writes one word and then reads the
//! other's is Dekker's pattern, and the fences put the writes and the
//! reads in one order. (`SeqCst` accesses alone would do in the language's
//! model; loom models them as acquire and release only, and the fences are
//! what its models check.)
//!
//! - *Not `High` with `low` or fewer inside*: take the last raise. Its
//!   `settle` loops and reads the count in the `High` row after it; if that
//!   reading was more than `low`, pops claimed after it, and the last of
//!   them reads `High` after its claim (there is no later transition), so
//!   its `settle` loads the final `cons` and then a `prod` no greater than
//!   the final one: `low` or fewer, so it lowers.
//! - *Not `Normal` with `high` or more inside*: take the last lowering (or
//!   the start). The last push claims after it, up to the final `prod`;
//!   `raise_at` is at most the final `cons + high` by the invariant, so
//!   that push calls `settle`, which loads the final `prod` and then a
//!   `cons` no greater than the final one: `high` or more, so it raises.
//!
//! (A `settle` that raises loops and reads the other row, so the raise that
//! raced the last pop lowers again itself; the same holds the other way.)
//!
//! **One producer that obeys the level never fills past `high`.** The push
//! that claims the `high`-th position finds `to >= raise_at` (with one
//! producer, `raise_at` was stored from a `cons` no later than its claim),
//! so it raises before it returns, unless pops took the count below `high`
//! meanwhile. With `P` producers each may claim once more before it sees
//! the level: at most `high + P - 1`.
//!
//! Progress: `settle` retries only after another context's transition or
//! claim, so it is lock-free. The hot paths add, on a push, one load, a
//! compare and a branch; on a pop, the fence, one load, a test and a
//! branch (and while `High`, two loads of the counters); `settle` runs out
//! of line when a test does not pass: once per `high - len` positions
//! pushed while `Normal` (to move `raise_at` on), and on every push past
//! `raise_at` while `High` (a producer that does not slow down pays it).
//! `BENCHMARKS.md` has the counts. Evictions leave the count at `N` and
//! run no test.
//! `try_push` and `try_pop` test after their commit, the other paths right
//! after their claim: either is after the claim, which is all the argument
//! needs.
//!
//! # Waiting for the drain
//!
//! [`BurstRing::wait_below_low`] (feature `async`) and
//! [`BurstRing::wait_below_low_blocking`] wait until the level is
//! `Normal`, on a list of their own in the marks (`src/wait.rs`'s protocol:
//! the waiter links its node, fences and reads the level again; the
//! lowering CASes `flips`, fences and wakes every linked waiter). Only a
//! lowering and the close wake them.

use core::fmt;
#[cfg(feature = "async")]
use core::future::Future;
#[cfg(feature = "async")]
use core::pin::Pin;
#[cfg(feature = "async")]
use core::task::{Context, Poll};

use super::{BurstRing, CLOSED, FLAGS, ONE, SHIFT};
pub use crate::spsc::Level;
use crate::sync::{fence, AtomicUsize, Ordering, Padded};
#[cfg(feature = "async")]
use crate::wait::{
    list::{Node, Wake},
    queue::WaitList,
};
use crate::Closed;

/// The marks policy of a [`BurstRing`]: [`NoMarks`] (the default) or
/// [`Marked`]. Sealed.
pub trait Marks: sealed::Sealed {}

/// Marks policy: no watermarks (the default). The ring has no level and
/// pays nothing for the possibility.
#[derive(Debug)]
pub enum NoMarks {}

/// Marks policy: a high and a low watermark and the [`Level`] they define
/// (made with [`BurstRing::with_watermarks`]).
#[derive(Debug)]
pub enum Marked {}

impl Marks for NoMarks {}
impl Marks for Marked {}

// Public only in name (its module is private): users cannot name the
// trait or call its functions.
#[allow(private_interfaces)]
pub(super) mod sealed {
    use crate::sync::AtomicUsize;

    pub trait Sealed {
        /// What the policy keeps in the ring.
        type Words: Send + Sync;

        /// After a push claimed up to counter word `to`: whether to
        /// [`settle`](Self::settle).
        fn push_test(words: &Self::Words, to: usize) -> bool;

        /// After a pop claimed: whether to [`settle`](Self::settle).
        fn pop_test(words: &Self::Words, prod: &AtomicUsize, cons: &AtomicUsize) -> bool;

        /// Brings the level in line with the count (the module docs'
        /// protocol).
        fn settle(words: &Self::Words, prod: &AtomicUsize, cons: &AtomicUsize);

        /// After a push claimed up to counter word `to`: the test, and
        /// `settle` if it says so.
        #[inline(always)]
        fn pushed(words: &Self::Words, to: usize, prod: &AtomicUsize, cons: &AtomicUsize) {
            if Self::push_test(words, to) {
                Self::settle(words, prod, cons);
            }
        }

        /// After a pop claimed: the test, and `settle` if it says so.
        #[inline(always)]
        fn popped(words: &Self::Words, prod: &AtomicUsize, cons: &AtomicUsize) {
            if Self::pop_test(words, prod, cons) {
                Self::settle(words, prod, cons);
            }
        }

        /// After the close: wakes the drain waiters.
        fn closed(words: &Self::Words);

        /// The transitions so far.
        fn transitions(words: &Self::Words) -> usize;

        /// The level, if the policy has one (for `Debug`).
        fn level(words: &Self::Words) -> Option<super::Level>;
    }
}

#[allow(private_interfaces)] // sealed (above)
impl sealed::Sealed for NoMarks {
    type Words = ();

    #[inline(always)]
    fn push_test((): &(), _: usize) -> bool {
        false
    }

    #[inline(always)]
    fn pop_test((): &(), _: &AtomicUsize, _: &AtomicUsize) -> bool {
        false
    }

    #[inline(always)]
    fn settle((): &(), _: &AtomicUsize, _: &AtomicUsize) {}

    #[inline(always)]
    fn closed((): &()) {}

    #[inline(always)]
    fn transitions((): &()) -> usize {
        0
    }

    fn level((): &()) -> Option<Level> {
        None
    }
}

#[allow(private_interfaces)] // sealed (above)
impl sealed::Sealed for Marked {
    type Words = MarkWords;

    #[inline(always)]
    fn push_test(words: &MarkWords, to: usize) -> bool {
        // Relaxed: every value `raise_at` ever held keeps the invariant, so
        // any of them gives a sound answer (module docs).
        let at = words.raise_at.load(Ordering::Relaxed);
        to.wrapping_sub(at) as isize >= 0
    }

    #[inline(always)]
    fn pop_test(words: &MarkWords, prod: &AtomicUsize, cons: &AtomicUsize) -> bool {
        // SeqCst: our claim of `cons`, then the load of `flips`, against a
        // raise's CAS of `flips`, then its load of `cons` (Dekker's
        // pattern: module docs, "No level stays wrong"). Relaxed after it.
        fence(Ordering::SeqCst);
        words.flips.load(Ordering::Relaxed) & 1 != 0 && words.may_lower(prod, cons)
    }

    fn settle(words: &MarkWords, prod: &AtomicUsize, cons: &AtomicUsize) {
        words.settle(prod, cons);
    }

    fn closed(words: &MarkWords) {
        #[cfg(feature = "async")]
        words.drain.notify_all();
        let _ = words;
    }

    #[inline(always)]
    fn transitions(words: &MarkWords) -> usize {
        words.flips.load(Ordering::Relaxed)
    }

    fn level(words: &MarkWords) -> Option<Level> {
        Some(words.level())
    }
}

/// A [`Marked`] ring's marks, level and transition count, on a cache line
/// of their own on hosts.
pub struct MarkWords(Padded<Words>);

impl core::ops::Deref for MarkWords {
    type Target = Words;

    #[inline(always)]
    fn deref(&self) -> &Words {
        &self.0
    }
}

impl fmt::Debug for MarkWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What [`MarkWords`] holds.
pub struct Words {
    /// The level in bit 0 (`High` when set); the transitions so far.
    flips: AtomicUsize,
    /// A push whose claim ends here or later (wrapping) looks at the count.
    raise_at: AtomicUsize,
    low: usize,
    high: usize,
    /// The tasks and threads waiting for the drain.
    #[cfg(feature = "async")]
    drain: WaitList,
}

impl Words {
    crate::sync::const_fn! {
        /// `Normal`, for a ring whose counters start at word `start`, with
        /// marks `low < high <= n` (a panic otherwise, which is a
        /// compile-time error in a `const`).
        fn new(start: usize, low: usize, high: usize, n: usize) -> Self {
            assert!(
                low < high && high <= n,
                "sluicegate: BurstRing watermarks need low < high <= N"
            );
            Words {
                flips: AtomicUsize::new(0),
                raise_at: AtomicUsize::new(start.wrapping_add(high * ONE)),
                low,
                high,
                #[cfg(feature = "async")]
                drain: WaitList::new(),
            }
        }
    }

    /// `settle`'s `High` row, without its CAS: whether the count may be at
    /// `low` or fewer (else a pop has nothing to do). Inline for the pops
    /// of a `High` ring, which all come here.
    #[inline(always)]
    fn may_lower(&self, prod: &AtomicUsize, cons: &AtomicUsize) -> bool {
        // SeqCst, in this order: as in `settle`'s `High` row.
        let c = cons.load(Ordering::SeqCst);
        let p = prod.load(Ordering::SeqCst) & !FLAGS;
        p.wrapping_sub(c) >> SHIFT <= self.low
    }

    fn level(&self) -> Level {
        if self.flips.load(Ordering::SeqCst) & 1 != 0 {
            Level::High
        } else {
            Level::Normal
        }
    }

    /// Brings the level in line with a fresh reading of the count (module
    /// docs, "Protocol"); loops after each transition it makes.
    #[cold]
    #[inline(never)]
    fn settle(&self, prod: &AtomicUsize, cons: &AtomicUsize) {
        loop {
            // SeqCst: a claim (ours, or the one before a pop's fence),
            // then the load of `flips`, against a transition's CAS of
            // `flips`, then its loads of the counters (Dekker's pattern:
            // module docs, "No level stays wrong"); each pass follows our
            // own CAS or claim.
            fence(Ordering::SeqCst);
            // SeqCst, as the counters' loads: the order of the two loads
            // below is what makes each reading an under- or an
            // over-estimate.
            let f = self.flips.load(Ordering::SeqCst);
            if f & 1 == 0 {
                // `prod` first: at most the count when it was loaded.
                let p = prod.load(Ordering::SeqCst) & !FLAGS;
                let c = cons.load(Ordering::SeqCst);
                // Pops may have passed `p` since: no count at all then.
                let count = if p.wrapping_sub(c) as isize > 0 {
                    p.wrapping_sub(c) >> SHIFT
                } else {
                    0
                };
                pause_at_reading();
                if count < self.high {
                    // Relaxed: any value stored keeps the invariant (it is a
                    // `cons` that was loaded, plus `high`).
                    self.raise_at
                        .store(c.wrapping_add(self.high * ONE), Ordering::Relaxed);
                    return;
                }
                if self
                    .flips
                    .compare_exchange(f, f.wrapping_add(1), Ordering::SeqCst, Ordering::SeqCst)
                    .is_err()
                {
                    continue;
                }
            } else {
                // `cons` first: at least the count when it was loaded.
                let c = cons.load(Ordering::SeqCst);
                let p = prod.load(Ordering::SeqCst) & !FLAGS;
                pause_at_reading();
                if p.wrapping_sub(c) >> SHIFT > self.low {
                    return;
                }
                if self
                    .flips
                    .compare_exchange(f, f.wrapping_add(1), Ordering::SeqCst, Ordering::SeqCst)
                    .is_err()
                {
                    continue;
                }
                self.raise_at
                    .store(c.wrapping_add(self.high * ONE), Ordering::Relaxed);
                #[cfg(feature = "async")]
                self.drain.notify_all();
            }
        }
    }
}

/// Where a schedule test may suspend a `settle` between its reading of the
/// count and its CAS (nothing outside the unit tests).
#[inline(always)]
fn pause_at_reading() {
    crate::sync::pause_point(crate::sync::pause::BURST_MARKS_READ);
}

impl fmt::Debug for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MarkWords")
            .field("low", &self.low)
            .field("high", &self.high)
            .field("level", &self.level())
            .field("transitions", &self.flips.load(Ordering::Relaxed))
            .finish_non_exhaustive()
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
            Self::starting_at(0, MarkWords(Padded::new(Words::new(0, low, high, N))))
        }
    }

    /// [`with_watermarks`](Self::with_watermarks), with the counters at
    /// position `start` (rounded down to a whole lap), as
    /// [`BurstRing::with_start`]. For tests of the counters' wrap only.
    #[doc(hidden)]
    pub fn with_start_and_watermarks(start: usize, low: usize, high: usize) -> Self {
        let word = ((start >> Self::LOG) << Self::LOG).wrapping_mul(ONE);
        let ring = Self::starting_at(
            start,
            MarkWords(Padded::new(Words::new(word, low, high, N))),
        );
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
        (self.marks.low, self.marks.high)
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
        #[cfg(feature = "std")]
        {
            crate::wait::park::wait(self.wait_below_low())
        }
        #[cfg(not(feature = "std"))]
        crate::spin::until((), |()| self.drained().ok_or(()))
    }

    /// `Some(Ok(()))` when `Normal`, `Some(Err)` when closed, `None` to
    /// wait.
    fn drained(&self) -> Option<Result<(), Closed<()>>> {
        if self.prod.load(Ordering::SeqCst) & CLOSED != 0 {
            Some(Err(Closed(())))
        } else if self.marks.level() == Level::Normal {
            Some(Ok(()))
        } else {
            None
        }
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
        BelowLow {
            ring: self,
            node: Node::new(),
        }
    }
}

/// The future of [`BurstRing::wait_below_low`] (feature `async`). While it
/// waits, its node is linked into the ring's list of drain waiters, so it
/// is `!Unpin`; dropped, it leaves the list.
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
#[must_use = "futures do nothing unless polled"]
pub struct BelowLow<'r, T: Copy, const N: usize, const W: usize> {
    ring: &'r BurstRing<T, N, W, Marked>,
    node: Node,
}

#[cfg(feature = "async")]
impl<T: Copy, const N: usize, const W: usize> BelowLow<'_, T, N, W> {
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Result<(), Closed<()>>> {
        let this = self.into_ref().get_ref();
        this.ring
            .marks
            .drain
            .poll(&this.node, wake, || this.ring.drained())
    }
}

#[cfg(feature = "async")]
impl<T: Copy, const N: usize, const W: usize> Future for BelowLow<'_, T, N, W> {
    type Output = Result<(), Closed<()>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.poll_as(Wake::Task(cx.waker()))
    }
}

#[cfg(feature = "async")]
impl<T: Copy, const N: usize, const W: usize> Drop for BelowLow<'_, T, N, W> {
    fn drop(&mut self) {
        self.ring.marks.drain.leave(&self.node);
    }
}

#[cfg(feature = "async")]
impl<T: Copy, const N: usize, const W: usize> fmt::Debug for BelowLow<'_, T, N, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BelowLow").finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl<T: Copy, const N: usize, const W: usize> crate::wait::park::Parkable
    for BelowLow<'_, T, N, W>
{
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Self::Output> {
        BelowLow::poll_as(self, wake)
    }
}
