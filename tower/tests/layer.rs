//! The layer's bookkeeping: each response's outcome reaches the limiter, no
//! permit is held before `call`, a `call` is admitted or refused on the
//! limiter's state when it is made and each refusal is counted once,
//! concurrent requests never exceed the limit, and readiness is for one
//! `call`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use sluicegate::limit::{Limiter, LimiterConfig};
use sluicegate_tower::{LimitError, LimitLayer, Outcome};
use tower::{service_fn, Layer, Service, ServiceExt};

fn limiter(limit: u32) -> Arc<Limiter> {
    Arc::new(Limiter::new(LimiterConfig {
        min_limit: limit,
        initial_limit: limit,
        max_limit: limit,
        ..LimiterConfig::DEFAULT
    }))
}

#[tokio::test]
async fn outcomes_follow_the_classifier() {
    let l = limiter(4);
    let odd_fails = service_fn(|x: u32| async move {
        if x % 2 == 1 {
            Err(x)
        } else {
            Ok(x)
        }
    });
    let service = LimitLayer::new(l.clone()).layer(odd_fails);
    assert_eq!(service.clone().oneshot(2).await.unwrap(), 2);
    assert!(matches!(
        service.clone().oneshot(3).await,
        Err(LimitError::Inner(3))
    ));
    let s = l.stats();
    assert_eq!(
        (s.succeeded, s.dropped, s.ignored, s.in_flight),
        (1, 1, 0, 0)
    );

    // A classifier that ignores errors (client errors, say).
    let quiet = LimitLayer::new(l.clone())
        .classify(|r: &Result<u32, u32>| {
            if r.is_ok() {
                Outcome::Success
            } else {
                Outcome::Ignore
            }
        })
        .layer(odd_fails);
    assert!(quiet.oneshot(5).await.is_err());
    assert_eq!((l.stats().dropped, l.stats().ignored), (1, 1));
}

/// An inner service that is ready only once `open` is set.
#[derive(Clone)]
struct Gate(Arc<AtomicU32>);

impl Service<()> for Gate {
    type Response = ();
    type Error = ();
    type Future = std::future::Ready<Result<(), ()>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ()>> {
        if self.0.load(Ordering::SeqCst) == 0 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: ()) -> Self::Future {
        std::future::ready(Ok(()))
    }
}

/// A waker that does nothing: the test polls by hand.
struct Noop;

impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

#[tokio::test]
async fn no_permit_is_held_before_call() {
    let l = limiter(1);
    let open = Arc::new(AtomicU32::new(0));
    let mut service = LimitLayer::new(l.clone()).layer(Gate(open.clone()));
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    assert!(service.poll_ready(&mut cx).is_pending());
    assert_eq!(l.in_flight(), 0);
    open.store(1, Ordering::SeqCst);
    assert!(matches!(service.poll_ready(&mut cx), Poll::Ready(Ok(()))));
    assert_eq!(l.in_flight(), 0); // ready, not called
    let response = service.call(());
    assert_eq!(l.in_flight(), 1); // held by the response future
    response.await.unwrap();
    assert_eq!(l.in_flight(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_never_exceed_the_limit() {
    const LIMIT: u32 = 4;
    let l = limiter(LIMIT);
    let running = Arc::new(AtomicU32::new(0));
    let peak = Arc::new(AtomicU32::new(0));
    let (r, p) = (running.clone(), peak.clone());
    let slow = service_fn(move |_: ()| {
        let (r, p) = (r.clone(), p.clone());
        async move {
            let now = r.fetch_add(1, Ordering::SeqCst) + 1;
            p.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(2)).await;
            r.fetch_sub(1, Ordering::SeqCst);
            Ok::<_, ()>(())
        }
    });
    let service = LimitLayer::new(l.clone()).layer(slow);
    let tasks: Vec<_> = (0..200)
        .map(|_| tokio::spawn(service.clone().oneshot(())))
        .collect();
    let mut shed = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => {}
            Err(LimitError::Shed(_)) => shed += 1,
            Err(LimitError::Inner(())) => unreachable!(),
        }
    }
    let s = l.stats();
    assert!(peak.load(Ordering::SeqCst) <= LIMIT);
    assert_eq!((s.in_flight, s.shed[0]), (0, shed));
    assert_eq!(s.succeeded + shed, 200);
}

#[tokio::test]
async fn a_call_is_admitted_when_the_limiter_frees_after_poll_ready() {
    let l = limiter(2);
    let echo = service_fn(|x: u32| async move { Ok::<_, ()>(x) });
    let mut service = LimitLayer::new(l.clone()).layer(echo);
    // Polled ready while the limiter is full...
    let held: Vec<_> = (0..2).map(|_| l.try_acquire_owned().unwrap()).collect();
    service.ready().await.unwrap();
    // ...and called once it is idle: admitted and served.
    drop(held);
    assert_eq!(l.in_flight(), 0);
    assert_eq!(service.call(7).await.unwrap(), 7);
    let s = l.stats();
    assert_eq!((s.in_flight, s.succeeded, s.shed), (0, 1, [0; 3]));
}

#[tokio::test]
async fn a_ready_service_holds_no_permit_and_each_refused_call_sheds_once() {
    let l = limiter(1);
    let echo = service_fn(|x: u32| async move { Ok::<_, ()>(x) });
    let mut a = LimitLayer::new(l.clone()).layer(echo);
    let mut b = a.clone();
    // Both ready and not called (a balancer's ready cache): nothing held,
    // nothing shed.
    a.ready().await.unwrap();
    b.ready().await.unwrap();
    tokio::task::yield_now().await;
    assert_eq!((l.in_flight(), l.stats().shed), (0, [0; 3]));
    // `a`'s call takes the only permit; each of `b`'s calls is refused and
    // counted once, its readiness not at all.
    let first = a.call(1);
    assert_eq!(l.in_flight(), 1);
    for n in 1..=3 {
        b.ready().await.unwrap();
        b.ready().await.unwrap();
        assert_eq!(l.stats().shed[0], n - 1);
        assert!(matches!(b.call(2).await, Err(LimitError::Shed(_))));
        assert_eq!(l.stats().shed[0], n);
    }
    assert_eq!(first.await.unwrap(), 1);
    // Ready again and dropped uncalled: not a refusal.
    b.ready().await.unwrap();
    drop(b);
    let s = l.stats();
    assert_eq!(
        (s.in_flight, s.admitted, s.succeeded, s.shed),
        (0, 1, 1, [3, 0, 0])
    );
}

#[test]
#[should_panic(expected = "before poll_ready reported ready")]
fn call_without_poll_ready_panics() {
    let echo = service_fn(|x: u32| async move { Ok::<_, ()>(x) });
    let mut service = LimitLayer::new(limiter(1)).layer(echo);
    let _response = service.call(1);
}

#[test]
#[should_panic(expected = "before poll_ready reported ready")]
fn readiness_counts_for_one_call() {
    let echo = service_fn(|x: u32| async move { Ok::<_, ()>(x) });
    let mut service = LimitLayer::new(limiter(4)).layer(echo);
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    assert!(matches!(service.poll_ready(&mut cx), Poll::Ready(Ok(()))));
    let _first = service.call(1);
    let _second = service.call(2);
}
