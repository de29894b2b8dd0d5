//! Helpers shared by the integration tests: a seeded generator and a payload
//! that counts its drops. Each test file that needs them says `mod common;`.
#![allow(dead_code)] // each test binary uses a different part

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

mod splitmix;
#[allow(unused_imports)] // as `dead_code` above
pub use splitmix::Rng;
mod fresh_model;
#[allow(unused_imports)] // as `dead_code` above
pub use fresh_model::fresh_pop;

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
