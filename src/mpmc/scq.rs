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
//! threshold never hides an index that is there, as long as fewer contexts
//! are inside a dequeue than that bound allows for; "Late misses" covers
//! more.
//!
//! # Late misses
//!
//! A decrement is *late* when its dequeuer took its position before the
//! reset of the enqueue whose index waits (item 2 of "What `threshold`
//! counts" in the `rounds` module's docs): at most one per context inside
//! a dequeue. SCQ's `3N-1` allows for fewer such contexts than there are
//! slots (the paper's rings are much larger than the number of threads).
//! With more, the late
//! decrements alone take `threshold` below zero after the reset: three
//! pops stopped between their miss and their decrement on a ring of one
//! slot, and a push placing its index past them. With no further enqueue
//! (on `fq` of a full ring, none comes), every dequeue would then answer
//! "empty" at its first load, for good.
//!
//! So the decrement that takes `threshold` from `0` to `-1` (the
//! *crossing*) is followed by a look ([`IndexRing::unhide`]): `head`,
//! `tail`, then the entries of the positions from `head` to
//! `tail` (at most `2N`, one per entry). If one holds an index enqueued at
//! a position in `head..tail`, which no dequeuer has taken yet, the look
//! sets `threshold` back to `3N-1`.
//!
//! *Nothing stays hidden once the operations stop.* Suppose every
//! operation has returned, an index `x` enqueued at `p` waits, and
//! `threshold < 0`. Only a reset writes `3N-1` (a decrement leaves less),
//! so take the last reset `S`; after it, decrements took `threshold` from
//! `0` to `-1` once: the crossing `D`, whose look ran and did not reset
//! (a reset after `S` would contradict its choice). `x`'s enqueue placed
//! `x` with a CAS, then loaded `threshold`: it read `3N-1`, written by a
//! reset no later than `S`, or it stored such a reset itself. `D` comes
//! after that load (and that store) in the single order of `SeqCst`
//! operations, since it modifies `threshold` after the value the load read
//! (and after the store). So the look's
//! loads, after `D`, see `x`'s entry and a `tail` past `p`; `head <= p`
//! throughout, since no dequeuer took `p`. The look covers `p`'s entry
//! (`p` itself when `tail - head <= 2N`, else every entry), and the word
//! there places `x` at `p` (`cycle_word`s differ by `4N` per cycle,
//! positions by `2N`), so it resets: a contradiction.
//!
//! While a context is between its crossing and its look, `threshold` can
//! hide an index: for as long as that context is suspended there. A task
//! or thread of `mpmc::Ring` told "empty" (or, on the free side, "full")
//! in that time waits; so the look that resets wakes every waiter of the
//! side it serves, through the [`OnUnhide`] hook the ring passes to its
//! dequeues (several may have been told to wait in the window). The reset
//! is a `SeqCst` store made before the wake-up's fence, and a waiter
//! registers before its `SeqCst` load of `threshold`: the waiter's load
//! sees the reset, or its registration is seen by the wake-up. The hook is
//! a value type the compiler inlines into the out-of-line look, so the
//! dequeues' fast paths do not change.
//! The look costs two loads on an empty ring (`head == tail` after
//! the catch-up), once per crossing, that is once per `3N` misses.
//!
//! # Burst rounds
//!
//! [`IndexRing::enqueue_many`] and [`IndexRing::dequeue_many`] take a round
//! of positions per fetch-and-add; the private `rounds` module shows why
//! they are single operations in disguise, what `threshold` counts with
//! them, and why they stay lock-free.

#[cfg(sluicegate_loom)]
use crate::sync::fence;
use crate::sync::{const_fn, pause, pause_point, AtomicUsize, Ordering, Padded, Point};

/// Who a dequeue's look wakes when it ends a late-miss window: the ring
/// side that waits for this index ring's indices ("Late misses").
pub trait OnUnhide: Copy {
    /// The look reset `threshold`: an index hidden from the waiters'
    /// tries is found again.
    fn unhidden(&self);
}

impl OnUnhide for () {
    #[inline(always)]
    fn unhidden(&self) {}
}

/// Whether a dequeue's loop after its first miss is a call (on Arm) or
/// inlined into its callers (elsewhere), as measured; the steps are the
/// same either way ([`IndexRing::missed`]). On the Cortex-M0 and M3
/// (`ci/qemu.sh`), inlined, the miss path's calls and values cost the
/// taking path register spills: out of line, `mpmc::Ring`'s push and pop
/// take 2 to 4 instructions fewer, `SmallRing`'s pop 8 to 12, its empty
/// poll 2 to 9, an evicting `push_overwrite` up to 14 (a refused push
/// one more on the M3). On x86-64 (`ci/callgrind.sh`) the call costs the
/// pop a frame of two more saved registers: 5 instructions more per push
/// and pop pair, 6 per empty poll. The crate's unit tests (pause points,
/// schedules, loom models) run the out-of-line loop on every target, so
/// that the Cortex-M's shape is checked on the host; the integration
/// tests run the inlined one.
const OUT_OF_LINE_MISS: bool = cfg!(any(target_arch = "arm", test));

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
    const P_DEQ_UNHIDE: Point = if FREE {
        pause::MPMC_FQ_DEQ_UNHIDE
    } else {
        pause::MPMC_AQ_DEQ_UNHIDE
    };
    const P_DEQ_DRY: Point = if FREE {
        pause::MPMC_FQ_DEQ_DRY
    } else {
        pause::MPMC_AQ_DEQ_DRY
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
                // Our CAS of the entry, then this load, against a miss's
                // decrement, then `unhide`'s loads ("Late misses" in the
                // module docs): under loom, which models SeqCst accesses
                // as acquire and release only, a fence stands in for the
                // single order SeqCst gives.
                #[cfg(sluicegate_loom)]
                fence(Ordering::SeqCst);
                if self.threshold.load(Ordering::SeqCst) != Self::THRESHOLD {
                    self.reset_threshold();
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

    /// [`Self::dequeue`] for a caller whose waiters `u` wakes if a look
    /// ends a late-miss window ("Late misses" in the module docs).
    #[inline(always)]
    pub(super) fn dequeue_for<U: OnUnhide>(&self, u: U) -> Option<usize> {
        self.dequeue_at_for(u).map(|(index, _)| index)
    }

    /// [`Self::dequeue`], also returning the position the index was taken
    /// at.
    #[inline(always)]
    pub(super) fn dequeue_at(&self) -> Option<(usize, usize)> {
        self.dequeue_at_for(())
    }

    /// [`Self::dequeue_at`] for a caller whose waiters `u` wakes (as
    /// [`dequeue_for`](Self::dequeue_for)).
    #[inline(always)]
    pub(super) fn dequeue_at_for<U: OnUnhide>(&self, u: U) -> Option<(usize, usize)> {
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
        if OUT_OF_LINE_MISS {
            return match self.take_next() {
                Ok(taken) => Some(taken),
                Err(h) => match self.after_miss(h, u) {
                    (Self::NO_INDEX, _) => None,
                    taken => Some(taken),
                },
            };
        }
        loop {
            match self.take_next() {
                Ok(taken) => return Some(taken),
                Err(h) if !self.missed(h, u) => return None,
                Err(_) => {}
            }
        }
    }

    /// Takes the next position and the index enqueued there: the index
    /// and the position, or the position where it missed.
    #[inline(always)]
    fn take_next(&self) -> Result<(usize, usize), usize> {
        let h = self.head.fetch_add(1, Ordering::SeqCst);
        pause_point(Self::P_DEQ_TICKET);
        self.take_at(h).map(|index| (index, h)).ok_or(h)
    }

    /// A dequeue's step after it missed at position `h`: whether it may
    /// take another position (else the ring is empty).
    #[inline(always)]
    fn missed<U: OnUnhide>(&self, h: usize, u: U) -> bool {
        pause_point(Self::P_DEQ_MISSED);
        // Nothing at our position.
        let t = self.tail.load(Ordering::SeqCst);
        let next = h.wrapping_add(1);
        if !before(next, t) {
            pause_point(Self::P_DEQ_DRY);
            // Nothing beyond us either: bring tail up to head and give up.
            self.catch_up(t, next);
            self.charge_miss(u);
            return false;
        }
        self.charge_miss(u) > 0
    }

    /// What [`after_miss`](Self::after_miss) answers for "empty" (no index
    /// is this large).
    const NO_INDEX: usize = usize::MAX;

    /// The rest of [`dequeue_at`](Self::dequeue_at)'s loop after a miss at
    /// position `h`, out of line ([`OUT_OF_LINE_MISS`]). Returns the index
    /// and its position, or [`NO_INDEX`](Self::NO_INDEX) for "empty": two
    /// words, which Rust returns in two registers on x86-64 and Arm, where
    /// an `Option` of them goes through memory.
    #[cold]
    #[inline(never)]
    fn after_miss<U: OnUnhide>(&self, mut h: usize, u: U) -> (usize, usize) {
        loop {
            if !self.missed(h, u) {
                return (Self::NO_INDEX, 0);
            }
            match self.take_next() {
                Ok(taken) => return taken,
                Err(next) => h = next,
            }
        }
    }

    /// Charges a failed attempt (a single dequeue's position, or a dry
    /// round) to `threshold`; returns the value it found, read as `isize`
    /// (the caller may try again if it was positive). The crossing, which
    /// found `0`, looks whether the decrement hides an index ("Late
    /// misses" in the module docs).
    #[inline(always)]
    fn charge_miss<U: OnUnhide>(&self, u: U) -> isize {
        let left = self.threshold.fetch_sub(1, Ordering::SeqCst);
        if left == 0 {
            self.unhide(u);
        }
        left as isize
    }

    /// A miss's decrement of `threshold` and, at the crossing, its look,
    /// as a dequeuer stopped between its miss and its decrement makes them
    /// late: the loom models of the look's wake start from there.
    #[cfg(all(test, sluicegate_loom, feature = "async"))]
    pub(super) fn late_decrement<U: OnUnhide>(&self, u: U) {
        self.charge_miss(u);
    }

    /// Sets `threshold` to `3N-1` (an enqueue's reset, or `unhide`'s).
    ///
    /// A store; under loom a swap. loom orders a store only after the
    /// writes its thread has seen, not after a concurrent decrement that
    /// ran first, so a later load may read that decrement's value as if
    /// the reset had come before it, which the single modification order
    /// of an atomic forbids (the decrement read the value before the reset,
    /// so the reset is after it). A swap reads the newest value and is
    /// ordered after it.
    #[inline(always)]
    fn reset_threshold(&self) {
        #[cfg(not(sluicegate_loom))]
        self.threshold.store(Self::THRESHOLD, Ordering::SeqCst);
        #[cfg(sluicegate_loom)]
        self.threshold.swap(Self::THRESHOLD, Ordering::SeqCst);
    }

    /// The look of the crossing, the decrement that took `threshold` from
    /// `0` to `-1`: if an index waits at a position no dequeuer has taken yet,
    /// sets `threshold` back to `3N-1`, so that it does not hide that
    /// index ("Late misses" in the module docs). Looks at the positions
    /// from `head` to `tail`, at most `2N` of them (one per entry): an
    /// index enqueued at a position in that range sits in the entry of one
    /// of them, and its word tells its position.
    #[cold]
    #[inline(never)]
    fn unhide<U: OnUnhide>(&self, u: U) {
        // The crossing, then these loads, against an enqueue's CAS, then
        // its load of `threshold`: the SeqCst order does it; under loom a
        // fence stands in for it (see `enqueue_unless_closed`).
        #[cfg(sluicegate_loom)]
        fence(Ordering::SeqCst);
        let h = self.head.load(Ordering::SeqCst);
        let t = self.tail.load(Ordering::SeqCst);
        if !before(h, t) {
            return;
        }
        let looks = t.wrapping_sub(h).min(2 * N);
        for k in 0..looks {
            let q = h.wrapping_add(k);
            let e = self.entry(q).load(Ordering::SeqCst);
            if e & Self::BOT == Self::BOT {
                continue;
            }
            // The index's position is `q` plus its cycle's distance from
            // `q`'s, in positions: cycle words differ by `4N` per cycle,
            // positions by `2N`.
            let cycles = (e | Self::LOW).wrapping_sub(Self::cycle_word(q)) as isize;
            let at = q.wrapping_add((cycles >> 1) as usize);
            if cycles >= 0 && before(at, t) {
                pause_point(Self::P_DEQ_UNHIDE);
                self.reset_threshold();
                // Waiters told "empty" while the index was hidden wait for
                // a wake (SeqCst store above: the notifiers' gate form).
                u.unhidden();
                return;
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

mod rounds;

#[cfg(all(test, not(sluicegate_loom)))]
mod tests;
