//! Unit tests of the queue-free baseline, the slow test, the probe and the
//! gradient law's scaling, single-threaded (the admission and AIMD window
//! tests are in `tests.rs`, a rise's check and the probes after it in
//! `rise_tests.rs`, the races in `pause_tests.rs`).

use super::tests::{
    config, epoch, gradient, load_until_probe, mature, refuse_at_the_limit, succeed_beside,
};
use super::*;
use std::vec::Vec;

#[test]
fn only_queue_free_successes_teach_the_baseline() {
    // min_limit 2: a success admitted with ≤ 2 in flight is queue-free.
    let l = Limiter::try_new(config(2, 10, 20)).unwrap();
    succeed_beside(&l, 1, 1, 100);
    assert_eq!(l.baseline(), Some(100));
    // Young (fewer than 32 queue-free samples): the running mean.
    succeed_beside(&l, 0, 1, 200);
    assert_eq!((l.baseline(), l.stats().mean), (Some(150), Some(150)));
    succeed_beside(&l, 0, YOUNG - 2, 100);
    // (100 + 200 + 30 × 100) / 32 = 103.1
    assert_eq!(l.baseline(), Some(103));
    // Queued successes (3 in flight), however many: the baseline stays.
    succeed_beside(&l, 2, 500, 140);
    assert_eq!(l.baseline(), Some(103));
    // Grown up, queue-free samples move it 1/32 per sample toward them: a
    // 3× slower dependency is learnt within 40 samples.
    succeed_beside(&l, 0, 40, 300);
    let b = l.baseline().unwrap();
    assert!((290..=310).contains(&b), "baseline {b}");
    // And back down.
    succeed_beside(&l, 0, 40, 100);
    let b = l.baseline().unwrap();
    assert!((95..=110).contains(&b), "baseline {b}");
}

#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn the_baseline_is_the_median_not_the_minimum() {
    // A queue-free service of 50..=150 ticks (uniform): the estimate
    // wanders around the median, 100 (a step is 1/32 of it), and so does
    // the mean; averaged over the run both are within a few ticks of it.
    // Runs of `SHIFT_RUN` on one side are rare and their nearest sample is
    // close to the median, so level shifts add little to the wander.
    let l = Limiter::try_new(config(2, 10, 20)).unwrap();
    let mut x = 1u64;
    let (mut sum_b, mut sum_m, mut off, mut n) = (0u64, 0u64, 0u64, 0u64);
    for i in 0..8000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        l.try_acquire()
            .unwrap()
            .success(50 + ((x >> 33) % 101) as u32);
        if i >= 1000 {
            let b = l.baseline().unwrap();
            sum_b += b as u64;
            off += b.abs_diff(100) as u64;
            sum_m += l.stats().mean.unwrap() as u64;
            n += 1;
        }
    }
    let (b, m) = (sum_b / n, sum_m / n);
    assert!((94..=106).contains(&b), "baseline {b}");
    assert!((96..=104).contains(&m), "mean {m}");
    let off = off as f64 / n as f64;
    // 7.0 ticks with steps alone, 7.3 with level shifts; a shift rule that
    // fired on short runs (or doubled the step in them) gave 10 or more.
    assert!(off < 8.0, "mean distance from the median {off:.2} ticks");
}

#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_run_on_one_side_is_a_level_shift() {
    // A grown-up baseline of 100 ticks; the dependency doubles. Four
    // samples in a row above it move it by 1/32 each (compounded); the
    // fifth is a level shift: both estimates jump to the run's sample
    // nearest to them, 200, where steps of 1/32 alone would need 23.
    let l = Limiter::try_new(config(2, 10, 20)).unwrap();
    mature(&l, 100);
    let mut seen = Vec::new();
    for _ in 0..SHIFT_RUN + 2 {
        l.try_acquire().unwrap().success(200);
        seen.push((l.baseline().unwrap(), l.stats().mean.unwrap()));
    }
    assert_eq!(
        seen,
        [
            (103, 106),
            (106, 112),
            (110, 118),
            (113, 123),
            (200, 200),
            (200, 200),
            (200, 200)
        ]
    );
    // Five below the (stepping) estimate: to the run's highest, 165.
    for t in [150, 160, 155, 165, 158] {
        l.try_acquire().unwrap().success(t);
    }
    assert_eq!(l.baseline(), Some(165));
    // Runs cut short by a sample on the other side move it by steps only:
    // five steps of 1/32 up and one down from 165.
    for t in [300, 300, 300, 300, 100, 300] {
        l.try_acquire().unwrap().success(t);
    }
    let b = l.baseline().unwrap();
    assert!((180..=190).contains(&b), "baseline {b}");
}

#[test]
fn a_window_whose_median_is_slow_cuts_scattered_slow_samples_do_not() {
    // Baseline and mean 100; target 100 + 0.5 × 100 = 150.
    let l = Limiter::try_new(config(1, 10, 20)).unwrap();
    l.try_acquire().unwrap().success(100);
    // 8 of a window of 16 slow, beside a held permit (not queue-free).
    let held = l.try_acquire().unwrap();
    for i in 0..16 {
        l.try_acquire()
            .unwrap()
            .success(if i % 2 == 0 { 151 } else { 150 });
    }
    assert_eq!(l.stats().decreases, 0);
    // 9 of the next 16: cut.
    for _ in 0..9 {
        l.try_acquire().unwrap().success(1000);
    }
    assert_eq!(l.stats().decreases, 1);
    assert_eq!(l.limit(), 8);
    drop(held);
    assert_eq!(l.baseline(), Some(100));
}

#[test]
fn one_tick_above_the_baseline_is_not_slow() {
    // A 1-tick baseline: 2 ticks (an operation that crossed a tick
    // boundary) is within `baseline + 1 tick`.
    let l = Limiter::try_new(config(1, 10, 20)).unwrap();
    l.try_acquire().unwrap().success(1);
    succeed_beside(&l, 1, 200, 2);
    assert_eq!(l.stats().decreases, 0);
    // 18 slow in a row hold the majority of some window of 16.
    succeed_beside(&l, 1, 18, 3);
    assert_eq!(l.stats().decreases, 1);
}

#[test]
fn samples_within_the_latency_floor_are_never_slow() {
    let c = LimiterConfig {
        latency_floor: 1000,
        ..config(1, 10, 20)
    };
    let l = Limiter::try_new(c).unwrap();
    l.try_acquire().unwrap().success(10);
    succeed_beside(&l, 1, 200, 1000);
    assert_eq!(l.stats().decreases, 0);
    succeed_beside(&l, 1, 18, 1001);
    assert_eq!(l.stats().decreases, 1);
}

#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_slower_dependency_is_relearnt_at_the_minimum() {
    // 10 → 30 ticks for good: every window is slow, the limit falls to
    // min_limit, where every success is queue-free and re-teaches the
    // baseline; then the cuts stop.
    let l = Limiter::try_new(config(2, 16, 32)).unwrap();
    succeed_beside(&l, 0, 40, 10);
    for _ in 0..200 {
        let n = l.limit() as usize;
        let ps: Vec<_> = (0..n).map(|_| l.try_acquire().unwrap()).collect();
        for p in ps {
            p.success(30);
        }
    }
    let b = l.baseline().unwrap();
    assert!((28..=32).contains(&b), "baseline {b}");
    let cuts = l.stats().decreases;
    for _ in 0..50 {
        let n = l.limit() as usize;
        let ps: Vec<_> = (0..n).map(|_| l.try_acquire().unwrap()).collect();
        for p in ps {
            p.success(30);
        }
    }
    assert_eq!(
        l.stats().decreases,
        cuts,
        "still cutting at the new latency"
    );
    assert!(l.limit() > 2, "grew back: {}", l.limit());
}

#[test]
#[cfg_attr(miri, ignore = "2^16 sequential successes per law; minutes under Miri")]
fn a_stale_baseline_is_probed_and_the_limit_restored() {
    // A limit of 6 that cannot grow; a request refused at the limit shows it
    // binds.
    for c in [config(2, 6, 6), gradient(2, 6, 6)] {
        let l = Limiter::try_new(c).unwrap();
        mature(&l, 10);
        // A baseline as old as a rise that no longer shortens the wait.
        succeed_beside(&l, 0, RISE_OLD, 10);
        refuse_at_the_limit(&l);
        // Never queue-free again (3 in flight): no probe for PROBE_AFTER
        // successes (less the 1/64 to which the last queue-free one is
        // kept), then one at the next window's end.
        succeed_beside(&l, 2, PROBE_AFTER - PROBE_AFTER / 64, 10);
        assert_eq!(l.stats().probes, 0);
        let held: Vec<_> = (0..2).map(|_| l.try_acquire().unwrap()).collect();
        let mut more = 0;
        while l.stats().probes == 0 {
            l.try_acquire().unwrap().success(10);
            more += 1;
            assert!(more <= PROBE_AFTER / 32, "{:?}: no probe", c.law);
        }
        drop(held);
        let s = l.stats();
        assert_eq!((s.probes, s.decreases, s.limit), (1, 1, 2), "{:?}", c.law);
        assert!(more > 0);
        // The probe's queue-free samples (the dependency got faster), then
        // the limit it had.
        succeed_beside(&l, 0, PROBE_SAMPLES - 1, 4);
        assert_eq!(l.limit(), 2);
        // (Under AIMD the two permits held across the probe, which ended as
        // ignored, make the window skip two more successes, see `cut`.)
        let mut more = 0;
        while l.limit() == 2 {
            succeed_beside(&l, 0, 1, 4);
            more += 1;
            assert!(more <= 3, "{:?}: not restored", c.law);
        }
        assert_eq!(l.limit(), 6, "{:?}", c.law);
        assert!(l.baseline().unwrap() < 10);
    }
}

#[test]
fn gradient_scales_by_target_over_mean() {
    // Mean 100, tolerance 1.25: target 125.
    let l = Limiter::try_new(gradient(1, 32, 100)).unwrap();
    l.try_acquire().unwrap().success(100); // the first of the window
    let e = epoch(&l);
    // A window of 32 at the mean, not application-limited: ×1.25 = 40.
    succeed_beside(&l, 20, 31, 100);
    assert_eq!(l.limit(), 40);
    assert_eq!(epoch(&l), e + 1, "every change starts an epoch");
    // A window of 40 at twice the mean: ×0.625 = 25.
    succeed_beside(&l, 20, 40, 200);
    assert_eq!(l.limit(), 25);
    // At 16× the mean or more, the ratio is capped and g clamps at 1/2.
    succeed_beside(&l, 12, 25, 100_000);
    assert_eq!(l.limit(), 12);
    // Application-limited windows hold.
    succeed_beside(&l, 0, 64, 100);
    assert_eq!(l.limit(), 12);
    let s = l.stats();
    assert_eq!((s.increases, s.decreases), (1, 2));
}

#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn no_probe_while_the_limit_does_not_bind() {
    // Nothing refused at the limit: a stale baseline is not worth a probe's
    // sheds (queue-free samples come when the load falls).
    let l = Limiter::try_new(config(2, 6, 6)).unwrap();
    mature(&l, 10);
    succeed_beside(&l, 2, PROBE_AFTER + 100, 10);
    let s = l.stats();
    assert_eq!((s.probes, s.decreases, s.limit), (0, 0, 6));
}

#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_young_baseline_is_probed_early_once() {
    // One queue-free sample, then load that never leaves one and a limit
    // that binds: a probe after 1024 successes, not 2^16, which lasts until
    // the baseline has its 32 samples; then no more early probes.
    let l = Limiter::try_new(config(2, 6, 6)).unwrap();
    succeed_beside(&l, 0, 1, 10);
    refuse_at_the_limit(&l);
    let n = load_until_probe(&l, 10, YOUNG_PROBE_AFTER + 20);
    assert!(n > YOUNG_PROBE_AFTER - 20, "probed after {n}");
    assert_eq!(l.limit(), 2);
    // It ends once the baseline has its 32 queue-free samples (31 more).
    let mut more = 0;
    while l.limit() == 2 {
        succeed_beside(&l, 0, 1, 10);
        more += 1;
        assert!(more <= YOUNG + 2, "not restored");
    }
    assert!(more >= YOUNG - 1, "ended after {more}");
    assert_eq!(l.limit(), 6);
    refuse_at_the_limit(&l);
    succeed_beside(&l, 2, 4 * YOUNG_PROBE_AFTER, 10);
    assert_eq!(l.stats().probes, 1);
}

/// Refusals during a probe, at its floor, say nothing of the limit it
/// restores: they bring no probe after it (a young baseline's probe that a
/// drop ends would otherwise come again after every `YOUNG_PROBE_AFTER`
/// successes, each time with requests queued in front of the limiter).
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn refusals_at_a_probes_floor_bring_no_probe() {
    for c in [config(2, 6, 6), gradient(2, 6, 6)] {
        let l = Limiter::try_new(c).unwrap();
        succeed_beside(&l, 0, 1, 10);
        refuse_at_the_limit(&l);
        load_until_probe(&l, 10, YOUNG_PROBE_AFTER + 20);
        assert_eq!(l.limit(), 2, "{:?}", c.law);
        refuse_at_the_limit(&l);
        l.try_acquire().unwrap().dropped();
        assert_eq!(l.limit(), 6, "{:?}: the drop ended the probe", c.law);
        // Two permits always out: no sample is queue-free.
        let held: Vec<_> = (0..2).map(|_| l.try_acquire().unwrap()).collect();
        for _ in 0..4 * YOUNG_PROBE_AFTER {
            l.try_acquire().unwrap().success(10);
            assert_eq!(l.stats().probes, 1, "{:?}: probed again", c.law);
        }
        drop(held);
    }
}

/// A drop of a permit admitted during a probe ends the probe: the limit
/// goes back to where it was. (Requests queued in front of the limiter
/// answer late while the limit is down; a probe that waited for successes
/// would then stay at `min_limit` for good.)
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_drop_during_a_probe_ends_it() {
    for c in [config(2, 6, 6), gradient(2, 6, 6)] {
        let l = Limiter::try_new(c).unwrap();
        succeed_beside(&l, 0, 1, 10);
        refuse_at_the_limit(&l);
        load_until_probe(&l, 10, YOUNG_PROBE_AFTER + 20);
        assert_eq!(l.limit(), 2, "{:?}", c.law);
        let e = epoch(&l);
        l.try_acquire().unwrap().dropped();
        assert_eq!(l.limit(), 6, "{:?}", c.law);
        assert_eq!(epoch(&l), e + 1, "{:?}", c.law);
        // A drop of a permit from before the probe's end changes nothing.
        let old = l.try_acquire().unwrap();
        l.try_acquire().unwrap().dropped();
        let limit = l.limit();
        old.dropped();
        assert_eq!(l.limit(), limit, "{:?}", c.law);
    }
}

/// Under load from the first request (three permits always out, more than
/// `min_limit`, and a refusal at the limit every round), no queue-free
/// sample ever comes: each law must probe after `YOUNG_PROBE_AFTER`
/// successes. (The gradient law counted no window before its first
/// queue-free sample, so it never asked whether a probe was due: no
/// baseline and a frozen limit for good.)
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_limiter_loaded_from_the_start_probes() {
    for c in [config(2, 8, 100), gradient(2, 8, 100)] {
        let l = Limiter::try_new(c).unwrap();
        let keep: Vec<_> = (0..3).map(|_| l.try_acquire().unwrap()).collect();
        for _ in 0..2 * YOUNG_PROBE_AFTER {
            // The limit binds: fill it, be refused, give the extra back.
            let extra: Vec<_> = core::iter::from_fn(|| l.try_acquire()).collect();
            drop(extra);
            if let Some(p) = l.try_acquire() {
                p.success(10);
            }
        }
        drop(keep);
        let s = l.stats();
        assert!(
            s.probes >= 1,
            "{:?}: no probe in {} successes",
            c.law,
            s.succeeded
        );
    }
}

/// A lower class alone with `min_limit` 1, whose stale baseline is probed:
/// the probe cuts the limit to 1, where the class's share admits nothing.
/// Its first refusal with nothing in flight raises the limit to 2 in the
/// probe's epoch; its queue-free samples then end the probe, and the limit
/// it had comes back.
#[test]
#[cfg_attr(miri, ignore = "2^16 sequential successes per law; minutes under Miri")]
fn a_probe_to_a_limit_of_one_serves_a_lower_class_and_ends() {
    use super::Priority::Normal;
    for law in [Law::Aimd, Law::Gradient] {
        let l = Limiter::try_new(LimiterConfig {
            law,
            ..config(1, 6, 6)
        })
        .unwrap();
        let normal = |n: usize, ticks: u32| {
            for _ in 0..n {
                l.try_acquire_with(Normal).unwrap().success(ticks);
            }
        };
        normal(YOUNG + CHECK_AFTER + FRESH_EVERY + 1, 10);
        refuse_at_the_limit(&l);
        // Two held: 3 in flight at each admission, never queue-free.
        let held: Vec<_> = (0..2)
            .map(|_| l.try_acquire_with(Normal).unwrap())
            .collect();
        let mut n = 0;
        while l.stats().probes == 0 {
            normal(1, 10);
            n += 1;
            assert!(n <= PROBE_AFTER + 64, "{law:?}: no probe");
        }
        drop(held);
        assert_eq!(l.limit(), 1, "{law:?}");
        let (mut served, mut refused) = (0, 0);
        while l.limit() != 6 {
            match l.try_acquire_with(Normal) {
                Some(p) => {
                    p.success(10);
                    served += 1;
                }
                None => refused += 1,
            }
            assert!(
                served + refused <= PROBE_SAMPLES + 8,
                "{law:?}: not restored"
            );
        }
        assert_eq!((refused, l.stats().probes), (1, 1), "{law:?}");
        assert!(served >= PROBE_SAMPLES, "{law:?}: ended after {served}");
    }
}
