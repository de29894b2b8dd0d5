//! The reject SPSC ring, one operation at a time, against a `VecDeque`:
//! push, pop, peek, burst/bulk push and pop, write and read chunks of
//! arbitrary sizes, push_iter, drain, clear, dropping either handle (the
//! other sees it abandoned; the blocking calls end instead of waiting) and
//! splitting again once both are gone, from arbitrary starting positions;
//! the counters and the high-water mark's bounds after every step; the
//! watermarks' level against a model of its hysteresis (which operations
//! may raise or lower it, at which lengths, the transition count).
#![no_main]

use std::collections::VecDeque;

#[path = "../../tests/common/fresh_model.rs"]
mod fresh_model;
use fresh_model::fresh_pop;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::spsc::{Level, Marked, Ring};
use sluicegate_fuzz::{check_abandoned, drop_consumer, drop_producer, split, Cap, Handles, Start};

#[derive(Arbitrary, Debug)]
enum Op {
    Push,
    Pop,
    Peek,
    PushBurst(u8),
    PushBulk(u8),
    PopBurst(u8),
    PopBulk(u8),
    /// `try_pop_fresh`: an item expires when its value mod 5 is below
    /// this mod 5.
    PopFresh(u8),
    /// `pop_burst_fresh` into `n` slots, expiring as `PopFresh`.
    PopBurstFresh {
        n: u8,
        below: u8,
    },
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
    /// `push_iter` of up to this many new items.
    PushIter(u8),
    /// `drain()` to the end.
    DrainAll,
    Clear,
    /// Drop the producer (if alive).
    DropProducer,
    /// Drop the consumer (if alive).
    DropConsumer,
    /// `try_split`: succeeds exactly when both handles are gone.
    Split,
    /// `push_blocking`, where it cannot wait for ever (room, or no consumer).
    PushBlocking,
    /// `pop_blocking`, where it cannot wait for ever (an item, or no producer).
    PopBlocking,
    /// `Producer::level`: decides the level on the true length.
    Level,
}

/// Which side an operation is, for the level's model.
#[derive(PartialEq)]
enum Side {
    /// Pushes: may raise the level, never lower it.
    Produce,
    /// Pops, peeks, reads: may lower the level, never raise it.
    Consume,
    /// `Producer::level`: either.
    Look,
    /// Drops and splits: neither.
    Neither,
}

impl Op {
    fn side(&self) -> Side {
        match self {
            Op::Push
            | Op::PushBurst(_)
            | Op::PushBulk(_)
            | Op::WriteChunk { .. }
            | Op::FillChunk { .. }
            | Op::PushIter(_)
            | Op::PushBlocking => Side::Produce,
            Op::Pop
            | Op::Peek
            | Op::PopBurst(_)
            | Op::PopBulk(_)
            | Op::PopFresh(_)
            | Op::PopBurstFresh { .. }
            | Op::ReadChunk { .. }
            | Op::DrainAll
            | Op::Clear
            | Op::PopBlocking => Side::Consume,
            Op::Level => Side::Look,
            Op::DropProducer | Op::DropConsumer | Op::Split => Side::Neither,
        }
    }

    /// A push that raises the level whenever it leaves `high` or more
    /// (write chunks and `push_iter` leave it to the next look).
    fn raises(&self) -> bool {
        matches!(
            self,
            Op::Push | Op::PushBurst(_) | Op::PushBulk(_) | Op::PushBlocking
        )
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    cap: Cap,
    start: Start,
    /// The watermarks, reduced to `low < high <= N`.
    marks: (u8, u8),
    ops: Vec<Op>,
}

fn run<const N: usize>(start: usize, marks: (u8, u8), ops: &[Op]) {
    let low = marks.0 as usize % N;
    let high = low + 1 + marks.1 as usize % (N - low);
    let ring: Ring<u64, N, Marked> = Ring::with_start_watermarks(start, low, high);
    assert_eq!(ring.watermarks(), Some((low, high)));
    let (tx, rx) = ring.try_split().expect("a new ring splits");
    let mut handles: Handles<'_, u64, N, Marked> = (Some(tx), Some(rx));
    let mut model: VecDeque<u64> = VecDeque::new();
    let mut max_len = 0usize;
    let mut next = 0u64;
    let mut rejected = 0usize;
    let mut expired = 0usize;
    let fresh = |next: &mut u64, n: usize| -> Vec<u64> {
        let v: Vec<u64> = (*next..*next + n as u64).collect();
        *next += n as u64;
        v
    };
    for op in ops {
        let (len_before, level_before) = (model.len(), ring.level());
        let looked = matches!(op, Op::Level) && handles.0.is_some() && handles.1.is_some();
        let transitions_before = ring.transitions();
        // Lifecycle operations first; the others need both handles.
        match *op {
            Op::DropProducer => drop_producer(&mut handles),
            Op::DropConsumer => drop_consumer(&mut handles),
            Op::Split => split(&ring, &mut handles),
            Op::PushBlocking => {
                if let (Some(tx), rx) = &mut handles {
                    if model.len() < N || rx.is_none() {
                        let item = fresh(&mut next, 1)[0];
                        match tx.push_blocking(item) {
                            Ok(()) => {
                                assert!(model.len() < N);
                                model.push_back(item);
                            }
                            Err(closed) => {
                                assert_eq!(model.len(), N);
                                assert_eq!(closed.into_inner(), item);
                            }
                        }
                    }
                }
            }
            Op::PopBlocking => {
                if let (tx, Some(rx)) = &mut handles {
                    if !model.is_empty() || tx.is_none() {
                        assert_eq!(rx.pop_blocking(), model.pop_front());
                    }
                }
            }
            _ => {}
        }
        if let (Some(tx), Some(rx)) = &mut handles {
            step::<N>(op, tx, rx, &mut model, &mut next, &mut rejected, fresh);
            expired += pop_fresh::<N>(op, rx, &mut model);
        }
        max_len = max_len.max(model.len());
        assert_eq!(ring.len(), model.len());
        assert_eq!(ring.is_empty(), model.is_empty());
        assert_eq!(ring.free_slots(), N - model.len());
        assert_eq!(ring.is_full(), model.len() == N);
        let stats = ring.stats();
        assert_eq!(stats.rejected, rejected);
        assert_eq!(stats.overwritten, 0);
        assert_eq!(stats.expired, expired);
        // A length the ring had, and at least half the largest.
        assert!(
            stats.peak <= max_len && max_len <= 2 * stats.peak,
            "{stats:?} {max_len}"
        );
        check_abandoned(&handles);
        check_level(
            op,
            looked,
            (low, high),
            len_before,
            model.len(),
            level_before,
            &ring,
        );
        assert_eq!(
            ring.transitions(),
            transitions_before + (ring.level() != level_before) as usize
        );
        assert_eq!(ring.stats().transitions, ring.transitions());
    }
    // What is left comes out in order, through the handles of a new split
    // if need be.
    drop(handles);
    let (_tx, mut rx) = ring.try_split().expect("both handles are gone");
    assert!(rx.drain().eq(model.into_iter()));
}

/// The level after `op` took the ring from `before` to `after` items.
fn check_level<const N: usize>(
    op: &Op,
    looked: bool,
    (low, high): (usize, usize),
    before: usize,
    after: usize,
    level_before: Level,
    ring: &Ring<u64, N, Marked>,
) {
    let level = ring.level();
    assert_eq!(ring.transitions() % 2 == 1, level == Level::High);
    match (op.side(), level_before, level) {
        (_, a, b) if a == b => {}
        (Side::Produce | Side::Look, Level::Normal, Level::High) => assert!(after >= high),
        (Side::Consume | Side::Look, Level::High, Level::Normal) => assert!(after <= low),
        _ => panic!("{op:?} moved the level {level_before:?} -> {level:?} at {before} -> {after}"),
    }
    // Exact where the model knows: a raising push that left high or more,
    // a consumer that took items and left low or fewer, a look (which runs
    // only while both handles are alive).
    if op.raises() && after > before && after >= high {
        assert_eq!(level, Level::High, "{op:?} {before} -> {after}");
    }
    if op.side() == Side::Consume && after < before && after <= low {
        assert_eq!(level, Level::Normal, "{op:?} {before} -> {after}");
    }
    if looked {
        let want = if after >= high {
            Level::High
        } else if after <= low {
            Level::Normal
        } else {
            level_before
        };
        assert_eq!(level, want, "look at {after}");
    }
}

/// The fresh pops against the model (the ring's are in `src/expire.rs`):
/// at most `N` discards per call, each counted; `pop_burst_fresh` keeps
/// the fresh items in order. Returns how many the call discarded.
fn pop_fresh<const N: usize>(
    op: &Op,
    rx: &mut sluicegate::spsc::Consumer<'_, u64, N, Marked>,
    model: &mut VecDeque<u64>,
) -> usize {
    let (below, n) = match *op {
        Op::PopFresh(below) => (below, None),
        Op::PopBurstFresh { n, below } => (below, Some(n as usize % (2 * N + 1))),
        _ => return 0,
    };
    let below = u64::from(below % 5);
    let expired = |x: &u64| x % 5 < below;
    let mut discarded = Vec::new();
    match n {
        None => {
            let got = rx.try_pop_fresh_with(expired, |x| discarded.push(x));
            let (want, gone) = fresh_pop(model, expired, N);
            assert_eq!(got, want, "try_pop_fresh");
            assert_eq!(discarded, gone, "try_pop_fresh discards");
            gone.len()
        }
        Some(n) => {
            let mut out = vec![0; n];
            let kept = rx.pop_burst_fresh(&mut out, expired);
            // The model of `burst_fresh`: bursts into the free tail, up to
            // the discards left, until `out` is full, a burst comes up
            // short, or `N` were discarded.
            let (mut want, mut gone) = (Vec::new(), 0usize);
            while want.len() < n && gone < N {
                let room = (n - want.len()).min(N - gone);
                let got = room.min(model.len());
                for x in model.drain(..got) {
                    if expired(&x) {
                        gone += 1;
                    } else {
                        want.push(x);
                    }
                }
                if got < room {
                    break;
                }
            }
            assert_eq!(&out[..kept], &want[..], "pop_burst_fresh");
            gone
        }
    }
}

fn step<const N: usize>(
    op: &Op,
    tx: &mut sluicegate::spsc::Producer<'_, u64, N, Marked>,
    rx: &mut sluicegate::spsc::Consumer<'_, u64, N, Marked>,
    model: &mut VecDeque<u64>,
    next: &mut u64,
    rejected: &mut usize,
    fresh: impl Fn(&mut u64, usize) -> Vec<u64>,
) {
    match *op {
        Op::DropProducer
        | Op::DropConsumer
        | Op::Split
        | Op::PushBlocking
        | Op::PopBlocking
        | Op::PopFresh(_)
        | Op::PopBurstFresh { .. } => {}
        Op::Level => {
            let level = tx.level();
            assert_eq!(level, rx.level());
        }
        Op::PushIter(n) => {
            let items = fresh(next, n as usize % (2 * N + 1));
            let pushed = tx.push_iter(items.iter().copied());
            assert_eq!(pushed, items.len().min(N - model.len()));
            model.extend(&items[..pushed]);
        }
        Op::DrainAll => {
            assert!(rx.drain().eq(model.drain(..)));
        }
        Op::Clear => {
            assert_eq!(rx.clear(), model.len());
            model.clear();
        }
        Op::Push => {
            let item = fresh(next, 1)[0];
            match tx.try_push(item) {
                Ok(()) => {
                    assert!(model.len() < N);
                    model.push_back(item);
                }
                Err(full) => {
                    assert_eq!(model.len(), N);
                    assert_eq!(full.into_inner(), item);
                    *rejected += 1;
                }
            }
        }
        Op::Pop => assert_eq!(rx.try_pop(), model.pop_front()),
        Op::Peek => assert_eq!(rx.peek().as_deref(), model.front()),
        Op::PushBurst(n) => {
            let items = fresh(next, n as usize % (2 * N + 1));
            let pushed = tx.push_burst(&items);
            assert_eq!(pushed, items.len().min(N - model.len()));
            model.extend(&items[..pushed]);
            *rejected += items.len() - pushed;
        }
        Op::PushBulk(n) => {
            let items = fresh(next, n as usize % (2 * N + 1));
            let free = N - model.len();
            match tx.push_bulk(&items) {
                Ok(()) => {
                    assert!(items.len() <= free);
                    model.extend(&items);
                }
                Err(e) => {
                    assert!(items.len() > free);
                    assert_eq!(e.available, free);
                    *rejected += items.len();
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
            let items = fresh(next, c);
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
            let items = fresh(next, n as usize % (2 * N + 1));
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
}

fuzz_target!(|input: Input| {
    let start = input.start.position();
    match input.cap {
        Cap::One => run::<1>(start, input.marks, &input.ops),
        Cap::Two => run::<2>(start, input.marks, &input.ops),
        Cap::Eight => run::<8>(start, input.marks, &input.ops),
    }
});
