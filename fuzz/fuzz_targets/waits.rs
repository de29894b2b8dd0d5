//! The MPMC rings' waiting pops against a model of their wait list, on one
//! thread: futures polled by hand with counting wakers, interleaved with
//! pushes and pops that do not wait, on `mpmc::Ring`, `mpmc::cs::Ring` and
//! `BurstRing` (4 slots each).
//!
//! The model: waiters are numbered in the order they arrive. A waiter's
//! first try takes the oldest item if there is one; else it is linked. A
//! push that stores an item wakes the first linked waiter (the one that
//! arrived first), which leaves the list. A woken waiter polled takes the
//! oldest item if there is one, else it is linked again in its place (before
//! the linked waiters that arrived after it). A linked waiter polled for
//! another reason takes an item if there is one and leaves, else stays where
//! it is. A woken waiter dropped before it polls passes its wake on to the
//! first linked waiter; a linked one dropped leaves. After every step each
//! waiter's wakes are the model's, and every item popped is the model's
//! oldest.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::mpmc;
use sluicegate::mpmc::burst_ring::BurstRing;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

#[derive(Arbitrary, Debug)]
enum Op {
    /// A new waiter polls once.
    Wait,
    /// Waiter `i` (of the live ones) is polled.
    Poll(u8),
    /// Waiter `i` is dropped.
    Drop(u8),
    /// `try_push` of the next item.
    Push,
    /// `try_pop`.
    Pop,
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// 0: `mpmc::Ring`, 1: `mpmc::cs::Ring`, else `BurstRing`.
    ring: u8,
    ops: Vec<Op>,
}

/// A waker that counts its wakes.
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// What the rings under test share here.
trait Ring: Sync {
    type Pop<'a>: Future<Output = Option<u32>>
    where
        Self: 'a;
    fn pop(&self) -> Self::Pop<'_>;
    fn try_push(&self, v: u32) -> bool;
    fn try_pop(&self) -> Option<u32>;
}

impl Ring for mpmc::Ring<u32, 4> {
    type Pop<'a> = mpmc::Pop<'a, u32, 4>;
    fn pop(&self) -> Self::Pop<'_> {
        mpmc::Ring::pop(self)
    }
    fn try_push(&self, v: u32) -> bool {
        mpmc::Ring::try_push(self, v).is_ok()
    }
    fn try_pop(&self) -> Option<u32> {
        mpmc::Ring::try_pop(self)
    }
}

impl Ring for mpmc::cs::Ring<u32, 4> {
    type Pop<'a> = mpmc::cs::Pop<'a, u32, 4>;
    fn pop(&self) -> Self::Pop<'_> {
        mpmc::cs::Ring::pop(self)
    }
    fn try_push(&self, v: u32) -> bool {
        mpmc::cs::Ring::try_push(self, v).is_ok()
    }
    fn try_pop(&self) -> Option<u32> {
        mpmc::cs::Ring::try_pop(self)
    }
}

impl Ring for BurstRing<u32, 4, 1> {
    type Pop<'a> = sluicegate::mpmc::burst_ring::Pop<'a, u32, 4, 1>;
    fn pop(&self) -> Self::Pop<'_> {
        BurstRing::pop(self)
    }
    fn try_push(&self, v: u32) -> bool {
        BurstRing::try_push(self, v).is_ok()
    }
    fn try_pop(&self) -> Option<u32> {
        // One thread: never busy.
        BurstRing::try_pop(self).ok()
    }
}

/// Where a waiter is, in the model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum At {
    Linked,
    Woken,
}

struct Waiter<F> {
    id: usize,
    fut: Pin<Box<F>>,
    count: Arc<Count>,
    waker: Waker,
    wakes: usize,
    at: At,
}

/// Wakes the first linked waiter (`list` holds ids in wake order).
fn wake_first<F>(list: &mut Vec<usize>, waiters: &mut [Waiter<F>]) {
    if !list.is_empty() {
        let id = list.remove(0);
        let w = waiters.iter_mut().find(|w| w.id == id).unwrap();
        w.at = At::Woken;
        w.wakes += 1;
    }
}

fn run<R: Ring>(ring: &R, ops: &[Op]) {
    let mut items: VecDeque<u32> = VecDeque::new();
    let mut next = 0u32;
    let mut arrivals = 0usize;
    let mut list: Vec<usize> = Vec::new();
    let mut waiters: Vec<Waiter<R::Pop<'_>>> = Vec::new();
    for op in ops.iter().take(256) {
        match *op {
            Op::Wait => {
                let count = Arc::new(Count(AtomicUsize::new(0)));
                let waker = Waker::from(count.clone());
                let mut fut = Box::pin(ring.pop());
                let got = fut.as_mut().poll(&mut Context::from_waker(&waker));
                match items.pop_front() {
                    Some(v) => {
                        assert_eq!(got, Poll::Ready(Some(v)), "a first try takes the oldest")
                    }
                    None => {
                        assert_eq!(got, Poll::Pending, "a first try with nothing waits");
                        list.push(arrivals);
                        waiters.push(Waiter {
                            id: arrivals,
                            fut,
                            count,
                            waker,
                            wakes: 0,
                            at: At::Linked,
                        });
                    }
                }
                arrivals += 1;
            }
            Op::Poll(i) if !waiters.is_empty() => {
                let k = i as usize % waiters.len();
                let w = &mut waiters[k];
                let got = w.fut.as_mut().poll(&mut Context::from_waker(&w.waker));
                let (id, at) = (w.id, w.at);
                match items.pop_front() {
                    Some(v) => {
                        assert_eq!(
                            got,
                            Poll::Ready(Some(v)),
                            "waiter {id} ({at:?}) takes the oldest"
                        );
                        if at == At::Linked {
                            list.retain(|&x| x != id);
                        }
                        waiters.remove(k);
                    }
                    None => {
                        assert_eq!(got, Poll::Pending, "waiter {id} ({at:?}) finds nothing");
                        if at == At::Woken {
                            // Back in its place.
                            let p = list.iter().position(|&x| x > id).unwrap_or(list.len());
                            list.insert(p, id);
                            waiters[k].at = At::Linked;
                        }
                    }
                }
            }
            Op::Drop(i) if !waiters.is_empty() => {
                let k = i as usize % waiters.len();
                let w = waiters.remove(k);
                let (id, at) = (w.id, w.at);
                drop(w);
                match at {
                    At::Linked => list.retain(|&x| x != id),
                    // An unused wake goes on.
                    At::Woken => wake_first(&mut list, &mut waiters),
                }
            }
            Op::Push => {
                let stored = ring.try_push(next);
                assert_eq!(stored, items.len() < 4, "a push stores while there is room");
                if stored {
                    items.push_back(next);
                    next += 1;
                    wake_first(&mut list, &mut waiters);
                }
            }
            Op::Pop => assert_eq!(ring.try_pop(), items.pop_front(), "a pop takes the oldest"),
            _ => {}
        }
        for w in &waiters {
            assert_eq!(
                w.count.0.load(Ordering::Relaxed),
                w.wakes,
                "waiter {} woken as the model says ({:?}; linked {:?}) after {:?}",
                w.id,
                w.at,
                list,
                op
            );
        }
    }
}

fuzz_target!(|input: Input| {
    match input.ring {
        0 => run(&mpmc::Ring::<u32, 4>::new(), &input.ops),
        1 => run(&mpmc::cs::Ring::<u32, 4>::new(), &input.ops),
        _ => run(&BurstRing::<u32, 4, 1>::new(), &input.ops),
    }
});
