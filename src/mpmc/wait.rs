//! Waiting on the SCQ ring (feature `async`): [`Ring::push`] and
//! [`Ring::pop`], their futures [`Push`] and [`Pop`], and the wake-ups the
//! ring's other operations send them. The protocol and why it loses no
//! wake-up are in `src/wait.rs`. Each side has four waker cells; a fifth
//! concurrent waiter on a side polls (it wakes itself at once) until a cell
//! is free.
//!
//! Without the feature the wake-up helpers are empty and the ring is
//! unchanged.

use super::Ring;
#[cfg(feature = "async")]
use crate::wait::{Registration, Side, Waiters};
#[cfg(feature = "async")]
use crate::{Closed, TryPopError};
#[cfg(feature = "async")]
use core::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

/// Four waker cells per side.
#[cfg(feature = "async")]
pub(super) type RingWaiters = Waiters<4>;

/// An item that found no free slot (and the ring open).
#[cfg(feature = "async")]
pub(super) struct NoRoom<T>(pub(super) T);

// The wake-ups, called by `publish`, `take`, `close` and `FreeSlot`'s drop;
// empty without the feature.
impl<T, const N: usize> Ring<T, N> {
    /// After an item was published: wakes the tasks waiting in `pop`.
    #[inline(always)]
    pub(super) fn wake_poppers(&self) {
        #[cfg(feature = "async")]
        self.waiters.notify(Side::Item);
    }

    /// After a slot went back to `fq`: wakes the tasks waiting in `push`.
    #[inline(always)]
    pub(super) fn wake_pushers(&self) {
        #[cfg(feature = "async")]
        self.waiters.notify(Side::Room);
    }

    /// After the close: wakes every waiting task.
    #[inline]
    pub(super) fn wake_all(&self) {
        #[cfg(feature = "async")]
        self.waiters.notify_all();
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> Ring<T, N> {
    /// Pushes `item` if a slot is free, without counting a refusal:
    /// `Ok(Ok(()))` pushed, `Ok(Err(Closed))` closed, `Err(NoRoom)` full.
    #[inline]
    pub(super) fn push_if_room(&self, item: T) -> Result<Result<(), Closed<T>>, NoRoom<T>> {
        match self.fq.dequeue() {
            Some(i) => {
                // SAFETY: we took `i` from `fq`, so the slot is free and ours.
                unsafe { self.write(i, item) };
                Ok(self.publish(i))
            }
            None if self.is_closed() => Ok(Err(Closed(item))),
            None => Err(NoRoom(item)),
        }
    }

    /// Pushes `item`, waiting (asynchronously) for a free slot. Resolves to
    /// `Ok(())` once the item is in, or to `Err(Closed(item))` once the ring
    /// is closed. Any pop (on any context) or the close wakes it; any number
    /// of tasks may wait (four per side sleep, more poll; see the module
    /// docs). A wait is not counted as a rejection; dropping the future
    /// drops the item. Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::Ring;
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
    pub fn push(&self, item: T) -> Push<'_, T, N> {
        Push {
            ring: self,
            item: Some(item),
            reg: Registration::None,
        }
    }

    /// Pops the oldest item, waiting (asynchronously) until there is one;
    /// resolves to `None` once the ring is closed and drained. Any push (an
    /// interrupt handler's `try_push` included) or the close wakes it.
    /// Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::Ring;
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
    pub fn pop(&self) -> Pop<'_, T, N> {
        Pop {
            ring: self,
            reg: Registration::None,
        }
    }

    /// `Some(Some(item))`, `Some(None)` if closed and drained, `None` if the
    /// caller must wait.
    fn pop_or_finished(&self) -> Option<Option<T>> {
        match self.try_pop_or_closed() {
            Ok(item) => Some(Some(item)),
            Err(TryPopError::Closed) => Some(None),
            Err(TryPopError::Empty) => None,
        }
    }
}

/// The future of [`Ring::push`]. Feature `async`.
///
/// Holds the item until it is in; dropped before that, it drops the item
/// and gives up its waker cell.
///
/// ```
/// let ring: sluicegate::mpmc::Ring<u8, 1> = sluicegate::mpmc::Ring::new();
/// let push: sluicegate::mpmc::Push<'_, u8, 1> = ring.push(1);
/// assert_eq!(pollster::block_on(push), Ok(()));
/// ```
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
#[must_use = "futures do nothing unless polled"]
pub struct Push<'r, T, const N: usize> {
    ring: &'r Ring<T, N>,
    /// The item, until it is pushed or handed back.
    item: Option<T>,
    reg: Registration,
}

/// The future of [`Ring::pop`]. Feature `async`.
///
/// ```
/// let ring: sluicegate::mpmc::Ring<u8, 1> = sluicegate::mpmc::Ring::new();
/// ring.try_push(2).unwrap();
/// let pop: sluicegate::mpmc::Pop<'_, u8, 1> = ring.pop();
/// assert_eq!(pollster::block_on(pop), Some(2));
/// ```
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
#[must_use = "futures do nothing unless polled"]
pub struct Pop<'r, T, const N: usize> {
    ring: &'r Ring<T, N>,
    reg: Registration,
}

// Never pinned in place: the item is moved by value.
#[cfg(feature = "async")]
impl<T, const N: usize> Unpin for Push<'_, T, N> {}

#[cfg(feature = "async")]
impl<T, const N: usize> Future for Push<'_, T, N> {
    type Output = Result<(), Closed<T>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let item = this.item.take().expect("Push polled after it resolved");
        let NoRoom(item) = match this.ring.push_if_room(item) {
            Ok(done) => return this.done(done),
            Err(no_room) => no_room,
        };
        this.ring.waiters.arm(Side::Room, &mut this.reg, cx.waker());
        // After the fence: a pop's freed slot or the close before it is
        // seen here; one after it sees our registration.
        match this.ring.push_if_room(item) {
            Ok(done) => this.done(done),
            Err(NoRoom(item)) => {
                this.item = Some(item);
                Poll::Pending
            }
        }
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> Push<'_, T, N> {
    fn done(&mut self, out: Result<(), Closed<T>>) -> Poll<Result<(), Closed<T>>> {
        self.ring.waiters.disarm(Side::Room, &mut self.reg);
        Poll::Ready(out)
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> Future for Pop<'_, T, N> {
    type Output = Option<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = &mut *self;
        if let Some(out) = this.ring.pop_or_finished() {
            return this.done(out);
        }
        this.ring.waiters.arm(Side::Item, &mut this.reg, cx.waker());
        match this.ring.pop_or_finished() {
            Some(out) => this.done(out),
            None => Poll::Pending,
        }
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> Pop<'_, T, N> {
    fn done(&mut self, out: Option<T>) -> Poll<Option<T>> {
        self.ring.waiters.disarm(Side::Item, &mut self.reg);
        Poll::Ready(out)
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> Drop for Push<'_, T, N> {
    fn drop(&mut self) {
        self.ring.waiters.disarm(Side::Room, &mut self.reg);
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> Drop for Pop<'_, T, N> {
    fn drop(&mut self) {
        self.ring.waiters.disarm(Side::Item, &mut self.reg);
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> core::fmt::Debug for Push<'_, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Push")
            .field("pending", &self.item.is_some())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize> core::fmt::Debug for Pop<'_, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pop").finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl<T, const N: usize> crate::wait::park::Waiting for Push<'_, T, N> {
    fn polling(&self) -> bool {
        self.reg == Registration::Polling
    }
}

#[cfg(feature = "std")]
impl<T, const N: usize> crate::wait::park::Waiting for Pop<'_, T, N> {
    fn polling(&self) -> bool {
        self.reg == Registration::Polling
    }
}
