//! `mpmc::Ring::push_burst` / `pop_burst`: against a model on one thread
//! (sizes across the round length, counters started just before both wrap
//! points, a close in the middle), and under threads with exact accounting
//! and per-producer order.
#![cfg(not(sluicegate_loom))]

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use sluicegate::mpmc::{FreeBits, FreeIndices, FreeMask, FreePool, Ring, SmallRing};
use std::collections::VecDeque;
use std::sync::Barrier;
use std::thread;

/// splitmix64: the op sequence of the model test.
fn next(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Random single and burst operations on `ring` against a `VecDeque`: the
/// counts, the items and their order, and the rejected counter agree.
fn against_model<const N: usize, F: FreePool<N>>(ring: &Ring<u32, N, F>, seed: u64, ops: usize) {
    let mut model = VecDeque::new();
    let mut s = seed;
    let mut v = 0u32;
    let mut rejected = 0;
    let mut max_len = 0;
    let mut buf = vec![0u32; 3 * N + 40];
    for step in 0..ops {
        let r = next(&mut s);
        // Sizes from 0 to past a round (32) and past the capacity.
        let k = (r >> 8) as usize % (N + 40).min(buf.len());
        match r % 4 {
            0 => {
                let items: Vec<u32> = (0..k as u32).map(|i| v + i).collect();
                let fit = k.min(N - model.len());
                assert_eq!(ring.push_burst(&items), fit, "step {step}: push_burst({k})");
                model.extend(&items[..fit]);
                rejected += k - fit;
                v += k as u32;
            }
            1 => {
                let want = k.min(model.len());
                assert_eq!(
                    ring.pop_burst(&mut buf[..k]),
                    want,
                    "step {step}: pop_burst({k})"
                );
                let expect: Vec<u32> = model.drain(..want).collect();
                assert_eq!(&buf[..want], &expect[..], "step {step}");
            }
            2 => {
                let ok = ring.try_push(v).is_ok();
                assert_eq!(ok, model.len() < N, "step {step}: try_push");
                if ok {
                    model.push_back(v);
                } else {
                    rejected += 1;
                }
                v += 1;
            }
            _ => assert_eq!(ring.try_pop(), model.pop_front(), "step {step}: try_pop"),
        }
        assert_eq!(ring.len(), model.len(), "step {step}: len");
        // The high-water mark: sampled by pops (every round of a burst, one
        // single pop in a period), so at most a period below the true one.
        max_len = max_len.max(model.len());
        let peak = ring.stats().peak;
        let slack = Ring::<u64, N>::PEAK_SAMPLE_EVERY - 1;
        assert!(
            peak <= max_len && peak + slack >= max_len,
            "step {step}: peak {peak}, true {max_len}"
        );
    }
    assert_eq!(ring.stats().rejected, rejected);
}

fn ops() -> usize {
    if cfg!(miri) {
        300
    } else {
        20_000
    }
}

#[test]
fn bursts_match_a_fifo_model() {
    against_model(&Ring::<u32, 1>::new(), 1, ops());
    against_model(&Ring::<u32, 4>::new(), 2, ops());
    against_model(&Ring::<u32, 32>::new(), 3, ops());
    against_model(&Ring::<u32, 64>::new(), 4, ops());
    against_model(&SmallRing::<u32, 1>::new(), 11, ops());
    against_model(&SmallRing::<u32, 4>::new(), 12, ops());
    against_model(&SmallRing::<u32, 32>::new(), 13, ops());
    against_model(&SmallRing::<u32, 64>::new(), 14, ops());
    against_model(&Ring::<u32, 4, FreeBits<1>>::new(), 21, ops());
    against_model(&Ring::<u32, 64, FreeBits<2>>::new(), 22, ops());
    against_model(&Ring::<u32, 128, FreeBits<4>>::new(), 23, ops());
}

#[test]
fn bursts_across_both_wrap_points() {
    // Just before the cycle field's wrap and before usize's.
    for start in [(usize::MAX >> 1) - 50, usize::MAX - 50] {
        against_model(&Ring::<u32, 8>::with_start(start), 5, ops() / 4);
        against_model(&Ring::<u32, 64>::with_start(start), 6, ops() / 4);
        against_model(&SmallRing::<u32, 8>::with_start(start), 7, ops() / 4);
        against_model(
            &Ring::<u32, 64, FreeBits<2>>::with_start(start),
            8,
            ops() / 4,
        );
    }
}

#[test]
fn burst_on_a_closed_ring() {
    let ring: Ring<u8, 8> = Ring::new();
    assert_eq!(ring.push_burst(&[1, 2, 3]), 3);
    ring.close();
    assert_eq!(ring.push_burst(&[4, 5]), 0);
    assert_eq!(
        ring.stats().rejected,
        0,
        "a closed ring's refusals are not rejections"
    );
    let mut out = [0; 8];
    assert_eq!(ring.pop_burst(&mut out), 3);
    assert_eq!(out[..3], [1, 2, 3]);
    assert_eq!(ring.pop_burst(&mut out), 0);
    assert!(ring.try_pop_or_closed().is_err());
}

const PRODUCERS: usize = 3;
const CONSUMERS: usize = 3;

fn per_producer() -> usize {
    if cfg!(miri) {
        200
    } else {
        300_000
    }
}

/// Producers push bursts of 1 to 40 items (and single items), consumers pop
/// bursts of 1 to 40: every item comes out exactly once, each producer's in
/// push order as seen by any one consumer.
fn stress<const N: usize, F: FreePool<N>>() {
    let m = per_producer();
    let ring: Ring<u64, N, F> = Ring::new();
    let seen: Vec<AtomicBool> = (0..PRODUCERS * m).map(|_| AtomicBool::new(false)).collect();
    let taken = AtomicUsize::new(0);
    let start = Barrier::new(PRODUCERS + CONSUMERS);
    thread::scope(|s| {
        for p in 0..PRODUCERS {
            let (ring, start) = (&ring, &start);
            s.spawn(move || {
                start.wait();
                let mut seed = p as u64 + 100;
                let mut sent = 0;
                while sent < m {
                    let k = (1 + next(&mut seed) % 40).min((m - sent) as u64) as usize;
                    let items: Vec<u64> = (sent..sent + k)
                        .map(|i| ((p as u64) << 32) | i as u64)
                        .collect();
                    let n = if k == 1 {
                        usize::from(ring.try_push(items[0]).is_ok())
                    } else {
                        ring.push_burst(&items)
                    };
                    sent += n;
                    if n == 0 {
                        thread::yield_now();
                    }
                }
            });
        }
        for c in 0..CONSUMERS {
            let (ring, seen, taken, start) = (&ring, &seen, &taken, &start);
            s.spawn(move || {
                start.wait();
                let mut seed = c as u64 + 200;
                let mut last = [None::<usize>; PRODUCERS];
                let mut buf = [0u64; 40];
                while taken.load(Ordering::Relaxed) < PRODUCERS * m {
                    let k = 1 + (next(&mut seed) % 40) as usize;
                    let n = ring.pop_burst(&mut buf[..k]);
                    if n == 0 {
                        thread::yield_now();
                        continue;
                    }
                    for &v in &buf[..n] {
                        let (p, i) = ((v >> 32) as usize, (v & 0xffff_ffff) as usize);
                        assert!(p < PRODUCERS && i < m, "corrupt item {v:#x}");
                        assert!(
                            !seen[p * m + i].swap(true, Ordering::Relaxed),
                            "duplicate {v:#x}"
                        );
                        assert!(
                            last[p].is_none_or(|l| l < i),
                            "producer {p}: {i} after {:?}",
                            last[p]
                        );
                        last[p] = Some(i);
                    }
                    taken.fetch_add(n, Ordering::Relaxed);
                }
            });
        }
    });
    assert!(seen.iter().all(|b| b.load(Ordering::Relaxed)), "items lost");
    assert_eq!(ring.try_pop(), None);
    assert_eq!(ring.len(), 0);
}

#[test]
fn stress_bursts_n2() {
    stress::<2, FreeIndices<2>>();
    stress::<2, FreeMask>();
    stress::<2, FreeBits<1>>();
}

#[test]
fn stress_bursts_n16() {
    stress::<16, FreeIndices<16>>();
    if !cfg!(miri) {
        stress::<16, FreeMask>();
    }
}

#[test]
fn stress_bursts_n128() {
    stress::<128, FreeIndices<128>>();
}

#[test]
#[cfg_attr(
    miri,
    ignore = "Miri runs the mask's and the bits' burst stress at N = 2"
)]
fn stress_bursts_n64_mask_and_bits() {
    stress::<64, FreeMask>();
    stress::<64, FreeBits<2>>();
    stress::<128, FreeBits<4>>();
}
