//! Waiting for a permit: [`Limiter::acquire`] (feature `async`) and
//! [`Limiter::acquire_blocking`] (feature `std`), the seeds' "block"
//! strategy beside the limiter's "shed".
//!
//! # Model
//!
//! A waiting acquire first tries as [`Limiter::try_acquire_with`] does. If
//! its class is at its threshold it joins the *backlog* (at most
//! `LimiterConfig::backlog` waiters; one more is shed at once) and waits
//! until a release wakes it, then tries again. Every release (a permit's
//! `success`, `dropped`, `ignore` or drop, from any context) wakes one
//! waiter per unit it gives back (a permit of weight `n` wakes `n`), and a
//! rise of the limit by `n` wakes `n`: the first ones of the highest class
//! that waits, the newest of that class first under
//! [`BacklogOrder::Lifo`](super::BacklogOrder::Lifo) (the default), the
//! oldest under `Fifo`, and under `Adaptive` the oldest while fewer than
//! half the backlog (rounded up) are linked, the newest from there. A
//! woken waiter that finds no permit (a `try_acquire` took it first, or
//! its class is still at its threshold)
//! keeps its place and waits again (a wake that comes while the waiter is
//! polled for another reason is served by that poll); if a unit is free
//! that its class may not take, it first wakes the first waiter of a lower
//! class, whose reserve may let it in (a `Background` waiter that holds no
//! permit while `Normal` waiters are at their share), and so on down the
//! classes. A woken waiter that is admitted and leaves a unit free wakes
//! the next waiter (the release of a permit taken on a class's reserve
//! frees that reserve as well as a unit, and its one wake may have gone to
//! a higher class). A waiter refused with nothing in flight, at a limit that admits
//! its class nothing, raises the limit by one as a fresh request would
//! (`src/limit.rs`), and the raise's wake goes to the first waiter.
//! Admission itself is unchanged: a waiter is admitted by the same one-CAS
//! step as `try_acquire`, so in flight never exceeds the limit, and a lower
//! class never takes the last permit.
//!
//! The waiters are the intrusive list of `src/wait/queue.rs` (a node in
//! each future or blocking call's frame, nothing allocated), kept in class
//! order and within a class in order of arrival: newest first under LIFO,
//! oldest first otherwise. An arriving node is linked at the front of its
//! class's nodes (LIFO) or at their back, and one whose wake found nothing
//! (also a wake that came while the waiter was polled for another reason)
//! back in its place; either walks the nodes ahead of it, at most
//! `backlog` of them, under the list's lock. A node polled again while it
//! is linked stays where it is. Under `Adaptive` a wake with half the
//! backlog linked walks the woken class's nodes to its newest.
//! A waiter that leaves (its future dropped, its timeout reached) with a
//! wake it did not use passes it on to the next node, whatever its class.
//!
//! # Progress and cost
//!
//! A waiter sleeps: nobody polls. A release stays wait-free while nobody
//! waits: after its `fetch_add` it adds one `SeqCst` fence and one load of
//! the list's count (with the feature only); with waiters it wakes them
//! without waiting for the list's lock (a request posted to the lock's
//! holder if it is held, as the rings' notifiers do). `try_acquire` is
//! unchanged.
//!
//! # Why no wake-up is lost
//!
//! The protocol of `src/wait.rs`: a waiter links its node, fences, and
//! tries again; a release writes its counter, fences, and reads the count
//! of linked nodes. Whichever fence comes first, either the release sees
//! the node and wakes a waiter, or the waiter's second try sees the release
//! and is admitted. A wake that lands on a waiter which then leaves without
//! trying is passed on; one that lands on a waiter that tries and fails was
//! used (the permit went to someone else, or the class may not take it).
//!
//! # Accounting
//!
//! `LimiterStats::queued` counts the requests that joined the backlog,
//! `timed_out` those that left it without a permit (a blocking call's
//! timeout, or a future dropped while it waited), and `backlog_peak` the
//! most waiters at once. A request refused because the backlog was full,
//! and one that timed out, also count in `shed` for their class: `shed`
//! stays the count of requests that got no permit.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

#[cfg(all(test, sluicegate_loom))]
mod loom_tests;

use super::{BacklogOrder, Limiter, Permit, Priority};
use crate::sync::{AtomicUsize, Ordering, SharedCounter};
use crate::wait::list::{Node, Wake, IN_ORDER};
use crate::wait::queue::{Adaptive, WaitList};

/// The backlog: the waiters and their counts.
pub(super) struct Waits {
    /// Every waiter, in class order (`Priority as usize`), newest or oldest
    /// first within a class.
    list: WaitList<Adaptive>,
    /// Waiters now, linked or trying: at most the backlog. Moved by a CAS
    /// on joining and a `fetch_sub` on leaving.
    now: AtomicUsize,
    queued: SharedCounter,
    timed_out: SharedCounter,
    peak: AtomicUsize,
}

impl Waits {
    crate::sync::const_fn! {
        /// The backlog of a limiter whose backlog holds `backlog` waiters
        /// served in `order`: under `Adaptive`, a wake takes the newest
        /// waiter of a class once half of `backlog` (rounded up) are
        /// linked.
        pub(super) fn new(order: BacklogOrder, backlog: u32) -> Self {
            let newest_from = match order {
                BacklogOrder::Adaptive => (backlog as usize).div_ceil(2),
                BacklogOrder::Lifo | BacklogOrder::Fifo => IN_ORDER,
            };
            Self {
                list: WaitList::with_order(Adaptive(newest_from)),
                now: AtomicUsize::new(0),
                queued: SharedCounter::new(),
                timed_out: SharedCounter::new(),
                peak: AtomicUsize::new(0),
            }
        }
    }

    /// `(queued, timed_out, backlog_peak)`.
    pub(super) fn counts(&self) -> (usize, usize, usize) {
        // Relaxed: statistics.
        (
            self.queued.get(),
            self.timed_out.get(),
            self.peak.load(Ordering::Relaxed),
        )
    }
}

impl Limiter {
    /// After `n` units came free (a release of a permit of weight `n`, or
    /// the limit raised by `n`): wakes `n` waiters, if any. One fence and
    /// one load while nobody waits.
    #[inline(always)]
    pub(super) fn wake_waiters(&self, n: usize) {
        self.waits.list.notify(n);
    }

    /// Admits as [`try_acquire_with`](Self::try_acquire_with) does, without
    /// counting a refusal as shed; raising a limit that admits the class
    /// nothing only if `OPEN` (every try but the one a poll makes before it
    /// links its node).
    #[inline]
    fn try_acquire_quiet<const OPEN: bool>(&self, priority: Priority) -> Option<Permit<'_>> {
        self.acquire_counting::<false, OPEN, _>(priority, 1, |grant| Permit::new(self, grant))
    }

    /// Takes a place in the backlog, or says it is full.
    fn join_backlog(&self) -> bool {
        let w = &self.waits;
        // Relaxed: a bound on a count; the list's lock and fences order the
        // waits themselves.
        let mut now = w.now.load(Ordering::Relaxed);
        loop {
            if now >= self.backlog {
                return false;
            }
            match w
                .now
                .compare_exchange_weak(now, now + 1, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => break,
                Err(actual) => now = actual,
            }
        }
        w.queued.add(1);
        if now + 1 > w.peak.load(Ordering::Relaxed) {
            w.peak.fetch_max(now + 1, Ordering::Relaxed);
        }
        true
    }

    /// Gives the place back.
    fn leave_backlog(&self) {
        // Relaxed: as in `join_backlog`, a bound on a count.
        self.waits.now.fetch_sub(1, Ordering::Relaxed);
    }

    /// Waits (asynchronously) for a permit of class `priority`: resolves
    /// to it as soon as one is admitted, or to `None` at once if the
    /// backlog is full (counted as shed). While it waits it holds a place
    /// in the backlog; releases wake it, the highest class first and, by
    /// default, the newest waiter of a class first
    /// ([`BacklogOrder`]). Cancel-safe: dropping the future gives its
    /// place up (counted as `timed_out` and shed) and passes on a wake it
    /// did not use. Put a timeout around it with your executor's timer.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
    /// # fn block_on<F: core::future::Future>(f: F) -> F::Output {
    /// #     let waker = core::task::Waker::noop();
    /// #     let mut cx = core::task::Context::from_waker(&waker);
    /// #     let mut f = core::pin::pin!(f);
    /// #     loop { if let core::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 1, ..LimiterConfig::DEFAULT });
    /// let held = gate.try_acquire().unwrap();
    /// let waiting = gate.acquire(Priority::Critical);
    /// // ... on another task: the release wakes the waiter.
    /// held.success(5);
    /// let permit = block_on(waiting).expect("admitted after the release");
    /// assert_eq!(gate.in_flight(), 1);
    /// permit.ignore();
    /// ```
    pub fn acquire(&self, priority: Priority) -> Acquire<'_> {
        Acquire {
            limiter: self,
            priority,
            counted: false,
            done: false,
            node: Node::new(),
        }
    }

    /// Waits for a permit of class `priority`, parking the thread, for at
    /// most `timeout`: the permit, or `None` if the backlog was full or the
    /// time ran out (counted as shed, and as `timed_out` for the latter).
    /// [`acquire`](Self::acquire) without `async`; any number of threads
    /// may wait, and a release from any context wakes them.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
    /// use std::time::Duration;
    ///
    /// static GATE: Limiter = Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 1, ..LimiterConfig::DEFAULT });
    /// let held = GATE.try_acquire().unwrap();
    /// assert!(GATE.acquire_blocking(Priority::Critical, Duration::from_millis(1)).is_none());
    /// assert_eq!(GATE.stats().timed_out, 1);
    /// let releaser = std::thread::spawn(move || held.success(5));
    /// let permit = GATE.acquire_blocking(Priority::Critical, Duration::from_secs(10));
    /// assert!(permit.is_some());
    /// releaser.join().unwrap();
    /// ```
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    pub fn acquire_blocking(
        &self,
        priority: Priority,
        timeout: core::time::Duration,
    ) -> Option<Permit<'_>> {
        let deadline = std::time::Instant::now().checked_add(timeout);
        let mut fut = core::pin::pin!(self.acquire(priority));
        loop {
            if let Poll::Ready(out) = fut.as_mut().poll_as(Wake::Thread) {
                return out;
            }
            match deadline {
                None => std::thread::park(),
                Some(d) => {
                    let now = std::time::Instant::now();
                    if now >= d {
                        // Dropping the future gives the place up.
                        return None;
                    }
                    // A spurious return only costs one more poll.
                    std::thread::park_timeout(d - now);
                }
            }
        }
    }
}

/// The future of [`Limiter::acquire`]: a permit, or `None` if the backlog
/// was full.
#[must_use = "a future does nothing unless polled"]
pub struct Acquire<'a> {
    limiter: &'a Limiter,
    priority: Priority,
    /// Holds a place in the backlog.
    counted: bool,
    /// Resolved.
    done: bool,
    node: Node,
}

impl<'a> Acquire<'a> {
    /// One poll, woken as `wake` says.
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Option<Permit<'a>>> {
        // SAFETY: `node` is never moved out of the pinned future (only
        // borrowed); the other fields are `Unpin` and moved by value.
        let this = unsafe { self.get_unchecked_mut() };
        assert!(!this.done, "Acquire polled after it resolved");
        let (limiter, priority) = (this.limiter, this.priority);
        if !this.counted {
            if let Some(permit) = limiter.try_acquire_quiet::<true>(priority) {
                this.done = true;
                return Poll::Ready(Some(permit));
            }
            if !limiter.join_backlog() {
                limiter.cold.shed[priority as usize].add(1);
                this.done = true;
                return Poll::Ready(None);
            }
            this.counted = true;
        }
        let lifo = limiter.lifo;
        let list = &limiter.waits.list;
        // The try after linking may raise a limit that admits the class
        // nothing, as a fresh request's refusal would: the release that
        // left nothing in flight woke us, and no other will come. The try
        // before linking does not, so that the raise's wake finds this
        // node in the list (it may be the one woken).
        let mut linked = false;
        // `woken`: whether this poll served a wake (a release's or a
        // rise's), come before it or while it ran.
        let (poll, woken) = list.poll_ranked(&this.node, wake, priority as usize, lifo, || {
            if core::mem::replace(&mut linked, true) {
                limiter.try_acquire_quiet::<true>(priority)
            } else {
                limiter.try_acquire_quiet::<false>(priority)
            }
        });
        match poll {
            Poll::Ready(permit) => {
                this.counted = false;
                this.done = true;
                limiter.leave_backlog();
                // Woken, and a unit is still free: another waiter may take
                // it (a release that freed a lower class's reserve as well
                // as a unit woke one waiter, and this one took the unit).
                if woken && limiter.in_flight() < limiter.limit() {
                    limiter.wake_waiters(1);
                }
                Poll::Ready(Some(permit))
            }
            Poll::Pending => {
                // A unit is free and our class may not take it: a lower
                // class's reserve may (module docs, "Model").
                if woken && limiter.in_flight() < limiter.limit() {
                    list.wake_after_rank(priority as usize);
                }
                Poll::Pending
            }
        }
    }
}

impl<'a> Future for Acquire<'a> {
    type Output = Option<Permit<'a>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.poll_as(Wake::Task(cx.waker()))
    }
}

impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        if self.counted {
            let limiter = self.limiter;
            limiter.waits.list.leave(&self.node);
            limiter.leave_backlog();
            limiter.waits.timed_out.add(1);
            limiter.cold.shed[self.priority as usize].add(1);
        }
    }
}

impl core::fmt::Debug for Acquire<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Acquire")
            .field("priority", &self.priority)
            .field("waiting", &self.counted)
            .finish()
    }
}
