//! loom models of the limiter's admission word. Run with
//! `RUSTFLAGS="--cfg sluicegate_loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --test loom_limit`.
#![cfg(sluicegate_loom)]

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use sluicegate::limit::{Aimd, AimdConfig};

fn config(min: u32, initial: u32, max: u32) -> AimdConfig {
    AimdConfig {
        min_limit: min,
        initial_limit: initial,
        max_limit: max,
        // Halve on overload, so small models show a cut.
        backoff: 128,
        ..AimdConfig::DEFAULT
    }
}

/// A limiter for one model iteration, shared as `&'static` so permits can move
/// between threads (a few hundred bytes leaked per iteration).
fn leak(config: AimdConfig) -> &'static Aimd {
    Box::leak(Box::new(Aimd::try_new(config).unwrap()))
}

/// Three contexts race to acquire under a limit of 2: never three holders,
/// and every permit comes back.
#[test]
fn loom_limit_concurrent_acquire_never_exceeds_limit() {
    loom::model(|| {
        let limiter = leak(config(2, 2, 2));
        let holders = Arc::new(AtomicUsize::new(0));
        let admitted = Arc::new(AtomicUsize::new(0));
        let work = move |holders: Arc<AtomicUsize>, admitted: Arc<AtomicUsize>, ok: bool| {
            if let Some(p) = limiter.try_acquire() {
                admitted.fetch_add(1, Ordering::Relaxed);
                let h = holders.fetch_add(1, Ordering::SeqCst) + 1;
                assert!(h <= 2, "{h} holders under a limit of 2");
                assert!(p.in_flight_at_admission() <= 2);
                holders.fetch_sub(1, Ordering::SeqCst);
                if ok {
                    p.success(5);
                }
            }
        };
        let ts: Vec<_> = (0..2)
            .map(|i| {
                let (h, a) = (holders.clone(), admitted.clone());
                thread::spawn(move || work(h, a, i == 0))
            })
            .collect();
        work(holders.clone(), admitted.clone(), false);
        for t in ts {
            t.join().unwrap();
        }
        assert_eq!(limiter.in_flight(), 0);
        let s = limiter.stats();
        let n = admitted.load(Ordering::Relaxed);
        assert!(
            n >= 2,
            "with a limit of 2, at most one of three can be shed"
        );
        assert_eq!(s.admitted, n);
        assert_eq!(s.shed[0], 3 - n);
    });
}

/// A cut (2 → 1) races two admissions while another permit is held. An
/// admission is judged against the limit in its own word: holders never
/// exceed 2, anything admitted was admitted under the limit of 2 (with
/// `held` out, in flight is ≥ 2 after it), and the cut happens exactly once.
#[test]
fn loom_limit_decrease_racing_acquisitions() {
    loom::model(|| {
        let limiter = leak(config(1, 2, 2));
        let held = limiter.try_acquire().unwrap();
        let dropper = limiter.try_acquire().unwrap();
        // Holders as the test sees them: `held` and `dropper`.
        let holders = Arc::new(AtomicUsize::new(2));
        let h = holders.clone();
        let t = thread::spawn(move || {
            h.fetch_sub(1, Ordering::SeqCst);
            dropper.dropped();
        });
        let attempt = move |holders: Arc<AtomicUsize>| {
            limiter.try_acquire().map(|p| {
                let now = holders.fetch_add(1, Ordering::SeqCst) + 1;
                assert!(now <= 2, "{now} holders, limit never above 2");
                assert_eq!(p.limit_at_admission(), 2);
                assert_eq!(p.in_flight_at_admission(), 2);
                holders.fetch_sub(1, Ordering::SeqCst);
                p.ignore();
            })
        };
        let h = holders.clone();
        let t2 = thread::spawn(move || attempt(h).is_some());
        let mine = attempt(holders.clone()).is_some();
        t.join().unwrap();
        let theirs = t2.join().unwrap();
        assert_eq!(limiter.limit(), 1);
        let s = limiter.stats();
        assert_eq!(s.decreases, 1);
        assert_eq!(s.admitted, 2 + usize::from(mine) + usize::from(theirs));
        assert_eq!(limiter.in_flight(), 1);
        // Now in flight 1 = limit 1: nothing more is admitted.
        assert!(limiter.try_acquire().is_none());
        drop(held);
        assert_eq!(limiter.in_flight(), 0);
    });
}

/// Three permits from one window report overload concurrently: the limit
/// is cut once (4 → 2), not three times.
#[test]
fn loom_limit_one_decrease_per_window_under_concurrent_drops() {
    loom::model(|| {
        let limiter = leak(config(1, 4, 4));
        let a = limiter.try_acquire().unwrap();
        let b = limiter.try_acquire().unwrap();
        let c = limiter.try_acquire().unwrap();
        let ta = thread::spawn(move || a.dropped());
        let tb = thread::spawn(move || b.dropped());
        c.dropped();
        ta.join().unwrap();
        tb.join().unwrap();
        assert_eq!(limiter.limit(), 2);
        let s = limiter.stats();
        assert_eq!(s.decreases, 1);
        assert_eq!(s.dropped, 3);
        assert_eq!(limiter.in_flight(), 0);
    });
}

/// A window of successes from two contexts grows the limit exactly once.
#[test]
fn loom_limit_one_increase_per_window_under_concurrent_successes() {
    loom::model(|| {
        let limiter = leak(config(1, 2, 4));
        let a = limiter.try_acquire().unwrap();
        let b = limiter.try_acquire().unwrap();
        let t = thread::spawn(move || a.success(10));
        b.success(10);
        t.join().unwrap();
        assert_eq!(limiter.limit(), 3);
        assert_eq!(limiter.in_flight(), 0);
        assert_eq!(limiter.baseline(), Some(10));
    });
}

/// Acquire/release cycles with every outcome from two contexts: no permit
/// is lost or counted twice.
#[test]
fn loom_limit_no_lost_permits() {
    loom::model(|| {
        let limiter = leak(config(1, 2, 2));
        let t = thread::spawn(move || {
            let mut n = 0;
            if let Some(p) = limiter.try_acquire() {
                n += 1;
                p.dropped();
            }
            if let Some(p) = limiter.try_acquire() {
                n += 1;
                p.success(3);
            }
            n
        });
        let mut n = 0;
        if let Some(p) = limiter.try_acquire() {
            n += 1;
            drop(p);
        }
        n += t.join().unwrap();
        assert_eq!(limiter.in_flight(), 0);
        let s = limiter.stats();
        assert_eq!(s.admitted, n);
        assert_eq!(s.succeeded + s.dropped + s.ignored, n);
        assert_eq!(s.shed[0], 3 - n);
        assert!(s.limit >= 1 && s.limit <= 2);
    });
}
