//! Random schedules over the pause points. Three contexts each run a short
//! random sequence of pushes, evicting pushes, pops and bursts on a 2-slot
//! ring, one context at a time; at every pause point the scheduler may
//! switch to another, so a context can stay suspended mid-operation while
//! the others go round the ring several times. The loom models are too
//! small to reach that: their contexts do one or two operations each.
//!
//! The scheduler is PCT's ([`Pct`]), so a suspension that spans another
//! context's whole sequence is common rather than rare.
//!
//! After every schedule: each item is popped, handed back (refused or
//! evicted) or still in the ring, exactly once; each context's pops, and
//! the final drain, give every producer's items in the order it pushed
//! them; the ring still takes and gives `N` items in order, so no slot or
//! index was lost; and no pop answered "empty" (no push "full") while the
//! ring surely held an item (had a free slot) all through it ([`Track`](super::track::Track)).
//! At `N = 2` these schedules cannot exhaust `threshold`'s bound, so the
//! bound's own misuse is left to the unit tests in `scq.rs`.

extern crate std;

use super::track::{assert_accounted, run_schedule, schedules, Log, Track, Watch};
use super::{FreeBits, FreeIndices, FreeMask, FreePool, Ring};
use crate::sync::splitmix::Rng;
use crate::Overwritten;
use std::vec::Vec;

const N: usize = 2;
const CONTEXTS: usize = 3;
const OPS: usize = 8;

#[derive(Clone, Copy, Debug)]
enum Op {
    Push,
    Overwrite,
    Pop,
    PushBurst,
    PopBurst,
}

fn run_ops<F: FreePool<N>>(
    r: &Ring<u32, N, F>,
    c: usize,
    ops: &[Op],
    log: &mut Log,
    track: &Track<CONTEXTS>,
) {
    for op in ops {
        match op {
            Op::Push => {
                let v = log.make(c);
                track.begin(c, 0, 1, Watch::Push);
                match r.try_push(v) {
                    Ok(()) => track.end(c, 1, 0, false),
                    Err(e) => {
                        track.end(c, 0, 0, true);
                        log.back.push(e.into_inner());
                    }
                }
            }
            Op::Overwrite => {
                let v = log.make(c);
                track.begin(c, 1, 1, Watch::Nothing);
                match r.push_overwrite(v) {
                    Overwritten::Stored => track.end(c, 1, 0, false),
                    Overwritten::Evicted(old) => {
                        track.end(c, 1, 1, false);
                        log.back.push(old);
                    }
                    Overwritten::Rejected(back) => {
                        track.end(c, 0, 0, false);
                        log.back.push(back);
                    }
                }
            }
            Op::Pop => {
                track.begin(c, 1, 0, Watch::Pop);
                let got = r.try_pop();
                track.end(c, 0, got.is_some() as usize, got.is_none());
                log.popped.extend(got);
            }
            Op::PushBurst => {
                let items = [log.make(c), log.make(c)];
                track.begin(c, 0, 2, Watch::Push);
                let n = r.push_burst(&items);
                track.end(c, n, 0, n == 0);
                log.back.extend_from_slice(&items[n..]);
            }
            Op::PopBurst => {
                let mut out = [0; 2];
                track.begin(c, 2, 0, Watch::Pop);
                let n = r.pop_burst(&mut out);
                track.end(c, 0, n, n == 0);
                log.popped.extend_from_slice(&out[..n]);
            }
        }
    }
}

/// One random schedule of random operations on a fresh ring.
fn schedule<F: FreePool<N>>(seed: u64) {
    let mut rng = Rng(seed);
    let r = Ring::<u32, N, F>::new();
    let plans: Vec<Vec<Op>> = (0..CONTEXTS)
        .map(|_| {
            (0..OPS)
                .map(|_| match rng.below(5) {
                    0 => Op::Push,
                    1 => Op::Overwrite,
                    2 => Op::Pop,
                    3 => Op::PushBurst,
                    _ => Op::PopBurst,
                })
                .collect()
        })
        .collect();
    let track = Track::<CONTEXTS>::new(seed, N);
    let logs = run_schedule(&mut rng, &track, &plans, |c, ops, log| {
        run_ops(&r, c, ops, log, &track)
    });
    let mut drained = Vec::new();
    while let Some(v) = r.try_pop() {
        drained.push(v);
    }
    assert_accounted(&logs, &drained, seed, &plans);
    // No slot or index was lost: the ring still holds N, in order.
    for v in 0..N as u32 {
        assert!(r.try_push(v).is_ok(), "seed {seed}: a slot was lost");
    }
    for v in 0..N as u32 {
        assert_eq!(r.try_pop(), Some(v), "seed {seed}: an index was lost");
    }
    assert_eq!(r.try_pop(), None, "seed {seed}");
}

#[test]
#[cfg_attr(miri, ignore = "thousands of thread schedules; minutes under Miri")]
fn random_schedules_default_pool() {
    for seed in 0..schedules() {
        schedule::<FreeIndices<N>>(seed);
    }
}

#[test]
#[cfg_attr(miri, ignore = "thousands of thread schedules; minutes under Miri")]
fn random_schedules_mask_pool() {
    for seed in 0..schedules() {
        schedule::<FreeMask>(seed);
    }
}

#[test]
#[cfg_attr(miri, ignore = "thousands of thread schedules; minutes under Miri")]
fn random_schedules_bits_pool() {
    for seed in 0..schedules() {
        schedule::<FreeBits<1>>(seed);
    }
}
