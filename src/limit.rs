//! Adaptive (AIMD) concurrency limiter (not yet written).
