//! A lock-free, allocation-free adaptive (AIMD) concurrency limiter with
//! priority classes, usable in a `static`.
//!
//! # Model
//!
//! Work is admitted while the number of permits *in flight* is below the
//! current *limit*; beyond it, work is shed at once ([`Aimd::try_acquire`]
//! returns `None`). Each [`Permit`] ends with an outcome that steers the limit:
//!
//! * [`Permit::success`] with the latency in ticks of any clock. A latency
//!   within `tolerance` of the no-queue baseline (the smallest latency seen
//!   recently) is a *good* sample; beyond it, the dependency is queueing and
//!   the sample is an overload signal.
//! * [`Permit::dropped`]: overload (timeout, downstream rejection, full queue).
//! * [`Permit::ignore`], or dropping the permit: no information (cancelled,
//!   client error). The permit is released all the same.
//!
//! Additive increase: once `limit` permits have ended with `success` since
//! the last change of the limit, and the success that completes this window
//! is a good sample from a permit admitted with at least half of its class's
//! threshold in use (half the limit for [`Priority::Critical`]), the limit
//! grows by one. Counting a
//! window of successes (rather than adding `1/limit` per success in fixed
//! point) keeps the admission word free of fraction bits, so the limit keeps
//! 12 bits on 32-bit targets. The half-full rule is Netflix's: an
//! application-limited caller never inflates the limit. It is taken relative
//! to the class's threshold because otherwise the limit would settle near
//! twice the in-flight count at light load, which puts the background
//! threshold (50 %) right at the in-flight count and sheds background work
//! while the dependency is idle half the time.
//!
//! Multiplicative decrease: an overload signal sets
//! `limit = max(min_limit, floor(limit * backoff / 256))`. The floor makes
//! small limits fall (`floor(2 * 230 / 256) = 1`, where rounding would stick
//! at 2). Each cut increments an *epoch*; a permit carries the epoch in force
//! at its admission and only a permit from the current epoch can cut, so a
//! burst of `n` drops from one window cuts once, not `0.9^n` (RFC 5681's
//! once-per-window rule, Camunda's stabilising AIMD).
//!
//! Baseline: every good or bad success lowers the baseline at once (a
//! `fetch_min`). Every `baseline_window` successes the baseline is replaced
//! by the minimum seen during that window, so it recovers upward when the
//! dependency got slower for good. Dropped and ignored outcomes never touch
//! it. A latency of 0 ticks counts as 1 (and `u32::MAX` as `u32::MAX - 1`);
//! comparisons are done in `u64`, so no tick value overflows or panics.
//!
//! Both windows count successes only: dropped and ignored permits advance
//! neither, so a run of ignored permits cannot close a growth window and
//! every baseline window ends in a re-probe.
//!
//! Priority classes: [`Priority::Critical`] may fill the whole limit;
//! [`Priority::Normal`] and [`Priority::Background`] are admitted only while
//! the total in flight is below `normal_share / 256` and
//! `background_share / 256` of the limit (defaults 75 % and 50 %, at least
//! one permit). Background work is therefore shed first and the critical
//! path keeps the top of the limit for itself.
//!
//! # How it is built
//!
//! Admission is one CAS on an *admission word* that packs
//! `admitted | limit | epoch`; each release is one `fetch_add` on the counter
//! of its outcome, on the same cache line. The layout, the transition table
//! and why one step keeps in flight under the limit are written down in
//! `src/limit/word.rs`; the configuration and its validation are in
//! `src/limit/config.rs`.
//!
//! An [`Aimd`] is 19 words: the admission word and the three release
//! counters, seven adaptation words and counters, eight of configuration
//! (76 bytes on 32-bit Arm, where nothing is padded; 384 bytes on x86-64,
//! where the first two groups each take a 128-byte line).
//!
//! # Progress
//!
//! * [`Aimd::try_acquire_with`] is lock-free: it retries only when another
//!   context changed the word or released a permit admitted after its read
//!   (both progress), or when an LL/SC CAS failed spuriously. It sheds only
//!   if the word did not change while it read the release counters, so the
//!   count it judged was in force at an instant in between (see above); a
//!   release it could not yet see is ordered after the shed.
//! * Releasing a permit is wait-free: one `fetch_add` on its outcome's
//!   counter, whatever the outcome (`dropped` then also adapts the limit,
//!   below).
//! * Adapting the limit after a success or drop is lock-free and gives up as
//!   soon as the epoch moves on.
//!
//! An interrupt that preempts any of these mid-way completes its own
//! operation; nothing waits for anyone. There are no locks and no allocation.
//! With `portable-atomic` on thumbv6m every atomic is a short critical
//! section chosen by the final binary.
//!
//! # Orderings
//!
//! * Admission reads the word with `Acquire` and CASes it with `AcqRel`, so
//!   it synchronises with the previous admission (grow and cut CASes,
//!   `Relaxed`, continue that admission's release sequence). Each release
//!   counter it reads afterwards is therefore at least the one the previous
//!   admission judged by (coherence, counter by counter), so their sum is at
//!   least the sum that admission judged by, and its check bounded
//!   `admitted − released` by its limit: an in-flight count computed from
//!   stale counters never wraps around to a small number, however long the
//!   thread was preempted.
//! * A release is a `Release` `fetch_add` on its outcome's counter; an
//!   admission reads each counter with `Acquire`. If the counters read count
//!   the release of a permit admitted after the word that was read, the CAS
//!   fails (the word moved) or, on the shed path, the re-read of the word
//!   sees the change, so such a count is never acted on; a difference above
//!   `max_limit` is recognised as such and re-read at once.
//! * These pairs also give semaphore semantics: what a holder wrote before
//!   releasing, whatever the outcome, is visible to an admission that
//!   counted the release (`loom_limit_release_hands_over_to_admission_at_the_limit`
//!   fails when either side is weakened to `Relaxed`).
//! * The adaptation words (baseline, probe, window start) and the shed and
//!   cut statistics are `Relaxed`: heuristics and counters, ordered with
//!   nothing; a race there can cost a sample or delay growth by one
//!   success, never admit over the limit.
//!
//! loom checks these models (`tests/loom_limit.rs`), which do not rely on
//! `SeqCst` (loom treats it like `AcqRel`).
//!
//! # Example
//!
//! ```
//! use sluicegate::limit::{Aimd, AimdConfig, Priority};
//!
//! static LIMITER: Aimd = Aimd::new(AimdConfig::DEFAULT);
//!
//! match LIMITER.try_acquire() {
//!     Some(permit) => {
//!         let start = 0u32; // read your clock here
//!         // ... do the work ...
//!         let end = 17u32;
//!         permit.success(end.wrapping_sub(start));
//!     }
//!     None => { /* shed: answer "busy" at once */ }
//! }
//! // Background work gets at most half of the limit.
//! if let Some(p) = LIMITER.try_acquire_with(Priority::Background) {
//!     p.ignore();
//! }
//! assert_eq!(LIMITER.in_flight(), 0);
//! ```
//!
//! A bad configuration in a `static` is a compile-time error:
//!
//! ```compile_fail,E0080
//! use sluicegate::limit::{Aimd, AimdConfig};
//! static BAD: Aimd = Aimd::new(AimdConfig { min_limit: 0, ..AimdConfig::DEFAULT });
//! ```
//!
//! # References
//!
//! * D.-M. Chiu, R. Jain, "Analysis of the Increase and Decrease Algorithms
//!   for Congestion Avoidance in Computer Networks", Computer Networks and
//!   ISDN Systems 17(1), 1989 — why AIMD converges to a fair, efficient share.
//! * V. Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988; RFC 5681
//!   (TCP congestion control) — at most one decrease per window.
//! * Netflix `concurrency-limits`, `AIMDLimit` — defaults (min 20, max 200,
//!   ×0.9, no growth below half the limit).
//! * Envoy adaptive concurrency filter — latency compared against a re-probed
//!   minimum round-trip time with a buffer (≈ 25 %).

use core::fmt;

mod config;
#[cfg(all(test, not(sluicegate_loom)))]
mod pause_tests;
mod permit;
#[cfg(all(test, not(sluicegate_loom)))]
mod tests;
mod word;

pub use config::{AimdConfig, ConfigError, Priority, CLASSES, ONE};
pub use permit::Permit;
pub use word::MAX_LIMIT;

use crate::sync::{const_fn, pause, pause_point, AtomicUsize, Ordering, Padded, SharedCounter};
use word::*;

/// Baseline value meaning "no sample yet".
const UNKNOWN: usize = u32::MAX as usize;

/// A snapshot of an [`Aimd`]'s state and counters.
///
/// Counters wrap (at 2^32 on 32-bit targets). `succeeded`, `dropped` and
/// `ignored` are the limiter's release counters themselves (a permit's
/// release *is* the increment of its outcome's counter), and `admitted` is
/// derived as `succeeded + dropped + ignored + in_flight`, read together with
/// the admission word, so every snapshot adds up exactly. Under concurrent use
/// the fields are not read at one instant: a permit released during the call
/// may still be counted in `in_flight` rather than in its outcome. With
/// nothing released concurrently the snapshot is exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AimdStats {
    /// The current limit.
    pub limit: u32,
    /// Permits currently in flight.
    pub in_flight: u32,
    /// Permits granted.
    pub admitted: usize,
    /// Permits that ended with [`Permit::success`].
    pub succeeded: usize,
    /// Permits that ended with [`Permit::dropped`].
    pub dropped: usize,
    /// Permits that ended with [`Permit::ignore`] or were dropped without an
    /// outcome.
    pub ignored: usize,
    /// Requests refused, per class (indexed by `Priority as usize`).
    pub shed: [usize; CLASSES],
    /// Times the limit was cut.
    pub decreases: usize,
    /// The latency baseline in ticks, once a success was seen.
    pub baseline: Option<u32>,
}

/// Adaptation words and counters written when permits end or are shed (kept
/// off the admission word's cache line).
struct Track {
    /// Success count at which the current growth window started; may lie
    /// ahead of the success counter right after a cut (see [`Aimd::cut`]).
    /// Compared with wrapping arithmetic.
    window_start: AtomicUsize,
    /// The latency baseline in ticks (`UNKNOWN` before the first success).
    /// Invariant: ≤ `u32::MAX`.
    baseline: AtomicUsize,
    /// Minimum latency of the current baseline window (`UNKNOWN` if none).
    probe: AtomicUsize,
    decreases: SharedCounter,
    shed: [SharedCounter; CLASSES],
}

/// A lock-free AIMD concurrency limiter. See the [module docs](self).
pub struct Aimd {
    /// The admission word and the release counters.
    hot: Padded<Hot>,
    track: Padded<Track>,
    /// Immutable after construction: `min_limit ≤ max_limit ≤ MAX_LIMIT`.
    min_limit: usize,
    max_limit: usize,
    /// In 1/256, `1..=255`.
    backoff: usize,
    /// In 1/256, `≥ 256`.
    tolerance: usize,
    /// `baseline_window - 1`.
    window_mask: usize,
    /// Per-class shares in 1/256; `shares[0] == 256`.
    shares: [usize; CLASSES],
}

impl Aimd {
    const_fn! {
        /// A limiter with the given configuration.
        ///
        /// Meant for a `static` or `const`, where an invalid configuration is
        /// a compile-time error. Called at run time with an invalid
        /// configuration it panics; use [`Aimd::try_new`] for configurations
        /// built at run time.
        ///
        /// ```
        /// use sluicegate::limit::{Aimd, AimdConfig};
        ///
        /// static DB: Aimd = Aimd::new(AimdConfig::DEFAULT);
        /// static RADIO: Aimd = Aimd::new(AimdConfig {
        ///     min_limit: 1,
        ///     initial_limit: 4,
        ///     max_limit: 8,
        ///     ..AimdConfig::DEFAULT
        /// });
        /// assert_eq!((DB.limit(), RADIO.limit()), (20, 4));
        /// ```
        ///
        /// The same with `min_limit: 0` does not compile (the panic becomes a
        /// const-evaluation error):
        ///
        /// ```compile_fail,E0080
        /// use sluicegate::limit::{Aimd, AimdConfig};
        /// static BAD: Aimd = Aimd::new(AimdConfig { min_limit: 0, ..AimdConfig::DEFAULT });
        /// ```
        pub fn new(config: AimdConfig) -> Self {
            match config.validate() {
                Ok(()) => Self::build(config, 0, 0, 0),
                Err(e) => panic!("{}", e.message()),
            }
        }
    }

    const_fn! {
        /// A limiter with the given configuration, or what is wrong with it.
        ///
        /// ```
        /// use sluicegate::limit::{Aimd, AimdConfig, ConfigError};
        ///
        /// // Say the limits come from a configuration file.
        /// let (min, max) = (50, 10);
        /// let config = AimdConfig { min_limit: min, max_limit: max, ..AimdConfig::DEFAULT };
        /// assert_eq!(Aimd::try_new(config).unwrap_err(), ConfigError::MinAboveMax);
        ///
        /// let config = AimdConfig { min_limit: 5, initial_limit: 5, max_limit: 50, ..config };
        /// let gate = Aimd::try_new(config).expect("valid");
        /// assert_eq!(gate.limit(), 5);
        /// ```
        pub fn try_new(config: AimdConfig) -> Result<Self, ConfigError> {
            match config.validate() {
                Ok(()) => Ok(Self::build(config, 0, 0, 0)),
                Err(e) => Err(e),
            }
        }
    }

    /// Test-only: a limiter whose epoch starts at `epoch` (mod the epoch
    /// field) and whose three release counters (success, dropped, ignored)
    /// each start at `count`, so the admitted count starts at `3 · count`
    /// (wrapping), to exercise wrap-around.
    #[doc(hidden)]
    pub fn with_start(config: AimdConfig, epoch: usize, count: usize) -> Result<Self, ConfigError> {
        match config.validate() {
            Ok(()) => {
                let l = Self::build(config, epoch, count.wrapping_mul(3), count);
                // Not shared yet: plain adds before the limiter is returned.
                l.hot.released.dropped.add(count);
                l.hot.released.ignored.add(count);
                Ok(l)
            }
            Err(e) => Err(e),
        }
    }

    const_fn! {
        /// A limiter whose admitted count starts at `admitted` and its success
        /// counter at `success` (the others at 0); `admitted − success` must be
        /// the sum of the other two counters once the caller has set them.
        fn build(c: AimdConfig, epoch: usize, admitted: usize, success: usize) -> Self {
            Self {
                hot: Padded::new(Hot {
                    state: AtomicUsize::new(pack(admitted, c.initial_limit as usize, epoch)),
                    released: Released {
                        success: AtomicUsize::new(success),
                        dropped: SharedCounter::new(),
                        ignored: SharedCounter::new(),
                    },
                }),
                track: Padded::new(Track {
                    window_start: AtomicUsize::new(success),
                    baseline: AtomicUsize::new(UNKNOWN),
                    probe: AtomicUsize::new(UNKNOWN),
                    decreases: SharedCounter::new(),
                    shed: [SharedCounter::new(), SharedCounter::new(), SharedCounter::new()],
                }),
                min_limit: c.min_limit as usize,
                max_limit: c.max_limit as usize,
                backoff: c.backoff as usize,
                tolerance: c.tolerance as usize,
                window_mask: (c.baseline_window - 1) as usize,
                shares: [ONE as usize, c.normal_share as usize, c.background_share as usize],
            }
        }
    }

    /// Admits a [`Priority::Critical`] request if in flight < limit; else
    /// sheds it (returns `None` and counts it).
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig};
    ///
    /// let gate = Aimd::new(AimdConfig { min_limit: 2, initial_limit: 2, ..AimdConfig::DEFAULT });
    /// let a = gate.try_acquire().unwrap();
    /// let b = gate.try_acquire().unwrap();
    /// assert!(gate.try_acquire().is_none()); // 2 in flight: at the limit, shed
    /// a.success(10);
    /// assert!(gate.try_acquire().is_some()); // room again (dropped at once: ignored)
    /// b.ignore();
    /// assert_eq!(gate.stats().shed[0], 1);
    /// ```
    #[inline]
    pub fn try_acquire(&self) -> Option<Permit<'_>> {
        self.try_acquire_with(Priority::Critical)
    }

    /// Admits a request of class `priority` if in flight is below the class's
    /// share of the limit; else sheds it (returns `None` and counts it).
    ///
    /// Lock-free; when uncontended, four loads (the word, then the three
    /// release counters, all from the word's cache line) and one CAS.
    ///
    /// With a limit of 4 and the default shares, `Background` is admitted
    /// while fewer than 2 are in flight, `Normal` while fewer than 3, and
    /// `Critical` while fewer than 4:
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig, Priority};
    ///
    /// let gate = Aimd::new(AimdConfig { min_limit: 4, initial_limit: 4, ..AimdConfig::DEFAULT });
    /// let _c1 = gate.try_acquire_with(Priority::Critical).unwrap();
    /// let _c2 = gate.try_acquire_with(Priority::Critical).unwrap();
    /// assert!(gate.try_acquire_with(Priority::Background).is_none()); // 2 in flight
    /// let _n = gate.try_acquire_with(Priority::Normal).unwrap();
    /// assert!(gate.try_acquire_with(Priority::Normal).is_none()); // 3 in flight
    /// let _c3 = gate.try_acquire_with(Priority::Critical).unwrap();
    /// assert!(gate.try_acquire_with(Priority::Critical).is_none()); // 4: the limit
    /// assert_eq!(gate.stats().shed, [1, 1, 1]); // per class, `Priority as usize`
    /// ```
    #[inline]
    pub fn try_acquire_with(&self, priority: Priority) -> Option<Permit<'_>> {
        let share = self.shares[priority as usize];
        loop {
            // Acquire: synchronises with the last admission (its AcqRel CAS
            // heads a release sequence every later RMW of the word
            // continues), so each release counter we read next is at least
            // the one it judged by (see "Orderings").
            let cur = self.hot.state.load(Ordering::Acquire);
            pause_point(pause::LIMIT_BETWEEN_LOADS);
            // Acquire, each: pairs with the Release of each release.
            let released = total(self.hot.released.load());
            let in_flight = admitted_of(cur).wrapping_sub(released) & COUNT_MASK;
            if in_flight > self.max_limit {
                // The counters count a permit admitted after `cur` was read:
                // the word has moved on. Read them all again.
                continue;
            }
            if in_flight >= threshold(limit_of(cur), share) {
                // Shed only if the word did not move while the counters were
                // read, so the count judged was the one in force at some
                // instant in between (see "Why three release counters").
                if self.hot.state.load(Ordering::Relaxed) != cur {
                    continue;
                }
                self.track.shed[priority as usize].add(1);
                return None;
            }
            pause_point(pause::LIMIT_ADMIT);
            // AcqRel: Release hands what we saw of the counters to the next
            // admission; Acquire gives semaphore semantics. The CAS compares
            // the admitted count, limit and epoch it checked.
            if self
                .hot
                .state
                .compare_exchange_weak(cur, bump_admitted(cur), Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                return Some(Permit {
                    aimd: self,
                    admitted: (cur & !COUNT_MASK) | (in_flight + 1),
                    priority,
                });
            }
        }
    }

    /// The current limit.
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig};
    ///
    /// let gate = Aimd::new(AimdConfig { min_limit: 1, initial_limit: 10, ..AimdConfig::DEFAULT });
    /// assert_eq!(gate.limit(), 10);
    /// gate.try_acquire().unwrap().dropped(); // overload: cut by 230/256
    /// assert_eq!(gate.limit(), 8); // floor(10 * 230 / 256)
    /// ```
    #[inline]
    pub fn limit(&self) -> u32 {
        limit_of(self.hot.state.load(Ordering::Relaxed)) as u32
    }

    /// Permits currently in flight (under concurrent use it may still count
    /// permits released during the call).
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig};
    ///
    /// static GATE: Aimd = Aimd::new(AimdConfig::DEFAULT);
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
    fn snapshot(&self) -> (usize, [usize; 3], usize) {
        loop {
            // Orderings as in `try_acquire_with`.
            let word = self.hot.state.load(Ordering::Acquire);
            let released = self.hot.released.load();
            let in_flight = admitted_of(word).wrapping_sub(total(released)) & COUNT_MASK;
            if in_flight <= self.max_limit && self.hot.state.load(Ordering::Relaxed) == word {
                return (word, released, in_flight);
            }
        }
    }

    /// The latency baseline in ticks, once a success was seen: the smallest
    /// latency of the recent successes.
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig};
    ///
    /// let gate = Aimd::new(AimdConfig::DEFAULT);
    /// assert_eq!(gate.baseline(), None);
    /// gate.try_acquire().unwrap().success(120);
    /// gate.try_acquire().unwrap().success(90);
    /// gate.try_acquire().unwrap().success(300);
    /// assert_eq!(gate.baseline(), Some(90));
    /// ```
    pub fn baseline(&self) -> Option<u32> {
        match self.track.baseline.load(Ordering::Relaxed) {
            UNKNOWN => None,
            b => Some(b as u32),
        }
    }

    /// A snapshot of the state and counters (see [`AimdStats`]).
    ///
    /// ```
    /// use sluicegate::limit::{Aimd, AimdConfig, AimdStats};
    ///
    /// let gate = Aimd::new(AimdConfig { min_limit: 1, initial_limit: 2, ..AimdConfig::DEFAULT });
    /// let a = gate.try_acquire().unwrap();
    /// let b = gate.try_acquire().unwrap();
    /// assert!(gate.try_acquire().is_none()); // shed
    /// a.success(50);
    /// b.dropped(); // cuts the limit from 2 to 1
    /// let _held = gate.try_acquire().unwrap();
    /// assert_eq!(
    ///     gate.stats(),
    ///     AimdStats {
    ///         limit: 1,
    ///         in_flight: 1,
    ///         admitted: 3,
    ///         succeeded: 1,
    ///         dropped: 1,
    ///         ignored: 0,
    ///         shed: [1, 0, 0],
    ///         decreases: 1,
    ///         baseline: Some(50),
    ///     }
    /// );
    /// ```
    pub fn stats(&self) -> AimdStats {
        let t = &*self.track;
        let (word, [succeeded, dropped, ignored], in_flight) = self.snapshot();
        AimdStats {
            limit: limit_of(word) as u32,
            in_flight: in_flight as u32,
            // Read together with the word: every admitted permit is in
            // flight or counted in exactly one outcome.
            admitted: total([succeeded, dropped, ignored]).wrapping_add(in_flight),
            succeeded,
            dropped,
            ignored,
            shed: [t.shed[0].get(), t.shed[1].get(), t.shed[2].get()],
            decreases: t.decreases.get(),
            baseline: self.baseline(),
        }
    }

    /// Gives one permit back as ignored: its only read-modify-write.
    #[inline]
    fn on_ignore(&self) {
        // Release: pairs with the Acquire loads of the counters in
        // admissions (semaphore semantics).
        self.hot.released.ignored.add_release(1);
    }

    fn on_dropped(&self, admitted: usize) {
        // Release: as in `on_ignore`.
        self.hot.released.dropped.add_release(1);
        self.cut(epoch_of(admitted));
    }

    #[inline]
    fn on_success(&self, admitted: usize, priority: Priority, ticks: u32) {
        // 0 ticks counts as 1, and u32::MAX as u32::MAX - 1 (which keeps
        // `UNKNOWN` free); the value stays < u32::MAX.
        let latency = ticks.clamp(1, u32::MAX - 1) as usize;
        let t = &*self.track;
        // Relaxed throughout: heuristics (see the module docs).
        let mut baseline = t.baseline.load(Ordering::Relaxed);
        if latency < baseline {
            baseline = t
                .baseline
                .fetch_min(latency, Ordering::Relaxed)
                .min(latency);
        }
        if latency < t.probe.load(Ordering::Relaxed) {
            t.probe.fetch_min(latency, Ordering::Relaxed);
        }
        // The permit's release, and its sequence number among successes (1
        // for the first, wrapping). Release: as in `on_ignore`.
        let n = self
            .hot
            .released
            .success
            .fetch_add(1, Ordering::Release)
            .wrapping_add(1);
        if n & self.window_mask == 0 {
            // Exactly one success sees each multiple of the window; it
            // re-probes the baseline as the minimum of the window that ended.
            let min = t.probe.swap(UNKNOWN, Ordering::Relaxed);
            if min != UNKNOWN {
                t.baseline.store(min, Ordering::Relaxed);
            }
        }
        // u64: u32 ticks × 16-bit fractions cannot overflow.
        let slow = (latency as u64) * (ONE as u64) > (baseline as u64) * (self.tolerance as u64);
        if slow {
            self.cut(epoch_of(admitted));
        } else {
            self.grow(admitted, priority, n);
        }
    }

    /// Additive increase: +1 once `limit` permits succeeded since the window
    /// started, if the success closing the window is a good one from the
    /// current epoch that saw at least half of its class's threshold in use.
    #[inline(always)]
    fn grow(&self, admitted: usize, priority: Priority, n: usize) {
        let share = self.shares[priority as usize];
        // Fast exit without touching shared state: within an epoch the
        // limit only grows (a cut starts a new epoch), so a permit below half
        // of its class's threshold at admission is below half of the
        // threshold now, and the full check below would return too. (After
        // exactly 2^8 cuts on 32-bit targets the epoch repeats and this may
        // skip a growth the full check would allow: harmless, growth is a
        // heuristic.)
        if in_flight_of(admitted) * 2 < threshold(limit_of(admitted), share) {
            return;
        }
        self.grow_checked(admitted, share, n);
    }

    #[inline(never)]
    fn grow_checked(&self, admitted: usize, share: usize, n: usize) {
        let epoch = epoch_of(admitted);
        // Relaxed: only limit and epoch are used; the CAS below validates.
        let now = self.hot.state.load(Ordering::Relaxed);
        let limit = limit_of(now);
        // Not application-limited: the permit saw at least half of its
        // class's threshold in use.
        let bound = threshold(limit, share);
        if epoch_of(now) != epoch || limit >= self.max_limit || in_flight_of(admitted) * 2 < bound {
            return;
        }
        let t = &*self.track;
        let start = t.window_start.load(Ordering::Relaxed);
        // Signed: `start` may lie ahead of `n` right after a cut.
        if (n.wrapping_sub(start) as isize) < limit as isize {
            return;
        }
        // One winner per window.
        if t.window_start
            .compare_exchange(start, n, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        let mut cur = now;
        loop {
            if epoch_of(cur) != epoch || limit_of(cur) >= self.max_limit {
                return;
            }
            pause_point(pause::LIMIT_GROW);
            // Relaxed: the word's own modification order is all that matters
            // (an RMW continues the admissions' release sequence).
            match self.hot.state.compare_exchange_weak(
                cur,
                cur + (1 << LIMIT_SHIFT),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(w) => cur = w,
            }
        }
    }

    /// Multiplicative decrease, at most once per epoch: only a permit
    /// admitted in the current epoch can cut, and the cut starts a new one.
    fn cut(&self, epoch: usize) {
        let mut cur = self.hot.state.load(Ordering::Relaxed);
        loop {
            if epoch_of(cur) != epoch {
                return; // admitted before the last cut
            }
            let limit = limit_of(cur);
            let scaled = (limit * self.backoff) >> 8;
            let lower = if scaled < self.min_limit {
                self.min_limit
            } else {
                scaled
            };
            if lower >= limit {
                return; // already at the floor
            }
            let next = pack(admitted_of(cur), lower, epoch + 1);
            pause_point(pause::LIMIT_CUT);
            // Relaxed: as in `grow`.
            match self.hot.state.compare_exchange_weak(
                cur,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(w) => cur = w,
            }
        }
        let t = &*self.track;
        t.decreases.add(1);
        // The next growth window starts `in_flight` successes from now: the
        // permits still in flight are all from the old epoch, and their
        // successes must not count toward growth under the new limit. (If
        // some of them end otherwise, as many successes of the new epoch are
        // skipped instead: growth is delayed by at most `in_flight`
        // successes, fewer than the old limit.)
        let (_, [succeeded, _, _], in_flight) = self.snapshot();
        let start = succeeded.wrapping_add(in_flight);
        t.window_start.store(start, Ordering::Relaxed);
    }
}

impl fmt::Debug for Aimd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (word, _, in_flight) = self.snapshot();
        f.debug_struct("Aimd")
            .field("limit", &limit_of(word))
            .field("in_flight", &in_flight)
            .field("epoch", &epoch_of(word))
            .finish_non_exhaustive()
    }
}
