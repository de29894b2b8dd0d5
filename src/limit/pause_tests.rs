//! A thread stopped at each pause point inside the limiter while another
//! one admits, releases or cuts: admission never exceeds the limit in force,
//! a window cuts or grows once, and counters that wrap are not misread.

extern crate std;

use super::tests::{config, fixed, gradient};
use super::*;
use crate::sync::pause::{self, stop_at};

/// Check-then-increment admits over the limit (Netflix concurrency-limits
/// #140/#234): here the admission CAS sees the slot was taken and re-checks.
#[test]
fn check_then_increment_netflix_140_cannot_admit_over_limit() {
    let l = &fixed(2);
    let held = l.try_acquire().unwrap();
    let mut taken = None;
    let got = stop_at(
        pause::LIMIT_ADMIT,
        move || l.try_acquire().map(|p| p.ignore()).is_some(),
        || {
            taken = l.try_acquire();
        },
    );
    assert!(!got, "admitted a third permit under a limit of 2");
    assert!(taken.is_some());
    assert_eq!(l.in_flight(), 2);
    drop((held, taken));
    assert_eq!(l.in_flight(), 0);
}

/// A cut between the admission check and its CAS: the CAS compares the
/// limit it checked, so it re-checks against the lower limit and sheds.
#[test]
fn cut_racing_admission_uses_the_limit_in_force() {
    let c = LimiterConfig {
        backoff: 128,
        ..gradient(1, 3, 3)
    };
    let l = &Limiter::try_new(c).unwrap();
    let a = l.try_acquire().unwrap();
    let b = l.try_acquire().unwrap();
    let got = stop_at(
        pause::LIMIT_ADMIT,
        move || l.try_acquire().map(|p| p.ignore()).is_some(),
        || {
            b.dropped(); // in flight 2 → 1, limit 3 → 1
        },
    );
    assert_eq!(l.limit(), 1);
    assert!(!got, "admitted with in-flight 2 over a limit of 1");
    drop(a);
    assert_eq!(l.in_flight(), 0);
}

/// Two overload signals from one window racing: the second CAS sees the
/// epoch moved and gives up.
#[test]
fn concurrent_drops_from_one_window_cut_once() {
    let l = &Limiter::try_new(gradient(1, 100, 100)).unwrap();
    let a = l.try_acquire().unwrap();
    let b = l.try_acquire().unwrap();
    stop_at(pause::LIMIT_CUT, move || a.dropped(), || b.dropped());
    assert_eq!(l.limit(), 89);
    assert_eq!(l.stats().decreases, 1);
}

/// A thread preempted between reading the word and reading `released`,
/// while more than 2^ADMITTED_BITS permits come and go, must not mistake the
/// wrapped difference for a small in-flight count. (The wide layout's
/// field takes 2^32 admissions: this runs with the narrow one, on 32-bit
/// targets or with `--cfg sluicegate_narrow_word`, as `ci/test.sh` does.)
#[test]
#[cfg(any(target_pointer_width = "32", sluicegate_narrow_word))]
fn preempted_between_loads_across_a_counter_wrap_cannot_admit_over_limit() {
    let l = &fixed(2);
    let mut held = std::vec::Vec::new();
    let got = stop_at(
        pause::LIMIT_BETWEEN_LOADS,
        move || l.try_acquire().map(|p| p.ignore()).is_some(),
        || {
            // 2^ADMITTED_BITS − 2 cycles, then 2 held: the admitted field is
            // back where the paused thread saw it (mod 2^ADMITTED_BITS).
            for _ in 0..ADMITTED_MASK - 1 {
                drop(l.try_acquire().unwrap());
            }
            held.push(l.try_acquire().unwrap());
            held.push(l.try_acquire().unwrap());
        },
    );
    assert!(!got, "admitted a third permit under a limit of 2");
    assert_eq!(l.in_flight(), 2);
    drop(held);
    assert_eq!(l.in_flight(), 0);
}

#[test]
fn succeeded_count_survives_released_counter_wrap() {
    // Found by the `limit` fuzz target when `succeeded` was derived as
    // `released − dropped − ignored` with a saturating subtraction: it read
    // 0 once `released` wrapped while the outcome counters had not. Now each
    // outcome has its own release counter and `in_flight` is derived from
    // their wrapping sum: the counters wrap one at a time here, and every
    // figure stays exact across each wrap.
    let start = usize::MAX - 1;
    let aimd = Limiter::with_start(LimiterConfig::DEFAULT, 0, start).unwrap();
    let held = aimd.try_acquire().unwrap();
    for _ in 0..3 {
        aimd.try_acquire().unwrap().ignore();
    }
    // `ignored` has wrapped to 1; no success yet.
    let s = aimd.stats();
    assert_eq!(s.ignored, 1);
    assert_eq!(s.succeeded, start);
    assert_eq!((s.in_flight, aimd.in_flight()), (1, 1));
    for _ in 0..2 {
        aimd.try_acquire().unwrap().success(10);
    }
    let s = aimd.stats();
    assert_eq!(s.succeeded, 0);
    assert_eq!(s.dropped, start);
    assert_eq!(s.ignored, 1);
    assert_eq!(s.in_flight, 1);
    assert_eq!(s.admitted, start.wrapping_mul(3).wrapping_add(6));
    held.dropped();
    let s = aimd.stats();
    assert_eq!((s.dropped, s.in_flight), (start.wrapping_add(1), 0));
    assert_eq!(
        s.admitted,
        s.succeeded.wrapping_add(s.dropped).wrapping_add(s.ignored)
    );
}

/// A success that closes a growth window, stopped before its grow CAS while
/// overload signals of the same epoch cut: the grow CAS then sees the epoch
/// moved and gives up, so the cut is not undone by a stale growth.
#[test]
fn growth_racing_a_cut_gives_up() {
    let l = &Limiter::try_new(config(1, 3, 10)).unwrap();
    // 15 successes of a window of 16, each beside a held permit.
    let anchor = l.try_acquire().unwrap();
    for _ in 0..15 {
        l.try_acquire().unwrap().success(10);
    }
    let closing = l.try_acquire().unwrap(); // admitted with 2 in flight
    stop_at(
        pause::LIMIT_GROW,
        move || closing.success(10),
        move || {
            // 9 drops: the majority of a window of 16.
            for _ in 0..9 {
                l.try_acquire().unwrap().dropped();
            }
        },
    );
    // 3 cut to floor(3 * 230 / 256) = 2, and not grown back to 3.
    assert_eq!(l.limit(), 2);
    let s = l.stats();
    assert_eq!((s.decreases, s.increases), (1, 0));
    drop(anchor);
    assert_eq!(l.in_flight(), 0);
}

/// A release that wakes a waiter while that waiter is polled again (its
/// first try failed, and it is stopped before it takes the list's lock),
/// whose permit a request that does not wait then takes: the poll serves
/// the wake, finds nothing and waits again in its place, first of its
/// class, so the next release wakes it again. A and B wait, in that order;
/// the one polled again is the one a release wakes first (A under FIFO,
/// B under LIFO; A under adaptive LIFO, with 2 of a backlog of 100).
#[cfg(feature = "async")]
#[test]
fn a_wake_during_a_poll_keeps_the_waiters_place() {
    use super::BacklogOrder;
    use crate::wait::pause_tests::Count;
    use core::future::Future;
    use core::task::Context;
    use std::boxed::Box;

    for order in [
        BacklogOrder::Fifo,
        BacklogOrder::Lifo,
        BacklogOrder::Adaptive,
    ] {
        let l = &Limiter::try_new(LimiterConfig {
            backlog_order: order,
            ..config(1, 1, 1)
        })
        .unwrap();
        let held = l.try_acquire().unwrap();
        let (ca, wa) = Count::waker();
        let (cb, wb) = Count::waker();
        let mut a = Box::pin(l.acquire(Priority::Critical));
        let mut b = Box::pin(l.acquire(Priority::Critical));
        assert!(a.as_mut().poll(&mut Context::from_waker(&wa)).is_pending());
        assert!(b.as_mut().poll(&mut Context::from_waker(&wb)).is_pending());
        // The first to be woken, and the other.
        let (first, next) = match order {
            // Adaptive: 2 waiting of a backlog of 100, oldest first.
            BacklogOrder::Fifo | BacklogOrder::Adaptive => ((&mut a, &ca, &wa), (&mut b, &cb)),
            BacklogOrder::Lifo => ((&mut b, &cb, &wb), (&mut a, &ca)),
        };
        let (fut, count, waker) = first;
        let mut taken = None;
        let pending = stop_at(
            pause::WAIT_POLL_TRIED,
            || {
                fut.as_mut()
                    .poll(&mut Context::from_waker(waker))
                    .is_pending()
            },
            || {
                held.ignore();
                taken = l.try_acquire();
            },
        );
        assert!(pending, "{order:?}: admitted past the other request");
        assert_eq!(count.wakes(), 1, "{order:?}: the release woke it");
        taken.expect("the other request took the permit").ignore();
        assert_eq!(
            (count.wakes(), next.1.wakes()),
            (2, 0),
            "{order:?}: the next release wakes it again, not the other"
        );
        let got = fut.as_mut().poll(&mut Context::from_waker(waker));
        let core::task::Poll::Ready(Some(p)) = got else {
            panic!("{order:?}: not admitted");
        };
        p.ignore();
        assert_eq!(next.1.wakes(), 1, "{order:?}: then the other");
    }
}
