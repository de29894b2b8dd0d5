//! The critical-section MPMC ring (`mpmc::cs::Ring`, with
//! `critical-section`'s std implementation), sequentially, against a
//! `VecDeque`: try_push, push_overwrite, try_pop, push_iter, drain, clear,
//! close and the pops and pushes of a closed ring, the blocking calls where
//! they cannot wait, len, counters and the high-water mark (exact below 16
//! slots) after every step, closed or not. Boxed items, so the sanitizer
//! sees any leak or double drop; `!Sync`, and some panic when the ring drops
//! them, which must still drop every other item. The model and driver are
//! `sluicegate_fuzz::mpmc`'s.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::mpmc::cs::Ring;
use sluicegate_fuzz::mpmc::{run, Op};
use sluicegate_fuzz::{Cap, Item};

#[derive(Arbitrary, Debug)]
struct Input {
    cap: Cap,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    match input.cap {
        Cap::One => run(Ring::<Item, 1>::new(), &input.ops),
        Cap::Two => run(Ring::<Item, 2>::new(), &input.ops),
        Cap::Eight => run(Ring::<Item, 8>::new(), &input.ops),
    }
});
