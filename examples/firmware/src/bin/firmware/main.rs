//! Telemetry firmware: a SysTick interrupt produces samples, the main loop
//! consumes them, and the run ends with a self-check whose result is the QEMU
//! exit status.
//!
//! - SPSC: the interrupt `push_overwrite`s sequence-numbered samples into a
//!   `static` ring split with `try_split` (no `unsafe`, no mutable `static`); the
//!   main loop pops with slow, jittered work between pops, so the ring is often
//!   full and the interrupt lands inside pops, and now and then holds a read
//!   chunk of up to 4 samples across many interrupts (the radio pattern: DMA
//!   a chunk straight from the ring). Check: received + overwritten ==
//!   produced, every sequence number exactly once (count and sum), in order,
//!   payloads intact, the held chunks unchanged, and not one push handed its
//!   sample back although the interrupt pushed while chunks were held
//!   (rejected == 0, pushes during holds > 0: the newest is kept).
//! - MPMC: the interrupt and the main loop both push (alternating `try_push`
//!   and `push_overwrite`) and both pop one small `static` ring. Every item is
//!   accounted for exactly once, by count and by sum of sequence numbers per
//!   producer: popped by either side, or handed back to its pusher (rejected
//!   or evicted). Each side takes any producer's items out in order, and
//!   the handed-back counts match the ring's counters. The phase runs four
//!   times: on the lock-free `mpmc::Ring`, `mpmc::SmallRing` (its free pool
//!   one word) and `mpmc::Ring<_, _, FreeBits<1>>` (a bitmap and a count),
//!   where the interrupt lands inside operations in
//!   progress, and on `mpmc::cs::Ring`, whose operations are each one
//!   critical section, so the interrupt lands between them (and its
//!   `push_overwrite` never hands the new item back).
//! - Burst ring: the interrupt pushes single samples, bursts and evicting
//!   pushes into a `static` `mpmc::BurstRing` while the main loop pops
//!   bursts, some read in place and held across slow work; a push that
//!   needs a slot a preempted pop holds answers busy, and the interrupt
//!   counts it and moves on (see `burst.rs`). Check: every sample popped,
//!   evicted or refused exactly once (count and sum), in order, payloads
//!   intact, the refusals and evictions equal to the ring's counters, busy
//!   answers seen (the interrupt did land inside a pop), and the closed,
//!   drained ring answers closed.
//! - Limiter: the main loop asks a `static` AIMD limiter for permits (a mix of
//!   priority classes) as fast as it is allowed and hands each admitted permit,
//!   stamped with the SysTick interrupt count, to the interrupt through a
//!   `static` SPSC ring. The interrupt plays the dependency: it serves a
//!   varying number of permits per tick (sometimes none, a stall) and ends
//!   each one: `dropped` if it waited more than `TIMEOUT_TICKS`, otherwise now
//!   and then `ignore` (or a plain drop), else `success` with the ticks it
//!   waited, so queueing raises the latency and the limit has to follow the
//!   service rate. Checks: every acquire sees the limit in
//!   `min_limit..=max_limit` and an in-flight count at admission no higher than
//!   the limit then; every change of the limit is one the law allows (growth
//!   by at most a quarter of it, one multiplicative cut, a probe to
//!   `min_limit` and back) (the interrupt is the only context that ends
//!   permits, so it sees each change); the cuts it saw equal `stats().decreases`; the limit went both
//!   up and down; the shed counts per class, admitted, and each outcome match
//!   `stats()`; admitted == succeeded + dropped + ignored; in flight is back
//!   to 0.
#![no_std]
#![no_main]

use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use cortex_m::peripheral::SYST;
use cortex_m_rt::{entry, exception};
use critical_section::Mutex;
use fw::{hprintln, Clock, Rng};

mod burst;
mod events;
use burst::{burst_phase, BurstIsr};
use events::{mpmc_phase, MpmcIsr, BITS_EVENTS, CS_EVENTS, EVENTS, MASK_EVENTS};
use sluicegate::limit::{Limiter, LimiterConfig, Permit, Priority, CLASSES};
use sluicegate::spsc::{Consumer, Overwrite, Producer, Ring};
use sluicegate::Overwritten;

/// One telemetry sample: a sequence number and a payload derived from it (a
/// torn or stale read would not match).
#[derive(Clone, Copy)]
struct Sample {
    seq: u32,
    check: u32,
}

fn check_of(seq: u32) -> u32 {
    seq.wrapping_mul(0x9E37_79B9) ^ 0xA5A5_5A5A
}

const SPSC_CAP: usize = 16;
/// Samples the interrupt produces in the SPSC phase.
const SPSC_SAMPLES: u32 = 60_000;

static SAMPLES: Ring<Sample, SPSC_CAP, Overwrite> = Ring::new();
/// Set by the interrupt after its last SPSC push.
static SPSC_DONE: AtomicBool = AtomicBool::new(false);
/// Set by the main loop while it holds a read chunk of the SPSC ring.
static SPSC_HOLDING: AtomicBool = AtomicBool::new(false);

/// The interrupt's side of the SPSC phase.
struct SpscIsr {
    tx: Producer<'static, Sample, SPSC_CAP, Overwrite>,
    produced: u32,
    evicted: u32,
    evicted_sum: u64,
    last_evicted: Option<u32>,
    rejected: u32,
    rejected_sum: u64,
    /// Pushes made while the main loop held a read chunk.
    held_pushes: u32,
    errors: u32,
}

impl SpscIsr {
    fn tick(&mut self) {
        if self.produced == SPSC_SAMPLES {
            return;
        }
        let seq = self.produced;
        self.produced += 1;
        if SPSC_HOLDING.load(Ordering::Relaxed) {
            self.held_pushes += 1;
        }
        match self.tx.push_overwrite(Sample {
            seq,
            check: check_of(seq),
        }) {
            Overwritten::Stored => {}
            Overwritten::Rejected(back) => {
                // Only if the main loop held every slot, which it never does.
                debug_assert_eq!(back.seq, seq);
                self.rejected += 1;
                self.rejected_sum += seq as u64;
            }
            Overwritten::Evicted(old) => {
                if old.check != check_of(old.seq) || self.last_evicted.is_some_and(|l| old.seq <= l)
                {
                    self.errors += 1;
                }
                self.last_evicted = Some(old.seq);
                self.evicted += 1;
                self.evicted_sum += old.seq as u64;
            }
        }
        if self.produced == SPSC_SAMPLES {
            SPSC_DONE.store(true, Ordering::Release);
        }
    }
}

// --- Limiter: main acquires, the interrupt ends the permits -----------------

/// Small limits so the ring of permits can hold all of them and queueing
/// shows in whole ticks, and a deep cut (×0.75) so the limit moves often in
/// a short run; the rest is the default preset.
const LIMIT_CONFIG: LimiterConfig = LimiterConfig {
    min_limit: 2,
    initial_limit: 4,
    max_limit: 12,
    backoff: 192,
    ..LimiterConfig::DEFAULT
};
static LIMITER: Limiter = Limiter::new(LIMIT_CONFIG);

/// Permits in the hands of the "dependency" (the interrupt). Holds every
/// permit that can be in flight, so a push never fails.
const JOBS_CAP: usize = 16;
const _: () = assert!(LIMIT_CONFIG.max_limit as usize <= JOBS_CAP);
static JOBS: Ring<Job, JOBS_CAP> = Ring::new();

/// SysTick interrupts so far in the limiter phase: the clock latencies are
/// measured in. Only the interrupt stores it.
static LIMIT_NOW: AtomicU32 = AtomicU32::new(0);
/// Interrupt ticks the limiter phase lasts.
const LIMIT_TICKS: u32 = 8_000;
/// A permit that waited longer than this is a timeout: `dropped`.
const TIMEOUT_TICKS: u32 = 8;

/// A request admitted by the limiter, waiting to be served.
struct Job {
    permit: Permit<'static>,
    /// `LIMIT_NOW` when it was admitted.
    issued: u32,
}

/// The interrupt's side of the limiter phase: the dependency.
struct LimitIsr {
    rx: Consumer<'static, Job, JOBS_CAP>,
    now: u32,
    /// Ticks left in the current stall (nothing served).
    stall: u32,
    succeeded: usize,
    dropped: usize,
    ignored: usize,
    /// Changes of the limit seen across an outcome.
    ups: usize,
    downs: usize,
    /// Probes seen (cuts to `min_limit` after long without a queue-free
    /// sample), and the limit the one in progress started from.
    probes: usize,
    probe_from: Option<u32>,
    /// A change that was none of the moves the law allows.
    errors: u32,
}

impl LimitIsr {
    fn tick(&mut self, rng: &mut Rng) {
        self.now += 1;
        LIMIT_NOW.store(self.now, Ordering::Relaxed);
        // Service rate per tick changes every 512 ticks; rare stalls.
        let mut serve = match (self.now >> 9) & 3 {
            0 => 3,
            1 => 1,
            2 => 2,
            _ => 1,
        };
        if self.stall > 0 {
            self.stall -= 1;
            serve = 0;
        } else if rng.next_u32() & 255 == 0 {
            self.stall = 2 * TIMEOUT_TICKS;
        }
        for _ in 0..serve {
            let Some(job) = self.rx.try_pop() else { break };
            let waited = self.now.wrapping_sub(job.issued);
            let before = LIMITER.limit();
            if waited > TIMEOUT_TICKS {
                job.permit.dropped();
                self.dropped += 1;
            } else if rng.next_u32() & 15 == 0 {
                // No information: half explicitly, half by dropping the permit.
                if waited & 1 == 0 {
                    job.permit.ignore();
                } else {
                    drop(job.permit);
                }
                self.ignored += 1;
            } else {
                job.permit.success(waited);
                self.succeeded += 1;
            }
            self.check_move(before);
        }
    }

    /// Checks the limit's move across one outcome: none; growth by at most
    /// a quarter of the limit (at least 1), up to `max_limit`; one cut to
    /// `max(min_limit, ⌊limit · backoff / 256⌋)`; or a probe (a cut to
    /// `min_limit`, counted in `stats().probes`) and its end, back to the
    /// limit it started from.
    fn check_move(&mut self, before: u32) {
        let after = LIMITER.limit();
        let c = &LIMIT_CONFIG;
        if after > before {
            self.ups += 1;
            let back = self.probe_from.take() == Some(after);
            let step = (before / 4).max(1);
            self.errors += (after > c.max_limit || (!back && after > before + step)) as u32;
        } else if after < before {
            self.downs += 1;
            let cut = (before * c.backoff as u32 / 256).max(c.min_limit);
            let probes = LIMITER.stats().probes;
            if probes != self.probes {
                self.probes = probes;
                self.probe_from = Some(before);
                self.errors += (after != c.min_limit) as u32;
            } else {
                self.probe_from = None;
                self.errors += (after != cut) as u32;
            }
        }
    }
}

/// What the limiter phase saw, for the one-line result.
struct LimitSummary {
    admitted: u32,
    shed: u32,
    succeeded: usize,
    dropped: usize,
    ignored: usize,
    ups: usize,
    downs: usize,
    lowest: u32,
    highest: u32,
}

fn limit_phase() -> (bool, LimitSummary) {
    let (mut tx, rx) = JOBS.try_split().expect("first split");
    with_isr(|isr| {
        // Each tick may end up to 3 permits: a longer period than the ring
        // phases so the interrupt never takes the whole core.
        isr.reload_lo *= 4;
        isr.reload_mask = isr.reload_mask * 2 + 1;
        isr.limit = Some(LimitIsr {
            rx,
            now: 0,
            stall: 0,
            succeeded: 0,
            dropped: 0,
            ignored: 0,
            ups: 0,
            downs: 0,
            probes: 0,
            probe_from: None,
            errors: 0,
        })
    });
    let c = &LIMIT_CONFIG;
    let mut rng = Rng::new(0x5EED_1E55);
    let mut admitted = 0u32;
    let mut shed = [0usize; CLASSES];
    let mut errors = 0u32;
    let (mut lowest, mut highest) = (u32::MAX, 0u32);
    while LIMIT_NOW.load(Ordering::Relaxed) < LIMIT_TICKS {
        let class = match rng.next_u32() & 7 {
            0 => Priority::Background,
            1 | 2 => Priority::Normal,
            _ => Priority::Critical,
        };
        let got = LIMITER.try_acquire_with(class);
        let limit = LIMITER.limit();
        lowest = lowest.min(limit);
        highest = highest.max(limit);
        errors += !(c.min_limit..=c.max_limit).contains(&limit) as u32;
        match got {
            Some(permit) => {
                admitted += 1;
                errors += (permit.in_flight_at_admission() > permit.limit_at_admission()
                    || !(c.min_limit..=c.max_limit).contains(&permit.limit_at_admission()))
                    as u32;
                let job = Job {
                    permit,
                    issued: LIMIT_NOW.load(Ordering::Relaxed),
                };
                if tx.try_push(job).is_err() {
                    errors += 1; // the permit is released as `ignore`
                }
                fw::spin(rng.range(20, 200));
            }
            None => {
                shed[class as usize] += 1;
                fw::spin(rng.range(100, 400));
            }
        }
    }
    // Every permit handed over is ended inside one interrupt run, which main
    // never observes half-done: once the ring is empty, all are ended.
    while !tx.is_empty() {
        fw::spin(50);
    }
    let isr = with_isr(|isr| isr.limit.take().expect("limit state"));
    let stats = LIMITER.stats();
    let ok = errors == 0
        && isr.errors == 0
        && LIMITER.in_flight() == 0
        && stats.in_flight == 0
        && stats.admitted == admitted as usize
        && stats.admitted == stats.succeeded + stats.dropped + stats.ignored
        && stats.succeeded == isr.succeeded
        && stats.dropped == isr.dropped
        && stats.ignored == isr.ignored
        && stats.shed == shed
        && stats.decreases == isr.downs
        && isr.downs > 0
        && isr.ups > 0
        && isr.dropped > 0
        && isr.ignored > 0
        && stats.baseline.is_some();
    let shed_total = shed.iter().sum::<usize>() as u32;
    hprintln!(
        "limit: admitted={} shed={} (critical/normal/background {}/{}/{}) succeeded={} dropped={} ignored={} limit moved up {} down {} within {}..={} baseline={:?} in_flight={} errors={} -> {}",
        admitted,
        shed_total,
        shed[0],
        shed[1],
        shed[2],
        stats.succeeded,
        stats.dropped,
        stats.ignored,
        isr.ups,
        isr.downs,
        lowest,
        highest,
        stats.baseline,
        stats.in_flight,
        errors + isr.errors,
        if ok { "ok" } else { "MISMATCH" }
    );
    #[cfg(feature = "defmt")]
    defmt::println!("limit stats {}", stats);
    (
        ok,
        LimitSummary {
            admitted,
            shed: shed_total,
            succeeded: stats.succeeded,
            dropped: stats.dropped,
            ignored: stats.ignored,
            ups: isr.ups,
            downs: isr.downs,
            lowest,
            highest,
        },
    )
}

/// Everything the SysTick handler owns.
struct Isr {
    syst: SYST,
    rng: Rng,
    /// SysTick reload range (ticks): `lo..=lo + mask` (`mask + 1` a power of two).
    reload_lo: u32,
    reload_mask: u32,
    spsc: Option<SpscIsr>,
    mpmc: Option<MpmcIsr>,
    burst: Option<BurstIsr>,
    limit: Option<LimitIsr>,
}

static ISR: Mutex<RefCell<Option<Isr>>> = Mutex::new(RefCell::new(None));

#[exception]
fn SysTick() {
    critical_section::with(|cs| {
        if let Some(isr) = ISR.borrow_ref_mut(cs).as_mut() {
            // Jitter the period so the interrupt lands at every point of the
            // main loop (the new reload applies from the next wrap).
            let next = isr.reload_lo + (isr.rng.next_u32() & isr.reload_mask);
            isr.syst.set_reload(next);
            if let Some(spsc) = isr.spsc.as_mut() {
                spsc.tick();
            }
            if let Some(mpmc) = isr.mpmc.as_mut() {
                mpmc.tick();
            }
            if let Some(burst) = isr.burst.as_mut() {
                burst.tick();
            }
            if let Some(limit) = isr.limit.as_mut() {
                limit.tick(&mut isr.rng);
            }
        }
    });
}

/// Runs `f` on the interrupt's state with the interrupt masked.
fn with_isr<R>(f: impl FnOnce(&mut Isr) -> R) -> R {
    critical_section::with(|cs| f(ISR.borrow_ref_mut(cs).as_mut().expect("ISR state")))
}

/// Runs the SPSC phase; returns whether its checks passed and a short summary.
fn spsc_phase() -> (bool, Summary) {
    let (tx, mut rx) = SAMPLES.try_split().expect("first split");
    assert!(SAMPLES.try_split().is_none());
    with_isr(|isr| {
        isr.spsc = Some(SpscIsr {
            tx,
            produced: 0,
            evicted: 0,
            evicted_sum: 0,
            last_evicted: None,
            rejected: 0,
            rejected_sum: 0,
            held_pushes: 0,
            errors: 0,
        })
    });

    let mut rng = Rng::new(0x1234_5678);
    let (mut received, mut received_sum, mut errors) = (0u32, 0u64, 0u32);
    let mut last: Option<u32> = None;
    let mut empty_pops = 0u32;
    let mut holds = 0u32;
    // Work between pops: mostly slower than the interrupt (the ring fills and
    // overwrites), sometimes faster (it drains and runs empty).
    loop {
        let done = SPSC_DONE.load(Ordering::Acquire);
        if received % 64 == 63 {
            // The radio pattern: hold a chunk in place across many
            // interrupts, check it did not change, then commit it.
            let chunk = rx.read_chunk_up_to(4);
            if !chunk.is_empty() {
                SPSC_HOLDING.store(true, Ordering::Relaxed);
                let (a, b) = chunk.as_slices();
                let before = a
                    .iter()
                    .chain(b)
                    .fold(0u32, |h, s| h.rotate_left(5) ^ s.seq);
                fw::spin(rng.range(2_000, 6_000));
                let (a, b) = chunk.as_slices();
                let mut after = 0u32;
                for s in a.iter().chain(b) {
                    after = after.rotate_left(5) ^ s.seq;
                    if s.check != check_of(s.seq) || last.is_some_and(|l| s.seq <= l) {
                        errors += 1;
                    }
                    last = Some(s.seq);
                    received += 1;
                    received_sum += s.seq as u64;
                }
                if after != before {
                    errors += 1;
                }
                chunk.commit_all();
                SPSC_HOLDING.store(false, Ordering::Relaxed);
                holds += 1;
                continue;
            }
        }
        match rx.try_pop() {
            Some(s) => {
                if s.check != check_of(s.seq) || last.is_some_and(|l| s.seq <= l) {
                    errors += 1;
                }
                last = Some(s.seq);
                received += 1;
                received_sum += s.seq as u64;
                let burst = (s.seq >> 10) & 3 == 3; // a fast stretch now and then
                fw::spin(if burst {
                    rng.range(0, 40)
                } else {
                    rng.range(150, 600)
                });
            }
            None if done => break,
            None => {
                empty_pops += 1;
                fw::spin(20);
            }
        }
    }

    let isr = with_isr(|isr| isr.spsc.take().expect("spsc state"));
    let stats = SAMPLES.stats();
    let produced = isr.produced as u64;
    let ok = errors == 0
        && isr.errors == 0
        && isr.produced == SPSC_SAMPLES
        && received + isr.evicted + isr.rejected == isr.produced
        && stats.overwritten as u32 == isr.evicted
        && stats.rejected as u32 == isr.rejected
        && received_sum + isr.evicted_sum + isr.rejected_sum == produced * (produced - 1) / 2
        && isr.rejected == 0
        && holds > 0
        && isr.held_pushes > 0
        && isr.evicted > 0
        && empty_pops > 0;
    hprintln!(
        "spsc: produced={} received={} overwritten={} rejected={} held chunks={} pushes while held={} empty_pops={} order+payload errors={} -> {}",
        isr.produced,
        received,
        isr.evicted,
        isr.rejected,
        holds,
        isr.held_pushes,
        empty_pops,
        errors + isr.errors,
        if ok { "ok" } else { "MISMATCH" }
    );
    #[cfg(feature = "defmt")]
    defmt::println!("spsc stats {}", stats);
    (
        ok,
        Summary {
            produced: isr.produced,
            received,
            overwritten: isr.evicted,
            rejected: isr.rejected,
            held_pushes: isr.held_pushes,
        },
    )
}

/// Figures for the one-line result.
struct Summary {
    produced: u32,
    received: u32,
    overwritten: u32,
    rejected: u32,
    held_pushes: u32,
}

#[entry]
fn main() -> ! {
    let mut cp = cortex_m::Peripherals::take().expect("peripherals");
    let clock = Clock::start(&mut cp.SYST);
    // Interrupt every ~300..900 instructions (jittered).
    let reload_lo = clock.ticks_for(300);
    let reload_mask = clock.ticks_for(600).next_power_of_two() / 2 - 1;
    hprintln!(
        "calibration: {} SysTick ticks per 1000 instructions",
        clock.ticks_per_1000_insns()
    );
    let mut syst = cp.SYST;
    syst.set_reload(reload_lo);
    syst.clear_current();
    with_isr_init(Isr {
        syst,
        rng: Rng::new(0xC0FF_EE11),
        reload_lo,
        reload_mask,
        spsc: None,
        mpmc: None,
        burst: None,
        limit: None,
    });
    with_isr(|isr| isr.syst.enable_interrupt());

    let (spsc_ok, spsc) = spsc_phase();
    let (scq_ok, mpmc_main, mpmc_isr) = mpmc_phase(&EVENTS, "mpmc", false);
    let (cs_ok, cs_main, cs_isr) = mpmc_phase(&CS_EVENTS, "mpmc::cs", true);
    let (mask_ok, mask_main, mask_isr) = mpmc_phase(&MASK_EVENTS, "mpmc::SmallRing", false);
    let (bits_ok, bits_main, bits_isr) = mpmc_phase(&BITS_EVENTS, "mpmc::Ring<FreeBits>", false);
    let (burst_ok, burst) = burst_phase();
    let (limit_ok, limit) = limit_phase();

    with_isr(|isr| isr.syst.disable_interrupt());
    #[allow(unused_mut)]
    let mut ok = spsc_ok && scq_ok && cs_ok && mask_ok && bits_ok && burst_ok && limit_ok;
    #[cfg(feature = "defmt")]
    {
        let bytes = fw::defmt_bytes();
        hprintln!("defmt: {} bytes encoded", bytes);
        ok &= bytes > 0;
    }
    hprintln!(
        "{} ({}, {}): {} spsc[produced={} received={} overwritten={} rejected={} pushes-while-held={}] mpmc[pushed={} evicted={} rejected={}] mpmc::cs[pushed={} evicted={} rejected={}] mpmc::SmallRing[pushed={} evicted={} rejected={}] FreeBits[pushed={} evicted={} rejected={}] BurstRing[produced={} full={} busy={}] limit[admitted={} shed={} success/drop/ignore={}/{}/{} up={} down={} range={}..={}]",
        fw::BOARD,
        fw::CORE,
        fw::CAS,
        if ok { "PASS" } else { "FAIL" },
        spsc.produced,
        spsc.received,
        spsc.overwritten,
        spsc.rejected,
        spsc.held_pushes,
        mpmc_main.produced + mpmc_isr.produced,
        mpmc_main.evicted + mpmc_isr.evicted,
        mpmc_main.rejected + mpmc_isr.rejected,
        cs_main.produced + cs_isr.produced,
        cs_main.evicted + cs_isr.evicted,
        cs_main.rejected + cs_isr.rejected,
        mask_main.produced + mask_isr.produced,
        mask_main.evicted + mask_isr.evicted,
        mask_main.rejected + mask_isr.rejected,
        bits_main.produced + bits_isr.produced,
        bits_main.evicted + bits_isr.evicted,
        bits_main.rejected + bits_isr.rejected,
        burst.produced,
        burst.full.count,
        burst.busy.count,
        limit.admitted,
        limit.shed,
        limit.succeeded,
        limit.dropped,
        limit.ignored,
        limit.ups,
        limit.downs,
        limit.lowest,
        limit.highest,
    );
    fw::exit(ok)
}

fn with_isr_init(isr: Isr) {
    critical_section::with(|cs| {
        ISR.borrow(cs).replace(Some(isr));
    });
}
