//! The accounting of the MPMC stress tests (`mpmc_stress.rs` beside this
//! file, its submodule): items that name their producer and sequence
//! number, a ledger in which each item is marked once when it leaves the ring
//! by any route, and a per-consumer check of each producer's order.

use super::PRODUCERS;
use core::sync::atomic::{AtomicBool, Ordering};

/// Producer `p`'s item number `seq`.
pub fn item(p: usize, seq: usize) -> u64 {
    ((p as u64) << 32) | seq as u64
}

/// The producer and sequence number of an item.
pub fn split(v: u64) -> (usize, usize) {
    ((v >> 32) as usize, (v & 0xffff_ffff) as usize)
}

/// One flag per item: set once when the item leaves the ring by any route.
pub struct Ledger {
    seen: Vec<AtomicBool>,
    m: usize,
}

impl Ledger {
    /// A ledger for `m` items from each producer.
    pub fn new(m: usize) -> Self {
        Self {
            seen: (0..PRODUCERS * m).map(|_| AtomicBool::new(false)).collect(),
            m,
        }
    }

    /// Marks `v` as out of the ring; fails on a corrupt or duplicate item.
    pub fn mark(&self, v: u64) {
        let (p, s) = split(v);
        assert!(p < PRODUCERS && s < self.m, "corrupt item {v:#x}");
        assert!(
            !self.seen[p * self.m + s].swap(true, Ordering::Relaxed),
            "duplicate item {v:#x}"
        );
    }

    /// Fails unless every item was marked.
    pub fn assert_complete(&self) {
        let missing = self.seen.iter().filter(|b| !b.load(Ordering::Relaxed));
        assert_eq!(missing.count(), 0, "items lost");
    }
}

/// Checks per-producer order for one consumer (or one evicting producer).
pub struct Order([Option<usize>; PRODUCERS]);

impl Order {
    /// Nothing seen yet.
    pub fn new() -> Self {
        Order([None; PRODUCERS])
    }

    /// Fails unless `v` comes after what this consumer saw of its producer.
    pub fn check(&mut self, v: u64) {
        let (p, s) = split(v);
        if let Some(last) = self.0[p] {
            assert!(s > last, "producer {p}: seq {s} after {last}");
        }
        self.0[p] = Some(s);
    }
}
