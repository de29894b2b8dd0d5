//! Multi-threaded stress of `mpmc::cs::Ring` on `critical-section`'s std
//! implementation: the stress every MPMC ring passes
//! (`tests/common/mpmc_stress.rs`), and that its `push_overwrite` never
//! hands the new item back.
#![cfg(not(sluicegate_loom))]

mod common;
#[path = "common/mpmc_contract.rs"]
mod contract;
#[path = "common/mpmc_stress.rs"]
mod stress;

use sluicegate::mpmc::cs::Ring;

crate::impl_mpmc!([T, const N: usize] Ring<T, N>);

fn per_producer() -> usize {
    if cfg!(miri) {
        60
    } else {
        100_000
    }
}

fn run<const N: usize>(overwrite: bool) {
    let counts = stress::run(&Ring::<u64, N>::new(), per_producer(), overwrite);
    // Every operation is one critical section: an eviction always finds
    // the oldest item there.
    assert_eq!(
        counts.handed_back, 0,
        "the cs ring handed an overwrite back"
    );
}

#[test]
fn stress_4x4_try_push_exact_accounting() {
    run::<8>(false);
    run::<1024>(false);
}

#[test]
fn stress_4x4_push_overwrite_exact_accounting() {
    run::<8>(true);
    run::<64>(true);
}

/// More threads (8) than slots: still exact accounting and order.
#[test]
fn stress_more_threads_than_capacity() {
    run::<1>(true);
    run::<1>(false);
    run::<2>(true);
    run::<2>(false);
}

/// heapless #583's scenario: every pop finds an item and every push finds
/// a slot, since no operation is ever half done when another one looks.
#[test]
fn no_spurious_full_pop_then_push_on_full_ring() {
    let ring = Ring::<u64, 4>::new();
    for i in 0..4 {
        ring.try_push(i).unwrap();
    }
    stress::pop_then_push_never_full(&ring, if cfg!(miri) { 200 } else { 200_000 });
}
