//! The two handles of a [`Ring`]: the [`Producer`] and the [`Consumer`],
//! their single-item operations, their observers and the chunk reservations.
//! The shared index moves they call are in `spsc.rs`.

#[cfg(all(doc, sluicegate_cas))]
use super::Overwrite;
#[cfg(not(sluicegate_loom))]
use super::Peek;
use super::{Live, Policy, Reject, Ring};
use super::{ReadChunk, WriteChunkUninit};
use crate::sync::Ordering;
use crate::{Closed, Full, Insufficient, RingStats};

/// The producing half of a [`Ring`].
pub struct Producer<'a, T, const N: usize, P: Policy = Reject> {
    pub(super) ring: &'a Ring<T, N, P>,
    /// Stored position of the next write; equal to the ring's `tail` (we are
    /// its only writer).
    pub(super) tail: usize,
    /// Cached stored `head` (flag cleared); never ahead of the real one.
    pub(super) head: usize,
    /// Under [`Marked`](super::Marked): the position `high` after a head
    /// the producer has seen (never after `head`), so a push whose new
    /// `tail` is before it has not reached the high mark (see the
    /// watermark module's "Cost"). None otherwise.
    pub(super) raise_pos: P::RaiseAt,
}

/// The consuming half of a [`Ring`].
///
/// `Send` where `T: Send`; `Sync` only where `T: Send + Sync`, so that
/// sharing a consumer never shares items.
pub struct Consumer<'a, T, const N: usize, P: Policy = Reject> {
    pub(super) ring: &'a Ring<T, N, P>,
    /// Stored position of the next read (flag cleared). Under `Reject` equal
    /// to the ring's `head`; under `Overwrite` possibly behind it, when the
    /// producer has evicted since (the claim CAS then corrects it).
    pub(super) head: usize,
    /// Cached stored `tail`; never ahead of the real one.
    pub(super) tail: usize,
}

// SAFETY: the `&self` methods of a consumer read only counters and indices
// through `&Ring` (`Sync` where `T: Send`); everything that reaches an item
// takes `&mut self` or goes through a `ReadChunk`/`Peek` (each `Sync` only
// where `T: Sync`). The bound also requires `T: Sync`, so that a `&self`
// accessor to an item, were one added, could not share `!Sync` items between
// threads. `Send` stays automatic.
unsafe impl<T: Send + Sync, const N: usize, P: Policy> Sync for Consumer<'_, T, N, P> {}

impl<T, const N: usize, P: Policy> Drop for Producer<'_, T, N, P> {
    fn drop(&mut self) {
        self.ring.live.drop_side(Live::PRODUCER);
        self.ring.wake_consumer_all();
    }
}

impl<T, const N: usize, P: Policy> Drop for Consumer<'_, T, N, P> {
    fn drop(&mut self) {
        self.ring.live.drop_side(Live::CONSUMER);
        self.ring.wake_producer_all();
    }
}

/// The ring's summary, and whether the consumer is gone.
#[cfg(feature = "defmt")]
impl<T, const N: usize, P: Policy> defmt::Format for Producer<'_, T, N, P> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "Producer {{ ring: {}, abandoned: {=bool} }}",
            self.ring,
            self.is_abandoned()
        )
    }
}

/// The ring's summary, and whether the producer is gone.
#[cfg(feature = "defmt")]
impl<T, const N: usize, P: Policy> defmt::Format for Consumer<'_, T, N, P> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "Consumer {{ ring: {}, abandoned: {=bool} }}",
            self.ring,
            self.is_abandoned()
        )
    }
}

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

impl<T, const N: usize, P: Policy> Producer<'_, T, N, P> {
    /// Writes `item` into the slot of stored position `stored`.
    ///
    /// # Safety
    ///
    /// The slot must be free (the caller saw it so through `free_for`, or won
    /// it by an eviction) and stays unread until the caller publishes it. Its
    /// old contents are logically uninitialised, so nothing is dropped.
    #[inline(always)]
    pub(super) unsafe fn write_slot(&self, stored: usize, item: T) {
        self.ring.slot(stored).with_mut(|p| {
            // SAFETY: per the contract, nobody else touches the slot.
            unsafe { (*p).write(item) };
        });
    }

    /// Pushes `item`, or hands it back in [`Full`] if the ring is full (and
    /// counts it in [`RingStats::rejected`]). Wait-free.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 1> = sluicegate::spsc::Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// assert_eq!(tx.try_push(1), Ok(()));
    /// assert_eq!(tx.try_push(2).unwrap_err().into_inner(), 2);
    /// ```
    #[inline]
    pub fn try_push(&mut self, item: T) -> Result<(), Full<T>> {
        match self.store_if_room(item) {
            Ok(()) => self.wake_consumer_then(Ok(())),
            Err(item) => {
                self.ring.producer.rejected.add(1);
                Err(Full(item))
            }
        }
    }

    /// Pushes `item` if there is room, without counting a refusal (the
    /// waits' attempt, and `try_push` less its count).
    #[inline(always)]
    pub(super) fn push_if_room(&mut self, item: T) -> Result<(), T> {
        self.store_if_room(item)?;
        self.wake_consumer_then(Ok(()))
    }

    /// [`push_if_room`](Self::push_if_room) without the wake: the caller
    /// wakes a waiting consumer after an `Ok`.
    #[inline(always)]
    fn store_if_room(&mut self, item: T) -> Result<(), T> {
        if self.ring.free_for(self.tail, &mut self.head, 1) == 0 {
            return Err(item);
        }
        // SAFETY: `free_for` saw the slot at tail free.
        unsafe { self.write_slot(self.tail, item) };
        self.ring.commit(&mut self.tail, 1);
        self.note_level();
        Ok(())
    }

    /// Pushes `item`, waiting for room: pressure travels upstream instead of
    /// being rejected. With the `std` feature the thread tries again for a
    /// few microseconds (127 spin hints in all), then **sleeps** (parked)
    /// until a pop or the consumer's drop wakes it. Without `std` it
    /// **spins** with [`crossbeam_utils::Backoff`] (which yields the thread
    /// only if some crate in the build enables crossbeam-utils' `std`
    /// feature) and burns its core while it waits. A wait is not a rejection
    /// and is not counted. If the ring is full and the consumer is gone
    /// ([`is_abandoned`](Self::is_abandoned)), nobody can make room: the item
    /// comes back in [`Closed`] instead of waiting for ever.
    ///
    /// **Never call this from an interrupt handler** (or any context that can
    /// preempt the consumer on the same core): the consumer could not run to
    /// make room, and the wait would never end. Use `try_push` or
    /// `push_overwrite` there.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u32, 2> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// std::thread::scope(|s| {
    ///     s.spawn(move || (0..100).for_each(|i| tx.push_blocking(i).unwrap()));
    ///     for i in 0..100 {
    ///         assert_eq!(rx.pop_blocking(), Some(i));
    ///     }
    ///     assert_eq!(rx.pop_blocking(), None); // the producer is gone, the ring drained
    /// });
    /// ```
    pub fn push_blocking(&mut self, item: T) -> Result<(), Closed<T>> {
        #[cfg(feature = "std")]
        {
            let tried = self.push_if_room(item);
            match tried
                .or_else(|item| crate::spin::briefly(item, |i| self.push_if_room(i), || false))
            {
                Ok(()) => Ok(()),
                Err(item) => crate::wait::park::block_on(self.push(item)),
            }
        }
        #[cfg(not(feature = "std"))]
        crate::spin::until(item, |item| match self.push_if_room(item) {
            Ok(()) => Ok(Ok(())),
            Err(item) if self.is_abandoned() => Ok(Err(Closed(item))),
            Err(item) => Err(item),
        })
    }

    /// Pushes items from `iter` until it ends or the ring is full; returns
    /// how many it pushed, all published at once. Takes from `iter` only
    /// what fits, so the rest stay in it (pass `&mut iter` to keep them).
    /// Never evicts, and what does not fit is not counted as rejected.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// let mut items = 1..=6;
    /// assert_eq!(tx.push_iter(&mut items), 4); // full after four
    /// assert_eq!(items.next(), Some(5)); // the rest are still there
    /// assert_eq!(rx.drain().collect::<Vec<_>>(), [1, 2, 3, 4]);
    /// ```
    pub fn push_iter<I: IntoIterator<Item = T>>(&mut self, iter: I) -> usize {
        self.write_chunk_uninit_up_to(N).fill_from_iter(iter)
    }

    /// Whether the consumer has been dropped: the SPSC ring's "closed".
    /// `push_blocking` and `push().await` then hand the item back in
    /// [`Closed`] instead of waiting for room; `try_push` still pushes while
    /// there is room, and items pushed now stay in the ring for the consumer
    /// of a later split.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (tx, rx) = ring.split();
    /// assert!(!tx.is_abandoned());
    /// drop(rx);
    /// assert!(tx.is_abandoned());
    /// ```
    pub fn is_abandoned(&self) -> bool {
        !self.ring.live.alive(Live::CONSUMER)
    }

    /// Items in the ring now; the consumer may take some at any moment
    /// (see [`Ring::len`]).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// tx.try_push(1).unwrap();
    /// assert_eq!((tx.len(), tx.free_slots(), tx.is_empty(), tx.is_full()), (1, 3, false, false));
    /// ```
    pub fn len(&self) -> usize {
        if P::OVERWRITES {
            // Less the voids (see `Ring::len`).
            return self.ring.len();
        }
        // Our tail is the ring's (we are its only writer), so one load of
        // head is enough; Acquire as in `Ring::len`. The real head is never
        // ahead of tail nor more than N behind it.
        let head = self.ring.load_head(Ordering::Acquire);
        self.tail.wrapping_sub(head) >> P::SHIFT
    }

    crate::observe::derived_observers! {
        obj: "tx",
        make: "let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();\nlet (mut tx, _rx) = ring.split();",
        push: "tx.try_push(1).unwrap();",
        caveat: ": the consumer may take items at any moment (see [`len`](Self::len)).",
    }

    /// The ring's counters ([`Ring::stats`]), so the producer can read what
    /// it had refused without a reference to the ring.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 1> = sluicegate::spsc::Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// tx.try_push(1).unwrap();
    /// assert!(tx.try_push(2).is_err());
    /// assert_eq!(tx.stats().rejected, 1);
    /// ```
    pub fn stats(&self) -> RingStats {
        self.ring.stats()
    }

    /// Reserves exactly `n` free slots for writing in place, or reserves
    /// nothing and says how many are free (rtrb's `write_chunk_uninit`).
    /// Nothing becomes visible to the consumer until the chunk is committed.
    ///
    /// ```
    /// use sluicegate::Insufficient;
    ///
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// let chunk = tx.write_chunk_uninit(3).unwrap();
    /// assert_eq!(chunk.fill_from_iter([1, 2, 3]), 3);
    /// assert_eq!(tx.write_chunk_uninit(2).unwrap_err(), Insufficient { available: 1 });
    /// assert_eq!(rx.try_pop(), Some(1));
    /// ```
    pub fn write_chunk_uninit(
        &mut self,
        n: usize,
    ) -> Result<WriteChunkUninit<'_, T, N, P>, Insufficient> {
        self.note_level();
        let free = self.ring.free_for(self.tail, &mut self.head, n);
        if free < n {
            return Err(Insufficient { available: free });
        }
        Ok(WriteChunkUninit::new(self.ring, &mut self.tail, n))
    }

    /// Reserves as many free slots as there are, up to `max`, for writing in
    /// place; the chunk may be shorter, or empty.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// tx.try_push(0).unwrap();
    /// let chunk = tx.write_chunk_uninit_up_to(10);
    /// assert_eq!(chunk.len(), 3);
    /// assert_eq!(chunk.fill_from_iter(1..), 3);
    /// assert!(tx.is_full());
    /// ```
    pub fn write_chunk_uninit_up_to(&mut self, max: usize) -> WriteChunkUninit<'_, T, N, P> {
        self.note_level();
        let n = self.ring.free_for(self.tail, &mut self.head, max).min(max);
        WriteChunkUninit::new(self.ring, &mut self.tail, n)
    }
}

impl<'a, T, const N: usize, P: Policy> Consumer<'a, T, N, P> {
    /// Moves the item at stored position `stored` out of its slot.
    ///
    /// # Safety
    ///
    /// The position must be published (tail acquired) and claimed by us, and
    /// the caller must free the slot (`release`) without reading it again:
    /// afterwards it is logically uninitialised.
    #[inline(always)]
    pub(super) unsafe fn read_slot(&self, stored: usize) -> T {
        self.ring.slot(stored).with(|p| {
            // SAFETY: per the contract, the slot is initialised and ours.
            unsafe { (*p).assume_init_read() }
        })
    }

    /// Pops the oldest item, or `None` if the ring is empty. Wait-free under
    /// [`Reject`]; lock-free under [`Overwrite`] (retries only after the
    /// producer evicted the item this call was about to take).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// assert_eq!(rx.try_pop(), None);
    /// tx.try_push(7).unwrap();
    /// assert_eq!(rx.try_pop(), Some(7));
    /// ```
    #[inline]
    pub fn try_pop(&mut self) -> Option<T> {
        if self.ring.claim(&mut self.head, &mut self.tail, 1) == 0 {
            return None;
        }
        // SAFETY: `claim` published and claimed the item at head for us;
        // `release` frees its slot right after.
        let item = unsafe { self.read_slot(self.head) };
        self.ring.release(&mut self.head, 1, 1);
        Some(item)
    }

    /// `Some(Some(item))`, `Some(None)` if the producer is gone and the ring
    /// drained, `None` if the caller must wait.
    #[inline]
    pub(super) fn pop_or_finished(&mut self) -> Option<Option<T>> {
        if let Some(item) = self.try_pop() {
            return Some(Some(item));
        }
        if self.is_abandoned() {
            // Acquired after the producer's last publish: what it left is
            // visible to this last pop.
            return Some(self.try_pop());
        }
        None
    }

    /// Pops the oldest item, waiting until there is one; `None` once the
    /// producer is gone and the ring is drained. With the `std` feature the
    /// thread sleeps until a push or the producer's drop wakes it; without
    /// it, it spins with [`crossbeam_utils::Backoff`], as
    /// [`Producer::push_blocking`] does.
    /// **Never call this from an interrupt handler** that can preempt the
    /// producer: the wait would never end.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push(5).unwrap();
    /// assert_eq!(rx.pop_blocking(), Some(5));
    /// drop(tx);
    /// assert_eq!(rx.pop_blocking(), None);
    /// ```
    pub fn pop_blocking(&mut self) -> Option<T> {
        #[cfg(feature = "std")]
        {
            let tried = self.pop_or_finished().ok_or(());
            match tried.or_else(|()| {
                crate::spin::briefly((), |()| self.pop_or_finished().ok_or(()), || false)
            }) {
                Ok(out) => out,
                Err(()) => crate::wait::park::block_on(self.pop()),
            }
        }
        #[cfg(not(feature = "std"))]
        crate::spin::until((), |()| self.pop_or_finished().ok_or(()))
    }

    /// An iterator that pops until the ring is empty (each `next` is a
    /// [`try_pop`](Self::try_pop)); items pushed while it runs come out too.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[1, 2, 3]);
    /// let sum: u32 = rx.drain().map(u32::from).sum();
    /// assert_eq!(sum, 6);
    /// assert!(rx.is_empty());
    /// ```
    pub fn drain(&mut self) -> impl Iterator<Item = T> + use<'_, 'a, T, N, P> {
        core::iter::from_fn(move || self.try_pop())
    }

    /// Drops every item in the ring now and returns how many (one claim,
    /// one release; under [`Overwrite`](super::Overwrite), one per run of
    /// items between voids). If an item's `Drop` panics, the items up to it
    /// are gone and the rest stay in the ring.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<String, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_iter(["a".to_string(), "b".to_string()]);
    /// assert_eq!(rx.clear(), 2);
    /// assert!(rx.is_empty());
    /// ```
    pub fn clear(&mut self) -> usize {
        let mut cleared = 0;
        // A claim ends at a void: as many claims as runs, at most `N`.
        for _ in 0..if P::OVERWRITES { N } else { 1 } {
            let chunk = self.read_chunk_up_to(N);
            let n = chunk.len();
            chunk.commit_all();
            cleared += n;
            if n == 0 || cleared >= N {
                break;
            }
        }
        cleared
    }

    /// Whether the producer has been dropped. Checked *before* a pop that
    /// finds the ring empty, it says that nothing will ever come: the
    /// producer's last push is visible to every pop after this call.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push(1).unwrap();
    /// drop(tx);
    /// let mut got = Vec::new();
    /// loop {
    ///     let finished = rx.is_abandoned(); // first the flag, then the pop
    ///     match rx.try_pop() {
    ///         Some(item) => got.push(item),
    ///         None if finished => break, // producer gone and ring drained
    ///         None => std::hint::spin_loop(),
    ///     }
    /// }
    /// assert_eq!(got, [1]);
    /// ```
    pub fn is_abandoned(&self) -> bool {
        !self.ring.live.alive(Live::PRODUCER)
    }

    /// Items in the ring now; the producer may add some at any moment
    /// ([`Ring::len`]).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 2> = sluicegate::spsc::Ring::new();
    /// let (mut tx, rx) = ring.split();
    /// tx.try_push(1).unwrap();
    /// tx.try_push(2).unwrap();
    /// assert_eq!((rx.len(), rx.free_slots(), rx.is_empty(), rx.is_full()), (2, 0, false, true));
    /// ```
    pub fn len(&self) -> usize {
        if P::OVERWRITES {
            // Our head may be behind evictions: load both words.
            return self.ring.len();
        }
        // Under Reject our head is the ring's (we are its only writer), so
        // one load of tail is enough; Acquire as in `Ring::len`. The real
        // tail is never behind our head nor more than N ahead of it.
        let tail = self.ring.producer.tail.load(Ordering::Acquire);
        tail.wrapping_sub(self.head) >> P::SHIFT
    }

    crate::observe::derived_observers! {
        obj: "rx",
        make: "let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();\nlet (mut tx, rx) = ring.split();",
        push: "tx.try_push(1).unwrap();",
        caveat: ": the producer may add items at any moment (see [`len`](Self::len)).",
    }

    /// The ring's counters ([`Ring::stats`]), so the consumer can see how
    /// much it lost to evictions.
    ///
    /// ```
    /// use sluicegate::spsc::{Overwrite, Ring};
    ///
    /// let mut ring: Ring<u8, 2, Overwrite> = Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// for i in 0..5 {
    ///     let _ = tx.push_overwrite(i);
    /// }
    /// assert_eq!(rx.try_pop(), Some(3));
    /// assert_eq!(rx.stats().overwritten, 3); // 0, 1 and 2 were evicted
    /// ```
    pub fn stats(&self) -> RingStats {
        self.ring.stats()
    }

    /// Claims exactly `n` items for reading in place, or claims nothing and
    /// says how many there are (rtrb's `read_chunk`). Committing the chunk
    /// drops items and frees their slots; dropping it frees nothing. Under
    /// [`Overwrite`], a chunk ends at a void (a position the producer
    /// skipped because the consumer held its slot), so `available` counts
    /// the items up to it; while the chunk lives the producer skips its
    /// slots and evicts past it, and the items not committed go back to
    /// the ring only if it has not done so meanwhile (otherwise they are
    /// dropped and counted as overwritten: newer items went in past them).
    ///
    /// ```
    /// use sluicegate::Insufficient;
    ///
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[1, 2, 3]);
    /// assert_eq!(rx.read_chunk(4).unwrap_err(), Insufficient { available: 3 });
    /// let chunk = rx.read_chunk(2).unwrap();
    /// assert_eq!(chunk.as_slices(), (&[1, 2][..], &[][..]));
    /// chunk.commit_all();
    /// assert_eq!(rx.try_pop(), Some(3));
    /// ```
    pub fn read_chunk(&mut self, n: usize) -> Result<ReadChunk<'_, T, N, P>, Insufficient> {
        let got = self.ring.claim(&mut self.head, &mut self.tail, n);
        if got < n {
            if got > 0 {
                // End the claim without freeing anything.
                self.ring.release(&mut self.head, 0, got);
            }
            return Err(Insufficient { available: got });
        }
        Ok(ReadChunk::new(self.ring, &mut self.head, n))
    }

    /// Claims as many items as there are, up to `max`, for reading in place;
    /// the chunk may be shorter, or empty. Otherwise as
    /// [`read_chunk`](Self::read_chunk).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[1, 2, 3]);
    /// let chunk = rx.read_chunk_up_to(10);
    /// assert_eq!(chunk.len(), 3);
    /// chunk.commit(2); // drops 1 and 2; 3 stays
    /// assert_eq!(rx.try_pop(), Some(3));
    /// ```
    pub fn read_chunk_up_to(&mut self, max: usize) -> ReadChunk<'_, T, N, P> {
        let n = self.ring.claim(&mut self.head, &mut self.tail, max);
        ReadChunk::new(self.ring, &mut self.head, n)
    }

    /// The oldest item, held in place by a guard that dereferences to it, or
    /// `None` if the ring is empty; [`Peek::pop`] takes it out. Under
    /// [`Overwrite`], while the guard lives the producer skips its slot and
    /// evicts past it; a guard dropped after that cannot put its item back
    /// behind newer ones, so the item is dropped and counted as overwritten.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push(1).unwrap();
    /// assert_eq!(rx.peek().as_deref(), Some(&1)); // still in the ring
    /// let oldest = rx.peek().unwrap();
    /// assert_eq!(oldest.pop(), 1);
    /// assert!(rx.peek().is_none());
    /// ```
    #[cfg(not(sluicegate_loom))]
    pub fn peek(&mut self) -> Option<Peek<'_, T, N, P>> {
        Peek::new(self.read_chunk_up_to(1))
    }
}
