//! Random schedules over the pause points of the SPSC ring. A producer and
//! a consumer each run a random sequence of operations on one ring, one
//! context at a time; at every pause point (and between operations) the
//! scheduler ([`Pct`]) may switch to the other, so either side can stay
//! suspended mid-operation, holding a claim, a peek guard or a half-done
//! eviction, while the other goes round the ring several times. The
//! stop-at tests stop one chosen operation at one chosen point; these
//! reach the combinations, under `Reject` and `Overwrite`, at `N` = 1, 2
//! and 4, with positions starting at 0 or two steps before they wrap.
//!
//! After every schedule: each item made is popped, refused, evicted or
//! still in the ring, exactly once; the pops and the final drain give the
//! items in push order, and the evicted ones too; every item evicted is
//! older than every item left in the ring (an eviction takes the oldest);
//! the ring's counters match what the producer was handed back; and the
//! ring still takes `N` items and gives them back in order.

extern crate std;

use super::claim::{CLAIM_COUNT, CLAIM_SHIFT};
use super::policy::sealed::Maybe as _;
use super::{Consumer, Overwrite, Policy, Producer, Reject, Ring};
use crate::sync::pause::{interleave, Pct, TEST_BETWEEN};
use crate::sync::pause_point;
use crate::sync::splitmix::Rng;
use crate::sync::Ordering;
use crate::Overwritten;
use core::sync::atomic::AtomicUsize;
use std::boxed::Box;
use std::vec::Vec;

const OPS: usize = 16;

/// What the producer made and was handed back.
#[derive(Default)]
struct Made {
    next: u32,
    refused: Vec<u32>,
    evicted: Vec<u32>,
}

impl Made {
    fn take(&mut self) -> u32 {
        self.next += 1;
        self.next - 1
    }
}

/// The items the ring holds and whether the consumer holds a claim. Exact
/// when called by a context between its pause points: the other context
/// is suspended, and what it has not stored yet has not happened.
/// `Relaxed` suffices: the scheduler's channel hand-off orders the other
/// context's stores before this load.
fn held<const N: usize, P: Policy>(ring: &Ring<u32, N, P>) -> (usize, bool) {
    let head = ring.load_head(Ordering::Relaxed);
    let tail = ring.producer.tail.load(Ordering::Relaxed);
    let busy = P::OVERWRITES && head & P::BUSY != 0;
    (tail.wrapping_sub(head & !P::FLAGS) >> P::SHIFT, busy)
}

/// The count of the consumer's claim, and whether it holds the slot of the
/// producer's next position (`Overwrite` only; meaningful while `BUSY`).
fn claim_of<const N: usize, P: Policy>(ring: &Ring<u32, N, P>) -> (usize, bool) {
    let cl = ring
        .head
        .claim
        .get()
        .map_or(0, |c| c.claim.load(Ordering::Relaxed));
    let (first, k) = (cl >> CLAIM_SHIFT, cl & CLAIM_COUNT);
    let tail = ring.producer.tail.load(Ordering::Relaxed);
    let next = (tail >> P::SHIFT) & (N - 1);
    (k, next.wrapping_sub(first) & (N - 1) < k)
}

/// Refused only when full (or, under `Overwrite`, when the next slot is
/// held by the consumer's claim): `try_push` and the rest of a burst or a
/// chunk.
fn assert_full<const N: usize, P: Policy>(ring: &Ring<u32, N, P>, what: &str) {
    let (len, busy) = held(ring);
    assert!(
        len == N || (busy && claim_of(ring).1),
        "{what} refused on a ring that had room ({len} of {N} positions taken)"
    );
}

/// Give-backs the consumer has begun (a chunk committed in part, a peek
/// guard dropped): a push that meets four of them may hand its item back.
static GIVE_BACKS: AtomicUsize = AtomicUsize::new(0);

/// The items the producer published since `tail` (a position it stored).
fn pushed_since<const N: usize, P: Policy>(ring: &Ring<u32, N, P>, tail: usize) -> usize {
    ring.producer
        .tail
        .load(Ordering::Relaxed)
        .wrapping_sub(tail)
        >> P::SHIFT
}

/// Short only when empty: a pop that came back with fewer than it asked
/// for and left `kept` items claimed found the ring empty past them when
/// it looked, so everything else now in the ring came in since. (A pop
/// looks before its last pause point, so items the producer published
/// while it was suspended there may be left: those are the ones counted
/// from `tail`, the producer's position when the pop began.)
fn assert_short_only_when_empty<const N: usize, P: Policy>(
    ring: &Ring<u32, N, P>,
    tail: usize,
    kept: usize,
    what: &str,
) {
    let (mut now, _) = held(ring);
    if P::OVERWRITES {
        // The claim is out of the ring already; a claim also ends at a
        // void, so with voids in the ring a short one proves nothing here.
        let head = ring.load_head(Ordering::Relaxed) & !P::FLAGS;
        if ring.voids_among(head, now) > 0 {
            return;
        }
    } else {
        now -= kept;
    }
    assert!(
        now <= pushed_since(ring, tail),
        "{what} came back short from a ring that held {now} items, {} of them pushed since it began",
        pushed_since(ring, tail)
    );
}

/// The producer's push of one item: an evicting push under `Overwrite`.
trait PushOne: Policy + Sized {
    fn push_one<const N: usize>(tx: &mut Producer<'_, u32, N, Self>, made: &mut Made);
}

/// `try_push` of the next item, under either policy.
fn try_push_one<const N: usize, P: Policy>(tx: &mut Producer<'_, u32, N, P>, made: &mut Made) {
    let v = made.take();
    if let Err(full) = tx.try_push(v) {
        assert_full(tx.ring, "try_push");
        made.refused.push(full.into_inner());
    }
}

impl PushOne for Reject {
    fn push_one<const N: usize>(tx: &mut Producer<'_, u32, N, Self>, made: &mut Made) {
        try_push_one(tx, made);
    }
}

impl PushOne for Overwrite {
    fn push_one<const N: usize>(tx: &mut Producer<'_, u32, N, Self>, made: &mut Made) {
        let v = made.take();
        let backs = GIVE_BACKS.load(Ordering::Relaxed);
        match tx.push_overwrite(v) {
            Overwritten::Stored => {}
            Overwritten::Evicted(old) => {
                assert_full(tx.ring, "an eviction");
                made.evicted.push(old);
            }
            Overwritten::Rejected(back) => {
                let (_, busy) = held(tx.ring);
                assert!(
                    (busy && claim_of(tx.ring).0 == N)
                        || GIVE_BACKS.load(Ordering::Relaxed) >= backs + 4,
                    "Rejected while the consumer held fewer than N slots and gave back nothing"
                );
                made.refused.push(back);
            }
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum ProducerOp {
    One,
    TryPush,
    Burst(usize),
    Chunk(usize),
}

#[derive(Clone, Copy, Debug)]
enum ConsumerOp {
    Pop,
    Burst(usize),
    /// Read up to `.0` items, then commit `.1` of them (at most all).
    Chunk(usize, usize),
    /// Peek, stay suspendable holding the guard, then pop if `.0`.
    Peek(bool),
    Drain,
}

fn produce<const N: usize, P: PushOne>(
    tx: &mut Producer<'_, u32, N, P>,
    ops: &[ProducerOp],
    made: &mut Made,
) {
    for op in ops {
        match *op {
            ProducerOp::One => P::push_one(tx, made),
            ProducerOp::TryPush => try_push_one(tx, made),
            ProducerOp::Burst(k) => {
                let items: Vec<u32> = (0..k).map(|_| made.take()).collect();
                let n = tx.push_burst(&items);
                if n < k {
                    assert_full(tx.ring, "push_burst");
                }
                made.refused.extend_from_slice(&items[n..]);
            }
            ProducerOp::Chunk(k) => {
                // Only the items the chunk takes are made.
                let first = made.next;
                let n = tx
                    .write_chunk_uninit_up_to(k)
                    .fill_from_iter(first..first + k as u32);
                if n < k {
                    assert_full(tx.ring, "a write chunk");
                }
                made.next += n as u32;
            }
        }
        pause_point(TEST_BETWEEN);
    }
}

fn consume<const N: usize, P: Policy>(
    rx: &mut Consumer<'_, u32, N, P>,
    ops: &[ConsumerOp],
    popped: &mut Vec<u32>,
) {
    for op in ops {
        let tail = rx.ring.producer.tail.load(Ordering::Relaxed);
        match *op {
            ConsumerOp::Pop => match rx.try_pop() {
                Some(v) => popped.push(v),
                None => assert_short_only_when_empty(rx.ring, tail, 0, "try_pop"),
            },
            ConsumerOp::Burst(k) => {
                let mut out = [0; 4];
                let n = rx.pop_burst(&mut out[..k]);
                if n < k {
                    assert_short_only_when_empty(rx.ring, tail, 0, "pop_burst");
                }
                popped.extend_from_slice(&out[..n]);
            }
            ConsumerOp::Chunk(k, keep) => {
                let ring = rx.ring;
                let chunk = rx.read_chunk_up_to(k);
                if chunk.len() < k {
                    assert_short_only_when_empty(ring, tail, chunk.len(), "a read chunk");
                }
                let (a, b) = chunk.as_slices();
                let seen: Vec<u32> = a.iter().chain(b).copied().collect();
                assert_eq!(seen.len(), chunk.len());
                pause_point(TEST_BETWEEN);
                let n = keep.min(seen.len());
                popped.extend_from_slice(&seen[..n]);
                if n < seen.len() {
                    GIVE_BACKS.fetch_add(1, Ordering::Relaxed);
                }
                chunk.commit(n);
            }
            ConsumerOp::Peek(pop) => {
                let ring = rx.ring;
                let Some(guard) = rx.peek() else {
                    assert_short_only_when_empty(ring, tail, 0, "peek");
                    continue;
                };
                let v = *guard;
                pause_point(TEST_BETWEEN);
                if pop {
                    assert_eq!(guard.pop(), v, "a peeked item changed under its guard");
                    popped.push(v);
                } else {
                    GIVE_BACKS.fetch_add(1, Ordering::Relaxed);
                }
            }
            ConsumerOp::Drain => {
                popped.extend(rx.drain());
                assert_short_only_when_empty(rx.ring, tail, 0, "drain");
            }
        }
        pause_point(TEST_BETWEEN);
    }
}

fn increasing(items: &[u32]) -> bool {
    items.windows(2).all(|w| w[0] < w[1])
}

/// One random schedule of random operations on a fresh ring.
fn schedule<const N: usize, P: PushOne>(seed: u64) {
    let mut rng = Rng(seed);
    let start = if rng.below(2) == 0 {
        0
    } else {
        (usize::MAX >> P::SHIFT).wrapping_sub(1)
    };
    let mut ring = Ring::<u32, N, P>::with_start(start);
    let producer_ops: Vec<ProducerOp> = (0..OPS)
        .map(|_| match rng.below(6) {
            0..=2 => ProducerOp::One,
            3 => ProducerOp::TryPush,
            4 => ProducerOp::Burst(1 + rng.below(3) as usize),
            _ => ProducerOp::Chunk(1 + rng.below(3) as usize),
        })
        .collect();
    let consumer_ops: Vec<ConsumerOp> = (0..OPS)
        .map(|_| match rng.below(6) {
            0 | 1 => ConsumerOp::Pop,
            2 => ConsumerOp::Burst(1 + rng.below(3) as usize),
            3 => ConsumerOp::Chunk(1 + rng.below(3) as usize, rng.below(4) as usize),
            4 => ConsumerOp::Peek(rng.below(2) == 0),
            _ => ConsumerOp::Drain,
        })
        .collect();
    let mut pct = Pct::new(&mut rng, 2, 3, 4 * OPS as u64);

    let (mut tx, mut rx) = ring.split();
    let mut made = Made::default();
    let mut popped = Vec::new();
    {
        let (tx, rx) = (&mut tx, &mut rx);
        let (made, popped) = (&mut made, &mut popped);
        let (pops, cops) = (&producer_ops, &consumer_ops);
        let workers: Vec<Box<dyn FnOnce() + Send + '_>> = std::vec![
            Box::new(move || produce(tx, pops, made)),
            Box::new(move || consume(rx, cops, popped)),
        ];
        interleave(workers, |live, last| pct.pick(live, last));
    }
    let plans =
        || std::format!("seed {seed}, N {N}, start {start}: {producer_ops:?} / {consumer_ops:?}");

    let drained: Vec<u32> = rx.drain().collect();
    let mut delivered = popped.clone();
    delivered.extend(&drained);
    assert!(
        increasing(&delivered),
        "{}: delivered out of order: {delivered:?}",
        plans()
    );
    assert!(
        increasing(&made.evicted),
        "{}: evictions out of order: {:?}",
        plans(),
        made.evicted
    );
    if let (Some(&last_evicted), Some(&first_left)) = (made.evicted.last(), drained.first()) {
        assert!(
            last_evicted < first_left,
            "{}: evicted {last_evicted}, not the oldest, while {first_left} stayed",
            plans()
        );
    }
    let mut out = delivered;
    out.extend(&made.refused);
    out.extend(&made.evicted);
    out.sort_unstable();
    let before = out.len();
    out.dedup();
    assert_eq!(out.len(), before, "{}: an item out twice", plans());
    // The rest: claimed items the producer lapped, dropped by the consumer
    // and counted.
    let dropped = tx.ring.head.claim.get().map_or(0, |c| c.dropped.get());
    assert_eq!(
        out.len() + dropped,
        made.next as usize,
        "{}: every item out exactly once, or counted as dropped",
        plans()
    );

    let stats = tx.stats();
    assert_eq!(
        stats.rejected,
        made.refused.len(),
        "{}: refusals counted",
        plans()
    );
    assert_eq!(
        stats.overwritten,
        made.evicted.len() + dropped,
        "{}: evictions counted",
        plans()
    );
    assert!(stats.peak <= N, "{}", plans());

    // No slot was lost: the ring still holds N, in order.
    for v in 0..N as u32 {
        assert!(tx.try_push(v).is_ok(), "{}: a slot was lost", plans());
    }
    assert!(tx.try_push(99).is_err(), "{}: more than N slots", plans());
    for v in 0..N as u32 {
        assert_eq!(rx.try_pop(), Some(v), "{}", plans());
    }
    assert_eq!(rx.try_pop(), None, "{}", plans());
}

/// Schedules per ring: `SLUICEGATE_SCHEDULES` if set (for a longer hunt),
/// else 1000.
fn schedules() -> u64 {
    std::env::var("SLUICEGATE_SCHEDULES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000)
}

fn run<const N: usize, P: PushOne>() {
    for seed in 0..schedules() {
        schedule::<N, P>(seed);
    }
}

#[test]
#[cfg_attr(miri, ignore = "thousands of thread schedules; minutes under Miri")]
fn random_schedules_overwrite() {
    run::<1, Overwrite>();
    run::<2, Overwrite>();
    run::<4, Overwrite>();
}

#[test]
#[cfg_attr(miri, ignore = "thousands of thread schedules; minutes under Miri")]
fn random_schedules_reject() {
    run::<1, Reject>();
    run::<2, Reject>();
    run::<4, Reject>();
}
