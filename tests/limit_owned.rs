//! `OwnedPermit` (feature `std`): permits that hold an `Arc<Limiter>` move
//! to other threads and end there with every outcome; each releases its
//! units once and gives its reference count back, so the limiter ends with
//! nothing in flight and one owner. Also run under Miri (the permit core
//! moves the `Arc` out of a `ManuallyDrop`).
#![cfg(not(sluicegate_loom))]

use std::sync::Arc;
use std::thread;

use sluicegate::limit::{Limiter, LimiterConfig, OwnedPermit, Priority};

fn rounds() -> usize {
    if cfg!(miri) {
        8
    } else {
        500
    }
}

#[test]
fn owned_permits_end_on_other_threads_with_every_outcome() {
    let gate = Arc::new(Limiter::new(LimiterConfig {
        min_limit: 16,
        initial_limit: 16,
        max_limit: 16,
        ..LimiterConfig::DEFAULT
    }));
    let mut units = [0usize; 3]; // succeeded, dropped, ignored
    for round in 0..rounds() {
        let classes = [Priority::Critical, Priority::Normal, Priority::Background];
        let permits: Vec<OwnedPermit> = (0..4)
            .filter_map(|i| match (round + i) % 4 {
                3 => gate.try_acquire_owned_n_with(classes[i % 3], 1 + (i as u32 % 3)),
                _ => gate.try_acquire_owned_with(classes[i % 3]),
            })
            .collect();
        assert_eq!(Arc::strong_count(&gate), 1 + permits.len());
        let workers: Vec<_> = permits
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                let w = p.weight() as usize;
                let end = (round + i) % 4;
                units[end.min(2)] += w;
                thread::spawn(move || match end {
                    0 => p.success(10),
                    1 => p.dropped(),
                    2 => p.ignore(),
                    _ => drop(p),
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        assert_eq!(Arc::strong_count(&gate), 1);
        assert_eq!(gate.in_flight(), 0);
    }
    let s = gate.stats();
    assert_eq!(
        (s.succeeded, s.dropped, s.ignored),
        (units[0], units[1], units[2])
    );
    assert_eq!(s.admitted, units.iter().sum::<usize>());
}

/// The limiter lives as long as the last permit: dropping every other
/// owner first is fine.
#[test]
fn a_permit_keeps_its_limiter_alive() {
    let gate = Arc::new(Limiter::new(LimiterConfig::DEFAULT));
    let permit = gate.try_acquire_owned().unwrap();
    let weak = Arc::downgrade(&gate);
    drop(gate);
    assert_eq!(weak.upgrade().map(|g| g.in_flight()), Some(1));
    thread::spawn(move || permit.success(5)).join().unwrap();
    assert!(
        weak.upgrade().is_none(),
        "the last permit dropped the limiter"
    );
}
