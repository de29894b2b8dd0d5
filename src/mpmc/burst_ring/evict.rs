//! `push_overwrite`: the single evictor, which claims the oldest item's
//! position from `cons` while `EVICTING` in `prod` holds the next push's
//! (see "Why it is correct" in the [module docs](super)).

use super::*;

impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// Pushes `item`; if the ring is full, evicts the oldest item to make
    /// room and hands it back: `Ok(None)` stored, `Ok(Some(oldest))`
    /// stored by evicting `oldest` (counted in `overwritten`). Hands the new
    /// item back in [`PushError::Busy`] when the slot it needs is held by an
    /// operation in progress: the oldest item is being popped, or still
    /// being pushed (counted in `busy`); in [`PushError::Closed`] on a closed
    /// ring. Never answers `Full`, never waits.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 2, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// assert_eq!(ring.push_overwrite(1), Ok(None));
    /// assert_eq!(ring.push_overwrite(2), Ok(None));
    /// assert_eq!(ring.push_overwrite(3), Ok(Some(1)));
    /// assert_eq!(ring.try_pop(), Ok(2));
    /// assert_eq!(ring.try_pop(), Ok(3));
    /// ```
    #[inline]
    pub fn push_overwrite(&self, item: T) -> Result<Option<T>, PushError<T>> {
        // The first attempt, inlined: a free slot or a plain eviction. The
        // steps and their orderings are those of the loop below.
        let h = self.prod.load(Ordering::SeqCst);
        if h & FLAGS == 0 {
            let bit = Bit::of::<N>(h >> SHIFT);
            if bit.is(&self.consumed, 0) {
                pause_point(pause::BURST_PUSH_CHECKED);
                let to = h.wrapping_add(ONE);
                if self
                    .prod
                    .compare_exchange(h, to, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
                {
                    self.claimed_push(to);
                    self.put(h, bit, item);
                    return Ok(None);
                }
            } else {
                // The oldest position, `h - N`, is in the same slot, one lap
                // earlier: it is published when the bit shows `h`'s lap.
                let old = h.wrapping_sub(N * ONE);
                if self.cons.load(Ordering::SeqCst) == old && bit.is(&self.published, 0) {
                    pause_point(pause::BURST_EVICT_CHECKED);
                    let to = old.wrapping_add(ONE);
                    if self
                        .cons
                        .compare_exchange(old, to, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                    {
                        return Ok(Some(self.evict(old, h, bit, item)));
                    }
                }
            }
        }
        self.push_overwrite_slow(item)
    }

    /// [`push_overwrite`](Self::push_overwrite) after its first attempt
    /// failed.
    #[cold]
    #[inline(never)]
    fn push_overwrite_slow(&self, item: T) -> Result<Option<T>, PushError<T>> {
        // SeqCst: the claim's load (see `try_claim_push`).
        let mut h = self.prod.load(Ordering::SeqCst);
        loop {
            if h & FLAGS != 0 {
                return Err(self.refuse(flagged(h), item));
            }
            if run::<N, W>(&self.consumed, h, 1, 0) == 1 {
                pause_point(pause::BURST_PUSH_CHECKED);
                match self.prod.compare_exchange_weak(
                    h,
                    h.wrapping_add(ONE),
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                ) {
                    Ok(_) => {
                        self.claimed_push(h.wrapping_add(ONE));
                        self.put(h, Bit::of::<N>(h >> SHIFT), item);
                        return Ok(None);
                    }
                    Err(now) => {
                        h = now;
                        continue;
                    }
                }
            }
            // Not free. Full exactly when `cons` is a whole ring behind `h`
            // (then `prod` is still `h`, as `prod <= cons + N`); the oldest
            // position is then `h - N`. SeqCst: the full test.
            let old = h.wrapping_sub(N * ONE);
            if self.cons.load(Ordering::SeqCst) != old {
                match self.push_blocked(h, h) {
                    Blocked::Retry(now) => {
                        h = now;
                        continue;
                    }
                    Blocked::Stop(_busy) => return Err(self.refuse(Stop::Busy, item)),
                }
            }
            if run::<N, W>(&self.published, old, 1, 1) == 0 {
                // A push still holds the oldest position, or a dropped
                // chunk left it void: pass the void and try again.
                if self.skip_voids(old) {
                    h = self.prod.load(Ordering::SeqCst);
                    continue;
                }
                return Err(self.refuse(Stop::Busy, item));
            }
            pause_point(pause::BURST_EVICT_CHECKED);
            if self
                .cons
                .compare_exchange(
                    old,
                    old.wrapping_add(ONE),
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                )
                .is_err()
            {
                // A pop or another eviction took the oldest: try again.
                h = self.prod.load(Ordering::SeqCst);
                continue;
            }
            return Ok(Some(self.evict(old, h, Bit::of::<N>(h >> SHIFT), item)));
        }
    }

    /// The eviction: we claimed `old` from the pops, the ring being full at
    /// `prod == h`; swaps `item` for its item and publishes `item` at `h`.
    /// `bit` is `h`'s (and `old`'s: the same slot).
    #[inline(always)]
    pub(super) fn evict(&self, old: usize, h: usize, bit: Bit, item: T) -> T {
        pause_point(pause::BURST_EVICT_CLAIMED);
        debug_assert_eq!(old, h.wrapping_sub(N * ONE));
        let s = Self::slot(h);
        // SAFETY: we claimed `old` from the pops (its item is published and
        // ours), and position `h`, in the same slot, is ours too: no push
        // can claim it before we flip `old`.
        let evicted = unsafe { self.read(s) };
        // SAFETY: as above; the slot is now logically empty.
        unsafe { self.write(s, item) };
        // Claims `h`, which no push can claim before we flip `old` (module
        // docs, "One evictor"), and marks the eviction in progress so that
        // no push reads that bit until it is flipped. SeqCst: as a claim.
        let was = self.prod.fetch_add(ONE | EVICTING, Ordering::SeqCst);
        debug_assert_eq!(was & !CLOSED, h);
        self.debug_check_claim(h.wrapping_add(ONE));
        pause_point(pause::BURST_EVICT_WRITTEN);
        bit.flip(&self.consumed);
        bit.flip(&self.published);
        // Still alone among evictions (see the field).
        self.tally.overwritten.add(1);
        // SeqCst: as a claim; a push that sees the flag clear sees the
        // flips and the count before it (release), and the close's order
        // is kept.
        self.prod.fetch_sub(EVICTING, Ordering::SeqCst);
        self.wake_after_eviction();
        evicted
    }
}
