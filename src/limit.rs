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
//! A caller that can wait briefly for a permit instead of being refused
//! uses `Limiter::acquire` (feature `async`) or `Limiter::acquire_blocking`
//! (feature `std`): a bounded backlog of waiters that releases serve, the
//! highest class first and, by default, the newest waiter first
//! (`src/limit/wait.rs` has the protocol).
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
//! and there every request is queue-free and re-teaches a grown-up baseline
//! (32 samples or more) within five samples (a level shift), whatever the
//! request rate; a younger one is the running mean of its samples so far.
//! A class that its share and reserve admit nothing at the limit in force
//! (every class but `Critical` at a limit of 1) would then never be
//! admitted, and with nothing in flight no sample would raise the limit:
//! so such a refusal with nothing in flight raises the limit by one (not
//! past `max_limit`), a waiting acquire's as a fresh request's. When no
//! queue-free sample has arrived for 2^16 successes (1024 while the
//! baseline has seen fewer than 32) and the limit binds (work was refused
//! for want of room, its class's share or the whole limit, since the last
//! window closed, a refusal during a probe, at its floor, excepted), the
//! limiter
//! *probes*: it cuts the limit to `min_limit` once, so that fresh
//! queue-free samples can correct a baseline that is too high (a dependency
//! that got faster under load), and after 8 successes of that epoch (32 for
//! a young baseline) puts the old limit back.
//!
//! A baseline that *rose* is checked: a level shift up that jumps more
//! than a sixteenth past the steps its run made (which a 1.2× slower
//! dependency does and a steady service's noise does not), a walk up in
//! small steps to more than a quarter above the level it last settled at
//! (a dependency that slows while samples of both sides keep coming), a
//! young baseline grown up from its first samples outside a probe, or a
//! run of five young samples each more than half above the running mean
//! (of two samples or more) where the run started (a slowdown that cut the
//! limit to its floor before the baseline grew up: the mean takes it in,
//! and with the clients all `Normal` the young baseline is never probed
//! for binding). If 2048 successes pass without a queue-free sample after
//! it, the limiter probes whether or not the limit binds, and the check's
//! queue-free samples bring the estimates back down as any run of five
//! does (a level shift).
//! A stall (a garbage collection, a paused host) makes a run of slow
//! queue-free samples that moves the baseline up, and a cold cache teaches
//! a young baseline slow ones; with closed-loop clients, which take every
//! freed permit at once, no queue-free sample would come again to undo it,
//! and the limit would grow past the clients while latency multiplies. The
//! check brings both back about 1.3 s later at 1 600 successes/s (the
//! `stall-*` and `cold-start-64` scenarios of the suite). A rise that
//! queue-free samples keep confirming for 2048 successes is not checked.
//!
//! A rise that holds (the dependency did slow down) may end later, when
//! the dependency recovers, and under load that leaves no queue-free
//! sample only a probe shows it. A rise outside a probe is *held* if the
//! baseline is still at least halfway from where it rose from to where it
//! rose to once queue-free samples have confirmed it for 2048 successes,
//! or when the probe that checks it ends. A baseline left high by a
//! slowdown that ended makes nothing look slow, so the limit grows: for
//! 2^19 successes after a held rise, while the limit is more than a
//! quarter above the limit in force when the rise was found held, the
//! probe that waits for a binding limit comes sooner than 2^16: an eighth
//! of the successes since the rise after the last queue-free sample, at
//! least 2048. The end of a slowdown is then seen within about an eighth
//! of its length in successes (the `slowdown-*-under-64` scenarios: a 10 s
//! ×3 and a 20 s ×1.6 slowdown under 64 closed-loop clients, where the
//! 2^16 wait alone took 40 s). A slower level that stays, with the limit
//! where the slowdown left it, is probed as one that never rose. A rise
//! that a grown-up baseline's probe's own samples show is checked but
//! never held: with a heavy-tailed service a probe's eight samples often
//! make one. A young baseline's probe lasts until it has grown up, and a
//! young run its samples make is judged when it ends, held or undone: a
//! slowdown that fills the limit brings that probe. A heavy-tailed
//! service's noise also makes rises outside probes that the next probe's
//! noise finds held; what the probes cost there is in `BENCHMARKS.md`,
//! "What the probes after a rise cost".
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
//! ## Ticks
//!
//! Latencies are in ticks of any clock; a latency above [`MAX_TICKS`]
//! (2^28 − 1) counts as that. Pick a tick no longer than a typical request
//! (a 1 ms tick on a 1.2 ms operation works; finer is better: with a µs tick
//! a 0.3 µs call counts as 1 µs) that still spans the slowest latency that
//! matters: 268 s at 1 µs, 0.27 s at 1 ns. [`Limiter::retry_after`] answers
//! in the same ticks; for an HTTP `Retry-After`, convert to seconds and round
//! up.
//!
//! ## Beyond admission
//!
//! - Cost: an acquire and a success take 1.76× a bare `fetch_add` /
//!   `fetch_sub` pair, an acquire and an ignore 1.20× (`BENCHMARKS.md`).
//! - [`Limiter::pressure`] says how close a class is to being shed
//!   (`Normal`, `Elevated` from three quarters of its share, `Saturated`):
//!   serve a cached or cheaper answer, without a permit, before the limiter
//!   refuses.
//! - [`Limiter::try_acquire_n`] admits `n` units in one step (Go's
//!   `semaphore.Weighted`), within the same limit and class rules; a
//!   weighted permit is `n` units in every count and one latency sample.
//! - With the `std` feature, `try_acquire_owned` on an `Arc<Limiter>` gives
//!   an `OwnedPermit` that can cross `tokio::spawn`; the workspace package
//!   `sluicegate-tower` (`tower/`) is a `tower::Layer` built on it, with a
//!   tokio example measured at twice a backend's capacity (`cargo run
//!   --release -p sluicegate-tower --example overload`).
//! - The waiting acquires' waiter lives in the future or the caller's
//!   frame; with `async` each release adds one fence and one load while
//!   nobody waits. They are counted in `queued`, `timed_out` and
//!   `backlog_peak` ([`LimiterStats`]).
//! - Untuned, both presets are compared with models of Netflix's and
//!   Envoy's limiters in the scenario suite (`cargo run --release --example
//!   limit_scenarios`); the tables, and where each preset falls short, are
//!   in `BENCHMARKS.md`.
//!
//! # How it is built
//!
//! Admission is one CAS on an *admission word* that packs
//! `admitted | limit | epoch`; each release is one `fetch_add` on the counter
//! of its outcome, on the same cache line (`src/limit/word.rs` has the
//! layout, the transitions and why one step keeps in flight under the
//! limit). A [`Limiter`] is 45 words: 180 bytes on 32-bit Arm, where nothing
//! is padded, and 512 on x86-64, where the admission word and the release
//! counters, the adaptation words every success reads, and the words
//! written off the success path each take a 128-byte line, and the
//! configuration and the words only a rise uses share the last. The
//! `async` feature adds the waiting acquires' backlog: 228 and 768 bytes.
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
mod observe;
#[cfg(feature = "std")]
mod owned;
#[cfg(all(test, not(sluicegate_loom)))]
mod pause_tests;
mod permit;
mod pressure;
#[cfg(all(test, not(sluicegate_loom)))]
mod rise_tests;
#[cfg(all(test, not(sluicegate_loom)))]
mod tests;
#[cfg(feature = "async")]
mod wait;
#[cfg(all(test, not(sluicegate_loom)))]
mod weight_tests;
mod word;

pub use config::{
    BacklogOrder, ConfigError, Law, LimiterConfig, Priority, CLASSES, MAX_TICKS, ONE,
};
pub use observe::LimiterStats;
#[cfg(feature = "std")]
pub use owned::OwnedPermit;
pub use permit::Permit;
pub use pressure::Pressure;
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use wait::Acquire;
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
/// taken as a level shift (`learn`), and above a young one's start that are
/// taken as a rise (`young_run`).
const SHIFT_RUN: usize = 5;
/// Successes without a queue-free sample after which a young baseline is
/// probed.
const YOUNG_PROBE_AFTER: usize = 1024;
/// Successes without a queue-free sample after which a baseline that rose
/// (a level shift, a walk or a young run up, or a young baseline grown up)
/// and was not checked since is probed, whether or not the limit binds.
const CHECK_AFTER: usize = 2048;
/// Successes after a held rise from which a baseline that no queue-free
/// sample has reached waits the full `PROBE_AFTER` for a probe: until then
/// it waits `1 / RISE_SHARE` of the rise's age, at least `CHECK_AFTER`
/// (`stale`).
const RISE_OLD: usize = 8 * PROBE_AFTER;
/// The share of a held rise's age that a probe waits for (`stale`).
const RISE_SHARE: usize = 8;
/// After a held rise, a probe comes sooner only while the limit is more
/// than `1 / GREW` above the limit then in force (`limit_grew`).
const GREW: usize = 4;
/// A baseline that walks up by more than `1 / WALK` of its settled level
/// in small steps, outside a probe, rose as a level shift does (`walked`).
const WALK: usize = 4;
/// A grown-up baseline's `last_free` is kept to this many successes.
const FRESH_EVERY: usize = 256;
/// `Track::risen`: the baseline rose and was not checked since.
const RISEN: usize = 1;

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
    /// `RISEN` once the baseline has risen (a level shift up, a young
    /// baseline grown up outside a probe, or a young run up) and neither a probe nor
    /// `CHECK_AFTER` successes of queue-free samples have followed: it is
    /// probed once `CHECK_AFTER` successes pass without a queue-free
    /// sample; 0 otherwise.
    risen: AtomicUsize,
    /// The success count of the latest rise.
    risen_at: AtomicUsize,
    /// Queue-free successes seen, up to `YOUNG` (then no longer written).
    free_seen: AtomicUsize,
    /// The run of grown-up queue-free samples on one side of the baseline:
    /// `k` above, `-k` below (as `isize`), 0 after a level shift; while
    /// young, the run of samples half above where it started
    /// (`young_run`).
    run: AtomicUsize,
    /// The sample of the run nearest to the baseline (1/16 tick); while
    /// young, the running mean where the run started.
    run_near: AtomicUsize,
    /// The limit before the probe in progress, 0 if none.
    resume: AtomicUsize,
    /// The window of the law in use, in words that only that law reads and
    /// writes, and names: `aimd::Window` (where the window ends, its
    /// overload signals, the growth step; laid out as its first window,
    /// `aimd::first_window`), or `gradient::drops` and `gradient::counted`
    /// (the first two words, from 0).
    law: [AtomicUsize; 3],
}

/// Words written off the success path: on refusals, cuts and growth, and by
/// the classes with a reserve (kept off both the admission word's line and
/// the adaptation words' line, which every success reads).
struct Cold {
    decreases: SharedCounter,
    increases: SharedCounter,
    probes: SharedCounter,
    /// Requests refused with the whole limit in use: the limit binds.
    at_limit: SharedCounter,
    /// `at_limit` when a probe was last considered.
    at_limit_seen: AtomicUsize,
    /// Requests refused at their class's share of the limit, with room
    /// left for a higher class: the limit binds for that class.
    at_share: SharedCounter,
    /// `at_share` when a probe was last considered.
    at_share_seen: AtomicUsize,
    shed: [SharedCounter; CLASSES],
    /// Permits held by Normal and Background, counted only for a class with
    /// a reserve.
    holding: [AtomicUsize; 2],
}

/// Where the baseline rose and whether the rise held: read when the
/// baseline or the mean moves and when a window closes, written when it
/// moves past its settled level and when a rise is judged (last in the
/// limiter, so that no word the admissions or releases use moves further
/// from its base). Relaxed, every access, as the other adaptation words: a
/// racing update can only move when a probe comes, and the limit itself
/// changes only by a CAS on the admission word.
struct Rise {
    /// The highest level a candidate rise (a rise outside a probe) brought
    /// (1/16 tick), until it is found held or undone; 0 if none.
    risen_to: AtomicUsize,
    /// The success count of the latest rise found held (`RISE_OLD` before
    /// the first success when there was none): the age `stale` counts.
    held_at: AtomicUsize,
    /// The limit in force when that rise was found held (`usize::MAX >>
    /// 1` when there was none).
    held_limit: AtomicUsize,
    /// The level a rise is measured from (1/16 tick): where the baseline
    /// grew up or the latest judgement left it, or lower if it went lower
    /// since; while young, 0, or where a young run up started.
    settled: AtomicUsize,
}

/// A lock-free adaptive concurrency limiter. See the [module docs](self).
// In declaration order: a Thumb-1 load reaches 124 bytes past its base, so
// the words admissions and releases use come first and `rise` comes last
// (left to the compiler, it went before the configuration, and a shed
// cost 4 instructions more on the Cortex-M0).
#[repr(C)]
pub struct Limiter {
    /// The admission word and the release counters.
    hot: Padded<Hot>,
    track: Padded<Track>,
    cold: Padded<Cold>,
    /// The waiting acquires' backlog (`src/limit/wait.rs`).
    #[cfg(feature = "async")]
    waits: Padded<wait::Waits>,
    /// Its bound, and whether a class's waiters are served newest first.
    #[cfg(feature = "async")]
    backlog: usize,
    #[cfg(feature = "async")]
    lifo: bool,
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
    rise: Rise,
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
                        let words = match c.law {
                            Law::Aimd => aimd::first_window(success, c.initial_limit as usize),
                            Law::Gradient => [0; 3],
                        };
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
                    at_share: SharedCounter::new(),
                    at_share_seen: AtomicUsize::new(0),
                    shed: [SharedCounter::new(), SharedCounter::new(), SharedCounter::new()],
                    holding: [AtomicUsize::new(0), AtomicUsize::new(0)],
                }),
                #[cfg(feature = "async")]
                waits: Padded::new(wait::Waits::new(c.backlog_order, c.backlog)),
                #[cfg(feature = "async")]
                backlog: c.backlog as usize,
                #[cfg(feature = "async")]
                lifo: matches!(c.backlog_order, BacklogOrder::Lifo),
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
                rise: Rise {
                    risen_to: AtomicUsize::new(0),
                    // No rise yet: as old as a rise that no longer shortens
                    // the probe's wait.
                    held_at: AtomicUsize::new(success.wrapping_sub(RISE_OLD)),
                    held_limit: AtomicUsize::new(usize::MAX >> 1),
                    settled: AtomicUsize::new(0),
                },
            }
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
        #[cfg(feature = "async")]
        self.wake_waiters(grant.weight as usize);
    }

    fn on_dropped(&self, grant: Grant) {
        self.leave_class(grant);
        let w = grant.weight as usize;
        // Release: as in `on_ignore`.
        self.hot.released.dropped.add_release(w);
        #[cfg(feature = "async")]
        self.wake_waiters(w);
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
        #[cfg(feature = "async")]
        self.wake_waiters(w);
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
