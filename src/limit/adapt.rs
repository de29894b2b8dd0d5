//! The adaptation both laws share: the queue-free baseline, the slow
//! threshold, the probe, and the moves of the limit (a cut, a raise, the
//! end of a probe), each one CAS on the admission word that gives up once
//! the epoch moved on. What it asks of the law in use is [`Control`].

use super::word::*;
use super::{
    Limiter, Priority, CHECK_AFTER, FRESH_EVERY, GREW, ONE, PROBE_AFTER, PROBE_SAMPLES, RISEN,
    RISE_OLD, RISE_SHARE, SHIFT_RUN, TICK, WALK, YOUNG, YOUNG_PROBE_AFTER,
};
use crate::sync::{pause, pause_point, Ordering};

/// A control law: what it does with a permit's outcome, and how its window
/// (its own words of `Track::law`) follows the baseline and the moves of the
/// limit that the shared code makes. Implemented by `aimd::Aimd` and
/// `gradient::Gradient`; `Limiter::adapt` picks one.
pub(super) trait Control {
    /// The estimate the slow threshold is measured from: the queue-free
    /// `median` or `mean` (both 1/16 tick).
    fn base(median: usize, mean: usize) -> usize;
    /// A success of latency `x` (1/16 tick) of a permit of weight `w`,
    /// which brought the success count to `n` (after the baseline learnt
    /// from it if it was queue-free): one sample, `w` successes.
    fn success(l: &Limiter, at_admission: usize, priority: Priority, x: usize, n: usize, w: usize);
    /// A drop of a permit of weight `w`: overload.
    fn dropped(l: &Limiter, at_admission: usize, w: usize);
    /// The limit moved to `limit` in a new epoch, by a cut (`cut`) or the
    /// end of a probe: a new window starts at success count `start`.
    fn restart(l: &Limiter, start: usize, limit: usize, cut: bool);
    /// A probe started (after its cut's `restart`).
    fn probing(l: &Limiter);
    /// A young baseline grew up, at the `n`th success, while a probe was on.
    fn grown_up(l: &Limiter, n: usize);
}

/// What the shared code hands the law in use (`Limiter::adapt`).
pub(super) enum Event {
    /// A permit's success: latency `x` (1/16 tick), weight `w`, the success
    /// count `n` after its release.
    Success {
        at_admission: usize,
        priority: Priority,
        x: usize,
        n: usize,
        w: usize,
    },
    /// A permit's drop, of weight `w`.
    Dropped { at_admission: usize, w: usize },
    /// The baseline moved (queue-free median and mean, 1/16 tick): the slow
    /// threshold follows.
    Learnt { median: usize, mean: usize },
    /// A young baseline grew up, at the `n`th success, while a probe was on.
    GrownUp { n: usize },
}

impl Limiter {
    /// Hands `event` to the law `C`.
    #[inline(always)]
    pub(super) fn adapt_with<C: Control>(&self, event: Event) {
        match event {
            Event::Success {
                at_admission,
                priority,
                x,
                n,
                w,
            } => C::success(self, at_admission, priority, x, n, w),
            Event::Dropped { at_admission, w } => {
                // `resume` is 0 but during a probe: no call otherwise.
                let probing = self.track.resume.load(Ordering::Relaxed) != 0;
                if !(probing && self.probe_failed::<C>(at_admission)) {
                    C::dropped(self, at_admission, w);
                }
            }
            Event::Learnt { median, mean } => {
                let above = self.target(C::base(median, mean), mean);
                // Saturated to fit a 32-bit word (a latency that long is slow
                // whatever the baseline).
                self.track
                    .slow_above
                    .store(above.min(usize::MAX as u64) as usize, Ordering::Relaxed);
            }
            Event::GrownUp { n } => C::grown_up(self, n),
        }
    }

    /// Teaches the baseline one queue-free sample `x` (1/16 tick), the `n`th
    /// success. Relaxed loads and stores: a racing update is a lost step.
    #[inline]
    pub(super) fn learn(&self, x: usize, n: usize) {
        let t = &*self.track;
        let old_m = t.baseline.load(Ordering::Relaxed);
        let old_mean = t.mean.load(Ordering::Relaxed);
        let seen = t.free_seen.load(Ordering::Relaxed);
        let (m, mean) = if seen < YOUNG {
            // A young baseline: the running mean of the samples so far (both
            // estimates), so a few early samples are not taken as the truth.
            // `seen` is 0 only before the first sample (then `old_m` is 0
            // and the result is `x`). Terms < 2^32 · 16 · YOUNG: u64.
            let k = seen as u64;
            let m = ((old_m as u64 * k + x as u64) / (k + 1)) as usize;
            t.free_seen.store(seen + 1, Ordering::Relaxed);
            if seen >= 2 {
                self.young_run(n, x, old_m, m.max(TICK));
            }
            if seen + 1 == YOUNG {
                // A rise found while young keeps the level it rose from.
                if self.rise.risen_to.load(Ordering::Relaxed) == 0 {
                    self.rise.settled.store(m.max(TICK), Ordering::Relaxed);
                }
                if t.resume.load(Ordering::Relaxed) != 0 {
                    // A young baseline's probe lasts until it has grown up
                    // (`probe_samples`): this success ends its window.
                    self.adapt(Event::GrownUp { n });
                } else {
                    // Learnt from its first samples, which may all have
                    // been slow (a cold cache): to be checked. Not a level
                    // whose end the probes after it should watch for: a
                    // cache that warmed stays warm.
                    self.rose(n, 0);
                }
            }
            (m.max(TICK), m.max(TICK))
        } else {
            // Robbins–Monro step toward the median: ±1/32 of the estimate,
            // never past the sample. A run of `SHIFT_RUN` samples in a row
            // on one side (samples equal to it neither end nor extend a
            // run) is taken as a level shift: both estimates jump to the
            // sample of the run nearest to them (a bound the run shows), so
            // a slower or faster dependency is followed in a few samples
            // while a noisy steady one, whose runs are short, keeps the
            // small step. Both stay between samples seen (in range). When
            // the sample equals the estimate nothing but the mean moves, so
            // a steady latency costs no more than before.
            let m = old_m;
            // mean · 15/16 + x/16 without a 64-bit multiply (thumbv6m has
            // none); between the two, so in range.
            let ema = old_mean - (old_mean >> 4) + (x >> 4);
            let (m, mean) = if x == m {
                // Neither side: the run goes on.
                (m, ema)
            } else {
                let above = x > m;
                let old_run = t.run.load(Ordering::Relaxed) as isize;
                let run = if above {
                    old_run.max(0) + 1
                } else {
                    old_run.min(0) - 1
                };
                // The sample of the run nearest to the estimate, but not on
                // the estimate's other side: its steps may pass an earlier
                // sample of the run, and a racing learner of the other side
                // may have written its own (then the bound is the estimate
                // itself, and a shift moves nothing: a lost step).
                let near = if run.unsigned_abs() == 1 {
                    x
                } else if above {
                    t.run_near.load(Ordering::Relaxed).min(x).max(m)
                } else {
                    t.run_near.load(Ordering::Relaxed).max(x).min(m)
                };
                if run.unsigned_abs() >= SHIFT_RUN {
                    t.run.store(0, Ordering::Relaxed);
                    // A rise is checked: a stall can make a run of slow
                    // samples, and under closed-loop load no queue-free
                    // sample may come to undo it. Only a jump of more than
                    // a sixteenth past the run's steps is a rise (a 1.2×
                    // slower dependency or more): a run of a steady
                    // service's noise (a probe's eight samples make such
                    // runs) has been stepped nearly all the way.
                    if above && near - m > m >> 4 {
                        self.rose(n, near);
                    }
                    let mean = if above {
                        old_mean.max(near)
                    } else {
                        old_mean.min(near)
                    };
                    (near, mean)
                } else {
                    t.run.store(run as usize, Ordering::Relaxed);
                    t.run_near.store(near, Ordering::Relaxed);
                    let step = (m >> 5).max(1);
                    let m = if above {
                        m + step.min(x - m)
                    } else {
                        m - step.min(m - x)
                    };
                    (m, ema)
                }
            };
            (m, mean.max(TICK))
        };
        // Written only when they change, so a steady latency writes nothing
        // (the line stays shared between the cores that read it).
        if m != old_m || mean != old_mean {
            t.baseline.store(m, Ordering::Relaxed);
            t.mean.store(mean, Ordering::Relaxed);
            self.adapt(Event::Learnt { median: m, mean });
            let s = self.rise.settled.load(Ordering::Relaxed);
            if seen >= YOUNG && (m < s || m - s > s / WALK) {
                self.walked(n, m, s);
            }
        }
        if seen < YOUNG {
            t.last_free.store(n, Ordering::Relaxed);
        } else {
            self.fresh(n);
        }
    }

    /// A young baseline's queue-free sample `x`, the `n`th success, which
    /// moved its running mean from `m` (of two samples or more: with a
    /// heavy-tailed service one short first sample is no level to rise
    /// from) to `to`. A run of `SHIFT_RUN` samples in a row, each more than
    /// half above the mean where the run started, is a level shift learnt
    /// while young: a slowdown that cut the limit to its floor before the
    /// baseline had grown up. (A young estimate has few samples, so only a
    /// clear step counts: a quarter made false rises with exponential
    /// service times. And its mean soon takes the run in, so the run is
    /// measured from where it started.) Once such a slowdown ends nothing
    /// looks slow; so the baseline rose, from the mean where the run
    /// started to the mean it reached, to be checked and judged as a
    /// grown-up baseline's rise is, and the probes that watch for a held
    /// rise's end watch for this one. Unlike a grown-up baseline's, a rise
    /// a young probe's own samples show is a candidate, judged when that
    /// probe ends: a slowdown that makes the limit bind can bring the young
    /// probe, which then lasts until the baseline has grown up at the
    /// slower level. Nothing else moves: a young baseline too high is
    /// checked when it grows up. While the baseline is young `run` counts
    /// only such runs and `run_near` keeps where the run started (a run
    /// left when it grows up counts toward the grown-up estimate's first: a
    /// shift a few samples early at most, and the nearest sample that shift
    /// reads is held to the estimate's side). Relaxed, as the rest of
    /// `learn`: a racing sample is a lost step of the run.
    #[cold]
    #[inline(never)]
    fn young_run(&self, n: usize, x: usize, m: usize, to: usize) {
        let t = &*self.track;
        let run = t.run.load(Ordering::Relaxed);
        let from = if run == 0 {
            m
        } else {
            t.run_near.load(Ordering::Relaxed)
        };
        // Saturating: a latency near `MAX_TICKS` fills a 32-bit word.
        if x <= from.saturating_add(from / 2) {
            t.run.store(0, Ordering::Relaxed);
        } else if run + 1 < SHIFT_RUN {
            t.run.store(run + 1, Ordering::Relaxed);
            t.run_near.store(from, Ordering::Relaxed);
        } else {
            t.run.store(0, Ordering::Relaxed);
            if self.rise.risen_to.load(Ordering::Relaxed) == 0 {
                self.rise.settled.store(from, Ordering::Relaxed);
            }
            if t.resume.load(Ordering::Relaxed) == 0 {
                self.rose(n, to);
            } else {
                // In a probe, which lasts until the baseline has grown up
                // and whose end judges the rise: a candidate, not a check.
                t.risen_at.store(n, Ordering::Relaxed);
                self.raise_candidate(to);
            }
        }
    }

    /// The baseline rose at the `n`th success, to `to` (1/16 tick): it is
    /// to be checked. Against a racing probe's swap a rise is either taken
    /// by that probe, whose samples come after it, or left for the next
    /// check, never cleared unchecked. (A CAS, not a store: both are right,
    /// but loom 0.7 lets a store fall between the read and the write of a
    /// racing swap, tokio-rs/loom#254, and its loom model would report
    /// that.)
    ///
    /// A rise outside a probe is also a candidate level, to be judged held
    /// or undone (`judge_rise`): it rose from the settled level, which
    /// stays until the judgement, to the highest level it brought before
    /// then. `to` 0 is none (a young baseline grown up). A rise that a
    /// probe's own samples show is not a candidate: with a heavy-tailed
    /// service a probe's eight samples often make such a run.
    #[cold]
    pub(super) fn rose(&self, n: usize, to: usize) {
        let t = &*self.track;
        t.risen_at.store(n, Ordering::Relaxed);
        if to != 0 && t.resume.load(Ordering::Relaxed) == 0 {
            self.raise_candidate(to);
        }
        let _ = t
            .risen
            .compare_exchange(0, RISEN, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The candidate rise reaches `to`.
    #[inline]
    fn raise_candidate(&self, to: usize) {
        let top = self.rise.risen_to.load(Ordering::Relaxed).max(to);
        self.rise.risen_to.store(top, Ordering::Relaxed);
    }

    /// The grown-up baseline moved to `m` at the `n`th success, outside
    /// its settled level `s` by more than `1 / WALK` above or anywhere
    /// below. Below, `m` is the new settled level. Above, outside a probe,
    /// it rose (`rose`), or the candidate rise already made goes on to `m`:
    /// a dependency that slows while queue-free samples keep coming (the
    /// limit cut low under load) moves the baseline up in steps of a
    /// thirty-second, never in the jump a level shift takes to count as a
    /// rise. A probe's eight samples walk no rise: with a heavy-tailed
    /// service they swing the baseline by more than a quarter.
    #[cold]
    fn walked(&self, n: usize, m: usize, s: usize) {
        if m < s {
            self.rise.settled.store(m, Ordering::Relaxed);
        } else if self.track.resume.load(Ordering::Relaxed) == 0 {
            if self.rise.risen_to.load(Ordering::Relaxed) == 0 {
                self.rose(n, m);
            } else {
                self.raise_candidate(m);
            }
        }
    }

    /// The candidate rise is judged: held if the baseline is still at
    /// least halfway from the settled level it rose from to the highest it
    /// brought, undone otherwise; either way the baseline is the settled
    /// level from then on. A held rise's success count and the limit then
    /// in force are kept (`stale`). Called where fresh samples have judged
    /// it: queue-free samples kept coming after it (`confirm`), or the
    /// probe that checked it ended.
    #[cold]
    fn judge_rise(&self) {
        let (t, r) = (&*self.track, &self.rise);
        let from = r.settled.load(Ordering::Relaxed);
        let to = r.risen_to.swap(0, Ordering::Relaxed);
        let m = t.baseline.load(Ordering::Relaxed);
        if to != 0 && m >= from / 2 + to / 2 {
            r.held_at
                .store(t.risen_at.load(Ordering::Relaxed), Ordering::Relaxed);
            let limit = limit_of(self.hot.state.load(Ordering::Relaxed));
            r.held_limit.store(limit, Ordering::Relaxed);
        }
        r.settled.store(m, Ordering::Relaxed);
    }

    /// Records that the `n`th success was queue-free, for a grown-up
    /// baseline: staleness is judged at `CHECK_AFTER` or `PROBE_AFTER`
    /// successes, and `FRESH_EVERY` is precision enough (one store in that
    /// many successes at most).
    #[inline(always)]
    pub(super) fn fresh(&self, n: usize) {
        let last_free = &self.track.last_free;
        if n.wrapping_sub(last_free.load(Ordering::Relaxed)) >= FRESH_EVERY {
            last_free.store(n, Ordering::Relaxed);
            self.confirm(n);
        }
    }

    /// A queue-free sample, the `n`th success, `CHECK_AFTER` successes (to
    /// `FRESH_EVERY`) after the baseline rose: queue-free samples kept
    /// coming, and had the rise been a stall's they would have undone it.
    /// Confirmed: no check is due.
    #[cold]
    fn confirm(&self, n: usize) {
        let t = &*self.track;
        if t.risen.load(Ordering::Relaxed) == RISEN
            && n.wrapping_sub(t.risen_at.load(Ordering::Relaxed)) > CHECK_AFTER
            && t.risen
                .compare_exchange(RISEN, 0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.judge_rise();
        }
    }

    /// The latency above which a sample is slow, for a baseline `base` and
    /// a mean `mean` (both 1/16 tick, non-zero): the largest of `base +
    /// (tolerance − 1) × mean` (the queueing accepted scales with the mean
    /// service time), `base + 1 tick` and the floor.
    #[inline]
    pub(super) fn target(&self, base: usize, mean: usize) -> u64 {
        let queueing = (mean as u64 * (self.tolerance - ONE as usize) as u64) >> 8;
        (base as u64 + queueing.max(TICK as u64)).max(self.floor as u64)
    }

    /// Whether the permit was admitted with less than half of its class's
    /// threshold (of the limit then) in use: an application-limited caller,
    /// whose success says nothing about room for more.
    #[inline(always)]
    pub(super) fn app_limited(
        &self,
        at_admission: usize,
        priority: Priority,
        limit: usize,
    ) -> bool {
        in_flight_of(at_admission) * 2 < threshold(limit, self.shares[priority as usize])
    }

    /// Whether no queue-free success came in the last `PROBE_AFTER`
    /// successes (up to the `n`th), or in fewer after a held rise
    /// (`judge_rise`) while the limit grew past where it was then
    /// (`limit_grew`): `1 / RISE_SHARE` of the successes since that rise, at
    /// least `CHECK_AFTER`, until the rise is `RISE_OLD`. A rise that held
    /// (the dependency did slow down) may be undone later (it recovered),
    /// and when load leaves no queue-free sample only a probe shows that:
    /// the end of a slowdown is seen within about an eighth of its length
    /// (in successes). (The age wraps after 2^32 successes on 32-bit
    /// targets: a rise that old is then taken for a young one for a while,
    /// which costs probes, never a wrong limit.)
    #[inline]
    pub(super) fn stale(&self, n: usize) -> bool {
        let t = &*self.track;
        let after = if t.free_seen.load(Ordering::Relaxed) < YOUNG {
            YOUNG_PROBE_AFTER
        } else {
            // The age first: it is old but for a while after a held rise,
            // and the admission word `limit_grew` loads is contended.
            let age = n.wrapping_sub(self.rise.held_at.load(Ordering::Relaxed));
            if age < RISE_OLD && self.limit_grew() {
                (age / RISE_SHARE).clamp(CHECK_AFTER, PROBE_AFTER)
            } else {
                PROBE_AFTER
            }
        };
        n.wrapping_sub(t.last_free.load(Ordering::Relaxed)) > after
    }

    /// Whether the limit is more than `1 / GREW` above the limit in force
    /// when the latest rise was found held: what a baseline left high by a
    /// slowdown that ended shows (nothing looks slow, so the limit grows),
    /// and what a slower level that stays does not.
    #[inline]
    fn limit_grew(&self) -> bool {
        let held = self.rise.held_limit.load(Ordering::Relaxed);
        limit_of(self.hot.state.load(Ordering::Relaxed)) > held + held / GREW
    }

    /// Whether a window closed by the `n`th success probes: when no
    /// queue-free success came in the last `PROBE_AFTER` successes (fewer
    /// after a held rise: `stale`) and the limit binds (otherwise
    /// queue-free samples will come by themselves, unless the clients keep
    /// every permit taken), or in the last `CHECK_AFTER` after the baseline
    /// rose, binding or not: the rise may have been a stall, and then only
    /// fresh samples undo it.
    #[inline]
    pub(super) fn probe_due(&self, n: usize) -> bool {
        let t = &*self.track;
        let risen = t.risen.load(Ordering::Relaxed) == RISEN
            && n.wrapping_sub(t.last_free.load(Ordering::Relaxed)) > CHECK_AFTER;
        risen || (self.stale(n) && self.binds())
    }

    /// Whether the limit refused work since this was last asked or since
    /// the last probe ended (refusals at a probe's floor say nothing of the
    /// limit it restores): a probe is worth its sheds only then. For a
    /// grown-up baseline any refusal for want of room counts, a lower
    /// class's at its share included (with the clients all `Normal`, the
    /// whole limit is never in use); for a young one, whose probe comes
    /// after only `YOUNG_PROBE_AFTER` successes, only one with the whole
    /// limit in use (a refusal at a share is the classes at work, and an
    /// early probe at each costs more than a young baseline is worth:
    /// requests queued in front of the limiter answer late while the limit
    /// is down).
    #[cold]
    pub(super) fn binds(&self) -> bool {
        // Relaxed: a refusal seen late or early brings or spares one probe,
        // never a wrong limit (that changes only by a CAS on the admission
        // word).
        let cold = &*self.cold;
        let now = cold.at_limit.get();
        let whole = now != cold.at_limit_seen.swap(now, Ordering::Relaxed);
        let now = cold.at_share.get();
        let share = now != cold.at_share_seen.swap(now, Ordering::Relaxed);
        whole || (share && self.track.free_seen.load(Ordering::Relaxed) >= YOUNG)
    }

    /// Successes a probe's window lasts: `PROBE_SAMPLES`; for a young
    /// baseline, until it has grown up (the
    /// window is then `YOUNG` long until the sample that makes it `YOUNG`,
    /// then `PROBE_SAMPLES`, which has passed).
    #[cold]
    pub(super) fn probe_samples(&self) -> usize {
        let t = &*self.track;
        if t.free_seen.load(Ordering::Relaxed) < YOUNG {
            YOUNG
        } else {
            PROBE_SAMPLES
        }
    }

    /// Probes: cuts the limit to `min_limit` in a new epoch so that
    /// queue-free samples arrive again. Returns whether it took a rise to
    /// check (one after its swap is left for the next check).
    pub(super) fn probe<C: Control>(&self, epoch: usize, n: usize, limit: usize) -> bool {
        // The next probe no sooner than `PROBE_AFTER` successes from now,
        // unless the baseline rises again.
        let t = &*self.track;
        t.last_free.store(n, Ordering::Relaxed);
        let checks = t.risen.swap(0, Ordering::Relaxed) == RISEN;
        if self.cut::<C>(epoch, Some(self.min_limit)) {
            self.cold.probes.add(1);
            // After `probe_samples()` successes of the probe's epoch, back to
            // the old limit.
            t.resume.store(limit, Ordering::Relaxed);
            C::probing(self);
        }
        checks
    }

    /// Sets the limit to `to` in a new epoch, or (`None`) cuts it by
    /// `backoff`, at most once per epoch: only a permit admitted in the
    /// current epoch can cut, and the cut starts a new one. Returns whether
    /// this call cut.
    pub(super) fn cut<C: Control>(&self, epoch: usize, to: Option<usize>) -> bool {
        let mut cur = self.hot.state.load(Ordering::Relaxed);
        let lower = loop {
            if epoch_of(cur) != epoch {
                return false; // admitted before the last change
            }
            let limit = limit_of(cur);
            let lower = match to {
                Some(l) => l,
                None => (limit * self.backoff) >> 8,
            }
            .max(self.min_limit);
            if lower >= limit {
                return false; // already at the floor
            }
            let next = pack(admitted_of(cur), lower, epoch + 1);
            pause_point(pause::LIMIT_CUT);
            // Relaxed: the word's own modification order is all that matters
            // (an RMW continues the admissions' release sequence).
            match self.hot.state.compare_exchange_weak(
                cur,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => break lower,
                Err(w) => cur = w,
            }
        };
        self.cold.decreases.add(1);
        self.track.resume.store(0, Ordering::Relaxed);
        // The next window starts `in_flight` successes from now: the permits
        // still in flight are all from the old epoch, and their successes
        // must not count under the new limit. (If some of them end
        // otherwise, as many successes of the new epoch are skipped instead:
        // a window is delayed by at most `in_flight` successes.)
        let (_, [succeeded, _, _], in_flight) = self.snapshot();
        C::restart(self, succeeded.wrapping_add(in_flight), lower, true);
        true
    }

    /// A drop of a permit admitted at `at_admission`: if it is of a probe
    /// in progress, the probe ends at once, back to the limit it started
    /// from (returns whether it did). At `min_limit` a drop is no
    /// queue-free sample, and the probe may be what caused it: requests
    /// that waited in a queue in front of the limiter while the limit was
    /// down answer late. A probe that waited for successes would then
    /// never end, with every answer late and the limit at its floor.
    #[cold]
    fn probe_failed<C: Control>(&self, at_admission: usize) -> bool {
        // Relaxed, both: `resume` (through `raise`) ends the probe with a CAS
        // on the admission word that fails unless the epoch is still the
        // probe's, so a stale read here costs nothing but that CAS.
        let resume = self.track.resume.load(Ordering::Relaxed);
        let now = self.hot.state.load(Ordering::Relaxed);
        let epoch = epoch_of(at_admission);
        if epoch_of(now) != epoch || resume <= limit_of(now) {
            return false;
        }
        self.resume::<C>(epoch, resume, false);
        true
    }

    /// Ends a probe of epoch `epoch`: back to the limit `to` it started from.
    /// With `judged`, the probe's samples judge the latest candidate rise
    /// (`judge_rise`); a probe a drop ended has not sampled enough.
    pub(super) fn resume<C: Control>(&self, epoch: usize, to: usize, judged: bool) {
        if self.raise(epoch, to, true) {
            self.track.resume.store(0, Ordering::Relaxed);
            // Refusals at the probe's floor say nothing of whether the limit
            // it ends with binds. Relaxed: as in `binds`.
            let cold = &*self.cold;
            cold.at_limit_seen
                .store(cold.at_limit.get(), Ordering::Relaxed);
            cold.at_share_seen
                .store(cold.at_share.get(), Ordering::Relaxed);
            if judged {
                self.judge_rise();
            }
            let (_, [succeeded, _, _], in_flight) = self.snapshot();
            C::restart(self, succeeded.wrapping_add(in_flight), to, false);
        }
    }

    /// Sets the limit from `limit` to `to` (`to` > `limit`, ≤ `max_limit`) if
    /// the epoch is still `epoch`; a new epoch starts when `new_epoch`.
    /// Returns whether it did.
    pub(super) fn raise(&self, epoch: usize, to: usize, new_epoch: bool) -> bool {
        let mut cur = self.hot.state.load(Ordering::Relaxed);
        loop {
            let limit = limit_of(cur);
            if epoch_of(cur) != epoch || limit >= to {
                return false;
            }
            let e = if new_epoch { epoch + 1 } else { epoch };
            pause_point(pause::LIMIT_GROW);
            // Relaxed: as in `cut`.
            match self.hot.state.compare_exchange_weak(
                cur,
                pack(admitted_of(cur), to, e),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.cold.increases.add(1);
                    // The new units, as a release's (`src/limit/wait.rs`).
                    #[cfg(feature = "async")]
                    self.wake_waiters(to - limit);
                    return true;
                }
                Err(w) => cur = w,
            }
        }
    }
}
