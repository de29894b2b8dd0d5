//! Small error types that give the value back.

use core::fmt;

/// The ring was full: the item that could not be pushed, handed back.
///
/// `Debug` does not need `T: Debug`, so `.unwrap()` works on any payload.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Full<T>(pub T);

impl<T> Full<T> {
    /// The rejected item.
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
