//! Nothing here: the package exists for its benchmarks (`spsc.rs`,
//! `mpmc.rs`, `limit.rs`, with their shared harness in `common/`).
