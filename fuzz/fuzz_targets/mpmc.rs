//! The MPMC ring, sequentially, against a `VecDeque`: try_push,
//! push_overwrite, try_pop, len, counters, from arbitrary starting positions
//! (so every wrap point is reached). Boxed items, so the sanitizer sees any
//! leak or double drop; `!Sync`, and some panic when the ring's `Drop` drops
//! them, which must still drop every other item.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::mpmc::Ring;
use sluicegate_fuzz::{bombed, Cap, Item, Start};

#[derive(Arbitrary, Debug)]
enum Op {
    Push,
    PushOverwrite,
    Pop,
    /// Several pops in a row (drains quickly, reaches "empty" paths).
    Drain(u8),
    /// Several overwrites in a row (reaches eviction at every offset).
    Flood(u8),
}

#[derive(Arbitrary, Debug)]
struct Input {
    cap: Cap,
    start: Start,
    ops: Vec<Op>,
}

#[derive(Default)]
struct Model {
    items: VecDeque<u64>,
    rejected: usize,
    overwritten: usize,
    next: u64,
}

fn overwrite<const N: usize>(ring: &Ring<Item, N>, m: &mut Model) {
    m.next += 1;
    let got = ring
        .push_overwrite(Item::new(m.next))
        .into_item()
        .map(Item::take);
    if m.items.len() < N {
        assert_eq!(got, None);
    } else {
        // Sequentially nobody holds a slot: the oldest is evicted.
        assert_eq!(got, m.items.pop_front());
        m.overwritten += 1;
    }
    m.items.push_back(m.next);
}

fn run<const N: usize>(start: usize, ops: &[Op]) {
    let ring: Ring<Item, N> = Ring::with_start(start);
    let mut m = Model::default();
    for op in ops {
        match *op {
            Op::Push => {
                m.next += 1;
                match ring.try_push(Item::new(m.next)) {
                    Ok(()) => {
                        assert!(m.items.len() < N);
                        m.items.push_back(m.next);
                    }
                    Err(full) => {
                        assert_eq!(m.items.len(), N);
                        assert_eq!(full.into_inner().take(), m.next);
                        m.rejected += 1;
                    }
                }
            }
            Op::PushOverwrite => overwrite(&ring, &mut m),
            Op::Pop => assert_eq!(ring.try_pop().map(Item::take), m.items.pop_front()),
            Op::Drain(n) => {
                for _ in 0..n % (2 * N as u8 + 2) {
                    assert_eq!(ring.try_pop().map(Item::take), m.items.pop_front());
                }
            }
            Op::Flood(n) => {
                for _ in 0..n % (3 * N as u8 + 2) {
                    overwrite(&ring, &mut m);
                }
            }
        }
        // Quiescent: len and the counters are exact.
        assert_eq!(ring.len(), m.items.len());
        assert_eq!(ring.is_empty(), m.items.is_empty());
        assert_eq!(ring.stats().rejected, m.rejected);
        assert_eq!(ring.stats().overwritten, m.overwritten);
    }
    // The ring's Drop frees what is left, all of it even if an item panics.
    let bombs = m.items.iter().any(|&v| Item::is_bomb(v));
    assert_eq!(bombed(|| drop(ring)), bombs);
    assert_eq!(Item::live(), 0, "an item leaked");
}

fuzz_target!(|input: Input| {
    let start = input.start.position();
    match input.cap {
        Cap::One => run::<1>(start, &input.ops),
        Cap::Two => run::<2>(start, &input.ops),
        Cap::Eight => run::<8>(start, &input.ops),
    }
});
