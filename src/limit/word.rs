//! The admission word of the [`Limiter`](super::Limiter) limiter: its layout, its
//! transitions, and why admission in one step never exceeds the limit.
//!
//! # The admission word
//!
//! One `AtomicUsize` packs the three fields admission depends on; three
//! more, the *release counters* `released[o]`, count the permits given back
//! with each outcome `o` (success, dropped, ignored). All four share one
//! cache line (on hosts; see "Why one cache line"):
//!
//! | bits (32-bit `usize`) | bits (64-bit `usize`) | field                                 |
//! |-----------------------|-----------------------|---------------------------------------|
//! | `0..12`               | `0..32`               | `admitted` (permits granted, wrapping) |
//! | `12..24`              | `32..52`              | `limit`                               |
//! | `24..32`              | `52..64`              | `epoch` (cuts so far, wrapping)       |
//!
//! Write `released` for the wrapping sum of the three counters. In flight is
//! `admitted − released` (mod 2^12 or 2^32).
//!
//! | transition | operation | from → to | who |
//! |------------|-----------|-----------|-----|
//! | admit `n` units | CAS on the word | `admitted: a → a + n` if `a − released + n ≤ threshold(limit, class)` (on a reserve: `a − released + n < limit`); limit and epoch compared, unchanged | [`Limiter::try_acquire_with`](super::Limiter::try_acquire_with) (`n = 1`), [`Limiter::try_acquire_n_with`](super::Limiter::try_acquire_n_with) |
//! | release | `fetch_add(n)` on the counter of the permit's outcome | `released[o]: r → r + n`, once per permit of `n` units, after its admission | a permit's outcome or drop |
//! | grow | CAS on the word | `limit: L → L + 1` if `L < max_limit` and `epoch` is the permit's | a good success closing a window |
//! | cut | CAS on the word | `limit: L → max(min, ⌊L·backoff/256⌋) < L`, `epoch: e → e + 1` if `epoch` is the permit's | an overload signal |
//!
//! Invariants: `min_limit ≤ limit ≤ max_limit ≤ MAX_LIMIT`, and in flight
//! `≤ max_limit`, so the difference never wraps and no field carries into its
//! neighbour (`admitted` wraps inside its field).
//!
//! ## Why admission is one step
//!
//! Admission of `n` units reads the word, then the three release counters,
//! checks `admitted − released + n` against the class's threshold of the
//! word's `limit`, and CASes the word to `admitted + n`. The CAS compares the *whole* word it
//! checked: if the limit, the epoch or the admitted count changed in between,
//! it fails and the check is redone. A successful CAS means the word read was
//! still the latest, so every release counted in `released` belongs to a permit counted in that
//! word (a release of a permit admitted later would have changed the word
//! first), and releases not yet seen only make in flight look *higher*.
//! Hence right after the admission, in flight is at most
//! `admitted − released_read + n ≤ threshold ≤ limit`, all against the
//! limit in force in that same word. A class's threshold is below the limit unless the class is
//! Critical, and an admission on a reserve checks `admitted − released + n
//! < limit`, so by the same argument no other class is admitted to the last
//! permit (shadow mode, which refuses nothing up to `max_limit`, aside).
//! In flight never exceeds the limit in force at admission, whatever the
//! concurrency; there is no check-then-increment window (the bug of Netflix
//! concurrency-limits #140/#234 and Envoy PR #42133) and no optimistic
//! increment to roll back. A cut may leave in flight above the new limit; it
//! then drains, as nothing is admitted until it is below.
//!
//! **The one exception: the word comes back.** "The word read was still
//! the latest" holds unless the word left that value and came back to it:
//! an admission suspended between its loads and its CAS while a multiple of
//! 2^32 admissions (2^12 on 32-bit targets) were made, with the limit and
//! the epoch back where they were (a fixed limit keeps them there), finds
//! its word again and acts on release counters that are that many
//! admissions old. It can then take a unit past the limit, and while in
//! flight is above `max_limit` the readers that re-read such a difference
//! (`in_flight`, `stats`, a refused admission) retry until a release brings
//! it down. On 64-bit targets that needs 4 294 967 296 admissions during
//! one suspension of one admission (seven minutes at ten million a
//! second), at one exact count; the field is that wide for this, which
//! leaves the limit 20 bits. On 32-bit targets it needs 4 096, which an
//! admission preempted for long by busier contexts can see; a wider field
//! there would take bits the limit and the epoch need, and keeping in
//! flight in the word instead would cost every release a second
//! read-modify-write.
//!
//! ## Why three release counters
//!
//! Splitting the releases off the word keeps a release to one `fetch_add`;
//! splitting them by outcome keeps it to one whatever the outcome, because
//! the counter that releases a permit is also the exact statistic of its
//! outcome ([`Limiter::stats`](super::Limiter::stats) reads the counters as they are; nothing is
//! derived by subtraction) and, for successes, the sample clock of the
//! growth and baseline windows. So an admission plus any outcome costs two
//! read-modify-writes, as a bare `fetch_add`/`fetch_sub` pair does; the
//! price is two more loads, from the same cache line, per admission.
//!
//! ## Why one cache line
//!
//! An admission reads the counters and then CASes the word, so it needs
//! both; a release writes a counter. Were the counters on a line of their
//! own, every admission under contention would fetch two lines that the
//! other threads keep taking away; on one line an admission costs one line
//! transfer, as a bare `fetch_add`/`fetch_sub` pair on one word does
//! (`benches/limit.rs`, `limit_2threads`, measures the two side by side).
//! Releases do not change the word, so they never make an admission's CAS
//! fail; they only share its line. The adaptation words (`Track`) stay on another
//! line: they are read on every success but written rarely.
//!
//! An admission reads the three counters one after another, not at one
//! instant. Each counter only grows, so a sum read at instants
//! `t1 < t2 < t3` lies between the true sums at `t1` and at `t3`, and with
//! the word unchanged around the loads the in-flight count judged from it
//! is at most the true count at `t1`. So a shed, taken only if the word did
//! not change around the loads, was justified at `t1`: in flight was at
//! least the count judged, against the word's limit. And a counter read
//! early only undercounts releases, which makes in flight look higher,
//! never lower, so an admission still never exceeds the limit. (Releases
//! of one unit move the sum in steps of one, so the sum read was then the
//! true sum at some instant between `t1` and `t3`; a weighted permit's
//! release moves it by its weight at once, which the argument above does
//! not need.)
//!
//! The epoch has 8 bits on 32-bit targets and 12 on 64-bit ones: a permit
//! held across exactly a multiple of 256 (4096) cuts could cut once more.
//! The limit is at most [`MAX_LIMIT`] (4095 on 32-bit targets, 2^20 − 1
//! on 64-bit ones).
//!

use crate::sync::{AtomicUsize, Ordering, SharedCounter};

const _: () = assert!(
    usize::BITS >= 32,
    "the limiter needs a usize of at least 32 bits"
);

/// Whether the word has the 32-bit layout: on 32-bit targets, and on any
/// with `--cfg sluicegate_narrow_word` (so that hosts can run the tests of
/// its wrap, which takes 2^32 admissions in the wide layout).
const NARROW: bool = usize::BITS < 64 || cfg!(sluicegate_narrow_word);
/// Bits of the `admitted` field.
pub(super) const ADMITTED_BITS: u32 = if NARROW { 12 } else { 32 };
pub(super) const ADMITTED_MASK: usize = (1 << ADMITTED_BITS) - 1;
/// Bits of the `limit` field.
const LIMIT_BITS: u32 = if NARROW { 12 } else { 20 };
const LIMIT_MASK: usize = (1 << LIMIT_BITS) - 1;
pub(super) const LIMIT_SHIFT: u32 = ADMITTED_BITS;
pub(super) const EPOCH_SHIFT: u32 = ADMITTED_BITS + LIMIT_BITS;
pub(super) const EPOCH_MASK: usize = usize::MAX >> EPOCH_SHIFT;

/// The largest limit this target's admission word can hold: 4095 where
/// `usize` has 32 bits, 2^20 − 1 (1 048 575) where it has 64.
pub const MAX_LIMIT: u32 = LIMIT_MASK as u32;

/// The admitted count (mod 2^ADMITTED_BITS) of an admission word.
#[inline(always)]
pub(super) const fn admitted_of(word: usize) -> usize {
    word & ADMITTED_MASK
}

/// In flight by the admission word `word` and `released`, the wrapping sum
/// of the release counters: the admitted count less it, inside the field.
#[inline(always)]
pub(super) const fn in_flight_by(word: usize, released: usize) -> usize {
    admitted_of(word).wrapping_sub(released) & ADMITTED_MASK
}

/// A permit's word keeps its in-flight count where the admission word keeps
/// the admitted count.
#[inline(always)]
pub(super) const fn in_flight_of(word: usize) -> usize {
    word & ADMITTED_MASK
}

/// The word with its admitted count `n` higher, wrapping inside its field.
#[inline(always)]
pub(super) const fn bump_admitted(word: usize, n: usize) -> usize {
    (word & !ADMITTED_MASK) | (word.wrapping_add(n) & ADMITTED_MASK)
}

#[inline(always)]
pub(super) const fn limit_of(word: usize) -> usize {
    (word >> LIMIT_SHIFT) & LIMIT_MASK
}

#[inline(always)]
pub(super) const fn epoch_of(word: usize) -> usize {
    word >> EPOCH_SHIFT
}

#[inline(always)]
pub(super) const fn pack(count: usize, limit: usize, epoch: usize) -> usize {
    (count & ADMITTED_MASK) | (limit << LIMIT_SHIFT) | ((epoch & EPOCH_MASK) << EPOCH_SHIFT)
}

/// Critical's share: the whole limit, the last permit included.
pub(super) const ALL: usize = 257;

/// The in-flight count below which a class with `share` (in 1/256) is
/// admitted: the whole limit for [`ALL`] (Critical), else
/// `floor(limit · share / 256)` but never the last permit, so at a limit of
/// 1 only Critical is admitted.
#[inline(always)]
pub(super) const fn threshold(limit: usize, share: usize) -> usize {
    if share == ALL {
        return limit;
    }
    let t = (limit * share) >> 8;
    if t >= limit {
        limit.saturating_sub(1)
    } else {
        t
    }
}

/// The permits a class with `reserve` (in 1/256, non-zero) may hold whatever
/// the other classes hold, as long as the last permit stays free (checked
/// on admission): `floor(limit · reserve / 256)`, at least 1, at most
/// `limit − 1` (0 at a limit of 1).
#[inline(always)]
pub(super) const fn reserved(limit: usize, reserve: usize) -> usize {
    let r = (limit * reserve) >> 8;
    let r = if r == 0 { 1 } else { r };
    if r >= limit {
        limit.saturating_sub(1)
    } else {
        r
    }
}

pub(super) struct Released {
    /// Permits ended with [`Permit::success`](super::Permit::success); its sequence numbers are the
    /// clock of the growth and baseline windows.
    pub(super) success: AtomicUsize,
    /// Permits ended with [`Permit::dropped`](super::Permit::dropped).
    pub(super) dropped: SharedCounter,
    /// Permits ended with [`Permit::ignore`](super::Permit::ignore) or dropped without an outcome.
    pub(super) ignored: SharedCounter,
}

impl Released {
    /// The three counters, each read once with `Acquire` (pairs with the
    /// `Release` increment of each release): `[success, dropped, ignored]`.
    #[inline(always)]
    pub(super) fn load(&self) -> [usize; 3] {
        [
            self.success.load(Ordering::Acquire),
            self.dropped.get_acquire(),
            self.ignored.get_acquire(),
        ]
    }
}

/// The number of permits the counters read by [`Released::load`] say were
/// released (wrapping).
#[inline(always)]
pub(super) const fn total(r: [usize; 3]) -> usize {
    r[0].wrapping_add(r[1]).wrapping_add(r[2])
}

/// What every admission and every release touches, kept on one cache line
/// (see "Why one cache line" above).
pub(super) struct Hot {
    /// The admission word: `admitted | limit | epoch` (layout above). Only changed by read-modify-writes.
    pub(super) state: AtomicUsize,
    /// Permits released so far, per outcome (see [`Released`]).
    pub(super) released: Released,
}
