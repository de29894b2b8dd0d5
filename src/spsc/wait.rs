//! Waiting on an SPSC ring (feature `async`): [`Producer::push`] and
//! [`Consumer::pop`], their futures [`Push`] and [`Pop`], and the wake-ups
//! the ring's other operations send them. The protocol and why it loses no
//! wake-up are in `src/wait.rs`; here each side has one waker cell (the
//! `&mut` of a handle allows one waiter per side), so registering never
//! fails and never polls.
//!
//! Without the feature the wake-up helpers are empty and the ring is
//! unchanged.

#[cfg(all(feature = "async", sluicegate_cas))]
use super::{Consumer, Producer};
use super::{Policy, Ring};
#[cfg(all(feature = "async", sluicegate_cas))]
use crate::wait::{Registration, Side, Waiters};
#[cfg(all(feature = "async", sluicegate_cas))]
use crate::Closed;
#[cfg(all(feature = "async", sluicegate_cas))]
use core::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

/// One waker cell per side.
#[cfg(all(feature = "async", sluicegate_cas))]
pub(super) type RingWaiters = Waiters<1>;

// The wake-ups, called by the index moves in `spsc.rs` and the handles'
// `Drop`; empty without the feature.
impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// After a publish: wakes a consumer waiting in `pop`.
    #[inline(always)]
    pub(super) fn wake_consumer(&self) {
        #[cfg(all(feature = "async", sluicegate_cas))]
        self.waiters.notify(Side::Item);
    }

    /// After a release: wakes a producer waiting in `push`.
    #[inline(always)]
    pub(super) fn wake_producer(&self) {
        #[cfg(all(feature = "async", sluicegate_cas))]
        self.waiters.notify(Side::Room);
    }

    /// The producer is gone: wakes a consumer waiting in `pop`.
    #[inline]
    pub(super) fn wake_consumer_all(&self) {
        #[cfg(all(feature = "async", sluicegate_cas))]
        self.waiters.notify_all();
    }

    /// The consumer is gone: wakes a producer waiting in `push`.
    #[inline]
    pub(super) fn wake_producer_all(&self) {
        #[cfg(all(feature = "async", sluicegate_cas))]
        self.waiters.notify_all();
    }
}

#[cfg(all(feature = "async", sluicegate_cas))]
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

#[cfg(all(feature = "async", sluicegate_cas))]
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
/// and gives up its waker cell.
///
/// ```
/// let mut ring: sluicegate::spsc::Ring<u8, 1> = sluicegate::spsc::Ring::new();
/// let (mut tx, mut rx) = ring.split();
/// let push: sluicegate::spsc::Push<'_, '_, u8, 1, _> = tx.push(1);
/// assert_eq!(pollster::block_on(push), Ok(()));
/// assert_eq!(rx.try_pop(), Some(1));
/// ```
#[cfg(all(feature = "async", sluicegate_cas))]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
#[must_use = "futures do nothing unless polled"]
pub struct Push<'p, 'a, T, const N: usize, P: Policy> {
    tx: &'p mut Producer<'a, T, N, P>,
    /// The item, until it is pushed or handed back.
    item: Option<T>,
    reg: Registration,
}

/// The future of [`Consumer::pop`]. Feature `async`.
///
/// ```
/// let mut ring: sluicegate::spsc::Ring<u8, 1> = sluicegate::spsc::Ring::new();
/// let (mut tx, mut rx) = ring.split();
/// tx.try_push(3).unwrap();
/// let pop: sluicegate::spsc::Pop<'_, '_, u8, 1, _> = rx.pop();
/// assert_eq!(pollster::block_on(pop), Some(3));
/// ```
#[cfg(all(feature = "async", sluicegate_cas))]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
#[must_use = "futures do nothing unless polled"]
pub struct Pop<'c, 'a, T, const N: usize, P: Policy> {
    rx: &'c mut Consumer<'a, T, N, P>,
    reg: Registration,
}

// Neither future is ever pinned in place: the item is moved by value.
#[cfg(all(feature = "async", sluicegate_cas))]
impl<T, const N: usize, P: Policy> Unpin for Push<'_, '_, T, N, P> {}

#[cfg(all(feature = "async", sluicegate_cas))]
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

#[cfg(all(feature = "async", sluicegate_cas))]
impl<T, const N: usize, P: Policy> Push<'_, '_, T, N, P> {
    fn done(&mut self, out: Result<(), Closed<T>>) -> Poll<Result<(), Closed<T>>> {
        self.tx.ring.waiters.disarm(Side::Room, &mut self.reg);
        Poll::Ready(out)
    }
}

#[cfg(all(feature = "async", sluicegate_cas))]
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

#[cfg(all(feature = "async", sluicegate_cas))]
impl<T, const N: usize, P: Policy> Pop<'_, '_, T, N, P> {
    fn done(&mut self, out: Option<T>) -> Poll<Option<T>> {
        self.rx.ring.waiters.disarm(Side::Item, &mut self.reg);
        Poll::Ready(out)
    }
}

#[cfg(all(feature = "async", sluicegate_cas))]
impl<T, const N: usize, P: Policy> Drop for Push<'_, '_, T, N, P> {
    fn drop(&mut self) {
        self.tx.ring.waiters.disarm(Side::Room, &mut self.reg);
    }
}

#[cfg(all(feature = "async", sluicegate_cas))]
impl<T, const N: usize, P: Policy> Drop for Pop<'_, '_, T, N, P> {
    fn drop(&mut self) {
        self.rx.ring.waiters.disarm(Side::Item, &mut self.reg);
    }
}

#[cfg(all(feature = "async", sluicegate_cas))]
impl<T, const N: usize, P: Policy> core::fmt::Debug for Push<'_, '_, T, N, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Push")
            .field("pending", &self.item.is_some())
            .finish_non_exhaustive()
    }
}

#[cfg(all(feature = "async", sluicegate_cas))]
impl<T, const N: usize, P: Policy> core::fmt::Debug for Pop<'_, '_, T, N, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pop").finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl<T, const N: usize, P: Policy> crate::wait::park::Waiting for Push<'_, '_, T, N, P> {
    fn polling(&self) -> bool {
        false
    }
}

#[cfg(feature = "std")]
impl<T, const N: usize, P: Policy> crate::wait::park::Waiting for Pop<'_, '_, T, N, P> {
    fn polling(&self) -> bool {
        false
    }
}
