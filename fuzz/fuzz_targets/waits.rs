//! The MPMC rings' waiting pops and pushes against a model of their wait
//! lists, on one thread: futures polled by hand with counting wakers,
//! interleaved with pushes and pops that do not wait, on `mpmc::Ring`,
//! `mpmc::cs::Ring` and `BurstRing` (4 slots each).
//!
//! The model, per side (the pops waiting for an item, the pushes waiting
//! for room): waiters are numbered in the order they arrive. A waiter's
//! first try proceeds if it can (a pop takes the oldest item, a push
//! appends its item); else it is linked. Every item stored wakes the first
//! linked pop (the one that arrived first), every item taken the first
//! linked push; a woken waiter leaves the list. A woken waiter polled
//! proceeds if it can, else it is linked again in its place (before the
//! linked waiters of its side that arrived after it). A linked waiter
//! polled for another reason proceeds if it can and leaves, else stays
//! where it is. A woken waiter dropped before it polls passes its wake on
//! to the first linked waiter of its side; a linked one dropped leaves.
//! After every step each waiter's wakes are the model's, and every item
//! popped is the model's oldest.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::mpmc;
use sluicegate::mpmc::burst_ring::BurstRing;
use sluicegate_fuzz::WakeCount;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// Slots of every ring here.
const N: usize = 4;

#[derive(Arbitrary, Debug)]
enum Op {
    /// A new waiting pop polls once.
    WaitPop,
    /// A new waiting push (of the next item) polls once.
    WaitPush,
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

/// What the rings under test share here.
trait Ring: Sync {
    fn pop(&self) -> impl Future<Output = Option<u32>> + '_;
    fn push(&self, v: u32) -> impl Future<Output = bool> + '_;
    fn try_push(&self, v: u32) -> bool;
    fn try_pop(&self) -> Option<u32>;
}

impl Ring for mpmc::Ring<u32, N> {
    fn pop(&self) -> impl Future<Output = Option<u32>> + '_ {
        mpmc::Ring::pop(self)
    }
    async fn push(&self, v: u32) -> bool {
        mpmc::Ring::push(self, v).await.is_ok()
    }
    fn try_push(&self, v: u32) -> bool {
        mpmc::Ring::try_push(self, v).is_ok()
    }
    fn try_pop(&self) -> Option<u32> {
        mpmc::Ring::try_pop(self)
    }
}

impl Ring for mpmc::cs::Ring<u32, N> {
    fn pop(&self) -> impl Future<Output = Option<u32>> + '_ {
        mpmc::cs::Ring::pop(self)
    }
    async fn push(&self, v: u32) -> bool {
        mpmc::cs::Ring::push(self, v).await.is_ok()
    }
    fn try_push(&self, v: u32) -> bool {
        mpmc::cs::Ring::try_push(self, v).is_ok()
    }
    fn try_pop(&self) -> Option<u32> {
        mpmc::cs::Ring::try_pop(self)
    }
}

impl Ring for BurstRing<u32, N, 1> {
    fn pop(&self) -> impl Future<Output = Option<u32>> + '_ {
        BurstRing::pop(self)
    }
    async fn push(&self, v: u32) -> bool {
        BurstRing::push(self, v).await.is_ok()
    }
    fn try_push(&self, v: u32) -> bool {
        BurstRing::try_push(self, v).is_ok()
    }
    fn try_pop(&self) -> Option<u32> {
        // One thread: never busy.
        BurstRing::try_pop(self).ok()
    }
}

/// What a waiter's future ends with.
#[derive(Debug, PartialEq, Eq)]
enum Done {
    Popped(Option<u32>),
    Pushed(bool),
}

/// The sides: the pops waiting for an item, the pushes waiting for room.
const POPS: usize = 0;
const PUSHES: usize = 1;

/// Where a waiter is, in the model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum At {
    Linked,
    Woken,
}

struct Waiter<'a> {
    id: usize,
    side: usize,
    /// The item a push carries.
    item: u32,
    fut: Pin<Box<dyn Future<Output = Done> + 'a>>,
    count: Arc<WakeCount>,
    waker: Waker,
    wakes: usize,
    at: At,
}

/// The model: items, and per side the ids of the linked waiters in wake
/// order.
struct Model<'a> {
    items: VecDeque<u32>,
    lists: [Vec<usize>; 2],
    waiters: Vec<Waiter<'a>>,
}

impl Model<'_> {
    /// Wakes the first linked waiter of `side`.
    fn wake_first(&mut self, side: usize) {
        if !self.lists[side].is_empty() {
            let id = self.lists[side].remove(0);
            let w = self.waiters.iter_mut().find(|w| w.id == id).unwrap();
            w.at = At::Woken;
            w.wakes += 1;
        }
    }

    /// An item stored: it wakes a pop.
    fn pushed(&mut self, v: u32) {
        self.items.push_back(v);
        self.wake_first(POPS);
    }

    /// The oldest item taken, if any: that wakes a push.
    fn popped(&mut self) -> Option<u32> {
        let v = self.items.pop_front();
        if v.is_some() {
            self.wake_first(PUSHES);
        }
        v
    }

    /// Whether a waiter of `side` can proceed now.
    fn can(&self, side: usize) -> bool {
        if side == POPS {
            !self.items.is_empty()
        } else {
            self.items.len() < N
        }
    }

    /// A waiter of `side` carrying `item` proceeds: what it ends with.
    fn proceed(&mut self, side: usize, item: u32) -> Done {
        if side == POPS {
            Done::Popped(self.popped())
        } else {
            self.pushed(item);
            Done::Pushed(true)
        }
    }
}

fn run<R: Ring>(ring: &R, ops: &[Op]) {
    let mut m = Model {
        items: VecDeque::new(),
        lists: [Vec::new(), Vec::new()],
        waiters: Vec::new(),
    };
    let mut next = 0u32;
    let mut arrivals = 0usize;
    for op in ops.iter().take(256) {
        match *op {
            Op::WaitPop | Op::WaitPush => {
                let side = if matches!(op, Op::WaitPop) {
                    POPS
                } else {
                    PUSHES
                };
                let item = next;
                next += 1;
                let (count, waker) = WakeCount::waker();
                let mut fut: Pin<Box<dyn Future<Output = Done> + '_>> = if side == POPS {
                    Box::pin(async { Done::Popped(ring.pop().await) })
                } else {
                    Box::pin(async move { Done::Pushed(ring.push(item).await) })
                };
                let got = fut.as_mut().poll(&mut Context::from_waker(&waker));
                if m.can(side) {
                    let want = m.proceed(side, item);
                    assert_eq!(got, Poll::Ready(want), "a first try proceeds");
                } else {
                    assert_eq!(got, Poll::Pending, "a first try that cannot proceed waits");
                    m.lists[side].push(arrivals);
                    m.waiters.push(Waiter {
                        id: arrivals,
                        side,
                        item,
                        fut,
                        count,
                        waker,
                        wakes: 0,
                        at: At::Linked,
                    });
                }
                arrivals += 1;
            }
            Op::Poll(i) if !m.waiters.is_empty() => {
                let k = i as usize % m.waiters.len();
                let w = &mut m.waiters[k];
                let got = w.fut.as_mut().poll(&mut Context::from_waker(&w.waker));
                let (id, side, item, at) = (w.id, w.side, w.item, w.at);
                if m.can(side) {
                    if at == At::Linked {
                        m.lists[side].retain(|&x| x != id);
                    }
                    m.waiters.remove(k);
                    let want = m.proceed(side, item);
                    assert_eq!(got, Poll::Ready(want), "waiter {id} ({at:?}) proceeds");
                } else {
                    assert_eq!(got, Poll::Pending, "waiter {id} ({at:?}) cannot proceed");
                    if at == At::Woken {
                        // Back in its place.
                        let list = &mut m.lists[side];
                        let p = list.iter().position(|&x| x > id).unwrap_or(list.len());
                        list.insert(p, id);
                        m.waiters[k].at = At::Linked;
                    }
                }
            }
            Op::Drop(i) if !m.waiters.is_empty() => {
                let k = i as usize % m.waiters.len();
                let w = m.waiters.remove(k);
                let (id, side, at) = (w.id, w.side, w.at);
                drop(w);
                match at {
                    At::Linked => m.lists[side].retain(|&x| x != id),
                    // An unused wake goes on.
                    At::Woken => m.wake_first(side),
                }
            }
            Op::Push => {
                let stored = ring.try_push(next);
                assert_eq!(stored, m.can(PUSHES), "a push stores while there is room");
                if stored {
                    m.pushed(next);
                }
                next += 1;
            }
            Op::Pop => {
                let got = ring.try_pop();
                assert_eq!(got, m.popped(), "a pop takes the oldest");
            }
            _ => {}
        }
        for w in &m.waiters {
            assert_eq!(
                w.count.wakes(),
                w.wakes,
                "waiter {} (side {}) woken as the model says ({:?}; linked {:?}) after {:?}",
                w.id,
                w.side,
                w.at,
                m.lists,
                op
            );
        }
    }
}

fuzz_target!(|input: Input| {
    match input.ring {
        0 => run(&mpmc::Ring::<u32, N>::new(), &input.ops),
        1 => run(&mpmc::cs::Ring::<u32, N>::new(), &input.ops),
        _ => run(&BurstRing::<u32, N, 1>::new(), &input.ops),
    }
});
