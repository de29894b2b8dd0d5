//! The MPMC ring (with each free pool: `Ring`, `SmallRing`, `FreeBits`),
//! sequentially, against a `VecDeque`: try_push,
//! push_overwrite, try_pop, push_iter, drain, clear, close and the pops and
//! pushes of a closed ring, the blocking calls where they cannot wait, len,
//! counters and (exact below 16 slots until a close) the high-water mark,
//! from arbitrary starting positions (so every wrap point is reached).
//! Boxed items, so the sanitizer sees any leak or double drop; `!Sync`, and
//! some panic when the ring's `Drop` drops them, which must still drop every
//! other item. With `marks`, the `FreeIndices` ring has watermarks and the
//! model checks its level and transitions after every step. The model and
//! driver are `sluicegate_fuzz::mpmc`'s.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::mpmc::{FreeBits, FreeIndices, Marked, Ring, SmallRing};
use sluicegate_fuzz::mpmc::{run, Op};
use sluicegate_fuzz::{Cap, Item, Pool, Start};

/// The `FreeIndices` ring with watermarks.
type MarkedRing<const N: usize> = Ring<Item, N, FreeIndices<N>, Marked>;

#[derive(Arbitrary, Debug)]
struct Input {
    pool: Pool,
    cap: Cap,
    start: Start,
    /// Watermarks on the `FreeIndices` ring, folded into `low < high <= N`.
    marks: Option<(u8, u8)>,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let start = input.start.position();
    let ops = &input.ops;
    if let (Pool::Indices, Some((low, high))) = (input.pool, input.marks) {
        let fold = |n: usize| {
            let high = 1 + high as usize % n;
            (low as usize % high, high)
        };
        return match input.cap {
            Cap::One => {
                let (low, high) = fold(1);
                run(
                    MarkedRing::<1>::with_start_and_watermarks(start, low, high),
                    ops,
                )
            }
            Cap::Two => {
                let (low, high) = fold(2);
                run(
                    MarkedRing::<2>::with_start_and_watermarks(start, low, high),
                    ops,
                )
            }
            Cap::Eight => {
                let (low, high) = fold(8);
                run(
                    MarkedRing::<8>::with_start_and_watermarks(start, low, high),
                    ops,
                )
            }
        };
    }
    match (input.pool, input.cap) {
        (Pool::Indices, Cap::One) => run(Ring::<Item, 1>::with_start(start), ops),
        (Pool::Indices, Cap::Two) => run(Ring::<Item, 2>::with_start(start), ops),
        (Pool::Indices, Cap::Eight) => run(Ring::<Item, 8>::with_start(start), ops),
        (Pool::Mask, Cap::One) => run(SmallRing::<Item, 1>::with_start(start), ops),
        (Pool::Mask, Cap::Two) => run(SmallRing::<Item, 2>::with_start(start), ops),
        (Pool::Mask, Cap::Eight) => run(SmallRing::<Item, 8>::with_start(start), ops),
        (Pool::Bits, Cap::One) => run(Ring::<Item, 1, FreeBits<1>>::with_start(start), ops),
        (Pool::Bits, Cap::Two) => run(Ring::<Item, 2, FreeBits<1>>::with_start(start), ops),
        (Pool::Bits, Cap::Eight) => run(Ring::<Item, 8, FreeBits<1>>::with_start(start), ops),
        (Pool::Bits64, _) => run(Ring::<Item, 64, FreeBits<2>>::with_start(start), ops),
    }
});
