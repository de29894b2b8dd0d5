//! Only Critical takes the last permit, at every limit up to 100 and with
//! every kind of reserve: what a reserve admits, what it leaves, how each
//! release gives its count back, and what shadow mode counts as shed.

use super::*;
use std::format;
use std::vec::Vec;

/// Limits the last-permit checks run at: under Miri, which looks for
/// undefined behaviour rather than for a wrong count, the smallest four
/// (the checks' work grows as the limit squared).
pub(super) fn every_limit() -> core::ops::RangeInclusive<u32> {
    1..=if cfg!(miri) { 4 } else { 100 }
}

/// The reserves the last-permit checks run with, on a limit fixed at
/// `limit`: the default's (Background 5 %), both classes' (10 % and 5 %),
/// both at their class's share (the most allowed), and none.
pub(super) fn reserve_configs(limit: u32) -> [(&'static str, LimiterConfig); 4] {
    let d = LimiterConfig {
        min_limit: limit,
        initial_limit: limit,
        max_limit: limit,
        ..LimiterConfig::DEFAULT
    };
    [
        ("default reserves", d),
        (
            "both reserves",
            LimiterConfig {
                normal_reserve: 26,
                background_reserve: 13,
                ..d
            },
        ),
        (
            "reserves at the shares",
            LimiterConfig {
                normal_reserve: d.normal_share,
                background_reserve: d.background_share,
                ..d
            },
        ),
        (
            "no reserves",
            LimiterConfig {
                background_reserve: 0,
                ..d
            },
        ),
    ]
}

const LOWER: [Priority; 2] = [Priority::Normal, Priority::Background];

/// The permits the limiter counts for Normal and Background.
pub(super) fn holding(l: &Limiter) -> [usize; 2] {
    [
        l.cold.holding[0].load(Ordering::Relaxed),
        l.cold.holding[1].load(Ordering::Relaxed),
    ]
}

/// With `limit − 1` in flight, held by Critical alone or by a lower class
/// and Critical, no lower class is admitted, reserve or not, and Critical
/// gets the last permit.
#[test]
fn a_reserve_never_takes_the_last_permit() {
    for limit in every_limit() {
        for (name, c) in reserve_configs(limit) {
            let l = Limiter::try_new(c).unwrap();
            for holder in LOWER {
                // `lower` permits of `holder`, taken first while it is
                // admitted, then Critical up to `limit − 1` in flight.
                for lower in 0..limit {
                    let at = format!("limit {limit}, {name}, {lower} held by {holder:?}");
                    let mut held: Vec<_> = (0..lower)
                        .map_while(|_| l.try_acquire_with(holder))
                        .collect();
                    if held.len() < lower as usize {
                        break; // as many as `holder` gets: checked already
                    }
                    while held.len() < limit as usize - 1 {
                        held.push(
                            l.try_acquire()
                                .unwrap_or_else(|| panic!("{at}: Critical refused")),
                        );
                    }
                    let mut counted = [0; 2];
                    if c.normal_reserve != 0 && holder == Priority::Normal {
                        counted[0] = lower as usize;
                    }
                    if c.background_reserve != 0 && holder == Priority::Background {
                        counted[1] = lower as usize;
                    }
                    assert_eq!(holding(&l), counted, "{at}");
                    for asker in LOWER {
                        assert!(
                            l.try_acquire_with(asker).is_none(),
                            "{at}: {asker:?} took the last permit"
                        );
                    }
                    assert_eq!(holding(&l), counted, "{at}");
                    let last = l.try_acquire();
                    assert!(last.is_some(), "{at}: Critical refused the last permit");
                    assert!(l.try_acquire().is_none(), "{at}: over the limit");
                    drop((held, last));
                    assert_eq!((l.in_flight(), holding(&l)), (0, [0, 0]), "{at}");
                }
            }
        }
    }
}

/// A reserve admits its class, whatever Critical holds above the class's
/// share, up to its reserved count while that leaves the last permit free;
/// every way of ending a permit gives its count back.
#[test]
fn a_reserve_admits_its_class_up_to_the_last_permit_but_one() {
    for limit in every_limit() {
        for (name, c) in reserve_configs(limit) {
            for class in LOWER {
                let i = class as usize;
                let (share, reserve) = match class {
                    Priority::Normal => (c.normal_share, c.normal_reserve),
                    _ => (c.background_share, c.background_reserve),
                };
                if reserve == 0 {
                    continue;
                }
                let l = Limiter::try_new(c).unwrap();
                // What the class is admitted to on its share, and on its
                // reserve: at least one permit, never the last.
                let share_t = (limit * share as u32 / 256).min(limit - 1);
                let reserved = (limit * reserve as u32 / 256).max(1).min(limit - 1);
                for critical in share_t..limit {
                    let at = format!("limit {limit}, {name}, {class:?}, {critical} Critical");
                    let mut held: Vec<_> =
                        (0..critical).map(|_| l.try_acquire().unwrap()).collect();
                    let mine: Vec<_> = core::iter::from_fn(|| l.try_acquire_with(class)).collect();
                    let n = mine.len();
                    assert_eq!(n as u32, reserved.min(limit - 1 - critical), "{at}");
                    assert_eq!(holding(&l)[i - 1], n, "{at}");
                    // A Critical release leaves the count alone.
                    if let Some(p) = held.pop() {
                        p.success(10);
                        assert_eq!(holding(&l)[i - 1], n, "{at}");
                        held.push(l.try_acquire().unwrap());
                    }
                    // Each way of ending one of the class's permits gives its
                    // count back, and the reserve admits the class again.
                    let mut mine = mine;
                    for end in 0..4 {
                        let Some(p) = mine.pop() else { break };
                        match end {
                            0 => p.success(10),
                            1 => p.dropped(),
                            2 => p.ignore(),
                            _ => drop(p),
                        }
                        assert_eq!(holding(&l)[i - 1], n - 1, "{at}, end {end}");
                        let again = l.try_acquire_with(class);
                        assert!(again.is_some(), "{at}, end {end}: not admitted again");
                        mine.push(again.unwrap());
                        assert_eq!(holding(&l)[i - 1], n, "{at}, end {end}");
                    }
                    assert_eq!(l.limit(), limit, "{at}");
                    drop((held, mine));
                    assert_eq!((l.in_flight(), holding(&l)), (0, [0, 0]), "{at}");
                }
            }
        }
    }
}

/// In shadow mode a lower class asking for the last permit is admitted and
/// counted as shed (it would have been refused); one its reserve admits
/// below that is not.
#[test]
fn shadow_mode_counts_a_lower_class_on_the_last_permit_as_shed() {
    for limit in every_limit() {
        for (name, c) in reserve_configs(limit) {
            let at = format!("limit {limit}, {name}");
            let l = Limiter::try_new(LimiterConfig {
                enforce: false,
                max_limit: limit + 2,
                ..c
            })
            .unwrap();
            let held: Vec<_> = (0..limit - 1).map(|_| l.try_acquire().unwrap()).collect();
            for asker in LOWER {
                let p = l.try_acquire_with(asker);
                assert!(p.is_some(), "{at}: shadow mode refused {asker:?}");
            }
            assert_eq!(l.stats().shed, [0, 1, 1], "{at}");
            drop(held);
            // Below the last permit the reserve admits for real.
            if limit >= 3 && c.background_reserve != 0 {
                let held: Vec<_> = (0..limit - 2).map(|_| l.try_acquire().unwrap()).collect();
                let b = l.try_acquire_with(Priority::Background).unwrap();
                assert_eq!(l.stats().shed, [0, 1, 1], "{at}");
                drop((held, b));
            }
        }
    }
}

/// At a limit where a class's share and reserve admit nothing (every class
/// but Critical at a limit of 1), a refusal with nothing in flight raises
/// the limit by one: the class gets a permit at 2, a refusal with a permit
/// out raises nothing, and the last permit stays Critical's. With
/// `max_limit` 1 the limit stays, and only Critical is admitted.
#[test]
fn a_class_refused_with_nothing_in_flight_raises_the_limit() {
    for law in [Law::Aimd, Law::Gradient] {
        for class in LOWER {
            let at = format!("{law:?}, {class:?}");
            let l = Limiter::try_new(LimiterConfig {
                law,
                min_limit: 1,
                initial_limit: 1,
                max_limit: 4,
                ..LimiterConfig::DEFAULT
            })
            .unwrap();
            assert!(l.try_acquire_with(class).is_none(), "{at}");
            assert_eq!(l.limit(), 2, "{at}");
            let p = l.try_acquire_with(class).unwrap_or_else(|| panic!("{at}"));
            assert!(l.try_acquire_with(class).is_none(), "{at}: the last permit");
            assert_eq!(l.limit(), 2, "{at}: raised with a permit out");
            let c = l.try_acquire().unwrap_or_else(|| panic!("{at}: Critical"));
            drop((p, c));
        }
    }
    let l = Limiter::try_new(super::tests::config(1, 1, 1)).unwrap();
    assert!(l.try_acquire_with(Priority::Normal).is_none());
    assert_eq!(l.limit(), 1);
    assert!(l.try_acquire().is_some());
}

/// A lower class alone, `min_limit` 1: good traffic, then drops until the
/// limit is cut to 1, then a healthy dependency again. The class must be
/// served again (before, every later request was shed and the limit stayed
/// at 1: nothing admitted, no sample to raise it).
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_lower_class_alone_is_served_again_after_a_cut_to_one() {
    for (law, class) in [
        (Law::Aimd, Priority::Normal),
        (Law::Gradient, Priority::Background),
    ] {
        let l = Limiter::try_new(LimiterConfig {
            law,
            min_limit: 1,
            initial_limit: 2,
            max_limit: 100,
            ..LimiterConfig::DEFAULT
        })
        .unwrap();
        for _ in 0..64 {
            l.try_acquire_with(class).unwrap().success(10);
        }
        for _ in 0..10_000 {
            if l.limit() == 1 {
                break;
            }
            // A success between drops: the gradient law's drops cut once
            // per success.
            if let Some(p) = l.try_acquire_with(class) {
                p.success(10);
            }
            if let Some(p) = l.try_acquire_with(class) {
                p.dropped();
            }
        }
        assert_eq!(l.limit(), 1, "{law:?}: cut to 1");
        let admitted = (0..1000)
            .filter_map(|_| l.try_acquire_with(class).map(|p| p.success(10)))
            .count();
        assert!(
            admitted >= 999,
            "{law:?}, {class:?}: {admitted} of 1000 served"
        );
    }
}
