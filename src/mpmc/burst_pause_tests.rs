//! A burst suspended at every step of a round (each index-ring step and
//! each point between them, at its first and a later item or position): the other
//! contexts still push and pop everything but the slots of the suspended
//! round, and once it resumes nothing has been lost or duplicated.

extern crate std;

use super::pause_tests::account_for_every_item;
use super::{FreeBits, FreeIndices, FreeMask, FreePool, Ring};
use crate::sync::pause::{self, stop_at_nth};
use crate::sync::Point;
use std::vec::Vec;

const N: usize = 8;
/// Items in the suspended burst: what it may hold while stopped.
const K: usize = 3;
type R = Ring<u32, N>;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    PushBurst,
    PopBurst,
}

const SUSPENDED: [u32; K] = [900, 901, 902];

/// Sets the ring up (full for a pop burst, after one push and pop for a push
/// burst, so that positions are not all fresh), stops `op` at the `nth` hit
/// of `point`, moves items through the ring from this thread with single and
/// burst operations, resumes, and accounts for every item.
fn scenario<F: FreePool<N>>(op: Op, point: Point, nth: usize) {
    let ctx = || {
        std::format!(
            "{op:?} at {point:?} #{nth} ({})",
            core::any::type_name::<F>()
        )
    };
    let r = Ring::<u32, N, F>::new();
    let mut pushed: Vec<u32> = Vec::new();
    let mut out: Vec<u32> = Vec::new();
    r.try_push(7).unwrap();
    assert_eq!(r.try_pop(), Some(7));
    if op == Op::PopBurst {
        for i in 0..N as u32 {
            r.try_push(i).unwrap();
            pushed.push(i);
        }
    }
    let mut next = 1000;
    let (n, got) = stop_at_nth(
        point,
        nth,
        || match op {
            Op::PushBurst => (r.push_burst(&SUSPENDED), [0; K]),
            Op::PopBurst => {
                let mut buf = [0; K];
                (r.pop_burst(&mut buf), buf)
            }
        },
        || {
            for round in 0..4 {
                let mut buf = [0u32; N];
                loop {
                    let n = r.pop_burst(&mut buf[..3]);
                    if n == 0 {
                        break;
                    }
                    out.extend(&buf[..n]);
                }
                while let Some(v) = r.try_pop() {
                    out.push(v);
                }
                // Fill: bursts first, then single pushes.
                let mut p = 0;
                loop {
                    let items = [next, next + 1];
                    let n = r.push_burst(&items);
                    pushed.extend(&items[..n]);
                    next += 2;
                    p += n;
                    if n < 2 {
                        break;
                    }
                }
                while r.try_push(next).is_ok() {
                    pushed.push(next);
                    next += 1;
                    p += 1;
                }
                assert!(p >= N - K, "{}: round {round}: only {p} pushes fit", ctx());
                let mut q = 0;
                loop {
                    let n = r.pop_burst(&mut buf);
                    if n == 0 {
                        break;
                    }
                    out.extend(&buf[..n]);
                    q += n;
                }
                while let Some(v) = r.try_pop() {
                    out.push(v);
                    q += 1;
                }
                // A suspended pop burst may be owed the items pushed to the
                // positions it holds; nothing else may be missing.
                let owed = if op == Op::PopBurst { K } else { 0 };
                assert!(
                    q + owed >= p,
                    "{}: round {round}: pushed {p}, popped {q}",
                    ctx()
                );
            }
        },
    );
    match op {
        Op::PushBurst => pushed.extend(&SUSPENDED[..n]),
        Op::PopBurst => out.extend(&got[..n]),
    }
    account_for_every_item(&r, pushed, out, &ctx());
}

#[test]
fn suspended_push_burst() {
    for (point, nth) in [
        (pause::MPMC_FQ_DEQ_COUNTED, 1),
        (pause::MPMC_FQ_DEQ_TICKET, 1),
        (pause::MPMC_FQ_DEQ_STEPPED, 1),
        (pause::MPMC_FQ_DEQ_STEPPED, 2),
        (pause::MPMC_BURST_CLAIMED, 1),
        (pause::MPMC_BURST_WRITTEN, 1),
        (pause::MPMC_AQ_ENQ_TICKET, 1),
        (pause::MPMC_AQ_ENQ_PLACED, 1),
        (pause::MPMC_AQ_ENQ_PLACED, 2),
    ] {
        scenario::<FreeIndices<N>>(Op::PushBurst, point, nth);
        // The other pools take a round of free slots in one step of their
        // own: the burst's one reservation, or its one CAS on the mask.
        let (bits, mask) = match point {
            pause::MPMC_FQ_DEQ_TICKET => (pause::MPMC_BITS_RESERVED, pause::MPMC_MASK_TAKE),
            pause::MPMC_FQ_DEQ_COUNTED | pause::MPMC_FQ_DEQ_STEPPED => continue,
            _ => (point, point),
        };
        scenario::<FreeBits<1>>(Op::PushBurst, bits, nth);
        scenario::<FreeMask>(Op::PushBurst, mask, nth);
    }
}

#[test]
fn suspended_pop_burst() {
    for (point, nth) in [
        (pause::MPMC_AQ_DEQ_COUNTED, 1),
        (pause::MPMC_AQ_DEQ_TICKET, 1),
        (pause::MPMC_AQ_DEQ_STEPPED, 1),
        (pause::MPMC_AQ_DEQ_STEPPED, K),
        (pause::MPMC_BURST_TAKEN, 1),
        (pause::MPMC_BURST_READ, 1),
        (pause::MPMC_FQ_ENQ_TICKET, 1),
        (pause::MPMC_FQ_ENQ_PLACED, 1),
        (pause::MPMC_FQ_ENQ_PLACED, 2),
    ] {
        scenario::<FreeIndices<N>>(Op::PopBurst, point, nth);
        if point == pause::MPMC_FQ_ENQ_TICKET || (point == pause::MPMC_FQ_ENQ_PLACED && nth == 1) {
            // Between the burst's fetch-ors and its one fetch-add.
            scenario::<FreeBits<1>>(Op::PopBurst, pause::MPMC_BITS_GIVEN, 1);
        } else if point != pause::MPMC_FQ_ENQ_PLACED {
            scenario::<FreeBits<1>>(Op::PopBurst, point, nth);
        }
        if point != pause::MPMC_FQ_ENQ_TICKET && point != pause::MPMC_FQ_ENQ_PLACED {
            // The mask takes the round's slots back with one fetch-or,
            // right after `MPMC_BURST_READ`.
            scenario::<FreeMask>(Op::PopBurst, point, nth);
        }
    }
}

/// A pop burst stopped right after taking its round's positions (one
/// fetch-and-add for both items there) holds both: the items at them are
/// its own when it resumes, and the others push and pop everything else.
#[test]
fn pop_burst_holding_its_round() {
    let r = R::new();
    r.try_push(7).unwrap();
    r.try_push(8).unwrap();
    let mut out = Vec::new();
    let (n, got) = stop_at_nth(
        pause::MPMC_AQ_DEQ_TICKET,
        1,
        || {
            let mut buf = [0; 4];
            (r.pop_burst(&mut buf), buf)
        },
        || {
            // Its positions hold 7 and 8; the next pushes are everyone's.
            for v in 10..10 + N as u32 - 2 {
                r.try_push(v).unwrap();
            }
            while let Some(v) = r.try_pop() {
                out.push(v);
            }
        },
    );
    assert_eq!((n, got[..2].to_vec()), (2, std::vec![7, 8]));
    let rest: Vec<u32> = (10..10 + N as u32 - 2).collect();
    assert_eq!(out, rest);
    assert!(r.is_empty());
}

/// A pop burst stopped between reading `head` and `tail` and its
/// fetch-and-add, while the others pop what it counted and push anew: its
/// round takes the positions `head` has reached by then, and every item
/// comes out once, each producer's in order.
#[test]
fn pop_burst_counting_stale_positions() {
    let r = R::new();
    r.try_push(7).unwrap();
    r.try_push(8).unwrap();
    let mut out = Vec::new();
    let (n, got) = stop_at_nth(
        pause::MPMC_AQ_DEQ_COUNTED,
        1,
        || {
            let mut buf = [0; 4];
            (r.pop_burst(&mut buf), buf)
        },
        || {
            out.extend(r.try_pop());
            out.extend(r.try_pop());
            r.try_push(9).unwrap();
        },
    );
    out.extend(&got[..n]);
    out.extend(core::iter::from_fn(|| r.try_pop()));
    assert_eq!(out, [7, 8, 9]);
    // Its second position was beyond `tail`: `tail` caught up, and the
    // ring still takes and gives all `N` items.
    for v in 0..N as u32 {
        r.try_push(v).unwrap();
    }
    for v in 0..N as u32 {
        assert_eq!(r.try_pop(), Some(v));
    }
}
