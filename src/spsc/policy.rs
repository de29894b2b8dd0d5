//! The policy parameter of the SPSC ring: what a policy changes in the
//! shared index code (the sealed trait), and the default policy, [`Reject`].
//! [`Overwrite`](super::Overwrite) and [`Marked`](super::Marked) are in
//! their own modules.

use super::watermark::NoMarks;
#[cfg(doc)]
use super::Marked;
#[cfg(all(doc, sluicegate_cas))]
use super::Overwrite;
use crate::sync::{LoadStoreUsize, Ordering, SoloCounter};

/// The consumer's words of the overwrite protocol (see `overwrite.rs`), on
/// its line.
pub struct ClaimWords {
    /// The consumer's claim, `(first slot << CLAIM_SHIFT) | count`: stored
    /// by the consumer before the CAS that sets `BUSY`, read by the producer
    /// after a load of `head` that shows `BUSY`.
    pub(super) claim: LoadStoreUsize,
    /// Claimed items the consumer dropped at its release because the
    /// producer had lapped them (see `overwrite.rs`); part of
    /// [`RingStats::overwritten`](crate::RingStats::overwritten). Stored by
    /// the consumer only.
    pub(super) dropped: SoloCounter,
}

impl core::fmt::Debug for ClaimWords {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ClaimWords").finish_non_exhaustive()
    }
}

#[cfg(sluicegate_cas)] // made by the Overwrite policy only
impl ClaimWords {
    crate::sync::const_fn! {
        pub(super) fn new() -> Self {
            Self {
                claim: LoadStoreUsize::new(0),
                dropped: SoloCounter::new(),
            }
        }
    }
}

impl sealed::Maybe<ClaimWords> for ClaimWords {
    #[inline(always)]
    fn get(&self) -> Option<&ClaimWords> {
        Some(self)
    }
}

impl sealed::Maybe<LoadStoreUsize> for LoadStoreUsize {
    #[inline(always)]
    fn get(&self) -> Option<&LoadStoreUsize> {
        Some(self)
    }
}

impl sealed::Maybe<crate::sync::LoadStoreBool> for crate::sync::LoadStoreBool {
    #[inline(always)]
    fn get(&self) -> Option<&crate::sync::LoadStoreBool> {
        Some(self)
    }
}

pub(crate) mod sealed {
    use crate::sync::{LoadStoreUsize, Ordering};

    /// What a policy changes in the shared index code.
    pub trait Sealed {
        /// Whether the producer may evict (then `head` is CAS-ed by both
        /// sides and carries the consumer's `BUSY` flag).
        const OVERWRITES: bool;
        /// Positions are stored shifted left by this much (room for the
        /// flags).
        const SHIFT: u32 = 2 * Self::OVERWRITES as u32;
        /// The flag bit in the stored `head` while the consumer holds items.
        const BUSY: usize = Self::OVERWRITES as usize;
        /// The flag bit in the stored `head` once the producer has placed a
        /// void where the consumer holds an item (see `overwrite.rs`).
        const LAPPED: usize = 2 * Self::OVERWRITES as usize;
        /// Both flags.
        const FLAGS: usize = Self::BUSY | Self::LAPPED;
        /// Whether the ring has watermarks ([`Marked`](crate::spsc::Marked)): only then do
        /// its pushes and pops test them.
        const MARKED: bool = false;
        /// The watermark's words on the consumer's line: the real ones
        /// under [`Marked`](crate::spsc::Marked), none (a zero-sized type) under the
        /// other policies, whose rings pay no RAM for them.
        type Marks: MarkWords;
        /// The push's threshold for the watermark (see `ProducerSide`),
        /// on the producer's line: a word under `Marked`, none otherwise.
        type RaiseAt: RaiseAt;
        /// The words of a ring made without marks.
        #[cfg(not(sluicegate_loom))]
        const NO_MARKS: Self::Marks;
        /// The same under loom, whose atomics are not `const`.
        #[cfg(sluicegate_loom)]
        fn no_marks() -> Self::Marks;
        /// The threshold of a ring made without marks (no push meets it).
        const NO_RAISE: Self::RaiseAt;

        /// The consumer's words of the overwrite protocol (its claim and
        /// the items it had to drop), on the consumer's line; none (a
        /// zero-sized type) where the producer never evicts.
        type Claim: Maybe<super::ClaimWords>;
        /// The producer's count of void flags set, on its line; none where
        /// the producer never evicts.
        type VoidCount: Maybe<LoadStoreUsize>;
        /// A slot's void flag; none where the producer never evicts.
        type Void: Maybe<crate::sync::LoadStoreBool>;
        /// The claim words of a new ring.
        #[cfg(not(sluicegate_loom))]
        const NEW_CLAIM: Self::Claim;
        /// The void count of a new ring.
        #[cfg(not(sluicegate_loom))]
        const NEW_VOID_COUNT: Self::VoidCount;
        /// A slot's new void flag.
        #[cfg(not(sluicegate_loom))]
        const NEW_VOID: Self::Void;
        /// The same under loom, whose atomics are not `const`.
        #[cfg(sluicegate_loom)]
        fn new_claim() -> Self::Claim;
        /// The same under loom.
        #[cfg(sluicegate_loom)]
        fn new_void_count() -> Self::VoidCount;
        /// The same under loom.
        #[cfg(sluicegate_loom)]
        fn new_void() -> Self::Void;

        /// Loads `head`.
        fn load_head(head: &LoadStoreUsize, order: Ordering) -> usize;
        /// Stores `head`.
        fn store_head(head: &LoadStoreUsize, value: usize, order: Ordering);
        /// A CAS of `head` by the consumer (called only if `OVERWRITES`).
        fn cas_head(
            head: &LoadStoreUsize,
            current: usize,
            new: usize,
            success: Ordering,
            failure: Ordering,
        ) -> Result<usize, usize>;
        /// Clears `BUSY` and `LAPPED` in `head` (called only if
        /// `OVERWRITES`): the consumer's release.
        fn clear_flags(head: &LoadStoreUsize);
    }

    /// Words a policy may lack: `Some` only where it has them.
    pub trait Maybe<W>: Send + Sync {
        /// The words, if the policy has them.
        fn get(&self) -> Option<&W>;
    }

    /// A policy's watermark words: `Some` only where it has them.
    pub trait MarkWords: Send + Sync {
        /// The words, if the policy has them.
        fn get(&self) -> Option<&crate::spsc::watermark::Marks>;
    }

    /// A policy's push threshold for the watermark: in the ring, the high
    /// mark as a free count; in the producer, as a position.
    pub trait RaiseAt: Send + Sync {
        /// The threshold (0 where the policy has no marks).
        fn get(&self) -> usize;
        /// The position `high` (as stored positions) after `head`.
        fn at(head: usize, high: usize) -> Self;
        /// Moves the position to `high` after a new `head`.
        fn follow(&mut self, head: usize, high: usize);
    }
}

/// The watermark items of a policy without watermarks (inside its
/// `impl sealed::Sealed`): no words, no threshold.
macro_rules! unmarked {
    () => {
        type Marks = NoMarks;
        type RaiseAt = NoMarks;
        #[cfg(not(sluicegate_loom))]
        const NO_MARKS: NoMarks = NoMarks;
        #[cfg(sluicegate_loom)]
        fn no_marks() -> NoMarks {
            NoMarks
        }
        const NO_RAISE: NoMarks = NoMarks;
    };
}
#[cfg(sluicegate_cas)] // for the Overwrite policy's module
pub(super) use unmarked;

/// The overwrite protocol's items of a policy whose producer never evicts
/// (inside its `impl sealed::Sealed`): no words, no void flags, and the
/// consumer's release never called.
macro_rules! never_evicts {
    () => {
        type Claim = NoMarks;
        type VoidCount = NoMarks;
        type Void = NoMarks;
        #[cfg(not(sluicegate_loom))]
        const NEW_CLAIM: NoMarks = NoMarks;
        #[cfg(not(sluicegate_loom))]
        const NEW_VOID_COUNT: NoMarks = NoMarks;
        #[cfg(not(sluicegate_loom))]
        const NEW_VOID: NoMarks = NoMarks;
        #[cfg(sluicegate_loom)]
        fn new_claim() -> NoMarks {
            NoMarks
        }
        #[cfg(sluicegate_loom)]
        fn new_void_count() -> NoMarks {
            NoMarks
        }
        #[cfg(sluicegate_loom)]
        fn new_void() -> NoMarks {
            NoMarks
        }
        #[inline(always)]
        fn clear_flags(_: &LoadStoreUsize) {}
    };
}
pub(super) use never_evicts;

/// What a full ring does with a new item: the ring's policy parameter.
///
/// Implemented by [`Reject`], [`Marked`] (reject, with watermarks) and
/// [`Overwrite`] only.
pub trait Policy: sealed::Sealed {}

/// Policy: a full ring refuses new items (wait-free; the handles use atomic
/// loads and stores only).
#[derive(Debug)]
pub enum Reject {}

impl Policy for Reject {}

impl sealed::Sealed for Reject {
    const OVERWRITES: bool = false;
    unmarked!();
    never_evicts!();

    // Only the consumer stores `head`, with plain loads and stores (native on
    // every target, Cortex-M0 included).
    #[inline(always)]
    fn load_head(head: &LoadStoreUsize, order: Ordering) -> usize {
        head.load(order)
    }

    #[inline(always)]
    fn store_head(head: &LoadStoreUsize, value: usize, order: Ordering) {
        head.store(value, order)
    }

    #[inline(always)]
    fn cas_head(
        _: &LoadStoreUsize,
        current: usize,
        _: usize,
        _: Ordering,
        _: Ordering,
    ) -> Result<usize, usize> {
        // A Reject consumer never claims: its `claim` is a check.
        Ok(current)
    }
}
