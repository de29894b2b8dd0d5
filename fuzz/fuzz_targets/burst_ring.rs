//! `mpmc::BurstRing`, one operation at a time, against the model that the
//! integration tests use (`tests/common/burst_model.rs`), which knows when
//! the ring answers `Busy`: pushes, bursts, bulks, evicting pushes, pops,
//! read chunks held across the other operations and released in any order,
//! write chunks held and then filled whole, in part or not at all (their
//! unfilled slots left void), drain, clear and close, at capacities 1, 2,
//! 4, 32 and 64, from position 0, a few laps before the counters wrap, or
//! anywhere, with or without watermarks. Every answer (each `Moved`'s count
//! and stop included), every item, every counter, the high-water mark's
//! bounds, the observers and the level are checked after every step.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

// The random driver (`ops`) is the integration tests'; the target applies
// decoded operations instead.
#[allow(dead_code)]
#[path = "../../tests/common/burst_model.rs"]
mod burst_model;
#[path = "../../tests/common/splitmix.rs"]
mod splitmix;

use burst_model::{Driver, KINDS};
// What the model file reaches through `super::`.
use sluicegate::mpmc::burst_ring::{
    BurstRing, Level, Marked, Marks, Moved, NoMarks, PopError, PushError, ReadChunk, Stop,
    WriteChunk,
};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Cap {
    One,
    Two,
    Four,
    ThirtyTwo,
    SixtyFour,
}

/// Where the counters start (the ring rounds down to a whole lap).
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Start {
    Zero,
    /// This many positions before the counters wrap at `2^(usize::BITS - 2)`.
    NearWrap(u8),
    Any(usize),
}

impl Start {
    fn position(self) -> usize {
        match self {
            Start::Zero => 0,
            Start::NearWrap(k) => (1usize << (usize::BITS - 2)).wrapping_sub(1 + k as usize),
            Start::Any(p) => p,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    cap: Cap,
    start: Start,
    /// The driver's own draws: which held chunk to finish, and how.
    seed: u64,
    may_close: bool,
    /// Watermarks (`low`, `high`, each modulo what fits), or none.
    marks: Option<(u8, u8)>,
    /// Each operation: its kind (modulo the driver's kinds) and its size
    /// (modulo `2N + 2`, plus 1).
    ops: Vec<(u8, u8)>,
}

fn run<const N: usize, const W: usize>(input: &Input) {
    match input.marks {
        None => {
            let ring = BurstRing::<u32, N, W>::with_start(input.start.position());
            drive(&ring, Driver::new(N, input.seed), input);
        }
        Some((low, high)) => {
            let high = 1 + high as usize % N;
            let low = low as usize % high;
            let ring = BurstRing::<u32, N, W, Marked>::with_start_and_watermarks(
                input.start.position(),
                low,
                high,
            );
            let d = Driver::new(N, input.seed).with_level(|r| {
                let (low, high) = r.watermarks();
                Some((r.level(), low, high))
            });
            drive(&ring, d, input);
        }
    }
}

/// The input's operations on `ring`, each checked by the driver.
fn drive<'r, const N: usize, const W: usize, M: Marks>(
    ring: &'r BurstRing<u32, N, W, M>,
    mut d: Driver<'r, N, W, M>,
    input: &Input,
) {
    d.may_close = input.may_close;
    let mut buf = vec![0u32; 2 * N + 3];
    for (i, &(kind, k)) in input.ops.iter().enumerate() {
        let ctx = format!("op {i}");
        let k = 1 + k as usize % (2 * N + 2);
        d.apply(ring, &mut buf, kind as u64 % KINDS, k, &ctx);
        d.check(ring, &ctx);
    }
    d.release_all();
    d.check(ring, "after releasing every chunk");
}

fuzz_target!(|input: Input| {
    match input.cap {
        Cap::One => run::<1, 1>(&input),
        Cap::Two => run::<2, 1>(&input),
        Cap::Four => run::<4, 1>(&input),
        Cap::ThirtyTwo => run::<32, 1>(&input),
        Cap::SixtyFour => run::<64, 2>(&input),
    }
});
