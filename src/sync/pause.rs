//! Pause points: named places inside an operation where a unit test may
//! stop the calling thread while other contexts go on (`primitive.
//! operation.step`; how to add one is in `CONTRIBUTING.md`). Outside the
//! crate's own unit tests [`pause_point`] compiles to nothing; the harness
//! that stops threads at the points (`stop_at`, `interleave` and PCT's
//! scheduler `Pct`) exists only in those tests. (Without CAS only the SPSC
//! reject ring is built, so the other primitives' points go unused there.)

/// A named place inside an operation where a test may suspend the calling
/// thread, to show what other contexts can do while it is stopped there.
/// Every point is one of the constants below, so a test cannot name a point
/// that does not exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Point(#[allow(dead_code)] &'static str);

/// Marks pause point `point`. Compiles to nothing outside the crate's own
/// unit tests.
#[inline(always)]
pub(crate) fn pause_point(_point: Point) {
    #[cfg(all(test, not(sluicegate_loom)))]
    harness::hit(_point);
}

/// SPSC consumer, before its claim CAS (`Overwrite` only).
pub(crate) const SPSC_CLAIM: Point = Point("spsc.claim");
/// SPSC consumer, holding its items, before it frees them.
pub(crate) const SPSC_RELEASE: Point = Point("spsc.release");
/// SPSC producer, before its eviction CAS (`push_overwrite` on a full ring).
pub(crate) const SPSC_EVICT: Point = Point("spsc.evict");

/// MPMC push, holding a free slot, before writing it.
pub(crate) const MPMC_PUSH_CLAIMED: Point = Point("mpmc.push.claimed");
/// MPMC push, slot written, before publishing its index.
pub(crate) const MPMC_PUSH_WRITTEN: Point = Point("mpmc.push.written");
/// MPMC `push_overwrite`, holding a free slot, before writing it.
pub(crate) const MPMC_OVERWRITE_CLAIMED: Point = Point("mpmc.overwrite.claimed");
/// MPMC `push_overwrite`, its eviction announced, before it reads the
/// closed flag.
pub(crate) const MPMC_OVERWRITE_ANNOUNCED: Point = Point("mpmc.overwrite.announced");
/// MPMC `push_overwrite`, holding the evicted item's slot, before reading it.
pub(crate) const MPMC_OVERWRITE_EVICTED: Point = Point("mpmc.overwrite.evicted");
/// MPMC `push_overwrite`, slot rewritten, before publishing its index.
pub(crate) const MPMC_OVERWRITE_WRITTEN: Point = Point("mpmc.overwrite.written");
/// MPMC pop, holding an item's slot, before reading it.
pub(crate) const MPMC_POP_CLAIMED: Point = Point("mpmc.pop.claimed");
/// MPMC pop, item read, before freeing its slot.
pub(crate) const MPMC_POP_READ: Point = Point("mpmc.pop.read");
/// MPMC `push_burst`, holding a round's free slots, before writing them.
pub(crate) const MPMC_BURST_CLAIMED: Point = Point("mpmc.burst.claimed");
/// MPMC `push_burst`, a round's slots written, before publishing them.
pub(crate) const MPMC_BURST_WRITTEN: Point = Point("mpmc.burst.written");
/// MPMC `pop_burst`, holding a round's items, before reading them.
pub(crate) const MPMC_BURST_TAKEN: Point = Point("mpmc.burst.taken");
/// MPMC `pop_burst`, a round's items read, before freeing their slots.
pub(crate) const MPMC_BURST_READ: Point = Point("mpmc.burst.read");
/// The index rings' steps: `aq` (items) and `fq` (free slots); an
/// enqueuer after taking its position and after placing its index, a
/// dequeuer after taking its position (a burst dequeuer: its round's
/// positions) and after missing at it (a burst: at all of them).
pub(crate) const MPMC_AQ_ENQ_TICKET: Point = Point("mpmc.aq.enq.ticket");
pub(crate) const MPMC_AQ_ENQ_PLACED: Point = Point("mpmc.aq.enq.placed");
pub(crate) const MPMC_AQ_DEQ_TICKET: Point = Point("mpmc.aq.deq.ticket");
pub(crate) const MPMC_AQ_DEQ_MISSED: Point = Point("mpmc.aq.deq.missed");
/// `aq` dequeue that missed, found nothing beyond its position and loaded
/// `tail`, before it catches `tail` up and decrements `threshold`.
pub(crate) const MPMC_AQ_DEQ_DRY: Point = Point("mpmc.aq.deq.dry");
/// `aq` dequeue whose miss took `threshold` below zero, having found an
/// index waiting past `head`, before it sets `threshold` back.
pub(crate) const MPMC_AQ_DEQ_UNHIDE: Point = Point("mpmc.aq.deq.unhide");
pub(crate) const MPMC_FQ_ENQ_TICKET: Point = Point("mpmc.fq.enq.ticket");
pub(crate) const MPMC_FQ_ENQ_PLACED: Point = Point("mpmc.fq.enq.placed");
pub(crate) const MPMC_FQ_DEQ_TICKET: Point = Point("mpmc.fq.deq.ticket");
pub(crate) const MPMC_FQ_DEQ_MISSED: Point = Point("mpmc.fq.deq.missed");
/// `fq`'s [`MPMC_AQ_DEQ_DRY`].
pub(crate) const MPMC_FQ_DEQ_DRY: Point = Point("mpmc.fq.deq.dry");
/// `fq`'s [`MPMC_AQ_DEQ_UNHIDE`].
pub(crate) const MPMC_FQ_DEQ_UNHIDE: Point = Point("mpmc.fq.deq.unhide");
/// A burst dequeuer's own steps, on `aq` and on `fq`: after reading
/// `head` and `tail` (its round's size), before its fetch-and-add; and
/// after each position of its round, taken or passed.
pub(crate) const MPMC_AQ_DEQ_COUNTED: Point = Point("mpmc.aq.deq.counted");
pub(crate) const MPMC_AQ_DEQ_STEPPED: Point = Point("mpmc.aq.deq.stepped");
pub(crate) const MPMC_FQ_DEQ_COUNTED: Point = Point("mpmc.fq.deq.counted");
pub(crate) const MPMC_FQ_DEQ_STEPPED: Point = Point("mpmc.fq.deq.stepped");
/// The one-word free pool (`FreeMask`): a take (or a burst's) after
/// loading the word, before its CAS.
pub(crate) const MPMC_MASK_TAKE: Point = Point("mpmc.mask.take");
/// The bitmap free pool (`FreeBits`): a take (or a burst's) after
/// reserving its slots in the count, before claiming their bits.
pub(crate) const MPMC_BITS_RESERVED: Point = Point("mpmc.bits.reserved");
/// The bitmap free pool: a give after setting its bits, before adding
/// them to the count.
pub(crate) const MPMC_BITS_GIVEN: Point = Point("mpmc.bits.given");

/// `BurstRing` push (single, burst, bulk or write chunk): its run of
/// free positions checked, before the claim CAS.
pub(crate) const BURST_PUSH_CHECKED: Point = Point("burst.push.checked");
/// `BurstRing` push: positions claimed, before copying the items in.
pub(crate) const BURST_PUSH_CLAIMED: Point = Point("burst.push.claimed");
/// `BurstRing` push: items copied in, before flipping their published bits.
pub(crate) const BURST_PUSH_WRITTEN: Point = Point("burst.push.written");
/// `BurstRing` pop (single, burst, bulk or read chunk): its run of
/// published positions checked, before the claim CAS.
pub(crate) const BURST_POP_CHECKED: Point = Point("burst.pop.checked");
/// `BurstRing` pop: positions claimed, before copying the items out.
pub(crate) const BURST_POP_CLAIMED: Point = Point("burst.pop.claimed");
/// `BurstRing` pop: items copied out, before flipping their consumed bits.
pub(crate) const BURST_POP_READ: Point = Point("burst.pop.read");
/// `BurstRing::push_overwrite` on a full ring, or past a held slot: what it
/// will do decided, before the CAS of `prod` that claims the new position
/// with the evicting flag.
pub(crate) const BURST_EVICT_CHECKED: Point = Point("burst.evict.checked");
/// `BurstRing::push_overwrite`: the new position claimed under the flag,
/// before the CAS of `cons` that claims the oldest position.
pub(crate) const BURST_EVICT_HELD: Point = Point("burst.evict.held");
/// `BurstRing::push_overwrite`: both positions claimed, before the swap of
/// the items.
pub(crate) const BURST_EVICT_CLAIMED: Point = Point("burst.evict.claimed");
/// `BurstRing::push_overwrite`: the new item written, before flipping the
/// two bits.
pub(crate) const BURST_EVICT_WRITTEN: Point = Point("burst.evict.written");
/// `BurstRing::push_overwrite`: a position whose slot a pop holds marked
/// void under the flag, before the claim of the next position.
pub(crate) const BURST_VOID_MARKED: Point = Point("burst.void.marked");
/// `BurstRing`: a run of voids at the front counted, before the CAS of
/// `cons` that passes it.
pub(crate) const BURST_VOID_CHECKED: Point = Point("burst.void.checked");
/// `BurstRing`: a run of voids claimed in `cons` with the pass flag,
/// before their flips.
pub(crate) const BURST_VOID_CLAIMED: Point = Point("burst.void.claimed");
/// `BurstRing`: a run of voids flipped and `cons` moved past it (the pass
/// flag kept), before the clearing of their marks.
pub(crate) const BURST_VOID_PASSED: Point = Point("burst.void.passed");
/// An MPMC ring with watermarks (`BurstRing`, `Ring`): a level change's
/// reading of the count taken, before its CAS.
pub(crate) const MPMC_MARKS_READ: Point = Point("mpmc.marks.read");

/// Limiter admission, between loading the word and the counters.
pub(crate) const LIMIT_BETWEEN_LOADS: Point = Point("limit.admit.loaded");
/// Limiter admission, before its CAS.
pub(crate) const LIMIT_ADMIT: Point = Point("limit.admit.cas");
/// Limiter growth, before its CAS.
pub(crate) const LIMIT_GROW: Point = Point("limit.grow.cas");
/// Limiter decrease, before its CAS.
pub(crate) const LIMIT_CUT: Point = Point("limit.cut.cas");

/// A waiter of an MPMC ring or of the limiter (`wait::queue`'s poll): its
/// first try failed, before it takes the list's lock to link its node (or
/// to keep it linked).
#[cfg(all(feature = "async", sluicegate_cas))]
pub(crate) const WAIT_POLL_TRIED: Point = Point("wait.poll.tried");

/// A test's own code, between two operations (holding a peek guard,
/// say): where a schedule may suspend it as at any other point.
#[cfg(all(test, not(sluicegate_loom)))]
pub(crate) const TEST_BETWEEN: Point = Point("test.between");

/// Its one user, the wake-up tests of `mpmc`, needs the waits.
#[cfg(all(test, feature = "async", not(sluicegate_loom)))]
pub(crate) use harness::interleave_at;
#[cfg(all(test, not(sluicegate_loom)))]
pub(crate) use harness::{interleave, stop_at, stop_at_nth, Pct};

/// Test-only: a per-thread hook run at every point, and [`stop_at`].
#[cfg(all(test, not(sluicegate_loom)))]
mod harness {
    extern crate std;
    use super::Point;
    use core::cell::RefCell;
    use std::boxed::Box;
    use std::sync::mpsc;

    use crate::sync::splitmix::Rng;
    use std::vec::Vec;

    type Hook = Box<dyn FnMut(Point)>;

    std::thread_local! {
        static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
    }

    pub(crate) fn hit(point: Point) {
        // Take the hook out while it runs, so it may itself use the ring.
        let taken = HOOK.with(|h| h.borrow_mut().take());
        if let Some(mut f) = taken {
            f(point);
            HOOK.with(|h| {
                let mut slot = h.borrow_mut();
                if slot.is_none() {
                    *slot = Some(f);
                }
            });
        }
    }

    /// Runs `op` on a new thread until it first reaches `point`, keeps
    /// it stopped there while `during` runs on this thread (playing every
    /// other context), then lets it finish and returns its result.
    /// Panics if `op` finishes without reaching `point`.
    pub(crate) fn stop_at<R: Send>(
        point: Point,
        op: impl FnOnce() -> R + Send,
        during: impl FnOnce(),
    ) -> R {
        stop_at_nth(point, 1, op, during)
    }

    /// [`stop_at`], stopping at the `nth` time `op` reaches `point`
    /// (`nth >= 1`; a burst reaches some points once per item).
    pub(crate) fn stop_at_nth<R: Send>(
        point: Point,
        nth: usize,
        op: impl FnOnce() -> R + Send,
        during: impl FnOnce(),
    ) -> R {
        let (at_tx, at_rx) = mpsc::channel::<()>();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        std::thread::scope(|s| {
            // Owned here: if `during` panics, unwinding drops it before
            // the scope joins, so the stopped thread's `recv` fails and
            // it ends too, instead of both waiting for good.
            let go_tx = go_tx;
            let stopped = s.spawn(move || {
                let mut seen = 0;
                let hook: Hook = Box::new(move |hit| {
                    if hit != point {
                        return;
                    }
                    seen += 1;
                    if seen == nth {
                        at_tx.send(()).unwrap();
                        go_rx.recv().unwrap();
                    }
                });
                HOOK.with(|h| *h.borrow_mut() = Some(hook));
                let result = op();
                // Dropping the hook drops `at_tx`: an unreached point
                // shows up as a closed channel below.
                HOOK.with(|h| *h.borrow_mut() = None);
                result
            });
            if at_rx.recv().is_err() {
                panic!("the operation finished without reaching {point:?}");
            }
            during();
            go_tx.send(()).unwrap();
            stopped.join().unwrap()
        })
    }

    /// Runs each of `workers` on a thread of its own, one at a time.
    /// The running worker goes on until it reaches a pause point (any
    /// point) or finishes; then `pick` is given the unfinished workers'
    /// numbers (their places in `workers`, ascending) and the one that
    /// ran last, and returns the number of the worker to run next. So
    /// every pause point is a place where a worker may stay suspended
    /// for as long as the others run, and a run is replayed exactly by
    /// the same answers of `pick`. A worker's panic is re-raised once
    /// the others are done; a worker that runs for 10 s without
    /// reaching a point (a loop waiting for a suspended worker, which no
    /// lock-free operation has) aborts the process.
    pub(crate) fn interleave<'a>(
        workers: std::vec::Vec<Box<dyn FnOnce() + Send + 'a>>,
        mut pick: impl FnMut(&[usize], Option<usize>) -> usize,
    ) {
        interleave_at(workers, |live, last, _| pick(live, last));
    }

    /// [`interleave`] whose `pick` is also told where each worker stands:
    /// the pause point it is suspended at (`None` before its first).
    pub(crate) fn interleave_at<'a>(
        workers: std::vec::Vec<Box<dyn FnOnce() + Send + 'a>>,
        mut pick: impl FnMut(&[usize], Option<usize>, &[Option<Point>]) -> usize,
    ) {
        use core::time::Duration;
        use std::vec::Vec;
        std::thread::scope(|s| {
            let mut turns = Vec::new();
            for work in workers {
                let (go_tx, go_rx) = mpsc::channel::<()>();
                let (at_tx, at_rx) = mpsc::channel::<Point>();
                s.spawn(move || {
                    if go_rx.recv().is_err() {
                        return;
                    }
                    let hook: Hook = Box::new(move |point| {
                        at_tx.send(point).unwrap();
                        go_rx.recv().unwrap();
                    });
                    HOOK.with(|h| *h.borrow_mut() = Some(hook));
                    work();
                    // Dropping the hook drops `at_tx`: the scheduler
                    // sees the worker finish as a closed channel.
                    HOOK.with(|h| *h.borrow_mut() = None);
                });
                turns.push((go_tx, at_rx));
            }
            let mut live: Vec<usize> = (0..turns.len()).collect();
            let mut at_points: Vec<Option<Point>> = std::vec![None; turns.len()];
            let mut last = None;
            while !live.is_empty() {
                let next = pick(&live, last, &at_points);
                let (go, at) = &turns[next];
                let _ = go.send(());
                match at.recv_timeout(Duration::from_secs(10)) {
                    Ok(point) => at_points[next] = Some(point),
                    Err(mpsc::RecvTimeoutError::Disconnected) => live.retain(|&w| w != next),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        std::eprintln!("worker {next} ran 10 s without reaching a pause point");
                        std::process::abort();
                    }
                }
                last = Some(next);
            }
        });
    }

    /// PCT's scheduler (Burckhardt et al., ASPLOS 2010), a `pick` for
    /// [`interleave`]: each worker gets a random priority, the highest
    /// unfinished one runs, and at up to `depth` random steps the
    /// running worker drops below every other. A schedule needing `d`
    /// such changes turns up with probability about
    /// `1 / (workers × steps^(d-1))` per run, so a worker suspended for
    /// another's whole sequence is common, where a uniform choice at
    /// every step makes it rare.
    pub(crate) struct Pct {
        priority: Vec<usize>,
        changes: Vec<usize>,
        lowest: usize,
        step: usize,
    }

    impl Pct {
        /// A schedule for `workers` workers with up to `depth` changes,
        /// each at one of the first `steps` steps, drawn from `rng`.
        pub(crate) fn new(rng: &mut Rng, workers: usize, depth: u64, steps: u64) -> Self {
            // The smallest number is the highest priority.
            let mut priority: Vec<usize> = (0..workers).collect();
            for i in (1..workers).rev() {
                priority.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let changes = (0..rng.below(depth + 1))
                .map(|_| rng.below(steps) as usize)
                .collect();
            Self {
                priority,
                changes,
                lowest: workers,
                step: 0,
            }
        }

        /// [`interleave`]'s `pick`.
        pub(crate) fn pick(&mut self, live: &[usize], last: Option<usize>) -> usize {
            if let Some(w) = last {
                if self.changes.contains(&self.step) {
                    self.lowest += 1;
                    self.priority[w] = self.lowest;
                }
            }
            self.step += 1;
            *live.iter().min_by_key(|&&w| self.priority[w]).unwrap()
        }
    }
}
