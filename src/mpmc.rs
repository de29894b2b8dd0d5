//! Multi-producer/multi-consumer ring (not yet written).
