//! With `async`: the producer's drain wait, [`Producer::wait_below_low`],
//! and its future.

use super::super::{Policy, Producer};
use super::Marked;
use crate::wait::{Registration, Side};
use crate::Closed;
use core::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

impl<'a, T, const N: usize> Producer<'a, T, N, Marked> {
    /// Waits (asynchronously) until the ring holds the low watermark's
    /// count of items or fewer (see
    /// [`wait_below_low_blocking`](Self::wait_below_low_blocking)),
    /// registered in the producer's waker cell: every pop on any context
    /// wakes it to test the length again. Feature `async`.
    ///
    /// ```
    /// use sluicegate::spsc::{Level, Marked, Ring};
    ///
    /// let mut ring: Ring<u32, 16, Marked> = Ring::with_watermarks(4, 12);
    /// let (mut tx, mut rx) = ring.split();
    /// std::thread::scope(|s| {
    ///     s.spawn(move || pollster::block_on(async { while rx.pop().await.is_some() {} }));
    ///     pollster::block_on(async {
    ///         for i in 0..1000 {
    ///             tx.push(i).await.unwrap();
    ///             if tx.level() == Level::High {
    ///                 tx.wait_below_low().await.unwrap(); // slow the source
    ///             }
    ///         }
    ///         drop(tx); // ends the consumer's loop
    ///     });
    /// });
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub fn wait_below_low(&mut self) -> BelowLow<'_, 'a, T, N, Marked> {
        BelowLow {
            tx: self,
            reg: Registration::None,
        }
    }
}

/// The future of [`Producer::wait_below_low`]. Feature `async`.
///
/// ```
/// let mut ring: sluicegate::spsc::Ring<u8, 4, sluicegate::spsc::Marked> = sluicegate::spsc::Ring::with_watermarks(1, 3);
/// let (mut tx, _rx) = ring.split();
/// let wait: sluicegate::spsc::BelowLow<'_, '_, u8, 4, _> = tx.wait_below_low();
/// assert_eq!(pollster::block_on(wait), Ok(())); // empty: at once
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
#[must_use = "futures do nothing unless polled"]
pub struct BelowLow<'p, 'a, T, const N: usize, P: Policy> {
    tx: &'p mut Producer<'a, T, N, P>,
    reg: Registration,
}

impl<T, const N: usize> BelowLow<'_, '_, T, N, Marked> {
    /// `Some` once the wait is over.
    fn attempt(&mut self) -> Option<Result<(), Closed<()>>> {
        if self.tx.below_low() {
            return Some(Ok(()));
        }
        // The consumer is gone: its last pops came before its drop,
        // which this load saw, so one more test sees them all.
        if self.tx.is_abandoned() {
            return Some(if self.tx.below_low() {
                Ok(())
            } else {
                Err(Closed(()))
            });
        }
        None
    }

    fn done(&mut self, out: Result<(), Closed<()>>) -> Poll<Result<(), Closed<()>>> {
        self.tx.ring.waiters.disarm(Side::Room, &mut self.reg);
        Poll::Ready(out)
    }
}

impl<T, const N: usize> Future for BelowLow<'_, '_, T, N, Marked> {
    type Output = Result<(), Closed<()>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Some(out) = this.attempt() {
            return this.done(out);
        }
        this.tx
            .ring
            .waiters
            .arm(Side::Room, &mut this.reg, cx.waker());
        // After the fence: a pop whose wake missed our registration
        // stored its head before that fence, and this test sees it.
        match this.attempt() {
            Some(out) => this.done(out),
            None => Poll::Pending,
        }
    }
}

impl<T, const N: usize, P: Policy> Unpin for BelowLow<'_, '_, T, N, P> {}

impl<T, const N: usize, P: Policy> Drop for BelowLow<'_, '_, T, N, P> {
    fn drop(&mut self) {
        self.tx.ring.waiters.disarm(Side::Room, &mut self.reg);
    }
}

impl<T, const N: usize, P: Policy> core::fmt::Debug for BelowLow<'_, '_, T, N, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BelowLow").finish_non_exhaustive()
    }
}
