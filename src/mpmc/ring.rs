//! `Ring` and `SmallRing`: the SCQ ring's type, its pushes and pops and
//! its observers (the algorithm is in the [module docs](super)).

use super::*;
use crate::sync::{
    const_fn, pause, pause_point, slots, AtomicUsize, Ordering, SharedCounter, Slot,
};
use crate::{Closed, Overwritten, RingStats, TryPushError};
use core::fmt;

/// A bounded MPMC ring of `N` items of `T`; see the [module documentation](super).
///
/// `N` must be a power of two in `1..=2^(usize::BITS - 6)`. `F` is where the
/// ring keeps its free slots: [`FreeIndices<N>`] (the default, any `N`),
/// [`FreeMask`] (one word, for `N <= usize::BITS`: `2N` words less RAM and
/// one read-modify-write less per push and per pop; [`SmallRing<T, N>`]
/// names it) or [`FreeBits<W>`] (`N` bits and a count, `W = N / 32`: for
/// less RAM at any `N`). See [`pool`].
#[cfg_attr(
    docsrs,
    doc(cfg(any(target_has_atomic = "ptr", feature = "portable-atomic")))
)]
pub struct Ring<T, const N: usize, F: FreePool<N> = FreeIndices<N>, M: Marks = NoMarks> {
    /// Indices of slots holding items, in push order.
    pub(super) aq: IndexRing<N, false>,
    /// The free slots.
    pub(super) fq: F,
    /// Slot `i` is initialised exactly while index `i` is in `aq` or
    /// held by a pop or eviction that took it from `aq` and has not
    /// read it yet, or held by a push after writing it. Only the holder
    /// of index `i` touches slot `i`.
    pub(super) slots: [Slot<T>; N],
    pub(super) rejected: SharedCounter,
    pub(super) overwritten: SharedCounter,
    /// Items the `*_fresh` pops discarded (see [`crate::expire`]).
    pub(super) expired: SharedCounter,
    /// [`CLOSED`] once [`Ring::close`] ran, [`DRAINED`] once a pop found
    /// it closed and drained, plus [`EVICTING`] times the number of
    /// evictions started and not given up (wrapping). An eviction is in
    /// progress from its announcement here until it adds 1 to
    /// `overwritten` after appending its index to `aq` again, so the
    /// evictions in progress number `(state >> 2) - overwritten` (modulo
    /// `2^(W-2)`); see [`Ring::close`].
    pub(super) state: AtomicUsize,
    /// The largest length a pop found (see [`Ring::stats`]).
    pub(super) peak: AtomicUsize,
    /// Slots kept out of both index rings by pushes the close refused
    /// (each took a free slot and a position in `aq`, which it leaves
    /// unused); [`Ring::len`] subtracts them. Only the close's path
    /// touches it.
    pub(super) retired: AtomicUsize,
    /// The watermarks' words (`src/mpmc/marks.rs`); none without
    /// watermarks.
    pub(super) marks: M::Words,
    /// The tasks waiting in `push`/`pop` (see `src/wait.rs`).
    #[cfg(feature = "async")]
    pub(super) waiters: crate::sync::Padded<wait::RingWaiters>,
    /// Of `rejected`, the items refused with room in the ring (a close
    /// racing `push_iter`): they do not make `peak` read `N`. Last, off the
    /// hot words' offsets.
    pub(super) rejected_with_room: SharedCounter,
}

/// The bit of `state` set by [`Ring::close`].
pub(super) const CLOSED: usize = 1;
/// The bit of `state` set by the first pop that found the ring closed and
/// drained: every later one answers so at once (see [`Ring::close`]).
pub(super) const DRAINED: usize = 2;
/// One eviction started, in `state`.
pub(super) const EVICTING: usize = 4;

// SAFETY: items move between contexts through the ring by value (so
// `T: Send`), and each slot is accessed only by the one context holding
// its index (see the `slots` invariant), with release/acquire on each
// hand-off of an index (the `SeqCst` read-modify-writes of `aq` and of the
// free pool `F`, whose arguments are in `pool.rs`). No `&self` method hands out a `&T`, so `T: Sync` is
// not needed. `Send` is automatic (`T: Send`).
unsafe impl<T: Send, const N: usize, F: FreePool<N>, M: Marks> Sync for Ring<T, N, F, M> {}

/// An MPMC ring whose free slots are one word ([`FreeMask`]), for
/// `N <= usize::BITS`; the same type, API and guarantees as [`Ring`].
///
/// ```
/// use sluicegate::mpmc::SmallRing;
///
/// static EVENTS: SmallRing<u32, 32> = SmallRing::new();
/// EVENTS.try_push(1).unwrap();
/// assert_eq!(EVENTS.try_pop(), Some(1));
/// ```
pub type SmallRing<T, const N: usize> = Ring<T, N, FreeMask>;

impl<T, const N: usize, F: FreePool<N>> Ring<T, N, F> {
    const_fn! {
        /// An empty ring. `N` must be a power of two in
        /// `1..=2^(usize::BITS - 6)`, and at most `usize::BITS` with
        /// [`FreeMask`] (checked at compile time).
        ///
        /// ```
        /// static QUEUE: sluicegate::mpmc::Ring<u32, 64> = sluicegate::mpmc::Ring::new();
        /// assert!(QUEUE.is_empty());
        /// ```
        pub fn new() -> Self {
            #[cfg(not(sluicegate_loom))]
            let fq = F::FULL;
            #[cfg(sluicegate_loom)]
            let fq = F::full(0);
            Self::build(0, fq, ())
        }
    }

    /// An empty ring whose internal position counters start at `start`
    /// (wrapping). For tests of index wrap-around only.
    #[doc(hidden)]
    pub fn with_start(start: usize) -> Self {
        Self::build(start, F::full(start), ())
    }
}

impl<T, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    const_fn! {
        /// An empty ring with `aq`'s positions from `start`, the free pool
        /// `fq` and the watermarks' words `marks`.
        pub(super) fn build(start: usize, fq: F, marks: M::Words) -> Self {
            const {
                assert!(
                    N.is_power_of_two() && N.trailing_zeros() <= usize::BITS - 6,
                    "sluicegate: mpmc ring capacity N must be a power of two in 1..=2^(usize::BITS - 6)"
                );
            };
            Self {
                aq: IndexRing::new(start, false),
                fq,
                slots: slots::<T, N>(),
                rejected: SharedCounter::new(),
                overwritten: SharedCounter::new(),
                expired: SharedCounter::new(),
                state: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
                retired: AtomicUsize::new(0),
                marks,
                #[cfg(feature = "async")]
                waiters: crate::sync::Padded::new(crate::wait::queue::sides()),
                rejected_with_room: SharedCounter::new(),
            }
        }
    }

    /// Pushes `item`, or hands it back: in [`TryPushError::Full`] if no slot
    /// is free (counted in [`RingStats::rejected`]), in
    /// [`TryPushError::Closed`] once the ring is closed. Lock-free.
    ///
    /// ```
    /// use sluicegate::TryPushError;
    ///
    /// let ring: sluicegate::mpmc::Ring<u8, 1> = sluicegate::mpmc::Ring::new();
    /// assert_eq!(ring.try_push(1), Ok(()));
    /// assert_eq!(ring.try_push(2), Err(TryPushError::Full(2)));
    /// ```
    #[inline]
    pub fn try_push(&self, item: T) -> Result<(), TryPushError<T>> {
        match self.fq.take_for(self.pushers()) {
            Some(i) => {
                pause_point(pause::MPMC_PUSH_CLAIMED);
                // SAFETY: we took `i` from `fq`, so the slot is free and ours.
                unsafe { self.write(i, item) };
                pause_point(pause::MPMC_PUSH_WRITTEN);
                match self.publish(i) {
                    Ok(()) => Ok(()),
                    Err(Closed(item)) => Err(TryPushError::Closed(item)),
                }
            }
            // Relaxed: which answer a push racing a close gets is not
            // ordered with anything else; no slot was taken either way.
            None if self.state.load(Ordering::Relaxed) & CLOSED != 0 => {
                Err(TryPushError::Closed(item))
            }
            None => {
                self.rejected.add(1);
                Err(TryPushError::Full(item))
            }
        }
    }

    /// Starts the counters at `rejected` and `overwritten` (and the count
    /// of evictions started in `state` with the latter). For tests of
    /// counter wrap-around only.
    #[doc(hidden)]
    pub fn preset_counters(&mut self, rejected: usize, overwritten: usize) {
        self.rejected.add(rejected);
        self.overwritten.add(overwritten);
        self.state
            .fetch_add(overwritten.wrapping_mul(EVICTING), Ordering::Relaxed);
    }

    /// Appends index `i`, whose slot we hold and wrote, to `aq`, unless the
    /// ring is closed: then takes the item back and keeps the index out of
    /// both index rings for good, so that each slot leaves at most one
    /// unused position in `aq` after the close.
    #[inline(always)]
    pub(super) fn publish(&self, i: usize) -> Result<(), Closed<T>> {
        if self.aq.enqueue_unless_closed(i, Some(&self.state)) {
            self.wake_poppers();
            self.pushed_marks();
            Ok(())
        } else {
            self.retire(1);
            self.refused_marks();
            // SAFETY: we hold `i` and wrote its slot; nobody else can reach it.
            Err(Closed(unsafe { self.read(i) }))
        }
    }

    /// Pushes `item`; if the ring is full, evicts the oldest item to make
    /// room and hands it back in [`Overwritten::Evicted`]. Returns
    /// [`Overwritten::Stored`] if there was room.
    ///
    /// It keeps the newest while consumers read: a pop in progress holds
    /// only the slot of the item it took (a burst, those of its round), and
    /// the eviction takes the oldest item that no pop holds, so the new
    /// item is stored. It hands the new item back in
    /// [`Overwritten::Rejected`] only when every slot is held by operations
    /// in progress (pops, and pushes between taking a slot and publishing
    /// it) on both of its two attempts; on a closed ring too, but without
    /// counting it (nothing is evicted from a closed ring). With a consumer
    /// thread popping all the time, none of millions of overflows is
    /// rejected (`benches/examples/keep_newest.rs`). Lock-free.
    ///
    /// ```
    /// use sluicegate::Overwritten;
    ///
    /// let ring: sluicegate::mpmc::Ring<u8, 2> = sluicegate::mpmc::Ring::new();
    /// assert_eq!(ring.push_overwrite(1), Overwritten::Stored);
    /// assert_eq!(ring.push_overwrite(2), Overwritten::Stored);
    /// assert_eq!(ring.push_overwrite(3), Overwritten::Evicted(1));
    /// assert_eq!(ring.try_pop(), Some(2));
    /// ring.close();
    /// assert_eq!(ring.push_overwrite(4), Overwritten::Rejected(4));
    /// ```
    #[inline]
    pub fn push_overwrite(&self, item: T) -> Overwritten<T> {
        for _ in 0..2 {
            if let Some(i) = self.fq.take_for(self.pushers()) {
                pause_point(pause::MPMC_OVERWRITE_CLAIMED);
                // SAFETY: we took `i` from `fq`, so the slot is free and ours.
                unsafe { self.write(i, item) };
                return match self.publish(i) {
                    Ok(()) => Overwritten::Stored,
                    Err(Closed(item)) => Overwritten::Rejected(item),
                };
            }
            // Announce the eviction before taking an item out, and give up
            // if the ring is closed: see `close` for why a pop can then
            // trust "closed and drained". Relaxed: only the position of this
            // change in `state`'s order matters (before or after the close).
            let announced = self.state.fetch_add(EVICTING, Ordering::Relaxed);
            pause_point(pause::MPMC_OVERWRITE_ANNOUNCED);
            if announced & CLOSED != 0 {
                self.state.fetch_sub(EVICTING, Ordering::Relaxed);
                // The pops that saw this eviction announced answered
                // "empty" and may wait for it to end.
                self.wake_all_poppers();
                return Overwritten::Rejected(item);
            }
            // No hook for a look here: the eviction wakes every waiting pop
            // when it ends, whatever it found.
            if let Some(i) = self.aq.dequeue() {
                pause_point(pause::MPMC_OVERWRITE_EVICTED);
                // SAFETY: we took `i` from `aq`, so the slot holds an
                // item and is ours; we write into it right after reading.
                let old = unsafe { self.read(i) };
                // SAFETY: as above; the slot is now logically empty.
                unsafe { self.write(i, item) };
                pause_point(pause::MPMC_OVERWRITE_WRITTEN);
                // Even if the ring was closed meanwhile: this eviction
                // started before the close, and the pops that answer
                // "drained" wait for it. Release: the count ends the
                // eviction, and a pop that acquires it sees the index in
                // `aq` again (its `tail` read then comes after this
                // enqueue's fetch-and-add in `tail`'s order). Loom cannot
                // check this one: it orders read-modify-writes by execution,
                // so its model passes with a relaxed count as well.
                self.aq.enqueue(i);
                self.overwritten.add_release(1);
                // A pop between our take and this put may have found the
                // count at `low` and lowered the level: the put tests the
                // marks as a push does (`src/mpmc/marks.rs`).
                self.pushed_marks();
                // The item is back, and on a closed ring a pop waiting for
                // this eviction to end may now answer "closed and drained".
                self.wake_all_poppers();
                return Overwritten::Evicted(old);
            }
            // Nothing to evict: the eviction did not happen.
            self.state.fetch_sub(EVICTING, Ordering::Relaxed);
            self.wake_all_poppers();
        }
        if !self.is_closed() {
            self.rejected.add(1);
        }
        Overwritten::Rejected(item)
    }

    /// Pops the oldest item, or `None` if the ring is empty. Lock-free.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u8, 2> = sluicegate::mpmc::Ring::new();
    /// assert_eq!(ring.try_pop(), None);
    /// ring.try_push(4).unwrap();
    /// assert_eq!(ring.try_pop(), Some(4));
    /// ```
    #[inline]
    pub fn try_pop(&self) -> Option<T> {
        let (i, p) = self.aq.dequeue_at_for(self.poppers())?;
        if p % Self::PEAK_SAMPLE_EVERY == 0 {
            self.note_peak(self.aq.len_from(p));
        }
        // SAFETY: we took `i` from `aq`, so the slot holds an item and is ours.
        let item = unsafe { self.take(i) };
        self.popped_marks();
        Some(item)
    }

    /// One `aq` position in this many is a sample of the length (see
    /// [`Ring::stats`]). On microcontrollers `N / 16`, or every one for
    /// `N < 16`: there a sample is one more load. On hosts at least 64: a
    /// sample reads `aq`'s `tail`, the line the producers' fetch-and-add
    /// keeps, and takes it from them; one pop in 8 doing that made a
    /// 128-slot ring 2-3x slower at one producer and one consumer (and at
    /// two and two), one in 64 costs less than the runs vary.
    #[doc(hidden)]
    pub const PEAK_SAMPLE_EVERY: usize = {
        let every = if N >= 16 { N / 16 } else { 1 };
        if cfg!(all(target_arch = "arm", target_os = "none")) || every >= 64 {
            every
        } else {
            64
        }
    };

    /// Raises the high-water mark to `seen` (at most `N`), if that is more.
    /// The load first, so the read-modify-write runs only when the mark
    /// rises (at most `N` times in the ring's life). On a closed ring
    /// `seen` (positions in `aq`) also counts those refused pushes left
    /// unused, so it is capped by the slots holding items.
    #[inline(always)]
    pub(super) fn note_peak(&self, seen: usize) {
        // Relaxed: a statistic, ordered with nothing.
        if seen > self.peak.load(Ordering::Relaxed) {
            self.raise_peak(seen);
        }
    }

    /// [`note_peak`](Self::note_peak)'s rare part, out of the pops' line.
    #[cold]
    fn raise_peak(&self, seen: usize) {
        let seen = if self.is_closed() {
            seen.min(self.held())
        } else {
            seen
        };
        // Relaxed: as in `note_peak`.
        self.peak.fetch_max(seen.min(N), Ordering::Relaxed);
    }

    /// Counts `k` items a `*_fresh` pop discarded.
    #[cold]
    pub(super) fn note_expired(&self, k: usize) {
        self.expired.add(k);
    }

    /// Counts `k` slots a close kept out of both index rings.
    #[cold]
    pub(super) fn retire(&self, k: usize) {
        // Relaxed: read only by `len` and `stats`, estimates under
        // concurrency.
        self.retired.fetch_add(k, Ordering::Relaxed);
    }

    /// The slots neither free nor retired: the items, counting those
    /// that operations in progress hold. Exact on a quiescent ring.
    fn held(&self) -> usize {
        N.saturating_sub(self.fq.free_hint())
            .saturating_sub(self.retired.load(Ordering::Relaxed))
    }

    /// Moves the item out of slot `i` and frees the slot.
    ///
    /// # Safety
    /// The caller took `i` from `aq` (the slot holds an item and is ours).
    #[inline(always)]
    pub(super) unsafe fn take(&self, i: usize) -> T {
        pause_point(pause::MPMC_POP_CLAIMED);
        // SAFETY: per the contract.
        let item = unsafe { self.read(i) };
        pause_point(pause::MPMC_POP_READ);
        self.fq.give(i);
        self.wake_pushers();
        item
    }

    /// Number of items, as a snapshot: exact when no operation is in
    /// progress and the ring was not used concurrently, before and after
    /// a close (pushes the close refused are not counted); under
    /// concurrency an estimate in `0..=N`.
    ///
    /// This example covers `len`, [`is_empty`](Self::is_empty),
    /// [`is_full`](Self::is_full) and [`free_slots`](Self::free_slots):
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u8, 4> = sluicegate::mpmc::Ring::new();
    /// ring.try_push(1).unwrap();
    /// assert_eq!((ring.len(), ring.free_slots(), ring.is_empty(), ring.is_full()), (1, 3, false, false));
    /// ```
    pub fn len(&self) -> usize {
        let positions = self.aq.len_hint();
        if self.is_closed() {
            // Pushes the close refused left positions in `aq` unused;
            // the slots count the items alone when nothing is in
            // progress (and both over-count what is in progress).
            positions.min(self.held())
        } else {
            positions
        }
    }

    crate::observe::derived_observers! {
        obj: "ring",
        make: "let ring: sluicegate::mpmc::Ring<u8, 4> = sluicegate::mpmc::Ring::new();",
        push: "ring.try_push(1).unwrap();",
        caveat: ", with the same caveat as [`len`](Self::len).",
    }

    /// The counters of rejected and evicted items (they wrap on overflow)
    /// and the high-water mark.
    ///
    /// `peak` is the largest length sampled by pops (and by every round of
    /// [`pop_burst`](Self::pop_burst)) or by an earlier `stats`, or the
    /// length now ([`len`](Self::len)) if that is more, which this read then
    /// keeps (so `peak` never goes down), or `N` once a push was refused
    /// as full or an item evicted (neither finds a free slot). A pop that
    /// takes its place in the ring at one position in `K` samples the
    /// length: the positions from its own to the next free one. `K` is
    /// `N / 16` (every position for `N < 16`) on microcontrollers, and on
    /// hosts `N / 16` but at least 64, because there a sample takes the
    /// producers' cache line from them. Positions are taken in order and,
    /// between two samples, only the pops in between take items out, so
    /// `peak` is at least the true high-water mark less `K` (exact on a
    /// microcontroller for `N < 16` while nothing overlaps, and `N` whenever
    /// the ring filled up); it is never more than `N`, and exceeds the true
    /// mark only by counting pushes still in progress at a sample (or slots
    /// held by operations in progress at a refusal or an eviction). Nothing
    /// is added to the push path; a pop pays a test of its position, and
    /// one pop in `K` a relaxed load of the producers' position and a
    /// compare.
    ///
    /// ```
    /// use sluicegate::RingStats;
    ///
    /// let ring: sluicegate::mpmc::Ring<u8, 4> = sluicegate::mpmc::Ring::new();
    /// ring.push_iter([1, 2, 3]);
    /// assert_eq!(ring.try_pop(), Some(1)); // finds 3 items
    /// let _ = ring.push_iter([4, 5, 6]); // 6 does not fit
    /// let _ = ring.try_push(7); // rejected
    /// let _ = ring.push_overwrite(8); // evicts 2
    /// ring.clear();
    /// assert_eq!(ring.stats(), RingStats { rejected: 1, overwritten: 1, busy: 0, expired: 0, transitions: 0, peak: 4 });
    /// ```
    pub fn stats(&self) -> RingStats {
        RingStats {
            rejected: self.rejected.get(),
            overwritten: self.overwritten.get(),
            busy: 0,
            expired: self.expired.get(),
            transitions: M::transitions(&self.marks),
            peak: if self.overwritten.get() != 0
                || self.rejected.get() != self.rejected_with_room.get()
            {
                N
            } else {
                crate::observe::kept_peak(&self.peak, self.len())
            },
        }
    }

    /// # Safety
    /// The caller holds index `i` and slot `i` is uninitialised.
    #[inline(always)]
    pub(super) unsafe fn write(&self, i: usize, item: T) {
        debug_assert!(i < N);
        // SAFETY: per the contract, nobody else touches slot `i`.
        self.slots[i].with_mut(|p| unsafe { (*p).write(item) });
    }

    /// # Safety
    /// The caller holds index `i` and slot `i` is initialised; it is
    /// uninitialised afterwards.
    #[inline(always)]
    pub(super) unsafe fn read(&self, i: usize) -> T {
        debug_assert!(i < N);
        // SAFETY: per the contract, nobody else touches slot `i` and it
        // holds an item, which we move out.
        self.slots[i].with(|p| unsafe { (*p).assume_init_read() })
    }
}

impl<T, const N: usize, F: FreePool<N>> Default for Ring<T, N, F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize, F: FreePool<N>, M: Marks> fmt::Debug for Ring<T, N, F, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Ring");
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
impl<T, const N: usize, F: FreePool<N>, M: Marks> defmt::Format for Ring<T, N, F, M> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "Ring {{ capacity: {=usize}, len: {=usize}, closed: {=bool}, stats: {} }}",
            N,
            self.len(),
            self.is_closed(),
            self.stats()
        )
    }
}
