//! The burst ring's watermarks: the level at the band's edges for every
//! pair of marks, every push and pop path against a model of the count
//! with hysteresis (random sequences), the transition count, a ring
//! without marks that has none, and real threads where producers slow
//! their source on `High` (exact accounting, nothing shed, the queue never
//! more than one item per producer above the high mark). The waits need
//! `std` (and the async one `async`).
#![cfg(not(sluicegate_loom))]

use sluicegate::mpmc::burst_ring::{BurstRing, Level, Marked, Stop};

/// The ring under test in `common/drain_waits.rs`.
#[cfg(feature = "std")]
type MarkedRing<T, const N: usize> = BurstRing<T, N, 1, Marked>;
/// The burst ring samples the count for `peak` only now and then.
#[cfg(feature = "std")]
const EXACT_PEAK: bool = false;

#[macro_use]
#[path = "common/band_edges.rs"]
mod band_edges;
band_edges_test!(BurstRing<u32, 8, 1, Marked>);

#[test]
fn a_ring_without_marks_counts_no_transition() {
    let ring: BurstRing<u8, 4, 1> = BurstRing::new();
    ring.push_burst(&[1, 2, 3, 4]);
    ring.clear();
    assert_eq!(ring.stats().transitions, 0);
    assert!(!format!("{ring:?}").contains("level"));
}

/// The level a single thread must see after each step: the count with
/// hysteresis.
struct Model {
    low: usize,
    high: usize,
    count: usize,
    high_now: bool,
    transitions: usize,
}

impl Model {
    fn moved(&mut self, count: usize) {
        self.count = count;
        if !self.high_now && count >= self.high {
            self.high_now = true;
            self.transitions += 1;
        } else if self.high_now && count <= self.low {
            self.high_now = false;
            self.transitions += 1;
        }
    }
}

/// A small xorshift, so the sequences are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Random sequences of every push and pop path on rings of 8 and 1 with
/// every pair of marks; after each step the level and the transitions are
/// the model's. A path is checked step by step, so one that skips its test
/// of the marks (or tests the count before its claim) fails here.
fn model_check<const N: usize>(steps: usize, seed: u64) {
    for high in 1..=N {
        for low in 0..high {
            let ring: BurstRing<u32, N, 1, Marked> = BurstRing::with_watermarks(low, high);
            let mut m = Model {
                low,
                high,
                count: 0,
                high_now: false,
                transitions: 0,
            };
            let mut rng = Rng(seed ^ ((low * 31 + high) as u64) << 8 | 1);
            for step in 0..steps {
                let op = rng.below(14);
                let k = 1 + rng.below(N);
                match op {
                    0 => {
                        let _ = ring.try_push(7);
                    }
                    1 => {
                        ring.push_burst(&vec![7; k]);
                    }
                    2 => {
                        let _ = ring.push_bulk(&vec![7; k]);
                    }
                    3 => {
                        // On a full ring whose oldest positions are voids,
                        // the push passes them as a pop would (the count
                        // falls), then stores into the slot that freed.
                        let full = ring.len() == N;
                        if ring.push_overwrite(7) == Ok(None) && full {
                            m.moved(ring.len() - 1);
                        }
                    }
                    4 => {
                        // A write chunk filled in part: the rest are voids,
                        // which a later pop passes (and which count until
                        // then, as claimed positions), or the chunk's drop
                        // if they are at the front. The claim counts its
                        // positions first.
                        if let Ok(chunk) = ring.write_chunk(k) {
                            m.moved(ring.len());
                            let fill = rng.below(chunk.len() + 1);
                            chunk.fill_from_slice(&vec![7; fill]);
                        }
                    }
                    5 => {
                        let _ = ring.try_pop();
                    }
                    6 => {
                        ring.pop_burst(&mut vec![0; k]);
                    }
                    7 => {
                        let _ = ring.pop_bulk(&mut vec![0; k]);
                    }
                    8 => {
                        if let Ok(chunk) = ring.read_chunk(k) {
                            chunk.release();
                        }
                    }
                    9 => {
                        let _ = ring.try_pop_fresh(|_: &u32| rng.below(2) == 0);
                    }
                    10 => {
                        ring.pop_burst_fresh(&mut vec![0; k], |_: &u32| false);
                    }
                    11 => {
                        ring.drain().take(k).count();
                    }
                    12 => {
                        if rng.below(8) == 0 {
                            ring.clear();
                        }
                    }
                    _ => {
                        let _ = ring.try_push(7);
                        let _ = ring.try_push(7);
                    }
                }
                m.moved(ring.len());
                let want = if m.high_now {
                    Level::High
                } else {
                    Level::Normal
                };
                assert_eq!(
                    ring.level(),
                    want,
                    "N {N} low {low} high {high} step {step} op {op} count {}",
                    m.count
                );
                assert_eq!(
                    ring.stats().transitions,
                    m.transitions,
                    "step {step} op {op}"
                );
            }
        }
    }
}

#[test]
fn every_path_against_the_model() {
    let steps = if cfg!(miri) { 40 } else { 400 };
    model_check::<8>(steps, 0x9e37_79b9);
    model_check::<4>(steps, 0x1234_5678);
    model_check::<1>(steps, 0x0bad_cafe);
}

#[test]
fn a_closed_ring_lowers_as_it_drains() {
    let ring: BurstRing<u8, 8, 1, Marked> = BurstRing::with_watermarks(2, 6);
    ring.push_burst(&[0; 7]);
    assert_eq!(ring.level(), Level::High);
    ring.close();
    while ring.len() > 3 {
        ring.try_pop().unwrap();
        assert_eq!(ring.level(), Level::High);
    }
    ring.try_pop().unwrap();
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(ring.stats().transitions, 2);
    ring.clear();
    assert_eq!(ring.pop_burst(&mut [0; 2]).stop, Some(Stop::Closed));
    assert_eq!(ring.level(), Level::Normal);
}

#[test]
fn debug_shows_the_level() {
    let ring: BurstRing<u8, 4, 1, Marked> = BurstRing::with_watermarks(1, 2);
    ring.push_burst(&[1, 2]);
    let text = format!("{ring:?}");
    assert!(text.contains("level: High"), "{text}");
}

/// The waits and slowed sources both MPMC rings with marks share.
#[cfg(feature = "std")]
#[macro_use]
#[path = "common/drain_waits.rs"]
mod drain_waits;

#[cfg(feature = "std")]
mod shared {
    use super::drain_waits;
    drain_wait_tests!();
}

/// One producer that tests the level after every push never has more than
/// `high` items in the ring: the push that reaches the mark raises the
/// level before it returns. The producer reads the length itself, right
/// after each push (only pops run meanwhile, which can only lower it).
#[cfg(feature = "std")]
#[test]
fn one_obeying_producer_never_passes_the_high_mark() {
    const ITEMS: usize = if cfg!(miri) { 300 } else { 50_000 };
    static RING: BurstRing<usize, 32, 1, Marked> = BurstRing::with_watermarks(8, 20);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut got = 0;
            while got < ITEMS {
                let mut out = [0; 3];
                got += RING.pop_burst(&mut out).count;
                std::thread::yield_now();
            }
        });
        let mut most = 0;
        for i in 0..ITEMS {
            RING.push_blocking(i).unwrap();
            most = most.max(RING.len());
            if RING.level() == Level::High {
                RING.wait_below_low_blocking().unwrap();
            }
        }
        assert!(most <= 20, "{most} items in the ring, high mark 20");
    });
}

/// 64 drain waiters, threads and tasks, while a consumer lowers the level
/// and the close races it: each ends with `Ok` or `Closed`, none hangs.
#[cfg(feature = "std")]
#[test]
fn sixty_four_drain_waiters() {
    let (rounds, waiters) = if cfg!(miri) { (1, 8) } else { (20, 64) };
    for _ in 0..rounds {
        let ring: BurstRing<u8, 8, 1, Marked> = BurstRing::with_watermarks(2, 6);
        ring.push_burst(&[0; 7]);
        std::thread::scope(|s| {
            let ring = &ring;
            let waiters: Vec<_> = (0..waiters)
                .map(|i| {
                    s.spawn(move || {
                        if i % 2 == 0 {
                            ring.wait_below_low_blocking()
                        } else {
                            pollster::block_on(ring.wait_below_low())
                        }
                    })
                })
                .collect();
            s.spawn(move || {
                ring.pop_burst(&mut [0; 5]);
                ring.close();
            });
            for w in waiters {
                let r = w.join().unwrap();
                assert!(r.is_ok() || r == Err(sluicegate::Closed(())));
            }
        });
        assert_eq!(ring.level(), Level::Normal);
    }
}
