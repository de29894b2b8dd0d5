//! A waiter stopped in its poll ([`pause::WAIT_POLL_TRIED`]: its first try
//! failed, before it takes the list's lock) while the main thread plays
//! the other contexts: what a wake that lands there does to the waiter's
//! place in the list.

extern crate std;

use crate::mpmc::burst_ring::BurstRing;
use crate::mpmc::Ring;
use crate::sync::pause::{self, stop_at};
use core::future::Future;
use core::pin::Pin;
use core::sync::atomic::{AtomicUsize, Ordering};
use core::task::{Context, Poll, Waker};
use std::boxed::Box;
use std::sync::Arc;

/// A waker that counts its wakes, for the crate's pause tests that poll
/// futures by hand.
pub(crate) struct Count(AtomicUsize);

impl Count {
    /// A fresh count and the waker that adds to it.
    pub(crate) fn waker() -> (Arc<Count>, Waker) {
        let c = Arc::new(Count(AtomicUsize::new(0)));
        (c.clone(), Waker::from(c))
    }

    /// The wakes so far.
    pub(crate) fn wakes(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl std::task::Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Tasks A and B wait in `pop` on an empty ring, A first. A is polled
/// again (a spurious wake, a `select!` sibling's) and stopped after its
/// first try; meanwhile a push wakes A (the longest waiting) and a pop
/// that does not wait takes the item. A's poll serves the wake, finds
/// nothing and waits again in its place, first: the next push wakes
/// A again, not B.
fn a_wake_during_a_poll_keeps_the_place<F>(
    pop: impl Fn() -> F,
    push: impl Fn(u32),
    try_pop: impl Fn() -> Option<u32>,
) where
    F: Future<Output = Option<u32>> + Send,
{
    let (ca, wa) = Count::waker();
    let (cb, wb) = Count::waker();
    let poll = |f: &mut Pin<Box<F>>, w: &Waker| f.as_mut().poll(&mut Context::from_waker(w));
    let mut a = Box::pin(pop());
    let mut b = Box::pin(pop());
    assert!(poll(&mut a, &wa).is_pending());
    assert!(poll(&mut b, &wb).is_pending());
    let pending = stop_at(
        pause::WAIT_POLL_TRIED,
        || poll(&mut a, &wa).is_pending(),
        || {
            push(1);
            assert_eq!(try_pop(), Some(1));
        },
    );
    assert!(pending, "A's second try found an item no one pushed");
    assert_eq!((ca.wakes(), cb.wakes()), (1, 0), "the push woke A");
    push(2);
    assert_eq!(
        (ca.wakes(), cb.wakes()),
        (2, 0),
        "the next push wakes A again, not B"
    );
    assert_eq!(poll(&mut a, &wa), Poll::Ready(Some(2)));
    push(3);
    assert_eq!(cb.wakes(), 1, "then B");
    assert_eq!(poll(&mut b, &wb), Poll::Ready(Some(3)));
}

#[test]
fn ring_a_wake_during_a_poll_keeps_the_place() {
    let r = Ring::<u32, 4>::new();
    a_wake_during_a_poll_keeps_the_place(|| r.pop(), |x| r.try_push(x).unwrap(), || r.try_pop());
}

#[test]
fn burst_ring_a_wake_during_a_poll_keeps_the_place() {
    let r = BurstRing::<u32, 4, 1>::new();
    a_wake_during_a_poll_keeps_the_place(
        || r.pop(),
        |x| r.try_push(x).unwrap(),
        || r.try_pop().ok(),
    );
}
