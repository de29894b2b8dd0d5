//! Expiry on the MPMC rings: `try_pop_fresh` and its forms on
//! [`Ring`](super::Ring), [`cs::Ring`](super::cs::Ring) and
//! [`BurstRing`](super::BurstRing), each a delegation to the loops of
//! [`crate::expire`]. A discarded item is counted in
//! [`RingStats::expired`](crate::RingStats::expired) before it is dropped or
//! handed over; the count is a read-modify-write (a critical section on
//! `cs::Ring`) that only a discard pays. No new concurrent transition: a
//! fresh pop is the ring's own pop, then a check in the caller's context.

#[cfg(feature = "critical-section")]
use super::cs;
#[cfg(sluicegate_cas)]
use super::{
    burst_ring::{Marks, Moved, PopError, Stop},
    BurstRing, FreePool, Ring,
};
use crate::expire::{burst_fresh, first_fresh, Expiry};

#[cfg(sluicegate_cas)]
impl<T, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    /// [`try_pop`](Self::try_pop), discarding expired items: pops until an
    /// item has not expired (see [`crate::expire`]) and returns it; each
    /// expired item it meets is dropped and counted in
    /// [`RingStats::expired`](crate::RingStats::expired). `None` if the ring
    /// is empty, or after `N` discards (a call does bounded work).
    /// Lock-free.
    ///
    /// ```
    /// use sluicegate::expire::{OlderThan, Stamp};
    ///
    /// let ring: sluicegate::mpmc::Ring<Stamp<u8>, 4> = sluicegate::mpmc::Ring::new();
    /// ring.try_push(Stamp { at: 0, item: 1 }).unwrap();
    /// ring.try_push(Stamp { at: 90, item: 2 }).unwrap();
    /// let fresh = ring.try_pop_fresh(OlderThan { now: 100, budget: 20 });
    /// assert_eq!(fresh, Some(Stamp { at: 90, item: 2 }));
    /// assert_eq!(ring.stats().expired, 1);
    /// ```
    pub fn try_pop_fresh<E: Expiry<T>>(&self, expiry: E) -> Option<T> {
        self.try_pop_fresh_with(expiry, drop)
    }

    /// [`try_pop_fresh`](Self::try_pop_fresh) that hands each expired item
    /// to `on_expired` (to answer its client "timed out", say) instead of
    /// dropping it; counted the same way, before `on_expired` runs.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u32, 4> = sluicegate::mpmc::Ring::new();
    /// ring.push_iter([10, 20, 30]);
    /// let mut late = Vec::new();
    /// let fresh = ring.try_pop_fresh_with(|deadline: &u32| *deadline < 25, |x| late.push(x));
    /// assert_eq!((fresh, late), (Some(30), vec![10, 20]));
    /// ```
    pub fn try_pop_fresh_with<E: Expiry<T>>(
        &self,
        mut expiry: E,
        on_expired: impl FnMut(T),
    ) -> Option<T> {
        first_fresh(
            N,
            || self.try_pop(),
            &mut expiry,
            || self.note_expired(1),
            on_expired,
        )
    }

    /// Waits (asynchronously) for an item that has not expired, discarding
    /// and counting the expired ones it pops; `None` once the ring is
    /// closed and drained. Yields to the executor after each run of `N`
    /// discards. Feature `async`.
    ///
    /// ```
    /// use sluicegate::expire::{OlderThan, Stamp};
    ///
    /// let ring: sluicegate::mpmc::Ring<Stamp<u8>, 4> = sluicegate::mpmc::Ring::new();
    /// ring.try_push(Stamp { at: 0, item: 1 }).unwrap();
    /// ring.try_push(Stamp { at: 95, item: 2 }).unwrap();
    /// let fresh = pollster::block_on(ring.pop_fresh(OlderThan { now: 100, budget: 10 }));
    /// assert_eq!(fresh.map(|s| s.item), Some(2));
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub async fn pop_fresh<E: Expiry<T>>(&self, mut expiry: E) -> Option<T> {
        crate::expire::pop_fresh_async(N, || self.pop(), &mut expiry, || self.note_expired(1)).await
    }
}

#[cfg(sluicegate_cas)]
impl<T: Copy, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    /// [`pop_burst`](Self::pop_burst), discarding expired items: fills the
    /// front of `out` with items that have not expired, in ring order, and
    /// returns how many. Expired items are counted in
    /// [`RingStats::expired`](crate::RingStats::expired). Stops when `out`
    /// is full, the ring has no more, or after `N` discards. Lock-free.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u32, 8> = sluicegate::mpmc::Ring::new();
    /// ring.push_burst(&[5, 50, 6, 60, 70]);
    /// let mut out = [0; 4];
    /// let kept = ring.pop_burst_fresh(&mut out, |x: &u32| *x < 10);
    /// assert_eq!(&out[..kept], &[50, 60, 70]);
    /// assert_eq!(ring.stats().expired, 2);
    /// ```
    pub fn pop_burst_fresh<E: Expiry<T>>(&self, out: &mut [T], mut expiry: E) -> usize {
        burst_fresh(
            N,
            out,
            |o| self.pop_burst(o),
            &mut expiry,
            |k| self.note_expired(k),
        )
    }
}

#[cfg(feature = "critical-section")]
impl<T, const N: usize, M: cs::Marks> cs::Ring<T, N, M> {
    /// [`try_pop`](Self::try_pop), discarding expired items: pops until an
    /// item has not expired (see [`crate::expire`]) and returns it; each
    /// expired item it meets is dropped and counted in
    /// [`RingStats::expired`](crate::RingStats::expired). `None` if the ring
    /// is empty, or after `N` discards. One critical section per pop and
    /// one per discard.
    ///
    /// ```
    /// use sluicegate::expire::{OlderThan, Stamp};
    ///
    /// let ring: sluicegate::mpmc::cs::Ring<Stamp<u8>, 4> = sluicegate::mpmc::cs::Ring::new();
    /// ring.try_push(Stamp { at: 0, item: 1 }).unwrap();
    /// ring.try_push(Stamp { at: 90, item: 2 }).unwrap();
    /// let fresh = ring.try_pop_fresh(OlderThan { now: 100, budget: 20 });
    /// assert_eq!(fresh, Some(Stamp { at: 90, item: 2 }));
    /// assert_eq!(ring.stats().expired, 1);
    /// ```
    pub fn try_pop_fresh<E: Expiry<T>>(&self, expiry: E) -> Option<T> {
        self.try_pop_fresh_with(expiry, drop)
    }

    /// [`try_pop_fresh`](Self::try_pop_fresh) that hands each expired item
    /// to `on_expired` instead of dropping it (counted first).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u32, 4> = sluicegate::mpmc::cs::Ring::new();
    /// ring.push_iter([10, 20, 30]);
    /// let mut late = Vec::new();
    /// let fresh = ring.try_pop_fresh_with(|deadline: &u32| *deadline < 25, |x| late.push(x));
    /// assert_eq!((fresh, late), (Some(30), vec![10, 20]));
    /// ```
    pub fn try_pop_fresh_with<E: Expiry<T>>(
        &self,
        mut expiry: E,
        on_expired: impl FnMut(T),
    ) -> Option<T> {
        first_fresh(
            N,
            || self.try_pop(),
            &mut expiry,
            || self.note_expired(1),
            on_expired,
        )
    }

    /// Waits (asynchronously) for an item that has not expired, discarding
    /// and counting the expired ones; `None` once the ring is closed and
    /// drained. Yields after each run of `N` discards. Feature `async`.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u32, 4> = sluicegate::mpmc::cs::Ring::new();
    /// ring.push_iter([1, 40]);
    /// assert_eq!(pollster::block_on(ring.pop_fresh(|x: &u32| *x < 10)), Some(40));
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub async fn pop_fresh<E: Expiry<T>>(&self, mut expiry: E) -> Option<T> {
        crate::expire::pop_fresh_async(N, || self.pop(), &mut expiry, || self.note_expired(1)).await
    }
}

#[cfg(feature = "critical-section")]
impl<T: Copy, const N: usize, M: cs::Marks> cs::Ring<T, N, M> {
    /// [`pop_burst`](Self::pop_burst), discarding expired items (counted):
    /// fills the front of `out` with items that have not expired and
    /// returns how many; stops when `out` is full, the ring has no more, or
    /// after `N` discards.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::cs::Ring<u32, 8> = sluicegate::mpmc::cs::Ring::new();
    /// ring.push_burst(&[5, 50, 6, 60]);
    /// let mut out = [0; 4];
    /// let kept = ring.pop_burst_fresh(&mut out, |x: &u32| *x < 10);
    /// assert_eq!(&out[..kept], &[50, 60]);
    /// assert_eq!(ring.stats().expired, 2);
    /// ```
    pub fn pop_burst_fresh<E: Expiry<T>>(&self, out: &mut [T], mut expiry: E) -> usize {
        burst_fresh(
            N,
            out,
            |o| self.pop_burst(o),
            &mut expiry,
            |k| self.note_expired(k),
        )
    }
}

#[cfg(sluicegate_cas)]
impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// [`try_pop`](Self::try_pop), discarding expired items: pops until an
    /// item has not expired and returns it; each expired item it meets is
    /// counted in [`RingStats::expired`](crate::RingStats::expired). The
    /// errors are `try_pop`'s (the one that ended the search), and
    /// [`PopError::Empty`] after `N` discards. Never waits.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, PopError};
    ///
    /// let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    /// ring.push_burst(&[1, 40]);
    /// assert_eq!(ring.try_pop_fresh(|x: &u32| *x < 10), Ok(40));
    /// assert_eq!(ring.try_pop_fresh(|x: &u32| *x < 10), Err(PopError::Empty));
    /// assert_eq!(ring.stats().expired, 1);
    /// ```
    pub fn try_pop_fresh<E: Expiry<T>>(&self, expiry: E) -> Result<T, PopError> {
        self.try_pop_fresh_with(expiry, drop)
    }

    /// [`try_pop_fresh`](Self::try_pop_fresh) that hands each expired item
    /// to `on_expired` (counted first).
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::BurstRing;
    ///
    /// let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    /// ring.push_burst(&[10, 20, 30]);
    /// let mut late = Vec::new();
    /// let fresh = ring.try_pop_fresh_with(|d: &u32| *d < 25, |x| late.push(x));
    /// assert_eq!((fresh, late), (Ok(30), vec![10, 20]));
    /// ```
    pub fn try_pop_fresh_with<E: Expiry<T>>(
        &self,
        mut expiry: E,
        on_expired: impl FnMut(T),
    ) -> Result<T, PopError> {
        let mut why = PopError::Empty;
        first_fresh(
            N,
            || self.try_pop().map_err(|e| why = e).ok(),
            &mut expiry,
            || self.note_expired(1),
            on_expired,
        )
        .ok_or(why)
    }

    /// Waits (asynchronously) for an item that has not expired, discarding
    /// and counting the expired ones; `None` once the ring is closed and
    /// drained. Yields after each run of `N` discards. Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::BurstRing;
    ///
    /// let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    /// ring.push_burst(&[1, 40]);
    /// assert_eq!(pollster::block_on(ring.pop_fresh(|x: &u32| *x < 10)), Some(40));
    /// assert_eq!(ring.stats().expired, 1);
    /// ```
    #[cfg(feature = "async")]
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub async fn pop_fresh<E: Expiry<T>>(&self, mut expiry: E) -> Option<T> {
        crate::expire::pop_fresh_async(N, || self.pop(), &mut expiry, || self.note_expired(1)).await
    }

    /// [`pop_burst`](Self::pop_burst), discarding expired items (counted):
    /// the front `count` items of `out` have not expired, in ring order;
    /// `stop` is why the last burst stopped short (`None` when `out`
    /// filled, or `Some(Stop::Empty)` after `N` discards).
    ///
    /// ```
    /// use sluicegate::mpmc::burst_ring::{BurstRing, Stop};
    ///
    /// let ring: BurstRing<u32, 8, 1> = BurstRing::new();
    /// ring.push_burst(&[5, 50, 6, 60]);
    /// let mut out = [0; 4];
    /// let moved = ring.pop_burst_fresh(&mut out, |x: &u32| *x < 10);
    /// assert_eq!((&out[..moved.count], moved.stop), (&[50, 60][..], Some(Stop::Empty)));
    /// assert_eq!(ring.stats().expired, 2);
    /// ```
    pub fn pop_burst_fresh<E: Expiry<T>>(&self, out: &mut [T], mut expiry: E) -> Moved {
        let mut stop = None;
        let count = burst_fresh(
            N,
            out,
            |o| {
                let moved = self.pop_burst(o);
                stop = moved.stop;
                moved.count
            },
            &mut expiry,
            |k| self.note_expired(k),
        );
        if count < out.len() && stop.is_none() {
            // Out of discards before `out` filled.
            stop = Some(Stop::Empty);
        }
        Moved { count, stop }
    }
}
