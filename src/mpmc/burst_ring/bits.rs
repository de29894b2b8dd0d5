//! The parity and void bitmaps: one bit per slot in 32-bit words, runs
//! read with one load per word and flipped or marked with one RMW per word.

use super::*;

/// The order of every read-modify-write of the bitmaps (the flips that
/// hand a slot over, the void marks): `Release`, the slot hand-off (module
/// docs). `SeqCst` where the wake-ups check the waiters' gate without a
/// fence ([`SEQCST_GATE`](crate::sync::SEQCST_GATE)): every write a
/// waiter's try reads must then be `SeqCst` (`src/wait.rs`), and there it
/// costs nothing (the same `lock xor` on x86-64; `ldeoral` for `ldeorl`
/// on AArch64).
const HAND_OFF: Ordering = if crate::sync::SEQCST_GATE {
    Ordering::SeqCst
} else {
    Ordering::Release
};

const_fn! {
    /// `W` zeroed bitmap words.
    pub(super) fn words<const W: usize>() -> [AtomicU32; W] {
        #[cfg(not(sluicegate_loom))]
        {
            [const { AtomicU32::new(0) }; W]
        }
        #[cfg(sluicegate_loom)]
        {
            core::array::from_fn(|_| AtomicU32::new(0))
        }
    }
}

/// How many positions from counter word `from`, at most `max` (`>= 1`),
/// have their bit in `map` equal to their lap's parity plus `plus` (0: free
/// in `consumed`; 1: published in `published`) and, with `marks`, their
/// void mark clear. One acquire load per 32-slot word the run touches (two
/// with `marks`: the mark's first).
#[inline(always)]
pub(super) fn run<const N: usize, const W: usize>(
    map: &[AtomicU32; W],
    marks: Option<&[AtomicU32; W]>,
    from: usize,
    max: usize,
    plus: usize,
) -> usize {
    let (got, room) = run_in_word::<N, W>(map, marks, from >> SHIFT, plus);
    // (`max == 1` first: a single operation's run never needs the next
    // word, which the compiler cannot see from `room >= 1`.)
    if max == 1 || got < room || max <= room {
        return got.min(max);
    }
    run_on::<N, W>(
        map,
        marks,
        (from >> SHIFT).wrapping_add(room),
        max - room,
        plus,
    ) + room
}

/// Position `q` (a position, not a counter word) in a bitmap: its word
/// and its bit's mask, for [`Bit::is`] and [`Bit::flip`].
#[derive(Clone, Copy)]
pub(super) struct Bit {
    word: usize,
    mask: u32,
    /// Its lap's parity in bit 0.
    lap: u32,
}

impl Bit {
    #[inline(always)]
    pub(super) fn of<const N: usize>(q: usize) -> Self {
        let s = q & (N - 1);
        Bit {
            word: s / 32,
            mask: 1 << (s % 32),
            lap: (q >> N.trailing_zeros()) as u32,
        }
    }

    /// Whether the bit in `map` equals the lap's parity plus `plus`
    /// ([`run`] of at most one): one acquire load.
    #[inline(always)]
    pub(super) fn is<const W: usize>(self, map: &[AtomicU32; W], plus: u32) -> bool {
        // Acquire: the slot hand-off (module docs).
        let word = map[self.word].load(Ordering::Acquire);
        // Compared with `plus`, which the callers pass as a constant.
        let off = self.off_parity(word) & self.mask;
        if plus == 0 {
            off == 0
        } else {
            off != 0
        }
    }

    /// Whether the position is free in `room` ([`run`] of at most one with
    /// the marks): its void mark clear and its `consumed` bit equal to its
    /// lap's parity. Two acquire loads, the mark's first (see `free_run`),
    /// tested together; on Thumb the mark is tested on its own first, which
    /// is shorter there (`ci/qemu.sh`).
    #[inline(always)]
    pub(super) fn free<const W: usize>(self, room: &Room<W>) -> bool {
        let marked = self.marks(&room.void);
        if cfg!(target_arch = "arm") {
            return !self.set_in(marked) && self.is(&room.consumed, 0);
        }
        // Acquire: the slot hand-off (module docs).
        let word = room.consumed[self.word].load(Ordering::Acquire);
        (self.off_parity(word) | marked) & self.mask == 0
    }

    /// `word` XOR its lap's parity in every bit: this position's bit is 0
    /// exactly when it equals the parity.
    #[inline(always)]
    fn off_parity(self, word: u32) -> u32 {
        word ^ 0u32.wrapping_sub(self.lap & 1)
    }

    /// Whether the bit is set in the void marks `map`: one acquire load.
    #[inline(always)]
    pub(super) fn marked<const W: usize>(self, map: &[AtomicU32; W]) -> bool {
        self.set_in(self.marks(map))
    }

    /// The word of the void marks `map` that holds the bit: one acquire
    /// load (for a caller that must load it before the parity bits and
    /// tests it on one path only).
    #[inline(always)]
    pub(super) fn marks<const W: usize>(self, map: &[AtomicU32; W]) -> u32 {
        // Acquire: a pass clears the mark after its flips (see `pass_voids`).
        map[self.word].load(Ordering::Acquire)
    }

    /// Whether the bit is set in `word` (from [`marks`](Self::marks)).
    #[inline(always)]
    pub(super) fn set_in(self, word: u32) -> bool {
        word & self.mask != 0
    }

    /// Sets the bit in the void marks `map`: one release `fetch_or`.
    #[inline(always)]
    pub(super) fn mark<const W: usize>(self, map: &[AtomicU32; W]) {
        // HAND_OFF, a release at least: with the claim it marks (see `make_void`).
        map[self.word].fetch_or(self.mask, HAND_OFF);
    }

    /// Flips the bit in `map` ([`flip`] of one): one release `fetch_xor`.
    #[inline(always)]
    pub(super) fn flip<const W: usize>(self, map: &[AtomicU32; W]) {
        // HAND_OFF, a release at least: the slot hand-off (module docs).
        map[self.word].fetch_xor(self.mask, HAND_OFF);
    }
}

/// A run of positions in at most two bitmap words (the fast paths of the
/// bursts): its first position's counter word, its length, and its bits.
#[derive(Clone, Copy)]
pub(super) struct Run {
    pub(super) from: usize,
    pub(super) n: usize,
    /// The first word, and the run's bits in it and in the next word (the
    /// same word again where a ring of fewer than 32 slots wraps).
    word: usize,
    first: u32,
    second: u32,
}

impl Run {
    /// The run of at most `max` positions from counter word `from` whose
    /// bits in `map` equal their lap's parity plus `plus` (and, with
    /// `marks`, whose void marks are clear), as [`run`] counts it, if it is
    /// not empty (nor is `max`) and ends within two words (`None`
    /// otherwise): one acquire load per word and map.
    #[inline(always)]
    pub(super) fn of<const N: usize, const W: usize>(
        map: &[AtomicU32; W],
        marks: Option<&[AtomicU32; W]>,
        from: usize,
        max: usize,
        plus: usize,
    ) -> Option<Self> {
        let q = from >> SHIFT;
        let s = q & (N - 1);
        let (got, room) = run_in_word::<N, W>(map, marks, q, plus);
        // Nothing free or published, or nothing wanted.
        let n = got.min(max);
        if n == 0 {
            return None;
        }
        // The run ends inside its first word, or fills it and `max`.
        if n < room || max <= room {
            return Some(Run {
                from,
                n,
                word: s / 32,
                first: (u32::MAX >> (32 - n)) << (s % 32),
                second: 0,
            });
        }
        // The run fills its first word: on into the next, if it ends there.
        let (got2, room2) = run_in_word::<N, W>(map, marks, q.wrapping_add(room), plus);
        let more = max - room;
        // (`>=`: in a ring of fewer than 32 slots the bits past the last
        // slot are never flipped and may read as a longer run.)
        if got2 >= room2 && more > room2 {
            return None;
        }
        let n2 = got2.min(more);
        Some(Run {
            from,
            n: room + n2,
            word: s / 32,
            first: (u32::MAX >> (32 - room)) << (s % 32),
            second: if n2 == 0 { 0 } else { u32::MAX >> (32 - n2) },
        })
    }

    /// Whether the run lies inside one bitmap word (so it does not wrap
    /// around the array either).
    #[inline(always)]
    pub(super) fn in_one_word(self) -> bool {
        self.second == 0
    }

    /// Flips the run's bits in `map` ([`flip`] of the run): one release
    /// `fetch_xor` per word.
    #[inline(always)]
    pub(super) fn flip<const W: usize>(self, map: &[AtomicU32; W]) {
        // HAND_OFF, a release at least: the slot hand-off (module docs).
        map[self.word].fetch_xor(self.first, HAND_OFF);
        if self.second != 0 {
            map[(self.word + 1) % W].fetch_xor(self.second, HAND_OFF);
        }
    }
}

/// The run from position `q` up to the end of its bitmap word (or of the
/// lap, in a ring of fewer than 32 slots): its length, and that room. With
/// `marks`, a marked position ends the run; its word is loaded before
/// `map`'s (see `free_run`).
#[inline(always)]
pub(super) fn run_in_word<const N: usize, const W: usize>(
    map: &[AtomicU32; W],
    marks: Option<&[AtomicU32; W]>,
    q: usize,
    plus: usize,
) -> (usize, usize) {
    let s = q & (N - 1);
    let bit = s % 32;
    // All ones where a bit must be 1 for the position to count.
    let want = 0u32.wrapping_sub(((q >> N.trailing_zeros()).wrapping_add(plus) & 1) as u32);
    // Acquire: a pass clears a mark after its flips (see `pass_voids`).
    let marked = marks.map_or(0, |m| m[s / 32].load(Ordering::Acquire));
    // Acquire: the slot hand-off (module docs).
    let word = map[s / 32].load(Ordering::Acquire);
    // Ones where the bit is as wanted and the mark clear, from `bit` up:
    // the run is their trailing ones.
    let ok = (!(word ^ want) & !marked) >> bit;
    // The end of the word is the end of the lap for `N >= 32` (a multiple
    // of 32), and may not be for smaller rings.
    let room = if N >= 32 { 32 - bit } else { N - s };
    ((!ok).trailing_zeros() as usize, room)
}

/// [`run`] past the first word: whole words from position `q`.
#[inline(never)]
pub(super) fn run_on<const N: usize, const W: usize>(
    map: &[AtomicU32; W],
    marks: Option<&[AtomicU32; W]>,
    mut q: usize,
    max: usize,
    plus: usize,
) -> usize {
    let mut n = 0;
    loop {
        let (got, room) = run_in_word::<N, W>(map, marks, q, plus);
        let span = (max - n).min(room);
        if got < span {
            return n + got;
        }
        n += span;
        if n == max {
            return max;
        }
        q = q.wrapping_add(span);
    }
}

/// How many positions from counter word `from` (at most `N`) have their
/// bit set in `map` (the voids).
pub(super) fn void_run<const N: usize, const W: usize>(map: &[AtomicU32; W], from: usize) -> usize {
    let mut q = from >> SHIFT;
    let mut n = 0;
    while n < N {
        let s = q & (N - 1);
        let bit = s % 32;
        // Acquire: see `skip_voids`.
        let ones = map[s / 32].load(Ordering::Acquire) >> bit;
        let room = if N >= 32 { 32 - bit } else { N - s };
        let span = (N - n).min(room);
        let got = (!ones).trailing_zeros() as usize;
        if got < span {
            return n + got;
        }
        n += span;
        q = q.wrapping_add(span);
    }
    N
}

/// Sets (`set`) or clears the bits in `map` of the `n` positions (`>= 1`)
/// from counter word `from`, one release read-modify-write per word.
pub(super) fn mark<const N: usize, const W: usize>(
    map: &[AtomicU32; W],
    from: usize,
    n: usize,
    set: bool,
) {
    let mut q = from >> SHIFT;
    let mut left = n;
    while left > 0 {
        let s = q & (N - 1);
        let bit = s % 32;
        let room = if N >= 32 { 32 - bit } else { N - s };
        let span = left.min(room);
        let mask = (u32::MAX >> (32 - span)) << bit;
        // HAND_OFF, a release at least: the slots' owner is done with them.
        if set {
            map[s / 32].fetch_or(mask, HAND_OFF);
        } else {
            map[s / 32].fetch_and(!mask, HAND_OFF);
        }
        q = q.wrapping_add(span);
        left -= span;
    }
}

/// Clears the void bits of the `n` positions from counter word `from`.
pub(super) fn clear<const N: usize, const W: usize>(map: &[AtomicU32; W], from: usize, n: usize) {
    mark::<N, W>(map, from, n, false);
}

/// Flips the bits in `map` of the `n` positions (`>= 1`) from counter word
/// `from`: one release `fetch_xor` per word (two where the run wraps inside
/// the one word of a ring of fewer than 32 slots).
#[inline(always)]
pub(super) fn flip<const N: usize, const W: usize>(map: &[AtomicU32; W], from: usize, n: usize) {
    let mut q = from >> SHIFT;
    let mut left = n;
    loop {
        let s = q & (N - 1);
        let bit = s % 32;
        let room = if N >= 32 { 32 - bit } else { N - s };
        let span = left.min(room);
        let mask = (u32::MAX >> (32 - span)) << bit;
        // HAND_OFF, a release at least: the slot hand-off (module docs).
        map[s / 32].fetch_xor(mask, HAND_OFF);
        if span == left {
            return;
        }
        q = q.wrapping_add(span);
        left -= span;
    }
}
