//! Behaviour of the SPSC ring, mostly single-threaded (the long two-thread
//! runs with exact accounting are in `spsc_stress.rs`).
#![cfg(not(sluicegate_loom))]

mod common;
use common::Counted;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use sluicegate::spsc::{Consumer, Overwrite, Producer, Reject, Ring};
use sluicegate::{Insufficient, Overwritten};

#[test]
fn fifo_full_and_empty() {
    let mut ring: Ring<u32, 4> = Ring::new();
    assert_eq!(ring.capacity(), 4);
    let (mut tx, mut rx) = ring.split();
    assert!(tx.is_empty());
    assert_eq!(rx.try_pop(), None);
    for i in 0..4 {
        tx.try_push(i).unwrap();
    }
    assert!(tx.is_full());
    assert_eq!(tx.free_slots(), 0);
    assert_eq!(tx.try_push(7).unwrap_err().into_inner(), 7);
    assert_eq!(rx.len(), 4);
    assert_eq!(rx.peek().as_deref(), Some(&0));
    for i in 0..4 {
        assert_eq!(rx.try_pop(), Some(i));
    }
    assert!(rx.is_empty());
    assert_eq!(rx.try_pop(), None);
    assert_eq!(tx.stats().rejected, 1);
    assert_eq!(tx.stats().overwritten, 0);
}

#[test]
fn capacity_one_is_both_empty_and_full_correctly() {
    // heapless #214: a capacity-1 queue must tell empty from full.
    let mut ring: Ring<u8, 1> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    for round in 0..10u8 {
        assert_eq!(rx.try_pop(), None);
        tx.try_push(round).unwrap();
        assert!(tx.try_push(round).is_err());
        assert_eq!(rx.try_pop(), Some(round));
    }
}

fn wrap_run<P: sluicegate::spsc::Policy>(mut ring: Ring<u64, 8, P>) {
    // Runs positions across the integer limit with the ring in every fill level.
    let (mut tx, mut rx) = ring.split();
    let mut next_in = 0u64;
    let mut next_out = 0u64;
    for step in 0..200u64 {
        let pushes = step % 9;
        for _ in 0..pushes {
            if tx.try_push(next_in).is_ok() {
                next_in += 1;
            }
        }
        assert_eq!(rx.len() as u64, next_in - next_out);
        assert!(rx.len() <= 8);
        let pops = (step * 7) % 10;
        for _ in 0..pops {
            match rx.try_pop() {
                Some(v) => {
                    assert_eq!(v, next_out);
                    next_out += 1;
                }
                None => assert_eq!(next_in, next_out),
            }
        }
    }
    assert!(next_out > 100);
}

#[test]
fn wraps_around_usize_max_reject() {
    // heapless #121/#144/#461: positions wrapping must not corrupt indices.
    wrap_run::<Reject>(Ring::with_start(usize::MAX - 20));
    wrap_run::<Reject>(Ring::with_start(u32::MAX as usize - 20));
}

#[test]
fn wraps_around_usize_max_overwrite() {
    // Overwrite stores positions doubled: they wrap at usize::MAX / 2.
    wrap_run::<Overwrite>(Ring::with_start(usize::MAX - 20));
    wrap_run::<Overwrite>(Ring::with_start((usize::MAX >> 1) - 20));
    wrap_run::<Overwrite>(Ring::with_start((u32::MAX >> 1) as usize - 20));
}

#[test]
fn overwrite_evicts_in_order_across_the_wrap() {
    let mut ring: Ring<u64, 4, Overwrite> = Ring::with_start((usize::MAX >> 1) - 5);
    let (mut tx, mut rx) = ring.split();
    for i in 0..100u64 {
        assert_eq!(tx.push_overwrite(i).into_item(), i.checked_sub(4));
    }
    let rest: Vec<u64> = std::iter::from_fn(|| rx.try_pop()).collect();
    assert_eq!(rest, vec![96, 97, 98, 99]);
    assert_eq!(tx.stats().overwritten, 96);
}

#[test]
fn push_overwrite_returns_oldest_and_counts() {
    let mut ring: Ring<u32, 4, Overwrite> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    for i in 0..4 {
        assert_eq!(tx.push_overwrite(i), Overwritten::Stored);
    }
    assert_eq!(tx.push_overwrite(4), Overwritten::Evicted(0));
    assert_eq!(tx.push_overwrite(5), Overwritten::Evicted(1));
    assert_eq!(tx.try_push(9).unwrap_err().into_inner(), 9);
    assert_eq!(rx.try_pop(), Some(2));
    assert_eq!(tx.push_overwrite(6), Overwritten::Stored);
    let rest: Vec<u32> = std::iter::from_fn(|| rx.try_pop()).collect();
    assert_eq!(rest, vec![3, 4, 5, 6]);
    assert_eq!(tx.stats().overwritten, 2);
    assert_eq!(tx.stats().rejected, 1);
}

#[test]
fn overwrite_peek_holds_the_oldest_and_the_newest_is_still_stored() {
    let mut ring: Ring<u32, 2, Overwrite> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    assert!(tx.push_overwrite(1).is_stored());
    assert!(tx.push_overwrite(2).is_stored());
    // A guard dropped while nothing was pushed gives its item back.
    assert_eq!(rx.peek().as_deref(), Some(&1));
    assert_eq!(rx.len(), 2);
    {
        let oldest = rx.peek().unwrap();
        assert_eq!(*oldest, 1);
        // Full and the consumer holds the oldest: the new item is stored
        // and the oldest item not held goes.
        assert_eq!(tx.push_overwrite(3), Overwritten::Evicted(2));
        assert_eq!(*oldest, 1);
        assert_eq!(tx.stats().rejected, 0);
        assert_eq!(tx.stats().overwritten, 1);
        // The guard is dropped here without a pop: 3, newer, went in past
        // it, so 1 cannot go back; it is dropped and counted.
    }
    assert_eq!(tx.stats().overwritten, 2);
    // The held slot's position (a void) is passed: nothing to evict.
    assert_eq!(tx.push_overwrite(4), Overwritten::Stored);
    let p = rx.peek().unwrap();
    assert_eq!(p.pop(), 3);
    assert_eq!(rx.try_pop(), Some(4));
    assert!(rx.peek().is_none());
    assert_eq!(tx.stats().rejected, 0);
}

type Voided<'r> = (
    Producer<'r, u32, 4, Overwrite>,
    Consumer<'r, u32, 4, Overwrite>,
);

/// The handles of `ring` (new) once it holds 2, 3, a void, 4: 0 to 3
/// pushed, 0 held by a peek while 4 is pushed (slot 0's next position
/// becomes a void, 1 is evicted), then 0 popped.
fn two_three_void_four(ring: &mut Ring<u32, 4, Overwrite>) -> Voided<'_> {
    let (mut tx, mut rx) = ring.split();
    for i in 0..4 {
        assert!(tx.push_overwrite(i).is_stored());
    }
    let held = rx.peek().unwrap();
    assert_eq!(tx.push_overwrite(4), Overwritten::Evicted(1));
    assert_eq!(held.pop(), 0);
    (tx, rx)
}

/// A void in the middle of the ring is no item, but it takes room until it
/// is passed: `free_slots` counts items, `try_push` room.
#[test]
fn overwrite_void_takes_room_until_passed() {
    let mut ring = Ring::new();
    let (mut tx, mut rx) = two_three_void_four(&mut ring);
    assert_eq!((rx.len(), tx.free_slots()), (3, 1));
    assert_eq!(tx.try_push(9).unwrap_err().into_inner(), 9);
    assert_eq!(rx.try_pop(), Some(2));
    tx.try_push(9).unwrap();
    let rest: Vec<u32> = rx.drain().collect();
    assert_eq!(rest, [3, 4, 9]);
}

/// A burst pop takes the items on both sides of a void (2, 3, a void, 4):
/// a claim ends at the void, and the burst claims again past it. So does
/// the expiry burst. A bulk pop's one claim still ends at the void.
#[test]
fn overwrite_bursts_take_the_items_behind_a_void() {
    let (mut a, mut b, mut c) = (Ring::new(), Ring::new(), Ring::new());
    let (_tx, mut rx) = two_three_void_four(&mut a);
    let mut out = [0; 4];
    assert_eq!(rx.pop_burst(&mut out), 3);
    assert_eq!(out[..3], [2, 3, 4]);
    assert!(rx.is_empty());
    let (_tx, mut rx) = two_three_void_four(&mut b);
    assert_eq!(rx.pop_burst_fresh(&mut out, |_: &u32| false), 3);
    assert_eq!(out[..3], [2, 3, 4]);
    let (_tx, mut rx) = two_three_void_four(&mut c);
    assert_eq!(
        rx.pop_bulk(&mut [0; 3]),
        Err(sluicegate::Insufficient { available: 2 })
    );
    let (mut two, mut one) = ([0; 2], [0; 1]);
    assert_eq!(rx.pop_bulk(&mut two), Ok(()));
    assert_eq!(rx.pop_bulk(&mut one), Ok(()));
    assert_eq!((two, one), ([2, 3], [4]));
}

/// A consumer holding every slot is the one case left where the new item
/// comes back.
#[test]
fn overwrite_hands_the_new_item_back_only_when_every_slot_is_held() {
    let mut ring: Ring<u32, 4, Overwrite> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    for i in 0..4 {
        assert!(tx.push_overwrite(i).is_stored());
    }
    let chunk = rx.read_chunk(4).unwrap();
    assert_eq!(tx.push_overwrite(9), Overwritten::Rejected(9));
    assert_eq!(tx.stats().rejected, 1);
    chunk.commit(4);
    assert_eq!(tx.push_overwrite(10), Overwritten::Stored);
    assert_eq!(rx.try_pop(), Some(10));
}

/// The radio pattern: a read chunk held while many pushes come in. Every
/// push stores its item; the chunk's items stay untouched; what the ring
/// keeps is the newest, in order.
#[test]
fn overwrite_stores_every_push_while_a_chunk_is_held() {
    let mut ring: Ring<u32, 8, Overwrite> = Ring::with_start(usize::MAX >> 3);
    let (mut tx, mut rx) = ring.split();
    for i in 0..8 {
        assert!(tx.push_overwrite(i).is_stored());
    }
    let chunk = rx.read_chunk(3).unwrap();
    let mut evicted = Vec::new();
    for i in 8..8 + 5 * 8 {
        match tx.push_overwrite(i) {
            Overwritten::Evicted(x) => evicted.push(x),
            other => panic!("push {i}: {other:?}"),
        }
    }
    let (a, b) = chunk.as_slices();
    assert_eq!([a, b].concat(), [0, 1, 2]);
    chunk.commit_all();
    // Evicted oldest first, none of the held ones.
    assert_eq!(evicted, (3..43).collect::<Vec<_>>());
    // The five newest (three slots were held on the last lap).
    let rest: Vec<u32> = rx.drain().collect();
    assert_eq!(rest, (43..48).collect::<Vec<_>>());
    assert_eq!(tx.stats().rejected, 0);
    assert_eq!(tx.stats().overwritten, 40);
    // Every slot usable again.
    for i in 0..8 {
        assert!(tx.push_overwrite(i).is_stored(), "slot {i}");
    }
    assert_eq!(rx.len(), 8);
}

#[test]
fn leaked_peek_guard_does_not_wedge_the_consumer() {
    let mut ring: Ring<u32, 2, Overwrite> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    let _ = tx.push_overwrite(1);
    core::mem::forget(rx.peek().unwrap());
    assert_eq!(rx.try_pop(), Some(1));
    let _ = tx.push_overwrite(2);
    let _ = tx.push_overwrite(3);
    assert_eq!(tx.push_overwrite(4).into_item(), Some(2));
    assert_eq!(rx.try_pop(), Some(3));
}

#[test]
fn burst_and_bulk() {
    let mut ring: Ring<u16, 8> = Ring::with_start(5); // so batches wrap
    let (mut tx, mut rx) = ring.split();
    assert_eq!(tx.push_burst(&[1, 2, 3, 4, 5, 6]), 6);
    assert_eq!(tx.push_bulk(&[7, 8, 9]), Err(Insufficient { available: 2 }));
    assert_eq!(tx.stats().rejected, 3);
    assert_eq!(tx.push_burst(&[7, 8, 9]), 2);
    assert_eq!(tx.stats().rejected, 4);
    let mut out = [0u16; 3];
    assert_eq!(rx.pop_bulk(&mut out), Ok(()));
    assert_eq!(out, [1, 2, 3]);
    let mut big = [0u16; 10];
    assert_eq!(rx.pop_bulk(&mut big), Err(Insufficient { available: 5 }));
    assert_eq!(rx.pop_burst(&mut big), 5);
    assert_eq!(&big[..5], &[4, 5, 6, 7, 8]);
    assert_eq!(rx.pop_burst(&mut big), 0);
    assert_eq!(tx.push_bulk(&[]), Ok(()));
    assert_eq!(rx.pop_bulk(&mut []), Ok(()));
}

#[test]
fn overwrite_ring_batches() {
    let mut ring: Ring<u16, 4, Overwrite> = Ring::with_start(3);
    let (mut tx, mut rx) = ring.split();
    assert_eq!(tx.push_burst(&[1, 2, 3]), 3);
    let mut out = [0u16; 4];
    assert!(rx.pop_bulk(&mut out).is_err());
    // A failed bulk pop must not leave the ring claimed.
    assert_eq!(tx.push_overwrite(4).into_item(), None);
    assert_eq!(tx.push_overwrite(5).into_item(), Some(1));
    assert_eq!(rx.pop_bulk(&mut out), Ok(()));
    assert_eq!(out, [2, 3, 4, 5]);
}

#[test]
fn write_and_read_chunks_across_the_wrap() {
    let mut ring: Ring<String, 8> = Ring::with_start(6);
    let (mut tx, mut rx) = ring.split();
    let mut chunk = tx.write_chunk_uninit_up_to(5);
    assert_eq!(chunk.len(), 5);
    let (a, b) = chunk.as_mut_slices();
    assert_eq!((a.len(), b.len()), (2, 3));
    for (i, slot) in a.iter_mut().chain(b.iter_mut()).enumerate() {
        slot.write(format!("s{i}"));
    }
    // SAFETY: all five slots were written above.
    unsafe { chunk.commit(5) };
    assert_eq!(
        tx.write_chunk_uninit_up_to(10)
            .fill_from_iter((5..).map(|i| format!("s{i}"))),
        3
    );
    assert_eq!(tx.write_chunk_uninit_up_to(1).len(), 0);

    let mut rc = rx.read_chunk_up_to(6);
    assert_eq!(rc.len(), 6);
    let (a, b) = rc.as_slices();
    let seen: Vec<&str> = a.iter().chain(b).map(|s| s.as_str()).collect();
    assert_eq!(seen, ["s0", "s1", "s2", "s3", "s4", "s5"]);
    rc.as_mut_slices().0[0].push('!');
    rc.commit(2);
    // Dropping a chunk without commit frees nothing.
    drop(rx.read_chunk_up_to(1));
    assert_eq!(rx.try_pop().as_deref(), Some("s2"));
    rx.read_chunk_up_to(100).commit_all();
    assert!(rx.is_empty());
}

#[test]
fn drop_drops_remaining_items_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    {
        let mut ring: Ring<Counted, 8, Overwrite> = Ring::with_start(usize::MAX >> 1);
        let (mut tx, mut rx) = ring.split();
        for i in 0..11 {
            // 3 evictions hand items back, which the caller drops here.
            drop(tx.push_overwrite(Counted(i, drops.clone())).into_item());
        }
        assert_eq!(drops.load(Ordering::Relaxed), 3);
        assert_eq!(rx.try_pop().map(|c| c.id()), Some(3));
        rx.read_chunk_up_to(2).commit(2);
        assert_eq!(drops.load(Ordering::Relaxed), 6);
        assert!(tx.try_push(Counted(99, drops.clone())).is_ok());
    }
    // 11 + 1 made; 6 dropped before; the ring drops its 6.
    assert_eq!(drops.load(Ordering::Relaxed), 12);

    let drops2 = Arc::new(AtomicUsize::new(0));
    {
        let mut ring: Ring<Counted, 4> = Ring::new();
        let (mut tx, _rx) = ring.split();
        for i in 0..6 {
            let _ = tx.try_push(Counted(i, drops2.clone()));
        }
        assert_eq!(drops2.load(Ordering::Relaxed), 2); // two rejected, dropped by caller
    }
    assert_eq!(drops2.load(Ordering::Relaxed), 6);
}

#[test]
fn static_ring_splits_once_without_unsafe() {
    static RING: Ring<u32, 16> = Ring::new();
    let (mut tx, mut rx) = RING.try_split().expect("first split succeeds");
    assert!(RING.try_split().is_none());
    std::thread::spawn(move || {
        for i in 0..1000 {
            while tx.try_push(i).is_err() {
                std::hint::spin_loop();
            }
        }
    });
    for i in 0..1000 {
        loop {
            if let Some(v) = rx.try_pop() {
                assert_eq!(v, i);
                break;
            }
            std::hint::spin_loop();
        }
    }
}

#[test]
fn resplit_after_handles_drop_sees_leftovers() {
    let mut ring: Ring<u32, 4> = Ring::new();
    {
        let (mut tx, _) = ring.split();
        tx.try_push(1).unwrap();
        tx.try_push(2).unwrap();
    }
    let (tx, mut rx) = ring.split();
    assert_eq!(tx.free_slots(), 2);
    assert_eq!(rx.try_pop(), Some(1));
}

#[test]
fn blocking_push_waits_for_room_and_counts_no_rejection() {
    let mut ring: Ring<u32, 2> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    let n = if cfg!(miri) { 50 } else { 2_000 };
    std::thread::scope(|s| {
        s.spawn(move || {
            for i in 0..n {
                tx.push_blocking(i).unwrap();
            }
        });
        for i in 0..n {
            assert_eq!(rx.pop_blocking(), Some(i));
        }
        // The producer's thread has ended: gone, and the ring drained.
        assert_eq!(rx.pop_blocking(), None);
        drop(rx);
    });
    let stats = ring.stats();
    assert_eq!((stats.rejected, stats.overwritten), (0, 0));
    assert!((1..=2).contains(&stats.peak), "{stats:?}");
}

#[test]
fn empty_read_chunk_commit_does_not_move_head_back() {
    // Found by fuzz target spsc_overwrite: committing an empty read chunk
    // stored the consumer's stale head after the producer had evicted.
    let mut ring: Ring<u64, 8, Overwrite> = Ring::with_start((usize::MAX >> 1) - 238);
    let (mut tx, mut rx) = ring.split();
    let chunk = rx.read_chunk_up_to(0);
    for i in 0..10 {
        assert_eq!(tx.push_overwrite(i).into_item(), i.checked_sub(8));
    }
    chunk.commit(0);
    assert_eq!(tx.free_slots(), 0);
    assert_eq!(rx.len(), 8);
    // A zero-sized claim on a non-empty ring must not pin the oldest either.
    rx.read_chunk_up_to(0).commit(0);
    assert_eq!(tx.push_overwrite(10).into_item(), Some(2));
    assert_eq!(rx.try_pop(), Some(3));
}

#[test]
fn each_handle_sees_the_other_go() {
    let mut ring: Ring<u32, 2> = Ring::new();
    {
        let (tx, rx) = ring.split();
        assert!(!tx.is_abandoned() && !rx.is_abandoned());
        drop(rx);
        assert!(tx.is_abandoned());
    }
    let (tx, mut rx) = ring.split();
    assert!(!tx.is_abandoned(), "a new split has both handles alive");
    drop(tx);
    assert!(rx.is_abandoned());
    assert_eq!(
        rx.pop_blocking(),
        None,
        "producer gone, ring empty: no wait"
    );
}

#[test]
fn push_blocking_hands_the_item_back_when_nobody_can_make_room() {
    let mut ring: Ring<u32, 1> = Ring::new();
    let (mut tx, rx) = ring.split();
    tx.push_blocking(1).unwrap();
    drop(rx);
    assert_eq!(tx.push_blocking(2), Err(sluicegate::Closed(2)));
    assert_eq!(tx.stats().rejected, 0, "a refused wait is not a rejection");
}

#[test]
fn static_ring_splits_again_once_both_handles_are_gone() {
    use sluicegate::spsc::Overwrite;
    static RING: Ring<u32, 4, Overwrite> = Ring::new();
    let (mut tx, rx) = RING.try_split().unwrap();
    tx.try_push(1).unwrap();
    tx.try_push(2).unwrap();
    drop(tx);
    assert!(RING.try_split().is_none(), "the consumer still lives");
    drop(rx);
    // A restarted task: fresh handles, the items still inside, in order.
    let (mut tx, mut rx) = RING.try_split().expect("both handles are gone");
    assert!(!rx.is_abandoned() && !tx.is_abandoned());
    tx.try_push(3).unwrap();
    assert_eq!(rx.try_pop(), Some(1));
    drop(tx);
    assert_eq!(
        std::iter::from_fn(|| rx.pop_blocking()).collect::<Vec<_>>(),
        [2, 3]
    );
}

/// A leaked handle keeps the ring split: no second producer can appear.
#[test]
fn leaked_handle_keeps_the_ring_split() {
    static RING: Ring<u32, 2> = Ring::new();
    let (tx, rx) = RING.try_split().unwrap();
    core::mem::forget(tx);
    drop(rx);
    assert!(RING.try_split().is_none());
}
