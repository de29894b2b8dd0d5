//! Waiting for an item or for room: the waker registrations behind the
//! `async` `push`/`pop` of the rings (feature `async`), and the thread
//! parking of their `push_blocking`/`pop_blocking` (feature `std`).
//!
//! # Model
//!
//! Every ring that can be waited on holds one [`Waiters`]: per side, `K`
//! waker cells and a *mask* word whose bit `i` says that cell `i` belongs to
//! a waiting task. One side is the tasks waiting for an **item** (in `pop`),
//! the other those waiting for **room** (in `push`).
//! An SPSC ring has `K = 1` (one waiter per side, guaranteed by `&mut`); an
//! MPMC ring has `K = 4`: up to four tasks per side sleep in a cell, and a
//! fifth one finds every cell taken and **polls** instead (it wakes itself
//! and returns `Pending`, so its executor polls it again; a blocked thread
//! sleeps 50 µs to 1 ms between tries). That is the documented fallback of
//! a fixed, allocation-free registration: correct for any number of
//! waiters, efficient for up to `K` per side. A pending future that is
//! leaked (`mem::forget`) keeps its MPMC cell for good; an SPSC handle's next
//! future takes its cell over.
//!
//! # Protocol
//!
//! A waiter (the future's `poll`) does:
//!
//! 1. try the operation; done if it succeeds (or the ring is closed);
//! 2. own a cell (a CAS that sets its bit in the mask, kept until the
//!    future completes or is dropped) and register its waker there;
//! 3. `fence(SeqCst)`;
//! 4. try the operation again (and check for close); if it still cannot
//!    proceed, return `Pending`.
//!
//! Every operation that makes progress possible for the other side (a
//! push publishing an item, a pop freeing a slot, a close, a handle's
//! drop) does, after its own atomic write:
//!
//! 1. `fence(SeqCst)`;
//! 2. load the mask of the side it may unblock (`Relaxed`); only if it is
//!    not zero, wake the cells of its bits.
//!
//! **Why no wake-up is lost.** The two `SeqCst` fences are ordered one way
//! or the other in the single total order of `SeqCst` operations. If the
//! waiter's fence comes first, the notifier's mask load (after its fence)
//! sees the bit set before the waiter's fence, and its wake (a
//! read-modify-write on the cell's state) sees the waker registered before
//! it, or finds the registration in progress and leaves the wake to the
//! registrant (below). If the notifier's fence comes first, the waiter's
//! second try (after its fence) sees the notifier's write: the item, the
//! free slot, the close flag or the dropped handle. Acquire/release alone
//! would not do: each side stores, then loads what the other stores
//! (Dekker's pattern), which needs the store-load order only `SeqCst`
//! fences give.
//!
//! **Cost when nobody waits.** One fence and one load of the mask, plus a
//! test and a branch, on each operation that can wake someone: measured +4
//! instructions per push or pop on x86-64 (callgrind), +2 on the Cortex-M3
//! and +4 on the M0 for the SPSC ring, more where the SCQ ring's push
//! and pop run short of registers (`BENCHMARKS.md` has the tables). The fence
//! is one instruction (`lock or` on x86-64, `dmb` on Arm), but on multi-core
//! hosts it is not free in time (it drains the store buffer).
//!
//! # Waker cells
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
//! Registering, waking and notifying are lock-free (bounded, apart from the
//! CAS that claims a cell, which retries only when another waiter claimed or
//! released one meanwhile). The futures complete when the other side makes
//! progress or the ring closes.
//!
//! One unflattering case, shared with every `AtomicWaker`: a registration
//! that meets a wake in progress wakes its own task instead of storing the
//! waker. If that task's executor runs at a *higher* priority than the
//! preempted context in the middle of that wake (a task of an interrupt-level
//! executor woken by a thread-mode push, with the item then taken by another
//! consumer), it re-polls until that context runs again, which on one core it
//! cannot: the wait spins instead of sleeping. Wakes from interrupt handlers
//! (the usual direction) finish before the task runs and cannot cause it.

use core::task::Waker;

use crate::sync::{fence, rmw_view, AtomicUsize, LoadStoreUsize, Ordering, UnsafeCell};

#[cfg(all(test, sluicegate_loom))]
mod loom_tests;

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
                self.waker.with_mut(|p| {
                    // SAFETY: REGISTERING: nobody else touches the waker.
                    let slot = unsafe { &mut *p };
                    if !slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
                        *slot = Some(waker.clone());
                    }
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

/// Which cell a waiting future owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Registration {
    /// None yet (or any more).
    None,
    /// Cell `i`; its bit in the mask is set.
    Cell(usize),
    /// Every cell of its side was taken: the future polls.
    Polling,
}

/// The side a waiter waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// Waits for an item (a pop): woken by pushes.
    Item = 0,
    /// Waits for room (a push): woken by pops.
    Room = 1,
}

/// A ring's waiters: `K` cells per side and, per side, the mask of owned
/// cells.
pub(crate) struct Waiters<const K: usize> {
    /// Per side (index `Side as usize`): bit `i` set: cell `i` of that side
    /// is owned by a waiting future. Every read-modify-write goes through
    /// `rmw_view`; the notifiers' loads are plain (see `notify`).
    masks: [LoadStoreUsize; 2],
    cells: [[WakerCell; K]; 2],
}

impl<const K: usize> Waiters<K> {
    const ALL: usize = (1 << K) - 1;

    crate::sync::const_fn! {
        pub(crate) fn new() -> Self {
            const { assert!(K > 0 && K < usize::BITS as usize) };
            Self {
                masks: [LoadStoreUsize::new(0), LoadStoreUsize::new(0)],
                #[cfg(not(sluicegate_loom))]
                cells: [const { [const { WakerCell::new() }; K] }; 2],
                #[cfg(sluicegate_loom)]
                cells: core::array::from_fn(|_| core::array::from_fn(|_| WakerCell::new())),
            }
        }
    }

    /// After a write that lets waiters of `side` proceed: wakes them if
    /// there are any. One fence, one load and a branch when there are none.
    #[inline(always)]
    pub(crate) fn notify(&self, side: Side) {
        // SeqCst: the store-load order of the protocol (module docs).
        fence(Ordering::SeqCst);
        // Relaxed: ordered by the fence. A plain load, not through
        // `rmw_view`: with portable-atomic's critical-section backend that
        // view would make every push and pop take a critical section. A
        // native load of an aligned word is single-copy atomic, so it sees
        // the word before or after any read-modify-write of the view (all
        // of whose writes are single stores of the whole word).
        if self.masks[side as usize].load(Ordering::Relaxed) != 0 {
            match side {
                Side::Item => self.wake_items(),
                Side::Room => self.wake_room(),
            }
        }
    }

    /// Wakes every waiter (a close, or a handle's drop), after a fence.
    pub(crate) fn notify_all(&self) {
        fence(Ordering::SeqCst);
        self.wake(Side::Item);
        self.wake(Side::Room);
    }

    // Out of line and argument-free: the notifying operation carries one
    // call, not the loop.
    #[cold]
    #[inline(never)]
    fn wake_items(&self) {
        self.wake(Side::Item);
    }

    #[cold]
    #[inline(never)]
    fn wake_room(&self) {
        self.wake(Side::Room);
    }

    fn wake(&self, side: Side) {
        let mut bits = self.masks[side as usize].load(Ordering::Relaxed);
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            self.cells[side as usize][i].wake();
        }
    }

    /// Steps 2 and 3 of the protocol for a waiter of `side` with `waker`:
    /// owns a cell (unless it does already) and registers there, or wakes
    /// the task at once if every cell is taken; then the fence. The caller
    /// tries again after this and returns `Pending` only if it still must
    /// wait.
    pub(crate) fn arm(&self, side: Side, reg: &mut Registration, waker: &Waker) {
        if !matches!(reg, Registration::Cell(_)) {
            *reg = self.claim(side);
        }
        match *reg {
            Registration::Cell(i) => self.cells[side as usize][i].register(waker),
            _ => waker.wake_by_ref(),
        }
        // SeqCst: the store-load order of the protocol (module docs).
        fence(Ordering::SeqCst);
    }

    /// Gives up the cell `reg` owns, if any (a future that completed or was
    /// dropped).
    #[inline]
    pub(crate) fn disarm(&self, side: Side, reg: &mut Registration) {
        if let Registration::Cell(i) = *reg {
            // Drops our waker (unless a wake took it meanwhile).
            drop(self.cells[side as usize][i].take());
            // Release: the next owner's register (Acquire CAS on the cell's
            // state) sees the cell emptied.
            rmw_view(&self.masks[side as usize]).fetch_and(!(1 << i), Ordering::Release);
        }
        *reg = Registration::None;
    }

    fn claim(&self, side: Side) -> Registration {
        let mask = rmw_view(&self.masks[side as usize]);
        if K == 1 {
            // One waiter per side by contract (the SPSC handles' `&mut`): a
            // set bit can only be a future that was leaked (`mem::forget`)
            // and will never be polled again, so its cell is ours.
            mask.fetch_or(1, Ordering::Acquire);
            return Registration::Cell(0);
        }
        let mut m = mask.load(Ordering::Relaxed);
        loop {
            let free = !m & Self::ALL;
            if free == 0 {
                return Registration::Polling;
            }
            let bit = free & free.wrapping_neg();
            match mask.compare_exchange(m, m | bit, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => return Registration::Cell(bit.trailing_zeros() as usize),
                Err(actual) => m = actual,
            }
        }
    }
}

/// Parking a thread on a ring's waiters (feature `std`); without `std` the
/// blocking calls spin instead (`src/spin.rs`).
#[cfg(feature = "std")]
pub(crate) mod park {
    use core::future::Future;
    use core::pin::pin;
    use core::task::{Context, Poll, Waker};
    use core::time::Duration;
    use std::sync::Arc;
    use std::task::Wake;
    use std::thread::{self, Thread};

    /// A waker that unparks the thread that made it.
    struct Unpark(Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }

    /// A future that can say whether it found every waker cell taken.
    pub(crate) trait Waiting: Future {
        /// Whether its last `Pending` came from the polling fallback.
        fn polling(&self) -> bool;
    }

    /// Polls `fut` to completion on this thread, parked between polls (or,
    /// in the polling fallback, sleeping 50 µs doubling to 1 ms).
    pub(crate) fn block_on<F: Waiting>(fut: F) -> F::Output {
        let mut fut = pin!(fut);
        let waker = Waker::from(Arc::new(Unpark(thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut nap = Duration::from_micros(50);
        loop {
            if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
                return out;
            }
            if fut.polling() {
                thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(1));
            } else {
                // A spurious return only costs one more poll.
                thread::park();
            }
        }
    }
}

/// The async face of an MPMC ring, the same on [`crate::mpmc::Ring`] and
/// `mpmc::cs::Ring`: the `push`/`pop` constructors, the futures `Push` and
/// `Pop` (a ring reference, the item, a [`Registration`]) and their `Unpin`,
/// `Debug` and parking impls. `$path` is the ring's module as users write
/// it, for the doc examples. The invoking module has `Ring` and
/// `Registration` in scope and writes the futures' `Future` and `Drop`
/// impls, which follow its own protocol.
#[cfg(feature = "async")]
macro_rules! mpmc_wait_futures {
    ($path:literal $(, $F:ident)?) => {
        impl<T, const N: usize $(, $F: FreePool<N>)?> Ring<T, N $(, $F)?> {
            /// Pushes `item`, waiting (asynchronously) for a free slot.
            /// Resolves to `Ok(())` once the item is in, or to
            /// `Err(Closed(item))` once the ring is closed. Any pop (on any
            /// context, an interrupt handler's `try_pop` included) or the
            /// close wakes it; any number of tasks may wait (four per side
            /// sleep, more poll; see the module docs). A wait is not counted
            /// as a rejection; dropping the future drops the item. Feature
            /// `async`.
            ///
            /// ```
            #[doc = concat!("use ", $path, "::Ring;")]
            ///
            /// static JOBS: Ring<u32, 2> = Ring::new();
            /// std::thread::scope(|s| {
            ///     for t in 0..3 {
            ///         s.spawn(move || {
            ///             pollster::block_on(async {
            ///                 for i in 0..10 {
            ///                     JOBS.push(t * 10 + i).await.unwrap();
            ///                 }
            ///             })
            ///         });
            ///     }
            ///     let sum: u32 = pollster::block_on(async {
            ///         let mut sum = 0;
            ///         for _ in 0..30 {
            ///             sum += JOBS.pop().await.unwrap();
            ///         }
            ///         sum
            ///     });
            ///     assert_eq!(sum, (0..30).sum());
            /// });
            /// JOBS.close();
            /// assert!(pollster::block_on(JOBS.push(1)).is_err()); // handed back
            /// ```
            #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
            pub fn push(&self, item: T) -> Push<'_, T, N $(, $F)?> {
                Push {
                    ring: self,
                    item: Some(item),
                    reg: Registration::None,
                }
            }

            /// Pops the oldest item, waiting (asynchronously) until there is
            /// one; resolves to `None` once the ring is closed and drained.
            /// Any push (an interrupt handler's `try_push` included) or the
            /// close wakes it. Feature `async`.
            ///
            /// ```
            #[doc = concat!("use ", $path, "::Ring;")]
            ///
            /// static EVENTS: Ring<u8, 4> = Ring::new();
            /// let isr = std::thread::spawn(|| {
            ///     EVENTS.try_push(1).unwrap();
            ///     EVENTS.close();
            /// });
            /// assert_eq!(pollster::block_on(EVENTS.pop()), Some(1));
            /// assert_eq!(pollster::block_on(EVENTS.pop()), None); // closed and drained
            /// isr.join().unwrap();
            /// ```
            #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
            pub fn pop(&self) -> Pop<'_, T, N $(, $F)?> {
                Pop {
                    ring: self,
                    reg: Registration::None,
                }
            }
        }

        /// The future of [`Ring::push`]. Feature `async`.
        ///
        /// Holds the item until it is in; dropped before that, it drops the
        /// item and gives up its waker cell.
        ///
        /// ```
        #[doc = concat!("use ", $path, "::{Push, Ring};")]
        ///
        /// let ring: Ring<u8, 1> = Ring::new();
        /// let push: Push<'_, u8, 1> = ring.push(1);
        /// assert_eq!(pollster::block_on(push), Ok(()));
        /// ```
        #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
        #[must_use = "futures do nothing unless polled"]
        pub struct Push<'r, T, const N: usize $(, $F: FreePool<N> = FreeIndices<N>)?> {
            ring: &'r Ring<T, N $(, $F)?>,
            /// The item, until it is pushed or handed back.
            item: Option<T>,
            reg: Registration,
        }

        /// The future of [`Ring::pop`]. Feature `async`.
        ///
        /// ```
        #[doc = concat!("use ", $path, "::{Pop, Ring};")]
        ///
        /// let ring: Ring<u8, 1> = Ring::new();
        /// ring.try_push(2).unwrap();
        /// let pop: Pop<'_, u8, 1> = ring.pop();
        /// assert_eq!(pollster::block_on(pop), Some(2));
        /// ```
        #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
        #[must_use = "futures do nothing unless polled"]
        pub struct Pop<'r, T, const N: usize $(, $F: FreePool<N> = FreeIndices<N>)?> {
            ring: &'r Ring<T, N $(, $F)?>,
            reg: Registration,
        }

        // Never pinned in place: the item is moved by value.
        impl<T, const N: usize $(, $F: FreePool<N>)?> Unpin for Push<'_, T, N $(, $F)?> {}

        impl<T, const N: usize $(, $F: FreePool<N>)?> core::fmt::Debug for Push<'_, T, N $(, $F)?> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("Push")
                    .field("pending", &self.item.is_some())
                    .finish_non_exhaustive()
            }
        }

        impl<T, const N: usize $(, $F: FreePool<N>)?> core::fmt::Debug for Pop<'_, T, N $(, $F)?> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("Pop").finish_non_exhaustive()
            }
        }

        #[cfg(feature = "std")]
        impl<T, const N: usize $(, $F: FreePool<N>)?> crate::wait::park::Waiting for Push<'_, T, N $(, $F)?> {
            fn polling(&self) -> bool {
                self.reg == Registration::Polling
            }
        }

        #[cfg(feature = "std")]
        impl<T, const N: usize $(, $F: FreePool<N>)?> crate::wait::park::Waiting for Pop<'_, T, N $(, $F)?> {
            fn polling(&self) -> bool {
                self.reg == Registration::Polling
            }
        }
    };
}
#[cfg(feature = "async")]
pub(crate) use mpmc_wait_futures;
