//! The MPMC ring, sequentially, against a `VecDeque`: try_push,
//! push_overwrite, try_pop, push_iter, drain, clear, close and the pops of a
//! closed ring, len, counters and (exact below 16 slots until a close) the
//! high-water mark, from arbitrary starting positions
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
    /// `push_iter` of up to this many new items.
    PushIter(u8),
    /// `drain()` to the end.
    DrainAll,
    /// `clear()` (drops in place: a bomb stops it there).
    Clear,
    /// `close()`.
    Close,
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
    closed: bool,
}

fn overwrite<const N: usize>(ring: &Ring<Item, N>, m: &mut Model) {
    m.next += 1;
    if m.closed {
        let back = ring.push_overwrite(Item::new(m.next));
        assert!(matches!(back, sluicegate::Overwritten::Rejected(_)));
        assert_eq!(back.into_item().map(Item::take), Some(m.next));
        return;
    }
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

/// One pop: `try_pop` on an open ring, `try_pop_or_closed` on a closed one
/// (which also answers "closed and drained" exactly when the model is empty).
fn pop<const N: usize>(ring: &Ring<Item, N>, m: &mut Model) {
    if m.closed {
        match ring.try_pop_or_closed() {
            Ok(item) => assert_eq!(Some(item.take()), m.items.pop_front()),
            Err(e) => {
                assert_eq!(e, sluicegate::TryPopError::Closed);
                assert!(m.items.is_empty());
            }
        }
    } else {
        assert_eq!(ring.try_pop().map(Item::take), m.items.pop_front());
    }
}

fn run<const N: usize>(start: usize, ops: &[Op]) {
    let ring: Ring<Item, N> = Ring::with_start(start);
    let mut m = Model::default();
    let mut max_len = 0usize;
    for op in ops {
        match *op {
            Op::Push => {
                m.next += 1;
                match ring.try_push(Item::new(m.next)) {
                    Ok(()) => {
                        assert!(m.items.len() < N && !m.closed);
                        m.items.push_back(m.next);
                    }
                    Err(e) => {
                        assert_eq!(e.is_closed(), m.closed);
                        assert!(m.closed || m.items.len() == N);
                        assert_eq!(e.into_inner().take(), m.next);
                        m.rejected += usize::from(!m.closed);
                    }
                }
            }
            Op::PushIter(n) => {
                let base = m.next;
                let pushed = ring.push_iter((1..=u64::from(n)).map(|k| Item::new(base + k)));
                let room = if m.closed { 0 } else { N - m.items.len() };
                assert_eq!(pushed, usize::from(n).min(room));
                m.items.extend(base + 1..=base + pushed as u64);
                m.next = base + pushed as u64;
            }
            Op::DrainAll => {
                let got: Vec<u64> = ring.drain().map(Item::take).collect();
                assert_eq!(got, m.items.drain(..).collect::<Vec<_>>());
            }
            Op::Clear => {
                let mut cleared = 0;
                let bombed_now = bombed(|| cleared = ring.clear());
                match m.items.iter().position(|&v| Item::is_bomb(v)) {
                    Some(at) => {
                        assert!(bombed_now);
                        m.items.drain(..=at);
                    }
                    None => {
                        assert!(!bombed_now);
                        assert_eq!(cleared, m.items.len());
                        m.items.clear();
                    }
                }
            }
            Op::Close => {
                assert_eq!(ring.close(), !m.closed);
                m.closed = true;
            }
            Op::PushOverwrite => overwrite(&ring, &mut m),
            Op::Pop => pop(&ring, &mut m),
            Op::Drain(n) => {
                for _ in 0..n % (2 * N as u8 + 2) {
                    pop(&ring, &mut m);
                }
            }
            Op::Flood(n) => {
                for _ in 0..n % (3 * N as u8 + 2) {
                    overwrite(&ring, &mut m);
                }
            }
        }
        // Quiescent: len and the counters are exact (until a close, whose
        // refused pushes leave unused positions that `len` counts).
        max_len = max_len.max(m.items.len());
        if !m.closed {
            assert_eq!(ring.len(), m.items.len());
            assert_eq!(ring.is_empty(), m.items.is_empty());
            // Below 16 slots every pop samples the length.
            assert_eq!(ring.stats().peak, max_len);
        }
        assert_eq!(ring.is_closed(), m.closed);
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
