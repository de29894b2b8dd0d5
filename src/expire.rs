//! Expiry: pops that discard what waited too long.
//!
//! A request that waited past its client's deadline is work for nobody:
//! serving it spends the capacity a fresh request needed. Every ring has
//! `try_pop_fresh(expiry)` and `try_pop_fresh_with` (and, where the ring has
//! bursts and waits, burst and `async` forms; [`spsc::flag`](crate::spsc::flag)
//! has neither): it pops
//! as `try_pop` does, but an item that [`Expiry`] says has expired is
//! discarded (dropped, or handed to the caller's closure) and counted in
//! [`RingStats::expired`](crate::RingStats::expired), and the pop goes on to
//! the next item. Nothing is discarded silently. (If the check itself
//! panics, the item it was looking at has been popped already: it is
//! dropped as the panic unwinds, as an item the caller popped and then
//! lost to a panic would be, and counted as nothing. A burst form has
//! popped other items too, which the panic keeps from the caller: those it
//! had kept, those it had judged expired and those after the one whose
//! check panicked. They are counted as expired as the panic unwinds, so
//! the counts still account for every item but the one whose check
//! panicked.)
//!
//! Whether an item has expired is the caller's to say, with any clock:
//! - a closure `|item: &T| -> bool`;
//! - [`OlderThan`], for items that carry the tick they were made at
//!   ([`Stamped`], or the [`Stamp`] wrapper): expired once more than
//!   `budget` ticks old at `now`, in wrapping `u32` arithmetic (right across
//!   the clock's wrap for ages below `2^31` ticks; the limiter takes the
//!   same ticks).
//!
//! A call does bounded work: it discards at most `N` items (the ring's
//! capacity) and then answers as if the ring were empty, so an interrupt
//! handler that pops this way has a worst case. The `async` forms wait
//! instead, and yield between runs of `N` discards.
//!
//! ```
//! use sluicegate::expire::{OlderThan, Stamp};
//! use sluicegate::mpmc::Ring;
//!
//! let ring: Ring<Stamp<&str>, 4> = Ring::new();
//! ring.try_push(Stamp { at: 100, item: "stale" }).unwrap();
//! ring.try_push(Stamp { at: 180, item: "fresh" }).unwrap();
//!
//! // At tick 200 with a budget of 50 ticks, the item from tick 100 has expired.
//! let got = ring.try_pop_fresh(OlderThan { now: 200, budget: 50 });
//! assert_eq!(got.map(|s| s.item), Some("fresh"));
//! assert_eq!(ring.stats().expired, 1); // discarded, and counted
//! ```
//!
//! Discarding costs nothing when nothing expires: one call of the check per
//! item popped, and the count is written only when an item is discarded.

/// Says whether an item has expired. Implemented by closures
/// `FnMut(&T) -> bool` and by [`OlderThan`].
pub trait Expiry<T: ?Sized> {
    /// Whether `item` has expired and is to be discarded.
    fn expired(&mut self, item: &T) -> bool;
}

impl<T: ?Sized, F: FnMut(&T) -> bool> Expiry<T> for F {
    #[inline]
    fn expired(&mut self, item: &T) -> bool {
        self(item)
    }
}

/// An item that carries the tick it was made (or enqueued) at.
pub trait Stamped {
    /// The tick, on the clock [`OlderThan::now`] reads.
    fn stamp(&self) -> u32;
}

/// Expired once more than `budget` ticks old at `now`: `now - stamp >
/// budget`, wrapping. An item stamped after `now` (up to `2^31` ticks
/// ahead, as a racing producer's can be) has not expired.
///
/// ```
/// use sluicegate::expire::{Expiry, OlderThan, Stamp};
///
/// let mut check = OlderThan { now: 5, budget: 10 };
/// assert!(!check.expired(&Stamp { at: 0, item: () })); // 5 ticks old
/// assert!(check.expired(&Stamp { at: u32::MAX - 10, item: () })); // 16, across the wrap
/// assert!(!check.expired(&Stamp { at: 7, item: () })); // stamped after `now`
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OlderThan {
    /// The tick now.
    pub now: u32,
    /// The most ticks an item may have waited and still be served.
    pub budget: u32,
}

impl<T: Stamped + ?Sized> Expiry<T> for OlderThan {
    #[inline]
    fn expired(&mut self, item: &T) -> bool {
        let age = self.now.wrapping_sub(item.stamp());
        // An age of 2^31 or more is a stamp from the future.
        age > self.budget && age < 1 << 31
    }
}

/// An item with the tick it was made at: the plain [`Stamped`] item.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Stamp<T> {
    /// The tick.
    pub at: u32,
    /// The item.
    pub item: T,
}

impl<T> Stamped for Stamp<T> {
    #[inline]
    fn stamp(&self) -> u32 {
        self.at
    }
}

/// The one loop behind every ring's `try_pop_fresh`: pops with `pop` until
/// an item has not expired, discarding at most `n` expired ones. Each
/// discarded item is counted (`count`) before `discard` gets it, so a
/// panicking `discard` or `Drop` leaves the count right.
#[inline]
pub(crate) fn first_fresh<T, E: Expiry<T>>(
    n: usize,
    mut pop: impl FnMut() -> Option<T>,
    expiry: &mut E,
    mut count: impl FnMut(),
    mut discard: impl FnMut(T),
) -> Option<T> {
    for _ in 0..n {
        let item = pop()?;
        if !expiry.expired(&item) {
            return Some(item);
        }
        count();
        discard(item);
    }
    None
}

/// The one loop behind every ring's `pop_burst_fresh`: fills `out` with
/// `burst` (a ring's `pop_burst` into the free tail of `out`), keeping the
/// items that have not expired at the front in their order, until `out` is
/// full, a burst finds fewer items than it asked for, or `n` items were
/// discarded. Returns how many it kept. `count(k)` runs once per burst
/// that discarded `k > 0`; if a check panics, once as it unwinds, for
/// every item the call popped and did not count, but the one whose check
/// panicked (module docs).
#[inline]
pub(crate) fn burst_fresh<T: Copy, E: Expiry<T>>(
    n: usize,
    out: &mut [T],
    mut burst: impl FnMut(&mut [T]) -> usize,
    expiry: &mut E,
    count: impl FnMut(usize),
) -> usize {
    let mut kept = 0;
    let mut discarded = 0;
    let mut unwind = OnUnwind { count, pending: 0 };
    // Each round keeps or discards at least one item, so there are at most
    // `out.len() + n` rounds.
    while kept < out.len() && discarded < n {
        // No more than the discards left: the call's bound holds.
        let room = (out.len() - kept).min(n - discarded);
        let got = burst(&mut out[kept..kept + room]);
        let (before, end) = (kept, kept + got);
        // While item `i` is judged, the items popped and not counted but
        // `i`: those kept (`kept`), this burst's discards so far
        // (`i - kept`) and those after `i` (`end - i - 1`).
        unwind.pending = end.wrapping_sub(1);
        for i in before..end {
            if !expiry.expired(&out[i]) {
                out[kept] = out[i];
                kept += 1;
            }
        }
        unwind.pending = 0;
        let dropped = got - (kept - before);
        if dropped != 0 {
            (unwind.count)(dropped);
            discarded += dropped;
        }
        if got < room {
            break;
        }
    }
    kept
}

/// Counts `pending` items if dropped with any (only when a check unwinds
/// out of [`burst_fresh`]).
struct OnUnwind<C: FnMut(usize)> {
    count: C,
    pending: usize,
}

impl<C: FnMut(usize)> Drop for OnUnwind<C> {
    fn drop(&mut self) {
        if self.pending != 0 {
            (self.count)(self.pending);
        }
    }
}

/// The async fresh pop of a ring shared through `&self`: awaits `pop` until
/// an item has not expired, counting (`note`) then dropping each expired
/// one, and yields to the executor after each run of `n` discards.
#[cfg(feature = "async")]
pub(crate) async fn pop_fresh_async<T, P: core::future::Future<Output = Option<T>>>(
    n: usize,
    mut pop: impl FnMut() -> P,
    expiry: &mut impl Expiry<T>,
    mut note: impl FnMut(),
) -> Option<T> {
    let mut run = 0;
    loop {
        let item = pop().await?;
        if !expiry.expired(&item) {
            return Some(item);
        }
        note();
        drop(item);
        run += 1;
        if run == n {
            run = 0;
            YieldOnce::new().await;
        }
    }
}

/// A future that is pending once (after waking its task) and then ready:
/// lets the other tasks of an executor run.
#[cfg(feature = "async")]
pub(crate) struct YieldOnce(bool);

#[cfg(feature = "async")]
impl YieldOnce {
    pub(crate) fn new() -> Self {
        Self(false)
    }
}

#[cfg(feature = "async")]
impl core::future::Future for YieldOnce {
    type Output = ();

    fn poll(
        mut self: core::pin::Pin<&mut Self>,
        cx: &mut core::task::Context<'_>,
    ) -> core::task::Poll<()> {
        if self.0 {
            core::task::Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            core::task::Poll::Pending
        }
    }
}
