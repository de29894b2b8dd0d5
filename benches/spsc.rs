//! SPSC benchmarks (being written).
fn main() {}
