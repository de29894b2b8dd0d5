//! Wakers whose `clone`, `drop` or `wake` panics (an executor's code, run
//! by the rings' waits): the panic reaches the caller, and leaves no wait
//! cell locked and no other waiter asleep. Each test polls futures by hand
//! with wakers that count their wakes.
#![cfg(all(feature = "async", not(sluicegate_loom)))]

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Once};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

use sluicegate::mpmc::burst_ring::{BurstRing, Marked};
use sluicegate::{mpmc, spsc};

/// The payload of the tests' panics (kept out of the test output).
struct Boom;

fn quiet() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Boom>() {
                default(info)
            }
        }))
    });
}

fn expect_boom(f: impl FnOnce()) {
    quiet();
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("the waker's panic reaches the caller");
    assert!(err.is::<Boom>());
}

/// A waker's behaviour: it counts its wakes, and panics on its next clone
/// or drop when told, or on every wake.
#[derive(Default)]
struct Spec {
    wakes: AtomicUsize,
    panic_clone: AtomicBool,
    panic_drop: AtomicBool,
    panic_wake: bool,
}

impl Spec {
    fn new(panic_wake: bool) -> Arc<Self> {
        Arc::new(Spec {
            panic_wake,
            ..Spec::default()
        })
    }
    fn waker(self: &Arc<Self>) -> Waker {
        let p = Arc::into_raw(self.clone()).cast::<()>();
        // SAFETY: `p` is a strong count of an `Arc<Spec>`, which `VTABLE`
        // takes over.
        unsafe { Waker::from_raw(RawWaker::new(p, &VTABLE)) }
    }
    fn wakes(&self) -> usize {
        self.wakes.load(Ordering::SeqCst)
    }
}

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

unsafe fn clone(p: *const ()) -> RawWaker {
    // SAFETY: every waker of `VTABLE` holds a strong count of its `Spec`.
    let spec = unsafe { &*p.cast::<Spec>() };
    if spec.panic_clone.swap(false, Ordering::SeqCst) {
        std::panic::panic_any(Boom);
    }
    // SAFETY: as above; the clone takes a count of its own.
    unsafe { Arc::increment_strong_count(p.cast::<Spec>()) };
    RawWaker::new(p, &VTABLE)
}

unsafe fn wake(p: *const ()) {
    // SAFETY: the waker's own count, given up here.
    let spec = unsafe { Arc::from_raw(p.cast::<Spec>()) };
    spec.wakes.fetch_add(1, Ordering::SeqCst);
    let panics = spec.panic_wake;
    drop(spec);
    if panics {
        std::panic::panic_any(Boom);
    }
}

unsafe fn wake_by_ref(p: *const ()) {
    // SAFETY: as in `clone`.
    let spec = unsafe { &*p.cast::<Spec>() };
    spec.wakes.fetch_add(1, Ordering::SeqCst);
    if spec.panic_wake {
        std::panic::panic_any(Boom);
    }
}

unsafe fn drop_waker(p: *const ()) {
    // SAFETY: the waker's own count, given up here.
    let spec = unsafe { Arc::from_raw(p.cast::<Spec>()) };
    let panics = spec.panic_drop.swap(false, Ordering::SeqCst);
    drop(spec);
    if panics {
        std::panic::panic_any(Boom);
    }
}

fn poll<F: Future + ?Sized>(f: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    f.poll(&mut Context::from_waker(waker))
}

/// An SPSC wait whose waker's clone panics: the panic leaves the side's
/// cell free, so the next wait sleeps (no wake of its own) until the other
/// side wakes it.
#[test]
fn spsc_waits_after_a_panicking_clone() {
    let mut ring: spsc::Ring<u32, 2> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    let bad = Spec::new(false);
    bad.panic_clone.store(true, Ordering::SeqCst);
    let bad_waker = bad.waker();
    expect_boom(|| {
        let _ = poll(std::pin::pin!(rx.pop()), &bad_waker);
    });
    let good = Spec::new(false);
    let good_waker = good.waker();
    let mut pop = Box::pin(rx.pop());
    assert!(poll(pop.as_mut(), &good_waker).is_pending());
    assert_eq!(
        good.wakes(),
        0,
        "a waiter that wakes itself: the cell is stuck"
    );
    tx.try_push(7).unwrap();
    assert_eq!(good.wakes(), 1, "the push woke nobody");
    assert_eq!(poll(pop.as_mut(), &good_waker), Poll::Ready(Some(7)));
    drop(pop);

    // The producer's side, the same way.
    tx.try_push(1).unwrap();
    tx.try_push(2).unwrap();
    bad.panic_clone.store(true, Ordering::SeqCst);
    expect_boom(|| {
        let _ = poll(std::pin::pin!(tx.push(3)), &bad_waker);
    });
    let mut push = Box::pin(tx.push(3));
    assert!(poll(push.as_mut(), &good_waker).is_pending());
    assert_eq!(good.wakes(), 1);
    assert_eq!(rx.try_pop(), Some(1));
    assert_eq!(good.wakes(), 2, "the pop woke nobody");
    assert_eq!(poll(push.as_mut(), &good_waker), Poll::Ready(Ok(())));
}

/// An SPSC wait that replaces a waker whose drop panics: the new waker is
/// registered and the cell left free.
#[test]
fn spsc_waits_after_a_panicking_drop_of_the_old_waker() {
    let mut ring: spsc::Ring<u32, 2> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    let old = Spec::new(false);
    let new = Spec::new(false);
    let (old_waker, new_waker) = (old.waker(), new.waker());
    let mut pop = Box::pin(rx.pop());
    assert!(poll(pop.as_mut(), &old_waker).is_pending());
    old.panic_drop.store(true, Ordering::SeqCst);
    expect_boom(|| assert!(poll(pop.as_mut(), &new_waker).is_pending()));
    assert!(poll(pop.as_mut(), &new_waker).is_pending());
    assert_eq!((old.wakes(), new.wakes()), (0, 0));
    tx.try_push(5).unwrap();
    assert_eq!((old.wakes(), new.wakes()), (0, 1));
    assert_eq!(poll(pop.as_mut(), &new_waker), Poll::Ready(Some(5)));
}

/// `WAITERS` pops wait on an empty ring, the first with a waker whose wake
/// panics; the close panics with it, after waking every other waiter (past
/// the wake lists' batches) and the drain waiters.
const WAITERS: usize = 40;

macro_rules! close_wakes_everyone_past_a_panicking_wake {
    ($name:ident, $ring:ty) => {
        #[test]
        fn $name() {
            let ring: $ring = <$ring>::new();
            let bad = Spec::new(true);
            let bad_waker = bad.waker();
            let goods: Vec<_> = (0..WAITERS).map(|_| Spec::new(false)).collect();
            let wakers: Vec<_> = goods.iter().map(Spec::waker).collect();
            let mut first = Box::pin(ring.pop());
            assert!(poll(first.as_mut(), &bad_waker).is_pending());
            let mut pops: Vec<_> = (0..WAITERS).map(|_| Box::pin(ring.pop())).collect();
            for (pop, waker) in pops.iter_mut().zip(&wakers) {
                assert!(poll(pop.as_mut(), waker).is_pending());
            }
            expect_boom(|| {
                ring.close();
            });
            assert_eq!(bad.wakes(), 1);
            for ((pop, waker), good) in pops.iter_mut().zip(&wakers).zip(&goods) {
                assert_eq!(good.wakes(), 1, "a waiter asleep after the close");
                assert_eq!(poll(pop.as_mut(), waker), Poll::Ready(None));
            }
        }
    };
}

close_wakes_everyone_past_a_panicking_wake!(mpmc_ring_close, mpmc::Ring<u32, 4>);
#[cfg(feature = "critical-section")]
close_wakes_everyone_past_a_panicking_wake!(mpmc_cs_ring_close, mpmc::cs::Ring<u32, 4>);
close_wakes_everyone_past_a_panicking_wake!(burst_ring_close, BurstRing<u32, 4, 1>);

/// A full ring with marks: a push waits (its wake panics) and a producer
/// waits for the drain; the close wakes the drain waiter too.
macro_rules! close_wakes_the_drain_past_a_panicking_push_wake {
    ($name:ident, $ring:ty, $new:expr) => {
        #[test]
        fn $name() {
            let ring: $ring = $new;
            while ring.try_push(0).is_ok() {}
            let bad = Spec::new(true);
            let good = Spec::new(false);
            let (bad_waker, good_waker) = (bad.waker(), good.waker());
            let mut push = Box::pin(ring.push(1));
            assert!(poll(push.as_mut(), &bad_waker).is_pending());
            let mut drain = Box::pin(ring.wait_below_low());
            assert!(poll(drain.as_mut(), &good_waker).is_pending());
            expect_boom(|| {
                ring.close();
            });
            assert_eq!(good.wakes(), 1, "the drain waiter asleep after the close");
            assert!(matches!(
                poll(drain.as_mut(), &good_waker),
                Poll::Ready(Err(_))
            ));
        }
    };
}

close_wakes_the_drain_past_a_panicking_push_wake!(
    mpmc_ring_drain,
    mpmc::Ring<u32, 4, mpmc::FreeIndices<4>, mpmc::Marked>,
    mpmc::Ring::with_watermarks(1, 3)
);
#[cfg(feature = "critical-section")]
close_wakes_the_drain_past_a_panicking_push_wake!(
    mpmc_cs_ring_drain,
    mpmc::cs::Ring<u32, 4, mpmc::cs::Marked>,
    mpmc::cs::Ring::with_watermarks(1, 3)
);
close_wakes_the_drain_past_a_panicking_push_wake!(
    burst_ring_drain,
    BurstRing<u32, 4, 1, Marked>,
    BurstRing::with_watermarks(1, 3)
);
