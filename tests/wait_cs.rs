//! The waits of `mpmc::cs::Ring` (features `async` and `critical-section`;
//! the blocking ones park with `std` too): the tests of
//! `tests/common/ring_waits.rs`, which `tests/wait.rs` runs on `mpmc::Ring`.
//! The ring's critical sections are those of `critical-section`'s `std`
//! implementation (a global mutex).
#![cfg(not(sluicegate_loom))]

use sluicegate::mpmc::cs::Ring;
/// The 64-slot ring of the shared tests.
type Ring64 = Ring<u32, 64>;

#[path = "common/ring_waits.rs"]
mod ring_waits;
