//! `loom::model` that fails when the model explored a single execution.
//!
//! Every loom model (the `loom_tests` modules beside the code they check)
//! races at least two operations, so one execution means loom did not
//! explore it: the model checks nothing and would pass with any bug. That
//! happens under loom 0.7.3 when a thread starts with a load of an object it
//! then stores (tokio-rs/loom#392), and when a race is only apparent (a pop
//! on a fresh ring answers "empty" from one load and never meets the push).
//! Models call [`model`] (or [`check`], or [`capped`]) in place of
//! `loom::model`.

use core::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Runs `f` under `builder` (see `loom::model::Builder`) and panics unless
/// it ran more than one execution. Returns how many it ran, and prints it
/// with the name of the test that ran it.
pub(crate) fn check<F>(builder: loom::model::Builder, f: F) -> usize
where
    F: Fn() + Sync + Send + 'static,
{
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    builder.check(move || {
        counted.fetch_add(1, Ordering::Relaxed);
        f();
    });
    let n = runs.load(Ordering::Relaxed);
    // Shown with `--nocapture`. The test harness names each test's thread
    // after the test.
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a model");
    std::eprintln!("{test}: explored {n} executions");
    assert!(
        n > 1,
        "the model ran {n} execution: loom explored no interleaving, so it checked nothing"
    );
    n
}

/// [`check`] with loom's default builder (which reads `LOOM_*` from the
/// environment, as `loom::model` does).
pub(crate) fn model<F>(f: F) -> usize
where
    F: Fn() + Sync + Send + 'static,
{
    check(loom::model::Builder::new(), f)
}

/// [`model`] at a preemption bound of at most `bound`, for a model whose
/// executions at the environment's bound are too many for the gate (the
/// waiter lists' three-waiter models: millions at bound 2). With
/// `SLUICEGATE_LOOM_DEEP` set (to anything) the cap is lifted and the
/// model runs at the environment's bound, as [`model`] does.
#[cfg_attr(not(feature = "async"), allow(dead_code))] // its models need `async`
pub(crate) fn capped<F>(bound: usize, f: F) -> usize
where
    F: Fn() + Sync + Send + 'static,
{
    let mut builder = loom::model::Builder::new();
    if std::env::var_os("SLUICEGATE_LOOM_DEEP").is_none() {
        builder.preemption_bound = Some(builder.preemption_bound.map_or(bound, |b| b.min(bound)));
    }
    check(builder, f)
}

/// [`model`] at a preemption bound of at least `bound`, for a model whose
/// failing schedule needs more preemptions than the gate's bound.
pub(crate) fn at_least<F>(bound: usize, f: F) -> usize
where
    F: Fn() + Sync + Send + 'static,
{
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(builder.preemption_bound.map_or(bound, |b| b.max(bound)));
    check(builder, f)
}

/// A waker that counts its wakes, for models that poll futures by hand.
#[cfg_attr(not(feature = "async"), allow(dead_code))] // its models need `async`
pub(crate) struct Count(AtomicUsize);

#[cfg_attr(not(feature = "async"), allow(dead_code))]
impl Count {
    /// A fresh count and the waker that adds to it.
    pub(crate) fn waker() -> (Arc<Count>, core::task::Waker) {
        let c = Arc::new(Count(AtomicUsize::new(0)));
        (c.clone(), core::task::Waker::from(c))
    }

    /// The wakes so far.
    pub(crate) fn wakes(&self) -> usize {
        // SeqCst: the wakes come from other model threads; a test reads
        // them after joining those or between its own polls.
        self.0.load(Ordering::SeqCst)
    }
}

impl std::task::Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}
