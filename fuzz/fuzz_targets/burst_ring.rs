//! `mpmc::BurstRing`, one operation at a time, against a model that knows
//! when the ring answers `Busy`: pushes, bursts, bulks, evicting pushes,
//! pops, read chunks held across the other operations and released in any
//! order, close, `drain` and `clear`, at capacities 1, 2, 4, 32 and 64,
//! from position 0 or a few laps before the counters wrap. Every answer
//! (each `Moved`'s count and stop included), every item, every counter and
//! the observers are checked after every step.
//!
//! On one thread every push completes before the next operation, so a
//! claimed push position is published at once; only a held read chunk
//! keeps positions claimed and not consumed, and the pushes that need their
//! slots (one lap later) answer busy.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::mpmc::burst_ring::{BurstRing, Moved, PopError, PushError, ReadChunk, Stop};

#[derive(Arbitrary, Debug)]
enum Op {
    Push,
    /// `push_burst` of this many new items (taken modulo `2N + 3`, so
    /// empty slices and slices longer than the ring come up often).
    PushBurst(u8),
    /// `push_bulk`, lengths as for `PushBurst`.
    PushBulk(u8),
    PushOverwrite,
    /// Several `push_overwrite`s in a row (eviction at every offset).
    Flood(u8),
    Pop,
    /// `pop_burst` into a slice of this length (modulo `2N + 3`).
    PopBurst(u8),
    /// `pop_bulk`, lengths as for `PopBurst`.
    PopBulk(u8),
    /// `read_chunk(max)` (modulo `2N + 3`), held until released.
    ReadChunk(u8),
    /// Releases the held chunk with this index (modulo how many are held).
    Release(u8),
    Close,
    /// `drain()` to its end.
    Drain,
    /// `clear()`.
    Clear,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Cap {
    One,
    Two,
    Four,
    ThirtyTwo,
    SixtyFour,
}

/// Where the counters start.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Start {
    Zero,
    /// This many positions before the counters wrap at
    /// `2^(usize::BITS - 2)` (the ring rounds down to a whole lap).
    NearWrap(u8),
    Any(usize),
}

impl Start {
    fn position(self) -> usize {
        match self {
            Start::Zero => 0,
            Start::NearWrap(k) => (1usize << (usize::BITS - 2)).wrapping_sub(1 + k as usize),
            Start::Any(p) => p,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    cap: Cap,
    start: Start,
    ops: Vec<Op>,
}

/// What the ring must hold and answer. Positions count from the ring's
/// (lap-rounded) start; the lap before it counts as consumed.
struct Model {
    n: u64,
    /// Positions claimed by pushes and by pops (read chunks and evictions
    /// included).
    prod: u64,
    cons: u64,
    /// The items of positions `cons..prod`, oldest first.
    items: VecDeque<u64>,
    /// Held read chunks: first position and items, in the order taken.
    held: Vec<(u64, Vec<u64>)>,
    closed: bool,
    rejected: usize,
    overwritten: usize,
    busy: usize,
    /// The largest length the ring has had (a bound for `peak`).
    highest: usize,
    next: u64,
}

impl Model {
    fn new(n: usize) -> Self {
        Model {
            n: n as u64,
            prod: 0,
            cons: 0,
            items: VecDeque::new(),
            held: Vec::new(),
            closed: false,
            rejected: 0,
            overwritten: 0,
            busy: 0,
            highest: 0,
            next: 0,
        }
    }

    fn len(&self) -> usize {
        (self.prod - self.cons) as usize
    }

    /// Whether a read chunk holds position `q`.
    fn is_held(&self, q: u64) -> bool {
        self.held
            .iter()
            .any(|(from, items)| (*from..*from + items.len() as u64).contains(&q))
    }

    /// Whether position `q` may be pushed: its previous lap consumed.
    fn free(&self, q: u64) -> bool {
        q < self.n || (q - self.n < self.cons && !self.is_held(q - self.n))
    }

    /// How many positions from `prod`, at most `max` (and `N`), are free.
    fn push_run(&self, max: usize) -> usize {
        (0..max.min(self.n as usize) as u64)
            .take_while(|&k| self.free(self.prod + k))
            .count()
    }

    /// Why a push cannot claim position `q` (it claimed those before it).
    fn push_stop(&self, q: u64) -> Stop {
        if self.closed {
            Stop::Closed
        } else if q - self.cons >= self.n {
            Stop::Full
        } else {
            // `q - N` is claimed by a pop (a held chunk) and not consumed.
            Stop::Busy
        }
    }

    /// How many items a pop of at most `max` finds (every claimed push
    /// position is published).
    fn pop_run(&self, max: usize) -> usize {
        max.min(self.n as usize).min(self.len())
    }

    /// Why a pop that reached `q == prod` finds nothing there: empty while
    /// open; closed once drained (`q - N` consumed), else busy: a held
    /// chunk's position might be an eviction's, whose new item is still to
    /// come.
    fn pop_stop(&self) -> Stop {
        if !self.closed {
            Stop::Empty
        } else if self.free(self.prod) {
            Stop::Closed
        } else {
            Stop::Busy
        }
    }

    /// Counts a refusal of `items` items, as the ring does.
    fn count(&mut self, stop: Stop, items: usize) -> Stop {
        match stop {
            Stop::Full => self.rejected += items,
            Stop::Busy => self.busy += 1,
            Stop::Empty | Stop::Closed => {}
        }
        stop
    }

    /// `k` new item values.
    fn fresh(&mut self, k: usize) -> Vec<u64> {
        let items = (self.next..self.next + k as u64).collect();
        self.next += k as u64;
        items
    }

    fn pushed(&mut self, items: &[u64]) {
        self.items.extend(items);
        self.prod += items.len() as u64;
        self.highest = self.highest.max(self.len());
    }

    fn popped(&mut self, n: usize) -> Vec<u64> {
        self.cons += n as u64;
        self.items.drain(..n).collect()
    }

    /// `push_overwrite` of a new item: stored, stored by evicting the
    /// oldest, or refused.
    fn overwrite<const N: usize, const W: usize>(&mut self, ring: &BurstRing<u64, N, W>) {
        let new = self.fresh(1)[0];
        let got = ring.push_overwrite(new);
        if self.closed {
            assert_eq!(got, Err(PushError::Closed(new)));
        } else if self.push_run(1) == 1 {
            assert_eq!(got, Ok(None));
            self.pushed(&[new]);
        } else if self.push_stop(self.prod) == Stop::Full {
            let old = self.popped(1)[0];
            assert_eq!(got, Ok(Some(old)));
            self.pushed(&[new]);
            self.overwritten += 1;
        } else {
            self.count(Stop::Busy, 1);
            assert_eq!(got, Err(PushError::Busy(new)));
        }
    }

    /// A `try_pop` (alone, or the last one of `drain` and `clear`) that
    /// found nothing: the error it must give.
    fn pop_error(&mut self) -> PopError {
        match self.pop_stop() {
            Stop::Empty => PopError::Empty,
            Stop::Busy => {
                self.busy += 1;
                PopError::Busy
            }
            _ => PopError::Closed,
        }
    }
}

type Held<'r, const N: usize, const W: usize> = Vec<ReadChunk<'r, u64, N, W>>;

fn run<const N: usize, const W: usize>(start: usize, ops: &[Op]) {
    let ring: BurstRing<u64, N, W> = BurstRing::with_start(start);
    let mut m = Model::new(N);
    let mut chunks: Held<'_, N, W> = Vec::new();
    let mut buf = vec![0u64; 2 * N + 2];
    let len_of = |k: u8| k as usize % (2 * N + 3);
    for op in ops {
        match *op {
            Op::Push => {
                let new = m.fresh(1)[0];
                let got = ring.try_push(new);
                if !m.closed && m.push_run(1) == 1 {
                    assert_eq!(got, Ok(()));
                    m.pushed(&[new]);
                } else {
                    let want = match m.push_stop(m.prod) {
                        Stop::Full => PushError::Full(new),
                        Stop::Busy => PushError::Busy(new),
                        _ => PushError::Closed(new),
                    };
                    m.count(want.stop(), 1);
                    assert_eq!(got, Err(want));
                }
            }
            Op::PushBurst(k) => {
                let items = m.fresh(len_of(k));
                let got = ring.push_burst(&items);
                let n = if m.closed { 0 } else { m.push_run(items.len()) };
                let stop = (n < items.len()).then(|| {
                    let stop = m.push_stop(m.prod + n as u64);
                    m.count(stop, items.len() - n)
                });
                assert_eq!(got, Moved { count: n, stop });
                m.pushed(&items[..n]);
            }
            Op::PushBulk(k) => {
                let items = m.fresh(len_of(k));
                let got = ring.push_bulk(&items);
                let k = items.len();
                if k == 0 {
                    assert_eq!(got, Ok(()));
                } else if k > N {
                    // Longer than the ring: full, even once closed.
                    assert_eq!(got, Err(m.count(Stop::Full, k)));
                } else if !m.closed && m.push_run(k) == k {
                    assert_eq!(got, Ok(()));
                    m.pushed(&items);
                } else {
                    let n = if m.closed { 0 } else { m.push_run(k) };
                    let stop = m.push_stop(m.prod + n as u64);
                    assert_eq!(got, Err(m.count(stop, k)));
                }
            }
            Op::PushOverwrite => m.overwrite(&ring),
            Op::Flood(k) => {
                for _ in 0..len_of(k) {
                    m.overwrite(&ring);
                }
            }
            Op::Pop => {
                let got = ring.try_pop();
                if m.pop_run(1) == 1 {
                    assert_eq!(got, Ok(m.popped(1)[0]));
                } else {
                    assert_eq!(got, Err(m.pop_error()));
                }
            }
            Op::PopBurst(k) => {
                let out = &mut buf[..len_of(k)];
                let k = out.len();
                let got = ring.pop_burst(out);
                let n = m.pop_run(k);
                let want = m.popped(n);
                assert_eq!(out[..n], want[..]);
                let stop = if n == k {
                    None
                } else if n > 0 && m.pop_stop() == Stop::Busy {
                    // A burst that took some items and stopped on a closed
                    // ring whose next slot a held chunk still claims: the
                    // ring answers `Empty` here where `try_pop` answers
                    // `Busy` in the same state. Either is taken, and
                    // counted as the ring counts it.
                    let stop = got.stop.filter(|s| matches!(s, Stop::Busy | Stop::Empty));
                    Some(m.count(stop.expect("Busy or Empty"), 0))
                } else {
                    Some(m.count(m.pop_stop(), 0))
                };
                assert_eq!(got, Moved { count: n, stop });
            }
            Op::PopBulk(k) => {
                let out = &mut buf[..len_of(k)];
                let k = out.len();
                let got = ring.pop_bulk(out);
                if k == 0 {
                    assert_eq!(got, Ok(()));
                } else if k <= N && m.pop_run(k) == k {
                    assert_eq!(got, Ok(()));
                    assert_eq!(out[..], m.popped(k)[..]);
                } else if k > N || m.pop_run(k) > 0 {
                    // Fewer items than asked: empty, even on a closed ring.
                    assert_eq!(got, Err(Stop::Empty));
                } else {
                    let stop = m.count(m.pop_stop(), 0);
                    assert_eq!(got, Err(stop));
                }
            }
            Op::ReadChunk(k) => {
                let max = len_of(k);
                let got = ring.read_chunk(max);
                let n = m.pop_run(max.max(1));
                if n == 0 {
                    let stop = m.count(m.pop_stop(), 0);
                    assert_eq!(got.map(|c| c.len()).unwrap_err(), stop);
                } else {
                    let chunk = got.expect("items to read");
                    assert_eq!(chunk.len(), n);
                    let from = m.cons;
                    let items = m.popped(n);
                    check_chunk(&chunk, &items);
                    m.held.push((from, items));
                    chunks.push(chunk);
                }
            }
            Op::Release(i) => {
                if !chunks.is_empty() {
                    let i = i as usize % chunks.len();
                    let chunk = chunks.remove(i);
                    let (_, items) = m.held.remove(i);
                    // Nothing wrote its slots while it was held.
                    check_chunk(&chunk, &items);
                    chunk.release();
                }
            }
            Op::Close => {
                assert_eq!(ring.close(), !m.closed);
                m.closed = true;
            }
            Op::Drain => {
                let got: Vec<u64> = ring.drain().collect();
                let want = m.popped(m.len());
                assert_eq!(got, want);
                // The pop that ended it.
                m.pop_error();
            }
            Op::Clear => {
                let got = ring.clear();
                assert_eq!(got, m.len());
                m.popped(m.len());
                m.pop_error();
            }
        }
        check(&ring, &m);
    }
    // Whatever is left comes out in order once the chunks are released.
    drop(chunks);
    m.held.clear();
    let got: Vec<u64> = ring.drain().collect();
    assert_eq!(got, m.popped(m.len()));
    ring.close();
    assert_eq!(ring.try_pop(), Err(PopError::Closed));
    assert!(ring.is_drained());
}

/// The chunk lends out exactly `items`, through both of its views.
fn check_chunk<const N: usize, const W: usize>(chunk: &ReadChunk<'_, u64, N, W>, items: &[u64]) {
    let (a, b) = chunk.as_slices();
    assert_eq!([a, b].concat(), items);
    assert!(a.len() + b.len() == chunk.len() && !a.is_empty());
    for (i, item) in items.iter().enumerate() {
        assert_eq!(chunk.get(i), Some(*item));
    }
    assert_eq!(chunk.get(items.len()), None);
}

/// The observers and counters after every step.
fn check<const N: usize, const W: usize>(ring: &BurstRing<u64, N, W>, m: &Model) {
    let len = m.len();
    assert_eq!(ring.len(), len);
    assert_eq!(ring.is_empty(), len == 0);
    assert_eq!(ring.is_full(), len == N);
    assert_eq!(ring.free_slots(), N - len);
    assert_eq!(ring.is_closed(), m.closed);
    assert_eq!(ring.is_drained(), m.closed && len == 0 && m.free(m.prod));
    let s = ring.stats();
    assert_eq!(
        (s.rejected, s.overwritten, s.busy),
        (m.rejected, m.overwritten, m.busy)
    );
    // The high-water mark: `N` once the ring refused or evicted for being
    // full; else a sampled length, at least the length now and at most the
    // largest there has been.
    if m.rejected != 0 || m.overwritten != 0 {
        assert_eq!(s.peak, N);
    } else {
        let highest = m.highest;
        assert!(len <= s.peak && s.peak <= highest, "{s:?} {len} {highest}");
    }
}

fuzz_target!(|input: Input| {
    let start = input.start.position();
    let ops = &input.ops;
    match input.cap {
        Cap::One => run::<1, 1>(start, ops),
        Cap::Two => run::<2, 1>(start, ops),
        Cap::Four => run::<4, 1>(start, ops),
        Cap::ThirtyTwo => run::<32, 1>(start, ops),
        Cap::SixtyFour => run::<64, 2>(start, ops),
    }
});
