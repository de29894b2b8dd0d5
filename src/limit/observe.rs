//! The limiter's observers: the limit, the in-flight count, the baseline,
//! the retry hint and the statistics snapshot, each read from the
//! admission word and the release counters.

use super::*;

/// A snapshot of a [`Limiter`]'s state and counters.
///
/// Counters wrap (at 2^32 on 32-bit targets). `succeeded`, `dropped` and
/// `ignored` are the limiter's release counters themselves (a permit's
/// release *is* the increment of its outcome's counter), and `admitted` is
/// derived as `succeeded + dropped + ignored + in_flight`, read together with
/// the admission word, so every snapshot adds up exactly. Under concurrent use
/// the fields are not read at one instant: a permit released during the call
/// may still be counted in `in_flight` rather than in its outcome. With
/// nothing released concurrently the snapshot is exact.
///
/// The permit counts are in units: a permit of weight `n`
/// ([`Limiter::try_acquire_n`]) counts `n` in `in_flight`, `admitted` and
/// its outcome's counter. `shed` counts requests, whatever their weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LimiterStats {
    /// The current limit.
    pub limit: u32,
    /// Permits currently in flight (units).
    pub in_flight: u32,
    /// Permits granted (units).
    pub admitted: usize,
    /// Permits that ended with [`Permit::success`].
    pub succeeded: usize,
    /// Permits that ended with [`Permit::dropped`].
    pub dropped: usize,
    /// Permits that ended with [`Permit::ignore`] or were dropped without an
    /// outcome.
    pub ignored: usize,
    /// Requests refused, per class (indexed by `Priority as usize`). In
    /// shadow mode (`enforce: false`), the requests that would have been
    /// refused (they were admitted).
    pub shed: [usize; CLASSES],
    /// Times the limit was cut (probes included).
    pub decreases: usize,
    /// Times the limit grew.
    pub increases: usize,
    /// Of the decreases, the probes: cuts to `min_limit` after 2^16
    /// successes without a queue-free sample (1024 while the baseline has
    /// seen fewer than 32; from 2048 for a while after a rise that held, if
    /// the limit grew since) while the limit binds, or after 2048 once the
    /// baseline rose, binding or not (see the [module docs](super)).
    pub probes: usize,
    /// The queue-free median latency in ticks, once a queue-free success was
    /// seen.
    pub baseline: Option<u32>,
    /// The queue-free mean latency in ticks, once a queue-free success was
    /// seen.
    pub mean: Option<u32>,
    /// Requests that waited in the backlog of the waiting acquires
    /// (`Limiter::acquire`, `acquire_blocking`; 0 without the `async`
    /// feature).
    pub queued: usize,
    /// Of those, the ones that left it without a permit: a timeout, or a
    /// future dropped while it waited (also counted in `shed`).
    pub timed_out: usize,
    /// The most requests that waited at once.
    pub backlog_peak: usize,
}

impl Limiter {
    /// The current limit.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 10, ..LimiterConfig::GRADIENT });
    /// assert_eq!(gate.limit(), 10);
    /// gate.try_acquire().unwrap().dropped(); // overload: cut by 230/256
    /// assert_eq!(gate.limit(), 8); // floor(10 * 230 / 256)
    /// ```
    #[inline]
    pub fn limit(&self) -> u32 {
        limit_of(self.hot.state.load(Ordering::Relaxed)) as u32
    }

    /// Permits currently in flight, in units (a permit of weight `n` counts
    /// `n`; under concurrent use it may still count permits released during
    /// the call).
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// static GATE: Limiter = Limiter::new(LimiterConfig::DEFAULT);
    /// let held: Vec<_> = (0..3).map(|_| GATE.try_acquire().unwrap()).collect();
    /// assert_eq!(GATE.in_flight(), 3);
    /// drop(held);
    /// assert_eq!(GATE.in_flight(), 0);
    /// ```
    #[inline]
    pub fn in_flight(&self) -> u32 {
        self.snapshot().2 as u32
    }

    /// The admission word, the release counters (`[success, dropped,
    /// ignored]`) and the in-flight count they imply, read consistently
    /// (retried while admissions race the read).
    #[inline]
    pub(super) fn snapshot(&self) -> (usize, [usize; 3], usize) {
        loop {
            // Orderings as in `try_acquire_with`.
            let word = self.hot.state.load(Ordering::Acquire);
            let released = self.hot.released.load();
            let in_flight = in_flight_by(word, total(released));
            if in_flight <= self.max_limit && self.hot.state.load(Ordering::Relaxed) == word {
                return (word, released, in_flight);
            }
        }
    }

    /// The queue-free median latency in ticks (rounded), once a queue-free
    /// success was seen: the baseline that successes are judged against.
    ///
    /// The baseline is an integer stochastic-approximation estimate of the
    /// queue-free *median* (each sample moves it 1/32 of itself toward the
    /// sample, never past it) and an exponential average of the queue-free
    /// *mean* (weight 1/16); over the first 32 queue-free samples both are
    /// their running mean, so a few early samples are not taken as the truth.
    /// Five grown-up samples in a row on one side of the median estimate are
    /// taken as a *level shift*: both estimates jump to the sample of that run
    /// nearest to them (the run shows the new level is at least that far off).
    /// A noisy steady service seldom makes such a run, and when it does its
    /// nearest sample is close to the median (on a uniform ±50 % service the
    /// estimate's mean distance from the median is 7.3 % of it, against 7.0 %
    /// with the steps alone). Latencies are kept in 1/16 tick, so a one-tick
    /// clock still has a resolution; a latency above 2^28 − 1 ticks counts as
    /// 2^28 − 1, so that it fits 32 bits in those units.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig::DEFAULT); // min_limit 2
    /// assert_eq!(gate.baseline(), None);
    /// gate.try_acquire().unwrap().success(120); // alone: queue-free
    /// assert_eq!(gate.baseline(), Some(120));
    /// let held: Vec<_> = (0..3).map(|_| gate.try_acquire().unwrap()).collect();
    /// gate.try_acquire().unwrap().success(900); // 4 in flight: queued, not learnt
    /// assert_eq!(gate.baseline(), Some(120));
    /// drop(held);
    /// ```
    pub fn baseline(&self) -> Option<u32> {
        ticks_of(self.track.baseline.load(Ordering::Relaxed))
    }

    /// How long, in ticks, a request of class `priority` refused now should
    /// wait before it retries: the time for the permits above the class's
    /// threshold to drain, `mean × (in_flight − threshold + 1) / limit`
    /// (Little's law: `limit` permits of the queue-free mean latency free one
    /// every `mean / limit` ticks), rounded up to whole ticks. `Some(0)`
    /// when a request of the class would be admitted now (below its
    /// threshold, on its reserve, or in shadow mode); `None` before the
    /// first queue-free success. A request of
    /// `n` units ([`try_acquire_n`](Self::try_acquire_n)) waits for `n − 1`
    /// more permits to drain: about `n − 1` times `mean / limit` longer.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
    ///
    /// let gate = Limiter::new(LimiterConfig { initial_limit: 4, ..LimiterConfig::DEFAULT });
    /// assert_eq!(gate.retry_after(Priority::Critical), None);
    /// gate.try_acquire().unwrap().success(100);
    /// let held: Vec<_> = (0..4).map(|_| gate.try_acquire().unwrap()).collect();
    /// // 4 in flight at a limit of 4: one permit frees every 100 / 4 ticks.
    /// assert_eq!(gate.retry_after(Priority::Critical), Some(25));
    /// drop(held);
    /// assert_eq!(gate.retry_after(Priority::Critical), Some(0));
    /// ```
    ///
    /// # As an HTTP `Retry-After` header
    ///
    /// The header takes whole seconds (`Retry-After: 3`). Convert from the
    /// tick and round *up*, so a wait under a second asks for one rather
    /// than for an immediate retry that would be shed again; before the
    /// first queue-free success (`None`) send a guess or no header. With a
    /// µs tick:
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
    ///
    /// /// The `Retry-After` value for a refused request, from µs ticks.
    /// fn retry_after_header(gate: &Limiter, priority: Priority) -> String {
    ///     match gate.retry_after(priority) {
    ///         Some(micros) => micros.div_ceil(1_000_000).max(1).to_string(),
    ///         None => "1".to_string(), // nothing learnt yet
    ///     }
    /// }
    ///
    /// let gate = Limiter::new(LimiterConfig::DEFAULT); // a limit of 8
    /// assert_eq!(retry_after_header(&gate, Priority::Critical), "1");
    /// gate.try_acquire().unwrap().success(20_000_000); // a 20 s report, alone
    /// let held: Vec<_> = (0..8).map(|_| gate.try_acquire().unwrap()).collect();
    /// assert!(gate.try_acquire().is_none());
    /// // One permit frees every 20 s / 8 = 2.5 s: ask for 3.
    /// assert_eq!(gate.retry_after(Priority::Critical), Some(2_500_000));
    /// assert_eq!(retry_after_header(&gate, Priority::Critical), "3");
    /// # drop(held);
    /// ```
    pub fn retry_after(&self, priority: Priority) -> Option<u32> {
        let mean = self.track.mean.load(Ordering::Relaxed);
        if mean == 0 {
            return None;
        }
        let (word, _, in_flight) = self.snapshot();
        let limit = limit_of(word);
        let class = priority as usize;
        let t = threshold(limit, self.shares[class]);
        // Admitted as `acquire_slow` would: below the threshold, on the
        // class's reserve, or in shadow mode.
        if in_flight < t
            || self.fits_reserve(class, 1, in_flight, limit)
            || self.shadows(1, in_flight)
        {
            return Some(0);
        }
        let excess = (in_flight - t + 1) as u64;
        // Rounded up, whole ticks: a wait under one tick is still a wait
        // (`Some(0)` says "admitted now").
        let ticks = (mean as u64 * excess).div_ceil((limit.max(1) as u64) << FRAC);
        Some(ticks.min(u32::MAX as u64) as u32)
    }

    /// A snapshot of the state and counters (see [`LimiterStats`]).
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, LimiterStats};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 2, ..LimiterConfig::GRADIENT });
    /// let a = gate.try_acquire().unwrap();
    /// let b = gate.try_acquire().unwrap();
    /// assert!(gate.try_acquire().is_none()); // shed
    /// b.dropped(); // before any queue-free sample: cuts the limit from 2 to 1
    /// a.success(50); // admitted with 1 in flight: queue-free
    /// let _held = gate.try_acquire().unwrap();
    /// assert_eq!(
    ///     gate.stats(),
    ///     LimiterStats {
    ///         limit: 1,
    ///         in_flight: 1,
    ///         admitted: 3,
    ///         succeeded: 1,
    ///         dropped: 1,
    ///         ignored: 0,
    ///         shed: [1, 0, 0],
    ///         decreases: 1,
    ///         increases: 0,
    ///         probes: 0,
    ///         baseline: Some(50),
    ///         mean: Some(50),
    ///         queued: 0,
    ///         timed_out: 0,
    ///         backlog_peak: 0,
    ///     }
    /// );
    /// ```
    pub fn stats(&self) -> LimiterStats {
        let (t, cold) = (&*self.track, &*self.cold);
        let (word, [succeeded, dropped, ignored], in_flight) = self.snapshot();
        #[cfg(feature = "async")]
        let (queued, timed_out, backlog_peak) = self.waits.counts();
        #[cfg(not(feature = "async"))]
        let (queued, timed_out, backlog_peak) = (0, 0, 0);
        LimiterStats {
            limit: limit_of(word) as u32,
            in_flight: in_flight as u32,
            // Read together with the word: every admitted permit is in
            // flight or counted in exactly one outcome.
            admitted: total([succeeded, dropped, ignored]).wrapping_add(in_flight),
            succeeded,
            dropped,
            ignored,
            shed: [cold.shed[0].get(), cold.shed[1].get(), cold.shed[2].get()],
            decreases: cold.decreases.get(),
            increases: cold.increases.get(),
            probes: cold.probes.get(),
            baseline: self.baseline(),
            mean: ticks_of(t.mean.load(Ordering::Relaxed)),
            queued,
            timed_out,
            backlog_peak,
        }
    }
}

/// A latency in 1/16 tick (0: none) as rounded ticks.
#[inline]
fn ticks_of(v: usize) -> Option<u32> {
    match v {
        0 => None,
        v => Some(((v + TICK / 2) >> FRAC) as u32),
    }
}

impl fmt::Debug for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (word, _, in_flight) = self.snapshot();
        f.debug_struct("Limiter")
            .field("law", &self.law)
            .field("limit", &limit_of(word))
            .field("in_flight", &in_flight)
            .field("epoch", &epoch_of(word))
            .finish_non_exhaustive()
    }
}
