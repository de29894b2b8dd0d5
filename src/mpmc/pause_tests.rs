//! A context suspended at every interesting point inside an operation: the
//! other contexts can still push and pop all but (at most) the one slot it
//! holds, and once it resumes nothing has been lost or duplicated.
//!
//! The suspended context is a thread stopped at the chosen pause point
//! ([`stop_at`]); the main thread plays all the other contexts.

extern crate std;

use super::{FreeBits, FreeIndices, FreeMask, FreePool, Ring};
use crate::sync::pause::{self, stop_at};
use crate::sync::Point;
use std::vec::Vec;

const N: usize = 4;
type R = Ring<u32, N>;
/// The ring with the one-word free pool, run through the same scenarios.
type Small = Ring<u32, N, FreeMask>;

/// What the suspended thread does.
#[derive(Clone, Copy, Debug)]
enum Op {
    Push,
    Overwrite,
    Pop,
}

/// What the suspended operation gave back, if anything.
type Outcome = Option<u32>;

const SUSPENDED_ITEM: u32 = 999;

fn run_op<F: FreePool<N>>(r: &Ring<u32, N, F>, op: Op) -> Outcome {
    match op {
        Op::Push => r.try_push(SUSPENDED_ITEM).err().map(|f| f.into_inner()),
        Op::Overwrite => r.push_overwrite(SUSPENDED_ITEM).into_item(),
        Op::Pop => r.try_pop(),
    }
}

/// How the ring starts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Start {
    /// Fresh.
    Empty,
    /// Empty after one push and pop, so pops take positions instead of
    /// answering "empty" from the threshold alone.
    Drained,
    /// All `N` slots hold items.
    Full,
}

/// One scenario: set the ring up as `start`, suspend `op` at `point`, exercise the
/// ring from this thread, resume, and account for every item.
fn scenario<F: FreePool<N>>(start: Start, op: Op, point: Point) -> Outcome {
    let ctx = || {
        std::format!(
            "{op:?} at {point:?} on {start:?} ({})",
            core::any::type_name::<F>()
        )
    };
    let r = Ring::<u32, N, F>::new();
    let mut pushed: Vec<u32> = Vec::new(); // every item that entered the ring
    let mut out: Vec<u32> = Vec::new(); // every item that came back out
    if start == Start::Drained {
        r.try_push(7).unwrap();
        assert_eq!(r.try_pop(), Some(7));
    }
    if start == Start::Full {
        for i in 0..N as u32 {
            r.try_push(i).unwrap();
            pushed.push(i);
        }
    }
    let mut next = 1000;
    let result = stop_at(
        point,
        || run_op(&r, op),
        || {
            for round in 0..5 {
                // Drain, fill to capacity, drain again, while the other thread is stopped.
                while let Some(v) = r.try_pop() {
                    out.push(v);
                }
                let mut p = 0;
                while r.try_push(next).is_ok() {
                    pushed.push(next);
                    next += 1;
                    p += 1;
                }
                assert!(p >= N - 1, "{}: round {round}: only {p} pushes fit", ctx());
                let mut q = 0;
                while let Some(v) = r.try_pop() {
                    out.push(v);
                    q += 1;
                }
                // A suspended pop may be owed (and keep) the one item pushed to its
                // position; nothing else may be missing.
                let owed = usize::from(matches!(op, Op::Pop));
                assert!(
                    q + owed >= p,
                    "{}: round {round}: pushed {p}, popped only {q}",
                    ctx()
                );
                // Overwrite works too, and evicts only what we pushed.
                for _ in 0..N {
                    pushed.push(next);
                    if let Some(v) = r.push_overwrite(next).into_item() {
                        out.push(v);
                    }
                    next += 1;
                }
            }
        },
    );
    match op {
        Op::Push | Op::Overwrite => {
            pushed.push(SUSPENDED_ITEM);
            out.extend(result);
        }
        Op::Pop => out.extend(result),
    }
    account_for_every_item(&r, pushed, out, &ctx());
    result
}

/// The end of a scenario, once the suspended operation has resumed and its
/// outcome is in `pushed` or `out`: pops what is left into `out`, checks
/// that every item that entered the ring (`pushed`) came out exactly once,
/// and that the ring is whole again (all `CAP` slots usable, no more).
pub(super) fn account_for_every_item<const CAP: usize, F: FreePool<CAP>>(
    r: &Ring<u32, CAP, F>,
    mut pushed: Vec<u32>,
    mut out: Vec<u32>,
    ctx: &str,
) {
    while let Some(v) = r.try_pop() {
        out.push(v);
    }
    pushed.sort_unstable();
    out.sort_unstable();
    assert_eq!(out, pushed, "{ctx}: items lost or duplicated");
    for i in 0..CAP as u32 {
        r.try_push(i)
            .unwrap_or_else(|_| panic!("{ctx}: slot still lost after resume"));
    }
    assert!(r.try_push(0).is_err());
}

#[test]
fn suspended_producer_try_push() {
    for point in [
        pause::MPMC_FQ_DEQ_TICKET,
        pause::MPMC_PUSH_CLAIMED,
        pause::MPMC_PUSH_WRITTEN,
        pause::MPMC_AQ_ENQ_TICKET,
        pause::MPMC_AQ_ENQ_PLACED,
    ] {
        let _ = scenario::<FreeIndices<N>>(Start::Empty, Op::Push, point);
        let _ = scenario::<FreeBits<1>>(Start::Empty, Op::Push, bits_point(point));
        let point = mask_point(point);
        let _ = scenario::<FreeMask>(Start::Empty, Op::Push, point);
    }
}

#[test]
fn suspended_producer_push_overwrite_on_full_ring() {
    for point in [
        pause::MPMC_FQ_DEQ_TICKET,
        pause::MPMC_FQ_DEQ_MISSED,
        pause::MPMC_AQ_DEQ_TICKET,
        pause::MPMC_OVERWRITE_EVICTED,
        pause::MPMC_OVERWRITE_WRITTEN,
        pause::MPMC_AQ_ENQ_TICKET,
        pause::MPMC_AQ_ENQ_PLACED,
    ] {
        let _ = scenario::<FreeIndices<N>>(Start::Full, Op::Overwrite, point);
        if !is_fq_point(point) {
            // A full mask, or a zero count, is one load: nothing to stop at.
            let _ = scenario::<FreeMask>(Start::Full, Op::Overwrite, point);
            let _ = scenario::<FreeBits<1>>(Start::Full, Op::Overwrite, point);
        }
    }
}

#[test]
fn suspended_producer_push_overwrite_on_empty_ring() {
    for point in [
        pause::MPMC_FQ_DEQ_TICKET,
        pause::MPMC_OVERWRITE_CLAIMED,
        pause::MPMC_AQ_ENQ_TICKET,
        pause::MPMC_AQ_ENQ_PLACED,
    ] {
        let _ = scenario::<FreeIndices<N>>(Start::Empty, Op::Overwrite, point);
        let _ = scenario::<FreeBits<1>>(Start::Empty, Op::Overwrite, bits_point(point));
        let point = mask_point(point);
        let _ = scenario::<FreeMask>(Start::Empty, Op::Overwrite, point);
    }
}

#[test]
fn suspended_consumer_try_pop() {
    for point in [
        pause::MPMC_AQ_DEQ_TICKET,
        pause::MPMC_POP_CLAIMED,
        pause::MPMC_POP_READ,
        pause::MPMC_FQ_ENQ_TICKET,
        pause::MPMC_FQ_ENQ_PLACED,
    ] {
        let _ = scenario::<FreeIndices<N>>(Start::Full, Op::Pop, point);
        if !is_fq_point(point) {
            // Giving a slot back to the mask is one fetch-or, right after
            // `MPMC_POP_READ`.
            let _ = scenario::<FreeMask>(Start::Full, Op::Pop, point);
        }
        // The bits' give stops between its fetch-or and its fetch-add.
        let _ = scenario::<FreeBits<1>>(Start::Full, Op::Pop, bits_point(point));
    }
}

#[test]
fn suspended_consumer_on_empty_ring() {
    // The pop took its position and stopped before looking: the next item
    // pushed to that position waits for it (and is returned when it resumes).
    let owed = scenario::<FreeIndices<N>>(Start::Drained, Op::Pop, pause::MPMC_AQ_DEQ_TICKET);
    assert!(
        owed.is_some(),
        "the item pushed to its position was kept for it"
    );
    scenario::<FreeIndices<N>>(Start::Drained, Op::Pop, pause::MPMC_AQ_DEQ_MISSED);
    let owed = scenario::<FreeMask>(Start::Drained, Op::Pop, pause::MPMC_AQ_DEQ_TICKET);
    assert!(owed.is_some(), "the same with the one-word pool");
    scenario::<FreeMask>(Start::Drained, Op::Pop, pause::MPMC_AQ_DEQ_MISSED);
    let owed = scenario::<FreeBits<1>>(Start::Drained, Op::Pop, pause::MPMC_AQ_DEQ_TICKET);
    assert!(owed.is_some(), "the same with the bitmap pool");
    scenario::<FreeBits<1>>(Start::Drained, Op::Pop, pause::MPMC_AQ_DEQ_MISSED);
}

/// Whether `point` is a step of the free-index ring `fq`.
fn is_fq_point(point: Point) -> bool {
    [
        pause::MPMC_FQ_ENQ_TICKET,
        pause::MPMC_FQ_ENQ_PLACED,
        pause::MPMC_FQ_DEQ_TICKET,
        pause::MPMC_FQ_DEQ_MISSED,
    ]
    .contains(&point)
}

/// The point of the one-word pool that stands for `fq`'s dequeue step
/// `point` (the take, between its load and its CAS); other points as they are.
fn mask_point(point: Point) -> Point {
    if is_fq_point(point) {
        pause::MPMC_MASK_TAKE
    } else {
        point
    }
}

/// The point of the bitmap pool that stands for `fq`'s step `point`: its
/// take's reservation for a dequeue step, its give's count for an enqueue
/// step; other points as they are.
fn bits_point(point: Point) -> Point {
    if point == pause::MPMC_FQ_DEQ_TICKET || point == pause::MPMC_FQ_DEQ_MISSED {
        pause::MPMC_BITS_RESERVED
    } else if point == pause::MPMC_FQ_ENQ_TICKET || point == pause::MPMC_FQ_ENQ_PLACED {
        pause::MPMC_BITS_GIVEN
    } else {
        point
    }
}

/// A take of the bitmap pool stopped after reserving the last free slot of
/// a 64-slot ring (slot 63, in the second word), before claiming its bit:
/// meanwhile the others find the ring full (the reservation counts), pop the
/// oldest item and push into the slot the pop freed (in the first word).
/// Resumed, the take scans past the first word, now empty, claims the bit in
/// the second, and every item and slot is accounted for.
#[test]
fn bits_take_reserved_then_claims_what_is_left() {
    use crate::TryPushError;
    let r = Ring::<u32, 64, FreeBits<2>>::new();
    for i in 0..63 {
        r.try_push(i).unwrap();
    }
    let pushed = stop_at(
        pause::MPMC_BITS_RESERVED,
        || r.try_push(SUSPENDED_ITEM),
        || {
            assert_eq!(r.try_push(100), Err(TryPushError::Full(100)));
            assert_eq!(r.try_pop(), Some(0));
            r.try_push(101).unwrap();
            assert_eq!(r.try_push(102), Err(TryPushError::Full(102)));
        },
    );
    assert_eq!(pushed, Ok(()));
    let mut out = std::vec![];
    while let Some(v) = r.try_pop() {
        out.push(v);
    }
    let mut want: Vec<u32> = (1..63).collect();
    want.push(101);
    want.push(SUSPENDED_ITEM);
    out.sort_unstable();
    want.sort_unstable();
    assert_eq!(out, want);
    for i in 0..64 {
        r.try_push(i).unwrap();
    }
    assert!(r.try_push(64).is_err());
}

/// A take stopped between loading the mask and its CAS while this thread
/// takes every slot: its CAS fails on the changed word, and from the word
/// the failure returned it finds no free slot and answers full; after one
/// pop a push takes that slot.
#[test]
fn mask_take_racing_others_sees_the_word_they_left() {
    use crate::TryPushError;
    let r = Small::new();
    let pushed = stop_at(
        pause::MPMC_MASK_TAKE,
        || r.try_push(SUSPENDED_ITEM),
        || {
            for i in 0..N as u32 {
                r.try_push(i).unwrap();
            }
        },
    );
    assert_eq!(pushed, Err(TryPushError::Full(SUSPENDED_ITEM)));
    assert_eq!(r.try_pop(), Some(0));
    assert_eq!(r.try_push(SUSPENDED_ITEM), Ok(()));
    assert!(r.try_push(5).is_err());
    let mut out = std::vec![];
    while let Some(v) = r.try_pop() {
        out.push(v);
    }
    assert_eq!(out, [1, 2, 3, SUSPENDED_ITEM]);
}

/// A push stopped after taking its `aq` position, before it loads the
/// closed flag; meanwhile the ring is closed and a pop steps past that
/// position and answers "closed and drained". Resumed, the push must refuse
/// and hand its item back: nothing lands after the drained answer.
#[test]
fn push_holding_its_position_across_a_close_is_refused() {
    use crate::{TryPopError, TryPushError};
    let r = R::new();
    r.try_push(1).unwrap();
    assert_eq!(r.try_pop(), Some(1));
    let pushed = stop_at(
        pause::MPMC_AQ_ENQ_TICKET,
        || r.try_push(SUSPENDED_ITEM),
        || {
            assert!(r.close());
            assert_eq!(r.try_pop_or_closed(), Err(TryPopError::Closed));
        },
    );
    assert_eq!(pushed, Err(TryPushError::Closed(SUSPENDED_ITEM)));
    assert_eq!(r.try_pop_or_closed(), Err(TryPopError::Closed));
}

/// An eviction stopped holding the evicted item's slot; meanwhile the ring
/// is closed: pops answer "empty" (not "closed and drained") until the
/// eviction has put its new item in, which then drains.
#[test]
fn eviction_in_progress_across_a_close_is_waited_for() {
    use crate::{Overwritten, TryPopError};
    let r = Ring::<u32, 1>::new();
    r.try_push(1).unwrap();
    let back = stop_at(
        pause::MPMC_OVERWRITE_EVICTED,
        || r.push_overwrite(SUSPENDED_ITEM),
        || {
            assert!(r.close());
            assert_eq!(r.try_pop_or_closed(), Err(TryPopError::Empty));
        },
    );
    assert_eq!(back, Overwritten::Evicted(1));
    assert_eq!(r.try_pop_or_closed(), Ok(SUSPENDED_ITEM));
    assert_eq!(r.try_pop_or_closed(), Err(TryPopError::Closed));
}

/// "Closed and drained" is final: an eviction announced after a pop found
/// the ring closed and drained (it gives up: the close came first) does
/// not make a later pop answer "empty" while it is stopped between its
/// announcement and giving up.
#[test]
fn an_eviction_announced_after_the_drained_answer_changes_nothing() {
    use crate::{Overwritten, TryPopError};
    let r = Ring::<u32, 1>::new();
    assert!(r.close());
    assert_eq!(r.try_pop_or_closed(), Err(TryPopError::Closed));
    // The free slot: taken, refused by the close, kept out for good.
    assert_eq!(r.push_overwrite(5), Overwritten::Rejected(5));
    let back = stop_at(
        pause::MPMC_OVERWRITE_ANNOUNCED,
        || r.push_overwrite(SUSPENDED_ITEM),
        || assert_eq!(r.try_pop_or_closed(), Err(TryPopError::Closed)),
    );
    assert_eq!(back, Overwritten::Rejected(SUSPENDED_ITEM));
    assert_eq!(r.try_pop_or_closed(), Err(TryPopError::Closed));
}

/// Keeps the newest: a full ring whose oldest item (or oldest `held`
/// items, for a burst) a pop has taken and not yet given back.
/// `push_overwrite` stores every new item and evicts the oldest item no
/// pop holds, `3N` times in a row, never handing the new one back; the
/// suspended pop then returns what it took, intact, and the ring holds the
/// newest items.
fn overwrite_past_a_pop<F: FreePool<N>>(point: Point, burst: bool) {
    let ctx = || std::format!("{point:?}, burst {burst} ({})", core::any::type_name::<F>());
    let r = Ring::<u32, N, F>::new();
    for i in 0..N as u32 {
        r.try_push(i).unwrap();
    }
    // The burst takes the two oldest items; a single pop the oldest.
    let held: u32 = if burst { 2 } else { 1 };
    let mut evicted = Vec::new();
    let popped = stop_at(
        point,
        || {
            let mut out = [0; 2];
            let n = if burst {
                r.pop_burst(&mut out)
            } else {
                r.try_pop().map_or(0, |v| {
                    out[0] = v;
                    1
                })
            };
            out[..n].to_vec()
        },
        || {
            for k in 0..3 * N as u32 {
                match r.push_overwrite(100 + k) {
                    crate::Overwritten::Evicted(old) => evicted.push(old),
                    other => panic!("{}: push {k} answered {other:?}", ctx()),
                }
            }
        },
    );
    assert_eq!(
        popped,
        (0..held).collect::<Vec<_>>(),
        "{}: the held items",
        ctx()
    );
    // Evicted oldest first: the items the pop did not hold, then the
    // newest pushes in turn.
    let all: Vec<u32> = (held..N as u32).chain(100..100 + 3 * N as u32).collect();
    let kept = N - held as usize;
    assert_eq!(evicted, all[..all.len() - kept], "{}: evictions", ctx());
    let mut rest = Vec::new();
    while let Some(v) = r.try_pop() {
        rest.push(v);
    }
    assert_eq!(rest, all[all.len() - kept..], "{}: the newest kept", ctx());
    assert_eq!(r.stats().overwritten, 3 * N, "{}", ctx());
    assert_eq!(r.stats().rejected, 0, "{}", ctx());
}

#[test]
fn overwrite_keeps_the_newest_while_a_pop_holds_the_oldest() {
    for point in [
        pause::MPMC_AQ_DEQ_TICKET,
        pause::MPMC_POP_CLAIMED,
        pause::MPMC_POP_READ,
    ] {
        overwrite_past_a_pop::<FreeIndices<N>>(point, false);
        overwrite_past_a_pop::<FreeMask>(point, false);
        overwrite_past_a_pop::<FreeBits<1>>(point, false);
    }
    for point in [pause::MPMC_BURST_TAKEN, pause::MPMC_BURST_READ] {
        overwrite_past_a_pop::<FreeIndices<N>>(point, true);
        overwrite_past_a_pop::<FreeMask>(point, true);
        overwrite_past_a_pop::<FreeBits<1>>(point, true);
    }
}

/// More pops stopped with a decrement of `threshold` still to make than
/// `3N - 1`: each took a position on the empty ring, missed, and loaded
/// `tail` before a push placed its item past them. When they resume,
/// their decrements take `threshold` below 0 while the item waits at
/// `head`. The pops after them must still find it.
#[test]
fn late_misses_beyond_the_threshold_do_not_hide_an_item() {
    let r = Ring::<u32, 1>::new();
    // One item in and out: `threshold` is `3N - 1`, so pops take positions.
    r.try_push(1).unwrap();
    assert_eq!(r.try_pop(), Some(1));
    let pop_empty = || r.try_pop().is_none();
    with_stopped(3, pause::MPMC_AQ_DEQ_DRY, &pop_empty, &|| {
        r.try_push(7).unwrap()
    });
    assert_eq!(r.len(), 1);
    // With the ring's one slot holding the item, no push can reset the
    // threshold: hidden for good unless a pop finds it anyway.
    assert_eq!(r.try_pop(), Some(7), "the item waits, hidden");
    r.try_push(8).unwrap();
    assert_eq!(r.try_pop(), Some(8));
}

/// Runs `during` while `k` calls of `refused` are stopped at `point`
/// (each after a dry miss, with its decrement of `threshold` still to
/// make); checks that each then answers `true` (empty, or full).
fn with_stopped(k: usize, point: Point, refused: &(dyn Fn() -> bool + Sync), during: &dyn Fn()) {
    if k == 0 {
        return during();
    }
    let got = stop_at(point, refused, || {
        with_stopped(k - 1, point, refused, during)
    });
    assert!(got, "a stopped call took what it found");
}

/// The item hidden behind a position no dequeuer has taken: `N = 2`
/// (`aq` has 4 entries, `3N - 1 = 5`). A pop takes position 0, where item
/// 1 waits, and stops before it looks; seven pops miss at positions 1 to
/// 7 and stop before their decrements. A push of 2 then finds position 8's
/// entry still holding item 1's index (its pop has not taken it) and
/// places at 9: `head` is 8, with nothing to take there. The seven
/// decrements take `threshold` to -2. A pop must find item 2 while the
/// first pop is still stopped, so the miss that took `threshold` below 0
/// has to look past `head` (a look at `head` alone finds nothing).
#[test]
fn late_misses_do_not_hide_an_item_behind_a_passed_position() {
    let r = Ring::<u32, 2>::new();
    r.try_push(1).unwrap();
    let first = stop_at(
        pause::MPMC_AQ_DEQ_TICKET,
        || r.try_pop(),
        || {
            let pop_empty = || r.try_pop().is_none();
            with_stopped(7, pause::MPMC_AQ_DEQ_DRY, &pop_empty, &|| {
                r.try_push(2).unwrap()
            });
            assert_eq!(r.try_pop(), Some(2), "item 2 waits, hidden");
            assert_eq!(r.try_pop(), None);
        },
    );
    assert_eq!(first, Some(1));
    r.try_push(3).unwrap();
    assert_eq!(r.try_pop(), Some(3));
}

/// The free-slot ring's side of the same defect: three pushes on a full
/// ring of one slot stop with a decrement of `fq`'s `threshold` still to
/// make, a pop frees the slot past them, and their decrements take
/// `threshold` to -1. The empty ring must still take a push (unfixed, it
/// answered `Full` for good).
#[test]
fn late_misses_do_not_hide_a_free_slot() {
    let r = Ring::<u32, 1>::new();
    // A slot freed and taken again: `fq`'s `threshold` is `3N - 1`, so
    // pushes on the full ring take positions.
    r.try_push(1).unwrap();
    assert_eq!(r.try_pop(), Some(1));
    r.try_push(2).unwrap();
    let push_full = || r.try_push(3).is_err();
    with_stopped(3, pause::MPMC_FQ_DEQ_DRY, &push_full, &|| {
        assert_eq!(r.try_pop(), Some(2))
    });
    assert!(r.is_empty());
    r.try_push(4).expect("the free slot waits, hidden");
    assert_eq!(r.try_pop(), Some(4));
}
