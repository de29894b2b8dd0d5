//! `mpmc::BurstRing` on one thread, against a model that knows `Busy`:
//! random pushes, pops, bursts, bulks, evictions and read chunks held
//! across the other operations, at several capacities, from position 0 and
//! from just before the counters wrap. Every answer, every item and every
//! counter is checked against the model.

#[path = "common/burst_model.rs"]
mod burst_model;
#[path = "common/splitmix.rs"]
mod splitmix;

use burst_model::Driver;
// What the model file reaches through `super::`.
use sluicegate::mpmc::burst_ring::{
    BurstRing, Level, Marked, Marks, Moved, NoMarks, PopError, PushError, ReadChunk, Stop,
    WriteChunk,
};

fn run<const N: usize, const W: usize>(seed: u64, start: usize, steps: usize) {
    let ring: BurstRing<u32, N, W> = BurstRing::with_start(start);
    let mut d = Driver::new(N, seed);
    let ctx = format!("seed {seed} start {start}");
    d.ops(&ring, steps, &ctx);
    d.release_all();
    d.check(&ring, &ctx);
}

/// Seeds per capacity and start; more under `SLUICEGATE_MODEL_SEEDS`.
fn seeds() -> u64 {
    std::env::var("SLUICEGATE_MODEL_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(miri) { 1 } else { 24 })
}

/// A start a few laps before the counters wrap (positions count modulo
/// `2^(usize::BITS - 2)`).
const NEAR_WRAP: usize = (1 << (usize::BITS - 2)) - 256;

/// [`run`] on a ring with watermarks `low` and `high`: the driver also
/// checks the level after every step.
fn run_marked<const N: usize, const W: usize>(seed: u64, start: usize, steps: usize) {
    let high = 1 + seed as usize % N;
    let low = (seed as usize / N) % high;
    let ring: BurstRing<u32, N, W, Marked> = BurstRing::with_start_and_watermarks(start, low, high);
    let mut d = Driver::new(N, seed).with_level(|r| {
        let (low, high) = r.watermarks();
        Some((r.level(), low, high))
    });
    let ctx = format!("seed {seed} start {start} marks {low} {high}");
    d.ops(&ring, steps, &ctx);
    d.release_all();
    d.check(&ring, &ctx);
}

fn each<const N: usize, const W: usize>() {
    let steps = if cfg!(miri) { 150 } else { 3000 };
    for seed in 0..seeds() {
        run::<N, W>(seed, 0, steps);
        run::<N, W>(seed, NEAR_WRAP, steps);
        run_marked::<N, W>(seed, 0, steps);
        run_marked::<N, W>(seed, NEAR_WRAP, steps);
    }
}

#[test]
fn matches_the_model_at_1_slot() {
    each::<1, 1>();
}

#[test]
fn matches_the_model_at_2_slots() {
    each::<2, 1>();
}

#[test]
fn matches_the_model_at_8_slots() {
    each::<8, 1>();
}

#[test]
fn matches_the_model_at_32_slots() {
    each::<32, 1>();
}

#[test]
fn matches_the_model_at_64_slots() {
    each::<64, 2>();
}

#[test]
fn matches_the_model_at_128_slots() {
    each::<128, 4>();
}

/// On a closed ring of more than one slot, a pop still holding the last
/// items (a read chunk) does not hold back "closed and drained" from the
/// others: no item can come after it. On a ring of one slot it does (it
/// looks like an eviction between its claims), and the others answer busy
/// until it is released.
#[test]
fn a_pop_in_progress_does_not_hide_the_drained_end() {
    let ring: BurstRing<u32, 2, 1> = BurstRing::new();
    ring.push_burst(&[1, 2]);
    ring.close();
    let chunk = ring.read_chunk(2).unwrap();
    assert_eq!(ring.try_pop(), Err(PopError::Closed));
    drop(chunk);
    assert_eq!(ring.try_pop(), Err(PopError::Closed));

    let ring: BurstRing<u32, 1, 1> = BurstRing::new();
    ring.try_push(1).unwrap();
    ring.close();
    let chunk = ring.read_chunk(1).unwrap();
    assert_eq!(ring.try_pop(), Err(PopError::Busy));
    drop(chunk);
    assert_eq!(ring.try_pop(), Err(PopError::Closed));
}

/// A bulk longer than the ring never fits; on a closed ring it says
/// `Closed` (and counts nothing), as a bulk that fits would, so a loop of
/// bulks ends on a closed ring whatever their size.
#[test]
fn oversized_bulks_on_a_closed_ring_say_closed() {
    let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    assert_eq!(ring.push_bulk(&[0; 5]), Err(Stop::Full));
    assert_eq!(ring.stats().rejected, 5);
    let mut out = [0; 5];
    assert_eq!(ring.pop_bulk(&mut out), Err(Stop::Empty));
    ring.try_push(1).unwrap();
    ring.close();
    assert_eq!(ring.push_bulk(&[0; 5]), Err(Stop::Closed));
    assert_eq!(
        ring.stats().rejected,
        5,
        "a closed ring's refusal is not a rejection"
    );
    assert_eq!(ring.pop_bulk(&mut out), Err(Stop::Empty), "one item left");
    assert_eq!(ring.try_pop(), Ok(1));
    assert_eq!(ring.pop_bulk(&mut out), Err(Stop::Closed));
}
