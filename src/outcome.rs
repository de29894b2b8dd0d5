//! What the rings hand back and count: errors that give the value back, the
//! outcome of `push_overwrite`, and the counters of refused and evicted items.
//! One set of types for both rings.

use core::fmt;

/// The ring was full: the item that could not be pushed, handed back.
///
/// The error of the SPSC rings' `try_push`. `mpmc::Ring` and
/// `mpmc::cs::Ring`, which can also be closed, answer [`TryPushError`]
/// instead (its `Full` variant is this case; `From<Full<T>>` converts), and
/// `mpmc::BurstRing` its own `burst_ring::PushError`.
///
/// `Debug` does not need `T: Debug`, so `.unwrap()` works on any payload.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Full<T>(pub T);

impl<T> Full<T> {
    /// The rejected item.
    ///
    /// ```
    /// use sluicegate::{spsc::Ring, Full};
    ///
    /// let mut ring: Ring<&str, 1> = Ring::new();
    /// let (mut tx, _rx) = ring.split();
    /// tx.try_push("first").unwrap();
    /// let full: Full<&str> = tx.try_push("second").unwrap_err();
    /// assert_eq!(full.into_inner(), "second"); // handed back, not dropped
    /// ```
    #[inline]
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> fmt::Debug for Full<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Full(..)")
    }
}

impl<T> fmt::Display for Full<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ring is full")
    }
}

impl<T> core::error::Error for Full<T> {}

/// An all-or-nothing (bulk) operation found fewer slots or items than it
/// needed, and did nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Insufficient {
    /// How many slots (for a push) or items (for a pop) were available.
    pub available: usize,
}

impl fmt::Display for Insufficient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "only {} available", self.available)
    }
}

impl core::error::Error for Insufficient {}

/// What `push_overwrite` did with the new item: stored it (evicting the
/// oldest item if the ring was full) or handed it back.
///
/// `Debug` does not need `T: Debug`.
///
/// ```
/// use sluicegate::spsc::{Overwrite, Ring};
/// use sluicegate::Overwritten;
///
/// let mut ring: Ring<u8, 2, Overwrite> = Ring::new();
/// let (mut tx, _rx) = ring.split();
/// assert_eq!(tx.push_overwrite(1), Overwritten::Stored);
/// assert_eq!(tx.push_overwrite(2), Overwritten::Stored);
/// assert_eq!(tx.push_overwrite(3), Overwritten::Evicted(1)); // full: the oldest goes
/// ```
#[must_use = "an evicted or rejected item is handed back in it"]
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Overwritten<T> {
    /// There was room: the item is in the ring and nothing was evicted.
    Stored,
    /// The ring was full: the item is in the ring, and the oldest item was
    /// evicted to make room; here it is (counted in [`RingStats::overwritten`]).
    Evicted(T),
    /// The item was not stored and is handed back (counted in
    /// [`RingStats::rejected`]). On the SPSC ring only when the consumer
    /// holds all `N` slots (a read chunk of the whole ring), or gives items
    /// back four times within one push; a consumer in the middle of a pop,
    /// a peek or a smaller chunk does not cause it (with a consumer thread
    /// reading in a loop on a 2-core host: none of 16.9 M overflows,
    /// `benches/examples/keep_newest.rs`). On the MPMC rings, see their
    /// module docs.
    Rejected(T),
}

impl<T> Overwritten<T> {
    /// Whether the new item went into the ring (`Stored` or `Evicted`).
    ///
    /// ```
    /// # use sluicegate::Overwritten;
    /// assert!(Overwritten::Evicted(7).is_stored());
    /// assert!(!Overwritten::Rejected(8).is_stored());
    /// ```
    #[inline]
    pub fn is_stored(&self) -> bool {
        !matches!(self, Overwritten::Rejected(_))
    }

    /// The item handed back, if any: the evicted oldest one or the rejected
    /// new one.
    ///
    /// ```
    /// # use sluicegate::Overwritten;
    /// assert_eq!(Overwritten::Evicted(7).into_item(), Some(7));
    /// assert_eq!(Overwritten::Rejected(8).into_item(), Some(8));
    /// assert_eq!(Overwritten::<u8>::Stored.into_item(), None);
    /// ```
    #[inline]
    pub fn into_item(self) -> Option<T> {
        match self {
            Overwritten::Stored => None,
            Overwritten::Evicted(item) | Overwritten::Rejected(item) => Some(item),
        }
    }
}

impl<T> fmt::Debug for Overwritten<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Overwritten::Stored => "Stored",
            Overwritten::Evicted(_) => "Evicted(..)",
            Overwritten::Rejected(_) => "Rejected(..)",
        })
    }
}

/// What happened to items that did not go through a ring, since it was made
/// (and, on `mpmc::BurstRing`, the calls answered busy), and how full it has
/// been. The same for every ring.
///
/// The counters wrap on overflow (at 2^32 on 32-bit targets). They change
/// only when the event happens, so the success path pays nothing for them.
/// For the counts of an interval, keep the stats read at its start and
/// take [`since`](Self::since) at its end: that stays right across the
/// wrap.
///
/// ```
/// use sluicegate::{mpmc, RingStats};
///
/// let ring: mpmc::Ring<u8, 1> = mpmc::Ring::new();
/// ring.try_push(1).unwrap();
/// assert!(ring.try_push(2).is_err());
/// let _ = ring.push_overwrite(3);
/// let stats = ring.stats();
/// assert_eq!((stats.rejected, stats.overwritten, stats.peak), (1, 1, 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RingStats {
    /// Items refused at the door and handed back to the caller: a failed
    /// `try_push`, the part of a burst or bulk push that did not fit, and
    /// [`Overwritten::Rejected`] items; and the item `push_iter` took from
    /// its iterator and could not push (the ring closed, or on
    /// `mpmc::cs::Ring` the room taken, while the iterator ran), dropped.
    pub rejected: usize,
    /// Items evicted from inside the ring by `push_overwrite` and handed back
    /// to the caller ([`Overwritten::Evicted`]).
    pub overwritten: usize,
    /// Calls of the burst ring (`mpmc::BurstRing`) that stopped at a
    /// position another operation in progress held: those answered
    /// `Stop::Busy`, and those that answer a count or an iterator's end
    /// instead (`push_iter`, `drain`, `clear`) when they stopped there.
    /// The waits (`*_blocking`, `async`) count nothing. Only the burst ring
    /// stops this way; 0 on every other ring.
    pub busy: usize,
    /// Items a `try_pop_fresh`-style pop discarded because they had expired
    /// (dropped, or handed to the caller's closure; see
    /// [`expire`](crate::expire)).
    pub expired: usize,
    /// How many times the level of a ring with watermarks (a ring of
    /// policy `Marked`, made with `with_watermarks`) changed, between
    /// `Normal` and `High` (odd while it is `High`). Only such a ring has a
    /// level; 0 on every other ring.
    pub transitions: usize,
    /// The high-water mark: the most items the ring has held, in `0..=N`.
    /// Kept off the push path, so how exact it is depends on the ring (each
    /// ring's `stats` says precisely): on the SPSC ring a length the ring
    /// had, at least half the true mark; on the MPMC rings a sample taken
    /// by one pop in `K` positions or slots, less than `K` below the true
    /// mark, and `N` once a push found the ring full or an item was
    /// evicted (a bulk push refused with room for fewer than it brings, or
    /// an item `push_iter` could not push because the ring closed, does
    /// not make it `N`).
    /// `K` is `N / 16` (exact for `N < 16`), except on
    /// [`mpmc::Ring`](crate::mpmc::Ring) and
    /// [`mpmc::BurstRing`](crate::mpmc::BurstRing) on hosts, where it is at
    /// least 64 (a sample there costs a cache-line transfer); operations in
    /// progress may add to those rings' marks, never beyond `N`. Each read
    /// also counts the length at that moment. On the MPMC rings the mark
    /// never goes down: a read keeps what it counted. On the SPSC rings only
    /// the consumer writes the mark (they have loads and stores only), so a
    /// read that counted items still waiting can return more than a later
    /// read, after the consumer took them (the ring's `stats` says by how
    /// much at most).
    pub peak: usize,
}

impl RingStats {
    /// What happened between `earlier` (stats read before, from the same
    /// ring) and `self`: the counters' differences, by wrapping
    /// subtraction, so right across the counters' wrap as long as fewer
    /// than `2^usize::BITS` events of each kind (2^32 on 32-bit targets)
    /// happened between the two reads. `peak` is `self.peak`, the
    /// high-water mark since the ring was made (it is a maximum, not a
    /// count: there is no difference to take).
    ///
    /// ```
    /// use sluicegate::mpmc::Ring;
    ///
    /// let ring: Ring<u8, 2> = Ring::new();
    /// let _ = ring.push_iter([1, 2]);
    /// let _ = ring.try_push(3); // rejected
    /// let before = ring.stats();
    /// let _ = ring.try_push(4); // rejected
    /// let _ = ring.push_overwrite(5); // evicts 1
    /// let interval = ring.stats().since(&before);
    /// assert_eq!((interval.rejected, interval.overwritten, interval.peak), (1, 1, 2));
    /// ```
    #[must_use]
    pub fn since(&self, earlier: &RingStats) -> RingStats {
        RingStats {
            rejected: self.rejected.wrapping_sub(earlier.rejected),
            overwritten: self.overwritten.wrapping_sub(earlier.overwritten),
            busy: self.busy.wrapping_sub(earlier.busy),
            expired: self.expired.wrapping_sub(earlier.expired),
            transitions: self.transitions.wrapping_sub(earlier.transitions),
            peak: self.peak,
        }
    }
}

/// The ring was closed: the item that could not be pushed, handed back.
///
/// Returned by the waiting pushes (`push_blocking`, `push().await`) of a
/// closed MPMC ring, and of an SPSC ring that is full and whose consumer is
/// gone. An SPSC ring has no `close`: dropping a handle is its close, and
/// the other handle's `is_abandoned` is the same condition as "closed"
/// here (`Producer::is_abandoned`: the consumer is gone; a push that needs
/// room then gets `Closed`). `Debug` does not need `T: Debug`.
///
/// ```
/// use sluicegate::Closed;
///
/// let ring: sluicegate::mpmc::Ring<&str, 2> = sluicegate::mpmc::Ring::new();
/// ring.close();
/// let Closed(back) = ring.push_blocking("late").unwrap_err();
/// assert_eq!(back, "late"); // handed back, not dropped
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Closed<T>(pub T);

impl<T> Closed<T> {
    /// The item that was not pushed.
    ///
    /// ```
    /// assert_eq!(sluicegate::Closed(3).into_inner(), 3);
    /// ```
    #[inline]
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> fmt::Debug for Closed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Closed(..)")
    }
}

impl<T> fmt::Display for Closed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ring is closed")
    }
}

impl<T> core::error::Error for Closed<T> {}

/// Why a `try_push` on an MPMC ring did not push: the ring was full, or
/// closed. The item is handed back either way.
///
/// `Debug` does not need `T: Debug`.
///
/// ```
/// use sluicegate::TryPushError;
///
/// let ring: sluicegate::mpmc::Ring<u8, 1> = sluicegate::mpmc::Ring::new();
/// ring.try_push(1).unwrap();
/// assert_eq!(ring.try_push(2), Err(TryPushError::Full(2)));
/// ring.close();
/// assert_eq!(ring.try_push(3), Err(TryPushError::Closed(3)));
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TryPushError<T> {
    /// Every slot was taken (counted in [`RingStats::rejected`]).
    Full(T),
    /// The ring was closed (not counted).
    Closed(T),
}

impl<T> TryPushError<T> {
    /// The item that was not pushed.
    ///
    /// ```
    /// # use sluicegate::TryPushError;
    /// assert_eq!(TryPushError::Full(1).into_inner(), 1);
    /// assert_eq!(TryPushError::Closed(2).into_inner(), 2);
    /// ```
    #[inline]
    pub fn into_inner(self) -> T {
        match self {
            TryPushError::Full(item) | TryPushError::Closed(item) => item,
        }
    }

    /// Whether the push failed because the ring was closed.
    ///
    /// ```
    /// # use sluicegate::TryPushError;
    /// assert!(TryPushError::Closed(1).is_closed());
    /// assert!(!TryPushError::Full(1).is_closed());
    /// ```
    #[inline]
    pub fn is_closed(&self) -> bool {
        matches!(self, TryPushError::Closed(_))
    }
}

impl<T> From<Full<T>> for TryPushError<T> {
    fn from(full: Full<T>) -> Self {
        TryPushError::Full(full.0)
    }
}

impl<T> From<Closed<T>> for TryPushError<T> {
    fn from(closed: Closed<T>) -> Self {
        TryPushError::Closed(closed.0)
    }
}

impl<T> fmt::Debug for TryPushError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryPushError::Full(_) => "Full(..)",
            TryPushError::Closed(_) => "Closed(..)",
        })
    }
}

impl<T> fmt::Display for TryPushError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryPushError::Full(_) => "ring is full",
            TryPushError::Closed(_) => "ring is closed",
        })
    }
}

impl<T> core::error::Error for TryPushError<T> {}

/// Why a pop on a closable ring returned no item.
///
/// ```
/// use sluicegate::TryPopError;
///
/// let ring: sluicegate::mpmc::Ring<u8, 2> = sluicegate::mpmc::Ring::new();
/// assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Empty));
/// ring.try_push(1).unwrap();
/// ring.close();
/// assert_eq!(ring.try_pop_or_closed(), Ok(1)); // what was inside drains first
/// assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TryPopError {
    /// Nothing to pop now; more may come.
    Empty,
    /// The ring is closed and drained: nothing will ever come again.
    Closed,
}

impl fmt::Display for TryPopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryPopError::Empty => "ring is empty",
            TryPopError::Closed => "ring is closed and drained",
        })
    }
}

impl core::error::Error for TryPopError {}
