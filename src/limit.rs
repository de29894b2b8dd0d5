//! A lock-free, allocation-free adaptive concurrency limiter with priority
//! classes and two control laws (AIMD and latency gradient), usable in a
//! `static`.
//!
//! # Model
//!
//! Work is admitted while the number of permits *in flight* is below the
//! current *limit*; beyond it, work is shed at once ([`Limiter::try_acquire`]
//! returns `None`). Each [`Permit`] ends with an outcome that steers the limit:
//!
//! * [`Permit::success`] with the latency in ticks of any clock.
//! * [`Permit::dropped`]: overload (timeout, downstream rejection, full
//!   queue). Everything that means "the dependency could not keep up" must
//!   end this way: an overload reported as `ignore` is invisible to the
//!   limiter.
//! * [`Permit::ignore`], or dropping the permit: no information (cancelled,
//!   client error). The permit is released all the same.
//!
//! ## The baseline: queue-free samples only
//!
//! A permit admitted with at most `min_limit` permits in flight (itself
//! included) is *queue-free*: `min_limit` is, by its definition in
//! [`LimiterConfig`], parallelism the dependency always has, so such a
//! request did not wait behind this limiter's other requests. Only
//! queue-free successes teach the baseline, so under sustained load, when
//! every request queues, the baseline cannot learn the queue and ratchet up.
//! The baseline estimates the queue-free median and mean latency (the
//! estimator is described at [`Limiter::baseline`]).
//!
//! At light load nearly every request is queue-free. When a dependency gets
//! slower for good, every sample is slow, the limit falls to `min_limit`,
//! and there every request is queue-free and re-teaches the baseline within
//! five samples (a level shift), whatever the request rate. When no
//! queue-free sample has arrived for 2^16 successes (1024 while the
//! baseline has seen fewer than 32) and the limit binds (work was refused
//! with the whole limit in use since the last window closed), the limiter
//! *probes*: it cuts the limit to `min_limit` once, so that fresh
//! queue-free samples can correct a baseline that is too high (a dependency
//! that got faster under load), and after 8 successes of that epoch (32 for
//! a young baseline) puts the old limit back.
//!
//! A baseline that *rose* (a level shift up, or a young baseline grown up
//! from its first samples outside a probe) is checked: if 2048 successes
//! pass without a queue-free sample after it, the limiter probes whether or
//! not the limit binds; the check's 8 samples teach the mean at weight 1/2
//! instead of 1/16. A stall (a garbage collection, a paused host) makes a
//! run of slow queue-free samples that moves the baseline up, and a cold
//! cache teaches a young baseline slow ones; with closed-loop clients,
//! which take every freed permit at once, no queue-free sample would come
//! again to undo it, and the limit would grow past the clients while
//! latency multiplies. The check brings both back about 1.3 s later at
//! 1 600 successes/s (the `stall-*` and `cold-start-64` scenarios of the
//! suite). A rise that queue-free samples keep confirming for 2048
//! successes is not checked. A genuine slowdown under load pays one check
//! (a probe's worth of good-put).
//!
//! A success is *slow* when its latency exceeds all of `baseline +
//! (tolerance − 1) × mean` (the queueing accepted scales with the mean
//! service time), `baseline + 1 tick` (a request that crosses one tick
//! boundary of a coarse clock looks twice as slow), and `latency_floor`.
//!
//! ## The laws
//!
//! How the limit follows the slow successes is the *control law*, a field
//! of the configuration: [`Law::Aimd`] (the default) judges windows of
//! `max(limit, 16)` successes by their median, cuts by `backoff` and grows
//! by a doubling step ([`aimd`]); [`Law::Gradient`] scales the limit once
//! per window by the target over the window's mean latency ([`gradient`]).
//! Both cut at most once per *epoch*: a permit carries the epoch of its
//! admission, every cut starts a new one, and only a permit of the current
//! epoch can cut, so a burst of overload signals cuts once.
//!
//! Requests come in three [`Priority`] classes: only
//! [`Critical`](Priority::Critical) takes the last permit, the others are
//! admitted to a share of the limit (plus a reserve) and shed first. The
//! presets need no tuning beyond the limits (see [`LimiterConfig`]).
//!
//! # How it is built
//!
//! Admission is one CAS on an *admission word* that packs
//! `admitted | limit | epoch`; each release is one `fetch_add` on the counter
//! of its outcome, on the same cache line (`src/limit/word.rs` has the
//! layout, the transitions and why one step keeps in flight under the
//! limit). A [`Limiter`] is 35 words: 140 bytes on 32-bit Arm, where nothing
//! is padded, and 512 on x86-64, where the admission word and the release
//! counters, the adaptation words every success reads, and the words
//! written off the success path each take a 128-byte line.
//!
//! # Progress
//!
//! * [`Limiter::try_acquire_with`] is lock-free: it retries only when another
//!   context changed the word or released a permit admitted after its read
//!   (both progress), or when an LL/SC CAS failed spuriously. It sheds only
//!   if the word did not change while it read the release counters, so in
//!   flight was at least the count it judged at an instant in between; a
//!   release it could not yet see is ordered after the shed.
//! * Releasing a permit is wait-free: one `fetch_add` on its outcome's
//!   counter, whatever the outcome (plus one `fetch_sub` for a class with a
//!   reserve).
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
//! * The adaptation words (baseline, mean, the last queue-free sample, the
//!   laws' windows), the per-class reserve counts and the
//!   statistics are `Relaxed`: heuristics and counters, ordered with
//!   nothing. A race there can lose a sample or a step, or admit a reserved
//!   class one permit beyond its reserve, never admit over the limit nor a
//!   lower class to the last permit (every admission still goes through the
//!   word's CAS, which compares the word its in-flight count was judged in).
//!
//! loom checks these models (`limit/loom_tests.rs`), which do not rely on
//! `SeqCst` (loom treats it like `AcqRel`).
//!
//! # Example
//!
//! ```
//! use sluicegate::limit::{Limiter, LimiterConfig, Priority};
//!
//! static LIMITER: Limiter = Limiter::new(LimiterConfig::DEFAULT);
//! // The gradient law instead: one line.
//! static OTHER: Limiter = Limiter::new(LimiterConfig::GRADIENT);
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
//! // Background work gets at most half of the limit (plus its reserve).
//! if let Some(p) = OTHER.try_acquire_with(Priority::Background) {
//!     p.ignore();
//! }
//! assert_eq!(LIMITER.in_flight(), 0);
//! ```
//!
//! # References
//!
//! * H. Robbins, S. Monro, "A Stochastic Approximation Method", Annals of
//!   Mathematical Statistics 22(3), 1951 — the quantile estimate.
//! * The laws' own: [`aimd`](aimd#references), [`gradient`](gradient#references).

use core::fmt;

mod adapt;
mod admit;
pub mod aimd;
#[cfg(all(test, not(sluicegate_loom)))]
mod baseline_tests;
#[cfg(all(test, not(sluicegate_loom)))]
mod class_tests;
mod config;
pub mod gradient;
#[cfg(all(test, sluicegate_loom))]
mod loom_tests;
#[cfg(feature = "std")]
mod owned;
#[cfg(all(test, not(sluicegate_loom)))]
mod pause_tests;
mod permit;
#[cfg(all(test, not(sluicegate_loom)))]
mod tests;
#[cfg(all(test, not(sluicegate_loom)))]
mod weight_tests;
mod word;

pub use config::{ConfigError, Law, LimiterConfig, Priority, CLASSES, MAX_TICKS, ONE};
#[cfg(feature = "std")]
pub use owned::OwnedPermit;
pub use permit::Permit;
pub use word::MAX_LIMIT;

use crate::sync::{const_fn, AtomicUsize, Ordering, Padded, SharedCounter};
use adapt::Event;
use aimd::Aimd;
use gradient::Gradient;
use permit::Grant;
use word::*;

/// Bits of fraction in latencies kept by the limiter (1/16 tick).
const FRAC: u32 = 4;
/// One tick in those units.
const TICK: usize = 1 << FRAC;
/// Fewest successes in a window.
const WINDOW_MIN: usize = 16;
/// Successes without a queue-free sample after which the limiter probes.
const PROBE_AFTER: usize = 1 << 16;
/// Successes of a probe's epoch after which the limit goes back to where it
/// was before the probe.
const PROBE_SAMPLES: usize = 8;
/// Queue-free samples before the baseline is grown up: until then it is the
/// samples' running mean, and a probe comes after `YOUNG_PROBE_AFTER`
/// successes without one and lasts until it has `YOUNG` of them.
const YOUNG: usize = 32;
/// Queue-free samples in a row on one side of a grown-up baseline that are
/// taken as a level shift (`learn`).
const SHIFT_RUN: usize = 5;
/// Successes without a queue-free sample after which a young baseline is
/// probed.
const YOUNG_PROBE_AFTER: usize = 1024;
/// Successes without a queue-free sample after which a baseline that rose
/// (a level shift up, or a young baseline grown up) and was not checked
/// since is probed, whether or not the limit binds.
const CHECK_AFTER: usize = 2048;
/// A grown-up baseline's `last_free` is kept to this many successes.
const FRESH_EVERY: usize = 256;
/// `Track::risen`: the baseline rose and was not checked since.
const RISEN: usize = 1;

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
    /// seen fewer than 32) while the limit binds, or after 2048 once the
    /// baseline rose (see the [module docs](self)).
    pub probes: usize,
    /// The queue-free median latency in ticks, once a queue-free success was
    /// seen.
    pub baseline: Option<u32>,
    /// The queue-free mean latency in ticks, once a queue-free success was
    /// seen.
    pub mean: Option<u32>,
}

/// Adaptation words, read by every success and written when the estimates
/// or the window move (kept off the admission word's cache line).
struct Track {
    /// The queue-free median in 1/16 tick; 0 before the first queue-free
    /// success. Invariant: 0 or in `TICK..=u32::MAX`.
    baseline: AtomicUsize,
    /// The queue-free mean in 1/16 tick; 0 before the first. Same range.
    mean: AtomicUsize,
    /// The latency above which a success is slow, in 1/16 tick (`target`
    /// of the baseline and mean, for the law in use), kept by `learn`; 0
    /// before the first queue-free success (nothing is slow then).
    slow_above: AtomicUsize,
    /// Success count of the last queue-free success (to `FRESH_EVERY`
    /// successes once the baseline is grown up).
    last_free: AtomicUsize,
    /// `RISEN` once the baseline has risen (a level shift up, or a young
    /// baseline grown up outside a probe) and neither a probe nor
    /// `CHECK_AFTER` successes of queue-free samples have followed: it is
    /// probed once `CHECK_AFTER` successes pass without a queue-free
    /// sample; 0 otherwise.
    risen: AtomicUsize,
    /// The success count of the latest rise.
    risen_at: AtomicUsize,
    /// Queue-free successes seen, up to `YOUNG` (then no longer written).
    free_seen: AtomicUsize,
    /// The run of grown-up queue-free samples on one side of the baseline:
    /// `k` above, `-k` below (as `isize`), 0 after a level shift.
    run: AtomicUsize,
    /// The sample of the run nearest to the baseline (1/16 tick).
    run_near: AtomicUsize,
    /// The limit before the probe in progress, 0 if none.
    resume: AtomicUsize,
    /// The window of the law in use, in words that only that law reads and
    /// writes, and names: `aimd::Window` (where the window ends, its
    /// overload signals, the growth step), `gradient::counted` (the second
    /// word). Laid out as AIMD's first window (`aimd::first_window`).
    law: [AtomicUsize; 3],
}

/// Words written off the success path: on refusals, cuts and growth, and by
/// the classes with a reserve (kept off both the admission word's line and
/// the adaptation words' line, which every success reads).
struct Cold {
    decreases: SharedCounter,
    increases: SharedCounter,
    probes: SharedCounter,
    /// Requests shed with the whole limit in use (not only their class's
    /// share): the limit binds.
    at_limit: SharedCounter,
    /// `at_limit` when a probe was last considered.
    at_limit_seen: AtomicUsize,
    shed: [SharedCounter; CLASSES],
    /// Permits held by Normal and Background, counted only for a class with
    /// a reserve.
    holding: [AtomicUsize; 2],
}

/// A lock-free adaptive concurrency limiter. See the [module docs](self).
pub struct Limiter {
    /// The admission word and the release counters.
    hot: Padded<Hot>,
    track: Padded<Track>,
    cold: Padded<Cold>,
    /// Immutable after construction: `min_limit ≤ max_limit ≤ MAX_LIMIT`.
    min_limit: usize,
    max_limit: usize,
    /// In 1/256, `1..=255`.
    backoff: usize,
    /// In 1/256, `≥ 256`.
    tolerance: usize,
    /// In 1/16 tick.
    floor: usize,
    law: Law,
    enforce: bool,
    /// Per-class shares in 1/256; `shares[0] == ALL`.
    shares: [usize; CLASSES],
    /// Per-class reserves in 1/256; `reserves[0] == 0`.
    reserves: [usize; CLASSES],
}

impl Limiter {
    const_fn! {
        /// A limiter with the given configuration.
        ///
        /// Meant for a `static` or `const`, where an invalid configuration is
        /// a compile-time error. Called at run time with an invalid
        /// configuration it panics; use [`Limiter::try_new`] for configurations
        /// built at run time.
        ///
        /// ```
        /// use sluicegate::limit::{Limiter, LimiterConfig};
        ///
        /// static DB: Limiter = Limiter::new(LimiterConfig::DEFAULT);
        /// static RADIO: Limiter = Limiter::new(LimiterConfig {
        ///     min_limit: 1,
        ///     initial_limit: 4,
        ///     max_limit: 8,
        ///     ..LimiterConfig::DEFAULT
        /// });
        /// assert_eq!((DB.limit(), RADIO.limit()), (8, 4));
        /// ```
        ///
        /// The same with `min_limit: 0` does not compile (the panic becomes a
        /// const-evaluation error):
        ///
        /// ```compile_fail,E0080
        /// use sluicegate::limit::{Limiter, LimiterConfig};
        /// static BAD: Limiter = Limiter::new(LimiterConfig { min_limit: 0, ..LimiterConfig::DEFAULT });
        /// ```
        ///
        /// The run-time panic names the caller's line (`#[track_caller]`).
        #[track_caller]
        pub fn new(config: LimiterConfig) -> Self {
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
        /// use sluicegate::limit::{Limiter, LimiterConfig, ConfigError};
        ///
        /// // Say the limits come from a configuration file.
        /// let (min, max) = (50, 10);
        /// let config = LimiterConfig { min_limit: min, max_limit: max, ..LimiterConfig::DEFAULT };
        /// assert_eq!(Limiter::try_new(config).unwrap_err(), ConfigError::MinAboveMax);
        ///
        /// let config = LimiterConfig { min_limit: 5, initial_limit: 5, max_limit: 50, ..config };
        /// let gate = Limiter::try_new(config).expect("valid");
        /// assert_eq!(gate.limit(), 5);
        /// ```
        pub fn try_new(config: LimiterConfig) -> Result<Self, ConfigError> {
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
    pub fn with_start(
        config: LimiterConfig,
        epoch: usize,
        count: usize,
    ) -> Result<Self, ConfigError> {
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
        fn build(c: LimiterConfig, epoch: usize, admitted: usize, success: usize) -> Self {
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
                    baseline: AtomicUsize::new(0),
                    mean: AtomicUsize::new(0),
                    slow_above: AtomicUsize::new(0),
                    last_free: AtomicUsize::new(success),
                    risen: AtomicUsize::new(0),
                    risen_at: AtomicUsize::new(0),
                    free_seen: AtomicUsize::new(0),
                    run: AtomicUsize::new(0),
                    run_near: AtomicUsize::new(0),
                    resume: AtomicUsize::new(0),
                    law: {
                        let words = aimd::first_window(success, c.initial_limit as usize);
                        [
                            AtomicUsize::new(words[0]),
                            AtomicUsize::new(words[1]),
                            AtomicUsize::new(words[2]),
                        ]
                    },
                }),
                cold: Padded::new(Cold {
                    decreases: SharedCounter::new(),
                    increases: SharedCounter::new(),
                    probes: SharedCounter::new(),
                    at_limit: SharedCounter::new(),
                    at_limit_seen: AtomicUsize::new(0),
                    shed: [SharedCounter::new(), SharedCounter::new(), SharedCounter::new()],
                    holding: [AtomicUsize::new(0), AtomicUsize::new(0)],
                }),
                min_limit: c.min_limit as usize,
                max_limit: c.max_limit as usize,
                backoff: c.backoff as usize,
                tolerance: c.tolerance as usize,
                floor: if c.latency_floor > MAX_TICKS {
                    (MAX_TICKS as usize) << FRAC
                } else {
                    (c.latency_floor as usize) << FRAC
                },
                law: c.law,
                enforce: c.enforce,
                shares: [ALL, c.normal_share as usize, c.background_share as usize],
                reserves: [0, c.normal_reserve as usize, c.background_reserve as usize],
            }
        }
    }

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
    /// every `mean / limit` ticks). `Some(0)` when the class would be
    /// admitted; `None` before the first queue-free success. A request of
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
        let t = threshold(limit, self.shares[priority as usize]);
        if in_flight < t {
            return Some(0);
        }
        let excess = (in_flight - t + 1) as u64;
        let ticks = (mean as u64 * excess).div_ceil(limit.max(1) as u64) >> FRAC;
        Some(ticks.min(u32::MAX as u64) as u32)
    }

    /// A snapshot of the state and counters (see [`LimiterStats`]).
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, LimiterStats};
    ///
    /// // The gradient law: a drop cuts at once.
    /// let gate = Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 2, ..LimiterConfig::GRADIENT });
    /// let a = gate.try_acquire().unwrap();
    /// let b = gate.try_acquire().unwrap();
    /// assert!(gate.try_acquire().is_none()); // shed
    /// a.success(50); // admitted with 1 in flight: queue-free
    /// b.dropped(); // cuts the limit from 2 to 1
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
    ///     }
    /// );
    /// ```
    pub fn stats(&self) -> LimiterStats {
        let (t, cold) = (&*self.track, &*self.cold);
        let (word, [succeeded, dropped, ignored], in_flight) = self.snapshot();
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
        }
    }

    /// The class count of a permit of a class with a reserve goes down by
    /// its weight.
    #[inline(always)]
    fn leave_class(&self, grant: Grant) {
        let class = grant.priority as usize;
        // Critical (class 0) never has a reserve.
        if class != 0 && self.reserves[class] != 0 {
            // Relaxed: as in `try_acquire_with`.
            self.cold.holding[class - 1].fetch_sub(grant.weight as usize, Ordering::Relaxed);
        }
    }

    /// Gives a permit's units back as ignored: its only read-modify-write.
    #[inline]
    fn on_ignore(&self, grant: Grant) {
        self.leave_class(grant);
        // Release: pairs with the Acquire loads of the counters in
        // admissions (semaphore semantics).
        self.hot.released.ignored.add_release(grant.weight as usize);
    }

    fn on_dropped(&self, grant: Grant) {
        self.leave_class(grant);
        let w = grant.weight as usize;
        // Release: as in `on_ignore`.
        self.hot.released.dropped.add_release(w);
        self.adapt(Event::Dropped {
            at_admission: grant.at_admission,
            w,
        });
    }

    #[inline]
    fn on_success(&self, grant: Grant, ticks: u32) {
        self.leave_class(grant);
        // In 1/16 tick; 0 ticks counts as 1 and the value fits 32 bits.
        let x = (ticks.clamp(1, MAX_TICKS) as usize) << FRAC;
        let w = grant.weight as usize;
        // The permit's release, and the success count it brings the counter
        // to (wrapping): the sequence number of its sample, `w` successes on
        // from the last. Release: as in `on_ignore`.
        let n = self
            .hot
            .released
            .success
            .fetch_add(w, Ordering::Release)
            .wrapping_add(w);
        if in_flight_of(grant.at_admission) <= self.min_limit {
            self.learn(x, n);
        }
        self.adapt(Event::Success {
            at_admission: grant.at_admission,
            priority: grant.priority,
            x,
            n,
            w,
        });
    }

    /// Hands `event` to the law in use: the one place the law is dispatched
    /// (each law's code and window are in its own module).
    #[inline(always)]
    fn adapt(&self, event: Event) {
        match self.law {
            Law::Aimd => self.adapt_with::<Aimd>(event),
            Law::Gradient => self.adapt_with::<Gradient>(event),
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
