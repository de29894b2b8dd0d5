//! The overwrite SPSC ring against a model of its positions: try_push,
//! push_overwrite, pop, peek guards and read chunks held while the producer
//! pushes (the consumer mid-read, sequentially: the producer places voids in
//! the held slots and evicts the oldest item not held; a chunk committed in
//! part gives the rest back unless the producer lapped it, and then they are
//! dropped and counted), push_iter, drain, clear, dropping either handle and
//! splitting again once both are gone, with the counters and the high-water
//! mark checked. Items are boxed so a
//! leak or double drop shows up under the sanitizer; they are `!Sync`, and
//! some panic when the ring drops them in place (`commit`, the ring's
//! `Drop`), which must leave the others intact.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::spsc::{Overwrite, Ring};
use sluicegate_fuzz::{
    bombed, check_abandoned, drop_checked, drop_consumer, drop_producer, split, Cap, Handles, Item,
    Start,
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

/// The ring's positions from the oldest unread one: an item, or a void (a
/// position whose slot the consumer held when the producer reached it).
type Pos = Option<u64>;

/// A claim held by the consumer: its first position and its items.
struct Held {
    first: usize,
    items: Vec<u64>,
    /// `head` has moved since the claim, or a void went into a held slot:
    /// the items not taken cannot go back.
    lapped: bool,
}

#[derive(Default)]
struct Model {
    /// Positions `head..head + pos.len()`.
    pos: VecDeque<Pos>,
    head: usize,
    held: Option<Held>,
    rejected: usize,
    overwritten: usize,
}

impl Model {
    /// The items in the ring (voids and held items left out).
    fn items(&self) -> Vec<u64> {
        self.pos.iter().flatten().copied().collect()
    }

    fn is_held<const N: usize>(&self, p: usize) -> bool {
        self.held
            .as_ref()
            .is_some_and(|h| (p % N).wrapping_sub(h.first % N) % N < h.items.len())
    }

    /// Passes the voids at the front.
    fn pass_voids(&mut self) {
        while let Some(None) = self.pos.front() {
            self.pos.pop_front();
            self.head += 1;
            if let Some(h) = &mut self.held {
                h.lapped = true;
            }
        }
    }

    /// What `push_overwrite(item)` must return.
    fn push_overwrite<const N: usize>(&mut self, item: u64) -> Option<u64> {
        loop {
            let t = self.head + self.pos.len();
            if self.held.as_ref().is_some_and(|h| h.items.len() >= N) {
                self.rejected += 1;
                return Some(item);
            }
            if self.is_held::<N>(t) {
                if self.pos.len() >= N {
                    // The front is this slot's void from the lap before.
                    assert_eq!(self.pos.front(), Some(&None));
                    self.pass_voids();
                } else {
                    self.held.as_mut().unwrap().lapped = true;
                    self.pos.push_back(None);
                }
                continue;
            }
            if self.pos.len() < N {
                self.pos.push_back(Some(item));
                return None;
            }
            self.pass_voids();
            if self.pos.len() < N {
                continue;
            }
            let old = self.pos.pop_front().unwrap().expect("a real oldest item");
            self.head += 1;
            if let Some(h) = &mut self.held {
                h.lapped = true;
            }
            self.overwritten += 1;
            self.pos.push_back(Some(item));
            return Some(old);
        }
    }

    /// What a claim of up to `max` takes: the voids in front passed, the
    /// items up to the next void.
    fn claim(&mut self, max: usize) -> Vec<u64> {
        if max == 0 {
            // Asks for nothing: looks at nothing.
            return Vec::new();
        }
        self.pass_voids();
        let mut items = Vec::new();
        while items.len() < max {
            match self.pos.front() {
                Some(Some(v)) => items.push(*v),
                _ => break,
            }
            self.pos.pop_front();
        }
        if !items.is_empty() {
            self.held = Some(Held {
                first: self.head,
                items: items.clone(),
                lapped: false,
            });
            self.head += items.len();
        }
        items
    }

    /// The end of a claim that took `taken` items: the rest go back, or are
    /// dropped and counted if lapped.
    fn release(&mut self, taken: usize) {
        let Some(h) = self.held.take() else {
            return;
        };
        let rest = &h.items[taken..];
        if rest.is_empty() {
            return;
        }
        if h.lapped {
            self.overwritten += rest.len();
        } else {
            self.head -= rest.len();
            for &v in rest.iter().rev() {
                self.pos.push_front(Some(v));
            }
        }
    }

    /// `try_pop`.
    fn pop(&mut self) -> Option<u64> {
        let got = self.claim(1).first().copied();
        self.release(usize::from(got.is_some()));
        got
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
                assert_eq!(pushed, items.len().min(N - m.pos.len()));
                // What did not fit stays in the iterator, untaken.
                assert_eq!(it.len(), items.len() - pushed);
                for rest in it {
                    rest.take();
                }
                m.pos.extend(items[..pushed].iter().map(|&v| Some(v)));
            }
            Op::DrainAll => {
                let got: Vec<u64> = rx.drain().map(Item::take).collect();
                assert_eq!(got, m.items());
                m.head += m.pos.len();
                m.pos.clear();
            }
            Op::Clear => {
                // Drops in place, run by run: the first bomb stops it there
                // (it and everything before it gone).
                let items = m.items();
                let bomb = items.iter().position(|&v| Item::is_bomb(v));
                let mut cleared = 0;
                assert_eq!(bombed(|| cleared = rx.clear()), bomb.is_some());
                match bomb {
                    None => {
                        assert_eq!(cleared, items.len());
                        m.head += m.pos.len();
                        m.pos.clear();
                    }
                    Some(b) => {
                        while let Some(p) = m.pos.pop_front() {
                            m.head += 1;
                            if p == Some(items[b]) {
                                break;
                            }
                        }
                    }
                }
            }
            Op::Push => {
                let item = fresh();
                match tx.try_push(Item::new(item)) {
                    Ok(()) => m.pos.push_back(Some(item)),
                    Err(full) => {
                        assert_eq!(m.pos.len(), N);
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
                assert_eq!(got, m.push_overwrite::<N>(item));
            }
            Op::Pop => assert_eq!(rx.try_pop().map(Item::take), m.pop()),
            Op::Peek { take } => {
                let want = m.claim(1);
                match rx.peek() {
                    None => assert!(want.is_empty()),
                    Some(guard) => {
                        assert_eq!(Some(guard.value()), want.first().copied());
                        if take {
                            assert_eq!(Some(guard.pop().take()), want.first().copied());
                        }
                    }
                }
                m.release(usize::from(take));
            }
            Op::FillChunk { max } => {
                let max = max as usize % (2 * N + 1);
                let chunk = tx.write_chunk_uninit_up_to(max);
                assert_eq!(chunk.len(), max.min(N - m.pos.len()));
                let items: Vec<u64> = (0..chunk.len()).map(|_| fresh()).collect();
                let wrote = chunk.fill_from_iter(items.iter().map(|&v| Item::new(v)));
                assert_eq!(wrote, items.len());
                m.pos.extend(items.into_iter().map(Some));
            }
            Op::HoldReadChunk {
                max,
                pushes,
                commit,
            } => {
                let max = max as usize % (2 * N + 1);
                let chunk = rx.read_chunk_up_to(max);
                let want = m.claim(max);
                assert_eq!(chunk.len(), want.len());
                for _ in 0..pushes % (2 * N as u8 + 1) {
                    let item = fresh();
                    let got = tx
                        .push_overwrite(Item::new(item))
                        .into_item()
                        .map(Item::take);
                    assert_eq!(got, m.push_overwrite::<N>(item));
                }
                let (a, b) = chunk.as_slices();
                assert!(a.iter().chain(b).map(Item::value).eq(want.iter().copied()));
                let c = commit as usize % (want.len() + 1);
                // The first armed item among the `c` panics; it and the ones
                // before it are gone. The ones after it go back, or, if the
                // producer lapped them, are dropped too (a bomb among those
                // panics as well: the drop goes on past it).
                let bomb = want.iter().take(c).position(|&v| Item::is_bomb(v));
                let taken = bomb.map_or(c, |k| k + 1);
                let lapped = m.held.as_ref().is_some_and(|h| h.lapped);
                let rest_bomb = lapped && want[taken..].iter().any(|&v| Item::is_bomb(v));
                assert_eq!(bombed(|| chunk.commit(c)), bomb.is_some() || rest_bomb);
                m.release(taken);
            }
        }
        assert!(!tx.is_abandoned());
        assert!(!rx.is_abandoned());
        check::<N>(&ring, &m, &mut max_len);
    }
    // Dropping the handles ends their borrows of the ring. The ring's Drop
    // frees what is left, all of it even if an item panics.
    drop(handles);
    drop_checked(ring, &m.items().into_iter().collect());
}

/// Length and counters exact; the high-water mark a length the ring had.
fn check<const N: usize>(ring: &Ring<Item, N, Overwrite>, m: &Model, max_len: &mut usize) {
    let items = m.items().len();
    *max_len = (*max_len).max(items);
    assert_eq!(ring.len(), items);
    assert_eq!(ring.free_slots(), N - items);
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
