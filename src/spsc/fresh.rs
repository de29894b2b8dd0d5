//! Expiry on the SPSC consumer: `try_pop_fresh` and its forms, each a
//! delegation to the loops of [`crate::expire`]. A discarded item is
//! counted in [`RingStats::expired`](crate::RingStats::expired) (a load and
//! a store by the consumer, the counter's only writer) before it is dropped
//! or handed over. No new concurrent transition: a fresh pop is the
//! consumer's own pop, then a check.

use super::{Consumer, Policy};
use crate::expire::{burst_fresh, first_fresh, Expiry};

impl<T, const N: usize, P: Policy> Consumer<'_, T, N, P> {
    /// [`try_pop`](Self::try_pop), discarding expired items: pops until an
    /// item has not expired (see [`crate::expire`]) and returns it; each
    /// expired item it meets is dropped and counted in
    /// [`RingStats::expired`](crate::RingStats::expired). `None` if the ring
    /// is empty, or after `N` discards (a call does bounded work, so an
    /// interrupt handler may pop this way). Wait-free under
    /// [`Reject`](super::Reject), as `try_pop`.
    ///
    /// ```
    /// use sluicegate::expire::{OlderThan, Stamp};
    ///
    /// let mut ring: sluicegate::spsc::Ring<Stamp<u16>, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push(Stamp { at: 0, item: 1 }).unwrap();
    /// tx.try_push(Stamp { at: 90, item: 2 }).unwrap();
    /// let fresh = rx.try_pop_fresh(OlderThan { now: 100, budget: 20 });
    /// assert_eq!(fresh.map(|s| s.item), Some(2));
    /// assert_eq!(rx.stats().expired, 1);
    /// ```
    pub fn try_pop_fresh<E: Expiry<T>>(&mut self, expiry: E) -> Option<T> {
        self.try_pop_fresh_with(expiry, drop)
    }

    /// [`try_pop_fresh`](Self::try_pop_fresh) that hands each expired item
    /// to `on_expired` instead of dropping it; counted the same way, before
    /// `on_expired` runs.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u32, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_iter([10, 20, 30]);
    /// let mut late = Vec::new();
    /// let fresh = rx.try_pop_fresh_with(|deadline: &u32| *deadline < 25, |x| late.push(x));
    /// assert_eq!((fresh, late), (Some(30), vec![10, 20]));
    /// ```
    pub fn try_pop_fresh_with<E: Expiry<T>>(
        &mut self,
        mut expiry: E,
        on_expired: impl FnMut(T),
    ) -> Option<T> {
        let ring = self.ring;
        first_fresh(
            N,
            || self.try_pop(),
            &mut expiry,
            || ring.producer.expired.add(1),
            on_expired,
        )
    }

    /// Waits (asynchronously) for an item that has not expired, discarding
    /// and counting the expired ones it pops; `None` once the producer is
    /// gone and the ring is drained. Yields to the executor after each run
    /// of `N` discards. Feature `async`.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u32, 4> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_iter([1, 40]);
    /// assert_eq!(pollster::block_on(rx.pop_fresh(|x: &u32| *x < 10)), Some(40));
    /// ```
    #[cfg(all(feature = "async", sluicegate_cas))]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub async fn pop_fresh<E: Expiry<T>>(&mut self, mut expiry: E) -> Option<T> {
        let mut run = 0;
        loop {
            let item = self.pop().await?;
            if !expiry.expired(&item) {
                return Some(item);
            }
            self.ring.producer.expired.add(1);
            drop(item);
            run += 1;
            if run == N {
                run = 0;
                crate::expire::YieldOnce::new().await;
            }
        }
    }
}

impl<T: Copy, const N: usize, P: Policy> Consumer<'_, T, N, P> {
    /// [`pop_burst`](Self::pop_burst), discarding expired items: fills the
    /// front of `out` with items that have not expired, in ring order, and
    /// returns how many. Expired items are counted in
    /// [`RingStats::expired`](crate::RingStats::expired). Stops when `out`
    /// is full, the ring has no more, or after `N` discards.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u32, 8> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.push_burst(&[5, 50, 6, 60, 70]);
    /// let mut out = [0; 4];
    /// let kept = rx.pop_burst_fresh(&mut out, |x: &u32| *x < 10);
    /// assert_eq!(&out[..kept], &[50, 60, 70]);
    /// assert_eq!(rx.stats().expired, 2);
    /// ```
    pub fn pop_burst_fresh<E: Expiry<T>>(&mut self, out: &mut [T], mut expiry: E) -> usize {
        let ring = self.ring;
        burst_fresh(
            N,
            out,
            |o| self.pop_burst(o),
            &mut expiry,
            |k| ring.producer.expired.add(k),
        )
    }
}
