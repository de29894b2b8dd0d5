//! The single-threaded contract every MPMC ring keeps, shared by
//! `tests/mpmc.rs` (`mpmc::Ring`, `SmallRing`, the `FreeBits` pool) and
//! `tests/mpmc_cs.rs` (`mpmc::cs::Ring`): FIFO, reject, overwrite, exact
//! observers and counters, the high-water mark within each ring's bound,
//! wrap of the slot index, drops. The including file implements [`Mpmc`]
//! for its rings (one-line delegations) and calls these from its `#[test]`s.
#![allow(dead_code)] // each including file uses what its rings support

use crate::common::{drop_counter, Counted, Rng};
use sluicegate::{Overwritten, RingStats, TryPushError};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;

/// What the contract tests call on a ring.
pub trait Mpmc<T> {
    fn try_push(&self, item: T) -> Result<(), TryPushError<T>>;
    fn push_overwrite(&self, item: T) -> Overwritten<T>;
    fn try_pop(&self) -> Option<T>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool;
    fn is_full(&self) -> bool;
    fn free_slots(&self) -> usize;
    fn capacity(&self) -> usize;
    fn stats(&self) -> RingStats;
    fn push_blocking(&self, item: T) -> Result<(), sluicegate::Closed<T>>;
    fn pop_blocking(&self) -> Option<T>;
}

/// Implements [`Mpmc`] for a ring type by delegating to its own methods:
/// `impl_mpmc!([generic parameters] type)`, the item type named `T`.
#[macro_export]
macro_rules! impl_mpmc {
    ([$($g:tt)*] $ring:ty) => {
        impl<$($g)*> $crate::contract::Mpmc<T> for $ring {
            fn try_push(&self, item: T) -> Result<(), sluicegate::TryPushError<T>> { Self::try_push(self, item) }
            fn push_overwrite(&self, item: T) -> sluicegate::Overwritten<T> { Self::push_overwrite(self, item) }
            fn try_pop(&self) -> Option<T> { Self::try_pop(self) }
            fn len(&self) -> usize { Self::len(self) }
            fn is_empty(&self) -> bool { Self::is_empty(self) }
            fn is_full(&self) -> bool { Self::is_full(self) }
            fn free_slots(&self) -> usize { Self::free_slots(self) }
            fn capacity(&self) -> usize { Self::capacity(self) }
            fn stats(&self) -> sluicegate::RingStats { Self::stats(self) }
            fn push_blocking(&self, item: T) -> Result<(), sluicegate::Closed<T>> { Self::push_blocking(self, item) }
            fn pop_blocking(&self) -> Option<T> { Self::pop_blocking(self) }
        }
    };
}

/// A ring of 4: fills with exact observers at each step, refuses two pushes
/// (handed back, counted), drains in order.
pub fn fifo_reject_and_counters(r: &impl Mpmc<u32>) {
    assert!(r.is_empty());
    assert_eq!(r.capacity(), 4);
    for i in 0..4 {
        assert_eq!(r.free_slots(), 4 - i as usize);
        r.try_push(i).unwrap();
        assert_eq!(r.len(), i as usize + 1);
    }
    assert!(r.is_full());
    assert_eq!(r.try_push(7).unwrap_err().into_inner(), 7);
    assert_eq!(r.try_push(8).unwrap_err().into_inner(), 8);
    for i in 0..4 {
        assert_eq!(r.try_pop(), Some(i));
    }
    assert_eq!(r.try_pop(), None);
    assert!(r.is_empty() && !r.is_full());
    assert_eq!(
        r.stats(),
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

/// A ring of 4: `push_overwrite` stores while there is room, then evicts
/// the oldest each time (never rejects on one thread), counted.
pub fn push_overwrite_evicts_the_oldest(r: &impl Mpmc<u32>) {
    for i in 0..4 {
        assert_eq!(r.push_overwrite(i), Overwritten::Stored);
    }
    for i in 4..11 {
        assert_eq!(r.push_overwrite(i), Overwritten::Evicted(i - 4));
        assert_eq!(r.len(), 4);
    }
    let stats = r.stats();
    assert_eq!((stats.rejected, stats.overwritten, stats.peak), (0, 7, 4));
    assert_eq!(
        (0..5).map(|_| r.try_pop()).collect::<Vec<_>>(),
        [Some(7), Some(8), Some(9), Some(10), None]
    );
}

/// A ring of 1 tells empty from full (heapless #214: capacity 1 confused
/// them).
pub fn capacity_one_is_both_empty_and_full_correctly(r: &impl Mpmc<u8>) {
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
/// against a `VecDeque`: results, evicted items, `len`, `is_full` and both
/// counters are exact after every call (no operation is in progress on one
/// thread). The high-water mark is `N` once a push was refused or an item
/// evicted, and otherwise at most the true mark and less than `every`
/// below it (each ring documents its sampling period). The counters start
/// wherever `r`'s are.
pub fn check_against_model<const N: usize>(
    r: &impl Mpmc<u64>,
    steps: usize,
    seed: u64,
    every: usize,
) {
    let mut model = VecDeque::new();
    let mut rng = Rng(seed);
    let mut next = 0u64;
    let start = r.stats();
    let (mut rejected, mut overwritten, mut peak) = (start.rejected, start.overwritten, 0);
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

/// A ring of 4 whose oldest item goes round the slots many times at every
/// fill level: a wrong index mask, or a position that is not reduced, shows
/// up as a lost or repeated item.
pub fn head_wraps_at_every_fill_level(r: &impl Mpmc<u32>) {
    let mut next = 0u32;
    let mut expect = 0u32;
    for fill in 0..=4u32 {
        for _ in 0..fill {
            r.try_push(next).unwrap();
            next += 1;
        }
        for _ in 0..9 {
            // Push one, pop one: both ends move together.
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

/// Every item is dropped exactly once: popped, handed back when refused or
/// evicted, or dropped with the ring (`make` builds an empty ring of 4).
pub fn drops_each_item_exactly_once<R: Mpmc<Counted>>(make: impl Fn() -> R) {
    let (drops, item) = drop_counter();
    {
        let r = make();
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
        // 4 items left inside, the oldest in the middle of the slots.
    }
    assert_eq!(drops.load(Ordering::Relaxed), 7);
    drop(make());
    assert_eq!(drops.load(Ordering::Relaxed), 7);
}

/// A ring of 2 of `()`.
pub fn zero_sized_items(r: &impl Mpmc<()>) {
    r.try_push(()).unwrap();
    r.try_push(()).unwrap();
    assert!(r.try_push(()).is_err());
    assert_eq!(r.push_overwrite(()), Overwritten::Evicted(()));
    assert_eq!(r.try_pop(), Some(()));
    assert_eq!(r.try_pop(), Some(()));
    assert_eq!(r.try_pop(), None);
}

/// Two producers and one consumer through a ring of 2 with the blocking
/// calls: every item once, nothing counted as rejected or evicted. Returns
/// the counters for the ring's own checks of `peak`.
pub fn blocking_push_and_pop_move_everything(ring: &(impl Mpmc<u32> + Sync)) -> RingStats {
    let n = if cfg!(miri) { 40 } else { 2_000 };
    std::thread::scope(|s| {
        for p in 0..2 {
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
    assert!(ring.is_empty());
    stats
}
