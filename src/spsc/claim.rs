//! The consumer's claim and release, and the void flags they read.
//!
//! Under [`Reject`](super::Reject) and [`Marked`](super::Marked) a claim is
//! a check of `tail` and a release one store of `head`. Under
//! [`Overwrite`](super::Overwrite) a claim moves `head` past the items it
//! takes with one CAS that sets `BUSY`, after storing which slots it holds
//! in the claim word, and a release clears the flags (or gives back what was
//! not taken). `src/spsc/overwrite.rs` has the protocol and why its
//! orderings suffice; this file has the consumer's half and the void flags
//! both halves share.

use super::policy::sealed::Maybe as _;
use super::{Policy, Ring};
use crate::sync::{pause, pause_point, Ordering};

/// Bit 0 of the `tail` word under `Overwrite` (stored positions are
/// multiples of 4 there): the producer had void flags set when it stored
/// this tail, so positions before it may be voids. The consumer's cached
/// tail keeps it; without it the consumer reads no void flag at all.
/// Every other reader of `tail` shifts it out or masks it.
pub(super) const VOIDS_SEEN: usize = 1;

impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// The producer's position in a `tail` word (without [`VOIDS_SEEN`],
    /// which only `Overwrite` sets).
    #[inline(always)]
    pub(super) fn tail_position(word: usize) -> usize {
        if P::OVERWRITES {
            word & !VOIDS_SEEN
        } else {
            word
        }
    }
}

/// The claim word is `(first slot << CLAIM_SHIFT) | count`.
pub(super) const CLAIM_SHIFT: u32 = usize::BITS / 2;
/// The count's bits in the claim word.
pub(super) const CLAIM_COUNT: usize = (1 << CLAIM_SHIFT) - 1;

crate::sync::const_fn! {
    /// `N` void flags, all clear.
    pub(super) fn void_flags<P: Policy, const N: usize>() -> [P::Void; N] {
        #[cfg(not(sluicegate_loom))]
        {
            [const { P::NEW_VOID }; N]
        }
        #[cfg(sluicegate_loom)]
        {
            core::array::from_fn(|_| P::new_void())
        }
    }
}

impl<T, const N: usize, P: Policy> Ring<T, N, P> {
    /// Whether stored position `pos`, published, is a void (never under a
    /// policy that does not evict).
    #[inline(always)]
    pub(super) fn is_void(&self, pos: usize) -> bool {
        // Relaxed: the flag of a position in `[head, tail)` was stored before
        // the `tail` store that published the position, which the reader
        // acquired; it does not change until the position is passed.
        self.voids[Self::index(pos)]
            .get()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// How many of the `len` positions from stored position `head` are
    /// voids (0 at once where no void flag is set).
    pub(super) fn voids_among(&self, head: usize, len: usize) -> usize {
        match self.producer.void_count.get() {
            Some(c) if c.load(Ordering::Relaxed) != 0 => (0..len)
                .filter(|&i| self.is_void(head.wrapping_add(i << P::SHIFT)))
                .count(),
            _ => 0,
        }
    }

    /// Consecutive voids from stored position `pos`, at most `max`.
    pub(super) fn voids_from(&self, pos: usize, max: usize) -> usize {
        match self.producer.void_count.get() {
            Some(c) if c.load(Ordering::Relaxed) != 0 => {}
            _ => return 0,
        }
        let mut v = 0;
        while v < max && self.is_void(pos.wrapping_add(v << P::SHIFT)) {
            v += 1;
        }
        v
    }

    /// Producer: marks stored position `pos` a void (its slot is held by the
    /// consumer). Unpublished until the next store of `tail`.
    #[cfg(sluicegate_cas)]
    pub(super) fn set_void(&self, pos: usize) {
        let (Some(flag), Some(count)) = (
            self.voids[Self::index(pos)].get(),
            self.producer.void_count.get(),
        ) else {
            return;
        };
        // Relaxed: published by the `tail` store after it (see `is_void`).
        if !flag.load(Ordering::Relaxed) {
            flag.store(true, Ordering::Relaxed);
            count.store(count.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
    }

    /// Producer: the `n` slots from stored position `tail` now hold real
    /// items; clears their void flags (nothing to do while none is set).
    /// Returns [`VOIDS_SEEN`] if some flag is still set, else 0, for the
    /// `tail` word that publishes them.
    #[inline(always)]
    pub(super) fn clear_voids(&self, tail: usize, n: usize) -> usize {
        let Some(count) = self.producer.void_count.get() else {
            return 0;
        };
        let mut left = count.load(Ordering::Relaxed);
        if left == 0 {
            return 0;
        }
        for i in 0..n {
            let pos = tail.wrapping_add(i << P::SHIFT);
            if let Some(flag) = self.voids[Self::index(pos)].get() {
                if flag.load(Ordering::Relaxed) {
                    flag.store(false, Ordering::Relaxed);
                    left -= 1;
                }
            }
        }
        count.store(left, Ordering::Relaxed);
        if left == 0 {
            0
        } else {
            VOIDS_SEEN
        }
    }

    /// The consumer's claim as `(first slot, count)`, `(0, 0)` where the
    /// policy has none. Acquire, with the consumer's Release store: a word
    /// newer than the claim the caller saw `BUSY` for was stored after that
    /// claim ended, so that claim's reads happen before the caller's writes
    /// (`src/spsc/overwrite.rs`, "Orderings").
    #[inline(always)]
    pub(super) fn claim_run(&self) -> (usize, usize) {
        let cl = self
            .head
            .claim
            .get()
            .map_or(0, |w| w.claim.load(Ordering::Acquire));
        (cl >> CLAIM_SHIFT, cl & CLAIM_COUNT)
    }

    /// Whether slot `s` lies in the run of `k` slots from slot `first`.
    #[cfg(sluicegate_cas)]
    #[inline(always)]
    pub(super) fn in_run(s: usize, first: usize, k: usize) -> bool {
        s.wrapping_sub(first) & (N - 1) < k
    }

    /// The free slots from stored position `tail` while the consumer holds
    /// a claim and `head` reads `word` (`BUSY` set): room up to the slot
    /// `N` positions after `word`'s head, and not into a held slot.
    pub(super) fn free_past_claim(&self, tail: usize, word: usize) -> usize {
        let h = word & !P::FLAGS;
        let room = N - (tail.wrapping_sub(h) >> P::SHIFT).min(N);
        // After the Acquire load of `head` that showed `BUSY`, this is that
        // claim's run or a later one's; a later one holds only slots of
        // `[h, tail)`, which `room` already leaves out.
        let (first, k) = self.claim_run();
        let to_first = first.wrapping_sub(Self::index(tail)) & (N - 1);
        if to_first + k > N && k != 0 {
            // Slot(tail) is inside the held run.
            return 0;
        }
        room.min(if k == 0 { N } else { to_first })
    }

    /// Items readable by a consumer whose next read is `head` and whose
    /// cached tail is `*tail`, reloading tail only if the cache shows fewer
    /// than `want`. Under `Overwrite` the result counts voids and is
    /// provisional until claimed.
    #[inline(always)]
    pub(super) fn avail_for(&self, head: usize, tail: &mut usize, want: usize) -> usize {
        let mut avail = tail.wrapping_sub(head) >> P::SHIFT;
        // `avail > N` (Overwrite only): the producer evicted past our cached
        // tail and the wrapping difference went "negative". Under Reject the
        // consumer's head is exact and the test compiles away.
        if avail < want || (P::OVERWRITES && avail > N) {
            // Acquire: pairs with the producer's Release store of tail, so
            // the slot writes (and void flags) before it are visible to our
            // reads.
            // (With its `VOIDS_SEEN` bit.)
            *tail = self.producer.tail.load(Ordering::Acquire);
            avail = tail.wrapping_sub(head) >> P::SHIFT;
            // Not for an empty look: then the caller's own "nothing there"
            // test is the only one on that path.
            if P::OVERWRITES && (avail > N || *tail & VOIDS_SEEN != 0) {
                // Our head is behind evictions, or some of these positions
                // may be voids: not a count of items the ring had. (The
                // peak is a lower bound; `stats` adds the length now.)
            } else if avail != 0 {
                self.note_peak(avail);
            } else {
                // An empty look: a `High` level the last pop missed ends here.
                self.lower_check(head);
            }
            // Not behind `head`: a failed claim that moved `head` forward
            // acquired a `tail` at least that far (see `overwrite.rs`).
            // (`avail > N` is left when the producer evicted past our
            // `head`: the claim CAS then fails and corrects it.)
            debug_assert!(
                (tail.wrapping_sub(head) as isize) >= 0,
                "consumer head ahead of every tail it has seen"
            );
        }
        if P::OVERWRITES {
            // Our head may still be behind evictions: the claim CAS corrects it.
            avail.min(N)
        } else {
            debug_assert!(avail <= N);
            avail
        }
    }

    /// Takes ownership of up to `want` items from `*head` on, as the
    /// consumer, and returns how many (0 if none). Under `Reject` this is a
    /// check. Under `Overwrite` it passes the voids in front, claims the
    /// real items that follow (up to the next void) and marks `*head` with
    /// `BUSY` until [`Ring::release`]. A call returning > 0 holds a claim
    /// that must be ended by `release`; a call returning 0 holds nothing.
    #[inline(always)]
    pub(super) fn claim(&self, head: &mut usize, tail: &mut usize, want: usize) -> usize {
        if !P::OVERWRITES {
            return self.avail_for(*head, tail, want).min(want);
        }
        if want == 0 {
            // Nothing asked for: take no claim (the caller won't release).
            return 0;
        }
        if *head & P::BUSY != 0 {
            self.end_forgotten_claim(head);
        }
        let Some(words) = self.head.claim.get() else {
            return 0;
        };
        loop {
            let avail = self.avail_for(*head, tail, want);
            if avail == 0 {
                return 0;
            }
            let h = *head;
            let mut n = avail.min(want);
            if *tail & VOIDS_SEEN != 0 {
                match self.among_voids(head, avail, n) {
                    Some(real) => n = real,
                    None => continue,
                }
            }
            pause_point(pause::SPSC_CLAIM);
            // Release: a producer that reads this word in place of the
            // claim it saw `BUSY` for (which ended before this store) reuses
            // that claim's slots; our reads of them come first. (A producer
            // that sees this claim's `BUSY` reads this word or a later one:
            // the CAS below is Release too.)
            words
                .claim
                .store((Self::index(h) << CLAIM_SHIFT) | n, Ordering::Release);
            // Success, Release: the claim word above. The items were
            // published by the tail store we already acquired. Failure,
            // Acquire: the word was written by an eviction (Release), so the
            // `tail` stores before it are visible to our next load of
            // `tail`, which then is not behind the new head.
            match P::cas_head(
                &self.head.pos,
                h,
                h.wrapping_add(n << P::SHIFT) | P::BUSY,
                Ordering::Release,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    *head = h | P::BUSY;
                    return n;
                }
                Err(actual) => *head = self.moved_head(actual),
            }
        }
    }

    /// A read guard was forgotten (`mem::forget`) with its claim: ends it
    /// as dropping the guard would have.
    #[cold]
    #[inline(never)]
    fn end_forgotten_claim(&self, head: &mut usize) {
        let k = self.head.claim.get().map_or(0, |w| {
            // Relaxed: our own word.
            w.claim.load(Ordering::Relaxed) & CLAIM_COUNT
        });
        self.release(head, 0, k);
    }

    /// `claim` from `*head` when some of its `avail` positions may be
    /// voids: passes the voids in front (then `None`: look again), or
    /// counts the real items from `*head` up to the next void, at most
    /// `want` (`Some`, at least 1).
    #[inline(never)]
    fn among_voids(&self, head: &mut usize, avail: usize, want: usize) -> Option<usize> {
        let h = *head;
        let front = self.voids_from(h, avail);
        if front == 0 {
            return Some(1 + self.reals_after(h, want - 1));
        }
        // Pass them: nothing to read and no slot freed (the claim that held
        // their slots ended with its own Release), so Relaxed would do;
        // Release costs nothing on this cold path. Acquire on failure: as
        // the claim's.
        let past = h.wrapping_add(front << P::SHIFT);
        match P::cas_head(
            &self.head.pos,
            h,
            past,
            Ordering::Release,
            Ordering::Acquire,
        ) {
            Ok(_) => *head = past,
            Err(actual) => *head = self.moved_head(actual),
        }
        None
    }

    /// Real items right after stored position `h`, at most `max`.
    fn reals_after(&self, h: usize, max: usize) -> usize {
        let mut n = 0;
        while n < max && !self.is_void(h.wrapping_add((n + 1) << P::SHIFT)) {
            n += 1;
        }
        n
    }

    /// The consumer's head after a failed CAS read `actual`: the producer
    /// moved it, or (with `BUSY`) a claim of a consumer split earlier whose
    /// guard was forgotten is still marked. Its items are left where they
    /// are (not dropped); the flags are cleared so that the producer stops
    /// keeping its slots.
    fn moved_head(&self, actual: usize) -> usize {
        if actual & P::BUSY != 0 {
            P::clear_flags(&self.head.pos);
        }
        actual & !P::FLAGS
    }

    /// Ends a claim of `claimed` items: frees the first `n` claimed slots
    /// to the producer.
    /// Under `Overwrite` it also ends the claim: the items not taken go back
    /// to the ring, or, if the producer has lapped them meanwhile (evicted
    /// newer items past them, or placed voids in their slots), are dropped
    /// here and counted as overwritten.
    #[inline(always)]
    pub(super) fn release(&self, head: &mut usize, n: usize, claimed: usize) {
        if !P::OVERWRITES && n == 0 {
            return;
        }
        if P::OVERWRITES {
            self.end_claim(head, n, claimed);
        } else {
            *head = head.wrapping_add(n << P::SHIFT);
            pause_point(pause::SPSC_RELEASE);
            // Release: our reads of the freed slots happen before the
            // producer's Acquire load of head that lets it reuse them.
            self.store_head(*head, Ordering::Release);
        }
        self.wake_producer();
        // After the wake's fence (with `async`): see `src/spsc/watermark.rs`.
        self.lower_check(*head);
    }

    /// `release` under `Overwrite`.
    #[inline(always)]
    fn end_claim(&self, head: &mut usize, n: usize, k: usize) {
        debug_assert!(*head & P::BUSY != 0, "release without a claim");
        let h = *head & !P::FLAGS;
        // Relaxed: our own word.
        debug_assert_eq!(
            k,
            self.head
                .claim
                .get()
                .map_or(0, |w| w.claim.load(Ordering::Relaxed) & CLAIM_COUNT)
        );
        debug_assert!(n <= k);
        pause_point(pause::SPSC_RELEASE);
        if n < k {
            self.give_back(head, n, k);
        } else {
            *head = h.wrapping_add(n << P::SHIFT);
            // Release: our reads of the claimed slots happen before the
            // producer's Acquire load (or CAS) of head that lets it reuse
            // them.
            P::clear_flags(&self.head.pos);
        }
    }

    /// The end of a claim of `k` items that took the first `n < k`.
    #[inline(never)]
    fn give_back(&self, head: &mut usize, n: usize, k: usize) {
        let Some(words) = self.head.claim.get() else {
            return;
        };
        let h = *head & !P::FLAGS;
        // Give back the rest: only if `head` is still where the claim put
        // it (no eviction past it, no void in its slots). Release on
        // success: our reads of the freed slots come first. Relaxed on
        // failure: it only says the producer went past; the items we then
        // drop are ours (claimed), written before the tail we acquired.
        let held = h.wrapping_add(k << P::SHIFT) | P::BUSY;
        let back = h.wrapping_add(n << P::SHIFT);
        if P::cas_head(
            &self.head.pos,
            held,
            back,
            Ordering::Release,
            Ordering::Relaxed,
        )
        .is_ok()
        {
            *head = back;
            return;
        }
        // Lapped: newer items were evicted or voided past these, so they go
        // too, oldest first, counted before their `Drop` runs. Our head
        // moves first: if a `Drop` panics, the claim is still ended (by
        // `lapped`'s own `Drop`) and nothing is dropped twice.
        words.dropped.add(k - n);
        let end = h.wrapping_add(k << P::SHIFT);
        *head = end;
        let mut lapped = Lapped {
            ring: self,
            pos: back,
            end,
        };
        lapped.drop_all();
        // `lapped` is dropped here and clears the flags.
    }
}

/// Claimed items the producer lapped, still to drop (stored positions
/// `pos..end`): dropped even if one's `Drop` panics (a second panic aborts,
/// as in `Vec`), then the claim ends.
struct Lapped<'r, T, const N: usize, P: Policy> {
    ring: &'r Ring<T, N, P>,
    pos: usize,
    end: usize,
}

impl<T, const N: usize, P: Policy> Lapped<'_, T, N, P> {
    fn drop_all(&mut self) {
        while self.pos != self.end {
            let pos = self.pos;
            // Advanced before the drop, so a panicking item is not dropped again.
            self.pos = pos.wrapping_add(1 << P::SHIFT);
            self.ring.slot(pos).with_mut(|p| {
                // SAFETY: claimed by the consumer and not taken, so
                // initialised and reachable by nobody else until the claim
                // ends below; `pos` moved past it first, so it is dropped once.
                unsafe { (*p).assume_init_drop() }
            });
        }
    }
}

impl<T, const N: usize, P: Policy> Drop for Lapped<'_, T, N, P> {
    fn drop(&mut self) {
        self.drop_all();
        // Release: our reads and drops of the claimed slots come first.
        P::clear_flags(&self.ring.head.pos);
    }
}
