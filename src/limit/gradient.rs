//! [`Law::Gradient`](super::Law::Gradient) (the Gradient2 / Envoy family):
//! once per window of the current epoch, the limit is scaled by
//! `target / mean`, clamped to `[1/2, 2]`.
//!
//! A window closes after `max(limit, 16)` successes of the current epoch (at
//! most 511 on 32-bit targets) and scales the limit by `g = target / mean`
//! of the window, in 1/256, clamped to `[1/2, 2]`; the target is the slow
//! threshold (see [the baseline](super#the-baseline-queue-free-samples-only))
//! with the queue-free mean as baseline. A window whose `g ≥ 1` grows by at
//! least 1, unless the success closing it is application-limited (then it
//! holds). Every change starts a new epoch, so the next window counts only
//! permits admitted under the new limit. Each success adds
//! `min(64 · latency / mean, 1023)` (the latency in 1/64 of the baseline,
//! capped at 16×, which also caps an outlier's weight) to a window word
//! that packs the count and the sum, so a success costs one
//! read-modify-write more than under AIMD, and one integer division.
//!
//! A `dropped` outcome of the current epoch is counted in the window too,
//! and cuts by `backoff` at once, once per epoch, when the window's drops
//! are more than half its successes so far and more than 8 (AIMD's
//! majority, drops against successes), provided a success was counted
//! since the last change or window; before the first queue-free mean every
//! drop cuts. Scattered drops do not cut: in front of a backlog served
//! oldest first with priority classes, a lower class's waiters are admitted
//! near their deadline and some answer late whatever the dependency does;
//! with a cut at each such drop the limit fell to its floor, where the
//! waits, and so the late answers, only grew. Drops with no success between
//! them cut once, not down to `min_limit`: when a backlog in front of the
//! limiter has gone stale, every answer is late for a while; cutting at
//! each would slow the drain that ends it, and the limit would stay at the
//! floor with every answer late.
//!
//! # The window
//!
//! Two words: `counted`, the count of successes above `SUM_BITS` and the
//! sum of their latency ratios (each `min(64 · latency / mean, 1023)`, so
//! at most `1023 × 2 × WINDOW_MAX`) below; and `drops`.
//!
//! | transition | who | effect |
//! |------------|-----|--------|
//! | add | a success of the current epoch, once a queue-free mean exists (before, each such success asks whether a probe is due) | `counted += (1, ratio)` (Relaxed `fetch_add`) |
//! | count a drop | a drop of the current epoch, once a queue-free mean exists | `drops += 1` (Relaxed `fetch_add`) |
//! | close | a success that saw the count reach the window size and wins the CAS of that value to 0 | `drops = 0`; computes `g`; a probe if stale |
//! | scale | the closer | word: limit → `limit · g / 256` (clamped, ≥ limit + 1 when `g ≥ 1` unless application-limited; unchanged if application-limited), epoch + 1 (CAS) |
//! | cut | a drop of the current epoch after which `2 · drops > max(count, 16)` with `count ≠ 0` (any drop before the first mean) | word: limit ×backoff, epoch + 1 (CAS); then `counted = 0`, `drops = 0` |
//!
//! Exactly one success closes each window (the one whose CAS moves the
//! counted word to 0); a success that adds between another's `fetch_add` and
//! its CAS makes that CAS fail and closes the window itself. A drop racing
//! the close is counted in the window it ends (and may cut from it), or is
//! of an epoch the close ended and is not counted: at worst a window is
//! judged with a drop more or less, and the epoch's CAS keeps it to one
//! change. The resets of `drops` are swaps, not stores: loom 0.7.3 lets a
//! plain store fall between the read and the write of a racing `fetch_add`
//! (tokio-rs/loom#254), so a later `fetch_add` reads past the reset, an
//! execution the memory model forbids; a swap costs one read-modify-write
//! per window.
//!
//! # References
//!
//! * Netflix `concurrency-limits`: `Gradient2Limit` and its windowed form
//!   (mean against mean).
//! * Envoy adaptive concurrency filter — a gradient against a minimum RTT
//!   measured at a small fixed concurrency, re-measured periodically.

use super::adapt::Control;
use super::word::{epoch_of, limit_of};
use super::{Limiter, Priority, WINDOW_MIN};
use crate::sync::{AtomicUsize, Ordering};

/// Bits of the window word that hold the sum.
pub(super) const SUM_BITS: u32 = if usize::BITS >= 64 { 40 } else { 22 };
/// One success in the count.
const COUNT_ONE: usize = 1 << SUM_BITS;
/// Largest ratio added by one success (16× the mean, in 1/64).
const RATIO_MAX: usize = 1023;
/// Largest window. The count may pass it by the number of successes racing
/// the close, so the count field holds twice it and the sum field
/// `RATIO_MAX` times that.
const WINDOW_MAX: usize = if usize::BITS >= 64 { 1 << 20 } else { 511 };

const _: () = assert!(RATIO_MAX * 2 * WINDOW_MAX < 1 << SUM_BITS);
const _: () = assert!((2 * WINDOW_MAX as u64) < 1u64 << (usize::BITS - SUM_BITS));

/// The law, for [`Control`]: its code is below, its state the counted word
/// and the drops word.
pub(super) struct Gradient;

/// The window's count (above `SUM_BITS`) and sum of latency ratios: the
/// second of the words `Track::law` keeps for the law in use.
#[inline(always)]
fn counted(l: &Limiter) -> &AtomicUsize {
    &l.track.law[1]
}

/// The window's drops: permits of the current epoch dropped since the last
/// change or window (the first of `Track::law`'s words).
#[inline(always)]
fn drops(l: &Limiter) -> &AtomicUsize {
    &l.track.law[0]
}

impl Control for Gradient {
    #[inline(always)]
    fn base(_median: usize, mean: usize) -> usize {
        mean
    }

    /// One sample whatever the weight: the window counts requests.
    #[inline(always)]
    fn success(
        l: &Limiter,
        at_admission: usize,
        priority: Priority,
        x: usize,
        _n: usize,
        _w: usize,
    ) {
        l.gradient_success(at_admission, priority, x);
    }

    fn dropped(l: &Limiter, at_admission: usize, _w: usize) {
        let epoch = epoch_of(at_admission);
        if l.track.mean.load(Ordering::Relaxed) == 0 {
            l.cut::<Gradient>(epoch, None);
            return;
        }
        // Relaxed, all three: a stale epoch or count moves a cut by a drop
        // or a success, and the epoch's CAS keeps cuts to one per epoch.
        if epoch_of(l.hot.state.load(Ordering::Relaxed)) != epoch {
            return;
        }
        let d = drops(l).fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        let s = counted(l).load(Ordering::Relaxed) >> SUM_BITS;
        // More than half the successes so far, and more than 8.
        if s != 0 && d.saturating_mul(2) > s.max(WINDOW_MIN) {
            l.cut::<Gradient>(epoch, None);
        }
    }

    fn restart(l: &Limiter, _start: usize, _limit: usize, _cut: bool) {
        counted(l).store(0, Ordering::Relaxed);
        drops(l).swap(0, Ordering::Relaxed);
    }

    /// Nothing: the window's length is read on every success, and is
    /// `probe_samples()` while a probe is on.
    #[inline(always)]
    fn probing(_l: &Limiter) {}

    /// Nothing, as for [`Self::probing`].
    #[inline(always)]
    fn grown_up(_l: &Limiter, _n: usize) {}
}

impl Limiter {
    /// A success under the gradient law (out of line: it adds to the window
    /// on every success, so it is not the few loads AIMD's common case is).
    #[inline(never)]
    fn gradient_success(&self, at_admission: usize, priority: Priority, x: usize) {
        let t = &*self.track;
        let mean = t.mean.load(Ordering::Relaxed);
        // Relaxed: as in AIMD's `success`.
        let now = self.hot.state.load(Ordering::Relaxed);
        let epoch = epoch_of(at_admission);
        if epoch_of(now) != epoch {
            return;
        }
        let limit = limit_of(now);
        if mean == 0 {
            // No queue-free sample yet, so no target to judge a window by;
            // under load from the start none may come but by a probe.
            self.gradient_unlearnt(epoch, limit);
            return;
        }
        let resume = t.resume.load(Ordering::Relaxed);
        let window = if resume > limit {
            self.probe_samples()
        } else {
            limit.clamp(WINDOW_MIN, WINDOW_MAX)
        };
        // x < 2^32 and × 64: u64.
        let ratio = ((x as u64 * 64) / mean as u64).min(RATIO_MAX as u64) as usize;
        let add = COUNT_ONE + ratio;
        let counted = counted(self);
        let w = counted.fetch_add(add, Ordering::Relaxed).wrapping_add(add);
        let count = w >> SUM_BITS;
        if count < window {
            return;
        }
        if counted
            .compare_exchange(w, 0, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        drops(self).swap(0, Ordering::Relaxed);
        let n = self.hot.released.success.load(Ordering::Relaxed);
        if self.probe_due(n) {
            let _ = self.probe::<Gradient>(epoch, n, limit);
            return;
        }
        if resume > limit {
            self.resume::<Gradient>(epoch, resume, true);
            return;
        }
        let avg = ((w & (COUNT_ONE - 1)) / count).max(1) as u64;
        // The target in 1/64 of the mean, like the ratios; in 64 bits, as
        // `above` may be up to 2^28 ticks with a mean of one.
        let above = t.slow_above.load(Ordering::Relaxed) as u64;
        let target = (above * 64) / mean as u64;
        let g = (target.saturating_mul(256) / avg).clamp(128, 512) as usize;
        let mut to = (limit * g) >> 8;
        if g >= 256 {
            if self.app_limited(at_admission, priority, limit) {
                return;
            }
            to = to.max(limit + 1);
        }
        let to = to.clamp(self.min_limit, self.max_limit);
        if to > limit {
            self.raise(epoch, to, true);
        } else if to < limit {
            self.cut::<Gradient>(epoch, Some(to));
        }
    }

    /// A success of epoch `epoch` (limit `limit`) before the first
    /// queue-free sample: the probe, if one is due (asked at every such
    /// success, as no window closes without a mean).
    #[cold]
    fn gradient_unlearnt(&self, epoch: usize, limit: usize) {
        // Relaxed: a clock of successes, read as a window's closer reads it.
        let n = self.hot.released.success.load(Ordering::Relaxed);
        if self.probe_due(n) {
            let _ = self.probe::<Gradient>(epoch, n, limit);
        }
    }
}
