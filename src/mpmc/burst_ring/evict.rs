//! `push_overwrite`: one evictor at a time, which claims the new position
//! in `prod` with `EVICTING` set, then takes the oldest item from `cons`,
//! or, where a pop still holds the slot, marks the position a void and goes
//! on to the next one (see "Keeping the newest" in the
//! [module docs](super)).

use super::*;

impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// Pushes `item`; if the ring is full, evicts the oldest item no pop
    /// holds to make room and hands it back: `Ok(None)` stored,
    /// `Ok(Some(oldest))` stored by evicting `oldest` (counted in
    /// `overwritten`).
    ///
    /// It keeps the newest while consumers read: where the slot the new
    /// item needs is still held by a pop in progress or a held
    /// [`ReadChunk`], that position becomes a *void* (no item; pops pass
    /// it) and the item goes to the next position, evicting the oldest item
    /// no pop holds. Hands the new item back in [`PushError::Busy`] only
    /// where the oldest item is still being pushed (or a void there is
    /// being passed), where another `push_overwrite` is in progress, or
    /// where pops hold every slot (after `N` voids); counted in `busy`. In
    /// [`PushError::Closed`] on a closed ring. Never answers `Full`, never
    /// waits: once it holds its position, at most `N` voids and `3N` turns.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 2, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// assert_eq!(ring.push_overwrite(1), Ok(None));
    /// assert_eq!(ring.push_overwrite(2), Ok(None));
    /// assert_eq!(ring.push_overwrite(3), Ok(Some(1)));
    /// let held = ring.read_chunk(1).unwrap(); // holds 2
    /// assert_eq!(ring.push_overwrite(4), Ok(Some(3))); // 2's slot is skipped
    /// assert_eq!(held.as_slices().0, [2]);
    /// held.release();
    /// assert_eq!(ring.try_pop(), Ok(4));
    /// ```
    #[inline]
    pub fn push_overwrite(&self, item: T) -> Result<Option<T>, PushError<T>> {
        // The first attempt, inlined: a free slot or a plain eviction. The
        // steps and their orderings are those of the slow path.
        let h = self.prod.load(Ordering::SeqCst);
        if h & FLAGS == 0 {
            let bit = Bit::of::<N>(h >> SHIFT);
            // The mark before the parity bits (see `free_run`); only the
            // store tests it: an eviction needs `old` published, which a
            // void (marked) is not.
            let marks = bit.marks(&self.room.void);
            if bit.is(&self.room.consumed, 0) {
                if !bit.set_in(marks) {
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
                }
            } else {
                // The oldest position, `h - N`, is in the same slot, one
                // lap earlier: it is published when the bit shows `h`'s
                // lap.
                let old = h.wrapping_sub(N * ONE);
                if self.cons.load(Ordering::SeqCst) == old && bit.is(&self.published, 0) {
                    pause_point(pause::BURST_EVICT_CHECKED);
                    if self.hold(h) {
                        pause_point(pause::BURST_EVICT_HELD);
                        if self.take_oldest(old) {
                            return Ok(Some(self.evict(old, h, bit, item)));
                        }
                        return self.overwrite_holding(h, item);
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
            let bit = Bit::of::<N>(h >> SHIFT);
            if self.free_run(h, 1) == 1 {
                pause_point(pause::BURST_PUSH_CHECKED);
                match self.prod.compare_exchange_weak(
                    h,
                    h.wrapping_add(ONE),
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                ) {
                    Ok(_) => {
                        self.claimed_push(h.wrapping_add(ONE));
                        self.put(h, bit, item);
                        return Ok(None);
                    }
                    Err(now) => {
                        h = now;
                        continue;
                    }
                }
            }
            // Not free. The busy answers are decided before the claim, so
            // that they claim nothing: `prod <= cons + N`, so `cons` is at
            // `old` (the ring is full and `old` is its oldest position) or
            // past it (a pop claimed `old` and has not flipped it).
            let old = h.wrapping_sub(N * ONE);
            let (c, passing) = self.front();
            if bit.marked(&self.room.void) {
                // `old` is a void: at the front, pass it and look again;
                // behind it, its pass is in progress.
                if c != old || passing {
                    return Err(self.refuse(Stop::Busy, item));
                }
                self.pass_voids(old);
                h = self.prod.load(Ordering::SeqCst);
                continue;
            }
            if c == old && (passing || !bit.is(&self.published, 0)) {
                // A push still holds the oldest position, or a pass of
                // voids ends there.
                return Err(self.refuse(Stop::Busy, item));
            }
            pause_point(pause::BURST_EVICT_CHECKED);
            if self.hold(h) {
                return self.overwrite_holding(h, item);
            }
            h = self.prod.load(Ordering::SeqCst);
        }
    }

    /// Claims position `h` (a counter word without flags that was `prod`)
    /// with the evicting flag: the one `push_overwrite` in progress owns
    /// `prod` until it clears the flag (a push that sees it answers busy;
    /// the close only adds its own flag). SeqCst: as a claim.
    #[inline(always)]
    fn hold(&self, h: usize) -> bool {
        self.prod
            .compare_exchange(
                h,
                h.wrapping_add(ONE | EVICTING),
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }

    /// Claims the oldest position `old` from the pops, as a pop would.
    /// SeqCst: as a claim.
    #[inline(always)]
    fn take_oldest(&self, old: usize) -> bool {
        self.cons
            .compare_exchange(
                old,
                old.wrapping_add(ONE),
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }

    /// [`push_overwrite`](Self::push_overwrite) holding position `at` under
    /// the evicting flag (`prod` is `at + 1` with the flag): stores the item
    /// there if its slot is free, evicts the oldest position if it is at the
    /// front, marks `at` a void and goes on to the next position if a pop
    /// holds its slot, or gives `at` back and answers busy.
    #[cold]
    #[inline(never)]
    fn overwrite_holding(&self, mut at: usize, item: T) -> Result<Option<T>, PushError<T>> {
        let mut voids = 0;
        // Each turn makes a void, or follows a pop's claim or a pass of the
        // oldest position (`cons` moved); after `3N` it answers busy.
        for _ in 0..3 * N {
            let bit = Bit::of::<N>(at >> SHIFT);
            let old = at.wrapping_sub(N * ONE);
            let (c, passing) = self.front();
            // The mark before the parity bits (see `free_run`).
            if bit.marked(&self.room.void) {
                // `old` is a void: pass it at the front (nothing to evict
                // there) and look again; behind the front its pass is in
                // progress.
                if c != old || passing {
                    break;
                }
                self.pass_voids(old);
                continue;
            }
            if bit.is(&self.room.consumed, 0) {
                // Free: the pop that held the slot has finished.
                self.store_holding(at, bit, item);
                return Ok(None);
            }
            if c == old {
                if passing || !bit.is(&self.published, 0) {
                    // A push still holds the oldest position, or a pass of
                    // voids ends there.
                    break;
                }
                pause_point(pause::BURST_EVICT_HELD);
                if self.take_oldest(old) {
                    return Ok(Some(self.evict(old, at, bit, item)));
                }
                // A pop took it first: look again.
                continue;
            }
            // A pop holds `old`, which is in `at`'s slot.
            if voids == N {
                break;
            }
            voids += 1;
            self.make_void(at, bit);
            at = at.wrapping_add(ONE);
            // SeqCst: as a claim. Nobody else moves `prod` while the flag
            // is set.
            let was = self.prod.fetch_add(ONE, Ordering::SeqCst);
            debug_assert_eq!(was & !CLOSED, at | EVICTING);
        }
        // Gives `at` back (nothing was written there, nobody else claims
        // while the flag is set) and clears the flag. SeqCst: as a claim.
        self.prod.fetch_sub(ONE | EVICTING, Ordering::SeqCst);
        // The count fell by the position given back, after any pass of
        // voids counted it: the watermarks' test of a pop.
        M::popped(&self.marks, self);
        self.wake_after_eviction();
        Err(self.refuse(Stop::Busy, item))
    }

    /// Marks position `at` (held under the flag, its slot held by a pop) a
    /// void. Release: a pop that reads the mark acquires it; a push reads
    /// it through `prod` (the flag's clearing, which follows). Pops pass it
    /// (`pass_voids`), flipping its bits, once it is at the front.
    #[inline(always)]
    fn make_void(&self, at: usize, bit: Bit) {
        bit.mark(&self.room.void);
        #[cfg(all(test, not(sluicegate_loom)))]
        self.tally.voided.add(1);
        pause_point(pause::BURST_VOID_MARKED);
        // The count rose by the void.
        self.claimed_push(at.wrapping_add(ONE));
    }

    /// Stores `item` at position `at`, held under the flag with its slot
    /// free, publishes it and clears the flag.
    #[inline(always)]
    fn store_holding(&self, at: usize, bit: Bit, item: T) {
        self.claimed_push(at.wrapping_add(ONE));
        pause_point(pause::BURST_PUSH_CLAIMED);
        // SAFETY: we claimed position `at` under the flag, and its slot's
        // previous position is consumed: the slot is ours until we flip
        // its bit.
        unsafe { self.write(Self::slot(at), item) };
        pause_point(pause::BURST_PUSH_WRITTEN);
        bit.flip(&self.published);
        // SeqCst: as a claim.
        self.prod.fetch_sub(EVICTING, Ordering::SeqCst);
        self.wake_after_eviction();
    }

    /// The eviction: we hold position `at` under the flag and claimed
    /// `old = at - N` from the pops; swaps `item` for its item and
    /// publishes `item` at `at`. `bit` is `at`'s (and `old`'s: the same
    /// slot).
    #[inline(always)]
    pub(super) fn evict(&self, old: usize, at: usize, bit: Bit, item: T) -> T {
        pause_point(pause::BURST_EVICT_CLAIMED);
        debug_assert_eq!(old, at.wrapping_sub(N * ONE));
        self.debug_check_claim(at.wrapping_add(ONE));
        let s = Self::slot(at);
        // SAFETY: we claimed `old` from the pops (its item is published and
        // ours), and position `at`, in the same slot, under the flag: no
        // push claims it, nor reads its bits, before we clear the flag.
        let evicted = unsafe { self.read(s) };
        // SAFETY: as above; the slot is now logically empty.
        unsafe { self.write(s, item) };
        pause_point(pause::BURST_EVICT_WRITTEN);
        bit.flip(&self.room.consumed);
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

    /// How many positions `push_overwrite` has made void.
    #[cfg(all(test, not(sluicegate_loom)))]
    pub(super) fn voids_made(&self) -> usize {
        self.tally.voided.get()
    }
}
