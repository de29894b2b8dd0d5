//! Benchmarks of the AIMD limiter's admission path against the floor (a bare
//! `fetch_add`/`fetch_sub` pair on one word) and `tokio::sync::Semaphore`.
//!
//! Run with `cargo bench --bench limit`.

use core::sync::atomic::{AtomicUsize, Ordering};
use core::time::Duration;
use criterion::{black_box, Criterion};
use sluicegate::limit::{Aimd, AimdConfig};
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

fn aimd_ignore(l: &Aimd) {
    if let Some(p) = black_box(l).try_acquire() {
        drop(p);
    }
}

fn aimd_success(l: &Aimd) {
    if let Some(p) = black_box(l).try_acquire() {
        p.success(black_box(100));
    }
}

fn tokio_sem(s: &tokio::sync::Semaphore) {
    if let Ok(p) = black_box(s).try_acquire() {
        drop(p);
    }
}

fn limiter() -> Aimd {
    Aimd::new(AimdConfig::DEFAULT)
}

fn uncontended(c: &mut Criterion) {
    let mut g = c.benchmark_group("uncontended acquire+release");
    let word = AtomicUsize::new(0);
    let counter = AtomicUsize::new(0);
    g.bench_function("floor fetch_add+fetch_sub", |b| b.iter(|| floor(&word)));
    g.bench_function("floor + 1 counter", |b| {
        b.iter(|| floor_plus_counter(&word, &counter))
    });
    let l = limiter();
    g.bench_function("aimd try_acquire+drop", |b| b.iter(|| aimd_ignore(&l)));
    let l = limiter();
    g.bench_function("aimd try_acquire+success", |b| b.iter(|| aimd_success(&l)));
    let s = tokio::sync::Semaphore::new(200);
    g.bench_function("tokio Semaphore try_acquire+drop", |b| {
        b.iter(|| tokio_sem(&s))
    });
    g.finish();
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
    let mut g = c.benchmark_group("2 threads acquire+release");
    g.bench_function("floor fetch_add+fetch_sub", |b| {
        let w = Arc::new(AtomicUsize::new(0));
        b.iter_custom(|iters| two_threads(w.clone(), iters, floor))
    });
    g.bench_function("aimd try_acquire+drop", |b| {
        let l = Arc::new(limiter());
        b.iter_custom(|iters| two_threads(l.clone(), iters, aimd_ignore))
    });
    g.bench_function("aimd try_acquire+success", |b| {
        let l = Arc::new(limiter());
        b.iter_custom(|iters| two_threads(l.clone(), iters, aimd_success))
    });
    g.bench_function("tokio Semaphore try_acquire+drop", |b| {
        let s = Arc::new(tokio::sync::Semaphore::new(200));
        b.iter_custom(|iters| two_threads(s.clone(), iters, tokio_sem))
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    uncontended(&mut c);
    contended(&mut c);
    c.final_summary();
}
