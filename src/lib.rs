#![doc = include_str!("../README.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The library itself: core only, integer arithmetic only (tests may differ).
#![warn(clippy::std_instead_of_core, clippy::float_arithmetic)]

#[cfg(test)]
extern crate std;

mod error;
mod sync;

pub mod limit;
pub mod mpmc;
pub mod spsc;

pub use error::{Full, Insufficient};
