//! Single-producer/single-consumer ring (being written).
