//! Write chunks: free slots claimed by a push to be filled in place.
//!
//! The claimed positions cannot be given back once another push has
//! claimed after them, so a chunk is published whole when it is filled, and
//! a chunk dropped before it is filled (abandoned, or a closure that
//! panicked while filling it) marks the positions it did not fill *void*:
//! it sets their marks and publishes nothing there. A pop that finds a
//! void at the front of the ring, on its slow path, claims the run of voids
//! as a pop would and passes them, flipping their published and consumed
//! bits so that every slot's laps stay even, then moving `cons` past them
//! and clearing their marks (the front held with a flag throughout); an
//! eviction whose oldest position is a void does the same. Until a void is
//! passed the pops behind it answer busy, as they do behind a push in
//! progress; a bulk pop that finds fewer items than it asks before a void
//! answers busy too, and a single pop, a burst or a read chunk passes the
//! void. `push_overwrite` makes voids of its own (module docs, "Keeping
//! the newest"), passed the same way.

use core::marker::PhantomData;
#[cfg(not(sluicegate_loom))]
use core::mem::MaybeUninit;

use super::{flip, mark, BurstRing, Marks, NoMarks, Stop, ONE};
use crate::sync::{pause, pause_point};

impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// Claims up to `max` free slots after the newest item (at least one:
    /// a chunk is never empty, and `max` 0 claims one, as 1 does) to be
    /// filled in place, with one claim: fill them with
    /// [`WriteChunk::fill_from_slice`] or [`WriteChunk::fill_with`] (or write
    /// them through [`WriteChunk::as_mut_slices`] and
    /// [`WriteChunk::commit`]), which publishes them at once. A chunk
    /// dropped unfilled leaves its slots void (module docs of `write`):
    /// pops pass them. Refuses as the other pushes do (a refusal counts as
    /// busy if it was busy; nothing counts as rejected, as no item was
    /// handed over).
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Stop};
    ///
    /// let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    /// let chunk = ring.write_chunk(3).unwrap();
    /// assert_eq!(chunk.len(), 3);
    /// chunk.fill_from_slice(&[7, 8, 9]);
    /// let mut out = [0; 4];
    /// assert_eq!(ring.pop_burst(&mut out).count, 3);
    /// assert_eq!(out[..3], [7, 8, 9]);
    /// drop(ring.write_chunk(2).unwrap()); // dropped unfilled: two voids
    /// ring.try_push(10).unwrap();
    /// assert_eq!(ring.try_pop(), Ok(10)); // the voids are passed
    /// ```
    pub fn write_chunk(&self, max: usize) -> Result<WriteChunk<'_, T, N, W, M>, Stop> {
        match self.claim_push(1, max.max(1)) {
            Ok((from, len)) => {
                pause_point(pause::BURST_PUSH_CLAIMED);
                Ok(WriteChunk {
                    ring: self,
                    from,
                    len,
                    written: 0,
                    _items: PhantomData,
                })
            }
            Err(stop) => Err(self.count(stop, 0)),
        }
    }
}

/// Free slots of a [`BurstRing`] claimed to be filled in place; from
/// [`BurstRing::write_chunk`]. Filling it publishes its items; dropping it
/// unfilled leaves the rest void (passed at once if they are the oldest
/// positions, else by the pops, which skip them).
///
/// Leaking it (`mem::forget`) is safe but never ends its claim: the pops
/// behind it answer [`Stop::Busy`](super::Stop::Busy) for good, as behind
/// a context that never resumes, and a closed ring is never drained.
///
/// `Send` and `Sync` where `T: Send` (it hands out no `&T`).
pub struct WriteChunk<'r, T: Copy, const N: usize, const W: usize, M: Marks = NoMarks> {
    ring: &'r BurstRing<T, N, W, M>,
    /// Counter word of the first position.
    from: usize,
    len: usize,
    /// How many of the first slots hold items to publish when it is dropped.
    written: usize,
    _items: PhantomData<&'r mut [T]>,
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> WriteChunk<'_, T, N, W, M> {
    /// How many slots the chunk holds (at least 1).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.push_burst(&[1, 2, 3]);
    /// assert_eq!(ring.write_chunk(8).unwrap().len(), 1);
    /// ```
    #[allow(clippy::len_without_is_empty)] // never empty
    pub fn len(&self) -> usize {
        self.len
    }

    /// Copies the first `len()` of `items` in (fewer if `items` is shorter:
    /// the rest of the chunk is left void) and publishes them. Returns how
    /// many it copied.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// assert_eq!(ring.write_chunk(2).unwrap().fill_from_slice(&[5, 6, 7]), 2);
    /// assert_eq!(ring.try_pop(), Ok(5));
    /// ```
    pub fn fill_from_slice(self, items: &[T]) -> usize {
        self.fill_from_iter(items.iter().copied())
    }

    /// Fills the slots in order with the items of `items` until it ends or
    /// the chunk is full, publishes them and leaves the rest void. Returns
    /// how many it wrote. Takes no more from `items` than the chunk holds
    /// (pass `&mut iter` to keep the rest).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// let mut items = 1..=5;
    /// assert_eq!(ring.write_chunk(3).unwrap().fill_from_iter(&mut items), 3);
    /// assert_eq!(items.next(), Some(4));
    /// assert_eq!(ring.try_pop(), Ok(1));
    /// ```
    pub fn fill_from_iter<I: IntoIterator<Item = T>>(mut self, items: I) -> usize {
        let mut items = items.into_iter();
        for i in 0..self.len {
            let Some(item) = items.next() else { break };
            self.put(i, item);
        }
        self.written
    }

    /// Fills every slot with the items `f` makes, in order, and publishes
    /// them. If `f` panics, what it made so far is published and the rest
    /// left void.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u32, 8, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// let mut next = 10;
    /// ring.write_chunk(3).unwrap().fill_with(|| {
    ///     next += 1;
    ///     next
    /// });
    /// let mut out = [0; 3];
    /// ring.pop_bulk(&mut out).unwrap();
    /// assert_eq!(out, [11, 12, 13]);
    /// ```
    pub fn fill_with(mut self, mut f: impl FnMut() -> T) {
        for i in 0..self.len {
            let item = f();
            self.put(i, item);
        }
    }

    /// The claimed slots, in order: the part up to the end of the storage,
    /// then the part that wrapped to its start (often empty). Write them,
    /// then [`commit`](Self::commit).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u32, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// let mut chunk = ring.write_chunk(2).unwrap();
    /// let (first, wrapped) = chunk.as_mut_slices();
    /// for (slot, v) in first.iter_mut().chain(wrapped).zip(1..) {
    ///     slot.write(v);
    /// }
    /// // SAFETY: both slots were written just above.
    /// unsafe { chunk.commit() };
    /// assert_eq!(ring.len(), 2);
    /// ```
    #[cfg(not(sluicegate_loom))]
    pub fn as_mut_slices(&mut self) -> (&mut [MaybeUninit<T>], &mut [MaybeUninit<T>]) {
        let (start, first, rest) = BurstRing::<T, N, W>::split(self.from, self.len);
        // SAFETY: the chunk claimed these positions, so their slots are its
        // own until it publishes them; `&mut self` makes these the only
        // references; the two ranges are disjoint and inside the array.
        unsafe {
            (
                core::slice::from_raw_parts_mut(self.ring.slot_ptr(start).cast(), first),
                core::slice::from_raw_parts_mut(self.ring.slot_ptr(0).cast(), rest),
            )
        }
    }

    /// Publishes every slot of the chunk.
    ///
    /// # Safety
    ///
    /// Every slot was written through [`as_mut_slices`](Self::as_mut_slices).
    pub unsafe fn commit(mut self) {
        self.written = self.len;
    }

    /// Writes `item` to slot `i` of the chunk, the next one unwritten.
    fn put(&mut self, i: usize, item: T) {
        debug_assert_eq!(i, self.written);
        let s = BurstRing::<T, N, W>::slot(self.from.wrapping_add(i * ONE));
        // SAFETY: the chunk claimed this position, so the slot is its own.
        unsafe { self.ring.write(s, item) };
        self.written = i + 1;
    }
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> Drop for WriteChunk<'_, T, N, W, M> {
    fn drop(&mut self) {
        pause_point(pause::BURST_PUSH_WRITTEN);
        if self.written > 0 {
            flip::<N, W>(&self.ring.published, self.from, self.written);
        }
        if self.written < self.len {
            let rest = self.from.wrapping_add(self.written * ONE);
            mark::<N, W>(&self.ring.room.void, rest, self.len - self.written, true);
            // Voids at the front are passed at once, as a pop would pass
            // them: else they keep room from the pushes (a full ring with
            // no item in it, after a fill that panicked) until a pop comes.
            // The pass claims the front from `rest` with a CAS, so it runs
            // only if `cons` is there (module docs, "Keeping the newest").
            if self.ring.front() == (rest, false) {
                self.ring.pass_voids(rest);
            }
        }
        // A pop waiting at a void can pass it now: wake one at least.
        self.ring.wake_poppers(self.written.max(1));
    }
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> core::fmt::Debug
    for WriteChunk<'_, T, N, W, M>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WriteChunk")
            .field("len", &self.len)
            .field("written", &self.written)
            .finish()
    }
}
