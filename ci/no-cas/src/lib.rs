//! See Cargo.toml: each feature is one use of an item that needs
//! compare-and-swap, on a target without it.
#![no_std]

use sluicegate::spsc::Ring;

/// What works without compare-and-swap: the reject ring, split through `&mut`.
pub fn reject_ring() -> Option<u8> {
    let mut ring: Ring<u8, 4> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    tx.try_push(1).ok()?;
    rx.try_pop()
}

#[cfg(feature = "limit")]
pub fn limit(limiter: &sluicegate::limit::Limiter) -> bool {
    limiter.try_acquire().is_some()
}

#[cfg(feature = "mpmc")]
pub static MPMC: sluicegate::mpmc::Ring<u8, 4> = sluicegate::mpmc::Ring::new();

#[cfg(feature = "mpmc-ring-with-cs")]
pub static MPMC_RING: sluicegate::mpmc::Ring<u8, 4> = sluicegate::mpmc::Ring::new();

#[cfg(feature = "overwrite")]
pub static LOG: Ring<u8, 4, sluicegate::spsc::Overwrite> = Ring::new();

#[cfg(feature = "try-split")]
pub fn try_split(ring: &'static Ring<u8, 4>) -> bool {
    ring.try_split().is_some()
}

#[cfg(feature = "flag-try-split")]
pub fn flag_try_split(ring: &'static sluicegate::spsc::flag::Ring<u8, 4>) -> bool {
    ring.try_split().is_some()
}
