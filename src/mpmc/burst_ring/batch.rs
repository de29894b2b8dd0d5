//! Bursts (as many as fit or are there), bulks (all or nothing) and read
//! chunks (items read in place): each one claim and one commit per side,
//! whatever the number of items, through the same claims as the single
//! operations.

use core::marker::PhantomData;

use super::{flip, BurstRing, Marks, Moved, NoMarks, Run, Stop, ONE};
use crate::sync::{pause, pause_point};

impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// Burst push: copies in as many of `items` as there are free slots
    /// after the newest item (from the front of the slice, up to `N`), with
    /// one claim (another if the next slot opened while it claimed), and
    /// says how many and why it stopped. The rest count as
    /// rejected if the ring was full, as one busy answer if a pop in progress
    /// held the next slot. Never waits.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Moved, Stop};
    ///
    /// let ring: BurstRing<u16, 4, 1> = BurstRing::new();
    /// assert_eq!(ring.push_burst(&[1, 2, 3]).count, 3);
    /// assert_eq!(ring.push_burst(&[4, 5, 6]), Moved { count: 1, stop: Some(Stop::Full) });
    /// assert_eq!(ring.stats().rejected, 2);
    /// ```
    pub fn push_burst(&self, items: &[T]) -> Moved {
        // An empty slice fails the first attempt (the slow path's answer).
        match self.try_claim_push_run(items.len()) {
            Some(run) => {
                self.fill_run(run, items);
                if run.n == items.len() {
                    return Moved {
                        count: run.n,
                        stop: None,
                    };
                }
                self.push_rest(run.n, items)
            }
            None => self.push_burst_slow(items),
        }
    }

    /// [`push_burst`](Self::push_burst) after its first attempt failed.
    #[cold]
    #[inline(never)]
    fn push_burst_slow(&self, items: &[T]) -> Moved {
        if items.is_empty() {
            return Moved {
                count: 0,
                stop: None,
            };
        }
        // The refused burst's common case first, before the loop's set-up.
        if self.full_now() {
            self.tally.rejected.add(items.len());
            return Moved {
                count: 0,
                stop: Some(Stop::Full),
            };
        }
        self.push_rest(0, items)
    }

    #[cold]
    #[inline(never)]
    fn push_rest(&self, mut done: usize, items: &[T]) -> Moved {
        loop {
            match self.claim_push_slow(1, items.len() - done) {
                Ok((h, n)) => {
                    self.fill(h, &items[done..done + n]);
                    done += n;
                    if done == items.len() {
                        return Moved {
                            count: done,
                            stop: None,
                        };
                    }
                }
                Err(stop) => {
                    return Moved {
                        count: done,
                        stop: Some(self.count(stop, items.len() - done)),
                    }
                }
            }
        }
    }

    /// Bulk push: copies in all of `items` with one claim, or none. Refuses
    /// with [`Stop::Full`] if fewer slots are free (all of `items` count as
    /// rejected; so does a slice longer than `N` on an open ring),
    /// [`Stop::Busy`] if a pop in progress holds one of them,
    /// [`Stop::Closed`] on a closed ring.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Stop};
    ///
    /// let ring: BurstRing<u16, 4, 1> = BurstRing::new();
    /// assert_eq!(ring.push_bulk(&[1, 2, 3]), Ok(()));
    /// assert_eq!(ring.push_bulk(&[4, 5]), Err(Stop::Full));
    /// assert_eq!(ring.len(), 3);
    /// ```
    pub fn push_bulk(&self, items: &[T]) -> Result<(), Stop> {
        if items.is_empty() {
            return Ok(());
        }
        if items.len() > N {
            // Never fits; a closed ring says so first, as a claim would.
            if self.is_closed() {
                return Err(Stop::Closed);
            }
            return Err(self.refuse_bulk(Stop::Full, items.len()));
        }
        match self.claim_push(items.len(), items.len()) {
            Ok((h, _)) => {
                self.fill(h, items);
                Ok(())
            }
            Err(stop) => Err(self.refuse_bulk(stop, items.len())),
        }
    }

    /// Burst pop: copies out as many items as are published from the
    /// oldest (up to `out.len()` and `N`), with one claim (another if more
    /// were published while it claimed), and says how many and why it
    /// stopped. Never waits.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Moved, Stop};
    ///
    /// let ring: BurstRing<u8, 8, 1> = BurstRing::new();
    /// ring.push_burst(&[1, 2, 3]);
    /// let mut two = [0; 2];
    /// assert_eq!(ring.pop_burst(&mut two), Moved { count: 2, stop: None });
    /// assert_eq!(two, [1, 2]);
    /// let mut more = [0; 4];
    /// assert_eq!(ring.pop_burst(&mut more), Moved { count: 1, stop: Some(Stop::Empty) });
    /// ```
    pub fn pop_burst(&self, out: &mut [T]) -> Moved {
        // An empty slice fails the first attempt (the slow path's answer).
        match self.try_claim_pop_run(out.len()) {
            Some(run) => {
                self.empty_run(run, out);
                if run.n == out.len() {
                    return Moved {
                        count: run.n,
                        stop: None,
                    };
                }
                self.pop_rest(run.n, out)
            }
            None => self.pop_burst_slow(out),
        }
    }

    /// [`pop_burst`](Self::pop_burst) after its first attempt failed.
    #[cold]
    #[inline(never)]
    fn pop_burst_slow(&self, out: &mut [T]) -> Moved {
        if out.is_empty() {
            return Moved {
                count: 0,
                stop: None,
            };
        }
        // The idle poll first, before the loop's set-up.
        if self.empty_now() {
            return Moved {
                count: 0,
                stop: Some(Stop::Empty),
            };
        }
        self.pop_rest(0, out)
    }

    #[cold]
    #[inline(never)]
    fn pop_rest(&self, mut done: usize, out: &mut [T]) -> Moved {
        loop {
            match self.claim_pop_slow(1, out.len() - done) {
                Ok((c, n)) => {
                    self.empty_into(c, &mut out[done..done + n]);
                    done += n;
                    if done == out.len() {
                        return Moved {
                            count: done,
                            stop: None,
                        };
                    }
                }
                Err(stop) => {
                    return Moved {
                        count: done,
                        stop: Some(self.count(stop, 0)),
                    }
                }
            }
        }
    }

    /// Bulk pop: fills all of `out` from the oldest items with one claim, or
    /// takes none: [`Stop::Empty`] if fewer items are there (or `out` is
    /// longer than `N`), [`Stop::Busy`] if one of them is still being pushed,
    /// [`Stop::Closed`] once the ring is closed and drained.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Stop};
    ///
    /// let ring: BurstRing<u8, 8, 1> = BurstRing::new();
    /// ring.push_burst(&[1, 2, 3]);
    /// let mut four = [0; 4];
    /// assert_eq!(ring.pop_bulk(&mut four), Err(Stop::Empty));
    /// let mut three = [0; 3];
    /// assert_eq!(ring.pop_bulk(&mut three), Ok(()));
    /// assert_eq!(three, [1, 2, 3]);
    /// ```
    pub fn pop_bulk(&self, out: &mut [T]) -> Result<(), Stop> {
        if out.is_empty() {
            return Ok(());
        }
        if out.len() > N {
            // Never filled; a closed and drained ring says so, as a claim
            // would.
            return Err(if self.is_drained() {
                Stop::Closed
            } else {
                Stop::Empty
            });
        }
        match self.claim_pop(out.len(), out.len()) {
            Ok((c, _)) => {
                self.empty_into(c, out);
                Ok(())
            }
            Err(stop) => Err(self.count(stop, 0)),
        }
    }

    /// Claims up to `max` of the oldest items (at least one: a chunk is
    /// never empty, and `max` 0 claims one, as 1 does) to be read in
    /// place: the returned chunk lends them out, and dropping it (or
    /// [`ReadChunk::release`]) frees their slots. Until then the chunk holds
    /// those positions as a pop in progress does (pushes that need their
    /// slots answer busy, `push_overwrite` makes those positions voids and
    /// stores past them; other pops go on with the items after them).
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Stop};
    ///
    /// let ring: BurstRing<u32, 8, 1> = BurstRing::new();
    /// ring.push_burst(&[10, 11, 12]);
    /// let chunk = ring.read_chunk(2).unwrap();
    /// assert_eq!(chunk.as_slices(), (&[10, 11][..], &[][..]));
    /// assert_eq!(ring.try_pop(), Ok(12)); // others pop past a held chunk
    /// chunk.release();
    /// assert_eq!(ring.read_chunk(2).unwrap_err(), Stop::Empty);
    /// ```
    pub fn read_chunk(&self, max: usize) -> Result<ReadChunk<'_, T, N, W, M>, Stop> {
        match self.claim_pop(1, max.max(1)) {
            Ok((from, len)) => {
                pause_point(pause::BURST_POP_CLAIMED);
                Ok(ReadChunk {
                    ring: self,
                    from,
                    len,
                    _items: PhantomData,
                })
            }
            Err(stop) => Err(self.count(stop, 0)),
        }
    }

    /// Copies `items` into the claimed positions from counter word `h` and
    /// publishes them.
    #[inline(always)]
    fn fill(&self, h: usize, items: &[T]) {
        self.copy_in(h, items);
        flip::<N, W>(&self.published, h, items.len());
        self.wake_poppers(items.len());
    }

    /// [`fill`](Self::fill) of the first `run.n` of `items` into the
    /// positions of `run`, which was counted with `max = items.len()`.
    #[inline(always)]
    fn fill_run(&self, run: Run, items: &[T]) {
        debug_assert!(run.n <= items.len());
        // SAFETY: a run is at most as long as the `max` it was counted
        // for, which the callers pass as `items.len()`.
        let items = unsafe { items.get_unchecked(..run.n) };
        if run.in_one_word() {
            pause_point(pause::BURST_PUSH_CLAIMED);
            // SAFETY: we claimed these positions, so their slots are ours
            // until we flip them; a run inside one bitmap word does not wrap
            // around the array, so they lie at `slot(from)..slot(from) + n`;
            // the slice and the ring never overlap.
            #[cfg(not(sluicegate_loom))]
            unsafe {
                let to = self.slot_ptr(Self::slot(run.from));
                core::ptr::copy_nonoverlapping(items.as_ptr(), to, run.n);
            }
            #[cfg(sluicegate_loom)]
            self.copy_in_slowly(run.from, items);
            pause_point(pause::BURST_PUSH_WRITTEN);
        } else {
            self.copy_in(run.from, items);
        }
        run.flip(&self.published);
        self.wake_poppers(run.n);
    }

    /// Copies `items` into the claimed positions from counter word `h`.
    #[inline(always)]
    fn copy_in(&self, h: usize, items: &[T]) {
        pause_point(pause::BURST_PUSH_CLAIMED);
        #[cfg(not(sluicegate_loom))]
        {
            let (start, first, rest) = Self::split(h, items.len());
            // SAFETY: we claimed these positions, so their slots are ours
            // until we flip them; they lie at `start..start + first` and
            // `0..rest`, inside the array; the slice and the ring never
            // overlap (the slice is borrowed, the slots are not).
            unsafe {
                core::ptr::copy_nonoverlapping(items.as_ptr(), self.slot_ptr(start), first);
                if rest > 0 {
                    core::ptr::copy_nonoverlapping(
                        items.as_ptr().add(first),
                        self.slot_ptr(0),
                        rest,
                    );
                }
            }
        }
        #[cfg(sluicegate_loom)]
        self.copy_in_slowly(h, items);
        pause_point(pause::BURST_PUSH_WRITTEN);
    }

    /// Under loom: copies slot by slot (each slot is its own tracked cell).
    #[cfg(sluicegate_loom)]
    fn copy_in_slowly(&self, h: usize, items: &[T]) {
        for (k, item) in items.iter().enumerate() {
            // SAFETY: the caller claimed these positions.
            unsafe { self.write(Self::slot(h.wrapping_add(k * ONE)), *item) };
        }
    }

    /// Copies the items of the claimed positions from counter word `c` into
    /// `out` and frees their slots.
    #[inline(always)]
    fn empty_into(&self, c: usize, out: &mut [T]) {
        self.copy_out(c, out);
        flip::<N, W>(&self.room.consumed, c, out.len());
        self.wake_pushers(out.len());
    }

    /// [`empty_into`](Self::empty_into) of the positions of `run` into the
    /// front of `out`; `run` was counted with `max = out.len()`.
    #[inline(always)]
    fn empty_run(&self, run: Run, out: &mut [T]) {
        debug_assert!(run.n <= out.len());
        // SAFETY: as in `fill_run`, with `out.len()`.
        let out = unsafe { out.get_unchecked_mut(..run.n) };
        if run.in_one_word() {
            pause_point(pause::BURST_POP_CLAIMED);
            // SAFETY: we claimed these published positions, so their slots
            // hold items and are ours until we flip them; ranges as in
            // `fill_run`.
            #[cfg(not(sluicegate_loom))]
            unsafe {
                let from = self.slot_ptr(Self::slot(run.from));
                core::ptr::copy_nonoverlapping(from, out.as_mut_ptr(), run.n);
            }
            #[cfg(sluicegate_loom)]
            self.copy_out_slowly(run.from, out);
            pause_point(pause::BURST_POP_READ);
        } else {
            self.copy_out(run.from, out);
        }
        run.flip(&self.room.consumed);
        self.wake_pushers(run.n);
    }

    /// Copies the items of the claimed positions from counter word `c` into
    /// `out`.
    #[inline(always)]
    fn copy_out(&self, c: usize, out: &mut [T]) {
        pause_point(pause::BURST_POP_CLAIMED);
        #[cfg(not(sluicegate_loom))]
        {
            let (start, first, rest) = Self::split(c, out.len());
            // SAFETY: we claimed these published positions, so their slots
            // hold items and are ours until we flip them; ranges as in
            // `copy_in`.
            unsafe {
                core::ptr::copy_nonoverlapping(self.slot_ptr(start), out.as_mut_ptr(), first);
                if rest > 0 {
                    core::ptr::copy_nonoverlapping(
                        self.slot_ptr(0),
                        out.as_mut_ptr().add(first),
                        rest,
                    );
                }
            }
        }
        #[cfg(sluicegate_loom)]
        self.copy_out_slowly(c, out);
        pause_point(pause::BURST_POP_READ);
    }

    /// Under loom: copies slot by slot.
    #[cfg(sluicegate_loom)]
    fn copy_out_slowly(&self, c: usize, out: &mut [T]) {
        for (k, item) in out.iter_mut().enumerate() {
            // SAFETY: the caller claimed these published positions.
            *item = unsafe { self.read(Self::slot(c.wrapping_add(k * ONE))) };
        }
    }

    /// The slot of counter word `word`, and how a run of `len` positions
    /// from it splits at the end of the array: `(start, first, rest)`.
    #[cfg(not(sluicegate_loom))]
    #[inline(always)]
    pub(super) fn split(word: usize, len: usize) -> (usize, usize, usize) {
        let start = Self::slot(word);
        let first = len.min(N - start);
        (start, first, len - first)
    }

    /// Pointer to slot `s`'s item, with provenance over the whole array.
    #[cfg(not(sluicegate_loom))]
    #[inline(always)]
    pub(super) fn slot_ptr(&self, s: usize) -> *mut T {
        debug_assert!(s < N);
        // `Slot<T>` is `repr(transparent)` over `MaybeUninit<T>`, so the
        // array is laid out as `[T; N]`; every byte is inside an
        // `UnsafeCell`, so writing through the pointer is allowed.
        self.slots.as_ptr().cast::<T>().cast_mut().wrapping_add(s)
    }
}

/// Up to `max` of a [`BurstRing`]'s oldest items, claimed to be read in
/// place; from [`BurstRing::read_chunk`]. Dropping it frees their slots.
///
/// Leaking it (`mem::forget`) is safe but never frees them: the pushes
/// that reach those slots again answer [`Stop::Busy`](super::Stop::Busy)
/// (and `push_overwrite` makes their positions void) for good.
///
/// `Send` and `Sync` only where `T: Sync` (it lends out `&T`).
pub struct ReadChunk<'r, T: Copy, const N: usize, const W: usize, M: Marks = NoMarks> {
    ring: &'r BurstRing<T, N, W, M>,
    /// Counter word of the first position.
    from: usize,
    len: usize,
    _items: PhantomData<&'r [T]>,
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> ReadChunk<'_, T, N, W, M> {
    /// How many items the chunk holds (at least 1).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.push_burst(&[1, 2]);
    /// assert_eq!(ring.read_chunk(8).unwrap().len(), 2);
    /// ```
    #[allow(clippy::len_without_is_empty)] // never empty
    pub fn len(&self) -> usize {
        self.len
    }

    /// Item `i` of the chunk (oldest first), or `None` past its end.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.push_burst(&[1, 2]);
    /// let chunk = ring.read_chunk(2).unwrap();
    /// assert_eq!((chunk.get(1), chunk.get(2)), (Some(2), None));
    /// ```
    pub fn get(&self, i: usize) -> Option<T> {
        (i < self.len).then(|| {
            // SAFETY: the chunk claimed these published positions; nobody
            // writes their slots until it is dropped.
            unsafe {
                self.ring
                    .read(BurstRing::<T, N, W>::slot(self.from.wrapping_add(i * ONE)))
            }
        })
    }

    /// The items, oldest first: the part up to the end of the storage, then
    /// the part that wrapped to its start (often empty).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 4, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.push_burst(&[0, 0, 0]);
    /// ring.pop_burst(&mut [0; 3]);
    /// ring.push_burst(&[1, 2, 3]); // slots 3, 0 and 1
    /// let chunk = ring.read_chunk(3).unwrap();
    /// assert_eq!(chunk.as_slices(), (&[1][..], &[2, 3][..]));
    /// ```
    #[cfg(not(sluicegate_loom))]
    pub fn as_slices(&self) -> (&[T], &[T]) {
        let (start, first, rest) = BurstRing::<T, N, W>::split(self.from, self.len);
        // SAFETY: the chunk claimed these published positions: their slots
        // hold items and nobody writes them until it is dropped, which the
        // borrow of `self` prevents while the slices live.
        unsafe {
            (
                core::slice::from_raw_parts(self.ring.slot_ptr(start), first),
                core::slice::from_raw_parts(self.ring.slot_ptr(0), rest),
            )
        }
    }

    /// Frees the items' slots (the same as dropping the chunk).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 1, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.try_push(1).unwrap();
    /// let chunk = ring.read_chunk(1).unwrap();
    /// assert!(ring.try_push(2).is_err()); // its slot is still held
    /// chunk.release();
    /// assert!(ring.try_push(2).is_ok());
    /// ```
    pub fn release(self) {}
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> Drop for ReadChunk<'_, T, N, W, M> {
    fn drop(&mut self) {
        pause_point(pause::BURST_POP_READ);
        flip::<N, W>(&self.ring.room.consumed, self.from, self.len);
        self.ring.wake_pushers(self.len);
    }
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> core::fmt::Debug
    for ReadChunk<'_, T, N, W, M>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReadChunk").field("len", &self.len).finish()
    }
}
