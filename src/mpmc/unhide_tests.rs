//! The late-miss look wakes the side it unhides ("Late misses" in `scq`'s
//! docs): a task told "empty" (or "full") while a context sat between its
//! crossing and its look is woken by the look's reset, whichever operation
//! made the crossing.
//!
//! Each test scripts one schedule with [`interleave_at`]: three
//! operations on a ring of one slot miss and stop before their decrements
//! of `threshold`, an item (or a free slot) is placed past them, the
//! decrements take `threshold` to -1, and the crossing context is stopped
//! before its reset while a waiting task polls and is told to wait.

extern crate std;

use super::Ring;
use crate::sync::pause::{self, interleave_at, TEST_BETWEEN};
use crate::sync::{pause_point, Point};
use crate::wait::pause_tests::Count;
use core::future::Future;
use core::task::{Context, Poll};
use std::boxed::Box;
use std::sync::Mutex;
use std::vec::Vec;

type R = Ring<u32, 1>;

/// One step of a script for [`interleave_at`].
#[derive(Clone, Copy)]
enum Step {
    /// Runs worker `w` at least one step, until it stands at the point.
    To(usize, Point),
    /// Runs worker `w` to its end.
    Done(usize),
}

use Step::{Done, To};

/// The `pick` that plays `script`; panics if a worker ends before the
/// point a step names (the schedule did not happen).
fn scripted(
    script: &[Step],
) -> impl FnMut(&[usize], Option<usize>, &[Option<Point>]) -> usize + '_ {
    let mut at = 0;
    let mut moved = false;
    move |live, _, points| loop {
        match script.get(at) {
            None => return live[0],
            Some(&To(w, p)) => {
                assert!(live.contains(&w), "worker {w} ended before {p:?}");
                if moved && points[w] == Some(p) {
                    (at, moved) = (at + 1, false);
                    continue;
                }
                moved = true;
                return w;
            }
            Some(&Done(w)) => {
                if live.contains(&w) {
                    return w;
                }
                at += 1;
            }
        }
    }
}

/// Runs workers 0 to 3 (`crossing`, two `refused`, `enabler`) and worker
/// 4, a task that polls `wait` once (it must pend), stops at
/// [`TEST_BETWEEN`], and polls again; plays `script`. Returns how many
/// times the task was woken between its polls and what its second poll
/// answered.
fn run<F: Future>(
    crossing: &(dyn Fn() + Sync),
    refused: &(dyn Fn() + Sync),
    enabler: &(dyn Fn() + Sync),
    wait: impl FnOnce() -> F + Send,
    script: &[Step],
) -> (usize, Poll<F::Output>)
where
    F::Output: Send,
{
    let (count, waker) = Count::waker();
    let seen = Mutex::new(None);
    let waiter = || {
        let mut fut = core::pin::pin!(wait());
        let mut cx = Context::from_waker(&waker);
        assert!(fut.as_mut().poll(&mut cx).is_pending(), "told to wait");
        pause_point(TEST_BETWEEN);
        let woken = count.wakes();
        *seen.lock().unwrap() = Some((woken, fut.as_mut().poll(&mut cx)));
    };
    let workers: Vec<Box<dyn FnOnce() + Send + '_>> = std::vec![
        Box::new(crossing),
        Box::new(refused),
        Box::new(refused),
        Box::new(enabler),
        Box::new(waiter),
    ];
    interleave_at(workers, scripted(script));
    let seen = seen.lock().unwrap().take();
    seen.expect("the waiter ran")
}

/// A ring of one slot whose `aq` took one index in and out: `threshold`
/// is `3N - 1 = 2`, so pops on the empty ring take positions.
fn used_ring() -> R {
    let r = R::new();
    r.try_push(1).unwrap();
    assert_eq!(r.try_pop(), Some(1));
    r
}

/// The pause points of the index ring of one side: `aq` (pops) or `fq`
/// (pushes).
struct Points {
    dry: Point,
    ticket: Point,
    missed: Point,
    unhide: Point,
}

const AQ: Points = Points {
    dry: pause::MPMC_AQ_DEQ_DRY,
    ticket: pause::MPMC_AQ_ENQ_TICKET,
    missed: pause::MPMC_AQ_DEQ_MISSED,
    unhide: pause::MPMC_AQ_DEQ_UNHIDE,
};

const FQ: Points = Points {
    dry: pause::MPMC_FQ_DEQ_DRY,
    ticket: pause::MPMC_FQ_ENQ_TICKET,
    missed: pause::MPMC_FQ_DEQ_MISSED,
    unhide: pause::MPMC_FQ_DEQ_UNHIDE,
};

/// The hiding schedule on `side`. The crossing (worker 0) is a single
/// operation stopped after its dry miss as the two refused ones are, or
/// (`burst`) a burst, which takes a position only while the enabler
/// (worker 3) holds one ahead of `head`: the enabler stops after its
/// third ticket (the first two spoilt by the stopped operations), the
/// burst misses there, and the enabler places its index one further.
fn hiding(side: &Points, burst: bool) -> Vec<Step> {
    let mut s = Vec::new();
    if !burst {
        s.push(To(0, side.dry));
    }
    s.extend([To(1, side.dry), To(2, side.dry)]);
    if burst {
        s.extend([
            To(3, side.ticket),
            To(3, side.ticket),
            To(3, side.ticket),
            To(0, side.missed),
        ]);
    }
    s.extend([
        Done(3),
        Done(2),
        Done(1),
        To(0, side.unhide),
        To(4, TEST_BETWEEN),
        Done(0),
        Done(4),
    ]);
    s
}

/// Worker 0 makes the crossing with `crossing`, a single pop stopped
/// after its dry miss; the waiter is `pop()`.
fn single_pop_crossing(crossing: &(dyn Fn(&R) + Sync)) -> (usize, Poll<Option<u32>>) {
    let r = &used_ring();
    let script = hiding(&AQ, false);
    run(
        &|| crossing(r),
        &|| assert_eq!(r.try_pop(), None),
        &|| r.try_push(7).unwrap(),
        || r.pop(),
        &script,
    )
}

#[test]
fn the_look_of_a_try_pop_wakes_a_waiting_pop() {
    let (woken, again) = single_pop_crossing(&|r| assert_eq!(r.try_pop(), None));
    assert!(woken > 0, "7 was found again, the waiting pop never woken");
    assert_eq!(again, Poll::Ready(Some(7)));
}

#[test]
fn the_look_of_a_waiting_pop_wakes_the_others() {
    let (woken, again) = single_pop_crossing(&|r| {
        let waker = futures::task::noop_waker();
        let mut pop = core::pin::pin!(r.pop());
        let got = pop.as_mut().poll(&mut Context::from_waker(&waker));
        // The crossing's own poll registers after its try: its re-check
        // (the look has reset) finds 7.
        assert_eq!(got, Poll::Ready(Some(7)));
    });
    assert!(woken > 0);
    assert_eq!(again, Poll::Pending, "the crossing pop took 7");
}

/// A burst pop as the crossing (see [`hiding`]).
#[test]
fn the_look_of_a_pop_burst_wakes_a_waiting_pop() {
    let r = &used_ring();
    let script = hiding(&AQ, true);
    let (woken, again) = run(
        &|| assert_eq!(r.pop_burst(&mut [0; 1]), 0),
        &|| assert_eq!(r.try_pop(), None),
        &|| r.try_push(7).unwrap(),
        || r.pop(),
        &script,
    );
    assert!(woken > 0, "7 was found again, the waiting pop never woken");
    assert_eq!(again, Poll::Ready(Some(7)));
}

/// The free side: a full ring of one slot, pushes stopped after their dry
/// misses on `fq`, a pop frees the slot past them, and the crossing push
/// (worker 0, `crossing`) stops at its reset; the waiter is `push(9)`.
fn single_push_crossing(crossing: &(dyn Fn(&R) + Sync)) -> (usize, Poll<Result<(), u32>>) {
    let r = &used_ring();
    r.try_push(2).unwrap();
    let script = hiding(&FQ, false);
    let (woken, again) = run(
        &|| crossing(r),
        &|| assert!(r.try_push(3).is_err()),
        &|| assert_eq!(r.try_pop(), Some(2)),
        || r.push(9),
        &script,
    );
    (woken, again.map(|done| done.map_err(|e| e.0)))
}

#[test]
fn the_look_of_a_try_push_wakes_a_waiting_push() {
    let (woken, again) = single_push_crossing(&|r| assert!(r.try_push(3).is_err()));
    assert!(
        woken > 0,
        "the slot was found again, the waiting push never woken"
    );
    assert_eq!(again, Poll::Ready(Ok(())));
}

#[test]
fn the_look_of_a_push_iter_wakes_a_waiting_push() {
    let (woken, again) = single_push_crossing(&|r| assert_eq!(r.push_iter([3]), 0));
    assert!(
        woken > 0,
        "the slot was found again, the waiting push never woken"
    );
    assert_eq!(again, Poll::Ready(Ok(())));
}

#[test]
fn the_look_of_an_overwrite_wakes_a_waiting_push() {
    // The overwrite finds nothing to evict and takes the slot on its
    // second try, so the woken push finds the ring full again.
    let (woken, again) = single_push_crossing(&|r| assert!(r.push_overwrite(3).is_stored()));
    assert!(
        woken > 0,
        "the slot was found again, the waiting push never woken"
    );
    assert_eq!(again, Poll::Pending);
}

#[test]
fn the_look_of_a_waiting_push_wakes_the_others() {
    let (woken, again) = single_push_crossing(&|r| {
        let waker = futures::task::noop_waker();
        let mut push = core::pin::pin!(r.push(3));
        let got = push.as_mut().poll(&mut Context::from_waker(&waker));
        assert!(matches!(got, Poll::Ready(Ok(()))), "its re-check pushes");
    });
    assert!(woken > 0);
    assert_eq!(again, Poll::Pending, "the crossing push took the slot");
}

/// A burst push as the crossing: the pop that frees the slot is the
/// enabler (see [`hiding`]).
#[test]
fn the_look_of_a_push_burst_wakes_a_waiting_push() {
    let r = &used_ring();
    r.try_push(2).unwrap();
    let script = hiding(&FQ, true);
    let (woken, again) = run(
        &|| assert_eq!(r.push_burst(&[3]), 0),
        &|| assert!(r.try_push(3).is_err()),
        &|| assert_eq!(r.try_pop(), Some(2)),
        || r.push(9),
        &script,
    );
    assert!(
        woken > 0,
        "the slot was found again, the waiting push never woken"
    );
    assert!(matches!(again, Poll::Ready(Ok(()))));
}
