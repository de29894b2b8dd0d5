//! Benchmarks of the AIMD limiter's admission path against the floor (a bare
//! `fetch_add`/`fetch_sub` pair on one word) and `tokio::sync::Semaphore`.
//!
//! Run with `cargo bench -p sluicegate-bench --bench limit`.
//!
//! - `limit_uncontended`: one thread, acquire then release; an iteration is
//!   one pair. `sluicegate_success` ends the permit with `success` (the
//!   common path: two read-modify-writes), `sluicegate_drop` drops it
//!   (counted as ignored: one more counter). `floor_plus_counter` is the
//!   floor plus what one exact statistic costs.
//! - `limit_2threads`: both threads do `iters` pairs on one shared limiter,
//!   started together by a barrier; the time is the slower thread's.

use core::sync::atomic::{AtomicUsize, Ordering};
use core::time::Duration;
use criterion::{black_box, Criterion};

mod common;
use common::Case;
use sluicegate::limit::{Limiter, LimiterConfig};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Instant;

fn floor(word: &AtomicUsize) {
    black_box(word.fetch_add(1, Ordering::Acquire));
    black_box(word.fetch_sub(1, Ordering::Release));
}

/// The floor plus one relaxed counter: what an exact statistic costs.
fn floor_plus_counter(word: &AtomicUsize, counter: &AtomicUsize) {
    black_box(word.fetch_add(1, Ordering::Acquire));
    counter.fetch_add(1, Ordering::Relaxed);
    black_box(word.fetch_sub(1, Ordering::Release));
}

fn aimd_ignore(l: &Limiter) {
    if let Some(p) = black_box(l).try_acquire() {
        drop(p);
    }
}

fn aimd_success(l: &Limiter) {
    if let Some(p) = black_box(l).try_acquire() {
        p.success(black_box(100));
    }
}

fn tokio_sem(s: &tokio::sync::Semaphore) {
    if let Ok(p) = black_box(s).try_acquire() {
        drop(p);
    }
}

fn limiter() -> Limiter {
    Limiter::new(LimiterConfig::DEFAULT)
}

/// The single-threaded cases (criterion and instruction counts).
fn uncontended_cases() -> Vec<Case<'static>> {
    let word: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
    let counter: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
    let l1: &'static Limiter = Box::leak(Box::new(limiter()));
    let l2: &'static Limiter = Box::leak(Box::new(limiter()));
    let s: &'static tokio::sync::Semaphore = Box::leak(Box::new(tokio::sync::Semaphore::new(200)));
    fn case<T: Sync + ?Sized>(x: &'static T, op: impl Fn(&T) + 'static) -> Box<dyn FnMut(u64)> {
        Box::new(move |iters| {
            for _ in 0..iters {
                op(x)
            }
        })
    }
    const G: &str = "limit_uncontended";
    vec![
        (G, "floor_fetch_add_fetch_sub", case(word, floor)),
        (
            G,
            "floor_plus_counter",
            case(word, move |w| floor_plus_counter(w, counter)),
        ),
        (G, "sluicegate_drop", case(l1, aimd_ignore)),
        (G, "sluicegate_success", case(l2, aimd_success)),
        (G, "tokio_semaphore", case(s, tokio_sem)),
    ]
}

/// Runs `op` `iters` times on each of two threads started together; returns
/// the longer of the two elapsed times.
fn two_threads<T: Send + Sync + 'static>(shared: Arc<T>, iters: u64, op: fn(&T)) -> Duration {
    let barrier = Arc::new(Barrier::new(2));
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let (shared, barrier) = (shared.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                let start = Instant::now();
                for _ in 0..iters {
                    op(&shared);
                }
                start.elapsed()
            })
        })
        .collect();
    hs.into_iter().map(|h| h.join().unwrap()).max().unwrap()
}

fn contended(c: &mut Criterion) {
    let mut g = c.benchmark_group("limit_2threads");
    g.bench_function("floor_fetch_add_fetch_sub", |b| {
        let w = Arc::new(AtomicUsize::new(0));
        b.iter_custom(|iters| two_threads(w.clone(), iters, floor))
    });
    g.bench_function("sluicegate_drop", |b| {
        let l = Arc::new(limiter());
        b.iter_custom(|iters| two_threads(l.clone(), iters, aimd_ignore))
    });
    g.bench_function("sluicegate_success", |b| {
        let l = Arc::new(limiter());
        b.iter_custom(|iters| two_threads(l.clone(), iters, aimd_success))
    });
    g.bench_function("tokio_semaphore", |b| {
        let s = Arc::new(tokio::sync::Semaphore::new(200));
        b.iter_custom(|iters| two_threads(s.clone(), iters, tokio_sem))
    });
    g.finish();
}

fn main() {
    let mut cases = uncontended_cases();
    if common::icount(&mut cases) {
        return;
    }
    let mut c = common::criterion();
    common::bench_cases(&mut c, &mut cases);
    contended(&mut c);
    c.final_summary();
}
