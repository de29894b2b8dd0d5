//! A single-producer/single-consumer ring whose two sides share no index:
//! each slot carries its own "full" flag.
//!
//! # Model
//!
//! A [`Ring`] holds up to `N` items (`N` at least 1, any value). It splits
//! into a [`Producer`] and a [`Consumer`], as [`spsc::Ring`](super::Ring)
//! does, and a full ring refuses new items: [`Producer::try_push`] fails
//! exactly when `N` items are inside and hands the item back in [`Full`].
//! What it leaves out is everything that needs the other side's position:
//! batches, chunks, overwrite, waits, `len` and the counters of
//! [`RingStats`](crate::RingStats), all but one: the consumer's
//! [`try_pop_fresh`](Consumer::try_pop_fresh) discards expired items and
//! counts them ([`Ring::expired`]). Use it where the
//! two handles run on different cores of a cached machine and items move
//! one at a time; use [`spsc::Ring`](super::Ring) everywhere else.
//!
//! ```
//! use sluicegate::spsc::flag::Ring;
//!
//! let mut ring: Ring<u32, 3> = Ring::new();
//! let (mut tx, mut rx) = ring.split();
//! for i in 0..3 {
//!     tx.try_push(i).unwrap();
//! }
//! assert_eq!(tx.try_push(9).unwrap_err().into_inner(), 9); // full: handed back
//! assert_eq!(rx.try_pop(), Some(0));
//! tx.try_push(3).unwrap(); // the slot `0` left is free again
//! assert_eq!((rx.try_pop(), rx.try_pop(), rx.try_pop()), (Some(1), Some(2), Some(3)));
//! assert_eq!(rx.try_pop(), None);
//! ```
//!
//! # Algorithm
//!
//! Slot `i` holds an item exactly while its flag is set. Each handle keeps
//! the index of its next slot to itself (in the handle, not in the ring) and
//! walks the slots in order, `0, 1, …, N - 1, 0, …`.
//!
//! - Push: load the flag of the producer's slot; if it is set the ring is
//!   full. Otherwise write the item, set the flag, move to the next slot.
//! - Pop: load the flag of the consumer's slot; if it is clear the ring is
//!   empty. Otherwise move the item out, clear the flag, move on.
//!
//! **Why the flag answers "full" and "empty" exactly.** Count positions from
//! the start: the producer is about to write position `p`, into slot
//! `p mod N`, and the consumer to take position `c`; the ring holds `p - c`
//! items. The last item written into the producer's slot was `p - N`, and
//! the consumer takes items in order, so that slot's flag is set exactly when
//! `p - N` has not been taken yet, `c <= p - N`, that is when `p - c = N`.
//! In the same way the consumer's slot is full exactly when the producer has
//! written position `c`, `p > c`. No stale value is possible: each flag is
//! stored alternately by the producer (set) and the consumer (clear), and
//! neither passes the other, so a handle reads either the value it left or
//! the other side's next one.
//!
//! **Progress.** Wait-free: every operation is a bounded number of steps
//! whatever the other side does, and it uses only atomic loads and stores
//! (native on every target with atomics, Cortex-M0 included).
//!
//! **Orderings.** The hand-off of a slot is its flag: the producer's
//! `Release` set pairs with the consumer's `Acquire` load (the item's bytes
//! are visible before the consumer reads them), and the consumer's
//! `Release` clear pairs with the producer's `Acquire` load (the consumer
//! has finished reading before the producer overwrites). Nothing else is
//! shared while both handles are alive. A handle's `Drop` stores its index
//! in the ring before it marks itself gone (the `Release` of the liveness
//! word), and a new split reads both indices after it took the ring
//! (`Acquire`), so split-again handles resume where the old ones stopped.
//!
//! **Why it is faster on a multi-core host.** In [`spsc::Ring`](super::Ring)
//! the consumer learns that an item is there from the producer's `tail` and
//! the producer learns that a slot is free from the consumer's `head`, each
//! a word on a line of its own, so a hand-off moves the slot's line and
//! (whenever the cached copy runs out) an index line. Here the flag travels
//! in the slot's own line: a handle touches only the lines of the slots it
//! is working on. The benchmarks (`spsc_stream_*`, BENCHMARKS.md) measure
//! the difference. When a side waits on a full or empty ring it polls the
//! slot the other side is writing, so a waiting producer and a working
//! consumer then share that line: that is the ring's worst case.
//!
//! # Memory
//!
//! `N` slots, each a `T` and a one-byte flag rounded up to `T`'s alignment
//! (a `Ring<u64, N>` is 16 bytes a slot, a `Ring<u8, N>` 2), plus two words
//! for the stopped handles' indices, the count of expired items and the
//! liveness word. Nothing is padded.

use super::split::Live;
use crate::expire::{first_fresh, Expiry};
use crate::sync::{
    const_fn, LoadStoreBool, LoadStoreUsize, Ordering, Slot, SoloCounter, UnsafeCell,
};
use crate::Full;

/// One slot: an item and whether it is there.
struct FlagSlot<T> {
    full: LoadStoreBool,
    item: Slot<T>,
}

impl<T> FlagSlot<T> {
    const_fn! {
        fn new() -> Self {
            Self {
                full: LoadStoreBool::new(false),
                item: UnsafeCell::new(core::mem::MaybeUninit::uninit()),
            }
        }
    }
}

/// A bounded single-producer/single-consumer ring of up to `N` items with a
/// "full" flag in every slot, so that its two handles share no index (see
/// the [module docs](self)). Build it with the `const` [`Ring::new`] (in a
/// `static` if you like), then [`split`](Ring::split) or
/// [`try_split`](Ring::try_split) it.
pub struct Ring<T, const N: usize> {
    slots: [FlagSlot<T>; N],
    /// The next slot of the producer, stored by its handle's `Drop`.
    producer_at: LoadStoreUsize,
    /// The next slot of the consumer, stored by its handle's `Drop`.
    consumer_at: LoadStoreUsize,
    /// Items the consumer's fresh pops discarded; stored by the consumer
    /// only (a load and a store), read by anyone.
    expired: SoloCounter,
    /// Which handles are alive.
    live: Live,
}

// SAFETY: items move from the producer's thread to the consumer's (hence
// `T: Send`) and are never shared: a slot's item is reached by the producer
// only while its flag is clear and by the consumer only while it is set, and
// the flag's `Release`/`Acquire` pairs order those accesses (module docs).
// Only one producer and one consumer exist at a time (`split` borrows `&mut`,
// `try_split` takes the liveness word).
unsafe impl<T: Send, const N: usize> Sync for Ring<T, N> {}

impl<T, const N: usize> Ring<T, N> {
    const_fn! {
        /// An empty ring. `N = 0` is a compile-time error.
        ///
        /// ```
        /// use sluicegate::spsc::flag::Ring;
        ///
        /// static FRAMES: Ring<[u8; 64], 6> = Ring::new(); // any N >= 1
        /// let (_tx, mut rx) = FRAMES.try_split().unwrap();
        /// assert!(rx.is_empty());
        /// ```
        ///
        /// ```compile_fail
        /// let _ring: sluicegate::spsc::flag::Ring<u8, 0> = sluicegate::spsc::flag::Ring::new();
        /// ```
        pub fn new() -> Self {
            const { assert!(N > 0, "sluicegate: ring capacity N must be at least 1") };
            Self {
                slots: Self::empty_slots(),
                producer_at: LoadStoreUsize::new(0),
                consumer_at: LoadStoreUsize::new(0),
                expired: SoloCounter::new(),
                live: Live::new(),
            }
        }
    }

    const_fn! {
        fn empty_slots() -> [FlagSlot<T>; N] {
            #[cfg(not(sluicegate_loom))]
            {
                [const { FlagSlot::new() }; N]
            }
            #[cfg(sluicegate_loom)]
            {
                core::array::from_fn(|_| FlagSlot::new())
            }
        }
    }

    /// The most items the ring holds, `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// How many items the consumers' [`try_pop_fresh`](Consumer::try_pop_fresh)
    /// calls discarded as expired, over the ring's life (wrapping at
    /// `usize::MAX`). Readable from any context.
    ///
    /// ```
    /// use sluicegate::spsc::flag::Ring;
    ///
    /// static LOG: Ring<u32, 4> = Ring::new();
    /// let (mut tx, mut rx) = LOG.try_split().unwrap();
    /// tx.try_push(1).unwrap();
    /// tx.try_push(20).unwrap();
    /// assert_eq!(rx.try_pop_fresh(|deadline: &u32| *deadline < 10), Some(20));
    /// assert_eq!(LOG.expired(), 1);
    /// ```
    pub fn expired(&self) -> usize {
        self.expired.get()
    }

    /// Splits the ring into its two handles. The `&mut` borrow guarantees no
    /// other handle is alive; after both are dropped the ring can be split
    /// again, and the items they left are still inside, in order. A handle
    /// that was leaked (`mem::forget`) never stored its index: the split
    /// finds it from the slots' flags (the items inside are one run of full
    /// slots from the consumer's index to the producer's). Only if both
    /// were leaked with the ring full is the oldest item unknown: each item
    /// still comes out once, from the consumer's last stored index on.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::flag::Ring<u8, 2> = sluicegate::spsc::flag::Ring::new();
    /// {
    ///     let (mut tx, _rx) = ring.split();
    ///     tx.try_push(1).unwrap();
    ///     tx.try_push(2).unwrap();
    /// }
    /// let (_tx, mut rx) = ring.split();
    /// assert_eq!((rx.try_pop(), rx.try_pop()), (Some(1), Some(2)));
    /// ```
    pub fn split(&mut self) -> (Producer<'_, T, N>, Consumer<'_, T, N>) {
        let leaked = (
            self.live.alive(Live::PRODUCER),
            self.live.alive(Live::CONSUMER),
        );
        if leaked != (false, false) {
            self.find_indices(leaked);
        }
        self.live.set_both();
        self.handles()
    }

    /// The indices a leaked producer (`leaked.0`) or consumer (`leaked.1`)
    /// left unstored, from the flags: the full slots are the run from the
    /// consumer's index up to the producer's.
    #[cold]
    #[inline(never)]
    fn find_indices(&mut self, leaked: (bool, bool)) {
        // Relaxed: the `&mut` orders the old handles' stores before these
        // loads, as in `handles`.
        let full = |at: usize| self.slot(at).full.load(Ordering::Relaxed);
        let mut c = self.consumer_at.load(Ordering::Relaxed);
        let mut p = self.producer_at.load(Ordering::Relaxed);
        if leaked.0 {
            if leaked.1 {
                // Neither index is known: the run starts at the first full
                // slot after an empty one (if none is empty, the stored
                // index is as good as any).
                if let Some(empty) = (0..N).find(|&at| !full(at)) {
                    c = (1..N)
                        .map(|k| (empty + k) % N)
                        .find(|&at| full(at))
                        .unwrap_or(empty);
                }
            }
            // On from the consumer's index over the run.
            p = c;
            for _ in 0..N {
                if !full(p) {
                    break;
                }
                p = Self::next(p);
            }
        } else {
            // The producer's index is right: back from it over the run.
            c = p;
            for _ in 0..N {
                let prev = if c == 0 { N - 1 } else { c - 1 };
                if !full(prev) {
                    break;
                }
                c = prev;
            }
        }
        self.consumer_at.store(c, Ordering::Relaxed);
        self.producer_at.store(p, Ordering::Relaxed);
    }

    /// Splits a shared (e.g. `static`) ring: returns the two handles if
    /// neither is alive, else `None`. Once both are dropped the ring can be
    /// split again, and the items they left are still inside; a leaked
    /// handle keeps it split for good. Needs compare-and-swap (native, or
    /// the `portable-atomic` feature).
    ///
    /// ```
    /// use sluicegate::spsc::flag::Ring;
    ///
    /// static RING: Ring<u32, 4> = Ring::new();
    /// let (mut tx, rx) = RING.try_split().unwrap();
    /// assert!(RING.try_split().is_none()); // while a handle lives
    /// tx.try_push(7).unwrap();
    /// drop((tx, rx));
    /// let (_tx, mut rx) = RING.try_split().unwrap();
    /// assert_eq!(rx.try_pop(), Some(7));
    /// ```
    #[cfg(sluicegate_cas)]
    #[cfg_attr(
        docsrs,
        doc(cfg(any(target_has_atomic = "ptr", feature = "portable-atomic")))
    )]
    pub fn try_split(&self) -> Option<(Producer<'_, T, N>, Consumer<'_, T, N>)> {
        if self.live.try_take() {
            Some(self.handles())
        } else {
            None
        }
    }

    /// Stands in for `try_split` where compare-and-swap is missing:
    /// a call is a compile error that names the `portable-atomic` feature.
    #[cfg(not(sluicegate_cas))]
    #[doc(hidden)]
    pub fn try_split(&self) -> Option<(Producer<'_, T, N>, Consumer<'_, T, N>)>
    where
        Self: crate::sync::CompareAndSwap,
    {
        // Nothing implements `CompareAndSwap`: this is never called.
        unreachable!()
    }

    fn handles(&self) -> (Producer<'_, T, N>, Consumer<'_, T, N>) {
        // Relaxed: the split's `Acquire` (or the `&mut`) ordered the old
        // handles' stores before these loads.
        let producer = Producer {
            ring: self,
            at: self.producer_at.load(Ordering::Relaxed),
        };
        let consumer = Consumer {
            ring: self,
            at: self.consumer_at.load(Ordering::Relaxed),
        };
        (producer, consumer)
    }

    /// The slot at index `at`.
    #[inline(always)]
    fn slot(&self, at: usize) -> &FlagSlot<T> {
        debug_assert!(at < N);
        // SAFETY: every index a handle holds is below `N`: it starts at `0`
        // or at an index a handle stored, and `next` wraps it at `N`.
        unsafe { self.slots.get_unchecked(at) }
    }

    /// The index after `at`.
    #[inline(always)]
    const fn next(at: usize) -> usize {
        if at + 1 == N {
            0
        } else {
            at + 1
        }
    }
}

impl<T, const N: usize> Default for Ring<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize> Drop for Ring<T, N> {
    fn drop(&mut self) {
        if !core::mem::needs_drop::<T>() {
            return;
        }
        // `&mut self`: no handle is alive, so the flags say exactly which
        // slots hold items.
        let mut rest = Rest { ring: self, at: 0 };
        // If an item's `Drop` panics, unwinding drops `rest`, which drops the
        // items after it (a second panic then aborts, as in `Vec`).
        rest.drop_all();
    }
}

/// The slots `at..N` of a ring being dropped.
struct Rest<'r, T, const N: usize> {
    ring: &'r Ring<T, N>,
    at: usize,
}

impl<T, const N: usize> Rest<'_, T, N> {
    fn drop_all(&mut self) {
        while self.at < N {
            let slot = self.ring.slot(self.at);
            // Advanced before the drop, so a panicking item is not dropped again.
            self.at += 1;
            if slot.full.load(Ordering::Relaxed) {
                slot.item.with_mut(|p| {
                    // SAFETY: a set flag in a ring being dropped marks an
                    // initialised item that nobody else can reach; `at` moved
                    // past this slot first, so it is dropped once.
                    unsafe { (*p).assume_init_drop() }
                });
            }
        }
    }
}

impl<T, const N: usize> Drop for Rest<'_, T, N> {
    fn drop(&mut self) {
        self.drop_all();
    }
}

impl<T, const N: usize> core::fmt::Debug for Ring<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("flag::Ring").field("capacity", &N).finish()
    }
}

/// The ring's capacity.
#[cfg(feature = "defmt")]
impl<T, const N: usize> defmt::Format for Ring<T, N> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "flag::Ring {{ capacity: {=usize} }}", N)
    }
}

/// The producing half of a [`flag::Ring`](Ring).
///
/// `Send` where `T: Send`. Its `&self` methods read only flags, so sharing
/// it shares no item.
pub struct Producer<'a, T, const N: usize> {
    ring: &'a Ring<T, N>,
    /// The slot of the next write; below `N`.
    at: usize,
}

/// The consuming half of a [`flag::Ring`](Ring).
///
/// `Send` where `T: Send`. Everything that reaches an item takes
/// `&mut self`, so sharing it shares no item.
pub struct Consumer<'a, T, const N: usize> {
    ring: &'a Ring<T, N>,
    /// The slot of the next read; below `N`.
    at: usize,
}

impl<T, const N: usize> Producer<'_, T, N> {
    /// Pushes `item`, or hands it back in [`Full`] if the ring holds `N`
    /// items (and only then). Wait-free: two loads and two stores at most.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::flag::Ring<char, 1> = sluicegate::spsc::flag::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push('a').unwrap();
    /// assert_eq!(tx.try_push('b').unwrap_err().into_inner(), 'b');
    /// assert_eq!(rx.try_pop(), Some('a'));
    /// tx.try_push('b').unwrap();
    /// ```
    #[inline]
    pub fn try_push(&mut self, item: T) -> Result<(), Full<T>> {
        let slot = self.ring.slot(self.at);
        // Acquire: the consumer's read of the item this slot held comes
        // before our write (it cleared the flag with `Release` after it).
        if slot.full.load(Ordering::Acquire) {
            return Err(Full(item));
        }
        slot.item.with_mut(|p| {
            // SAFETY: the flag is clear, so the consumer does not touch this
            // slot until we set it, and we are the only producer.
            unsafe { (*p).write(item) };
        });
        // Release: the item's bytes before the flag that shows them.
        slot.full.store(true, Ordering::Release);
        self.at = Ring::<T, N>::next(self.at);
        Ok(())
    }

    /// Whether [`try_push`](Self::try_push) would fail now: the ring holds
    /// `N` items. Only the consumer can change that.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::flag::Ring<u8, 1> = sluicegate::spsc::flag::Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// assert!(!tx.is_full());
    /// tx.try_push(1).unwrap();
    /// assert!(tx.is_full());
    /// ```
    #[inline]
    pub fn is_full(&self) -> bool {
        self.ring.slot(self.at).full.load(Ordering::Acquire)
    }

    /// The most items the ring holds, `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Whether the consumer has been dropped (then nobody pops what is pushed
    /// until the ring is split again).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::flag::Ring<u8, 2> = sluicegate::spsc::flag::Ring::new();
    /// let (tx, rx) = ring.split();
    /// assert!(!tx.is_abandoned());
    /// drop(rx);
    /// assert!(tx.is_abandoned());
    /// ```
    pub fn is_abandoned(&self) -> bool {
        !self.ring.live.alive(Live::CONSUMER)
    }
}

impl<T, const N: usize> Consumer<'_, T, N> {
    /// Pops the oldest item, or `None` if the ring is empty (and only then).
    /// Wait-free: two loads and a store at most.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::flag::Ring<u16, 2> = sluicegate::spsc::flag::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// assert_eq!(rx.try_pop(), None);
    /// tx.try_push(5).unwrap();
    /// assert_eq!(rx.try_pop(), Some(5));
    /// ```
    #[inline]
    pub fn try_pop(&mut self) -> Option<T> {
        let slot = self.ring.slot(self.at);
        // Acquire: the producer's write of the item comes before.
        if !slot.full.load(Ordering::Acquire) {
            return None;
        }
        let item = slot.item.with(|p| {
            // SAFETY: the flag is set, so the slot holds an initialised item
            // that the producer does not touch until we clear it; we move it
            // out once (the clear below makes the slot uninitialised again).
            unsafe { (*p).assume_init_read() }
        });
        // Release: our read before the flag that gives the slot back.
        slot.full.store(false, Ordering::Release);
        self.at = Ring::<T, N>::next(self.at);
        Some(item)
    }

    /// [`try_pop`](Self::try_pop), discarding expired items: pops until an
    /// item has not expired (see [`crate::expire`]) and returns it; each
    /// expired item it meets is counted in [`Ring::expired`], then dropped.
    /// `None` if the ring is empty, or after `N` discards (bounded work, so
    /// an interrupt handler may pop this way). Wait-free, as `try_pop`.
    ///
    /// ```
    /// use sluicegate::expire::{OlderThan, Stamp};
    /// use sluicegate::spsc::flag::Ring;
    ///
    /// let mut ring: Ring<Stamp<u16>, 3> = Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push(Stamp { at: 0, item: 1 }).unwrap();
    /// tx.try_push(Stamp { at: 90, item: 2 }).unwrap();
    /// let fresh = rx.try_pop_fresh(OlderThan { now: 100, budget: 20 });
    /// assert_eq!(fresh.map(|s| s.item), Some(2));
    /// assert_eq!(rx.expired(), 1);
    /// ```
    #[inline]
    pub fn try_pop_fresh<E: Expiry<T>>(&mut self, expiry: E) -> Option<T> {
        self.try_pop_fresh_with(expiry, drop)
    }

    /// [`try_pop_fresh`](Self::try_pop_fresh) that hands each expired item
    /// to `on_expired` instead of dropping it; counted the same way, before
    /// `on_expired` runs.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::flag::Ring<u32, 5> = sluicegate::spsc::flag::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// for deadline in [10, 20, 30] {
    ///     tx.try_push(deadline).unwrap();
    /// }
    /// let mut late = Vec::new();
    /// let fresh = rx.try_pop_fresh_with(|deadline: &u32| *deadline < 25, |x| late.push(x));
    /// assert_eq!((fresh, late), (Some(30), vec![10, 20]));
    /// ```
    pub fn try_pop_fresh_with<E: Expiry<T>>(
        &mut self,
        mut expiry: E,
        on_expired: impl FnMut(T),
    ) -> Option<T> {
        let expired = &self.ring.expired;
        first_fresh(
            N,
            || self.try_pop(),
            &mut expiry,
            || expired.add(1),
            on_expired,
        )
    }

    /// How many items this ring's fresh pops discarded as expired (as
    /// [`Ring::expired`]).
    pub fn expired(&self) -> usize {
        self.ring.expired()
    }

    /// The oldest item, left in the ring, or `None` if it is empty.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::flag::Ring<String, 2> = sluicegate::spsc::flag::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push("hello".to_string()).unwrap();
    /// assert_eq!(rx.peek().map(String::len), Some(5));
    /// assert_eq!(rx.try_pop().as_deref(), Some("hello"));
    /// ```
    #[cfg(not(sluicegate_loom))]
    #[inline]
    pub fn peek(&mut self) -> Option<&T> {
        let slot = self.ring.slot(self.at);
        if !slot.full.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: as in `try_pop`, the item is initialised and the producer
        // leaves it alone until the flag is cleared, which only this consumer
        // does, and not while the `&mut self` borrow of the result lasts.
        Some(slot.item.with(|p| unsafe { (*p).assume_init_ref() }))
    }

    /// Whether [`try_pop`](Self::try_pop) would return `None` now. Only the
    /// producer can change that.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::flag::Ring<u8, 1> = sluicegate::spsc::flag::Ring::new();
    /// let (mut tx, rx) = ring.split();
    /// assert!(rx.is_empty());
    /// tx.try_push(1).unwrap();
    /// assert!(!rx.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        !self.ring.slot(self.at).full.load(Ordering::Acquire)
    }

    /// The most items the ring holds, `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Whether the producer has been dropped (then what is left can still be
    /// popped, and nothing new arrives until the ring is split again).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::flag::Ring<u8, 2> = sluicegate::spsc::flag::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push(1).unwrap();
    /// drop(tx);
    /// assert!(rx.is_abandoned());
    /// assert_eq!(rx.try_pop(), Some(1));
    /// ```
    pub fn is_abandoned(&self) -> bool {
        !self.ring.live.alive(Live::PRODUCER)
    }
}

impl<T, const N: usize> Drop for Producer<'_, T, N> {
    fn drop(&mut self) {
        // Relaxed: `drop_side`'s `Release` orders it before a new split.
        self.ring.producer_at.store(self.at, Ordering::Relaxed);
        self.ring.live.drop_side(Live::PRODUCER);
    }
}

impl<T, const N: usize> Drop for Consumer<'_, T, N> {
    fn drop(&mut self) {
        // Relaxed: as the producer's, ordered by `drop_side`'s `Release`.
        self.ring.consumer_at.store(self.at, Ordering::Relaxed);
        self.ring.live.drop_side(Live::CONSUMER);
    }
}

impl<T, const N: usize> core::fmt::Debug for Producer<'_, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("flag::Producer")
            .field("capacity", &N)
            .field("full", &self.is_full())
            .finish()
    }
}

impl<T, const N: usize> core::fmt::Debug for Consumer<'_, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("flag::Consumer")
            .field("capacity", &N)
            .field("empty", &self.is_empty())
            .finish()
    }
}
