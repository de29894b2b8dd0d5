#![doc = include_str!("../README.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(test)]
extern crate std;

mod error;
mod sync;

pub mod limit;
pub mod mpmc;
pub mod spsc;

pub use error::{Full, Insufficient};
