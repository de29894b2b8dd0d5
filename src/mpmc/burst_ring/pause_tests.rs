//! An operation stopped at each of its pause points while another context
//! runs random operations: every answer of the other context, `Busy` above
//! all, is the model's for a ring with that claim in progress; the stopped
//! operation's own answer after it resumes is the model's too; and the ring
//! is whole afterwards (nothing lost or duplicated, every slot usable).
//!
//! The stopped context is a thread held at the point ([`stop_at`]); this
//! thread plays the other contexts through the model's driver.

extern crate std;

use super::{
    BurstRing, Level, Marks, Moved, NoMarks, PopError, PushError, ReadChunk, Stop, WriteChunk,
};
// `splitmix` and the types above are what the model file reaches through `super::`.
use crate::sync::pause::{self, stop_at};
use crate::sync::{splitmix, Point};
use std::format;
use std::vec::Vec;

#[path = "../../../tests/common/burst_model.rs"]
mod burst_model;
use burst_model::{stop, Driver, Model, Why};

const N: usize = 4;
type R = BurstRing<u32, N, 1>;

/// The stopped operation: a push or pop of `k` items (a single `try_push`
/// or `try_pop` for 1), or an overwriting push.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Push(usize),
    Pop(usize),
    Overwrite,
}

/// What the stopped operation answered.
#[derive(Debug, PartialEq)]
enum Answer {
    Pushed(Moved),
    Popped(Vec<u32>, Option<Stop>),
    Overwrote(Result<Option<u32>, PushError<u32>>),
}

/// Items of the stopped operation, apart from the driver's.
const OWN: u32 = 1 << 30;

fn run(r: &R, op: Op) -> Answer {
    match op {
        Op::Push(1) => Answer::Pushed(match r.try_push(OWN) {
            Ok(()) => Moved {
                count: 1,
                stop: None,
            },
            Err(e) => Moved {
                count: 0,
                stop: Some(e.stop()),
            },
        }),
        Op::Push(k) => {
            let items: Vec<u32> = (OWN..OWN + k as u32).collect();
            Answer::Pushed(r.push_burst(&items))
        }
        Op::Pop(1) => match r.try_pop() {
            Ok(v) => Answer::Popped(std::vec![v], None),
            Err(e) => Answer::Popped(Vec::new(), Some(e.stop())),
        },
        Op::Pop(k) => {
            let mut out = std::vec![0; k];
            let m = r.pop_burst(&mut out);
            out.truncate(m.count);
            Answer::Popped(out, m.stop)
        }
        Op::Overwrite => Answer::Overwrote(r.push_overwrite(OWN)),
    }
}

/// What the model holds while `op` is stopped at `point`, and what `op`
/// answers once it resumes: `begin` applies its claim (if the point comes
/// after it), `finish` the rest, given the model at that moment.
struct Stopped {
    op: Op,
    point: Point,
    /// Positions the operation claimed from `prod` or `cons`, and the
    /// positions of an eviction's two claims.
    claimed: Vec<u64>,
    taken: Vec<u32>,
    evicted: Option<(u64, u32)>,
    /// The counter read before the point, for the points before a claim.
    seen: u64,
    run: usize,
}

impl Stopped {
    fn begin(op: Op, point: Point, m: &mut Model) -> Self {
        let mut s = Stopped {
            op,
            point,
            claimed: Vec::new(),
            taken: Vec::new(),
            evicted: None,
            seen: 0,
            run: 0,
        };
        let k = match op {
            Op::Push(k) | Op::Pop(k) => k,
            Op::Overwrite => 1,
        };
        match point {
            p if p == pause::BURST_PUSH_CHECKED => {
                s.seen = m.prod;
                s.run = m.push_run(k);
            }
            p if p == pause::BURST_POP_CHECKED => {
                s.seen = m.cons;
                s.run = m.pop_run(k);
            }
            p if p == pause::BURST_PUSH_CLAIMED || p == pause::BURST_PUSH_WRITTEN => {
                let n = m.push_run(k);
                s.claimed = m.claim_push(n);
            }
            p if p == pause::BURST_POP_CLAIMED || p == pause::BURST_POP_READ => {
                let n = m.pop_run(k);
                (s.claimed, s.taken) = m.claim_pop(n);
            }
            p if p == pause::BURST_EVICT_CHECKED => s.seen = m.prod,
            p if p == pause::BURST_EVICT_HELD => {
                (s.claimed, s.run) = hold_to_the_oldest(m);
            }
            p if p == pause::BURST_EVICT_CLAIMED || p == pause::BURST_EVICT_WRITTEN => {
                (s.claimed, s.run) = hold_to_the_oldest(m);
                let (at, old) = m.claim_pop(1);
                s.evicted = Some((at[0], old[0]));
            }
            p if p == pause::BURST_VOID_MARKED => {
                // The void made, the next position not yet claimed.
                let at = m.hold();
                assert!(m.pushing.remove(&at));
                m.voids.insert(at);
            }
            p if p == pause::BURST_VOID_CHECKED => s.seen = m.cons,
            p if p == pause::BURST_VOID_CLAIMED => {
                // The voids at the front claimed with the flag, not yet
                // flipped.
                while m.voids.remove(&m.cons) {
                    m.passing.insert(m.cons);
                    m.cons += 1;
                }
            }
            p if p == pause::BURST_VOID_PASSED => {
                // The voids at the front passed, their marks not yet
                // cleared.
                while m.voids.remove(&m.cons) {
                    m.clearing.insert(m.cons);
                    m.cons += 1;
                }
            }
            _ => unreachable!(),
        }
        s
    }

    /// The answer `op` must give, applying the rest of it to `m`.
    fn finish(self, m: &mut Model) -> Answer {
        let own: Vec<u32> = (OWN..OWN + 64).collect();
        match self.op {
            Op::Push(k) => {
                let n = match self.point {
                    p if p == pause::BURST_PUSH_CHECKED => {
                        if m.prod != self.seen || m.closed {
                            // Its CAS fails: the whole push runs now.
                            let (n, why) = m.push_burst(&own[..k]);
                            return Answer::Pushed(Moved {
                                count: n,
                                stop: why.map(stop),
                            });
                        }
                        let at = m.claim_push(self.run);
                        m.publish(&at, &own[..self.run]);
                        self.run
                    }
                    _ => {
                        m.publish(&self.claimed, &own[..self.claimed.len()]);
                        self.claimed.len()
                    }
                };
                // A short claim: the rest is pushed with claims of its own.
                let (more, why) = if n < k {
                    m.push_burst(&own[n..k])
                } else {
                    (0, None)
                };
                Answer::Pushed(Moved {
                    count: n + more,
                    stop: why.map(stop),
                })
            }
            Op::Pop(k) => {
                let taken = match self.point {
                    p if p == pause::BURST_POP_CHECKED => {
                        if m.cons != self.seen {
                            let (got, why) = m.pop_burst(k);
                            return Answer::Popped(got, why.map(stop));
                        }
                        let (at, got) = m.claim_pop(self.run);
                        m.consume(&at);
                        got
                    }
                    _ => {
                        m.consume(&self.claimed);
                        self.taken
                    }
                };
                // A short claim, or a pass of voids: the rest is popped with
                // claims of its own.
                if self.point == pause::BURST_VOID_CLAIMED {
                    m.passing.clear();
                }
                if self.point == pause::BURST_VOID_PASSED {
                    m.clearing.clear();
                }
                let (more, why) = m.pop_burst(k - taken.len());
                Answer::Popped([taken, more].concat(), why.map(stop))
            }
            Op::Overwrite => Answer::Overwrote(match self.point {
                // Its claim of `prod` succeeds only if `prod` did not move
                // (nor the close set its flag); either way it then does
                // what the model does from here.
                p if p == pause::BURST_EVICT_CHECKED => m.push_overwrite(OWN).map_err(refused),
                // Holding its position: the oldest is evicted if it is
                // still at the front, or the position becomes a void...
                p if p == pause::BURST_EVICT_HELD => m
                    .overwrite_holding(self.claimed[0], OWN, self.run as u64)
                    .map_err(refused),
                p if p == pause::BURST_VOID_MARKED => {
                    let next = m.claim_push(1)[0];
                    m.overwrite_holding(next, OWN, 1).map_err(refused)
                }
                p if p == pause::BURST_EVICT_CLAIMED || p == pause::BURST_EVICT_WRITTEN => {
                    let (at, old) = self.evicted.unwrap();
                    m.consume(&[at]);
                    m.publish(&self.claimed, &[OWN]);
                    m.evicting = false;
                    m.overwritten += 1;
                    Ok(Some(old))
                }
                p if p == pause::BURST_PUSH_CHECKED => {
                    if m.prod != self.seen || m.closed {
                        m.push_overwrite(OWN).map_err(refused)
                    } else {
                        let at = m.claim_push(1);
                        m.publish(&at, &[OWN]);
                        Ok(None)
                    }
                }
                _ => {
                    m.publish(&self.claimed, &[OWN]);
                    Ok(None)
                }
            }),
        }
    }
}

/// A `push_overwrite` up to its claim of the oldest position: it holds the
/// next position, and makes it a void while a pop holds its slot. Returns
/// the position held and how many voids it made.
fn hold_to_the_oldest(m: &mut Model) -> (Vec<u64>, usize) {
    let mut at = m.hold();
    let mut voids = 0;
    while at - m.n != m.cons {
        assert!(m.pushing.remove(&at));
        m.voids.insert(at);
        voids += 1;
        at = m.claim_push(1)[0];
    }
    (std::vec![at], voids)
}

/// The model's refusal of the stopped `push_overwrite`, as the ring's.
fn refused(why: Why) -> PushError<u32> {
    match why {
        Why::Closed => PushError::Closed(OWN),
        _ => PushError::Busy(OWN),
    }
}

/// What the scenario sets up besides its items.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Extra {
    Nothing,
    /// A read chunk holds the oldest item (the stopped overwrite makes a
    /// void in its slot); released at the end.
    HeldOldest,
    /// A void at the front (a write chunk dropped unfilled behind an item
    /// since popped), then the items.
    VoidFirst,
}

/// Sets the ring up (`offset` items pushed and popped, so that claims
/// straddle the end of the storage; then `fill` items), stops `op` at
/// `point` while the driver runs 40 random operations (closing the ring in
/// some seeds), checks the stopped operation's answer against the model,
/// then drains the ring and uses every slot once more.
fn scenario(op: Op, point: Point, start: usize, offset: usize, fill: usize, seed: u64) {
    scenario_with(op, point, start, offset, fill, seed, Extra::Nothing);
}

/// [`scenario`] with `extra` set up too.
fn scenario_with(
    op: Op,
    point: Point,
    start: usize,
    offset: usize,
    fill: usize,
    seed: u64,
    extra: Extra,
) {
    let ctx = format!(
        "{op:?} at {point:?}, start {start} + {offset}, {fill} items, {extra:?}, seed {seed}"
    );
    let r = R::with_start(start);
    let mut d = Driver::<N, 1>::new(N, seed);
    d.may_close = seed % 4 == 0;
    let setup: Vec<u32> = (0..(offset + fill) as u32).collect();
    d.next = setup.len() as u32;
    let mut out = std::vec![0; N];
    assert_eq!(r.push_burst(&setup[..offset]).count, offset, "{ctx}");
    d.m.push_burst(&setup[..offset]);
    assert_eq!(r.pop_burst(&mut out[..offset]).count, offset, "{ctx}");
    d.m.pop_burst(offset);
    if extra == Extra::VoidFirst {
        // A void behind an item, then the item popped: a chunk dropped
        // at the front would pass its void itself.
        assert_eq!(r.try_push(u32::MAX), Ok(()), "{ctx}");
        d.m.push_burst(&[u32::MAX]);
        drop(r.write_chunk(1).unwrap());
        let at = d.m.claim_push(1);
        d.m.drop_chunk(&at, &[], 0);
        assert_eq!(r.try_pop(), Ok(u32::MAX), "{ctx}");
        let _ = d.m.pop_burst(1);
    }
    assert_eq!(r.push_burst(&setup[offset..]).count, fill, "{ctx}");
    d.m.push_burst(&setup[offset..]);
    let held = (extra == Extra::HeldOldest).then(|| {
        let chunk = r.read_chunk(1).unwrap();
        let (at, items) = d.m.claim_pop(1);
        assert_eq!(chunk.get(0), Some(items[0]), "{ctx}");
        (chunk, at, items[0])
    });
    let mut stopped = None;
    let answer = stop_at(
        point,
        || run(&r, op),
        || {
            stopped = Some(Stopped::begin(op, point, &mut d.m));
            d.ops(&r, if cfg!(miri) { 12 } else { 40 }, &ctx);
            d.release_all();
        },
    );
    let want = stopped.unwrap().finish(&mut d.m);
    assert_eq!(answer, want, "{ctx}: the stopped operation's answer");
    d.check(&r, &ctx);
    if let Some((chunk, at, item)) = held {
        assert_eq!(chunk.get(0), Some(item), "{ctx}: the held item");
        chunk.release();
        d.m.consume(&at);
    }
    // Drain, checking each item; then every slot takes an item again.
    loop {
        let want = d.m.pop_burst(1);
        let got = r.try_pop();
        match (got, want) {
            (Ok(v), (w, _)) if w == [v] => {}
            (Err(PopError::Empty), (w, Some(Why::Empty))) if w.is_empty() => break,
            (Err(PopError::Closed), (w, Some(Why::Closed))) if w.is_empty() => break,
            (got, want) => panic!("{ctx}: draining: {got:?} against {want:?}"),
        }
    }
    if !d.m.closed {
        let again: Vec<u32> = (0..N as u32).collect();
        assert_eq!(r.push_burst(&again).count, N, "{ctx}: refill");
        assert_eq!(r.pop_burst(&mut out).count, N, "{ctx}: refill");
        assert_eq!(out, again, "{ctx}: refill");
    }
}

const PUSH_POINTS: [Point; 3] = [
    pause::BURST_PUSH_CHECKED,
    pause::BURST_PUSH_CLAIMED,
    pause::BURST_PUSH_WRITTEN,
];
const POP_POINTS: [Point; 3] = [
    pause::BURST_POP_CHECKED,
    pause::BURST_POP_CLAIMED,
    pause::BURST_POP_READ,
];
const EVICT_POINTS: [Point; 4] = [
    pause::BURST_EVICT_CHECKED,
    pause::BURST_EVICT_HELD,
    pause::BURST_EVICT_CLAIMED,
    pause::BURST_EVICT_WRITTEN,
];

/// Starts: position 0, and a lap before the counters wrap.
const STARTS: [usize; 2] = [0, (1 << (usize::BITS - 2)) - N];

fn seeds() -> u64 {
    if cfg!(miri) {
        1
    } else {
        8
    }
}

#[test]
fn a_stopped_push_makes_only_its_positions_busy() {
    for (start, offset, seed) in cases() {
        for point in PUSH_POINTS {
            for (k, fill) in [(1, 0), (1, N - 1), (3, 0), (3, 2), (N, 0)] {
                scenario(Op::Push(k), point, start, offset, fill, seed);
            }
        }
    }
}

#[test]
fn a_stopped_pop_makes_only_its_positions_busy() {
    for (start, offset, seed) in cases() {
        for point in POP_POINTS {
            for (k, fill) in [(1, 1), (1, N), (3, 2), (3, N), (N, N)] {
                scenario(Op::Pop(k), point, start, offset, fill, seed);
            }
        }
    }
}

#[test]
fn a_stopped_eviction_evicts_once_and_hides_only_its_position() {
    for (start, offset, seed) in cases() {
        for point in EVICT_POINTS {
            scenario(Op::Overwrite, point, start, offset, N, seed);
        }
        for point in PUSH_POINTS {
            scenario(Op::Overwrite, point, start, offset, N - 1, seed);
        }
    }
}

/// A `push_overwrite` stopped after marking a void in the slot a read
/// chunk holds, its flag still set, and before its claim of `cons`: the
/// others see it as the model says (pushes busy, pops pass the void once it
/// is at the front), and it then stores its item, evicting the oldest item
/// not held. The chunk's item is intact.
#[test]
fn a_stopped_void_maker_hides_only_its_positions() {
    for (start, offset, seed) in cases() {
        for point in [
            pause::BURST_EVICT_CHECKED,
            pause::BURST_VOID_MARKED,
            pause::BURST_EVICT_HELD,
            pause::BURST_EVICT_CLAIMED,
        ] {
            scenario_with(
                Op::Overwrite,
                point,
                start,
                offset,
                N,
                seed,
                Extra::HeldOldest,
            );
        }
    }
}

/// A pop stopped while it passes a void at the front: before its claim of
/// `cons`, after it (the front held by the pass flag: the other pops answer
/// busy), and after the flips and the move of `cons` (the flag kept, and
/// the void's slot held until its mark is cleared: the next lap's pushes
/// there answer busy, the full test counts the void as passed).
#[test]
fn a_stopped_pass_of_voids_hides_only_their_slots() {
    for (start, offset, seed) in cases() {
        for point in [
            pause::BURST_VOID_CHECKED,
            pause::BURST_VOID_CLAIMED,
            pause::BURST_VOID_PASSED,
        ] {
            for (k, fill) in [(1, 1), (1, N - 1), (2, 2)] {
                scenario_with(
                    Op::Pop(k),
                    point,
                    start,
                    offset,
                    fill,
                    seed,
                    Extra::VoidFirst,
                );
            }
        }
    }
}

/// Every start, with claims from the storage's first slot and straddling
/// its end, for each seed.
fn cases() -> impl Iterator<Item = (usize, usize, u64)> {
    // Under Miri (minutes per hundred threads): the start before the wrap,
    // claims straddling the storage's end.
    let starts = if cfg!(miri) {
        &STARTS[1..]
    } else {
        &STARTS[..]
    };
    starts
        .iter()
        .copied()
        .flat_map(|start| [N - 1, 0].map(move |offset| (start, offset)))
        .take(if cfg!(miri) { 1 } else { 4 })
        .flat_map(|(start, offset)| (0..seeds()).map(move |seed| (start, offset, seed)))
}

/// Marks 1 and 2, one item in. A push that raises the level is stopped
/// between its reading of the count (2) and its CAS while a pop takes the
/// count back to 1 (finding the level `Normal`, it does nothing). Resumed,
/// the raise reads the count again and lowers the level itself.
#[test]
fn a_stopped_raise_reads_again_after_a_pop() {
    let ring: BurstRing<u32, 4, 1, super::Marked> = BurstRing::with_watermarks(1, 2);
    ring.try_push(0).unwrap();
    stop_at(
        pause::MPMC_MARKS_READ,
        || ring.try_push(1).unwrap(),
        || {
            assert_eq!(ring.level(), Level::Normal);
            assert_eq!(ring.try_pop(), Ok(0));
            assert_eq!(ring.level(), Level::Normal);
        },
    );
    assert_eq!(ring.len(), 1);
    assert_eq!(ring.level(), Level::Normal);
    assert_eq!(
        ring.stats().transitions,
        2,
        "raised, then lowered by the same push"
    );
}

/// Marks 1 and 2, two items in, `High`. A pop that lowers the level is
/// stopped between its reading of the count (1) and its CAS while a push
/// takes the count back to 2 (finding the level `High`, it does nothing).
/// Resumed, the lowering reads the count again and raises the level itself.
#[test]
fn a_stopped_lowering_reads_again_after_a_push() {
    let ring: BurstRing<u32, 4, 1, super::Marked> = BurstRing::with_watermarks(1, 2);
    ring.push_burst(&[0, 1]);
    assert_eq!(ring.level(), Level::High);
    stop_at(
        pause::MPMC_MARKS_READ,
        || ring.try_pop().unwrap(),
        || {
            assert_eq!(ring.try_push(2), Ok(()));
            assert_eq!(ring.level(), Level::High);
        },
    );
    assert_eq!(ring.len(), 2);
    assert_eq!(ring.level(), Level::High);
    assert_eq!(
        ring.stats().transitions,
        3,
        "lowered, then raised by the same pop"
    );
}

/// A pop that waits because another pop is passing voids is woken when
/// the pass ends: the item behind the voids had its own wake spent on it.
/// Stopped mid-pass (after the flag's CAS), a `try_pop` leaves the waiter
/// busy; when it resumes and takes 7, 8 is still in the ring.
#[cfg(feature = "async")]
#[test]
fn a_pop_waiting_behind_a_pass_of_voids_is_woken() {
    use crate::wait::pause_tests::Count;
    use core::future::Future;
    use core::task::{Context, Poll};
    use std::boxed::Box;

    let ring: BurstRing<u32, 8, 1> = BurstRing::new();
    // A void at the front: behind an item, the item popped.
    ring.try_push(0).unwrap();
    drop(ring.write_chunk(1).unwrap());
    assert_eq!(ring.try_pop(), Ok(0));
    ring.try_push(7).unwrap();
    ring.try_push(8).unwrap();
    let (count, waker) = Count::waker();
    let mut waiter = Box::pin(ring.pop());
    let passer = stop_at(
        pause::BURST_VOID_CLAIMED,
        || ring.try_pop(),
        || {
            let mut cx = Context::from_waker(&waker);
            assert!(
                waiter.as_mut().poll(&mut cx).is_pending(),
                "busy behind the pass"
            );
        },
    );
    assert_eq!(passer, Ok(7));
    assert_eq!(ring.len(), 1, "8 is still in the ring");
    assert_eq!(count.wakes(), 1, "the end of the pass wakes the waiter");
    let mut cx = Context::from_waker(&waker);
    assert_eq!(waiter.as_mut().poll(&mut cx), Poll::Ready(Some(8)));
}
