//! The MPMC ring's bursts (each free pool), sequentially, against a `VecDeque`: push_burst
//! and pop_burst of any length (across the 32-item round and the
//! capacity) mixed with single pushes and pops and a close, from arbitrary
//! starting positions (so every wrap point is reached). `u64` items: bursts
//! need `T: Copy`.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::mpmc::{FreeBits, FreeIndices, FreeMask, FreePool, Ring};
use sluicegate_fuzz::{Cap, Pool, Start};

#[derive(Arbitrary, Debug)]
enum Op {
    Push,
    Pop,
    PushBurst(u8),
    PopBurst(u8),
    Close,
}

#[derive(Arbitrary, Debug)]
struct Input {
    pool: Pool,
    cap: Cap,
    start: Start,
    ops: Vec<Op>,
}

fn run<const N: usize, F: FreePool<N>>(start: usize, ops: &[Op]) {
    let ring: Ring<u64, N, F> = Ring::with_start(start);
    let mut model = VecDeque::new();
    let (mut next, mut rejected, mut closed) = (0u64, 0, false);
    let mut buf = [0u64; 256];
    for op in ops {
        match *op {
            Op::Push => {
                next += 1;
                match ring.try_push(next) {
                    Ok(()) => model.push_back(next),
                    Err(e) => {
                        assert!(closed || model.len() == N);
                        assert_eq!(e.is_closed(), closed);
                        rejected += usize::from(!closed);
                    }
                }
            }
            Op::Pop => {
                let got = if closed {
                    ring.try_pop_or_closed().ok()
                } else {
                    ring.try_pop()
                };
                assert_eq!(got, model.pop_front());
            }
            Op::PushBurst(k) => {
                let k = usize::from(k);
                let items: Vec<u64> = (1..=k as u64).map(|i| next + i).collect();
                let room = if closed { 0 } else { N - model.len() };
                let n = ring.push_burst(&items);
                assert_eq!(n, k.min(room));
                model.extend(&items[..n]);
                if !closed {
                    rejected += k - n;
                }
                next += k as u64;
            }
            Op::PopBurst(k) => {
                let k = usize::from(k);
                let n = ring.pop_burst(&mut buf[..k]);
                // After a close, refused pushes leave unused positions that
                // a burst may stop at; it never takes more than is there.
                if closed {
                    assert!(n <= k.min(model.len()));
                } else {
                    assert_eq!(n, k.min(model.len()));
                }
                let expect: Vec<u64> = model.drain(..n).collect();
                assert_eq!(&buf[..n], &expect[..]);
            }
            Op::Close => {
                assert_eq!(ring.close(), !closed);
                closed = true;
            }
        }
        if !closed {
            assert_eq!(ring.len(), model.len());
        }
        assert_eq!(ring.stats().rejected, rejected);
    }
    // Whatever is left comes out in order.
    let mut rest = Vec::new();
    while let Ok(v) = ring.try_pop_or_closed() {
        rest.push(v);
    }
    if !closed {
        // An open ring answers "empty" only when it is.
        assert!(ring.try_pop().is_none());
    }
    assert_eq!(rest, model.into_iter().collect::<Vec<_>>());
}

fuzz_target!(|input: Input| {
    let start = input.start.position();
    let ops = &input.ops;
    match (input.pool, input.cap) {
        (Pool::Indices, Cap::One) => run::<1, FreeIndices<1>>(start, ops),
        (Pool::Indices, Cap::Two) => run::<2, FreeIndices<2>>(start, ops),
        (Pool::Indices, Cap::Eight) => run::<8, FreeIndices<8>>(start, ops),
        (Pool::Mask, Cap::One) => run::<1, FreeMask>(start, ops),
        (Pool::Mask, Cap::Two) => run::<2, FreeMask>(start, ops),
        (Pool::Mask, Cap::Eight) => run::<8, FreeMask>(start, ops),
        (Pool::Bits, Cap::One) => run::<1, FreeBits<1>>(start, ops),
        (Pool::Bits, Cap::Two) => run::<2, FreeBits<1>>(start, ops),
        (Pool::Bits, Cap::Eight) => run::<8, FreeBits<1>>(start, ops),
        (Pool::Bits64, _) => run::<64, FreeBits<2>>(start, ops),
    }
});
