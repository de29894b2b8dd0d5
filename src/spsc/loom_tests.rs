//! loom models of every pair of concurrent SPSC operations, the flag ring's
//! included.
//!
//! Run: `ci/loom.sh spsc`, or
//! `RUSTFLAGS="--cfg sluicegate_loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --lib -- spsc::loom_tests::`

use super::flag;
use super::{Overwrite, Policy, Reject, Ring};
use crate::sync::explores;
use loom::thread;
use std::boxed::Box;
use std::vec;
use std::vec::Vec;

/// A ring that lives for the rest of the model iteration, so both handles can
/// be `'static` and move into threads.
fn ring<'a, P: Policy, const N: usize>(start: usize) -> &'a mut Ring<u32, N, P> {
    Box::leak(Box::new(Ring::with_start(start)))
}

/// Items 0.. must come out as a gap-free increasing run, each once.
fn assert_in_order(got: &[u32], from: u32) {
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, from + i as u32, "out of order or duplicated: {got:?}");
    }
}

/// Items `0..n` each came out once: read in order (`got`) or handed back
/// by the producer (`back`, evicted in order).
fn assert_each_once(got: &[u32], back: &[u32], n: u32) {
    for w in got.windows(2) {
        assert!(w[0] < w[1], "read out of order: {got:?}");
    }
    for w in back.windows(2) {
        assert!(w[0] < w[1], "evicted out of order: {back:?}");
    }
    let mut all: Vec<u32> = got.iter().chain(back).copied().collect();
    all.sort_unstable();
    assert_eq!(
        all,
        (0..n).collect::<Vec<_>>(),
        "read {got:?}, handed back {back:?}"
    );
}

#[test]
fn loom_spsc_push_pop() {
    explores::model(|| {
        // Capacity 1 and a start next to the wrap: every push reuses the slot
        // the consumer just read.
        let (mut tx, mut rx) = ring::<Reject, 1>(usize::MAX).split();
        let producer = thread::spawn(move || {
            let mut pushed = 0;
            for i in 0..2 {
                if tx.try_push(i).is_ok() {
                    pushed += 1;
                } else {
                    break;
                }
            }
            (pushed, tx)
        });
        let mut got = Vec::new();
        for _ in 0..2 {
            if let Some(v) = rx.try_pop() {
                got.push(v);
            }
        }
        let (pushed, tx) = producer.join().unwrap();
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        assert_in_order(&got, 0);
        assert_eq!(got.len(), pushed as usize);
        assert_eq!(tx.stats().rejected, if pushed == 2 { 0 } else { 1 });
    });
}

#[test]
fn loom_spsc_burst_against_bulk() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Reject, 2>(usize::MAX - 2).split();
        let producer = thread::spawn(move || {
            let a = tx.push_burst(&[0, 1, 2]);
            let b = tx.push_bulk(&[3, 4]).is_ok();
            (a, b, tx)
        });
        let mut out = [0u32; 2];
        let first = rx.pop_bulk(&mut out).is_ok();
        let (a, b, tx) = producer.join().unwrap();
        assert_eq!(a, 2);
        let mut got = Vec::new();
        if first {
            assert_eq!(out, [0, 1]);
            got.extend_from_slice(&out);
        }
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        // Item 2 did not fit; 3 and 4 went in together or not at all.
        let want: &[u32] = if b { &[0, 1, 3, 4] } else { &[0, 1] };
        assert_eq!(got, want);
        assert_eq!(tx.stats().rejected, 1 + if b { 0 } else { 2 });
    });
}

#[test]
fn loom_spsc_burst_pop_against_push() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Reject, 2>(0).split();
        tx.try_push(0).unwrap();
        let producer = thread::spawn(move || {
            let ok1 = tx.try_push(1).is_ok();
            let ok2 = tx.try_push(2).is_ok();
            (ok1, ok2)
        });
        let mut out = [0u32; 2];
        let n = rx.pop_burst(&mut out);
        let (ok1, ok2) = producer.join().unwrap();
        let mut got = out[..n].to_vec();
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        assert!(ok1);
        assert_in_order(&got, 0);
        assert_eq!(got.len(), 2 + ok2 as usize);
    });
}

/// Overwrite: the producer evicts while the consumer pops. Every item is
/// popped (in order) or handed back exactly once.
fn overwrite_against_pop(start: usize) {
    explores::model(move || {
        let (mut tx, mut rx) = ring::<Overwrite, 2>(start).split();
        let _ = tx.push_overwrite(0);
        let _ = tx.push_overwrite(1);
        let producer = thread::spawn(move || {
            let mut back = Vec::new();
            for i in 2..4 {
                back.extend(tx.push_overwrite(i).into_item());
            }
            (back, tx)
        });
        let mut got = Vec::new();
        got.extend(rx.try_pop());
        let (back, tx) = producer.join().unwrap();
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        for w in got.windows(2) {
            assert!(w[0] < w[1], "out of order: {got:?}");
        }
        let mut all: Vec<u32> = got.iter().chain(&back).copied().collect();
        all.sort_unstable();
        assert_eq!(all, [0, 1, 2, 3], "popped {got:?}, handed back {back:?}");
        let s = tx.stats();
        assert_eq!(s.overwritten + s.rejected, back.len());
    });
}

#[test]
fn loom_spsc_overwrite_against_pop() {
    overwrite_against_pop(0);
}

#[test]
fn loom_spsc_overwrite_against_pop_at_wrap() {
    overwrite_against_pop((usize::MAX >> 1) - 1);
}

#[test]
fn loom_spsc_overwrite_against_pop_bulk() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Overwrite, 2>(0).split();
        let _ = tx.push_overwrite(0);
        let _ = tx.push_overwrite(1);
        let producer = thread::spawn(move || {
            let mut back = Vec::new();
            back.extend(tx.push_overwrite(2).into_item());
            back.extend(tx.push_overwrite(3).into_item());
            back
        });
        let mut out = [0u32; 2];
        let mut got = Vec::new();
        if rx.pop_bulk(&mut out).is_ok() {
            assert!(out[0] < out[1]);
            got.extend_from_slice(&out);
        }
        let back = producer.join().unwrap();
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        let mut all: Vec<u32> = got.iter().chain(&back).copied().collect();
        all.sort_unstable();
        assert_eq!(all, [0, 1, 2, 3], "popped {got:?}, handed back {back:?}");
    });
}

#[test]
fn loom_spsc_try_push_against_pop_on_overwrite_ring() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Overwrite, 1>(0).split();
        tx.try_push(0).unwrap();
        let producer = thread::spawn(move || tx.try_push(1).is_ok());
        let first = rx.try_pop();
        let pushed = producer.join().unwrap();
        assert_eq!(first, Some(0));
        assert_eq!(rx.try_pop(), if pushed { Some(1) } else { None });
    });
}

#[test]
fn loom_spsc_try_split_race() {
    explores::model(|| {
        let ring: &'static Ring<u32, 2> = ring::<Reject, 2>(0);
        // Each side keeps the handles it won until both have tried (a ring
        // whose handles are all dropped splits again).
        let other = thread::spawn(move || ring.try_split());
        let here = ring.try_split();
        let there = other.join().unwrap();
        assert!(
            here.is_some() ^ there.is_some(),
            "exactly one split must succeed"
        );
    });
}

#[test]
fn loom_spsc_write_chunk_commit_against_read_chunk() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Reject, 2>(usize::MAX).split();
        let producer = thread::spawn(move || {
            let mut chunk = tx.write_chunk_uninit_up_to(2);
            let n = chunk.len();
            for i in 0..n {
                chunk.write_at(i, i as u32);
            }
            // SAFETY: the first `n` slots were written just above.
            unsafe { chunk.commit(n) };
            let more = tx.write_chunk_uninit_up_to(2).fill_from_iter([10, 11]);
            (n, more)
        });
        let chunk = rx.read_chunk_up_to(2);
        let mut got: Vec<u32> = (0..chunk.len()).map(|i| chunk.read_at(i)).collect();
        chunk.commit(got.len());
        let (n, more) = producer.join().unwrap();
        assert_eq!(n, 2);
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        let mut want = vec![0, 1];
        want.extend([10, 11].iter().take(more));
        assert_eq!(got, want);
    });
}

#[test]
fn loom_spsc_overwrite_against_held_read_chunk() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Overwrite, 2>(0).split();
        let _ = tx.push_overwrite(0);
        let _ = tx.push_overwrite(1);
        let producer = thread::spawn(move || {
            let mut back = Vec::new();
            back.extend(tx.push_overwrite(2).into_item());
            back.extend(tx.push_overwrite(3).into_item());
            back
        });
        let chunk = rx.read_chunk_up_to(1);
        let mut got: Vec<u32> = (0..chunk.len()).map(|i| chunk.read_at(i)).collect();
        chunk.commit(1);
        let back = producer.join().unwrap();
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        for w in got.windows(2) {
            assert!(w[0] < w[1], "out of order: {got:?}");
        }
        let mut all: Vec<u32> = got.iter().chain(&back).copied().collect();
        all.sort_unstable();
        assert_eq!(all, [0, 1, 2, 3], "popped {got:?}, handed back {back:?}");
    });
}

/// `push_overwrite` of `items`, none of them refused; the evicted ones.
fn stored(
    tx: &mut super::Producer<'_, u32, 2, Overwrite>,
    items: core::ops::Range<u32>,
) -> Vec<u32> {
    let mut back = Vec::new();
    for i in items {
        match tx.push_overwrite(i) {
            crate::Overwritten::Rejected(v) => panic!("{v} rejected"),
            other => back.extend(other.into_item()),
        }
    }
    back
}

/// Keep the newest: the producer pushes past a ring whose oldest slot the
/// consumer holds in a read chunk (voids in the held slot, evictions past
/// the claim, a pass of the voids at the front), while the consumer takes
/// the item or gives it back (which fails once the producer has lapped it:
/// then the item is dropped and counted). No push comes back rejected (the
/// claim is smaller than the ring); what is read and what is evicted come
/// out in order, and every item is read, handed back or counted.
fn overwrite_past_a_held_chunk(start: usize, take: bool) {
    explores::model(move || {
        let (mut tx, mut rx) = ring::<Overwrite, 2>(start).split();
        let _ = tx.push_overwrite(0);
        let _ = tx.push_overwrite(1);
        let producer = thread::spawn(move || (stored(&mut tx, 2..4), tx));
        let mut got = Vec::new();
        let chunk = rx.read_chunk_up_to(1);
        assert_eq!(chunk.len(), 1);
        // 0, or a later item if pushes evicted 0 first.
        let held = chunk.read_at(0);
        if take {
            got.push(held);
            chunk.commit(1);
        } else {
            chunk.commit(0);
        }
        let (back, tx) = producer.join().unwrap();
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        for w in got.windows(2) {
            assert!(w[0] < w[1], "read out of order: {got:?}");
        }
        for w in back.windows(2) {
            assert!(w[0] < w[1], "evicted out of order: {back:?}");
        }
        let s = tx.stats();
        assert_eq!(s.rejected, 0);
        let dropped = s.overwritten - back.len();
        assert!(dropped <= usize::from(!take), "dropped {dropped}");
        let mut all: Vec<u32> = got.iter().chain(&back).copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(
            all.len() + dropped,
            4,
            "read {got:?}, handed back {back:?}, dropped {dropped}"
        );
        // The newest item is always kept.
        assert_eq!(got.last(), Some(&3), "read {got:?}, handed back {back:?}");
    });
}

#[test]
fn loom_spsc_overwrite_past_a_held_chunk_taken() {
    overwrite_past_a_held_chunk(0, true);
}

#[test]
fn loom_spsc_overwrite_past_a_held_chunk_given_back() {
    overwrite_past_a_held_chunk(0, false);
}

#[test]
fn loom_spsc_overwrite_past_a_held_chunk_at_wrap() {
    overwrite_past_a_held_chunk((usize::MAX >> 2) - 1, false);
}

/// Two claims in a row while the producer pushes past the first: a
/// producer that reads the second claim's word where it saw the first
/// claim's `BUSY` reuses the first claim's slot, and must have acquired
/// the end of that claim (the claim word's Release/Acquire).
#[test]
fn loom_spsc_overwrite_against_two_claims() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Overwrite, 2>(0).split();
        let _ = tx.push_overwrite(0);
        let _ = tx.push_overwrite(1);
        let producer = thread::spawn(move || stored(&mut tx, 2..4));
        let mut got = Vec::new();
        got.extend(rx.try_pop());
        got.extend(rx.try_pop());
        let back = producer.join().unwrap();
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        assert_each_once(&got, &back, 4);
    });
}

/// `try_push` on an `Overwrite` ring whose producer's cached head says
/// full while the consumer holds a claim: it counts the room past the claim
/// and never writes into a held slot.
#[test]
fn loom_spsc_try_push_past_a_claim() {
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Overwrite, 2>(0).split();
        tx.try_push(0).unwrap();
        tx.try_push(1).unwrap();
        assert_eq!(rx.try_pop(), Some(0));
        let producer = thread::spawn(move || {
            // Slot 0 is free whatever the consumer does with slot 1.
            assert!(tx.try_push(2).is_ok());
            tx.try_push(3).is_ok()
        });
        let chunk = rx.read_chunk_up_to(2);
        let mut got: Vec<u32> = (0..chunk.len()).map(|i| chunk.read_at(i)).collect();
        chunk.commit(got.len());
        let pushed = producer.join().unwrap();
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        let mut want = vec![1, 2];
        if pushed {
            want.push(3);
        }
        assert_eq!(got, want);
    });
}

#[test]
fn loom_spsc_claim_fails_after_evictions_past_cached_tail() {
    // A consumer whose claim CAS fails on a head moved by several evictions
    // must not read slots beyond the last tail it acquired (Miri found this
    // race with Relaxed failure ordering on the claim).
    explores::model(|| {
        let (mut tx, mut rx) = ring::<Overwrite, 1>(0).split();
        let _ = tx.push_overwrite(0);
        let producer = thread::spawn(move || {
            let mut back = Vec::new();
            for i in 1..4 {
                back.extend(tx.push_overwrite(i).into_item());
            }
            back
        });
        let mut got = Vec::new();
        got.extend(rx.try_pop());
        got.extend(rx.try_pop());
        let back = producer.join().unwrap();
        got.extend(core::iter::from_fn(|| rx.try_pop()));
        let mut all: Vec<u32> = got.iter().chain(&back).copied().collect();
        all.sort_unstable();
        assert_eq!(all, [0, 1, 2, 3], "popped {got:?}, handed back {back:?}");
    });
}

/// The producer pushes and is dropped while the consumer pops: a consumer
/// that reads "abandoned" before a pop that finds nothing has seen every
/// item (nothing arrives after "producer gone and ring drained").
#[test]
fn loom_spsc_abandoned_then_drained() {
    fn model<P: Policy + 'static>() {
        let (mut tx, mut rx) = ring::<P, 2>(usize::MAX).split();
        let producer = thread::spawn(move || {
            tx.try_push(1).unwrap();
            tx.try_push(2).unwrap();
        });
        let mut got = Vec::new();
        loop {
            let finished = rx.is_abandoned();
            match rx.try_pop() {
                Some(v) => got.push(v),
                None if finished => break,
                None => thread::yield_now(),
            }
        }
        producer.join().unwrap();
        assert_eq!(got, [1, 2]);
    }
    explores::model(model::<Reject>);
    explores::model(model::<Overwrite>);
}

/// Both handles dropped on different threads while two threads try to
/// split the ring again: exactly one split wins once both are gone, never
/// while one lives, and the new handles see the item the old ones left.
#[test]
fn loom_spsc_resplit_after_both_drops() {
    explores::model(|| {
        let r: &'static Ring<u32, 2> = ring::<Reject, 2>(0);
        let (mut tx, rx) = r.try_split().unwrap();
        tx.try_push(7).unwrap();
        let a = thread::spawn(move || drop(tx));
        let b = thread::spawn(move || drop(rx));
        let c = thread::spawn(move || r.try_split().map(|(_, mut rx)| rx.try_pop()));
        a.join().unwrap();
        b.join().unwrap();
        let raced = c.join().unwrap();
        let here = r.try_split().map(|(_, mut rx)| rx.try_pop());
        // The racing split won only if both handles were gone; then the
        // main thread's split, after every handle is dropped, wins too.
        assert!(here.is_some(), "both handles are gone: the ring splits");
        let popped: Vec<u32> = [raced, here].into_iter().flatten().flatten().collect();
        assert_eq!(popped, [7], "the item left behind is popped exactly once");
    });
}

/// A `spsc::flag::Ring` that lives for the rest of the model iteration.
fn flag_ring<'a, const N: usize>() -> &'a mut flag::Ring<u32, N> {
    Box::leak(Box::new(flag::Ring::new()))
}

/// The flag ring's push against its pop, each retrying (with a loom yield)
/// until it succeeds: three items through `N` slots arrive once and in
/// order, and every read and reuse of a slot is ordered by its flag (loom's
/// cell checks fail otherwise).
///
/// Why the retries: under loom 0.7.3 a model in which each side tries once
/// runs a single iteration (measured: one, with the consumer always finding
/// the ring empty), so it checks nothing. tokio-rs/loom#392 reports the same:
/// a spawned thread that starts with a load of an object it then stores is
/// never explored in the other order. A side that waits for the other
/// forces the schedules in which the other side's store comes first; with
/// them, weakening any of the four flag orderings to `Relaxed` fails both
/// models.
fn flag_push_pop<const N: usize>() {
    explores::model(|| {
        let (mut tx, mut rx) = flag_ring::<N>().split();
        let producer = thread::spawn(move || {
            for i in 0..3 {
                while tx.try_push(i).is_err() {
                    thread::yield_now();
                }
            }
        });
        let mut got = Vec::new();
        while got.len() < 3 {
            match rx.try_pop() {
                Some(v) => got.push(v),
                None => thread::yield_now(),
            }
        }
        producer.join().unwrap();
        assert_eq!(got, vec![0, 1, 2], "lost, duplicated or reordered");
        assert_eq!(rx.try_pop(), None);
    });
}

#[test]
fn loom_flag_push_pop_1() {
    flag_push_pop::<1>();
}

#[test]
fn loom_flag_push_pop_2() {
    flag_push_pop::<2>();
}

#[test]
fn loom_flag_resplit_after_handles_dropped_on_threads() {
    // Each handle finishes and is dropped on its own thread; the split that
    // wins once both are gone (retried until it does) resumes at their
    // indices: the item left is next, and a new push lands after it.
    explores::model(|| {
        let ring: &'static flag::Ring<u32, 2> = Box::leak(Box::new(flag::Ring::new()));
        let (mut tx, mut rx) = ring.try_split().unwrap();
        tx.try_push(0).unwrap();
        let a = thread::spawn(move || {
            tx.try_push(1).unwrap();
        });
        let b = thread::spawn(move || loop {
            if let Some(v) = rx.try_pop() {
                return v;
            }
            thread::yield_now();
        });
        let (mut tx, mut rx) = loop {
            if let Some(handles) = ring.try_split() {
                break handles;
            }
            thread::yield_now();
        };
        assert_eq!(b.join().unwrap(), 0);
        a.join().unwrap();
        tx.try_push(2)
            .unwrap_or_else(|_| panic!("room for 2 after a pop"));
        let rest: Vec<u32> = core::iter::from_fn(|| rx.try_pop()).collect();
        assert_eq!(rest, vec![1, 2]);
    });
}

/// A ring with watermarks that lives for the rest of the model iteration.
#[cfg(feature = "async")]
fn marked<'a, const N: usize>(low: usize, high: usize) -> &'a mut Ring<u32, N, super::Marked> {
    Box::leak(Box::new(Ring::with_watermarks(low, high)))
}

/// The watermark's race (`src/spsc/watermark.rs`): the producer's push
/// raises the level while the consumer drains the ring to the low mark
/// without having seen the raise. With the `async` feature the pop's wake
/// fences before it loads the level, and the raise fences before it
/// reloads `head`: one of them sees the other, so the level is `Normal`
/// once both are done, with no further look. Breaking the raise's fence (or
/// its reload and cancel) leaves it `High` on the empty ring in some
/// execution; both were tried and the model failed. So did moving the
/// pop's load of the level before the wake's fence, at
/// `LOOM_MAX_PREEMPTIONS=3` (not at 2). Run with `--features async`
/// (`ci/loom.sh spsc` does).
#[cfg(feature = "async")]
#[test]
fn loom_watermark_raise_against_drain() {
    use super::Level;
    explores::model(|| {
        let (mut tx, mut rx) = marked::<2>(0, 2).split();
        let producer = thread::spawn(move || {
            tx.try_push(0).unwrap();
            tx.try_push(1).unwrap();
            tx
        });
        let mut got = Vec::new();
        while got.len() < 2 {
            match rx.try_pop() {
                Some(v) => got.push(v),
                None => thread::yield_now(),
            }
        }
        let _tx = producer.join().unwrap();
        assert_in_order(&got, 0);
        assert_eq!(rx.level(), Level::Normal, "High on a drained ring");
        // A raise is ended once (lowered or cancelled), or never made.
        assert!(matches!(rx.ring.transitions(), 0 | 2));
    });
}

/// `wait_below_low` against the pops that drain the ring: registered in the
/// producer's waker cell, it is woken by the pop that leaves the low mark
/// (or sees that pop's head itself), so the wait ends: a lost wake-up is a
/// deadlock, which loom reports. Feature `async`.
#[cfg(feature = "async")]
#[test]
fn loom_watermark_wait_below_low() {
    use super::Level;
    explores::model(|| {
        let (mut tx, mut rx) = marked::<2>(0, 2).split();
        tx.try_push(0).unwrap();
        tx.try_push(1).unwrap();
        let consumer = thread::spawn(move || {
            let mut got = Vec::new();
            while got.len() < 2 {
                match rx.try_pop() {
                    Some(v) => got.push(v),
                    None => thread::yield_now(),
                }
            }
            (got, rx)
        });
        assert_eq!(loom::future::block_on(tx.wait_below_low()), Ok(()));
        assert_eq!(tx.level(), Level::Normal);
        let (got, _rx) = consumer.join().unwrap();
        assert_in_order(&got, 0);
    });
}
