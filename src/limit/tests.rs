//! Unit tests of the limiter's arithmetic and bookkeeping, single-threaded
//! (the races at pause points are in `pause_tests.rs`).

use super::*;
use std::vec::Vec;

pub(super) fn config(min: u32, initial: u32, max: u32) -> LimiterConfig {
    LimiterConfig {
        min_limit: min,
        initial_limit: initial,
        max_limit: max,
        background_reserve: 0,
        ..LimiterConfig::DEFAULT
    }
}

/// The gradient law.
pub(super) fn gradient(min: u32, initial: u32, max: u32) -> LimiterConfig {
    LimiterConfig {
        law: Law::Gradient,
        // 1.25: round numbers in the tests.
        tolerance: 320,
        ..config(min, initial, max)
    }
}

pub(super) fn fixed(limit: u32) -> Limiter {
    Limiter::try_new(config(limit, limit, limit)).unwrap()
}

pub(super) fn epoch(l: &Limiter) -> usize {
    epoch_of(l.hot.state.load(Ordering::Relaxed))
}

/// Drops permits until the limit is cut once; returns how many it took.
pub(super) fn overload(l: &Limiter) -> usize {
    let e = epoch(l);
    let mut n = 0;
    while epoch(l) == e {
        l.try_acquire().unwrap().dropped();
        n += 1;
        assert!(n <= 2 * MAX_LIMIT as usize, "never cut");
    }
    n
}

/// Ends `n` successes of `ticks`, each admitted beside `beside` held
/// permits (so with `beside + 1` in flight).
pub(super) fn succeed_beside(l: &Limiter, beside: usize, n: usize, ticks: u32) {
    let held: Vec<_> = (0..beside).map(|_| l.try_acquire().unwrap()).collect();
    for _ in 0..n {
        l.try_acquire().unwrap().success(ticks);
    }
    drop(held);
}

/// Drops `n` permits, each admitted and dropped in turn.
pub(super) fn drop_each(l: &Limiter, n: usize) {
    for _ in 0..n {
        l.try_acquire().unwrap().dropped();
    }
}

/// Load that never leaves a queue-free sample (3 in flight with
/// `min_limit` 2) and never finds the limit full, as closed-loop clients
/// fewer than the limit make it, at `ticks`, until a probe: returns the
/// successes it took. Fails past `most`.
pub(super) fn load_until_probe(l: &Limiter, ticks: u32, most: usize) -> usize {
    let held: Vec<_> = (0..2).map(|_| l.try_acquire().unwrap()).collect();
    let mut n = 0;
    while l.stats().probes == 0 {
        l.try_acquire().unwrap().success(ticks);
        n += 1;
        assert!(n <= most, "no probe in {most} successes");
    }
    drop(held);
    n
}

/// Fills the limit and asks once more: a request refused at the limit.
pub(super) fn refuse_at_the_limit(l: &Limiter) {
    let held: Vec<_> = (0..l.limit()).map(|_| l.try_acquire().unwrap()).collect();
    assert!(l.try_acquire().is_none());
    drop(held);
}

/// Feeds `YOUNG` queue-free successes of `ticks`, then enough more to
/// confirm it (`CHECK_AFTER`, judged to `FRESH_EVERY`): a grown-up baseline
/// no check is due for.
pub(super) fn mature(l: &Limiter, ticks: u32) {
    succeed_beside(l, 0, YOUNG + CHECK_AFTER + FRESH_EVERY + 1, ticks);
    assert_eq!(l.track.risen.load(Ordering::Relaxed), 0, "confirmed");
}

#[test]
fn presets_are_valid() {
    let c = LimiterConfig::DEFAULT;
    assert_eq!(c.validate(), Ok(()));
    assert_eq!(LimiterConfig::GRADIENT.validate(), Ok(()));
    assert_eq!((c.min_limit, c.initial_limit, c.max_limit), (2, 8, 1000));
    let l = Limiter::new(c);
    assert_eq!(l.limit(), 8);
    assert_eq!(l.in_flight(), 0);
    assert_eq!(l.baseline(), None);
}

#[test]
fn invalid_configs_are_rejected_by_try_new() {
    let d = LimiterConfig::DEFAULT;
    let cases = [
        (
            LimiterConfig { min_limit: 0, ..d },
            ConfigError::ZeroMinLimit,
        ),
        (
            LimiterConfig {
                min_limit: 3000,
                ..d
            },
            ConfigError::MinAboveMax,
        ),
        (
            LimiterConfig {
                max_limit: MAX_LIMIT + 1,
                ..d
            },
            ConfigError::MaxTooLarge,
        ),
        (
            LimiterConfig {
                initial_limit: 1,
                ..d
            },
            ConfigError::InitialOutOfRange,
        ),
        (
            LimiterConfig {
                initial_limit: 1001,
                ..d
            },
            ConfigError::InitialOutOfRange,
        ),
        (
            LimiterConfig { backoff: 0, ..d },
            ConfigError::BackoffOutOfRange,
        ),
        (
            LimiterConfig { backoff: 256, ..d },
            ConfigError::BackoffOutOfRange,
        ),
        (
            LimiterConfig {
                tolerance: 255,
                ..d
            },
            ConfigError::ToleranceBelowOne,
        ),
        (
            LimiterConfig {
                background_share: 0,
                ..d
            },
            ConfigError::BadShares,
        ),
        (
            LimiterConfig {
                background_share: 200,
                normal_share: 100,
                ..d
            },
            ConfigError::BadShares,
        ),
        (
            LimiterConfig {
                normal_share: 257,
                ..d
            },
            ConfigError::BadShares,
        ),
        (
            LimiterConfig {
                background_reserve: 129,
                ..d
            },
            ConfigError::BadReserves,
        ),
        (
            LimiterConfig {
                normal_reserve: 193,
                ..d
            },
            ConfigError::BadReserves,
        ),
    ];
    for (c, e) in cases {
        assert_eq!(c.validate(), Err(e), "{c:?}");
        assert_eq!(Limiter::try_new(c).err(), Some(e), "{c:?}");
    }
    // The edges that are valid.
    let edge = LimiterConfig {
        law: Law::Gradient,
        min_limit: 1,
        initial_limit: MAX_LIMIT,
        max_limit: MAX_LIMIT,
        backoff: 255,
        tolerance: 256,
        latency_floor: u32::MAX,
        normal_share: 256,
        background_share: 1,
        normal_reserve: 256,
        background_reserve: 1,
        enforce: false,
        backlog: 0,
        backlog_order: super::BacklogOrder::Fifo,
    };
    assert_eq!(edge.validate(), Ok(()));
    assert_eq!(Limiter::try_new(edge).unwrap().limit(), MAX_LIMIT);
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
fn at_a_limit_of_one_only_critical_is_admitted() {
    let c = LimiterConfig {
        background_share: 256,
        normal_share: 256,
        normal_reserve: 256,
        background_reserve: 256,
        ..config(1, 1, 1)
    };
    let l = Limiter::try_new(c).unwrap();
    assert!(l.try_acquire_with(Priority::Background).is_none());
    assert!(l.try_acquire_with(Priority::Normal).is_none());
    let p = l.try_acquire().unwrap();
    assert!(l.try_acquire().is_none());
    drop(p);
    assert_eq!(l.stats().shed, [1, 1, 1]);
}

#[test]
fn lower_classes_never_take_the_last_permit() {
    // Shares of 100 %, but the last permit is Critical's.
    let c = LimiterConfig {
        background_share: 256,
        normal_share: 256,
        ..config(4, 4, 4)
    };
    let l = Limiter::try_new(c).unwrap();
    let held: Vec<_> = (0..3)
        .map(|_| l.try_acquire_with(Priority::Background).unwrap())
        .collect();
    assert!(l.try_acquire_with(Priority::Normal).is_none());
    let last = l.try_acquire().unwrap();
    drop((held, last));
}

#[test]
fn a_reserve_admits_its_class_while_the_others_fill_the_limit() {
    // 20 × 26/256 = 2 background permits whatever the others hold.
    let c = LimiterConfig {
        background_reserve: 26,
        ..config(20, 20, 20)
    };
    let l = Limiter::try_new(c).unwrap();
    let mut held: Vec<_> = (0..15).map(|_| l.try_acquire().unwrap()).collect();
    // 15 in flight: above the 50 % ceiling, below the reserve.
    held.push(l.try_acquire_with(Priority::Background).unwrap());
    held.push(l.try_acquire_with(Priority::Background).unwrap());
    assert!(l.try_acquire_with(Priority::Background).is_none());
    assert_eq!(l.cold.holding[1].load(Ordering::Relaxed), 2);
    // Normal has no reserve: 17 ≥ 15 is its ceiling.
    assert!(l.try_acquire_with(Priority::Normal).is_none());
    // Critical takes the rest, and then the reserve cannot take the last.
    while let Some(p) = l.try_acquire() {
        held.push(p);
    }
    assert_eq!(held.len(), 20);
    let bg = held.pop().unwrap();
    drop(bg); // a critical one: 19 in flight, background holds 2
    assert!(l.try_acquire_with(Priority::Background).is_none());
    // Every outcome gives the reserved count back.
    let (b1, b2) = (held.remove(15), held.remove(15));
    b1.success(10);
    b2.dropped();
    assert_eq!(l.cold.holding[1].load(Ordering::Relaxed), 0);
    drop(held);
    let b = l.try_acquire_with(Priority::Background).unwrap();
    assert_eq!(l.cold.holding[1].load(Ordering::Relaxed), 1);
    b.ignore();
    assert_eq!(l.cold.holding[1].load(Ordering::Relaxed), 0);
}

#[test]
fn shadow_mode_admits_and_counts_what_it_would_shed() {
    let c = LimiterConfig {
        enforce: false,
        ..config(2, 2, 4)
    };
    let l = Limiter::try_new(c).unwrap();
    let held: Vec<_> = (0..4).map(|_| l.try_acquire().unwrap()).collect();
    // max_limit still bounds admission.
    assert!(l.try_acquire().is_none());
    assert_eq!(l.limit(), 2);
    assert_eq!(l.stats().shed, [3, 0, 0]);
    drop(held);
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
#[cfg_attr(
    miri,
    ignore = "long runs of samples on one thread; `cargo test` runs it"
)]
fn aimd_grows_once_per_window_by_a_step_that_doubles() {
    // Windows of max(limit, 16) successes; the step doubles up to a quarter
    // of the limit.
    let l = Limiter::try_new(config(1, 40, 200)).unwrap();
    // A grown-up baseline (and the first window: 32 app-limited successes).
    succeed_beside(&l, 0, YOUNG, 10);
    succeed_beside(&l, 20, 8, 10); // the window's 40 successes so far
    assert_eq!(l.limit(), 41);
    let mut limit = 41;
    for expect in [43, 47, 55, 68, 85] {
        // Each admitted beside half the limit held: not application-limited.
        let beside = limit as usize / 2;
        succeed_beside(&l, beside, limit as usize - 1, 10);
        assert_eq!(l.limit(), limit, "a window is {limit} successes");
        succeed_beside(&l, beside, 1, 10);
        assert_eq!(l.limit(), expect);
        limit = expect;
    }
    assert_eq!(l.stats().increases, 6);
    // A cut puts the step back to 1.
    overload(&l);
    let cut = l.limit();
    assert_eq!(cut, 85 * 230 / 256);
    // The first window after a cut starts after the permits then in flight
    // (none here).
    succeed_beside(&l, cut as usize / 2, cut as usize, 10);
    assert_eq!(l.limit(), cut + 1);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "long runs of samples on one thread; `cargo test` runs it"
)]
fn aimd_no_growth_while_in_flight_is_below_half_the_limit() {
    let l = Limiter::try_new(config(1, 4, 10)).unwrap();
    for _ in 0..1000 {
        l.try_acquire().unwrap().success(10);
    }
    assert_eq!(l.limit(), 4);
    // Two at a time is half of 4: that grows.
    succeed_beside(&l, 1, 16, 10);
    assert_eq!(l.limit(), 5);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "long runs of samples on one thread; `cargo test` runs it"
)]
fn limit_never_exceeds_max() {
    for c in [config(1, 3, 4), gradient(1, 3, 4)] {
        let l = Limiter::try_new(c).unwrap();
        for _ in 0..100 {
            let ps: Vec<_> = (0..l.limit()).map(|_| l.try_acquire().unwrap()).collect();
            for p in ps {
                p.success(5);
            }
        }
        assert_eq!(l.limit(), 4, "{:?}", c.law);
    }
}

#[test]
fn aimd_cuts_once_more_than_half_a_window_is_overload() {
    let l = Limiter::try_new(config(1, 100, 200)).unwrap();
    l.try_acquire().unwrap().success(10); // the baseline
                                          // A window of 100: 40 good successes, then drops. The 21st drop is the
                                          // majority so far.
    succeed_beside(&l, 0, 40, 10);
    let burst: Vec<_> = (0..30).map(|_| l.try_acquire().unwrap()).collect();
    let mut burst = burst.into_iter();
    for p in burst.by_ref().take(20) {
        p.dropped();
    }
    assert_eq!(l.limit(), 100);
    burst.next().unwrap().dropped();
    // ⌊100 × 230 / 256⌋ = 89, once.
    assert_eq!(l.limit(), 89);
    for p in burst {
        p.dropped(); // from the old epoch
    }
    assert_eq!(l.limit(), 89);
    let s = l.stats();
    assert_eq!((s.decreases, s.dropped), (1, 30));
    // The next epoch needs its own majority: with no success in it yet, 9
    // drops (more than half of the smallest window).
    assert_eq!(overload(&l), 9);
    assert_eq!(l.limit(), 79);
    // Scattered drops among good successes never cut: 1 in 4.
    let cuts = l.stats().decreases;
    for _ in 0..100 {
        succeed_beside(&l, 0, 3, 10);
        l.try_acquire().unwrap().dropped();
    }
    assert_eq!(l.stats().decreases, cuts);
}

#[test]
fn gradient_cuts_at_once_on_a_drop_once_per_epoch() {
    let l = Limiter::try_new(gradient(1, 100, 200)).unwrap();
    let burst: Vec<_> = (0..10).map(|_| l.try_acquire().unwrap()).collect();
    for p in burst {
        p.dropped();
    }
    assert_eq!(l.limit(), 89);
    assert_eq!(l.stats().decreases, 1);
    l.try_acquire().unwrap().dropped();
    assert_eq!(l.limit(), 79);
}

/// Once a queue-free mean exists, a drop cuts only if a success was counted
/// since the last change: when every answer is a drop (a backlog in front
/// of the limiter gone stale), the limit is cut once, not to the floor.
#[test]
fn gradient_drops_with_no_success_between_cut_once() {
    let l = Limiter::try_new(gradient(1, 100, 200)).unwrap();
    succeed_beside(&l, 0, 2, 10);
    let burst: Vec<_> = (0..10).map(|_| l.try_acquire().unwrap()).collect();
    for p in burst {
        p.dropped();
    }
    assert_eq!(l.limit(), 89);
    drop_each(&l, 20);
    assert_eq!((l.limit(), l.stats().decreases), (89, 1));
    l.try_acquire().unwrap().success(10);
    l.try_acquire().unwrap().dropped();
    assert_eq!((l.limit(), l.stats().decreases), (79, 2));
}

/// A window of 100 with 40 successes counted: the 20th drop is half of
/// them and does not cut, the 21st passes half and cuts; with 2 counted,
/// it takes 9 drops (more than 8).
#[test]
fn gradient_drops_cut_once_they_pass_half_the_windows_successes() {
    let l = Limiter::try_new(gradient(1, 100, 200)).unwrap();
    succeed_beside(&l, 0, 40, 10);
    drop_each(&l, 20);
    assert_eq!(l.stats().decreases, 0);
    l.try_acquire().unwrap().dropped();
    assert_eq!((l.limit(), l.stats().decreases), (89, 1));
    succeed_beside(&l, 0, 2, 10);
    drop_each(&l, 8);
    assert_eq!(l.stats().decreases, 1);
    l.try_acquire().unwrap().dropped();
    assert_eq!((l.limit(), l.stats().decreases), (79, 2));
}

/// One answer in 15 late (a lower class admitted from a backlog near its
/// deadline), the first after one success: over ten windows no cut, and
/// the limit is where the same successes alone leave it.
#[test]
fn gradient_scattered_drops_never_cut() {
    let run = |drops: bool| {
        let l = Limiter::try_new(gradient(2, 16, 200)).unwrap();
        // Two in flight: admitted at or under `min_limit`, queue-free.
        for i in 0..160 {
            if drops && i % 15 == 1 {
                l.try_acquire().unwrap().dropped();
            }
            succeed_beside(&l, 1, 1, 10);
        }
        (l.limit(), l.stats().decreases)
    };
    let (alone, _) = run(false);
    assert_eq!(run(true), (alone, 0));
}

/// Drops of permits admitted before a change are not counted in the window
/// after it.
#[test]
fn gradient_drops_from_before_a_change_are_not_counted() {
    let l = Limiter::try_new(gradient(1, 100, 200)).unwrap();
    succeed_beside(&l, 0, 2, 10);
    let old: Vec<_> = (0..10).map(|_| l.try_acquire().unwrap()).collect();
    overload(&l);
    assert_eq!(l.limit(), 89);
    for p in old {
        p.dropped();
    }
    l.try_acquire().unwrap().success(10);
    l.try_acquire().unwrap().dropped();
    assert_eq!((l.limit(), l.stats().decreases), (89, 1));
}

#[test]
fn permits_from_before_the_cut_cannot_cut_or_grow() {
    for c in [config(1, 20, 40), gradient(1, 20, 40)] {
        let l = Limiter::try_new(c).unwrap();
        l.try_acquire().unwrap().success(10); // a baseline
        let old: Vec<_> = (0..10).map(|_| l.try_acquire().unwrap()).collect();
        overload(&l);
        let cut = l.limit();
        assert_eq!(cut, 17);
        // Slow and fast successes from the old epoch: neither cut nor grow.
        for (i, p) in old.into_iter().enumerate() {
            p.success(if i % 2 == 0 { 1_000_000 } else { 10 });
        }
        assert_eq!(l.limit(), cut, "{:?}", c.law);
        assert_eq!(l.stats().decreases, 1);
    }
}

#[test]
fn small_limit_falls_where_rounding_2x09_would_stick() {
    let l = Limiter::try_new(config(1, 2, 10)).unwrap();
    overload(&l);
    assert_eq!(l.limit(), 1);
    // And it stops at min_limit.
    drop_each(&l, 100);
    assert_eq!(l.limit(), 1);
    assert_eq!(l.stats().decreases, 1);
}

#[test]
fn cut_stops_at_min_limit() {
    let l = Limiter::try_new(config(15, 16, 20)).unwrap();
    overload(&l);
    assert_eq!(l.limit(), 15);
    drop_each(&l, 100);
    assert_eq!(l.limit(), 15);
}

#[test]
fn zero_latency_counts_as_one_tick() {
    let l = fixed(4);
    l.try_acquire().unwrap().success(0);
    assert_eq!(l.baseline(), Some(1));
}

#[test]
#[cfg_attr(
    miri,
    ignore = "long runs of samples on one thread; `cargo test` runs it"
)]
fn extreme_latencies_neither_overflow_nor_panic() {
    for c in [config(1, 10, 20), gradient(1, 10, 20)] {
        let l = Limiter::try_new(c).unwrap();
        l.try_acquire().unwrap().success(u32::MAX);
        assert_eq!(l.baseline(), Some(MAX_TICKS));
        assert_eq!(l.stats().mean, Some(MAX_TICKS));
        for _ in 0..200 {
            l.try_acquire().unwrap().success(1);
            l.try_acquire().unwrap().success(u32::MAX);
        }
        succeed_beside(&l, 0, 100, u32::MAX);
        succeed_beside(&l, 0, 100, 0);
        assert!(l.limit() >= 1);
    }
}

/// Windows count successes: ignored permits (and drops) between them
/// neither close a growth window early nor shift it.
#[test]
fn ignored_releases_do_not_advance_the_growth_window() {
    let l = Limiter::try_new(config(1, 4, 10)).unwrap();
    // Holding one permit puts every further admission at half the limit.
    let anchor = l.try_acquire().unwrap();
    for _ in 0..15 {
        l.try_acquire().unwrap().success(10);
        for _ in 0..5 {
            l.try_acquire().unwrap().ignore();
            drop(l.try_acquire().unwrap());
        }
    }
    assert_eq!(
        l.limit(),
        4,
        "150 ignores and 15 successes are not a window"
    );
    l.try_acquire().unwrap().success(10);
    assert_eq!(l.limit(), 5);
    drop(anchor);
    let s = l.stats();
    assert_eq!((s.succeeded, s.ignored, s.admitted), (16, 151, 167));
}

#[test]
fn epoch_wraps_around_without_losing_once_per_window() {
    let l = Limiter::with_start(gradient(1, 100, 200), EPOCH_MASK, 0).unwrap();
    assert_eq!(epoch(&l), EPOCH_MASK);
    let old = l.try_acquire().unwrap();
    l.try_acquire().unwrap().dropped();
    assert_eq!(epoch(&l), 0);
    assert_eq!(l.limit(), 89);
    old.dropped(); // from epoch MASK, now 0: stale
    assert_eq!(l.limit(), 89);
    l.try_acquire().unwrap().dropped();
    assert_eq!(epoch(&l), 1);
    assert_eq!(l.limit(), 79);
    assert_eq!(l.in_flight(), 0);
}

#[test]
fn counters_near_wraparound_keep_in_flight_and_windows() {
    // Each release counter starts 2 short of wrapping `usize`, so their sum
    // (3 · start) wraps too, and the admitted field starts 6 short of its
    // own wrap: all of them wrap during the test.
    let start = usize::MAX - 1;
    let l = Limiter::with_start(config(1, 16, 40), 0, start).unwrap();
    assert_eq!(
        admitted_of(l.hot.state.load(Ordering::Relaxed)),
        ADMITTED_MASK - 5
    );
    assert_eq!(l.in_flight(), 0);
    // The step doubles (up to a quarter of the limit): 16 → 17 → 19 → 23.
    for (round, expect) in [17, 19, 23].into_iter().enumerate() {
        let limit = l.limit();
        let ps: Vec<_> = (0..limit).map(|_| l.try_acquire().unwrap()).collect();
        assert_eq!(l.in_flight(), limit);
        assert!(l.try_acquire().is_none());
        for p in ps {
            p.success(10);
        }
        assert_eq!(l.in_flight(), 0);
        assert_eq!(l.limit(), expect, "round {round}");
    }
    assert_eq!(l.baseline(), Some(10));
    // Now the other two counters wrap, with permits held across it.
    let held: Vec<_> = (0..12).map(|_| l.try_acquire().unwrap()).collect();
    for _ in 0..3 {
        l.try_acquire().unwrap().ignore();
        assert_eq!(l.in_flight(), 12);
    }
    for p in held {
        p.dropped();
    }
    assert_eq!(l.in_flight(), 0);
    assert_eq!(l.stats().decreases, 1);
    let s = l.stats();
    // A window of 23: 12 drops are its majority.
    assert_eq!(s.succeeded, start.wrapping_add(16 + 17 + 19));
    assert_eq!(s.dropped, start.wrapping_add(12));
    assert_eq!(s.ignored, start.wrapping_add(3));
    assert_eq!(s.admitted, start.wrapping_mul(3).wrapping_add(52 + 12 + 3));
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

/// `retry_after` answers `Some(0)` exactly when a request of the class
/// would be admitted now: never to a refused request (a wait under one
/// tick rounds up to 1), and always to one its reserve admits.
#[test]
fn retry_after_is_zero_exactly_when_admitted() {
    // A 1-tick service at a limit of 8: one permit frees every 1/8 tick.
    let l = Limiter::try_new(config(2, 8, 8)).unwrap();
    l.try_acquire().unwrap().success(1);
    let held: Vec<_> = (0..8).map(|_| l.try_acquire().unwrap()).collect();
    assert!(l.try_acquire().is_none());
    assert_eq!(l.retry_after(Priority::Critical), Some(1));
    drop(held);
    // Background holding nothing, 7 of 8 in flight: its reserve admits it.
    let l = Limiter::try_new(LimiterConfig {
        background_reserve: LimiterConfig::DEFAULT.background_reserve,
        ..config(8, 8, 8)
    })
    .unwrap();
    l.try_acquire().unwrap().success(100);
    let held: Vec<_> = (0..6).map(|_| l.try_acquire().unwrap()).collect();
    assert_eq!(l.retry_after(Priority::Background), Some(0));
    let b = l
        .try_acquire_with(Priority::Background)
        .expect("on its reserve");
    assert_ne!(l.retry_after(Priority::Background), Some(0));
    assert!(l.try_acquire_with(Priority::Background).is_none());
    drop((held, b));
}
