//! Multi-threaded stress of `mpmc::Ring` (its three pools) with exact
//! accounting: the stress every MPMC ring passes
//! (`tests/common/mpmc_stress.rs`), and the counters' wrap under
//! contention.
#![cfg(not(sluicegate_loom))]

mod common;
#[path = "common/mpmc_contract.rs"]
mod contract;
#[path = "common/mpmc_stress.rs"]
mod stress;

use sluicegate::mpmc::{FreeBits, FreeIndices, FreeMask, FreePool, Ring};
use std::sync::Arc;
use std::thread;
use stress::ledger::{item, Ledger, Order};
use stress::PRODUCERS;

crate::impl_mpmc!([T, const N: usize, F: FreePool<N>] Ring<T, N, F>);

fn per_producer() -> usize {
    if cfg!(miri) {
        60
    } else {
        200_000
    }
}

fn run<const N: usize, F: FreePool<N>>(overwrite: bool) {
    stress::run(&Ring::<u64, N, F>::new(), per_producer(), overwrite);
}

#[test]
fn stress_4x4_try_push_exact_accounting() {
    run::<8, FreeIndices<8>>(false);
    run::<1024, FreeIndices<1024>>(false);
    run::<8, FreeMask>(false);
    run::<64, FreeBits<2>>(false);
    if !cfg!(miri) {
        run::<64, FreeMask>(false);
        run::<1024, FreeBits<32>>(false);
    }
}

#[test]
fn stress_4x4_push_overwrite_exact_accounting() {
    run::<8, FreeIndices<8>>(true);
    run::<64, FreeIndices<64>>(true);
    run::<8, FreeMask>(true);
    if !cfg!(miri) {
        run::<64, FreeMask>(true);
        run::<64, FreeBits<2>>(true);
    }
}

/// [`stress::pop_then_push_never_full`] on a full ring of `N`.
fn pop_then_push_never_full<const N: usize, F: FreePool<N>>() {
    let ring = Ring::<u64, N, F>::new();
    for i in 0..N as u64 {
        ring.try_push(i).unwrap();
    }
    stress::pop_then_push_never_full(&ring, if cfg!(miri) { 200 } else { 1_000_000 });
}

#[test]
fn no_spurious_full_pop_then_push_on_full_ring_heapless_583() {
    pop_then_push_never_full::<2, FreeIndices<2>>();
    pop_then_push_never_full::<4, FreeIndices<4>>();
    pop_then_push_never_full::<64, FreeIndices<64>>();
    pop_then_push_never_full::<2, FreeMask>();
    pop_then_push_never_full::<2, FreeBits<1>>();
    if !cfg!(miri) {
        pop_then_push_never_full::<64, FreeMask>();
        pop_then_push_never_full::<64, FreeBits<2>>();
    }
}

/// The same accounting with the position counters starting just before they
/// wrap, on real threads.
#[test]
fn stress_wrap_around_under_contention() {
    let m = per_producer() / 4;
    let ring = Arc::new(Ring::<u64, 8>::with_start(usize::MAX - 1000));
    let ledger = Arc::new(Ledger::new(m));
    let producers: Vec<_> = (0..PRODUCERS)
        .map(|p| {
            let (ring, ledger) = (ring.clone(), ledger.clone());
            thread::spawn(move || {
                for s in 0..m {
                    if let Some(out) = ring.push_overwrite(item(p, s)).into_item() {
                        ledger.mark(out);
                    }
                }
            })
        })
        .collect();
    let consumer = {
        let (ring, ledger) = (ring.clone(), ledger.clone());
        thread::spawn(move || {
            let mut order = Order::new();
            for _ in 0..m {
                if let Some(v) = ring.try_pop() {
                    order.check(v);
                    ledger.mark(v);
                }
            }
        })
    };
    for h in producers {
        h.join().unwrap();
    }
    consumer.join().unwrap();
    while let Some(v) = ring.try_pop() {
        ledger.mark(v);
    }
    ledger.assert_complete();
}

/// More threads (8) than slots: still exact accounting and order.
#[test]
fn stress_more_threads_than_capacity() {
    run::<1, FreeIndices<1>>(true);
    run::<1, FreeIndices<1>>(false);
    run::<2, FreeIndices<2>>(true);
    run::<2, FreeIndices<2>>(false);
    run::<1, FreeMask>(true);
    if !cfg!(miri) {
        // Miri runs the mask at one slot and (above) eight.
        run::<1, FreeMask>(false);
        run::<2, FreeMask>(true);
        run::<2, FreeMask>(false);
        run::<1, FreeBits<1>>(true);
        run::<2, FreeBits<1>>(false);
    }
}
