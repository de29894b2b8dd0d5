//! The MPMC ring for single-core microcontrollers: every operation is one
//! critical section.
//!
//! [`Ring<T, N>`] has the API of [`mpmc::Ring`](super::Ring) (through
//! `&self`, in a `static`, reject or overwrite the oldest, the same
//! [`RingStats`] counters) and replaces its lock-free algorithm with the
//! simplest one there is: a head index and a length, read and changed inside
//! one [`critical_section::with`] per call. It needs no atomics at all, so it
//! works on thumbv6m (Cortex-M0/M0+) with no compare-and-swap and without the
//! `portable-atomic` feature. On a Cortex-M0 a push or pop takes 18-19
//! instructions, against 37-50 for heapless's queue, 114-133 for
//! `mpmc::Ring` and 75-91 for `mpmc::SmallRing` (`BENCHMARKS.md`).
//! Switching is one import:
//!
//! ```
//! use sluicegate::mpmc::cs::Ring; // instead of sluicegate::mpmc::Ring
//! use sluicegate::{Overwritten, RingStats};
//!
//! static EVENTS: Ring<u32, 4> = Ring::new();
//!
//! for i in 0..4 {
//!     EVENTS.try_push(i).unwrap(); // from an interrupt handler or main
//! }
//! assert_eq!(EVENTS.try_push(9).unwrap_err().into_inner(), 9); // full: rejected
//! assert_eq!(EVENTS.push_overwrite(4), Overwritten::Evicted(0)); // full: the oldest goes
//! assert_eq!(EVENTS.try_pop(), Some(1));
//! assert_eq!(EVENTS.stats(), RingStats { rejected: 1, overwritten: 1, busy: 0, expired: 0, transitions: 0, peak: 4 });
//! ```
//!
//! The binary chooses the critical-section implementation, never this crate:
//! on a single-core Cortex-M, `cortex-m = { version = "0.7.7", features =
//! ["critical-section-single-core"] }`; on a host, `critical-section = {
//! version = "1.2", features = ["std"] }`.
//!
//! # Progress: what the guarantee is depends on the critical section
//!
//! Memory safety never depends on which implementation the binary links:
//! `critical-section`'s contract is mutual exclusion between every context of
//! the program, and that is all this ring relies on. The *progress* guarantee
//! is that of the implementation:
//!
//! | critical-section implementation | what a context suspended elsewhere costs the others | guarantee |
//! |---|---|---|
//! | single core, interrupts masked (cortex-m `critical-section-single-core`, portable-atomic's single-core mode, most RTOS ports on one core) | nothing: no context can be suspended *inside* an operation, since whatever would preempt it runs before or after it | **no context ever waits**; every call completes in a bounded number of its own steps (wait-free), and it is never refused because of another context's operation in progress |
//! | multi-core, hardware spinlock + interrupt mask on the calling core (e.g. RP2040) | a context on another core that is inside an operation cannot be preempted there, so the wait is bounded by one operation; a core halted (debugger, fault) inside it stops the others | **bounded wait, not lock-free** |
//! | host, `std` (a global `std::sync::Mutex`) | a thread descheduled inside an operation blocks every other caller until it runs again | **blocking** (a mutex); use [`mpmc::Ring`](super::Ring) on hosts |
//!
//! On a single core this is a stronger property than [`mpmc::Ring`](super::Ring)'s,
//! where a suspended context holds at most its one slot: here nothing is
//! ever held, so `try_push` says [`TryPushError::Full`] only when `N` items are in the ring
//! and `push_overwrite` never returns [`Overwritten::Rejected`]. The price is
//! interrupt latency: interrupts are masked for one operation, which moves one
//! `T` (two for an eviction), plus a few instructions of index arithmetic. No
//! user code runs inside the critical section: an evicted item is handed back
//! and dropped by the caller outside it.
//!
//! **Not for NMI or HardFault handlers** (nor anything else that masking
//! interrupts does not hold off): they can preempt a critical section, and a
//! call from them while main or an interrupt is inside one would break the
//! mutual exclusion the implementation promises. This is true of every
//! `critical-section` user.
//!
//! # Algorithm and invariants
//!
//! `head` is the slot of the oldest item (`0..N`), `len` the number of items
//! (`0..=N`, plus a top bit once closed, see [`Ring::close`]); items are in
//! slots `(head + k) % N` for `k` below that number, and those slots, and
//! only those, are initialised. A push writes slot
//! `(head + len) % N` and increments `len`; a pop moves slot `head` out and
//! advances `head`; a `push_overwrite` on a full ring (where that slot *is*
//! `head`) moves the oldest item out, writes the new one in its place and
//! advances `head`. `N` is a power of two so `% N` is a mask (Cortex-M0 has no
//! divide instruction), checked at compile time:
//!
//! ```compile_fail,E0080
//! static BAD: sluicegate::mpmc::cs::Ring<u8, 3> = sluicegate::mpmc::cs::Ring::new();
//! let _ = BAD.try_pop();
//! ```
//!
//! Nothing wraps: both indices stay below `N`. The two counters wrap at
//! `2^usize::BITS`, like every counter of the crate.
//!
//! # Waiting
//!
//! With the `async` feature, `Ring::push` and `Ring::pop` are futures
//! that wait for room or for an item, with the names, results and limits of
//! [`mpmc::Ring`](super::Ring)'s (any number of sleeping waiters per
//! side, none polling; a push wakes one popper). Any push or pop on any context wakes them (an interrupt handler's
//! plain `try_push` included, and `push_overwrite`, the bursts, `drain` and
//! `clear`), and the close ends every wait. The waiters are kept in the
//! ring's state and checked inside the critical section each operation
//! takes anyway, so there is no fence: `src/mpmc/cs/wait.rs` has the
//! protocol and why it loses no wake-up. With `std`, `push_blocking` and
//! `pop_blocking` park the thread on those futures instead of spinning.
//!
//! # Watermarks
//!
//! A ring of marks policy [`Marked`], made with
//! [`Ring::with_watermarks(low, high)`](Ring::with_watermarks), also tells
//! producers whose sources can be slowed when to slow them: its [`Level`]
//! turns `High` when an operation leaves `high` items or more and back to
//! `Normal` only when one leaves `low` or fewer (hysteresis), counted in
//! [`RingStats::transitions`]. [`Ring::wait_below_low_blocking`] (or
//! `wait_below_low().await`) waits for the drain, woken only by the pop
//! that lowers the level. The level is decided inside the critical section
//! of the operation that moves the count, so it is exact and needs no
//! protocol of its own; `src/mpmc/cs/marks.rs` has the rest. The default
//! policy, [`NoMarks`], has none of it and pays nothing for it.
//!
//! ```
//! use sluicegate::mpmc::cs::{Level, Marked, Ring};
//!
//! static TX_QUEUE: Ring<u8, 64, Marked> = Ring::with_watermarks(16, 48);
//! // Several tasks and interrupts push; the radio driver pops.
//! TX_QUEUE.push_burst(&[0; 48]);
//! assert_eq!(TX_QUEUE.level(), Level::High); // producers: hold off
//! TX_QUEUE.pop_burst(&mut [0; 32]);
//! assert_eq!(TX_QUEUE.level(), Level::Normal); // 16 left: go on
//! ```
//!
//! # Memory
//!
//! `N` slots of `T` plus seven words (`head`, `len` with the closed flag in
//! its top bit, `peak`, `rejected`, `rejected_with_room`, `overwritten`,
//! `expired`), nothing padded: a `Ring<u32, 8>` takes 60 bytes on thumbv6m
//! and thumbv7em, 88 on x86-64
//! (`tests/ram.rs` pins these). A [`Marked`] ring adds five words (the two
//! marks, the two thresholds that decide when to look, the transitions):
//! 80 bytes on thumbv6m and thumbv7em, 128 on x86-64. The `async` feature
//! adds a waiter count and a list (head and tail) per side, six words, and
//! a `Marked` ring three more for its drain waiters.

mod lifecycle;
mod marks;
#[cfg(feature = "async")]
mod wait;
pub use crate::spsc::Level;
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use marks::BelowLow;
pub use marks::{Marked, Marks, NoMarks};
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use wait::{Pop, Push};

#[cfg(feature = "async")]
use crate::wait::Side;
use crate::{Closed, Overwritten, RingStats, TryPushError};
use core::cell::UnsafeCell;
use core::fmt;
use core::mem::MaybeUninit;
use critical_section::{CriticalSection, Mutex};

/// A bounded MPMC ring of `N` items of `T` whose every operation is one
/// critical section; see the [module documentation](self).
///
/// `N` must be a power of two (at least 1).
///
/// `M`, the marks policy, is [`NoMarks`] (the default) or [`Marked`]: a
/// `Marked` ring, made with [`Ring::with_watermarks`], has a high and a low
/// watermark and a [`Level`] (module docs, "Watermarks").
pub struct Ring<T, const N: usize, M: Marks = NoMarks> {
    /// Read and written only inside a critical section (through
    /// [`Ring::state`]), or through `&mut self`.
    state: Mutex<UnsafeCell<State<T, N, M>>>,
}

// `Ring` is `Sync` for `T: Send` and `Send` for `T: Send` without an
// `unsafe impl`: `critical_section::Mutex<X>` is `Sync` for `X: Send`, and
// `UnsafeCell<State<T, N>>` is `Send` exactly when `T` is.

// Field order, for instruction count only. Without compare-and-swap
// (Cortex-M0/M0+), `repr(C)` puts the four words first, at the small
// immediate offsets Thumb-1 loads can reach from the ring's address. Elsewhere
// (Armv7-M) the compiler's order, slots first, lets a slot be reached in one
// register-offset access while the words stay within a 12-bit offset.
#[cfg_attr(not(target_has_atomic = "ptr"), repr(C))]
struct State<T, const N: usize, M: Marks> {
    /// Slot of the oldest item, in `0..N`.
    head: usize,
    /// The number of items (`0..=N`), plus [`CLOSED`] once the ring is
    /// closed. A push refuses when `len >= N`, which is both the full test
    /// of an open ring and the closed test, in one compare of a word it
    /// loads anyway.
    len: usize,
    /// The largest `len` a sampling pop found (with [`CLOSED`] set by the
    /// close too, so that the comparison stays one of counts).
    peak: usize,
    rejected: usize,
    /// Of `rejected`, the items refused with room in the ring (a close
    /// racing `push_iter`): they do not make `peak` read `N`.
    rejected_with_room: usize,
    overwritten: usize,
    /// Items the `*_fresh` pops discarded (see [`crate::expire`]).
    expired: usize,
    /// The watermarks and the level ([`Marked`]; nothing for [`NoMarks`]).
    marks: M::Words,
    /// Per side (`Side as usize`: tasks waiting for an item, for room): the
    /// number of waiters linked in `lists` (`src/mpmc/cs/wait.rs`). Before
    /// the slots, where Thumb-1 loads reach it from the ring's address:
    /// every push and pop tests it.
    #[cfg(feature = "async")]
    waiting: wait::Counts,
    /// Slot `(head + k) % N` is initialised exactly for `k` in
    /// `0..len & !CLOSED`.
    slots: [MaybeUninit<T>; N],
    /// The waiting nodes, touched only when a task waits.
    #[cfg(feature = "async")]
    lists: wait::Lists,
}

/// The bit of `State::len` (and `State::peak`) that says the ring is closed: the top bit, so
/// that a closed ring's `len` is at least `N` whatever it holds, and the
/// count below it still moves by plain increments and decrements.
const CLOSED: usize = !(usize::MAX >> 1);

impl<T, const N: usize, M: Marks> State<T, N, M> {
    /// A pop of a slot at a multiple of this samples the count for
    /// `RingStats::peak`: `N / 16`, or every pop for `N < 16`.
    const PEAK_EVERY: usize = if N >= 16 { N / 16 } else { 1 };

    /// The slot `k` places after `head`. The mask also tells the compiler
    /// the index is below `N`, so slot accesses carry no bounds check.
    #[inline(always)]
    fn at(&self, k: usize) -> usize {
        (self.head + k) & (N - 1)
    }

    /// The number of items.
    #[inline(always)]
    fn count(&self) -> usize {
        self.len & !CLOSED
    }

    #[inline(always)]
    fn is_closed(&self) -> bool {
        self.len & CLOSED != 0
    }

    /// Sets the closed flag; returns whether it was open.
    #[inline(always)]
    fn close(&mut self) -> bool {
        let was_open = !self.is_closed();
        self.len |= CLOSED;
        self.peak |= CLOSED;
        M::closed(&mut self.marks);
        was_open
    }

    #[inline(always)]
    fn debug_check(&self) {
        debug_assert!(self.head < N && self.count() <= N);
    }

    #[inline(always)]
    fn push(&mut self, item: T) -> Result<(), TryPushError<T>> {
        self.debug_check();
        if self.len >= N {
            return Err(self.refuse(item));
        }
        let i = self.at(self.len);
        self.slots[i].write(item);
        self.len += 1;
        M::pushed(&mut self.marks, self.len);
        Ok(())
    }

    /// The push of a waiting call: `Ok(Ok(()))` pushed, `Ok(Err)` closed,
    /// `Err` full (not counted: a wait is not a rejection).
    #[inline(always)]
    fn push_unless_full(&mut self, item: T) -> Result<Result<(), Closed<T>>, T> {
        if self.len == N {
            Err(item)
        } else {
            Ok(self.push(item).map_err(|e| Closed(e.into_inner())))
        }
    }

    /// The refused push: full (counted) or closed (uncounted). Past the
    /// `len >= N` test, the ring is full exactly when `len == N` (a closed
    /// one has the top bit set), so the compiler can reuse that compare's
    /// flags.
    #[cold]
    #[inline(always)]
    fn refuse(&mut self, item: T) -> TryPushError<T> {
        if self.len == N {
            self.rejected = self.rejected.wrapping_add(1);
            TryPushError::Full(item)
        } else {
            TryPushError::Closed(item)
        }
    }

    #[inline(always)]
    fn push_overwrite(&mut self, item: T) -> Overwritten<T> {
        self.debug_check();
        if self.len > N {
            return Self::closed_overwrite(item);
        }
        if self.len < N {
            let i = self.at(self.len);
            self.slots[i].write(item);
            self.len += 1;
            M::pushed(&mut self.marks, self.len);
            return Overwritten::Stored;
        }
        // Full: the free end is the head. Move the oldest out, the new one
        // in.
        let h = self.at(0);
        // SAFETY: `len == N`, so slot `head` (k = 0) is initialised; the
        // write below re-initialises it before anyone can look.
        let old = unsafe { self.slots[h].assume_init_read() };
        self.slots[h].write(item);
        self.head = self.at(1);
        self.overwritten = self.overwritten.wrapping_add(1);
        Overwritten::Evicted(old)
    }

    /// `push_overwrite` on a closed ring: nothing is evicted from it.
    #[cold]
    #[inline(always)]
    fn closed_overwrite(item: T) -> Overwritten<T> {
        Overwritten::Rejected(item)
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<T> {
        self.debug_check();
        let len = self.len;
        if len & !CLOSED == 0 {
            return None;
        }
        // A sample of the count (see `Ring::stats`).
        if self.head % Self::PEAK_EVERY == 0 && len > self.peak {
            self.peak = len;
        }
        // SAFETY: the count is at least 1.
        Some(unsafe { self.take() })
    }

    /// Moves the oldest item out.
    ///
    /// # Safety
    /// The count is at least 1.
    #[inline(always)]
    unsafe fn take(&mut self) -> T {
        let h = self.head;
        self.head = self.at(1);
        // The count is at least 1, so `CLOSED` is untouched.
        self.len -= 1;
        // The level (`marks.rs`; nothing without marks). With `async` the
        // pop's `with_notify` moves it instead, and reports the wake.
        #[cfg(not(feature = "async"))]
        M::popped(&mut self.marks, self.len);
        // For instruction count only: on Armv7-M the bounds check's cold
        // path is where the compiler puts the stack frame, which the other
        // paths then go without (two instructions fewer than no check);
        // Thumb-1 has no such frame to save and takes the check's two.
        #[cfg(target_has_atomic = "ptr")]
        let slot = &self.slots[h];
        // SAFETY: `h < N`, the invariant on `head`.
        #[cfg(not(target_has_atomic = "ptr"))]
        let slot = unsafe { self.slots.get_unchecked(h) };
        // SAFETY: the count was at least 1, so slot `h` (k = 0) was
        // initialised; `head` and `len` already exclude it, so it is read
        // exactly once.
        unsafe { slot.assume_init_read() }
    }

    fn stats(&mut self) -> RingStats {
        // The count now is a count the ring had: kept as the mark, so the
        // mark never goes down once a read counted it.
        if self.count() > self.peak & !CLOSED {
            self.peak = self.count() | (self.peak & CLOSED);
        }
        RingStats {
            rejected: self.rejected,
            overwritten: self.overwritten,
            busy: 0,
            expired: self.expired,
            transitions: M::transitions(&self.marks),
            peak: if self.rejected != self.rejected_with_room || self.overwritten != 0 {
                N // a push refused as full or an eviction found `N` items
            } else {
                self.peak & !CLOSED
            },
        }
    }
}

impl<T, const N: usize> Ring<T, N> {
    /// An empty ring. `N` must be a power of two (checked at compile time).
    ///
    /// ```
    /// static QUEUE: sluicegate::mpmc::cs::Ring<u32, 64> = sluicegate::mpmc::cs::Ring::new();
    /// assert!(QUEUE.is_empty());
    /// ```
    pub const fn new() -> Self {
        Self::with_marks(())
    }
}

impl<T, const N: usize, M: Marks> Ring<T, N, M> {
    /// An empty ring whose marks policy keeps `marks`.
    const fn with_marks(marks: M::Words) -> Self {
        const {
            assert!(
                N.is_power_of_two(),
                "sluicegate: mpmc::cs ring capacity N must be a power of two"
            );
        };
        Self {
            state: Mutex::new(UnsafeCell::new(State {
                head: 0,
                len: 0,
                rejected: 0,
                rejected_with_room: 0,
                overwritten: 0,
                expired: 0,
                peak: 0,
                marks,
                #[cfg(feature = "async")]
                waiting: wait::counts(),
                slots: [const { MaybeUninit::uninit() }; N],
                #[cfg(feature = "async")]
                lists: wait::Lists::new(),
            })),
        }
    }

    /// Starts the counters at `rejected` and `overwritten`. For tests of
    /// counter wrap-around only.
    #[doc(hidden)]
    pub fn preset_counters(&mut self, rejected: usize, overwritten: usize) {
        let s = self.state.get_mut().get_mut();
        s.rejected = rejected;
        s.overwritten = overwritten;
    }

    /// Counts `k` items a `*_fresh` pop discarded.
    #[cold]
    pub(super) fn note_expired(&self, k: usize) {
        self.with(|s| s.expired = s.expired.wrapping_add(k));
    }

    /// Runs `f` on the state inside one critical section.
    #[inline(always)]
    fn with<R>(&self, f: impl FnOnce(&mut State<T, N, M>) -> R) -> R {
        critical_section::with(|cs| f(self.state(cs)))
    }

    /// `with` for an operation that may store an item: with `async`, if
    /// `pushed` says it did, the same critical section checks for tasks
    /// waiting in `pop`, which are woken after it. Without `async`, `with`.
    #[inline(always)]
    fn with_push<R>(
        &self,
        f: impl FnOnce(&mut State<T, N, M>) -> R,
        pushed: impl FnOnce(&R) -> bool,
    ) -> R {
        #[cfg(feature = "async")]
        {
            self.with_notify(Side::Item, f, pushed)
        }
        #[cfg(not(feature = "async"))]
        {
            let _ = pushed;
            self.with(f)
        }
    }

    /// `with` for an operation that may take an item, as
    /// [`with_push`](Self::with_push) for the tasks waiting in `push`.
    #[inline(always)]
    fn with_pop<R>(
        &self,
        f: impl FnOnce(&mut State<T, N, M>) -> R,
        popped: impl FnOnce(&R) -> bool,
    ) -> R {
        #[cfg(feature = "async")]
        {
            self.with_notify(Side::Room, f, popped)
        }
        #[cfg(not(feature = "async"))]
        {
            // Without `async` the level is moved in `take` (no wake to
            // report out of the section).
            let _ = popped;
            self.with(f)
        }
    }

    /// The state, borrowed for the critical section `cs`.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)] // unique by mutual exclusion, see SAFETY
    fn state<'cs>(&'cs self, cs: CriticalSection<'cs>) -> &'cs mut State<T, N, M> {
        // SAFETY: `cs` proves that no other context of the program is inside
        // a critical section, so no other context holds this borrow. Within
        // this context the borrow is unique too: it is taken only by
        // [`Ring::with`], whose closures are this module's `State` methods,
        // which run no user code (moving a `T` runs none) and never re-enter
        // the ring, so no second `&mut` to the state exists while this one
        // lives.
        unsafe { &mut *self.state.borrow(cs).get() }
    }

    /// Pushes `item`, or hands it back: in [`TryPushError::Full`] if the
    /// ring holds `N` items (counted in [`RingStats::rejected`]), in
    /// [`TryPushError::Closed`] once it is closed. One critical section.
    ///
    /// ```
    /// use sluicegate::TryPushError;
    ///
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 1> = sluicegate::mpmc::cs::Ring::new();
    /// assert_eq!(ring.try_push(1), Ok(()));
    /// assert_eq!(ring.try_push(2), Err(TryPushError::Full(2)));
    /// ```
    #[inline]
    pub fn try_push(&self, item: T) -> Result<(), TryPushError<T>> {
        self.with_push(|s| s.push(item), Result::is_ok)
    }

    /// Pushes `item`; if the ring is full, evicts the oldest item to make
    /// room and hands it back in [`Overwritten::Evicted`] (counted in
    /// [`RingStats::overwritten`]); [`Overwritten::Stored`] if there was
    /// room. Returns [`Overwritten::Rejected`] (uncounted) only once the
    /// ring is closed: no slot is ever held by an operation in progress.
    /// One critical section; the evicted item is dropped by the caller,
    /// after it.
    ///
    /// ```
    /// use sluicegate::Overwritten;
    ///
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 2> = sluicegate::mpmc::cs::Ring::new();
    /// assert_eq!(ring.push_overwrite(1), Overwritten::Stored);
    /// assert_eq!(ring.push_overwrite(2), Overwritten::Stored);
    /// assert_eq!(ring.push_overwrite(3), Overwritten::Evicted(1));
    /// assert_eq!(ring.try_pop(), Some(2));
    /// ```
    #[inline]
    pub fn push_overwrite(&self, item: T) -> Overwritten<T> {
        self.with_push(
            |s| s.push_overwrite(item),
            |r| !matches!(r, Overwritten::Rejected(_)),
        )
    }

    /// Pops the oldest item, or `None` if the ring is empty. One critical
    /// section.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 2> = sluicegate::mpmc::cs::Ring::new();
    /// assert_eq!(ring.try_pop(), None);
    /// ring.try_push(4).unwrap();
    /// assert_eq!(ring.try_pop(), Some(4));
    /// ```
    #[inline]
    pub fn try_pop(&self) -> Option<T> {
        self.with_pop(|s| s.pop(), Option::is_some)
    }

    /// Number of items, exact at the instant of the call (one critical
    /// section).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 4> = sluicegate::mpmc::cs::Ring::new();
    /// ring.try_push(1).unwrap();
    /// assert_eq!(ring.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.with(|s| s.count())
    }

    crate::observe::derived_observers! {
        obj: "ring",
        make: "let ring: sluicegate::mpmc::cs::Ring<u8, 4> = sluicegate::mpmc::cs::Ring::new();",
        push: "ring.try_push(1).unwrap();",
        caveat: ": exact, as [`len`](Self::len) is.",
    }

    /// The counters of rejected and evicted items (they wrap on overflow)
    /// and the high-water mark, read together in one critical section.
    ///
    /// `peak` is the most items a sampling pop or an earlier `stats` found,
    /// or the count now if that is more, which this read then keeps (so
    /// `peak` never goes down), or `N` once a push was refused or an item evicted
    /// (both happen only with `N` items inside). The pops of the slots at
    /// multiples of `N / 16` (every pop for `N < 16`) sample the count
    /// before they take their item; the count falls only in pops, and
    /// fewer than `N / 16` of them come between two samples, so `peak` is
    /// never more than the true high-water mark and less than `N / 16`
    /// below it (exact for `N < 16`). Nothing is added to the push path; a
    /// pop pays a test of its slot number, and the sampling ones a compare.
    ///
    /// ```
    /// use sluicegate::RingStats;
    ///
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 2> = sluicegate::mpmc::cs::Ring::new();
    /// ring.try_push(1).unwrap();
    /// let _ = ring.try_push(2);
    /// let _ = ring.try_push(3); // rejected
    /// let _ = ring.push_overwrite(4); // evicts 1
    /// ring.clear();
    /// assert_eq!(ring.stats(), RingStats { rejected: 1, overwritten: 1, busy: 0, expired: 0, transitions: 0, peak: 2 });
    /// ```
    pub fn stats(&self) -> RingStats {
        self.with(|s| s.stats())
    }
}

/// Bursts, with the names and results of [`super::Ring`]'s. Each item is
/// its own critical section, so interrupts stay masked for one item's move
/// at a time, as in every other operation of this ring.
impl<T: Copy, const N: usize, M: Marks> Ring<T, N, M> {
    /// Burst push: pushes as many of `items` as fit (from the front) and
    /// returns how many. The rest count as rejected; on a closed ring
    /// nothing goes in and nothing is counted.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u16, 4> = sluicegate::mpmc::cs::Ring::new();
    /// assert_eq!(ring.push_burst(&[1, 2, 3]), 3);
    /// assert_eq!(ring.push_burst(&[4, 5, 6]), 1); // one slot was left
    /// assert_eq!(ring.stats().rejected, 2);
    /// ```
    pub fn push_burst(&self, items: &[T]) -> usize {
        for (k, &item) in items.iter().enumerate() {
            match self.try_push(item) {
                Ok(()) => {}
                Err(TryPushError::Full(_)) => {
                    // `try_push` counted this one; the rest were not tried.
                    let rest = items.len() - k - 1;
                    if rest > 0 {
                        self.with(|s| s.rejected = s.rejected.wrapping_add(rest));
                    }
                    return k;
                }
                Err(TryPushError::Closed(_)) => return k,
            }
        }
        items.len()
    }

    /// Burst pop: pops as many items as are there (up to `out.len()`),
    /// oldest first, and returns how many.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u8, 8> = sluicegate::mpmc::cs::Ring::new();
    /// ring.push_burst(&[1, 2, 3]);
    /// let mut out = [0; 8];
    /// assert_eq!(ring.pop_burst(&mut out), 3);
    /// assert_eq!(out[..3], [1, 2, 3]);
    /// ```
    pub fn pop_burst(&self, out: &mut [T]) -> usize {
        for (k, o) in out.iter_mut().enumerate() {
            match self.try_pop() {
                Some(v) => *o = v,
                None => return k,
            }
        }
        out.len()
    }
}

impl<T, const N: usize> Default for Ring<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize, M: Marks> fmt::Debug for Ring<T, N, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (len, closed, stats, level) =
            self.with(|s| (s.count(), s.is_closed(), s.stats(), M::level(&s.marks)));
        let mut d = f.debug_struct("Ring");
        d.field("capacity", &N)
            .field("len", &len)
            .field("closed", &closed);
        // A `Marked` ring's level; a `NoMarks` ring has none.
        if let Some(level) = level {
            d.field("level", &level);
        }
        d.field("stats", &stats).finish()
    }
}

/// The same summary as `Debug`, read in one critical section.
#[cfg(feature = "defmt")]
impl<T, const N: usize, M: Marks> defmt::Format for Ring<T, N, M> {
    fn format(&self, f: defmt::Formatter<'_>) {
        let (len, closed, stats) = self.with(|s| (s.count(), s.is_closed(), s.stats()));
        defmt::write!(
            f,
            "Ring {{ capacity: {=usize}, len: {=usize}, closed: {=bool}, stats: {} }}",
            N,
            len,
            closed,
            stats
        )
    }
}
