//! loom models of `mpmc::BurstRing`. Run with `ci/loom.sh mpmc::burst_ring`.
//!
//! Every model ends by draining the ring and checks exact accounting: each
//! item stored is popped or evicted exactly once, in each producer's order.
//! A context that must get something retries on `Busy` (and on `Empty`)
//! with `yield_now`: under loom 0.7.3 a thread that tries once and starts
//! with a load of a word it would then write is not explored in the other
//! order (tokio-rs/loom#392), so those models would check one execution;
//! `explores::model` fails any that does.

use super::{BurstRing, PopError, PushError, Stop};
use crate::sync::explores;
use loom::sync::Arc;
use loom::thread;
use std::vec;
use std::vec::Vec;

type R2 = BurstRing<u32, 2, 1>;
type R4 = BurstRing<u32, 4, 1>;

/// Pops until `want` items came out (yielding on busy and empty).
fn pop_n<const N: usize, M: super::Marks>(r: &BurstRing<u32, N, 1, M>, want: usize) -> Vec<u32> {
    let mut got = Vec::new();
    while got.len() < want {
        match r.try_pop() {
            Ok(v) => got.push(v),
            Err(PopError::Busy | PopError::Empty) => thread::yield_now(),
            Err(PopError::Closed) => unreachable!(),
        }
    }
    got
}

/// Pushes with `push_overwrite` until the item goes in (yielding on busy);
/// returns what it evicted.
fn overwrite<const N: usize>(r: &BurstRing<u32, N, 1>, v: u32) -> Option<u32> {
    loop {
        match r.push_overwrite(v) {
            Ok(old) => return old,
            Err(PushError::Busy(_)) => thread::yield_now(),
            Err(_) => unreachable!(),
        }
    }
}

fn drain<const N: usize, M: super::Marks>(r: &BurstRing<u32, N, 1, M>) -> Vec<u32> {
    let out: Vec<u32> = r.drain().collect();
    assert_eq!(r.try_pop(), Err(PopError::Empty), "the drain stopped early");
    out
}

/// After a model: every slot takes an item again and gives it back in
/// order (no position was lost, no bit left a lap behind).
fn whole<const N: usize>(r: &BurstRing<u32, N, 1>) {
    for v in 0..N as u32 {
        assert_eq!(r.try_push(100 + v), Ok(()), "a slot was lost");
    }
    for v in 0..N as u32 {
        assert_eq!(r.try_pop(), Ok(100 + v), "an item was lost");
    }
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

/// A burst of three against a consumer popping bursts, across the end of
/// the storage: the consumer gets the three, in order, however the claims,
/// copies and flips interleave.
#[test]
fn push_burst_vs_pop_burst() {
    explores::model(|| {
        let r = Arc::new(R4::new());
        // Positions from 3: the burst wraps to the storage's start.
        r.push_burst(&[0, 0, 0]);
        r.pop_burst(&mut [0; 3]);
        let r2 = r.clone();
        let p = thread::spawn(move || r2.push_burst(&[1, 2, 3]).count);
        let mut got = Vec::new();
        while got.len() < 3 {
            let mut out = [0; 3];
            let m = r.pop_burst(&mut out[..3 - got.len()]);
            got.extend_from_slice(&out[..m.count]);
            if m.count == 0 {
                thread::yield_now();
            }
        }
        assert_eq!(p.join().unwrap(), 3);
        assert_eq!(got, [1, 2, 3]);
        assert!(r.is_empty());
        whole(&*r);
    });
}

/// Two producers claim from one counter: every item goes in once, each
/// producer's in order, the refusals answered and counted as the ring was.
#[test]
fn two_claimers() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        r.try_push(0).unwrap();
        let r2 = r.clone();
        let p = thread::spawn(move || r2.push_burst(&[1, 2]));
        let q = r.push_burst(&[3]);
        let p = p.join().unwrap();
        assert_eq!(p.count + q.count, 1, "one slot was free");
        for m in [p, q] {
            assert!(m.stop.is_none() || m.stop == Some(Stop::Full));
        }
        let stored: Vec<u32> = [0]
            .into_iter()
            .chain([1, 2].into_iter().take(p.count))
            .chain([3].into_iter().take(q.count))
            .collect();
        assert_eq!(sorted(drain(&r)), sorted(stored));
        assert_eq!(r.stats().rejected, 3 - 1, "every refused item counted");
        whole(&*r);
    });
}

/// An eviction against a pop on a full ring: the oldest goes to exactly
/// one of them, the other gets the next, and nothing is lost.
#[test]
fn overwrite_vs_pop() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        r.push_burst(&[0, 1]);
        let r2 = r.clone();
        let p = thread::spawn(move || overwrite(&r2, 2));
        let popped = pop_n(&r, 1);
        let evicted = p.join().unwrap();
        let rest = drain(&r);
        match evicted {
            // The eviction came first: it took the oldest.
            Some(old) => {
                assert_eq!(popped[0].min(old), 0);
                assert_eq!(
                    sorted([popped.clone(), vec![old], rest.clone()].concat()),
                    [0, 1, 2]
                );
            }
            // The pop came first and freed a slot: stored without eviction.
            None => {
                assert_eq!(popped, [0]);
                assert_eq!(rest, [1, 2]);
            }
        }
        assert_eq!(r.stats().overwritten, evicted.is_some() as usize);
        whole(&*r);
    });
}

/// An eviction against a push on a ring with one free slot: exactly one of
/// them takes the slot; the eviction, if it finds the ring full, takes the
/// oldest item.
#[test]
fn overwrite_vs_push() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        r.try_push(0).unwrap();
        let r2 = r.clone();
        let p = thread::spawn(move || overwrite(&r2, 1));
        let pushed = loop {
            match r.try_push(2) {
                Ok(()) => break true,
                Err(PushError::Full(_)) => break false,
                Err(PushError::Busy(_)) => thread::yield_now(),
                Err(PushError::Closed(_)) => unreachable!(),
            }
        };
        let evicted = p.join().unwrap();
        let mut out = drain(&r);
        out.extend(evicted);
        let stored: Vec<u32> = if pushed { vec![0, 1, 2] } else { vec![0, 1] };
        assert_eq!(sorted(out), stored, "every item out once");
        if let Some(old) = evicted {
            assert_eq!(old, 0, "the oldest is evicted");
            assert!(pushed, "an eviction means the push took the free slot");
        }
        assert_eq!(r.stats().rejected, !pushed as usize);
        whole(&*r);
    });
}

/// Two evictions on a full ring: each takes one of the two oldest, once.
#[test]
fn overwrite_vs_overwrite() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        r.push_burst(&[0, 1]);
        let r2 = r.clone();
        let p = thread::spawn(move || overwrite(&r2, 2));
        let a = overwrite(&r, 3);
        let b = p.join().unwrap();
        assert_eq!(sorted(vec![a.unwrap(), b.unwrap()]), [0, 1]);
        assert_eq!(sorted(drain(&r)), [2, 3]);
        assert_eq!(r.stats().overwritten, 2);
        whole(&*r);
    });
}

/// A read chunk held while another context overwrites and pops: the held
/// item stays intact, the overwrite never waits for the chunk (it stores,
/// making the held slot's position a void and evicting the next item, or
/// finds the slot free once released), and nothing is lost.
#[test]
fn chunk_held_across_operations() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        r.push_burst(&[0, 1]);
        let chunk = r.read_chunk(1).unwrap();
        let r2 = r.clone();
        let p = thread::spawn(move || {
            let evicted = overwrite(&r2, 2);
            (evicted, pop_n(&r2, 1))
        });
        assert_eq!(chunk.get(0), Some(0), "the held item is intact");
        chunk.release();
        let (evicted, popped) = p.join().unwrap();
        let rest = drain(&r);
        match evicted {
            // Past the held chunk: the next item went, the new one is kept.
            Some(old) => {
                assert_eq!(old, 1);
                assert_eq!([popped, rest].concat(), [2]);
            }
            // The chunk was released first: nothing to evict.
            None => assert_eq!([popped, rest].concat(), [1, 2]),
        }
        whole(&*r);
    });
}

/// A read chunk holds slot 0 while the other context overwrites past it
/// (position 2 becomes a void, 1 is evicted, 3 takes the new item) and
/// then pushes again: position 4 is slot 0's next lap while its void is
/// unpassed and the chunk still reads the slot, so the push must be
/// refused (its mark), not take the slot's stale consumed bit, two laps
/// behind, for a free one. The chunk's item stays intact.
#[test]
fn push_after_a_void_over_a_held_slot() {
    push_past_a_void(false, false);
}

/// As above, and a third context popping: it may pass the void (position
/// 2) while the push looks at position 4, slot 0's next lap, with the chunk
/// still held. The push must read the mark before the parity bit: a pass
/// between the two loads would show it the stale bit (two laps behind, as
/// free) and then a clear mark, and it would write the slot the chunk
/// reads.
#[test]
fn push_vs_a_pass_over_a_held_slot() {
    push_past_a_void(false, true);
}

/// [`push_vs_a_pass_over_a_held_slot`] with a burst push (its run reads
/// each word of marks before the parity bits of that word).
#[test]
fn burst_push_vs_a_pass_over_a_held_slot() {
    push_past_a_void(true, true);
}

/// The models above: a chunk holds slot 0 of a full ring of two; another
/// context overwrites past it and pushes (a burst of one, or `try_push`);
/// with `popper`, a third pops one item meanwhile and the chunk is held
/// until both are done, else it is released while the push runs.
fn push_past_a_void(burst: bool, popper: bool) {
    explores::model(move || {
        let r = Arc::new(R2::new());
        r.push_burst(&[0, 1]);
        let chunk = r.read_chunk(1).unwrap();
        let r2 = r.clone();
        let p = thread::spawn(move || {
            let evicted = overwrite(&r2, 2);
            let pushed = if burst {
                r2.push_burst(&[3]).count == 1
            } else {
                r2.try_push(3).is_ok()
            };
            (evicted, pushed)
        });
        let q = popper.then(|| {
            let r3 = r.clone();
            thread::spawn(move || pop_n(&r3, 1))
        });
        assert_eq!(chunk.get(0), Some(0), "the held item is intact");
        let (evicted, pushed, mut out) = match q {
            Some(q) => {
                let (evicted, pushed) = p.join().unwrap();
                let popped = q.join().unwrap();
                assert_eq!(chunk.get(0), Some(0), "the held item is intact");
                chunk.release();
                (evicted, pushed, popped)
            }
            None => {
                chunk.release();
                let (evicted, pushed) = p.join().unwrap();
                (evicted, pushed, Vec::new())
            }
        };
        out.extend(drain(&r));
        out.extend(evicted);
        let stored: Vec<u32> = [1, 2].into_iter().chain(pushed.then_some(3)).collect();
        assert_eq!(sorted(out), stored, "every item out once");
        whole(&*r);
    });
}

/// A `push_overwrite` that makes a void over a slot a held chunk reads,
/// racing a close and a consumer that pops until the ring says closed and
/// drained. The consumer can pass the void before the eviction claims its
/// next position, which it does after the close too: until the eviction
/// ends, a pop at `prod` answers busy, not closed. So either the close
/// refused the push, or the consumer got its item before `Closed`; and
/// nothing is in the ring after `Closed`.
#[test]
fn closed_and_drained_waits_for_an_eviction_past_a_void() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        r.try_push(1).unwrap();
        let chunk = r.read_chunk(1).unwrap();
        r.try_push(2).unwrap();
        assert_eq!(r.try_pop(), Ok(2));
        let r2 = r.clone();
        let p = thread::spawn(move || r2.push_overwrite(3));
        r.close();
        let mut got = Vec::new();
        loop {
            match r.try_pop() {
                Ok(v) => got.push(v),
                Err(PopError::Closed) => break,
                Err(PopError::Busy | PopError::Empty) => thread::yield_now(),
            }
        }
        match p.join().unwrap() {
            Ok(None) => assert_eq!(got, [3], "closed and drained before the item"),
            Err(PushError::Closed(3)) => assert_eq!(got, []),
            other => panic!("{other:?}"),
        }
        assert_eq!(chunk.get(0), Some(1), "the held item is intact");
        chunk.release();
        assert_eq!(r.try_pop(), Err(PopError::Closed));
    });
}

/// A void at the front (a write chunk dropped unfilled) and an item after
/// it; two pops. Whichever passes the void holds the front until its flips
/// are done: the other, having popped the item, must not go on to the void
/// slot's next lap, whose published bit would read two laps behind (an
/// unpushed position taken for a published one, its stale item popped).
#[test]
fn pass_of_a_void_vs_pops() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        // Position 0 holds a stale 9 in slot 0; the void is position 2,
        // made behind the item of position 1 and at the front once that
        // is popped (a chunk dropped at the front passes its own voids).
        r.push_burst(&[9, 9]);
        assert_eq!(r.try_pop(), Ok(9));
        drop(r.write_chunk(1).unwrap());
        assert_eq!(r.try_pop(), Ok(9));
        r.try_push(1).unwrap();
        let r2 = r.clone();
        let p = thread::spawn(move || {
            let mut got = Vec::new();
            for _ in 0..2 {
                if let Ok(v) = r2.try_pop() {
                    got.push(v);
                }
            }
            got
        });
        let mut got: Vec<u32> = r.try_pop().into_iter().collect();
        got.extend(p.join().unwrap());
        got.extend(drain(&r));
        assert_eq!(got, [1], "only the pushed item, once");
        whole(&*r);
    });
}

/// A write chunk dropped unfilled at the front, against a pop: whichever
/// comes to the voids passes them (the drop itself if the pop came first),
/// so the ring ends with room for `N` items and the pop took nothing.
#[test]
fn dropped_chunk_passes_its_front_voids_vs_a_pop() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        let chunk = r.write_chunk(2).unwrap();
        let r2 = r.clone();
        let p = thread::spawn(move || r2.try_pop());
        drop(chunk);
        let popped = p.join().unwrap();
        assert!(matches!(popped, Err(PopError::Empty | PopError::Busy)));
        assert_eq!(r.len(), 0, "voids left at the front");
        whole(&*r);
    });
}

/// Two overwrites on a full ring against a pop: the pop may hold the oldest
/// slot while the overwrites go past it (voids); every item is popped,
/// evicted or left exactly once, and the evictions come oldest first.
#[test]
fn two_overwrites_past_a_pop() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        r.push_burst(&[0, 1]);
        let r2 = r.clone();
        let p = thread::spawn(move || [overwrite(&r2, 2), overwrite(&r2, 3)]);
        let popped = pop_n(&r, 1);
        let evicted: Vec<u32> = p.join().unwrap().into_iter().flatten().collect();
        let rest = drain(&r);
        assert!(evicted.windows(2).all(|w| w[0] < w[1]), "oldest first");
        assert_eq!(
            sorted([popped, evicted.clone(), rest].concat()),
            [0, 1, 2, 3],
            "every item out once"
        );
        assert_eq!(r.stats().overwritten, evicted.len());
        whole(&*r);
    });
}

/// An eviction while the oldest item is still being pushed (one slot): the
/// eviction answers busy until the push has published it, and never reads
/// a slot being written.
#[test]
fn overwrite_vs_unpublished_oldest() {
    explores::model(|| {
        let r = Arc::new(BurstRing::<u32, 1, 1>::new());
        let r2 = r.clone();
        let p = thread::spawn(move || r2.try_push(1));
        let evicted = overwrite(&r, 2);
        let pushed = p.join().unwrap();
        let mut out = drain(&r);
        out.extend(evicted);
        let stored: Vec<u32> = if pushed.is_ok() { vec![1, 2] } else { vec![2] };
        assert_eq!(sorted(out), stored, "every item out once");
        if let Some(old) = evicted {
            assert_eq!(old, 1);
        }
        whole(&*r);
    });
}

/// A write chunk dropped half filled while a consumer pops and another push
/// waits for room: the consumer gets the filled item, passes the void, and
/// gets the later push's item; every slot is usable afterwards.
#[test]
fn abandoned_chunk_vs_pop() {
    explores::model(|| {
        let r = Arc::new(R2::new());
        let r2 = r.clone();
        let p = thread::spawn(move || {
            let chunk = r2.write_chunk(2).unwrap();
            assert_eq!(chunk.len(), 2);
            assert_eq!(chunk.fill_from_slice(&[1]), 1);
            loop {
                match r2.try_push(2) {
                    Ok(()) => break,
                    Err(PushError::Full(_) | PushError::Busy(_)) => thread::yield_now(),
                    Err(PushError::Closed(_)) => unreachable!(),
                }
            }
        });
        assert_eq!(pop_n(&r, 2), [1, 2], "the void is passed, in order");
        p.join().unwrap();
        assert!(r.is_empty());
        whole(&*r);
    });
}

type M4 = BurstRing<u32, 4, 1, super::Marked>;

/// Marks 1 and 2, one item in: a push that raises the level (2 items)
/// races a pop that takes the level's count back to 1. The push's reading
/// of the count may be overtaken by the pop (which, finding the level
/// `Normal`, does nothing), so the raise must read the count again after
/// its CAS and lower the level itself: a ring at its low mark must not stay
/// `High`.
#[test]
fn marks_raise_races_a_pop() {
    explores::model(|| {
        let r = Arc::new(M4::with_watermarks(1, 2));
        r.try_push(0).unwrap();
        let r2 = r.clone();
        let p = thread::spawn(move || r2.push_burst(&[1]).count);
        assert_eq!(pop_n(&*r, 1), [0]);
        assert_eq!(p.join().unwrap(), 1);
        assert_eq!(r.len(), 1);
        assert_eq!(
            r.level(),
            super::Level::Normal,
            "a ring at its low mark stayed High"
        );
        assert_eq!(r.stats().transitions % 2, 0);
        assert_eq!(drain(&r), [1]);
    });
}

/// Marks 1 and 2, starting `High` with 2 items: a pop that lowers the level
/// (1 left) races a push that brings it back to 2. The push may find the
/// level still `High` and leave it; the lowering must then read the count
/// again after its CAS and raise the level itself: a ring at its high mark
/// must not stay `Normal`.
#[test]
fn marks_lowering_races_a_push() {
    explores::model(|| {
        let r = Arc::new(M4::with_watermarks(1, 2));
        r.push_burst(&[0, 1]);
        assert_eq!(r.level(), super::Level::High);
        let r2 = r.clone();
        let p = thread::spawn(move || r2.push_burst(&[2]).count);
        assert_eq!(pop_n(&*r, 1), [0]);
        assert_eq!(p.join().unwrap(), 1);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r.level(),
            super::Level::High,
            "a ring at its high mark stayed Normal"
        );
        assert_eq!(drain(&r), [1, 2]);
        assert_eq!(r.level(), super::Level::Normal);
    });
}

/// Marks 1 and 2, one item in, three contexts: two pushes (each may raise)
/// and a pop (which may lower). The count ends at 2, so the level must end
/// `High`, with an odd number of transitions, however the raises, the
/// lowering and their re-readings interleave.
#[test]
fn marks_two_pushes_and_a_pop() {
    explores::model(|| {
        let r = Arc::new(M4::with_watermarks(1, 2));
        r.try_push(0).unwrap();
        let pushers: Vec<_> = [1, 2]
            .map(|v| {
                let r = r.clone();
                thread::spawn(move || r.push_burst(&[v]).count)
            })
            .into_iter()
            .collect();
        assert_eq!(pop_n(&*r, 1), [0]);
        for p in pushers {
            assert_eq!(p.join().unwrap(), 1);
        }
        assert_eq!(r.len(), 2);
        assert_eq!(
            r.level(),
            super::Level::High,
            "a ring at its high mark stayed Normal"
        );
        assert_eq!(r.stats().transitions % 2, 1);
        assert_eq!(sorted(drain(&r)), [1, 2]);
    });
}
