//! The free pool of a [`Ring`](super::Ring): where a push finds a free slot
//! and where a pop gives its slot back. The ring's third parameter picks it;
//! the ring's own algorithm and guarantees are the same with each.
//!
//! | pool | holds | RAM | per push + pop pair | for |
//! |------|-------|-----|---------------------|-----|
//! | [`FreeIndices<N>`] (the default) | an SCQ ring of free slot indices, `2N` entries | `2N` words + 3 counters | 2 fetch-and-adds and 2 entry updates, plus `threshold` | any `N` |
//! | [`FreeMask`] | one word, bit `i` set while slot `i` is free | 1 word | one CAS and one fetch-or | `N <= usize::BITS` |
//! | [`FreeBits<W>`] | `W = N / 32` words of bits and a count of unreserved free slots | `N / 8` bytes + 1 word | two CASes, a fetch-or and a fetch-add (a take reads up to `W` words) | any `N` |
//!
//! # `FreeMask`
//!
//! **Algorithm.** A push loads the word, and if it is not zero CASes it to
//! itself with its lowest set bit cleared: that bit's slot is then the
//! push's. A pop that has read its item out of slot `i` sets bit `i` with
//! one fetch-or. A burst takes the lowest `k` set bits with one CAS and gives
//! its slots back with one fetch-or.
//!
//! **Progress.** Lock-free: a CAS fails only because another push took a
//! slot or a pop gave one back in between (each a completed step), and the
//! retry starts from the word the failure returned. Giving back is one
//! read-modify-write, wait-free. There is no intermediate state: a context
//! suspended anywhere in the pool holds either nothing or the one slot whose
//! bit its CAS cleared, so the ring's "a suspended context holds at most one
//! slot" is unchanged (a burst holds the slots of its round).
//!
//! **Exact "full".** The word is the whole pool, so a zero read by the load
//! or returned by a failed CAS means that at that instant every slot was
//! occupied or held by an operation in progress: `try_push`'s `Full` stays
//! linearizable.
//!
//! **Orderings.** Taking is `SeqCst` (at least acquire: the popper's fetch-or
//! released its read of the slot, which must happen before the next
//! writer's write); giving back is `SeqCst` (at least release). `SeqCst` keeps
//! the ring's one rule that every index operation is `SeqCst` (see
//! [Memory orderings](super#memory-orderings)); on x86-64 and Armv8 it costs
//! the same as acquire/release for these read-modify-writes.
//!
//! **Cost.** One word instead of `2N` entries and three counters: on a
//! Cortex-M4, `Ring<u32, 32, FreeMask>` takes 416 bytes against 680 (see
//! `tests/ram.rs` and the firmware's `ram` binary). The word is shared by
//! pushes and pops, where `FreeIndices` gives them separate counters; the
//! benchmarks in `BENCHMARKS.md` say what that costs on hosts.
//!
//! # `FreeBits<W>`
//!
//! **Algorithm.** `free` counts the free slots that no take has reserved;
//! the words hold one bit per slot, set while the slot is free. A take
//! first reserves a slot: it CASes `free` from `c` to `c - 1`, or answers
//! "none free" if it reads 0. It then claims a set bit: it scans the words
//! from the first, and in the first word with a set bit CASes the lowest
//! one clear. A give sets its bit with a fetch-or and then adds 1 to `free`.
//! A burst reserves `k` with one CAS, claims them a word at a time, and gives
//! them back with one fetch-or per word and one fetch-add.
//!
//! **Why the scan ends.** A give sets its bit *before* it counts the slot,
//! and a take reserves *before* it claims, so at every instant the set bits
//! are at least the reservations not yet claimed. A take holding a
//! reservation therefore always has a set bit to find: a word it finds
//! empty, or a CAS that fails, means another take claimed a bit in the
//! meantime (or a give changed the word), each a completed step.
//!
//! **Progress.** Lock-free: every retry follows another context's completed
//! step (a reservation, a claim or a give), as above. A context suspended
//! in the pool holds at most one slot (a burst: its round): a take
//! suspended after reserving holds its reservation; a give suspended
//! between its fetch-or and its fetch-add holds a slot that is free in the
//! bits but not yet counted (another take may claim that bit; the counts
//! still balance once the give resumes).
//!
//! **Exact "full".** A take answers "none free" only when it reads `free`
//! = 0: every free slot is then reserved by a take in progress or not yet
//! counted by a give in progress, so `try_push`'s `Full` stays
//! linearizable (every slot occupied or held by an operation in progress).
//!
//! **Orderings.** All `SeqCst`, as in the rest of the ring. The hand-off of
//! a slot is the fetch-or (release: the popper's read of the slot is before
//! it) and the claiming CAS on the same word (acquire); `free` only counts.
//!
//! **Cost.** `N / 8` bytes of bits and one word for `free`, instead of
//! `2N` words of entries and three counters: `Ring<u32, 1024, FreeBits<32>>`
//! takes 12 448 bytes on a Cortex-M4 against 20 520 for the default pool.
//! The read-modify-writes per operation are as many as the default pool's;
//! a take also reads the words up to the first with a set bit (one while
//! the ring is not nearly full, `W` at worst). Under QEMU, at 128 slots
//! (`FreeBits<4>`, filling the ring before emptying it, so the scan grows),
//! a push costs 146 instructions against 134 on a Cortex-M0 with
//! critical-section and 98 against 84 on a Cortex-M3, a pop 101 against
//! 129 and 70 against 80. `free` and the words are shared by pushes and
//! pops, as `FreeMask`'s word is: with producers and consumers on different
//! host cores this pool is several times slower than the default
//! (`BENCHMARKS.md`); it is for a microcontroller's RAM.

use super::scq::IndexRing;
use crate::sync::{const_fn, pause, pause_point, AtomicU32, AtomicUsize, Ordering, Padded};

/// A free pool of a [`Ring`](super::Ring): [`FreeIndices<N>`] (the default),
/// [`FreeMask`] (for `N <= usize::BITS`) or [`FreeBits<W>`] (`W = N / 32`).
/// Sealed: the ring's guarantees rest on the pools' arguments
/// ([module docs](self)).
pub trait FreePool<const N: usize>: sealed::Pool<N> + Send + Sync + 'static {}

pub(super) mod sealed {
    /// The pool operations the ring uses.
    pub trait Pool<const N: usize>: Sized {
        /// Every slot free, positions (if any) starting at 0.
        #[cfg(not(sluicegate_loom))]
        #[allow(clippy::declare_interior_mutable_const)] // used by value, once per ring
        const FULL: Self;
        /// Every slot free, positions (if any) starting at `start`.
        fn full(start: usize) -> Self;
        /// Takes a free slot's index, or `None` if none is free.
        fn take(&self) -> Option<usize>;
        /// [`take`](Self::take) for a ring whose waiting pushes `u` wakes
        /// if a look of an index ring ends a late-miss window.
        #[inline(always)]
        fn take_for<U: crate::mpmc::scq::OnUnhide>(&self, u: U) -> Option<usize> {
            let _ = u;
            self.take()
        }
        /// Gives slot `i` back; its holder read (or never wrote) it.
        fn give(&self, i: usize);
        /// Takes up to `out.len()` free indices into `out`; returns how many.
        fn take_many(&self, out: &mut [usize]) -> usize;
        /// [`take_many`](Self::take_many) for a ring whose waiting pushes
        /// `u` wakes (as [`take_for`](Self::take_for)).
        #[inline(always)]
        fn take_many_for<U: crate::mpmc::scq::OnUnhide>(&self, out: &mut [usize], u: U) -> usize {
            let _ = u;
            self.take_many(out)
        }
        /// Whether a take now would find no free index: the first test
        /// every take makes, alone (one load).
        fn surely_none(&self) -> bool;
        /// Gives back every slot of `indices`.
        fn give_many(&self, indices: &[usize]);
        /// How many slots are free, as a snapshot: exact when no take or
        /// give is in progress, at most `N`.
        fn free_hint(&self) -> usize;
    }
}

/// The default free pool: an SCQ ring of free slot indices (`2N` entries),
/// for any `N`. See the [module docs](self).
pub struct FreeIndices<const N: usize>(IndexRing<N, true>);

#[cfg(all(test, sluicegate_loom, feature = "async"))]
impl<const N: usize> FreeIndices<N> {
    /// [`IndexRing::late_decrement`] of the ring of free indices.
    pub(super) fn late_decrement<U: crate::mpmc::scq::OnUnhide>(&self, u: U) {
        self.0.late_decrement(u);
    }
}

impl<const N: usize> core::fmt::Debug for FreeIndices<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FreeIndices").finish_non_exhaustive()
    }
}

impl<const N: usize> FreePool<N> for FreeIndices<N> {}

impl<const N: usize> sealed::Pool<N> for FreeIndices<N> {
    #[cfg(not(sluicegate_loom))]
    #[allow(clippy::declare_interior_mutable_const)]
    const FULL: Self = Self(IndexRing::new(0, true));

    fn full(start: usize) -> Self {
        Self(IndexRing::new(start, true))
    }

    #[inline(always)]
    fn take(&self) -> Option<usize> {
        self.0.dequeue()
    }

    #[inline(always)]
    fn take_for<U: crate::mpmc::scq::OnUnhide>(&self, u: U) -> Option<usize> {
        self.0.dequeue_for(u)
    }

    #[inline(always)]
    fn take_many_for<U: crate::mpmc::scq::OnUnhide>(&self, out: &mut [usize], u: U) -> usize {
        self.0.dequeue_many_for(out, u).map_or(0, |(got, _)| got)
    }

    #[inline(always)]
    fn give(&self, i: usize) {
        self.0.enqueue(i);
    }

    #[inline(always)]
    fn take_many(&self, out: &mut [usize]) -> usize {
        self.0.dequeue_many(out).map_or(0, |(got, _)| got)
    }

    #[inline(always)]
    fn surely_none(&self) -> bool {
        self.0.empty_now()
    }

    #[inline(always)]
    fn give_many(&self, indices: &[usize]) {
        self.0.enqueue_many(indices, None);
    }

    fn free_hint(&self) -> usize {
        self.0.len_hint()
    }
}

/// A free pool of one word, bit `i` set while slot `i` is free: one CAS to
/// take a slot, one fetch-or to give it back, and `2N` words less RAM than
/// [`FreeIndices<N>`]. For `N <= usize::BITS` (32 on Cortex-M; a larger `N`
/// is a compile-time error). See the [module docs](self).
///
/// ```compile_fail,E0080
/// static BAD: sluicegate::mpmc::Ring<u8, 128, sluicegate::mpmc::FreeMask> =
///     sluicegate::mpmc::Ring::new();
/// let _ = BAD.try_pop();
/// ```
pub struct FreeMask(Padded<AtomicUsize>);

impl core::fmt::Debug for FreeMask {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("FreeMask")
            .field(&self.0.load(Ordering::Relaxed))
            .finish()
    }
}

impl FreeMask {
    /// The word with the low `N` bits set.
    const fn all<const N: usize>() -> usize {
        const {
            assert!(
                N <= usize::BITS as usize,
                "sluicegate: FreeMask needs N <= usize::BITS"
            );
        };
        if N == usize::BITS as usize {
            usize::MAX
        } else {
            (1 << N) - 1
        }
    }
}

impl<const N: usize> FreePool<N> for FreeMask {}

impl<const N: usize> sealed::Pool<N> for FreeMask {
    #[cfg(not(sluicegate_loom))]
    #[allow(clippy::declare_interior_mutable_const)]
    const FULL: Self = Self(Padded::new(AtomicUsize::new(Self::all::<N>())));

    fn full(_start: usize) -> Self {
        Self(Padded::new(AtomicUsize::new(Self::all::<N>())))
    }

    #[inline(always)]
    fn take(&self) -> Option<usize> {
        let mut w = self.0.load(Ordering::SeqCst);
        loop {
            if w == 0 {
                return None;
            }
            pause_point(pause::MPMC_MASK_TAKE);
            match self
                .0
                .compare_exchange(w, w & (w - 1), Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return Some(w.trailing_zeros() as usize),
                Err(now) => w = now,
            }
        }
    }

    #[inline(always)]
    fn give(&self, i: usize) {
        debug_assert!(i < N);
        self.0.fetch_or(1 << i, Ordering::SeqCst);
    }

    #[inline]
    fn take_many(&self, out: &mut [usize]) -> usize {
        let mut w = self.0.load(Ordering::SeqCst);
        loop {
            let mut rest = w;
            let mut got = 0;
            while got < out.len() && rest != 0 {
                out[got] = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                got += 1;
            }
            if got == 0 {
                return 0;
            }
            pause_point(pause::MPMC_MASK_TAKE);
            match self
                .0
                .compare_exchange(w, rest, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return got,
                Err(now) => w = now,
            }
        }
    }

    #[inline]
    fn give_many(&self, indices: &[usize]) {
        let bits = indices.iter().fold(0, |m, &i| {
            debug_assert!(i < N);
            m | 1 << i
        });
        self.0.fetch_or(bits, Ordering::SeqCst);
    }

    #[inline(always)]
    fn surely_none(&self) -> bool {
        // SeqCst: as the load that starts `take` and `take_many`.
        self.0.load(Ordering::SeqCst) == 0
    }

    fn free_hint(&self) -> usize {
        // Relaxed: a snapshot for the observers, ordered with nothing.
        self.0.load(Ordering::Relaxed).count_ones() as usize
    }
}

/// A free pool of `32 × W` bits (bit `i % 32` of word `i / 32` set while
/// slot `i` is free) and a count of the free slots no take has reserved:
/// for any `N`, at `N / 32` words (`W` must be `N / 32` rounded up; anything
/// else is a compile-time error). Two read-modify-writes to take a slot
/// and two to give it back, as with [`FreeIndices<N>`], in `N / 8` bytes
/// instead of `2N` words: `Ring<u32, 1024, FreeBits<32>>` takes 12 448
/// bytes on a Cortex-M4 against 20 520. See the [module docs](self).
///
/// ```
/// use sluicegate::mpmc::{FreeBits, Ring};
///
/// static JOBS: Ring<u32, 1024, FreeBits<32>> = Ring::new();
/// JOBS.try_push(7).unwrap();
/// assert_eq!(JOBS.try_pop(), Some(7));
/// ```
///
/// ```compile_fail,E0080
/// static BAD: sluicegate::mpmc::Ring<u8, 128, sluicegate::mpmc::FreeBits<2>> =
///     sluicegate::mpmc::Ring::new();
/// let _ = BAD.try_pop();
/// ```
pub struct FreeBits<const W: usize> {
    /// Free slots that no take has reserved yet: at most the set bits.
    free: Padded<AtomicUsize>,
    /// Bit `i % 32` of word `i / 32` is set while slot `i` is free.
    words: [AtomicU32; W],
}

impl<const W: usize> core::fmt::Debug for FreeBits<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FreeBits")
            .field("free", &self.free.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<const W: usize> FreeBits<W> {
    const_fn! {
        /// Every one of the `N` slots free.
        fn all<const N: usize>() -> Self {
            const {
                assert!(
                    W >= 1 && N <= 32 * W && N > 32 * (W - 1),
                    "sluicegate: FreeBits<W> needs W = N / 32, rounded up"
                );
            };
            #[cfg(not(sluicegate_loom))]
            let mut words = [const { AtomicU32::new(0) }; W];
            #[cfg(sluicegate_loom)]
            let words: [AtomicU32; W] = core::array::from_fn(|_| AtomicU32::new(0));
            let mut k = 0;
            while k < W {
                let here = N - 32 * k; // slots from word k on
                let bits = if here >= 32 { u32::MAX } else { (1 << here) - 1 };
                #[cfg(not(sluicegate_loom))]
                {
                    words[k] = AtomicU32::new(bits);
                }
                #[cfg(sluicegate_loom)]
                words[k].store(bits, Ordering::Relaxed);
                k += 1;
            }
            Self {
                free: Padded::new(AtomicUsize::new(N)),
                words,
            }
        }
    }

    /// Reserves up to `want` (at least 1) slots in the count; returns how
    /// many (0: none is free).
    #[inline(always)]
    fn reserve(&self, want: usize) -> usize {
        let mut c = self.free.load(Ordering::SeqCst);
        loop {
            if c == 0 {
                return 0;
            }
            let k = c.min(want);
            match self
                .free
                .compare_exchange(c, c - k, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return k,
                Err(now) => c = now,
            }
        }
    }

    /// Claims the bit of one free slot reserved by the caller and returns
    /// its index. The reservation guarantees a set bit (a give sets its bit
    /// before it adds to the count), so the scan ends; a word found empty,
    /// or a CAS that fails, means another take claimed a bit in between.
    #[inline(always)]
    fn claim_one(&self) -> usize {
        let mut k = 0;
        loop {
            let word = &self.words[k];
            let mut w = word.load(Ordering::SeqCst);
            while w != 0 {
                match word.compare_exchange(w, w & (w - 1), Ordering::SeqCst, Ordering::SeqCst) {
                    Ok(_) => return 32 * k + w.trailing_zeros() as usize,
                    Err(now) => w = now,
                }
            }
            k = if k + 1 == W { 0 } else { k + 1 };
        }
    }

    /// [`Self::claim_one`] for `out.len()` reserved slots, taking as many
    /// of a word's set bits as are still needed with one CAS.
    fn claim_many(&self, out: &mut [usize]) {
        let mut got = 0;
        let mut k = 0;
        while got < out.len() {
            let word = &self.words[k];
            let mut w = word.load(Ordering::SeqCst);
            while w != 0 && got < out.len() {
                // The lowest set bits of `w`, as many as are still needed.
                let (mut take, mut left, mut n) = (0u32, w, got);
                while left != 0 && n < out.len() {
                    take |= left & left.wrapping_neg();
                    left &= left - 1;
                    n += 1;
                }
                match word.compare_exchange(w, left, Ordering::SeqCst, Ordering::SeqCst) {
                    Ok(_) => {
                        while take != 0 {
                            out[got] = 32 * k + take.trailing_zeros() as usize;
                            take &= take - 1;
                            got += 1;
                        }
                        w = left;
                    }
                    Err(now) => w = now,
                }
            }
            k = if k + 1 == W { 0 } else { k + 1 };
        }
    }
}

impl<const N: usize, const W: usize> FreePool<N> for FreeBits<W> {}

impl<const N: usize, const W: usize> sealed::Pool<N> for FreeBits<W> {
    #[cfg(not(sluicegate_loom))]
    #[allow(clippy::declare_interior_mutable_const)]
    const FULL: Self = Self::all::<N>();

    fn full(_start: usize) -> Self {
        Self::all::<N>()
    }

    #[inline(always)]
    fn take(&self) -> Option<usize> {
        if self.reserve(1) == 0 {
            return None;
        }
        pause_point(pause::MPMC_BITS_RESERVED);
        Some(self.claim_one())
    }

    #[inline(always)]
    fn give(&self, i: usize) {
        debug_assert!(i < N);
        self.words[i / 32].fetch_or(1 << (i % 32), Ordering::SeqCst);
        pause_point(pause::MPMC_BITS_GIVEN);
        self.free.fetch_add(1, Ordering::SeqCst);
    }

    #[inline]
    fn take_many(&self, out: &mut [usize]) -> usize {
        let got = self.reserve(out.len());
        if got > 0 {
            pause_point(pause::MPMC_BITS_RESERVED);
            self.claim_many(&mut out[..got]);
        }
        got
    }

    #[inline]
    fn give_many(&self, indices: &[usize]) {
        // One fetch-or per run of indices in the same word.
        let mut rest = indices;
        while let Some(&first) = rest.first() {
            let k = first / 32;
            let run = rest.iter().take_while(|&&i| i / 32 == k).count();
            let bits = rest[..run].iter().fold(0u32, |m, &i| {
                debug_assert!(i < N);
                m | 1 << (i % 32)
            });
            self.words[k].fetch_or(bits, Ordering::SeqCst);
            rest = &rest[run..];
        }
        if !indices.is_empty() {
            pause_point(pause::MPMC_BITS_GIVEN);
            self.free.fetch_add(indices.len(), Ordering::SeqCst);
        }
    }

    #[inline(always)]
    fn surely_none(&self) -> bool {
        // SeqCst: as the load that starts `reserve`.
        self.free.load(Ordering::SeqCst) == 0
    }

    fn free_hint(&self) -> usize {
        // Relaxed: a snapshot for the observers, ordered with nothing.
        self.free.load(Ordering::Relaxed).min(N)
    }
}
