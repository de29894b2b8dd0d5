//! The degradation signal: how close a class is to being shed, in three
//! bands an application can act on before the limiter refuses anything.
//!
//! Graceful degradation serves a cheaper answer (a cached copy, a smaller
//! result, a skipped enrichment) while the dependency is nearly saturated,
//! so that permits come back sooner and fewer requests are shed outright.
//! [`Limiter::pressure`] says when: read it after admission and pick the
//! answer; it is a snapshot (a few loads, no write), valid from any context.

use super::word::{limit_of, threshold};
use super::{Limiter, Priority};

/// How close in flight is to what a class may use (its share of the limit;
/// the whole limit for [`Priority::Critical`]). See [`Limiter::pressure`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Pressure {
    /// Less than three quarters of the class's share is in use: serve in
    /// full.
    Normal,
    /// Three quarters of the share or more is in use (`ceil(3t / 4)` of a
    /// share of `t` permits; below 4 permits there is no such band), but the
    /// class is still admitted: shedding is near. Serve the cheaper answer
    /// now, so that the load falls before requests are refused.
    Elevated,
    /// The share is in use: the class's next request is shed (unless the
    /// class holds less than its reserve; see [`Priority`]).
    Saturated,
}

impl Pressure {
    /// The band of `in_flight` against a class's admission threshold `t`
    /// (admitted while `in_flight < t`): `Saturated` from `t`, `Elevated`
    /// from `ceil(3t / 4)`, else `Normal`.
    pub(super) const fn of(in_flight: usize, t: usize) -> Self {
        if in_flight >= t {
            Pressure::Saturated
        } else if in_flight * 4 >= t * 3 {
            Pressure::Elevated
        } else {
            Pressure::Normal
        }
    }
}

impl Limiter {
    /// The pressure on class `priority` now: how much of what it may use is
    /// in flight, as a [`Pressure`] band. A snapshot: the in-flight count
    /// and the limit it is read against are consistent with each other, and
    /// may have moved by the time the caller acts on them.
    ///
    /// The graceful-degradation pattern: while the pressure is not normal,
    /// serve the cheap answer without a permit, so that only calls to the
    /// dependency hold permits and report latencies. (A permit taken for a
    /// cheap answer teaches the limiter nothing if released with
    /// [`Permit::ignore`](super::Permit::ignore), and a false baseline if
    /// it reports the cheap answer's latency.)
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, Pressure, Priority};
    ///
    /// static GATE: Limiter =
    ///     Limiter::new(LimiterConfig { min_limit: 8, initial_limit: 8, ..LimiterConfig::DEFAULT });
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum Answer {
    ///     Full,
    ///     Cached,
    ///     Shed,
    /// }
    ///
    /// fn handle() -> Answer {
    ///     if GATE.pressure(Priority::Critical) != Pressure::Normal {
    ///         return Answer::Cached; // no permit: the dependency is not called
    ///     }
    ///     match GATE.try_acquire() {
    ///         Some(permit) => {
    ///             // ... call the dependency, time it ...
    ///             permit.success(10);
    ///             Answer::Full
    ///         }
    ///         None => Answer::Shed, // other requests took the rest meanwhile
    ///     }
    /// }
    ///
    /// assert_eq!(handle(), Answer::Full);
    /// let calls: Vec<_> = (0..6).map(|_| GATE.try_acquire().unwrap()).collect();
    /// assert_eq!(GATE.pressure(Priority::Critical), Pressure::Elevated); // 6 of 8
    /// assert_eq!(handle(), Answer::Cached);
    /// drop(calls);
    /// assert_eq!(handle(), Answer::Full);
    /// ```
    ///
    /// The bands are per class: with the default shares at a limit of 8,
    /// `Background` (admitted below 4 in flight) is saturated while
    /// `Critical` is still normal, and `Normal` (below 6) in between.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, Pressure, Priority};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 8, initial_limit: 8, ..LimiterConfig::DEFAULT });
    /// let held: Vec<_> = (0..5).map(|_| gate.try_acquire().unwrap()).collect();
    /// assert_eq!(gate.pressure(Priority::Background), Pressure::Saturated); // 5 of 4
    /// assert_eq!(gate.pressure(Priority::Normal), Pressure::Elevated); // 5 of 6
    /// assert_eq!(gate.pressure(Priority::Critical), Pressure::Normal); // 5 of 8
    /// # drop(held);
    /// ```
    pub fn pressure(&self, priority: Priority) -> Pressure {
        let (word, _, in_flight) = self.snapshot();
        Pressure::of(
            in_flight,
            threshold(limit_of(word), self.shares[priority as usize]),
        )
    }
}

#[cfg(all(test, not(sluicegate_loom)))]
mod tests {
    use super::Pressure;

    #[test]
    fn bands_at_their_edges() {
        // Threshold 8: normal below 6, elevated 6 and 7, saturated from 8.
        let bands: [Pressure; 10] = core::array::from_fn(|i| Pressure::of(i, 8));
        use Pressure::*;
        assert_eq!(
            bands,
            [
                Normal, Normal, Normal, Normal, Normal, Normal, Elevated, Elevated, Saturated,
                Saturated
            ]
        );
        // Small thresholds: below 4 there is no elevated band before the
        // last admission (ceil(3t / 4) = t); 0 (a class with no share at
        // limit 1) is always saturated.
        assert_eq!(
            [Pressure::of(0, 1), Pressure::of(1, 1)],
            [Normal, Saturated]
        );
        assert_eq!(
            [Pressure::of(1, 2), Pressure::of(2, 2)],
            [Normal, Saturated]
        );
        assert_eq!([Pressure::of(2, 4), Pressure::of(3, 4)], [Normal, Elevated]);
        assert_eq!(Pressure::of(0, 0), Saturated);
        // No overflow near the top of the range.
        assert_eq!(Pressure::of(usize::MAX >> 3, usize::MAX >> 3), Saturated);
    }
}
