//! The limiter's configuration: priority classes, [`AimdConfig`] with its
//! defaults, and what [`AimdConfig::validate`] rejects ([`ConfigError`]).

use core::fmt;

use super::MAX_LIMIT;

/// Fractions in the configuration are in units of 1/256.
pub const ONE: u16 = 256;

/// The priority class of a request.
///
/// A class is admitted only while the *total* in flight is below its share of
/// the limit, so lower classes are shed first and the top of the limit is kept
/// for higher ones. See [`AimdConfig::normal_share`] and
/// [`AimdConfig::background_share`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum Priority {
    /// The critical path: may use the whole limit.
    Critical = 0,
    /// Ordinary work: admitted while in flight < `normal_share` of the limit.
    Normal = 1,
    /// Work that can wait or be lost: admitted while in flight <
    /// `background_share` of the limit; shed first.
    Background = 2,
}

/// Number of priority classes.
pub const CLASSES: usize = 3;

/// Parameters of an [`Aimd`](super::Aimd) limiter. Fractions are integers in units of
/// 1/256 ([`ONE`] = 256 = 1.0), so no floating point is involved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AimdConfig {
    /// Lowest limit (≥ 1). Default 20.
    pub min_limit: u32,
    /// Limit at start, in `min_limit..=max_limit`. Default 20.
    pub initial_limit: u32,
    /// Highest limit (≤ [`MAX_LIMIT`]). Default 200.
    pub max_limit: u32,
    /// Multiplicative decrease on overload, in 1/256, in `1..=255`.
    /// Default 230 (≈ 0.9).
    pub backoff: u16,
    /// A success slower than `baseline * tolerance / 256` is an overload
    /// signal; at least 256. Default 320 (25 % over the baseline, Envoy's
    /// buffer).
    pub tolerance: u16,
    /// The baseline is re-probed every this many successes (replaced by the
    /// minimum of the last window). A power of two, ≥ 2. Default 1024.
    pub baseline_window: u32,
    /// Share of the limit [`Priority::Normal`] may fill, in 1/256, in
    /// `background_share..=256`. Default 192 (75 %).
    pub normal_share: u16,
    /// Share of the limit [`Priority::Background`] may fill, in 1/256, in
    /// `1..=normal_share`. Default 128 (50 %).
    pub background_share: u16,
}

impl AimdConfig {
    /// Netflix's converged AIMD defaults (min 20, initial 20, max 200, ×0.9)
    /// with a 25 % latency tolerance and 75 % / 50 % class shares.
    pub const DEFAULT: Self = Self {
        min_limit: 20,
        initial_limit: 20,
        max_limit: 200,
        backoff: 230,
        tolerance: 320,
        baseline_window: 1024,
        normal_share: 192,
        background_share: 128,
    };

    /// Checks every field; `Err` names the first one that is wrong.
    /// `const`, so a configuration can be checked at compile time.
    ///
    /// ```
    /// use sluicegate::limit::{AimdConfig, ConfigError};
    ///
    /// const FAST_BACKOFF: AimdConfig = AimdConfig { backoff: 128, ..AimdConfig::DEFAULT }; // x0.5
    /// const _: () = assert!(FAST_BACKOFF.validate().is_ok());
    ///
    /// let no_backoff = AimdConfig { backoff: 256, ..AimdConfig::DEFAULT }; // x1.0: never cuts
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
        } else if self.baseline_window < 2 || !self.baseline_window.is_power_of_two() {
            Err(ConfigError::BadBaselineWindow)
        } else if self.background_share == 0
            || self.background_share > self.normal_share
            || self.normal_share > ONE
        {
            Err(ConfigError::BadShares)
        } else {
            Ok(())
        }
    }
}

impl Default for AimdConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What is wrong with an [`AimdConfig`].
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
    /// `baseline_window` is not a power of two ≥ 2.
    BadBaselineWindow,
    /// Not `1 ≤ background_share ≤ normal_share ≤ 256`.
    BadShares,
}

impl ConfigError {
    pub(super) const fn message(self) -> &'static str {
        match self {
            Self::ZeroMinLimit => "AimdConfig: min_limit is 0",
            Self::MinAboveMax => "AimdConfig: min_limit > max_limit",
            Self::MaxTooLarge => "AimdConfig: max_limit > limit::MAX_LIMIT",
            Self::InitialOutOfRange => "AimdConfig: initial_limit outside min_limit..=max_limit",
            Self::BackoffOutOfRange => "AimdConfig: backoff not in 1..=255 (a factor in (0, 1))",
            Self::ToleranceBelowOne => "AimdConfig: tolerance below 256 (1.0)",
            Self::BadBaselineWindow => "AimdConfig: baseline_window not a power of two >= 2",
            Self::BadShares => "AimdConfig: shares not 1 <= background <= normal <= 256",
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl core::error::Error for ConfigError {}
