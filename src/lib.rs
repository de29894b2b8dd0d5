#![doc = include_str!("../README.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
// docs.rs: show the public condition (native CAS or the `portable-atomic`
// feature, written out with `doc(cfg)` on each CAS-only item) rather than the
// build-script and test cfgs behind it.
#![cfg_attr(docsrs, doc(auto_cfg(hide(sluicegate_cas, sluicegate_loom))))]
// The library itself: core only, integer arithmetic only (tests may differ).
#![warn(clippy::std_instead_of_core, clippy::float_arithmetic)]

#[cfg(any(test, feature = "std"))]
extern crate std;

// loom is a dev-dependency: the loom cfg builds only the library's own unit
// tests, the loom models.
#[cfg(all(sluicegate_loom, not(test)))]
compile_error!(
    "sluicegate: `--cfg sluicegate_loom` is for the loom models, which are unit tests: run `cargo test --lib` (see ci/loom.sh)"
);

#[cfg(all(feature = "async", not(sluicegate_cas)))]
compile_error!(
    "sluicegate: the `async` feature needs compare-and-swap; on thumbv6m enable `portable-atomic` too"
);

#[cfg(any(sluicegate_cas, feature = "critical-section"))]
mod contract;
pub mod expire;
#[cfg(all(feature = "async", sluicegate_cas))]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub mod future;
mod observe;
mod outcome;
mod spin;
mod sync;
#[cfg(all(feature = "async", sluicegate_cas))]
mod wait;

// Modules that need compare-and-swap: `sluicegate_cas` is set by build.rs
// where it exists (natively, with the `portable-atomic` feature, or under loom).
// The comment on each CAS gate's line is what a user without CAS reads: rustc
// shows that line when code names an item it compiled out ("found an item that
// was configured out ... the item is gated here"; ci/embedded.sh checks it).
#[cfg(sluicegate_cas)] // needs CAS: on thumbv6m, enable the `portable-atomic` feature
#[cfg_attr(
    docsrs,
    doc(cfg(any(target_has_atomic = "ptr", feature = "portable-atomic")))
)]
pub mod limit;
// `mpmc` also exists without CAS when the `critical-section` feature brings
// `mpmc::cs`, which needs no atomics; its SCQ `Ring` then is compiled out.
#[cfg(any(
    sluicegate_cas, // needs CAS: on thumbv6m, enable the `portable-atomic` feature
    feature = "critical-section", // for `mpmc::cs` alone
))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(
        target_has_atomic = "ptr",
        feature = "portable-atomic",
        feature = "critical-section"
    )))
)]
pub mod mpmc;
pub mod spsc;

pub use outcome::{Closed, Full, Insufficient, Overwritten, RingStats, TryPopError, TryPushError};
