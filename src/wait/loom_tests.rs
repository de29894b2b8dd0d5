//! loom models of the waits (feature `async`): a task waiting in `pop` or
//! `push` against the operation that should wake it, a close, and a
//! handle's drop; on the real `mpmc::Ring` also three waiters against
//! pushes, against the close, and with one of them cancelled. `loom::future::block_on` parks the waiting thread between
//! polls, so a lost wake-up shows up as a deadlock that loom reports.
//!
//! Run: `ci/loom.sh wait`, or
//! `RUSTFLAGS="--cfg sluicegate_loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --features async --lib -- wait::loom_tests::`

use crate::spsc::{Overwrite, Policy, Reject, Ring};
use crate::sync::explores;
use crate::{mpmc, Closed, Overwritten};
use core::future::Future;
use core::task::Context;
use loom::future::block_on;
use loom::sync::Arc;
use loom::thread;
use std::boxed::Box;
use std::vec;
use std::vec::Vec;

fn ring<'a, P: Policy, const N: usize>() -> &'a mut Ring<u32, N, P> {
    Box::leak(Box::new(Ring::new()))
}

/// A consumer waits in `pop` on an empty ring; the producer's `try_push`
/// must wake it. The producer handle is kept alive (returned by the
/// thread), so only the push can end the wait.
fn spsc_pop_woken_by_push<P: Policy + Send + 'static>() {
    let (mut tx, mut rx) = ring::<P, 1>().split();
    let producer = thread::spawn(move || {
        tx.try_push(7).unwrap();
        tx
    });
    assert_eq!(block_on(rx.pop()), Some(7));
    let _tx = producer.join().unwrap();
}

#[test]
fn loom_wait_spsc_pop_woken_by_push() {
    explores::model(spsc_pop_woken_by_push::<Reject>);
    explores::model(spsc_pop_woken_by_push::<Overwrite>);
}

/// A producer waits in `push` on a full ring; the consumer's `try_pop` must
/// wake it.
fn spsc_push_woken_by_pop<P: Policy + Send + 'static>() {
    let (mut tx, mut rx) = ring::<P, 1>().split();
    tx.try_push(1).unwrap();
    let consumer = thread::spawn(move || {
        let got = rx.try_pop();
        (got, rx)
    });
    assert_eq!(block_on(tx.push(2)), Ok(()));
    let (got, mut rx) = consumer.join().unwrap();
    assert_eq!(got, Some(1));
    assert_eq!(rx.try_pop(), Some(2));
}

#[test]
fn loom_wait_spsc_push_woken_by_pop() {
    explores::model(spsc_push_woken_by_pop::<Reject>);
    explores::model(spsc_push_woken_by_pop::<Overwrite>);
}

/// Two items through a ring of one, both sides waiting in turn.
#[test]
fn loom_wait_spsc_both_sides() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Reject, 1>().split();
        let producer = thread::spawn(move || {
            block_on(async {
                tx.push(1).await.unwrap();
                tx.push(2).await.unwrap();
            });
            tx
        });
        let got = block_on(async { [rx.pop().await, rx.pop().await] });
        assert_eq!(got, [Some(1), Some(2)]);
        let _tx = producer.join().unwrap();
    });
}

/// The producer's drop ends a `pop` on an empty ring (with what it pushed
/// first, if anything).
#[test]
fn loom_wait_spsc_pop_woken_by_producer_drop() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Reject, 2>().split();
        let producer = thread::spawn(move || {
            tx.try_push(1).unwrap();
            drop(tx);
        });
        assert_eq!(block_on(rx.pop()), Some(1));
        assert_eq!(block_on(rx.pop()), None);
        producer.join().unwrap();
    });
}

/// The consumer's drop ends a `push` on a full ring: the item comes back.
#[test]
fn loom_wait_spsc_push_woken_by_consumer_drop() {
    explores::model(|| {
        let (mut tx, rx) = ring::<Reject, 1>().split();
        tx.try_push(1).unwrap();
        let consumer = thread::spawn(move || drop(rx));
        assert_eq!(block_on(tx.push(2)), Err(Closed(2)));
        consumer.join().unwrap();
    });
}

type M = mpmc::Ring<u32, 1>;

#[test]
fn loom_wait_mpmc_pop_woken_by_push() {
    explores::model(|| {
        let r = Arc::new(M::new());
        let r2 = r.clone();
        let producer = thread::spawn(move || r2.try_push(7).unwrap());
        assert_eq!(block_on(r.pop()), Some(7));
        producer.join().unwrap();
    });
}

#[test]
fn loom_wait_mpmc_push_woken_by_pop() {
    explores::model(|| {
        let r = Arc::new(M::new());
        r.try_push(1).unwrap();
        let r2 = r.clone();
        let consumer = thread::spawn(move || r2.try_pop());
        assert_eq!(block_on(r.push(2)), Ok(()));
        assert_eq!(consumer.join().unwrap(), Some(1));
        assert_eq!(r.try_pop(), Some(2));
    });
}

#[test]
fn loom_wait_mpmc_pop_woken_by_close() {
    explores::model(|| {
        let r = Arc::new(M::new());
        let r2 = r.clone();
        let closer = thread::spawn(move || r2.close());
        assert_eq!(block_on(r.pop()), None);
        assert!(closer.join().unwrap());
    });
}

#[test]
fn loom_wait_mpmc_push_woken_by_close() {
    explores::model(|| {
        let r = Arc::new(M::new());
        r.try_push(1).unwrap();
        let r2 = r.clone();
        let closer = thread::spawn(move || r2.close());
        assert_eq!(block_on(r.push(2)), Err(Closed(2)));
        closer.join().unwrap();
        assert_eq!(r.try_pop_or_closed(), Ok(1));
    });
}

/// Two tasks wait in `pop` (each in its own cell); one push and a close:
/// one gets the item, the other `None`, neither sleeps for ever.
#[test]
fn loom_wait_mpmc_two_poppers() {
    explores::model(|| {
        let r = Arc::new(M::new());
        let r2 = r.clone();
        let other = thread::spawn(move || block_on(r2.pop()));
        let r3 = r.clone();
        let producer = thread::spawn(move || {
            r3.try_push(5).unwrap();
            r3.close();
        });
        let mine = block_on(r.pop());
        let theirs = other.join().unwrap();
        producer.join().unwrap();
        let mut got: Vec<_> = [mine, theirs].into_iter().flatten().collect();
        got.sort_unstable();
        assert_eq!(got, [5]);
    });
}

/// Three tasks wait in `pop` on the real `mpmc::Ring`, then three pushes:
/// each push wakes one, every task ends with an item, every item once.
/// Capped at preemption bound 1 in the gate; `SLUICEGATE_LOOM_DEEP=1
/// ci/loom.sh wait` runs it at the full bound.
#[test]
fn loom_wait_mpmc_three_poppers() {
    explores::capped(1, || {
        let r = Arc::new(mpmc::Ring::<u32, 4>::new());
        let tasks: Vec<_> = (0..3)
            .map(|_| {
                let r = r.clone();
                thread::spawn(move || block_on(r.pop()))
            })
            .collect();
        for v in 1..=3 {
            r.try_push(v).unwrap();
        }
        let mut got: Vec<u32> = tasks
            .into_iter()
            .map(|t| t.join().unwrap().unwrap())
            .collect();
        got.sort_unstable();
        assert_eq!(got, [1, 2, 3]);
    });
}

/// Three tasks wait in `pop` on the real `mpmc::Ring` (two threads and
/// this one) while a fourth pushes one item and closes: one task gets the
/// item, the other two `None` (the close wakes every waiter). The pusher
/// runs after the three have parked in the executions with no preemption
/// at all, so the cap of bound 1 in the gate still reaches them.
///
/// Caught: a close that does not wake the waiting pops (a deadlock).
#[test]
fn loom_wait_mpmc_three_poppers_closed() {
    explores::capped(1, || {
        let r = Arc::new(mpmc::Ring::<u32, 4>::new());
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let r = r.clone();
                thread::spawn(move || block_on(r.pop()))
            })
            .collect();
        let closer = {
            let r = r.clone();
            thread::spawn(move || {
                r.try_push(1).unwrap();
                r.close();
            })
        };
        let mut got = vec![block_on(r.pop())];
        got.extend(waiters.into_iter().map(|t| t.join().unwrap()));
        closer.join().unwrap();
        got.sort_unstable();
        assert_eq!(got, [None, None, Some(1)]);
    });
}

/// On the real `mpmc::Ring`: A waits in `pop` (polled once, so linked
/// first) and is dropped while two pushes run; B and C wait too. If a push
/// woke A, A's drop passes the wake on: B and C each get an item.
///
/// Caught: a dropped waiter's unused wake not passed on (`leave` with
/// `pass` false, in `src/wait/list.rs`): a deadlock.
#[test]
fn loom_wait_mpmc_cancel_passes_on() {
    explores::capped(1, || {
        let r: &'static mpmc::Ring<u32, 4> = Box::leak(Box::new(mpmc::Ring::new()));
        let mut a = Box::pin(r.pop());
        let waker = futures::task::noop_waker();
        let polled = a.as_mut().poll(&mut Context::from_waker(&waker));
        assert!(polled.is_pending());
        let dropper = thread::spawn(move || drop(a));
        let c = thread::spawn(move || block_on(r.pop()));
        let producer = thread::spawn(move || {
            r.try_push(1).unwrap();
            r.try_push(2).unwrap();
        });
        let b = block_on(r.pop()).unwrap();
        let c = c.join().unwrap().unwrap();
        assert_eq!(b + c, 3);
        dropper.join().unwrap();
        producer.join().unwrap();
    });
}

/// A consumer waits in `pop` while the producer `push_overwrite`s twice
/// into a ring of one (the second push evicts the first item, or is
/// refused if the consumer holds it): the wait ends with one of them.
#[test]
fn loom_wait_spsc_pop_against_push_overwrite() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Overwrite, 1>().split();
        let producer = thread::spawn(move || {
            let first = tx.push_overwrite(1);
            let second = tx.push_overwrite(2);
            (first, second, tx)
        });
        let got = block_on(rx.pop()).unwrap();
        let (first, _second, _tx) = producer.join().unwrap();
        assert_eq!(first, Overwritten::Stored);
        assert!(got == 1 || got == 2, "got {got}");
    });
}

/// A task waiting in `pop` on a full ring while an eviction and a close
/// race: a pop that answered "empty" because the eviction was in progress is
/// woken when it ends (or is given up), and then drains or ends.
#[test]
fn loom_wait_mpmc_pop_woken_by_eviction_end_after_close() {
    explores::model(|| {
        let r = Arc::new(M::new());
        r.try_push(1).unwrap();
        let r2 = r.clone();
        let evictor = thread::spawn(move || r2.push_overwrite(2).into_item());
        r.close();
        let mut seen = Vec::new();
        while let Some(v) = block_on(r.pop()) {
            seen.push(v);
        }
        seen.extend(evictor.join().unwrap());
        seen.sort_unstable();
        assert_eq!(seen, vec![1, 2]);
    });
}

/// A ring of one slot whose `aq` (`free` false: the item 7 is in) or
/// `fq` (`free`: the slot is free) had its `threshold` taken to 0 by two
/// late decrements; the third, the crossing, whose look finds the index
/// and resets `threshold`, races a task waiting in `pop` (or `push`). The
/// task may be told "empty" (or "full") in the window between the
/// crossing and the reset; the reset must then wake it (a look that wakes
/// nobody deadlocks the model).
fn mpmc_waiter_against_the_late_miss_look(free: bool) {
    let r = Arc::new(mpmc::Ring::<u32, 1>::new());
    if free {
        r.try_push(1).unwrap();
        assert_eq!(r.try_pop(), Some(1));
    } else {
        r.try_push(7).unwrap();
    }
    r.late_decrement(free);
    r.late_decrement(free);
    let r2 = r.clone();
    let crossing = thread::spawn(move || r2.late_decrement(free));
    if free {
        assert_eq!(block_on(r.push(9)), Ok(()));
        assert_eq!(r.try_pop(), Some(9));
    } else {
        assert_eq!(block_on(r.pop()), Some(7));
    }
    crossing.join().unwrap();
}

#[test]
fn loom_wait_mpmc_pop_woken_by_the_late_miss_look() {
    explores::model(|| mpmc_waiter_against_the_late_miss_look(false));
}

#[test]
fn loom_wait_mpmc_push_woken_by_the_late_miss_look() {
    explores::model(|| mpmc_waiter_against_the_late_miss_look(true));
}

/// The MPMC waiter list with three waiters, on a stand-in ring.
mod list;

/// The waits of the burst ring.
mod burst;

/// The blocking calls' parking (feature `std`).
#[cfg(feature = "std")]
mod blocking;
