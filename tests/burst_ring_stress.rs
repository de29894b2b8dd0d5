//! `mpmc::BurstRing` under real threads (more than this machine's cores, so
//! contexts are preempted mid-operation all the time), with exact
//! accounting: every item stored is popped or evicted exactly once, each
//! consumer sees each producer's items in push order, and every refusal is
//! counted.

#[path = "common/splitmix.rs"]
mod splitmix;

use sluicegate::mpmc::burst_ring::{BurstRing, PushError, Stop};
use splitmix::Rng;
use std::sync::atomic::{AtomicBool, Ordering};

const PRODUCERS: u64 = 3;
const CONSUMERS: usize = 3;

/// What one producer did: the items it stored, the items it evicted, and
/// the refusals it saw.
#[derive(Default)]
struct Made {
    stored: Vec<u64>,
    evicted: Vec<u64>,
    full: usize,
    busy: usize,
}

fn produce<const N: usize, const W: usize>(ring: &BurstRing<u64, N, W>, id: u64, per: u64) -> Made {
    let mut rng = Rng(0x5eed ^ id);
    let mut made = Made::default();
    let mut seq = 0;
    let item = |s: u64| (id << 40) | s;
    let (mut last, mut last_seq) = (std::time::Instant::now(), 0);
    while seq < per {
        // A ring that stays refusing (a position claimed and never
        // released) fails here instead of hanging.
        if seq != last_seq {
            (last, last_seq) = (std::time::Instant::now(), seq);
        } else {
            assert!(
                last.elapsed().as_secs() < 20,
                "no push went in for 20 s: {ring:?}"
            );
        }
        let k = (1 + rng.below(40)).min(per - seq);
        match rng.below(4) {
            0 => match ring.try_push(item(seq)) {
                Ok(()) => made.stored.push(item(seq)),
                Err(PushError::Full(_)) => made.full += 1,
                Err(PushError::Busy(_)) => made.busy += 1,
                Err(PushError::Closed(_)) => unreachable!(),
            },
            1 => {
                let items: Vec<u64> = (seq..seq + k).map(item).collect();
                let got = ring.push_burst(&items);
                made.stored.extend(&items[..got.count]);
                match got.stop {
                    Some(Stop::Full) => made.full += items.len() - got.count,
                    Some(Stop::Busy) => made.busy += 1,
                    None => {}
                    Some(other) => unreachable!("{other:?}"),
                }
                seq += got.count as u64;
                continue;
            }
            2 => {
                let items: Vec<u64> = (seq..seq + k).map(item).collect();
                match ring.push_bulk(&items) {
                    Ok(()) => {
                        made.stored.extend(&items);
                        seq += k;
                        continue;
                    }
                    Err(Stop::Full) => made.full += items.len(),
                    Err(Stop::Busy) => made.busy += 1,
                    Err(other) => unreachable!("{other:?}"),
                }
            }
            _ => match ring.push_overwrite(item(seq)) {
                Ok(old) => {
                    made.stored.push(item(seq));
                    made.evicted.extend(old);
                }
                Err(PushError::Busy(_)) => made.busy += 1,
                Err(_) => unreachable!(),
            },
        }
        // A refused single item is tried again (as a new item would be).
        if made.stored.last() == Some(&item(seq)) {
            seq += 1;
        } else {
            std::thread::yield_now();
        }
    }
    made
}

/// Pops until `stop` is set and the ring answers empty; returns the items
/// in the order this consumer got them, and the busy answers it saw.
fn consume<const N: usize, const W: usize>(
    ring: &BurstRing<u64, N, W>,
    seed: u64,
    stop: &AtomicBool,
) -> (Vec<u64>, usize) {
    let mut rng = Rng(seed);
    let mut got = Vec::new();
    let mut busy = 0;
    let mut buf = [0u64; 48];
    let mut since: Option<std::time::Instant> = None;
    loop {
        // Once the producers are done the ring drains within moments; a
        // ring that does not (a position claimed and never released)
        // fails here instead of hanging.
        if stop.load(Ordering::Acquire) {
            let t = *since.get_or_insert_with(std::time::Instant::now);
            assert!(
                t.elapsed().as_secs() < 20,
                "the ring never drained: {ring:?}"
            );
        }
        let k = 1 + rng.below(40) as usize;
        let answer = match rng.below(4) {
            0 => match ring.try_pop() {
                Ok(v) => {
                    got.push(v);
                    None
                }
                Err(e) => Some(e.stop()),
            },
            1 => {
                let m = ring.pop_burst(&mut buf[..k]);
                got.extend(&buf[..m.count]);
                m.stop.filter(|_| m.count == 0)
            }
            2 => match ring.pop_bulk(&mut buf[..k]) {
                Ok(()) => {
                    got.extend(&buf[..k]);
                    None
                }
                Err(stop) => Some(stop),
            },
            _ => match ring.read_chunk(k) {
                Ok(chunk) => {
                    let (a, b) = chunk.as_slices();
                    got.extend(a);
                    got.extend(b);
                    // Hold it across a switch now and then.
                    if rng.below(8) == 0 {
                        std::thread::yield_now();
                    }
                    chunk.release();
                    None
                }
                Err(stop) => Some(stop),
            },
        };
        match answer {
            None => {}
            Some(Stop::Busy) => {
                busy += 1;
                std::thread::yield_now();
            }
            Some(Stop::Empty) if stop.load(Ordering::Acquire) && ring.is_empty() => break,
            Some(_) => std::thread::yield_now(),
        }
    }
    (got, busy)
}

fn stress<const N: usize, const W: usize>(per: u64) {
    let ring: BurstRing<u64, N, W> = BurstRing::new();
    let done = AtomicBool::new(false);
    let (made, eaten) = std::thread::scope(|s| {
        let consumers: Vec<_> = (0..CONSUMERS)
            .map(|c| {
                let (ring, done) = (&ring, &done);
                s.spawn(move || consume(ring, 77 + c as u64, done))
            })
            .collect();
        let producers: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let ring = &ring;
                s.spawn(move || produce(ring, p + 1, per))
            })
            .collect();
        let made: Vec<_> = producers.into_iter().map(|h| h.join()).collect();
        // Set even if a producer failed, so that the consumers end.
        done.store(true, Ordering::Release);
        let made: Vec<Made> = made.into_iter().map(|m| m.unwrap()).collect();
        let eaten: Vec<(Vec<u64>, usize)> =
            consumers.into_iter().map(|h| h.join().unwrap()).collect();
        (made, eaten)
    });
    assert!(ring.is_empty());
    // Each consumer sees each producer's items in push order.
    for (got, _) in &eaten {
        let mut last = std::collections::HashMap::new();
        for &v in got {
            let (p, s) = (v >> 40, v & ((1 << 40) - 1));
            if let Some(prev) = last.insert(p, s) {
                assert!(prev < s, "producer {p}: {s} after {prev}");
            }
        }
    }
    // Every stored item popped or evicted exactly once.
    let mut out: Vec<u64> = eaten.iter().flat_map(|(g, _)| g.iter().copied()).collect();
    out.extend(made.iter().flat_map(|m| m.evicted.iter().copied()));
    let mut stored: Vec<u64> = made.iter().flat_map(|m| m.stored.iter().copied()).collect();
    out.sort_unstable();
    stored.sort_unstable();
    assert_eq!(out.len(), stored.len());
    assert_eq!(out, stored);
    // Every refusal counted.
    let stats = ring.stats();
    let evicted: usize = made.iter().map(|m| m.evicted.len()).sum();
    let full: usize = made.iter().map(|m| m.full).sum();
    let busy: usize =
        made.iter().map(|m| m.busy).sum::<usize>() + eaten.iter().map(|e| e.1).sum::<usize>();
    assert_eq!(stats.overwritten, evicted);
    assert_eq!(stats.rejected, full);
    // Consumers' bursts that moved some items and then stopped busy count
    // in the ring but not in this tally.
    assert!(stats.busy >= busy, "{} < {busy}", stats.busy);
}

#[test]
fn exact_accounting_at_64_slots() {
    stress::<64, 2>(if cfg!(miri) { 120 } else { 200_000 });
}

#[test]
fn exact_accounting_at_4_slots() {
    stress::<4, 1>(if cfg!(miri) { 80 } else { 100_000 });
}

#[test]
fn exact_accounting_at_1_slot() {
    stress::<1, 1>(if cfg!(miri) { 40 } else { 50_000 });
}

/// One producer pushing only with `push_overwrite` on a full ring against
/// `consumers` threads that pop, burst, bulk and hold read chunks across
/// switches: the producer never waits for them (a held slot becomes a
/// void), its evictions come oldest first, each consumer gets the items in
/// push order, and every item is popped or evicted exactly once. A busy
/// answer (a pass of voids at the front in progress) hands the item back;
/// the producer offers it again.
fn keep_newest<const N: usize, const W: usize>(per: u64, consumers: usize) {
    let ring: BurstRing<u64, N, W> = BurstRing::new();
    let done = AtomicBool::new(false);
    let (made, eaten) = std::thread::scope(|s| {
        let eaters: Vec<_> = (0..consumers)
            .map(|c| {
                let (ring, done) = (&ring, &done);
                s.spawn(move || consume(ring, 91 + c as u64, done))
            })
            .collect();
        let mut made = Made::default();
        let mut seq = 0;
        while seq < per {
            match ring.push_overwrite(seq) {
                Ok(old) => {
                    if let (Some(old), Some(&before)) = (old, made.evicted.last()) {
                        assert!(old > before, "evicted {old} after {before}");
                    }
                    made.stored.push(seq);
                    made.evicted.extend(old);
                    seq += 1;
                }
                Err(PushError::Busy(v)) => {
                    assert_eq!(v, seq);
                    made.busy += 1;
                }
                Err(e) => unreachable!("{e:?}"),
            }
        }
        done.store(true, Ordering::Release);
        let eaten: Vec<(Vec<u64>, usize)> = eaters.into_iter().map(|h| h.join().unwrap()).collect();
        (made, eaten)
    });
    assert!(ring.is_empty());
    for (got, _) in &eaten {
        assert!(
            got.windows(2).all(|w| w[0] < w[1]),
            "a consumer's items out of order"
        );
    }
    let mut out: Vec<u64> = eaten.iter().flat_map(|(g, _)| g.iter().copied()).collect();
    out.extend(&made.evicted);
    out.sort_unstable();
    assert_eq!(out, made.stored, "every item popped or evicted once");
    let stats = ring.stats();
    assert_eq!(stats.overwritten, made.evicted.len());
    assert_eq!(stats.rejected, 0);
    // Every slot usable again.
    let again: Vec<u64> = (0..N as u64).collect();
    assert_eq!(ring.push_burst(&again).count, N);
}

#[test]
fn keep_newest_against_one_consumer() {
    keep_newest::<64, 2>(if cfg!(miri) { 200 } else { 400_000 }, 1);
}

#[test]
fn keep_newest_against_three_consumers_on_4_slots() {
    keep_newest::<4, 1>(if cfg!(miri) { 120 } else { 200_000 }, 3);
}
