//! The overwrite SPSC ring against a `VecDeque`: try_push, push_overwrite,
//! pop, peek guards and read chunks held while the producer pushes (the
//! "consumer is mid-read" corner case, sequentially), push_iter, drain,
//! clear, dropping either handle and splitting again once both are gone,
//! with the counters and the high-water mark checked. Items are boxed so a
//! leak or double drop shows up under the sanitizer; they are `!Sync`, and
//! some panic when the ring drops them in place (`commit`, the ring's
//! `Drop`), which must leave the others intact.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::spsc::{Overwrite, Ring};
use sluicegate_fuzz::{
    bombed, check_abandoned, clear_checked, drop_checked, drop_consumer, drop_producer, split, Cap,
    Handles, Item, Start,
};

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
    /// `push_iter` of up to this many new items (never evicts).
    PushIter(u8),
    /// `drain()` to the end.
    DrainAll,
    /// `clear()` (drops in place: a bomb stops it there).
    Clear,
    /// Drop the producer (if alive).
    DropProducer,
    /// Drop the consumer (if alive).
    DropConsumer,
    /// `try_split`: succeeds exactly when both handles are gone.
    Split,
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
    let ring: Ring<Item, N, Overwrite> = Ring::with_start(start);
    let (tx, rx) = ring.try_split().expect("a new ring splits");
    let mut handles: Handles<'_, Item, N, Overwrite> = (Some(tx), Some(rx));
    let mut m = Model::default();
    let mut max_len = 0usize;
    let mut next = 0u64;
    let mut fresh = || {
        next += 1;
        next
    };
    for op in ops {
        match *op {
            Op::DropProducer => drop_producer(&mut handles),
            Op::DropConsumer => drop_consumer(&mut handles),
            Op::Split => split(&ring, &mut handles),
            _ => {}
        }
        check_abandoned(&handles);
        let (Some(tx), Some(rx)) = &mut handles else {
            check::<N>(&ring, &m, &mut max_len);
            continue;
        };
        match *op {
            Op::DropProducer | Op::DropConsumer | Op::Split => {}
            Op::PushIter(n) => {
                let items: Vec<u64> = (0..n as usize % (2 * N + 1)).map(|_| fresh()).collect();
                let mut it = items.iter().map(|&v| Item::new(v));
                let pushed = tx.push_iter(&mut it);
                assert_eq!(pushed, items.len().min(N - m.items.len()));
                // What did not fit stays in the iterator, untaken.
                assert_eq!(it.len(), items.len() - pushed);
                for rest in it {
                    rest.take();
                }
                m.items.extend(&items[..pushed]);
            }
            Op::DrainAll => {
                let got: Vec<u64> = rx.drain().map(Item::take).collect();
                assert_eq!(got, m.items.drain(..).collect::<Vec<_>>());
            }
            Op::Clear => clear_checked(&mut m.items, || rx.clear()),
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
        assert!(!tx.is_abandoned());
        assert!(!rx.is_abandoned());
        check::<N>(&ring, &m, &mut max_len);
    }
    // Dropping the handles ends their borrows of the ring. The ring's Drop
    // frees what is left, all of it even if an item panics.
    drop(handles);
    drop_checked(ring, &m.items);
}

/// Length and counters exact; the high-water mark a length the ring had.
fn check<const N: usize>(ring: &Ring<Item, N, Overwrite>, m: &Model, max_len: &mut usize) {
    *max_len = (*max_len).max(m.items.len());
    assert_eq!(ring.len(), m.items.len());
    assert_eq!(ring.free_slots(), N - m.items.len());
    let stats = ring.stats();
    assert_eq!(stats.rejected, m.rejected);
    assert_eq!(stats.overwritten, m.overwritten);
    assert!(stats.peak <= *max_len, "{stats:?} {max_len}");
}

fuzz_target!(|input: Input| {
    let start = input.start.position();
    match input.cap {
        Cap::One => run::<1>(start, &input.ops),
        Cap::Two => run::<2>(start, &input.ops),
        Cap::Eight => run::<8>(start, &input.ops),
    }
});
