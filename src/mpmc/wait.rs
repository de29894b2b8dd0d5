//! Waiting on the SCQ ring (feature `async`): [`Ring::push`] and
//! [`Ring::pop`], their futures [`Push`] and [`Pop`], and the wake-ups the
//! ring's other operations send them. The protocol and why it loses no
//! wake-up are in `src/wait.rs`. Each side has four waker cells; a fifth
//! concurrent waiter on a side polls (it wakes itself at once) until a cell
//! is free.
//!
//! Without the feature the wake-up helpers are empty and the ring is
//! unchanged.

#[cfg(feature = "async")]
use super::lifecycle::NoRoom;
#[cfg(feature = "async")]
use super::FreeIndices;
use super::{FreePool, Ring};
#[cfg(feature = "async")]
use crate::wait::{Registration, Side, Waiters};
#[cfg(feature = "async")]
use crate::Closed;
#[cfg(feature = "async")]
use core::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

/// Four waker cells per side.
#[cfg(feature = "async")]
pub(super) type RingWaiters = Waiters<4>;

// The wake-ups, called by `publish`, `take`, `close` and `FreeSlot`'s drop;
// empty without the feature.
impl<T, const N: usize, F: FreePool<N>> Ring<T, N, F> {
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
crate::wait::mpmc_wait_futures!("sluicegate::mpmc", F);

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>> Future for Push<'_, T, N, F> {
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
impl<T, const N: usize, F: FreePool<N>> Push<'_, T, N, F> {
    fn done(&mut self, out: Result<(), Closed<T>>) -> Poll<Result<(), Closed<T>>> {
        self.ring.waiters.disarm(Side::Room, &mut self.reg);
        Poll::Ready(out)
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>> Future for Pop<'_, T, N, F> {
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
impl<T, const N: usize, F: FreePool<N>> Pop<'_, T, N, F> {
    fn done(&mut self, out: Option<T>) -> Poll<Option<T>> {
        self.ring.waiters.disarm(Side::Item, &mut self.reg);
        Poll::Ready(out)
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>> Drop for Push<'_, T, N, F> {
    fn drop(&mut self) {
        self.ring.waiters.disarm(Side::Room, &mut self.reg);
    }
}

#[cfg(feature = "async")]
impl<T, const N: usize, F: FreePool<N>> Drop for Pop<'_, T, N, F> {
    fn drop(&mut self) {
        self.ring.waiters.disarm(Side::Item, &mut self.reg);
    }
}
