//! The [`Overwrite`] policy: the producer may evict the oldest item to make
//! room, and never waits for the consumer. Compiled only where
//! compare-and-swap exists (the `mod` line in `spsc.rs`).
//!
//! # Protocol
//!
//! The producer must sometimes move `head` itself, so `head` becomes a shared
//! word. Positions are stored doubled (`pos << 1`) in both indices and the low
//! bit of `head` is a `BUSY` flag owned by the consumer:
//!
//! | `head` word      | meaning                               | who moves it |
//! |------------------|---------------------------------------|--------------|
//! | `h << 1`         | oldest item at `h`, nobody reading    | consumer CAS → `h<<1 \| 1` (claim); producer CAS → `(h+1) << 1` (evict) |
//! | `h << 1 \| 1`    | consumer is reading items from `h` on | consumer store → `(h+k) << 1` (release, `k` ≥ 0) |
//!
//! A pop claims by CAS (`h<<1` → `h<<1|1`), reads, then stores the advanced
//! position with `Release`, clearing the flag. `push_overwrite` on a full ring
//! evicts by CAS (`h<<1` → `(h+1)<<1`), reading the evicted item and writing
//! the new one into the same slot. The CAS decides who owns slot `h`:
//! whoever changes the word first. When its cached copy of `head` says full,
//! the producer CASes straight from that copy instead of loading `head`
//! first: the copy is never ahead of the real head, so the CAS succeeds
//! exactly when the ring really is full with nobody reading, and a failure
//! returns the real word, which says whether the consumer freed a slot or is
//! reading the oldest. The producer never writes `head` while `BUSY` is set,
//! so the consumer's release is a plain store.
//!
//! The producer's steps are bounded: a failed eviction CAS means the consumer
//! either claimed the oldest item (then the new item is rejected) or finished
//! a pop (then there is room). The consumer's claim retries only after an
//! eviction moved `head`, so it is lock-free.
//!
//! # Orderings
//!
//! The eviction CAS uses `Acquire` on success and on failure, because either
//! way the producer goes on to reuse a slot the consumer may have just read,
//! and the consumer's `Release` store of `head` is what publishes the end of
//! that read. A successful claim CAS is `Relaxed`: the data it reads was
//! published by the `tail` store it already acquired, and the slot cannot be
//! reused while the claim is held. A failed claim CAS hands the consumer a
//! head moved on by evictions, possibly past every `tail` value it has seen;
//! so the eviction CAS is also `Release` and the failed claim `Acquire`: the
//! `tail` store that filled the ring before an eviction is then visible to the
//! consumer's next load of `tail`, which is never behind the head it got.
//! Without that pairing a consumer on a weak memory model could claim
//! positions past the last `tail` it acquired and read slots being written.
//!
//! # Wrap-around and ABA
//!
//! Stored positions wrap at 2^31 on 32-bit targets. An ABA on `head` would
//! need 2^31 evictions between a consumer's load and its CAS; even then the
//! CAS would claim the item that is the oldest at that moment, which is
//! correct.

use core::mem::MaybeUninit;

use super::policy::unmarked;
use super::sealed::{self, Sealed as _};
use super::watermark::NoMarks;
use super::{Policy, Producer, Ring};
use crate::sync::{pause, pause_point, rmw_view, LoadStoreUsize, Ordering};
use crate::Overwritten;

/// Policy: the producer may also evict the oldest item to make room
/// ([`Producer::push_overwrite`]). Needs compare-and-swap (native, or the
/// `portable-atomic` feature).
#[derive(Debug)]
pub enum Overwrite {}

impl Policy for Overwrite {}

impl sealed::Sealed for Overwrite {
    const OVERWRITES: bool = true;
    unmarked!();

    // Every concurrent access of an Overwrite ring's `head` goes through the
    // CAS-capable view (see `sync::rmw_view`).
    #[inline(always)]
    fn load_head(head: &LoadStoreUsize, order: Ordering) -> usize {
        rmw_view(head).load(order)
    }

    #[inline(always)]
    fn store_head(head: &LoadStoreUsize, value: usize, order: Ordering) {
        rmw_view(head).store(value, order)
    }

    #[inline(always)]
    fn claim_cas(head: &LoadStoreUsize, current: usize, new: usize) -> Result<usize, usize> {
        // Success, Relaxed: the items were published by the tail store the
        // consumer already acquired; the CAS only decides who owns slot
        // `current`. Failure, Acquire: the word read was written by the
        // producer's eviction CAS (Release), so the `tail` stores before it
        // are visible to our next load of `tail`, which therefore is not
        // behind the new head (see "Orderings").
        rmw_view(head).compare_exchange(current, new, Ordering::Relaxed, Ordering::Acquire)
    }
}

#[cfg_attr(
    docsrs,
    doc(cfg(any(target_has_atomic = "ptr", feature = "portable-atomic")))
)]
impl<T, const N: usize> Producer<'_, T, N, Overwrite> {
    /// Pushes `item`, evicting the oldest item if the ring is full. Never
    /// waits for the consumer; wait-free.
    ///
    /// Returns [`Overwritten::Stored`] if there was room,
    /// [`Overwritten::Evicted`] with the oldest item if the ring was full
    /// (counted in [`RingStats::overwritten`](crate::RingStats::overwritten)),
    /// or, only when the ring is full *and* the consumer is at that moment
    /// reading the oldest item (inside a pop, or holding a read chunk or a
    /// peek guard), [`Overwritten::Rejected`] with the new item itself
    /// (counted in [`RingStats::rejected`](crate::RingStats::rejected)).
    ///
    /// ```
    /// use sluicegate::spsc::{Overwrite, Ring};
    /// use sluicegate::Overwritten;
    ///
    /// let mut ring: Ring<u32, 2, Overwrite> = Ring::new();
    /// let (mut tx, mut rx) = ring.split();
    /// assert_eq!(tx.push_overwrite(1), Overwritten::Stored);
    /// assert_eq!(tx.push_overwrite(2), Overwritten::Stored);
    /// assert_eq!(tx.push_overwrite(3), Overwritten::Evicted(1));
    /// // While the consumer holds the oldest item, the new one is handed back.
    /// let held = rx.peek().unwrap();
    /// assert_eq!(tx.push_overwrite(4), Overwritten::Rejected(4));
    /// assert_eq!(held.pop(), 2);
    /// assert_eq!(rx.try_pop(), Some(3));
    /// ```
    // With `async` the wake-up check makes it just too big for LLVM to
    // inline by itself (+7 instructions per call on x86-64).
    #[cfg_attr(feature = "async", inline)]
    pub fn push_overwrite(&mut self, item: T) -> Overwritten<T> {
        let ring = self.ring;
        if self.tail.wrapping_sub(self.head) == Ring::<T, N, Overwrite>::FULL {
            // The cached head says full. Rather than load head and then CAS
            // it (two transfers of the consumer's cache line when it is
            // busy), CAS straight from the cached value: it succeeds iff the
            // consumer has not moved since, and a failure returns the real
            // head, which tells us whether there is room after all.
            let h = self.head; // flag cleared; never ahead of the real head
            pause_point(pause::SPSC_EVICT);
            // Acquire (both ways): we go on to reuse a slot the consumer may
            // just have read; its Release store of head published that.
            // Release on success: a consumer whose claim fails on the new
            // head acquires our earlier tail stores with it.
            match rmw_view(&ring.head.pos).compare_exchange(
                h,
                h.wrapping_add(Ring::<T, N, Overwrite>::STEP),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    // We own slot h, which is also where position tail goes.
                    debug_assert_eq!(
                        Ring::<T, N, Overwrite>::index(h),
                        Ring::<T, N, Overwrite>::index(self.tail)
                    );
                    let old = ring.slot(h).with_mut(|p| {
                        // SAFETY: position h was published and the CAS made us
                        // its only owner; we replace it with the new item.
                        unsafe { core::mem::replace(&mut *p, MaybeUninit::new(item)).assume_init() }
                    });
                    self.head = h.wrapping_add(Ring::<T, N, Overwrite>::STEP);
                    ring.producer.overwritten.add(1);
                    ring.publish(&mut self.tail, 1);
                    return Overwritten::Evicted(old);
                }
                Err(actual) => {
                    self.head = actual & !Overwrite::BUSY;
                    if self.tail.wrapping_sub(self.head) == Ring::<T, N, Overwrite>::FULL {
                        // Still full, so head did not move: the consumer set
                        // BUSY and is reading the oldest item. Reject the new one.
                        debug_assert!(actual & Overwrite::BUSY != 0);
                        ring.producer.rejected.add(1);
                        return Overwritten::Rejected(item);
                    }
                    // The consumer finished a pop: there is room now.
                }
            }
        }
        // SAFETY: the cached head shows a free slot at tail (checked above, or
        // the failed CAS returned a head that frees one), unread until publish.
        unsafe { self.write_slot(self.tail, item) };
        ring.publish(&mut self.tail, 1);
        Overwritten::Stored
    }
}
