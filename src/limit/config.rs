//! The limiter's configuration: priority classes, the control [`Law`],
//! [`LimiterConfig`] with its presets, what [`LimiterConfig::validate`]
//! rejects ([`ConfigError`]), and the latency tick's range ([`MAX_TICKS`]).

use core::fmt;

use super::{FRAC, MAX_LIMIT};

/// Fractions in the configuration are in units of 1/256.
pub const ONE: u16 = 256;

/// The longest latency the limiter tells apart, in ticks: 2^28 − 1
/// (268 435 455). A latency given to
/// [`Permit::success`](super::Permit::success) above it counts as
/// `MAX_TICKS` (and 0 counts as 1); so does a `latency_floor` above it. The
/// limiter keeps latencies in 1/16 tick in 32-bit words, hence the bound.
///
/// # Choosing the tick
///
/// Latencies are in ticks of any clock, the same one for every call. The
/// tick has two bounds:
///
/// * **Fine enough.** A latency is a whole number of ticks, and a success is
///   slow only when it is at least one tick over the baseline. A tick longer
///   than a typical request makes most samples 0 or 1 (both count as 1), so
///   queueing and service look alike: with a µs tick, a call that takes
///   0.3 µs counts as 1 µs, and the limiter sees nothing slow until a call
///   takes 3 µs, ten times as long. Take a tick no longer than the typical
///   latency (the suite's `tick-1ms` scenarios run a 1 ms tick on a 1.2 ms
///   operation), and finer where the clock allows: a tick 10 to 100 times
///   shorter than a request resolves a 50 % tolerance well.
/// * **Coarse enough.** The slowest latency that matters (the timeout)
///   should stay under `MAX_TICKS` ticks, or every slower request looks
///   alike: 268 s at 1 µs, 0.27 s at 1 ns, 4.3 s at 16 ns.
///
/// A µs tick (`Instant::elapsed().as_micros()`) suits requests from tens of
/// µs to minutes; for sub-µs operations take a cycle counter or a ns clock,
/// shifted right as far as the longest latency needs.
///
/// ```
/// use sluicegate::limit::{Limiter, LimiterConfig, MAX_TICKS};
/// use std::time::Duration;
///
/// assert_eq!(MAX_TICKS, (1 << 28) - 1);
/// // A 1 µs tick on a 0.3 µs operation: the sample is 0, and counts as 1.
/// let fast = Limiter::new(LimiterConfig::DEFAULT);
/// let ticks = Duration::from_nanos(300).as_micros() as u32;
/// fast.try_acquire().unwrap().success(ticks);
/// assert_eq!(fast.baseline(), Some(1));
/// // A 16 ns tick resolves it (and spans 4.3 s).
/// let fine = Limiter::new(LimiterConfig::DEFAULT);
/// let ticks = (Duration::from_nanos(300).as_nanos() >> 4) as u32;
/// fine.try_acquire().unwrap().success(ticks);
/// assert_eq!(fine.baseline(), Some(18));
/// // Too long for the clock: counts as MAX_TICKS.
/// let slow = Limiter::new(LimiterConfig::DEFAULT);
/// let ticks = u32::try_from(Duration::from_secs(600).as_micros()).unwrap_or(u32::MAX);
/// slow.try_acquire().unwrap().success(ticks);
/// assert_eq!(slow.baseline(), Some(MAX_TICKS));
/// ```
pub const MAX_TICKS: u32 = u32::MAX >> FRAC;

/// The priority class of a request.
///
/// * [`Priority::Critical`] may fill the whole limit and is the only class
///   that takes the last permit: every other admission leaves it free (at
///   a limit of 1 nothing else is admitted), so Critical is never refused
///   because a lower class holds the last permit (unless it took its
///   permit before a cut).
/// * [`Priority::Normal`] and [`Priority::Background`] are admitted while
///   the *total* in flight is below `normal_share` / `background_share` of
///   the limit (defaults 75 % and 50 %, rounded down, never the last
///   permit). Under overload they are shed first.
/// * A class with a *reserve* (`normal_reserve`, `background_reserve`;
///   Background 5 % by default) is also admitted while it holds fewer than
///   `reserve` of the limit (at least one permit) and one more in flight
///   leaves the last permit free: under sustained overload it keeps
///   about that share of the permits, so it is not starved. Holding a
///   reserve costs that class one more read-modify-write on admission and
///   one on release (a per-class count); the other classes pay nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum Priority {
    /// The critical path: may use the whole limit, and is the only class that
    /// may take its last permit.
    Critical = 0,
    /// Ordinary work: admitted while in flight < `normal_share` of the limit,
    /// or while it holds fewer than its reserve; never to the last permit.
    Normal = 1,
    /// Work that can wait or be lost: admitted while in flight <
    /// `background_share` of the limit, or while it holds fewer than its
    /// reserve; never to the last permit; shed first.
    Background = 2,
}

/// Number of priority classes.
pub const CLASSES: usize = 3;

/// How the limit follows latency. Both laws share everything else: the
/// admission word, [`Permit`](super::Permit), the classes, the queue-free
/// baseline and the statistics, so switching is one field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Law {
    /// Additive increase, multiplicative decrease: the limit is cut by
    /// `backoff` when more than half of a window's successes are slow, and
    /// grows by an increment that doubles with each window in a row that
    /// grows (restarting at 1 after every cut). See
    /// [`limit::aimd`](super::aimd).
    Aimd,
    /// Latency gradient: once per window the limit is scaled by
    /// `target / mean latency`, clamped to `[1/2, 2]`. See
    /// [`limit::gradient`](super::gradient).
    Gradient,
}

/// Parameters of a [`Limiter`](super::Limiter). Fractions are integers in
/// units of 1/256 ([`ONE`] = 256 = 1.0), so no floating point is involved.
///
/// # Tuning
///
/// The presets ([`LimiterConfig::DEFAULT`], [`LimiterConfig::GRADIENT`])
/// need no tuning beyond the limits:
///
/// 1. `min_limit`: the parallelism the dependency always has (1 for a
///    single-slot device, the worker count of the smallest pool). Samples
///    at or below it are taken as queue-free.
/// 2. `max_limit`: the most you ever want in flight.
/// 3. `tolerance`: the queueing you accept, as a multiple of the unloaded
///    latency (the p50 under AIMD, the mean under Gradient); 1.5 keeps the
///    median within about 1.5× the unloaded one. Or set `latency_floor` to
///    an absolute budget under which no sample counts as slow.
/// 4. The tick of the clock you pass to [`Permit::success`](super::Permit::success): at most about
///    the typical latency (the suite's `tick-1ms` scenarios run a 1 ms
///    tick on a 1.2 ms operation; a finer tick is better), and long enough
///    that the slowest latency that matters stays under 2^28 − 1 ticks
///    (268 s at 1 µs, 0.27 s at 1 ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LimiterConfig {
    /// The control law. Default [`Law::Aimd`].
    pub law: Law,
    /// Lowest limit (≥ 1), and the in-flight count at or below which a
    /// request is taken as *queue-free*: its latency teaches the baseline.
    /// Set it to at most the parallelism the dependency always has (its
    /// worker count, or 1 for a single-slot device). Default 2. At a limit
    /// of 1 only `Critical` is admitted; a lower class refused there with
    /// nothing in flight raises the limit to 2 (see the
    /// [module docs](super#the-baseline-queue-free-samples-only)).
    pub min_limit: u32,
    /// Limit at start, in `min_limit..=max_limit`. Default 8.
    pub initial_limit: u32,
    /// Highest limit (≤ [`MAX_LIMIT`]). Default 1000.
    pub max_limit: u32,
    /// Multiplicative decrease on overload, in 1/256, in `1..=255`.
    /// Default 230 (≈ 0.9). Under [`Law::Gradient`] it applies to drops.
    pub backoff: u16,
    /// A success is *slow* when its latency exceeds the queue-free median
    /// plus `(tolerance − 256) / 256` times the queue-free mean (about
    /// `tolerance / 256` times the median when the two are close), and at
    /// least one tick more than the median, and more than `latency_floor`;
    /// at least 256. Default 384 (50 % of the mean over the median).
    pub tolerance: u16,
    /// Latencies at or below this many ticks are never slow: a latency
    /// budget (a frame time, a deadline share) under which queueing is
    /// acceptable. Default 0 (none).
    pub latency_floor: u32,
    /// Share of the limit [`Priority::Normal`] may fill, in 1/256, in
    /// `background_share..=256`. Default 192 (75 %).
    pub normal_share: u16,
    /// Share of the limit [`Priority::Background`] may fill, in 1/256, in
    /// `1..=normal_share`. Default 128 (50 %).
    pub background_share: u16,
    /// Share of the limit reserved for [`Priority::Normal`], in 1/256, at most
    /// `normal_share`: Normal is admitted while it holds fewer than this
    /// share (at least one permit if non-zero), even when Critical fills the
    /// rest, as long as the last permit stays free for Critical. Default 0.
    pub normal_reserve: u16,
    /// Share of the limit reserved for [`Priority::Background`], as
    /// `normal_reserve`, at most `background_share`. Default 13 (≈ 5 %).
    pub background_reserve: u16,
    /// Enforce the limit (`true`), or only measure it (`false`, *shadow
    /// mode*): requests are then admitted up to `max_limit`, the limit still
    /// adapts, and the requests that would have been refused are counted in
    /// [`LimiterStats::shed`](super::LimiterStats::shed). Default `true`.
    pub enforce: bool,
    /// How many requests may wait for a permit at once in the waiting
    /// acquires (`Limiter::acquire`, feature `async`, and
    /// `Limiter::acquire_blocking`, feature `std`); one more is shed at
    /// once. 0: they never wait. Default 100. The waiters take no memory of
    /// the limiter's: each lives in its future or its caller's frame.
    pub backlog: u32,
    /// The order in which waiters of one class get a permit; a higher
    /// class always goes first. Default [`BacklogOrder::Lifo`].
    pub backlog_order: BacklogOrder,
}

/// The order in which the waiting acquires of one class are served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BacklogOrder {
    /// The newest waiter first (Netflix's `LifoBlockingLimiter`): under
    /// overload the requests still likely to be wanted are served, and the
    /// oldest, whose clients may have given up, wait until they time out.
    Lifo,
    /// The oldest waiter first. Under overload a waiter is then served
    /// near its client's deadline and often answers late, a lower class's
    /// waiters latest, and the laws read late answers as overload. In the
    /// limiter's scenario engine (16 workers, a backlog of 100, a 100 ms
    /// deadline), both presets served 88 % of capacity at 120 % load with
    /// 20/50/30 % Critical/Normal/Background, and 28–29 % at 150 % load
    /// with 10/10/80 %: every Background answer is late there, and those
    /// drops hold the limit where only Critical (99 % of it served) and
    /// Normal get through. Limiters that cut on drops fare alike (Netflix's
    /// AIMD 43 %, Vegas 38 %); Envoy's gradient, which ignores them, serves
    /// 98 % but Critical only 67 %. With `Lifo` every such mix served
    /// 99.7 % or more at 120 % to 500 % load. [`Adaptive`](Self::Adaptive)
    /// keeps this order while the backlog is short.
    Fifo,
    /// Adaptive LIFO: the oldest waiter first while fewer than half the
    /// backlog wait (rounded up), the newest first once half or more do.
    /// A short backlog, a passing burst, is served in order; a backlog that
    /// has filled up is overload, where the oldest waiters are the ones
    /// whose clients are about to give up. (Facebook's servers switch their
    /// queues to LIFO the same way once a queue forms: Ben Maurer, "Fail
    /// at Scale", ACM Queue 13(8), 2015.) Counted over every class; a
    /// higher class still goes first. In the scenario engine's mixes above
    /// (the anchors behind the same backlog, 16 draws), both presets served
    /// 93 % of capacity at 120 % load with 20/50/30 % and 99.9 % at 150 %
    /// with 10/10/80 %.
    ///
    /// ```
    /// use sluicegate::limit::{BacklogOrder, Limiter, LimiterConfig};
    ///
    /// // Oldest first while fewer than 32 wait, newest first from there.
    /// static DB: Limiter = Limiter::new(LimiterConfig {
    ///     backlog: 64,
    ///     backlog_order: BacklogOrder::Adaptive,
    ///     ..LimiterConfig::DEFAULT
    /// });
    /// assert!(DB.try_acquire().is_some());
    /// ```
    Adaptive,
}

impl LimiterConfig {
    /// The AIMD preset: min 2, initial 8, max 1000, ×0.9 backoff, a 50 %
    /// tolerance over the queue-free median, no latency floor, 75 % / 50 %
    /// class ceilings, a 5 % background reserve, and a LIFO backlog of 100
    /// waiters. Works untuned on the
    /// scenarios of the limiter suite (`BENCHMARKS.md`).
    pub const DEFAULT: Self = Self {
        law: Law::Aimd,
        min_limit: 2,
        initial_limit: 8,
        max_limit: 1000,
        backoff: 230,
        tolerance: 384,
        latency_floor: 0,
        normal_share: 192,
        background_share: 128,
        normal_reserve: 0,
        background_reserve: 13,
        enforce: true,
        backlog: 100,
        backlog_order: BacklogOrder::Lifo,
    };

    /// [`DEFAULT`](Self::DEFAULT) with [`Law::Gradient`] and a 37.5 %
    /// tolerance over the queue-free mean (352).
    pub const GRADIENT: Self = Self {
        law: Law::Gradient,
        tolerance: 352,
        ..Self::DEFAULT
    };

    /// Checks every field; `Err` names the first one that is wrong.
    /// `const`, so a configuration can be checked at compile time.
    ///
    /// ```
    /// use sluicegate::limit::{LimiterConfig, ConfigError};
    ///
    /// const FAST_BACKOFF: LimiterConfig = LimiterConfig { backoff: 128, ..LimiterConfig::DEFAULT }; // x0.5
    /// const _: () = assert!(FAST_BACKOFF.validate().is_ok());
    ///
    /// let no_backoff = LimiterConfig { backoff: 256, ..LimiterConfig::DEFAULT }; // x1.0: never cuts
    /// assert_eq!(no_backoff.validate(), Err(ConfigError::BackoffOutOfRange));
    /// ```
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.min_limit == 0 {
            Err(ConfigError::ZeroMinLimit)
        } else if self.min_limit > self.max_limit {
            Err(ConfigError::MinAboveMax)
        } else if self.max_limit > MAX_LIMIT {
            Err(ConfigError::MaxTooLarge)
        } else if self.initial_limit < self.min_limit || self.initial_limit > self.max_limit {
            Err(ConfigError::InitialOutOfRange)
        } else if self.backoff == 0 || self.backoff >= ONE {
            Err(ConfigError::BackoffOutOfRange)
        } else if self.tolerance < ONE {
            Err(ConfigError::ToleranceBelowOne)
        } else if self.background_share == 0
            || self.background_share > self.normal_share
            || self.normal_share > ONE
        {
            Err(ConfigError::BadShares)
        } else if self.normal_reserve > self.normal_share
            || self.background_reserve > self.background_share
        {
            Err(ConfigError::BadReserves)
        } else {
            Ok(())
        }
    }
}

impl Default for LimiterConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What is wrong with a [`LimiterConfig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// `min_limit` is 0: the limiter could shut out all work for good.
    ZeroMinLimit,
    /// `min_limit > max_limit`.
    MinAboveMax,
    /// `max_limit` exceeds [`MAX_LIMIT`] for this target.
    MaxTooLarge,
    /// `initial_limit` is outside `min_limit..=max_limit`.
    InitialOutOfRange,
    /// `backoff` is not in `1..=255` (a factor in (0, 1)).
    BackoffOutOfRange,
    /// `tolerance` is below 256 (1.0): every sample would be an overload.
    ToleranceBelowOne,
    /// Not `1 ≤ background_share ≤ normal_share ≤ 256`.
    BadShares,
    /// A reserve exceeds its class's share.
    BadReserves,
}

impl ConfigError {
    pub(super) const fn message(self) -> &'static str {
        match self {
            Self::ZeroMinLimit => "LimiterConfig: min_limit is 0",
            Self::MinAboveMax => "LimiterConfig: min_limit > max_limit",
            Self::MaxTooLarge => "LimiterConfig: max_limit > limit::MAX_LIMIT",
            Self::InitialOutOfRange => "LimiterConfig: initial_limit outside min_limit..=max_limit",
            Self::BackoffOutOfRange => "LimiterConfig: backoff not in 1..=255 (a factor in (0, 1))",
            Self::ToleranceBelowOne => "LimiterConfig: tolerance below 256 (1.0)",
            Self::BadShares => "LimiterConfig: shares not 1 <= background <= normal <= 256",
            Self::BadReserves => "LimiterConfig: a reserve exceeds its class's share",
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl core::error::Error for ConfigError {}
