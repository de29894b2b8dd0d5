//! [`Law::Aimd`](super::Law::Aimd): a window's median against the target,
//! a cut by `backoff` at most once per epoch, growth by a doubling step.
//!
//! | transition | who | effect |
//! |------------|-----|--------|
//! | count slow | a slow success of the current epoch | `window += 1` (Relaxed `fetch_add`) |
//! | cut | the overload signal (slow success or drop of the current epoch) whose count passes half the window, or half of it so far once above 8 | word: limit ×backoff, epoch + 1 (CAS); then `step = 1`, `window = 0`, `window_start` past the permits in flight |
//! | close | the success at or past `window_start + max(limit, 16)` (8 during a probe) that wins the CAS on `window_start` | `window = 0`; a probe if stale, the end of a probe if one is on, else a grow |
//! | grow | the closer, if its sample is not slow, at most half the window was slow and it is not application-limited | word: limit + step (CAS, epoch unchanged); `step` doubles up to `limit / 4` |
//!
//! Each step is one RMW on one word, so an interrupt between two of them
//! leaves a state another context can act on: at worst a window is judged
//! with a sample more or less, or a step is lost.

use super::word::{epoch_of, limit_of};
use super::{Limiter, Priority, WINDOW_MIN};
use crate::sync::Ordering;

impl Limiter {
    /// A success under AIMD: two loads when it is neither slow nor the end
    /// of the window (the common case), the rest out of line.
    #[inline(always)]
    pub(super) fn aimd_success(&self, at_admission: usize, priority: Priority, x: usize, n: usize) {
        let t = &*self.track;
        let above = t.slow_above.load(Ordering::Relaxed);
        let slow = above != 0 && x > above;
        let close = t.close_at.load(Ordering::Relaxed);
        // Signed: `close` may lie more than a window ahead of `n` right
        // after a cut.
        let reached = n.wrapping_sub(close) as isize >= 0;
        if slow || reached {
            self.aimd_judge(at_admission, priority, slow, reached, n, close);
        }
    }

    /// A success that is slow or reaches the window's end (`close`).
    #[inline(never)]
    fn aimd_judge(
        &self,
        at_admission: usize,
        priority: Priority,
        slow: bool,
        reached: bool,
        n: usize,
        close: usize,
    ) {
        let t = &*self.track;
        // Relaxed: only limit and epoch are used; every change below is a
        // CAS that validates them.
        let now = self.hot.state.load(Ordering::Relaxed);
        let epoch = epoch_of(at_admission);
        if epoch_of(now) != epoch {
            return; // admitted before the last change: judged nothing
        }
        let limit = limit_of(now);
        let resume = t.resume.load(Ordering::Relaxed);
        let window = self.aimd_window(limit, resume);
        let slow_seen = if slow {
            let seen = n.wrapping_sub(close.wrapping_sub(window));
            match self.count_overload(epoch, window, seen) {
                Some(s) => s,
                None => return,
            }
        } else {
            0
        };
        if !reached {
            return;
        }
        // One closer per window; the next one is as long, or (below) as long
        // as the raised limit.
        let next = n.wrapping_add(window);
        if t.close_at
            .compare_exchange(close, next, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        let s = t.window.swap(0, Ordering::Relaxed).max(slow_seen);
        // A probe only while the limit binds: otherwise queue-free samples
        // will come by themselves.
        if self.stale(n) && self.binds() {
            self.probe(epoch, n, limit);
            return;
        }
        if slow || 2 * s > window || self.app_limited(at_admission, priority, limit) {
            return;
        }
        if resume > limit {
            self.resume(epoch, resume);
            return;
        }
        let step = t.step.load(Ordering::Relaxed);
        let to = (limit + step).min(self.max_limit);
        if self.raise(epoch, to, false) {
            let cap = (to / 4).max(1);
            t.step.store((step * 2).min(cap), Ordering::Relaxed);
            // Fails if a cut has set a window of its own since.
            let _ = t.close_at.compare_exchange(
                next,
                n.wrapping_add(to.max(WINDOW_MIN)),
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
    }

    /// The window's length in successes at limit `limit`: `max(limit, 16)`,
    /// or during a probe (`resume > limit`) `probe_samples()`.
    #[inline]
    pub(super) fn aimd_window(&self, limit: usize, resume: usize) -> usize {
        if resume > limit {
            self.probe_samples()
        } else {
            limit.max(WINDOW_MIN)
        }
    }

    /// A drop: counts as a slow sample of its epoch.
    pub(super) fn aimd_overload(&self, at_admission: usize) {
        let now = self.hot.state.load(Ordering::Relaxed);
        let epoch = epoch_of(at_admission);
        if epoch_of(now) == epoch {
            let n = self.hot.released.success.load(Ordering::Relaxed);
            let close = self.track.close_at.load(Ordering::Relaxed);
            let resume = self.track.resume.load(Ordering::Relaxed);
            let window = self.aimd_window(limit_of(now), resume);
            self.count_overload(epoch, window, n.wrapping_sub(close.wrapping_sub(window)));
        }
    }

    /// Counts an overload signal (a slow success or a drop) of the current
    /// epoch `epoch`, `seen` successes into a window of `window` (`seen`
    /// wraps below 0 right after a cut: nothing seen yet). Cuts, and returns
    /// `None`, once the overload signals are more than half of the window,
    /// or more than half of it so far and more than `WINDOW_MIN / 2` (a
    /// window whose median is clearly over the target is judged before it
    /// ends, so a limit far too high comes down about once per round trip);
    /// else returns the count so far.
    #[inline]
    fn count_overload(&self, epoch: usize, window: usize, seen: usize) -> Option<usize> {
        let s = self.track.window.fetch_add(1, Ordering::Relaxed) + 1;
        let seen = if (seen as isize) < 0 { 0 } else { seen };
        if 2 * s > window || (s > WINDOW_MIN / 2 && 2 * s > seen) {
            self.cut(epoch, None);
            None
        } else {
            Some(s)
        }
    }
}
