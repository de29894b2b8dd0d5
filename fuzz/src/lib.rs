//! Shared pieces of the fuzz targets: where positions start, and a checker
//! that compares a ring against a `VecDeque` model.

use arbitrary::Arbitrary;

/// Where a ring's positions start, so wrap-around at every integer limit the
/// ring uses is reached by short inputs.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Start {
    Zero,
    /// Just below `usize::MAX` (Reject positions wrap there).
    NearUsizeMax(u8),
    /// Just below `u32::MAX` (where a 32-bit MCU wraps).
    NearU32Max(u8),
    /// Just below `usize::MAX / 2` (Overwrite stores positions doubled).
    NearHalfUsize(u8),
    /// Just below `u32::MAX / 2`.
    NearHalfU32(u8),
    Any(usize),
}

impl Start {
    pub fn position(self) -> usize {
        match self {
            Start::Zero => 0,
            Start::NearUsizeMax(k) => usize::MAX - k as usize,
            Start::NearU32Max(k) => u32::MAX as usize - k as usize,
            Start::NearHalfUsize(k) => (usize::MAX >> 1) - k as usize,
            Start::NearHalfU32(k) => (u32::MAX >> 1) as usize - k as usize,
            Start::Any(p) => p,
        }
    }
}

/// Which capacity to test: small, so full and empty are reached often.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Cap {
    One,
    Two,
    Eight,
}
