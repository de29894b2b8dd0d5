//! Burst and bulk operations for `T: Copy` items: many items copied in or
//! out with one index update (DPDK's vocabulary: a *burst* moves as many as
//! fit or are there, a *bulk* all or nothing). They move the same indices as
//! the single-item operations (`free_for`/`publish`, `claim`/`release`).

use super::claim::VOIDS_SEEN;
#[cfg(not(sluicegate_loom))]
use super::Ring;
use super::{Consumer, Policy, Producer};
use crate::Insufficient;

impl<T: Copy, const N: usize, P: Policy> Producer<'_, T, N, P> {
    /// Copies all of `items` in after `tail` and publishes them at once. The
    /// caller has checked that at least `items.len()` slots are free.
    #[inline]
    fn push_copy(&mut self, items: &[T]) {
        #[cfg(not(sluicegate_loom))]
        {
            let (start, first, rest) = Ring::<T, N, P>::split_range(self.tail, items.len());
            // SAFETY: the `items.len()` slots after tail are free (the
            // caller's check) and unread until `publish`; they lie at
            // `start..start + first` and `0..rest`, inside the array; source
            // and ring never overlap.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    items.as_ptr(),
                    self.ring.slot_ptr(start).cast::<T>(),
                    first,
                );
                // Only across the wrap: saves a `memcpy` call otherwise.
                if rest > 0 {
                    core::ptr::copy_nonoverlapping(
                        items.as_ptr().add(first),
                        self.ring.slot_ptr(0).cast::<T>(),
                        rest,
                    );
                }
            }
        }
        #[cfg(sluicegate_loom)]
        for (i, item) in items.iter().enumerate() {
            // SAFETY: as above, slot by slot.
            unsafe { self.write_slot(self.tail.wrapping_add(i << P::SHIFT), *item) };
        }
        self.ring.publish(&mut self.tail, items.len());
        self.note_level();
    }

    /// Burst push: copies in as many of `items` as fit (from the front),
    /// publishes them at once and returns how many. The rest count as
    /// rejected.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// assert_eq!(tx.push_burst(&[1, 2, 3]), 3);
    /// assert_eq!(tx.push_burst(&[4, 5, 6]), 1); // only one slot was left
    /// assert_eq!(tx.stats().rejected, 2);
    /// ```
    pub fn push_burst(&mut self, items: &[T]) -> usize {
        let free = self.ring.free_for(self.tail, &mut self.head, items.len());
        let n = free.min(items.len());
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
    ///
    /// ```
    /// use sluicegate::Insufficient;
    ///
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// assert_eq!(tx.push_bulk(&[1, 2, 3]), Ok(()));
    /// assert_eq!(tx.push_bulk(&[4, 5]), Err(Insufficient { available: 1 }));
    /// assert_eq!(tx.len(), 3); // nothing of the second batch went in
    /// ```
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

impl<T: Copy, const N: usize, P: Policy> Consumer<'_, T, N, P> {
    /// Copies the first `out.len()` claimed items out and frees them at once.
    #[inline]
    fn pop_copy(&mut self, out: &mut [T]) {
        #[cfg(not(sluicegate_loom))]
        {
            let (start, first, rest) = Ring::<T, N, P>::split_range(self.head, out.len());
            // SAFETY: `out.len()` items from head are published and claimed
            // by us; they lie at `start..start + first` and `0..rest`;
            // `T: Copy`, so copying them out leaves nothing to drop.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    self.ring.slot_ptr(start).cast::<T>().cast_const(),
                    out.as_mut_ptr(),
                    first,
                );
                // Only across the wrap, as in `push_copy`.
                if rest > 0 {
                    core::ptr::copy_nonoverlapping(
                        self.ring.slot_ptr(0).cast::<T>().cast_const(),
                        out.as_mut_ptr().add(first),
                        rest,
                    );
                }
            }
        }
        #[cfg(sluicegate_loom)]
        for (i, o) in out.iter_mut().enumerate() {
            // SAFETY: as above, slot by slot.
            *o = unsafe { self.read_slot(self.head.wrapping_add(i << P::SHIFT)) };
        }
        self.ring.release(&mut self.head, out.len(), out.len());
    }

    /// Burst pop: copies out as many items as are there (up to `out.len()`),
    /// frees them at once and returns how many. Under
    /// [`Overwrite`](super::Overwrite) it takes the items on both sides of
    /// a void (a position the producer skipped while this consumer held its
    /// slot), in one claim per run of items.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[1, 2, 3]);
    /// let mut out = [0; 8];
    /// assert_eq!(rx.pop_burst(&mut out), 3);
    /// assert_eq!(out[..3], [1, 2, 3]);
    /// ```
    pub fn pop_burst(&mut self, out: &mut [T]) -> usize {
        let n = self.ring.claim(&mut self.head, &mut self.tail, out.len());
        if n == 0 {
            return 0;
        }
        self.pop_copy(&mut out[..n]);
        // Under `Overwrite` a claim ends at a void (a position the producer
        // skipped while we held its slot): the items behind it too.
        if P::OVERWRITES && n < out.len() && self.tail & VOIDS_SEEN != 0 {
            return n + self.pop_burst_past_voids(&mut out[n..]);
        }
        n
    }

    /// The rest of a burst whose claim ended at a void: claims (each
    /// passes the voids in front of it) until `out` is full or none is
    /// left.
    #[cold]
    #[inline(never)]
    fn pop_burst_past_voids(&mut self, out: &mut [T]) -> usize {
        let mut got = 0;
        while got < out.len() {
            let n = self
                .ring
                .claim(&mut self.head, &mut self.tail, out.len() - got);
            if n == 0 {
                break;
            }
            self.pop_copy(&mut out[got..got + n]);
            got += n;
        }
        got
    }

    /// Bulk pop: fills all of `out` and frees those items at once, or takes
    /// nothing if fewer than `out.len()` are there. Under
    /// [`Overwrite`](super::Overwrite) a bulk is one claim, which ends at a
    /// void (see [`pop_burst`](Self::pop_burst)): `available` then counts
    /// the items before it, and the void is passed once they are popped
    /// (by any pop) or evicted.
    ///
    /// ```
    /// use sluicegate::Insufficient;
    ///
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[1, 2, 3]);
    /// let mut four = [0; 4];
    /// assert_eq!(rx.pop_bulk(&mut four), Err(Insufficient { available: 3 }));
    /// let mut two = [0; 2];
    /// assert_eq!(rx.pop_bulk(&mut two), Ok(()));
    /// assert_eq!(two, [1, 2]);
    /// ```
    pub fn pop_bulk(&mut self, out: &mut [T]) -> Result<(), Insufficient> {
        if out.is_empty() {
            return Ok(());
        }
        let n = self.ring.claim(&mut self.head, &mut self.tail, out.len());
        if n < out.len() {
            if n > 0 {
                self.ring.release(&mut self.head, 0, n);
            }
            return Err(Insufficient { available: n });
        }
        self.pop_copy(out);
        Ok(())
    }
}
