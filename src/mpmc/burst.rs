//! Bursts: [`Ring::push_burst`] and [`Ring::pop_burst`] move up to `ROUND`
//! items per round with one fetch-and-add on each index-ring counter they
//! move, instead of one per item.
//!
//! A round of `push_burst` takes up to `ROUND` free indices at once
//! (`FreePool::take_many`; on the default pool `IndexRing::dequeue_many`,
//! one fetch-and-add on `fq`'s `head`), writes the items into those slots,
//! and appends the indices to `aq` in item order (`IndexRing::enqueue_many`:
//! one ticket for all, a new round of tickets for the rest if an entry
//! turns out to be unusable). A round of `pop_burst` is the mirror image:
//! `dequeue_many` on `aq`, then `give_many` to the pool. A dequeuing round
//! takes at most the positions between `head` and `tail`, and a round that
//! finds no index counts one failed attempt against `threshold`, as a
//! single dequeue's miss does; the private `scq` module's docs show that a
//! round is, step for step, what as many single dequeues would do, and
//! that `threshold` then counts what it counts without bursts. So the SCQ
//! argument (module docs of [`super`]) carries over, and with it
//! lock-freedom and "nothing lost or duplicated". What changes is what a
//! suspended context holds: a burst suspended mid-round holds the slots of
//! its round (up to `ROUND`, at most `N`), and a pop burst suspended after
//! taking its round's positions the items pushed to them, where a single
//! operation holds at most one.
//!
//! Order: one burst's items enter `aq` in slice order, and one `pop_burst`
//! returns items in `aq` order, so a single producer's items come out in
//! the order it pushed them, as with `try_push`.

use super::{FreePool, Marks, Ring};
use crate::sync::{pause, pause_point};

/// Items per round: the round's indices live on the stack (`ROUND` words).
const ROUND: usize = 32;

impl<T: Copy, const N: usize, F: FreePool<N>, M: Marks> Ring<T, N, F, M> {
    /// Burst push: copies in as many of `items` as fit (from the front), a
    /// round of up to 32 at a time, and returns how many. The rest count as
    /// rejected; on a closed ring nothing goes in and nothing is counted.
    /// Lock-free; see [Bursts](super#bursts).
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u16, 4> = sluicegate::mpmc::Ring::new();
    /// assert_eq!(ring.push_burst(&[1, 2, 3]), 3);
    /// assert_eq!(ring.push_burst(&[4, 5, 6]), 1); // one slot was left
    /// assert_eq!(ring.stats().rejected, 2);
    /// let mut out = [0; 8];
    /// assert_eq!(ring.pop_burst(&mut out), 4);
    /// assert_eq!(out[..4], [1, 2, 3, 4]);
    /// ```
    pub fn push_burst(&self, items: &[T]) -> usize {
        // A full ring refuses before the round's indices are set up (the
        // first round's own first test, done once here).
        if self.fq.surely_none() {
            if !items.is_empty() && !self.is_closed() {
                self.rejected.add(items.len());
            }
            return 0;
        }
        let mut pushed = 0;
        while pushed < items.len() {
            let mut idx = [0usize; ROUND];
            let want = (items.len() - pushed).min(ROUND);
            let got = self.fq.take_many_for(&mut idx[..want], self.pushers());
            if got == 0 {
                break;
            }
            pause_point(pause::MPMC_BURST_CLAIMED);
            for (k, &i) in idx[..got].iter().enumerate() {
                // SAFETY: we took `i` from `fq`, so the slot is free and ours.
                unsafe { self.write(i, items[pushed + k]) };
            }
            pause_point(pause::MPMC_BURST_WRITTEN);
            let done = self.aq.enqueue_many(&idx[..got], Some(&self.state));
            if done > 0 {
                self.wake_poppers_n(done);
                self.pushed_marks();
            }
            pushed += done;
            if done < got {
                // Closed: the refused indices stay out of both rings for
                // good, as a refused `try_push`'s does (`T: Copy`: their
                // slots need no drop).
                self.retire(got - done);
                self.refused_marks();
                return pushed;
            }
        }
        if pushed < items.len() && !self.is_closed() {
            self.rejected.add(items.len() - pushed);
        }
        pushed
    }

    /// Burst pop: copies out as many items as are there (up to
    /// `out.len()`), oldest first, a round of up to 32 at a time, and
    /// returns how many. Lock-free.
    ///
    /// ```
    /// let ring: sluicegate::mpmc::Ring<u8, 8> = sluicegate::mpmc::Ring::new();
    /// ring.push_burst(&[1, 2, 3]);
    /// let mut two = [0; 2];
    /// assert_eq!(ring.pop_burst(&mut two), 2);
    /// assert_eq!(two, [1, 2]);
    /// assert_eq!(ring.try_pop(), Some(3));
    /// ```
    pub fn pop_burst(&self, out: &mut [T]) -> usize {
        // An idle ring's poll answers before the round's indices are set up
        // (the first round's own first test, done once here).
        if self.aq.surely_empty() {
            return 0;
        }
        let mut popped = 0;
        while popped < out.len() {
            let mut idx = [0usize; ROUND];
            let want = (out.len() - popped).min(ROUND);
            let got = match self.aq.dequeue_many_for(&mut idx[..want], self.poppers()) {
                None => break,
                Some((got, seen)) => {
                    // Every round samples the length (see `Ring::stats`).
                    self.note_peak(seen);
                    got
                }
            };
            pause_point(pause::MPMC_BURST_TAKEN);
            for (k, &i) in idx[..got].iter().enumerate() {
                // SAFETY: we took `i` from `aq`, so the slot holds an item
                // and is ours.
                out[popped + k] = unsafe { self.read(i) };
            }
            pause_point(pause::MPMC_BURST_READ);
            self.fq.give_many(&idx[..got]);
            if got > 0 {
                self.wake_pushers_n(got);
                self.popped_marks();
            }
            popped += got;
        }
        popped
    }
}
