//! `mpmc::BurstRing` on one thread, against a model that knows `Busy`:
//! random pushes, pops, bursts, bulks, evictions and read chunks held
//! across the other operations, at several capacities, from position 0 and
//! from just before the counters wrap. Every answer, every item and every
//! counter is checked against the model.

#[path = "common/burst_model.rs"]
mod burst_model;
#[path = "common/splitmix.rs"]
mod splitmix;

use burst_model::Driver;
// What the model file reaches through `super::`.
use sluicegate::mpmc::burst_ring::{
    BurstRing, Level, Marked, Marks, Moved, NoMarks, PopError, PushError, ReadChunk, Stop,
    WriteChunk,
};

fn run<const N: usize, const W: usize>(seed: u64, start: usize, steps: usize) {
    let ring: BurstRing<u32, N, W> = BurstRing::with_start(start);
    let mut d = Driver::new(N, seed);
    let ctx = format!("seed {seed} start {start}");
    d.ops(&ring, steps, &ctx);
    d.release_all();
    d.check(&ring, &ctx);
}

/// Seeds per capacity and start; more under `SLUICEGATE_MODEL_SEEDS`.
fn seeds() -> u64 {
    std::env::var("SLUICEGATE_MODEL_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(miri) { 1 } else { 24 })
}

/// A start a few laps before the counters wrap (positions count modulo
/// `2^(usize::BITS - 2)`).
const NEAR_WRAP: usize = (1 << (usize::BITS - 2)) - 256;

/// [`run`] on a ring with watermarks `low` and `high`: the driver also
/// checks the level after every step.
fn run_marked<const N: usize, const W: usize>(seed: u64, start: usize, steps: usize) {
    let high = 1 + seed as usize % N;
    let low = (seed as usize / N) % high;
    let ring: BurstRing<u32, N, W, Marked> = BurstRing::with_start_and_watermarks(start, low, high);
    let mut d = Driver::new(N, seed).with_level(|r| {
        let (low, high) = r.watermarks();
        Some((r.level(), low, high))
    });
    let ctx = format!("seed {seed} start {start} marks {low} {high}");
    d.ops(&ring, steps, &ctx);
    d.release_all();
    d.check(&ring, &ctx);
}

fn each<const N: usize, const W: usize>() {
    let steps = if cfg!(miri) { 150 } else { 3000 };
    for seed in 0..seeds() {
        run::<N, W>(seed, 0, steps);
        run::<N, W>(seed, NEAR_WRAP, steps);
        run_marked::<N, W>(seed, 0, steps);
        run_marked::<N, W>(seed, NEAR_WRAP, steps);
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

/// On a closed ring, a pop still holding the last items (a read chunk)
/// does not hold back "closed and drained" from the others: no item can
/// come after it.
#[test]
fn a_pop_in_progress_does_not_hide_the_drained_end() {
    let ring: BurstRing<u32, 2, 1> = BurstRing::new();
    ring.push_burst(&[1, 2]);
    ring.close();
    let chunk = ring.read_chunk(2).unwrap();
    assert_eq!(ring.try_pop(), Err(PopError::Closed));
    drop(chunk);
    assert_eq!(ring.try_pop(), Err(PopError::Closed));

    // One slot too: an eviction claims its position in `prod` before it
    // takes the oldest, so none hides behind `cons == prod`.
    let ring: BurstRing<u32, 1, 1> = BurstRing::new();
    ring.try_push(1).unwrap();
    ring.close();
    let chunk = ring.read_chunk(1).unwrap();
    assert_eq!(ring.try_pop(), Err(PopError::Closed));
    drop(chunk);
    assert_eq!(ring.try_pop(), Err(PopError::Closed));
}

/// A write chunk dropped unfilled (a fill that panicked, an iterator that
/// ended inside its claim) with its voids at the front passes them itself:
/// they do not keep room from the pushes. Voids behind an item wait for
/// the pops, which pass them.
#[test]
fn a_chunk_dropped_unfilled_at_the_front_passes_its_voids() {
    let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    drop(ring.write_chunk(4).unwrap());
    assert_eq!(ring.len(), 0);
    assert_eq!(ring.push_burst(&[1, 2, 3, 4]).count, 4);
    assert_eq!(ring.pop_burst(&mut [0; 4]).count, 4);
    ring.try_push(5).unwrap();
    drop(ring.write_chunk(3).unwrap());
    assert_eq!(ring.len(), 4, "voids behind an item stay until a pop");
    assert_eq!(ring.try_pop(), Ok(5));
    assert_eq!(ring.try_pop(), Err(PopError::Empty));
    assert_eq!(ring.len(), 0);
    let mut k = 0;
    ring.push_iter(core::iter::from_fn(|| {
        k += 1;
        (k <= 2).then_some(k)
    }));
    assert_eq!(ring.pop_burst(&mut [0; 4]).count, 2);
    assert_eq!(ring.try_pop(), Err(PopError::Empty));
    assert_eq!(ring.push_burst(&[6, 7, 8, 9]).count, 4);
    let s = ring.stats();
    assert_eq!((s.rejected, s.busy), (0, 0));
}

/// A bulk longer than the ring never fits; on a closed ring it says
/// `Closed` (and counts nothing), as a bulk that fits would, so a loop of
/// bulks ends on a closed ring whatever their size.
#[test]
fn oversized_bulks_on_a_closed_ring_say_closed() {
    let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    assert_eq!(ring.push_bulk(&[0; 5]), Err(Stop::Full));
    assert_eq!(ring.stats().rejected, 5);
    let mut out = [0; 5];
    assert_eq!(ring.pop_bulk(&mut out), Err(Stop::Empty));
    ring.try_push(1).unwrap();
    ring.close();
    assert_eq!(ring.push_bulk(&[0; 5]), Err(Stop::Closed));
    assert_eq!(
        ring.stats().rejected,
        5,
        "a closed ring's refusal is not a rejection"
    );
    assert_eq!(ring.pop_bulk(&mut out), Err(Stop::Empty), "one item left");
    assert_eq!(ring.try_pop(), Ok(1));
    assert_eq!(ring.pop_bulk(&mut out), Err(Stop::Closed));
}

/// An empty burst moves nothing, stops for nothing and counts nothing, on
/// an empty, a part-full, a full and a closed ring, and with a void at the
/// front (a write chunk dropped unfilled).
#[test]
fn empty_bursts_answer_nothing_in_every_state() {
    let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    let none = Moved {
        count: 0,
        stop: None,
    };
    let check = |ring: &BurstRing<u32, 4, 1>, state: &str| {
        let (len, stats) = (ring.len(), ring.stats());
        assert_eq!(ring.push_burst(&[]), none, "{state}: push_burst");
        assert_eq!(ring.pop_burst(&mut []), none, "{state}: pop_burst");
        assert_eq!(ring.push_bulk(&[]), Ok(()), "{state}: push_bulk");
        assert_eq!(ring.pop_bulk(&mut []), Ok(()), "{state}: pop_bulk");
        assert_eq!((ring.len(), ring.stats()), (len, stats), "{state}");
    };
    check(&ring, "empty");
    ring.push_burst(&[1, 2]);
    check(&ring, "part-full");
    ring.push_burst(&[3, 4]);
    check(&ring, "full");
    let mut out = [0; 3];
    assert_eq!(ring.pop_burst(&mut out).count, 3);
    drop(ring.write_chunk(1).unwrap()); // a void behind 4
    assert_eq!(ring.try_pop(), Ok(4));
    ring.try_push(5).unwrap();
    check(&ring, "a void at the front");
    ring.close();
    check(&ring, "closed");
    assert_eq!(ring.try_pop(), Ok(5));
    check(&ring, "closed and drained");
}

/// Keeps the newest past a held read chunk: on a full ring of 8 whose
/// oldest `held` items a chunk holds, `3 * 8` pushes with `push_overwrite`
/// each store their item and evict the oldest item the chunk does not hold
/// (the chunk's slots become voids as the pushes lap them); the chunk still
/// reads its items intact, and after it is released the ring holds the
/// newest items, in order. From 0 and from just before the counters wrap.
#[test]
fn overwrite_keeps_the_newest_past_a_held_chunk() {
    const N: usize = 8;
    for start in [0, NEAR_WRAP] {
        for held in 1..N {
            let ctx = format!("start {start}, {held} held");
            let ring: BurstRing<u32, N, 1> = BurstRing::with_start(start);
            ring.push_burst(&(0..N as u32).collect::<Vec<_>>());
            let chunk = ring.read_chunk(held).unwrap();
            assert_eq!(chunk.len(), held, "{ctx}");
            let mut evicted = Vec::new();
            for k in 0..3 * N as u32 {
                match ring.push_overwrite(100 + k) {
                    Ok(Some(old)) => evicted.push(old),
                    other => panic!("{ctx}: push {k} answered {other:?}"),
                }
            }
            let (a, b) = chunk.as_slices();
            let seen: Vec<u32> = a.iter().chain(b).copied().collect();
            assert_eq!(
                seen,
                (0..held as u32).collect::<Vec<_>>(),
                "{ctx}: the held items"
            );
            // Evicted oldest first: the items the chunk did not hold, then
            // the newest pushes in turn; the ring keeps `N - held` of them
            // beside the chunk's slots.
            let all: Vec<u32> = (held as u32..N as u32)
                .chain(100..100 + 3 * N as u32)
                .collect();
            let kept = N - held;
            assert_eq!(evicted, all[..all.len() - kept], "{ctx}: evictions");
            chunk.release();
            let mut rest = Vec::new();
            while let Ok(v) = ring.try_pop() {
                rest.push(v);
            }
            assert_eq!(rest, all[all.len() - kept..], "{ctx}: the newest kept");
            let s = ring.stats();
            assert_eq!((s.overwritten, s.busy, s.rejected), (3 * N, 0, 0), "{ctx}");
            // Whole again: every slot takes an item, no more.
            assert!(ring.is_empty(), "{ctx}");
            assert_eq!(ring.push_burst(&[7; N + 1]).count, N, "{ctx}");
        }
    }
}

/// With every slot held (a chunk of all `N` items), `push_overwrite` has
/// nowhere to go: it answers busy after voiding a lap, and the chunk's
/// items are intact.
#[test]
fn overwrite_with_every_slot_held_answers_busy() {
    let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    ring.push_burst(&[0, 1, 2, 3]);
    let chunk = ring.read_chunk(4).unwrap();
    assert_eq!(ring.push_overwrite(9), Err(PushError::Busy(9)));
    assert_eq!(ring.stats().busy, 1);
    assert_eq!(chunk.as_slices(), (&[0, 1, 2, 3][..], &[][..]));
    chunk.release();
    // The voids the refused push left are passed; the ring is whole.
    assert_eq!(ring.try_pop(), Err(PopError::Empty));
    assert_eq!(ring.push_burst(&[5; 5]).count, 4);
    assert_eq!(ring.pop_burst(&mut [0; 8]).count, 4);
}

/// The calls that answer a count or an iterator's end count a stop at a
/// busy position in `busy`, as the calls answered busy do: `drain` behind
/// a write chunk still held (and a fresh pop, answered busy), `push_iter`
/// into a slot a read chunk holds.
#[test]
fn busy_counts_the_stops_of_the_calls_that_answer_a_count() {
    let ring: BurstRing<u32, 4, 1> = BurstRing::new();
    let held = ring.write_chunk(1).unwrap();
    ring.push_burst(&[1, 2]);
    assert_eq!(ring.drain().count(), 0); // the oldest position is held
    assert_eq!(ring.stats().busy, 1);
    assert_eq!(ring.try_pop_fresh(|_: &u32| false), Err(PopError::Busy));
    assert_eq!(ring.stats().busy, 2);
    held.fill_from_slice(&[0]);
    ring.try_push(3).unwrap();
    let reading = ring.read_chunk(1).unwrap(); // holds the slot of 0
    assert_eq!(ring.clear(), 3);
    assert_eq!(ring.push_iter(4..), 0); // the next slot is the chunk's
    assert_eq!(ring.stats().busy, 3);
    drop(reading);
    assert_eq!(ring.push_iter(4..), 4);
    assert_eq!(ring.stats().busy, 3);
    assert_eq!(ring.stats().rejected, 0);
}
