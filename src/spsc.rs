//! Single-producer/single-consumer ring: reject when full, or overwrite the
//! oldest.
//!
//! # Model
//!
//! A [`Ring`] holds up to `N` items (`N` a power of two). It is split once into
//! a [`Producer`] and a [`Consumer`]; each handle may live on a different
//! thread or execution context (main loop and interrupt handler, two cores).
//! The policy parameter picks the algorithm:
//!
//! - [`Reject`] (the default): a full ring refuses new items. [`Producer::try_push`]
//!   hands the item back inside [`Full`]. Every operation of the two handles
//!   uses only atomic loads and stores, so it runs natively on Cortex-M0, and
//!   every operation is **wait-free** (a bounded number of steps whatever the
//!   other side does). Splitting takes `&mut Ring` ([`Ring::split`]); only
//!   [`Ring::try_split`], which splits a shared (`static`) ring once, needs an
//!   atomic swap, so it exists only where compare-and-swap does.
//! - [`Overwrite`]: everything above, plus [`Producer::push_overwrite`], which
//!   makes room by evicting the oldest item and hands it back
//!   ([`Overwritten::Evicted`]). The producer is **wait-free** and never waits
//!   for the consumer; the consumer becomes **lock-free** (a pop retries only
//!   when the producer evicted the item it was about to take). Needs
//!   compare-and-swap (native, or `portable-atomic`).
//!
//! Nothing is lost silently: every item pushed is popped, handed back to the
//! caller, or counted (see [`RingStats`]).
//!
//! A ring of policy [`Marked`] (a `Reject` ring with watermarks, made with
//! [`Ring::with_watermarks`]) also tells a producer whose source can be
//! slowed when to slow it: its [`Level`] turns `High` at the
//! high mark and back to `Normal` only at the low one (hysteresis), and
//! [`Producer::wait_below_low_blocking`] (or `wait_below_low().await`)
//! waits for the drain. `src/spsc/watermark.rs`
//! has the protocol, and why a drained ring's level does not stay `High`
//! once either side looks at it.
//!
//! There is no `close`: dropping a handle closes the ring for the other
//! one, which sees it with `is_abandoned` ([`Producer::is_abandoned`],
//! [`Consumer::is_abandoned`]). The waiting calls end on it as the MPMC
//! rings' end on a close: a push that needs room hands the item back in
//! [`Closed`](crate::Closed), and a pop returns `None` once the ring is
//! also drained.
//!
//! For `Copy` items there are DPDK's `push_burst` / `pop_burst` (as many as
//! fit) and `push_bulk` / `pop_bulk` (all or nothing), and, as in rtrb,
//! zero-copy `write_chunk_uninit(n)` / `read_chunk(n)` and their `_up_to`
//! forms, then `commit(n)`. While the consumer reads (inside a pop, a peek,
//! a held read chunk), `push_overwrite` skips the slots it holds and evicts
//! the oldest item it does not hold, so the newest is always stored;
//! [`Overwritten::Rejected`] is left for a consumer holding every slot.
//! With a consumer thread reading all the time on a 2-core host (pops,
//! bursts of 16, peeks, read chunks of 16 held for 2 µs), none of 16.9 M
//! overflows came back rejected (`cargo run --release -p sluicegate-bench
//! --example keep_newest`).
//!
//! [`flag::Ring`] is a second, smaller form for two cores of a host that
//! move items one at a time: a "full" flag in every slot, so the two sides
//! never read each other's index. It has only `try_push`, `try_pop` and
//! `peek` (no batches, chunks, overwrite, waits or counters); its module docs
//! say when it is the faster of the two.
//!
//! ```
//! use sluicegate::spsc::Ring;
//!
//! let mut ring: Ring<u32, 4> = Ring::new();
//! let (mut tx, mut rx) = ring.split();
//! for i in 0..4 {
//!     tx.try_push(i).unwrap();
//! }
//! assert_eq!(tx.try_push(99).unwrap_err().into_inner(), 99); // full: rejected
//! assert_eq!(rx.try_pop(), Some(0));
//! assert_eq!(tx.stats().rejected, 1);
//! ```
//!
//! A `static` ring shared by an interrupt handler (producer) and the main
//! loop (consumer), with no `unsafe` and no mutable `static`:
//!
//! ```
//! use sluicegate::spsc::{Consumer, Overwrite, Producer, Ring};
//! # use std::sync::Mutex as Cell; // stands in for a critical-section cell on a host
//!
//! static SAMPLES: Ring<u16, 64, Overwrite> = Ring::new();
//! // Where the interrupt handler finds its producer (on an MCU, e.g. a
//! // `critical_section::Mutex<RefCell<Option<..>>>` or an RTIC/embassy resource).
//! static TX: Cell<Option<Producer<'static, u16, 64, Overwrite>>> = Cell::new(None);
//!
//! fn timer_interrupt(adc_reading: u16) {
//!     if let Some(tx) = TX.lock().unwrap().as_mut() {
//!         // Never waits for main, even if main was preempted in the middle of a pop.
//!         let _evicted_or_rejected = tx.push_overwrite(adc_reading).into_item();
//!     }
//! }
//!
//! fn main() {
//!     let (tx, mut rx): (_, Consumer<'static, u16, 64, Overwrite>) =
//!         SAMPLES.try_split().expect("split once");
//!     *TX.lock().unwrap() = Some(tx);
//!     assert!(SAMPLES.try_split().is_none()); // a second split is refused
//!
//!     for reading in 0..100 {
//!         timer_interrupt(reading); // on hardware: fired by the timer
//!     }
//!     let mut got = 0;
//!     while let Some(_sample) = rx.try_pop() {
//!         got += 1;
//!     }
//!     assert_eq!(got, 64); // the 64 newest survived
//!     assert_eq!(SAMPLES.stats().overwritten, 36); // and the rest are accounted for
//! }
//! ```
//!
//! Misuse fails to compile. A capacity that is not a power of two:
//!
//! ```compile_fail,E0080
//! let ring: sluicegate::spsc::Ring<u8, 3> = sluicegate::spsc::Ring::new();
//! ```
//!
//! A handle that outlives its ring:
//!
//! ```compile_fail,E0597
//! let tx = {
//!     let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
//!     ring.split().0
//! };
//! ```
//!
//! Sending a handle of a ring whose items can't cross threads:
//!
//! ```compile_fail,E0277
//! static RING: sluicegate::spsc::Ring<std::rc::Rc<u8>, 4> = sluicegate::spsc::Ring::new();
//! ```
//!
//! Sharing the read side between threads when the items are not `Sync`
//! (here two threads would mutate the same `Cell` at once):
//!
//! ```compile_fail,E0277
//! use std::cell::Cell;
//! let mut ring: sluicegate::spsc::Ring<Cell<u32>, 4> = sluicegate::spsc::Ring::new();
//! let (mut tx, mut rx) = ring.split();
//! tx.try_push(Cell::new(0)).unwrap();
//! let chunk = rx.read_chunk(1).unwrap();
//! std::thread::scope(|s| {
//!     let chunk = &chunk;
//!     s.spawn(move || chunk.as_slices().0[0].set(1));
//!     s.spawn(move || chunk.as_slices().0[0].set(2));
//! });
//! ```
//!
//! The same holds for a [`Consumer`] and a [`Peek`] guard;
//! `CONTRIBUTING.md` lists every public type's `Send`/`Sync` bounds and what
//! a panic in an item's `Drop` leaves behind on each path.
//!
//! # Algorithm
//!
//! Lamport's ring with free-running positions. `tail` (written only by the
//! producer) is the position of the next item to write, `head` the position of
//! the oldest item; `tail - head` (wrapping) is the number of items and slot
//! `pos & (N - 1)` holds position `pos`. Positions never reset, so a full ring
//! and an empty ring are told apart without a spare slot, and wrapping at
//! `usize::MAX` is harmless because `N` divides `2^bits`.
//!
//! Each handle keeps a private copy of the other side's index and reloads it
//! only when the copy says full (producer) or empty (consumer), so the
//! steady state touches the shared cache line of the other side rarely
//! (Rigtorp's cached-index optimisation). Producer and consumer words live on
//! separate cache lines on hosts ([`crossbeam_utils::CachePadded`]) and are not
//! padded on bare-metal Arm.
//!
//! **Reject**: only the producer stores `tail`, only the consumer stores
//! `head`. The producer writes a slot, then stores `tail` with `Release`; the
//! consumer loads `tail` with `Acquire` before reading the slot, so it sees the
//! write. Symmetrically the consumer reads a slot, then stores `head` with
//! `Release`, and the producer loads `head` with `Acquire` before reusing that
//! slot, so the read is finished before the overwrite. That is the whole
//! argument; no read-modify-write is needed.
//!
//! **Overwrite**: the producer may also move `head`, by compare-and-swap, to
//! evict the oldest item; the consumer claims the items it reads by setting a
//! flag in `head` with the same CAS. The protocol, its state table and its
//! orderings are written down in `src/spsc/overwrite.rs`.
//!
//! `push_overwrite` keeps the newest while the consumer reads: when the
//! slot its item would go into is held by the consumer (inside a pop, or
//! under a [`ReadChunk`] or a [`Peek`] guard), it skips that position (a
//! *void*) and stores the item in the next free one, evicting the oldest
//! item the consumer does not hold, handed back in [`Overwritten::Evicted`]
//! and counted in [`RingStats::overwritten`]. A held run of `k` slots costs
//! `k` positions per lap until the consumer passes them, no spare RAM per
//! held item. Only a consumer holding all `N` slots makes it hand the new
//! item back ([`Overwritten::Rejected`], counted in
//! [`RingStats::rejected`]). A read guard that gives items back (a peek
//! dropped, a chunk committed in part) after the producer went past them
//! cannot put them behind newer items: they are dropped and counted as
//! overwritten.
//!
//! Positions wrap at `usize::MAX` (2^32 on 32-bit targets; `Overwrite` stores
//! them times four, so 2^30); the differences are taken with wrapping
//! arithmetic and are never larger than `N`, so wrap-around is invisible.
//!
//! # Memory
//!
//! `N` slots of `T`, plus six words: `head`, `tail`, the three counters of
//! [`RingStats`] and its `peak`, plus which handles are alive (a word where
//! compare-and-swap exists, two bytes without). A [`Marked`] ring adds the
//! watermarks' four (the two marks and the two words of the [`Level`]); an
//! [`Overwrite`] ring adds three words (the consumer's claim, the count of
//! held items it dropped, the count of void flags) and a void flag per slot
//! (one byte each); the other policies have none of them. On bare-metal
//! Arm nothing is padded: a `Ring<u32, 8>` takes 60 bytes on thumbv6m and
//! thumbv7em, 76 with `Marked`, 80 with `Overwrite`.
//! On hosts `head` and the producer's words (`tail`, the counters and
//! `peak`) each take a 128-byte line, so the same ring takes 384 bytes on
//! x86-64.
//!
//! # References
//!
//! - L. Lamport, "Specifying Concurrent Program Modules", TOPLAS 1983 (the
//!   single-producer/single-consumer ring).
//! - E. Rigtorp, "Optimizing a ring buffer for throughput" (2021): cached
//!   indices and padding.
//! - DPDK `rte_ring`: the burst/bulk vocabulary.

mod batch;
mod chunk;
mod claim;
pub mod flag;
mod fresh;
mod handles;
#[cfg(all(test, sluicegate_loom))]
mod loom_tests;
#[cfg(sluicegate_cas)]
mod overwrite;
#[cfg(all(test, not(sluicegate_loom)))]
mod pause_tests;
#[cfg(not(sluicegate_loom))]
mod peek;
mod policy;
#[cfg(all(test, not(sluicegate_loom)))]
mod schedule_tests;
mod split;
mod wait;
mod watermark;

pub use chunk::{ReadChunk, WriteChunkUninit};
pub use handles::{Consumer, Producer};
#[cfg(sluicegate_cas)] // needs CAS: on thumbv6m, enable the `portable-atomic` feature
#[cfg_attr(
    docsrs,
    doc(cfg(any(target_has_atomic = "ptr", feature = "portable-atomic")))
)]
pub use overwrite::Overwrite;
#[cfg(not(sluicegate_loom))]
pub use peek::Peek;
pub(crate) use policy::sealed;
pub use policy::{Policy, Reject};
#[cfg(all(feature = "async", sluicegate_cas))]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use wait::{Pop, Push};
#[cfg(all(feature = "async", sluicegate_cas))]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use watermark::BelowLow;
pub use watermark::{Level, Marked};

use core::marker::PhantomData;
#[cfg(not(sluicegate_loom))]
use core::mem::MaybeUninit;

use crate::sync::{const_fn, slots, LoadStoreUsize, Ordering, Padded, Slot, SoloCounter};
#[cfg(doc)]
use crate::Overwritten;
use crate::RingStats;
#[cfg(doc)]
use crate::{Full, Insufficient};
use claim::void_flags;
use sealed::{MarkWords as _, Maybe as _};
use split::Live;
use watermark::Marks;

/// Producer-owned shared state: one cache line on hosts.
struct ProducerSide<P: Policy> {
    /// Stored position of the next item to write. Only the producer stores it.
    tail: LoadStoreUsize,
    rejected: SoloCounter,
    overwritten: SoloCounter,
    /// Items the consumer's `*_fresh` pops discarded (see
    /// [`crate::expire`]). Stored only by the consumer, and only when it
    /// discards: the producer never reads it.
    expired: SoloCounter,
    /// The most items the consumer found when it looked at `tail` (see
    /// [`Ring::stats`]). Stored only by the consumer (and by a split), and
    /// only when it grows; the consumer loads it right after `tail`, from
    /// the line that load brought in. Next to the slots it shared a line
    /// with the first of them, which the producer keeps writing.
    peak: LoadStoreUsize,
    /// The high mark, as `N + 1 - high` (0 without watermarks: a high mark
    /// no push meets), from which the producer keeps its `raise_pos`. Set
    /// at construction only; no word at all under a policy without
    /// watermarks.
    raise_at: P::RaiseAt,
    /// How many slots' void flags are set (`Overwrite` only; see
    /// `src/spsc/overwrite.rs`). Stored by the producer only.
    void_count: P::VoidCount,
}

/// Consumer-owned shared state: one cache line on hosts. The watermark's
/// words are here because the consumer reads them on every pop and the
/// producer writes them only on a transition (see `src/spsc/watermark.rs`).
struct ConsumerSide<P: Policy> {
    /// Stored position of the oldest item (plus `BUSY` under [`Overwrite`]).
    /// Stored by the consumer; under `Overwrite` also CAS-ed by the producer.
    /// Invariant: `tail - head` (positions) is in `0..=N`.
    /// Under `Overwrite` every concurrent access goes through `rmw_view`.
    pos: LoadStoreUsize,
    /// The watermark's words (none under a policy without watermarks).
    marks: P::Marks,
    /// The consumer's claim and its count of lapped items dropped
    /// (`Overwrite` only; see `src/spsc/overwrite.rs`).
    claim: P::Claim,
}

/// A bounded single-producer/single-consumer ring of `N` items.
///
/// See the [module documentation](self) for the model and the guarantees.
#[repr(C)] // the indices first: small offsets on Cortex-M0
pub struct Ring<T, const N: usize, P: Policy = Reject> {
    /// `head` (see [`ConsumerSide`]) and the watermark's words.
    head: Padded<ConsumerSide<P>>,
    producer: Padded<ProducerSide<P>>,
    /// The tasks waiting in `push`/`pop` (see `src/wait.rs`); zero-sized
    /// without the `async` feature.
    waiters: wait::RingWaiters,
    /// Which handles are alive.
    live: Live,
    /// Per slot, whether the latest position placed there is a void
    /// (`Overwrite` only, one byte per slot; zero-sized otherwise).
    voids: [P::Void; N],
    slots: [Slot<T>; N],
    _policy: PhantomData<P>,
}

// SAFETY: through `&Ring` a thread can only read the counters and the
// length, and take the two handles once (`try_split`); the handles move each
// item from the one producer to the one consumer (or back to the producer),
// so `T` crosses threads by value: `T: Send` is needed and enough for the
// ring. No `&Ring` method hands out a `&T`. Every handle holds a `&Ring`, so
// it inherits this `Sync` and is `Send` where `T: Send`; the read side's
// handles that do hand out `&T` through `&self` (`Consumer`, `ReadChunk`,
// `Peek`) are made `Sync` only where `T: Sync` as well, next to their types.
unsafe impl<T: Send, const N: usize, P: Policy> Sync for Ring<T, N, P> {}

impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// Position distance (stored form) of a full ring.
    #[cfg(sluicegate_cas)]
    const FULL: usize = N << P::SHIFT;
    /// Stored distance between consecutive positions.
    const STEP: usize = 1 << P::SHIFT;

    const_fn! {
        /// An empty ring. `N` must be a power of two (checked at compile time).
        ///
        /// `const`, so a ring can be a `static` or a local:
        ///
        /// ```
        /// use sluicegate::spsc::{Overwrite, Ring};
        ///
        /// static LOG: Ring<u8, 16, Overwrite> = Ring::new();
        /// let mut local: Ring<u8, 4> = Ring::new(); // the default policy, Reject
        /// assert!(LOG.is_empty() && local.split().1.is_empty());
        /// ```
        pub fn new() -> Self {
            Self::unmarked(0)
        }
    }

    const_fn! {
        /// An empty ring whose positions start at `start` (wrapping). For tests
        /// of index wrap-around only.
        #[doc(hidden)]
        pub fn with_start(start: usize) -> Self {
            Self::unmarked(start)
        }
    }

    const_fn! {
        /// An empty ring at `start` without watermarks.
        fn unmarked(start: usize) -> Self {
            #[cfg(not(sluicegate_loom))]
            let marks = P::NO_MARKS;
            #[cfg(sluicegate_loom)]
            let marks = P::no_marks();
            Self::with_start_marks(start, marks, P::NO_RAISE)
        }
    }

    const_fn! {
        /// An empty ring at `start` with the watermark words `marks` and
        /// the push threshold `raise_at` (see `ProducerSide`). The checks
        /// are the callers'.
        pub(crate) fn with_start_marks(start: usize, marks: P::Marks, raise_at: P::RaiseAt) -> Self {
            const {
                assert!(
                    N > 0 && N.is_power_of_two(),
                    "sluicegate: ring capacity N must be a power of two (1, 2, 4, ...)"
                );
                assert!(N <= usize::MAX >> 2, "sluicegate: ring capacity too large");
                assert!(
                    !P::OVERWRITES || N <= claim::CLAIM_COUNT,
                    "sluicegate: an Overwrite ring has at most 2^15 slots on 32-bit targets"
                );
            };
            let stored = start << P::SHIFT;
            #[cfg(not(sluicegate_loom))]
            let claim = P::NEW_CLAIM;
            #[cfg(not(sluicegate_loom))]
            let void_count = P::NEW_VOID_COUNT;
            #[cfg(sluicegate_loom)]
            let claim = P::new_claim();
            #[cfg(sluicegate_loom)]
            let void_count = P::new_void_count();
            Self {
                head: Padded::new(ConsumerSide {
                    pos: LoadStoreUsize::new(stored),
                    marks,
                    claim,
                }),
                producer: Padded::new(ProducerSide {
                    tail: LoadStoreUsize::new(stored),
                    rejected: SoloCounter::new(),
                    overwritten: SoloCounter::new(),
                    expired: SoloCounter::new(),
                    peak: LoadStoreUsize::new(0),
                    raise_at,
                    void_count,
                }),
                waiters: wait::RingWaiters::new(),
                live: Live::new(),
                voids: void_flags::<P, N>(),
                slots: slots::<T, N>(),
                _policy: PhantomData,
            }
        }
    }

    /// How many items the ring holds now (a snapshot, from any context).
    ///
    /// Under [`Overwrite`], voids (positions the producer skipped while the
    /// consumer held their slots, see the module docs) are not items, but
    /// each takes a slot's room until the consumer or an eviction passes
    /// it: while there are some, `try_push`, the batches and the write
    /// chunks may find less room than [`free_slots`](Self::free_slots)
    /// says (`push_overwrite` always stores).
    ///
    /// This example covers the four snapshot observers, `len`,
    /// [`is_empty`](Self::is_empty), [`is_full`](Self::is_full) and
    /// [`free_slots`](Self::free_slots):
    ///
    /// ```
    /// use sluicegate::spsc::Ring;
    ///
    /// static RING: Ring<u8, 4> = Ring::new();
    /// let (mut tx, mut rx) = RING.try_split().unwrap();
    /// assert!(RING.is_empty() && !RING.is_full());
    /// tx.push_burst(&[1, 2, 3, 4]);
    /// assert_eq!((RING.len(), RING.free_slots(), RING.is_full()), (4, 0, true));
    /// rx.try_pop();
    /// assert_eq!((RING.len(), RING.free_slots(), RING.is_empty()), (3, 1, false));
    /// ```
    pub fn len(&self) -> usize {
        let head = self.load_head(Ordering::Acquire) & !P::FLAGS;
        let tail = self.producer.tail.load(Ordering::Acquire);
        // Loaded at different moments: clamp so a racing reader never sees > N.
        let len = (tail.wrapping_sub(head) >> P::SHIFT).min(N);
        // Under `Overwrite`, less the voids among them (none unless the
        // producer lapped a claim).
        len - self.voids_among(head, len)
    }

    crate::observe::derived_observers! {
        obj: "RING",
        make: "static RING: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();\nlet (mut tx, _rx) = RING.try_split().unwrap();",
        push: "tx.try_push(1).unwrap();",
        caveat: ": a snapshot, as [`len`](Self::len) is.",
    }

    /// The counters of rejected and overwritten items and the high-water
    /// mark (readable from any context; see [`RingStats`] for what each
    /// counts).
    ///
    /// `peak` is the most items the consumer found in the ring when it
    /// looked at the producer's position (a pop or read that had used up
    /// what it saw before, or a split), or the length now if that is more.
    /// Every such figure is a length the ring had, so `peak` never exceeds
    /// the true high-water mark; and since between two looks the consumer
    /// takes only what it saw at the first, the true mark is at most twice
    /// `peak` (under `Reject`; under `Overwrite` a look that finds its
    /// head behind evictions counts nothing, and voids are not items).
    /// Nothing is added to the push path; a pop pays a load and a compare
    /// only when it looks at `tail`.
    ///
    /// ```
    /// use sluicegate::spsc::{Overwrite, Ring};
    /// use sluicegate::RingStats;
    ///
    /// static RING: Ring<u8, 2, Overwrite> = Ring::new();
    /// let (mut tx, _rx) = RING.try_split().unwrap();
    /// tx.push_burst(&[1, 2, 3]); // 3 does not fit: rejected
    /// let _ = tx.push_overwrite(4); // evicts 1
    /// assert_eq!(RING.stats(), RingStats { rejected: 1, overwritten: 1, busy: 0, expired: 0, transitions: 0, peak: 2 });
    /// ```
    pub fn stats(&self) -> RingStats {
        RingStats {
            rejected: self.producer.rejected.get(),
            overwritten: self
                .producer
                .overwritten
                .get()
                .wrapping_add(self.head.claim.get().map_or(0, |c| c.dropped.get())),
            busy: 0,
            expired: self.producer.expired.get(),
            transitions: self.head.marks.get().map_or(0, Marks::transitions),
            peak: self.producer.peak.load(Ordering::Relaxed).max(self.len()),
        }
    }

    /// Starts the counters at `rejected` and `overwritten`. For tests of
    /// counter wrap-around only.
    #[doc(hidden)]
    pub fn preset_counters(&mut self, rejected: usize, overwritten: usize) {
        self.producer.rejected.add(rejected);
        self.producer.overwritten.add(overwritten);
    }

    #[inline(always)]
    fn slot(&self, stored: usize) -> &Slot<T> {
        &self.slots[Self::index(stored)]
    }

    /// Slot index of a stored position.
    #[inline(always)]
    const fn index(stored: usize) -> usize {
        (stored >> P::SHIFT) & (N - 1)
    }

    /// Where `len` positions from stored position `pos` lie in the storage:
    /// slots `start..start + first`, then `0..rest` (the part that wrapped).
    #[cfg(not(sluicegate_loom))]
    #[inline(always)]
    fn split_range(pos: usize, len: usize) -> (usize, usize, usize) {
        debug_assert!(len <= N);
        let start = Self::index(pos);
        let first = len.min(N - start);
        (start, first, len - first)
    }

    /// Pointer to slot `i`, with provenance over the whole array.
    #[cfg(not(sluicegate_loom))]
    #[inline(always)]
    fn slot_ptr(&self, i: usize) -> *mut MaybeUninit<T> {
        debug_assert!(i < N);
        // `sync::UnsafeCell<MaybeUninit<T>>` is `repr(transparent)` over it,
        // so the array is laid out as `[MaybeUninit<T>; N]`; writing through
        // the pointer is allowed because every byte is inside an UnsafeCell.
        self.slots
            .as_ptr()
            .cast::<MaybeUninit<T>>()
            .cast_mut()
            .wrapping_add(i)
    }
}

impl<T, const N: usize, P: Policy> Default for Ring<T, N, P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize, P: Policy> core::fmt::Debug for Ring<T, N, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ring")
            .field("capacity", &N)
            .field("len", &self.len())
            .field("stats", &self.stats())
            .finish()
    }
}

/// The same summary as `Debug`: capacity, length and counters.
#[cfg(feature = "defmt")]
impl<T, const N: usize, P: Policy> defmt::Format for Ring<T, N, P> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "Ring {{ capacity: {=usize}, len: {=usize}, stats: {} }}",
            N,
            self.len(),
            self.stats()
        )
    }
}

impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// Free slots for a producer whose next write is `tail` and whose cached
    /// head is `*head`, reloading head only if the cache shows fewer than `want`.
    #[inline(always)]
    fn free_for(&self, tail: usize, head: &mut usize, want: usize) -> usize {
        let used = tail.wrapping_sub(*head) >> P::SHIFT;
        // Saturating under `Overwrite`: the cached head stays put while the
        // consumer holds a claim, and evictions past it may take `tail`
        // more than `N` ahead of it.
        let mut free = if P::OVERWRITES {
            N.saturating_sub(used)
        } else {
            N - used
        };
        if free < want {
            // Acquire: pairs with the consumer's Release store of head, so its
            // reads of the slots about to be reused are finished.
            let word = self.load_head(Ordering::Acquire);
            if P::OVERWRITES && word & P::BUSY != 0 {
                // The consumer holds a claim behind `word`'s head: our cached
                // head must stay at or before it (see `overwrite.rs`).
                return self.free_past_claim(tail, word);
            }
            *head = word & !P::FLAGS;
            free = N - (tail.wrapping_sub(*head) >> P::SHIFT);
        }
        debug_assert!(free <= N, "producer sees more than N free slots");
        free
    }

    /// Makes `n` written slots after `*tail` visible to the consumer and
    /// wakes it if it waits.
    #[inline(always)]
    fn publish(&self, tail: &mut usize, n: usize) {
        self.commit(tail, n);
        self.wake_consumer();
    }

    /// [`publish`](Self::publish) without the wake, for a caller that
    /// wakes the consumer itself.
    #[inline(always)]
    fn commit(&self, tail: &mut usize, n: usize) {
        // Under `Overwrite`: the slots hold real items now (before the
        // store that publishes them), and the word says whether any void
        // flag is still set.
        let voids = self.clear_voids(*tail, n);
        *tail = tail.wrapping_add(n << P::SHIFT);
        // Release: the slot writes (and void flags) happen before the
        // consumer's Acquire load of tail that lets it read them.
        self.producer.tail.store(*tail | voids, Ordering::Release);
    }

    /// Raises the high-water mark to `seen` items (at most `N`), if that
    /// is more.
    /// Called by the consumer (or a split) only, so a load and a store
    /// suffice.
    #[inline(always)]
    fn note_peak(&self, seen: usize) {
        if seen > self.producer.peak.load(Ordering::Relaxed) {
            self.producer.peak.store(seen.min(N), Ordering::Relaxed);
        }
    }

    /// Loads `head` as the policy requires (see [`sealed::Sealed`]).
    #[inline(always)]
    fn load_head(&self, order: Ordering) -> usize {
        P::load_head(&self.head.pos, order)
    }

    /// Stores `head` as the policy requires.
    #[inline(always)]
    fn store_head(&self, value: usize, order: Ordering) {
        P::store_head(&self.head.pos, value, order)
    }
}
