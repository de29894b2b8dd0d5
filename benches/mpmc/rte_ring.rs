//! The speed floor of the MPMC burst benchmarks (`floor_rte_ring`): a ring
//! in the manner of DPDK's rte_ring in its default multi-producer /
//! multi-consumer mode, written here for the comparison only.
//!
//! **It spins, and it deadlocks under preemption. It is not a product and
//! nothing outside these benchmarks may use it.** An operation claims its
//! positions with one CAS of its side's `head`, copies, and then *waits
//! until its side's `tail` reaches the start of its claim* (every earlier
//! claim of that side has finished) before it stores the new `tail`. A
//! context preempted between its CAS and its tail store therefore holds up
//! every later operation of its side, which spins until it runs again; if
//! the spinner outranks it on its core (a real-time thread, an interrupt
//! handler), it never runs again and the spinner never returns. DPDK
//! documents this as the ring's known issue with preemptible threads.
//! `mpmc::BurstRing` claims the same way and commits with a bitmap instead,
//! so that nothing waits; this ring shows what that costs.
//!
//! What it does per call, as DPDK's `rte_ring_c11_pvt.h` describes:
//! one CAS (`lock cmpxchg` on x86-64) to claim, a copy, a wait on `tail`
//! and a plain release store, so 2 locked instructions per burst pair of
//! calls. Positions are `u32` counters that wrap; the ring holds exactly
//! `N` items. The one change from DPDK's pure spin: the wait yields to the
//! scheduler after `common::yield_every()` misses in a row, as the bench
//! threads do while a ring is full or empty, so that an oversubscribed run
//! finishes (it still waits for that one context, however long).

use crate::common::wait;
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU32, Ordering};
use crossbeam_utils::CachePadded;

/// One side's positions: `head` counts positions claimed, `tail` positions
/// finished (every claim below it copied). `tail <= head`.
struct HeadTail {
    head: AtomicU32,
    tail: AtomicU32,
}

/// A bounded MPMC ring of `N` `Copy` items that commits in claim order by
/// spinning (see the module docs).
pub struct RteRing<T: Copy, const N: usize> {
    prod: CachePadded<HeadTail>,
    cons: CachePadded<HeadTail>,
    /// Position `q` lives in slot `q % N`; a producer owns it from its
    /// claim to its tail store, a consumer likewise.
    slots: [UnsafeCell<MaybeUninit<T>>; N],
}

// SAFETY: items move in and out by value (`T: Send`); a slot is touched only
// by the operation whose claim covers it, and each hand-off goes through a
// release store of one side's `tail` and an acquire load of it by the other.
unsafe impl<T: Copy + Send, const N: usize> Sync for RteRing<T, N> {}

impl<T: Copy, const N: usize> RteRing<T, N> {
    pub fn new() -> Self {
        const { assert!(N.is_power_of_two() && N <= 1 << 31) };
        Self {
            prod: CachePadded::new(HeadTail::new()),
            cons: CachePadded::new(HeadTail::new()),
            slots: [const { UnsafeCell::new(MaybeUninit::uninit()) }; N],
        }
    }

    /// Pushes as many of `items` as there is room for (from the front) and
    /// returns how many.
    #[inline]
    pub fn push_burst(&self, items: &[T]) -> usize {
        // Room: N minus the positions claimed by producers and not yet
        // finished by consumers.
        let (start, n) = claim(&self.prod, &self.cons, N as u32, items.len());
        if n == 0 {
            return 0;
        }
        let (first, rest) = self.split(start, n);
        // SAFETY: the claim gave us positions `start..start + n`, whose
        // slots consumers finished with (their tail passed them); the two
        // ranges lie inside `slots`, which `items` does not overlap.
        unsafe {
            let p = items.as_ptr();
            core::ptr::copy_nonoverlapping(p, self.slot(start), first);
            if rest > 0 {
                core::ptr::copy_nonoverlapping(p.add(first), self.slot(0), rest);
            }
        }
        finish(&self.prod, start, n);
        n
    }

    /// Pops up to `out.len()` items into the front of `out` and returns
    /// how many.
    #[inline]
    pub fn pop_burst(&self, out: &mut [T]) -> usize {
        // Available: positions finished by producers and not yet claimed
        // by consumers.
        let (start, n) = claim(&self.cons, &self.prod, 0, out.len());
        if n == 0 {
            return 0;
        }
        let (first, rest) = self.split(start, n);
        // SAFETY: the claim gave us positions `start..start + n`, which
        // producers finished writing (their tail passed them); ranges as in
        // `push_burst`.
        unsafe {
            let p = out.as_mut_ptr();
            core::ptr::copy_nonoverlapping(self.slot(start), p, first);
            if rest > 0 {
                core::ptr::copy_nonoverlapping(self.slot(0), p.add(first), rest);
            }
        }
        finish(&self.cons, start, n);
        n
    }

    /// Pushes one item (a burst of one, its copy a plain store); `false`
    /// if the ring is full.
    #[inline]
    pub fn try_push(&self, item: T) -> bool {
        let (start, n) = claim(&self.prod, &self.cons, N as u32, 1);
        if n == 0 {
            return false;
        }
        // SAFETY: as in `push_burst`, for the one position `start`.
        unsafe { self.slot(start).write(item) };
        finish(&self.prod, start, 1);
        true
    }

    /// Pops one item (a burst of one, its copy a plain load); `None` if the
    /// ring is empty.
    #[inline]
    pub fn try_pop(&self) -> Option<T> {
        let (start, n) = claim(&self.cons, &self.prod, 0, 1);
        if n == 0 {
            return None;
        }
        // SAFETY: as in `pop_burst`, for the one position `start`.
        let item = unsafe { self.slot(start).read() };
        finish(&self.cons, start, 1);
        Some(item)
    }

    /// How `n` positions from `start` split at the end of the array.
    #[inline(always)]
    fn split(&self, start: u32, n: usize) -> (usize, usize) {
        let s = start as usize & (N - 1);
        let first = n.min(N - s);
        (first, n - first)
    }

    /// Pointer to the slot of position `q`.
    #[inline(always)]
    fn slot(&self, q: u32) -> *mut T {
        // `UnsafeCell<MaybeUninit<T>>` has `T`'s layout.
        self.slots[q as usize & (N - 1)].get().cast()
    }
}

impl<T: Copy, const N: usize> Default for RteRing<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl HeadTail {
    fn new() -> Self {
        Self {
            head: AtomicU32::new(0),
            tail: AtomicU32::new(0),
        }
    }
}

/// Claims up to `max` positions of side `mine` with one CAS of its head:
/// as many as `limit + theirs.tail - head` allows (`limit` = `N` for
/// producers, 0 for consumers). Returns the first position and the count
/// (0: nothing to claim).
#[inline(always)]
fn claim(mine: &HeadTail, theirs: &HeadTail, limit: u32, max: usize) -> (u32, usize) {
    // Acquire: the other side's tail is loaded after this head, so it is at
    // least as new and the difference below cannot go negative.
    let mut head = mine.head.load(Ordering::Acquire);
    loop {
        // Acquire: pairs with the other side's tail store, which follows
        // its copies (the slot hand-off).
        let avail = limit
            .wrapping_add(theirs.tail.load(Ordering::Acquire))
            .wrapping_sub(head);
        let n = (avail as usize).min(max);
        if n == 0 {
            return (head, 0);
        }
        match mine.head.compare_exchange_weak(
            head,
            head.wrapping_add(n as u32),
            Ordering::Relaxed,
            Ordering::Acquire,
        ) {
            Ok(_) => return (head, n),
            Err(now) => head = now,
        }
    }
}

/// Finishes a claim of `n` positions from `start`: waits until every
/// earlier claim of the side finished (its tail equals `start`), then moves
/// the tail past this one. The wait is the spin that makes this ring unfit
/// for preemptible contexts (module docs).
#[inline(always)]
fn finish(side: &HeadTail, start: u32, n: usize) {
    // Acquire: the tail this store advances may be an earlier claim's, whose
    // copies the other side must see as well when it acquires ours.
    if side.tail.load(Ordering::Acquire) != start {
        wait_for_tail(side, start);
    }
    side.tail
        .store(start.wrapping_add(n as u32), Ordering::Release);
}

/// Spins (and yields, module docs) until `side.tail == start`. Out of line,
/// so that the operations without an earlier claim in progress stay short.
#[cold]
#[inline(never)]
fn wait_for_tail(side: &HeadTail, start: u32) {
    let mut misses = 0;
    // Acquire: as in `finish`.
    while side.tail.load(Ordering::Acquire) != start {
        wait(&mut misses);
    }
}
