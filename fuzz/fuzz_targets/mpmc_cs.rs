//! The critical-section MPMC ring (`mpmc::cs::Ring`, with
//! `critical-section`'s std implementation), sequentially, against a
//! `VecDeque`: try_push, push_overwrite, try_pop, push_iter, drain, clear,
//! close and the pops and pushes of a closed ring, the blocking calls where
//! they cannot wait, len, counters and the high-water mark (exact below 16
//! slots) after every step, closed or not. Boxed items, so the sanitizer
//! sees any leak or double drop; `!Sync`, and some panic when the ring drops
//! them, which must still drop every other item. The model and driver are
//! `sluicegate_fuzz::mpmc`'s. With `marks`, the ring has watermarks (any
//! `low < high <= N`), and its level and transition count are checked
//! after every step too.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::mpmc::cs::{Marked, Ring};
use sluicegate_fuzz::mpmc::{run, Op};
use sluicegate_fuzz::{Cap, Item};

#[derive(Arbitrary, Debug)]
struct Input {
    cap: Cap,
    /// Watermarks, folded into `low < high <= N`.
    marks: Option<(u8, u8)>,
    ops: Vec<Op>,
}

/// `(low, high)` with `low < high <= n`, from any two bytes.
fn fold(n: usize, (a, b): (u8, u8)) -> (usize, usize) {
    let low = usize::from(a) % n;
    (low, low + 1 + usize::from(b) % (n - low))
}

fuzz_target!(|input: Input| {
    let ops = &input.ops;
    match (input.cap, input.marks) {
        (Cap::One, None) => run(Ring::<Item, 1>::new(), ops),
        (Cap::Two, None) => run(Ring::<Item, 2>::new(), ops),
        (Cap::Eight, None) => run(Ring::<Item, 8>::new(), ops),
        (Cap::One, Some(m)) => {
            let (low, high) = fold(1, m);
            run(Ring::<Item, 1, Marked>::with_watermarks(low, high), ops)
        }
        (Cap::Two, Some(m)) => {
            let (low, high) = fold(2, m);
            run(Ring::<Item, 2, Marked>::with_watermarks(low, high), ops)
        }
        (Cap::Eight, Some(m)) => {
            let (low, high) = fold(8, m);
            run(Ring::<Item, 8, Marked>::with_watermarks(low, high), ops)
        }
    }
});
