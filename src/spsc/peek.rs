//! The peek guard of an [`Overwrite`](super::Overwrite) ring: a one-item
//! [`ReadChunk`] that dereferences to the item. Built only where the
//! `Overwrite` policy exists (compare-and-swap) and outside loom (it hands
//! out a reference into a slot, which loom's cells cannot).

use super::{Policy, ReadChunk};

/// The oldest item of an [`Overwrite`](super::Overwrite) ring, held in place
/// (see [`Consumer::peek`](super::Consumer::peek)). Dereferences to the item;
/// [`pop`](Self::pop) takes it.
///
/// `Send` where `T: Send`; `Sync` only where `T: Send + Sync` (it derefs to
/// `&T`), both inherited from the [`ReadChunk`] inside.
pub struct Peek<'c, T, const N: usize, P: Policy>(ReadChunk<'c, T, N, P>);

impl<'c, T, const N: usize, P: Policy> Peek<'c, T, N, P> {
    pub(super) fn new(chunk: ReadChunk<'c, T, N, P>) -> Option<Self> {
        if chunk.is_empty() {
            None
        } else {
            Some(Self(chunk))
        }
    }

    /// Removes the item from the ring and returns it.
    pub fn pop(self) -> T {
        let mut chunk = self.0;
        chunk.freed = 1;
        chunk.ring.slot(*chunk.head).with(|p| {
            // SAFETY: the chunk claims this published item, and `freed`
            // counts it as gone, so it is moved out exactly once: dropping
            // the chunk after this read frees the slot and ends the claim.
            unsafe { (*p).assume_init_read() }
        })
    }
}

impl<T, const N: usize, P: Policy> core::ops::Deref for Peek<'_, T, N, P> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.as_slices().0[0]
    }
}
