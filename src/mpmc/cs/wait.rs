//! Waiting on the critical-section ring (feature `async`): [`Ring::push`]
//! and [`Ring::pop`], their futures [`Push`] and [`Pop`], and the wake-ups
//! the ring's other operations send them.
//!
//! # Model
//!
//! The waiters live in the ring's state, behind the same critical section
//! as the items: per side (tasks waiting for an item, tasks waiting for
//! room) a mask word whose bit `i` says that cell `i` is owned by a waiting
//! future, and four cells of `Option<Waker>`. A fifth concurrent waiter on
//! a side finds every cell taken and polls (it wakes itself and returns
//! `Pending`) until one is free, as on [`mpmc::Ring`](crate::mpmc::Ring). A
//! pending future that is leaked (`mem::forget`) keeps its cell for good.
//!
//! # Protocol
//!
//! A waiter (the future's `poll`), in **one** critical section: tries the
//! operation; if it cannot proceed, owns a cell (sets its bit) and, if the
//! cell already holds a waker that wakes this task, returns `Pending`.
//! Otherwise it clones the waker *outside* the critical section and, in a
//! second one, tries the operation again and, if it still cannot proceed,
//! stores the clone in its cell and returns `Pending`.
//!
//! Every operation that lets the other side proceed (a push that stored an
//! item, a pop that took one, the close) checks, in **the same** critical
//! section as its change, whether that side's mask is zero. Only if it is
//! not does it, after the section, take the wakers out in another one and
//! wake them outside it.
//!
//! **Why no wake-up is lost, without any fence.** A waiter's last check and
//! its registration are one critical section, and so are a notifier's
//! change and its mask check. Critical sections exclude each other, so one
//! of the two comes entirely first. If the waiter's does, the notifier sees
//! its bit, and the waker stored there (or a newer one of the same future;
//! if the future completed meanwhile it cleared its bit and needs no wake).
//! If the notifier's does, the waiter's check sees the item, the room or
//! the close. This needs only what `critical-section`'s contract gives
//! every user: that a critical section sees every write made in the ones
//! before it. On a single core with interrupts masked (cortex-m's
//! `critical-section-single-core`) that is program order on the one core:
//! the implementation's compiler fences stop the compiler from moving
//! accesses across the masking, and one core sees its own writes in order.
//! On multi-core implementations (a hardware spinlock as on the RP2040, or
//! the `std` implementation's mutex on a host) the lock's acquire and
//! release order the accesses across cores. In both, the Dekker pattern
//! that needs `SeqCst` fences on [`mpmc::Ring`](crate::mpmc::Ring) (each
//! side stores, then loads what the other stores) cannot arise: the store
//! and the load of each side are in one section, and the sections are
//! totally ordered.
//!
//! No waker code runs inside a critical section: the clone, the wakes and
//! the drop of a replaced or given-up waker all run after the section that
//! moved it (`Waker::will_wake`, a comparison of two pointers, is the only
//! waker method called inside one).
//!
//! **Cost when nobody waits.** A load of the mask, a test and a branch
//! inside the critical section the operation takes anyway; no fence and no
//! second section (`BENCHMARKS.md` has the counts).
//!
//! # Not modelled by loom
//!
//! The ring's mutual exclusion comes from `critical_section::with`, which
//! the test binaries link to `critical-section`'s `std` implementation (a
//! `std::sync::Mutex`, invisible to loom), and a binary can link only one
//! implementation. So there is no loom model of this protocol; the argument
//! above rests on the critical sections alone, and `tests/wait_cs.rs` checks
//! it on threads, under Miri too.

use super::{Ring, State};
use crate::wait::{Registration, Side};
use crate::Closed;
use core::{
    future::Future,
    pin::Pin,
    task::{Context, Poll, Waker},
};

/// Waker cells per side.
const K: usize = 4;

/// The waker cells: per side (`Side as usize`), cell `i` belongs to the
/// future that owns bit `i` of `State::wait_masks`, and is `None` unless
/// that future stored a waker not taken by a wake since.
pub(super) struct Cells([[Option<Waker>; K]; 2]);

impl Cells {
    pub(super) const fn new() -> Self {
        Self([const { [const { None }; K] }; 2])
    }
}

/// A waiter's critical section, answered.
enum Step<O> {
    /// The operation went through (or the ring is closed): the output, and
    /// the waker its cell held, to drop outside.
    Done(O, Option<Waker>),
    /// The cell holds a waker that wakes this task: `Pending`.
    Wait,
    /// Every cell is taken: wake at once and `Pending`.
    Poll,
    /// The future owns a cell, to be filled with a clone of its waker.
    NeedWaker,
}

impl<T, const N: usize> State<T, N> {
    /// Whether a future waits on `side` (the notifiers' check).
    #[inline(always)]
    pub(super) fn waiting(&self, side: Side) -> bool {
        self.wait_masks[side as usize] != 0
    }

    /// Gives up the cell `reg` owns, if any; returns its waker (to drop
    /// after the critical section).
    fn disarm(&mut self, side: Side, reg: &mut Registration) -> Option<Waker> {
        let old = match *reg {
            Registration::Cell(i) => {
                self.wait_masks[side as usize] &= !(1 << i);
                self.wakers.0[side as usize][i].take()
            }
            _ => None,
        };
        *reg = Registration::None;
        old
    }

    /// Owns a cell for `reg` unless it does already; says whether its
    /// waker is in place.
    fn arm(&mut self, side: Side, reg: &mut Registration, waker: &Waker) -> Step<()> {
        if let Registration::Cell(i) = *reg {
            return match &self.wakers.0[side as usize][i] {
                Some(w) if w.will_wake(waker) => Step::Wait,
                _ => Step::NeedWaker,
            };
        }
        let free = !self.wait_masks[side as usize] & ((1 << K) - 1);
        if free == 0 {
            *reg = Registration::Polling;
            return Step::Poll;
        }
        let i = free.trailing_zeros() as usize;
        self.wait_masks[side as usize] |= 1 << i;
        *reg = Registration::Cell(i);
        Step::NeedWaker
    }
}

impl<T, const N: usize> Ring<T, N> {
    /// Runs `f` in one critical section; if `progressed` says its result
    /// lets tasks of `side` proceed, checks in the same section whether any
    /// wait there, and wakes them after it.
    #[inline(always)]
    pub(super) fn with_notify<R>(
        &self,
        side: Side,
        f: impl FnOnce(&mut State<T, N>) -> R,
        progressed: impl FnOnce(&R) -> bool,
    ) -> R {
        let (out, waiting) = self.with(|s| {
            let out = f(s);
            let waiting = progressed(&out) && s.waiting(side);
            (out, waiting)
        });
        if waiting {
            self.wake(side);
        }
        out
    }

    /// After the close: wakes every waiting task.
    #[inline]
    pub(super) fn close_and_wake(&self) -> bool {
        let (was_open, waiting) = self.with(|s| {
            let was_open = s.close();
            (was_open, s.waiting(Side::Item) || s.waiting(Side::Room))
        });
        if waiting {
            self.wake(Side::Item);
            self.wake(Side::Room);
        }
        was_open
    }

    /// Takes the wakers of `side` out in one critical section and wakes
    /// them after it. The owners keep their cells (their bits) until they
    /// complete or are dropped.
    #[cold]
    #[inline(never)]
    fn wake(&self, side: Side) {
        let taken: [Option<Waker>; K] =
            self.with(|s| core::array::from_fn(|i| s.wakers.0[side as usize][i].take()));
        for w in taken.into_iter().flatten() {
            w.wake();
        }
    }

    /// One poll of a waiter of `side` (the module's protocol): `op` tries
    /// the operation (`None`: it must wait); a result for which
    /// `progressed` is true wakes the other side's waiters.
    fn poll_wait<O>(
        &self,
        side: Side,
        reg: &mut Registration,
        waker: &Waker,
        mut op: impl FnMut(&mut State<T, N>) -> Option<O>,
        progressed: impl Fn(&O) -> bool,
    ) -> Poll<O> {
        let other = match side {
            Side::Item => Side::Room,
            Side::Room => Side::Item,
        };
        let done = |step: &Step<O>| matches!(step, Step::Done(out, _) if progressed(out));
        let first = self.with_notify(
            other,
            |s| match op(s) {
                Some(out) => Step::Done(out, s.disarm(side, reg)),
                None => match s.arm(side, reg, waker) {
                    Step::Wait => Step::Wait,
                    Step::Poll => Step::Poll,
                    _ => Step::NeedWaker,
                },
            },
            done,
        );
        match first {
            Step::Done(out, old) => {
                drop(old);
                return Poll::Ready(out);
            }
            Step::Wait => return Poll::Pending,
            Step::Poll => {
                waker.wake_by_ref();
                return Poll::Pending;
            }
            Step::NeedWaker => {}
        }
        // Cloned outside the critical section; after the swap below `spare`
        // holds the waker it replaced, dropped outside too.
        let mut spare = Some(waker.clone());
        let second = self.with_notify(
            other,
            |s| match op(s) {
                Some(out) => Step::Done(out, s.disarm(side, reg)),
                None => {
                    if let Registration::Cell(i) = *reg {
                        core::mem::swap(&mut s.wakers.0[side as usize][i], &mut spare);
                    }
                    Step::Wait
                }
            },
            done,
        );
        drop(spare);
        match second {
            Step::Done(out, old) => {
                drop(old);
                Poll::Ready(out)
            }
            _ => Poll::Pending,
        }
    }

    /// Gives up the cell `reg` owns (a future dropped before it completed).
    fn drop_waiter(&self, side: Side, reg: &mut Registration) {
        if matches!(reg, Registration::Cell(_)) {
            drop(self.with(|s| s.disarm(side, reg)));
        }
        *reg = Registration::None;
    }
}

/// The push of a waiting future: `Some(result)` if it went through or the
/// ring is closed, `None` (the item back in `item`) if it is full.
#[inline(always)]
fn push_if_room<T, const N: usize>(
    s: &mut State<T, N>,
    item: &mut Option<T>,
) -> Option<Result<(), Closed<T>>> {
    match s.push_unless_full(item.take()?) {
        Ok(done) => Some(done),
        Err(back) => {
            *item = Some(back);
            None
        }
    }
}

crate::wait::mpmc_wait_futures!("sluicegate::mpmc::cs");

impl<T, const N: usize> Future for Push<'_, T, N> {
    type Output = Result<(), Closed<T>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        assert!(this.item.is_some(), "Push polled after it resolved");
        let item = &mut this.item;
        this.ring.poll_wait(
            Side::Room,
            &mut this.reg,
            cx.waker(),
            |s| push_if_room(s, item),
            Result::is_ok,
        )
    }
}

impl<T, const N: usize> Future for Pop<'_, T, N> {
    type Output = Option<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = &mut *self;
        this.ring.poll_wait(
            Side::Item,
            &mut this.reg,
            cx.waker(),
            |s| match s.pop() {
                Some(v) => Some(Some(v)),
                None if s.is_closed() => Some(None),
                None => None,
            },
            Option::is_some,
        )
    }
}

impl<T, const N: usize> Drop for Push<'_, T, N> {
    fn drop(&mut self) {
        self.ring.drop_waiter(Side::Room, &mut self.reg);
    }
}

impl<T, const N: usize> Drop for Pop<'_, T, N> {
    fn drop(&mut self) {
        self.ring.drop_waiter(Side::Item, &mut self.reg);
    }
}
