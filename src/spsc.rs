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
//!   hands the item back inside [`Full`]. Every operation uses only atomic
//!   loads and stores, so it runs natively on Cortex-M0, and every operation is
//!   **wait-free** (a bounded number of steps whatever the other side does).
//! - [`Overwrite`]: everything above, plus [`Producer::push_overwrite`], which
//!   makes room by evicting the oldest item and returns it. The producer is
//!   **wait-free** and never waits for the consumer; the consumer becomes
//!   **lock-free** (a pop retries only when the producer evicted the item it
//!   was about to take). Needs compare-and-swap (native, or `portable-atomic`).
//!
//! Nothing is lost silently: every item pushed is popped, handed back to the
//! caller, or counted (see [`Stats`]).
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
//!         let _shed = tx.push_overwrite(adc_reading);
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
//! (here two threads would mutate the peeked `Cell` at once):
//!
//! ```compile_fail,E0277
//! use std::cell::Cell;
//! let mut ring: sluicegate::spsc::Ring<Cell<u32>, 4> = sluicegate::spsc::Ring::new();
//! let (mut tx, rx) = ring.split();
//! tx.try_push(Cell::new(0)).unwrap();
//! std::thread::scope(|s| {
//!     let rx = &rx;
//!     s.spawn(move || rx.peek().unwrap().set(1));
//!     s.spawn(move || rx.peek().unwrap().set(2));
//! });
//! ```
//!
//! The same holds for a [`ReadChunk`] (`as_slices`) and a [`Peek`] guard;
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
//! **Overwrite**: the producer must sometimes move `head` itself, so `head`
//! becomes a shared word. Positions are stored doubled (`pos << 1`) in both
//! indices and the low bit of `head` is a `BUSY` flag owned by the consumer:
//!
//! | `head` word      | meaning                                            | who moves it                          |
//! |------------------|----------------------------------------------------|---------------------------------------|
//! | `h << 1`         | oldest item at `h`, nobody reading                 | consumer CAS → `h<<1 \| 1` (claim); producer CAS → `(h+1) << 1` (evict) |
//! | `h << 1 \| 1`    | consumer is reading items from `h` on              | consumer store → `(h+k) << 1` (release, `k` ≥ 0) |
//!
//! A pop claims by CAS (`h<<1` → `h<<1|1`), reads, then stores the advanced
//! position with `Release`, clearing the flag. `push_overwrite` on a full ring
//! evicts by CAS (`h<<1` → `(h+1)<<1`), reading the evicted item and writing the
//! new one into the same slot. The CAS decides who owns slot `h`: whoever
//! changes the word first. When its cached copy of `head` says full, the
//! producer CASes straight from that copy instead of loading `head` first:
//! the copy is never ahead of the real head, so the CAS succeeds exactly when
//! the ring really is full with nobody reading, and a failure returns the real
//! word, which says whether the consumer freed a slot or is reading the oldest. The producer never writes `head` while `BUSY` is
//! set, so the consumer's release is a plain store.
//!
//! The one case where the producer cannot evict the oldest: the ring is full
//! **and** the consumer is at that moment inside a pop (or holds a
//! [`ReadChunk`] / peek guard) covering the oldest item. Then the slot the new
//! item would go into is being read, and rather than wait, `push_overwrite`
//! **sheds the new item**: it returns `Some(new_item)` and counts it in
//! [`Stats::rejected`]. In every other case it returns the evicted oldest item
//! and counts it in [`Stats::overwritten`]. The producer's steps are bounded:
//! a failed eviction CAS means the consumer either claimed the oldest item
//! (shed the new one) or finished a pop (there is room now).
//!
//! Orderings for Overwrite: the eviction CAS uses `Acquire` on success and on
//! failure, because either way the producer goes on to reuse a slot the
//! consumer may have just read, and the consumer's `Release` store of `head`
//! is what publishes the end of that read. A successful claim CAS is
//! `Relaxed`: the data it reads was published by the `tail` store it already
//! acquired, and the slot cannot be reused while the claim is held. A failed
//! claim CAS hands the consumer a head moved on by evictions, possibly past
//! every `tail` value it has seen; so the eviction CAS is also `Release` and
//! the failed claim `Acquire`: the `tail` store that filled the ring before an
//! eviction is then visible to the consumer's next load of `tail`, which is
//! never behind the head it got. (Before this, a consumer on a weak memory
//! model could claim positions past the last `tail` it had acquired and read
//! slots being written: Miri found it in `stress_overwrite_exact_accounting`.)
//!
//! On 32-bit targets positions wrap at 2^32 (Reject) or 2^31 (Overwrite);
//! the differences are taken with wrapping arithmetic and are never larger
//! than `N`, so wrap-around is invisible. An ABA on `head` would need 2^31
//! evictions between a consumer's load and its CAS; even then the CAS would
//! claim the item that is the oldest at that moment, which is correct.
//!
//! # References
//!
//! - L. Lamport, "Specifying Concurrent Program Modules", TOPLAS 1983 (the
//!   single-producer/single-consumer ring).
//! - E. Rigtorp, "Optimizing a ring buffer for throughput" (2021): cached
//!   indices and padding.
//! - DPDK `rte_ring`: the burst/bulk vocabulary.

mod chunk;
#[cfg(all(sluicegate_cas, not(sluicegate_loom)))]
mod peek;

pub use chunk::{ReadChunk, WriteChunkUninit};
#[cfg(all(sluicegate_cas, not(sluicegate_loom)))]
pub use peek::Peek;

use core::marker::PhantomData;
use core::mem::MaybeUninit;

#[cfg(sluicegate_cas)]
use crate::sync::AtomicBool;
use crate::sync::{const_fn, slots, LoadStoreUsize, Ordering, Padded, Slot, SoloCounter};
use crate::{Full, Insufficient};

mod sealed {
    pub trait Sealed {}
}

/// What a full ring does with a new item: the ring's policy parameter.
///
/// Implemented by [`Reject`] and [`Overwrite`] only.
pub trait Policy: sealed::Sealed {
    /// Positions are stored shifted left by this much (room for a flag).
    #[doc(hidden)]
    const SHIFT: u32;
    /// Flag bit in the stored `head` while the consumer holds items (0: none).
    #[doc(hidden)]
    const BUSY: usize;
}

/// Policy: a full ring refuses new items (wait-free, loads and stores only).
#[derive(Debug)]
pub enum Reject {}
impl sealed::Sealed for Reject {}
impl Policy for Reject {
    const SHIFT: u32 = 0;
    const BUSY: usize = 0;
}

/// Policy: the producer may also evict the oldest item to make room
/// ([`Producer::push_overwrite`]). Needs compare-and-swap (native, or the
/// `portable-atomic` feature).
#[cfg(sluicegate_cas)]
#[cfg_attr(
    docsrs,
    doc(cfg(any(target_has_atomic = "ptr", feature = "portable-atomic")))
)]
#[derive(Debug)]
pub enum Overwrite {}
#[cfg(sluicegate_cas)]
impl sealed::Sealed for Overwrite {}
#[cfg(sluicegate_cas)]
impl Policy for Overwrite {
    const SHIFT: u32 = 1;
    const BUSY: usize = 1;
}

/// The consumer's claim CAS (only the [`Overwrite`] policy claims).
#[inline(always)]
fn claim_cas(head: &LoadStoreUsize, current: usize, new: usize) -> Result<usize, usize> {
    #[cfg(sluicegate_cas)]
    {
        // Success, Relaxed: the items were published by the tail store the
        // consumer already acquired; the CAS only decides who owns slot
        // `current`. Failure, Acquire: the word read was written by the
        // producer's eviction CAS (Release), so the `tail` stores before it
        // are visible to our next load of `tail`, which therefore is not
        // behind the new head (see "Orderings for Overwrite").
        crate::sync::rmw_view(head).compare_exchange(
            current,
            new,
            Ordering::Relaxed,
            Ordering::Acquire,
        )
    }
    #[cfg(not(sluicegate_cas))]
    {
        // Without CAS only `Reject` exists, whose BUSY is 0: never called.
        let _ = (head, new);
        Ok(current)
    }
}

/// What happened to items that did not go through, since the ring was made.
///
/// Both counters wrap on overflow (at 2^32 on 32-bit targets). They are
/// written only by the producer and only when the event happens, so the
/// success path pays nothing for them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Stats {
    /// Items refused at the door and handed back to the caller: failed
    /// `try_push`, the part of a burst or bulk push that did not fit, and new
    /// items that `push_overwrite` had to shed (see the module docs).
    pub rejected: usize,
    /// Items evicted from inside the ring by `push_overwrite` (and handed back
    /// to the producer).
    pub overwritten: usize,
}

/// Producer-owned shared state: one cache line on hosts.
struct ProducerSide {
    /// Stored position of the next item to write. Only the producer stores it.
    tail: LoadStoreUsize,
    rejected: SoloCounter,
    overwritten: SoloCounter,
}

/// A bounded single-producer/single-consumer ring of `N` items.
///
/// See the [module documentation](self) for the model and the guarantees.
#[repr(C)] // the indices first: small offsets on Cortex-M0
pub struct Ring<T, const N: usize, P: Policy = Reject> {
    /// Stored position of the oldest item (plus `BUSY` under [`Overwrite`]).
    /// Stored by the consumer; under `Overwrite` also CAS-ed by the producer.
    /// Invariant: `tail - head` (positions) is in `0..=N`.
    /// Under `Overwrite` every concurrent access goes through `rmw_view`.
    head: Padded<LoadStoreUsize>,
    producer: Padded<ProducerSide>,
    /// Set once `try_split` has handed out the handles.
    #[cfg(sluicegate_cas)]
    split_done: AtomicBool,
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
        pub fn new() -> Self {
            Self::with_start(0)
        }
    }

    const_fn! {
        /// An empty ring whose positions start at `start` (wrapping). For tests
        /// of index wrap-around only.
        #[doc(hidden)]
        pub fn with_start(start: usize) -> Self {
            const {
                assert!(
                    N > 0 && N.is_power_of_two(),
                    "sluicegate: ring capacity N must be a power of two (1, 2, 4, ...)"
                );
                assert!(N <= usize::MAX >> 2, "sluicegate: ring capacity too large");
            };
            let stored = start << P::SHIFT;
            Self {
                head: Padded::new(LoadStoreUsize::new(stored)),
                producer: Padded::new(ProducerSide {
                    tail: LoadStoreUsize::new(stored),
                    rejected: SoloCounter::new(),
                    overwritten: SoloCounter::new(),
                }),
                #[cfg(sluicegate_cas)]
                split_done: AtomicBool::new(false),
                slots: slots::<T, N>(),
                _policy: PhantomData,
            }
        }
    }

    /// How many items the ring holds when full (`N`).
    #[inline]
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Splits the ring into its two handles. The `&mut` borrow guarantees no
    /// other handle is alive; after both are dropped the ring can be split again.
    pub fn split(&mut self) -> (Producer<'_, T, N, P>, Consumer<'_, T, N, P>) {
        self.handles()
    }

    /// Splits a shared (e.g. `static`) ring, once: the first call returns the
    /// handles, every later call `None`. Needs an atomic swap (native, or the
    /// `portable-atomic` feature on targets such as thumbv6m).
    #[cfg(sluicegate_cas)]
    pub fn try_split(&self) -> Option<(Producer<'_, T, N, P>, Consumer<'_, T, N, P>)> {
        // Relaxed: the flag only has to pick one winner (the swap is atomic);
        // the handles synchronise their data accesses through head and tail.
        if self.split_done.swap(true, Ordering::Relaxed) {
            None
        } else {
            Some(self.handles())
        }
    }

    fn handles(&self) -> (Producer<'_, T, N, P>, Consumer<'_, T, N, P>) {
        // Acquire: a ring split again after `split(&mut)` sees the items the
        // earlier handles left (the `&mut` already orders it; this is cheap).
        let head = self.load_head(Ordering::Acquire) & !P::BUSY;
        let tail = self.producer.tail.load(Ordering::Acquire);
        (
            Producer {
                ring: self,
                tail,
                head,
            },
            Consumer {
                ring: self,
                head,
                tail,
            },
        )
    }

    /// How many items the ring holds now (a snapshot, from any context).
    pub fn len(&self) -> usize {
        let head = self.load_head(Ordering::Acquire) & !P::BUSY;
        let tail = self.producer.tail.load(Ordering::Acquire);
        // Loaded at different moments: clamp so a racing reader never sees > N.
        (tail.wrapping_sub(head) >> P::SHIFT).min(N)
    }

    /// Whether the ring is empty now (a snapshot).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The counters of rejected and overwritten items (readable from any context).
    pub fn stats(&self) -> Stats {
        Stats {
            rejected: self.producer.rejected.get(),
            overwritten: self.producer.overwritten.get(),
        }
    }

    #[inline(always)]
    fn slot(&self, stored: usize) -> &Slot<T> {
        &self.slots[(stored >> P::SHIFT) & (N - 1)]
    }

    /// Slot index of a stored position.
    #[inline(always)]
    const fn index(stored: usize) -> usize {
        (stored >> P::SHIFT) & (N - 1)
    }

    /// Pointer to slot `i`, with provenance over the whole array.
    #[cfg(not(sluicegate_loom))]
    #[inline(always)]
    fn slot_ptr(&self, i: usize) -> *mut MaybeUninit<T> {
        debug_assert!(i <= N);
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

impl<T, const N: usize, P: Policy> Drop for Ring<T, N, P> {
    fn drop(&mut self) {
        if !core::mem::needs_drop::<T>() {
            return;
        }
        // `&mut self`: no handle is alive (they borrow the ring), so plain
        // reads are fine. A leaked read guard may have left BUSY set.
        let mut left = Leftovers {
            ring: self,
            pos: self.load_head(Ordering::Relaxed) & !P::BUSY,
            tail: self.producer.tail.load(Ordering::Relaxed),
        };
        // If an item's `Drop` panics, unwinding drops `left`, which drops
        // the items after it (a second panic then aborts, as in `Vec`).
        left.drop_all();
    }
}

/// The items a dropped ring still holds, stored positions `pos..tail`.
struct Leftovers<'r, T, const N: usize, P: Policy> {
    ring: &'r Ring<T, N, P>,
    pos: usize,
    tail: usize,
}

impl<T, const N: usize, P: Policy> Leftovers<'_, T, N, P> {
    fn drop_all(&mut self) {
        while self.pos != self.tail {
            let pos = self.pos;
            // Advanced before the drop, so a panicking item is not dropped again.
            self.pos = pos.wrapping_add(Ring::<T, N, P>::STEP);
            self.ring.slot(pos).with_mut(|p| {
                // SAFETY: positions in [head, tail) of a ring being dropped
                // hold initialised items that nobody else can reach; `pos`
                // moved past this one first, so each is dropped once.
                unsafe { (*p).assume_init_drop() }
            });
        }
    }
}

impl<T, const N: usize, P: Policy> Drop for Leftovers<'_, T, N, P> {
    fn drop(&mut self) {
        self.drop_all();
    }
}

// Index moves shared by the single-item, batch and chunk paths.
impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// Free slots for a producer whose next write is `tail` and whose cached
    /// head is `*head`, reloading head only if the cache shows fewer than `want`.
    #[inline(always)]
    fn free_for(&self, tail: usize, head: &mut usize, want: usize) -> usize {
        let mut free = N - (tail.wrapping_sub(*head) >> P::SHIFT);
        if free < want {
            // Acquire: pairs with the consumer's Release store of head, so its
            // reads of the slots about to be reused are finished.
            *head = self.load_head(Ordering::Acquire) & !P::BUSY;
            free = N - (tail.wrapping_sub(*head) >> P::SHIFT);
        }
        debug_assert!(free <= N, "producer sees more than N free slots");
        free
    }

    /// Makes `n` written slots after `*tail` visible to the consumer.
    #[inline(always)]
    fn publish(&self, tail: &mut usize, n: usize) {
        *tail = tail.wrapping_add(n << P::SHIFT);
        // Release: the slot writes happen before the consumer's Acquire load
        // of tail that lets it read them.
        self.producer.tail.store(*tail, Ordering::Release);
    }

    /// Items readable by a consumer whose next read is `*head` and whose
    /// cached tail is `*tail`, reloading tail only if the cache shows fewer
    /// than `want`. Under `Overwrite` the result is provisional until claimed.
    #[inline(always)]
    fn avail_for(&self, head: usize, tail: &mut usize, want: usize) -> usize {
        let mut avail = tail.wrapping_sub(head) >> P::SHIFT;
        // `avail > N` (Overwrite only): the producer evicted past our cached
        // tail and the wrapping difference went "negative". Under Reject the
        // consumer's head is exact and the test compiles away.
        if avail < want || (P::BUSY != 0 && avail > N) {
            // Acquire: pairs with the producer's Release store of tail, so
            // the slot writes before it are visible to our reads.
            *tail = self.producer.tail.load(Ordering::Acquire);
            avail = tail.wrapping_sub(head) >> P::SHIFT;
            // Not behind `head`: a failed claim that moved `head` forward
            // acquired a `tail` at least that far (see "Orderings for
            // Overwrite"). (`avail > N` is left when the producer evicted past
            // our `head`: the claim CAS then fails and corrects it.)
            debug_assert!(
                (tail.wrapping_sub(head) as isize) >= 0,
                "consumer head ahead of every tail it has seen"
            );
        }
        if P::BUSY != 0 {
            // Our head may still be behind evictions: the claim CAS corrects it.
            avail.min(N)
        } else {
            debug_assert!(avail <= N);
            avail
        }
    }

    /// Takes ownership of the items from `*head` on, as the consumer.
    /// Returns how many are readable (up to `want`, 0 if empty). Under
    /// `Reject` this is a check; under `Overwrite` it sets `BUSY` by CAS so the
    /// producer cannot evict them, and `*head` is corrected to the real head.
    /// A call returning > 0 holds a claim that must be ended by
    /// [`Ring::release`]; a call returning 0 holds nothing.
    #[inline(always)]
    fn claim(&self, head: &mut usize, tail: &mut usize, want: usize) -> usize {
        if P::BUSY == 0 {
            return self.avail_for(*head, tail, want).min(want);
        }
        if want == 0 {
            // Nothing asked for: take no claim (the caller won't release).
            return 0;
        }
        loop {
            let avail = self.avail_for(*head, tail, want);
            if avail == 0 {
                return 0;
            }
            crate::sync::pause_point("spsc.claim");
            match claim_cas(&self.head, *head, *head | P::BUSY) {
                Ok(_) => return avail.min(want),
                Err(actual) if actual & P::BUSY != 0 => {
                    // Only the consumer sets BUSY, and we hold `&mut` of it:
                    // a read guard was leaked with `mem::forget`. We already
                    // own the claim.
                    *head = actual & !P::BUSY;
                    let avail = self.avail_for(*head, tail, want);
                    if avail == 0 {
                        self.release(head, 0);
                    }
                    return avail.min(want);
                }
                // The producer evicted: retry from the new oldest item.
                Err(actual) => *head = actual,
            }
        }
    }

    /// Ends a claim: frees the first `n` claimed slots to the producer (and
    /// clears `BUSY` under `Overwrite`).
    #[inline(always)]
    fn release(&self, head: &mut usize, n: usize) {
        if P::BUSY == 0 && n == 0 {
            return;
        }
        #[cfg(not(sluicegate_loom))]
        debug_assert!(
            P::BUSY == 0 || self.load_head(Ordering::Relaxed) & P::BUSY != 0,
            "release without a claim"
        );
        *head = head.wrapping_add(n << P::SHIFT);
        crate::sync::pause_point("spsc.release");
        // Release: our reads of the freed slots happen before the producer's
        // Acquire load (or CAS) of head that lets it reuse them. A plain store
        // is enough under Overwrite too: the producer never writes head while
        // BUSY is set.
        self.store_head(*head, Ordering::Release);
    }

    /// Loads `head`: natively under `Reject` (loads and stores only), through
    /// the CAS-capable view under `Overwrite` (see `sync::rmw_view`).
    #[inline(always)]
    fn load_head(&self, order: Ordering) -> usize {
        #[cfg(sluicegate_cas)]
        if P::BUSY != 0 {
            return crate::sync::rmw_view(&self.head).load(order);
        }
        self.head.load(order)
    }

    /// Stores `head`, the same way as [`Self::load_head`].
    #[inline(always)]
    fn store_head(&self, value: usize, order: Ordering) {
        #[cfg(sluicegate_cas)]
        if P::BUSY != 0 {
            return crate::sync::rmw_view(&self.head).store(value, order);
        }
        self.head.store(value, order)
    }
}

/// The producing half of a [`Ring`].
pub struct Producer<'a, T, const N: usize, P: Policy = Reject> {
    ring: &'a Ring<T, N, P>,
    /// Stored position of the next write; equal to the ring's `tail` (we are
    /// its only writer).
    tail: usize,
    /// Cached stored `head` (flag cleared); never ahead of the real one.
    head: usize,
}

/// The consuming half of a [`Ring`].
///
/// `Send` where `T: Send`; `Sync` only where `T: Send + Sync`, because
/// [`peek`](Consumer::peek) on a [`Reject`] ring hands `&T` out through `&self`.
pub struct Consumer<'a, T, const N: usize, P: Policy = Reject> {
    ring: &'a Ring<T, N, P>,
    /// Stored position of the next read (flag cleared). Under `Reject` equal
    /// to the ring's `head`; under `Overwrite` possibly behind it, when the
    /// producer has evicted since (the claim CAS then corrects it).
    head: usize,
    /// Cached stored `tail`; never ahead of the real one.
    tail: usize,
}

// SAFETY: `&Consumer` gives `&T` (`peek` under `Reject`), so threads sharing
// the consumer share the oldest item: `T: Sync` is needed, and enough, since
// the item cannot change or leave the ring while that borrow lives (popping
// needs `&mut self`). Every other `&self` method reads only counters and
// indices through `&Ring` (`Sync` where `T: Send`). `Send` stays automatic.
unsafe impl<T: Send + Sync, const N: usize, P: Policy> Sync for Consumer<'_, T, N, P> {}

impl<T, const N: usize, P: Policy> core::fmt::Debug for Producer<'_, T, N, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Producer").field("ring", self.ring).finish()
    }
}

impl<T, const N: usize, P: Policy> core::fmt::Debug for Consumer<'_, T, N, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Consumer").field("ring", self.ring).finish()
    }
}

impl<'a, T, const N: usize, P: Policy> Producer<'a, T, N, P> {
    #[inline(always)]
    fn write_slot(&self, stored: usize, item: T) {
        self.ring.slot(stored).with_mut(|p| {
            // SAFETY: the caller saw the slot free (`free_for`), so nobody
            // reads it until `publish`; writing a MaybeUninit is always sound.
            unsafe { (*p).write(item) };
        });
    }

    /// Pushes `item`, or hands it back in [`Full`] if the ring is full (and
    /// counts it in [`Stats::rejected`]). Wait-free.
    #[inline]
    pub fn try_push(&mut self, item: T) -> Result<(), Full<T>> {
        if self.ring.free_for(self.tail, &mut self.head, 1) == 0 {
            self.ring.producer.rejected.add(1);
            return Err(Full(item));
        }
        self.write_slot(self.tail, item);
        self.ring.publish(&mut self.tail, 1);
        Ok(())
    }

    /// Pushes `item`, waiting for room: pressure travels upstream instead of
    /// being shed. Waits by spinning with [`crossbeam_utils::Backoff`] (and
    /// yielding the thread where `std` is linked in); a wait is not a
    /// rejection and is not counted.
    ///
    /// **Never call this from an interrupt handler** (or any context that can
    /// preempt the consumer on the same core): the consumer could not run to
    /// make room, and the wait would never end. Use `try_push` or
    /// `push_overwrite` there.
    pub fn push_blocking(&mut self, item: T) {
        let backoff = crossbeam_utils::Backoff::new();
        while self.ring.free_for(self.tail, &mut self.head, 1) == 0 {
            backoff.snooze();
        }
        self.write_slot(self.tail, item);
        self.ring.publish(&mut self.tail, 1);
    }

    /// Free slots now (the consumer may free more at any moment).
    pub fn free(&mut self) -> usize {
        self.ring.free_for(self.tail, &mut self.head, N)
    }

    /// Items in the ring now (the consumer may take some at any moment).
    pub fn len(&mut self) -> usize {
        N - self.free()
    }

    /// Whether the ring is empty now.
    pub fn is_empty(&mut self) -> bool {
        self.len() == 0
    }

    /// Whether the ring is full now.
    pub fn is_full(&mut self) -> bool {
        self.ring.free_for(self.tail, &mut self.head, 1) == 0
    }

    /// The ring's counters.
    pub fn stats(&self) -> Stats {
        self.ring.stats()
    }

    /// The ring's capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Reserves up to `max` free slots for writing in place (both halves of
    /// a wrap); the chunk may be shorter, or empty. Nothing becomes visible to
    /// the consumer until the chunk is committed.
    pub fn write_chunk_uninit(&mut self, max: usize) -> WriteChunkUninit<'_, T, N, P> {
        let n = self.ring.free_for(self.tail, &mut self.head, max).min(max);
        WriteChunkUninit::new(self.ring, &mut self.tail, n)
    }
}

impl<'a, T: Copy, const N: usize, P: Policy> Producer<'a, T, N, P> {
    /// Copies `items[..k]` in with one index update and one publish.
    #[inline]
    fn push_copy(&mut self, items: &[T]) {
        let start = Ring::<T, N, P>::index(self.tail);
        let first = items.len().min(N - start);
        #[cfg(not(sluicegate_loom))]
        {
            // SAFETY: `items.len()` slots after tail are free (checked by the
            // caller) and lie at `start..start+first` and `0..rest`, inside
            // the array; source and ring never overlap.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    items.as_ptr(),
                    self.ring.slot_ptr(start).cast::<T>(),
                    first,
                );
                // Only across the wrap: saves a `memcpy` call otherwise.
                if first < items.len() {
                    core::ptr::copy_nonoverlapping(
                        items.as_ptr().add(first),
                        self.ring.slot_ptr(0).cast::<T>(),
                        items.len() - first,
                    );
                }
            }
        }
        #[cfg(sluicegate_loom)]
        for (i, item) in items.iter().enumerate() {
            self.write_slot(self.tail.wrapping_add(i << P::SHIFT), *item);
        }
        let _ = first;
        self.ring.publish(&mut self.tail, items.len());
    }

    /// Burst push: copies in as many of `items` as fit (from the front),
    /// publishes them at once and returns how many. The rest count as
    /// rejected.
    pub fn push_burst(&mut self, items: &[T]) -> usize {
        let n = self
            .ring
            .free_for(self.tail, &mut self.head, items.len())
            .min(items.len());
        if n < items.len() {
            self.ring.producer.rejected.add(items.len() - n);
        }
        if n > 0 {
            self.push_copy(&items[..n]);
        }
        n
    }

    /// Bulk push: copies in all of `items` and publishes them at once, or
    /// none if they don't all fit (then all count as rejected).
    pub fn push_bulk(&mut self, items: &[T]) -> Result<(), Insufficient> {
        let free = self.ring.free_for(self.tail, &mut self.head, items.len());
        if free < items.len() {
            self.ring.producer.rejected.add(items.len());
            return Err(Insufficient { available: free });
        }
        if !items.is_empty() {
            self.push_copy(items);
        }
        Ok(())
    }
}

#[cfg(sluicegate_cas)]
impl<T, const N: usize> Producer<'_, T, N, Overwrite> {
    /// Pushes `item`, evicting the oldest item if the ring is full.
    ///
    /// Returns `None` if there was room, `Some(oldest)` with the evicted item
    /// (counted in [`Stats::overwritten`]), or — only when the ring is full
    /// *and* the consumer is in the middle of reading the oldest item —
    /// `Some(item)`: the new item itself, shed instead (counted in
    /// [`Stats::rejected`]). Never waits for the consumer; wait-free.
    pub fn push_overwrite(&mut self, item: T) -> Option<T> {
        let ring = self.ring;
        if self.tail.wrapping_sub(self.head) == Ring::<T, N, Overwrite>::FULL {
            // The cached head says full. Rather than load head and then CAS
            // it (two transfers of the consumer's cache line when it is
            // busy), CAS straight from the cached value: it succeeds iff the
            // consumer has not moved since, and a failure returns the real
            // head, which tells us whether there is room after all.
            let h = self.head; // flag cleared; never ahead of the real head
            crate::sync::pause_point("spsc.overwrite.evict");
            // Acquire (both ways): we go on to reuse a slot the consumer may
            // just have read; its Release store of head published that.
            // Release on success: a consumer whose claim fails on the new
            // head acquires our earlier tail stores with it.
            match crate::sync::rmw_view(&ring.head).compare_exchange(
                h,
                h.wrapping_add(Ring::<T, N, Overwrite>::STEP),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    // We own slot h, which is also where position tail goes.
                    debug_assert_eq!(
                        Ring::<T, N, Overwrite>::index(h),
                        Ring::<T, N, Overwrite>::index(self.tail)
                    );
                    let old = ring.slot(h).with_mut(|p| {
                        // SAFETY: position h was published and the CAS made us
                        // its only owner; we replace it with the new item.
                        unsafe { core::mem::replace(&mut *p, MaybeUninit::new(item)).assume_init() }
                    });
                    self.head = h.wrapping_add(Ring::<T, N, Overwrite>::STEP);
                    ring.producer.overwritten.add(1);
                    ring.publish(&mut self.tail, 1);
                    return Some(old);
                }
                Err(actual) => {
                    self.head = actual & !Overwrite::BUSY;
                    if self.tail.wrapping_sub(self.head) == Ring::<T, N, Overwrite>::FULL {
                        // Still full, so head did not move: the consumer set
                        // BUSY and is reading the oldest item. Shed the new one.
                        debug_assert!(actual & Overwrite::BUSY != 0);
                        ring.producer.rejected.add(1);
                        return Some(item);
                    }
                    // The consumer finished a pop: there is room now.
                }
            }
        }
        self.write_slot(self.tail, item);
        ring.publish(&mut self.tail, 1);
        None
    }
}

impl<T, const N: usize, P: Policy> Consumer<'_, T, N, P> {
    #[inline(always)]
    fn read_slot(&self, stored: usize) -> T {
        self.ring.slot(stored).with(|p| {
            // SAFETY: the position was published (tail acquired) and claimed
            // by us, so the slot is initialised and ours until `release`;
            // `release` then hands the slot back as logically uninitialised.
            unsafe { (*p).assume_init_read() }
        })
    }

    /// Pops the oldest item, or `None` if the ring is empty. Wait-free under
    /// [`Reject`]; lock-free under [`Overwrite`] (retries only after the
    /// producer evicted the item this call was about to take).
    #[inline]
    pub fn try_pop(&mut self) -> Option<T> {
        if self.ring.claim(&mut self.head, &mut self.tail, 1) == 0 {
            return None;
        }
        let item = self.read_slot(self.head);
        self.ring.release(&mut self.head, 1);
        Some(item)
    }

    /// Pops the oldest item, waiting until there is one (spinning with
    /// [`crossbeam_utils::Backoff`]). **Never call this from an interrupt
    /// handler** that can preempt the producer: the wait would never end.
    pub fn pop_blocking(&mut self) -> T {
        let backoff = crossbeam_utils::Backoff::new();
        loop {
            if let Some(item) = self.try_pop() {
                return item;
            }
            backoff.snooze();
        }
    }

    /// Items in the ring now (the producer may add some at any moment).
    pub fn len(&self) -> usize {
        self.ring.len()
    }

    /// Whether the ring is empty now.
    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// The ring's counters.
    pub fn stats(&self) -> Stats {
        self.ring.stats()
    }

    /// The ring's capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Claims up to `max` items for reading in place (both halves of a wrap);
    /// the chunk may be shorter, or empty. Committing `n` of them drops those
    /// and frees their slots; dropping the chunk frees nothing. Under
    /// [`Overwrite`], while the chunk lives the producer cannot evict the
    /// claimed items, so a full ring sheds new items instead.
    pub fn read_chunk(&mut self, max: usize) -> ReadChunk<'_, T, N, P> {
        let n = self.ring.claim(&mut self.head, &mut self.tail, max);
        ReadChunk::new(self.ring, &mut self.head, n)
    }
}

#[cfg(not(sluicegate_loom))]
impl<T, const N: usize> Consumer<'_, T, N, Reject> {
    /// The oldest item, left in the ring, or `None` if it is empty.
    pub fn peek(&self) -> Option<&T> {
        let mut tail = self.tail;
        if self.ring.avail_for(self.head, &mut tail, 1) == 0 {
            return None;
        }
        self.ring.slot(self.head).with(|p| {
            // SAFETY: the position is published; the producer won't reuse the
            // slot before we release it, which needs `&mut self`, which the
            // returned borrow of `self` prevents.
            Some(unsafe { (*p).assume_init_ref() })
        })
    }
}

#[cfg(all(sluicegate_cas, not(sluicegate_loom)))]
impl<T, const N: usize> Consumer<'_, T, N, Overwrite> {
    /// The oldest item, held in place by a guard, or `None` if the ring is
    /// empty. While the guard lives the producer cannot evict that item, so a
    /// full ring sheds new items instead; drop the guard soon.
    pub fn peek(&mut self) -> Option<Peek<'_, T, N, Overwrite>> {
        Peek::new(self.read_chunk(1))
    }
}

impl<T: Copy, const N: usize, P: Policy> Consumer<'_, T, N, P> {
    /// Copies the first `out.len()` claimed items out and frees them at once.
    #[inline]
    fn pop_copy(&mut self, out: &mut [T]) {
        let start = Ring::<T, N, P>::index(self.head);
        let first = out.len().min(N - start);
        #[cfg(not(sluicegate_loom))]
        {
            // SAFETY: `out.len()` items from head are published and claimed
            // by us; they lie at `start..start+first` and `0..rest`; `T: Copy`
            // so copying them out leaves nothing to drop.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    self.ring.slot_ptr(start).cast::<T>().cast_const(),
                    out.as_mut_ptr(),
                    first,
                );
                // Only across the wrap, as in `push_copy`.
                if first < out.len() {
                    core::ptr::copy_nonoverlapping(
                        self.ring.slot_ptr(0).cast::<T>().cast_const(),
                        out.as_mut_ptr().add(first),
                        out.len() - first,
                    );
                }
            }
        }
        #[cfg(sluicegate_loom)]
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.read_slot(self.head.wrapping_add(i << P::SHIFT));
        }
        let _ = first;
        self.ring.release(&mut self.head, out.len());
    }

    /// Burst pop: copies out as many items as are there (up to `out.len()`),
    /// frees them at once and returns how many.
    pub fn pop_burst(&mut self, out: &mut [T]) -> usize {
        let n = self.ring.claim(&mut self.head, &mut self.tail, out.len());
        if n == 0 {
            return 0;
        }
        self.pop_copy(&mut out[..n]);
        n
    }

    /// Bulk pop: fills all of `out` and frees those items at once, or takes
    /// nothing if fewer than `out.len()` are there.
    pub fn pop_bulk(&mut self, out: &mut [T]) -> Result<(), Insufficient> {
        if out.is_empty() {
            return Ok(());
        }
        let n = self.ring.claim(&mut self.head, &mut self.tail, out.len());
        if n < out.len() {
            if n > 0 {
                self.ring.release(&mut self.head, 0);
            }
            return Err(Insufficient { available: n });
        }
        self.pop_copy(out);
        Ok(())
    }
}

/// A consumer stopped inside `try_pop` (as when an interrupt handler that
/// produces preempts the main loop mid-pop) never makes the producer wait.
#[cfg(all(test, not(sluicegate_loom)))]
mod suspended_consumer {
    use super::{Overwrite, Ring};
    use crate::sync::pause;
    use std::sync::mpsc;
    use std::vec::Vec;

    /// Runs `try_pop` on a thread that stops at pause point `at`; while it is
    /// stopped, runs `while_stopped` on the producer; then lets it finish and
    /// returns what it popped.
    fn pop_stopped_at<const N: usize>(
        ring: &'static Ring<u32, N, Overwrite>,
        at: &'static str,
        while_stopped: impl FnOnce(),
    ) -> Option<u32> {
        let (stopped_tx, stopped_rx) = mpsc::channel();
        let (resume_tx, resume_rx) = mpsc::channel::<()>();
        let consumer = std::thread::spawn(move || {
            let mut rx = ring.consumer_for_test();
            let mut stopped = false;
            pause::set(move |name| {
                // Stop only the first time: a retry passes the point again.
                if name == at && !stopped {
                    stopped = true;
                    stopped_tx.send(()).unwrap();
                    resume_rx.recv().unwrap();
                }
            });
            let got = rx.try_pop();
            pause::clear();
            got
        });
        stopped_rx.recv().unwrap();
        while_stopped();
        resume_tx.send(()).unwrap();
        consumer.join().unwrap()
    }

    #[test]
    fn producer_sheds_new_items_while_consumer_reads_the_oldest() {
        static RING: Ring<u32, 4, Overwrite> = Ring::new();
        let ring = &RING;
        let mut tx = ring.producer_for_test();
        for i in 0..4 {
            assert_eq!(tx.push_overwrite(i), None);
        }
        let mut handed_back = Vec::new();
        let popped = pop_stopped_at(ring, "spsc.release", || {
            // The consumer holds item 0 mid-read; the ring is full. Every push
            // returns at once, shedding the new item (never waiting).
            for i in 4..1004 {
                let back = tx.push_overwrite(i);
                assert_eq!(back, Some(i), "new item shed while oldest is being read");
                handed_back.push(back.unwrap());
            }
            assert_eq!(ring.stats().rejected, 1000);
        });
        assert_eq!(popped, Some(0));
        // Consumer done: the slot is free again and eviction resumes.
        assert_eq!(tx.push_overwrite(2000), None);
        assert_eq!(tx.push_overwrite(2001), Some(1));
        let mut rx = ring.consumer_for_test();
        let rest: Vec<u32> = core::iter::from_fn(|| rx.try_pop()).collect();
        assert_eq!(rest, [2, 3, 2000, 2001]);
        assert_eq!(ring.stats().overwritten, 1);
    }

    #[test]
    fn producer_fills_free_slots_while_consumer_is_stopped_mid_pop() {
        static RING: Ring<u32, 8, Overwrite> = Ring::with_start(usize::MAX >> 1);
        let ring = &RING;
        let mut tx = ring.producer_for_test();
        tx.push_overwrite(0);
        let popped = pop_stopped_at(ring, "spsc.release", || {
            // 7 free slots beside the one being read: all usable.
            for i in 1..8 {
                assert_eq!(tx.push_overwrite(i), None);
            }
            assert_eq!(tx.push_overwrite(8), Some(8));
        });
        assert_eq!(popped, Some(0));
        let mut rx = ring.consumer_for_test();
        let rest: Vec<u32> = core::iter::from_fn(|| rx.try_pop()).collect();
        assert_eq!(rest, [1, 2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn consumer_stopped_before_claiming_loses_nothing() {
        static RING: Ring<u32, 4, Overwrite> = Ring::with_start(7);
        let ring = &RING;
        let mut tx = ring.producer_for_test();
        for i in 0..4 {
            tx.push_overwrite(i);
        }
        let mut evicted = Vec::new();
        let popped = pop_stopped_at(ring, "spsc.claim", || {
            // Not yet claimed: the producer evicts freely.
            for i in 4..10 {
                evicted.push(tx.push_overwrite(i).unwrap());
            }
        });
        assert_eq!(evicted, [0, 1, 2, 3, 4, 5]);
        // The consumer's claim failed and it retried on the new oldest.
        assert_eq!(popped, Some(6));
        let mut rx = ring.consumer_for_test();
        let rest: Vec<u32> = core::iter::from_fn(|| rx.try_pop()).collect();
        assert_eq!(rest, [7, 8, 9]);
        assert_eq!(ring.stats().overwritten, 6);
        assert_eq!(ring.stats().rejected, 0);
    }
}

#[cfg(all(test, not(sluicegate_loom)))]
impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// Test-only: a producer handle on a `&'static` ring, without the once flag.
    fn producer_for_test(&'static self) -> Producer<'static, T, N, P> {
        self.handles().0
    }
    /// Test-only: a consumer handle (one at a time, by the test's discipline).
    fn consumer_for_test(&'static self) -> Consumer<'static, T, N, P> {
        self.handles().1
    }
}
