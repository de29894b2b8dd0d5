//! loom models of the waiting acquires (feature `async`): a release must
//! wake a waiter (the hand-off), and one of weight 2 two waiters; a waiter
//! that gives up while a release races it must not swallow the wake
//! another waiter needs (a timeout); a woken waiter dropped before it polls
//! must pass its wake on (cancel); a wake its class cannot use must go down
//! the classes, also when it comes while the waiter is being polled; and
//! such a wake must leave a FIFO waiter in its place.
//! `loom::future::block_on` parks the waiting thread between polls, so a
//! lost wake-up shows up as a deadlock that loom reports.
//!
//! Run: `ci/loom.sh limit::wait`, or
//! `RUSTFLAGS="--cfg sluicegate_loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --features async --lib -- limit::wait::loom_tests::`

use crate::limit::{Limiter, LimiterConfig, Priority};
use crate::sync::explores;
use core::future::Future;
use core::pin::pin;
use core::task::{Context, Poll, Waker};
use loom::future::block_on;
use loom::thread;
use std::boxed::Box;

/// A limiter of one permit, leaked so that permits cross threads.
fn gate() -> &'static Limiter {
    gate_of(1)
}

/// A limiter of one permit whose backlog of `backlog` is served in
/// `order`, leaked.
fn gate_ordered(order: crate::limit::BacklogOrder, backlog: u32) -> &'static Limiter {
    Box::leak(Box::new(
        Limiter::try_new(LimiterConfig {
            min_limit: 1,
            initial_limit: 1,
            max_limit: 1,
            backlog,
            backlog_order: order,
            ..LimiterConfig::DEFAULT
        })
        .unwrap(),
    ))
}

/// A limiter of `n` permits, leaked.
fn gate_of(n: u32) -> &'static Limiter {
    Box::leak(Box::new(
        Limiter::try_new(LimiterConfig {
            min_limit: n,
            initial_limit: n,
            max_limit: n,
            ..LimiterConfig::DEFAULT
        })
        .unwrap(),
    ))
}

/// A thread that polls a waiting acquire until it resolves or is stopped,
/// parked in `block_on` between polls.
struct Driven {
    done: loom::sync::Arc<loom::sync::atomic::AtomicBool>,
    parked: loom::sync::Arc<loom::sync::Mutex<Option<Waker>>>,
    thread: thread::JoinHandle<Option<crate::limit::Permit<'static>>>,
}

impl Driven {
    fn spawn(mut acquire: core::pin::Pin<Box<crate::limit::Acquire<'static>>>) -> Self {
        use loom::sync::atomic::{AtomicBool, Ordering};
        use loom::sync::{Arc, Mutex};
        let done = Arc::new(AtomicBool::new(false));
        let parked: Arc<Mutex<Option<Waker>>> = Arc::new(Mutex::new(None));
        let (d, p) = (done.clone(), parked.clone());
        let thread = thread::spawn(move || {
            block_on(core::future::poll_fn(|cx| {
                *p.lock().unwrap() = Some(cx.waker().clone());
                if d.load(Ordering::SeqCst) {
                    return Poll::Ready(None);
                }
                if let Poll::Ready(got) = acquire.as_mut().poll(cx) {
                    return Poll::Ready(got);
                }
                if d.load(Ordering::SeqCst) {
                    Poll::Ready(None)
                } else {
                    Poll::Pending
                }
            }))
        });
        Driven {
            done,
            parked,
            thread,
        }
    }

    /// Stops it (wakes it to see so) and returns what it was admitted to.
    fn stop(self) -> Option<crate::limit::Permit<'static>> {
        self.done.store(true, loom::sync::atomic::Ordering::SeqCst);
        if let Some(w) = self.parked.lock().unwrap().take() {
            w.wake();
        }
        self.thread.join().unwrap()
    }
}

/// The hand-off: the permit's holder releases it on another thread while
/// the main thread waits for it.
#[test]
fn loom_limit_wait_release_hands_over_to_a_waiter() {
    explores::model(|| {
        let g = gate();
        let held = g.try_acquire().unwrap();
        let releaser = thread::spawn(move || held.success(1));
        let got = block_on(g.acquire(Priority::Critical)).expect("admitted");
        releaser.join().unwrap();
        got.ignore();
        let s = g.stats();
        assert_eq!((s.in_flight, s.timed_out, s.shed), (0, 0, [0, 0, 0]));
    });
}

/// A permit of weight 2 released while two threads wait: both are admitted
/// (a release that woke one waiter per release, not per unit, leaves the
/// second asleep with a unit free: a deadlock here).
#[test]
fn loom_limit_wait_weighted_release_wakes_two() {
    explores::capped(1, || {
        let g = gate_of(2);
        let held = g.try_acquire_n(2).unwrap();
        // Each waiter keeps its permit until both have one: no release of
        // theirs can wake the other.
        let other =
            thread::spawn(move || block_on(g.acquire(Priority::Critical)).expect("admitted"));
        let releaser = thread::spawn(move || held.ignore());
        let mine = block_on(g.acquire(Priority::Critical)).expect("admitted");
        let theirs = other.join().unwrap();
        releaser.join().unwrap();
        assert_eq!(g.in_flight(), 2);
        mine.ignore();
        theirs.ignore();
    });
}

/// A timeout racing a release: one waiter polls once and gives up (its
/// future dropped) while the permit is released; the other waiter must
/// still be served, whichever of the two the release woke.
#[test]
fn loom_limit_wait_timeout_racing_a_release() {
    explores::capped(1, || {
        let g = gate();
        let held = g.try_acquire().unwrap();
        let quitter = thread::spawn(move || {
            let mut fut = pin!(g.acquire(Priority::Critical));
            let mut cx = Context::from_waker(Waker::noop());
            // A permit got on this one poll is given back at once.
            if let Poll::Ready(Some(p)) = fut.as_mut().poll(&mut cx) {
                p.ignore();
            }
        });
        let releaser = thread::spawn(move || held.ignore());
        let got = block_on(g.acquire(Priority::Critical)).expect("admitted");
        quitter.join().unwrap();
        releaser.join().unwrap();
        got.ignore();
        assert_eq!(g.in_flight(), 0);
    });
}

/// Cancel: a waiter is woken by the release and dropped before it polls
/// again; its wake goes to the other waiter. The main thread waits first,
/// so under LIFO the release wakes the later waiter, the one dropped.
#[test]
fn loom_limit_wait_cancelled_waiter_passes_its_wake_on() {
    explores::capped(1, || {
        let g = gate();
        let held = g.try_acquire().unwrap();
        let mut first = Box::pin(g.acquire(Priority::Critical));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(first.as_mut().poll(&mut cx).is_pending());
        let mut second = Box::pin(g.acquire(Priority::Critical));
        assert!(second.as_mut().poll(&mut cx).is_pending());
        let releaser = thread::spawn(move || held.ignore());
        let canceller = thread::spawn(move || drop(second));
        let got = block_on(first).expect("admitted");
        releaser.join().unwrap();
        canceller.join().unwrap();
        got.ignore();
        assert_eq!(g.stats().timed_out, 1);
    });
}

/// Adaptive LIFO, the pass-on: A, B and C wait (backlog 4: the newest
/// first while 2 or more wait) while another thread releases the permit
/// and a third drops C. If the release comes first it wakes C (3 waiting),
/// whose drop passes the wake on to the newest of the 2 left, B; if the
/// drop comes first, the release wakes B. Either way B is admitted and A
/// not woken.
///
/// Caught: the pass-on of a dropped waiter's wake taking the first waiter
/// (`RawList::leave` given `IN_ORDER` for the list's `newest_from`): A
/// was woken.
#[test]
fn loom_limit_wait_adaptive_passes_a_wake_to_the_newest() {
    use crate::limit::BacklogOrder;
    use crate::sync::explores::Count;
    explores::model(|| {
        let g = gate_ordered(BacklogOrder::Adaptive, 4);
        let held = g.try_acquire().unwrap();
        let ((a, wa), (b, wb)) = (Count::waker(), Count::waker());
        let mut first = Box::pin(g.acquire(Priority::Critical));
        assert!(first
            .as_mut()
            .poll(&mut Context::from_waker(&wa))
            .is_pending());
        let mut second = Box::pin(g.acquire(Priority::Critical));
        assert!(second
            .as_mut()
            .poll(&mut Context::from_waker(&wb))
            .is_pending());
        let mut third = Box::pin(g.acquire(Priority::Critical));
        assert!(third
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
            .is_pending());
        let releaser = thread::spawn(move || held.ignore());
        let canceller = thread::spawn(move || drop(third));
        releaser.join().unwrap();
        canceller.join().unwrap();
        assert_eq!((a.wakes(), b.wakes()), (0, 1), "the wake went to B");
        let Poll::Ready(Some(p)) = second.as_mut().poll(&mut Context::from_waker(&wb)) else {
            panic!("B not admitted");
        };
        p.ignore();
        drop(first);
    });
}

/// A wake its class cannot use goes down the classes: with 8 permits held
/// by `Critical`, a `Normal` and a `Background` waiter wait while two are
/// released. `Normal` (at most 6 in flight) can never be admitted;
/// `Background`, on its reserve, can once 6 are in flight. Each release
/// wakes `Normal` first (while it is linked); its failed try must pass the
/// wake down, or `Background` sleeps for ever beside a free unit.
#[test]
fn loom_limit_wait_unusable_wake_goes_down_the_classes() {
    explores::capped(1, || {
        let g = gate_of(8);
        let mut held: std::vec::Vec<_> = (0..8).map(|_| g.try_acquire().unwrap()).collect();
        let mut cx = Context::from_waker(Waker::noop());
        let mut normal = Box::pin(g.acquire(Priority::Normal));
        assert!(normal.as_mut().poll(&mut cx).is_pending());
        let mut background = Box::pin(g.acquire(Priority::Background));
        assert!(background.as_mut().poll(&mut cx).is_pending());
        let (a, b) = (held.pop().unwrap(), held.pop().unwrap());
        let releaser = thread::spawn(move || {
            a.ignore();
            b.ignore();
        });
        // The `Normal` waiter is never admitted.
        let driver = Driven::spawn(normal);
        let got = block_on(background).expect("admitted on its reserve");
        assert!(driver.stop().is_none(), "Normal admitted past its share");
        releaser.join().unwrap();
        assert_eq!(g.in_flight(), 7);
        got.ignore();
        drop(held);
    });
}

/// A wake that takes a waiter out of the list while that waiter polls for
/// another reason (its first try already failed) is served by that poll:
/// 8 held by `Critical`, `Normal` and `Background` waiting, 7 in flight; a
/// poll of the linked `Normal` waiter races the release that leaves 6,
/// which wakes `Normal` (the higher class). `Normal` cannot use the unit
/// (at most 6 in flight); the poll that served the wake must pass it
/// down, or `Background`, whose reserve admits it at 6, sleeps beside a
/// free unit (as an executor would, `Normal` is polled again for each of
/// its wakes).
#[test]
fn loom_limit_wait_a_wake_during_a_poll_is_passed_down() {
    use crate::sync::explores::Count;
    explores::capped(2, || {
        let g = gate_of(8);
        let mut held: std::vec::Vec<_> = (0..8).map(|_| g.try_acquire().unwrap()).collect();
        let ((n, wn), (b, wb)) = (Count::waker(), Count::waker());
        let (mut cn, mut cb) = (Context::from_waker(&wn), Context::from_waker(&wb));
        let mut normal = Box::pin(g.acquire(Priority::Normal));
        assert!(normal.as_mut().poll(&mut cn).is_pending());
        let mut background = Box::pin(g.acquire(Priority::Background));
        assert!(background.as_mut().poll(&mut cb).is_pending());
        // 7 in flight: `Normal` woken, refused, passes down; `Background`
        // refused too (its reserve needs 6).
        held.pop().unwrap().ignore();
        assert!(normal.as_mut().poll(&mut cn).is_pending());
        assert!(background.as_mut().poll(&mut cb).is_pending());
        let before = b.wakes();
        let last = held.pop().unwrap();
        let releaser = thread::spawn(move || last.ignore());
        let mut seen = n.wakes();
        assert!(normal.as_mut().poll(&mut cn).is_pending());
        releaser.join().unwrap();
        while n.wakes() != seen {
            seen = n.wakes();
            assert!(normal.as_mut().poll(&mut cn).is_pending());
        }
        assert!(
            b.wakes() > before,
            "Background asleep beside a unit its reserve admits"
        );
        let got = match background.as_mut().poll(&mut cb) {
            Poll::Ready(Some(p)) => p,
            other => panic!("Background: {:?}", other.map(|p| p.is_some())),
        };
        got.ignore();
        drop(held);
    });
}

/// FIFO: a release that wakes the first waiter while that waiter is polled
/// again (a spurious wake, a `select!` sibling's), then a request that
/// does not wait takes the permit: whatever the interleaving, the first
/// waiter keeps its place, so the next release wakes it and never the
/// second. A and B wait (A first) on a limit of one; another thread
/// releases the permit and takes it back with `try_acquire` while A is
/// polled again (and again for each wake it got, as an executor would).
///
/// Caught: a poll whose node a wake took out while it ran linking the
/// node again at the back of its class (`link_ranked` given `woken` for
/// `served` in `poll_at`): the next release woke B.
#[test]
fn loom_limit_wait_fifo_a_wake_during_a_poll_keeps_the_place() {
    use crate::limit::BacklogOrder;
    use crate::sync::explores::Count;
    explores::model(|| {
        let g = gate_ordered(BacklogOrder::Fifo, LimiterConfig::DEFAULT.backlog);
        let held = g.try_acquire().unwrap();
        let ((a, wa), (b, wb)) = (Count::waker(), Count::waker());
        let (mut ca, mut cb) = (Context::from_waker(&wa), Context::from_waker(&wb));
        let mut first = Box::pin(g.acquire(Priority::Critical));
        assert!(first.as_mut().poll(&mut ca).is_pending());
        let mut second = Box::pin(g.acquire(Priority::Critical));
        assert!(second.as_mut().poll(&mut cb).is_pending());
        let other = thread::spawn(move || {
            held.ignore();
            g.try_acquire()
        });
        let mut seen = a.wakes();
        let polled = first.as_mut().poll(&mut ca);
        let taken = other.join().unwrap();
        if let Poll::Ready(got) = polled {
            // A took the permit before the other request.
            assert!(taken.is_none(), "two permits at a limit of 1");
            got.expect("admitted").ignore();
            assert_eq!(b.wakes(), 1, "then B");
            return;
        }
        let taken = taken.expect("A waits: the other request holds the permit");
        while a.wakes() != seen {
            seen = a.wakes();
            assert!(first.as_mut().poll(&mut ca).is_pending());
        }
        assert_eq!(b.wakes(), 0, "B woken while A waits first");
        taken.ignore();
        assert_eq!(
            (a.wakes(), b.wakes()),
            (seen + 1, 0),
            "FIFO: the release wakes A, not B"
        );
        let got = match first.as_mut().poll(&mut ca) {
            Poll::Ready(Some(p)) => p,
            other => panic!("A: {:?}", other.map(|p| p.is_some())),
        };
        got.ignore();
        assert_eq!(b.wakes(), 1, "then B");
        drop(second);
    });
}

/// A `Normal` waiter at a limit of 1 (which admits `Normal` nothing),
/// while `Critical` holds the permit on another thread and releases it:
/// the waiter's try after the release, with nothing in flight, raises the
/// limit to 2 and is admitted, whether the release came before its first
/// try, between its tries, or while it slept.
///
/// Caught: the tries of a waiting acquire never raising the limit (only a
/// fresh request's first try did), which leaves it asleep beside an idle
/// limiter.
#[test]
fn loom_limit_wait_a_waiter_shut_out_raises_the_limit() {
    explores::model(|| {
        let g: &'static Limiter = Box::leak(Box::new(
            Limiter::try_new(LimiterConfig {
                min_limit: 1,
                initial_limit: 1,
                max_limit: 2,
                ..LimiterConfig::DEFAULT
            })
            .unwrap(),
        ));
        let held = g.try_acquire().unwrap();
        let releaser = thread::spawn(move || held.ignore());
        let got = block_on(g.acquire(Priority::Normal)).expect("admitted");
        releaser.join().unwrap();
        assert_eq!((g.limit(), g.in_flight()), (2, 1));
        got.ignore();
    });
}

/// The release of a permit taken on `Background`'s reserve frees a unit
/// and that reserve; its one wake may go to the `Normal` waiter, which
/// takes the unit: that waiter, admitted with a unit still free, wakes the
/// next, so the `Background` waiter is admitted on its reserve (limit 8:
/// `Critical` holds 4, `Normal` 1, `Background` 1 on its reserve; the
/// `Normal` waiter is admitted only if it comes first). Without that wake
/// the `Background` waiter sleeps beside its unit: a deadlock.
#[test]
fn loom_limit_wait_an_admitted_waiter_wakes_the_next() {
    explores::model(|| {
        let g = gate_of(8);
        let critical = g.try_acquire_n(4).unwrap();
        let normal_held = g.try_acquire_with(Priority::Normal).unwrap();
        let background_held = g.try_acquire_with(Priority::Background).unwrap();
        let mut cx = Context::from_waker(Waker::noop());
        let mut normal = Box::pin(g.acquire(Priority::Normal));
        assert!(normal.as_mut().poll(&mut cx).is_pending());
        let mut background = Box::pin(g.acquire(Priority::Background));
        assert!(background.as_mut().poll(&mut cx).is_pending());
        let releaser = thread::spawn(move || background_held.ignore());
        let driver = Driven::spawn(normal);
        let b = block_on(background).expect("admitted on its reserve");
        let n = driver.stop();
        releaser.join().unwrap();
        assert_eq!(g.in_flight(), 6 + u32::from(n.is_some()));
        for p in [Some(critical), Some(normal_held), n, Some(b)]
            .into_iter()
            .flatten()
        {
            p.ignore();
        }
    });
}
