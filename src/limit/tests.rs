//! Unit tests of the limiter's arithmetic and bookkeeping, single-threaded
//! (the races at pause points are in `pause_tests.rs`).

use super::*;
use std::vec::Vec;

pub(super) fn config(min: u32, initial: u32, max: u32) -> AimdConfig {
    AimdConfig {
        min_limit: min,
        initial_limit: initial,
        max_limit: max,
        ..AimdConfig::DEFAULT
    }
}

pub(super) fn fixed(limit: u32) -> Aimd {
    Aimd::try_new(config(limit, limit, limit)).unwrap()
}

#[test]
fn default_config_is_valid_and_netflix_like() {
    let c = AimdConfig::DEFAULT;
    assert_eq!(c.validate(), Ok(()));
    assert_eq!((c.min_limit, c.initial_limit, c.max_limit), (20, 20, 200));
    let l = Aimd::new(c);
    assert_eq!(l.limit(), 20);
    assert_eq!(l.in_flight(), 0);
    assert_eq!(l.baseline(), None);
}

#[test]
fn invalid_configs_are_rejected_by_try_new() {
    let d = AimdConfig::DEFAULT;
    let cases = [
        (AimdConfig { min_limit: 0, ..d }, ConfigError::ZeroMinLimit),
        (
            AimdConfig {
                min_limit: 300,
                ..d
            },
            ConfigError::MinAboveMax,
        ),
        (
            AimdConfig {
                max_limit: MAX_LIMIT + 1,
                ..d
            },
            ConfigError::MaxTooLarge,
        ),
        (
            AimdConfig {
                initial_limit: 19,
                ..d
            },
            ConfigError::InitialOutOfRange,
        ),
        (
            AimdConfig {
                initial_limit: 201,
                ..d
            },
            ConfigError::InitialOutOfRange,
        ),
        (
            AimdConfig { backoff: 0, ..d },
            ConfigError::BackoffOutOfRange,
        ),
        (
            AimdConfig { backoff: 256, ..d },
            ConfigError::BackoffOutOfRange,
        ),
        (
            AimdConfig {
                tolerance: 255,
                ..d
            },
            ConfigError::ToleranceBelowOne,
        ),
        (
            AimdConfig {
                baseline_window: 1,
                ..d
            },
            ConfigError::BadBaselineWindow,
        ),
        (
            AimdConfig {
                baseline_window: 100,
                ..d
            },
            ConfigError::BadBaselineWindow,
        ),
        (
            AimdConfig {
                background_share: 0,
                ..d
            },
            ConfigError::BadShares,
        ),
        (
            AimdConfig {
                background_share: 200,
                normal_share: 100,
                ..d
            },
            ConfigError::BadShares,
        ),
        (
            AimdConfig {
                normal_share: 257,
                ..d
            },
            ConfigError::BadShares,
        ),
    ];
    for (c, e) in cases {
        assert_eq!(c.validate(), Err(e), "{c:?}");
        assert_eq!(Aimd::try_new(c).err(), Some(e), "{c:?}");
    }
    // The edges that are valid.
    let edge = AimdConfig {
        min_limit: 1,
        initial_limit: MAX_LIMIT,
        max_limit: MAX_LIMIT,
        backoff: 255,
        tolerance: 256,
        baseline_window: 2,
        normal_share: 256,
        background_share: 1,
    };
    assert_eq!(edge.validate(), Ok(()));
    assert_eq!(Aimd::try_new(edge).unwrap().limit(), MAX_LIMIT);
}

#[test]
fn admits_up_to_the_limit_then_sheds_and_counts() {
    let l = fixed(3);
    let a = l.try_acquire().unwrap();
    let b = l.try_acquire().unwrap();
    let c = l.try_acquire().unwrap();
    assert_eq!(c.in_flight_at_admission(), 3);
    assert_eq!(c.limit_at_admission(), 3);
    assert!(l.try_acquire().is_none());
    assert!(l.try_acquire().is_none());
    assert_eq!(l.stats().shed, [2, 0, 0]);
    b.ignore();
    let d = l.try_acquire().unwrap();
    assert!(l.try_acquire().is_none());
    drop((a, c, d));
    assert_eq!(l.in_flight(), 0);
    let s = l.stats();
    assert_eq!(
        (s.admitted, s.ignored, s.succeeded, s.dropped),
        (4, 4, 0, 0)
    );
}

#[test]
fn priority_classes_get_their_share_of_the_limit() {
    // 20 × 128/256 = 10 background, 20 × 192/256 = 15 normal, 20 critical.
    let l = fixed(20);
    let mut held = Vec::new();
    while let Some(p) = l.try_acquire_with(Priority::Background) {
        held.push(p);
    }
    assert_eq!(held.len(), 10);
    while let Some(p) = l.try_acquire_with(Priority::Normal) {
        held.push(p);
    }
    assert_eq!(held.len(), 15);
    assert!(l.try_acquire_with(Priority::Background).is_none());
    while let Some(p) = l.try_acquire_with(Priority::Critical) {
        held.push(p);
    }
    assert_eq!(held.len(), 20);
    assert!(l.try_acquire_with(Priority::Normal).is_none());
    assert_eq!(l.stats().shed, [1, 2, 2]);
    drop(held);
    assert_eq!(l.in_flight(), 0);
}

#[test]
fn lower_classes_always_get_at_least_one_permit() {
    let c = AimdConfig {
        background_share: 1,
        normal_share: 1,
        ..config(1, 1, 1)
    };
    let l = Aimd::try_new(c).unwrap();
    let p = l.try_acquire_with(Priority::Background).unwrap();
    assert!(l.try_acquire().is_none());
    drop(p);
}

#[test]
fn permit_dropped_without_outcome_counts_as_ignore_and_releases() {
    let l = fixed(1);
    {
        let _p = l.try_acquire().unwrap();
        assert_eq!(l.in_flight(), 1);
    }
    assert_eq!(l.in_flight(), 0);
    assert_eq!(l.stats().ignored, 1);
    assert_eq!(l.limit(), 1);
}

#[test]
fn grows_by_one_per_window_of_successes() {
    let l = Aimd::try_new(config(1, 4, 10)).unwrap();
    let permits: Vec<_> = (0..4).map(|_| l.try_acquire().unwrap()).collect();
    let mut it = permits.into_iter();
    for _ in 0..3 {
        it.next().unwrap().success(10);
        assert_eq!(l.limit(), 4);
    }
    it.next().unwrap().success(10);
    assert_eq!(l.limit(), 5);
    // The next window is 5 successes long.
    let ps: Vec<_> = (0..5).map(|_| l.try_acquire().unwrap()).collect();
    let mut it = ps.into_iter();
    for _ in 0..4 {
        it.next().unwrap().success(10);
        assert_eq!(l.limit(), 5);
    }
    it.next().unwrap().success(10);
    assert_eq!(l.limit(), 6);
}

#[test]
fn no_growth_while_in_flight_is_below_half_the_limit() {
    let l = Aimd::try_new(config(1, 4, 10)).unwrap();
    for _ in 0..1000 {
        l.try_acquire().unwrap().success(10);
    }
    assert_eq!(l.limit(), 4);
    // Two at a time is half of 4: that grows.
    for _ in 0..4 {
        let a = l.try_acquire().unwrap();
        let b = l.try_acquire().unwrap();
        a.success(10);
        b.success(10);
    }
    assert!(l.limit() > 4);
}

#[test]
fn limit_never_exceeds_max() {
    let l = Aimd::try_new(config(1, 3, 4)).unwrap();
    for _ in 0..100 {
        let ps: Vec<_> = (0..l.limit()).map(|_| l.try_acquire().unwrap()).collect();
        for p in ps {
            p.success(5);
        }
    }
    assert_eq!(l.limit(), 4);
}

#[test]
fn burst_of_drops_cuts_once_per_window() {
    let l = Aimd::try_new(config(1, 100, 200)).unwrap();
    let burst: Vec<_> = (0..10).map(|_| l.try_acquire().unwrap()).collect();
    for p in burst {
        p.dropped();
    }
    // ⌊100 × 230 / 256⌋ = 89, once.
    assert_eq!(l.limit(), 89);
    assert_eq!(l.stats().decreases, 1);
    assert_eq!(l.stats().dropped, 10);
    // A permit admitted after the cut may cut again.
    l.try_acquire().unwrap().dropped();
    assert_eq!(l.limit(), 79);
    assert_eq!(l.stats().decreases, 2);
}

#[test]
fn permits_from_before_the_cut_cannot_cut_or_grow() {
    let l = Aimd::try_new(config(1, 10, 20)).unwrap();
    let old: Vec<_> = (0..10).map(|_| l.try_acquire().unwrap()).collect();
    let first = l.try_acquire();
    assert!(first.is_none());
    let mut old = old.into_iter();
    old.next().unwrap().dropped(); // cuts: 10 → 8
    assert_eq!(l.limit(), 8);
    // Slow successes from the old epoch: no second cut.
    old.next().unwrap().success(1);
    for p in old.by_ref().take(3) {
        p.success(1_000_000);
    }
    assert_eq!(l.limit(), 8);
    // Good successes from the old epoch: no growth either.
    for p in old {
        p.success(1);
    }
    assert_eq!(l.limit(), 8);
    assert_eq!(l.stats().decreases, 1);
}

#[test]
fn small_limit_falls_where_rounding_2x09_would_stick() {
    let l = Aimd::try_new(config(1, 2, 10)).unwrap();
    l.try_acquire().unwrap().dropped();
    assert_eq!(l.limit(), 1);
    // And it stops at min_limit.
    l.try_acquire().unwrap().dropped();
    assert_eq!(l.limit(), 1);
    assert_eq!(l.stats().decreases, 1);
}

#[test]
fn cut_stops_at_min_limit() {
    let l = Aimd::try_new(config(15, 16, 20)).unwrap();
    l.try_acquire().unwrap().dropped();
    assert_eq!(l.limit(), 15);
    for _ in 0..10 {
        l.try_acquire().unwrap().dropped();
    }
    assert_eq!(l.limit(), 15);
}

#[test]
fn zero_latency_counts_as_one_tick() {
    let l = fixed(4);
    l.try_acquire().unwrap().success(0);
    assert_eq!(l.baseline(), Some(1));
    // 1 tick is within tolerance of a baseline of 1: not an overload.
    l.try_acquire().unwrap().success(1);
    assert_eq!(l.stats().decreases, 0);
}

#[test]
fn extreme_latencies_neither_overflow_nor_panic() {
    let l = Aimd::try_new(config(1, 10, 20)).unwrap();
    l.try_acquire().unwrap().success(u32::MAX);
    assert_eq!(l.baseline(), Some(u32::MAX - 1));
    assert_eq!(l.stats().decreases, 0);
    l.try_acquire().unwrap().success(1);
    assert_eq!(l.baseline(), Some(1));
    l.try_acquire().unwrap().success(u32::MAX);
    assert_eq!(l.stats().decreases, 1);
    assert_eq!(l.limit(), 8);
}

#[test]
fn slow_success_beyond_tolerance_cuts() {
    let l = Aimd::try_new(config(1, 10, 20)).unwrap();
    l.try_acquire().unwrap().success(100);
    // 125 is exactly 1.25 × 100: still good.
    l.try_acquire().unwrap().success(125);
    assert_eq!(l.limit(), 10);
    l.try_acquire().unwrap().success(126);
    assert_eq!(l.limit(), 8);
    assert_eq!(l.baseline(), Some(100));
}

#[test]
fn dropped_and_ignored_never_move_the_baseline() {
    let l = Aimd::try_new(AimdConfig {
        baseline_window: 2,
        ..config(1, 10, 20)
    })
    .unwrap();
    l.try_acquire().unwrap().success(50);
    for _ in 0..10 {
        l.try_acquire().unwrap().dropped();
        l.try_acquire().unwrap().ignore();
        drop(l.try_acquire().unwrap());
    }
    assert_eq!(l.baseline(), Some(50));
}

#[test]
fn baseline_recovers_upward_after_a_window() {
    let l = Aimd::try_new(AimdConfig {
        baseline_window: 4,
        ..config(1, 10, 20)
    })
    .unwrap();
    for _ in 0..4 {
        l.try_acquire().unwrap().success(10);
    }
    assert_eq!(l.baseline(), Some(10));
    // The dependency got 10× slower for good. One window re-probes.
    for _ in 0..4 {
        l.try_acquire().unwrap().success(100);
    }
    assert_eq!(l.baseline(), Some(100));
    // Then 120 ticks is within tolerance again: no further cut.
    let cuts = l.stats().decreases;
    l.try_acquire().unwrap().success(120);
    assert_eq!(l.stats().decreases, cuts);
    // And it follows a faster dependency down at once.
    l.try_acquire().unwrap().success(7);
    assert_eq!(l.baseline(), Some(7));
}

/// Windows count successes: ignored permits (and drops) between them
/// neither close a growth window early nor shift it.
#[test]
fn ignored_releases_do_not_advance_the_growth_window() {
    let l = Aimd::try_new(config(1, 4, 10)).unwrap();
    // Holding one permit puts every further admission at half the limit.
    let anchor = l.try_acquire().unwrap();
    for _ in 0..3 {
        l.try_acquire().unwrap().success(10);
        for _ in 0..5 {
            l.try_acquire().unwrap().ignore();
            drop(l.try_acquire().unwrap());
        }
    }
    assert_eq!(l.limit(), 4, "30 ignores and 3 successes are not a window");
    l.try_acquire().unwrap().success(10);
    assert_eq!(l.limit(), 5);
    drop(anchor);
    let s = l.stats();
    assert_eq!((s.succeeded, s.ignored, s.admitted), (4, 31, 35));
}

/// The baseline is re-probed after every `baseline_window` successes, even
/// when other outcomes end between them (when windows counted every release,
/// a window boundary that fell on an ignored permit skipped the re-probe).
#[test]
fn baseline_reprobes_after_a_window_of_successes_with_ignores_between() {
    let l = Aimd::try_new(AimdConfig {
        baseline_window: 4,
        ..config(1, 10, 20)
    })
    .unwrap();
    for _ in 0..4 {
        l.try_acquire().unwrap().success(10);
        l.try_acquire().unwrap().ignore();
    }
    assert_eq!(l.baseline(), Some(10));
    for _ in 0..4 {
        l.try_acquire().unwrap().success(100);
        l.try_acquire().unwrap().ignore();
    }
    assert_eq!(l.baseline(), Some(100));
}

#[test]
fn epoch_wraps_around_without_losing_once_per_window() {
    let l = Aimd::with_start(config(1, 100, 200), EPOCH_MASK, 0).unwrap();
    assert_eq!(epoch_of(l.hot.state.load(Ordering::Relaxed)), EPOCH_MASK);
    let old = l.try_acquire().unwrap();
    l.try_acquire().unwrap().dropped();
    assert_eq!(epoch_of(l.hot.state.load(Ordering::Relaxed)), 0);
    assert_eq!(l.limit(), 89);
    old.dropped(); // from epoch MASK, now 0: stale
    assert_eq!(l.limit(), 89);
    l.try_acquire().unwrap().dropped();
    assert_eq!(epoch_of(l.hot.state.load(Ordering::Relaxed)), 1);
    assert_eq!(l.limit(), 79);
    assert_eq!(l.in_flight(), 0);
}

#[test]
fn counters_near_wraparound_keep_in_flight_and_windows() {
    // Each release counter starts 2 short of wrapping `usize`, so their sum
    // (3 · start) wraps too, and the admitted field starts 6 short of its
    // own wrap: all of them wrap during the test.
    let start = usize::MAX - 1;
    let l = Aimd::with_start(
        AimdConfig {
            baseline_window: 4,
            ..config(1, 4, 10)
        },
        0,
        start,
    )
    .unwrap();
    assert_eq!(
        admitted_of(l.hot.state.load(Ordering::Relaxed)),
        COUNT_MASK - 5
    );
    assert_eq!(l.in_flight(), 0);
    for round in 0..3u32 {
        let limit = l.limit();
        let ps: Vec<_> = (0..limit).map(|_| l.try_acquire().unwrap()).collect();
        assert_eq!(l.in_flight(), limit);
        assert!(l.try_acquire().is_none());
        for p in ps {
            p.success(10);
        }
        assert_eq!(l.in_flight(), 0);
        assert_eq!(l.limit(), limit + 1, "round {round}");
    }
    assert_eq!(l.baseline(), Some(10));
    // Now the other two counters wrap, with permits held across it.
    let held: Vec<_> = (0..5).map(|_| l.try_acquire().unwrap()).collect();
    for _ in 0..3 {
        l.try_acquire().unwrap().ignore();
        assert_eq!(l.in_flight(), 5);
    }
    for p in held {
        p.dropped();
    }
    assert_eq!(l.in_flight(), 0);
    assert_eq!(l.stats().decreases, 1);
    let s = l.stats();
    assert_eq!(s.succeeded, start.wrapping_add(4 + 5 + 6));
    assert_eq!(s.dropped, start.wrapping_add(5));
    assert_eq!(s.ignored, start.wrapping_add(3));
    assert_eq!(s.admitted, start.wrapping_mul(3).wrapping_add(15 + 5 + 3));
    assert_eq!(s.in_flight, 0);
}

#[test]
fn stats_account_for_every_permit() {
    let l = fixed(8);
    for i in 0..100u32 {
        let p = l.try_acquire().unwrap();
        match i % 3 {
            0 => p.success(10),
            1 => p.ignore(),
            _ => drop(p),
        }
    }
    let held = l.try_acquire().unwrap();
    let s = l.stats();
    assert_eq!(s.admitted, 101);
    assert_eq!(s.succeeded, 34);
    assert_eq!(s.ignored, 66);
    assert_eq!(s.in_flight, 1);
    drop(held);
}
