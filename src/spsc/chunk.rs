//! Zero-copy access: reserve a region of the ring, fill or read it in place,
//! then commit. The chunks move the same indices as the burst and bulk
//! operations (`free_for`/`publish`, `claim`/`release`). Under loom the slice
//! views are replaced by per-slot accessors (`write_at`, `read_at`), so the
//! loom models check chunk commits against the other side too.

#[cfg(not(sluicegate_loom))]
use core::mem::MaybeUninit;

use super::{Policy, Ring};

/// A reserved, not yet visible region of free slots, from
/// [`Producer::write_chunk_uninit`](super::Producer::write_chunk_uninit).
///
/// Fill it through [`as_mut_slices`](Self::as_mut_slices) and publish with
/// [`commit`](Self::commit), or use the safe [`fill_from_iter`](Self::fill_from_iter).
/// Dropping it publishes nothing (values written through `as_mut_slices` but
/// not committed are forgotten, not dropped).
///
/// `Send` and `Sync` where `T: Send`: it hands out no `&T`, only `&mut`
/// access to empty slots through `&mut self`.
pub struct WriteChunkUninit<'c, T, const N: usize, P: Policy> {
    ring: &'c Ring<T, N, P>,
    /// The producer's tail: start of the region, advanced when the chunk is
    /// dropped (by `commit` or at the end of `fill_from_iter`).
    tail: &'c mut usize,
    len: usize,
    /// How many of the first slots hold items to publish when the chunk is
    /// dropped. Raised slot by slot by `fill_from_iter`, so a panicking
    /// iterator still publishes what it wrote; set at once by `commit`.
    written: usize,
}

impl<'c, T, const N: usize, P: Policy> WriteChunkUninit<'c, T, N, P> {
    pub(super) fn new(ring: &'c Ring<T, N, P>, tail: &'c mut usize, len: usize) -> Self {
        debug_assert!(len <= N);
        Self {
            ring,
            tail,
            len,
            written: 0,
        }
    }

    /// Number of reserved slots.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// let chunk = tx.write_chunk_uninit_up_to(3);
    /// assert_eq!((chunk.len(), chunk.is_empty()), (3, false));
    /// chunk.fill_from_iter([1, 2, 3]);
    /// let rest = tx.write_chunk_uninit_up_to(3); // one slot left
    /// assert_eq!(rest.len(), 1);
    /// drop(rest);
    /// tx.try_push(4).unwrap();
    /// assert!(tx.write_chunk_uninit_up_to(3).is_empty()); // full
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no slot was reserved (the ring was full).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 1> = sluicegate::spsc::Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// tx.try_push(1).unwrap();
    /// assert!(tx.write_chunk_uninit_up_to(4).is_empty()); // the ring is full
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The reserved slots, in order: the part up to the end of the storage,
    /// then the part that wrapped to its start (often empty).
    ///
    /// Here the region wraps: the ring's positions start at 3, so the three
    /// slots reserved are the last one of the storage and the first two.
    ///
    /// ```
    /// use sluicegate::spsc::Ring;
    ///
    /// let mut ring: Ring<u32, 4> = Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[0, 0, 0]);
    /// rx.pop_burst(&mut [0; 3]); // next write goes to the last slot
    /// let mut chunk = tx.write_chunk_uninit(3).unwrap();
    /// let (first, wrapped) = chunk.as_mut_slices();
    /// assert_eq!((first.len(), wrapped.len()), (1, 2));
    /// for (slot, value) in first.iter_mut().chain(wrapped).zip(10..) {
    ///     slot.write(value);
    /// }
    /// // SAFETY: all three slots were written just above.
    /// unsafe { chunk.commit_all() };
    /// let mut out = [0; 3];
    /// rx.pop_bulk(&mut out).unwrap();
    /// assert_eq!(out, [10, 11, 12]);
    /// ```
    #[cfg(not(sluicegate_loom))]
    pub fn as_mut_slices(&mut self) -> (&mut [MaybeUninit<T>], &mut [MaybeUninit<T>]) {
        let (start, first, rest) = Ring::<T, N, P>::split_range(*self.tail, self.len);
        // SAFETY: the `len` slots after tail are free (checked by
        // `free_for` when reserving) and the consumer will not read them until
        // we publish; `&mut self` makes these the only references to them.
        // The two ranges are disjoint and inside the array.
        unsafe {
            (
                core::slice::from_raw_parts_mut(self.ring.slot_ptr(start), first),
                core::slice::from_raw_parts_mut(self.ring.slot_ptr(0), rest),
            )
        }
    }

    /// Publishes the first `n` reserved slots to the consumer (`n` is
    /// clamped to the chunk's length).
    ///
    /// # Safety
    ///
    /// The first `n` slots (in the order of [`as_mut_slices`](Self::as_mut_slices))
    /// must have been initialised.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u16, 8> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// let mut chunk = tx.write_chunk_uninit(4).unwrap();
    /// // Say a DMA transfer filled only two of the four slots.
    /// chunk.as_mut_slices().0[0].write(0xAA);
    /// chunk.as_mut_slices().0[1].write(0xBB);
    /// // SAFETY: the first two slots were written just above.
    /// unsafe { chunk.commit(2) };
    /// assert_eq!(rx.len(), 2);
    /// assert_eq!(rx.try_pop(), Some(0xAA));
    /// ```
    pub unsafe fn commit(mut self, n: usize) {
        // Published when `self` is dropped, on return.
        self.written = n.min(self.len);
    }

    /// Publishes all reserved slots.
    ///
    /// # Safety
    ///
    /// Every slot must have been initialised.
    ///
    /// # Example
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// let mut chunk = tx.write_chunk_uninit(2).unwrap();
    /// let (a, b) = chunk.as_mut_slices();
    /// for (slot, v) in a.iter_mut().chain(b.iter_mut()).zip([5, 6]) {
    ///     slot.write(v);
    /// }
    /// // SAFETY: both reserved slots were written just above.
    /// unsafe { chunk.commit_all() };
    /// assert_eq!(rx.try_pop(), Some(5));
    /// ```
    pub unsafe fn commit_all(mut self) {
        self.written = self.len;
    }

    /// Moves items from `iter` into the reserved slots until either runs out,
    /// then publishes them at once. Returns how many were written.
    ///
    /// If the iterator panics, the items it yielded before are published
    /// all the same (the consumer receives them) and the panic goes on.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// let chunk = tx.write_chunk_uninit(3).unwrap();
    /// assert_eq!(chunk.fill_from_iter([7, 8]), 2); // the iterator ran out first
    /// let chunk = tx.write_chunk_uninit_up_to(4);
    /// assert_eq!(chunk.fill_from_iter(0..), 2); // the chunk ran out first
    /// assert_eq!(rx.try_pop(), Some(7));
    /// ```
    pub fn fill_from_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> usize {
        for item in iter.into_iter().take(self.len) {
            self.write_slot(self.written, item);
            self.written += 1;
        }
        self.written
    }

    /// Writes the `i`-th reserved slot (loom models only; `i < len`).
    #[cfg(all(test, sluicegate_loom))]
    pub(crate) fn write_at(&mut self, i: usize, item: T) {
        assert!(i < self.len);
        self.write_slot(i, item);
    }

    fn write_slot(&self, i: usize, item: T) {
        debug_assert!(i < self.len);
        self.ring
            .slot(self.tail.wrapping_add(i << P::SHIFT))
            .with_mut(|p| {
                // SAFETY: the slot is one of the `len` reserved free slots,
                // which nobody reads before we publish.
                unsafe { (*p).write(item) };
            });
    }
}

impl<T, const N: usize, P: Policy> core::fmt::Debug for WriteChunkUninit<'_, T, N, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WriteChunkUninit")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T, const N: usize, P: Policy> Drop for WriteChunkUninit<'_, T, N, P> {
    fn drop(&mut self) {
        if self.written > 0 {
            self.ring.publish(self.tail, self.written);
        }
    }
}

/// A claimed region of items, read in place, from
/// [`Consumer::read_chunk`](super::Consumer::read_chunk).
///
/// [`commit`](Self::commit) drops the first `n` items and frees their slots;
/// dropping the chunk frees nothing (the items stay in the ring; under
/// [`Overwrite`](super::Overwrite), unless the producer evicted or skipped
/// past them meanwhile: then they are dropped and counted as overwritten).
///
/// `Send` where `T: Send`; `Sync` only where `T: Send + Sync`, because
/// [`as_slices`](Self::as_slices) hands `&T` to whoever shares the chunk.
pub struct ReadChunk<'c, T, const N: usize, P: Policy> {
    pub(super) ring: &'c Ring<T, N, P>,
    /// The consumer's head: start of the region, advanced when the chunk is
    /// dropped (by `commit` or `Peek::pop`), which also ends the claim.
    pub(super) head: &'c mut usize,
    len: usize,
    /// How many of the first items are gone (dropped or moved out) and have
    /// their slots freed when the chunk is dropped. `commit` raises it
    /// *before* each item's `Drop` runs, so a panicking `Drop` frees exactly
    /// the items already dropped, that one included.
    pub(super) freed: usize,
}

// SAFETY: `&ReadChunk` gives `&T` through `as_slices` (and `Peek`'s
// `Deref`), so sharing the chunk between threads shares the items: `T: Sync`
// is needed, and with it enough, as the items cannot change while shared
// (mutation needs `&mut self`). The claim itself is ended only through
// `self` or `&mut self`. The `Send` half stays automatic (`T: Send`, through
// `&Ring`): moving the chunk moves the right to drop the items in place.
unsafe impl<T: Send + Sync, const N: usize, P: Policy> Sync for ReadChunk<'_, T, N, P> {}

impl<'c, T, const N: usize, P: Policy> ReadChunk<'c, T, N, P> {
    pub(super) fn new(ring: &'c Ring<T, N, P>, head: &'c mut usize, len: usize) -> Self {
        debug_assert!(len <= N);
        Self {
            ring,
            head,
            len,
            freed: 0,
        }
    }

    /// Number of claimed items.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// assert!(rx.read_chunk_up_to(4).is_empty());
    /// tx.push_burst(&[1, 2]);
    /// let chunk = rx.read_chunk_up_to(4);
    /// assert_eq!((chunk.len(), chunk.is_empty()), (2, false));
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no item was claimed (the ring was empty).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (_tx, mut rx) = ring.split();
    /// assert!(rx.read_chunk_up_to(4).is_empty()); // the ring is empty
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg(not(sluicegate_loom))]
    fn ranges(&self) -> (usize, usize, usize) {
        Ring::<T, N, P>::split_range(*self.head, self.len)
    }

    /// The claimed items, oldest first: the part up to the end of the storage,
    /// then the part that wrapped to its start (often empty).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[0, 0, 1]);
    /// rx.pop_burst(&mut [0; 2]);
    /// tx.push_burst(&[2, 3]); // 1 sits in the third slot, 2 in the fourth, 3 wrapped to the first
    /// let chunk = rx.read_chunk(3).unwrap();
    /// assert_eq!(chunk.as_slices(), (&[1, 2][..], &[3][..]));
    /// ```
    #[cfg(not(sluicegate_loom))]
    pub fn as_slices(&self) -> (&[T], &[T]) {
        let (start, first, rest) = self.ranges();
        // SAFETY: the claimed items are published (tail acquired) and
        // initialised; the producer can neither overwrite nor evict them
        // until we release (claim/BUSY). Shared borrows of `self` only.
        unsafe {
            (
                core::slice::from_raw_parts(self.ring.slot_ptr(start).cast::<T>(), first),
                core::slice::from_raw_parts(self.ring.slot_ptr(0).cast::<T>(), rest),
            )
        }
    }

    /// The claimed items, mutably (to process in place before committing).
    ///
    /// Changes made without committing stay in the ring:
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(b"abc");
    /// let mut chunk = rx.read_chunk(3).unwrap();
    /// chunk.as_mut_slices().0.make_ascii_uppercase();
    /// drop(chunk); // nothing committed
    /// assert_eq!(rx.try_pop(), Some(b'A'));
    /// ```
    #[cfg(not(sluicegate_loom))]
    pub fn as_mut_slices(&mut self) -> (&mut [T], &mut [T]) {
        let (start, first, rest) = self.ranges();
        // SAFETY: as in `as_slices`; `&mut self` makes these the only
        // references, and the two ranges are disjoint.
        unsafe {
            (
                core::slice::from_raw_parts_mut(self.ring.slot_ptr(start).cast::<T>(), first),
                core::slice::from_raw_parts_mut(self.ring.slot_ptr(0).cast::<T>(), rest),
            )
        }
    }

    /// Drops the first `n` items (clamped to the chunk's length) in place
    /// and frees their slots; the rest stay in the ring (under
    /// [`Overwrite`](super::Overwrite), as said on [`ReadChunk`]).
    ///
    /// If an item's `Drop` panics, the items before it and that one are
    /// gone and their slots freed; the ones after it stay in the ring, in
    /// order, for the next pop. No item is dropped twice.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<String, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// for word in ["a", "b", "c"] {
    ///     tx.try_push(word.to_string()).unwrap();
    /// }
    /// let chunk = rx.read_chunk(3).unwrap();
    /// let seen: usize = chunk.as_slices().0.iter().map(String::len).sum();
    /// assert_eq!(seen, 3);
    /// chunk.commit(2); // drops "a" and "b" in place
    /// assert_eq!(rx.try_pop().as_deref(), Some("c"));
    /// ```
    pub fn commit(mut self, n: usize) {
        let n = n.min(self.len);
        if !core::mem::needs_drop::<T>() {
            self.freed = n;
            return;
        }
        while self.freed < n {
            let pos = self.head.wrapping_add(self.freed << P::SHIFT);
            // Counted before the drop: a `Drop` that panics has still
            // consumed the item, and unwinding frees its slot (in our `Drop`).
            self.freed += 1;
            self.ring.slot(pos).with_mut(|p| {
                // SAFETY: the item is initialised and claimed by us, and
                // `freed` already counts it, so nothing reads or drops it
                // again: its slot is freed when `self` is dropped.
                unsafe { (*p).assume_init_drop() }
            });
        }
        // `self` is dropped here: frees the `n` slots and ends the claim.
    }

    /// Reads the `i`-th claimed item (loom models only; `i < len`).
    #[cfg(all(test, sluicegate_loom))]
    pub(crate) fn read_at(&self, i: usize) -> T
    where
        T: Copy,
    {
        assert!(i < self.len);
        self.ring
            .slot(self.head.wrapping_add(i << P::SHIFT))
            .with(|p| {
                // SAFETY: a claimed, published item; `T: Copy`.
                unsafe { (*p).assume_init_read() }
            })
    }

    /// Drops every item of the chunk and frees their slots.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[1, 2, 3]);
    /// rx.read_chunk_up_to(4).commit_all();
    /// assert!(rx.is_empty());
    /// ```
    pub fn commit_all(self) {
        let n = self.len;
        self.commit(n);
    }
}

impl<T, const N: usize, P: Policy> core::fmt::Debug for ReadChunk<'_, T, N, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReadChunk")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T, const N: usize, P: Policy> Drop for ReadChunk<'_, T, N, P> {
    fn drop(&mut self) {
        // An empty chunk holds no claim (`claim` returned 0).
        if self.len > 0 {
            // Frees the slots of the items that are gone and ends the claim
            // (clears BUSY under Overwrite); the rest stay in the ring.
            self.ring.release(self.head, self.freed, self.len);
        }
    }
}
