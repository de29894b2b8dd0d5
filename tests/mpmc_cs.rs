//! Single-threaded behaviour of `mpmc::cs::Ring` (every operation one
//! critical section; `critical-section`'s std implementation on the host):
//! FIFO, reject, overwrite, counters, exact observers, drops.
#![cfg(not(sluicegate_loom))]

mod common;

use std::collections::VecDeque;
use std::sync::atomic::Ordering;

use common::{drop_counter, Counted, Rng};
use sluicegate::mpmc::cs::Ring;
use sluicegate::{Overwritten, RingStats};

#[test]
fn fifo_reject_and_counters_in_a_static() {
    static R: Ring<u32, 4> = Ring::new();
    assert!(R.is_empty());
    assert_eq!(R.capacity(), 4);
    for i in 0..4 {
        assert_eq!(R.free_slots(), 4 - i as usize);
        R.try_push(i).unwrap();
        assert_eq!(R.len(), i as usize + 1);
    }
    assert!(R.is_full());
    assert_eq!(R.try_push(7).unwrap_err().into_inner(), 7);
    assert_eq!(R.try_push(8).unwrap_err().into_inner(), 8);
    for i in 0..4 {
        assert_eq!(R.try_pop(), Some(i));
    }
    assert_eq!(R.try_pop(), None);
    assert!(R.is_empty() && !R.is_full());
    assert_eq!(
        R.stats(),
        RingStats {
            rejected: 2,
            overwritten: 0,
            busy: 0,
            expired: 0,
            transitions: 0,
            peak: 4
        }
    );
}

#[test]
fn push_overwrite_evicts_the_oldest_and_never_rejects() {
    let r: Ring<u32, 4> = Ring::new();
    for i in 0..4 {
        assert_eq!(r.push_overwrite(i), Overwritten::Stored);
    }
    for i in 4..11 {
        assert_eq!(r.push_overwrite(i), Overwritten::Evicted(i - 4));
        assert_eq!(r.len(), 4);
    }
    assert_eq!(
        r.stats(),
        RingStats {
            rejected: 0,
            overwritten: 7,
            busy: 0,
            expired: 0,
            transitions: 0,
            peak: 4
        }
    );
    assert_eq!(
        (0..5).map(|_| r.try_pop()).collect::<Vec<_>>(),
        [Some(7), Some(8), Some(9), Some(10), None]
    );
}

#[test]
fn capacity_one_is_both_empty_and_full_correctly() {
    // heapless #214: capacity 1 confused empty with full.
    let r: Ring<u8, 1> = Ring::new();
    assert!(r.is_empty() && !r.is_full());
    r.try_push(1).unwrap();
    assert!(r.is_full() && !r.is_empty());
    assert!(r.try_push(2).is_err());
    assert_eq!(r.push_overwrite(3), Overwritten::Evicted(1));
    assert_eq!(r.try_pop(), Some(3));
    assert_eq!(r.try_pop(), None);
    r.try_push(4).unwrap();
    assert_eq!(r.try_pop(), Some(4));
}

/// A deterministic pseudo-random mix of operations checked step by step
/// against a `VecDeque`: results, evicted items, `len` and both counters are
/// exact after every call, and the high-water mark within its documented
/// bound (no operation is ever in progress on a single
/// thread, and this ring has no estimate anywhere).
fn check_against_model<const N: usize>(r: &Ring<u64, N>, steps: usize, seed: u64) {
    let mut model = VecDeque::new();
    let mut rng = Rng(seed);
    let mut next = 0u64;
    let (mut rejected, mut overwritten, mut peak) = (0, 0, 0);
    for _ in 0..steps {
        match rng.below(7) {
            0 | 1 => {
                let res = r.try_push(next);
                if model.len() < N {
                    assert!(res.is_ok());
                    model.push_back(next);
                } else {
                    assert_eq!(res.unwrap_err().into_inner(), next);
                    rejected += 1;
                }
                next += 1;
            }
            2 | 3 => {
                let want = if model.len() == N {
                    overwritten += 1;
                    Overwritten::Evicted(model.pop_front().unwrap())
                } else {
                    Overwritten::Stored
                };
                assert_eq!(r.push_overwrite(next), want);
                model.push_back(next);
                next += 1;
            }
            _ => assert_eq!(r.try_pop(), model.pop_front()),
        }
        assert_eq!(r.len(), model.len());
        assert_eq!(r.is_full(), model.len() == N);
        peak = peak.max(model.len());
        let stats = r.stats();
        assert_eq!((stats.rejected, stats.overwritten), (rejected, overwritten));
        if rejected + overwritten > 0 {
            assert_eq!(stats.peak, N);
        } else {
            let every = if N >= 16 { N / 16 } else { 1 };
            assert!(
                stats.peak <= peak && stats.peak + every > peak,
                "{stats:?}, true peak {peak}"
            );
        }
    }
    while let Some(v) = model.pop_front() {
        assert_eq!(r.try_pop(), Some(v));
    }
    assert_eq!(r.try_pop(), None);
}

#[test]
fn matches_vecdeque_model() {
    let steps = if cfg!(miri) { 300 } else { 200_000 };
    check_against_model(&Ring::<u64, 1>::new(), steps, 1);
    check_against_model(&Ring::<u64, 2>::new(), steps, 2);
    check_against_model(&Ring::<u64, 8>::new(), steps, 3);
    check_against_model(&Ring::<u64, 64>::new(), steps, 4);
}

/// The head goes round the ring many times with every fill level: the slot
/// index is `(head + len) & (N - 1)`, so a wrong mask or a head that is not
/// reduced shows up as a lost or repeated item here.
#[test]
fn head_wraps_at_every_fill_level() {
    let r: Ring<u32, 4> = Ring::new();
    let mut next = 0u32;
    let mut expect = 0u32;
    for fill in 0..=4u32 {
        for _ in 0..fill {
            r.try_push(next).unwrap();
            next += 1;
        }
        for _ in 0..9 {
            // push one, pop one: the head and the free end move together
            if fill < 4 {
                r.try_push(next).unwrap();
            } else {
                assert_eq!(r.push_overwrite(next), Overwritten::Evicted(expect));
                expect += 1;
            }
            next += 1;
            assert_eq!(r.try_pop(), Some(expect));
            expect += 1;
            assert_eq!(r.len(), fill as usize - usize::from(fill == 4));
            if fill == 4 {
                r.try_push(next).unwrap();
                next += 1;
            }
        }
        while let Some(v) = r.try_pop() {
            assert_eq!(v, expect);
            expect += 1;
        }
        assert_eq!(expect, next);
    }
}

#[test]
fn drops_each_item_exactly_once() {
    let (drops, item) = drop_counter();
    {
        let r: Ring<Counted, 4> = Ring::new();
        for id in 0..3 {
            r.try_push(item(id)).unwrap();
        }
        drop(r.try_pop()); // 1 dropped here
        assert_eq!(drops.load(Ordering::Relaxed), 1);
        for id in 3..5 {
            r.try_push(item(id)).unwrap();
        }
        // Full: the rejected item is handed back, not dropped inside.
        let back = r.try_push(item(5)).unwrap_err();
        assert_eq!(drops.load(Ordering::Relaxed), 1);
        drop(back);
        assert_eq!(drops.load(Ordering::Relaxed), 2);
        // Overwrite hands the oldest back (id 1), undropped.
        let evicted = r.push_overwrite(item(6)).into_item().unwrap();
        assert_eq!((evicted.id(), drops.load(Ordering::Relaxed)), (1, 2));
        drop(evicted);
        assert_eq!(drops.load(Ordering::Relaxed), 3);
        // 4 items left inside, the head in the middle of the slots.
    }
    assert_eq!(drops.load(Ordering::Relaxed), 7);
    let empty: Ring<Counted, 2> = Ring::new();
    drop(empty);
    assert_eq!(drops.load(Ordering::Relaxed), 7);
}

#[test]
fn zero_sized_items() {
    let r: Ring<(), 2> = Ring::new();
    r.try_push(()).unwrap();
    r.try_push(()).unwrap();
    assert!(r.try_push(()).is_err());
    assert_eq!(r.push_overwrite(()), Overwritten::Evicted(()));
    assert_eq!(r.try_pop(), Some(()));
    assert_eq!(r.try_pop(), Some(()));
    assert_eq!(r.try_pop(), None);
}

#[test]
fn blocking_push_and_pop_move_everything_without_rejections() {
    let ring: Ring<u32, 2> = Ring::new();
    let n = if cfg!(miri) { 40 } else { 2_000 };
    std::thread::scope(|s| {
        for p in 0..2 {
            let ring = &ring;
            s.spawn(move || {
                for i in 0..n {
                    ring.push_blocking(p * n + i).unwrap();
                }
            });
        }
        let mut seen: Vec<u32> = (0..2 * n).map(|_| ring.pop_blocking().unwrap()).collect();
        seen.sort_unstable();
        assert!(seen.iter().copied().eq(0..2 * n));
    });
    let stats = ring.stats();
    assert_eq!((stats.rejected, stats.overwritten), (0, 0));
    assert!((1..=2).contains(&stats.peak), "{stats:?}");
    assert!(ring.is_empty());
}

#[test]
fn debug_shows_capacity_len_and_counters() {
    let r: Ring<u8, 2> = Ring::new();
    r.try_push(1).unwrap();
    let _ = r.push_overwrite(2);
    let _ = r.push_overwrite(3);
    assert_eq!(
        format!("{r:?}"),
        "Ring { capacity: 2, len: 2, closed: false, stats: RingStats { rejected: 0, overwritten: 1, busy: 0, expired: 0, transitions: 0, peak: 2 } }"
    );
}

#[test]
fn bursts_move_what_fits_in_order_and_count_the_rest() {
    let ring: Ring<u32, 4> = Ring::new();
    assert_eq!(ring.push_burst(&[]), 0);
    assert_eq!(ring.push_burst(&[1, 2, 3]), 3);
    assert_eq!(ring.push_burst(&[4, 5, 6, 7]), 1);
    assert_eq!(ring.stats().rejected, 3);
    let mut out = [0; 3];
    assert_eq!(ring.pop_burst(&mut out), 3);
    assert_eq!(out, [1, 2, 3]);
    assert_eq!(ring.pop_burst(&mut out), 1);
    assert_eq!(out[0], 4);
    assert_eq!(ring.pop_burst(&mut out), 0);
    ring.try_push(8).unwrap();
    ring.close();
    assert_eq!(ring.push_burst(&[9, 10]), 0);
    assert_eq!(
        ring.stats().rejected,
        3,
        "a closed ring's refusals are not rejections"
    );
    assert_eq!(ring.pop_burst(&mut out), 1);
    assert_eq!(out[0], 8);
}
