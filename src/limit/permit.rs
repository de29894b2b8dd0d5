//! A [`Permit`]: the right to run one request, released exactly once with
//! its outcome (one `fetch_add` on that outcome's counter).

use core::fmt;
use core::mem::ManuallyDrop;

use super::word::{epoch_of, in_flight_of, limit_of};
use super::{Limiter, Priority};

/// Permission to run one request; give it back with an outcome.
///
/// Ending it with [`success`](Permit::success), [`dropped`](Permit::dropped)
/// or [`ignore`](Permit::ignore) consumes it, so it is released exactly once;
/// dropping it without an outcome counts as `ignore`.
#[must_use = "dropping a permit at once releases it as `ignore`"]
pub struct Permit<'a> {
    pub(super) limiter: &'a Limiter,
    /// What this permit was admitted under, packed as the admission word
    /// is: the limit and epoch of the word its CAS replaced, and in the
    /// count field the in-flight count at admission (this permit included)
    /// where the admission word keeps its admitted count. Read it with
    /// `in_flight_of`, `limit_of` and `epoch_of`.
    pub(super) at_admission: usize,
    /// The class it was admitted in.
    pub(super) priority: Priority,
}

impl Permit<'_> {
    /// The request completed after `latency_ticks` ticks of the caller's
    /// clock (any unit, the same for every call; 0 counts as 1, and a
    /// latency above 2^28 − 1 ticks counts as 2^28 − 1). Compute it with
    /// `end.wrapping_sub(start)` on a wrapping counter. Pick a tick at most
    /// about the typical latency (a tick as long as the operation still
    /// works; finer is better) and long enough that the slowest latency
    /// that matters stays under 2^28 − 1 ticks: 268 s at 1 µs, 0.27 s at
    /// 1 ns.
    ///
    /// A success admitted with at most `min_limit` in flight teaches the
    /// baseline; a window (`max(limit, 16)` successes) whose majority is
    /// slow cuts the limit, and one that is not grows it (AIMD; see
    /// [`Law`](super::Law) for both laws):
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
        let this = ManuallyDrop::new(self);
        this.limiter
            .on_success(this.at_admission, this.priority, latency_ticks);
    }

    /// The request failed from overload (timeout, rejected downstream, queue
    /// full). Under AIMD it counts like a slow success (the limit is cut
    /// once more than half of a window is overload); under the gradient law
    /// it cuts at once. Either way at most once per epoch: permits admitted
    /// before a cut cannot cut again, so a burst of timeouts cuts once.
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
        let this = ManuallyDrop::new(self);
        this.limiter.on_dropped(this.at_admission, this.priority);
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

    /// Permits in flight right after this one was admitted (including it).
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
    /// # drop((first, second));
    /// ```
    pub fn in_flight_at_admission(&self) -> u32 {
        in_flight_of(self.at_admission) as u32
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
        limit_of(self.at_admission) as u32
    }
}

impl Drop for Permit<'_> {
    #[inline]
    fn drop(&mut self) {
        self.limiter.on_ignore(self.priority);
    }
}

impl fmt::Debug for Permit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit")
            .field("in_flight_at_admission", &in_flight_of(self.at_admission))
            .field("limit_at_admission", &limit_of(self.at_admission))
            .field("epoch", &epoch_of(self.at_admission))
            .finish()
    }
}
