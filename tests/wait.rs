//! The waits under real executors (feature `async`; the blocking ones need
//! `std` too): `pollster` (one future per thread), `futures`' single-threaded
//! `LocalPool` (many tasks on one thread), and threads that stand in for an
//! interrupt handler with plain `try_push`/`try_pop`. Every test checks exact
//! accounting: each item comes out once, in order per producer.
#![cfg(not(sluicegate_loom))]

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use sluicegate::{mpmc, spsc, Closed};
use std::future::Future;
use std::sync::Arc;
use std::sync::Mutex;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;

const ITEMS: u32 = if cfg!(miri) { 60 } else { 20_000 };

struct Noop;
impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

/// Polls `fut` once with a waker that does nothing.
fn poll_once<F: Future + Unpin>(fut: &mut F) -> Poll<F::Output> {
    let waker = Waker::from(Arc::new(Noop));
    std::pin::Pin::new(fut).poll(&mut Context::from_waker(&waker))
}

#[test]
fn spsc_async_both_sides_wait() {
    // A ring of 2: the producer waits for room and the consumer for items
    // over and over.
    let mut ring: spsc::Ring<u32, 2> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    thread::scope(|s| {
        s.spawn(move || {
            pollster::block_on(async {
                for i in 0..ITEMS {
                    tx.push(i).await.unwrap();
                }
            })
        });
        let got = pollster::block_on(async {
            let mut next = 0;
            while let Some(v) = rx.pop().await {
                assert_eq!(v, next);
                next += 1;
            }
            next
        });
        assert_eq!(got, ITEMS);
        assert_eq!(rx.stats().rejected, 0, "a wait is not a rejection");
    });
}

#[test]
fn spsc_async_pop_woken_by_interrupt_style_try_push() {
    // The "interrupt" only ever calls try_push (retrying when full); the
    // task's pop must be woken by it.
    static RING: spsc::Ring<u32, 4, spsc::Overwrite> = spsc::Ring::new();
    let (mut tx, mut rx) = RING.try_split().unwrap();
    let isr = thread::spawn(move || {
        let mut refused = 0u32;
        for i in 0..ITEMS {
            while tx.try_push(i).is_err() {
                refused += 1;
                thread::yield_now();
            }
        }
        refused
    });
    let got = pollster::block_on(async {
        let mut next = 0;
        while let Some(v) = rx.pop().await {
            assert_eq!(v, next);
            next += 1;
        }
        next
    });
    let refused = isr.join().unwrap();
    assert_eq!(got, ITEMS);
    assert_eq!(RING.stats().rejected as u32, refused);
}

#[test]
fn spsc_async_ends_on_the_other_handle_drop() {
    let mut ring: spsc::Ring<u32, 1> = spsc::Ring::new();
    let (mut tx, rx) = ring.split();
    tx.try_push(1).unwrap();
    let mut push = tx.push(2);
    assert!(poll_once(&mut push).is_pending());
    thread::scope(|s| {
        s.spawn(move || drop(rx));
        assert_eq!(pollster::block_on(push), Err(Closed(2)));
    });
    drop(tx);
    let (_tx, mut rx) = ring.split();
    assert_eq!(rx.try_pop(), Some(1));
    let mut pop = rx.pop();
    assert!(poll_once(&mut pop).is_pending());
    drop(_tx);
    assert_eq!(pollster::block_on(pop), None);
}

/// Counts its wakes.
struct Count(std::sync::atomic::AtomicUsize);
impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn spsc_async_leaked_future_leaves_no_polling_behind() {
    let mut ring: spsc::Ring<u32, 1> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    let mut pop = rx.pop();
    assert!(poll_once(&mut pop).is_pending());
    std::mem::forget(pop);
    // The next pop takes the one cell over and sleeps: its waker is not
    // called until a push (the polling fallback would wake it at once).
    let count = Arc::new(Count(Default::default()));
    let waker = Waker::from(count.clone());
    let mut pop = rx.pop();
    let poll = std::pin::Pin::new(&mut pop).poll(&mut Context::from_waker(&waker));
    assert!(poll.is_pending());
    assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 0);
    tx.try_push(4).unwrap();
    assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(pollster::block_on(pop), Some(4));
}

#[test]
fn spsc_async_dropped_future_frees_its_cell() {
    let mut ring: spsc::Ring<u32, 1> = spsc::Ring::new();
    let (tx, mut rx) = ring.split();
    for _ in 0..3 {
        let mut pop = rx.pop();
        assert!(poll_once(&mut pop).is_pending());
    }
    thread::scope(|s| {
        s.spawn(move || {
            let mut tx = tx;
            tx.try_push(9).unwrap();
            tx
        });
        assert_eq!(pollster::block_on(rx.pop()), Some(9));
    });
}

/// Many producer and consumer tasks on one thread (`LocalPool`): four
/// consumers (one per waker cell, so the pool stalls once they all wait) and
/// six producers, more than the cells, so the extra ones poll.
#[test]
fn mpmc_async_local_pool_many_tasks() {
    const TASKS: u32 = 6;
    const CONSUMERS: u32 = 4;
    let per = ITEMS / 20;
    static RING: mpmc::Ring<u32, 2> = mpmc::Ring::new();
    static GOT: Mutex<Vec<u32>> = Mutex::new(Vec::new());
    let (ring, got) = (&RING, &GOT);
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    for _ in 0..CONSUMERS {
        spawner
            .spawn_local(async move {
                while let Some(v) = ring.pop().await {
                    got.lock().unwrap().push(v);
                }
            })
            .unwrap();
    }
    for t in 0..TASKS {
        spawner
            .spawn_local(async move {
                for i in 0..per {
                    ring.push(t * per + i).await.unwrap();
                }
            })
            .unwrap();
    }
    pool.run_until_stalled();
    // Every producer is done; the consumers wait on an empty ring.
    assert!(ring.is_empty());
    assert_eq!(got.lock().unwrap().len() as u32, TASKS * per);
    ring.close();
    pool.run(); // the close wakes every consumer and they end
    let mut all = std::mem::take(&mut *got.lock().unwrap());
    all.sort_unstable();
    assert_eq!(all, (0..TASKS * per).collect::<Vec<_>>());
    assert_eq!(ring.stats().rejected, 0);
}

/// Producer and consumer threads under `pollster`, waiters on both sides,
/// then a close while consumers wait: every item once, per-producer order
/// kept, every waiter returns.
#[test]
fn mpmc_async_threads_exact_accounting_then_close() {
    const THREADS: u32 = 3;
    let ring: mpmc::Ring<u32, 4> = mpmc::Ring::new();
    let per = ITEMS / THREADS;
    let outs: Vec<Vec<u32>> = thread::scope(|s| {
        let consumers: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    pollster::block_on(async {
                        let mut got = Vec::new();
                        while let Some(v) = ring.pop().await {
                            got.push(v);
                        }
                        got
                    })
                })
            })
            .collect();
        let producers: Vec<_> = (0..THREADS)
            .map(|t| {
                let ring = &ring;
                s.spawn(move || {
                    pollster::block_on(async {
                        for i in 0..per {
                            ring.push(t << 24 | i).await.unwrap();
                        }
                    })
                })
            })
            .collect();
        producers.into_iter().for_each(|p| p.join().unwrap());
        ring.close();
        consumers.into_iter().map(|c| c.join().unwrap()).collect()
    });
    let mut last = vec![None; THREADS as usize];
    let mut count = 0;
    for got in &outs {
        last.iter_mut().for_each(|l| *l = None);
        for v in got {
            let (t, i) = ((v >> 24) as usize, v & 0xff_ffff);
            assert!(last[t].is_none_or(|l| l < i), "per-producer order");
            last[t] = Some(i);
            count += 1;
        }
    }
    assert_eq!(count, THREADS * per);
    let mut all: Vec<u32> = outs.concat();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len() as u32, THREADS * per, "each item once");
    assert!(pollster::block_on(ring.push(1)).is_err());
}

#[test]
fn mpmc_async_push_waiter_woken_by_close() {
    let ring: mpmc::Ring<u32, 1> = mpmc::Ring::new();
    ring.try_push(1).unwrap();
    let ring = &ring;
    thread::scope(|s| {
        let waiting: Vec<_> = (0..6)
            .map(|i| s.spawn(move || pollster::block_on(ring.push(10 + i))))
            .collect();
        ring.close();
        for (i, w) in waiting.into_iter().enumerate() {
            assert_eq!(w.join().unwrap(), Err(Closed(10 + i as u32)));
        }
    });
    assert_eq!(ring.pop_blocking(), Some(1));
    assert_eq!(ring.pop_blocking(), None);
}

#[test]
fn mpmc_async_cancelled_waiters_release_their_cells() {
    let ring: mpmc::Ring<u32, 1> = mpmc::Ring::new();
    // More than the four cells, pending and then dropped, twice.
    for _ in 0..2 {
        let mut pops: Vec<_> = (0..6).map(|_| ring.pop()).collect();
        for p in &mut pops {
            assert!(poll_once(p).is_pending());
        }
    }
    thread::scope(|s| {
        let waiting: Vec<_> = (0..4)
            .map(|_| s.spawn(|| pollster::block_on(ring.pop())))
            .collect();
        for i in 0..4 {
            ring.push_blocking(i).unwrap();
        }
        let mut got: Vec<_> = waiting.into_iter().map(|w| w.join().unwrap()).collect();
        got.sort_unstable();
        assert_eq!(got, [Some(0), Some(1), Some(2), Some(3)]);
    });
}

/// The blocking calls park (feature `std`): threads on both sides of a
/// small ring, then a close ends the waiting consumers.
#[cfg(feature = "std")]
#[test]
fn blocking_waits_park_and_end_on_close() {
    let ring: mpmc::Ring<u32, 2> = mpmc::Ring::new();
    let per = ITEMS / 4;
    let total: u64 = thread::scope(|s| {
        let consumers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    std::iter::from_fn(|| ring.pop_blocking())
                        .map(u64::from)
                        .sum::<u64>()
                })
            })
            .collect();
        let producers: Vec<_> = (0..2)
            .map(|t| {
                let ring = &ring;
                s.spawn(move || (0..per).for_each(|i| ring.push_blocking(t * per + i).unwrap()))
            })
            .collect();
        producers.into_iter().for_each(|p| p.join().unwrap());
        ring.close();
        consumers.into_iter().map(|c| c.join().unwrap()).sum()
    });
    assert_eq!(total, (0..2 * per as u64).sum::<u64>());

    let mut spsc: spsc::Ring<u32, 2> = spsc::Ring::new();
    let (mut tx, mut rx) = spsc.split();
    thread::scope(|s| {
        s.spawn(move || (0..per).for_each(|i| tx.push_blocking(i).unwrap()));
        for i in 0..per {
            assert_eq!(rx.pop_blocking(), Some(i));
        }
        assert_eq!(rx.pop_blocking(), None);
    });
}

/// One consumer parked in `pop_blocking` is woken by a push from a thread
/// that only calls `try_push`.
#[cfg(feature = "std")]
#[test]
fn blocking_pop_woken_by_try_push() {
    let ring: mpmc::Ring<u32, 4> = mpmc::Ring::new();
    thread::scope(|s| {
        let c = s.spawn(|| ring.pop_blocking());
        thread::sleep(std::time::Duration::from_millis(if cfg!(miri) {
            1
        } else {
            20
        }));
        ring.try_push(3).unwrap();
        assert_eq!(c.join().unwrap(), Some(3));
    });
}

/// Bursts wake the waiters as single operations do: tasks waiting in `pop`
/// are woken by another thread's `push_burst`, tasks waiting in `push` by
/// its `pop_burst`; every item comes out once.
#[test]
fn mpmc_async_waiters_woken_by_bursts() {
    let ring: mpmc::Ring<u32, 4> = mpmc::Ring::new();
    let total = ITEMS - ITEMS % 8;
    thread::scope(|s| {
        // Async consumer against a burst producer.
        let consumer = s.spawn(|| {
            pollster::block_on(async {
                let mut got = Vec::new();
                while let Some(v) = ring.pop().await {
                    got.push(v);
                }
                got
            })
        });
        let mut next = 0;
        while next < total {
            let items: Vec<u32> = (next..next + 8).collect();
            let mut sent = 0;
            while sent < 8 {
                sent += ring.push_burst(&items[sent..]);
                thread::yield_now();
            }
            next += 8;
        }
        ring.close();
        let got = consumer.join().unwrap();
        assert_eq!(
            got,
            (0..total).collect::<Vec<_>>(),
            "each item once, in order"
        );
    });
    let ring: mpmc::Ring<u32, 4> = mpmc::Ring::new();
    thread::scope(|s| {
        // Async producer against a burst consumer.
        s.spawn(|| {
            pollster::block_on(async {
                for i in 0..total {
                    ring.push(i).await.unwrap();
                }
            });
            ring.close();
        });
        let mut got = Vec::new();
        let mut buf = [0; 8];
        loop {
            let n = ring.pop_burst(&mut buf);
            got.extend_from_slice(&buf[..n]);
            if n == 0 {
                match ring.try_pop_or_closed() {
                    Ok(v) => got.push(v),
                    Err(sluicegate::TryPopError::Closed) => break,
                    Err(sluicegate::TryPopError::Empty) => thread::yield_now(),
                }
            }
        }
        assert_eq!(
            got,
            (0..total).collect::<Vec<_>>(),
            "each item once, in order"
        );
    });
}
