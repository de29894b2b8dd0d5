//! The pressure signal of the lock-free MPMC rings (`BurstRing` and
//! `Ring`): a high and a low watermark, the [`Level`] they define with
//! hysteresis, and the waits for the ring to drain to the low one. Each
//! ring gives the protocol below its two counters ([`Counts`]) and calls
//! its tests after its claims; its own module has the constructor, the
//! observers and the waits' faces.
//!
//! # Model
//!
//! A ring of marks policy [`Marked`], made with its `with_watermarks(low,
//! high)`, turns [`Level::High`] when a push's claim leaves `high`
//! positions or more claimed by pushes and not by pops (the count its
//! `len` reads), and [`Level::Normal`] again when a pop's claim leaves
//! `low` or fewer. Between the marks the level stays what it was
//! (XON/XOFF). Every transition is counted
//! ([`RingStats::transitions`](crate::RingStats::transitions)). A ring of
//! the default policy, [`NoMarks`], has none of the words or code below.
//!
//! # Protocol
//!
//! The ring's two counters (`prod` and `cons` below: the burst ring's
//! claim counters, `Ring`'s index ring's tail and head), read through
//! [`Counts`], and two words of the marks, on their own cache line on
//! hosts:
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
//! tests bit 0 of `flips`: `Normal`, nothing is to lower;
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
//! CASes of `flips` are `SeqCst` read-modify-writes, and the loads that
//! follow them (a pop's test of `flips`, each pass of `settle`) are
//! `SeqCst`: a context that writes one word and then reads the other's is
//! Dekker's pattern, and the single total order of `SeqCst` operations
//! puts the writes and the reads in one order. loom models `SeqCst`
//! accesses as acquire and release only, so its models check the same
//! pattern with a `SeqCst` fence before each of those loads: `settle` has
//! the fence in every build (it is out of line), a pop's test only under
//! loom (on x86-64 the fence is a locked instruction, and the `SeqCst`
//! load a plain one).
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
//! compare and a branch; on a pop, one load, a test and a branch (and
//! while `High`, two loads of the counters); `settle` runs out of line
//! when a test does not pass: once per `high - len` positions
//! pushed while `Normal` (to move `raise_at` on), and on every push past
//! `raise_at` while `High` (a producer that does not slow down pays it).
//! `BENCHMARKS.md` has the counts. The burst ring's and the
//! critical-section ring's evictions leave the count at `N` and run no
//! test. `Ring`'s takes the oldest out of `aq` before it puts the new item
//! in, so a pop between the two may find the count at `low` and lower the
//! level: its put runs the push's test.
//! Some paths test after their commit (the burst ring's `try_push` and
//! `try_pop`, every path of `Ring`), the others right after their claim:
//! either is after the claim, which is all the argument needs.
//!
//! # Waiting for the drain
//!
//! A ring's `wait_below_low` (feature `async`, the future [`BelowLow`])
//! and `wait_below_low_blocking` wait until the level is
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

pub use crate::spsc::Level;
use crate::sync::{fence, AtomicUsize, LoadStoreUsize, Ordering, Padded};
#[cfg(feature = "async")]
use crate::wait::{
    list::{Node, Wake},
    queue::WaitList,
};
use crate::Closed;

/// The marks policy of a lock-free MPMC ring ([`BurstRing`](super::BurstRing),
/// [`Ring`](super::Ring)): [`NoMarks`] (the default) or [`Marked`]. Sealed.
pub trait Marks: sealed::Sealed {}

/// Marks policy: no watermarks (the default). The ring has no level and
/// pays nothing for the possibility.
#[derive(Debug)]
pub enum NoMarks {}

/// Marks policy: a high and a low watermark and the [`Level`] they define
/// (made with the ring's `with_watermarks`).
#[derive(Debug)]
pub enum Marked {}

impl Marks for NoMarks {}
impl Marks for Marked {}

/// A ring's two counters, as the protocol reads them (module docs). Once
/// no operation is in progress both readings must give the same count:
/// a `settle` that read more in its raising row than in its lowering row
/// would raise and lower for ever.
pub(crate) trait Counts {
    /// Loads `prod`, then `cons`: the count (at most the count of the
    /// moment `prod` was loaded; 0 if pops passed that `prod`) and `cons`.
    fn count_up(&self) -> (usize, usize);
    /// Loads `cons`, then `prod`: the count (at least the count of the
    /// moment `cons` was loaded) and `cons`.
    fn count_down(&self) -> (usize, usize);
    /// The counter word `n` positions after counter word `c`.
    fn ahead(&self, c: usize, n: usize) -> usize;
}

// Public only in name (its module is private): users cannot name the
// trait or call its functions.
#[allow(private_interfaces, private_bounds)]
pub(super) mod sealed {
    use super::Counts;

    pub trait Sealed {
        /// What the policy keeps in the ring.
        type Words: Send + Sync;

        /// Whether the policy has marks (a test that costs a load only
        /// where it does).
        const MARKED: bool;

        /// After a push claimed up to counter word `to`: whether to
        /// [`settle`](Self::settle).
        fn push_test(words: &Self::Words, to: usize) -> bool;

        /// After a pop claimed: whether to [`settle`](Self::settle).
        fn pop_test<C: Counts>(words: &Self::Words, counts: &C) -> bool;

        /// Brings the level in line with the count (the module docs'
        /// protocol).
        fn settle<C: Counts>(words: &Self::Words, counts: &C);

        /// After a push claimed up to counter word `to`: the test, and
        /// `settle` if it says so.
        #[inline(always)]
        fn pushed<C: Counts>(words: &Self::Words, to: usize, counts: &C) {
            if Self::push_test(words, to) {
                Self::settle(words, counts);
            }
        }

        /// After a pop claimed: the test, and `settle` if it says so.
        #[inline(always)]
        fn popped<C: Counts>(words: &Self::Words, counts: &C) {
            if Self::pop_test(words, counts) {
                Self::settle(words, counts);
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

#[allow(private_interfaces, private_bounds)] // sealed (above)
impl sealed::Sealed for NoMarks {
    type Words = ();
    const MARKED: bool = false;

    #[inline(always)]
    fn push_test((): &(), _: usize) -> bool {
        false
    }

    #[inline(always)]
    fn pop_test<C: Counts>((): &(), _: &C) -> bool {
        false
    }

    #[inline(always)]
    fn settle<C: Counts>((): &(), _: &C) {}

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

#[allow(private_interfaces, private_bounds)] // sealed (above)
impl sealed::Sealed for Marked {
    type Words = MarkWords;
    const MARKED: bool = true;

    #[inline(always)]
    fn push_test(words: &MarkWords, to: usize) -> bool {
        // Relaxed: every value `raise_at` ever held keeps the invariant, so
        // any of them gives a sound answer (module docs).
        let at = words.raise_at.load(Ordering::Relaxed);
        to.wrapping_sub(at) as isize >= 0
    }

    #[inline(always)]
    fn pop_test<C: Counts>(words: &MarkWords, counts: &C) -> bool {
        // SeqCst: our claim of `cons` (every caller's claim is a SeqCst
        // read-modify-write), then this load of `flips`, against a raise's
        // CAS of `flips`, then its load of `cons` (Dekker's pattern: module
        // docs, "No level stays wrong"). Under loom, which models SeqCst
        // accesses as acquire and release only, a fence stands in for it.
        #[cfg(sluicegate_loom)]
        fence(Ordering::SeqCst);
        let flips = words.flips.load(Ordering::SeqCst);
        // While `High`: `settle`'s `High` row, without its CAS, inline
        // (every pop of a `High` ring comes here).
        flips & 1 != 0 && counts.count_down().0 <= words.low
    }

    fn settle<C: Counts>(words: &MarkWords, counts: &C) {
        words.settle(counts);
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

impl MarkWords {
    crate::sync::const_fn! {
        /// `Normal`, with marks `low < high <= n` (a panic otherwise,
        /// which is a compile-time error in a `const`) and `raise_at` the
        /// counter word `high` positions after the ring's first `cons`.
        pub(crate) fn new(raise_at: usize, low: usize, high: usize, n: usize) -> Self {
            assert!(
                low < high && high <= n,
                "sluicegate: watermarks need low < high <= N"
            );
            MarkWords(Padded::new(Words {
                flips: AtomicUsize::new(0),
                raise_at: LoadStoreUsize::new(raise_at),
                low,
                high,
                #[cfg(feature = "async")]
                drain: WaitList::new(),
            }))
        }
    }
}

/// What [`MarkWords`] holds.
pub struct Words {
    /// The level in bit 0 (`High` when set); the transitions so far.
    flips: AtomicUsize,
    /// A push whose claim ends here or later (wrapping) looks at the count.
    /// Only loaded and stored, so a native word on Cortex-M0 too: a push's
    /// test takes no critical section there.
    raise_at: LoadStoreUsize,
    low: usize,
    high: usize,
    /// The tasks and threads waiting for the drain.
    #[cfg(feature = "async")]
    drain: WaitList,
}

impl Words {
    /// The watermarks `(low, high)`.
    pub(crate) fn marks(&self) -> (usize, usize) {
        (self.low, self.high)
    }

    /// The level now: the last transition's.
    pub(crate) fn level(&self) -> Level {
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
    fn settle<C: Counts>(&self, counts: &C) {
        loop {
            // SeqCst: a claim (ours, or the one before a pop's fence),
            // then the load of `flips`, against a transition's CAS of
            // `flips`, then its loads of the counters (Dekker's pattern:
            // module docs, "No level stays wrong"); each pass follows our
            // own CAS or claim.
            fence(Ordering::SeqCst);
            // SeqCst, as the counters' loads: the order of those two loads
            // is what makes each reading an under- or an over-estimate.
            let f = self.flips.load(Ordering::SeqCst);
            let raising = f & 1 == 0;
            let (count, c) = if raising {
                counts.count_up()
            } else {
                counts.count_down()
            };
            pause_at_reading();
            if raising && count < self.high {
                // Relaxed: any value stored keeps the invariant (it is a
                // `cons` that was loaded, plus `high`).
                self.raise_at
                    .store(counts.ahead(c, self.high), Ordering::Relaxed);
                return;
            }
            if !raising && count > self.low {
                return;
            }
            // SeqCst: one order with the claims (the fence above).
            if self
                .flips
                .compare_exchange(f, f.wrapping_add(1), Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                continue;
            }
            if !raising {
                // Relaxed, as above.
                self.raise_at
                    .store(counts.ahead(c, self.high), Ordering::Relaxed);
                // If a drain waiter's waker panics, the loop's next
                // reading is still made, as the panic unwinds.
                #[cfg(feature = "async")]
                {
                    let again = crate::wait::OnDrop::new(|| self.settle(counts));
                    self.drain.notify_all();
                    again.defuse();
                }
            }
        }
    }
}

/// Where a schedule test may suspend a `settle` between its reading of the
/// count and its CAS (nothing outside the unit tests).
#[inline(always)]
fn pause_at_reading() {
    crate::sync::pause_point(crate::sync::pause::MPMC_MARKS_READ);
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

/// A ring with marks, as the drain wait sees it.
pub(crate) trait Drainable {
    /// Its marks.
    fn mark_words(&self) -> &MarkWords;
    /// Whether it is closed.
    fn is_closed_now(&self) -> bool;
}

/// The test of a drain waiter: `Some(Ok(()))` when `Normal`, `Some(Err)`
/// when closed, `None` to wait.
pub(crate) fn drained<R: Drainable + ?Sized>(ring: &R) -> Option<Result<(), Closed<()>>> {
    if ring.is_closed_now() {
        Some(Err(Closed(())))
    } else if ring.mark_words().level() == Level::Normal {
        Some(Ok(()))
    } else {
        None
    }
}

/// The blocking drain wait of a ring with marks (the rings'
/// `wait_below_low_blocking`).
pub(crate) fn wait_blocking<R: Drainable>(ring: &R) -> Result<(), Closed<()>> {
    #[cfg(feature = "std")]
    {
        crate::wait::park::wait(BelowLow::new(ring))
    }
    #[cfg(not(feature = "std"))]
    crate::spin::until((), |()| drained(ring).ok_or(()))
}

/// The future of a ring's `wait_below_low` (feature `async`). While it
/// waits, its node is linked into the ring's list of drain waiters, so it
/// is `!Unpin`; dropped, it leaves the list.
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
#[must_use = "futures do nothing unless polled"]
#[allow(private_bounds)]
pub struct BelowLow<'r, R: Drainable> {
    ring: &'r R,
    node: Node,
}

#[cfg(feature = "async")]
#[allow(private_bounds)]
impl<'r, R: Drainable> BelowLow<'r, R> {
    pub(crate) fn new(ring: &'r R) -> Self {
        BelowLow {
            ring,
            node: Node::new(),
        }
    }

    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Result<(), Closed<()>>> {
        let this = self.into_ref().get_ref();
        this.ring
            .mark_words()
            .drain
            .poll(&this.node, wake, || drained(this.ring))
    }
}

#[cfg(feature = "async")]
#[allow(private_bounds)]
impl<R: Drainable> Future for BelowLow<'_, R> {
    type Output = Result<(), Closed<()>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.poll_as(Wake::Task(cx.waker()))
    }
}

#[cfg(feature = "async")]
#[allow(private_bounds)]
impl<R: Drainable> Drop for BelowLow<'_, R> {
    fn drop(&mut self) {
        self.ring.mark_words().drain.leave(&self.node);
    }
}

#[cfg(feature = "async")]
#[allow(private_bounds)]
impl<R: Drainable> fmt::Debug for BelowLow<'_, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BelowLow").finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
#[allow(private_bounds)]
impl<R: Drainable> crate::wait::park::Parkable for BelowLow<'_, R> {
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Self::Output> {
        BelowLow::poll_as(self, wake)
    }
}
