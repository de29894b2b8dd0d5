//! The critical-section ring's watermarks: the level at the band's edges,
//! hysteresis without flapping, the transition count, every push and pop
//! path that moves the level, a ring without marks that has none, and real
//! threads where producers slow their source on `High` (exact accounting,
//! nothing shed, the queue never above the high mark). The waits need
//! `std` (and the async one `async`).
#![cfg(not(sluicegate_loom))]

use sluicegate::expire::{OlderThan, Stamp};
use sluicegate::mpmc::cs::{Level, Marked, Ring};
use sluicegate::RingStats;

/// The ring under test in `common/drain_waits.rs`.
#[cfg(feature = "std")]
type MarkedRing<T, const N: usize> = Ring<T, N, Marked>;
/// Below 16 slots every pop samples the count: `peak` is exact.
#[cfg(feature = "std")]
const EXACT_PEAK: bool = true;

#[macro_use]
#[path = "common/band_edges.rs"]
mod band_edges;
band_edges_test!(Ring<u32, 8, Marked>);

#[test]
fn hysteresis_does_not_flap_inside_the_band() {
    static RING: Ring<u8, 16, Marked> = Ring::with_watermarks(4, 12);
    for _ in 0..12 {
        RING.try_push(1).unwrap();
    }
    assert_eq!(RING.level(), Level::High);
    // Oscillate between 5 and 11 many times: High throughout.
    for _ in 0..100 {
        while RING.len() > 5 {
            RING.try_pop();
            assert_eq!(RING.level(), Level::High);
        }
        while RING.len() < 11 {
            RING.try_push(1).unwrap();
            assert_eq!(RING.level(), Level::High);
        }
    }
    assert_eq!(RING.stats().transitions, 1);
    // Down to 4 lowers it; then between 5 and 11 again: Normal throughout.
    while RING.len() > 4 {
        RING.try_pop();
    }
    assert_eq!(RING.level(), Level::Normal);
    for _ in 0..100 {
        while RING.len() < 11 {
            RING.try_push(1).unwrap();
            assert_eq!(RING.level(), Level::Normal);
        }
        while RING.len() > 5 {
            RING.try_pop();
            assert_eq!(RING.level(), Level::Normal);
        }
    }
    assert_eq!(RING.stats().transitions, 2);
}

#[test]
fn a_ring_without_marks_counts_no_transition() {
    let ring: Ring<u8, 4> = Ring::new();
    for _ in 0..10 {
        ring.push_burst(&[1, 2, 3, 4, 5]);
        ring.clear();
    }
    let stats = ring.stats();
    assert_eq!(stats.transitions, 0);
    assert_eq!(stats.rejected, 10);
}

/// Raises the level with `push` (from 0 items to the high mark 3 of a
/// ring of 4, low mark 1), then lowers it with `pop` (down to 1): each
/// closure moves one item or a few, as its path does.
fn check_path(
    name: &str,
    push: impl Fn(&Ring<u32, 4, Marked>),
    pop: impl Fn(&Ring<u32, 4, Marked>),
) {
    let ring: Ring<u32, 4, Marked> = Ring::with_watermarks(1, 3);
    while ring.len() < 3 {
        assert_eq!(ring.level(), Level::Normal, "{name}: raised early");
        push(&ring);
    }
    assert_eq!(ring.level(), Level::High, "{name}: did not raise");
    while ring.len() > 1 {
        assert_eq!(ring.level(), Level::High, "{name}: lowered early");
        pop(&ring);
    }
    assert_eq!(ring.level(), Level::Normal, "{name}: did not lower");
    assert_eq!(ring.stats().transitions, 2, "{name}");
}

#[test]
fn every_push_and_pop_path_moves_the_level() {
    let push_one = |r: &Ring<u32, 4, Marked>| r.try_push(7).unwrap();
    let pop_one = |r: &Ring<u32, 4, Marked>| {
        r.try_pop().unwrap();
    };
    check_path("try_push/try_pop", push_one, pop_one);
    check_path(
        "push_overwrite/try_pop_or_closed",
        |r| assert!(r.push_overwrite(7).is_stored()),
        |r| {
            r.try_pop_or_closed().unwrap();
        },
    );
    check_path(
        "push_burst/pop_burst",
        |r| assert_eq!(r.push_burst(&[1, 2, 3]), 3),
        |r| assert_eq!(r.pop_burst(&mut [0; 2]), 2),
    );
    check_path(
        "push_iter/drain",
        |r| assert_eq!(r.push_iter([1, 2, 3]), 3),
        |r| assert_eq!(r.drain().take(2).count(), 2),
    );
    check_path(
        "push_blocking/pop_blocking",
        |r| r.push_blocking(7).unwrap(),
        |r| {
            r.pop_blocking().unwrap();
        },
    );
    // The fresh pop that discards: both the discarded item and the one it
    // returns leave the ring.
    let ring: Ring<Stamp<u32>, 4, Marked> = Ring::with_watermarks(1, 3);
    for at in [10, 20, 30] {
        ring.try_push(Stamp { at, item: 0 }).unwrap();
    }
    assert_eq!(ring.level(), Level::High);
    let fresh = ring.try_pop_fresh(OlderThan {
        now: 25,
        budget: 10,
    });
    assert_eq!(fresh.map(|s| s.at), Some(20)); // 10 is dropped
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(ring.stats().expired, 1);
    // clear lowers it too.
    ring.try_push(Stamp { at: 40, item: 0 }).unwrap();
    ring.try_push(Stamp { at: 50, item: 0 }).unwrap();
    assert_eq!(ring.level(), Level::High);
    assert_eq!(ring.clear(), 3);
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(ring.stats().transitions, 4);
}

#[test]
fn stats_carry_the_transitions() {
    let ring: Ring<u8, 4, Marked> = Ring::with_watermarks(0, 2);
    for _ in 0..5 {
        ring.push_burst(&[1, 2]);
        ring.clear();
    }
    assert_eq!(
        ring.stats(),
        RingStats {
            rejected: 0,
            overwritten: 0,
            busy: 0,
            expired: 0,
            transitions: 10,
            peak: 2
        }
    );
}

/// The waits and slowed sources both MPMC rings with marks share.
#[cfg(feature = "std")]
#[macro_use]
#[path = "common/drain_waits.rs"]
mod drain_waits;

#[cfg(feature = "std")]
mod shared {
    use super::drain_waits;
    drain_wait_tests!();
}

#[test]
fn a_closed_ring_lowers_as_it_drains() {
    let ring: Ring<u8, 8, Marked> = Ring::with_watermarks(2, 6);
    ring.push_burst(&[0; 7]);
    assert_eq!(ring.level(), Level::High);
    ring.close();
    while ring.len() > 3 {
        ring.try_pop().unwrap();
        assert_eq!(ring.level(), Level::High);
    }
    ring.try_pop_or_closed().unwrap();
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(ring.stats().transitions, 2);
    ring.clear();
    assert_eq!(ring.level(), Level::Normal);
}

#[test]
fn debug_shows_the_level() {
    let ring: Ring<u8, 4, Marked> = Ring::with_watermarks(1, 2);
    ring.push_burst(&[1, 2]);
    assert_eq!(
        format!("{ring:?}"),
        "Ring { capacity: 4, len: 2, closed: false, level: High, stats: RingStats { rejected: 0, overwritten: 0, busy: 0, expired: 0, transitions: 1, peak: 2 } }"
    );
}
