//! `mpmc::Ring`'s watermarks: the level at the band's edges for every pair
//! of marks, every push and pop path against a model of the count with
//! hysteresis (random sequences), a ring without marks that has none, the
//! close, and (shared with the other rings with marks,
//! `common/drain_waits.rs`) slowed sources and the drain waits on real
//! threads. The waits need `std`.
#![cfg(not(sluicegate_loom))]

use sluicegate::mpmc::{FreeIndices, FreeMask, Level, Marked, Ring};

/// The ring under test in `common/drain_waits.rs`.
#[cfg(feature = "std")]
type MarkedRing<T, const N: usize> = Ring<T, N, FreeIndices<N>, Marked>;
/// `Ring` samples the count for `peak` only now and then.
#[cfg(feature = "std")]
const EXACT_PEAK: bool = false;

#[macro_use]
#[path = "common/band_edges.rs"]
mod band_edges;
band_edges_test!(Ring<u32, 8, FreeIndices<8>, Marked>);

#[test]
fn a_ring_without_marks_counts_no_transition() {
    let ring: Ring<u8, 4> = Ring::new();
    ring.push_iter([1, 2, 3, 4]);
    ring.clear();
    assert_eq!(ring.stats().transitions, 0);
    assert!(!format!("{ring:?}").contains("level"));
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

/// Random sequences of every push and pop path with every pair of marks,
/// and the close; after each step the level and the transitions are what
/// the count with hysteresis says. A path that skips its test of the marks
/// fails here.
fn model_check<const N: usize, F: sluicegate::mpmc::FreePool<N>>(steps: usize, seed: u64) {
    for high in 1..=N {
        for low in 0..high {
            let ring: Ring<u32, N, F, Marked> = Ring::with_watermarks(low, high);
            let (mut count, mut raised, mut transitions) = (0, false, 0);
            let mut moved = |len: usize| {
                count = len;
                if !raised && len >= high || raised && len <= low {
                    raised = !raised;
                    transitions += 1;
                }
                (raised, transitions)
            };
            let mut rng = Rng(seed ^ ((low * 31 + high) as u64) << 8 | 1);
            for step in 0..steps {
                let op = rng.below(10);
                let k = 1 + rng.below(N);
                match op {
                    0 | 9 => {
                        let _ = ring.try_push(7);
                    }
                    1 => {
                        ring.push_burst(&vec![7; k]);
                    }
                    2 => {
                        ring.push_iter(std::iter::repeat_n(7, k));
                    }
                    3 => {
                        let _ = ring.push_overwrite(7);
                    }
                    4 => {
                        let _ = ring.try_pop();
                    }
                    5 => {
                        ring.pop_burst(&mut vec![0; k]);
                    }
                    6 => {
                        let _ = ring.try_pop_fresh(|_: &u32| rng.below(2) == 0);
                    }
                    7 => {
                        ring.drain().take(k).count();
                    }
                    _ => {
                        if rng.below(8) == 0 {
                            ring.clear();
                        } else if rng.below(16) == 0 {
                            // Closed, the pushes leave unused positions in
                            // `aq` that the count must leave out.
                            ring.close();
                        }
                    }
                }
                let (want_high, want_transitions) = moved(ring.len());
                let want = if want_high {
                    Level::High
                } else {
                    Level::Normal
                };
                assert_eq!(
                    ring.level(),
                    want,
                    "N {N} low {low} high {high} step {step} op {op}"
                );
                assert_eq!(
                    ring.stats().transitions,
                    want_transitions,
                    "step {step} op {op}"
                );
            }
            let _ = count;
        }
    }
}

#[test]
fn every_path_against_the_model() {
    let steps = if cfg!(miri) { 40 } else { 400 };
    model_check::<8, FreeIndices<8>>(steps, 0x9e37_79b9);
    model_check::<4, FreeMask>(steps, 0x1234_5678);
    model_check::<1, FreeIndices<1>>(steps, 0x0bad_cafe);
}

/// Closed with items inside, the ring lowers as it drains; once drained,
/// the level is `Normal` (the count leaves out the positions the refused
/// pushes took).
#[test]
fn a_closed_ring_lowers_as_it_drains() {
    let ring: Ring<u8, 8, FreeIndices<8>, Marked> = Ring::with_watermarks(2, 6);
    ring.push_iter([0; 7]);
    assert_eq!(ring.level(), Level::High);
    ring.close();
    for _ in 0..5 {
        assert!(ring.try_push(1).is_err()); // refused: a position left unused
    }
    while ring.len() > 3 {
        ring.try_pop().unwrap();
        assert_eq!(ring.level(), Level::High);
    }
    ring.try_pop().unwrap();
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(ring.stats().transitions, 2);
    ring.clear();
    assert_eq!(ring.level(), Level::Normal);
}

#[test]
fn debug_shows_the_level() {
    let ring: Ring<u8, 4, FreeIndices<4>, Marked> = Ring::with_watermarks(1, 2);
    ring.push_iter([1, 2]);
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
