//! `spsc::flag::Ring`: against a `VecDeque` model (full and empty exact at
//! every step, splits again in the middle), drops counted (a panicking one
//! among them), and two threads moving every item once and in order.
#![cfg(not(sluicegate_loom))]

mod common;

use common::{drop_counter, fresh_pop, Rng};
use sluicegate::spsc::flag::Ring;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

/// Random pushes, pops, peeks and splits-again against a `VecDeque`; `try_push`
/// must fail exactly when the model holds `N`, `try_pop` exactly when it is empty.
fn against_model<const N: usize>(seed: u64, steps: usize) {
    let mut rng = Rng(seed);
    let mut ring: Ring<u64, N> = Ring::new();
    let mut model = VecDeque::new();
    let (mut tx, mut rx) = ring.split();
    let mut resplits = 0;
    let mut expired = 0;
    for next in 0..steps as u64 {
        assert_eq!(tx.is_full(), model.len() == N);
        assert_eq!(rx.is_empty(), model.is_empty());
        match rng.below(16) {
            0..=6 => match tx.try_push(next) {
                Ok(()) => {
                    assert!(model.len() < N, "pushed into a full ring");
                    model.push_back(next);
                }
                Err(full) => {
                    assert_eq!(model.len(), N, "refused with room left");
                    assert_eq!(full.into_inner(), next);
                }
            },
            7..=11 => assert_eq!(rx.try_pop(), model.pop_front()),
            12 | 13 => {
                // Items divisible by 3 have "expired": discarded in order,
                // counted, at most N per call.
                let before = rx.expired();
                let mut late = Vec::new();
                let got = rx.try_pop_fresh_with(|x: &u64| x % 3 == 0, |x| late.push(x));
                let (want, want_late) = fresh_pop(&mut model, |x| x % 3 == 0, N);
                assert_eq!((got, &late), (want, &want_late));
                assert_eq!(rx.expired(), before + late.len());
                expired += late.len();
            }
            14 => assert_eq!(rx.peek().copied(), model.front().copied()),
            _ => {
                drop((tx, rx));
                (tx, rx) = ring.split();
                resplits += 1;
            }
        }
    }
    drop((tx, rx));
    assert!(resplits > 0);
    assert!(expired > 0);
    assert_eq!(
        ring.expired(),
        expired,
        "the ring's count survives the splits"
    );
    // What is left comes out of a fresh split, in order.
    let (_tx, mut rx) = ring.split();
    let rest: Vec<u64> = std::iter::from_fn(|| rx.try_pop()).collect();
    assert_eq!(rest, Vec::from(model));
}

#[test]
fn matches_the_model() {
    let steps = if cfg!(miri) { 300 } else { 20_000 };
    for seed in 0..if cfg!(miri) { 2 } else { 8 } {
        against_model::<1>(seed, steps);
        against_model::<2>(seed, steps);
        against_model::<3>(seed, steps); // not a power of two
        against_model::<16>(seed, steps);
    }
}

#[test]
fn fills_to_exactly_n_from_every_start() {
    // For every index the handles can stand at, the ring takes exactly N items
    // and gives them back in order.
    const N: usize = 5;
    let mut ring: Ring<usize, N> = Ring::new();
    for start in 0..N {
        let (mut tx, mut rx) = ring.split();
        for i in 0..N {
            tx.try_push(start * 10 + i).unwrap();
        }
        assert!(tx.try_push(99).is_err());
        let out: Vec<usize> = std::iter::from_fn(|| rx.try_pop()).collect();
        assert_eq!(out, (0..N).map(|i| start * 10 + i).collect::<Vec<_>>());
        // Move both handles one slot on for the next round.
        tx.try_push(0).unwrap();
        assert_eq!(rx.try_pop(), Some(0));
    }
}

#[test]
fn dropped_ring_drops_what_it_holds_once() {
    let (drops, item) = drop_counter();
    {
        let mut ring: Ring<_, 4> = Ring::new();
        let (mut tx, mut rx) = ring.split();
        // Wrap the indices first, so the held items straddle the end.
        for id in 0..3 {
            tx.try_push(item(id)).unwrap();
            drop(rx.try_pop());
        }
        for id in 3..7 {
            tx.try_push(item(id)).unwrap();
        }
        // Full: handed back, and dropped here by the test.
        assert!(tx.try_push(item(7)).is_err());
        assert_eq!(drops.load(Ordering::Relaxed), 4);
    }
    // 3 popped, 1 refused, 4 left in the ring and dropped with it.
    assert_eq!(drops.load(Ordering::Relaxed), 8);
}

#[test]
fn a_panicking_drop_leaves_the_others_dropped_once() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Bomb(bool);
    impl Drop for Bomb {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::Relaxed);
            if self.0 {
                panic!("boom");
            }
        }
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut ring: Ring<Bomb, 4> = Ring::new();
        let (mut tx, _rx) = ring.split();
        for fused in [false, true, false, false] {
            assert!(tx.try_push(Bomb(fused)).is_ok());
        }
    }));
    assert!(result.is_err());
    assert_eq!(DROPS.load(Ordering::Relaxed), 4);
}

/// One producer thread, one consumer (this thread): `total` items through a
/// ring of `N`, each once and in order.
fn two_threads<const N: usize>(total: u64) {
    let mut ring: Ring<u64, N> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    thread::scope(|s| {
        s.spawn(move || {
            let mut misses = 0u32;
            for i in 0..total {
                while tx.try_push(i).is_err() {
                    misses = misses.wrapping_add(1);
                    if misses % 64 == 0 {
                        thread::yield_now();
                    }
                }
            }
        });
        let mut expect = 0;
        while expect < total {
            match rx.try_pop() {
                Some(v) => {
                    assert_eq!(v, expect, "lost, duplicated or reordered");
                    expect += 1;
                }
                None => thread::yield_now(),
            }
        }
        assert_eq!(rx.try_pop(), None);
    });
}

#[test]
fn two_threads_move_every_item_once_in_order() {
    let total = if cfg!(miri) { 300 } else { 1_000_000 };
    two_threads::<1>(total);
    two_threads::<2>(total);
    two_threads::<7>(total);
    two_threads::<1024>(total);
}

#[test]
fn static_ring_resplit_across_threads_keeps_order() {
    // Handles dropped on other threads; the next split continues where they
    // stopped, and the liveness word is free again after each round.
    static RING: Ring<u32, 8> = Ring::new();
    let rounds = if cfg!(miri) { 4 } else { 200 };
    let mut next_pop = 0u32;
    let mut next_push = 0u32;
    for round in 0..rounds {
        let (mut tx, mut rx) = RING.try_split().expect("both handles were dropped");
        assert!(RING.try_split().is_none());
        let push_n = 1 + round % 8;
        let start = next_push;
        let tx_thread = thread::spawn(move || {
            let mut pushed = 0;
            for i in 0..push_n {
                if tx.try_push(start + i).is_ok() {
                    pushed += 1;
                }
            }
            pushed
        });
        let pushed = tx_thread.join().unwrap();
        next_push += pushed;
        // Pop about half of what is there, on another thread.
        let got = thread::spawn(move || {
            let mut got = Vec::new();
            for _ in 0..(pushed / 2 + 1) {
                if let Some(v) = rx.try_pop() {
                    got.push(v);
                }
            }
            got
        })
        .join()
        .unwrap();
        for v in got {
            assert_eq!(v, next_pop);
            next_pop += 1;
        }
    }
    let (_tx, mut rx) = RING.try_split().unwrap();
    while let Some(v) = rx.try_pop() {
        assert_eq!(v, next_pop);
        next_pop += 1;
    }
    assert_eq!(next_pop, next_push);
}

#[test]
fn abandoned_flags_follow_the_handles() {
    let mut ring: Ring<u8, 2> = Ring::new();
    let (tx, rx) = ring.split();
    assert!(!tx.is_abandoned() && !rx.is_abandoned());
    drop(tx);
    assert!(rx.is_abandoned());
    drop(rx);
    let (tx, rx) = ring.split();
    assert!(!tx.is_abandoned() && !rx.is_abandoned());
}

/// A handle leaked with `mem::forget` never stores its index; `split(&mut)`
/// finds it from the flags. From every start index, with every number of
/// items inside, leaking the producer, the consumer or both: the new
/// handles pop what is inside, in order (with both leaked and the ring
/// full, each item once), and take pushes until exactly `N` are inside.
#[test]
fn a_resplit_after_a_leaked_handle_resumes_where_it_stopped() {
    const N: usize = 4;
    for start in 0..N {
        for fill in 0..=N {
            for (leak_tx, leak_rx) in [(true, false), (false, true), (true, true)] {
                let at = format!("start {start}, {fill} inside, leaked {leak_tx}/{leak_rx}");
                let mut ring: Ring<u32, N> = Ring::new();
                {
                    let (mut tx, mut rx) = ring.split();
                    for i in 0..start as u32 {
                        tx.try_push(i).unwrap();
                        rx.try_pop().unwrap();
                    }
                    for i in 0..fill as u32 {
                        tx.try_push(100 + i).unwrap();
                    }
                    if leak_tx {
                        std::mem::forget(tx);
                    }
                    if leak_rx {
                        std::mem::forget(rx);
                    }
                }
                let (mut tx, mut rx) = ring.split();
                let mut n = fill;
                while tx.try_push(200 + n as u32).is_ok() {
                    n += 1;
                    assert!(n <= N, "{at}: over N");
                }
                assert_eq!(n, N, "{at}: a push refused with room");
                let mut got: Vec<u32> = std::iter::from_fn(|| rx.try_pop()).collect();
                let mut want: Vec<u32> = (0..fill as u32).map(|i| 100 + i).collect();
                want.extend((fill..N).map(|i| 200 + i as u32));
                if leak_tx && leak_rx && fill == N {
                    got.sort_unstable();
                }
                assert_eq!(got, want, "{at}");
            }
        }
    }
}
