//! The limiter's waiting acquires (`Limiter::acquire`,
//! `Limiter::acquire_blocking`): who a release wakes (class first, then
//! LIFO or FIFO, a waiter polled again keeping its place), the backlog's
//! bound, cancellation passing a wake on, the counters, and a threaded run
//! with exact accounting.
#![cfg(feature = "std")]

use sluicegate::limit::{Acquire, BacklogOrder, Limiter, LimiterConfig, Priority};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

#[path = "common/wake_count.rs"]
mod wake_count;
use wake_count::{counting, wakes, Count};

fn gate(limit: u32, backlog: u32, order: BacklogOrder) -> Limiter {
    Limiter::new(LimiterConfig {
        min_limit: limit,
        initial_limit: limit,
        max_limit: limit,
        backlog,
        backlog_order: order,
        background_reserve: 0,
        ..LimiterConfig::DEFAULT
    })
}

/// Polls `f` once with `w`.
fn poll_once<F: Future + Unpin>(f: &mut F, w: &Waker) -> Poll<F::Output> {
    Pin::new(f).poll(&mut Context::from_waker(w))
}

/// `n` `Critical` waiters of `g`, each polled once (and waiting), with
/// their counting wakers.
#[allow(clippy::type_complexity)]
fn waiting(g: &Limiter, n: usize) -> (Vec<Pin<Box<Acquire<'_>>>>, Vec<(Arc<Count>, Waker)>) {
    let mut futs: Vec<_> = (0..n)
        .map(|_| Box::pin(g.acquire(Priority::Critical)))
        .collect();
    let wakers: Vec<_> = (0..n).map(|_| counting()).collect();
    for (f, (_, w)) in futs.iter_mut().zip(&wakers) {
        assert!(poll_once(f, w).is_pending());
    }
    (futs, wakers)
}

/// Three waiters of one class join in order; each release wakes one, in
/// the configured order.
fn wake_order(order: BacklogOrder) -> Vec<usize> {
    let g = gate(1, 10, order);
    let held = g.try_acquire().unwrap();
    let (mut futs, wakers) = waiting(&g, 3);
    assert_eq!(g.stats().queued, 3);
    let mut served = Vec::new();
    let mut permit = Some(held);
    for _ in 0..3 {
        permit.take().unwrap().success(5);
        let i = (0..3)
            .find(|&i| !served.contains(&i) && wakers[i].0.wakes() == 1)
            .expect("a release wakes a waiter");
        let others = (0..3).filter(|&j| j != i && !served.contains(&j));
        assert!(
            others.clone().all(|j| wakers[j].0.wakes() == 0),
            "one wake per release"
        );
        match poll_once(&mut futs[i], &wakers[i].1) {
            Poll::Ready(Some(p)) => permit = Some(p),
            other => panic!("woken waiter {i} not admitted: {:?}", other.is_ready()),
        }
        served.push(i);
    }
    permit.unwrap().ignore();
    let s = g.stats();
    assert_eq!(
        (s.queued, s.timed_out, s.backlog_peak, s.in_flight),
        (3, 0, 3, 0)
    );
    assert_eq!(s.shed, [0, 0, 0]);
    served
}

#[test]
fn lifo_serves_the_newest_waiter_first() {
    assert_eq!(wake_order(BacklogOrder::Lifo), [2, 1, 0]);
}

#[test]
fn fifo_serves_the_oldest_waiter_first() {
    assert_eq!(wake_order(BacklogOrder::Fifo), [0, 1, 2]);
}

/// FIFO: a waiter polled again while it waits (a spurious wake, a
/// `select!` or a `join!` sibling's wake), with its own waker or with a new
/// one, keeps its place: A, B and C wait in that order, A is polled again,
/// and the releases still serve A, then B.
#[test]
fn fifo_a_waiter_polled_again_keeps_its_place() {
    for new_waker in [false, true] {
        let g = gate(1, 10, BacklogOrder::Fifo);
        let held = g.try_acquire().unwrap();
        let (mut futs, mut wakers) = waiting(&g, 3);
        if new_waker {
            wakers[0] = counting();
        }
        assert!(poll_once(&mut futs[0], &wakers[0].1).is_pending());
        assert!(poll_once(&mut futs[0], &wakers[0].1).is_pending());
        held.success(5);
        assert_eq!(wakes(&wakers), [1, 0, 0], "new waker {new_waker}: A first");
        let Poll::Ready(Some(a)) = poll_once(&mut futs[0], &wakers[0].1) else {
            panic!("new waker {new_waker}: A not admitted");
        };
        a.success(5);
        assert_eq!(wakes(&wakers), [1, 1, 0], "new waker {new_waker}: B next");
        let Poll::Ready(Some(b)) = poll_once(&mut futs[1], &wakers[1].1) else {
            panic!("new waker {new_waker}: B not admitted");
        };
        b.ignore();
        assert_eq!(wakes(&wakers), [1, 1, 1], "new waker {new_waker}: C last");
    }
}

/// A waker that counts its wakes and runs `hook` at its first clone: the
/// list clones a new waker outside its lock, between the poll's first try
/// and the link, so the hook plays another context acting there.
struct Hooked<'a> {
    hook: std::sync::Mutex<Option<Box<dyn FnOnce() + Send + 'a>>>,
    wakes: AtomicUsize,
}

impl<'a> Hooked<'a> {
    fn new(hook: impl FnOnce() + Send + 'a) -> Self {
        Hooked {
            hook: std::sync::Mutex::new(Some(Box::new(hook))),
            wakes: AtomicUsize::new(0),
        }
    }

    /// # Safety
    /// `self` outlives every clone of the waker that is cloned or woken.
    unsafe fn waker(&self) -> Waker {
        use std::task::{RawWaker, RawWakerVTable};
        static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake, drop);
        unsafe fn clone(p: *const ()) -> RawWaker {
            // SAFETY: `p` is a live `Hooked` (the contract of `waker`).
            let h = unsafe { &*(p as *const Hooked<'_>) };
            let hook = h.hook.lock().unwrap().take();
            if let Some(f) = hook {
                f();
            }
            RawWaker::new(p, &VTABLE)
        }
        unsafe fn wake(p: *const ()) {
            // SAFETY: as in `clone`.
            let h = unsafe { &*(p as *const Hooked<'_>) };
            h.wakes.fetch_add(1, Ordering::SeqCst);
        }
        unsafe fn drop(_: *const ()) {}
        let raw = RawWaker::new(self as *const Hooked<'_> as *const (), &VTABLE);
        // SAFETY: the vtable keeps `RawWaker`'s contract: the data is a
        // `Hooked` the caller keeps alive and shares (`Sync`), so a clone
        // is the same pointer and a drop does nothing.
        unsafe { Waker::from_raw(raw) }
    }
}

/// FIFO: a release whose wake lands on a waiter while that waiter is
/// polled again, after its first try, and whose permit a request that does
/// not wait takes before the waiter's second try: that poll serves the
/// wake and finds nothing, and the waiter keeps its place (first of its
/// class), as a woken waiter that finds nothing does. A, B and C wait; A
/// is polled again with a new waker, whose clone (between A's tries) is
/// where the release and the other request come.
#[test]
fn fifo_a_wake_during_a_poll_keeps_the_place() {
    let g = gate(1, 10, BacklogOrder::Fifo);
    let held = g.try_acquire().unwrap();
    let taken = std::sync::Mutex::new(None);
    let a = Hooked::new(|| {
        held.success(5);
        *taken.lock().unwrap() = g.try_acquire();
    });
    let (mut futs, wakers) = waiting(&g, 3);
    // SAFETY: `a` outlives the futures, the only holders of clones.
    let wa = unsafe { a.waker() };
    assert!(poll_once(&mut futs[0], &wa).is_pending());
    assert_eq!(wakers[0].0.wakes(), 1, "the release woke A during its poll");
    let other = taken
        .lock()
        .unwrap()
        .take()
        .expect("the request took the permit");
    other.success(5);
    let woken_now = (
        a.wakes.load(Ordering::SeqCst),
        wakers[1].0.wakes(),
        wakers[2].0.wakes(),
    );
    assert_eq!(woken_now, (1, 0, 0), "FIFO: the release wakes A, not B");
    let Poll::Ready(Some(p)) = poll_once(&mut futs[0], &wa) else {
        panic!("A not admitted");
    };
    p.success(5);
    assert_eq!((wakers[1].0.wakes(), wakers[2].0.wakes()), (1, 0), "then B");
    drop(futs);
}

/// Waiters woken together that all find nothing wait again in their
/// order, whichever of them is polled first: four wait at a limit of 2;
/// two releases wake the first two of the order (FIFO: the oldest two;
/// LIFO: the newest two), and two requests that do not wait take both
/// permits before the woken ones run. However those two are polled then,
/// the next releases wake them in the order they were woken in first, and
/// then the other two.
#[test]
fn waiters_woken_together_keep_their_order() {
    for (order, first) in [
        (BacklogOrder::Fifo, [0, 1, 2, 3]),
        (BacklogOrder::Lifo, [3, 2, 1, 0]),
        // Fewer than half the backlog of 10 wait: oldest first.
        (BacklogOrder::Adaptive, [0, 1, 2, 3]),
    ] {
        for a_first in [true, false] {
            let g = gate(2, 10, order);
            let held = [g.try_acquire().unwrap(), g.try_acquire().unwrap()];
            let (mut futs, wakers) = waiting(&g, 4);
            held.into_iter().for_each(|p| p.success(5));
            let mut expect = vec![0; 4];
            expect[first[0]] = 1;
            expect[first[1]] = 1;
            assert_eq!(wakes(&wakers), expect, "{order:?}: the releases woke two");
            let stolen = [g.try_acquire().unwrap(), g.try_acquire().unwrap()];
            let polled = if a_first {
                [first[0], first[1]]
            } else {
                [first[1], first[0]]
            };
            for i in polled {
                assert!(poll_once(&mut futs[i], &wakers[i].1).is_pending());
            }
            // Two permits in flight throughout: each step releases the
            // oldest and admits the waiter it wakes.
            let mut in_flight = std::collections::VecDeque::from(stolen);
            for i in first {
                in_flight.pop_front().unwrap().success(5);
                expect[i] += 1;
                assert_eq!(
                    wakes(&wakers),
                    expect,
                    "{order:?}, first woken polled first: {a_first}"
                );
                let Poll::Ready(Some(p)) = poll_once(&mut futs[i], &wakers[i].1) else {
                    panic!("{order:?}: waiter {i} not admitted");
                };
                in_flight.push_back(p);
            }
        }
    }
}

/// Adaptive LIFO with a backlog of 6: the newest waiter first while 3 or
/// more wait, the oldest while fewer do. A, B, C and D wait at a limit of
/// 1; one permit goes round: D (4 waiting), C (3), then A (2), then B.
#[test]
fn adaptive_serves_the_newest_while_half_the_backlog_waits() {
    let g = gate(1, 6, BacklogOrder::Adaptive);
    let mut held = g.try_acquire().unwrap();
    let (mut futs, wakers) = waiting(&g, 4);
    let mut expect = vec![0; 4];
    for i in [3, 2, 0, 1] {
        held.success(5);
        expect[i] += 1;
        assert_eq!(wakes(&wakers), expect, "waiter {i} is next");
        let Poll::Ready(Some(p)) = poll_once(&mut futs[i], &wakers[i].1) else {
            panic!("waiter {i} not admitted");
        };
        held = p;
    }
    held.success(5);
    assert_eq!(g.stats().queued, 4);
}

#[test]
fn a_higher_class_is_served_before_a_lower_one() {
    for order in [BacklogOrder::Lifo, BacklogOrder::Fifo] {
        // A limit of 4: Normal may fill 3, Background 2, Critical 4.
        let g = gate(4, 10, order);
        let held: Vec<_> = (0..4).map(|_| g.try_acquire().unwrap()).collect();
        let mut bg = Box::pin(g.acquire(Priority::Background));
        let mut normal = Box::pin(g.acquire(Priority::Normal));
        let mut crit = Box::pin(g.acquire(Priority::Critical));
        let (cb, wb) = counting();
        let (cn, wn) = counting();
        let (cc, wc) = counting();
        assert!(poll_once(&mut bg, &wb).is_pending());
        assert!(poll_once(&mut normal, &wn).is_pending());
        assert!(poll_once(&mut crit, &wc).is_pending());
        let mut held = held.into_iter();
        held.next().unwrap().ignore(); // 3 in flight
        assert_eq!((cc.wakes(), cn.wakes(), cb.wakes()), (1, 0, 0));
        let c = match poll_once(&mut crit, &wc) {
            Poll::Ready(Some(p)) => p,
            _ => panic!("Critical not admitted"),
        };
        held.next().unwrap().ignore(); // 3 in flight again
        assert_eq!((cn.wakes(), cb.wakes()), (1, 0));
        // Normal may fill 3 of 4: with 3 in flight it waits again, and
        // passes the wake down (a unit is free); Background, which may
        // fill 2, waits again too.
        assert!(poll_once(&mut normal, &wn).is_pending());
        assert_eq!(cb.wakes(), 1);
        assert!(poll_once(&mut bg, &wb).is_pending());
        held.next().unwrap().ignore(); // 2 in flight
        assert_eq!((cn.wakes(), cb.wakes()), (2, 1));
        let n = match poll_once(&mut normal, &wn) {
            Poll::Ready(Some(p)) => p,
            _ => panic!("Normal not admitted"),
        };
        drop((c, n, held));
        assert!(matches!(poll_once(&mut bg, &wb), Poll::Ready(Some(_))));
    }
}

#[test]
fn a_full_backlog_sheds_at_once() {
    let g = gate(1, 2, BacklogOrder::Lifo);
    let _held = g.try_acquire().unwrap();
    let (_c, w) = counting();
    let mut a = Box::pin(g.acquire(Priority::Critical));
    let mut b = Box::pin(g.acquire(Priority::Normal));
    let mut c = Box::pin(g.acquire(Priority::Critical));
    assert!(poll_once(&mut a, &w).is_pending());
    assert!(poll_once(&mut b, &w).is_pending());
    assert!(matches!(poll_once(&mut c, &w), Poll::Ready(None)));
    let s = g.stats();
    assert_eq!((s.queued, s.backlog_peak, s.shed), (2, 2, [1, 0, 0]));
    // A place given up is free again.
    drop(a);
    let mut d = Box::pin(g.acquire(Priority::Critical));
    assert!(poll_once(&mut d, &w).is_pending());
    let s = g.stats();
    assert_eq!((s.queued, s.timed_out, s.shed), (3, 1, [2, 0, 0]));
}

/// A permit of weight 4 gives four units back: it wakes four waiters, and
/// each is admitted.
#[test]
fn a_weighted_release_wakes_a_waiter_per_unit() {
    let g = gate(4, 10, BacklogOrder::Lifo);
    let batch = g.try_acquire_n(4).unwrap();
    let (mut futs, wakers) = waiting(&g, 5);
    drop(batch);
    assert_eq!(wakes(&wakers), [0, 1, 1, 1, 1], "LIFO: the four newest");
    let mut permits = Vec::new();
    for (f, (_, w)) in futs.iter_mut().zip(&wakers).skip(1) {
        match poll_once(f, w) {
            Poll::Ready(Some(p)) => permits.push(p),
            other => panic!("a woken waiter was not admitted: {:?}", other.is_ready()),
        }
    }
    assert_eq!(g.in_flight(), 4);
    assert!(poll_once(&mut futs[0], &wakers[0].1).is_pending());
}

/// A rise of the limit gives a unit as a release does: it wakes a waiter.
#[test]
fn a_rise_of_the_limit_wakes_a_waiter() {
    let g = Limiter::new(LimiterConfig {
        min_limit: 1,
        initial_limit: 2,
        max_limit: 8,
        ..LimiterConfig::DEFAULT
    });
    for _ in 0..15 {
        g.try_acquire().unwrap().success(10);
    }
    let a = g.try_acquire().unwrap();
    let _b = g.try_acquire().unwrap();
    assert!(g.try_acquire().is_none());
    let (mut futs, wakers) = waiting(&g, 2);
    a.success(10); // the window's last success: the limit goes 2 -> 3
    assert_eq!(g.limit(), 3, "the scenario needs the rise");
    assert_eq!(
        wakes(&wakers),
        [1, 1],
        "one for the release, one for the rise"
    );
    let permits: Vec<_> = futs
        .iter_mut()
        .zip(&wakers)
        .filter_map(|(f, (_, w))| match poll_once(f, w) {
            Poll::Ready(p) => p,
            Poll::Pending => None,
        })
        .collect();
    assert_eq!((permits.len(), g.in_flight()), (2, 3));
}

/// A waiter of a class its limit admits nothing (`Normal` or `Background`
/// at a limit of 1; `Background` with a quarter share at 3) is woken by
/// the release that leaves nothing in flight: its try once it waits must
/// raise the limit, as a fresh request's refusal would, or it waits for a
/// release that never comes. Polled each time its waker is called, it is
/// admitted within two polls, at the limit one up.
#[test]
fn a_waiter_shut_out_at_the_limit_raises_it_once_nothing_is_in_flight() {
    let quarter = LimiterConfig {
        min_limit: 1,
        initial_limit: 3,
        max_limit: 10,
        background_share: 64,
        background_reserve: 0,
        ..LimiterConfig::DEFAULT
    };
    let one = LimiterConfig {
        min_limit: 1,
        initial_limit: 1,
        max_limit: 4,
        ..LimiterConfig::DEFAULT
    };
    let cases = [
        (one, Priority::Normal),
        (one, Priority::Background),
        (quarter, Priority::Background),
    ];
    for (config, class) in cases {
        for dropped in [false, true] {
            let at = format!("{class:?} at {}, dropped {dropped}", config.initial_limit);
            let g = Limiter::new(config);
            let held = g.try_acquire().unwrap();
            let (c, w) = counting();
            let mut fut = Box::pin(g.acquire(class));
            assert!(poll_once(&mut fut, &w).is_pending(), "{at}");
            if dropped {
                held.dropped();
            } else {
                held.ignore();
            }
            assert_eq!((g.in_flight(), c.wakes()), (0, 1), "{at}");
            let mut polls = 0;
            let permit = loop {
                let seen = c.wakes();
                polls += 1;
                match poll_once(&mut fut, &w) {
                    Poll::Ready(p) => break p.unwrap_or_else(|| panic!("{at}: shed")),
                    Poll::Pending => {
                        assert!(c.wakes() > seen, "{at}: asleep with nothing in flight")
                    }
                }
            };
            assert!(polls <= 2, "{at}: {polls} polls");
            assert_eq!(g.limit(), config.initial_limit + 1, "{at}");
            assert_eq!(g.in_flight(), 1, "{at}");
            drop(permit);
        }
    }
}

/// A `Normal` waiter woken while the class is at its share passes the
/// wake on to a `Background` waiter, whose reserve admits it (limit 8: 6
/// in flight stop `Normal`, and `Background` holding nothing may take
/// the 7th).
#[test]
fn a_wake_the_class_cannot_use_goes_down_the_classes() {
    let g = Limiter::new(LimiterConfig {
        min_limit: 8,
        initial_limit: 8,
        max_limit: 8,
        ..LimiterConfig::DEFAULT
    });
    let mut held: Vec<_> = (0..8).map(|_| g.try_acquire().unwrap()).collect();
    let (cn, wn) = counting();
    let (cb, wb) = counting();
    let mut normal = Box::pin(g.acquire(Priority::Normal));
    let mut background = Box::pin(g.acquire(Priority::Background));
    assert!(poll_once(&mut normal, &wn).is_pending());
    assert!(poll_once(&mut background, &wb).is_pending());
    held.pop().unwrap().ignore(); // 7 in flight: neither class may take it
    assert_eq!((cn.wakes(), cb.wakes()), (1, 0), "the higher class first");
    assert!(poll_once(&mut normal, &wn).is_pending());
    assert_eq!(cb.wakes(), 1, "passed down: a unit is free");
    assert!(poll_once(&mut background, &wb).is_pending());
    held.pop().unwrap().ignore(); // 6 in flight
    assert_eq!((cn.wakes(), cb.wakes()), (2, 1));
    assert!(poll_once(&mut normal, &wn).is_pending());
    assert_eq!(cb.wakes(), 2);
    let Poll::Ready(Some(p)) = poll_once(&mut background, &wb) else {
        panic!("the reserve admits the background waiter");
    };
    assert_eq!(g.in_flight(), 7);
    // The normal waiter still waits, and is served first by a release.
    drop(p);
    assert_eq!(cn.wakes(), 3);
}

/// The release of a permit taken on `Background`'s reserve frees a unit
/// and that reserve; its one wake goes to the `Normal` waiter, which takes
/// the unit and, a unit still being free, wakes the next waiter: the
/// `Background` one, whose reserve admits it (default config, limit 8:
/// `Normal` below 6, `Background` below 4 or on its reserve of 1).
#[test]
fn a_woken_waiter_that_leaves_a_unit_free_wakes_the_next() {
    let g = Limiter::new(LimiterConfig {
        min_limit: 8,
        initial_limit: 8,
        max_limit: 8,
        ..LimiterConfig::DEFAULT
    });
    let critical = g.try_acquire_n(4).unwrap();
    let normal_held = g.try_acquire_with(Priority::Normal).unwrap();
    let background_held = g.try_acquire_with(Priority::Background).unwrap();
    let (cn, wn) = counting();
    let (cb, wb) = counting();
    let mut background = Box::pin(g.acquire(Priority::Background));
    let mut normal = Box::pin(g.acquire(Priority::Normal));
    assert!(poll_once(&mut background, &wb).is_pending());
    assert!(poll_once(&mut normal, &wn).is_pending());
    drop(background_held); // 5 in flight, the reserve free
    assert_eq!((cn.wakes(), cb.wakes()), (1, 0), "the higher class first");
    let Poll::Ready(Some(n)) = poll_once(&mut normal, &wn) else {
        panic!("the normal waiter takes the unit");
    };
    assert_eq!(cb.wakes(), 1, "a unit is free: the next waiter is woken");
    let Poll::Ready(Some(b)) = poll_once(&mut background, &wb) else {
        panic!("the reserve admits the background waiter");
    };
    assert_eq!(g.in_flight(), 7);
    drop((critical, normal_held, n, b));
}

#[test]
fn a_dropped_waiter_passes_its_wake_on() {
    let g = gate(1, 10, BacklogOrder::Lifo);
    let held = g.try_acquire().unwrap();
    let (ca, wa) = counting();
    let (cb, wb) = counting();
    let mut a = Box::pin(g.acquire(Priority::Critical));
    let mut b = Box::pin(g.acquire(Priority::Critical));
    assert!(poll_once(&mut a, &wa).is_pending());
    assert!(poll_once(&mut b, &wb).is_pending());
    held.success(3);
    // LIFO: b (the newest) is woken; it goes away without polling.
    assert_eq!((ca.wakes(), cb.wakes()), (0, 1));
    drop(b);
    assert_eq!(ca.wakes(), 1, "the unused wake goes to the next waiter");
    assert!(matches!(poll_once(&mut a, &wa), Poll::Ready(Some(_))));
    assert_eq!(g.stats().timed_out, 1);
}

#[test]
fn a_blocking_wait_times_out_and_counts() {
    let g = gate(1, 10, BacklogOrder::Lifo);
    let held = g.try_acquire().unwrap();
    let t = std::time::Instant::now();
    assert!(g
        .acquire_blocking(Priority::Critical, Duration::from_millis(20))
        .is_none());
    assert!(t.elapsed() >= Duration::from_millis(20));
    let s = g.stats();
    assert_eq!((s.queued, s.timed_out, s.shed), (1, 1, [1, 0, 0]));
    held.ignore();
    // Free: admitted at once, without waiting.
    let p = g
        .acquire_blocking(Priority::Critical, Duration::ZERO)
        .unwrap();
    p.ignore();
    assert_eq!(g.stats().queued, 1);
}

/// Threads that all wait for one of `limit` permits, hold it briefly and
/// release it: every request is served (the backlog holds them all),
/// in flight never exceeds the limit, and the counts add up, in every
/// order (adaptive with a backlog of the threads, so that half of it
/// waits now and then). At limit 1 only Critical is ever admitted, so only
/// Critical waits there.
#[test]
fn threads_waiting_in_turn_are_all_served() {
    const THREADS: usize = 8;
    const ROUNDS: usize = if cfg!(miri) { 20 } else { 2_000 };
    static ALL: [Priority; 3] = [Priority::Critical, Priority::Normal, Priority::Background];
    let orders = [
        (BacklogOrder::Lifo, 64),
        (BacklogOrder::Fifo, 64),
        (BacklogOrder::Adaptive, THREADS as u32),
    ];
    for ((limit, classes), (order, backlog)) in [(1u32, &ALL[..1]), (4, &ALL[..])]
        .into_iter()
        .flat_map(|l| orders.map(|o| (l, o)))
    {
        let g = &gate(limit, backlog, order);
        let peak = &AtomicUsize::new(0);
        let total: usize = std::thread::scope(|scope| {
            let hs: Vec<_> = (0..THREADS)
                .map(|t| {
                    scope.spawn(move || {
                        let class = classes[t % classes.len()];
                        let mut got = 0;
                        for _ in 0..ROUNDS {
                            let p = g
                                .acquire_blocking(class, Duration::from_secs(60))
                                .expect("served within a minute");
                            peak.fetch_max(g.in_flight() as usize, Ordering::SeqCst);
                            // Hold it across a yield, so that others wait.
                            std::thread::yield_now();
                            got += 1;
                            if got % 2 == 0 {
                                p.success(1);
                            } else {
                                p.ignore();
                            }
                        }
                        got
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(total, THREADS * ROUNDS);
        assert!(peak.load(Ordering::SeqCst) <= limit as usize);
        let s = g.stats();
        assert_eq!(s.admitted, THREADS * ROUNDS);
        assert_eq!(s.succeeded + s.ignored, THREADS * ROUNDS);
        assert_eq!((s.in_flight, s.timed_out, s.shed), (0, 0, [0, 0, 0]));
        assert!(s.backlog_peak <= THREADS);
        // The holders yield while they hold: others found no permit and
        // waited (else this test would check only `try_acquire`).
        assert!(s.queued > 0 && s.backlog_peak > 1, "{s:?}");
    }
}
