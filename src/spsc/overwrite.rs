//! The [`Overwrite`] policy: the producer may evict the oldest item to make
//! room, and never waits for the consumer. Compiled only where
//! compare-and-swap exists (the `mod` line in `spsc.rs`).
//!
//! # Protocol
//!
//! The producer must sometimes move `head` itself, so `head` becomes a shared
//! word. Positions are stored times four in both indices; the low two bits
//! of `head` are flags:
//!
//! | `head` word            | meaning | who moves it |
//! |------------------------|---------|--------------|
//! | `h << 2`               | oldest unread position `h`, nobody reading | consumer CAS → `(h+k) << 2 \| BUSY` (claim `k` items); producer CAS → `(h+1) << 2` (evict) |
//! | `h << 2 \| BUSY`       | the consumer holds a run of slots behind `h` (the claim word says which) | producer CAS → `(h+1) << 2 \| BUSY` (evict past the claim) or `\| LAPPED` (void in a held slot); consumer `fetch_and` → flags cleared (release), or CAS → back to the claim's start (give back) |
//! | `h << 2 \| BUSY \| LAPPED` | the same, and the producer has placed a void in a held slot | as above, but no give-back |
//!
//! **Claim.** The consumer stores the claim word, `(first slot, count)`, and
//! then CASes `head` from the claim's first position past its last one with
//! `BUSY` set. The claimed items are out of the ring at once; only their
//! slots stay held until the release, which clears the flags (one
//! `fetch_and`). A claim that takes fewer than it claimed (a chunk
//! committed in part, a peek guard dropped) gives the rest back with a CAS
//! from exactly the word its claim made; if that word has changed, the
//! producer has lapped the rest (it evicted newer items past them, or placed
//! voids in their slots), so they go the way of the oldest: the consumer
//! drops them and counts them as overwritten.
//!
//! **Voids.** When the slot of the producer's next position is held, the
//! producer does not wait, refuse or displace: it marks that position
//! *void* and takes the next one. A void holds no item. Each slot has a
//! void flag, stored only by the producer, meaning "the latest position
//! placed in this slot is a void"; the producer clears it when it next
//! places a real item there, before publishing it, and keeps a count of the
//! flags set, so that with none set (the usual case) neither side reads a
//! flag. The consumer passes voids at the front with a CAS of `head`, as it
//! would take items, and a claim ends at the first void (a chunk is
//! contiguous); the producer passes them when it needs their slots. Each
//! void is validated by a CAS that sets `LAPPED` on the `head` word the
//! producer read: it proves that the claim it read is still held, and it
//! forbids the give-back that would put an item behind the void.
//!
//! **Eviction.** A full ring (the position `N` before the producer's next
//! is not yet read) has its oldest unread items evicted by CAS, passing
//! voids in front; `BUSY` and `LAPPED` are kept. So `push_overwrite`
//! stores the new item and evicts the oldest item no consumer holds, for
//! any claim of fewer than `N` items; only a consumer holding all `N` slots
//! makes it hand the new item back ([`Overwritten::Rejected`]).
//!
//! **The producer's cached head** is never past the oldest held position:
//! it is updated only from a `head` word without `BUSY`, or from its own
//! eviction of such a word. So its fast path ("room by the cached head")
//! still means a free slot, and `try_push`, the batches and the write chunks
//! (which never void or evict) count room past a claim from the claim word.
//!
//! # Progress
//!
//! The producer is wait-free: a push makes at most `2 N + 16` attempts,
//! each a load of `head` and at most one CAS. A claim of `k` slots costs it
//! `k` voids per lap and a pass of them; a consumer that pops meanwhile
//! costs it at most two attempts (a release always leaves room without a
//! CAS); only a consumer that claims and gives back within the push can
//! make it retry, and after four give-backs it hands the new item back. The
//! consumer is lock-free: a claim retries only when the producer moved
//! `head`.
//!
//! # Orderings
//!
//! - The claim word is stored before the claim CAS, which is `Release`; a
//!   producer that loads `head` with `Acquire` and sees `BUSY` then reads
//!   that claim's word or a later one, and a later one exists only once
//!   that claim has ended. Every producer decision taken from the claim
//!   word is either validated by a CAS of the `head` word it read (void,
//!   eviction, passing voids) or safe with any later claim word (a later
//!   claim holds only positions at or after the head it read). In the
//!   second case the producer may reuse the slots of the claim it saw
//!   `BUSY` for without having acquired that claim's release: so the word
//!   is stored `Release` and loaded `Acquire`, and reading a later word
//!   orders the end of the earlier claim (program order before its store)
//!   before the producer's writes (with `Relaxed`, a consumer that pops
//!   twice while the producer pushes races with it: the loom model
//!   `loom_spsc_overwrite_against_two_claims` fails).
//! - The release's `fetch_and`, a give-back CAS and a pass of voids are
//!   `Release`: the consumer's reads of the freed slots happen before the
//!   producer's `Acquire` load or CAS of `head` that lets it reuse them.
//! - The eviction CAS is `AcqRel` on success and `Acquire` on failure: the
//!   producer goes on to reuse a slot the consumer may have just read, and a
//!   consumer whose claim CAS fails on the new head acquires (failure
//!   `Acquire`) the `tail` stores before the eviction, so its next load of
//!   `tail` is not behind that head.
//! - Void flags and their count are `Relaxed`: a flag is stored before the
//!   `tail` store (`Release`) that publishes its position, and read after
//!   the `tail` load (`Acquire`) that covers it; it changes only once its
//!   position is passed, after which a reader's CAS from the older head
//!   fails.
//!
//! # Wrap-around and ABA
//!
//! Stored positions wrap at 2^30 on 32-bit targets. An ABA on `head` would
//! need 2^30 evictions between a load and a CAS; the claim word holds a
//! slot and a count in half a word each, so an `Overwrite` ring has at most
//! 2^15 slots on 32-bit targets (checked at compile time).

use core::mem::MaybeUninit;

use super::policy::{unmarked, ClaimWords};
use super::sealed::{self, Sealed as _};
use super::watermark::NoMarks;
use super::{Policy, Producer, Ring};
use crate::sync::{pause, pause_point, rmw_view, LoadStoreBool, LoadStoreUsize, Ordering};
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
    type Claim = ClaimWords;
    type VoidCount = LoadStoreUsize;
    type Void = LoadStoreBool;
    #[cfg(not(sluicegate_loom))]
    const NEW_CLAIM: ClaimWords = ClaimWords::new();
    #[cfg(not(sluicegate_loom))]
    const NEW_VOID_COUNT: LoadStoreUsize = LoadStoreUsize::new(0);
    #[cfg(not(sluicegate_loom))]
    const NEW_VOID: LoadStoreBool = LoadStoreBool::new(false);
    #[cfg(sluicegate_loom)]
    fn new_claim() -> ClaimWords {
        ClaimWords::new()
    }
    #[cfg(sluicegate_loom)]
    fn new_void_count() -> LoadStoreUsize {
        LoadStoreUsize::new(0)
    }
    #[cfg(sluicegate_loom)]
    fn new_void() -> LoadStoreBool {
        LoadStoreBool::new(false)
    }

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
    fn cas_head(
        head: &LoadStoreUsize,
        current: usize,
        new: usize,
        success: Ordering,
        failure: Ordering,
    ) -> Result<usize, usize> {
        rmw_view(head).compare_exchange(current, new, success, failure)
    }

    #[inline(always)]
    fn clear_flags(head: &LoadStoreUsize) {
        // Release: the consumer's reads of the slots it held come before
        // the producer's reuse of them (see "Orderings").
        rmw_view(head).fetch_and(!Self::FLAGS, Ordering::Release);
    }
}

/// Give-backs within one push after which it hands its item back (see
/// "Progress").
const MAX_GIVE_BACKS: u32 = 4;
/// A push's attempts beyond the `2 N` that voids and passes can take (see
/// "Progress").
const MAX_STEPS: usize = 16;

#[cfg_attr(
    docsrs,
    doc(cfg(any(target_has_atomic = "ptr", feature = "portable-atomic")))
)]
impl<T, const N: usize> Producer<'_, T, N, Overwrite> {
    /// Pushes `item`, evicting the oldest item no read holds if the ring is
    /// full. Never waits for the consumer; wait-free (at most `2 N + 16` steps).
    ///
    /// Returns [`Overwritten::Stored`] if there was room,
    /// [`Overwritten::Evicted`] with the oldest unread item if the ring was
    /// full (counted in
    /// [`RingStats::overwritten`](crate::RingStats::overwritten)). While the
    /// consumer is reading (inside a pop, or holding a read chunk or a peek
    /// guard), the slots it holds are skipped, not waited for: the new item
    /// is still stored, and the oldest item it does not hold is evicted.
    /// The new item comes back in [`Overwritten::Rejected`] (counted in
    /// [`RingStats::rejected`](crate::RingStats::rejected)) only when the
    /// consumer holds all `N` slots, or gives items back (a peek guard
    /// dropped, a chunk committed in part) four times within this one push.
    ///
    /// A read guard given back after the producer lapped it (evicted newer
    /// items past it, or skipped its slot) cannot put its items back: they
    /// are dropped and counted as overwritten too.
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
    /// // The consumer holds 2; the new item is still stored, and 3 (the
    /// // oldest item not held) makes room.
    /// let held = rx.peek().unwrap();
    /// assert_eq!(tx.push_overwrite(4), Overwritten::Evicted(3));
    /// assert_eq!(held.pop(), 2);
    /// assert_eq!(rx.try_pop(), Some(4));
    /// ```
    // Too big for LLVM to inline by itself with the eviction path (+12
    // instructions per call on x86-64, call and frame); the long way is a
    // call of its own.
    #[inline]
    pub fn push_overwrite(&mut self, item: T) -> Overwritten<T> {
        let ring = self.ring;
        let h = self.head;
        if self.tail.wrapping_sub(h) < Ring::<T, N, Overwrite>::FULL {
            // SAFETY: the cached head (never past a held slot) shows the
            // slot at tail free, unread until publish.
            unsafe { self.write_slot(self.tail, item) };
            ring.commit(&mut self.tail, 1);
            return self.wake_consumer_then(Overwritten::Stored);
        }
        if self.tail.wrapping_sub(h) == Ring::<T, N, Overwrite>::FULL
            && ring.producer.void_count.load(Ordering::Relaxed) == 0
        {
            // Full by the cached head, and no void anywhere: if `head`
            // still reads `h` (no flag: nobody reading), the oldest item is
            // at `h`, real, in slot(tail). Rather than load head and then
            // CAS it (two transfers of the consumer's line when it is
            // busy), CAS straight from `h`; a failure goes the long way.
            pause_point(pause::SPSC_EVICT);
            // AcqRel: we reuse a slot the consumer may just have read (its
            // release published that), and a consumer whose claim fails on
            // the new head acquires our tail stores with it.
            if Overwrite::cas_head(
                &ring.head.pos,
                h,
                h.wrapping_add(Ring::<T, N, Overwrite>::STEP),
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
            {
                let old = ring.slot(h).with_mut(|p| {
                    // SAFETY: position h was published and the CAS made us
                    // its only owner; its slot is slot(tail), where the new
                    // item goes, unread until publish.
                    unsafe { core::mem::replace(&mut *p, MaybeUninit::new(item)).assume_init() }
                });
                self.head = h.wrapping_add(Ring::<T, N, Overwrite>::STEP);
                ring.producer.overwritten.add(1);
                ring.commit(&mut self.tail, 1);
                return self.wake_consumer_then(Overwritten::Evicted(old));
            }
        }
        self.push_full(item)
    }

    /// `push_overwrite` once the cached head says full and the short way
    /// failed.
    #[cold]
    #[inline(never)]
    fn push_full(&mut self, item: T) -> Overwritten<T> {
        let ring = self.ring;
        let step = Ring::<T, N, Overwrite>::STEP;
        let full = Ring::<T, N, Overwrite>::FULL;
        // Give-backs seen (the head moved back), and attempts left.
        let mut backs = 0;
        let mut last = None;
        for _ in 0..MAX_STEPS + 2 * N {
            let t = self.tail;
            pause_point(pause::SPSC_EVICT);
            // Acquire: pairs with the consumer's Release (release, give-back,
            // pass of voids, claim): its reads of the slots we may reuse are
            // finished, and a `BUSY` word's claim word is visible.
            let word = ring.load_head(Ordering::Acquire);
            let h = word & !Overwrite::FLAGS;
            let flags = word & Overwrite::FLAGS;
            if let Some(before) = last.replace(h) {
                if (before.wrapping_sub(h) as isize) > 0 {
                    backs += 1;
                    if backs >= MAX_GIVE_BACKS {
                        break;
                    }
                }
            }
            let cas = |new: usize| {
                // Success, AcqRel: we may reuse what the consumer just read,
                // and a consumer whose claim fails on `new` acquires our
                // tail stores. Failure, Acquire: we go on from what we read.
                Overwrite::cas_head(
                    &ring.head.pos,
                    word,
                    new,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                )
            };
            if flags != 0 {
                // After the Acquire above: see "Orderings".
                let (first, k) = ring.claim_run();
                if k >= N {
                    // The consumer holds every slot: nothing can go.
                    break;
                }
                if Ring::<T, N, Overwrite>::in_run(Ring::<T, N, Overwrite>::index(t), first, k) {
                    // Slot(t) is held.
                    if t.wrapping_sub(h) >= full {
                        // Its previous position is at the front, a void
                        // placed while the slot was held: pass the voids
                        // there (0 only if `word` is stale).
                        let v = ring.voids_from(h, N);
                        if v > 0 {
                            let _ = cas(h.wrapping_add(v * step) | flags);
                        }
                    } else if cas(word | Overwrite::LAPPED).is_ok() {
                        // The claim we read is still held: position t is a void.
                        ring.set_void(t);
                        self.tail = t.wrapping_add(step);
                    }
                    continue;
                }
            }
            if t.wrapping_sub(h) < full {
                // Room: slot(t)'s previous position is read, evicted or
                // passed (a held one was caught above).
                if flags == 0 {
                    self.head = h;
                }
                // SAFETY: slot(t)'s previous position `t - N` is before `h`
                // and not in the consumer's claim, so it was read, evicted or
                // passed: the slot is free, and unread until publish.
                unsafe { self.write_slot(t, item) };
                ring.publish(&mut self.tail, 1);
                return Overwritten::Stored;
            }
            // Full: pass the voids from `h`; if that leaves slot(t)'s
            // previous position behind, nothing needs evicting, else evict
            // the first real item, the oldest that no read holds.
            let v = ring.voids_from(h, N);
            let past = h.wrapping_add(v * step);
            // `t - past` is at most `N` (the ring never holds more positions),
            // so an eviction frees exactly slot(t).
            let evict = t.wrapping_sub(past) >= full;
            let to = if evict { past.wrapping_add(step) } else { past };
            if cas(to | flags).is_err() {
                continue;
            }
            if flags == 0 {
                self.head = to;
            }
            if evict {
                debug_assert_eq!(t.wrapping_sub(past), full);
                let old = ring.slot(past).with_mut(|p| {
                    // SAFETY: the CAS took position `past` (published: it is
                    // before t; real: `voids_from` stopped there) from the
                    // unread items: it is ours alone, and its slot is slot(t).
                    // The new item goes in at once, unread until publish.
                    unsafe { core::mem::replace(&mut *p, MaybeUninit::new(item)).assume_init() }
                });
                ring.producer.overwritten.add(1);
                ring.publish(&mut self.tail, 1);
                return Overwritten::Evicted(old);
            }
        }
        // The new item goes back; the voids this push placed are published
        // (the consumer passes them).
        ring.publish(&mut self.tail, 0);
        ring.producer.rejected.add(1);
        Overwritten::Rejected(item)
    }
}
