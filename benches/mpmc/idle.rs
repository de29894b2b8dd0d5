//! The polls that find nothing to do: a pop on an empty ring (a consumer
//! polling an idle ring, the common state of a packet path's RX loop) and a
//! push on a full ring (a producer refused while the consumers are behind),
//! single and as bursts of 32, for each MPMC ring and its peers. Instruction
//! counts only (ci/callgrind.sh); the rings are not shared.

use core::hint::black_box;

use super::{Bursts, Case, Heapless, Queue, BURST};
use crossbeam_queue::ArrayQueue;
use sluicegate::mpmc::{BurstRing, Ring};

use super::rte_ring::RteRing;

/// `try_pop` on an empty `q`, `iters` times.
fn empty(q: &'static dyn Queue) -> Box<dyn FnMut(u64)> {
    Box::new(move |iters| {
        for _ in 0..iters {
            black_box(q.pop());
        }
    })
}

/// `try_push` on `q` filled to its 128 slots, `iters` times.
fn full(q: &'static dyn Queue) -> Box<dyn FnMut(u64)> {
    for i in 0..128 {
        assert!(q.push(i), "fills");
    }
    assert!(!q.push(128), "full at 128");
    Box::new(move |iters| {
        for i in 0..iters {
            black_box(q.push(black_box(i)));
        }
    })
}

/// A ring of 128 `u64` of each kind, made fresh and leaked for one case.
fn rings() -> [(&'static str, &'static dyn Queue); 5] {
    #[allow(deprecated)]
    let hl: &'static Heapless = Box::leak(Box::new(Heapless::new()));
    [
        ("sluicegate", Box::leak(Box::new(Ring::<u64, 128>::new()))),
        (
            "sluicegate_burst_ring",
            Box::leak(Box::new(BurstRing::<u64, 128, 4>::new())),
        ),
        (
            "crossbeam_arrayqueue",
            Box::leak(Box::new(ArrayQueue::<u64>::new(128))),
        ),
        ("heapless", hl),
        (
            "floor_rte_ring",
            Box::leak(Box::new(RteRing::<u64, 128>::new())),
        ),
    ]
}

/// `pop_burst` of up to 32 on an empty `q`, `iters` times.
fn burst_empty(q: &'static dyn Bursts) -> Box<dyn FnMut(u64)> {
    Box::new(move |iters| {
        let mut out = [0u64; BURST];
        for _ in 0..iters {
            black_box(q.pop_burst(black_box(&mut out)));
        }
    })
}

/// `push_burst` of 32 on `q` filled to its 128 slots, `iters` times.
fn burst_full(q: &'static dyn Bursts) -> Box<dyn FnMut(u64)> {
    let items = [7u64; BURST];
    for _ in 0..128 / BURST {
        assert_eq!(q.push_burst(&items), BURST, "fills");
    }
    assert_eq!(q.push_burst(&items), 0, "full at 128");
    Box::new(move |iters| {
        for _ in 0..iters {
            black_box(q.push_burst(black_box(&items)));
        }
    })
}

/// The burst rings of 128 `u64`, made fresh and leaked for one case.
fn burst_rings() -> [(&'static str, &'static dyn Bursts); 3] {
    [
        ("sluicegate", Box::leak(Box::new(Ring::<u64, 128>::new()))),
        (
            "sluicegate_burst_ring",
            Box::leak(Box::new(BurstRing::<u64, 128, 4>::new())),
        ),
        (
            "floor_rte_ring",
            Box::leak(Box::new(RteRing::<u64, 128>::new())),
        ),
    ]
}

/// The cases `mpmc_pop_empty_128`, `mpmc_push_full_128` and their burst
/// forms `mpmc_burst32_pop_empty_128`, `mpmc_burst32_push_full_128`.
pub fn idle_cases() -> Vec<Case<'static>> {
    let mut cases: Vec<Case<'static>> = Vec::new();
    for (name, q) in rings() {
        cases.push(("mpmc_pop_empty_128", name, empty(q)));
    }
    for (name, q) in rings() {
        cases.push(("mpmc_push_full_128", name, full(q)));
    }
    for (name, q) in burst_rings() {
        cases.push(("mpmc_burst32_pop_empty_128", name, burst_empty(q)));
    }
    for (name, q) in burst_rings() {
        cases.push(("mpmc_burst32_push_full_128", name, burst_full(q)));
    }
    cases
}
