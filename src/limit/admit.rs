//! Admission: one inlined attempt for the common case, the full loop (a
//! race, a class at its threshold: reserve, shadow mode, shed) out of line.
//! Why one CAS keeps in flight under the limit is in `word.rs`; the
//! orderings are argued in the module docs ("Orderings").

use super::permit::Grant;
use super::word::*;
use super::{Limiter, Permit, Priority};
use crate::sync::{pause, pause_point, Ordering};

impl Limiter {
    /// Admits a [`Priority::Critical`] request if in flight < limit; else
    /// sheds it (returns `None` and counts it).
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 2, initial_limit: 2, ..LimiterConfig::DEFAULT });
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
    /// share of the limit, or the class holds less than its reserve and one
    /// more leaves the last permit free (see
    /// [`Priority`]); else sheds it (returns
    /// `None` and counts it). Only [`Priority::Critical`] takes the last
    /// permit.
    ///
    /// Lock-free; when uncontended, four loads (the word, then the three
    /// release counters, all from the word's cache line) and one CAS, plus a
    /// load and a `fetch_add` of its count for a class with a reserve.
    ///
    /// With a limit of 4 and the default shares, `Background` is admitted
    /// while fewer than 2 are in flight (or, on its reserve, while it holds
    /// no permit and fewer than 3 are in flight), `Normal` while fewer than
    /// 3, and `Critical` while fewer than 4:
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 4, initial_limit: 4, ..LimiterConfig::DEFAULT });
    /// let _c1 = gate.try_acquire_with(Priority::Critical).unwrap();
    /// let _c2 = gate.try_acquire_with(Priority::Critical).unwrap();
    /// let _b = gate.try_acquire_with(Priority::Background).unwrap(); // its reserve
    /// assert!(gate.try_acquire_with(Priority::Background).is_none()); // 3 in flight
    /// assert!(gate.try_acquire_with(Priority::Normal).is_none()); // 3 in flight
    /// let _c3 = gate.try_acquire_with(Priority::Critical).unwrap();
    /// assert!(gate.try_acquire_with(Priority::Critical).is_none()); // 4: the limit
    /// assert_eq!(gate.stats().shed, [1, 1, 1]); // per class, `Priority as usize`
    /// ```
    #[inline(always)]
    pub fn try_acquire_with(&self, priority: Priority) -> Option<Permit<'_>> {
        self.admit(priority, 1, |grant| Permit::new(self, grant))
    }

    /// Admits a [`Priority::Critical`] request for `n` units at once if
    /// `n` more in flight stay within the limit; else sheds it. See
    /// [`try_acquire_n_with`](Self::try_acquire_n_with).
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 4, initial_limit: 4, ..LimiterConfig::DEFAULT });
    /// let one = gate.try_acquire().unwrap();
    /// let three = gate.try_acquire_n(3).unwrap(); // 1 + 3 = 4: fits
    /// assert_eq!(gate.in_flight(), 4);
    /// assert!(gate.try_acquire().is_none());
    /// drop(three); // gives all 3 back
    /// assert!(gate.try_acquire_n(4).is_none()); // 1 + 4 > 4
    /// assert_eq!(gate.in_flight(), 1);
    /// # drop(one);
    /// ```
    #[inline]
    pub fn try_acquire_n(&self, n: u32) -> Option<Permit<'_>> {
        self.try_acquire_n_with(Priority::Critical, n)
    }

    /// Admits a request of class `priority` that needs `n` units of the
    /// limit (a batch of `n` items, a request `n` times as costly), as Go's
    /// `semaphore.Weighted` does with `TryAcquire(n)`: in one step, or not
    /// at all. The permit holds the `n` units and gives them all back when
    /// it ends ([`Permit::weight`] is `n`).
    ///
    /// The rules of [`try_acquire_with`](Self::try_acquire_with) with `n`
    /// for 1: admitted if `in_flight + n` is at most the class's share of
    /// the limit (the whole limit for Critical; never the last permit for
    /// the other classes), or, for a class with a reserve, if it would then
    /// hold at most its reserve and `in_flight + n` stays below the limit;
    /// else shed (counted once in [`stats`](Self::stats)`().shed`). One CAS
    /// on the admission word adds the `n` units, so in flight never exceeds
    /// the limit. `n` outside `1..=max_limit` is never admitted (shed).
    ///
    /// A permit of weight `n` is `n` units in every count: in flight, the
    /// admitted count, its outcome's counter in [`LimiterStats`](super::LimiterStats),
    /// and AIMD's windows, which count successes (a slow one is `n` slow
    /// successes, a drop `n` drops). Its latency is **one sample**: the
    /// baseline learns it once (when `in_flight + n` at admission is at
    /// most `min_limit`, so a permit heavier than `min_limit` never teaches
    /// it), and the gradient law's window counts it once.
    ///
    /// ```
    /// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
    ///
    /// let gate = Limiter::new(LimiterConfig { min_limit: 8, initial_limit: 8, ..LimiterConfig::DEFAULT });
    /// // Normal may fill 75 % of the limit: 6 units.
    /// let batch = gate.try_acquire_n_with(Priority::Normal, 4).unwrap();
    /// assert!(gate.try_acquire_n_with(Priority::Normal, 3).is_none()); // 4 + 3 > 6
    /// let small = gate.try_acquire_n_with(Priority::Normal, 2).unwrap(); // 4 + 2 = 6
    /// batch.success(250); // releases 4 units: one sample, four successes
    /// let s = gate.stats();
    /// assert_eq!((s.in_flight, s.succeeded, s.shed[1]), (2, 4, 1));
    /// # drop(small);
    /// ```
    #[inline]
    pub fn try_acquire_n_with(&self, priority: Priority, n: u32) -> Option<Permit<'_>> {
        self.acquire_n(priority, n, |grant| Permit::new(self, grant))
    }

    /// `try_acquire_n_with`'s admission, the permit made by `make`: a
    /// weight outside `1..=max_limit` (never admitted, and large enough to
    /// overflow the checks) is shed here.
    #[inline]
    pub(super) fn acquire_n<P>(
        &self,
        priority: Priority,
        n: u32,
        make: impl FnOnce(Grant) -> P,
    ) -> Option<P> {
        let n = n as usize;
        if n == 0 || n > self.max_limit {
            self.cold.shed[priority as usize].add(1);
            return None;
        }
        self.admit(priority, n, make)
    }

    /// Admits `n` units (`1..=max_limit`) of class `priority`, the permit
    /// made by `make` (a [`Permit`] or an owned one): the common case in
    /// one attempt, inlined; anything else (a race, a class at its
    /// threshold) in `acquire_slow`, a tail call that leaves this path free
    /// of register saves. With `n` a constant 1 it compiles to the
    /// single-permit check (`in_flight + 0 < threshold`), and each path
    /// makes its permit where it admits, so the caller's release sees the
    /// fast path's class and weight as constants.
    #[inline(always)]
    pub(super) fn admit<P>(
        &self,
        priority: Priority,
        n: usize,
        make: impl FnOnce(Grant) -> P,
    ) -> Option<P> {
        self.acquire_counting::<true, true, P>(priority, n, make)
    }

    /// [`admit`](Self::admit), counting a refusal in `shed` only if
    /// `SHED` (a waiting acquire's tries do not: it counts once, when it
    /// gives up), and raising a limit that admits the class nothing
    /// ([`open_up`](Self::open_up)) only if `OPEN` (a waiting acquire's
    /// tries do, but for the one each poll makes before it links its node:
    /// `src/limit/wait.rs`). A refusal for want of room (units in flight)
    /// counts in `at_limit` or `at_share` either way: the limit binds.
    #[inline(always)]
    pub(super) fn acquire_counting<const SHED: bool, const OPEN: bool, P>(
        &self,
        priority: Priority,
        n: usize,
        make: impl FnOnce(Grant) -> P,
    ) -> Option<P> {
        let class = priority as usize;
        // Acquire: synchronises with the last admission (its AcqRel CAS heads
        // a release sequence every later RMW of the word continues), so each
        // release counter we read next is at least the one it judged by (see
        // "Orderings").
        let cur = self.hot.state.load(Ordering::Acquire);
        pause_point(pause::LIMIT_BETWEEN_LOADS);
        // Acquire, each: pairs with the Release of each release.
        let released = total(self.hot.released.load());
        let in_flight = in_flight_by(cur, released);
        // `in_flight + n ≤ threshold`, written so that `n = 1` adds nothing.
        // (A count above `max_limit` means the counters saw a permit admitted
        // after `cur` was read: the slow path reads again.)
        if in_flight + (n - 1) < threshold(limit_of(cur), self.shares[class])
            && in_flight <= self.max_limit
        {
            pause_point(pause::LIMIT_ADMIT);
            // AcqRel: Release hands what we saw of the counters to the next
            // admission; Acquire gives semaphore semantics. The CAS compares
            // the admitted count, limit and epoch it checked.
            if self
                .hot
                .state
                .compare_exchange_weak(
                    cur,
                    bump_admitted(cur, n),
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                )
                .is_ok()
            {
                return Some(make(
                    self.admitted(class, priority, n, cur, in_flight, false),
                ));
            }
        }
        self.acquire_slow::<SHED, OPEN>(priority, n, cur, in_flight)
            .map(make)
    }

    /// The grant for an admission CAS of `n` units that succeeded on `cur`
    /// with `in_flight` before it.
    #[inline(always)]
    fn admitted(
        &self,
        class: usize,
        priority: Priority,
        n: usize,
        cur: usize,
        in_flight: usize,
        shadow: bool,
    ) -> Grant {
        // Critical (class 0) never has a reserve.
        if class != 0 && self.reserves[class] != 0 {
            // Relaxed: a fairness heuristic (see "Orderings").
            self.cold.holding[class - 1].fetch_add(n, Ordering::Relaxed);
        }
        if shadow {
            self.cold.shed[class].add(1);
        }
        Grant {
            at_admission: (cur & !ADMITTED_MASK) | (in_flight + n),
            priority,
            // n ≤ max_limit ≤ MAX_LIMIT < 2^32.
            weight: n as u32,
        }
    }

    /// `admit` after its first attempt failed: the full loop. `cur` and
    /// `in_flight` are the first attempt's reads, judged again here before
    /// anything is read anew.
    #[cold]
    #[inline(never)]
    fn acquire_slow<const SHED: bool, const OPEN: bool>(
        &self,
        priority: Priority,
        n: usize,
        cur: usize,
        in_flight: usize,
    ) -> Option<Grant> {
        let class = priority as usize;
        let share = self.shares[class];
        let mut first = Some((cur, in_flight));
        loop {
            let (cur, in_flight) = match first.take() {
                Some(read) => read,
                None => {
                    // Orderings as in `try_acquire_with`.
                    let cur = self.hot.state.load(Ordering::Acquire);
                    pause_point(pause::LIMIT_BETWEEN_LOADS);
                    let released = total(self.hot.released.load());
                    (cur, in_flight_by(cur, released))
                }
            };
            if in_flight > self.max_limit {
                // The counters count a permit admitted after `cur` was read:
                // the word has moved on. Read them all again.
                continue;
            }
            let mut shadow = false;
            if in_flight + n > threshold(limit_of(cur), share) {
                match self.beyond_threshold::<SHED, OPEN>(class, n, cur, in_flight) {
                    Beyond::Admit => {}
                    Beyond::Shadow => shadow = true,
                    Beyond::Shed => return None,
                    Beyond::Retry => continue,
                }
            }
            pause_point(pause::LIMIT_ADMIT);
            if self
                .hot
                .state
                .compare_exchange_weak(
                    cur,
                    bump_admitted(cur, n),
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                )
                .is_ok()
            {
                return Some(self.admitted(class, priority, n, cur, in_flight, shadow));
            }
        }
    }

    /// A request of `class` for `n` units found `in_flight + n` above its
    /// threshold in the word `cur`: admitted on its reserve, admitted in
    /// shadow mode, shed (and counted), or the word moved (retry).
    ///
    /// A reserve admits only while `n` more leave the last permit free: the
    /// CAS that follows compares the word `in_flight` was judged in, so at
    /// the admission at most `in_flight + n < limit` are in flight, and
    /// Critical can take the last permit.
    fn beyond_threshold<const SHED: bool, const OPEN: bool>(
        &self,
        class: usize,
        n: usize,
        cur: usize,
        in_flight: usize,
    ) -> Beyond {
        let limit = limit_of(cur);
        if self.fits_reserve(class, n, in_flight, limit) {
            return Beyond::Admit;
        }
        if self.shadows(n, in_flight) {
            return Beyond::Shadow;
        }
        // Shed only if the word did not move while the counters were read,
        // so the count judged was the one in force at some instant in
        // between (see "Why three release counters").
        if self.hot.state.load(Ordering::Relaxed) != cur {
            return Beyond::Retry;
        }
        if SHED {
            self.cold.shed[class].add(1);
        }
        if in_flight + n > limit {
            self.cold.at_limit.add(1);
        } else if in_flight != 0 {
            // Refused at the class's share, for want of room all the same.
            self.cold.at_share.add(1);
        } else if OPEN {
            // Refused with nothing in flight, though `n` fits the limit.
            self.open_up(class, cur);
        }
        Beyond::Shed
    }
}

impl Limiter {
    /// Whether `n` more units of `class` (above its threshold) fit its
    /// reserve with `in_flight` out at `limit`, leaving the last permit
    /// free. Relaxed: the class's count is a fairness heuristic (racing
    /// admissions may overshoot the reserve by one each); the limit and the
    /// last permit are checked against the word the CAS compares.
    #[inline(always)]
    pub(super) fn fits_reserve(
        &self,
        class: usize,
        n: usize,
        in_flight: usize,
        limit: usize,
    ) -> bool {
        let reserve = self.reserves[class];
        reserve != 0
            && in_flight + n < limit
            && self.cold.holding[class - 1].load(Ordering::Relaxed) + n <= reserved(limit, reserve)
    }

    /// Whether shadow mode admits `n` more units with `in_flight` out:
    /// never over `max_limit`, which keeps in flight from wrapping.
    #[inline(always)]
    pub(super) fn shadows(&self, n: usize, in_flight: usize) -> bool {
        !self.enforce && in_flight + n <= self.max_limit
    }

    /// `class` was refused with nothing in flight at the limit in `cur`.
    /// If its share and its reserve admit nothing there (at a limit of 1,
    /// every class but Critical), with nothing admitted no sample would
    /// ever move the limit: one more unit, in the epoch in force (as AIMD
    /// grows), so that the class gets a permit and the control law samples
    /// again. Two racing refusals raise it once (`raise` sets the limit to
    /// `limit + 1` of this word, not of the one it finds). Out of line: a
    /// refusal at the limit pays only the test of `in_flight`.
    #[cold]
    #[inline(never)]
    fn open_up(&self, class: usize, cur: usize) {
        let limit = limit_of(cur);
        if threshold(limit, self.shares[class]) == 0
            && (self.reserves[class] == 0 || limit < 2)
            && limit < self.max_limit
        {
            let _ = self.raise(epoch_of(cur), limit + 1, false);
        }
    }
}

/// What an admission above its class's threshold does.
enum Beyond {
    Admit,
    Shadow,
    Shed,
    Retry,
}
