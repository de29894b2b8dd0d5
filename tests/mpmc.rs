//! Single-threaded behaviour of `mpmc::Ring`, `SmallRing` and the
//! `FreeBits` pool: the MPMC contract of `tests/common/mpmc_contract.rs`
//! (shared with `mpmc::cs::Ring`), and wrap-around of the internal position
//! counters.
#![cfg(not(sluicegate_loom))]

mod common;
#[path = "common/mpmc_contract.rs"]
mod contract;

use std::sync::atomic::Ordering;

use common::{drop_counter, Counted};
use sluicegate::mpmc::{FreeBits, FreePool, Ring, SmallRing};

crate::impl_mpmc!([T, const N: usize, F: FreePool<N>] Ring<T, N, F>);

/// The ring's sampling period of the high-water mark on a host
/// (`Ring::stats`): `N / 16`, but at least 64.
const fn every(n: usize) -> usize {
    if n / 16 > 64 {
        n / 16
    } else {
        64
    }
}

/// `check_against_model` on one ring.
fn model<const N: usize, F: FreePool<N>>(r: &Ring<u64, N, F>, steps: usize, seed: u64) {
    contract::check_against_model::<N>(r, steps, seed, every(N));
}

#[test]
fn fifo_reject_and_counters() {
    static R: Ring<u32, 4> = Ring::new();
    contract::fifo_reject_and_counters(&R);
    contract::fifo_reject_and_counters(&SmallRing::<u32, 4>::new());
    contract::fifo_reject_and_counters(&Ring::<u32, 4, FreeBits<1>>::new());
}

#[test]
fn push_overwrite_evicts_the_oldest() {
    contract::push_overwrite_evicts_the_oldest(&Ring::<u32, 4>::new());
    contract::push_overwrite_evicts_the_oldest(&SmallRing::<u32, 4>::new());
    contract::push_overwrite_evicts_the_oldest(&Ring::<u32, 4, FreeBits<1>>::new());
}

#[test]
fn capacity_one_is_both_empty_and_full_correctly() {
    contract::capacity_one_is_both_empty_and_full_correctly(&Ring::<u8, 1>::new());
    contract::capacity_one_is_both_empty_and_full_correctly(&SmallRing::<u8, 1>::new());
}

#[test]
fn matches_vecdeque_model() {
    let steps = if cfg!(miri) { 300 } else { 200_000 };
    model(&Ring::<u64, 1>::new(), steps, 1);
    model(&Ring::<u64, 2>::new(), steps, 2);
    model(&Ring::<u64, 8>::new(), steps, 3);
    model(&Ring::<u64, 64>::new(), steps, 4);
    model(&SmallRing::<u64, 1>::new(), steps, 11);
    model(&SmallRing::<u64, 2>::new(), steps, 12);
    model(&SmallRing::<u64, 8>::new(), steps, 13);
    model(&SmallRing::<u64, 64>::new(), steps, 14);
    model(&Ring::<u64, 1, FreeBits<1>>::new(), steps, 21);
    model(&Ring::<u64, 8, FreeBits<1>>::new(), steps, 22);
    model(&Ring::<u64, 64, FreeBits<2>>::new(), steps, 23);
    model(&Ring::<u64, 256, FreeBits<8>>::new(), steps, 24);
}

#[test]
fn head_wraps_at_every_fill_level() {
    contract::head_wraps_at_every_fill_level(&Ring::<u32, 4>::new());
    contract::head_wraps_at_every_fill_level(&SmallRing::<u32, 4>::new());
    contract::head_wraps_at_every_fill_level(&Ring::<u32, 4, FreeBits<1>>::new());
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
            model(&Ring::<u64, 1>::with_start(start), steps, 5);
            model(&Ring::<u64, 4>::with_start(start), steps, 6);
            model(&Ring::<u64, 16>::with_start(start), steps, 7);
            model(&SmallRing::<u64, 4>::with_start(start), steps, 8);
            model(&Ring::<u64, 64, FreeBits<2>>::with_start(start), steps, 9);
        }
    }
}

#[test]
fn drops_each_item_exactly_once() {
    contract::drops_each_item_exactly_once(Ring::<Counted, 4>::new);
    contract::drops_each_item_exactly_once(SmallRing::<Counted, 4>::new);
    contract::drops_each_item_exactly_once(Ring::<Counted, 4, FreeBits<1>>::new);
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
    contract::zero_sized_items(&Ring::<(), 2>::new());
    contract::zero_sized_items(&SmallRing::<(), 2>::new());
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
    contract::blocking_push_and_pop_move_everything(&Ring::<u32, 2>::new());
    contract::blocking_push_and_pop_move_everything(&SmallRing::<u32, 2>::new());
}
