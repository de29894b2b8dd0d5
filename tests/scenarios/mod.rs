//! A deterministic virtual-time scenario suite for concurrency limiters:
//! the crate's limiters next to models of the anchors (Netflix
//! concurrency-limits, Envoy's adaptive concurrency, a static limit), all on
//! the same arrivals.
//!
//! * [`harness`] has the scenario, its options, the metrics and the
//!   [`harness::SimLimiter`] interface;
//! * [`engine`] has the event loop, [`metrics`] its tallies;
//! * [`door`] has the queue before the workers (a FIFO, the crate's
//!   `mpmc::Ring`, or an `spsc::Ring` with watermarks fed by a source that
//!   can be slowed);
//! * [`service`] has the service-time model and the seeded arithmetic;
//! * [`anchors`] has the anchor models;
//! * [`crate_limiters`] has the adapter for the crate's limiters and their
//!   rows (the only file that uses the crate's API);
//! * [`clients`] has the closed-loop clients;
//! * [`catalogue`] has the scenarios;
//! * [`table`] prints them;
//! * [`goals`] has the goals the crate's presets are held to, as checks.
//!
//! Compiled by `tests/limit_scenarios.rs` (short runs, in `cargo test`), by
//! `tests/limit_sim.rs` (load and capacity phases) and by
//! `examples/limit_scenarios.rs` (the full table).
#![allow(dead_code)] // each includer uses a different part

pub mod anchors;
pub mod catalogue;
pub mod clients;
pub mod crate_limiters;
pub mod door;
pub mod engine;
pub mod goals;
pub mod harness;
pub mod metrics;
pub mod service;
pub mod table;

use harness::Row;

/// Every row: the crate's first, then the anchors.
pub fn rows() -> Vec<Row> {
    let mut v = crate_limiters::crate_rows();
    v.extend(anchors::anchor_rows());
    v
}
