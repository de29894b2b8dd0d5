//! Instructions per operation, sluicegate against heapless, by one harness.
//!
//! QEMU runs with `-icount`, so SysTick advances by a fixed amount per
//! executed instruction; [`fw::Clock`] measures that ratio with a countdown
//! loop of known length. Each figure times `K` calls of a small
//! `#[inline(never)]` function around one operation, through a function
//! pointer, `ROUNDS` times, and subtracts the same loop calling an empty
//! function (`mov r0, r1; bx lr`). So a figure is the operation's own
//! instructions, including its share of call/return and argument set-up
//! beyond an empty call, identical for both libraries. The limiter rows have
//! no heapless counterpart.
//!
//! Each figure is one line `cost <board> <implementation> <operation>
//! <instructions>` (see `report`); `ci/qemu.sh` builds its tables from them.
#![no_std]
#![no_main]

use core::hint::black_box;

use cortex_m_rt::entry;
use fw::{hprintln, Clock};
use heapless::spsc::Queue;
use sluicegate::limit::{Limiter, LimiterConfig, Permit};
use sluicegate::mpmc::cs::Marks;
use sluicegate::spsc::{Marked, Overwrite, Reject, Ring};

/// Calls per timed loop.
const K: u32 = 128;
/// Timed loops per figure.
const ROUNDS: u32 = 16;
/// Ring capacity (heapless's `Queue<_, 256>` holds 255).
const CAP: usize = 256;

/// Times `k` calls of `f` (through a pointer the optimiser cannot see).
#[inline(never)]
fn timed<S>(s: &mut S, f: fn(&mut S, u32) -> u32, k: u32) -> u32 {
    let f = black_box(f);
    let k = black_box(k);
    let t0 = fw::now();
    for i in 0..k {
        black_box(f(s, black_box(i)));
    }
    fw::ticks(t0, fw::now())
}

#[inline(never)]
fn empty<S>(_: &mut S, v: u32) -> u32 {
    v
}

/// Timed ticks of an operation and of the empty call, summed over rounds.
#[derive(Default, Clone, Copy)]
struct Acc {
    op: u64,
    base: u64,
    calls: u32,
}

impl Acc {
    fn add<S>(&mut self, s: &mut S, f: fn(&mut S, u32) -> u32) {
        self.add_k(s, f, K);
    }
    /// `k` calls instead of `K` (a ring of fewer than `K` slots).
    fn add_k<S>(&mut self, s: &mut S, f: fn(&mut S, u32) -> u32, k: u32) {
        self.add_items(s, f, k, 1);
    }
    /// `k` calls that each move `items` items: the figure is per item (net
    /// of one empty call per call).
    fn add_items<S>(&mut self, s: &mut S, f: fn(&mut S, u32) -> u32, k: u32, items: u32) {
        self.base += timed(s, empty::<S>, k) as u64;
        self.op += timed(s, f, k) as u64;
        self.calls += k * items;
    }
    fn x10(&self, clock: &Clock) -> i64 {
        clock.insns_x10(self.op as i64 - self.base as i64, self.calls)
    }
}

struct Fig(i64);
impl core::fmt::Display for Fig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.0 / 10, self.0.rem_euclid(10))
    }
}

/// Prints one figure as `cost <board> <implementation> <operation>
/// <instructions>`; returns false if it is implausible (not positive).
fn report(clock: &Clock, implementation: &str, op: &str, acc: Acc) -> bool {
    hprintln!(
        "cost {} {} {} {}",
        fw::ID,
        implementation,
        op,
        Fig(acc.x10(clock))
    );
    acc.x10(clock) > 0
}

/// The four figures of [`SpscFigs`] for one implementation.
fn report_ops(clock: &Clock, implementation: &str, f: &SpscFigs) -> bool {
    report(clock, implementation, "try_push", f.push)
        & report(clock, implementation, "try_pop", f.pop)
        & report(clock, implementation, "try_push_full", f.push_full)
        & report(clock, implementation, "try_pop_empty", f.pop_empty)
}

// --- sluicegate SPSC, Reject -------------------------------------------------

struct SgSpsc<'a, P: sluicegate::spsc::Policy> {
    tx: sluicegate::spsc::Producer<'a, u32, CAP, P>,
    rx: sluicegate::spsc::Consumer<'a, u32, CAP, P>,
}

fn sg_try_push<P: sluicegate::spsc::Policy>(s: &mut SgSpsc<'_, P>, v: u32) -> u32 {
    s.tx.try_push(v).is_ok() as u32
}
fn sg_try_pop<P: sluicegate::spsc::Policy>(s: &mut SgSpsc<'_, P>, _: u32) -> u32 {
    s.rx.try_pop().unwrap_or(0)
}
fn sg_push_overwrite(s: &mut SgSpsc<'_, Overwrite>, v: u32) -> u32 {
    s.tx.push_overwrite(v).into_item().unwrap_or(0)
}

// --- sluicegate SPSC, a flag per slot -----------------------------------------

struct SgFlag<'a> {
    tx: sluicegate::spsc::flag::Producer<'a, u32, CAP>,
    rx: sluicegate::spsc::flag::Consumer<'a, u32, CAP>,
}

fn flag_try_push(s: &mut SgFlag<'_>, v: u32) -> u32 {
    s.tx.try_push(v).is_ok() as u32
}
fn flag_try_pop(s: &mut SgFlag<'_>, _: u32) -> u32 {
    s.rx.try_pop().unwrap_or(0)
}

// --- heapless SPSC -----------------------------------------------------------

struct HlSpsc<'a> {
    tx: heapless::spsc::Producer<'a, u32>,
    rx: heapless::spsc::Consumer<'a, u32>,
}

fn hl_enqueue(s: &mut HlSpsc<'_>, v: u32) -> u32 {
    s.tx.enqueue(v).is_ok() as u32
}
fn hl_dequeue(s: &mut HlSpsc<'_>, _: u32) -> u32 {
    s.rx.dequeue().unwrap_or(0)
}

#[derive(Default)]
struct SpscFigs {
    push: Acc,
    pop: Acc,
    push_full: Acc,
    pop_empty: Acc,
}

/// Push `K` into an empty ring, pop them, `ROUNDS` times; then the full and
/// empty cases.
fn spsc_figs<S>(
    s: &mut S,
    fill: usize,
    push: fn(&mut S, u32) -> u32,
    pop: fn(&mut S, u32) -> u32,
) -> SpscFigs {
    let mut f = SpscFigs::default();
    for _ in 0..ROUNDS {
        f.push.add(s, push);
        f.pop.add(s, pop);
        f.pop_empty.add(s, pop);
    }
    for i in 0..fill {
        push(s, i as u32);
    }
    for _ in 0..ROUNDS {
        f.push_full.add(s, push);
    }
    for _ in 0..fill {
        pop(s, 0);
    }
    f
}

#[inline(never)]
fn spsc_reject(clock: &Clock) -> bool {
    let mut ring: Ring<u32, CAP, Reject> = Ring::new();
    let (tx, rx) = ring.split();
    let ours = spsc_figs(&mut SgSpsc { tx, rx }, CAP, sg_try_push, sg_try_pop);
    let mut q: Queue<u32, CAP> = Queue::new();
    let (tx, rx) = q.split();
    let theirs = spsc_figs(&mut HlSpsc { tx, rx }, CAP - 1, hl_enqueue, hl_dequeue);
    let mut ring: sluicegate::spsc::flag::Ring<u32, CAP> = sluicegate::spsc::flag::Ring::new();
    let (tx, rx) = ring.split();
    let flag = spsc_figs(&mut SgFlag { tx, rx }, CAP, flag_try_push, flag_try_pop);
    // Watermarks the measured pushes and pops never cross (they keep 0 or
    // 1 item): the price of the marks on a push or pop that crosses none.
    let mut ring: Ring<u32, CAP, Marked> = Ring::with_watermarks(CAP / 4, 3 * CAP / 4);
    let (tx, rx) = ring.split();
    let marked = spsc_figs(&mut SgSpsc { tx, rx }, CAP, sg_try_push, sg_try_pop);
    report_ops(clock, "sluicegate-spsc", &ours)
        & report_ops(clock, "sluicegate-spsc-marked", &marked)
        & report_ops(clock, "sluicegate-spsc-flag", &flag)
        & report_ops(clock, "heapless-spsc", &theirs)
}

#[inline(never)]
fn spsc_overwrite(clock: &Clock) -> bool {
    let mut ring: Ring<u32, CAP, Overwrite> = Ring::new();
    let (tx, rx) = ring.split();
    let s = &mut SgSpsc { tx, rx };
    let figs = spsc_figs(s, CAP, sg_push_overwrite, sg_try_pop);
    let imp = "sluicegate-spsc-overwrite";
    report(clock, imp, "push_overwrite", figs.push)
        & report(clock, imp, "push_overwrite_evict", figs.push_full)
        & report(clock, imp, "try_pop", figs.pop)
        & report(clock, imp, "try_pop_empty", figs.pop_empty)
}

// --- MPMC: sluicegate (SCQ) against heapless (Vyukov) ------------------------

/// MPMC capacity (heapless's default `u8` index allows at most 128).
const MPMC_CAP: usize = 128;

fn sg_mpmc_push(q: &mut &sluicegate::mpmc::Ring<u32, MPMC_CAP>, v: u32) -> u32 {
    q.try_push(v).is_ok() as u32
}
fn sg_mpmc_pop(q: &mut &sluicegate::mpmc::Ring<u32, MPMC_CAP>, _: u32) -> u32 {
    q.try_pop().unwrap_or(0)
}
fn sg_mpmc_overwrite(q: &mut &sluicegate::mpmc::Ring<u32, MPMC_CAP>, v: u32) -> u32 {
    q.push_overwrite(v).into_item().unwrap_or(0)
}
/// `mpmc::SmallRing`'s ring with watermarks `N - 1` and `N` (the small
/// ring: the micro:bit's 16 KiB hold one more 128-slot ring only just):
/// in the `try_push` and `try_pop` rows each timed loop fills the ring and
/// empties it, so its last push raises the level and its first pop lowers
/// it; the `_partial` rows stop one item short, so that every call tests
/// the marks and none crosses them.
type SgMarked =
    sluicegate::mpmc::Ring<u32, MASK_CAP, sluicegate::mpmc::FreeMask, sluicegate::mpmc::Marked>;

static SG_MARKED: SgMarked = SgMarked::with_watermarks(MASK_CAP - 1, MASK_CAP);

fn sg_marked_push(q: &mut &SgMarked, v: u32) -> u32 {
    q.try_push(v).is_ok() as u32
}
fn sg_marked_pop(q: &mut &SgMarked, _: u32) -> u32 {
    q.try_pop().unwrap_or(0)
}
fn cs_mpmc_push<M: Marks>(q: &mut &sluicegate::mpmc::cs::Ring<u32, MPMC_CAP, M>, v: u32) -> u32 {
    q.try_push(v).is_ok() as u32
}
fn cs_mpmc_pop<M: Marks>(q: &mut &sluicegate::mpmc::cs::Ring<u32, MPMC_CAP, M>, _: u32) -> u32 {
    q.try_pop().unwrap_or(0)
}
fn cs_mpmc_overwrite<M: Marks>(
    q: &mut &sluicegate::mpmc::cs::Ring<u32, MPMC_CAP, M>,
    v: u32,
) -> u32 {
    q.push_overwrite(v).into_item().unwrap_or(0)
}
/// The MPMC ring with the bitmap free pool, at the same capacity as the others.
type BitsRing =
    sluicegate::mpmc::Ring<u32, MPMC_CAP, sluicegate::mpmc::FreeBits<{ MPMC_CAP / 32 }>>;

/// The one-word free pool's capacity limit on Cortex-M (`usize::BITS`).
const MASK_CAP: usize = 32;

fn mask_mpmc_push(q: &mut &sluicegate::mpmc::SmallRing<u32, MASK_CAP>, v: u32) -> u32 {
    q.try_push(v).is_ok() as u32
}
fn mask_mpmc_pop(q: &mut &sluicegate::mpmc::SmallRing<u32, MASK_CAP>, _: u32) -> u32 {
    q.try_pop().unwrap_or(0)
}
fn mask_mpmc_overwrite(q: &mut &sluicegate::mpmc::SmallRing<u32, MASK_CAP>, v: u32) -> u32 {
    q.push_overwrite(v).into_item().unwrap_or(0)
}
fn bits_mpmc_push(q: &mut &BitsRing, v: u32) -> u32 {
    q.try_push(v).is_ok() as u32
}
fn bits_mpmc_pop(q: &mut &BitsRing, _: u32) -> u32 {
    q.try_pop().unwrap_or(0)
}
fn bits_mpmc_overwrite(q: &mut &BitsRing, v: u32) -> u32 {
    q.push_overwrite(v).into_item().unwrap_or(0)
}
fn hl_mpmc_push(q: &mut &heapless::mpmc::Queue<u32, MPMC_CAP>, v: u32) -> u32 {
    q.enqueue(v).is_ok() as u32
}
fn hl_mpmc_pop(q: &mut &heapless::mpmc::Queue<u32, MPMC_CAP>, _: u32) -> u32 {
    q.dequeue().unwrap_or(0)
}

/// MPMC figures: the four of [`SpscFigs`] plus the full and empty cases once
/// they have lasted (see [`mpmc_figs`]).
#[derive(Default)]
struct MpmcFigs {
    ops: SpscFigs,
    push_full_steady: Acc,
    pop_empty_steady: Acc,
    /// `push_overwrite` on a full ring (evicts), where the ring has one.
    overwrite_evict: Acc,
    /// Pushes that fill the empty ring to one item short of full, and the
    /// pops that empty it again: on a ring with watermarks `cap - 1` and
    /// `cap`, calls that test the marks and cross none.
    push_partial: Acc,
    pop_partial: Acc,
}

/// Push `K` (of `cap` slots), pop them, `ROUNDS` times; then full and empty.
///
/// SCQ's index rings keep a `threshold` of `3N - 1` misses that every
/// successful enqueue resets: until a full or empty ring has refused that many
/// calls, each refusal takes the full miss path (take a position, mark its
/// entry, move `tail` up); after it, a refusal is one load. The plain figures
/// average refusals right after activity (each round of `K` empty pops
/// follows pushes and pops; the full pushes follow filling, and the first
/// `3N - 1` of their `ROUNDS * K` take the miss path); the `steady` ones come
/// after `3N` further untimed refusals, all past the threshold. heapless has
/// one path, measured the same way.
/// With `overwrite`, the evicting `push_overwrite` on the full ring last.
/// First of all, the rows of a ring filled to one short of full
/// ([`MpmcFigs::push_partial`]).
fn mpmc_figs<S>(
    cap: usize,
    s: &mut S,
    push: fn(&mut S, u32) -> u32,
    pop: fn(&mut S, u32) -> u32,
    overwrite: Option<fn(&mut S, u32) -> u32>,
) -> MpmcFigs {
    let mut f = MpmcFigs::default();
    for _ in 0..ROUNDS {
        f.push_partial.add_k(s, push, cap as u32 - 1);
        f.pop_partial.add_k(s, pop, cap as u32 - 1);
        // One more item in and out, untimed: each round moves the ring's
        // positions on by `cap`, so the rows below start where they would
        // without these (a burst's run stays within its bitmap words).
        push(s, 0);
        pop(s, 0);
    }
    for _ in 0..ROUNDS {
        f.ops.push.add_k(s, push, cap as u32);
        f.ops.pop.add_k(s, pop, cap as u32);
        f.ops.pop_empty.add_k(s, pop, cap as u32);
    }
    for _ in 0..3 * cap {
        pop(s, 0); // past the threshold
    }
    for _ in 0..ROUNDS {
        f.pop_empty_steady.add_k(s, pop, cap as u32);
    }
    for i in 0..cap {
        push(s, i as u32);
    }
    for _ in 0..ROUNDS {
        f.ops.push_full.add_k(s, push, cap as u32);
    }
    for _ in 0..3 * cap {
        push(s, 0); // past the threshold (already, after `ROUNDS * K`)
    }
    for _ in 0..ROUNDS {
        f.push_full_steady.add_k(s, push, cap as u32);
    }
    if let Some(overwrite) = overwrite {
        for _ in 0..ROUNDS {
            f.overwrite_evict.add_k(s, overwrite, cap as u32);
        }
    }
    for _ in 0..cap {
        pop(s, 0);
    }
    f
}

static SG_MPMC: sluicegate::mpmc::Ring<u32, MPMC_CAP> = sluicegate::mpmc::Ring::new();
// heapless 0.9 deprecates `mpmc::Queue::new` because the queue is not
// lock-free (a context suspended mid-operation stalls the others, heapless
// #583); it is still the Vyukov queue this table compares against.
#[expect(deprecated)]
static HL_MPMC: heapless::mpmc::Queue<u32, MPMC_CAP> = heapless::mpmc::Queue::new();

static CS_MPMC: sluicegate::mpmc::cs::Ring<u32, MPMC_CAP> = sluicegate::mpmc::cs::Ring::new();

/// With watermarks the measured pushes and pops never cross (they keep 0
/// or 1 item): the price of the marks on a push or pop that crosses none.
static CS_MARKED: sluicegate::mpmc::cs::Ring<u32, MPMC_CAP, sluicegate::mpmc::cs::Marked> =
    sluicegate::mpmc::cs::Ring::with_watermarks(MPMC_CAP / 4, 3 * MPMC_CAP / 4);

static MASK_MPMC: sluicegate::mpmc::SmallRing<u32, MASK_CAP> = sluicegate::mpmc::SmallRing::new();

static BITS_MPMC: BitsRing = BitsRing::new();

/// The rows of pushes and pops on a ring never filled ([`MpmcFigs::push_partial`]).
fn report_partial(clock: &Clock, implementation: &str, f: &MpmcFigs) -> bool {
    report(clock, implementation, "try_push_partial", f.push_partial)
        & report(clock, implementation, "try_pop_partial", f.pop_partial)
}

/// The MPMC rows of one implementation.
fn report_mpmc(clock: &Clock, implementation: &str, f: &MpmcFigs, evicts: bool) -> bool {
    let mut ok = report_ops(clock, implementation, &f.ops)
        & report(
            clock,
            implementation,
            "try_push_full_steady",
            f.push_full_steady,
        )
        & report(
            clock,
            implementation,
            "try_pop_empty_steady",
            f.pop_empty_steady,
        );
    if evicts {
        ok &= report(
            clock,
            implementation,
            "push_overwrite_evict",
            f.overwrite_evict,
        );
    }
    ok
}

#[inline(never)]
fn mpmc(clock: &Clock) -> bool {
    let scq = mpmc_figs(
        MPMC_CAP,
        &mut &SG_MPMC,
        sg_mpmc_push,
        sg_mpmc_pop,
        Some(sg_mpmc_overwrite),
    );
    let scq_marked = mpmc_figs(
        MASK_CAP,
        &mut &SG_MARKED,
        sg_marked_push,
        sg_marked_pop,
        None,
    );
    let cs = mpmc_figs(
        MPMC_CAP,
        &mut &CS_MPMC,
        cs_mpmc_push,
        cs_mpmc_pop,
        Some(cs_mpmc_overwrite),
    );
    let cs_marked = mpmc_figs(
        MPMC_CAP,
        &mut &CS_MARKED,
        cs_mpmc_push,
        cs_mpmc_pop,
        Some(cs_mpmc_overwrite),
    );
    let mask = mpmc_figs(
        MASK_CAP,
        &mut &MASK_MPMC,
        mask_mpmc_push,
        mask_mpmc_pop,
        Some(mask_mpmc_overwrite),
    );
    let bits = mpmc_figs(
        MPMC_CAP,
        &mut &BITS_MPMC,
        bits_mpmc_push,
        bits_mpmc_pop,
        Some(bits_mpmc_overwrite),
    );
    let theirs = mpmc_figs(MPMC_CAP, &mut &HL_MPMC, hl_mpmc_push, hl_mpmc_pop, None);
    // Each evicting push replaced one item: every ring is empty again.
    let drained = SG_MPMC.is_empty()
        && SG_MARKED.is_empty()
        && SG_MARKED.stats().transitions % 2 == 0
        && CS_MPMC.is_empty()
        && CS_MARKED.is_empty()
        && MASK_MPMC.is_empty()
        && BITS_MPMC.is_empty()
        && HL_MPMC.dequeue().is_none();
    drained
        & report_mpmc(clock, "sluicegate-mpmc", &scq, true)
        & report_ops(clock, "sluicegate-mpmc-mask-marked", &scq_marked.ops)
        & report_partial(clock, "sluicegate-mpmc-mask-marked", &scq_marked)
        & report_partial(clock, "sluicegate-mpmc-mask", &mask)
        & report_mpmc(clock, "sluicegate-mpmc-cs", &cs, true)
        & report_ops(clock, "sluicegate-mpmc-cs-marked", &cs_marked.ops)
        & report_mpmc(clock, "sluicegate-mpmc-mask", &mask, true)
        & report_mpmc(clock, "sluicegate-mpmc-bits", &bits, true)
        & report_mpmc(clock, "heapless-mpmc", &theirs, false)
}

// --- MPMC bursts: BurstRing, one claim and one commit per burst -------------

/// The burst ring at the other MPMC rows' capacity (`W = N / 32`).
type Burst = sluicegate::mpmc::BurstRing<u32, MPMC_CAP, { MPMC_CAP / 32 }>;

static BURST_RING: Burst = Burst::new();

/// Items per burst: heapless moves them one operation each.
const BURST: usize = 32;

/// With watermarks `N - 1` and `N`, as [`SgMarked`]: a raise and a
/// lowering per timed loop in the `try_push` and `try_pop` rows, none in
/// the `_partial` rows.
type BurstMarked = sluicegate::mpmc::BurstRing<
    u32,
    MPMC_CAP,
    { MPMC_CAP / 32 },
    sluicegate::mpmc::burst_ring::Marked,
>;

static BURST_MARKED: BurstMarked = BurstMarked::with_watermarks(MPMC_CAP - 1, MPMC_CAP);

fn burst_marked_push(q: &mut &BurstMarked, v: u32) -> u32 {
    q.try_push(v).is_ok() as u32
}
fn burst_marked_pop(q: &mut &BurstMarked, _: u32) -> u32 {
    q.try_pop().unwrap_or(0)
}

fn burst_ring_push(q: &mut &Burst, v: u32) -> u32 {
    q.try_push(v).is_ok() as u32
}
fn burst_ring_pop(q: &mut &Burst, _: u32) -> u32 {
    q.try_pop().unwrap_or(0)
}
fn burst_ring_overwrite(q: &mut &Burst, v: u32) -> u32 {
    match q.push_overwrite(v) {
        Ok(old) => old.unwrap_or(0),
        Err(e) => e.into_inner(),
    }
}

/// A burst's source and destination buffers beside the ring.
struct Bursts {
    ring: &'static Burst,
    items: [u32; BURST],
    out: [u32; BURST],
}

fn burst_ring_push_burst(s: &mut Bursts, _: u32) -> u32 {
    s.ring.push_burst(&s.items).count as u32
}
fn burst_ring_pop_burst(s: &mut Bursts, _: u32) -> u32 {
    s.ring.pop_burst(&mut s.out).count as u32
}

/// The single-item rows of the burst ring (as the other MPMC rings'), then
/// bursts of [`BURST`]: each timed loop pushes `MPMC_CAP / BURST` bursts
/// into the empty ring (filling it) and pops them again, and the figure is
/// per item.
#[inline(never)]
fn burst_ring(clock: &Clock) -> bool {
    let single = mpmc_figs(
        MPMC_CAP,
        &mut &BURST_RING,
        burst_ring_push,
        burst_ring_pop,
        Some(burst_ring_overwrite),
    );
    let s = &mut Bursts {
        ring: &BURST_RING,
        items: core::array::from_fn(|i| i as u32),
        out: [0; BURST],
    };
    let (mut push, mut pop) = (Acc::default(), Acc::default());
    let per_loop = (MPMC_CAP / BURST) as u32;
    let before = BURST_RING.stats();
    let mut sane = BURST_RING.is_empty();
    for _ in 0..4 * ROUNDS {
        push.add_items(s, burst_ring_push_burst, per_loop, BURST as u32);
        sane &= BURST_RING.is_full();
        pop.add_items(s, burst_ring_pop_burst, per_loop, BURST as u32);
        sane &= BURST_RING.is_empty() && s.out == s.items;
    }
    // Every timed burst moved all 32: nothing refused, nothing busy.
    let after = BURST_RING.stats();
    sane &= after.busy == 0 && after.rejected == before.rejected;
    let marked = mpmc_figs(
        MPMC_CAP,
        &mut &BURST_MARKED,
        burst_marked_push,
        burst_marked_pop,
        None,
    );
    // One raise and one lowering per filling: `Normal` at the end.
    sane &= BURST_MARKED.is_empty() && BURST_MARKED.stats().transitions % 2 == 0;
    let imp = "sluicegate-burst-ring";
    sane & report_mpmc(clock, imp, &single, true)
        & report_ops(clock, "sluicegate-burst-ring-marked", &marked.ops)
        & report_partial(clock, "sluicegate-burst-ring-marked", &marked)
        & report_partial(clock, imp, &single)
        & report(clock, imp, "push_burst32_per_item", push)
        & report(clock, imp, "pop_burst32_per_item", pop)
}

// --- AIMD limiter (heapless has none) ----------------------------------------

/// The default preset: limit 8, so one permit at a time never grows it (in
/// flight stays below half the limit) and an equal latency every time is a
/// good sample: no cut, no growth. One in flight is queue-free, so each
/// success also teaches the baseline (the light-load path, the dearer one).
static SG_AIMD: Limiter = Limiter::new(LimiterConfig::DEFAULT);

struct SgLimit {
    aimd: &'static Limiter,
    /// The latency passed to `success`, read at run time as a clock would be.
    latency: u32,
}

fn sg_acquire_success(s: &mut SgLimit, _: u32) -> u32 {
    match s.aimd.try_acquire() {
        Some(p) => {
            p.success(s.latency);
            1
        }
        None => 0,
    }
}
fn sg_acquire_drop(s: &mut SgLimit, _: u32) -> u32 {
    // Dropping the permit releases it as `ignore`.
    s.aimd.try_acquire().is_some() as u32
}

#[inline(never)]
fn limit(clock: &Clock) -> bool {
    let s = &mut SgLimit {
        aimd: &SG_AIMD,
        latency: black_box(100),
    };
    let (mut success, mut ignore, mut shed) = (Acc::default(), Acc::default(), Acc::default());
    for _ in 0..ROUNDS {
        success.add(s, sg_acquire_success);
        ignore.add(s, sg_acquire_drop);
    }
    // Hold the whole limit, then time the refusals.
    let mut held: [Option<Permit<'static>>; 8] = [const { None }; 8];
    for p in held.iter_mut() {
        *p = SG_AIMD.try_acquire();
    }
    for _ in 0..ROUNDS {
        shed.add(s, sg_acquire_drop);
    }
    let full = held.iter().all(Option::is_some);
    drop(held);
    let st = SG_AIMD.stats();
    // The figures are only what they claim if the limit never moved, every
    // timed call in the first loop was admitted and every one after was shed.
    let calls = (ROUNDS * K) as usize;
    let sane = full
        && st.limit == LimiterConfig::DEFAULT.initial_limit
        && st.in_flight == 0
        && st.decreases == 0
        && st.succeeded == calls
        && st.ignored == calls + 8
        && st.shed[0] == calls;
    sane & report(clock, "sluicegate-limit", "try_acquire_success", success)
        & report(clock, "sluicegate-limit", "try_acquire_drop", ignore)
        & report(clock, "sluicegate-limit", "try_acquire_shed", shed)
}

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("peripherals");
    let clock = Clock::start(&mut cp.SYST);
    hprintln!(
        "calibration {} ({}, {}): {} SysTick ticks per 1000 instructions",
        fw::BOARD,
        fw::CORE,
        fw::CAS,
        clock.ticks_per_1000_insns()
    );
    // QEMU without -icount makes the ratio meaningless (and usually tiny).
    let mut ok = (100..10_000).contains(&clock.ticks_per_1000_insns());
    ok &= spsc_reject(&clock);
    ok &= spsc_overwrite(&clock);
    ok &= mpmc(&clock);
    ok &= burst_ring(&clock);
    ok &= limit(&clock);
    fw::exit(ok)
}
