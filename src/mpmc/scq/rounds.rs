//! SCQ's burst rounds: [`IndexRing::enqueue_many`] and
//! [`IndexRing::dequeue_many`] take a round of positions per fetch-and-add.
//!
//! # Dequeue rounds
//!
//! [`IndexRing::dequeue_many`] takes up to `want` indices in *rounds*. A
//! round takes `k` positions with one fetch-and-add on `head` and looks at
//! each of them as a single dequeuer looks at its one:
//!
//! | step | a round (`K = min(want, N)`)                                   | answer |
//! |------|-----------------------------------------------------------------|--------|
//! | 1    | load `threshold` (first round of a call only)                   | "empty" if negative |
//! | 2    | load `head` (`h0`), then `tail` (`t0`)                           | "empty" if `t0 <= h0` (the empty check) |
//! | 3    | `k = min(t0 - h0, K)`; `h = head.fetch_add(k)`                  | |
//! | 4    | `take_at` at `h`, `h+1`, ..., `h+k-1`, in order                 | |
//! | 5    | load `tail` (`t`); if `t < h+k`, `catch_up(t, h+k)`             | |
//! | 6    | it took an index                                                 | the indices, in position order; `t - h` as the length sample |
//! | 7    | it took none (a *dry* round): decrement `threshold` by one       | "empty" if `t <= h+k`, or if the decrement found it `<= 0`; else step 2 |
//!
//! Step 3 bounds the round by `tail - head`, so a round passes a position
//! only where an enqueue holds it and has not placed yet (or gave it up),
//! or where `head` moved on between step 2 and step 3. `k <= N < 2N`, so a
//! round never meets one entry twice.
//!
//! **A round is single dequeues.** Replace a round at `h..h+k` by `k`
//! single dequeuers ("stand-ins"), each of which starts at the round's
//! step 1 (in a later round of the same call: right after the step-7
//! decrement, which left `threshold >= 0`), loads `head` and `tail` where
//! the round loads them (and finds `head < tail`, so it takes a position
//! with or without `dequeue_at`'s empty check), takes its position at the
//! round's fetch-and-add (the `k` fetch-and-adds back to back) and runs
//! `take_at` where the round does for that position. A stand-in that takes
//! an index returns it. One that misses stops at its pause point after the
//! miss, for good, as a suspended single dequeuer may, except the one at
//! `h+k-1`: it loads `tail` at step 5, and if `t < h+k` runs the
//! `catch_up` a single dequeuer with nothing beyond its position runs
//! (stopping for good before its decrement if the round took an index);
//! in a dry round it goes on as step 7 says, which is `dequeue_at`'s miss
//! path, its next position being the next round's first (the others of
//! that round are fresh stand-ins). Every position at or past `t` at
//! step 5 was at or past `tail` when the round looked at it, so no
//! enqueuer held it: the stand-in there missed. So an execution with burst
//! dequeues is one of single operations with extra contexts stopped for
//! good after a miss, step for step the same `head`, `tail`, entries and
//! `threshold`, and the SCQ argument applies to it as it is: no index is
//! lost or taken twice, a round's indices are the oldest ones at its
//! positions, in order, and each "empty" is one a single dequeue gives.
//!
//! **What `threshold` counts.** A decrement is charged to a *step* that
//! missed: a single dequeue's position, or a dry round (one for all its
//! positions). A round that took an index charges nothing for the
//! positions it passed. Take an enqueue that placed index `x` at position
//! `t` and then set `threshold` to `3N-1` (or found it there): the reset,
//! `R`. While `x` waits for a dequeuer (`head <= t`), the decrements after
//! `R` are charged to
//!
//! 1. steps whose positions were taken after `R`: those positions lie in
//!    `head(R)..t`, all missed, and each is charged at most once (a dry
//!    round once for all of them), so these decrements are at most the
//!    misses in `head(R)..t`;
//! 2. steps whose positions were taken before `R` and charged after it: at
//!    most one per context, because a context has one step (a position, or
//!    a round) between its fetch-and-add and its decrement at a time.
//!
//! These are exactly the decrements the same execution makes as single
//! operations (the stand-ins), so SCQ's bound applies unchanged. It counts
//! item 2 per context; the stand-ins never decrement, so it counts the
//! real contexts inside a dequeue, one per context whether it runs a
//! single dequeue or a round, and where there are more of them than it
//! allows for, "Late misses" in `scq`'s docs applies to rounds as it is.
//! This is what a round must keep to: charge late for one step at most. A
//! round that charges each of its misses after the fact puts up to `K`
//! late decrements per context after a reset, which the bound does not
//! allow for; rounds of `want` positions charged that way (up to 40 in
//! `tests/mpmc_burst.rs`) drive the free ring of a 2-slot ring below zero
//! with every index inside under 3 x 3 bursting threads, and the ring
//! answers "full" for good.
//! Charging a round's `k` up front (before its fetch-and-add) and giving
//! back its hits afterwards fails item 1 instead: charges then land for
//! positions not yet taken, by rounds that may never take the positions of
//! the index that waits. With `N = 2` (`3N-1 = 5`) and two indices in the
//! ring at positions 0 and 1: three burst dequeuers read `head = 0`,
//! `tail = 2`, charge `k = 2` each (`threshold = -1`) and stop before their
//! fetch-and-add; a dequeue answers "empty" with both indices inside; an
//! enqueue places a third at 2 and resets `threshold`; a new dequeue takes
//! the index at 0, which was in the ring all through the "empty" answer and
//! went to an operation that began after it.
//!
//! **Bounded failed attempts (lock-freedom).** A round takes at least one
//! position (step 2 answers when `t0 <= h0`), and a call takes a new round
//! only after a dry round whose decrement found `threshold > 0`; every
//! round either takes an index or charges one decrement. Between two
//! resets (an enqueue's, or a look's: "Late misses" in `scq`), at most `3N-1`
//! decrements leave `threshold >= 0`, and
//! then each context makes at most one more charged step before every
//! dequeue answers "empty" at step 1 (or at `dequeue_at`'s first check).
//! With `C` contexts inside a dequeue, at most `3N + C` charged steps, each
//! missing at most `K` positions, and steps that take indices: at most the
//! `N` indices there at the first reset plus those placed since by
//! enqueues not yet complete, each missing at most `K - 1` positions. So
//! the positions dequeuers pass between two completed enqueues are at most
//! `K (3N + C) + (K - 1) (N + P)` (`P`: the indices placed by enqueues in
//! progress, at most 32 per context), `3N + C` without bursts (`K = 1`).
//! Finite as long as finitely many contexts use the ring, which is the
//! assumption lock-freedom rests on here: the dequeuers cannot pass the
//! enqueuers' positions for ever, so an enqueue completes or every dequeue
//! answers. A look resets only after a crossing, so after `3N` decrements
//! since the previous reset, each for positions passed, and only for an
//! index at a position not yet passed: while that index waits, finitely
//! many looks reset for it.
//!
//! **Catching up.** A round whose last positions lie at or past `tail`
//! (at most `k` of them, when `head` moved on between steps 2 and 3)
//! closes those entries (no enqueuer holds them), and step 5 moves `tail`
//! up to `h+k` with
//! `catch_up`, whose CAS only replaces a `tail` below a value `head` has
//! passed, so every position it skips is held by a dequeuer. Until then an
//! enqueuer that takes such a position finds its entry unusable and takes
//! another, as behind a single dequeuer that overtook it: `tail` lags
//! `head` by at most the positions of the steps between their
//! fetch-and-add and their catch-up (`k` per round, one per single
//! dequeue). Past those, an enqueue finds a usable entry as it does
//! without bursts: at most `N` of the `2N` entries hold an index, and a
//! round changes entries only through `take_at`.
//!
//! **Suspension.** A round suspended after its fetch-and-add holds its `k`
//! positions (at most `min(want, N, 32)` in a `Ring`): an index placed at
//! one of them before it looks is its own, taken when it resumes (held,
//! not lost), where a single dequeue holds one position. Suspended after
//! some of its `take_at`s, it holds the indices it took and the positions
//! it has not looked at yet.
//!
//! **Closing and draining.** Every position a round takes is taken or
//! closed by `take_at` before the round ends, as a single dequeue's is, so
//! the close argument (a position below `head` has a dequeuer, which takes
//! the index there or closes the entry first; [`crate::mpmc::Ring::close`])
//! holds for each. [`IndexRing::settle`] takes one position at a time and
//! is unchanged.

use super::{before, IndexRing};
#[cfg(sluicegate_loom)]
use crate::sync::fence;
use crate::sync::{pause_point, AtomicUsize, Ordering};

impl<const N: usize, const FREE: bool> IndexRing<N, FREE> {
    /// Appends `indices`, in order, taking their positions with one
    /// fetch-and-add per round; returns how many it appended: all of them,
    /// unless `closed` (if given) has its low bit set when a round holds its
    /// positions (then the rest are refused, as in `enqueue_unless_closed`).
    ///
    /// A round tries every position it took, in order, each with the next
    /// index not yet placed; a position whose entry is unusable (a dequeuer
    /// passed it first) is left, as a single enqueuer leaves it, and the
    /// next position gets that index. The indices left over (one per
    /// unusable position) go to a new round: so the indices keep their
    /// order, and every position a round leaves unused is one a dequeuer has
    /// already passed. That is what `threshold`'s bound needs: a round that
    /// gave up the rest of its positions at its first unusable one would
    /// leave fresh positions ahead of `head`, each a miss no dequeuer had
    /// counted yet, in front of the indices of its next round.
    /// Lock-free, as `enqueue`: a new round means a dequeuer moved on.
    pub(in crate::mpmc) fn enqueue_many(
        &self,
        indices: &[usize],
        closed: Option<&AtomicUsize>,
    ) -> usize {
        let mut done = 0;
        while done < indices.len() {
            let rest = &indices[done..];
            let t0 = self.tail.fetch_add(rest.len(), Ordering::SeqCst);
            pause_point(Self::P_ENQ_TICKET);
            if let Some(state) = closed {
                if state.load(Ordering::SeqCst) & 1 != 0 {
                    break;
                }
            }
            for (k, &index) in rest.iter().enumerate() {
                debug_assert!(index < N);
                if !self.place_at(t0.wrapping_add(k), index) {
                    let first = t0.wrapping_add(k + 1);
                    done += self.place_in_rest_of_round(first, rest.len() - k - 1, &rest[k..]);
                    break;
                }
                done += 1;
                pause_point(Self::P_ENQ_PLACED);
            }
            // As in `enqueue_unless_closed`.
            #[cfg(sluicegate_loom)]
            fence(Ordering::SeqCst);
            if self.threshold.load(Ordering::SeqCst) != Self::THRESHOLD {
                self.reset_threshold();
            }
        }
        done
    }

    /// The rest of a round that met an unusable entry: places `left`, in
    /// order, each at the first usable one of the round's `count` remaining
    /// positions from `first`; returns how many it placed. Out of line: the
    /// round's usual path stays one CAS per index.
    #[cold]
    #[inline(never)]
    fn place_in_rest_of_round(&self, first: usize, count: usize, left: &[usize]) -> usize {
        let mut positions = (0..count).map(|k| first.wrapping_add(k));
        let mut placed = 0;
        for &index in left {
            loop {
                let Some(t) = positions.next() else {
                    return placed;
                };
                if self.place_at(t, index) {
                    break;
                }
            }
            placed += 1;
            pause_point(Self::P_ENQ_PLACED);
        }
        placed
    }

    /// Removes up to `out.len()` of the oldest indices into `out`, in order,
    /// taking a round of positions with one fetch-and-add (see "Dequeue
    /// rounds" in this module's docs for the steps and why they are sound);
    /// returns `None` if it finds the ring empty, else how many it took and
    /// a sample of the length (from the round's first position to `tail`).
    pub(in crate::mpmc) fn dequeue_many(&self, out: &mut [usize]) -> Option<(usize, usize)> {
        self.dequeue_many_for(out, ())
    }

    /// [`dequeue_many`](Self::dequeue_many) for a caller whose waiters `u`
    /// wakes if a look ends a late-miss window.
    pub(in crate::mpmc) fn dequeue_many_for<U: super::OnUnhide>(
        &self,
        out: &mut [usize],
        u: U,
    ) -> Option<(usize, usize)> {
        if out.is_empty() || self.surely_empty() {
            return None;
        }
        let most = out.len().min(N);
        loop {
            // Positions below `tail` were handed to enqueuers: a round
            // takes no more than those not yet taken by a dequeuer, so it
            // passes a position only where an enqueue is in progress or was
            // abandoned, or where `head` moved on before its fetch-and-add.
            let h0 = self.head.load(Ordering::SeqCst);
            let t0 = self.tail.load(Ordering::SeqCst);
            if !before(h0, t0) {
                return None; // the empty check of `dequeue_at`
            }
            let k = t0.wrapping_sub(h0).min(most);
            pause_point(Self::P_DEQ_COUNTED);
            let h = self.head.fetch_add(k, Ordering::SeqCst);
            pause_point(Self::P_DEQ_TICKET);
            let mut got = 0;
            for i in 0..k {
                if let Some(index) = self.take_at(h.wrapping_add(i)) {
                    out[got] = index;
                    got += 1;
                }
                pause_point(Self::P_DEQ_STEPPED);
            }
            let t = self.tail.load(Ordering::SeqCst);
            let next = h.wrapping_add(k);
            if before(t, next) {
                // `head` moved between the loads and the fetch-and-add:
                // the round's last positions were beyond `tail`.
                self.catch_up(t, next);
            }
            if got > 0 {
                // `t > h`: the enqueuer of a position this round took an
                // index at had moved `tail` past it.
                return Some((got, t.wrapping_sub(h)));
            }
            pause_point(Self::P_DEQ_MISSED);
            // A dry round: one failed attempt, as a single dequeue's miss.
            if !before(next, t) {
                self.charge_miss(u);
                return None;
            }
            if self.charge_miss(u) <= 0 {
                return None;
            }
        }
    }
}
