//! Single-threaded behaviour of `mpmc::cs::Ring` (every operation one
//! critical section; `critical-section`'s std implementation on the host):
//! the MPMC contract of `tests/common/mpmc_contract.rs` (shared with
//! `mpmc::Ring`), with the high-water mark exact to its documented bound,
//! the blocking calls, `Debug` and bursts.
#![cfg(not(sluicegate_loom))]

mod common;
#[path = "common/mpmc_contract.rs"]
mod contract;

use common::Counted;
use sluicegate::mpmc::cs::Ring;

crate::impl_mpmc!([T, const N: usize] Ring<T, N>);

/// `check_against_model` on one ring; the pops of every `N / 16`-th slot
/// sample the length (every pop for `N < 16`: `Ring::stats`).
fn model<const N: usize>(r: &Ring<u64, N>, steps: usize, seed: u64) {
    let every = if N >= 16 { N / 16 } else { 1 };
    contract::check_against_model::<N>(r, steps, seed, every);
}

#[test]
fn fifo_reject_and_counters_in_a_static() {
    static R: Ring<u32, 4> = Ring::new();
    contract::fifo_reject_and_counters(&R);
}

#[test]
fn push_overwrite_evicts_the_oldest_and_never_rejects() {
    contract::push_overwrite_evicts_the_oldest(&Ring::<u32, 4>::new());
}

#[test]
fn capacity_one_is_both_empty_and_full_correctly() {
    contract::capacity_one_is_both_empty_and_full_correctly(&Ring::<u8, 1>::new());
}

#[test]
fn matches_vecdeque_model() {
    let steps = if cfg!(miri) { 300 } else { 200_000 };
    model(&Ring::<u64, 1>::new(), steps, 1);
    model(&Ring::<u64, 2>::new(), steps, 2);
    model(&Ring::<u64, 8>::new(), steps, 3);
    model(&Ring::<u64, 64>::new(), steps, 4);
}

#[test]
fn head_wraps_at_every_fill_level() {
    contract::head_wraps_at_every_fill_level(&Ring::<u32, 4>::new());
}

#[test]
fn drops_each_item_exactly_once() {
    contract::drops_each_item_exactly_once(Ring::<Counted, 4>::new);
}

#[test]
fn zero_sized_items() {
    contract::zero_sized_items(&Ring::<(), 2>::new());
}

#[test]
fn blocking_push_and_pop_move_everything_without_rejections() {
    let stats = contract::blocking_push_and_pop_move_everything(&Ring::<u32, 2>::new());
    assert!((1..=2).contains(&stats.peak), "{stats:?}");
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
