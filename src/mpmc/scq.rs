//! SCQ: a FIFO of slot indices `0..N` in a ring of `2N` entries, after
//! Nikolaev (DISC 2019). Two of these make up a [`super::Ring`].
//!
//! # Words
//!
//! `head` and `tail` are positions: ever-increasing (wrapping) tickets taken
//! with fetch-and-add. Position `p` lives in entry `p mod 2N` ("its slot") and
//! belongs to cycle `p / 2N`. With `L = log2(2N)`, an entry word packs
//!
//! ```text
//!  bit: W-1 ............ L+1 |   L    | L-1 ..... 0
//!       cycle (W-L-1 bits)   | IsSafe | index, or BOT = 2N-1 (all ones) for "no index"
//! ```
//!
//! The cycle word of position `p` is `(p << 1) | LOW` (`LOW = 4N-1`, the
//! IsSafe and index bits all set): the cycle bits in place and the low bits
//! saturated, so an entry's cycle is compared with a position's by comparing
//! `entry | LOW` with that word. All comparisons are of wrapping differences
//! read as signed ([`before`]), so they stay right across integer wrap-around
//! as long as the values compared are less than half the range apart (see the
//! module doc of [`super`] for what that means in practice).
//!
//! | entry (cycle, IsSafe, index) | meaning                                   | who moves it, to what |
//! |------------------------------|-------------------------------------------|-----------------------|
//! | `(c, 1, BOT)`                | empty, last used in cycle `c`             | an enqueuer of a later cycle `c'` (CAS) → `(c', 1, i)`; a dequeuer of a later cycle `c'` (CAS) → `(c', 1, BOT)` |
//! | `(c, 0, BOT)`                | empty, unsafe                             | an enqueuer of a later cycle `c'`, only if `head <= its position` (CAS) → `(c', 1, i)`; a dequeuer of a later cycle (CAS) → `(c', 0, BOT)` |
//! | `(c, s, i)`                  | holds index `i`, enqueued in cycle `c`    | the dequeuer of cycle `c` (fetch-or) → `(c, s, BOT)`; a dequeuer of a later cycle (CAS) → `(c, 0, i)` |
//!
//! Only the dequeuer holding position `p` takes the index enqueued at `p`.
//! A dequeuer that arrives before the enqueuer moves the empty entry to its own
//! cycle, so the late enqueuer can no longer use it and retries at a new
//! position; a dequeuer that finds an older index still waiting for its own
//! (slow) dequeuer marks it unsafe, so that once that slow dequeuer empties it,
//! no enqueuer whose position was already passed by `head` reuses it. Nobody
//! waits for anybody: each step either succeeds or moves on to a new position.
//!
//! An enqueuer does not load its entry before the CAS: it CASes from the
//! word the entry holds when the previous cycle left it empty and safe
//! (`cycle_word(p) - 4N`), the common case; a failure returns the actual word,
//! and from there on the loop is the paper's. A CAS that succeeds from the
//! guessed word is one the paper's enqueuer would have made after loading it.
//!
//! # Empty check
//!
//! Before taking a position, a dequeuer that sees `threshold` below its
//! reset value (a dequeue has missed since the last enqueue, so the ring is
//! probably empty) loads `head`, then `tail`, and answers "empty" if
//! `tail <= head`. Soundness: an enqueue that completed before the
//! load of `tail` took its position with fetch-and-add on `tail` (and `tail`
//! never moves back), so its position is below the value read, hence below
//! the `head` read earlier: a dequeuer already holds that position and either
//! takes the index there or closed the entry first, so that the enqueue could
//! not complete there. Either way no completed enqueue's index is waiting for
//! a new dequeuer at the load of `tail`, where the empty answer linearizes;
//! indices of enqueues still in progress are ordered after it. The check only
//! reads, so it changes no state and no other operation's progress.
//!
//! `threshold` bounds the work of dequeuers on an empty ring: every enqueue
//! sets it to `3N-1`; every failed dequeue attempt decrements it, and a
//! dequeue that sees it negative returns "empty" at once. The paper shows that
//! an enqueued index is found within `3N-1` failed attempts, so the
//! threshold never hides an index that is there.
//!
//! # Burst dequeues: a round of positions per fetch-and-add
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
//! operations (the stand-ins), so SCQ's bound applies unchanged: while an
//! index waits, fewer than `3N` decrements land after its reset, and
//! `threshold` never hides it. The bound counts item 2 per context; the
//! stand-ins never decrement, so it counts the real contexts inside a
//! dequeue, one per context whether it runs a single dequeue or a round
//! (see the caveat on the empty answer in [`super`]'s docs). This is what
//! a round must keep to: charge late for one step at most. A round that
//! charges each of its misses after the fact puts up to `K` late
//! decrements per context after a reset, which the bound does not allow
//! for; rounds of `want` positions charged that way (up to 40 in
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
//! enqueues' resets, at most `3N-1` decrements leave `threshold >= 0`, and
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
//! answers.
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
//! the index there or closes the entry first; [`super::Ring::close`])
//! holds for each. [`IndexRing::settle`] takes one position at a time and
//! is unchanged.

use crate::sync::{const_fn, pause, pause_point, AtomicUsize, Ordering, Padded, Point};

/// `a` comes strictly before `b`, comparing wrapping differences.
#[inline(always)]
const fn before(a: usize, b: usize) -> bool {
    (a.wrapping_sub(b) as isize) < 0
}

/// What one [`IndexRing::settle`] step found.
pub(super) enum Settle {
    /// Every position taken so far has a dequeuer.
    Drained,
    /// The index enqueued at the position this step took.
    Took(usize),
    /// The position held nothing; `head` moved on by one.
    Moved,
}

/// One SCQ ring of indices.
///
/// `FREE` only names the pause points (`fq` for the ring of free slots,
/// `aq` for the ring of allocated ones); the algorithm is the same.
pub(super) struct IndexRing<const N: usize, const FREE: bool> {
    /// Next dequeue position. Only ever increased, by fetch-and-add.
    head: Padded<AtomicUsize>,
    /// Next enqueue position. Increased by fetch-and-add; moved forward to
    /// `head` by CAS (`catch_up`) after dequeuers overtook it. Never moves back.
    tail: Padded<AtomicUsize>,
    /// Remaining failed dequeue attempts before "empty" is answered without
    /// looking; read as `isize`. `3N-1` after every enqueue, `-1` when empty.
    threshold: Padded<AtomicUsize>,
    /// The `2N` entries, in position order (see [`Self::locate`]).
    entries: [[AtomicUsize; 2]; N],
}

impl<const N: usize, const FREE: bool> IndexRing<N, FREE> {
    /// Index field all ones: "no index".
    const BOT: usize = 2 * N - 1;
    /// The IsSafe bit.
    const SAFE: usize = 2 * N;
    /// IsSafe and index bits.
    const LOW: usize = 4 * N - 1;
    /// One cycle, as a difference of cycle words.
    const CYCLE_UNIT: usize = 4 * N;
    /// `threshold` after an enqueue.
    const THRESHOLD: usize = 3 * N - 1;

    /// Pause points, per index ring.
    const P_ENQ_TICKET: Point = if FREE {
        pause::MPMC_FQ_ENQ_TICKET
    } else {
        pause::MPMC_AQ_ENQ_TICKET
    };
    const P_ENQ_PLACED: Point = if FREE {
        pause::MPMC_FQ_ENQ_PLACED
    } else {
        pause::MPMC_AQ_ENQ_PLACED
    };
    const P_DEQ_TICKET: Point = if FREE {
        pause::MPMC_FQ_DEQ_TICKET
    } else {
        pause::MPMC_AQ_DEQ_TICKET
    };
    const P_DEQ_MISSED: Point = if FREE {
        pause::MPMC_FQ_DEQ_MISSED
    } else {
        pause::MPMC_AQ_DEQ_MISSED
    };
    const P_DEQ_COUNTED: Point = if FREE {
        pause::MPMC_FQ_DEQ_COUNTED
    } else {
        pause::MPMC_AQ_DEQ_COUNTED
    };
    const P_DEQ_STEPPED: Point = if FREE {
        pause::MPMC_FQ_DEQ_STEPPED
    } else {
        pause::MPMC_AQ_DEQ_STEPPED
    };

    /// Cycle word of position `p`: its cycle in the entry's cycle bits, all
    /// low bits set (that is also the word of an empty, safe entry of that cycle).
    #[inline(always)]
    const fn cycle_word(p: usize) -> usize {
        (p << 1) | Self::LOW
    }

    /// Where the slot of position `p` is stored: `(row, column)` of `entries`.
    ///
    /// In position order, unlike the paper, which spreads consecutive
    /// positions over different cache lines (`cache_remap`) so that
    /// concurrent operations on neighbouring positions do not share a line.
    /// In order, consecutive operations touch consecutive words (sixteen per
    /// 128 bytes on 64-bit targets) and the hardware prefetcher follows them;
    /// with the remap every operation touches a new line, and at large
    /// capacities (two rings of 16 KiB at `N = 1024`) the entries stop
    /// fitting in L1. On the few-core machines `benches/mpmc.rs` runs on,
    /// in-order entries are the faster layout; machines with many cores
    /// contending on neighbouring positions may favour the remap.
    #[inline(always)]
    const fn locate(p: usize) -> (usize, usize) {
        let s = p & (2 * N - 1);
        (s >> 1, s & 1)
    }

    /// The entry of position `p`.
    #[inline(always)]
    fn entry(&self, p: usize) -> &AtomicUsize {
        let (r, c) = Self::locate(p);
        // Both in bounds by construction; the compiler sees the masks.
        &self.entries[r][c]
    }

    const_fn! {
        /// A ring whose positions start at `start`, holding indices `0..N` in
        /// order if `full`, else empty.
        pub(super) fn new(start: usize, full: bool) -> Self {
            #[cfg(not(sluicegate_loom))]
            let mut entries = [const { [const { AtomicUsize::new(0) }; 2] }; N];
            #[cfg(sluicegate_loom)]
            let entries: [[AtomicUsize; 2]; N] =
                core::array::from_fn(|_| [AtomicUsize::new(0), AtomicUsize::new(0)]);
            // Each slot gets its word for the first position >= `start` that
            // maps to it: index k at position start+k (k < N) if `full`, else
            // "empty, safe, cycle just before that position's".
            let mut k = 0;
            while k < 2 * N {
                let p = start.wrapping_add(k);
                let word = if full && k < N {
                    (Self::cycle_word(p) & !Self::BOT) | k
                } else {
                    Self::cycle_word(p).wrapping_sub(Self::CYCLE_UNIT)
                };
                let (r, c) = Self::locate(p);
                #[cfg(not(sluicegate_loom))]
                {
                    entries[r][c] = AtomicUsize::new(word);
                }
                #[cfg(sluicegate_loom)]
                entries[r][c].store(word, Ordering::Relaxed);
                k += 1;
            }
            let (tail, threshold) = if full {
                (start.wrapping_add(N), Self::THRESHOLD)
            } else {
                (start, usize::MAX) // -1: empty
            };
            Self {
                head: Padded::new(AtomicUsize::new(start)),
                tail: Padded::new(AtomicUsize::new(tail)),
                threshold: Padded::new(AtomicUsize::new(threshold)),
                entries,
            }
        }
    }

    /// Appends `index`. Never fails: the ring has `2N` entries for at most `N`
    /// indices. Lock-free: a retry means another context's operation moved
    /// the entry (took it for an earlier cycle, or passed it).
    #[inline]
    pub(super) fn enqueue(&self, index: usize) {
        self.enqueue_unless_closed(index, None);
    }

    /// Appends `index` unless `closed` (if given) has its low bit set when
    /// this call holds a position; returns whether it appended. The flag is
    /// loaded after each position is taken, never before: so every position
    /// taken after a `SeqCst` load of `tail` that followed the close sees the
    /// flag (the ring's close argument rests on this; see
    /// [`super::Ring::close`]). A refused call leaves the position it took
    /// unused, which dequeuers pass like one an enqueuer abandoned.
    #[inline(always)]
    pub(super) fn enqueue_unless_closed(&self, index: usize, closed: Option<&AtomicUsize>) -> bool {
        debug_assert!(index < N);
        loop {
            let t = self.tail.fetch_add(1, Ordering::SeqCst);
            pause_point(Self::P_ENQ_TICKET);
            if let Some(state) = closed {
                // Relaxed is enough: a close that must be seen here happens
                // before this load through the fetch-and-add above (see
                // `super::Ring::close`), and coherence does the rest.
                if state.load(Ordering::Relaxed) & 1 != 0 {
                    return false;
                }
            }
            if self.place_at(t, index) {
                pause_point(Self::P_ENQ_PLACED);
                if self.threshold.load(Ordering::SeqCst) != Self::THRESHOLD {
                    self.threshold.store(Self::THRESHOLD, Ordering::SeqCst);
                }
                return true;
            }
        }
    }

    /// The enqueuer's step at position `t`, which it holds: places `index`
    /// there if the entry is usable for that cycle; returns whether it did.
    /// Does not reset `threshold`.
    ///
    /// No load first: it guesses that the entry is in the state the last
    /// cycle leaves it in, `(cycle of t - 1, IsSafe, BOT)`, and CASes from
    /// that. The guess passes the usability test by construction (an older
    /// cycle, no index, safe), so the test is skipped for it; a failed CAS
    /// returns the real word, which is then tested as if it had been loaded
    /// (one transfer of the entry's cache line instead of two).
    #[inline(always)]
    fn place_at(&self, t: usize, index: usize) -> bool {
        let t_cycle = Self::cycle_word(t);
        let entry = self.entry(t);
        let new = (t_cycle & !Self::BOT) | index;
        let mut e = t_cycle.wrapping_sub(Self::CYCLE_UNIT);
        loop {
            match entry.compare_exchange(e, new, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return true,
                Err(now) => e = now,
            }
            let usable = before(e | Self::LOW, t_cycle)
                && e & Self::BOT == Self::BOT
                && (e & Self::SAFE != 0 || !before(t, self.head.load(Ordering::SeqCst)));
            if !usable {
                return false; // the caller takes a new position
            }
        }
    }

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
    pub(super) fn enqueue_many(&self, indices: &[usize], closed: Option<&AtomicUsize>) -> usize {
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
            if self.threshold.load(Ordering::SeqCst) != Self::THRESHOLD {
                self.threshold.store(Self::THRESHOLD, Ordering::SeqCst);
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
    /// taking a round of positions with one fetch-and-add (see "Burst
    /// dequeues" in the module docs for the steps and why they are sound);
    /// returns `None` if it finds the ring empty, else how many it took and
    /// a sample of the length (from the round's first position to `tail`).
    pub(super) fn dequeue_many(&self, out: &mut [usize]) -> Option<(usize, usize)> {
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
                self.threshold.fetch_sub(1, Ordering::SeqCst);
                return None;
            }
            if (self.threshold.fetch_sub(1, Ordering::SeqCst) as isize) <= 0 {
                return None;
            }
        }
    }

    /// Step 1 of a dequeue: `threshold` is negative, so the ring is empty
    /// (no index placed since dequeues charged it down; module docs). One
    /// load, no position taken.
    #[inline(always)]
    pub(super) fn surely_empty(&self) -> bool {
        (self.threshold.load(Ordering::SeqCst) as isize) < 0
    }

    /// [`surely_empty`](Self::surely_empty), or else the empty check of
    /// [`dequeue_many`](Self::dequeue_many)'s round: `tail` loaded after
    /// `head` is not past it, so the ring was empty at that load ("Empty
    /// check" in the module docs). No position taken.
    #[inline(always)]
    pub(super) fn empty_now(&self) -> bool {
        self.surely_empty()
            || !before(
                self.head.load(Ordering::SeqCst),
                self.tail.load(Ordering::SeqCst),
            )
    }

    /// Removes the oldest index, or `None` if the ring is empty.
    /// Lock-free: each failed attempt moves `head` on, and at most `3N-1`
    /// attempts fail between two enqueues.
    #[inline]
    pub(super) fn dequeue(&self) -> Option<usize> {
        self.dequeue_at().map(|(index, _)| index)
    }

    /// [`Self::dequeue`], also returning the position the index was taken
    /// at.
    #[inline(always)]
    pub(super) fn dequeue_at(&self) -> Option<(usize, usize)> {
        let threshold = self.threshold.load(Ordering::SeqCst);
        if (threshold as isize) < 0 {
            return None;
        }
        // A dequeue has missed since the last enqueue: the ring is probably
        // empty. Check without taking a position: every position below
        // `head` has a dequeuer, and every enqueue that has completed placed
        // its index below `tail`; read in this order, `tail <= head` means
        // each index enqueued so far belongs to a dequeuer that started
        // before this call, so the ring is empty at the load of `tail` (see
        // "Empty check" in the module docs). Saves the ticket, the entry
        // update and the catch-up of `tail` that a miss costs. Skipped while
        // no dequeue has missed, where it would only add a read of the
        // enqueuers' `tail` line.
        if threshold != Self::THRESHOLD
            && !before(
                self.head.load(Ordering::SeqCst),
                self.tail.load(Ordering::SeqCst),
            )
        {
            return None;
        }
        loop {
            let h = self.head.fetch_add(1, Ordering::SeqCst);
            pause_point(Self::P_DEQ_TICKET);
            if let Some(index) = self.take_at(h) {
                return Some((index, h));
            }
            pause_point(Self::P_DEQ_MISSED);
            // Nothing at our position.
            let t = self.tail.load(Ordering::SeqCst);
            let next = h.wrapping_add(1);
            if !before(next, t) {
                // Nothing beyond us either: bring tail up to head and give up.
                self.catch_up(t, next);
                self.threshold.fetch_sub(1, Ordering::SeqCst);
                return None;
            }
            if (self.threshold.fetch_sub(1, Ordering::SeqCst) as isize) <= 0 {
                return None;
            }
        }
    }

    /// The dequeuer's step at position `h`, which it holds: takes the index
    /// enqueued there, or leaves the entry so that no late enqueuer of that
    /// position can use it, and returns `None`.
    #[inline(always)]
    fn take_at(&self, h: usize) -> Option<usize> {
        let h_cycle = Self::cycle_word(h);
        let entry = self.entry(h);
        let mut e = entry.load(Ordering::SeqCst);
        loop {
            let e_cycle = e | Self::LOW;
            if e_cycle == h_cycle {
                // Enqueued at our position: only we take it.
                debug_assert!(e & Self::BOT != Self::BOT, "own-cycle entry without index");
                entry.fetch_or(Self::BOT, Ordering::SeqCst);
                return Some(e & Self::BOT);
            }
            if !before(e_cycle, h_cycle) {
                return None; // a later cycle already owns the entry: we are late
            }
            let new = if e & Self::BOT != Self::BOT {
                e & !Self::SAFE // an older index still waits for its dequeuer
            } else {
                (h_cycle & !Self::SAFE) | (e & Self::SAFE) // close our cycle here
            };
            if new == e {
                return None;
            }
            match entry.compare_exchange(e, new, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return None,
                Err(now) => e = now,
            }
        }
    }

    /// One step towards "every position ever taken has a dequeuer", for a
    /// closed ring, whose refused pushes leave positions that `dequeue`'s
    /// `threshold` may stop short of. [`Settle::Drained`] if `head` is at or
    /// past `tail` (read in that order), else takes one position as a
    /// dequeuer would, ignoring `threshold`.
    ///
    /// `tail` is read with a read-modify-write (adding 0), which reads the
    /// latest value in its modification order: an enqueuer whose
    /// fetch-and-add comes after it reads from it, so the caller's earlier
    /// acquire of the close happens before that enqueuer's load of the flag
    /// (the argument then holds with acquire/release alone, as loom checks
    /// it, not only under sequential consistency).
    pub(super) fn settle(&self) -> Settle {
        let h = self.head.load(Ordering::SeqCst);
        let t = self.tail.fetch_add(0, Ordering::SeqCst);
        if !before(h, t) {
            return Settle::Drained;
        }
        let h = self.head.fetch_add(1, Ordering::SeqCst);
        if let Some(index) = self.take_at(h) {
            return Settle::Took(index);
        }
        let t = self.tail.load(Ordering::SeqCst);
        let next = h.wrapping_add(1);
        if !before(next, t) {
            self.catch_up(t, next);
        }
        Settle::Moved
    }

    /// Moves `tail` up to `head` after dequeuers overtook it, so that
    /// enqueuers do not waste positions the dequeuers already passed.
    /// Retries only when another context moved `tail` or `head`.
    fn catch_up(&self, mut tail: usize, mut head: usize) {
        while self
            .tail
            .compare_exchange(tail, head, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            head = self.head.load(Ordering::SeqCst);
            tail = self.tail.load(Ordering::SeqCst);
            if !before(tail, head) {
                break;
            }
        }
    }

    /// The number of positions from `p`, one at which this caller took an
    /// index, to `tail`: the length of the ring just before that dequeue,
    /// exact when no other operation overlapped it and no position was
    /// left unused; otherwise enqueues in progress and unused positions
    /// count too. At least 1: the enqueuer at `p` had moved `tail` past it.
    /// One relaxed load.
    #[inline(always)]
    pub(super) fn len_from(&self, p: usize) -> usize {
        self.tail.load(Ordering::Relaxed).wrapping_sub(p)
    }

    /// `head` and `tail`, for the watermarks (`src/mpmc/marks.rs`).
    #[inline(always)]
    pub(super) fn counters(&self) -> (&AtomicUsize, &AtomicUsize) {
        (&self.head, &self.tail)
    }

    /// `tail - head`, clamped to `0..=N`: the number of positions between the
    /// two counters. Exact when nothing is in progress and every enqueue
    /// succeeded at its first position; otherwise an estimate.
    pub(super) fn len_hint(&self) -> usize {
        self.len_and_head().0
    }

    /// [`len_hint`](Self::len_hint) and the `head` it counted from: `head`
    /// is loaded first, so the count is at least the count of the moment
    /// it was loaded (the watermarks' lowering reading).
    #[inline(always)]
    pub(super) fn len_and_head(&self) -> (usize, usize) {
        let h = self.head.load(Ordering::SeqCst);
        let t = self.tail.load(Ordering::SeqCst);
        let d = t.wrapping_sub(h) as isize;
        (if d <= 0 { 0 } else { (d as usize).min(N) }, h)
    }
}

#[cfg(all(test, not(sluicegate_loom)))]
mod tests;
