//! [`WaitList`]: one side of an [`mpmc::Ring`](crate::mpmc::Ring)'s waiters
//! (the tasks and threads waiting in `pop`, or in `push`), with the lock
//! that guards its list and the gate the ring's operations read.
//!
//! # The lock: notifiers never wait
//!
//! The list is guarded by one word: [`LOCKED`], [`ALL`] (a wake-all is
//! owed) and, above them, a count of owed wake-ones. A waiter (a future's
//! poll or drop, a blocking call) takes it with a CAS, spinning while it is
//! held; it holds it for a few pointer moves and runs no user code.
//! A notifier (any push, pop or close, from any context: an interrupt
//! handler's `try_push` included) never waits for it: if the word is
//! locked, it adds its request to the word and returns, and whoever holds
//! the lock serves it. Unlocking is a swap to 0 that returns the requests
//! posted meanwhile; the unlocking context then serves them as a notifier
//! would (taking the lock again or posting them again). So a notifier that
//! interrupts a waiter in the middle of linking cannot deadlock, on one core
//! or many.
//!
//! One case still spins: a *waiter* that preempts another waiter holding
//! the lock on the same core (a task of an interrupt-level executor waiting
//! on the ring a thread-mode task is linking into) spins until that task
//! runs again, which on one core it cannot. `mpmc::cs::Ring`, whose lock is a
//! critical section, has no such case.
//!
//! # Orderings
//!
//! The gate `waiting` (the number of linked nodes) is written only under
//! the lock and read by notifiers after their `SeqCst` fence; the waiter
//! fences after linking (`src/wait.rs` has the proof). The lock word's CAS
//! takes it with `Acquire` and the unlocking swap releases it (`AcqRel`: it
//! also acquires the requests posted in it); a posted request is an
//! `AcqRel` CAS, so the context that serves it sees what the notifier did
//! before posting.

use super::list::{
    Linked, Node, RawList, Target, Wake, IN_ORDER, LINKED, NOTIFIED_ALL, NOTIFIED_ONE, UNLINKED,
};
use super::{each, OnDrop};
use crate::sync::{fence, pause, pause_point, AtomicUsize, LoadStoreUsize, Ordering, UnsafeCell};
use core::task::Poll;

/// The lock bit of [`WaitList::lock`].
const LOCKED: usize = 1;
/// A wake-all is owed (posted while the lock was held).
const ALL: usize = 2;
/// One owed wake-one, in [`WaitList::lock`].
const ONE: usize = 4;

/// Targets woken per round of a wake-all (each round takes the lock once):
/// bounds the time the lock is held and the stack the round uses.
#[cfg(target_pointer_width = "64")]
const BATCH: usize = 32;
#[cfg(not(target_pointer_width = "64"))]
const BATCH: usize = 8;

/// Which node a wake-one takes: the first of its rank, or ([`Adaptive`])
/// the newest of it once enough nodes are linked.
pub(crate) trait WakeOrder: Sync {
    /// From how many linked nodes a wake-one takes the newest node of the
    /// first rank instead of its oldest ([`IN_ORDER`]: never).
    fn newest_from(&self) -> usize;
}

/// The rings' order: a wake-one takes the first node. No memory.
pub(crate) struct InOrder;

impl WakeOrder for InOrder {
    #[inline(always)]
    fn newest_from(&self) -> usize {
        IN_ORDER
    }
}

/// Adaptive LIFO (the limiter's backlog): a wake-one takes the newest node
/// of a rank once this many nodes or more are linked ([`IN_ORDER`]: never).
/// Every waiter of such a list polls with
/// [`poll_ranked`](WaitList::poll_ranked) and `lifo` false: its wakes read
/// the ranks.
pub(crate) struct Adaptive(pub(crate) usize);

impl WakeOrder for Adaptive {
    #[inline(always)]
    fn newest_from(&self) -> usize {
        self.0
    }
}

/// One side of a ring's waiters.
pub(crate) struct WaitList<W: WakeOrder = InOrder> {
    /// The number of linked nodes: the notifiers' gate. Written only under
    /// the lock (a load and a store), read by notifiers without it.
    waiting: LoadStoreUsize,
    /// [`LOCKED`], plus [`ALL`] and [`ONE`] times the wake-ones posted
    /// while it was locked.
    lock: AtomicUsize,
    /// Only under the lock.
    list: UnsafeCell<RawList>,
    /// Which node a wake-one takes.
    order: W,
    /// Under loom, a waiter that finds the lock held sleeps here until an
    /// unlock, instead of spinning: loom's bounded search cannot switch
    /// away from a spinning thread once its preemptions are spent.
    #[cfg(sluicegate_loom)]
    sleep: (loom::sync::Mutex<()>, loom::sync::Condvar, AtomicUsize),
}

// SAFETY: the list is reached only by the holder of `lock` (Acquire on
// taking it, Release on the swap that frees it); the nodes it links are
// `Sync`.
unsafe impl<W: WakeOrder> Sync for WaitList<W> {}

impl WaitList {
    crate::sync::const_fn! {
        pub(crate) fn new() -> Self {
            Self::with_order(InOrder)
        }
    }
}

impl<W: WakeOrder> WaitList<W> {
    crate::sync::const_fn! {
        /// An empty list whose wake-ones take the node `order` says.
        pub(crate) fn with_order(order: W) -> Self {
            Self {
                waiting: LoadStoreUsize::new(0),
                lock: AtomicUsize::new(0),
                list: UnsafeCell::new(RawList::new()),
                order,
                #[cfg(sluicegate_loom)]
                sleep: (
                    loom::sync::Mutex::new(()),
                    loom::sync::Condvar::new(),
                    AtomicUsize::new(0),
                ),
            }
        }
    }

    /// After a write that lets `n` waiters proceed: wakes up to `n` of them,
    /// the longest waiting first. One fence, one load and a branch when
    /// nobody waits.
    #[inline(always)]
    pub(crate) fn notify(&self, n: usize) {
        // SeqCst: the store-load order of the protocol (`src/wait.rs`).
        fence(Ordering::SeqCst);
        // Relaxed: ordered by the fence. A native load of an aligned word,
        // never wrapped in a portable-atomic critical section.
        if self.waiting.load(Ordering::Relaxed) != 0 {
            self.wake(n, false);
        }
    }

    /// Whether anyone waits, checked by a notifier whose every write a
    /// waiter's second try reads was a `SeqCst` operation: a `SeqCst` load
    /// where [`SEQCST_GATE`](crate::sync::SEQCST_GATE) says so, else the
    /// fence and the load of [`notify`](Self::notify).
    #[inline(always)]
    fn waits_after_seqcst(&self) -> bool {
        if crate::sync::SEQCST_GATE {
            // SeqCst: stands in for the fence ("Without the notifier's
            // fence" in `src/wait.rs`).
            self.waiting.load(Ordering::SeqCst) != 0
        } else {
            // SeqCst: the store-load order of the protocol, as in `notify`.
            fence(Ordering::SeqCst);
            self.waiting()
        }
    }

    /// [`notify`](Self::notify) for a notifier whose every write a waiter's
    /// second try reads was a `SeqCst` operation (without the fence where
    /// [`SEQCST_GATE`](crate::sync::SEQCST_GATE) says so).
    #[inline(always)]
    pub(crate) fn notify_after_seqcst(&self, n: usize) {
        if self.waits_after_seqcst() {
            self.wake(n, false);
        }
    }

    /// Whether anyone waits, after the caller's `fence(SeqCst)` (the check
    /// of [`notify`](Self::notify), for a caller that checks two lists
    /// after one fence).
    #[inline(always)]
    pub(crate) fn waiting(&self) -> bool {
        // Relaxed: ordered by the caller's fence, as in `notify`.
        self.waiting.load(Ordering::Relaxed) != 0
    }

    /// [`notify_after_seqcst`](Self::notify_after_seqcst), but wakes every
    /// waiter instead if `all` says so; `all` runs only when someone waits
    /// (after the check).
    #[inline(always)]
    pub(crate) fn notify_or_all_after_seqcst(&self, n: usize, all: impl FnOnce() -> bool) {
        if self.waits_after_seqcst() {
            let all = all();
            if all || n > 0 {
                self.wake(if all { 0 } else { n }, all);
            }
        }
    }

    /// After a write that may let every waiter proceed (a close, the end
    /// of an eviction): wakes all of them.
    #[inline]
    pub(crate) fn notify_all(&self) {
        fence(Ordering::SeqCst);
        if self.waiting.load(Ordering::Relaxed) != 0 {
            self.wake(0, true);
        }
    }

    /// Wakes `ones` waiters and, if `all`, every waiter linked when the
    /// lock is taken; or posts the request to the holder of the lock.
    #[cold]
    #[inline(never)]
    fn wake(&self, mut ones: usize, mut all: bool) {
        loop {
            if !self.lock_or_post(ones, all) {
                return;
            }
            let mut batch: [Target; BATCH] = [const { Target::None }; BATCH];
            let mut k = 0;
            self.list.with_mut(|list| {
                // SAFETY: we hold the lock.
                let list = unsafe { &mut *list };
                let mut alls = if all {
                    self.waiting.load(Ordering::Relaxed)
                } else {
                    0
                };
                all = false;
                while k < BATCH && (ones > 0 || alls > 0) {
                    let (how, from) = if ones > 0 {
                        (NOTIFIED_ONE, self.order.newest_from())
                    } else {
                        (NOTIFIED_ALL, IN_ORDER)
                    };
                    // SAFETY: we hold the lock; a list with a `newest_from`
                    // is ranked (`Adaptive`'s contract).
                    match unsafe { list.wake_one(&self.waiting, how, from) } {
                        Some(t) => batch[k] = t,
                        None => {
                            (ones, alls) = (0, 0);
                            break;
                        }
                    }
                    k += 1;
                    if ones > 0 {
                        ones -= 1;
                    } else {
                        alls -= 1;
                    }
                }
                // A wake-all cut short by the batch goes on in the next
                // round, as a count of those linked now (no more than the
                // ones it found).
                ones += alls;
            });
            let (p_ones, p_all) = self.unlock();
            ones += p_ones;
            all |= p_all;
            // If a wake below panics, what is left (the waiters linked past
            // this batch, the requests posted to this holder) is served as
            // the panic unwinds: nobody else would serve it.
            let left = OnDrop::new(move || {
                if ones > 0 || all {
                    self.wake(ones, all);
                }
            });
            each(batch.into_iter().take(k), Target::wake);
            left.defuse();
            if ones == 0 && !all {
                return;
            }
        }
    }

    /// Takes the lock (true), or posts the request to its holder (false).
    fn lock_or_post(&self, ones: usize, all: bool) -> bool {
        let all = if all { ALL } else { 0 };
        let mut s = self.lock.load(Ordering::Relaxed);
        loop {
            let (new, order) = if s & LOCKED == 0 {
                (LOCKED, Ordering::Acquire)
            } else {
                // ALL is a flag, not a count: a second wake-all posted
                // before the holder unlocks is the same request (added,
                // it would carry into the count as one wake-one).
                ((s | all) + ones * ONE, Ordering::AcqRel)
            };
            match self.lock.compare_exchange(s, new, order, Ordering::Relaxed) {
                Ok(_) => return s & LOCKED == 0,
                Err(actual) => s = actual,
            }
        }
    }

    /// Takes the lock, waiting for it (waiters only).
    #[cfg(not(sluicegate_loom))]
    fn lock(&self) {
        let backoff = crossbeam_utils::Backoff::new();
        // Unlocked is 0: the unlocking swap clears the posted requests.
        while self
            .lock
            .compare_exchange(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            backoff.snooze();
        }
    }

    /// Takes the lock, sleeping until an unlock while it is held.
    #[cfg(sluicegate_loom)]
    fn lock(&self) {
        // A read-modify-write, which reads the latest value (a failed CAS
        // may read an older one under loom's model); setting LOCKED on a
        // held word changes nothing.
        let take = || self.lock.fetch_or(LOCKED, Ordering::SeqCst) & LOCKED == 0;
        if take() {
            return;
        }
        let (m, cv, sleepers) = &self.sleep;
        let mut g = m.lock().unwrap();
        // SeqCst with the unlock's swap and load: either it sees us
        // counted, or our next try sees the lock free.
        sleepers.fetch_add(1, Ordering::SeqCst);
        while !take() {
            g = cv.wait(g).unwrap();
        }
        sleepers.fetch_sub(1, Ordering::SeqCst);
    }

    /// Frees the lock; returns the requests posted while it was held, which
    /// the caller must serve (after waking what it took out).
    fn unlock(&self) -> (usize, bool) {
        // AcqRel: releases the list; acquires the posting notifiers' writes.
        #[cfg(not(sluicegate_loom))]
        let s = self.lock.swap(0, Ordering::AcqRel);
        #[cfg(sluicegate_loom)]
        let s = self.lock.swap(0, Ordering::SeqCst);
        #[cfg(sluicegate_loom)]
        if self.sleep.2.load(Ordering::SeqCst) != 0 {
            let _g = self.sleep.0.lock().unwrap();
            self.sleep.1.notify_all();
        }
        (s / ONE, s & ALL != 0)
    }

    /// Frees the lock and serves the requests posted meanwhile.
    fn unlock_and_serve(&self) {
        let (ones, all) = self.unlock();
        if ones > 0 || all {
            self.wake(ones, all);
        }
    }

    /// Runs `f` on the list under the lock, then frees it and serves what
    /// was posted meanwhile.
    fn locked<R>(&self, f: impl FnOnce(&mut RawList) -> R) -> R {
        self.lock();
        // SAFETY: we hold the lock.
        let r = self.list.with_mut(|list| f(unsafe { &mut *list }));
        self.unlock_and_serve();
        r
    }

    /// One poll of a waiter whose node is `node`: `op` tries the operation
    /// (`None`: it must wait). The protocol of `src/wait.rs`: try; link the
    /// node (back in its place if this poll serves a wake and found
    /// nothing); fence; try again.
    pub(crate) fn poll<O>(
        &self,
        node: &Node,
        wake: Wake<'_>,
        op: impl FnMut() -> Option<O>,
    ) -> Poll<O> {
        self.poll_at(node, wake, None, op).0
    }

    /// [`poll`](Self::poll) for a ranked list (every waiter of this list
    /// polls this way): links the node by `rank` (lower ranks are woken
    /// first), newest first within a rank if `lifo`, else oldest first (a
    /// node whose wake this poll serves and found nothing keeps its
    /// place). Also returns
    /// whether this poll served a wake: one that came before it, or one
    /// that took the node out of the list while it ran (its tries then
    /// judged what the wake announced).
    pub(crate) fn poll_ranked<O>(
        &self,
        node: &Node,
        wake: Wake<'_>,
        rank: usize,
        lifo: bool,
        op: impl FnMut() -> Option<O>,
    ) -> (Poll<O>, bool) {
        self.poll_at(node, wake, Some((rank, lifo)), op)
    }

    /// [`poll_ranked`](Self::poll_ranked), linking as `ranked` says
    /// (`None`: by arrival, a served node keeping its place).
    fn poll_at<O>(
        &self,
        node: &Node,
        wake: Wake<'_>,
        ranked: Option<(usize, bool)>,
        mut op: impl FnMut() -> Option<O>,
    ) -> (Poll<O>, bool) {
        let state = node.state();
        let woken = state == NOTIFIED_ONE || state == NOTIFIED_ALL;
        let mut served = woken;
        if woken {
            // This poll serves the wake.
            node.consume();
        }
        if let Some(out) = op() {
            if state == LINKED {
                self.leave(node);
            }
            return (Poll::Ready(out), served);
        }
        pause_point(pause::WAIT_POLL_TRIED);
        // A fresh target unless the node is linked with one (a repeated
        // poll): cloned outside the lock.
        let mut fresh = (state != LINKED).then(|| wake.target());
        loop {
            // SAFETY: under the lock; the node is pinned in the caller's
            // future or frame and in no other list.
            let linked = self.locked(|list| unsafe {
                // Linked at our start and out now: a wake took it out
                // after we read its state (Relaxed: under the lock), and
                // this poll serves it as one that came before.
                served |= state == LINKED && node.state() != LINKED;
                // A node whose wake this poll serves goes back to its
                // place (`RawList::link`): before the nodes of its rank
                // that came after it. A repeated poll without a wake leaves
                // a linked node where it is.
                match ranked {
                    None => list.link(&self.waiting, node, served, wake, &mut fresh),
                    Some((rank, lifo)) => {
                        list.link_ranked(&self.waiting, node, rank, lifo, served, wake, &mut fresh)
                    }
                }
            });
            match linked {
                Linked::Ok(old) => {
                    drop(old);
                    break;
                }
                Linked::NeedTarget => fresh = Some(wake.target()),
            }
        }
        drop(fresh);
        // SeqCst: the store-load order of the protocol (`src/wait.rs`).
        fence(Ordering::SeqCst);
        match op() {
            Some(out) => {
                self.leave(node);
                (Poll::Ready(out), served)
            }
            None => (Poll::Pending, served),
        }
    }

    /// Wakes the first waiter ranked after `rank` (a ranked list's): for a
    /// waiter of rank `rank` that served a wake and could not use it where
    /// a lower rank might.
    pub(crate) fn wake_after_rank(&self, rank: usize) {
        // SAFETY: under the lock; every node of a ranked list is linked
        // with `link_ranked` (`poll_ranked`'s contract).
        let t = self.locked(|list| unsafe {
            list.wake_one_after_rank(&self.waiting, rank, self.order.newest_from())
        });
        if let Some(t) = t {
            t.wake();
        }
    }

    /// Takes `node` out of the list (its waiter completed or was dropped),
    /// passing on a wake-one its owner did not serve.
    pub(crate) fn leave(&self, node: &Node) {
        match node.state() {
            UNLINKED => {}
            // Out of the list and its target taken: nothing to pass on.
            NOTIFIED_ALL => node.consume(),
            // SAFETY: under the lock; the node is the caller's.
            _ => self
                .locked(|list| unsafe {
                    list.leave(&self.waiting, node, true, self.order.newest_from())
                })
                .finish(),
        }
    }
}

/// The ring's two sides.
pub(crate) type Sides = [WaitList; 2];

/// Whether a task or thread waits on either side (the gates' relaxed
/// loads: the caller orders them, or needs only a hint).
#[inline(always)]
pub(crate) fn either_waits(sides: &Sides) -> bool {
    let [items, room] = sides;
    items.waiting() || room.waiting()
}

/// Whether anyone waits on either side, for a notifier whose every write a
/// waiter's second try reads was a `SeqCst` operation: one fence for both
/// sides, or none where [`SEQCST_GATE`](crate::sync::SEQCST_GATE) says so.
#[inline(always)]
pub(crate) fn either_waits_after_seqcst(sides: &Sides) -> bool {
    let [items, room] = sides;
    if crate::sync::SEQCST_GATE {
        items.waits_after_seqcst() || room.waits_after_seqcst()
    } else {
        // SeqCst: the store-load order of the protocol, as in `notify`.
        fence(Ordering::SeqCst);
        either_waits(sides)
    }
}

/// After a close: wakes every waiter of both sides, then runs `then` (the
/// drain waiters' wake), each also if a waker of an earlier one panics.
pub(crate) fn close_sides(sides: &Sides, then: &dyn Fn()) {
    let [items, room] = sides;
    let wakes: [&dyn Fn(); 3] = [&|| items.notify_all(), &|| room.notify_all(), then];
    each(wakes.into_iter(), |wake| wake());
}

/// Both sides, empty.
#[cfg(not(sluicegate_loom))]
pub(crate) const fn sides() -> Sides {
    [WaitList::new(), WaitList::new()]
}

/// Both sides, empty.
#[cfg(sluicegate_loom)]
pub(crate) fn sides() -> Sides {
    [WaitList::new(), WaitList::new()]
}
