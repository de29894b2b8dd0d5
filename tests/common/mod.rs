//! Helpers shared by the integration tests: a seeded generator and a payload
//! that counts its drops. Each test file that needs them says `mod common;`.
#![allow(dead_code)] // each test binary uses a different part

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// splitmix64: small, seeded, deterministic; good enough for operation mixes
/// and arrivals.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A payload with an id that counts its drops in a shared counter.
#[derive(Debug)]
pub struct Counted(pub u32, pub Arc<AtomicUsize>);

impl Counted {
    pub fn id(&self) -> u32 {
        self.0
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::Relaxed);
    }
}

/// A fresh drop counter and a maker of `Counted` items that count into it.
pub fn drop_counter() -> (Arc<AtomicUsize>, impl Fn(u32) -> Counted) {
    let drops = Arc::new(AtomicUsize::new(0));
    let counter = drops.clone();
    (drops, move |id| Counted(id, counter.clone()))
}
