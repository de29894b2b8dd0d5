//! The blocking calls' parking (feature `std`): `push_blocking` and
//! `pop_blocking`, written once on the ring contract (`src/contract.rs`),
//! park the thread on the ring's waiter list and are unparked by the commit
//! they need. Under loom the thread is loom's (`crate::sync::thread`), so an
//! unpark that is lost leaves the thread parked for good: a deadlock loom
//! reports. The spin before parking is one round under loom (`src/spin.rs`).

use crate::mpmc::burst_ring::BurstRing;
use crate::mpmc::Ring;
use crate::sync::explores;
use crate::Closed;
use loom::sync::Arc;
use loom::thread;
use std::vec::Vec;

type R1 = Ring<u32, 1>;
type B1 = BurstRing<u32, 1, 1>;

/// The calls a model makes on a ring of one slot, whatever its kind.
struct Calls<R> {
    new: fn() -> R,
    try_push: fn(&R, u32) -> bool,
    try_pop: fn(&R) -> Option<u32>,
    push_blocking: fn(&R, u32) -> Result<(), Closed<u32>>,
    pop_blocking: fn(&R) -> Option<u32>,
}

const RING: Calls<R1> = Calls {
    new: R1::new,
    try_push: |r, v| r.try_push(v).is_ok(),
    try_pop: R1::try_pop,
    push_blocking: R1::push_blocking,
    pop_blocking: R1::pop_blocking,
};

const BURST: Calls<B1> = Calls {
    new: B1::new,
    try_push: |r, v| r.try_push(v).is_ok(),
    try_pop: |r| r.try_pop().ok(),
    push_blocking: B1::push_blocking,
    pop_blocking: B1::pop_blocking,
};

/// A thread parked in `pop_blocking` on an empty ring; another's
/// `try_push` must unpark it.
fn pop_unparked_by_push<R: Send + Sync + 'static>(c: Calls<R>) {
    explores::model(move || {
        let r = Arc::new((c.new)());
        let r2 = r.clone();
        let consumer = thread::spawn(move || (c.pop_blocking)(&r2));
        assert!((c.try_push)(&r, 7));
        assert_eq!(consumer.join().unwrap(), Some(7));
    });
}

#[test]
fn loom_blocking_pop_unparked_by_push() {
    pop_unparked_by_push(RING);
    pop_unparked_by_push(BURST);
}

/// A thread parked in `push_blocking` on a full ring; another's `try_pop`
/// must unpark it, and the item goes in after the one popped.
fn push_unparked_by_pop<R: Send + Sync + 'static>(c: Calls<R>) {
    explores::model(move || {
        let r = Arc::new((c.new)());
        assert!((c.try_push)(&r, 1));
        let r2 = r.clone();
        let producer = thread::spawn(move || (c.push_blocking)(&r2, 2));
        assert_eq!((c.try_pop)(&r), Some(1));
        assert_eq!(producer.join().unwrap(), Ok(()));
        assert_eq!((c.try_pop)(&r), Some(2));
    });
}

#[test]
fn loom_blocking_push_unparked_by_pop() {
    push_unparked_by_pop(RING);
    push_unparked_by_pop(BURST);
}

/// Threads parked on both sides of a closed ring: the close must unpark
/// each, the pop with `None` and the push with its item back.
#[test]
fn loom_blocking_both_sides_unparked_by_close() {
    explores::model(|| {
        let empty = Arc::new(R1::new());
        let full = Arc::new(R1::new());
        full.try_push(1).unwrap();
        let (e2, f2) = (empty.clone(), full.clone());
        let consumer = thread::spawn(move || e2.pop_blocking());
        let producer = thread::spawn(move || f2.push_blocking(2));
        empty.close();
        full.close();
        assert_eq!(consumer.join().unwrap(), None);
        assert_eq!(producer.join().unwrap(), Err(Closed(2)));
    });
}

/// `k` threads parked in `pop_blocking` on the real `mpmc::Ring`, then `k`
/// pushes: each push unparks one, and every thread returns with an item,
/// every item once between them.
fn pops_then_pushes(k: u32) {
    let r = Arc::new(Ring::<u32, 4>::new());
    let consumers: Vec<_> = (0..k)
        .map(|_| {
            let r = r.clone();
            thread::spawn(move || r.pop_blocking())
        })
        .collect();
    for v in 1..=k {
        r.try_push(v).unwrap();
    }
    let mut got: Vec<u32> = consumers
        .into_iter()
        .map(|c| c.join().unwrap().unwrap())
        .collect();
    got.sort_unstable();
    assert_eq!(got, (1..=k).collect::<Vec<u32>>());
}

#[test]
fn loom_blocking_two_pops_two_pushes() {
    explores::model(|| pops_then_pushes(2));
}

/// Three waiters: capped at preemption bound 1 in the gate (31 709
/// executions); `SLUICEGATE_LOOM_DEEP=1 ci/loom.sh wait` runs it at the
/// full bound (834 894 at bound 2, about a minute).
#[test]
fn loom_blocking_three_pops_three_pushes() {
    explores::capped(1, || pops_then_pushes(3));
}
