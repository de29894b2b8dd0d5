//! Unit tests of the index ring: the IsSafe bit, burst enqueues and the
//! rounds of burst dequeues, step by step.

use super::IndexRing;
use crate::sync::{pause, pause::stop_at, Ordering};

/// The IsSafe bit at work, step by step as three contexts would
/// interleave them (each step is the code a context runs between two of
/// its pause points): a dequeuer D1 holds position 0, whose index is
/// still in the entry; an enqueuer E2 holds position 4 (the same entry,
/// a cycle later); a third context's dequeue passes position 4, marks
/// the entry unsafe and moves `head` on. When D1 then empties the entry,
/// E2 must not place its index there (no dequeuer will come for position
/// 4), but retry at a new position, where the next dequeue finds it.
#[test]
fn an_unsafe_entry_is_not_reused_behind_head() {
    const N: usize = 2;
    let r = IndexRing::<N, false>::new(0, false);
    r.enqueue(0); // position 0
    let d1 = r.head.fetch_add(1, Ordering::SeqCst); // D1 stops after its ticket
    assert_eq!(d1, 0);
    assert_eq!(r.dequeue(), None, "position 1 held nothing");
    r.enqueue(1); // position 2
    assert_eq!(r.dequeue(), Some(1));
    assert_eq!(r.dequeue(), None, "position 3 held nothing");
    assert_eq!(r.tail.load(Ordering::SeqCst), 4, "tail caught up");
    let e2 = r.tail.fetch_add(1, Ordering::SeqCst); // E2 stops after its ticket
    assert_eq!(e2, 4);
    let entry = r.entry(4).load(Ordering::SeqCst);
    assert_eq!(entry & IndexRing::<N, false>::BOT, 0, "index 0 still there");
    // The third context: its position is 4; index 0 waits for D1, so it
    // marks the entry unsafe and moves on.
    assert_eq!(r.dequeue(), None);
    let entry = r.entry(4).load(Ordering::SeqCst);
    assert_eq!(entry & IndexRing::<N, false>::SAFE, 0, "marked unsafe");
    assert_eq!(r.head.load(Ordering::SeqCst), 5);
    // D1 resumes and takes its index.
    assert_eq!(r.take_at(d1), Some(0));
    // E2 resumes: the emptied entry is unsafe and `head` is past 4.
    assert!(!r.place_at(e2, 1), "placed where no dequeuer will look");
    // Its retry, as `enqueue` makes it, takes position 5.
    r.enqueue(1);
    assert_eq!(r.dequeue(), Some(1), "the retried index is found");
    assert_eq!(r.dequeue(), None);
}

/// A burst enqueue whose first position a dequeuer passes while the
/// burst holds it (the dequeuer's miss is the last one `threshold`
/// allowed, so it passes that one position and answers "empty") places
/// its indices in the round's other positions: the dequeues after it
/// find every index without missing anywhere, so no unused position is
/// left ahead of `head` to eat into the bound.
#[test]
fn burst_enqueue_leaves_no_unused_position_ahead_of_head() {
    const N: usize = 4;
    let r = IndexRing::<N, false>::new(0, false);
    r.enqueue(0);
    assert_eq!(r.dequeue(), Some(0));
    // As after `3N-1` misses: the next miss answers "empty" at once.
    r.threshold.store(0, Ordering::SeqCst);
    let start = r.tail.load(Ordering::SeqCst);
    let placed = stop_at(
        pause::MPMC_AQ_ENQ_TICKET,
        || r.enqueue_many(&[0, 1, 2, 3], None),
        || assert_eq!(r.dequeue(), None, "the passed position held nothing"),
    );
    assert_eq!(placed, 4);
    assert_eq!(r.head.load(Ordering::SeqCst), start.wrapping_add(1));
    // A round of four (one position passed, three placed), then a
    // round of one.
    assert_eq!(r.tail.load(Ordering::SeqCst), start.wrapping_add(5));
    for i in 0..4 {
        assert_eq!(r.dequeue(), Some(i), "in order");
    }
    assert_eq!(
        r.threshold.load(Ordering::SeqCst),
        IndexRing::<N, false>::THRESHOLD,
        "no dequeue missed: nothing unused lay between the indices"
    );
    assert_eq!(r.head.load(Ordering::SeqCst), start.wrapping_add(5));
}

type R4 = IndexRing<4, false>;

/// `head`, `tail` and `threshold` (as `isize`) of `r`.
fn words<const M: usize>(r: &IndexRing<M, false>) -> (usize, usize, isize) {
    (
        r.head.load(Ordering::SeqCst),
        r.tail.load(Ordering::SeqCst),
        r.threshold.load(Ordering::SeqCst) as isize,
    )
}

/// An enqueuer's steps after its ticket, as `enqueue_unless_closed`
/// runs them: places `index` at `t` and resets `threshold`, or fails.
fn place_and_reset<const M: usize>(r: &IndexRing<M, false>, t: usize, index: usize) -> bool {
    let placed = r.place_at(t, index);
    if placed {
        r.threshold
            .store(IndexRing::<M, false>::THRESHOLD, Ordering::SeqCst);
    }
    placed
}

/// A round takes the positions between `head` and `tail`, not the
/// `want` it was asked for: asked for 4 with 3 indices in the ring, it
/// passes no position beyond them.
#[test]
fn a_round_takes_only_the_positions_below_tail() {
    let r = R4::new(0, false);
    for i in 0..3 {
        r.enqueue(i);
    }
    let mut out = [9; 4];
    assert_eq!(r.dequeue_many(&mut out), Some((3, 3)));
    assert_eq!(out[..3], [0, 1, 2]);
    assert_eq!(
        words(&r),
        (3, 3, R4::THRESHOLD as isize),
        "no position passed"
    );
}

/// A round takes at most `N` positions, however many lie below `tail`
/// (here two enqueuers hold tickets behind two indices): it never meets
/// an entry twice, and a suspended round holds at most `N` positions.
#[test]
fn a_round_takes_at_most_n_positions() {
    let r = IndexRing::<2, false>::new(0, false);
    r.enqueue(0);
    r.enqueue(1);
    let t = r.tail.fetch_add(2, Ordering::SeqCst); // two enqueuers' tickets
    let mut out = [9; 4];
    assert_eq!(r.dequeue_many(&mut out), Some((2, 4)));
    assert_eq!(out[..2], [0, 1]);
    assert_eq!(
        r.head.load(Ordering::SeqCst),
        2,
        "the tickets' positions are not passed"
    );
    assert!(place_and_reset(&r, t, 0) && place_and_reset(&r, t + 1, 1));
    assert_eq!(r.dequeue_many(&mut out), Some((2, 2)));
    assert_eq!(out[..2], [0, 1]);
}

/// Every position of a round is looked at, in order: the indices on
/// both sides of a position whose enqueuer has not placed yet are the
/// round's, and the late enqueuer finds its position passed.
#[test]
fn a_round_looks_at_every_position_it_took() {
    let r = R4::new(0, false);
    r.enqueue(0);
    let late = r.tail.fetch_add(1, Ordering::SeqCst); // an enqueuer's ticket
    r.enqueue(2);
    r.enqueue(3);
    let mut out = [9; 4];
    assert_eq!(
        r.dequeue_many(&mut out),
        Some((3, 4)),
        "4 positions from the first to tail"
    );
    assert_eq!(out[..3], [0, 2, 3]);
    assert!(
        !place_and_reset(&r, late, 1),
        "the round passed its position"
    );
    r.enqueue(1);
    assert_eq!(r.dequeue(), Some(1));
    assert_eq!(
        words(&r).2,
        R4::THRESHOLD as isize,
        "no dequeue missed since"
    );
}

/// An empty ring (`head >= tail`) is answered from two loads: no
/// position is taken, nothing is counted.
#[test]
fn an_empty_round_only_reads() {
    let r = R4::new(0, false);
    r.enqueue(0);
    assert_eq!(r.dequeue(), Some(0));
    let before = words(&r);
    assert_eq!(r.dequeue_many(&mut [9; 4]), None);
    assert_eq!(words(&r), before);
}

/// A round that took no index, with nothing beyond its positions,
/// counts one failed attempt and answers "empty", as a single
/// dequeue's miss.
#[test]
fn a_dry_round_counts_one_miss() {
    let r = R4::new(0, false);
    r.enqueue(0);
    assert_eq!(r.dequeue(), Some(0));
    let late = r.tail.fetch_add(1, Ordering::SeqCst); // an enqueuer's ticket
    assert_eq!(r.dequeue_many(&mut [9; 4]), None);
    assert_eq!(words(&r), (2, 2, R4::THRESHOLD as isize - 1));
    assert!(!place_and_reset(&r, late, 1));
}

/// A dry round with positions beyond it counts its miss and takes a
/// new round, which finds the index there.
#[test]
fn a_dry_round_goes_on_to_an_index_beyond() {
    let r = R4::new(0, false);
    r.enqueue(0);
    assert_eq!(r.dequeue(), Some(0));
    let late = r.tail.fetch_add(1, Ordering::SeqCst); // an enqueuer's ticket
    r.enqueue(2);
    let mut one = [9; 1];
    assert_eq!(r.dequeue_many(&mut one), Some((1, 1)));
    assert_eq!(one, [2]);
    assert_eq!(words(&r), (3, 3, R4::THRESHOLD as isize - 1));
    assert!(!place_and_reset(&r, late, 1));
}

/// `head` moves on between a round's loads and its fetch-and-add, so
/// its last position is beyond `tail`: the round closes it and brings
/// `tail` up to `head`, so the next enqueue wastes no position there.
#[test]
fn a_round_past_tail_brings_tail_up() {
    let r = R4::new(0, false);
    r.enqueue(0);
    r.enqueue(1);
    let mut out = [9; 4];
    let got = stop_at(
        pause::MPMC_AQ_DEQ_COUNTED,
        || r.dequeue_many(&mut out).map(|(n, seen)| (n, seen, out[0])),
        || assert_eq!(r.dequeue(), Some(0)),
    );
    assert_eq!(got, Some((1, 1, 1)), "the round took index 1 at position 1");
    assert_eq!(words(&r), (3, 3, R4::THRESHOLD as isize), "tail caught up");
    r.enqueue(2);
    assert_eq!(
        r.tail.load(Ordering::SeqCst),
        4,
        "placed at its first position"
    );
    assert_eq!(r.dequeue(), Some(2));
}

/// A round suspended after its fetch-and-add holds its positions: an
/// index placed at one of them meanwhile is its own, and another
/// dequeue finds the ring empty.
#[test]
fn a_suspended_round_holds_its_positions() {
    let r = R4::new(0, false);
    r.enqueue(0);
    let late = r.tail.fetch_add(1, Ordering::SeqCst); // an enqueuer's ticket
    let mut out = [9; 4];
    let got = stop_at(
        pause::MPMC_AQ_DEQ_TICKET,
        || r.dequeue_many(&mut out).map(|(n, _)| (n, [out[0], out[1]])),
        || {
            assert!(place_and_reset(&r, late, 1), "not looked at yet: usable");
            assert_eq!(r.dequeue(), None, "index 1 is the suspended round's");
        },
    );
    assert_eq!(got, Some((2, [0, 1])));
}

/// Rounds charge nothing before they take their positions. Three burst
/// dequeuers count `k = 2` (two indices in the ring) and stop before
/// their fetch-and-add; single dequeues must still find both indices,
/// and then one placed after them: had the three charged their `k` up
/// front, `threshold` would be `5 - 6 < 0` and those dequeues would
/// answer "empty". Resumed, each round finds its positions past `tail`
/// and answers "empty" after one miss.
#[test]
fn stale_rounds_do_not_hide_an_index() {
    let r = IndexRing::<2, false>::new(0, false);
    r.enqueue(0);
    r.enqueue(1);
    let round = || r.dequeue_many(&mut [9; 2]);
    let stop = |during: &mut dyn FnMut()| stop_at(pause::MPMC_AQ_DEQ_COUNTED, round, during);
    // What the two inner rounds return (set when they resume).
    let (mut b, mut c) = (Some((0, 0)), Some((0, 0)));
    let a = stop(&mut || {
        b = stop(&mut || {
            c = stop(&mut || {
                assert_eq!(r.dequeue(), Some(0));
                assert_eq!(r.dequeue(), Some(1));
                r.enqueue(1); // x, at position 2
                assert_eq!(
                    r.dequeue(),
                    Some(1),
                    "x hidden by charges of rounds not taken"
                );
            })
        })
    });
    assert_eq!((a, b, c), (None, None, None));
    let (head, tail, threshold) = words(&r);
    assert_eq!(
        (head, tail),
        (9, 9),
        "three rounds of two past tail, caught up"
    );
    assert_eq!(threshold, IndexRing::<2, false>::THRESHOLD as isize - 3);
}

/// Bursts on a near-empty ring cannot keep an enqueuer out for ever: an
/// enqueuer that takes a ticket and is overtaken each time before it
/// places retries, and each dry round that passes it counts one miss,
/// so after `3N` of them the rounds answer "empty" without taking a
/// position and the enqueuer's next position holds.
#[test]
fn dry_rounds_stop_overtaking_an_enqueuer() {
    const M: usize = 2;
    let r = IndexRing::<M, false>::new(0, false);
    r.enqueue(0);
    assert_eq!(r.dequeue(), Some(0));
    let mut passed = 0;
    loop {
        let t = r.tail.fetch_add(1, Ordering::SeqCst); // the enqueuer's ticket
        assert_eq!(r.dequeue_many(&mut [9; 2]), None);
        if place_and_reset(&r, t, 1) {
            break;
        }
        passed += 1;
        assert!(passed <= 3 * M, "overtaken {passed} times");
    }
    assert_eq!(passed, 3 * M);
    assert_eq!(r.dequeue_many(&mut [9; 2]), Some((1, 1)));
}
