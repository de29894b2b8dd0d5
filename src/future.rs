//! The futures of the MPMC rings' waits (feature `async`): [`Push`] and
//! [`Pop`], the same two types for [`mpmc::Ring`](crate::mpmc::Ring),
//! [`SmallRing`](crate::mpmc::SmallRing),
//! [`BurstRing`](crate::mpmc::BurstRing) and `mpmc::cs::Ring`. Each ring
//! module also names them for its ring (`mpmc::Push<'_, T, N>`, …).
//!
//! A future holds a reference to its ring and a waiter node. While it
//! waits, the node is linked into the ring's list of waiters of its side, so
//! the future is `!Unpin` (`.await` pins it; to poll one by hand, pin it
//! with `core::pin::pin!`). Any number wait per side and none polls: an
//! operation that makes room or publishes an item wakes one (the one that
//! waited longest), a burst of `k` up to `k`, the close every one. Dropped
//! while it waits, a future leaves the list and passes on a wake it did not
//! use. `src/wait.rs` has the protocol and why it loses no wake-up.
//!
//! ```
//! use sluicegate::future::Pop;
//! use sluicegate::mpmc::Ring;
//!
//! let ring: Ring<u8, 2> = Ring::new();
//! ring.try_push(5).unwrap();
//! let pop: Pop<'_, Ring<u8, 2>> = ring.pop();
//! assert_eq!(pollster::block_on(pop), Some(5));
//! ```

use crate::contract::Waitable;
use crate::wait::list::{Node, Wake};
use crate::wait::Side;
use crate::Closed;
use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

/// The future of a ring's `push`: resolves to `Ok(())` once the item is in,
/// or to `Err(Closed(item))` once the ring is closed. Holds the item until
/// then; dropped before that, it drops the item. Polled again after it
/// resolved, it panics (it no longer holds an item).
///
/// ```
/// use sluicegate::mpmc::{Push, Ring};
///
/// let ring: Ring<u8, 1> = Ring::new();
/// let push: Push<'_, u8, 1> = ring.push(1);
/// assert_eq!(pollster::block_on(push), Ok(()));
/// ```
#[must_use = "futures do nothing unless polled"]
pub struct Push<'r, R: Waitable> {
    ring: &'r R,
    /// The item, until it is pushed or handed back.
    item: Option<R::Item>,
    /// Linked into the ring's list of pushes while it waits.
    node: Node,
}

/// The future of a ring's `pop`: resolves to the oldest item, or to `None`
/// once the ring is closed and drained. Polled again after it resolved,
/// it pops again (another item, or `None`): each resolution is a pop.
///
/// ```
/// use sluicegate::mpmc::{Pop, Ring};
///
/// let ring: Ring<u8, 1> = Ring::new();
/// ring.try_push(2).unwrap();
/// let pop: Pop<'_, u8, 1> = ring.pop();
/// assert_eq!(pollster::block_on(pop), Some(2));
/// ```
#[must_use = "futures do nothing unless polled"]
pub struct Pop<'r, R: Waitable> {
    ring: &'r R,
    /// Linked into the ring's list of pops while it waits.
    node: Node,
}

impl<'r, R: Waitable> Push<'r, R> {
    /// A push of `item` onto `ring` that has not been polled.
    pub(crate) fn new(ring: &'r R, item: R::Item) -> Self {
        Self {
            ring,
            item: Some(item),
            node: Node::new(),
        }
    }

    /// One poll, woken as `wake` says.
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Result<(), Closed<R::Item>>> {
        // SAFETY: `node` is never moved out of the pinned future (only
        // borrowed); `item` is not pinned (it moves by value).
        let this = unsafe { self.get_unchecked_mut() };
        assert!(this.item.is_some(), "Push polled after it resolved");
        this.ring.poll_push(&this.node, wake, &mut this.item)
    }
}

impl<'r, R: Waitable> Pop<'r, R> {
    /// A pop from `ring` that has not been polled.
    pub(crate) fn new(ring: &'r R) -> Self {
        Self {
            ring,
            node: Node::new(),
        }
    }

    /// One poll, woken as `wake` says.
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Option<R::Item>> {
        let this = self.into_ref().get_ref();
        this.ring.poll_pop(&this.node, wake)
    }
}

impl<R: Waitable> Future for Push<'_, R> {
    type Output = Result<(), Closed<R::Item>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.poll_as(Wake::Task(cx.waker()))
    }
}

impl<R: Waitable> Future for Pop<'_, R> {
    type Output = Option<R::Item>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.poll_as(Wake::Task(cx.waker()))
    }
}

impl<R: Waitable> Drop for Push<'_, R> {
    fn drop(&mut self) {
        self.ring.leave(Side::Room, &self.node);
    }
}

impl<R: Waitable> Drop for Pop<'_, R> {
    fn drop(&mut self) {
        self.ring.leave(Side::Item, &self.node);
    }
}

impl<R: Waitable> fmt::Debug for Push<'_, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Push")
            .field("pending", &self.item.is_some())
            .finish_non_exhaustive()
    }
}

impl<R: Waitable> fmt::Debug for Pop<'_, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pop").finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl<R: Waitable> crate::wait::park::Parkable for Push<'_, R> {
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Self::Output> {
        Push::poll_as(self, wake)
    }
}

#[cfg(feature = "std")]
impl<R: Waitable> crate::wait::park::Parkable for Pop<'_, R> {
    fn poll_as(self: Pin<&mut Self>, wake: Wake<'_>) -> Poll<Self::Output> {
        Pop::poll_as(self, wake)
    }
}
