//! Waiting on an SPSC ring (feature `async`): [`Producer::push`] and
//! [`Consumer::pop`], their futures [`Push`] and [`Pop`], and the wake-ups
//! the ring's other operations send them. The protocol and why it loses no
//! wake-up are in `src/wait.rs`; here each side has one waker cell (the
//! `&mut` of a handle allows one waiter per side), so registering never
//! fails and never polls.
//!
//! The feature is decided once, by which `imp` is built: without it the
//! ring's [`RingWaiters`] are zero-sized, their wakes are empty, and the
//! ring is unchanged.
//!
//! [`Producer::push`]: super::Producer::push
//! [`Consumer::pop`]: super::Consumer::pop

use super::{Policy, Producer, Ring};
pub(super) use imp::RingWaiters;
use imp::Side;
#[cfg(all(feature = "async", sluicegate_cas))]
pub use imp::{Pop, Push};

// The wake-ups, called by the index moves in `spsc.rs` and the handles'
// `Drop`.
impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// After a publish: wakes a consumer waiting in `pop`.
    #[inline(always)]
    pub(super) fn wake_consumer(&self) {
        self.waiters.notify(Side::Item);
    }

    /// After a release: wakes a producer waiting in `push`.
    #[inline(always)]
    pub(super) fn wake_producer(&self) {
        self.waiters.notify(Side::Room);
    }

    /// The producer is gone: wakes a consumer waiting in `pop`.
    #[inline]
    pub(super) fn wake_consumer_all(&self) {
        self.waiters.notify_all();
    }

    /// The consumer is gone: wakes a producer waiting in `push`.
    #[inline]
    pub(super) fn wake_producer_all(&self) {
        self.waiters.notify_all();
    }
}

impl<T, const N: usize, P: Policy> Producer<'_, T, N, P> {
    /// After a push committed: wakes a consumer waiting in `pop`, and
    /// returns the push's `answer`.
    #[inline(always)]
    pub(super) fn wake_consumer_then<R>(&self, answer: R) -> R {
        if self.ring.waiters.waiting(Side::Item) {
            return self.wake_consumer_cold(answer);
        }
        answer
    }

    /// The wake of [`wake_consumer_then`](Self::wake_consumer_then), out of
    /// line: a method of the handle, whose address the push holds anyway,
    /// that returns the answer through [`core::hint::black_box`]. The
    /// compiler then neither makes the answer before the test nor keeps it
    /// in a register across the call, so a push that wakes nobody pays the
    /// test alone: on the Cortex-M0 a ring's wake call with the answer made
    /// by the push cost three instructions more (`BENCHMARKS.md`).
    #[cold]
    #[inline(never)]
    fn wake_consumer_cold<R>(&self, answer: R) -> R {
        self.ring.waiters.wake(Side::Item);
        core::hint::black_box(answer)
    }
}

/// With `async`: the waker cells, and the futures that register in them.
#[cfg(all(feature = "async", sluicegate_cas))]
mod imp {
    use super::super::{Consumer, Policy, Producer};
    use crate::sync::Padded;
    pub(super) use crate::wait::Side;
    use crate::wait::{Registration, Waiters};
    use crate::Closed;
    use core::{
        future::Future,
        ops::Deref,
        pin::Pin,
        task::{Context, Poll},
    };

    /// One waker cell per side, on a cache line of its own.
    pub(crate) struct RingWaiters(Padded<Waiters>);

    impl RingWaiters {
        crate::sync::const_fn! {
            pub(crate) fn new() -> Self {
                Self(Padded::new(Waiters::new()))
            }
        }
    }

    impl Deref for RingWaiters {
        type Target = Waiters;
        #[inline(always)]
        fn deref(&self) -> &Waiters {
            &self.0
        }
    }

    impl<'a, T, const N: usize, P: Policy> Producer<'a, T, N, P> {
        /// Pushes `item`, waiting (asynchronously) for room. The future
        /// resolves to `Ok(())` once the item is in, or to `Err(Closed(item))`
        /// if the ring is full and the consumer is gone
        /// ([`is_abandoned`](Self::is_abandoned)). A pop on any context wakes
        /// it; a wait is not a rejection and is not counted. Dropping the future
        /// before it resolves drops the item with it. Feature `async`.
        ///
        /// ```
        /// use sluicegate::spsc::Ring;
        ///
        /// let mut ring: Ring<u32, 2> = Ring::new();
        /// let (mut tx, mut rx) = ring.split();
        /// std::thread::scope(|s| {
        ///     s.spawn(move || {
        ///         pollster::block_on(async {
        ///             for i in 0..100 {
        ///                 tx.push(i).await.unwrap(); // sleeps while the ring is full
        ///             }
        ///         })
        ///     });
        ///     pollster::block_on(async {
        ///         for i in 0..100 {
        ///             assert_eq!(rx.pop().await, Some(i));
        ///         }
        ///         assert_eq!(rx.pop().await, None); // the producer is gone
        ///     });
        /// });
        /// ```
        #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
        pub fn push(&mut self, item: T) -> Push<'_, 'a, T, N, P> {
            Push {
                tx: self,
                item: Some(item),
                reg: Registration::None,
            }
        }
    }

    impl<'a, T, const N: usize, P: Policy> Consumer<'a, T, N, P> {
        /// Pops the oldest item, waiting (asynchronously) until there is one.
        /// Resolves to `None` only when the producer is gone and the ring is
        /// drained. A push on any context (an interrupt handler's `try_push` or
        /// `push_overwrite` included) wakes it. Feature `async`.
        ///
        /// ```
        /// use sluicegate::spsc::Ring;
        ///
        /// static RING: Ring<u8, 4> = Ring::new();
        /// let (mut tx, mut rx) = RING.try_split().unwrap();
        /// let interrupt = std::thread::spawn(move || tx.try_push(7).unwrap());
        /// assert_eq!(pollster::block_on(rx.pop()), Some(7));
        /// interrupt.join().unwrap(); // drops the producer
        /// assert_eq!(pollster::block_on(rx.pop()), None);
        /// ```
        #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
        pub fn pop(&mut self) -> Pop<'_, 'a, T, N, P> {
            Pop {
                rx: self,
                reg: Registration::None,
            }
        }
    }

    /// The future of [`Producer::push`]. Feature `async`.
    ///
    /// Holds the item until it is in; dropped before that, it drops the item
    /// and gives up its waker cell. Polled again after it resolved, it
    /// panics (it no longer holds an item).
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 1> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// let push: sluicegate::spsc::Push<'_, '_, u8, 1, _> = tx.push(1);
    /// assert_eq!(pollster::block_on(push), Ok(()));
    /// assert_eq!(rx.try_pop(), Some(1));
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    #[must_use = "futures do nothing unless polled"]
    pub struct Push<'p, 'a, T, const N: usize, P: Policy> {
        tx: &'p mut Producer<'a, T, N, P>,
        /// The item, until it is pushed or handed back.
        item: Option<T>,
        reg: Registration,
    }

    /// The future of [`Consumer::pop`]. Feature `async`. Polled again after
    /// it resolved, it pops again: each resolution is a pop.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 1> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push(3).unwrap();
    /// let pop: sluicegate::spsc::Pop<'_, '_, u8, 1, _> = rx.pop();
    /// assert_eq!(pollster::block_on(pop), Some(3));
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    #[must_use = "futures do nothing unless polled"]
    pub struct Pop<'c, 'a, T, const N: usize, P: Policy> {
        rx: &'c mut Consumer<'a, T, N, P>,
        reg: Registration,
    }

    // Neither future is ever pinned in place: the item is moved by value.
    impl<T, const N: usize, P: Policy> Unpin for Push<'_, '_, T, N, P> {}

    impl<T, const N: usize, P: Policy> Future for Push<'_, '_, T, N, P> {
        type Output = Result<(), Closed<T>>;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            let this = &mut *self;
            let item = this.item.take().expect("Push polled after it resolved");
            let item = match this.tx.push_if_room(item) {
                Ok(()) => return this.done(Ok(())),
                Err(item) if this.tx.is_abandoned() => return this.done(Err(Closed(item))),
                Err(item) => item,
            };
            let waiters = &this.tx.ring.waiters;
            waiters.arm(Side::Room, &mut this.reg, cx.waker());
            match this.tx.push_if_room(item) {
                Ok(()) => this.done(Ok(())),
                // Loaded after the fence: a drop of the consumer before it is
                // seen here, one after it sees our registration.
                Err(item) if this.tx.is_abandoned() => this.done(Err(Closed(item))),
                Err(item) => {
                    this.item = Some(item);
                    Poll::Pending
                }
            }
        }
    }

    impl<T, const N: usize, P: Policy> Push<'_, '_, T, N, P> {
        fn done(&mut self, out: Result<(), Closed<T>>) -> Poll<Result<(), Closed<T>>> {
            self.tx.ring.waiters.disarm(Side::Room, &mut self.reg);
            Poll::Ready(out)
        }
    }

    impl<T, const N: usize, P: Policy> Future for Pop<'_, '_, T, N, P> {
        type Output = Option<T>;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
            let this = &mut *self;
            if let Some(out) = this.rx.pop_or_finished() {
                return this.done(out);
            }
            this.rx
                .ring
                .waiters
                .arm(Side::Item, &mut this.reg, cx.waker());
            match this.rx.pop_or_finished() {
                Some(out) => this.done(out),
                None => Poll::Pending,
            }
        }
    }

    impl<T, const N: usize, P: Policy> Pop<'_, '_, T, N, P> {
        fn done(&mut self, out: Option<T>) -> Poll<Option<T>> {
            self.rx.ring.waiters.disarm(Side::Item, &mut self.reg);
            Poll::Ready(out)
        }
    }

    impl<T, const N: usize, P: Policy> Drop for Push<'_, '_, T, N, P> {
        fn drop(&mut self) {
            self.tx.ring.waiters.disarm(Side::Room, &mut self.reg);
        }
    }

    impl<T, const N: usize, P: Policy> Drop for Pop<'_, '_, T, N, P> {
        fn drop(&mut self) {
            self.rx.ring.waiters.disarm(Side::Item, &mut self.reg);
        }
    }

    impl<T, const N: usize, P: Policy> core::fmt::Debug for Push<'_, '_, T, N, P> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.debug_struct("Push")
                .field("pending", &self.item.is_some())
                .finish_non_exhaustive()
        }
    }

    impl<T, const N: usize, P: Policy> core::fmt::Debug for Pop<'_, '_, T, N, P> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.debug_struct("Pop").finish_non_exhaustive()
        }
    }
}

/// Without `async` nobody waits: zero-sized waiters whose wakes do nothing.
#[cfg(not(all(feature = "async", sluicegate_cas)))]
mod imp {
    /// No waker cells.
    pub(crate) struct RingWaiters;

    /// Which side a wake is for (as `wait::Side`).
    pub(super) enum Side {
        Item,
        Room,
    }

    impl RingWaiters {
        pub(crate) const fn new() -> Self {
            Self
        }

        #[inline(always)]
        pub(super) fn notify(&self, _side: Side) {}

        #[inline(always)]
        pub(super) fn waiting(&self, _side: Side) -> bool {
            false
        }

        #[inline(always)]
        pub(super) fn wake(&self, _side: Side) {}

        #[inline(always)]
        pub(super) fn notify_all(&self) {}
    }
}
