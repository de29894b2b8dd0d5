//! A waker that counts its wakes, for the tests that poll futures by hand.
#![allow(dead_code)] // each test crate uses its part

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Wake, Waker};

/// The count behind a counting waker.
#[derive(Default)]
pub struct Count(AtomicUsize);

impl Count {
    /// The wakes so far.
    pub fn wakes(&self) -> usize {
        // SeqCst: read by tests whose wakes come from other threads too.
        self.0.load(Ordering::SeqCst)
    }
}

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A fresh count and the waker that adds to it.
pub fn counting() -> (Arc<Count>, Waker) {
    let c = Arc::new(Count::default());
    (c.clone(), Waker::from(c))
}

/// The wakes each of `counts` has had.
pub fn wakes(counts: &[(Arc<Count>, Waker)]) -> Vec<usize> {
    counts.iter().map(|(c, _)| c.wakes()).collect()
}
