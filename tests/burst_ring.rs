//! `mpmc::BurstRing` on one thread, against a model that knows `Busy`:
//! random pushes, pops, bursts, bulks, evictions and read chunks held
//! across the other operations, at several capacities, from position 0 and
//! from just before the counters wrap. Every answer, every item and every
//! counter is checked against the model.

#[path = "common/splitmix.rs"]
mod splitmix;

use sluicegate::mpmc::burst_ring::{BurstRing, Moved, PopError, PushError, ReadChunk, Stop};
use splitmix::Rng;
use std::collections::VecDeque;

/// What the ring must hold and answer. Positions count from the ring's
/// start; every push completes at once (one thread), so a position is
/// published from its push on, and a read chunk's positions are claimed and
/// not consumed until it is released.
struct Model {
    n: u64,
    prod: u64,
    cons: u64,
    items: VecDeque<u32>,
    /// Positions held by read chunks, not consumed yet.
    held: Vec<u64>,
    closed: bool,
    rejected: usize,
    overwritten: usize,
    busy: usize,
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
        }
    }

    /// Whether position `q` may be pushed: its previous lap consumed.
    fn free(&self, q: u64) -> bool {
        q < self.n || (q - self.n < self.cons && !self.held.contains(&(q - self.n)))
    }

    /// How many positions from `prod` (at most `max`) are free.
    fn push_run(&self, max: usize) -> usize {
        (0..max.min(self.n as usize))
            .take_while(|&k| self.free(self.prod + k as u64))
            .count()
    }

    /// Why position `q` cannot be pushed.
    fn push_stop(&self, q: u64) -> Stop {
        if self.closed {
            Stop::Closed
        } else if q - self.cons >= self.n {
            Stop::Full
        } else {
            Stop::Busy
        }
    }

    fn pop_run(&self, max: usize) -> usize {
        (max.min(self.n as usize) as u64).min(self.prod - self.cons) as usize
    }

    /// Why a pop that reached position `q` found nothing there.
    fn pop_stop(&self, q: u64) -> Stop {
        let drained = q < self.n || !self.held.contains(&(q - self.n));
        if self.closed && drained {
            Stop::Closed
        } else if self.closed {
            Stop::Busy
        } else {
            Stop::Empty
        }
    }

    fn count(&mut self, stop: Stop, items: usize) -> Stop {
        match stop {
            Stop::Full => self.rejected += items,
            Stop::Busy => self.busy += 1,
            _ => {}
        }
        stop
    }
}

fn run<const N: usize, const W: usize>(seed: u64, start: usize, steps: usize) {
    let ring: BurstRing<u32, N, W> = BurstRing::with_start(start);
    let mut m = Model::new(N);
    let mut rng = Rng(seed);
    let mut next = 0u32;
    let mut chunks: Vec<(ReadChunk<'_, u32, N, W>, Vec<u32>, u64)> = Vec::new();
    let mut buf = vec![0u32; 2 * N + 3];
    for step in 0..steps {
        let ctx = format!("seed {seed} start {start} step {step}");
        let k = 1 + rng.below(2 * N as u64 + 2) as usize;
        match rng.below(if m.closed { 9 } else { 10 }) {
            0 => {
                let want = m.push_run(1);
                let got = ring.try_push(next);
                if !m.closed && want == 1 {
                    assert_eq!(got, Ok(()), "{ctx}");
                    m.items.push_back(next);
                    m.prod += 1;
                } else {
                    let stop = m.count(m.push_stop(m.prod), 1);
                    let want = match stop {
                        Stop::Full => PushError::Full(next),
                        Stop::Busy => PushError::Busy(next),
                        _ => PushError::Closed(next),
                    };
                    assert_eq!(got, Err(want), "{ctx}");
                }
                next += 1;
            }
            1 => {
                let items: Vec<u32> = (next..next + k as u32).collect();
                next += k as u32;
                let got = ring.push_burst(&items);
                let n = if m.closed { 0 } else { m.push_run(k) };
                let stop = (n < k).then(|| m.push_stop(m.prod + n as u64));
                if let Some(stop) = stop {
                    m.count(stop, k - n);
                }
                assert_eq!(got, Moved { count: n, stop }, "{ctx}");
                m.items.extend(&items[..n]);
                m.prod += n as u64;
            }
            2 => {
                let items: Vec<u32> = (next..next + k as u32).collect();
                next += k as u32;
                let got = ring.push_bulk(&items);
                let n = if m.closed { 0 } else { m.push_run(k) };
                if n == k {
                    assert_eq!(got, Ok(()), "{ctx}");
                    m.items.extend(&items);
                    m.prod += n as u64;
                } else {
                    let stop = if k > N {
                        Stop::Full
                    } else {
                        m.push_stop(m.prod + n as u64)
                    };
                    assert_eq!(got, Err(m.count(stop, k)), "{ctx}");
                }
            }
            3 => {
                let got = ring.push_overwrite(next);
                if m.closed {
                    assert_eq!(got, Err(PushError::Closed(next)), "{ctx}");
                } else if m.push_run(1) == 1 {
                    assert_eq!(got, Ok(None), "{ctx}");
                    m.items.push_back(next);
                    m.prod += 1;
                } else if m.push_stop(m.prod) == Stop::Busy {
                    m.busy += 1;
                    assert_eq!(got, Err(PushError::Busy(next)), "{ctx}");
                } else {
                    let old = m.items.pop_front().unwrap();
                    m.items.push_back(next);
                    m.cons += 1;
                    m.prod += 1;
                    m.overwritten += 1;
                    assert_eq!(got, Ok(Some(old)), "{ctx}");
                }
                next += 1;
            }
            4 => {
                let got = ring.try_pop();
                if m.pop_run(1) == 1 {
                    assert_eq!(got, Ok(m.items.pop_front().unwrap()), "{ctx}");
                    m.cons += 1;
                } else {
                    let want = match m.count(m.pop_stop(m.cons), 0) {
                        Stop::Busy => PopError::Busy,
                        Stop::Closed => PopError::Closed,
                        _ => PopError::Empty,
                    };
                    assert_eq!(got, Err(want), "{ctx}");
                }
            }
            5 => {
                let out = &mut buf[..k];
                let got = ring.pop_burst(out);
                let n = m.pop_run(k);
                let stop = (n < k).then(|| m.count(m.pop_stop(m.cons + n as u64), 0));
                assert_eq!(got, Moved { count: n, stop }, "{ctx}");
                let want: Vec<u32> = m.items.drain(..n).collect();
                assert_eq!(out[..n], want[..], "{ctx}");
                m.cons += n as u64;
            }
            6 => {
                let out = &mut buf[..k];
                let got = ring.pop_bulk(out);
                if k <= N && m.pop_run(k) == k {
                    assert_eq!(got, Ok(()), "{ctx}");
                    let want: Vec<u32> = m.items.drain(..k).collect();
                    assert_eq!(out[..], want[..], "{ctx}");
                    m.cons += k as u64;
                } else {
                    // Fewer items than asked: empty (for a bulk) while any
                    // is left, even on a closed ring.
                    let stop = if k > N || m.pop_run(k) > 0 {
                        Stop::Empty
                    } else {
                        m.count(m.pop_stop(m.cons), 0)
                    };
                    assert_eq!(got, Err(stop), "{ctx}");
                }
            }
            7 => {
                let got = ring.read_chunk(k);
                let n = m.pop_run(k);
                if n == 0 {
                    let stop = m.count(m.pop_stop(m.cons), 0);
                    assert_eq!(got.map(|c| c.len()).unwrap_err(), stop, "{ctx}");
                } else {
                    let chunk = got.unwrap();
                    assert_eq!(chunk.len(), n, "{ctx}");
                    let want: Vec<u32> = m.items.drain(..n).collect();
                    m.held.extend(m.cons..m.cons + n as u64);
                    chunks.push((chunk, want, m.cons));
                    m.cons += n as u64;
                }
            }
            8 => {
                // Release a held chunk, after checking it still holds its items.
                if !chunks.is_empty() {
                    let i = rng.below(chunks.len() as u64) as usize;
                    let (chunk, want, first) = chunks.swap_remove(i);
                    let (a, b) = chunk.as_slices();
                    assert_eq!([a, b].concat(), want, "{ctx}");
                    assert_eq!(chunk.get(0), want.first().copied(), "{ctx}");
                    m.held
                        .retain(|p| *p < first || *p >= first + want.len() as u64);
                    chunk.release();
                }
            }
            _ => {
                assert_eq!(ring.close(), !m.closed, "{ctx}");
                m.closed = true;
            }
        }
        // Held chunks' items are claimed by pops: no longer counted.
        assert_eq!(ring.len() as u64, m.prod - m.cons, "{ctx}");
        let s = ring.stats();
        assert_eq!(
            (s.rejected, s.overwritten, s.busy),
            (m.rejected, m.overwritten, m.busy),
            "{ctx}"
        );
        assert!(s.peak <= N, "{ctx}");
        assert_eq!(ring.is_closed(), m.closed, "{ctx}");
    }
    drop(chunks);
}

/// Seeds per capacity and start; more under `SLUICEGATE_MODEL_SEEDS`.
fn seeds() -> u64 {
    std::env::var("SLUICEGATE_MODEL_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(miri) { 2 } else { 24 })
}

/// A start a few laps before the counters wrap (positions count modulo
/// `2^(usize::BITS - 2)`).
const NEAR_WRAP: usize = (1 << (usize::BITS - 2)) - 256;

fn each<const N: usize, const W: usize>() {
    let steps = if cfg!(miri) { 200 } else { 3000 };
    for seed in 0..seeds() {
        run::<N, W>(seed, 0, steps);
        run::<N, W>(seed, NEAR_WRAP, steps);
    }
}

#[test]
fn matches_the_model_at_1_slot() {
    each::<1, 1>();
}

#[test]
fn matches_the_model_at_2_slots() {
    each::<2, 1>();
}

#[test]
fn matches_the_model_at_8_slots() {
    each::<8, 1>();
}

#[test]
fn matches_the_model_at_32_slots() {
    each::<32, 1>();
}

#[test]
fn matches_the_model_at_64_slots() {
    each::<64, 2>();
}

#[test]
fn matches_the_model_at_128_slots() {
    each::<128, 4>();
}
