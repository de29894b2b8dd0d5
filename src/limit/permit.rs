//! A [`Permit`]: the right to run one request, released exactly once with
//! its outcome (one `fetch_add` on that outcome's counter). One type for
//! every holder of the limiter: a borrow (`Permit<'a>`) or, with `std`, an
//! `Arc` (`OwnedPermit`, an alias), so the outcome code exists once.

use core::fmt;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ops::Deref;

use super::word::{epoch_of, in_flight_of, limit_of};
use super::{Limiter, Priority};

/// What a permit was admitted under: all that its release needs besides the
/// limiter.
#[derive(Clone, Copy)]
pub(super) struct Grant {
    /// Packed as the admission word is: the limit and epoch of the word
    /// its CAS replaced, and in the count field the in-flight count at
    /// admission (this permit's units included) where the admission word
    /// keeps its admitted count. Read it with `in_flight_of`, `limit_of`
    /// and `epoch_of`.
    pub(super) at_admission: usize,
    /// The class it was admitted in.
    pub(super) priority: Priority,
    /// The units it holds, `1..=max_limit` (1 but for `try_acquire_n`).
    pub(super) weight: u32,
}

/// Permission to run one request; give it back with an outcome.
///
/// Ending it with [`success`](Permit::success), [`dropped`](Permit::dropped)
/// or [`ignore`](Permit::ignore) consumes it, so it is released exactly once;
/// dropping it without an outcome counts as `ignore`. A permit from
/// [`Limiter::try_acquire_n`] holds [`weight`](Permit::weight) units and
/// releases them all at once.
///
/// `L` is how the permit holds its limiter: a borrow, `&'a Limiter` (the
/// default, from [`Limiter::try_acquire`]), which suits a `static`
/// limiter; with the `std` feature, an `Arc<Limiter>` (`OwnedPermit`, from
/// `Limiter::try_acquire_owned`), which moves into a spawned task. Both
/// release the same way; an owned permit drops its `Arc` after.
#[cfg_attr(
    feature = "std",
    doc = "See [`OwnedPermit`](super::OwnedPermit) and [`Limiter::try_acquire_owned`]."
)]
#[must_use = "dropping a permit at once releases it as `ignore`"]
pub struct Permit<'a, L: Deref<Target = Limiter> = &'a Limiter> {
    limiter: L,
    grant: Grant,
    /// The borrow `&'a Limiter` is; `'static` for an owned holder.
    _holder: PhantomData<&'a Limiter>,
}

impl<L: Deref<Target = Limiter>> Permit<'_, L> {
    #[inline(always)]
    pub(super) fn new(limiter: L, grant: Grant) -> Self {
        Self {
            limiter,
            grant,
            _holder: PhantomData,
        }
    }

    /// The limiter and the grant, with nothing released: the caller releases
    /// the grant, then drops the holder.
    #[inline(always)]
    fn into_parts(self) -> (L, Grant) {
        let this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped and its `limiter` is not touched
        // after this read, so the holder moves out exactly once (`Drop`,
        // which would release the grant, does not run).
        let limiter = unsafe { core::ptr::read(&this.limiter) };
        (limiter, this.grant)
    }

    /// The request completed after `latency_ticks` ticks of the caller's
    /// clock (any unit, the same for every call; 0 counts as 1, and a
    /// latency above [`MAX_TICKS`](super::MAX_TICKS) counts as that; the
    /// constant's docs say how to pick the tick). Compute it with
    /// `end.wrapping_sub(start)` on a wrapping counter.
    ///
    /// A success admitted with at most `min_limit` in flight teaches the
    /// baseline; a window (`max(limit, 16)` successes) whose majority is
    /// slow cuts the limit, and one that is not grows it (AIMD; see
    /// [`Law`](super::Law) for both laws). A permit of
    /// [`weight`](Self::weight) `n` is one latency sample that counts `n`
    /// successes (see [`Limiter::try_acquire_n`]).
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 2, ..LimiterConfig::DEFAULT });
    /// let mut clock = 0u32; // stands in for a hardware timer
    /// for _ in 0..16 {
    ///     let permit = gate.try_acquire().unwrap();
    ///     let start = clock;
    ///     clock = clock.wrapping_add(10); // the work takes 10 ticks
    ///     permit.success(clock.wrapping_sub(start));
    /// }
    /// assert_eq!(gate.baseline(), Some(10)); // each ran alone: queue-free
    /// assert_eq!(gate.limit(), 3); // a window of 16 good successes: +1
    /// let queued = gate.try_acquire().unwrap(); // 2 in flight from here on
    /// for _ in 0..9 {
    ///     gate.try_acquire().unwrap().success(40); // 4x the baseline: slow
    /// }
    /// assert_eq!(gate.limit(), 2); // 9 of 16 slow: floor(3 * 230 / 256)
    /// # drop(queued);
    /// ```
    #[inline]
    pub fn success(self, latency_ticks: u32) {
        let (limiter, grant) = self.into_parts();
        limiter.on_success(grant, latency_ticks);
    }

    /// The request failed from overload (timeout, rejected downstream, queue
    /// full). Under AIMD it counts like a slow success (the limit is cut
    /// once more than half of a window is overload); under the gradient law
    /// it is counted against the window's successes, and cuts once the
    /// drops are more than half of them and more than 8 (at once before the
    /// first queue-free sample). Either way at most once per epoch: permits
    /// admitted before a cut cannot cut again, so a burst of timeouts cuts
    /// once.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 20, ..LimiterConfig::DEFAULT });
    /// let burst: Vec<_> = (0..20).map(|_| gate.try_acquire().unwrap()).collect();
    /// for permit in burst {
    ///     permit.dropped(); // all twenty time out
    /// }
    /// assert_eq!(gate.limit(), 17); // one cut, at the 11th: floor(20 * 230 / 256)
    /// assert_eq!((gate.stats().dropped, gate.stats().decreases), (20, 1));
    /// ```
    #[inline]
    pub fn dropped(self) {
        let (limiter, grant) = self.into_parts();
        limiter.on_dropped(grant);
    }

    /// The request ended without saying anything about load (cancelled,
    /// client error). Same as dropping the permit.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig::DEFAULT);
    /// gate.try_acquire().unwrap().ignore(); // the client went away
    /// drop(gate.try_acquire().unwrap()); // the same
    /// let stats = gate.stats();
    /// assert_eq!((stats.ignored, stats.in_flight, stats.limit), (2, 0, 8));
    /// ```
    #[inline]
    pub fn ignore(self) {
        drop(self);
    }

    /// Units in flight right after this permit was admitted, its own
    /// included (one per permit, `n` for a permit of weight `n`).
    ///
    /// Also shows [`limit_at_admission`](Self::limit_at_admission):
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig::DEFAULT);
    /// let first = gate.try_acquire().unwrap();
    /// let second = gate.try_acquire().unwrap();
    /// assert_eq!(first.in_flight_at_admission(), 1);
    /// assert_eq!(second.in_flight_at_admission(), 2);
    /// assert_eq!(second.limit_at_admission(), 8);
    /// let pair = gate.try_acquire_n(2).unwrap();
    /// assert_eq!(pair.in_flight_at_admission(), 4);
    /// # drop((first, second, pair));
    /// ```
    pub fn in_flight_at_admission(&self) -> u32 {
        in_flight_of(self.grant.at_admission) as u32
    }

    /// The limit in force when this permit was admitted.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 4, initial_limit: 4, max_limit: 8, ..LimiterConfig::DEFAULT });
    /// let permit = gate.try_acquire().unwrap();
    /// assert_eq!(permit.limit_at_admission(), 4);
    /// ```
    pub fn limit_at_admission(&self) -> u32 {
        limit_of(self.grant.at_admission) as u32
    }

    /// The units this permit holds: 1, or `n` from
    /// [`Limiter::try_acquire_n`].
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig::DEFAULT);
    /// assert_eq!(gate.try_acquire().unwrap().weight(), 1);
    /// assert_eq!(gate.try_acquire_n(3).unwrap().weight(), 3);
    /// ```
    pub fn weight(&self) -> u32 {
        self.grant.weight
    }
}

impl<L: Deref<Target = Limiter>> Drop for Permit<'_, L> {
    #[inline]
    fn drop(&mut self) {
        self.limiter.on_ignore(self.grant);
    }
}

impl<L: Deref<Target = Limiter>> fmt::Debug for Permit<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.grant;
        f.debug_struct("Permit")
            .field("weight", &g.weight)
            .field("priority", &g.priority)
            .field("in_flight_at_admission", &in_flight_of(g.at_admission))
            .field("limit_at_admission", &limit_of(g.at_admission))
            .field("epoch", &epoch_of(g.at_admission))
            .finish()
    }
}
