//! The critical-section MPMC ring (`mpmc::cs::Ring`, with
//! `critical-section`'s std implementation), sequentially, against a
//! `VecDeque`: try_push, push_overwrite, try_pop, push_iter, drain, clear,
//! close and the pops and pushes of a closed ring, the blocking calls where
//! they cannot wait, len, counters and the high-water mark (exact below 16
//! slots) after every step. Boxed items, so the sanitizer sees any leak or
//! double drop; `!Sync`, and some panic when the ring drops them, which
//! must still drop every other item.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::mpmc::cs::Ring;
use sluicegate_fuzz::{bombed, Cap, Item};

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
    /// `push_blocking`, where it cannot wait for ever (room, or closed).
    PushBlocking,
    /// `pop_blocking`, where it cannot wait for ever (an item, or closed).
    PopBlocking,
}

#[derive(Arbitrary, Debug)]
struct Input {
    cap: Cap,
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
        // Nobody ever holds a slot: the oldest is evicted.
        assert_eq!(got, m.items.pop_front());
        m.overwritten += 1;
    }
    m.items.push_back(m.next);
}

/// One pop: `try_pop` on an open ring, `try_pop_or_closed` on a closed one
/// (which also answers "closed and drained" exactly when the model is empty).
/// `try_pop_or_closed` on an open ring answers `Empty` when there is none.
fn pop<const N: usize>(ring: &Ring<Item, N>, m: &mut Model) {
    if m.closed {
        match ring.try_pop_or_closed() {
            Ok(item) => assert_eq!(Some(item.take()), m.items.pop_front()),
            Err(e) => {
                assert_eq!(e, sluicegate::TryPopError::Closed);
                assert!(m.items.is_empty());
            }
        }
    } else if m.items.is_empty() {
        assert_eq!(
            ring.try_pop_or_closed().map(Item::take),
            Err(sluicegate::TryPopError::Empty)
        );
    } else {
        assert_eq!(ring.try_pop().map(Item::take), m.items.pop_front());
    }
}

fn run<const N: usize>(ops: &[Op]) {
    let ring: Ring<Item, N> = Ring::new();
    let mut m = Model::default();
    let mut max_len = 0usize;
    for op in ops {
        match *op {
            Op::PushBlocking => {
                if m.items.len() < N || m.closed {
                    m.next += 1;
                    match ring.push_blocking(Item::new(m.next)) {
                        Ok(()) => {
                            assert!(!m.closed);
                            m.items.push_back(m.next);
                        }
                        Err(closed) => {
                            assert!(m.closed);
                            assert_eq!(closed.into_inner().take(), m.next);
                        }
                    }
                }
            }
            Op::PopBlocking => {
                if !m.items.is_empty() || m.closed {
                    assert_eq!(ring.pop_blocking().map(Item::take), m.items.pop_front());
                }
            }
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
        // No operation is ever in progress: len, the counters and (below
        // 16 slots, where every pop samples) the high-water mark are exact,
        // closed or not.
        max_len = max_len.max(m.items.len());
        assert_eq!(ring.len(), m.items.len());
        assert_eq!(ring.is_empty(), m.items.is_empty());
        assert_eq!(ring.is_full(), m.items.len() == N);
        assert_eq!(ring.is_closed(), m.closed);
        let stats = ring.stats();
        assert_eq!(stats.rejected, m.rejected);
        assert_eq!(stats.overwritten, m.overwritten);
        assert_eq!(stats.peak, max_len);
    }
    // The ring's Drop frees what is left, all of it even if an item panics.
    let bombs = m.items.iter().any(|&v| Item::is_bomb(v));
    assert_eq!(bombed(|| drop(ring)), bombs);
    assert_eq!(Item::live(), 0, "an item leaked");
}

fuzz_target!(|input: Input| {
    match input.cap {
        Cap::One => run::<1>(&input.ops),
        Cap::Two => run::<2>(&input.ops),
        Cap::Eight => run::<8>(&input.ops),
    }
});
