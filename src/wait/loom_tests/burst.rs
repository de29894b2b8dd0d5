//! The waits of `mpmc::BurstRing`: the contract's futures on the burst
//! ring's commits. A busy answer makes a waiter wait like full or empty
//! does, so each model races a waiter against the commit it needs: a push,
//! a pop, the close, the end of an eviction. `block_on` parks the waiting
//! thread between polls, so a lost wake-up is a deadlock loom reports.

use crate::mpmc::burst_ring::{BurstRing, PushError};
use crate::sync::explores;
use crate::Closed;
use loom::future::block_on;
use loom::sync::Arc;
use loom::thread;
use std::vec::Vec;

type B1 = BurstRing<u32, 1, 1>;

#[test]
fn loom_wait_burst_pop_woken_by_push() {
    explores::model(|| {
        let r = Arc::new(B1::new());
        let r2 = r.clone();
        let producer = thread::spawn(move || r2.try_push(7).unwrap());
        assert_eq!(block_on(r.pop()), Some(7));
        producer.join().unwrap();
    });
}

#[test]
fn loom_wait_burst_push_woken_by_pop() {
    explores::model(|| {
        let r = Arc::new(B1::new());
        r.try_push(1).unwrap();
        let r2 = r.clone();
        let consumer = thread::spawn(move || r2.try_pop());
        assert_eq!(block_on(r.push(2)), Ok(()));
        assert_eq!(consumer.join().unwrap(), Ok(1));
        assert_eq!(r.try_pop(), Ok(2));
    });
}

#[test]
fn loom_wait_burst_push_woken_by_close() {
    explores::model(|| {
        let r = Arc::new(B1::new());
        r.try_push(1).unwrap();
        let r2 = r.clone();
        let closer = thread::spawn(move || r2.close());
        assert_eq!(block_on(r.push(2)), Err(Closed(2)));
        assert!(closer.join().unwrap());
        assert_eq!(r.try_pop(), Ok(1));
    });
}

/// Two tasks wait in `pop` while one thread pushes and another closes:
/// where the close lands between the push's claim and its commit, both
/// waiters wake to the close, find the push in progress and wait again;
/// the commit must then wake both (one gets the item, the other learns the
/// ring is drained).
#[test]
fn loom_wait_burst_commit_after_close_wakes_every_pop() {
    explores::capped(1, || {
        let r = Arc::new(B1::new());
        let r2 = r.clone();
        let other = thread::spawn(move || block_on(r2.pop()));
        let r3 = r.clone();
        let producer = thread::spawn(move || r3.try_push(5));
        let r4 = r.clone();
        let closer = thread::spawn(move || r4.close());
        let mine = block_on(r.pop());
        let theirs = other.join().unwrap();
        let pushed = producer.join().unwrap();
        closer.join().unwrap();
        let got: Vec<_> = [mine, theirs].into_iter().flatten().collect();
        match pushed {
            Ok(()) => assert_eq!(got, [5]),
            Err(PushError::Closed(5)) => assert!(got.is_empty()),
            Err(e) => panic!("{e:?}"),
        }
    });
}

/// A task waits in `push` on a full ring of one while an eviction runs and
/// another thread pops twice: a pop that frees the slot while the
/// eviction's flag is set wakes the push, which finds the flag and waits
/// again; the end of the eviction must wake it, or the second pop (which
/// needs the pushed item) and the push wait for ever.
#[test]
fn loom_wait_burst_push_woken_by_eviction_end() {
    explores::capped(1, || {
        let r = Arc::new(B1::new());
        r.try_push(1).unwrap();
        let r2 = r.clone();
        let evictor = thread::spawn(move || loop {
            match r2.push_overwrite(2) {
                Ok(old) => return old,
                Err(PushError::Busy(_)) => thread::yield_now(),
                Err(e) => panic!("{e:?}"),
            }
        });
        let r3 = r.clone();
        let popper = thread::spawn(move || [block_on(r3.pop()), block_on(r3.pop())]);
        assert_eq!(block_on(r.push(3)), Ok(()));
        let mut seen: Vec<u32> = popper.join().unwrap().into_iter().flatten().collect();
        seen.extend(evictor.join().unwrap());
        seen.extend(r.drain());
        seen.sort_unstable();
        assert_eq!(seen, [1, 2, 3]);
    });
}

/// A task waits in `pop` while another thread's `try_pop` passes a void
/// at the front: a pop that meets the pass answers busy and waits, and the
/// item behind the void had its wake before; the end of the pass must wake
/// it, or it waits for ever beside an item.
#[test]
fn loom_wait_burst_pop_woken_by_the_end_of_a_pass() {
    explores::model(|| {
        let r = Arc::new(BurstRing::<u32, 4, 1>::new());
        // A void behind an item, the item popped: a void at the front (a
        // chunk dropped at the front would pass its void itself).
        r.try_push(0).unwrap();
        drop(r.write_chunk(1).unwrap());
        assert_eq!(r.try_pop(), Ok(0));
        r.push_burst(&[7, 8]);
        let r2 = r.clone();
        let passer = thread::spawn(move || r2.try_pop().ok());
        let mut seen: Vec<u32> = block_on(r.pop()).into_iter().collect();
        seen.extend(passer.join().unwrap());
        seen.extend(r.drain());
        seen.sort_unstable();
        assert_eq!(seen, [7, 8]);
    });
}

/// A task waits in `pop` on a full ring of two while another thread takes
/// both items in one burst and a third closes: the waiter ends with an item
/// or with `None`, never waits for ever, and each item comes out once.
#[test]
fn loom_wait_burst_pop_ends_after_burst_and_close() {
    explores::model(|| {
        let r = Arc::new(BurstRing::<u32, 2, 1>::new());
        r.push_burst(&[1, 2]);
        let r2 = r.clone();
        let burst = thread::spawn(move || {
            let mut out = [0; 2];
            let n = r2.pop_burst(&mut out).count;
            out[..n].to_vec()
        });
        let r3 = r.clone();
        let closer = thread::spawn(move || r3.close());
        let mut seen = Vec::new();
        while let Some(v) = block_on(r.pop()) {
            seen.push(v);
        }
        seen.extend(burst.join().unwrap());
        closer.join().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, [1, 2]);
    });
}

/// A task waits for the drain of a `High` ring while a pop takes it to its
/// low mark: the lowering must wake it (a lowering that wakes nobody
/// deadlocks the model), and a waiter that polls after the lowering
/// finds the level `Normal` at once.
#[test]
fn loom_wait_burst_drain_waiter_woken_by_the_lowering() {
    use crate::mpmc::burst_ring::{Level, Marked};
    explores::model(|| {
        let r = Arc::new(BurstRing::<u32, 4, 1, Marked>::with_watermarks(1, 2));
        r.push_burst(&[1, 2]);
        assert_eq!(r.level(), Level::High);
        let r2 = r.clone();
        let consumer = thread::spawn(move || r2.try_pop());
        assert_eq!(block_on(r.wait_below_low()), Ok(()));
        assert_eq!(consumer.join().unwrap(), Ok(1));
        assert_eq!(r.level(), Level::Normal);
    });
}
