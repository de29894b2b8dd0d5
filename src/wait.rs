//! Waiting for an item or for room: the waiter registrations behind the
//! `async` `push`/`pop` of the rings (feature `async`), and the thread
//! parking of their `push_blocking`/`pop_blocking` (feature `std`).
//!
//! # Model
//!
//! One side of a ring is the tasks waiting for an **item** (in `pop`), the
//! other those waiting for **room** (in `push`).
//!
//! - An SPSC ring has one waiter per side (the handles' `&mut`), so each
//!   side has one waker cell ([`Waiters`], below).
//! - An MPMC ring has any number per side: each waiter owns a [`Node`]
//!   (in the pinned future, or in a blocking call's stack frame) that it
//!   links into its side's intrusive list while it waits (`list.rs`; the
//!   list of `mpmc::Ring` with its lock is `queue.rs`, the one of
//!   `mpmc::cs::Ring` lives in its critical section). Nothing is
//!   allocated and nobody polls: a push wakes **one** waiting popper (the
//!   longest waiting), a pop one waiting pusher, a burst of `k` up to `k`,
//!   and a close every waiter. A waiter that leaves (its future dropped)
//!   with a wake-one it did not use passes it to the next one. A pending
//!   future that is leaked (`mem::forget` of a pinned future) stays linked
//!   for good: its memory is never freed, so this is sound, but it keeps
//!   the notifiers on their slow path and may swallow one wake-one.
//!
//! [`Node`]: list::Node
//!
//! # Protocol
//!
//! A waiter (the future's `poll`) does:
//!
//! 1. try the operation; done if it succeeds (or the ring is closed);
//! 2. register: link its node (MPMC, under the list's lock) or store its
//!    waker in its cell (SPSC); either raises the side's gate word;
//! 3. `fence(SeqCst)`;
//! 4. try the operation again (and check for close); if it still cannot
//!    proceed, return `Pending`.
//!
//! Every operation that makes progress possible for the other side (a
//! push publishing an item, a pop freeing a slot, a close, a handle's
//! drop) does, after its own atomic write:
//!
//! 1. `fence(SeqCst)`;
//! 2. load the gate of the side it may unblock (`Relaxed`); only if it is
//!    not zero, wake (MPMC: take the first waiter out of the list and wake
//!    it; SPSC: wake the cell).
//!
//! **Why no wake-up is lost.** The two `SeqCst` fences are ordered one way
//! or the other in the single total order of `SeqCst` operations. If the
//! waiter's fence comes first, the notifier's gate load (after its fence)
//! sees the registration made before the waiter's fence, and its wake
//! finds the waiter, or an earlier one that is still waiting (a waiter
//! leaves the list only when it completes, or is dropped and then passes on
//! a wake it received; one that is woken and finds nothing links itself
//! again in its place, before the waiters that came after it, and tries
//! again, also when the wake came while it was polled for another reason). If the
//! notifier's fence comes first, the waiter's second try (after its fence)
//! sees the notifier's write: the item, the free slot, the close flag or
//! the dropped handle.
//! Acquire/release alone would not do: each side stores, then loads what
//! the other stores (Dekker's pattern), which needs the store-load order
//! only `SeqCst` fences give. A wake-one that reaches a waiter whose own
//! try already succeeded (it raced that try) is passed on as well, so each
//! wake-one ends in a try that starts after it.
//!
//! **Without the notifier's fence.** Where every write the notifier made
//! that a waiter's second try reads is a `SeqCst` operation (the SCQ
//! ring's: its index rings and free pools use nothing else; the burst
//! ring's, whose bitmap flips are `SeqCst` where this is used), the gate
//! load itself can be `SeqCst` in place of the fence. If that load misses the
//! registration (it reads a value older than the waiter's store), it is
//! ordered before the waiter's fence in the total order (the store is
//! sequenced before that fence), so the notifier's `SeqCst` writes, before
//! its load, are too; a load after the waiter's fence that read a value
//! older than one of them would put the fence before that write: so the
//! second try sees them all. (These are the rules of C++20's
//! `[atomics.order]` that Rust's atomics follow.) On x86-64 the `SeqCst`
//! load is a plain load, and the fence a locked instruction; on AArch64,
//! `ldar` against `dmb` and a load. On 32-bit Arm the two forms cost the
//! same (`dmb` after the load instead of before), so the fence stays
//! there, as it does with `portable-atomic` (whose read-modify-writes may
//! be critical sections) and under loom (which models `SeqCst` accesses as
//! acquire and release only): `sync::SEQCST_GATE`. The close and the SCQ
//! ring's evictions keep the fence everywhere.
//!
//! **Cost when nobody waits.** One fence and one load of the gate, plus a
//! test and a branch, on each operation that can wake someone: measured +4
//! instructions per push or pop on x86-64 (callgrind), +2 on the Cortex-M3
//! and +4 on the M0 for the SPSC ring, more where the SCQ ring's push
//! and pop run short of registers (`BENCHMARKS.md` has the tables). The fence
//! is one instruction (`lock or` on x86-64, `dmb` on Arm), but on multi-core
//! hosts it is not free in time (it drains the store buffer).
//!
//! # Waker cells (SPSC)
//!
//! A cell is the `AtomicWaker` state machine (as in `futures`' and
//! `atomic-waker`'s), written here on the crate's own atomics so that loom
//! checks it together with the rings (the `atomic-waker` crate's atomics
//! are invisible to loom). One owner registers; any context wakes:
//!
//! | state                  | who moves it out, and to what                                |
//! |------------------------|--------------------------------------------------------------|
//! | `IDLE`                 | owner's register: CAS to `REGISTERING`; a wake: `WAKING`     |
//! | `REGISTERING`          | owner: CAS back to `IDLE`; a wake: or-in `WAKING`            |
//! | `REGISTERING\|WAKING`  | owner: takes the waker, stores `IDLE`, wakes it itself       |
//! | `WAKING`               | the waking context: takes the waker, clears `WAKING`         |
//!
//! Both sides are lock-free and never wait for each other: a wake that
//! meets a registration in progress leaves the wake to it; a registration
//! that meets a wake in progress wakes its own task at once. So an
//! interrupt handler may wake a cell whose owner it preempted mid-register.
//!
//! # Progress
//!
//! Notifying never waits, from any context (the MPMC list's lock hands a
//! notifier's request to its holder instead, `queue.rs`); registering
//! waits only for another waiter's few pointer moves under that lock. The
//! futures complete when the other side makes progress or the ring closes.
//!
//! One unflattering case, shared with every `AtomicWaker`: an SPSC
//! registration that meets a wake in progress wakes its own task instead of
//! storing the waker. If that task's executor runs at a *higher* priority
//! than the preempted context in the middle of that wake, it re-polls until
//! that context runs again, which on one core it cannot: the wait spins
//! instead of sleeping. The MPMC list has the analogous case for a waiter
//! that preempts another waiter holding the list's lock (`queue.rs`). Wakes
//! from interrupt handlers (the usual direction) cause neither.
//!
//! # Wakers that panic
//!
//! A waker's `clone`, `drop` and `wake` are its executor's code, and a
//! panic in one reaches the caller of the operation that ran it: a push
//! that woke a pop has stored its item, and a pop that woke a push drops
//! the item it took as the panic unwinds. What the panic leaves behind:
//!
//! - An SPSC cell whose registration panics in the clone is reopened (the
//!   waker it held stays); the waker a registration replaces is dropped
//!   after the cell is free again.
//! - The MPMC lists clone and drop wakers outside their lock.
//! - A wake of many (a close, the end of an eviction, a lowering of the
//!   level) has taken its waiters out of the list before it wakes them: if
//!   one's `wake` panics, the others of its batch, the waiters still linked
//!   and the requests posted to the lock's holder are served as the panic
//!   unwinds; a close goes on to the other lists too (`OnDrop`, `each`).
//!   A second panic in that unwinding aborts the process.
//!
//! # References
//!
//! The intrusive list, wake-one with the wake passed on by a dropped waiter,
//! and wake-all in batches follow tokio's `sync::Notify` and
//! `batch_semaphore` and maitake-sync's `WaitQueue`.

use core::task::Waker;

use crate::sync::{fence, rmw_view, AtomicUsize, LoadStoreUsize, Ordering, UnsafeCell};

#[cfg(all(test, sluicegate_loom))]
mod loom_tests;
#[cfg(all(test, feature = "async", sluicegate_cas, not(sluicegate_loom)))]
pub(crate) mod pause_tests;

/// The cell's states (see the module table).
const IDLE: usize = 0;
const REGISTERING: usize = 1;
const WAKING: usize = 2;

/// One waker slot: the `AtomicWaker` state machine.
pub(crate) struct WakerCell {
    state: AtomicUsize,
    /// Touched only by whoever moved `state` out of `IDLE` (see the table).
    waker: UnsafeCell<Option<Waker>>,
}

// SAFETY: the waker inside is reached only by the one context that owns the
// state word's transition (REGISTERING for the owner, WAKING for a waker),
// with acquire/release on those transitions; `Waker` is `Send + Sync`.
unsafe impl Sync for WakerCell {}

impl WakerCell {
    crate::sync::const_fn! {
        fn new() -> Self {
            Self {
                state: AtomicUsize::new(IDLE),
                waker: UnsafeCell::new(None),
            }
        }
    }

    /// Stores `waker` (only the cell's one owner calls this).
    fn register(&self, waker: &Waker) {
        match self
            .state
            .compare_exchange(IDLE, REGISTERING, Ordering::Acquire, Ordering::Acquire)
        {
            Ok(_) => {
                // A waker's clone and drop are its executor's code, and may
                // panic: the clone runs under a guard that reopens the cell
                // if it does (else the cell stays `REGISTERING` for good),
                // and the waker it replaces is dropped once the cell is
                // `IDLE` again.
                let old = self.waker.with_mut(|p| {
                    // SAFETY: REGISTERING: nobody else touches the waker.
                    let slot = unsafe { &mut *p };
                    if slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
                        return None;
                    }
                    let reopen = OnDrop::new(|| self.reopen());
                    let fresh = waker.clone();
                    reopen.defuse();
                    slot.replace(fresh)
                });
                // AcqRel: releases the waker to the next wake; acquires a
                // concurrent wake's flag.
                if self
                    .state
                    .compare_exchange(REGISTERING, IDLE, Ordering::AcqRel, Ordering::Acquire)
                    .is_err()
                {
                    // A wake came meanwhile and left it to us.
                    // SAFETY: still ours: no wake touches the waker while
                    // REGISTERING is set.
                    let taken = self.waker.with_mut(|p| unsafe { (*p).take() });
                    self.state.swap(IDLE, Ordering::AcqRel);
                    if let Some(w) = taken {
                        w.wake();
                    }
                }
                drop(old);
            }
            // A wake in progress: wake ourselves instead of waiting for it
            // (the executor polls again; under loom, let the waking thread
            // run first, as a real scheduler eventually does).
            Err(_) => {
                #[cfg(sluicegate_loom)]
                loom::thread::yield_now();
                waker.wake_by_ref();
            }
        }
    }

    /// After a clone that panicked in [`register`](Self::register): the
    /// cell back to `IDLE`, with the waker it had. A wake that came
    /// meanwhile (`WAKING`) goes with the panicking poll; a poll after it
    /// registers and tries the ring again, as every poll does, so it
    /// misses nothing.
    #[cold]
    fn reopen(&self) {
        // Release: as the registration's own return to `IDLE` (nothing
        // new was stored, so nothing more to publish).
        self.state.store(IDLE, Ordering::Release);
    }

    /// Takes the waker out, unless a registration or another wake is in
    /// progress (then that one takes care of it).
    fn take(&self) -> Option<Waker> {
        match self.state.fetch_or(WAKING, Ordering::AcqRel) {
            IDLE => {
                // SAFETY: we moved the state to WAKING: the waker is ours.
                let w = self.waker.with_mut(|p| unsafe { (*p).take() });
                self.state.fetch_and(!WAKING, Ordering::Release);
                w
            }
            _ => None,
        }
    }

    fn wake(&self) {
        if let Some(w) = self.take() {
            w.wake();
        }
    }
}

/// Whether a waiting SPSC future owns its side's cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Registration {
    /// Not (yet, or any more).
    None,
    /// It does; the side's gate bit is set.
    Cell,
}

/// The side a waiter waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Waits for an item (a pop): woken by pushes.
    Item = 0,
    /// Waits for room (a push): woken by pops.
    Room = 1,
}

/// An SPSC ring's waiters: one cell per side and, per side, a gate word
/// that is 1 while the cell is owned.
pub(crate) struct Waiters {
    /// Per side (index `Side as usize`): 1 while the side's cell is owned
    /// by a waiting future. Every read-modify-write goes through
    /// `rmw_view`; the notifiers' loads are plain (see `notify`).
    masks: [LoadStoreUsize; 2],
    cells: [WakerCell; 2],
}

impl Waiters {
    crate::sync::const_fn! {
        pub(crate) fn new() -> Self {
            Self {
                masks: [LoadStoreUsize::new(0), LoadStoreUsize::new(0)],
                cells: [WakerCell::new(), WakerCell::new()],
            }
        }
    }

    /// After a write that lets the waiter of `side` proceed: wakes it if
    /// there is one. One fence, one load and a branch when there is none.
    #[inline(always)]
    pub(crate) fn notify(&self, side: Side) {
        // SeqCst and Relaxed: as in `waiting`, written out here: through a
        // call of `waiting` the marked SPSC ring's pop, which inlines this,
        // compiles to two more instructions on the Cortex-M0.
        fence(Ordering::SeqCst);
        if self.masks[side as usize].load(Ordering::Relaxed) != 0 {
            match side {
                Side::Item => self.wake_items(),
                Side::Room => self.wake_room(),
            }
        }
    }

    /// [`notify`](Self::notify)'s test: whether the waiter of `side` must
    /// be woken, after a write that lets it proceed. One fence and one
    /// load. A caller that tests here wakes with [`wake`](Self::wake) from
    /// a cold function of its own.
    #[inline(always)]
    pub(crate) fn waiting(&self, side: Side) -> bool {
        // SeqCst: the store-load order of the protocol (module docs).
        fence(Ordering::SeqCst);
        // Relaxed: ordered by the fence. A plain load, not through
        // `rmw_view`: with portable-atomic's critical-section backend that
        // view would make every push and pop take a critical section. A
        // native load of an aligned word is single-copy atomic, so it sees
        // the word before or after any read-modify-write of the view (all
        // of whose writes are single stores of the whole word).
        self.masks[side as usize].load(Ordering::Relaxed) != 0
    }

    /// [`notify`](Self::notify)'s wake, after [`waiting`](Self::waiting)
    /// answered `true`.
    #[inline(always)]
    pub(crate) fn wake(&self, side: Side) {
        self.cells[side as usize].wake();
    }

    /// Wakes both waiters (a handle's drop), after a fence.
    pub(crate) fn notify_all(&self) {
        fence(Ordering::SeqCst);
        self.cells[Side::Item as usize].wake();
        self.cells[Side::Room as usize].wake();
    }

    // Out of line and argument-free: the notifying operation carries one
    // call.
    #[cold]
    #[inline(never)]
    fn wake_items(&self) {
        self.cells[Side::Item as usize].wake();
    }

    #[cold]
    #[inline(never)]
    fn wake_room(&self) {
        self.cells[Side::Room as usize].wake();
    }

    /// Steps 2 and 3 of the protocol for the waiter of `side` with
    /// `waker`: owns the side's cell and registers there; then the fence.
    /// The caller tries again after this and returns `Pending` only if it
    /// still must wait.
    pub(crate) fn arm(&self, side: Side, reg: &mut Registration, waker: &Waker) {
        if *reg == Registration::None {
            // One waiter per side by contract (the handles' `&mut`): a set
            // bit can only be a future that was leaked (`mem::forget`) and
            // will never be polled again, so the cell is ours.
            rmw_view(&self.masks[side as usize]).fetch_or(1, Ordering::Acquire);
            *reg = Registration::Cell;
        }
        self.cells[side as usize].register(waker);
        // SeqCst: the store-load order of the protocol (module docs).
        fence(Ordering::SeqCst);
    }

    /// Gives up the cell `reg` owns, if any (a future that completed or was
    /// dropped).
    #[inline]
    pub(crate) fn disarm(&self, side: Side, reg: &mut Registration) {
        if *reg == Registration::Cell {
            // Drops our waker (unless a wake took it meanwhile).
            drop(self.cells[side as usize].take());
            // Release: the next owner's register (Acquire CAS on the cell's
            // state) sees the cell emptied.
            rmw_view(&self.masks[side as usize]).fetch_and(0, Ordering::Release);
        }
        *reg = Registration::None;
    }
}

/// Runs its closure when dropped, unless [`defused`](Self::defuse): at
/// the end of its scope, or as a panic unwinds past it. The waits run
/// executors' code (a waker's clone, drop and wake), which may panic; these
/// guards keep such a panic from leaving a cell locked or other waiters
/// asleep.
pub(crate) struct OnDrop<F: FnOnce()>(Option<F>);

impl<F: FnOnce()> OnDrop<F> {
    pub(crate) fn new(f: F) -> Self {
        Self(Some(f))
    }

    /// Drops the guard without running the closure.
    pub(crate) fn defuse(mut self) {
        self.0 = None;
    }
}

impl<F: FnOnce()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f();
        }
    }
}

/// Runs `f` on each of `items` in order; if one call panics, the rest
/// still run as the panic unwinds (a second panic among them aborts the
/// process). For a notifier's wakes: the waiters of a batch are out of the
/// list already, and a close wakes several independent lists, so one
/// executor's panicking waker must not leave the others asleep.
pub(crate) fn each<I: Iterator, F: FnMut(I::Item)>(items: I, f: F) {
    struct Rest<I: Iterator, F: FnMut(I::Item)>(I, F);
    impl<I: Iterator, F: FnMut(I::Item)> Drop for Rest<I, F> {
        fn drop(&mut self) {
            for x in &mut self.0 {
                (self.1)(x);
            }
        }
    }
    let mut rest = Rest(items, f);
    for x in rest.0.by_ref() {
        (rest.1)(x);
    }
}

pub(crate) mod list;
pub(crate) mod queue;

/// Parking a thread on a ring's waiters (feature `std`); without `std` the
/// blocking calls spin instead (`src/spin.rs`).
#[cfg(feature = "std")]
pub(crate) mod park {
    use super::list::Wake;
    use crate::sync::thread::{self, Thread};
    use core::future::Future;
    use core::pin::{pin, Pin};
    use core::task::{Context, Poll, Waker};
    use std::sync::Arc;
    use std::task::Wake as StdWake;

    /// A waker that unparks the thread that made it.
    struct Unpark(Thread);

    impl StdWake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }

    /// Polls `fut` (an SPSC future: its side's one cell) to completion on
    /// this thread, parked between polls.
    pub(crate) fn block_on<F: Future>(fut: F) -> F::Output {
        let mut fut = pin!(fut);
        let waker = Waker::from(Arc::new(Unpark(thread::current())));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
                return out;
            }
            // A spurious return only costs one more poll.
            thread::park();
        }
    }

    /// A future whose waiter may be the polling thread itself (an MPMC
    /// future: its node's target is then the thread, not a waker).
    pub(crate) trait Parkable: Future {
        /// One poll, woken as `wake` says.
        fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Self::Output>;
    }

    /// Polls `fut` to completion on this thread, parked between polls; its
    /// node, in this frame, wakes the thread directly (no waker, no
    /// allocation).
    pub(crate) fn wait<F: Parkable>(fut: F) -> F::Output {
        let mut fut = pin!(fut);
        loop {
            if let Poll::Ready(out) = fut.as_mut().poll_as(Wake::Thread) {
                return out;
            }
            // A spurious return only costs one more poll.
            thread::park();
        }
    }
}
