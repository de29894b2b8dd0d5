//! The overwrite SPSC ring against a `VecDeque`: try_push, push_overwrite,
//! pop, peek guards and read chunks held while the producer pushes (the
//! "consumer is mid-read" corner case, sequentially). Items are boxed so a
//! leak or double drop shows up under the sanitizer; they are `!Sync`, and
//! some panic when the ring drops them in place (`commit`, the ring's
//! `Drop`), which must leave the others intact.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::spsc::{Overwrite, Ring};
use sluicegate_fuzz::{bombed, Cap, Item, Start};

#[derive(Arbitrary, Debug)]
enum Op {
    Push,
    PushOverwrite,
    Pop,
    /// Peek; pop through the guard if `take`.
    Peek {
        take: bool,
    },
    /// Fill up to `max` free slots from an iterator.
    FillChunk {
        max: u8,
    },
    /// Claim up to `max` items, then do `pushes` push_overwrite calls while
    /// holding them, then commit `commit` of them.
    HoldReadChunk {
        max: u8,
        pushes: u8,
        commit: u8,
    },
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
}

impl Model {
    /// What `push_overwrite(item)` must return when `held` items at the
    /// front are claimed by the consumer.
    fn push_overwrite<const N: usize>(&mut self, item: u64, held: usize) -> Option<u64> {
        if self.items.len() < N {
            self.items.push_back(item);
            None
        } else if held > 0 {
            self.rejected += 1;
            Some(item)
        } else {
            self.overwritten += 1;
            let old = self.items.pop_front();
            self.items.push_back(item);
            old
        }
    }
}

fn run<const N: usize>(start: usize, ops: &[Op]) {
    let mut ring: Ring<Item, N, Overwrite> = Ring::with_start(start);
    let (mut tx, mut rx) = ring.split();
    let mut m = Model::default();
    let mut next = 0u64;
    let mut fresh = || {
        next += 1;
        next
    };
    for op in ops {
        match *op {
            Op::Push => {
                let item = fresh();
                match tx.try_push(Item::new(item)) {
                    Ok(()) => m.items.push_back(item),
                    Err(full) => {
                        assert_eq!(m.items.len(), N);
                        assert_eq!(full.into_inner().take(), item);
                        m.rejected += 1;
                    }
                }
            }
            Op::PushOverwrite => {
                let item = fresh();
                let got = tx
                    .push_overwrite(Item::new(item))
                    .into_item()
                    .map(Item::take);
                assert_eq!(got, m.push_overwrite::<N>(item, 0));
            }
            Op::Pop => assert_eq!(rx.try_pop().map(Item::take), m.items.pop_front()),
            Op::Peek { take } => match rx.peek() {
                None => assert!(m.items.is_empty()),
                Some(guard) => {
                    assert_eq!(Some(guard.value()), m.items.front().copied());
                    if take {
                        assert_eq!(Some(guard.pop().take()), m.items.pop_front());
                    }
                }
            },
            Op::FillChunk { max } => {
                let max = max as usize % (2 * N + 1);
                let chunk = tx.write_chunk_uninit_up_to(max);
                assert_eq!(chunk.len(), max.min(N - m.items.len()));
                let items: Vec<u64> = (0..chunk.len()).map(|_| fresh()).collect();
                let wrote = chunk.fill_from_iter(items.iter().map(|&v| Item::new(v)));
                assert_eq!(wrote, items.len());
                m.items.extend(items);
            }
            Op::HoldReadChunk {
                max,
                pushes,
                commit,
            } => {
                let max = max as usize % (2 * N + 1);
                let chunk = rx.read_chunk_up_to(max);
                let held = chunk.len();
                assert_eq!(held, max.min(m.items.len()));
                for _ in 0..pushes % (2 * N as u8 + 1) {
                    let item = fresh();
                    let got = tx
                        .push_overwrite(Item::new(item))
                        .into_item()
                        .map(Item::take);
                    assert_eq!(got, m.push_overwrite::<N>(item, held));
                }
                let (a, b) = chunk.as_slices();
                assert!(a
                    .iter()
                    .chain(b)
                    .map(Item::value)
                    .eq(m.items.iter().take(held).copied()));
                let c = commit as usize % (held + 1);
                // The first armed item among the `c` panics; it and the ones
                // before it are gone, the ones after it stay.
                let bomb = m.items.iter().take(c).position(|&v| Item::is_bomb(v));
                assert_eq!(bombed(|| chunk.commit(c)), bomb.is_some());
                m.items.drain(..bomb.map_or(c, |k| k + 1));
            }
        }
        assert_eq!(rx.len(), m.items.len());
        assert_eq!(tx.free_slots(), N - m.items.len());
        assert_eq!(tx.stats().rejected, m.rejected);
        assert_eq!(tx.stats().overwritten, m.overwritten);
    }
    // Dropping the handles ends their borrows of the ring. The ring's Drop
    // frees what is left, all of it even if an item panics.
    drop((tx, rx));
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
