//! The skeleton of the threaded benchmarks: producers and consumers
//! released together, each waiting with a deadline so that a ring that
//! stops making progress aborts the transfer instead of hanging it.

use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use core::time::Duration;
use std::sync::Barrier;
use std::thread;
use std::time::Instant;

use super::common::yield_every;

/// Time limit of one transfer (a criterion sample or the probe).
const DEADLINE: Duration = Duration::from_secs(10);

/// Waiting with a deadline: spin, yield after `yield_every()` misses in a row
/// (as `common::wait`), and check the clock every 16 yields.
pub struct Waiter<'a> {
    misses: u32,
    deadline: Instant,
    abort: &'a AtomicBool,
}

impl<'a> Waiter<'a> {
    pub fn new(deadline: Instant, abort: &'a AtomicBool) -> Self {
        Self {
            misses: 0,
            deadline,
            abort,
        }
    }
    /// Returns `false` once the transfer has been aborted.
    #[inline]
    pub fn wait(&mut self) -> bool {
        self.misses += 1;
        if self.misses.is_multiple_of(yield_every()) {
            thread::yield_now();
            if self.misses.is_multiple_of(16 * yield_every()) {
                if self.abort.load(Ordering::Relaxed) {
                    return false;
                }
                if Instant::now() > self.deadline {
                    self.abort.store(true, Ordering::Relaxed);
                    return false;
                }
            }
        } else {
            core::hint::spin_loop();
        }
        true
    }
    pub fn hit(&mut self) {
        self.misses = 0;
    }
}

/// Outcome of a transfer: its time, and the items popped if it was aborted.
pub struct Transfer {
    pub elapsed: Duration,
    pub aborted: Option<u64>,
}

/// The skeleton of every transfer: `threads` producers and `threads`
/// consumers released together by a barrier. Each producer runs
/// `produce(per, waiter)`, pushing its `per` items; each consumer runs
/// `consume(popped, total, waiter)`, popping until `popped` (the items
/// counted so far, by all consumers) reaches `total`. Both return early once
/// the waiter says the transfer was aborted. Timed from the barrier to the
/// last join; the caller empties the ring for the next sample.
pub fn run_transfer<P, C>(threads: usize, iters: u64, produce: P, consume: C) -> Transfer
where
    P: Fn(u64, &mut Waiter<'_>) + Sync,
    C: Fn(&AtomicU64, u64, &mut Waiter<'_>) + Sync,
{
    let per = iters.div_ceil(threads as u64);
    let total = per * threads as u64;
    let popped = AtomicU64::new(0);
    let abort = AtomicBool::new(false);
    let barrier = Barrier::new(2 * threads + 1);
    thread::scope(|s| {
        let mut hs = Vec::new();
        for _ in 0..threads {
            hs.push(s.spawn(|| {
                barrier.wait();
                produce(per, &mut Waiter::new(Instant::now() + DEADLINE, &abort));
            }));
            hs.push(s.spawn(|| {
                barrier.wait();
                consume(
                    &popped,
                    total,
                    &mut Waiter::new(Instant::now() + DEADLINE, &abort),
                );
            }));
        }
        barrier.wait();
        let start = Instant::now();
        for h in hs {
            h.join().unwrap();
        }
        let elapsed = start.elapsed();
        let aborted = abort
            .load(Ordering::Relaxed)
            .then(|| popped.load(Ordering::Relaxed));
        Transfer { elapsed, aborted }
    })
}
