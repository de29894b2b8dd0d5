//! Single-threaded behaviour of `mpmc::Ring`: FIFO, reject, overwrite,
//! counters, drops, and wrap-around of the internal position counters.
#![cfg(not(sluicegate_loom))]

mod common;

use std::collections::VecDeque;
use std::sync::atomic::Ordering;

use common::{drop_counter, Counted, Rng};
use sluicegate::mpmc::{FreeBits, FreePool, Ring, SmallRing};
use sluicegate::{Overwritten, RingStats};

#[test]
fn fifo_reject_and_counters() {
    static R: Ring<u32, 4> = Ring::new();
    assert!(R.is_empty());
    assert_eq!(R.capacity(), 4);
    for i in 0..4 {
        R.try_push(i).unwrap();
        assert_eq!(R.len(), i as usize + 1);
    }
    assert_eq!(R.try_push(7).unwrap_err().into_inner(), 7);
    assert_eq!(R.try_push(8).unwrap_err().into_inner(), 8);
    assert_eq!(R.stats().rejected, 2);
    assert_eq!(R.stats().overwritten, 0);
    for i in 0..4 {
        assert_eq!(R.try_pop(), Some(i));
    }
    assert_eq!(R.try_pop(), None);
    assert_eq!(R.try_pop(), None);
    assert!(R.is_empty());
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
fn push_overwrite_evicts_the_oldest() {
    let r: Ring<u32, 4> = Ring::new();
    for i in 0..4 {
        assert_eq!(r.push_overwrite(i), Overwritten::Stored);
    }
    assert_eq!(r.stats().overwritten, 0);
    for i in 4..10 {
        assert_eq!(
            r.push_overwrite(i),
            Overwritten::Evicted(i - 4),
            "evicts the oldest"
        );
        assert_eq!(r.len(), 4);
    }
    assert_eq!(r.stats().overwritten, 6);
    assert_eq!(r.stats().rejected, 0);
    assert_eq!(
        (0..5).map(|_| r.try_pop()).collect::<Vec<_>>(),
        [Some(6), Some(7), Some(8), Some(9), None]
    );
}

#[test]
fn capacity_one_is_both_empty_and_full_correctly() {
    // heapless #214: capacity 1 confused empty with full.
    let r: Ring<u8, 1> = Ring::new();
    assert!(r.is_empty());
    r.try_push(1).unwrap();
    assert_eq!(r.len(), 1);
    assert!(r.try_push(2).is_err());
    assert_eq!(r.push_overwrite(3).into_item(), Some(1));
    assert_eq!(r.try_pop(), Some(3));
    assert_eq!(r.try_pop(), None);
    r.try_push(4).unwrap();
    assert_eq!(r.try_pop(), Some(4));
}

/// Runs a deterministic pseudo-random mix of operations against a `VecDeque`
/// model and checks every result.
fn check_against_model<const N: usize, F: FreePool<N>>(
    r: &Ring<u64, N, F>,
    steps: usize,
    seed: u64,
) {
    let mut model = VecDeque::new();
    let mut rng = Rng(seed);
    let mut next = 0u64;
    let (mut rejected, mut overwritten) = (r.stats().rejected, r.stats().overwritten);
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
                let evicted = r.push_overwrite(next).into_item();
                let want = if model.len() == N {
                    model.pop_front()
                } else {
                    None
                };
                if want.is_some() {
                    overwritten += 1;
                }
                assert_eq!(evicted, want);
                model.push_back(next);
                next += 1;
            }
            _ => assert_eq!(r.try_pop(), model.pop_front()),
        }
        assert_eq!(r.len(), model.len());
        assert_eq!(
            (r.stats().rejected, r.stats().overwritten),
            (rejected, overwritten)
        );
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
    check_against_model(&SmallRing::<u64, 1>::new(), steps, 11);
    check_against_model(&SmallRing::<u64, 2>::new(), steps, 12);
    check_against_model(&SmallRing::<u64, 8>::new(), steps, 13);
    check_against_model(&SmallRing::<u64, 64>::new(), steps, 14);
    check_against_model(&Ring::<u64, 1, FreeBits<1>>::new(), steps, 21);
    check_against_model(&Ring::<u64, 8, FreeBits<1>>::new(), steps, 22);
    check_against_model(&Ring::<u64, 64, FreeBits<2>>::new(), steps, 23);
    check_against_model(&Ring::<u64, 256, FreeBits<8>>::new(), steps, 24);
}

/// Position counters that start just before the two wrap points: where the
/// cycle field (`p << 1`) wraps and where `usize` itself wraps (heapless
/// #121/#144, rigtorp MPMCQueue #40, iceoryx2 #986). Starts are deliberately
/// not multiples of the ring size.
#[test]
fn wrap_around_near_integer_limit() {
    let steps = if cfg!(miri) { 200 } else { 50_000 };
    for back in [0usize, 1, 3, 5, 17, 100] {
        for start in [
            0usize.wrapping_sub(back),
            (1usize << (usize::BITS - 1)).wrapping_sub(back),
        ] {
            check_against_model(&Ring::<u64, 1>::with_start(start), steps, 5);
            check_against_model(&Ring::<u64, 4>::with_start(start), steps, 6);
            check_against_model(&Ring::<u64, 16>::with_start(start), steps, 7);
            check_against_model(&SmallRing::<u64, 4>::with_start(start), steps, 8);
            check_against_model(&Ring::<u64, 64, FreeBits<2>>::with_start(start), steps, 9);
        }
    }
}

#[test]
fn drops_each_item_exactly_once() {
    drops_each_item_exactly_once_in(Ring::<Counted, 4>::new());
    drops_each_item_exactly_once_in(SmallRing::<Counted, 4>::new());
    drops_each_item_exactly_once_in(Ring::<Counted, 4, FreeBits<1>>::new());
}

fn drops_each_item_exactly_once_in<F: FreePool<4>>(r: Ring<Counted, 4, F>) {
    let (drops, item) = drop_counter();
    {
        for _ in 0..3 {
            r.try_push(item(0)).unwrap();
        }
        drop(r.try_pop()); // 1 dropped here
        assert_eq!(drops.load(Ordering::Relaxed), 1);
        for _ in 0..2 {
            r.try_push(item(0)).unwrap();
        }
        // Full: the rejected item is handed back, not dropped inside.
        let back = r.try_push(item(0)).unwrap_err();
        assert_eq!(drops.load(Ordering::Relaxed), 1);
        drop(back);
        assert_eq!(drops.load(Ordering::Relaxed), 2);
        // Overwrite hands the evicted item back.
        let evicted = r.push_overwrite(item(0)).into_item().unwrap();
        assert_eq!(drops.load(Ordering::Relaxed), 2);
        drop(evicted);
        assert_eq!(drops.load(Ordering::Relaxed), 3);
        // 4 items left inside.
        drop(r);
    }
    assert_eq!(drops.load(Ordering::Relaxed), 7);
}

#[test]
fn drop_of_empty_and_wrapped_ring() {
    let (drops, item) = drop_counter();
    {
        let r: Ring<Counted, 2> = Ring::with_start(usize::MAX - 2);
        for _ in 0..5 {
            drop(r.push_overwrite(item(0)).into_item());
        }
        assert_eq!(drops.load(Ordering::Relaxed), 3);
    }
    assert_eq!(drops.load(Ordering::Relaxed), 5);
    let empty: Ring<Counted, 2> = Ring::new();
    drop(empty);
    assert_eq!(drops.load(Ordering::Relaxed), 5);
}

#[test]
fn zero_sized_items() {
    let r: Ring<(), 2> = Ring::new();
    r.try_push(()).unwrap();
    r.try_push(()).unwrap();
    assert!(r.try_push(()).is_err());
    assert_eq!(r.push_overwrite(()).into_item(), Some(()));
    assert_eq!(r.try_pop(), Some(()));
    assert_eq!(r.try_pop(), Some(()));
    assert_eq!(r.try_pop(), None);
}

#[test]
fn ring_is_send_and_sync_for_send_items() {
    fn check<T: Send + Sync>() {}
    check::<Ring<Box<u8>, 4>>();
    check::<Ring<std::cell::Cell<u8>, 4>>(); // Cell is Send: Sync ring is fine
    check::<SmallRing<std::cell::Cell<u8>, 4>>();
    check::<Ring<std::cell::Cell<u8>, 64, FreeBits<2>>>();
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
    assert_eq!((ring.stats().rejected, ring.stats().overwritten), (0, 0));
    assert!(ring.is_empty());
}
