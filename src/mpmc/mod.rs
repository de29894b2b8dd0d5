//! Multi-producer/multi-consumer ring that stays lock-free when a context is
//! suspended in the middle of an operation.
//!
//! [`Ring<T, N>`] holds up to `N` items. Any number of threads, interrupt
//! handlers or cores may push and pop through `&Ring` at the same time, and it
//! lives in a `static` with no `unsafe` in user code. A full ring either
//! rejects the new item ([`Ring::try_push`]) or evicts the oldest one to make
//! room ([`Ring::push_overwrite`]).
//!
//! **For at most `usize::BITS` items (32 on Cortex-M, 64 on hosts), and
//! for the RAM and the instructions on a microcontroller, use
//! [`SmallRing`]**: the same ring with its free slots in one word
//! ([`FreeMask`]) instead of a second index ring, `2N` words less RAM (416
//! against 680 bytes for 32 × `u32` on a Cortex-M4) and one
//! read-modify-write less per push and per pop (on a Cortex-M0 with
//! portable-atomic's `critical-section` backend 85/90 instructions per
//! push/pop against 134/129). On hosts with producers and consumers on
//! different cores the one word is a hot spot: there the default pool is
//! faster (`BENCHMARKS.md`). For any `N`, [`FreeBits`] keeps the free slots
//! in `N` bits and a count: `Ring<u32, 1024, FreeBits<32>>` takes 12 460
//! bytes on a Cortex-M3 instead of 20 532. See [`pool`].
//!
//! **On a single-core microcontroller, use [`cs::Ring`] instead** (feature
//! `critical-section`): the same API, counters and outcomes, each operation
//! one critical section, at a sixth to a seventh of this ring's instructions
//! on a Cortex-M0 (18-19 against 116-134 per push or pop under QEMU) and a fifth
//! of its RAM, with the stronger guarantee that no context is
//! ever suspended inside an operation. On thumbv6m this ring's atomics are
//! themselves critical sections (seven to eight per operation with
//! portable-atomic's `critical-section` backend), so its lock-freedom there is
//! only as good as theirs. Its module docs say what the guarantee becomes on
//! multi-core parts and hosts.
//!
//! **On pinned cores that move bursts (packet paths), use [`BurstRing`]**:
//! one compare-and-swap claims a whole burst and one `fetch_xor` commits
//! it, 4 locked instructions per burst pair where this ring needs several
//! per item (`BENCHMARKS.md`). Its price: a context suspended between its
//! claim and its commit hides what is behind its claim, and the others are
//! told [`burst_ring::Stop::Busy`] there until it resumes (they never spin
//! and never see a wrong full or empty). Where contexts are preempted
//! mid-operation and the others must get past them, this ring is the one.
//! The burst ring's module docs say when to pick which MPMC ring.
//!
//! **Watermarks**: a ring of marks policy [`Marked`], made with
//! `Ring::<T, N, F, Marked>::with_watermarks(low, high)`, tells producers
//! whose source can be slowed when to slow it: its [`Level`] is `High` from
//! a push that leaves `high` items or more until a pop that leaves `low` or
//! fewer, and `wait_below_low().await` (feature `async`) and
//! `wait_below_low_blocking()` wait for the drain. The default policy,
//! [`NoMarks`], has none of it and pays nothing. The protocol is the
//! burst ring's (`src/mpmc/marks.rs`), over this ring's index ring's
//! counters (`src/mpmc/ring_marks.rs` says how exact that count is).
//!
//! ```
//! use sluicegate::mpmc::Ring;
//! use sluicegate::{Overwritten, RingStats};
//!
//! static EVENTS: Ring<u32, 4> = Ring::new();
//!
//! for i in 0..4 {
//!     EVENTS.try_push(i).unwrap();
//! }
//! assert_eq!(EVENTS.try_push(9).unwrap_err().into_inner(), 9); // full: rejected
//! assert_eq!(EVENTS.push_overwrite(4), Overwritten::Evicted(0)); // full: the oldest goes
//! assert_eq!(EVENTS.try_pop(), Some(1));
//! assert_eq!(EVENTS.stats(), RingStats { rejected: 1, overwritten: 1, busy: 0, expired: 0, transitions: 0, peak: 4 });
//! ```
//!
//! # Algorithm
//!
//! Nikolaev's SCQ. The items live in `N` slots. Two FIFO queues of slot
//! *indices* carry the ownership of the slots: `fq` holds the indices of free
//! slots (all `N` at first) and `aq` the indices of slots holding items, in
//! push order. A push takes a free index from `fq`, writes its item into that
//! slot and appends the index to `aq`; a pop takes the oldest index from `aq`,
//! reads the slot and appends the index to `fq`. An index is in at most one
//! place at a time (in `fq`, in `aq`, or held by the one operation that took it
//! out), so whoever holds an index owns its slot exclusively.
//!
//! Each index queue is a ring of `2N` entries driven by two fetch-and-add
//! counters, `head` and `tail`. An entry packs a cycle number, an IsSafe bit and
//! an index into one word (layout and state table in the private `scq`
//! module). An enqueuer takes a position with fetch-and-add on `tail` and
//! places its index there with one CAS if the entry is free for that cycle;
//! otherwise it takes a new position. A dequeuer takes a position with
//! fetch-and-add on `head`: if its index is there it takes it; if not (the
//! enqueuer of that position has not arrived, or has been suspended) it marks
//! the entry so that the late enqueuer cannot use it any more, and moves on to
//! a new position. A `threshold` counter lets dequeuers on an empty ring stop
//! after `3N-1` misses instead of chasing `tail` forever.
//!
//! [`Ring::push_overwrite`] on a full ring takes the oldest index from `aq`
//! (the eviction), reads the evicted item out of that slot, writes the new
//! item in its place and appends the index to `aq` again.
//!
//! # Progress
//!
//! **Lock-free, and no operation waits for another one to finish.** No loop
//! spins on a value that only another context can change: every retry follows
//! a CAS or a check that failed because another context *completed* a step
//! (took a position, placed or took an index, moved `tail`), and the failing
//! context then moves on to a fresh position. A context suspended anywhere
//! inside an operation therefore neither blocks nor fails the others. Its only
//! effect is that it holds at most one slot until it resumes:
//!
//! - a push suspended after taking its free index holds that (empty) slot; a
//!   push suspended while taking one may hold the free index that lands on the
//!   position it took;
//! - a pop suspended after taking its index holds that slot and its item; a pop
//!   suspended after taking its `aq` position, before looking at it, holds the
//!   item that may be pushed to exactly that position. That item is not lost: the
//!   suspended pop returns it when it resumes (it is linearized as that pop's
//!   result);
//! - the same holds for the eviction step of `push_overwrite`;
//! - a burst holds the slots of its round instead of one (up to 32, and at
//!   most `N`): a `pop_burst` suspended after taking a round's positions
//!   holds the items pushed to exactly those positions, as a single pop
//!   does its one (see [Bursts](#bursts)).
//!
//! So with `k` contexts suspended outside bursts, the others can still push
//! and pop at least `N - k` items, and nothing is lost or duplicated when
//! they resume (the crate's unit tests suspend a producer and a consumer at
//! every such point to show this). Vyukov's bounded queue (crossbeam `ArrayQueue`, heapless
//! `mpmc`) does not have this property: there a context suspended between
//! claiming a slot and finishing makes the others fail or spin.
//!
//! **No spurious failures.** SCQ is linearizable: `try_push` reports
//! [`TryPushError::Full`] only if every slot is occupied or held by an operation in progress,
//! and `try_pop` returns `None` only if no pushed item is waiting to be popped
//! (an item pushed to the position of a suspended pop counts as that pop's;
//! "The empty answer" below has the one exception, which needs more
//! contexts inside pops at once than the ring has slots).
//! Two threads doing pop-then-push on a full ring never see `Full`.
//!
//! **The empty answer.** Once misses have taken `aq`'s `threshold` below
//! zero, `try_pop` answers "empty" from that one load (SCQ's bound: an
//! item is found within `3N-1` failed attempts after its push). The bound
//! allows for fewer contexts in the middle of a pop (or of an eviction,
//! which takes the oldest item the same way) than the ring has slots; with
//! `3N` or more at once (three on a ring of one slot), their
//! late misses can take `threshold` below zero after the push of an item
//! that then waits. The miss that takes it below zero therefore looks for
//! an item at a position no pop has taken, and sets `threshold` back if it
//! finds one (the private `scq` module shows why that suffices). So a pop
//! answers "empty" while an item waits only while such a miss is between
//! its decrement and that look: a context suspended there hides the item
//! until it resumes, never for good; with fewer contexts inside pops at
//! once than the ring has slots (the setting the bound was derived for),
//! never. The same holds for `fq`, whose "empty" is
//! a push's "full". Pause-point tests stop three pops (or three pushes on
//! a full ring) on a ring of one slot, and seven pops on a ring of two with
//! the item behind a position no pop took; two loom models race three
//! dequeuers (one of them a burst) against an enqueue.
//!
//! # Which item `push_overwrite` evicts
//!
//! On a ring with no free slot, `push_overwrite` evicts the item at the head
//! of `aq` at the moment of the eviction: the oldest item not yet claimed by a
//! pop, the same one `try_pop` would have returned then. A pop in progress
//! does not stand in its way: the pop's item has left `aq`, so the eviction
//! takes the next one and the new item is stored (the ring keeps the newest
//! while consumers read; a test suspends a pop and a burst at each of their
//! points and pushes `3N` items past them). The evicted item is
//! handed back in [`Overwritten::Evicted`] and counted in
//! [`RingStats::overwritten`]. Corner case: if neither a free slot nor an item
//! to evict can be found (twice in a row) because every slot is held by
//! operations in progress — possible only while other contexts are inside
//! push or pop, e.g. `N = 1` and a pop is between taking the item and freeing
//! its slot — the *new* item is handed back in [`Overwritten::Rejected`] and
//! counted in [`RingStats::rejected`]. Every item is thus popped,
//! returned to a caller, or still in the ring: nothing is dropped silently.
//!
//! # Bursts
//!
//! For `T: Copy`, [`Ring::push_burst`] and [`Ring::pop_burst`] move up to
//! 32 items per round, with one fetch-and-add for the round on each index
//! ring they touch. A push burst takes a round of free slots (from
//! `FreeIndices` with one fetch-and-add on `fq`'s `head`, from `FreeMask`
//! with one CAS, from `FreeBits` with one CAS per word and one on its
//! count) and places all of them in `aq` with one fetch-and-add on `aq`'s
//! `tail`; a pop burst takes a round of items with one fetch-and-add on
//! `aq`'s `head` and gives all their slots back the same way. So a push+pop
//! pair of 32 takes 4 fetch-and-adds instead of 128 on the default pool
//! (plus one entry update per index and ring, as single operations).
//!
//! A dequeuing round takes no more positions than lie between `head` and
//! `tail`, looks at each as a single dequeue looks at its one, and, if it
//! took no index at all, counts one failed attempt against `threshold`, as
//! a single dequeue's miss. It never counts a round's misses one by one
//! after the fact: a context holding many positions would then count many
//! misses late, after an enqueue reset `threshold`, and several such
//! counts can leave a ring answering "empty" for good with indices inside
//! (3 x 3 threads of bursts on a 2-slot ring show it). The appending round
//! tries every position it took, each with the next index not yet placed,
//! and leaves only positions a dequeuer has already passed (as a single
//! enqueue leaves its one); the indices those cost go to a new round. Each
//! round is, step for step, what as many single operations would do (the
//! `scq` module's docs carry the argument), so the guarantees above hold
//! unchanged, except that a burst suspended mid-round holds the slots of
//! its round (up to 32, at most `N`) instead of one. A burst's items stay
//! in slice order, so one producer's items come out in the order it pushed
//! them.
//! There is no all-or-nothing `pop_bulk`: items taken out of a FIFO that
//! others pop from at the same time cannot be put back at its front.
//!
//! # Memory orderings
//!
//! The slot hand-off needs only release/acquire: the writer of a slot
//! publishes the index with a CAS into `aq` (release), and the popper reads
//! that entry (acquire) before touching the slot; likewise the popper's
//! enqueue into `fq` (release) orders its read of the slot before the next
//! writer's, which found the index with an acquire load. Every read-modify-write
//! is on a single entry word, so the CAS race between an enqueuer and a dequeuer
//! of the same position is decided by the entry's modification order. The
//! index-queue logic also reads `head` after taking a `tail` position (and the
//! reverse), and `threshold` after an enqueue: a store-buffering pattern whose
//! correctness argument in the paper assumes sequential consistency. All index
//! operations are therefore `SeqCst`. That costs nothing measurable here: on
//! x86-64 and Armv8 a `SeqCst` read-modify-write is the same instruction as an
//! `AcqRel` one and a `SeqCst` load the same as an `Acquire` one (x86) or
//! `ldar` (Armv8), and on Cortex-M they compile to the same barriers as
//! acquire/release. (loom models `SeqCst` as `AcqRel`, so the loom models check
//! the weaker orderings.)
//!
//! # Atomics, memory and wrap-around
//!
//! Only pointer-width (`usize`) atomics: load, store, compare-exchange,
//! fetch-add/sub and fetch-or. No double-width CAS. On thumbv6m enable the
//! `portable-atomic` feature and let the binary provide `critical-section`;
//! without CAS (and without that feature) this module is not compiled.
//!
//! Memory (default pool; [`FreeMask`] replaces `fq`'s `2N` entries and three
//! counters with one word, [`FreeBits`] with `N` bits and one word): `N`
//! slots of `T`, plus `2 × 2N` words of entries, plus six index
//! counters (`head`, `tail` and `threshold` of each index ring; each on its
//! own 128-byte line on hosts, unpadded on bare-metal Arm), plus the five
//! statistics words `rejected`, `rejected_with_room`, `overwritten`,
//! `expired` and `peak`, the `state` word (closed, evictions started) and
//! the `retired` word (slots a close kept out), never padded. On thumbv7em
//! a `Ring<u32, 8>` takes 212 bytes: 32 of slots, 128 of entries and 52 of
//! counters; on x86-64 the padding brings it to 1152.
//!
//! Where the RAM cannot go lower without giving up a guarantee: for 1024 ×
//! `u32` on a Cortex-M3 the ring takes 20 532 bytes, and `aq` alone (`2N`
//! entries of one word: 8 KiB) plus the slots (4 KiB) are 12 KiB. `aq` needs
//! its `2N` entries (an enqueue always finds a usable entry within a
//! bounded number of positions because at most `N` of them hold an index,
//! and `threshold`'s bound of `3N-1` misses rests on it) and whole-word
//! entries: an entry's cycle bits are its position's high bits, so the
//! entry width sets how far the counters may move while a context is
//! suspended (below). With half-word entries that would fall from `2^30`
//! positions to `2^14` (16 384 operations by the others, eight laps of
//! `aq`), after which a resumed context could take a later cycle's index
//! for its own. So any free pool at all, and the counters, put the ring
//! above 12 KiB. The smallest pools: [`FreeMask`], one word, for
//! `N <= usize::BITS`, and for any `N` [`FreeBits`], `N` bits and a count:
//! `Ring<u32, 1024, FreeBits<32>>` takes 12 460 bytes on a Cortex-M3. (Its
//! word count `N / 32` is a parameter of its own because stable Rust cannot
//! compute `N / 32` in a type.)
//!
//! `head`/`tail` positions wrap at `2^W` (`W = usize::BITS`) and the cycle
//! field of an entry has `W - log2(4N)` bits. All comparisons are of wrapping
//! differences read as signed, so wrap-around is harmless as long as no
//! context stays suspended inside an operation while the ring's counters move
//! `2^(W-2)` positions on (about 10^9 operations on 32-bit targets, never in
//! practice on 64-bit ones). The tests start the counters just before both
//! wrap points (`2^(W-1)` for the cycle bits and `2^W`).
//!
//! `N` must be a power of two between 1 and `2^(W-6)`; anything else is a
//! compile-time error:
//!
//! ```compile_fail,E0080
//! static BAD: sluicegate::mpmc::Ring<u8, 3> = sluicegate::mpmc::Ring::new();
//! let _ = BAD.try_pop();
//! ```
//!
//! # References
//!
//! - Ruslan Nikolaev, *A Scalable, Portable, and Memory-Efficient Lock-Free
//!   FIFO Queue*, DISC 2019 (SCQ), <https://arxiv.org/abs/1908.04511>.
//! - Dmitry Vyukov, *Bounded MPMC queue* (the design this one avoids), and
//!   heapless issue #583 (its failure under preemption).

#[cfg(sluicegate_cas)]
mod burst;
#[cfg(all(test, sluicegate_cas, not(sluicegate_loom)))]
mod burst_pause_tests;
#[cfg(sluicegate_cas)] // needs CAS: on thumbv6m, enable the `portable-atomic` feature
#[cfg_attr(
    docsrs,
    doc(cfg(any(target_has_atomic = "ptr", feature = "portable-atomic")))
)]
pub mod burst_ring;
#[cfg(feature = "critical-section")]
#[cfg_attr(docsrs, doc(cfg(feature = "critical-section")))]
pub mod cs;
mod fresh;
#[cfg(sluicegate_cas)]
mod lifecycle;
#[cfg(all(test, sluicegate_loom))]
mod loom_tests;
#[cfg(sluicegate_cas)]
mod marks;
#[cfg(all(test, sluicegate_cas, not(sluicegate_loom)))]
mod pause_tests;
#[cfg(sluicegate_cas)] // needs CAS: on thumbv6m, enable the `portable-atomic` feature
pub mod pool;
#[cfg(sluicegate_cas)]
mod ring_marks;
#[cfg(all(test, sluicegate_cas, not(sluicegate_loom)))]
mod schedule_tests;
#[cfg(sluicegate_cas)]
mod scq;
#[cfg(all(test, sluicegate_cas, not(sluicegate_loom)))]
mod track;
#[cfg(all(test, feature = "async", sluicegate_cas, not(sluicegate_loom)))]
mod unhide_tests;
#[cfg(sluicegate_cas)]
mod wait;
#[cfg(sluicegate_cas)] // needs CAS: on thumbv6m, enable the `portable-atomic` feature
pub use burst_ring::BurstRing;
// The module docs' links.
#[cfg(doc)]
use crate::{Overwritten, RingStats, TryPushError};
#[cfg(sluicegate_cas)]
pub use marks::{Level, Marked, Marks, NoMarks};
#[cfg(sluicegate_cas)] // needs CAS: on thumbv6m, enable the `portable-atomic` feature
pub use pool::{FreeBits, FreeIndices, FreeMask, FreePool};
#[cfg(sluicegate_cas)] // needs CAS: on thumbv6m, enable the `portable-atomic` feature
pub use ring::{Ring, SmallRing};
#[cfg(all(feature = "async", sluicegate_cas))]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use ring_marks::BelowLow;
#[cfg(all(feature = "async", sluicegate_cas))]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use wait::{Pop, Push};

// Names the sibling modules (and `ring`) reach through `super::`.
#[cfg(sluicegate_cas)]
use {
    ring::{CLOSED, DRAINED},
    scq::{IndexRing, Settle},
};

/// The SCQ ring and everything of it that needs compare-and-swap, gated
/// once; `Ring` and `SmallRing` are re-exported above.
#[cfg(sluicegate_cas)]
mod ring;
