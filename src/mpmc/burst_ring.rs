//! A multi-producer/multi-consumer ring built for bursts on pinned cores:
//! one compare-and-swap claims a whole burst of positions, and one
//! `fetch_xor` per 32 slots commits it. No loop ever waits for another
//! context: where another operation's claim is in the way, the answer is
//! [`Stop::Busy`].
//!
//! [`BurstRing<T, N, W>`] holds up to `N` items of a `Copy` type (packet
//! descriptors, buffer indices, small records). `W` is the number of 32-bit
//! words of each of its two bitmaps, `N / 32` (1 for `N < 32`; a
//! compile-time error otherwise). Like [`Ring`](super::Ring) it lives in a
//! `static`, is shared through `&self` by any number of threads, and counts
//! what it refuses and evicts in [`RingStats`].
//!
//! ```
//! use sluicegate::mpmc::burst_ring::{BurstRing, Moved, Stop};
//!
//! static RX: BurstRing<u64, 1024, 32> = BurstRing::new();
//!
//! let burst: [u64; 32] = core::array::from_fn(|i| i as u64);
//! assert_eq!(RX.push_burst(&burst).count, 32);
//! let mut out = [0u64; 64];
//! let got = RX.pop_burst(&mut out);
//! assert_eq!(got, Moved { count: 32, stop: Some(Stop::Empty) });
//! assert_eq!(out[..32], burst);
//! ```
//!
//! # Waiting
//!
//! With the `async` feature, `BurstRing::push` and `BurstRing::pop`
//! wait (asynchronously) where `try_push` and `try_pop` answer full, empty
//! or busy, woken by the commit that ends it (any number of waiters, none
//! polling; `wait.rs`); [`BurstRing::push_blocking`] and
//! [`BurstRing::pop_blocking`] park the thread with `std` and spin without
//! it. A wait is counted neither as rejected nor as busy. Each commit then
//! pays one fence and one load while nobody waits, or on x86 and AArch64
//! one `SeqCst` load and no fence, the bitmaps' flips being `SeqCst` there
//! (`BENCHMARKS.md`; `src/wait.rs` has why that suffices).
//!
//! # Watermarks
//!
//! A ring of marks policy [`Marked`], made with
//! [`BurstRing::with_watermarks(low, high)`](BurstRing::with_watermarks),
//! tells producers whose source can be slowed (a port that can send pause
//! frames, a socket it can stop reading) when to slow it: its [`Level`] is
//! `High` from a push that leaves `high` positions or more claimed until a
//! pop that leaves `low` or fewer; `wait_below_low().await` (feature
//! `async`) and [`BurstRing::wait_below_low_blocking`] wait for the drain. The default
//! policy, [`NoMarks`], has none of it and pays nothing. `marks.rs` has the
//! protocol (a lock-free settle loop that reads the count again after each
//! transition, so no level stays wrong once the operations stop), its
//! proofs and its cost: a push tests one word, a pop one fence and one
//! word.
//!
//! # Which MPMC ring
//!
//! - **This ring** on pinned cores that move bursts (packet paths, worker
//!   pools fed in batches): 2 locked instructions per side per call,
//!   whatever the burst size (3 when a burst crosses a 32-slot word), where
//!   [`Ring`](super::Ring) pays several per item. Its price: a context
//!   suspended inside an operation *hides* what is behind its claim until it
//!   resumes. The others are told [`Stop::Busy`] there; they neither spin
//!   nor see a wrong full or empty, but they cannot get past it either.
//!   It pays off on bursts: timed on two cores with spinning waits, bursts
//!   of 32 move an item in a ninth to a thirteenth of the time
//!   crossbeam's `ArrayQueue` takes for single items (a fifth to three
//!   quarters when every miss yields), while its own single items take
//!   1.6–2× as long as `ArrayQueue`'s (each crosses cores on two bitmap
//!   words and a counter); by instructions, a push and pop of one item take
//!   67.1 (4 locked) against `Ring`'s 127.1 (8), a burst of 32 in and out 223
//!   (4) against 4165 (132) (`BENCHMARKS.md`).
//! - **[`Ring`](super::Ring)** (SCQ) where contexts are preempted
//!   mid-operation and the others must keep going past them (threads
//!   without pinning, interrupt handlers that push into a ring that
//!   threads also push into): a suspended context holds at most one slot
//!   there, never the ring.
//! - **[`cs::Ring`](super::cs::Ring)** on a single-core microcontroller:
//!   every operation one short critical section.
//!
//! # Coming from crossbeam-queue, rtrb or DPDK
//!
//! The calls side by side (theirs in the comments):
//!
//! ```
//! use sluicegate::mpmc::burst_ring::{BurstRing, Moved, Stop};
//! use sluicegate::{mpmc, spsc, Insufficient, Overwritten, TryPushError};
//! let mut ring: spsc::Ring<u8, 4> = spsc::Ring::new(); // RingBuffer::new(4)
//! let (mut tx, mut rx) = ring.split();
//! tx.try_push(1).unwrap(); // producer.push(1)
//! assert_eq!((tx.free_slots(), rx.len()), (3, 1)); // producer.slots(), consumer.slots()
//! assert_eq!(rx.read_chunk(2).unwrap_err(), Insufficient { available: 1 }); // Err(TooFewSlots(1))
//! static QUEUE: mpmc::Ring<u32, 2> = mpmc::Ring::new(); // ArrayQueue::new(2)
//! QUEUE.push_iter([1, 2]);
//! assert_eq!(QUEUE.try_push(9), Err(TryPushError::Full(9))); // push(9) == Err(9)
//! assert_eq!(QUEUE.push_overwrite(3), Overwritten::Evicted(1)); // force_push(3) == Some(1)
//! static TX: BurstRing<u64, 64, 2> = BurstRing::new(); // rte_ring_create(.., 64, ..)
//! assert_eq!(TX.push_burst(&[7; 48]).count, 48); // rte_ring_mp_enqueue_burst == 48
//! let mut out = [0; 32];
//! assert_eq!(TX.pop_burst(&mut out), Moved { count: 32, stop: None });
//! assert_eq!(TX.push_burst(&[8; 64]), Moved { count: 48, stop: Some(Stop::Full) });
//! ```
//!
//! # Algorithm
//!
//! The rte_ring claim (DPDK) with a parity-bitmap commit (disruptor-rs's
//! multi-producer barrier) on both sides. Two counters, `prod` and `cons`,
//! count the positions claimed by pushes and by pops; position `q` lives in
//! slot `q mod N` and is in lap `q / N`. Two bitmaps of `N` bits,
//! `published` and `consumed`, start at zero, and each operation flips the
//! bit of every slot it used, once per lap:
//!
//! | position `q` of lap `L` is | when                                   |
//! |----------------------------|----------------------------------------|
//! | *free* (may be pushed)     | `consumed[q mod N] == L mod 2`          |
//! | *published* (may be popped)| `published[q mod N] == (L + 1) mod 2`   |
//!
//! (*Free* says that position `q - N`, the slot's previous lap, was
//! consumed; in lap 0 every slot is free.)
//!
//! A **push** of up to `n` items loads `prod = h`, counts the run of free
//! positions from `h` (one or two bitmap words), claims that run with one
//! CAS of `prod` from `h` to `h + run`, copies the items into the slots and
//! flips their `published` bits with one `fetch_xor` per word. A **pop** is
//! the mirror image: it counts the published run from `cons`, claims it
//! with one CAS of `cons`, copies the items out and flips their `consumed`
//! bits. Bulks claim only if the run is as long as asked. A burst whose
//! run stopped short at a position that opened while it claimed claims
//! again, so it stops only where it was blocked when it last looked. A read
//! chunk claims like a pop and flips the bits when it is dropped; a write
//! chunk claims like a push and publishes when it is filled.
//!
//! A *void* is a claimed position with no item: one a write chunk was
//! dropped without filling (`write` module), or one `push_overwrite`
//! skipped because a pop still held its slot (below). Its bit is set in a
//! third bitmap, the *marks*, and neither parity bit is flipped. A push
//! reads each word of marks before the word of `consumed` bits of the same
//! slots, and its run stops at a set mark (the slot's previous position is
//! a void not yet passed). The first pop blocked at a void at the front
//! *passes* the run of voids there: it claims the front with a CAS of
//! `cons` that sets the *passing* flag, flips both bits of each void (so
//! the laps stay even), stores `cons` past them (still flagged), clears
//! their marks, and clears the flag; pops that see the flag answer busy. A
//! write chunk dropped with its unfilled positions at the front (`cons` at
//! its first void) passes them itself, the same way, so that they do not
//! keep room from the pushes until a pop comes; voids behind an item wait
//! for the pops.
//!
//! When the run is empty, the call decides between its answers with one
//! more load of each counter: a push whose first position's previous lap is
//! not claimed by a pop (`prod - cons == N`) is **full**; if a pop claimed
//! it but has not flipped it yet, the push is **busy**. A pop whose first
//! position no push claimed (`prod == cons`) finds the ring **empty**; if a
//! push claimed it and has not published it yet, the pop is **busy**. The
//! call first checks that its counter did not move meanwhile, and looks at
//! the bit once more, so a stale read gives a retry, not a wrong answer.
//!
//! [`BurstRing::push_overwrite`] on a full ring evicts the oldest item: it
//! claims the next position `at = prod` with a CAS of `prod` that sets its
//! *evicting* flag (a push that sees the flag answers busy), then the
//! oldest position `old = at - N` from the pops with a CAS of `cons` from
//! `old` to `old + 1` (as a pop would), takes its item out, writes the new
//! one into the same slot, flips `consumed` of `old` and `published` of
//! `at`, and clears the flag.
//!
//! **Keeping the newest.** If `old` is claimed by a pop that has not
//! flipped it (a pop in progress, a held [`ReadChunk`]), its slot is not
//! free and nothing can be evicted there. `push_overwrite`, still holding
//! `at` under its flag, marks `at` a void, claims `at + 1` (a `fetch_add`:
//! nobody else moves `prod` while the flag is set) and looks again: the
//! slot may be free (store there), its previous position may be the
//! oldest not held (evict it), or held too (another void). So the new item
//! is stored and the oldest item no pop holds is evicted. It gives its
//! position back and answers busy only where the oldest position is still
//! being pushed, a void there is being passed, or after `N` voids (pops
//! hold every slot).
//!
//! `prod` keeps two flags below its position, *closed* and *evicting*, so
//! a claim and a close are ordered by one word: every claim CAS after the
//! close fails and sees the flag. `cons` keeps one, *passing*.
//!
//! # Why it is correct
//!
//! **Claims are exclusive.** Each position is claimed by exactly one
//! successful CAS of its side's counter (or, while `push_overwrite` holds
//! the evicting flag, one `fetch_add` of `prod`), and the counters only
//! grow, so two operations never hold the same position. Hence `cons <=
//! prod <= cons + N`: a pop claims only published positions and voids,
//! which pushes claimed, and a push claims position `q` only once `q - N`
//! was claimed by a pop (consumed, or, for a void, held). The one exception
//! is a `push_overwrite` that holds its position and has not yet taken the
//! oldest: `prod` is then `cons + N + 1` for a moment, with pushes held off
//! by its flag; `len` and the watermarks' counts clamp it to `N`.
//!
//! **The parity is never ambiguous.** A push that loaded `prod = h` and
//! checks position `q` in `[h, h + N)` of lap `L` reads the mark, then one
//! bit, which only says how many laps of the slot were consumed modulo 2.
//! If its CAS then succeeds, `prod` was `h` all along, without a flag, so
//! (a) no position `>= h` was claimed: lap `L` of the slot has not been
//! published, let alone consumed, and (b) position `q - N < h` was claimed
//! by a push that found lap `L - 2` consumed before its CAS, by an
//! eviction, which consumed lap `L - 2` itself and cleared its flag only
//! after flipping that bit, or as a void: by a write chunk (lap `L - 2`
//! consumed, as a push) or by `push_overwrite` because a pop still held lap
//! `L - 2`. The push read the mark clear, so a void at `q - N` has been
//! passed, and the pass flipped its bits before clearing the mark (release;
//! the mark's load is acquire). The push loaded `prod` with acquire, and
//! every change of `prod` is a read-modify-write in one release sequence, so
//! the flips of (b) happen before this load. So the laps consumed are `L -
//! 1` or `L` counting from lap 0 (`L - 1` while a pop still holds lap `L -
//! 2` under a passed void, or has not flipped lap `L - 1`), two values of
//! different parity: the bit is exact. (Without the evicting flag a push
//! could read the bit between an eviction's claim and its flip; without
//! the mark, while a void over a held slot waits to be passed, with two
//! laps of the slot outstanding: either way the count is off by two, and
//! a held slot reads as free.) A stale bit only makes the run shorter (a
//! spurious busy, checked again) or the CAS fail. Pops are symmetric, with
//! `published`, `cons` and the pushes: a void is unpublished until its
//! pass, which holds the front with its flag until the flips are done, so
//! no pop reaches the slot's next lap with its bit two laps behind.
//!
//! **The slot hand-off.** A push writes a slot only after an acquire load of
//! the `consumed` word whose release `fetch_xor` (by the pop of the slot's
//! previous lap) followed that pop's read; a pop reads a slot only after an
//! acquire load of the `published` word whose release `fetch_xor` followed
//! the push's write. Flips of the other bits of a word are read-modify-writes
//! and so continue the release sequence: the acquire load synchronises with
//! every flip before the value it reads. A void has no item: its slot is
//! written next by the push of its next lap, once both the pop that held it
//! and the pass of the void have flipped.
//!
//! **Full, empty and busy are exact.** Full is answered when the push's
//! counter read `h` before a load of `cons` with `h - cons >= N`: both
//! counters only grow and `prod <= cons + N`, so at that load `prod` was
//! still `h` and `prod - cons == N` (a void takes its position's room until
//! it is passed). Empty is answered when `cons` read `c` before a load of
//! `prod == c`: no push had claimed `c`, so no pop had either, and at that
//! load `cons == prod`. Where a first attempt fails, both are tested before
//! anything else, with two loads, so a poll of an idle ring or a push
//! refused by a full one takes no loop and reads no bitmap. Every other
//! empty run is busy, and only then: a claimed position whose bit is not
//! flipped yet belongs to an operation between its claim and its flip, a
//! mark behind the front belongs to a pass in progress, and a void at the
//! front is passed, not answered. These loads and the claim CASes are
//! `SeqCst`, so "at that load" is a point of their single total order.
//!
//! **One evictor at a time, evicting the oldest.** `push_overwrite` claims
//! its position with a CAS of `prod` that sets the evicting flag, from a
//! word without flags, so one at a time holds it; pushes answer busy while
//! it is set. It takes the oldest position `old` with a CAS of `cons` from
//! `old` that succeeds only while no pop has claimed it, so each eviction
//! takes the oldest item not claimed by a pop, exactly once, and its new
//! item takes the newest position. Where a pop has claimed `old` and not
//! flipped it, it makes its position a void and claims the next: the void
//! is claimed as a push's position would be (the count of positions rises
//! by one) and passed by the pops in order, so FIFO order and the laps are
//! kept. Its mark is set (release) before the flag is cleared, so a push
//! that loads `prod` after sees it, and a pop that finds the position
//! unpublished before the mark answers busy, as for a push in progress.
//!
//! **Closed and drained is final.** A pop answers [`Stop::Closed`] when
//! `prod` carries the close bit and not the evicting flag, and
//! `cons == prod`. Pushes refuse once they see the bit, and every claim
//! CAS after the close fails (the word changed), so `prod` then moves only
//! by a `push_overwrite` that claimed before the close, and it holds the
//! evicting flag from that claim until it has published its item or given
//! its position back. (Its claims stay ahead of `cons` but for one case:
//! a void it made can be passed before it claims its next position, so
//! `cons == prod` with the flag set; the pop answers busy then.) A pass
//! holds `cons` with its flag, which never equals `prod`. Pops still in
//! progress only take items, so they do not hold the answer back.
//!
//! # Progress
//!
//! **Never spins; not lock-free: a suspended context hides what is behind
//! its claim.** Every loop retries only after a CAS that failed because
//! another context moved a counter, or after a counter was seen to move:
//! no loop waits for a value that only one other context can write. A
//! context suspended between its claim and its flip (a preempted thread, an
//! interrupted handler, a held [`ReadChunk`]) makes the others answer
//! [`Stop::Busy`] for the positions behind its claim, up to the whole ring,
//! until it resumes. An interrupt handler that preempts a same-ring
//! operation on its own core therefore gets `Busy` and must not retry in a
//! loop (the preempted operation cannot finish until the handler returns);
//! it can count the answer and move on. Use [`Ring`](super::Ring) where that
//! is not good enough. A pass of voids holds the front the same way, and a
//! `push_overwrite` holds the pushes (not the pops) while its flag is set.
//! `push_overwrite` never waits for the pops: each of its turns makes a
//! void, or follows a pop's claim or a pass that moved `cons`; it makes at
//! most `N` voids and takes at most `3N` turns before it answers.
//!
//! # Orderings
//!
//! - Claim CASes of `prod` and `cons`, `push_overwrite`'s advances of
//!   `prod` and the clearing of its flag, the pass's store of `cons`, the
//!   close, and the loads that decide full, empty or closed: `SeqCst`
//!   (the total order the exactness argument above uses). On x86-64 and
//!   Armv8 these are the same instructions as their acquire/release forms.
//! - Counter loads at the start of an operation: acquire (they synchronise
//!   with the claim that made the previous lap's bit current, see the parity
//!   argument).
//! - Bitmap loads: acquire; flips: release (the slot hand-off). Marks:
//!   set with release (before the evicting flag is cleared, or by a chunk
//!   done with its slots), cleared with release after the pass's flips,
//!   read with acquire before the `consumed` bits (the parity argument).
//!   On x86 and AArch64 the flips and marks are `SeqCst` instead (the same
//!   instruction on x86-64), so that the wake-ups need no fence.
//! - The statistics: relaxed.
//!
//! # Wrap-around and memory
//!
//! Positions count modulo `2^(usize::BITS - 2)` (the counters hold
//! `4 × position`, the two low bits of `prod` and `cons` being their
//! flags). A context
//! suspended between loading a counter and its CAS while the others move
//! that counter by a multiple of that (2^30 operations on 32-bit targets)
//! could claim with a stale check; nothing else depends on the counters'
//! range. The tests start the counters just before the wrap.
//!
//! Memory: `N` slots of `T`; the two counters and the three bitmaps (`W`
//! words each), each on its own 128-byte line on hosts; six statistics
//! words, on a line of their own on hosts. On a Cortex-M3 `BurstRing<u32, 8, 1>` takes 76
//! bytes and `BurstRing<u32, 1024, 32>` 4512; on x86-64, 768 and 4864.
//! The `async` feature adds a waiter list per side (a count, a lock word and the list's two ends: 8 words, on one
//! more 128-byte line on hosts; `tests/ram.rs` pins it). `N` must be a
//! power of two from 1 to `2^(usize::BITS - 3)`:
//!
//! ```compile_fail,E0080
//! static BAD: sluicegate::mpmc::burst_ring::BurstRing<u8, 48, 1> =
//!     sluicegate::mpmc::burst_ring::BurstRing::new();
//! let _ = BAD.try_pop();
//! ```
//!
//! # References
//!
//! - DPDK, *Ring Library* (`lib/ring`, `rte_ring_c11_pvt.h`): the claim of
//!   `n` positions with one CAS, and its known issue with preemption (a
//!   spinning in-order tail update, which this ring replaces).
//! - nicholassm/disruptor-rs, `MultiProducerBarrier` (`src/producer/multi.rs`):
//!   the parity bitmap flipped with `fetch_xor`.

mod answer;
mod batch;
mod bits;
mod claim;
mod evict;
#[cfg(all(test, sluicegate_loom))]
mod loom_tests;
mod marks;
mod observe;
#[cfg(all(test, not(sluicegate_loom)))]
mod pause_tests;
#[cfg(all(test, not(sluicegate_loom)))]
mod schedule_tests;
mod tally;
mod wait;
mod write;

pub use crate::mpmc::marks::{Level, Marked, Marks, NoMarks};
pub use answer::{Moved, PopError, PushError, Stop};
pub use batch::ReadChunk;
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use marks::BelowLow;
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use wait::{Pop, Push};
pub use write::WriteChunk;

use bits::*;
use claim::flagged;
use tally::Tally;

use crate::sync::{
    const_fn, pause, pause_point, slots, AtomicU32, AtomicUsize, Ordering, Padded, SharedCounter,
    Slot, SoloCounter,
};
use crate::RingStats;

/// The close flag, in `prod`.
const CLOSED: usize = 1;
/// The eviction flag, in `prod`: set while an eviction has advanced `prod`
/// but not yet flipped the consumed bit of the item it took.
const EVICTING: usize = 2;
/// Both flags.
const FLAGS: usize = CLOSED | EVICTING;
/// The pass flag, in `cons`: set while a pop passes a run of voids at the
/// front (from its claim to the flips that end it); pops answer busy.
const PASSING: usize = 1;
/// The counters hold positions shifted past the flags.
const SHIFT: u32 = 2;
/// One position, in the counters' units.
const ONE: usize = 1 << SHIFT;

/// A bounded MPMC ring for bursts of `Copy` items; see the
/// [module documentation](self). `W` is `N / 32`, or 1 for `N < 32`.
// `repr(C)`: the hot words (the counters, the bitmaps, the waiter lists)
// in the first 124 bytes on a microcontroller, where a Cortex-M0 reaches a
// field with one load or store; the slots first on hosts, where copies and
// slot addresses are one instruction shorter from the ring's start (the
// padded groups keep the lines apart either way).
#[repr(C)]
pub struct BurstRing<T: Copy, const N: usize, const W: usize, M: Marks = NoMarks> {
    #[cfg(not(all(target_arch = "arm", target_os = "none")))]
    slots: [Slot<T>; N],
    /// The statistics: off the hot paths, on their own line on hosts.
    tally: Padded<Tally>,
    /// Positions claimed by pushes (shifted by [`SHIFT`]), plus [`CLOSED`]
    /// and [`EVICTING`].
    prod: Padded<AtomicUsize>,
    /// Positions claimed by pops, evictions included (shifted by [`SHIFT`]),
    /// plus [`PASSING`].
    cons: Padded<AtomicUsize>,
    /// Bit `s`: the parity of the laps of slot `s` published.
    published: Padded<[AtomicU32; W]>,
    /// What a push reads to find room: the consumed bits and the voids'
    /// marks, on one line on hosts (for `W <= 16`).
    room: Padded<Room<W>>,
    /// The watermarks' words (`marks.rs`); none without watermarks.
    marks: M::Words,
    /// Per side (`Side as usize`): the tasks and threads waiting
    /// (`wait.rs`).
    #[cfg(feature = "async")]
    waiters: Padded<crate::wait::queue::Sides>,
    /// Slot `q mod N` holds position `q`'s item while `q` is published and
    /// not consumed. Only the operation that claimed a position touches its
    /// slot between the claim and the flip.
    #[cfg(all(target_arch = "arm", target_os = "none"))]
    slots: [Slot<T>; N],
    /// Of `rejected`, the items of bulk pushes refused with room in the
    /// ring (fewer free slots than the bulk): they do not make `peak` read
    /// `N`. On a microcontroller last, off the hot words' offsets; on
    /// hosts in the statistics' line.
    #[cfg(all(target_arch = "arm", target_os = "none"))]
    rejected_with_room: SharedCounter,
}

/// The bitmaps a push reads.
struct Room<const W: usize> {
    /// Bit `s`: the parity of the laps of slot `s` consumed.
    consumed: [AtomicU32; W],
    /// Bit `s`: slot `s`'s latest claimed position is a *void* (claimed
    /// with no item: left by a dropped write chunk, or skipped by
    /// `push_overwrite` because a pop still held the slot), not passed yet.
    /// Read by every push (its run stops at a set bit); written only where
    /// voids are made and passed.
    void: [AtomicU32; W],
}

// SAFETY: items cross between contexts by value (`T: Send`); a slot is
// touched only by the operation holding its position, with release/acquire
// on each hand-off (the bitmap flips and loads, module docs). No `&self`
// method hands out a `&T` except through a `ReadChunk`, whose positions are
// claimed by it alone and which is `Send`/`Sync` only where `&[T]` is.
unsafe impl<T: Copy + Send, const N: usize, const W: usize, M: Marks> Sync
    for BurstRing<T, N, W, M>
{
}

impl<T: Copy, const N: usize, const W: usize> BurstRing<T, N, W> {
    const_fn! {
        /// An empty ring. `N` must be a power of two from 1 to
        /// `2^(usize::BITS - 3)` and `W` must be `N / 32` (1 for `N < 32`),
        /// checked at compile time.
        ///
        /// ```
        /// static Q: sluicegate::mpmc::burst_ring::BurstRing<u32, 64, 2> =
        ///     sluicegate::mpmc::burst_ring::BurstRing::new();
        /// assert!(Q.is_empty());
        /// ```
        pub fn new() -> Self {
            Self::starting_at(0, ())
        }
    }

    /// An empty ring whose counters start at position `start` (wrapping).
    /// For tests of the counters' wrap only.
    #[doc(hidden)]
    pub fn with_start(start: usize) -> Self {
        let ring = Self::starting_at(start, ());
        ring.mark_lap_before(start);
        ring
    }
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// For a ring made at `start`: lap `start / N` of every slot counts as
    /// published and consumed (the bits of an odd lap start at 1).
    fn mark_lap_before(&self, start: usize) {
        if (start >> Self::LOG) & 1 == 1 {
            for k in 0..W {
                let bits = if N >= 32 { u32::MAX } else { (1u32 << N) - 1 };
                self.published[k].store(bits, Ordering::Relaxed);
                self.room.consumed[k].store(bits, Ordering::Relaxed);
            }
        }
    }

    /// `log2(N)`.
    const LOG: u32 = N.trailing_zeros();

    const_fn! {
        /// An empty ring whose counters start at word `start` (whole laps
        /// only), with the watermarks' words `marks`.
        fn starting_at(start: usize, marks: M::Words) -> Self {
            const {
                assert!(
                    N.is_power_of_two() && N.trailing_zeros() <= usize::BITS - 3,
                    "sluicegate: BurstRing capacity N must be a power of two in 1..=2^(usize::BITS - 3)"
                );
                assert!(
                    W == if N < 32 { 1 } else { N / 32 },
                    "sluicegate: BurstRing's W must be N / 32 (1 for N < 32)"
                );
            };
            // Whole laps only, so that `with_start` can mark the lap before.
            let start = (start >> Self::LOG) << Self::LOG;
            Self {
                prod: Padded::new(AtomicUsize::new(start.wrapping_mul(ONE))),
                cons: Padded::new(AtomicUsize::new(start.wrapping_mul(ONE))),
                published: Padded::new(words::<W>()),
                room: Padded::new(Room {
                    consumed: words::<W>(),
                    void: words::<W>(),
                }),
                marks,
                tally: Padded::new(Tally {
                    peak: AtomicUsize::new(0),
                    rejected: SharedCounter::new(),
                    #[cfg(not(all(target_arch = "arm", target_os = "none")))]
                    rejected_with_room: SharedCounter::new(),
                    overwritten: SoloCounter::new(),
                    busy: SharedCounter::new(),
                    expired: SharedCounter::new(),
                    #[cfg(all(test, not(sluicegate_loom)))]
                    voided: SharedCounter::new(),
                }),
                slots: slots::<T, N>(),
                #[cfg(feature = "async")]
                waiters: Padded::new(crate::wait::queue::sides()),
                #[cfg(all(target_arch = "arm", target_os = "none"))]
                rejected_with_room: SharedCounter::new(),
            }
        }
    }

    /// Pushes `item`, or hands it back: [`PushError::Full`] if no slot is
    /// free (counted in `rejected`), [`PushError::Busy`] if the next slot is
    /// held by a pop in progress (counted in `busy`), [`PushError::Closed`]
    /// once the ring is closed. Never waits.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, PushError};
    ///
    /// let ring: BurstRing<u8, 1, 1> = BurstRing::new();
    /// assert_eq!(ring.try_push(1), Ok(()));
    /// assert_eq!(ring.try_push(2), Err(PushError::Full(2)));
    /// ```
    #[inline]
    pub fn try_push(&self, item: T) -> Result<(), PushError<T>> {
        match self.try_claim_one_push() {
            Some((h, bit)) => {
                self.put(h, bit, item);
                if M::push_test(&self.marks, h.wrapping_add(ONE)) {
                    self.settle();
                }
                Ok(())
            }
            None => self.try_push_slow(item),
        }
    }

    /// [`try_push`](Self::try_push) after its first attempt failed.
    #[cold]
    #[inline(never)]
    fn try_push_slow(&self, item: T) -> Result<(), PushError<T>> {
        // The refused push's common case first, before the loop's set-up.
        if self.full_now() {
            self.tally.rejected.add(1);
            return Err(PushError::Full(item));
        }
        match self.claim_push_slow(1, 1) {
            Ok((h, _)) => {
                self.put(h, Bit::of::<N>(h >> SHIFT), item);
                Ok(())
            }
            Err(stop) => Err(self.refuse(stop, item)),
        }
    }

    /// The watermarks' `settle`, out of line.
    #[cold]
    #[inline(never)]
    fn settle(&self) {
        M::settle(&self.marks, self);
    }

    /// Writes `item` to the claimed position `h`, publishes it and wakes a
    /// waiting pop.
    #[inline(always)]
    fn put(&self, h: usize, bit: Bit, item: T) {
        pause_point(pause::BURST_PUSH_CLAIMED);
        // SAFETY: we claimed position `h`: its slot is ours until we flip
        // its bit.
        unsafe { self.write(Self::slot(h), item) };
        pause_point(pause::BURST_PUSH_WRITTEN);
        bit.flip(&self.published);
        self.wake_poppers(1);
    }

    /// Pops the oldest item, or says why not: [`PopError::Empty`],
    /// [`PopError::Busy`] (the oldest item is still being pushed; counted in
    /// `busy`), or [`PopError::Closed`] once the ring is closed and drained.
    /// Never waits.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, PopError};
    ///
    /// let ring: BurstRing<u8, 2, 1> = BurstRing::new();
    /// assert_eq!(ring.try_pop(), Err(PopError::Empty));
    /// ring.try_push(4).unwrap();
    /// assert_eq!(ring.try_pop(), Ok(4));
    /// ```
    #[inline]
    pub fn try_pop(&self) -> Result<T, PopError> {
        match self.try_claim_one_pop() {
            Some((c, bit)) => {
                let item = self.take(c, bit);
                if M::pop_test(&self.marks, self) {
                    self.settle();
                }
                Ok(item)
            }
            None => self.try_pop_slow(),
        }
    }

    /// [`try_pop`](Self::try_pop) after its first attempt failed.
    #[cold]
    #[inline(never)]
    fn try_pop_slow(&self) -> Result<T, PopError> {
        // The idle poll first, before the loop's set-up.
        if self.empty_now() {
            return Err(PopError::Empty);
        }
        match self.claim_pop_slow(1, 1) {
            Ok((c, _)) => Ok(self.take(c, Bit::of::<N>(c >> SHIFT))),
            Err(stop) => Err(match self.count(stop, 1) {
                Stop::Busy => PopError::Busy,
                Stop::Closed => PopError::Closed,
                _ => PopError::Empty,
            }),
        }
    }

    /// Reads the item of the claimed position `c`, frees its slot and wakes
    /// a waiting push.
    #[inline(always)]
    fn take(&self, c: usize, bit: Bit) -> T {
        pause_point(pause::BURST_POP_CLAIMED);
        // SAFETY: we claimed published position `c`: its slot holds its
        // item and is ours until we flip its bit.
        let item = unsafe { self.read(Self::slot(c)) };
        pause_point(pause::BURST_POP_READ);
        bit.flip(&self.room.consumed);
        self.wake_pushers(1);
        item
    }

    /// The slot of the position in counter word `word`.
    #[inline(always)]
    fn slot(word: usize) -> usize {
        (word >> SHIFT) & (N - 1)
    }

    /// # Safety
    /// The caller holds the position of slot `s` as a push.
    #[inline(always)]
    unsafe fn write(&self, s: usize, item: T) {
        debug_assert!(s < N);
        // SAFETY: per the contract, nobody else touches slot `s`.
        self.slots[s].with_mut(|p| unsafe { (*p).write(item) });
    }

    /// # Safety
    /// The caller holds the published position of slot `s` as a pop.
    #[inline(always)]
    unsafe fn read(&self, s: usize) -> T {
        debug_assert!(s < N);
        // SAFETY: per the contract, the slot holds an item nobody else
        // touches; `T: Copy`, so reading leaves nothing to drop.
        self.slots[s].with(|p| unsafe { (*p).assume_init() })
    }
}

/// Positions from counter word `from` to counter word `to` (`from <= to`,
/// modulo the counters' range).
#[inline(always)]
fn gap(to: usize, from: usize) -> usize {
    to.wrapping_sub(from) >> SHIFT
}
