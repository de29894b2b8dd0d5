//! The free pool of a [`Ring`](super::Ring): where a push finds a free slot
//! and where a pop gives its slot back. The ring's third parameter picks it.
//!
//! | pool | holds | RAM | per push + pop pair | for |
//! |------|-------|-----|---------------------|-----|
//! | [`FreeIndices<N>`] (the default) | an SCQ ring of free slot indices, `2N` entries | `2N` words + 3 counters | 2 fetch-and-adds and 2 entry updates, plus `threshold` | any `N` |
//! | [`FreeMask`] | one word, bit `i` set while slot `i` is free | 1 word | one CAS and one fetch-or | `N <= usize::BITS` |
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

use super::scq::IndexRing;
use crate::sync::{pause, pause_point, AtomicUsize, Ordering, Padded};

/// A free pool of a [`Ring`](super::Ring): [`FreeIndices<N>`] (the default)
/// or [`FreeMask`] (for `N <= usize::BITS`). Sealed: the ring's guarantees
/// rest on the two pools' arguments ([module docs](self)).
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
        /// Gives slot `i` back; its holder read (or never wrote) it.
        fn give(&self, i: usize);
        /// Takes up to `out.len()` free indices into `out`; returns how many.
        fn take_many(&self, out: &mut [usize]) -> usize;
        /// Gives back every slot of `indices`.
        fn give_many(&self, indices: &[usize]);
    }
}

/// The default free pool: an SCQ ring of free slot indices (`2N` entries),
/// for any `N`. See the [module docs](self).
pub struct FreeIndices<const N: usize>(IndexRing<N, true>);

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
    fn give(&self, i: usize) {
        self.0.enqueue(i);
    }

    #[inline(always)]
    fn take_many(&self, out: &mut [usize]) -> usize {
        self.0.dequeue_many(out).map_or(0, |(got, _)| got)
    }

    #[inline(always)]
    fn give_many(&self, indices: &[usize]) {
        self.0.enqueue_many(indices, None);
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
}
