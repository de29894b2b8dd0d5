//! The policy parameter of the SPSC ring: what a policy changes in the
//! shared index code (the sealed trait), and the default policy, [`Reject`].
//! [`Overwrite`](super::Overwrite) and [`Marked`](super::Marked) are in
//! their own modules.

use super::watermark::NoMarks;
#[cfg(doc)]
use super::Marked;
#[cfg(all(doc, sluicegate_cas))]
use super::Overwrite;
use crate::sync::{LoadStoreUsize, Ordering};

pub(crate) mod sealed {
    use crate::sync::{LoadStoreUsize, Ordering};

    /// What a policy changes in the shared index code.
    pub trait Sealed {
        /// Whether the producer may evict (then `head` is CAS-ed by both
        /// sides and carries the consumer's `BUSY` flag).
        const OVERWRITES: bool;
        /// Positions are stored shifted left by this much (room for the flag).
        const SHIFT: u32 = Self::OVERWRITES as u32;
        /// The flag bit in the stored `head` while the consumer holds items.
        const BUSY: usize = Self::OVERWRITES as usize;
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

        /// Loads `head`.
        fn load_head(head: &LoadStoreUsize, order: Ordering) -> usize;
        /// Stores `head`.
        fn store_head(head: &LoadStoreUsize, value: usize, order: Ordering);
        /// The consumer's claim CAS on `head` (called only if `OVERWRITES`).
        fn claim_cas(head: &LoadStoreUsize, current: usize, new: usize) -> Result<usize, usize>;
    }

    /// A policy's watermark words: `Some` only where it has them.
    pub trait MarkWords: Send + Sync {
        /// The words, if the policy has them.
        fn get(&self) -> Option<&crate::spsc::watermark::Marks>;
    }

    /// A policy's push threshold for the watermark.
    pub trait RaiseAt: Send + Sync {
        /// The threshold (0 where the policy has no marks).
        fn get(&self) -> usize;
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
    fn claim_cas(_: &LoadStoreUsize, current: usize, _: usize) -> Result<usize, usize> {
        // A Reject consumer never claims: its `claim` is a check.
        Ok(current)
    }
}
