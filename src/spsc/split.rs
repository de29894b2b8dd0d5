//! Splitting a ring into its handles, which of them are alive, and dropping
//! the ring with the items it still holds.

use super::sealed::RaiseAt;
use super::{Consumer, Policy, Producer, Ring};
#[cfg(sluicegate_cas)]
use crate::sync::AtomicUsize;
use crate::sync::{const_fn, Ordering};

impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// Splits the ring into its two handles. The `&mut` borrow guarantees no
    /// other handle is alive; after both are dropped the ring can be split
    /// again, and the items they left are still inside.
    /// Loads and stores only: available on every target, Cortex-M0 included.
    ///
    /// ```
    /// let mut ring: sluicegate::spsc::Ring<u8, 4> = sluicegate::spsc::Ring::new();
    /// {
    ///     let (mut tx, _rx) = ring.split();
    ///     tx.try_push(1).unwrap();
    /// }
    /// // Both handles are gone: split again, and the item is still there.
    /// let (_tx, mut rx) = ring.split();
    /// assert_eq!(rx.try_pop(), Some(1));
    /// ```
    pub fn split(&mut self) -> (Producer<'_, T, N, P>, Consumer<'_, T, N, P>) {
        self.live.set_both();
        self.handles()
    }

    /// Splits a shared (e.g. `static`) ring: returns the two handles if
    /// neither is alive, else `None`. Once both handles are dropped the ring
    /// can be split again, and the items they left are still inside (a
    /// restarted task gets fresh handles); a handle that is leaked
    /// (`mem::forget`) keeps the ring split for good. Needs compare-and-swap
    /// (native, or the `portable-atomic` feature on targets such as thumbv6m).
    ///
    /// ```
    /// use sluicegate::spsc::Ring;
    ///
    /// static RING: Ring<u32, 8> = Ring::new();
    /// let (mut tx, rx) = RING.try_split().expect("first split");
    /// assert!(RING.try_split().is_none()); // while a handle lives
    /// tx.try_push(7).unwrap();
    /// drop((tx, rx));
    /// let (_tx, mut rx) = RING.try_split().expect("both handles were dropped");
    /// assert_eq!(rx.try_pop(), Some(7)); // left by the first handles
    /// ```
    #[cfg(sluicegate_cas)]
    #[cfg_attr(
        docsrs,
        doc(cfg(any(target_has_atomic = "ptr", feature = "portable-atomic")))
    )]
    pub fn try_split(&self) -> Option<(Producer<'_, T, N, P>, Consumer<'_, T, N, P>)> {
        if self.live.try_take() {
            Some(self.handles())
        } else {
            None
        }
    }

    /// Stands in for `try_split` where compare-and-swap is missing:
    /// a call is a compile error that names the `portable-atomic` feature.
    #[cfg(not(sluicegate_cas))]
    #[doc(hidden)]
    pub fn try_split(&self) -> Option<(Producer<'_, T, N, P>, Consumer<'_, T, N, P>)>
    where
        Self: crate::sync::CompareAndSwap,
    {
        // Nothing implements `CompareAndSwap`: this is never called.
        unreachable!()
    }

    pub(super) fn handles(&self) -> (Producer<'_, T, N, P>, Consumer<'_, T, N, P>) {
        // Acquire: a ring split again after `split(&mut)` sees the items the
        // earlier handles left (the `&mut` already orders it; this is cheap).
        let head = self.load_head(Ordering::Acquire) & !P::FLAGS;
        // The consumer keeps the word's `VOIDS_SEEN` bit; the producer's
        // position has none.
        let word = self.producer.tail.load(Ordering::Acquire);
        let tail = Self::tail_position(word);
        // The new consumer starts from this view of `tail` without looking
        // again: count what it sees as a look.
        let len = tail.wrapping_sub(head) >> P::SHIFT;
        self.note_peak(len - self.voids_among(head, len));
        (
            Producer {
                ring: self,
                tail,
                head,
                raise_pos: <P::RaiseAt as RaiseAt>::at(head, self.high() << P::SHIFT),
            },
            Consumer {
                ring: self,
                head,
                tail: word,
            },
        )
    }
}

/// Which of a ring's handles are alive.
///
/// Where compare-and-swap exists, one word: bit [`Live::PRODUCER`] and bit
/// [`Live::CONSUMER`]. A split sets both (by CAS from `0` for
/// [`Ring::try_split`], so only one caller wins); each handle's `Drop` clears
/// its own bit with one `fetch_and`, so the word returns to `0` exactly when
/// the second handle goes, and a new split can win. The `Release` half of
/// that `fetch_and` orders the handle's last index store before it, and the
/// `Acquire` of the split's CAS (and of [`Live::alive`]) orders it before
/// what the new handle or the other side reads next.
///
/// Without compare-and-swap (only `split(&mut)` exists there), one flag per
/// side, each stored only by its own handle.
pub(super) struct Live {
    #[cfg(sluicegate_cas)]
    word: AtomicUsize,
    #[cfg(not(sluicegate_cas))]
    flags: [core::sync::atomic::AtomicBool; 2],
}

impl Live {
    pub(super) const PRODUCER: usize = 1;
    pub(super) const CONSUMER: usize = 2;
    #[cfg(sluicegate_cas)]
    const BOTH: usize = Self::PRODUCER | Self::CONSUMER;

    const_fn! {
        pub(super) fn new() -> Self {
            Self {
                #[cfg(sluicegate_cas)]
                word: AtomicUsize::new(0),
                #[cfg(not(sluicegate_cas))]
                flags: [
                    core::sync::atomic::AtomicBool::new(false),
                    core::sync::atomic::AtomicBool::new(false),
                ],
            }
        }
    }

    /// Both handles are being made by `split(&mut)` (no handle is alive).
    pub(super) fn set_both(&self) {
        #[cfg(sluicegate_cas)]
        self.word.store(Self::BOTH, Ordering::Relaxed);
        #[cfg(not(sluicegate_cas))]
        for f in &self.flags {
            f.store(true, Ordering::Relaxed);
        }
    }

    /// Marks both handles alive if neither is; whether it did.
    #[cfg(sluicegate_cas)]
    pub(super) fn try_take(&self) -> bool {
        self.word
            .compare_exchange(0, Self::BOTH, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// The handle `side` ([`Self::PRODUCER`] or [`Self::CONSUMER`]) is gone.
    pub(super) fn drop_side(&self, side: usize) {
        #[cfg(sluicegate_cas)]
        self.word.fetch_and(!side, Ordering::AcqRel);
        #[cfg(not(sluicegate_cas))]
        self.flags[side - 1].store(false, Ordering::Release);
    }

    /// Whether the handle `side` is alive.
    pub(super) fn alive(&self, side: usize) -> bool {
        #[cfg(sluicegate_cas)]
        {
            self.word.load(Ordering::Acquire) & side != 0
        }
        #[cfg(not(sluicegate_cas))]
        {
            self.flags[side - 1].load(Ordering::Acquire)
        }
    }
}

impl<T, const N: usize, P: Policy> Drop for Ring<T, N, P> {
    fn drop(&mut self) {
        if !core::mem::needs_drop::<T>() {
            return;
        }
        // `&mut self`: no handle is alive (they borrow the ring), so plain
        // reads are fine. A forgotten read guard may have left BUSY set:
        // its items are past `head` and left undropped, as forgotten.
        let mut left = Leftovers {
            ring: self,
            pos: self.load_head(Ordering::Relaxed) & !P::FLAGS,
            tail: Ring::<T, N, P>::tail_position(self.producer.tail.load(Ordering::Relaxed)),
        };
        // If an item's `Drop` panics, unwinding drops `left`, which drops
        // the items after it (a second panic then aborts, as in `Vec`).
        left.drop_all();
    }
}

/// The items a dropped ring still holds, stored positions `pos..tail`.
struct Leftovers<'r, T, const N: usize, P: Policy> {
    ring: &'r Ring<T, N, P>,
    pos: usize,
    tail: usize,
}

impl<T, const N: usize, P: Policy> Leftovers<'_, T, N, P> {
    fn drop_all(&mut self) {
        while self.pos != self.tail {
            let pos = self.pos;
            // Advanced before the drop, so a panicking item is not dropped again.
            self.pos = pos.wrapping_add(Ring::<T, N, P>::STEP);
            if self.ring.is_void(pos) {
                continue;
            }
            self.ring.slot(pos).with_mut(|p| {
                // SAFETY: positions in [head, tail) of a ring being dropped
                // hold initialised items that nobody else can reach; `pos`
                // moved past this one first, so each is dropped once.
                unsafe { (*p).assume_init_drop() }
            });
        }
    }
}

impl<T, const N: usize, P: Policy> Drop for Leftovers<'_, T, N, P> {
    fn drop(&mut self) {
        self.drop_all();
    }
}

// Index moves shared by the single-item, batch and chunk paths.
