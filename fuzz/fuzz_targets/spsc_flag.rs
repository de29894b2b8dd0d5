//! `spsc::flag::Ring`, one operation at a time, against a `VecDeque`: push,
//! pop, fresh pop (items whose value has the drawn remainder mod 3 have
//! expired: discarded in order, counted, at most `N` a call) and peek at
//! capacities 1, 2, 3, 5 and 8, dropping either handle (the
//! other sees it abandoned) and splitting again once both are gone; after
//! every step `is_full`/`is_empty` must match the model exactly.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::spsc::flag::{Consumer, Producer, Ring};

#[path = "../../tests/common/fresh_model.rs"]
mod fresh_model;
use fresh_model::fresh_pop;

#[derive(Arbitrary, Debug)]
enum Op {
    Push,
    Pop,
    /// `try_pop_fresh_with`, treating `x % 3 == r` as expired.
    PopFresh(u8),
    Peek,
    DropProducer,
    DropConsumer,
    /// `try_split`: succeeds exactly when both handles are gone.
    Split,
}

#[derive(Arbitrary, Debug)]
enum FlagCap {
    One,
    Two,
    Three,
    Five,
    Eight,
}

#[derive(Arbitrary, Debug)]
struct Input {
    cap: FlagCap,
    ops: Vec<Op>,
}

type Handles<'r, const N: usize> = (Option<Producer<'r, u64, N>>, Option<Consumer<'r, u64, N>>);

fn run<const N: usize>(ops: &[Op]) {
    let ring: Ring<u64, N> = Ring::new();
    let (tx, rx) = ring.try_split().expect("a new ring splits");
    let mut handles: Handles<'_, N> = (Some(tx), Some(rx));
    let mut model: VecDeque<u64> = VecDeque::new();
    let mut next = 0u64;
    let mut expired = 0;
    for op in ops {
        match op {
            Op::Push => {
                if let Some(tx) = handles.0.as_mut() {
                    match tx.try_push(next) {
                        Ok(()) => {
                            assert!(model.len() < N, "pushed into a full ring");
                            model.push_back(next);
                        }
                        Err(full) => {
                            assert_eq!(model.len(), N, "refused with room left");
                            assert_eq!(full.into_inner(), next);
                        }
                    }
                    next += 1;
                }
            }
            Op::Pop => {
                if let Some(rx) = handles.1.as_mut() {
                    assert_eq!(rx.try_pop(), model.pop_front());
                }
            }
            Op::PopFresh(r) => {
                if let Some(rx) = handles.1.as_mut() {
                    let r = u64::from(*r % 3);
                    let mut late = Vec::new();
                    let got = rx.try_pop_fresh_with(|x: &u64| x % 3 == r, |x| late.push(x));
                    let (want, want_late) = fresh_pop(&mut model, |x| x % 3 == r, N);
                    assert_eq!((got, &late), (want, &want_late));
                    expired += late.len();
                }
            }
            Op::Peek => {
                if let Some(rx) = handles.1.as_mut() {
                    assert_eq!(rx.peek().copied(), model.front().copied());
                }
            }
            Op::DropProducer => {
                handles.0 = None;
            }
            Op::DropConsumer => {
                handles.1 = None;
            }
            Op::Split => {
                let both_gone = handles.0.is_none() && handles.1.is_none();
                match ring.try_split() {
                    Some((tx, rx)) => {
                        assert!(both_gone, "split while a handle lives");
                        handles = (Some(tx), Some(rx));
                    }
                    None => assert!(!both_gone, "no split after both handles went"),
                }
            }
        }
        assert_eq!(ring.expired(), expired);
        if let Some(tx) = handles.0.as_ref() {
            assert_eq!(tx.is_full(), model.len() == N);
            assert_eq!(tx.is_abandoned(), handles.1.is_none());
        }
        if let Some(rx) = handles.1.as_ref() {
            assert_eq!(rx.is_empty(), model.is_empty());
            assert_eq!(rx.is_abandoned(), handles.0.is_none());
        }
    }
}

fuzz_target!(|input: Input| {
    match input.cap {
        FlagCap::One => run::<1>(&input.ops),
        FlagCap::Two => run::<2>(&input.ops),
        FlagCap::Three => run::<3>(&input.ops),
        FlagCap::Five => run::<5>(&input.ops),
        FlagCap::Eight => run::<8>(&input.ops),
    }
});
