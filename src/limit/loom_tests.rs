//! loom models of the limiter's admission word. Run with `ci/loom.sh limit`, or
//! `RUSTFLAGS="--cfg sluicegate_loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --lib -- limit::loom_tests::`.

use super::{Law, Limiter, LimiterConfig, Permit, Priority, SHIFT_RUN};
use crate::sync::explores;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use std::boxed::Box;
use std::vec::Vec;

/// The AIMD law (no reserve).
fn config(min: u32, initial: u32, max: u32) -> LimiterConfig {
    LimiterConfig {
        min_limit: min,
        initial_limit: initial,
        max_limit: max,
        // Halve on overload, so small models show a cut.
        backoff: 128,
        background_reserve: 0,
        ..LimiterConfig::DEFAULT
    }
}

/// The gradient law (before the first queue-free sample a drop cuts at
/// once).
fn gradient(min: u32, initial: u32, max: u32) -> LimiterConfig {
    LimiterConfig {
        law: Law::Gradient,
        // 1.25: round numbers in the tests.
        tolerance: 320,
        ..config(min, initial, max)
    }
}

/// A limiter for one model iteration, shared as `&'static` so permits can move
/// between threads (a few hundred bytes leaked per iteration).
fn leak(config: LimiterConfig) -> &'static Limiter {
    Box::leak(Box::new(Limiter::try_new(config).unwrap()))
}

/// Three contexts race to acquire under a limit of 2: never three holders,
/// and every permit comes back.
#[test]
fn loom_limit_concurrent_acquire_never_exceeds_limit() {
    explores::model(|| {
        let limiter = leak(config(2, 2, 2));
        let holders = Arc::new(AtomicUsize::new(0));
        let admitted = Arc::new(AtomicUsize::new(0));
        let work = move |holders: Arc<AtomicUsize>, admitted: Arc<AtomicUsize>, ok: bool| {
            if let Some(p) = limiter.try_acquire() {
                admitted.fetch_add(1, Ordering::Relaxed);
                let h = holders.fetch_add(1, Ordering::SeqCst) + 1;
                assert!(h <= 2, "{h} holders under a limit of 2");
                assert!(p.in_flight_at_admission() <= 2);
                holders.fetch_sub(1, Ordering::SeqCst);
                if ok {
                    p.success(5);
                }
            }
        };
        let ts: Vec<_> = (0..2)
            .map(|i| {
                let (h, a) = (holders.clone(), admitted.clone());
                thread::spawn(move || work(h, a, i == 0))
            })
            .collect();
        work(holders.clone(), admitted.clone(), false);
        for t in ts {
            t.join().unwrap();
        }
        assert_eq!(limiter.in_flight(), 0);
        let s = limiter.stats();
        let n = admitted.load(Ordering::Relaxed);
        assert!(
            n >= 2,
            "with a limit of 2, at most one of three can be shed"
        );
        assert_eq!(s.admitted, n);
        assert_eq!(s.shed[0], 3 - n);
    });
}

/// A cut (2 → 1) races two admissions while another permit is held. An
/// admission is judged against the limit in its own word: holders never
/// exceed 2, anything admitted was admitted under the limit of 2 (with
/// `held` out, in flight is ≥ 2 after it), and the cut happens exactly once.
#[test]
fn loom_limit_decrease_racing_acquisitions() {
    explores::model(|| {
        let limiter = leak(gradient(1, 2, 2));
        let held = limiter.try_acquire().unwrap();
        let dropper = limiter.try_acquire().unwrap();
        // Holders as the test sees them: `held` and `dropper`.
        let holders = Arc::new(AtomicUsize::new(2));
        let h = holders.clone();
        let t = thread::spawn(move || {
            h.fetch_sub(1, Ordering::SeqCst);
            dropper.dropped();
        });
        let attempt = move |holders: Arc<AtomicUsize>| {
            limiter.try_acquire().map(|p| {
                let now = holders.fetch_add(1, Ordering::SeqCst) + 1;
                assert!(now <= 2, "{now} holders, limit never above 2");
                assert_eq!(p.limit_at_admission(), 2);
                assert_eq!(p.in_flight_at_admission(), 2);
                holders.fetch_sub(1, Ordering::SeqCst);
                p.ignore();
            })
        };
        let h = holders.clone();
        let t2 = thread::spawn(move || attempt(h).is_some());
        let mine = attempt(holders.clone()).is_some();
        t.join().unwrap();
        let theirs = t2.join().unwrap();
        assert_eq!(limiter.limit(), 1);
        let s = limiter.stats();
        assert_eq!(s.decreases, 1);
        assert_eq!(s.admitted, 2 + usize::from(mine) + usize::from(theirs));
        assert_eq!(limiter.in_flight(), 1);
        // Now in flight 1 = limit 1: nothing more is admitted.
        assert!(limiter.try_acquire().is_none());
        drop(held);
        assert_eq!(limiter.in_flight(), 0);
    });
}

/// Three permits from one epoch report overload concurrently (the gradient
/// law cuts on each drop): the limit is cut once (4 → 2), not three times.
#[test]
fn loom_limit_one_decrease_per_window_under_concurrent_drops() {
    explores::model(|| {
        let limiter = leak(gradient(1, 4, 4));
        let a = limiter.try_acquire().unwrap();
        let b = limiter.try_acquire().unwrap();
        let c = limiter.try_acquire().unwrap();
        let ta = thread::spawn(move || a.dropped());
        let tb = thread::spawn(move || b.dropped());
        c.dropped();
        ta.join().unwrap();
        tb.join().unwrap();
        assert_eq!(limiter.limit(), 2);
        let s = limiter.stats();
        assert_eq!(s.decreases, 1);
        assert_eq!(s.dropped, 3);
        assert_eq!(limiter.in_flight(), 0);
    });
}

/// AIMD: 8 drops of one epoch counted (one short of the majority of a
/// window of 16), then two more race: both pass the majority, the epoch
/// check lets one cut (20 → 10).
#[test]
fn loom_limit_aimd_majority_reached_by_two_cuts_once() {
    explores::model(|| {
        let limiter = leak(config(1, 20, 20));
        for _ in 0..8 {
            limiter.try_acquire().unwrap().dropped();
        }
        assert_eq!(limiter.limit(), 20);
        let a = limiter.try_acquire().unwrap();
        let b = limiter.try_acquire().unwrap();
        let t = thread::spawn(move || a.dropped());
        b.dropped();
        t.join().unwrap();
        assert_eq!(limiter.limit(), 10);
        let s = limiter.stats();
        assert_eq!((s.decreases, s.dropped, s.in_flight), (1, 10, 0));
    });
}

/// AIMD: two successes race to close a window of 16 (15 already counted,
/// each beside a held permit so none is application-limited): both pass the
/// window's end, and the CAS on its close lets exactly one judge it and grow
/// the limit (4 → 5). With 14 counted only one of them would reach the end
/// and there would be no race (4 iterations, against 53 with 15); with 15, a
/// close made of a load and a store fails the model.
#[test]
fn loom_limit_one_increase_per_window_under_concurrent_successes() {
    explores::model(|| {
        let limiter = leak(config(1, 4, 8));
        let anchor = limiter.try_acquire().unwrap();
        for _ in 0..15 {
            limiter.try_acquire().unwrap().success(10);
        }
        let a = limiter.try_acquire().unwrap();
        let b = limiter.try_acquire().unwrap();
        let t = thread::spawn(move || a.success(10));
        b.success(10);
        t.join().unwrap();
        assert_eq!(limiter.limit(), 5);
        let s = limiter.stats();
        assert_eq!((s.increases, s.decreases), (1, 0));
        drop(anchor);
        assert_eq!(limiter.in_flight(), 0);
        // Every sample was queued (2 or 3 in flight over min_limit 1).
        assert_eq!(limiter.baseline(), None);
    });
}

/// A gradient limiter at 4 whose window of 16 has 15 successes of 10
/// ticks counted, the first queue-free (a mean of 10), and the permit held
/// since, which keeps every later sample queued.
fn gradient_window_at_15() -> (&'static Limiter, Permit<'static>) {
    let limiter = leak(gradient(1, 4, 8));
    limiter.try_acquire().unwrap().success(10);
    let anchor = limiter.try_acquire().unwrap();
    for _ in 0..14 {
        limiter.try_acquire().unwrap().success(10);
    }
    (limiter, anchor)
}

/// Gradient: two successes race past the end of a window of 16 (15 counted
/// after the first, queue-free one gave a mean): whichever CASes the counted
/// window word to 0 closes it, once; at the mean, ×1.25 (4 → 5) in a new
/// epoch. Two guards stand behind "once": the CAS, and the epoch, which
/// fails a second closer's scale (the model still passes with the CAS made a
/// store; 38 iterations, against 11 when only one success reached the end).
#[test]
fn loom_limit_gradient_one_scale_per_window() {
    explores::model(|| {
        let (limiter, anchor) = gradient_window_at_15();
        let a = limiter.try_acquire().unwrap();
        let b = limiter.try_acquire().unwrap();
        let t = thread::spawn(move || a.success(10));
        b.success(10);
        t.join().unwrap();
        assert_eq!(limiter.limit(), 5);
        let s = limiter.stats();
        assert_eq!((s.increases, s.decreases, s.succeeded), (1, 0, 17));
        drop(anchor);
        assert_eq!(limiter.in_flight(), 0);
    });
}

/// Gradient: a drop races the success that closes a window of 16 (15
/// successes and 8 drops counted, so one drop more passes half): either
/// the drop comes first and cuts (4 → 2), and the closer, of an old epoch
/// by then, scales nothing; or the close comes first, scales (4 → 5) and
/// starts the next window with no drops, and the drop, of an old epoch by
/// then, is not counted. Either way, a success and a drop of the new epoch
/// then do not cut (327 executions). With the close leaving the drops
/// counted, they do.
#[test]
fn loom_limit_gradient_drop_racing_a_window_close() {
    explores::model(|| {
        let (limiter, anchor) = gradient_window_at_15();
        for _ in 0..8 {
            limiter.try_acquire().unwrap().dropped();
        }
        let a = limiter.try_acquire().unwrap();
        let b = limiter.try_acquire().unwrap();
        let t = thread::spawn(move || a.success(10));
        b.dropped();
        t.join().unwrap();
        limiter.try_acquire().unwrap().success(10);
        limiter.try_acquire().unwrap().dropped();
        let s = limiter.stats();
        let seen = (limiter.limit(), s.increases, s.decreases);
        assert!(seen == (5, 1, 0) || seen == (2, 0, 1), "{seen:?}");
        drop(anchor);
        assert_eq!(limiter.in_flight(), 0);
    });
}

/// Background's reserve (one permit of 4) raced by two background
/// admissions and a release: neither takes the last permit (so the limit
/// is never exceeded and Critical can still take it), the reserve is
/// exceeded by at most the one racing admission, and the reserved count
/// comes back to 0 (a later background request is admitted again). With
/// the reserve allowed to take the last permit (`in_flight < limit`), the
/// racer that reads the count before the other's increment takes it.
#[test]
fn loom_limit_reserve_races_stay_under_the_limit() {
    explores::model(|| {
        let limiter = leak(LimiterConfig {
            background_reserve: 64,
            ..config(4, 4, 4)
        });
        // Two critical permits: Background's 50 % ceiling is closed.
        let c1 = limiter.try_acquire().unwrap();
        let c2 = limiter.try_acquire().unwrap();
        let t = thread::spawn(move || {
            limiter.try_acquire_with(Priority::Background).map(|p| {
                let last = p.in_flight_at_admission() >= 4;
                p.success(5);
                last
            })
        });
        let mine = limiter.try_acquire_with(Priority::Background);
        assert!(limiter.in_flight() <= 3, "background took the last permit");
        let theirs = t.join().unwrap();
        assert_ne!(theirs, Some(true), "background took the last permit");
        assert!(
            mine.is_some() || theirs.is_some(),
            "the reserve admitted nobody"
        );
        drop(mine);
        assert!(limiter.try_acquire_with(Priority::Background).is_some());
        drop((c1, c2));
        let s = limiter.stats();
        assert_eq!(s.in_flight, 0);
        assert_eq!(s.admitted, s.succeeded + s.dropped + s.ignored);
    });
}

/// A weighted admission (2 units) races a single one under a limit of 3
/// with one unit held, while a third context releases that unit: the units
/// held never exceed 3, the limiter's own in-flight count never does
/// either, whoever is admitted is admitted with its whole weight, and every
/// unit comes back. Without the release exactly one of the two racers fits;
/// with it both may. With the weighted check made the single one's
/// (`in_flight < threshold`, the weight left out), the weighted admission
/// after the single one takes 4 units under a limit of 3 and fails the model.
#[test]
fn loom_limit_weighted_admission_races_a_single_one_at_the_limit() {
    explores::model(|| {
        // `max_limit` above the limit, so that a count over the limit is
        // one the observers can still read (they retry a count above
        // `max_limit` as one made of stale counters). No window closes here,
        // so the limit stays 3.
        let limiter = leak(config(3, 3, 8));
        let held = limiter.try_acquire().unwrap();
        // Units held as the test sees them (raised after an admission,
        // lowered before a release, so never above the real count).
        let units = Arc::new(AtomicUsize::new(1));
        let hold = move |units: &AtomicUsize, p: Permit<'static>| {
            let w = p.weight() as usize;
            let now = units.fetch_add(w, Ordering::SeqCst) + w;
            assert!(now <= 3, "{now} units held under a limit of 3");
            assert!(
                limiter.in_flight() <= 3,
                "the limiter counts {} in flight",
                limiter.in_flight()
            );
            assert!(p.in_flight_at_admission() <= 3);
            units.fetch_sub(w, Ordering::SeqCst);
            p.success(5);
            w
        };
        let u = units.clone();
        let weighted = thread::spawn(move || limiter.try_acquire_n(2).map(|p| hold(&u, p)));
        let u = units.clone();
        let release = thread::spawn(move || {
            u.fetch_sub(1, Ordering::SeqCst);
            held.ignore();
        });
        let single = limiter.try_acquire().map(|p| hold(&units, p));
        let weighted = weighted.join().unwrap();
        release.join().unwrap();
        assert!(
            weighted.is_some() || single.is_some(),
            "both refused with room for either"
        );
        let s = limiter.stats();
        let admitted = 1 + weighted.unwrap_or(0) + single.unwrap_or(0);
        assert_eq!((s.in_flight, s.admitted), (0, admitted));
        assert_eq!(
            s.shed[0],
            usize::from(weighted.is_none()) + usize::from(single.is_none())
        );
    });
}

/// Acquire/release cycles with every outcome from two contexts: no permit
/// is lost or counted twice.
#[test]
fn loom_limit_no_lost_permits() {
    explores::model(|| {
        let limiter = leak(config(1, 2, 2));
        let t = thread::spawn(move || {
            let mut n = 0;
            if let Some(p) = limiter.try_acquire() {
                n += 1;
                p.dropped();
            }
            if let Some(p) = limiter.try_acquire() {
                n += 1;
                p.success(3);
            }
            n
        });
        let mut n = 0;
        if let Some(p) = limiter.try_acquire() {
            n += 1;
            drop(p);
        }
        n += t.join().unwrap();
        assert_eq!(limiter.in_flight(), 0);
        let s = limiter.stats();
        assert_eq!(s.admitted, n);
        assert_eq!(s.succeeded + s.dropped + s.ignored, n);
        assert_eq!(s.shed[0], 3 - n);
        assert!(s.limit >= 1 && s.limit <= 2);
    });
}

/// How a permit ends in [`loom_limit_release_hands_over_to_admission_at_the_limit`].
#[derive(Clone, Copy, Debug)]
enum Outcome {
    Success,
    Dropped,
    Ignore,
    Drop,
}

/// Under a limit of 1 the limiter is a lock: a holder writes plain data,
/// then releases the permit with each outcome in turn, racing an admission
/// at the limit on another thread. That admission is refused, or it succeeds
/// and reads the data through a plain (non-atomic) cell, so loom reports a
/// data race unless the release (`Release` on the outcome's counter)
/// happens-before the admission that counted it (`Acquire` load of it).
#[test]
fn loom_limit_release_hands_over_to_admission_at_the_limit() {
    for outcome in [
        Outcome::Success,
        Outcome::Dropped,
        Outcome::Ignore,
        Outcome::Drop,
    ] {
        // Executions in which the racing admission was refused / admitted
        // (outside loom: counted across the model's executions).
        let refused = std::sync::Arc::new(core::sync::atomic::AtomicUsize::new(0));
        let admitted = std::sync::Arc::new(core::sync::atomic::AtomicUsize::new(0));
        let (r, a) = (refused.clone(), admitted.clone());
        explores::model(move || {
            let limiter = leak(config(1, 1, 1));
            let data = Arc::new(loom::cell::UnsafeCell::new(0usize));
            let permit = limiter.try_acquire().unwrap();
            let d = data.clone();
            let holder = thread::spawn(move || {
                // SAFETY: the permit, the only one under a limit of 1, gives
                // this thread exclusive access until it is released.
                d.with_mut(|p| unsafe { *p = 7 });
                match outcome {
                    Outcome::Success => permit.success(5),
                    Outcome::Dropped => permit.dropped(),
                    Outcome::Ignore => permit.ignore(),
                    Outcome::Drop => drop(permit),
                }
            });
            let got = limiter.try_acquire().map(|p| {
                assert_eq!(p.in_flight_at_admission(), 1);
                // SAFETY: as above, this thread now holds the only permit.
                let seen = data.with(|p| unsafe { *p });
                assert_eq!(seen, 7, "{outcome:?}: the holder's write is not visible");
                p.ignore();
            });
            holder.join().unwrap();
            let s = limiter.stats();
            assert_eq!(s.in_flight, 0);
            assert_eq!(s.shed[0], usize::from(got.is_none()));
            assert_eq!(s.admitted, 1 + usize::from(got.is_some()));
            let (ok, dropped, ignored) = match outcome {
                Outcome::Success => (1, 0, 0),
                Outcome::Dropped => (0, 1, 0),
                Outcome::Ignore | Outcome::Drop => (0, 0, 1),
            };
            assert_eq!(
                (s.succeeded, s.dropped, s.ignored),
                (ok, dropped, ignored + usize::from(got.is_some())),
                "{outcome:?}"
            );
            let branch = if got.is_some() { &a } else { &r };
            branch.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        });
        // Both interleavings were explored: the model is not vacuous.
        let (r, a) = (
            refused.load(core::sync::atomic::Ordering::Relaxed),
            admitted.load(core::sync::atomic::Ordering::Relaxed),
        );
        assert!(r > 0 && a > 0, "{outcome:?}: refused {r}, admitted {a}");
    }
}

/// Two queue-free successes race the baseline's level shift: the run of
/// four samples of 200 above a baseline of 100 ends with one more of 200
/// (the shift) racing one of 50 (a step down, or a run of its own). The
/// relaxed words may lose either update, but the estimates stay within the
/// samples seen and a later steady latency is learnt again.
#[test]
fn loom_limit_level_shift_racing_a_step() {
    // The 36 sequential successes that set the race up are branches too.
    let mut model = loom::model::Builder::new();
    model.max_branches = 100_000;
    explores::check(model, || {
        let limiter = leak(config(2, 4, 8));
        for _ in 0..32 {
            limiter.try_acquire().unwrap().success(100);
        }
        for _ in 0..4 {
            limiter.try_acquire().unwrap().success(200);
        }
        let ts: Vec<_> = [200, 50]
            .into_iter()
            .map(|ticks| thread::spawn(move || limiter.try_acquire().unwrap().success(ticks)))
            .collect();
        for t in ts {
            t.join().unwrap();
        }
        let s = limiter.stats();
        let (b, m) = (s.baseline.unwrap(), s.mean.unwrap());
        assert!((50..=200).contains(&b), "baseline {b}");
        assert!((50..=200).contains(&m), "mean {m}");
        assert_eq!(s.in_flight, 0);
        // Whatever the race left in the run (at worst a shift that moves
        // nothing), a steady 150 is learnt by the next full run.
        let mut trace = std::vec![(b, m, s.limit)];
        for _ in 0..2 * SHIFT_RUN {
            limiter.try_acquire().unwrap().success(150);
            let s = limiter.stats();
            trace.push((s.baseline.unwrap(), s.mean.unwrap(), s.limit));
        }
        let b = limiter.baseline().unwrap();
        assert!(
            (140..=160).contains(&b),
            "baseline {b} after 10 samples of 150: {trace:?}"
        );
    });
}

/// A rise racing the probe that would check an earlier one: the probe
/// takes the rise with one swap, so a rise is either taken by the probe
/// (whose samples come after it) or left, `RISEN`, for the next check;
/// never cleared unchecked (a stall's rise could then stay for good under
/// closed-loop load).
#[test]
fn loom_limit_rise_racing_a_probe() {
    use super::aimd::Aimd;
    use super::word::epoch_of;
    use super::RISEN;
    explores::model(|| {
        let limiter = leak(config(1, 4, 8));
        let t = &*limiter.track;
        let epoch = epoch_of(limiter.hot.state.load(Ordering::Relaxed));
        let riser = thread::spawn(move || limiter.rose(7, 160));
        let prober = thread::spawn(move || limiter.probe::<Aimd>(epoch, 0, 4));
        riser.join().unwrap();
        let took = prober.join().unwrap();
        let left = t.risen.load(Ordering::Relaxed) == RISEN;
        assert!(
            took != left,
            "the rise was {}",
            if took { "taken twice" } else { "lost" }
        );
        assert_eq!(limiter.stats().probes, 1);
    });
}

/// Two `Normal` requests at a limit of 1 (`min_limit` 1, `max_limit` 4),
/// nothing in flight: `Normal` is admitted nothing there, so a refusal
/// raises the limit by one, and racing refusals raise it once: each raises
/// to one more than the limit of the word it was refused in, never to one
/// more than a limit another refusal has already raised.
#[test]
fn loom_limit_refusals_with_nothing_in_flight_raise_the_limit_once() {
    explores::model(|| {
        let limiter = leak(config(1, 1, 4));
        let other = thread::spawn(move || limiter.try_acquire_with(Priority::Normal));
        let mine = limiter.try_acquire_with(Priority::Normal);
        let theirs = other.join().unwrap();
        assert_eq!(limiter.limit(), 2, "raised once");
        assert!(
            mine.is_none() || theirs.is_none(),
            "both admitted at a limit of 2: one took the last permit"
        );
        assert_eq!(limiter.stats().increases, 1);
        drop((mine, theirs));
    });
}
