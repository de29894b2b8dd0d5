//! The reject SPSC ring, one operation at a time, against a `VecDeque`:
//! push, pop, peek, burst/bulk push and pop, write and read chunks of
//! arbitrary sizes, from arbitrary starting positions.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::spsc::Ring;
use sluicegate_fuzz::{Cap, Start};

#[derive(Arbitrary, Debug)]
enum Op {
    Push,
    Pop,
    Peek,
    PushBurst(u8),
    PushBulk(u8),
    PopBurst(u8),
    PopBulk(u8),
    /// Reserve up to `max` slots, write and commit `commit` of them.
    WriteChunk {
        max: u8,
        commit: u8,
    },
    /// Reserve up to `max` slots and fill them from an iterator of `n` items.
    FillChunk {
        max: u8,
        n: u8,
    },
    /// Claim up to `max` items, compare, commit `commit` of them.
    ReadChunk {
        max: u8,
        commit: u8,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    cap: Cap,
    start: Start,
    ops: Vec<Op>,
}

fn run<const N: usize>(start: usize, ops: &[Op]) {
    let mut ring: Ring<u64, N> = Ring::with_start(start);
    let (mut tx, mut rx) = ring.split();
    let mut model: VecDeque<u64> = VecDeque::new();
    let mut next = 0u64;
    let mut rejected = 0usize;
    let fresh = |next: &mut u64, n: usize| -> Vec<u64> {
        let v: Vec<u64> = (*next..*next + n as u64).collect();
        *next += n as u64;
        v
    };
    for op in ops {
        match *op {
            Op::Push => {
                let item = fresh(&mut next, 1)[0];
                match tx.try_push(item) {
                    Ok(()) => {
                        assert!(model.len() < N);
                        model.push_back(item);
                    }
                    Err(full) => {
                        assert_eq!(model.len(), N);
                        assert_eq!(full.into_inner(), item);
                        rejected += 1;
                    }
                }
            }
            Op::Pop => assert_eq!(rx.try_pop(), model.pop_front()),
            Op::Peek => assert_eq!(rx.peek().as_deref(), model.front()),
            Op::PushBurst(n) => {
                let items = fresh(&mut next, n as usize % (2 * N + 1));
                let pushed = tx.push_burst(&items);
                assert_eq!(pushed, items.len().min(N - model.len()));
                model.extend(&items[..pushed]);
                rejected += items.len() - pushed;
            }
            Op::PushBulk(n) => {
                let items = fresh(&mut next, n as usize % (2 * N + 1));
                let free = N - model.len();
                match tx.push_bulk(&items) {
                    Ok(()) => {
                        assert!(items.len() <= free);
                        model.extend(&items);
                    }
                    Err(e) => {
                        assert!(items.len() > free);
                        assert_eq!(e.available, free);
                        rejected += items.len();
                    }
                }
            }
            Op::PopBurst(n) => {
                let mut out = vec![0; n as usize % (2 * N + 1)];
                let got = rx.pop_burst(&mut out);
                assert_eq!(got, out.len().min(model.len()));
                for v in &out[..got] {
                    assert_eq!(Some(*v), model.pop_front());
                }
            }
            Op::PopBulk(n) => {
                let mut out = vec![0; n as usize % (2 * N + 1)];
                match rx.pop_bulk(&mut out) {
                    Ok(()) => {
                        for v in &out {
                            assert_eq!(Some(*v), model.pop_front());
                        }
                    }
                    Err(e) => {
                        assert!(out.len() > model.len());
                        assert_eq!(e.available, model.len());
                    }
                }
            }
            Op::WriteChunk { max, commit } => {
                let max = max as usize % (2 * N + 1);
                let mut chunk = tx.write_chunk_uninit_up_to(max);
                assert_eq!(chunk.len(), max.min(N - model.len()));
                let c = (commit as usize).min(chunk.len());
                let items = fresh(&mut next, c);
                let (a, b) = chunk.as_mut_slices();
                assert_eq!(a.len() + b.len(), max.min(N - model.len()));
                for (slot, item) in a.iter_mut().chain(b.iter_mut()).zip(&items) {
                    slot.write(*item);
                }
                // SAFETY: the first `c` slots were written just above.
                unsafe { chunk.commit(c) };
                model.extend(&items);
            }
            Op::FillChunk { max, n } => {
                let max = max as usize % (2 * N + 1);
                let chunk = tx.write_chunk_uninit_up_to(max);
                let len = chunk.len();
                let items = fresh(&mut next, n as usize % (2 * N + 1));
                let wrote = chunk.fill_from_iter(items.iter().copied());
                assert_eq!(wrote, len.min(items.len()));
                model.extend(&items[..wrote]);
            }
            Op::ReadChunk { max, commit } => {
                let max = max as usize % (2 * N + 1);
                let chunk = rx.read_chunk_up_to(max);
                assert_eq!(chunk.len(), max.min(model.len()));
                let (a, b) = chunk.as_slices();
                assert!(a.iter().chain(b).eq(model.iter().take(chunk.len())));
                let c = commit as usize % (chunk.len() + 1);
                chunk.commit(c);
                model.drain(..c);
            }
        }
        assert_eq!(rx.len(), model.len());
        assert_eq!(rx.is_empty(), model.is_empty());
        assert_eq!(tx.free_slots(), N - model.len());
        assert_eq!(tx.is_full(), model.len() == N);
        assert_eq!(tx.stats().rejected, rejected);
        assert_eq!(tx.stats().overwritten, 0);
    }
    // What is left comes out in order.
    assert!(std::iter::from_fn(|| rx.try_pop()).eq(model.into_iter()));
}

fuzz_target!(|input: Input| {
    let start = input.start.position();
    match input.cap {
        Cap::One => run::<1>(start, &input.ops),
        Cap::Two => run::<2>(start, &input.ops),
        Cap::Eight => run::<8>(start, &input.ops),
    }
});
