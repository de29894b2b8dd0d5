//! loom models of the MPMC waiter list (`src/wait/queue.rs`, `list.rs`)
//! with three waiters, on a stand-in ring: a count of items with a
//! capacity and a close flag, whose pushes and pops notify the list as
//! `mpmc::Ring`'s do. The stand-in keeps each model to a few atomics beside
//! the list's own; `super` has the models of the real rings.
//!
//! Three waiters make many interleavings: at preemption bound 2 these
//! models run 0.1 to 2.5 million executions (about ten minutes in all, and
//! push3_woken_by_pop3 past twenty), at bound 1 between 5 000 and 94 000
//! (about 20 s). The gate runs them at bound 1 ([`explores::capped`]),
//! where each one still fails under the break its doc names;
//! `SLUICEGATE_LOOM_DEEP=1 ci/loom.sh wait::loom_tests::list` runs them at
//! the environment's bound.
//!
//! The model of a wake that lands while a waiter is polled again has two
//! waiters, and the one of waiters woken together three of which two are
//! polled at once; both run at the environment's bound (under a hundred
//! executions).
//!
//! Each model's doc says which break of the list's code it caught (made by
//! hand, the model run, the failure seen, the code restored).

use crate::sync::explores;
use crate::wait::list::{Node, Wake};
use crate::wait::queue::{sides, Sides};
use crate::wait::Side;
use core::future::Future;
use core::pin::Pin;
use core::sync::atomic::Ordering;
use core::task::{Context, Poll};
use loom::future::block_on;
use loom::sync::atomic::{AtomicBool, AtomicUsize};
use loom::thread;
use std::boxed::Box;
use std::vec::Vec;

/// The stand-in ring: `items` in `0..=cap`.
struct Toy {
    items: AtomicUsize,
    cap: usize,
    closed: AtomicBool,
    lists: Sides,
}

impl Toy {
    fn new(cap: usize, items: usize) -> &'static Toy {
        Box::leak(Box::new(Toy {
            items: AtomicUsize::new(items),
            cap,
            closed: AtomicBool::new(false),
            lists: sides(),
        }))
    }

    /// A pop: `Some(true)` took an item, `Some(false)` closed and empty,
    /// `None` empty (wait).
    fn try_pop(&self) -> Option<bool> {
        let mut n = self.items.load(Ordering::Acquire);
        while n > 0 {
            match self
                .items
                .compare_exchange(n, n - 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    self.lists[Side::Room as usize].notify(1);
                    return Some(true);
                }
                Err(actual) => n = actual,
            }
        }
        self.closed.load(Ordering::Acquire).then_some(false)
    }

    /// A push: `Some(true)` stored, `Some(false)` closed, `None` full.
    fn try_push(&self) -> Option<bool> {
        if self.closed.load(Ordering::Acquire) {
            return Some(false);
        }
        let mut n = self.items.load(Ordering::Acquire);
        while n < self.cap {
            match self
                .items
                .compare_exchange(n, n + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    self.lists[Side::Item as usize].notify(1);
                    return Some(true);
                }
                Err(actual) => n = actual,
            }
        }
        None
    }

    /// Pushes `n` items at once (a burst): wakes up to `n` poppers.
    fn push_burst(&self, n: usize) {
        let before = self.items.fetch_add(n, Ordering::AcqRel);
        assert!(before + n <= self.cap);
        self.lists[Side::Item as usize].notify(n);
    }

    /// Pops `n` items at once (a burst): wakes up to `n` pushers.
    fn pop_burst(&self, n: usize) {
        let before = self.items.fetch_sub(n, Ordering::AcqRel);
        assert!(before >= n);
        self.lists[Side::Room as usize].notify(n);
    }

    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.lists[Side::Item as usize].notify_all();
        self.lists[Side::Room as usize].notify_all();
    }

    fn pop(&'static self) -> Wait {
        Wait {
            toy: self,
            side: Side::Item,
            node: Node::new(),
        }
    }

    fn push(&'static self) -> Wait {
        Wait {
            toy: self,
            side: Side::Room,
            node: Node::new(),
        }
    }
}

/// A waiting pop or push on the stand-in: resolves to what the try
/// answered.
struct Wait {
    toy: &'static Toy,
    side: Side,
    node: Node,
}

impl Future for Wait {
    type Output = bool;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        let this = self.into_ref().get_ref();
        let toy = this.toy;
        let op = || match this.side {
            Side::Item => toy.try_pop(),
            Side::Room => toy.try_push(),
        };
        toy.lists[this.side as usize].poll(&this.node, Wake::Task(cx.waker()), op)
    }
}

impl Drop for Wait {
    fn drop(&mut self) {
        self.toy.lists[self.side as usize].leave(&self.node);
    }
}

/// Three tasks wait in `pop` on an empty ring; a producer pushes three
/// items in one burst (a wake of three): each waiter gets one, none sleeps
/// for ever.
///
/// Caught: the waiter's `SeqCst` fence after linking removed (`poll`); the
/// lock's unlock made a plain store of 0 instead of the swap that hands the
/// posted wakes to the holder.
#[test]
fn loom_list_pop3_woken_by_push3() {
    explores::capped(1, || {
        let toy = Toy::new(3, 0);
        let waiters: Vec<_> = (0..2)
            .map(|_| thread::spawn(move || block_on(toy.pop())))
            .collect();
        let producer = thread::spawn(move || toy.push_burst(3));
        assert!(block_on(toy.pop()));
        for w in waiters {
            assert!(w.join().unwrap());
        }
        producer.join().unwrap();
        assert_eq!(toy.items.load(Ordering::Relaxed), 0);
    });
}

/// A ring of three, full; three tasks wait in `push`; a consumer pops two
/// items in one burst, then one more: each push gets in.
///
/// Caught: a woken waiter that finds the ring full again (another waiter's
/// own try took the room first) left unlinked instead of linked again
/// (`link` skipped for a woken node).
///
#[test]
fn loom_list_push3_woken_by_pop3() {
    explores::capped(1, || {
        let toy = Toy::new(3, 3);
        let waiters: Vec<_> = (0..2)
            .map(|_| thread::spawn(move || block_on(toy.push())))
            .collect();
        let consumer = thread::spawn(move || {
            toy.pop_burst(2);
            toy.pop_burst(1);
        });
        assert!(block_on(toy.push()));
        for w in waiters {
            assert!(w.join().unwrap());
        }
        consumer.join().unwrap();
        assert_eq!(toy.items.load(Ordering::Relaxed), 3);
    });
}

/// Three tasks wait in `pop`; a close wakes them all.
///
/// Caught: `notify_all` waking one waiter (`wake(1, false)`).
#[test]
fn loom_list_close_wakes_3() {
    explores::capped(1, || {
        let toy = Toy::new(1, 0);
        let waiters: Vec<_> = (0..2)
            .map(|_| thread::spawn(move || block_on(toy.pop())))
            .collect();
        let closer = thread::spawn(move || toy.close());
        assert!(!block_on(toy.pop()));
        for w in waiters {
            assert!(!w.join().unwrap());
        }
        closer.join().unwrap();
    });
}

/// A waits in `pop` (polled once, so linked first) and is dropped while a
/// producer pushes two items; B and C wait too. If the first push woke A,
/// A's drop passes the wake on: B and C each get an item.
///
/// Caught: a dropped node's unused wake-one not passed on (`leave` with
/// `pass` false).
#[test]
fn loom_list_cancel_passes_on() {
    explores::capped(1, || {
        let toy = Toy::new(2, 0);
        let mut a = Box::pin(toy.pop());
        let waker = futures::task::noop_waker();
        let polled = a.as_mut().poll(&mut Context::from_waker(&waker));
        assert!(polled.is_pending());
        let dropper = thread::spawn(move || drop(a));
        let c = thread::spawn(move || block_on(toy.pop()));
        let producer = thread::spawn(move || {
            assert_eq!(toy.try_push(), Some(true));
            assert_eq!(toy.try_push(), Some(true));
        });
        assert!(block_on(toy.pop()));
        assert!(c.join().unwrap());
        dropper.join().unwrap();
        producer.join().unwrap();
    });
}

/// A and B wait in `pop` (linked, in that order); C's first poll links it
/// while two closers each post a wake-all: whoever frees the lock must
/// wake every waiter, B included.
///
/// Caught: a second wake-all posted to the same holder of the lock added
/// to the word instead of or-ed into it (`ALL + ALL` carries into the
/// count as one wake-one, so only A is woken). The failing schedule needs
/// two preemptions, so this model runs at bound 2 (33 000 executions, a
/// few seconds).
#[test]
fn loom_list_two_wake_alls_posted_to_one_holder() {
    use crate::sync::explores::Count;
    explores::capped(2, || {
        let toy = Toy::new(1, 0);
        let counts = [Count::waker(), Count::waker()];
        let mut waits = [Box::pin(toy.pop()), Box::pin(toy.pop())];
        for (w, (_, waker)) in waits.iter_mut().zip(&counts) {
            assert!(w
                .as_mut()
                .poll(&mut Context::from_waker(waker))
                .is_pending());
        }
        let c = thread::spawn(move || {
            let mut c = Box::pin(toy.pop());
            let waker = futures::task::noop_waker();
            let _ = c.as_mut().poll(&mut Context::from_waker(&waker));
            drop(c);
        });
        let closers: Vec<_> = (0..2).map(|_| thread::spawn(move || toy.close())).collect();
        c.join().unwrap();
        for closer in closers {
            closer.join().unwrap();
        }
        for (w, (c, _)) in waits.iter_mut().zip(&counts) {
            assert!(c.wakes() > 0, "a waiter asleep after a close");
            let waker = futures::task::noop_waker();
            assert_eq!(
                w.as_mut().poll(&mut Context::from_waker(&waker)),
                Poll::Ready(false)
            );
        }
    });
}

/// A and B wait in `pop` (linked, A first); A is polled again (a spurious
/// wake, a `select!` sibling's) while another thread pushes an item, which
/// wakes A, and pops it back without waiting. Whatever the interleaving, A
/// keeps its place, first: once A has been polled for each wake it
/// got (as an executor would), the next push wakes A, never B.
///
/// Caught: a poll whose node a wake took out while it ran linking the
/// node again at the back (`link` given `woken` for `served` in
/// `poll_at`): the next push woke B.
#[test]
fn loom_list_a_wake_during_a_poll_keeps_the_place() {
    use crate::sync::explores::Count;
    explores::model(|| {
        let toy = Toy::new(1, 0);
        let ((a, wa), (b, wb)) = (Count::waker(), Count::waker());
        let (mut ca, mut cb) = (Context::from_waker(&wa), Context::from_waker(&wb));
        let mut first = Box::pin(toy.pop());
        assert!(first.as_mut().poll(&mut ca).is_pending());
        let mut second = Box::pin(toy.pop());
        assert!(second.as_mut().poll(&mut cb).is_pending());
        let other = thread::spawn(move || {
            assert_eq!(toy.try_push(), Some(true));
            toy.try_pop() == Some(true)
        });
        let mut seen = a.wakes();
        let polled = first.as_mut().poll(&mut ca);
        let popped = other.join().unwrap();
        if polled == Poll::Ready(true) {
            // A took the item before the other pop.
            assert!(!popped, "one item popped twice");
            return;
        }
        assert!(popped, "A waits: the other pop took the item");
        while a.wakes() != seen {
            seen = a.wakes();
            assert!(first.as_mut().poll(&mut ca).is_pending());
        }
        assert_eq!(b.wakes(), 0, "B woken while A waits first");
        assert_eq!(toy.try_push(), Some(true));
        assert_eq!(
            (a.wakes(), b.wakes()),
            (seen + 1, 0),
            "the push wakes A, not B"
        );
        assert_eq!(first.as_mut().poll(&mut ca), Poll::Ready(true));
        drop(second);
    });
}

/// A, B and C wait in `pop` (linked in that order); two pushes wake A and
/// B, and a pop that does not wait takes both items before they run. A is
/// then polled on one thread while B is polled on another: both find
/// nothing and link again, in either order. Whatever the interleaving they
/// keep their places: the next push wakes A, the one after it B, and
/// neither wakes C.
///
/// Caught: a served node linked again at the head (`RawList::link`
/// inserting before `list.head` instead of walking to its place): when A
/// linked first, B went before it and the next push woke B.
#[test]
fn loom_list_waiters_woken_together_keep_their_order() {
    use crate::sync::explores::Count;
    explores::model(|| {
        let toy = Toy::new(2, 0);
        let ((a, wa), (b, wb), (c, wc)) = (Count::waker(), Count::waker(), Count::waker());
        let mut first = Box::pin(toy.pop());
        let mut second = Box::pin(toy.pop());
        let mut third = Box::pin(toy.pop());
        assert!(first
            .as_mut()
            .poll(&mut Context::from_waker(&wa))
            .is_pending());
        assert!(second
            .as_mut()
            .poll(&mut Context::from_waker(&wb))
            .is_pending());
        assert!(third
            .as_mut()
            .poll(&mut Context::from_waker(&wc))
            .is_pending());
        assert_eq!((toy.try_push(), toy.try_push()), (Some(true), Some(true)));
        assert_eq!((a.wakes(), b.wakes(), c.wakes()), (1, 1, 0));
        assert_eq!((toy.try_pop(), toy.try_pop()), (Some(true), Some(true)));
        let wa2 = wa.clone();
        let other = thread::spawn(move || {
            let pending = first
                .as_mut()
                .poll(&mut Context::from_waker(&wa2))
                .is_pending();
            (first, pending)
        });
        assert!(second
            .as_mut()
            .poll(&mut Context::from_waker(&wb))
            .is_pending());
        let (mut first, pending) = other.join().unwrap();
        assert!(pending, "A found an item no one pushed");
        assert_eq!(toy.try_push(), Some(true));
        assert_eq!(
            (a.wakes(), b.wakes(), c.wakes()),
            (2, 1, 0),
            "the push wakes A"
        );
        assert_eq!(
            first.as_mut().poll(&mut Context::from_waker(&wa)),
            Poll::Ready(true)
        );
        assert_eq!(toy.try_push(), Some(true));
        assert_eq!((b.wakes(), c.wakes()), (2, 0), "then B");
        assert_eq!(
            second.as_mut().poll(&mut Context::from_waker(&wb)),
            Poll::Ready(true)
        );
        drop(third);
    });
}
