//! What the burst ring's operations answer: the reason an operation moved
//! nothing or stopped short ([`Stop`], with its distinct [`Stop::Busy`]),
//! how far a burst went ([`Moved`]), and the errors of the single-item
//! operations, which hand the item back ([`PushError`], [`PopError`]).

use core::fmt;

/// Why a [`BurstRing`](super::BurstRing) operation moved fewer items than
/// asked (or none).
///
/// `Busy` is the answer no other ring in the crate gives: the positions the
/// operation needed next are claimed by another push or pop that has not
/// finished (it may be suspended there, or preempted by the caller). The
/// ring is neither full nor empty there; the same call a moment later may
/// succeed. It is counted in [`RingStats::busy`](crate::RingStats::busy),
/// never as rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Stop {
    /// No free slot: `N` positions are taken by items in the ring, items
    /// being pushed, or voids not yet passed (a void takes its position's
    /// room until a pop passes it: see the module docs). Counted in
    /// [`RingStats::rejected`](crate::RingStats::rejected), per item.
    Full,
    /// No item: nothing was pushed that is not already popped or being popped.
    Empty,
    /// The next position is held by an operation in progress.
    Busy,
    /// The ring is closed (a push), or closed and drained (a pop).
    Closed,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stop::Full => "ring is full",
            Stop::Empty => "ring is empty",
            Stop::Busy => "next position held by an operation in progress",
            Stop::Closed => "ring is closed",
        })
    }
}

impl core::error::Error for Stop {}

/// How far a burst went: `count` items moved, and why it stopped short of
/// the slice's length (`None` if it moved them all).
///
/// ```
/// use sluicegate::mpmc::burst_ring::{BurstRing, Moved, Stop};
///
/// let ring: BurstRing<u8, 4, 1> = BurstRing::new();
/// assert_eq!(ring.push_burst(&[1, 2, 3]), Moved { count: 3, stop: None });
/// assert_eq!(ring.push_burst(&[4, 5]), Moved { count: 1, stop: Some(Stop::Full) });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Moved {
    /// Items moved, from the front of the slice.
    pub count: usize,
    /// Why the rest did not move, if some did not.
    pub stop: Option<Stop>,
}

/// Why [`BurstRing::try_push`](super::BurstRing::try_push) did not push:
/// the item is handed back. `Debug` does not need `T: Debug`.
///
/// ```
/// use sluicegate::mpmc::burst_ring::{BurstRing, PushError};
///
/// let ring: BurstRing<u8, 1, 1> = BurstRing::new();
/// ring.try_push(1).unwrap();
/// assert_eq!(ring.try_push(2), Err(PushError::Full(2)));
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PushError<T> {
    /// No free slot, as [`Stop::Full`] (counted in `rejected`).
    Full(T),
    /// The next slot is held by an operation in progress (counted in `busy`).
    Busy(T),
    /// The ring is closed (not counted).
    Closed(T),
}

impl<T> PushError<T> {
    /// The item that was not pushed.
    ///
    /// ```
    /// # use sluicegate::mpmc::burst_ring::PushError;
    /// assert_eq!(PushError::Busy(3).into_inner(), 3);
    /// ```
    #[inline]
    pub fn into_inner(self) -> T {
        match self {
            PushError::Full(item) | PushError::Busy(item) | PushError::Closed(item) => item,
        }
    }

    /// The reason, without the item.
    ///
    /// ```
    /// # use sluicegate::mpmc::burst_ring::{PushError, Stop};
    /// assert_eq!(PushError::Full(3).stop(), Stop::Full);
    /// ```
    #[inline]
    pub fn stop(&self) -> Stop {
        match self {
            PushError::Full(_) => Stop::Full,
            PushError::Busy(_) => Stop::Busy,
            PushError::Closed(_) => Stop::Closed,
        }
    }
}

impl<T> fmt::Debug for PushError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PushError::Full(_) => "Full(..)",
            PushError::Busy(_) => "Busy(..)",
            PushError::Closed(_) => "Closed(..)",
        })
    }
}

impl<T> fmt::Display for PushError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.stop(), f)
    }
}

impl<T> core::error::Error for PushError<T> {}

/// Why [`BurstRing::try_pop`](super::BurstRing::try_pop) returned no item.
///
/// ```
/// use sluicegate::mpmc::burst_ring::{BurstRing, PopError};
///
/// let ring: BurstRing<u8, 2, 1> = BurstRing::new();
/// assert_eq!(ring.try_pop(), Err(PopError::Empty));
/// ring.close();
/// assert_eq!(ring.try_pop(), Err(PopError::Closed));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PopError {
    /// Nothing to pop now; more may come.
    Empty,
    /// The oldest item is still being pushed (counted in `busy`).
    Busy,
    /// Closed and drained: nothing will ever come again.
    Closed,
}

impl PopError {
    /// The reason as a [`Stop`].
    ///
    /// ```
    /// # use sluicegate::mpmc::burst_ring::{PopError, Stop};
    /// assert_eq!(PopError::Busy.stop(), Stop::Busy);
    /// ```
    #[inline]
    pub fn stop(self) -> Stop {
        match self {
            PopError::Empty => Stop::Empty,
            PopError::Busy => Stop::Busy,
            PopError::Closed => Stop::Closed,
        }
    }
}

impl fmt::Display for PopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.stop(), f)
    }
}

impl core::error::Error for PopError {}
