//! Claims: a run of positions from `prod` for pushes, from `cons` for
//! pops, one CAS when it wins; the out-of-line loops for what blocks a
//! claim (a flag, a void, an operation in progress).

use super::*;

impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// Claims a run of free positions from `prod`: at least `min` and at
    /// most `max` (`1 <= min <= max`). Returns the first position's counter
    /// word and the run's length, or why not. The first attempt is inlined;
    /// anything else (a lost race, a refusal) is the out-of-line loop, so
    /// that the hot path keeps few registers.
    #[inline(always)]
    pub(super) fn claim_push(&self, min: usize, max: usize) -> Result<(usize, usize), Stop> {
        match self.try_claim_push(min, max) {
            Some(claim) => Ok(claim),
            None => self.claim_push_slow(min, max),
        }
    }

    /// [`claim_push`](Self::claim_push)'s first attempt: `None` if the run
    /// is too short, a flag is set or the CAS lost a race.
    #[inline(always)]
    pub(super) fn try_claim_push(&self, min: usize, max: usize) -> Option<(usize, usize)> {
        let max = max.min(N);
        // SeqCst: acquire for the parity argument; sequentially consistent
        // as the other loads of the full test (module docs).
        let h = self.prod.load(Ordering::SeqCst);
        if h & FLAGS != 0 {
            return None;
        }
        let n = self.free_run(h, max);
        if n < min {
            return None;
        }
        pause_point(pause::BURST_PUSH_CHECKED);
        let to = h.wrapping_add(n * ONE);
        self.prod
            .compare_exchange(h, to, Ordering::SeqCst, Ordering::SeqCst)
            .ok()?;
        self.claimed_push(to);
        Some((h, n))
    }

    /// [`try_claim_push`](Self::try_claim_push) of exactly one position:
    /// its counter word, or `None` as there.
    #[inline(always)]
    pub(super) fn try_claim_one_push(&self) -> Option<(usize, Bit)> {
        // SeqCst: as in `try_claim_push`.
        let h = self.prod.load(Ordering::SeqCst);
        let bit = Bit::of::<N>(h >> SHIFT);
        if h & FLAGS != 0 || !bit.free(&self.room) {
            return None;
        }
        pause_point(pause::BURST_PUSH_CHECKED);
        self.prod
            .compare_exchange(h, h.wrapping_add(ONE), Ordering::SeqCst, Ordering::SeqCst)
            .ok()?;
        // The watermarks' test is the caller's (`try_push`).
        self.debug_check_claim(h.wrapping_add(ONE));
        Some((h, bit))
    }

    /// Whether the ring was full when `cons` is loaded here, for a push
    /// that loaded `prod == h` before: every position claimed by a push
    /// and not yet by a pop. Exact (module docs, "Full, empty and busy are
    /// exact"): `prod` never passes `cons + N`, so `h - cons >= N` means
    /// `prod` was still `h` at this load. `false` with a flag set (closed,
    /// or an eviction holding the next position), which the loop answers.
    /// The refused push's common case, with no loop and no bitmap.
    #[inline(always)]
    pub(super) fn is_full_at(&self, h: usize) -> bool {
        h & FLAGS == 0 && gap(h, self.front_at()) >= N
    }

    /// Whether the ring was empty when `prod` is loaded here, for a pop
    /// that loaded `cons == c` before: no push had claimed position `c`, so
    /// no pop could have either and `cons` was still `c`. `false` with a
    /// flag set (a closed ring answers `Closed` on the slow path). The idle
    /// poll's answer, with no loop and no bitmap.
    #[inline(always)]
    pub(super) fn is_empty_at(&self, c: usize) -> bool {
        self.prod.load(Ordering::SeqCst) == c
    }

    /// [`is_full_at`](Self::is_full_at) from a fresh load of `prod`
    /// (SeqCst, as every load of the full test: module docs).
    #[inline(always)]
    pub(super) fn full_now(&self) -> bool {
        self.is_full_at(self.prod.load(Ordering::SeqCst))
    }

    /// [`is_empty_at`](Self::is_empty_at) from a fresh load of `cons`
    /// (SeqCst, as every load of the empty test: module docs).
    #[inline(always)]
    pub(super) fn empty_now(&self) -> bool {
        self.is_empty_at(self.cons.load(Ordering::SeqCst))
    }

    /// [`try_claim_push`](Self::try_claim_push) of a run that ends within
    /// two bitmap words (`None` also when it may not, and when `max` is 0).
    #[inline(always)]
    pub(super) fn try_claim_push_run(&self, max: usize) -> Option<Run> {
        // SeqCst: as in `try_claim_push`.
        let h = self.prod.load(Ordering::SeqCst);
        if h & FLAGS != 0 {
            return None;
        }
        // A void ends the run, its mark read before the parity bit (see
        // `free_run`).
        let run = Run::of::<N, W>(&self.room.consumed, Some(&self.room.void), h, max, 0)?;
        pause_point(pause::BURST_PUSH_CHECKED);
        let to = h.wrapping_add(run.n * ONE);
        self.prod
            .compare_exchange(h, to, Ordering::SeqCst, Ordering::SeqCst)
            .ok()?;
        self.claimed_push(to);
        Some(run)
    }

    /// [`claim_push`](Self::claim_push)'s loop.
    #[cold]
    #[inline(never)]
    pub(super) fn claim_push_slow(&self, min: usize, max: usize) -> Result<(usize, usize), Stop> {
        let max = max.min(N);
        let mut h = self.prod.load(Ordering::SeqCst);
        if self.is_full_at(h) {
            return Err(Stop::Full);
        }
        loop {
            if h & FLAGS != 0 {
                return Err(flagged(h));
            }
            let n = self.free_run(h, max);
            if n < min {
                match self.push_blocked(h, h.wrapping_add(n * ONE)) {
                    Blocked::Retry(now) => {
                        h = now;
                        continue;
                    }
                    Blocked::Stop(stop) => return Err(stop),
                }
            }
            pause_point(pause::BURST_PUSH_CHECKED);
            match self.prod.compare_exchange_weak(
                h,
                h.wrapping_add(n * ONE),
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => {
                    self.claimed_push(h.wrapping_add(n * ONE));
                    return Ok((h, n));
                }
                Err(now) => h = now,
            }
        }
    }

    /// Claims a run of published positions from `cons`, as
    /// [`claim_push`](Self::claim_push) does from `prod`.
    #[inline(always)]
    pub(super) fn claim_pop(&self, min: usize, max: usize) -> Result<(usize, usize), Stop> {
        match self.try_claim_pop(min, max) {
            Some(claim) => Ok(claim),
            None => self.claim_pop_slow(min, max),
        }
    }

    /// [`claim_pop`](Self::claim_pop)'s first attempt.
    #[inline(always)]
    pub(super) fn try_claim_pop(&self, min: usize, max: usize) -> Option<(usize, usize)> {
        let max = max.min(N);
        // SeqCst: as in `try_claim_push`. Without the pass flag: while a
        // pass holds the front, the CAS from this word fails.
        let c = self.front_at();
        let n = run::<N, W>(&self.published, None, c, max, 1);
        if n < min {
            return None;
        }
        pause_point(pause::BURST_POP_CHECKED);
        let to = c.wrapping_add(n * ONE);
        self.cons
            .compare_exchange(c, to, Ordering::SeqCst, Ordering::SeqCst)
            .ok()?;
        self.claimed_pop(c, n);
        Some((c, n))
    }

    /// [`try_claim_pop`](Self::try_claim_pop) of exactly one position.
    #[inline(always)]
    pub(super) fn try_claim_one_pop(&self) -> Option<(usize, Bit)> {
        // SeqCst: as in `try_claim_push`.
        let c = self.cons.load(Ordering::SeqCst);
        let bit = Bit::of::<N>(c >> SHIFT);
        // Not while a pass of voids holds the front.
        if c & PASSING != 0 || !bit.is(&self.published, 1) {
            return None;
        }
        pause_point(pause::BURST_POP_CHECKED);
        let to = c.wrapping_add(ONE);
        self.cons
            .compare_exchange(c, to, Ordering::SeqCst, Ordering::SeqCst)
            .ok()?;
        // The watermarks' test is the caller's (`try_pop`).
        self.sample_peak_one(to);
        Some((c, bit))
    }

    /// [`try_claim_pop`](Self::try_claim_pop) of a run that ends within
    /// two bitmap words (`None` also when it may not, and when `max` is 0).
    #[inline(always)]
    pub(super) fn try_claim_pop_run(&self, max: usize) -> Option<Run> {
        // SeqCst: as in `try_claim_push`; without the pass flag, as in
        // `try_claim_pop`.
        let c = self.front_at();
        let run = Run::of::<N, W>(&self.published, None, c, max, 1)?;
        pause_point(pause::BURST_POP_CHECKED);
        self.cons
            .compare_exchange(
                c,
                c.wrapping_add(run.n * ONE),
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .ok()?;
        self.claimed_pop(c, run.n);
        Some(run)
    }

    /// [`claim_pop`](Self::claim_pop)'s loop.
    #[cold]
    #[inline(never)]
    pub(super) fn claim_pop_slow(&self, min: usize, max: usize) -> Result<(usize, usize), Stop> {
        let max = max.min(N);
        let mut c = self.cons.load(Ordering::SeqCst);
        if self.is_empty_at(c) {
            return Err(Stop::Empty);
        }
        loop {
            if c & PASSING != 0 {
                // A pass of voids holds the front.
                return Err(Stop::Busy);
            }
            let n = run::<N, W>(&self.published, None, c, max, 1);
            if n < min {
                match self.pop_blocked(c, c.wrapping_add(n * ONE)) {
                    Blocked::Retry(now) => {
                        c = now;
                        continue;
                    }
                    Blocked::Stop(stop) => return Err(stop),
                }
            }
            pause_point(pause::BURST_POP_CHECKED);
            match self.cons.compare_exchange_weak(
                c,
                c.wrapping_add(n * ONE),
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => {
                    self.claimed_pop(c, n);
                    return Ok((c, n));
                }
                Err(now) => c = now,
            }
        }
    }

    /// A push that loaded `prod == h` found position `q` (`h <= q`) not
    /// free: full, busy, or look again (module docs, "Full, empty and busy
    /// are exact").
    #[cold]
    #[inline(never)]
    pub(super) fn push_blocked(&self, h: usize, q: usize) -> Blocked {
        let c = self.front_at();
        let now = self.prod.load(Ordering::SeqCst);
        if now != h {
            return Blocked::Retry(now);
        }
        if gap(q, c) >= N {
            return Blocked::Stop(Stop::Full);
        }
        // A pop claimed `q - N`. If it was a void, a pass is in progress
        // (busy: it clears the mark last); if a pop or an eviction has
        // flipped it meanwhile, look again.
        if self.free_run(q, 1) == 1 {
            return Blocked::Retry(h);
        }
        Blocked::Stop(Stop::Busy)
    }

    /// A pop that loaded `cons == c` found position `q` (`c <= q`) not
    /// published: empty, closed, busy, or look again.
    #[cold]
    #[inline(never)]
    pub(super) fn pop_blocked(&self, c: usize, q: usize) -> Blocked {
        let p = self.prod.load(Ordering::SeqCst);
        let now = self.cons.load(Ordering::SeqCst);
        if now != c {
            return Blocked::Retry(now);
        }
        if gap(p & !FLAGS, q) == 0 {
            // No push claimed `q`: empty, or closed and drained, unless an
            // eviction is in progress (the flag): it may have made a void
            // that a pop passed up to `prod` before it claims its next
            // position, which it does after the close too. Busy then.
            return Blocked::Stop(if p & CLOSED == 0 || q != c {
                Stop::Empty
            } else if p & EVICTING != 0 {
                Stop::Busy
            } else {
                Stop::Closed
            });
        }
        if run::<N, W>(&self.published, None, q, 1, 1) == 1 {
            return Blocked::Retry(c);
        }
        // A void at the front is passed, and the pop tries again.
        if q == c && self.pass_voids(c) {
            return Blocked::Retry(self.cons.load(Ordering::SeqCst));
        }
        Blocked::Stop(Stop::Busy)
    }

    /// If position `c` (a counter word that was `cons`, without the flag)
    /// is a void, passes the run of voids from it: claims the front with the
    /// pass flag, flips their published and consumed bits (so the laps stay
    /// even), moves `cons` past them (keeping the flag), clears their marks,
    /// and clears the flag. Returns whether `cons` moved (by us or by
    /// another context).
    ///
    /// The flag keeps the other pops out until the flips are done: a pop
    /// that reached the slot's next lap while a void's published bit is
    /// unflipped would read it two laps behind, and take an unpushed
    /// position for a published one. Pushes stop at the mark, which is
    /// cleared after the flips and the move of `cons`, so the slots' next
    /// positions are not claimed before then: `prod` stays within `N` of
    /// `cons`, and the full test stays exact. The flag stays until the marks
    /// are clear, so no other pass reads a mark left from this one: a
    /// `push_overwrite` may hold such a slot's next position (it claims
    /// before it reads the mark) and must not be passed as a void.
    ///
    /// Only claimed positions are passed. A set mark on a claimed position
    /// from `c` is that position's own: the mark of a void one lap earlier
    /// is cleared before the slot's next position can be claimed, and a
    /// later lap's would need `cons` past `c`, which fails the claim.
    #[cold]
    #[inline(never)]
    pub(super) fn pass_voids(&self, c: usize) -> bool {
        // SeqCst: as the empty test (a position claimed before this load
        // is one a push, an eviction or a chunk claimed).
        let p = self.prod.load(Ordering::SeqCst) & !FLAGS;
        // Acquire: pairs with the mark's release (the dropped chunk is done
        // with the slots; the eviction made the void under its flag).
        let v = void_run::<N, W>(&self.room.void, c).min(gap(p, c));
        if v == 0 {
            return false;
        }
        pause_point(pause::BURST_VOID_CHECKED);
        // SeqCst: as a claim.
        if self
            .cons
            .compare_exchange(c, c | PASSING, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return true;
        }
        pause_point(pause::BURST_VOID_CLAIMED);
        flip::<N, W>(&self.published, c, v);
        flip::<N, W>(&self.room.consumed, c, v);
        let to = c.wrapping_add(v * ONE);
        // SeqCst: as a claim. Nobody else writes `cons` while the flag is
        // set (their CASes expect a word without it). The full test now
        // counts the voids as passed; the flag stays until the marks are
        // clear.
        self.cons.store(to | PASSING, Ordering::SeqCst);
        pause_point(pause::BURST_VOID_PASSED);
        // After the move: until a mark is clear no push claims the slot's
        // next position, so `prod` stays within `N` of `cons`. A push that
        // reads it clear (acquire) reads the flips too.
        clear::<N, W>(&self.room.void, c, v);
        // Release: a pop or a pass that reads the word without the flag
        // sees the flips and the marks cleared. Until then no other pass
        // can start, so none reads a mark of these slots that is not its
        // position's own.
        self.cons.store(to, Ordering::SeqCst);
        M::popped(&self.marks, self);
        self.wake_pushers(v);
        // Every pop that met the flag answered busy, and may wait with the
        // wake of an item behind the voids spent: one wake per position
        // claimed behind them now (SeqCst: as the full and empty tests).
        let p = self.prod.load(Ordering::SeqCst) & !FLAGS;
        self.wake_poppers(gap(p, to));
        true
    }

    /// `cons` without the pass flag (the position a count starts from) and
    /// whether the flag is set. SeqCst: as the full and empty tests.
    #[inline(always)]
    pub(super) fn front(&self) -> (usize, bool) {
        let c = self.cons.load(Ordering::SeqCst);
        (c & !PASSING, c & PASSING != 0)
    }

    /// [`front`](Self::front)'s position alone.
    #[inline(always)]
    pub(super) fn front_at(&self) -> usize {
        self.front().0
    }

    /// The run of free positions from counter word `h`, at most `max`:
    /// their slot's previous position consumed, and not a void still to be
    /// passed. Each word of marks is read before the word of parity bits of
    /// the same slots: a pass clears a mark after its flips, so a push that
    /// reads it clear reads the flips too; a push that read the parity bit
    /// first could take a held slot's stale bit, two laps behind, for a free
    /// one.
    #[inline(always)]
    pub(super) fn free_run(&self, h: usize, max: usize) -> usize {
        run::<N, W>(&self.room.consumed, Some(&self.room.void), h, max, 0)
    }

    /// After a claim by a push up to counter word `to` (not an eviction's,
    /// which leaves the count as it was): the debug check, and the test of
    /// the watermarks (`marks.rs`).
    #[inline(always)]
    pub(super) fn claimed_push(&self, to: usize) {
        self.debug_check_claim(to);
        M::pushed(&self.marks, to, self);
    }

    /// After a claim by a pop of `n` positions from counter word `c` (not
    /// an eviction's): the peak's sample and the test of the watermarks.
    #[inline(always)]
    pub(super) fn claimed_pop(&self, c: usize, n: usize) {
        self.sample_peak(c, n);
        M::popped(&self.marks, self);
    }

    /// Debug builds: after a claim by a push up to counter word `to`, no
    /// more than `N` positions are claimed by pushes and not by pops.
    #[inline(always)]
    pub(super) fn debug_check_claim(&self, to: usize) {
        #[cfg(debug_assertions)]
        {
            // `cons` only grows: a later load can only show fewer.
            let c = self.front_at();
            assert!(
                gap(to, c) <= N,
                "BurstRing: {} positions claimed past `cons`",
                gap(to, c)
            );
        }
        let _ = to;
    }
}

/// What a push that loaded `prod` with a flag set answers: closed, or busy
/// while an eviction holds the next position.
#[cold]
#[inline(never)]
pub(super) fn flagged(prod: usize) -> Stop {
    if prod & CLOSED != 0 {
        Stop::Closed
    } else {
        Stop::Busy
    }
}

/// What a blocked claim does next.
pub(super) enum Blocked {
    /// A counter moved (or the bit flipped): claim again from this word.
    Retry(usize),
    /// Answer this.
    Stop(Stop),
}
