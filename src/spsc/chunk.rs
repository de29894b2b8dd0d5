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
/// Dropping it publishes nothing (values written but not committed are
/// forgotten, not dropped).
pub struct WriteChunkUninit<'c, T, const N: usize, P: Policy> {
    ring: &'c Ring<T, N, P>,
    /// The producer's tail: start of the region, advanced on commit.
    tail: &'c mut usize,
    len: usize,
}

impl<'c, T, const N: usize, P: Policy> WriteChunkUninit<'c, T, N, P> {
    pub(super) fn new(ring: &'c Ring<T, N, P>, tail: &'c mut usize, len: usize) -> Self {
        debug_assert!(len <= N);
        Self { ring, tail, len }
    }

    /// Number of reserved slots.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no slot was reserved (the ring was full).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The reserved slots, in order: the part up to the end of the storage,
    /// then the part that wrapped to its start (often empty).
    #[cfg(not(sluicegate_loom))]
    pub fn as_mut_slices(&mut self) -> (&mut [MaybeUninit<T>], &mut [MaybeUninit<T>]) {
        let start = Ring::<T, N, P>::index(*self.tail);
        let first = self.len.min(N - start);
        // SAFETY: the `len` slots after tail are free (checked by
        // `free_for` when reserving) and the consumer will not read them until
        // we publish; `&mut self` makes these the only references to them.
        // The two ranges are disjoint and inside the array.
        unsafe {
            (
                core::slice::from_raw_parts_mut(self.ring.slot_ptr(start), first),
                core::slice::from_raw_parts_mut(self.ring.slot_ptr(0), self.len - first),
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
    pub unsafe fn commit(self, n: usize) {
        let n = n.min(self.len);
        self.ring.publish(self.tail, n);
    }

    /// Publishes all reserved slots.
    ///
    /// # Safety
    ///
    /// Every slot must have been initialised.
    pub unsafe fn commit_all(self) {
        let n = self.len;
        self.ring.publish(self.tail, n);
    }

    /// Moves items from `iter` into the reserved slots until either runs out,
    /// then publishes them at once. Returns how many were written.
    pub fn fill_from_iter<I: IntoIterator<Item = T>>(self, iter: I) -> usize {
        let mut written = 0;
        for item in iter.into_iter().take(self.len) {
            self.write_slot(written, item);
            written += 1;
        }
        self.ring.publish(self.tail, written);
        written
    }

    /// Writes the `i`-th reserved slot (loom models only; `i < len`).
    #[cfg(sluicegate_loom)]
    #[doc(hidden)]
    pub fn write_at(&mut self, i: usize, item: T) {
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

/// A claimed region of items, read in place, from
/// [`Consumer::read_chunk`](super::Consumer::read_chunk).
///
/// [`commit`](Self::commit) drops the first `n` items and frees their slots;
/// dropping the chunk frees nothing (the items stay in the ring).
pub struct ReadChunk<'c, T, const N: usize, P: Policy> {
    ring: &'c Ring<T, N, P>,
    /// The consumer's head: start of the region, advanced on commit.
    head: &'c mut usize,
    len: usize,
}

impl<'c, T, const N: usize, P: Policy> ReadChunk<'c, T, N, P> {
    pub(super) fn new(ring: &'c Ring<T, N, P>, head: &'c mut usize, len: usize) -> Self {
        debug_assert!(len <= N);
        Self { ring, head, len }
    }

    /// Number of claimed items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no item was claimed (the ring was empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg(not(sluicegate_loom))]
    fn ranges(&self) -> (usize, usize, usize) {
        let start = Ring::<T, N, P>::index(*self.head);
        let first = self.len.min(N - start);
        (start, first, self.len - first)
    }

    /// The claimed items, oldest first: the part up to the end of the storage,
    /// then the part that wrapped to its start (often empty).
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
    /// and frees their slots; the rest stay in the ring.
    pub fn commit(self, n: usize) {
        if self.len == 0 {
            // An empty chunk holds no claim: nothing to free or release.
            return;
        }
        let n = n.min(self.len);
        if core::mem::needs_drop::<T>() {
            for i in 0..n {
                self.ring
                    .slot(self.head.wrapping_add(i << P::SHIFT))
                    .with_mut(|p| {
                        // SAFETY: the item is initialised and claimed by us;
                        // after the release below its slot counts as empty, so
                        // it is dropped exactly once.
                        unsafe { (*p).assume_init_drop() }
                    });
            }
        }
        // Release the claim ourselves and skip Drop's release.
        let mut this = core::mem::ManuallyDrop::new(self);
        this.ring.release(this.head, n);
    }

    /// Reads the `i`-th claimed item (loom models only; `i < len`).
    #[cfg(sluicegate_loom)]
    #[doc(hidden)]
    pub fn read_at(&self, i: usize) -> T
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
    pub fn commit_all(self) {
        let n = self.len;
        self.commit(n);
    }
}

impl<T, const N: usize, P: Policy> Drop for ReadChunk<'_, T, N, P> {
    fn drop(&mut self) {
        if self.len > 0 {
            // End the claim without freeing anything (clears BUSY).
            self.ring.release(self.head, 0);
        }
    }
}

#[cfg(not(sluicegate_loom))]
crate::sync::cfg_cas! {
/// The oldest item of an [`Overwrite`](super::Overwrite) ring, held in place
/// (see [`Consumer::peek`](super::Consumer::peek)). Dereferences to the item;
/// [`pop`](Self::pop) takes it.
pub struct Peek<'c, T, const N: usize, P: Policy>(ReadChunk<'c, T, N, P>);

impl<'c, T, const N: usize, P: Policy> Peek<'c, T, N, P> {
    pub(super) fn new(chunk: ReadChunk<'c, T, N, P>) -> Option<Self> {
        if chunk.is_empty() {
            None
        } else {
            Some(Self(chunk))
        }
    }

    /// Removes the item from the ring and returns it.
    pub fn pop(self) -> T {
        let chunk = self.0;
        let item = chunk.ring.slot(*chunk.head).with(|p| {
            // SAFETY: the chunk claims this published item; after reading it
            // we release its slot, so it is moved out exactly once.
            unsafe { (*p).assume_init_read() }
        });
        chunk.ring.release(chunk.head, 1);
        core::mem::forget(chunk);
        item
    }
}

impl<T, const N: usize, P: Policy> core::ops::Deref for Peek<'_, T, N, P> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.as_slices().0[0]
    }
}
}
