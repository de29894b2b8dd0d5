//! A [`Permit`]: the right to run one request, released exactly once with
//! its outcome (one `fetch_add` on that outcome's counter).

use core::fmt;
use core::mem::ManuallyDrop;

use super::word::{epoch_of, in_flight_of, limit_of};
use super::{Aimd, Priority};

/// Permission to run one request; give it back with an outcome.
///
/// Ending it with [`success`](Permit::success), [`dropped`](Permit::dropped)
/// or [`ignore`](Permit::ignore) consumes it, so it is released exactly once;
/// dropping it without an outcome counts as `ignore`.
#[must_use = "dropping a permit at once releases it as `ignore`"]
pub struct Permit<'a> {
    pub(super) aimd: &'a Aimd,
    /// The limit and epoch of the admission word this permit's CAS
    /// replaced, with the in-flight count at admission (this permit
    /// included) in the count field, where the admission word keeps the
    /// admitted count (read it with `in_flight_of`).
    pub(super) admitted: usize,
    /// The class it was admitted in.
    pub(super) priority: Priority,
}

impl Permit<'_> {
    /// The request completed after `latency_ticks` ticks of the caller's
    /// clock (any unit, the same for every call; 0 counts as 1). Compute it
    /// with `end.wrapping_sub(start)` on a wrapping counter.
    ///
    /// A fast success closing a window of `limit` successes grows the limit
    /// by one; a success slower than the baseline plus the tolerance (25 %
    /// by default) cuts it like [`dropped`](Self::dropped):
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig};
    ///
    /// let gate = Aimd::new(AimdConfig { min_limit: 1, initial_limit: 2, ..AimdConfig::DEFAULT });
    /// let mut clock = 0u32; // stands in for a hardware timer
    /// for _ in 0..2 {
    ///     let permit = gate.try_acquire().unwrap();
    ///     let start = clock;
    ///     clock = clock.wrapping_add(10); // the work takes 10 ticks
    ///     permit.success(clock.wrapping_sub(start));
    /// }
    /// assert_eq!(gate.limit(), 3); // a window of 2 good successes: +1
    /// gate.try_acquire().unwrap().success(40); // 4x the baseline: overload
    /// assert_eq!(gate.limit(), 2); // floor(3 * 230 / 256)
    /// ```
    #[inline]
    pub fn success(self, latency_ticks: u32) {
        let this = ManuallyDrop::new(self);
        this.aimd
            .on_success(this.admitted, this.priority, latency_ticks);
    }

    /// The request failed from overload (timeout, rejected downstream, queue
    /// full): cuts the limit, at most once per window.
    ///
    /// Permits admitted before a cut cannot cut again, so a burst of
    /// timeouts cuts once:
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig};
    ///
    /// let gate = Aimd::new(AimdConfig { min_limit: 1, initial_limit: 10, ..AimdConfig::DEFAULT });
    /// let burst: Vec<_> = (0..5).map(|_| gate.try_acquire().unwrap()).collect();
    /// for permit in burst {
    ///     permit.dropped(); // all five time out
    /// }
    /// assert_eq!(gate.limit(), 8); // one cut: floor(10 * 230 / 256)
    /// assert_eq!((gate.stats().dropped, gate.stats().decreases), (5, 1));
    /// ```
    #[inline]
    pub fn dropped(self) {
        let this = ManuallyDrop::new(self);
        this.aimd.on_dropped(this.admitted);
    }

    /// The request ended without saying anything about load (cancelled,
    /// client error). Same as dropping the permit.
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig};
    ///
    /// let gate = Aimd::new(AimdConfig::DEFAULT);
    /// gate.try_acquire().unwrap().ignore(); // the client went away
    /// drop(gate.try_acquire().unwrap()); // the same
    /// let stats = gate.stats();
    /// assert_eq!((stats.ignored, stats.in_flight, stats.limit), (2, 0, 20));
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
    /// use sluicegate::limit::{Aimd, AimdConfig};
    ///
    /// let gate = Aimd::new(AimdConfig::DEFAULT);
    /// let first = gate.try_acquire().unwrap();
    /// let second = gate.try_acquire().unwrap();
    /// assert_eq!(first.in_flight_at_admission(), 1);
    /// assert_eq!(second.in_flight_at_admission(), 2);
    /// assert_eq!(second.limit_at_admission(), 20);
    /// # drop((first, second));
    /// ```
    pub fn in_flight_at_admission(&self) -> u32 {
        in_flight_of(self.admitted) as u32
    }

    /// The limit in force when this permit was admitted.
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig};
    ///
    /// let gate = Aimd::new(AimdConfig { min_limit: 4, initial_limit: 4, max_limit: 8, ..AimdConfig::DEFAULT });
    /// let permit = gate.try_acquire().unwrap();
    /// assert_eq!(permit.limit_at_admission(), 4);
    /// ```
    pub fn limit_at_admission(&self) -> u32 {
        limit_of(self.admitted) as u32
    }
}

impl Drop for Permit<'_> {
    #[inline]
    fn drop(&mut self) {
        self.aimd.on_ignore();
    }
}

impl fmt::Debug for Permit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit")
            .field("in_flight_at_admission", &in_flight_of(self.admitted))
            .field("limit_at_admission", &limit_of(self.admitted))
            .field("epoch", &epoch_of(self.admitted))
            .finish()
    }
}
