//! What the contexts of a random schedule have done, for the checks that a
//! pop answers "empty", a push "full", and (on the burst ring) any call
//! "busy" only if that was true at some moment of the call. A context
//! updates it right after an operation returns, before it can be suspended
//! again, and the scheduler calls [`Track::observe`] at every switch, so
//! at every switch it is exact. Used by the schedule tests of both MPMC
//! rings.

extern crate std;

use crate::sync::pause::{interleave, Pct};
use crate::sync::splitmix::Rng;
use core::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::SeqCst};
use std::boxed::Box;
use std::collections::BTreeSet;
use std::vec::Vec;

/// What a context's operation in progress is checked for.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Watch {
    Nothing,
    /// A pop: "empty" only if the ring was empty at some moment of it.
    Pop,
    /// A push: "full" only if no slot was free at some moment of it.
    Push,
}

/// A test helper, not part of any ring: the record of what `C` contexts of
/// a random schedule did on a ring of `n` slots, which the schedule tests
/// check every "full", "empty" and "busy" answer against.
pub(crate) struct Track<const C: usize> {
    pub(crate) seed: u64,
    n: usize,
    /// Items whose push has returned, stored.
    pushed: AtomicUsize,
    /// Items a pop or an eviction has returned.
    removed: AtomicUsize,
    /// Per context: the most items its operation in progress may take out
    /// of the ring, and the most slots it may hold for items not yet in.
    taking: [AtomicUsize; C],
    holding: [AtomicUsize; C],
    /// Per context: what its operation in progress is checked for, and the
    /// least of `sure` since it began.
    watch: [AtomicUsize; C],
    least: [AtomicIsize; C],
    /// Per context: inside an operation; and whether another context was
    /// inside one at some moment of its operation in progress.
    inside: [AtomicBool; C],
    others_inside: [AtomicBool; C],
    /// Slots left void by write chunks dropped unfilled (the burst ring):
    /// a bulk pop that finds fewer items than it asks before one answers
    /// busy with nothing in progress.
    voids: AtomicUsize,
}

impl<const C: usize> Track<C> {
    pub(crate) fn new(seed: u64, n: usize) -> Self {
        Self {
            seed,
            n,
            pushed: AtomicUsize::new(0),
            removed: AtomicUsize::new(0),
            taking: core::array::from_fn(|_| AtomicUsize::new(0)),
            holding: core::array::from_fn(|_| AtomicUsize::new(0)),
            watch: core::array::from_fn(|_| AtomicUsize::new(0)),
            least: core::array::from_fn(|_| AtomicIsize::new(0)),
            inside: core::array::from_fn(|_| AtomicBool::new(false)),
            others_inside: core::array::from_fn(|_| AtomicBool::new(false)),
            voids: AtomicUsize::new(0),
        }
    }

    fn watch(&self, c: usize) -> Watch {
        match self.watch[c].load(SeqCst) {
            1 => Watch::Pop,
            2 => Watch::Push,
            _ => Watch::Nothing,
        }
    }

    /// For context `c`'s pop, the items surely in the ring (pushed, not
    /// removed, not possibly taken by another context's removal in
    /// progress); for its push, the slots surely free.
    fn sure(&self, c: usize) -> isize {
        let others = |of: &[AtomicUsize; C]| -> isize {
            (0..C)
                .filter(|&d| d != c)
                .map(|d| of[d].load(SeqCst) as isize)
                .sum()
        };
        let inside = self.pushed.load(SeqCst) as isize - self.removed.load(SeqCst) as isize;
        match self.watch(c) {
            Watch::Pop => inside - others(&self.taking),
            // Voids hold slots until a pop passes them, which the contexts
            // cannot see: counted as held all along (a weaker check once a
            // chunk was dropped unfilled).
            Watch::Push => {
                self.n as isize - inside - others(&self.holding) - self.voids.load(SeqCst) as isize
            }
            Watch::Nothing => 0,
        }
    }

    /// At every switch and at an operation's end: lowers each `least`, and
    /// notes for each context inside an operation whether another is too.
    pub(crate) fn observe(&self) {
        for c in 0..C {
            if self.watch(c) != Watch::Nothing {
                self.least[c].fetch_min(self.sure(c), SeqCst);
            }
            if self.inside[c].load(SeqCst) && (0..C).any(|d| d != c && self.inside[d].load(SeqCst))
            {
                self.others_inside[c].store(true, SeqCst);
            }
        }
    }

    /// Context `c` starts an operation that may take `take` items out and
    /// hold `hold` slots for items not yet in.
    pub(crate) fn begin(&self, c: usize, take: usize, hold: usize, watch: Watch) {
        self.taking[c].store(take, SeqCst);
        self.holding[c].store(hold, SeqCst);
        self.watch[c].store(watch as usize, SeqCst);
        self.inside[c].store(true, SeqCst);
        self.others_inside[c].store(false, SeqCst);
        self.least[c].store(self.sure(c), SeqCst);
        self.observe();
    }

    /// Ends context `c`'s operation, which stored `stored` items and
    /// removed `removed`; `refused`: it answered "empty" (a pop) or "full"
    /// (a push) for all it was asked.
    pub(crate) fn end(&self, c: usize, stored: usize, removed: usize, refused: bool) {
        self.end_needing(c, stored, removed, refused, 1);
    }

    /// [`end`](Self::end) for an all-or-nothing operation of `need` items:
    /// "empty" ("full") only if fewer than `need` items (free slots) were
    /// there at some moment of it.
    pub(crate) fn end_needing(
        &self,
        c: usize,
        stored: usize,
        removed: usize,
        refused: bool,
        need: isize,
    ) {
        self.observe();
        let least = self.least[c].load(SeqCst);
        let what = match self.watch(c) {
            Watch::Pop => "pop answered empty while the ring surely held",
            Watch::Push => "push answered full while the ring surely had free",
            Watch::Nothing => "",
        };
        assert!(
            !refused || least < need || self.watch(c) == Watch::Nothing,
            "seed {}: context {c}'s {what} {least} all through it",
            self.seed
        );
        self.watch[c].store(0, SeqCst);
        self.inside[c].store(false, SeqCst);
        self.pushed.fetch_add(stored, SeqCst);
        self.removed.fetch_add(removed, SeqCst);
        self.taking[c].store(0, SeqCst);
        self.holding[c].store(0, SeqCst);
    }

    /// Before [`end`](Self::end) of an operation that answered "busy":
    /// another context was inside an operation at some moment of it, or
    /// (`bulk`: an all-or-nothing pop) a void may stand before enough items.
    pub(crate) fn busy(&self, c: usize, bulk: bool) {
        self.observe();
        assert!(
            self.others_inside[c].load(SeqCst) || (bulk && self.voids.load(SeqCst) > 0),
            "seed {}: context {c} was answered busy with no other operation in progress",
            self.seed
        );
    }

    /// A write chunk left `n` slots void.
    pub(crate) fn voided(&self, n: usize) {
        self.voids.fetch_add(n, SeqCst);
    }
}

/// What one context saw: the items it got out of the ring (in order), the
/// items handed back to it (refused or evicted), the items it made.
#[derive(Default)]
pub(crate) struct Log {
    pub(crate) popped: Vec<u32>,
    pub(crate) back: Vec<u32>,
    pub(crate) made: Vec<u32>,
}

impl Log {
    /// Context `c`'s next item (its `k`-th is `c * 1000 + k`: the producer
    /// of an item is `item / 1000`).
    pub(crate) fn make(&mut self, c: usize) -> u32 {
        let v = (c * 1000 + self.made.len()) as u32;
        self.made.push(v);
        v
    }
}

/// Runs one schedule: context `c` runs `run(c, &plans[c], log)` on a thread
/// of its own, one context at a time, switching at pause points as PCT
/// (drawn from `rng`) picks, with `track` observed at every switch. Returns
/// each context's log.
pub(crate) fn run_schedule<const C: usize, Op: Sync>(
    rng: &mut Rng,
    track: &Track<C>,
    plans: &[Vec<Op>],
    run: impl Fn(usize, &[Op], &mut Log) + Sync,
) -> Vec<Log> {
    let mut logs: Vec<Log> = (0..C).map(|_| Log::default()).collect();
    let mut pct = Pct::new(rng, C, 3, 100);
    let run = &run;
    let workers: Vec<Box<dyn FnOnce() + Send + '_>> = logs
        .iter_mut()
        .zip(plans)
        .enumerate()
        .map(|(c, (log, ops))| Box::new(move || run(c, ops, log)) as Box<dyn FnOnce() + Send + '_>)
        .collect();
    interleave(workers, |live, last| {
        track.observe();
        pct.pick(live, last)
    });
    logs
}

/// After a schedule and the drain that gave `drained`: each context's pops
/// and the drain give every producer's items in the order it made them,
/// and every item made came out (popped, handed back or drained) exactly
/// once.
pub(crate) fn assert_accounted(
    logs: &[Log],
    drained: &[u32],
    seed: u64,
    plans: &dyn core::fmt::Debug,
) {
    assert_producer_order(logs.len(), drained, "the drain", seed);
    let mut out: Vec<u32> = drained.to_vec();
    let mut made = BTreeSet::new();
    for (c, log) in logs.iter().enumerate() {
        let what = std::format!("context {c}'s pops");
        assert_producer_order(logs.len(), &log.popped, &what, seed);
        out.extend(&log.popped);
        out.extend(&log.back);
        made.extend(log.made.iter().copied());
    }
    out.sort_unstable();
    let unique: Vec<u32> = made.into_iter().collect();
    assert_eq!(
        out, unique,
        "seed {seed}: every item out exactly once (plans {plans:?})"
    );
}

/// The items of each of `producers` producers appear in `seen` in the
/// order it made them.
fn assert_producer_order(producers: usize, seen: &[u32], what: &str, seed: u64) {
    for c in 0..producers as u32 {
        let mine: Vec<u32> = seen.iter().copied().filter(|v| v / 1000 == c).collect();
        assert!(
            mine.windows(2).all(|w| w[0] < w[1]),
            "seed {seed}: {what} gives producer {c}'s items out of order: {mine:?}"
        );
    }
}

/// Schedules per test: `SLUICEGATE_SCHEDULES` if set (for a longer hunt),
/// else 1000 (seconds in a debug build).
pub(crate) fn schedules() -> u64 {
    std::env::var("SLUICEGATE_SCHEDULES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000)
}
