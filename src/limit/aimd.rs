//! [`Law::Aimd`](super::Law::Aimd): additive increase, multiplicative
//! decrease. It judges *windows*, not single samples: a window is
//! `max(limit, 16)` successes of permits admitted in the current epoch.
//!
//! * Decrease: once more than half of a window's successes are slow or
//!   dropped (its median is over the target), or more than half of them so
//!   far and more than 8, the
//!   limit is cut to `max(min_limit, floor(limit · backoff / 256))` and a new
//!   *epoch* starts. A permit carries the epoch of its admission and only a
//!   permit from the current epoch can cut, so a burst of overload signals
//!   from one window cuts once (RFC 5681's once-per-window rule). A service
//!   whose own spread exceeds the tolerance now and then never looks
//!   overloaded: half the window must be slow.
//! * Increase: a window that closes with at most half of its successes
//!   slow, closed by a non-slow success from a permit admitted with at least
//!   half of its class's threshold in use, grows the limit by the current
//!   *step*. The step starts at 1, doubles with every growth (at most a
//!   quarter of the limit) and falls back to 1 on every cut: after a cut
//!   the limit creeps (additive increase), and when capacity appears (start
//!   up, a probe, a dependency that doubled) it is found in a logarithmic
//!   number of windows. The half-full rule is Netflix's: an
//!   application-limited caller never inflates the limit.
//!
//! A success is judged against the slow threshold measured from the
//! queue-free median (see [the baseline](super#the-baseline-queue-free-samples-only)).
//! A success that is neither slow nor the end of its window costs two loads
//! beyond the baseline's.
//!
//! # The window
//!
//! Three words: where the window ends (`close_at`, a success count), the
//! overload signals counted in it (`slow`), and the growth step (`step`).
//!
//! | transition | who | effect |
//! |------------|-----|--------|
//! | count slow | a slow success of the current epoch | `slow += 1` (Relaxed `fetch_add`) |
//! | cut | the overload signal (slow success or drop of the current epoch) whose count passes half the window, or half of it so far once above 8 | word: limit ×backoff, epoch + 1 (CAS); then `step = 1`, `slow = 0`, `close_at` a window past the permits in flight |
//! | close | the success at or past `close_at` (the window's end: `max(limit, 16)` successes, 8 during a probe) that wins the CAS on `close_at` | `slow = 0`; a probe if stale, the end of a probe if one is on, else a grow |
//! | grow | the closer, if its sample is not slow, at most half the window was slow and it is not application-limited | word: limit + step (CAS, epoch unchanged); `step` doubles up to `limit / 4` |
//!
//! Each step is one RMW on one word, so an interrupt between two of them
//! leaves a state another context can act on: at worst a window is judged
//! with a sample more or less, or a step is lost.
//!
//! # References
//!
//! * D.-M. Chiu, R. Jain, "Analysis of the Increase and Decrease Algorithms
//!   for Congestion Avoidance in Computer Networks", Computer Networks and
//!   ISDN Systems 17(1), 1989 — why AIMD converges to a fair, efficient share.
//! * V. Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988; RFC 5681
//!   (TCP congestion control) — at most one decrease per window, slow start.
//! * Netflix `concurrency-limits`: `AIMDLimit` (no growth below half the
//!   limit).

use super::adapt::Control;
use super::word::{epoch_of, limit_of};
use super::{Limiter, Priority, WINDOW_MIN};
use crate::sync::{AtomicUsize, Ordering};

/// The law, for [`Control`]: its code is below, its state a [`Window`].
pub(super) struct Aimd;

/// AIMD's window: a view of the words `Track::law` keeps for the law in use.
struct Window<'a> {
    /// Success count at which the current window ends (its start plus its
    /// length, see `aimd_window`); may lie more than a window ahead of the
    /// success counter right after a cut (see `Limiter::cut`). Compared with
    /// wrapping arithmetic.
    close_at: &'a AtomicUsize,
    /// Overload signals (slow successes and drops) in the current window.
    slow: &'a AtomicUsize,
    /// The growth step, `1..=max(limit / 4, 1)`.
    step: &'a AtomicUsize,
}

impl<'a> Window<'a> {
    #[inline(always)]
    fn of(l: &'a Limiter) -> Self {
        let [close_at, slow, step] = &l.track.law;
        Self {
            close_at,
            slow,
            step,
        }
    }
}

/// The words of the first window: `max(limit, 16)` successes from success
/// count `start`, nothing counted, a step of 1 (what `Track::law` starts
/// with under AIMD).
pub(super) const fn first_window(start: usize, limit: usize) -> [usize; 3] {
    let len = if limit > WINDOW_MIN {
        limit
    } else {
        WINDOW_MIN
    };
    [start.wrapping_add(len), 0, 1]
}

impl Control for Aimd {
    #[inline(always)]
    fn base(median: usize, _mean: usize) -> usize {
        median
    }

    /// Two loads when the success is neither slow nor the end of the window
    /// (the common case), the rest out of line.
    #[inline(always)]
    fn success(l: &Limiter, at_admission: usize, priority: Priority, x: usize, n: usize, w: usize) {
        let t = &*l.track;
        let above = t.slow_above.load(Ordering::Relaxed);
        let slow = above != 0 && x > above;
        let close = Window::of(l).close_at.load(Ordering::Relaxed);
        // Signed: `close` may lie more than a window ahead of `n` right
        // after a cut.
        let reached = n.wrapping_sub(close) as isize >= 0;
        if slow || reached {
            l.aimd_judge(at_admission, priority, slow, reached, n, close, w);
        }
    }

    /// A drop: counts as a slow sample of its epoch (`w` overload signals).
    fn dropped(l: &Limiter, at_admission: usize, w: usize) {
        let now = l.hot.state.load(Ordering::Relaxed);
        let epoch = epoch_of(at_admission);
        if epoch_of(now) == epoch {
            let n = l.hot.released.success.load(Ordering::Relaxed);
            let close = Window::of(l).close_at.load(Ordering::Relaxed);
            let resume = l.track.resume.load(Ordering::Relaxed);
            let window = l.aimd_window(limit_of(now), resume);
            l.count_overload(epoch, window, n.wrapping_sub(close.wrapping_sub(window)), w);
        }
    }

    fn restart(l: &Limiter, start: usize, limit: usize, cut: bool) {
        let w = Window::of(l);
        if cut {
            w.step.store(1, Ordering::Relaxed);
        }
        w.slow.store(0, Ordering::Relaxed);
        w.close_at
            .store(start.wrapping_add(limit.max(WINDOW_MIN)), Ordering::Relaxed);
    }

    fn probing(l: &Limiter) {
        // The window `cut` set, shortened to `probe_samples()`.
        let close_at = Window::of(l).close_at;
        let close = close_at.load(Ordering::Relaxed);
        let start = close.wrapping_sub(l.min_limit.max(WINDOW_MIN));
        let _ = close_at.compare_exchange(
            close,
            start.wrapping_add(l.probe_samples()),
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    #[inline(always)]
    fn grown_up(l: &Limiter, n: usize) {
        // The probe's window was `YOUNG` long: this success ends it.
        Window::of(l).close_at.store(n, Ordering::Relaxed);
    }
}

impl Limiter {
    /// A success of weight `weight` that is slow or reaches the window's
    /// end (`close`).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn aimd_judge(
        &self,
        at_admission: usize,
        priority: Priority,
        slow: bool,
        reached: bool,
        n: usize,
        close: usize,
        weight: usize,
    ) {
        let t = &*self.track;
        let w = Window::of(self);
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
            match self.count_overload(epoch, window, seen, weight) {
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
        if w.close_at
            .compare_exchange(close, next, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        let s = w.slow.swap(0, Ordering::Relaxed).max(slow_seen);
        if self.probe_due(n) {
            let _ = self.probe::<Aimd>(epoch, n, limit);
            return;
        }
        if slow || 2 * s > window || self.app_limited(at_admission, priority, limit) {
            return;
        }
        if resume > limit {
            self.resume::<Aimd>(epoch, resume, true);
            return;
        }
        let step = w.step.load(Ordering::Relaxed);
        let to = (limit + step).min(self.max_limit);
        if self.raise(epoch, to, false) {
            let cap = (to / 4).max(1);
            w.step.store((step * 2).min(cap), Ordering::Relaxed);
            // Fails if a cut has set a window of its own since.
            let _ = w.close_at.compare_exchange(
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
    fn aimd_window(&self, limit: usize, resume: usize) -> usize {
        if resume > limit {
            self.probe_samples()
        } else {
            limit.max(WINDOW_MIN)
        }
    }

    /// Counts the `w` overload signals of a slow success or a drop of
    /// weight `w` in the current epoch `epoch`, `seen` successes into a
    /// window of `window` (`seen` wraps below 0 right after a cut: nothing
    /// seen yet). Cuts, and returns
    /// `None`, once the overload signals are more than half of the window,
    /// or more than half of it so far and more than `WINDOW_MIN / 2` (a
    /// window whose median is clearly over the target is judged before it
    /// ends, so a limit far too high comes down about once per round trip);
    /// else returns the count so far.
    #[inline]
    fn count_overload(&self, epoch: usize, window: usize, seen: usize, w: usize) -> Option<usize> {
        let s = Window::of(self).slow.fetch_add(w, Ordering::Relaxed) + w;
        let seen = if (seen as isize) < 0 { 0 } else { seen };
        if 2 * s > window || (s > WINDOW_MIN / 2 && 2 * s > seen) {
            self.cut::<Aimd>(epoch, None);
            None
        } else {
            Some(s)
        }
    }
}
