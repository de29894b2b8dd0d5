//! The peek guard: a one-item [`ReadChunk`] that dereferences to the oldest
//! item. Not built under loom (it hands out a reference into a slot, which
//! loom's cells cannot).

use super::{Policy, ReadChunk};

/// The oldest item of a ring, held in place (see
/// [`Consumer::peek`](super::Consumer::peek)). Dereferences to the item;
/// [`pop`](Self::pop) takes it; dropping the guard leaves it in the ring
/// (under [`Overwrite`](super::Overwrite), unless the producer evicted or
/// skipped past it meanwhile: then it is dropped and counted as
/// overwritten).
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
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<&str, 2> = sluicegate::spsc::Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// tx.try_push("job").unwrap();
    /// if let Some(oldest) = rx.peek() {
    ///     if oldest.starts_with('j') {
    ///         assert_eq!(oldest.pop(), "job");
    ///     }
    /// }
    /// assert!(rx.is_empty());
    /// ```
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

/// `Peek(..)`: does not need `T: Debug`.
impl<T, const N: usize, P: Policy> core::fmt::Debug for Peek<'_, T, N, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Peek(..)")
    }
}
