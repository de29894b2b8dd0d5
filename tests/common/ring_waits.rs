//! The waits of an MPMC ring, shared by `tests/wait.rs` (`mpmc::Ring`),
//! `tests/wait_cs.rs` (`mpmc::cs::Ring`) and `tests/wait_burst.rs`
//! (`mpmc::BurstRing`): the rings promise the same waiting behaviour, so one
//! set of tests holds each to it. The including file names the ring under
//! test `crate::Ring` (and its 64-slot form `crate::Ring64`). Real executors: `pollster`
//! (one future per thread) and `futures`' `LocalPool` (many tasks on one
//! thread), with threads standing in for interrupt handlers that only call
//! `try_push`/`try_pop`. Every test checks exact accounting: each item comes
//! out once, in order per producer.

use crate::{Ring, Ring64};
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use sluicegate::{Closed, Overwritten, TryPopError};
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread;

pub const ITEMS: u32 = if cfg!(miri) { 60 } else { 20_000 };

#[path = "wake_count.rs"]
mod wake_count;
pub use wake_count::{counting, wakes};

#[allow(dead_code)] // the SPSC tests' (their futures are `Unpin`)
pub fn poll_with<F: Future + Unpin>(fut: &mut F, waker: &Waker) -> Poll<F::Output> {
    poll_pin(Pin::new(fut), waker)
}

/// Polls a pinned future once with `waker` (the MPMC futures are `!Unpin`).
pub fn poll_pin<F: Future>(fut: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(waker))
}

/// Pops with `pop().await` until it answers `None` (closed and drained).
fn pop_all<const N: usize>(ring: &Ring<u32, N>) -> Vec<u32> {
    pollster::block_on(async {
        let mut got = Vec::new();
        while let Some(v) = ring.pop().await {
            got.push(v);
        }
        got
    })
}

/// Checks that every producer's items (`t << 24 | i`) came out once and,
/// within each consumer's list, in order per producer.
fn check_accounting(outs: &[Vec<u32>], producers: u32, per: u32) {
    let mut count = 0;
    for got in outs {
        let mut last = vec![None; producers as usize];
        for v in got {
            let (t, i) = ((v >> 24) as usize, v & 0xff_ffff);
            assert!(last[t].is_none_or(|l| l < i), "per-producer order");
            last[t] = Some(i);
            count += 1;
        }
    }
    assert_eq!(count, producers * per);
    let mut all: Vec<u32> = outs.concat();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len() as u32, producers * per, "each item once");
}

/// Two "interrupt handlers" `try_push` (retrying when full, counting the
/// refusals); one task's `pop` must be woken by them, and the close ends it.
#[test]
fn async_pop_woken_by_interrupt_style_try_push() {
    static RING: Ring<u32, 4> = Ring::new();
    let per = ITEMS / 2;
    let got = thread::scope(|s| {
        let isrs: Vec<_> = (0..2u32)
            .map(|t| {
                s.spawn(move || {
                    let mut refused = 0;
                    for i in 0..per {
                        while RING.try_push(t << 24 | i).is_err() {
                            refused += 1;
                            thread::yield_now();
                        }
                    }
                    refused
                })
            })
            .collect();
        let consumer = s.spawn(|| pop_all(&RING));
        let refused: usize = isrs.into_iter().map(|h| h.join().unwrap()).sum();
        RING.close();
        // The burst ring counts a refusal behind a pop in progress as busy
        // (the others never answer busy: 0 there).
        let stats = RING.stats();
        assert_eq!(stats.rejected + stats.busy, refused, "each refusal counted");
        consumer.join().unwrap()
    });
    check_accounting(&[got], 2, per);
}

/// Many tasks on one thread: consumers and producers both wait on a ring of
/// two, then the close ends the consumers. `run_until_stalled` stalls only
/// if no waiting task polls itself.
#[test]
fn async_local_pool_many_tasks() {
    const TASKS: u32 = 6;
    const CONSUMERS: u32 = 8;
    let per = ITEMS / 20;
    static RING: Ring<u32, 2> = Ring::new();
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
    assert!(ring.is_empty());
    assert_eq!(got.lock().unwrap().len() as u32, TASKS * per);
    ring.close();
    pool.run(); // the close wakes every consumer and they end
    let mut all = std::mem::take(&mut *got.lock().unwrap());
    all.sort_unstable();
    assert_eq!(all, (0..TASKS * per).collect::<Vec<_>>());
    assert_eq!(ring.stats().rejected, 0, "a wait is not a rejection");
}

/// Producer and consumer threads under `pollster`, waiters on both sides,
/// then a close while consumers wait.
#[test]
fn async_threads_exact_accounting_then_close() {
    const THREADS: u32 = 3;
    let ring: Ring<u32, 4> = Ring::new();
    let per = ITEMS / THREADS;
    let outs: Vec<Vec<u32>> = thread::scope(|s| {
        let consumers: Vec<_> = (0..THREADS).map(|_| s.spawn(|| pop_all(&ring))).collect();
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
    check_accounting(&outs, THREADS, per);
    assert_eq!(ring.stats().rejected, 0);
    assert!(pollster::block_on(ring.push(1)).is_err());
}

/// Six pushes wait on a full ring; the close hands every item back.
#[test]
fn async_push_waiters_woken_by_close() {
    let ring: Ring<u32, 1> = Ring::new();
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
    assert_eq!(ring.try_pop_or_closed(), Ok(1));
    assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
}

/// The close wakes a pending pop at once, and it answers `None` after the
/// items left.
#[test]
fn async_pop_woken_by_close() {
    let ring: Ring<u32, 2> = Ring::new();
    let (count, waker) = counting();
    let mut pop = pin!(ring.pop());
    assert!(poll_pin(pop.as_mut(), &waker).is_pending());
    ring.close();
    assert_eq!(count.wakes(), 1);
    assert_eq!(poll_pin(pop.as_mut(), &waker), Poll::Ready(None));
}

/// Pending futures dropped leave the list: new waiters then sleep and a
/// push wakes exactly one of them, the one that waited longest.
#[test]
fn async_cancelled_waiters_leave_the_list() {
    let ring: Ring<u32, 1> = Ring::new();
    let (_, waker) = counting();
    for _ in 0..2 {
        let mut pops: Vec<_> = (0..6).map(|_| Box::pin(ring.pop())).collect();
        for p in &mut pops {
            assert!(poll_pin(p.as_mut(), &waker).is_pending());
        }
    }
    let counts: Vec<_> = (0..6).map(|_| counting()).collect();
    let mut pops: Vec<_> = (0..6).map(|_| Box::pin(ring.pop())).collect();
    for (p, (_, w)) in pops.iter_mut().zip(&counts) {
        assert!(poll_pin(p.as_mut(), w).is_pending());
    }
    let woken = || wakes(&counts);
    assert_eq!(woken(), [0; 6], "all six sleep");
    ring.try_push(7).unwrap();
    assert_eq!(woken(), [1, 0, 0, 0, 0, 0], "the push woke the first only");
    assert_eq!(
        poll_pin(pops[0].as_mut(), &counts[0].1),
        Poll::Ready(Some(7))
    );
}

/// A woken future dropped before it polls passes its wake to the next
/// waiter: the item is not stranded.
#[test]
fn async_dropped_woken_future_passes_the_wake_on() {
    let ring: Ring<u32, 2> = Ring::new();
    let (a, wa) = counting();
    let (b, wb) = counting();
    let mut first = Box::pin(ring.pop());
    let mut second = Box::pin(ring.pop());
    assert!(poll_pin(first.as_mut(), &wa).is_pending());
    assert!(poll_pin(second.as_mut(), &wb).is_pending());
    ring.try_push(1).unwrap();
    assert_eq!((a.wakes(), b.wakes()), (1, 0));
    drop(first);
    assert_eq!(b.wakes(), 1, "passed on");
    assert_eq!(poll_pin(second.as_mut(), &wb), Poll::Ready(Some(1)));
}

/// Linked futures of both sides dropped in every state (waiting, woken,
/// woken and dropped), then pushes, pops and a close run over the lists:
/// nothing touches a dropped node (Miri checks the memory).
#[test]
fn async_dropped_linked_futures_then_notify() {
    let ring: Ring<u32, 2> = Ring::new();
    let (_, waker) = counting();
    for round in 0..3 {
        let mut pops: Vec<_> = (0..5).map(|_| Box::pin(ring.pop())).collect();
        for p in &mut pops {
            assert!(poll_pin(p.as_mut(), &waker).is_pending());
        }
        if round > 0 {
            ring.try_push(round).unwrap(); // wakes the first
        }
        // Drop from the middle, the head and the tail.
        drop(pops.remove(2));
        drop(pops.remove(0));
        drop(pops.pop());
        ring.try_push(10).unwrap();
        ring.try_push(11).unwrap_or_default();
        drop(pops);
        while ring.try_pop().is_some() {}
    }
    ring.push_iter([1, 2]);
    let mut pushes: Vec<_> = (0..4).map(|i| Box::pin(ring.push(i))).collect();
    for p in &mut pushes {
        assert!(poll_pin(p.as_mut(), &waker).is_pending());
    }
    drop(pushes.remove(1));
    assert_eq!(ring.try_pop(), Some(1));
    drop(pushes.remove(0));
    ring.close();
    drop(pushes);
    assert_eq!(ring.try_pop(), Some(2));
    let mut pop = pin!(ring.pop());
    assert_eq!(poll_pin(pop.as_mut(), &waker), Poll::Ready(None));
}

/// A leaked pinned future (never dropped) stays linked for good: it takes
/// one push's wake, which it never uses; the next push wakes the next
/// waiter, and the close wakes every one.
#[test]
fn async_leaked_future_stays_linked() {
    let ring: Ring<u32, 2> = Ring::new();
    let (leaked, waker) = counting();
    let mut forgotten = std::mem::ManuallyDrop::new(ring.pop());
    // SAFETY: never moved and never dropped; its memory (this frame) stays
    // valid until the function returns, after the ring is gone.
    let mut p = unsafe { Pin::new_unchecked(&mut *forgotten) };
    assert!(poll_pin(p.as_mut(), &waker).is_pending());
    let (count, w) = counting();
    let mut mine = pin!(ring.pop());
    assert!(poll_pin(mine.as_mut(), &w).is_pending());
    ring.try_push(5).unwrap();
    assert_eq!(leaked.wakes(), 1, "the leaked node's wake");
    assert_eq!(count.wakes(), 0);
    ring.try_push(6).unwrap();
    assert_eq!(count.wakes(), 1);
    assert_eq!(poll_pin(mine.as_mut(), &w), Poll::Ready(Some(5)));
}

/// A future polled again with another waker wakes the new one only.
#[test]
fn async_repoll_replaces_the_waker() {
    let ring: Ring<u32, 2> = Ring::new();
    let (a, wa) = counting();
    let (b, wb) = counting();
    let mut pop = pin!(ring.pop());
    assert!(poll_pin(pop.as_mut(), &wa).is_pending());
    assert!(poll_pin(pop.as_mut(), &wb).is_pending());
    assert!(poll_pin(pop.as_mut(), &wb).is_pending()); // same waker: kept
    ring.try_push(1).unwrap();
    assert_eq!(a.wakes(), 0);
    assert_eq!(b.wakes(), 1);
    assert_eq!(poll_pin(pop.as_mut(), &wb), Poll::Ready(Some(1)));
}

/// 64 tasks on one thread wait in `pop` on an idle ring; 64 pushes wake
/// each exactly once, and every item is delivered once.
#[test]
fn async_64_waiters_woken_once_each() {
    const TASKS: usize = 64;
    let ring: Ring64 = Ring::new();
    let counts: Vec<_> = (0..TASKS).map(|_| counting()).collect();
    let mut pops: Vec<_> = (0..TASKS).map(|_| Box::pin(ring.pop())).collect();
    for (p, (_, w)) in pops.iter_mut().zip(&counts) {
        assert!(poll_pin(p.as_mut(), w).is_pending());
    }
    for i in 0..TASKS as u32 {
        ring.try_push(i).unwrap();
    }
    assert_eq!(wakes(&counts), vec![1; TASKS], "each woken exactly once");
    let mut got: Vec<u32> = pops
        .iter_mut()
        .zip(&counts)
        .map(|(p, (_, w))| match poll_pin(p.as_mut(), w) {
            Poll::Ready(Some(v)) => v,
            other => panic!("{other:?}"),
        })
        .collect();
    got.sort_unstable();
    assert_eq!(got, (0..TASKS as u32).collect::<Vec<_>>());
    assert_eq!(wakes(&counts), vec![1; TASKS], "and never again");
}

/// Waiters woken together that all find nothing wait again in the order
/// they came, whichever of them is polled first: A, B, C and D wait in
/// `pop`; two pushes wake A and B, and a pop that does not wait takes both
/// items before they run. However A and B are then polled, the next pushes
/// wake A, then B, then C, then D.
#[test]
fn async_waiters_woken_together_keep_their_order() {
    for a_first in [true, false] {
        let ring: Ring<u32, 4> = Ring::new();
        let counts: Vec<_> = (0..4).map(|_| counting()).collect();
        let mut pops: Vec<_> = (0..4).map(|_| Box::pin(ring.pop())).collect();
        let mut poll = |i: usize| poll_pin(pops[i].as_mut(), &counts[i].1);
        for i in 0..4 {
            assert!(poll(i).is_pending());
        }
        ring.try_push(1).unwrap();
        ring.try_push(2).unwrap();
        assert_eq!(wakes(&counts), [1, 1, 0, 0], "the pushes woke A and B");
        assert_eq!((ring.try_pop(), ring.try_pop()), (Some(1), Some(2)));
        let order = if a_first { [0, 1] } else { [1, 0] };
        for i in order {
            assert!(poll(i).is_pending(), "found nothing, waits again");
        }
        let mut expect = [1, 1, 0, 0];
        for (i, v) in (0..4).zip(3..) {
            ring.try_push(v).unwrap();
            expect[i] += 1;
            assert_eq!(
                wakes(&counts),
                expect,
                "push of {v} (A polled again first: {a_first})"
            );
            assert_eq!(poll(i), Poll::Ready(Some(v)));
        }
    }
}

/// 64 tasks wait in `pop`; then, over and over, three pushes wake three of
/// them, a pop that does not wait takes the three items before they run,
/// and the woken ones are polled (oldest first, then newest first the next
/// time) and wait again; then one push serves one. The tasks are served in
/// the order they came, 0 to 63 (16 tasks under Miri).
#[test]
fn async_64_waiters_served_in_arrival_order_despite_stolen_wakes() {
    const TASKS: usize = if cfg!(miri) { 16 } else { 64 };
    let ring: Ring64 = Ring::new();
    let counts: Vec<_> = (0..TASKS).map(|_| counting()).collect();
    let mut pops: Vec<_> = (0..TASKS).map(|_| Some(Box::pin(ring.pop()))).collect();
    macro_rules! poll {
        ($i:expr) => {
            poll_pin(pops[$i].as_mut().unwrap().as_mut(), &counts[$i].1)
        };
    }
    for i in 0..TASKS {
        assert!(poll!(i).is_pending());
    }
    let wakes_of = |i: usize| counts[i].0.wakes();
    let mut seen = vec![0; TASKS];
    let mut served = Vec::new();
    let mut next = 0u32;
    while served.len() < TASKS {
        for _ in 0..3 {
            ring.try_push(next).unwrap();
            next += 1;
        }
        while ring.try_pop().is_some() {}
        let mut woken: Vec<usize> = (0..TASKS).filter(|&i| wakes_of(i) != seen[i]).collect();
        if served.len() % 2 == 1 {
            woken.reverse();
        }
        for i in woken {
            seen[i] = wakes_of(i);
            assert!(
                poll!(i).is_pending(),
                "task {i} found an item that was taken"
            );
        }
        ring.try_push(next).unwrap();
        let woken: Vec<usize> = (0..TASKS).filter(|&i| wakes_of(i) != seen[i]).collect();
        assert_eq!(woken.len(), 1, "one push wakes one task");
        let i = woken[0];
        assert_eq!(poll!(i), Poll::Ready(Some(next)));
        next += 1;
        seen[i] = wakes_of(i);
        pops[i] = None;
        served.push(i);
    }
    assert_eq!(served, (0..TASKS).collect::<Vec<_>>());
}

/// The same with 64 tasks on `futures`' `LocalPool`, then a close.
#[test]
fn async_local_pool_64_poppers() {
    const TASKS: u32 = 64;
    static RING: Ring<u32, 8> = Ring::new();
    static GOT: Mutex<Vec<u32>> = Mutex::new(Vec::new());
    let polls = Arc::new(AtomicUsize::new(0));
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    for _ in 0..TASKS {
        let polls = polls.clone();
        spawner
            .spawn_local(async move {
                let v = CountPolls(pin!(RING.pop()), &polls).await;
                GOT.lock().unwrap().extend(v);
            })
            .unwrap();
    }
    pool.run_until_stalled();
    assert_eq!(
        polls.load(Ordering::Relaxed),
        TASKS as usize,
        "each polled once, then asleep"
    );
    for i in 0..TASKS {
        RING.try_push(i).unwrap_or_else(|_| {
            pool.run_until_stalled();
            RING.try_push(i).unwrap()
        });
    }
    pool.run_until_stalled();
    assert_eq!(
        polls.load(Ordering::Relaxed),
        2 * TASKS as usize,
        "each woken once"
    );
    let mut all = std::mem::take(&mut *GOT.lock().unwrap());
    all.sort_unstable();
    assert_eq!(all, (0..TASKS).collect::<Vec<_>>());
}

/// Counts the polls of the future it wraps.
struct CountPolls<'a, F>(Pin<&'a mut F>, &'a AtomicUsize);

impl<F: Future> Future for CountPolls<'_, F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.as_mut().poll(cx)
    }
}

/// Every operation that makes progress wakes the other side: pushes
/// (`try_push`, `push_overwrite` storing or evicting, `push_iter`,
/// `push_burst`, a resolving async `push`) wake a pending pop; pops
/// (`try_pop`, `try_pop_or_closed`, `pop_burst`, `drain`, `clear`, a
/// resolving async `pop`) wake a pending push. A refused operation wakes
/// nobody.
#[test]
fn async_every_operation_wakes() {
    type Op = fn(&Ring<u32, 2>);
    let pushes: [(&str, Op); 5] = [
        ("try_push", |r| r.try_push(1).unwrap()),
        ("push_overwrite", |r| {
            assert_eq!(r.push_overwrite(1), Overwritten::Stored)
        }),
        ("push_iter", |r| assert_eq!(r.push_iter([1]), 1)),
        ("push_burst", |r| assert_eq!(r.push_burst(&[1]), 1)),
        ("async push", |r| {
            assert_eq!(pollster::block_on(r.push(1)), Ok(()))
        }),
    ];
    for (name, op) in pushes {
        let ring: Ring<u32, 2> = Ring::new();
        let (count, waker) = counting();
        let mut pop = pin!(ring.pop());
        assert!(poll_pin(pop.as_mut(), &waker).is_pending());
        op(&ring);
        assert_eq!(count.wakes(), 1, "{name} wakes a pop");
        assert_eq!(poll_pin(pop.as_mut(), &waker), Poll::Ready(Some(1)));
    }
    // An evicting push_overwrite: a pop pending on an empty ring, then the
    // ring filled with the pop not yet polled again, then an eviction.
    {
        let ring: Ring<u32, 1> = Ring::new();
        let (count, waker) = counting();
        let mut pop = pin!(ring.pop());
        assert!(poll_pin(pop.as_mut(), &waker).is_pending());
        ring.try_push(1).unwrap();
        assert_eq!(ring.push_overwrite(2), Overwritten::Evicted(1));
        assert!(count.wakes() >= 1);
        assert_eq!(poll_pin(pop.as_mut(), &waker), Poll::Ready(Some(2)));
    }
    let pops: [(&str, Op); 6] = [
        ("try_pop", |r| assert_eq!(r.try_pop(), Some(0))),
        ("try_pop_or_closed", |r| {
            assert_eq!(r.try_pop_or_closed(), Ok(0))
        }),
        ("pop_burst", |r| assert_eq!(r.pop_burst(&mut [0; 1]), 1)),
        ("drain", |r| assert_eq!(r.drain().next(), Some(0))),
        ("clear", |r| assert_eq!(r.clear(), 2)),
        ("async pop", |r| {
            assert_eq!(pollster::block_on(r.pop()), Some(0))
        }),
    ];
    for (name, op) in pops {
        let ring: Ring<u32, 2> = Ring::new();
        ring.push_iter([0, 1]);
        let (count, waker) = counting();
        let mut push = pin!(ring.push(9));
        assert!(poll_pin(push.as_mut(), &waker).is_pending());
        assert_eq!(ring.stats().rejected, 0, "a wait is not a rejection");
        // Refused operations wake nobody.
        assert!(ring.try_push(5).is_err());
        assert_eq!(ring.push_burst(&[5]), 0);
        assert_eq!(count.wakes(), 0);
        op(&ring);
        assert_eq!(count.wakes(), 1, "{name} wakes a push");
        assert_eq!(poll_pin(push.as_mut(), &waker), Poll::Ready(Ok(())));
    }
}

/// Tasks waiting in `pop` woken by another thread's `push_burst`, and tasks
/// waiting in `push` by its `pop_burst`; every item once, in order.
#[test]
fn async_waiters_woken_by_bursts() {
    let total = ITEMS - ITEMS % 8;
    let ring: Ring<u32, 4> = Ring::new();
    thread::scope(|s| {
        let consumer = s.spawn(|| pop_all(&ring));
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
        assert_eq!(consumer.join().unwrap(), (0..total).collect::<Vec<_>>());
    });
    let ring: Ring<u32, 4> = Ring::new();
    thread::scope(|s| {
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
                    Err(TryPopError::Closed) => break,
                    Err(TryPopError::Empty) => thread::yield_now(),
                }
            }
        }
        assert_eq!(got, (0..total).collect::<Vec<_>>());
    });
}

/// The blocking calls park (feature `std`): threads on both sides of a
/// small ring, then a close ends the waiting consumers.
#[cfg(feature = "std")]
#[test]
fn blocking_waits_park_and_end_on_close() {
    let ring: Ring<u32, 2> = Ring::new();
    let per = ITEMS / 4;
    let outs: Vec<Vec<u32>> = thread::scope(|s| {
        let consumers: Vec<_> = (0..3)
            .map(|_| s.spawn(|| std::iter::from_fn(|| ring.pop_blocking()).collect()))
            .collect();
        let producers: Vec<_> = (0..2u32)
            .map(|t| {
                let ring = &ring;
                s.spawn(move || (0..per).for_each(|i| ring.push_blocking(t << 24 | i).unwrap()))
            })
            .collect();
        producers.into_iter().for_each(|p| p.join().unwrap());
        ring.close();
        consumers.into_iter().map(|c| c.join().unwrap()).collect()
    });
    check_accounting(&outs, 2, per);
    assert_eq!(ring.stats().rejected, 0, "a wait is not a rejection");
    assert_eq!(ring.push_blocking(1), Err(Closed(1)));
}

/// 64 threads park in `pop_blocking` on an idle ring; 64 pushes deliver
/// every item once, and the close ends a second round.
#[cfg(feature = "std")]
#[test]
fn blocking_64_threads_parked() {
    let threads: u32 = if cfg!(miri) { 8 } else { 64 };
    let ring: Ring<u32, 4> = Ring::new();
    thread::scope(|s| {
        let waiters: Vec<_> = (0..threads)
            .map(|_| s.spawn(|| ring.pop_blocking()))
            .collect();
        for i in 0..threads {
            ring.push_blocking(i).unwrap();
        }
        let mut got: Vec<u32> = waiters
            .into_iter()
            .map(|w| w.join().unwrap().unwrap())
            .collect();
        got.sort_unstable();
        assert_eq!(got, (0..threads).collect::<Vec<_>>());
        let waiters: Vec<_> = (0..threads)
            .map(|_| s.spawn(|| ring.pop_blocking()))
            .collect();
        ring.close();
        for w in waiters {
            assert_eq!(w.join().unwrap(), None);
        }
    });
}

/// A consumer parked in `pop_blocking` is woken by a thread that only calls
/// `try_push`; a producer parked in `push_blocking` by one that only calls
/// `try_pop`.
#[cfg(feature = "std")]
#[test]
fn blocking_woken_by_try_push_and_try_pop() {
    let nap = std::time::Duration::from_millis(if cfg!(miri) { 1 } else { 20 });
    let ring: Ring<u32, 1> = Ring::new();
    thread::scope(|s| {
        let c = s.spawn(|| ring.pop_blocking());
        thread::sleep(nap);
        ring.try_push(3).unwrap();
        assert_eq!(c.join().unwrap(), Some(3));
        ring.try_push(4).unwrap();
        let p = s.spawn(|| ring.push_blocking(5));
        thread::sleep(nap);
        assert_eq!(ring.try_pop(), Some(4));
        assert_eq!(p.join().unwrap(), Ok(()));
        assert_eq!(ring.try_pop(), Some(5));
    });
}

/// A resolved `pop` polled again pops again (each resolution is a pop); a
/// resolved `push` polled again panics, holding no item to push.
#[test]
fn a_resolved_future_polled_again() {
    let ring: Ring<u32, 4> = Ring::new();
    let (_, waker) = counting();
    ring.try_push(1).unwrap();
    ring.try_push(2).unwrap();
    let mut pop = pin!(ring.pop());
    assert_eq!(poll_pin(pop.as_mut(), &waker), Poll::Ready(Some(1)));
    assert_eq!(poll_pin(pop.as_mut(), &waker), Poll::Ready(Some(2)));
    assert!(poll_pin(pop.as_mut(), &waker).is_pending());
    ring.close();
    assert_eq!(poll_pin(pop.as_mut(), &waker), Poll::Ready(None));

    let ring: Ring<u32, 4> = Ring::new();
    let mut push = Box::pin(ring.push(3));
    assert_eq!(poll_pin(push.as_mut(), &waker), Poll::Ready(Ok(())));
    let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        poll_pin(push.as_mut(), &waker)
    }));
    assert!(again.is_err(), "a resolved push polled again panics");
    assert_eq!(ring.try_pop_or_closed(), Ok(3));
    assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Empty));
}
