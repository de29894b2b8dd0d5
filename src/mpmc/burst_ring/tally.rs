//! A [`BurstRing`]'s statistics: the words off the hot paths, the counts
//! of refusals, the sampled high-water mark, and [`BurstRing::stats`].

use super::*;

/// A [`BurstRing`]'s words off the hot paths.
pub(super) struct Tally {
    /// The largest length a pop sampled (see [`BurstRing::stats`]).
    pub(super) peak: AtomicUsize,
    pub(super) rejected: SharedCounter,
    /// See [`BurstRing`]'s field of the name (where a microcontroller keeps
    /// it).
    #[cfg(not(all(target_arch = "arm", target_os = "none")))]
    pub(super) rejected_with_room: SharedCounter,
    /// Counted by evictions only inside the region in which no other
    /// eviction can be (from claiming the oldest position to clearing the
    /// evicting flag; module docs, "One evictor"), so a load and a store.
    pub(super) overwritten: SoloCounter,
    pub(super) busy: SharedCounter,
    /// Items the `*_fresh` pops discarded (see [`crate::expire`]).
    pub(super) expired: SharedCounter,
    /// Positions `push_overwrite` made void (the schedule tests count the
    /// slots they hold).
    #[cfg(all(test, not(sluicegate_loom)))]
    pub(super) voided: SharedCounter,
}

impl<T: Copy, const N: usize, const W: usize, M: Marks> BurstRing<T, N, W, M> {
    /// Counts `stop` for one item and hands `item` back with it.
    #[cold]
    #[inline(never)]
    pub(super) fn refuse(&self, stop: Stop, item: T) -> PushError<T> {
        match self.count(stop, 1) {
            Stop::Full => PushError::Full(item),
            Stop::Busy => PushError::Busy(item),
            _ => PushError::Closed(item),
        }
    }

    /// Counts a refusal of `items` items for `stop` and returns it.
    #[cold]
    #[inline(never)]
    pub(super) fn count(&self, stop: Stop, items: usize) -> Stop {
        match stop {
            Stop::Full => self.tally.rejected.add(items),
            Stop::Busy => self.tally.busy.add(1),
            Stop::Empty | Stop::Closed => {}
        }
        stop
    }

    /// One position in this many is a sample of the length (as
    /// [`Ring::PEAK_SAMPLE_EVERY`](crate::mpmc::Ring::PEAK_SAMPLE_EVERY)).
    pub(super) const PEAK_SAMPLE_EVERY: usize = {
        let every = if N >= 16 { N / 16 } else { 1 };
        if cfg!(all(target_arch = "arm", target_os = "none")) || every >= 64 {
            every
        } else {
            64
        }
    };

    /// After a pop claimed `n` positions from `c`: if they cross a multiple
    /// of the sampling period, raises `peak` to the length seen then.
    #[inline(always)]
    pub(super) fn sample_peak(&self, c: usize, n: usize) {
        // `PEAK_SAMPLE_EVERY` is a power of two: the run crosses one of its
        // multiples exactly when the bits above it differ.
        if (c ^ c.wrapping_add(n * ONE)) >= Self::PEAK_SAMPLE_EVERY * ONE {
            self.raise_peak(c);
        }
    }

    /// [`sample_peak`](Self::sample_peak) of one position, given the
    /// counter word after it: it crosses a multiple of the period exactly
    /// when it ends on one.
    #[inline(always)]
    pub(super) fn sample_peak_one(&self, to: usize) {
        if to & (Self::PEAK_SAMPLE_EVERY * ONE - 1) == 0 {
            // The length seen from `to - 1`, counted from `to`: the pop's
            // word before its claim need not stay in a register past the
            // CAS (one move less on x86-64). Relaxed: a statistic.
            let p = self.prod.load(Ordering::Relaxed) & !FLAGS;
            self.raise_peak_seen((gap(p, to) + 1).min(N));
        }
    }

    /// Raises `peak` to the length a pop that claimed from counter word `c`
    /// sees now.
    #[inline(always)]
    pub(super) fn raise_peak(&self, c: usize) {
        // Relaxed: a statistic.
        let p = self.prod.load(Ordering::Relaxed) & !FLAGS;
        self.raise_peak_seen(gap(p, c).min(N));
    }

    /// Raises `peak` to `seen`.
    #[inline(always)]
    fn raise_peak_seen(&self, seen: usize) {
        if seen > self.tally.peak.load(Ordering::Relaxed) {
            self.tally.peak.fetch_max(seen, Ordering::Relaxed);
        }
    }

    /// Counts a bulk push's refusal of `items` items for `stop` (as
    /// `count`), noting the items refused as full while the ring had room
    /// (fewer free slots than the bulk) so that they do not make `peak`
    /// read `N`; returns `stop`.
    #[cold]
    pub(super) fn refuse_bulk(&self, stop: Stop, items: usize) -> Stop {
        if stop == Stop::Full && !self.full_now() {
            self.rejected_with_room().add(items);
        }
        self.count(stop, items)
    }

    /// The counters and statistics: how many items were refused as full
    /// (`rejected`), evicted (`overwritten`), how many calls answered busy
    /// (`busy`), and the high-water mark (`peak`: the largest length a pop
    /// sampled, at one position in `K` as on [`Ring`](crate::mpmc::Ring), or an
    /// earlier `stats` read, or the length now if that is more, which this
    /// read then keeps, so `peak` never goes down; `N` once the ring was
    /// found full).
    ///
    /// ```
    /// use sluicegate::RingStats;
    ///
    /// let ring: sluicegate::mpmc::burst_ring::BurstRing<u8, 2, 1> =
    ///     sluicegate::mpmc::burst_ring::BurstRing::new();
    /// ring.push_burst(&[1, 2, 3]);
    /// let _ = ring.push_overwrite(4);
    /// assert_eq!(ring.stats(), RingStats { rejected: 1, overwritten: 1, busy: 0, expired: 0, transitions: 0, peak: 2 });
    /// ```
    pub fn stats(&self) -> RingStats {
        let (rejected, overwritten) = (self.tally.rejected.get(), self.tally.overwritten.get());
        RingStats {
            rejected,
            overwritten,
            busy: self.tally.busy.get(),
            expired: self.tally.expired.get(),
            transitions: M::transitions(&self.marks),
            peak: if rejected != self.rejected_with_room().get() || overwritten != 0 {
                N
            } else {
                crate::observe::kept_peak(&self.tally.peak, self.len())
            },
        }
    }

    /// The count of items refused with room (see the field).
    #[inline(always)]
    pub(super) fn rejected_with_room(&self) -> &SharedCounter {
        #[cfg(all(target_arch = "arm", target_os = "none"))]
        return &self.rejected_with_room;
        #[cfg(not(all(target_arch = "arm", target_os = "none")))]
        return &self.tally.rejected_with_room;
    }

    /// Counts `k` items a `*_fresh` pop discarded.
    #[cold]
    pub(in crate::mpmc) fn note_expired(&self, k: usize) {
        self.tally.expired.add(k);
    }
}
