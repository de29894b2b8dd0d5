//! Weighted admission (`try_acquire_n_with`) against a model written from
//! the documented rule, at every limit up to 100, in every class and with
//! every kind of reserve: `in_flight + n` within the class's threshold, or
//! within its reserve while the last permit stays free; `n` units in every
//! count; one latency sample per permit.

use super::class_tests::{every_limit, holding, reserve_configs};
use super::tests::{config, gradient};
use super::*;
use std::format;
use std::vec::Vec;

const ALL_CLASSES: [Priority; 3] = [Priority::Critical, Priority::Normal, Priority::Background];

/// What the documentation promises, computed apart from the limiter's code:
/// whether `n` units of `class` are admitted at `limit` with `in_flight`
/// units held, `own` of them by `class`.
fn model_admits(
    c: &LimiterConfig,
    limit: u32,
    class: Priority,
    n: u32,
    in_flight: u32,
    own: u32,
) -> bool {
    let (limit, n, in_flight, own) = (limit as u64, n as u64, in_flight as u64, own as u64);
    if n == 0 || n > c.max_limit as u64 {
        return false;
    }
    let (share, reserve) = match class {
        Priority::Critical => return in_flight + n <= limit,
        Priority::Normal => (c.normal_share as u64, c.normal_reserve as u64),
        Priority::Background => (c.background_share as u64, c.background_reserve as u64),
    };
    let last_free = limit.saturating_sub(1);
    let threshold = (limit * share / 256).min(last_free);
    let reserved = (limit * reserve / 256).max(1).min(last_free);
    in_flight + n <= threshold || (reserve != 0 && in_flight + n < limit && own + n <= reserved)
}

/// The units the limiter counts for `class`, if it counts them (a class
/// with a reserve).
fn counted(l: &Limiter, c: &LimiterConfig, class: Priority) -> Option<usize> {
    match class {
        Priority::Normal if c.normal_reserve != 0 => Some(holding(l)[0]),
        Priority::Background if c.background_reserve != 0 => Some(holding(l)[1]),
        _ => None,
    }
}

/// With `own` units held by the class and `critical` more by Critical, each
/// weight from 0 to `limit + 1` is admitted exactly when the model says,
/// at a fixed limit; an admitted one is in flight with its units, a refused
/// one counted as shed, and its release gives every unit back.
#[test]
fn weighted_admission_follows_the_model_at_every_limit() {
    for limit in every_limit() {
        for (name, c) in reserve_configs(limit) {
            let l = Limiter::try_new(c).unwrap();
            for class in ALL_CLASSES {
                let reserved = match class {
                    Priority::Normal => c.normal_reserve,
                    Priority::Background => c.background_reserve,
                    Priority::Critical => 0,
                };
                let reserved = (limit * reserved as u32 / 256).max(1).min(limit - 1);
                let mut owns = std::vec![0, 1, reserved];
                owns.dedup();
                for own in owns {
                    let at = format!("limit {limit}, {name}, {class:?}, own {own}");
                    let mine = (own > 0).then(|| l.try_acquire_n_with(class, own));
                    match mine {
                        Some(None) => {
                            assert!(!model_admits(&c, limit, class, own, 0, 0), "{at}");
                            continue;
                        }
                        Some(Some(_)) => assert!(model_admits(&c, limit, class, own, 0, 0), "{at}"),
                        None => {}
                    }
                    for critical in 0..=limit - own {
                        let crit = (critical > 0).then(|| l.try_acquire_n(critical).unwrap());
                        let in_flight = own + critical;
                        for n in 0..=limit + 1 {
                            // Formatted only on failure.
                            let at = (limit, name, class, own, critical, n);
                            let shed = l.cold.shed[class as usize].get();
                            let before = counted(&l, &c, class);
                            let want = model_admits(&c, limit, class, n, in_flight, own);
                            match l.try_acquire_n_with(class, n) {
                                Some(p) => {
                                    assert!(want, "{at:?}: admitted");
                                    assert_eq!(p.weight(), n);
                                    assert_eq!(p.in_flight_at_admission(), in_flight + n, "{at:?}");
                                    let now = l.in_flight();
                                    assert_eq!(now, in_flight + n, "{at:?}");
                                    assert!(now <= limit, "{at:?}: over the limit");
                                    if class != Priority::Critical {
                                        assert!(now < limit, "{at:?}: the last permit");
                                    }
                                    assert_eq!(l.cold.shed[class as usize].get(), shed, "{at:?}");
                                    let more = before.map(|b| b + n as usize);
                                    assert_eq!(counted(&l, &c, class), more, "{at:?}");
                                }
                                None => {
                                    assert!(!want, "{at:?}: refused");
                                    assert_eq!(
                                        l.cold.shed[class as usize].get(),
                                        shed + 1,
                                        "{at:?}"
                                    );
                                }
                            }
                            assert_eq!(l.in_flight(), in_flight, "{at:?}: released");
                            assert_eq!(counted(&l, &c, class), before, "{at:?}: released");
                        }
                        drop(crit);
                    }
                    drop(mine);
                    assert_eq!((l.in_flight(), holding(&l)), (0, [0, 0]), "{at}");
                }
            }
            assert_eq!(l.limit(), limit);
        }
    }
}

/// Mixed single and weighted permits of every class, ended every way, in an
/// order from a fixed generator: each admission as the model says, every
/// count in units, and all back to 0.
#[test]
fn weighted_and_single_permits_mix_and_account_in_units() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for limit in every_limit() {
        for (name, c) in reserve_configs(limit) {
            let l = Limiter::try_new(c).unwrap();
            let mut held: Vec<(Permit<'_>, Priority)> = Vec::new();
            let (mut admitted, mut units) = (0usize, [0usize; 3]);
            for step in 0..if cfg!(miri) { 20 } else { 200 } {
                let r = next();
                let in_flight: u32 = held.iter().map(|(p, _)| p.weight()).sum();
                if r % 3 != 0 || held.is_empty() {
                    let class = ALL_CLASSES[(r >> 8) as usize % 3];
                    let n = if r & 0x10 != 0 {
                        1
                    } else {
                        (r >> 16) as u32 % (limit + 2)
                    };
                    let own = held
                        .iter()
                        .filter(|h| h.1 == class)
                        .map(|(p, _)| p.weight())
                        .sum();
                    let want = model_admits(&c, limit, class, n, in_flight, own);
                    let got = l.try_acquire_n_with(class, n);
                    let at =
                        format!("limit {limit}, {name}, step {step}: {class:?} {n} at {in_flight}");
                    assert_eq!(got.is_some(), want, "{at}");
                    if let Some(p) = got {
                        admitted += n as usize;
                        held.push((p, class));
                    }
                } else {
                    let (p, _) = held.swap_remove((r >> 8) as usize % held.len());
                    let w = p.weight() as usize;
                    let outcome = (r >> 4) as usize % 4;
                    match outcome {
                        0 => p.success(10),
                        1 => p.dropped(),
                        2 => p.ignore(),
                        _ => drop(p),
                    }
                    units[outcome.min(2)] += w;
                }
                let s = l.stats();
                let in_flight: u32 = held.iter().map(|(p, _)| p.weight()).sum();
                assert_eq!(s.in_flight, in_flight);
                assert!(s.in_flight <= limit);
                assert_eq!(
                    (s.admitted, s.succeeded, s.dropped, s.ignored),
                    (admitted, units[0], units[1], units[2])
                );
            }
            drop(held);
            assert_eq!((l.in_flight(), holding(&l)), (0, [0, 0]));
        }
    }
}

/// In shadow mode a weighted request is admitted up to `max_limit` and
/// counted as shed where the limit would refuse it; beyond `max_limit` it
/// is refused, so in flight never passes `max_limit`.
#[test]
fn shadow_mode_admits_weighted_requests_up_to_max_limit() {
    let c = LimiterConfig {
        enforce: false,
        ..config(4, 4, 10)
    };
    let l = Limiter::try_new(c).unwrap();
    let a = l.try_acquire_n(3).unwrap(); // within the limit
    let b = l.try_acquire_n(5).unwrap(); // 8 > 4: would be shed
    assert_eq!(l.stats().shed, [1, 0, 0]);
    assert!(l.try_acquire_n(3).is_none()); // 11 > max_limit
    let d = l.try_acquire_n(2).unwrap(); // 10 = max_limit
    assert_eq!((l.in_flight(), l.stats().shed), (10, [3, 0, 0]));
    drop((a, b, d));
    assert_eq!(l.in_flight(), 0);
}

/// A weight of 0 or above `max_limit` is never admitted (counted as shed)
/// and leaves the admission word as it was.
#[test]
fn weights_outside_one_to_max_limit_are_refused() {
    let l = Limiter::try_new(config(2, 8, 8)).unwrap();
    let word = l.hot.state.load(Ordering::Relaxed);
    for (n, class) in [
        (0, Priority::Critical),
        (9, Priority::Normal),
        (u32::MAX, Priority::Background),
    ] {
        assert!(l.try_acquire_n_with(class, n).is_none());
    }
    assert_eq!(l.stats().shed, [1, 1, 1]);
    assert_eq!(l.hot.state.load(Ordering::Relaxed), word);
    assert_eq!(l.try_acquire_n(8).unwrap().weight(), 8);
}

/// A weighted success is one latency sample: the baseline learns it once
/// (when it was queue-free in units) and the gradient law's window counts
/// it once.
#[test]
fn a_weighted_success_is_one_sample() {
    let l = Limiter::try_new(config(4, 8, 8)).unwrap();
    l.try_acquire_n(4).unwrap().success(100); // 4 ≤ min_limit: queue-free
    assert_eq!(l.track.free_seen.load(Ordering::Relaxed), 1);
    assert_eq!(l.stats().succeeded, 4);
    assert_eq!(l.baseline(), Some(100));
    l.try_acquire_n(5).unwrap().success(900); // 5 > min_limit: queued
    assert_eq!(l.track.free_seen.load(Ordering::Relaxed), 1);
    assert_eq!(l.baseline(), Some(100));

    let g = Limiter::try_new(gradient(1, 8, 8)).unwrap();
    g.try_acquire().unwrap().success(100); // the mean the window needs
    let count = |g: &Limiter| g.track.law[1].load(Ordering::Relaxed) >> gradient::SUM_BITS;
    assert_eq!(count(&g), 1);
    g.try_acquire_n(6).unwrap().success(100);
    assert_eq!(count(&g), 2);
}

/// Under AIMD a weighted success counts its weight in the window: slow
/// weighted successes that are a majority of the window's successes cut,
/// as that many slow single ones would.
#[test]
fn aimd_counts_a_weighted_success_as_its_weight() {
    let l = Limiter::try_new(config(1, 16, 16)).unwrap();
    l.try_acquire().unwrap().success(10); // the baseline
    let limit = l.limit();
    // A window of 16 successes: two slow weight-4 successes are 8, half.
    for _ in 0..2 {
        l.try_acquire_n(4).unwrap().success(100);
    }
    assert_eq!(l.limit(), limit);
    // A third makes 12 of 16: the majority, one cut.
    l.try_acquire_n(4).unwrap().success(100);
    assert_eq!(l.limit(), (limit * 230) >> 8);
    assert_eq!(l.stats().decreases, 1);
}
