//! The `BurstRing` phase of the firmware (see `main.rs`): the interrupt
//! pushes sequence-numbered samples into a `static` `mpmc::BurstRing`
//! (single pushes, bursts and evicting pushes) while the main loop pops
//! bursts, some of them read in place and held across slow work.
//!
//! The interrupt lands inside the main loop's pops, between a claim and
//! its commit, so a push that needs a slot the main loop has claimed
//! answers `Busy`: the preempted pop cannot finish before the handler
//! returns. The handler counts the answer, keeps the refused items' tally
//! and moves on; it never retries. Every sample is accounted for exactly
//! once: popped by the main loop, handed back by an eviction, or refused
//! (full or busy), and the tallies match the ring's counters.

use core::sync::atomic::{AtomicBool, Ordering};

use fw::{hprintln, Rng};
use sluicegate::mpmc::burst_ring::{BurstRing, Moved, PopError, PushError, Stop};

use super::{check_of, with_isr};

/// Small, so that the ring is often full and the interrupt's pushes often
/// reach slots a pop in progress holds.
const CAP: usize = 16;
/// Samples the interrupt produces.
const ITEMS: u32 = 20_000;
/// The longest burst either side moves.
const MAX_BURST: usize = 6;

#[derive(Clone, Copy)]
pub(crate) struct Sample {
    seq: u32,
    check: u32,
}

impl Sample {
    fn new(seq: u32) -> Self {
        Self {
            seq,
            check: check_of(seq),
        }
    }
}

pub(crate) static BURSTS: BurstRing<Sample, CAP, 1> = BurstRing::new();
/// Set by the interrupt after its last push.
static ISR_DONE: AtomicBool = AtomicBool::new(false);

/// Count and sum of sequence numbers.
#[derive(Clone, Copy, Default)]
pub(crate) struct Tally {
    pub(crate) count: u32,
    sum: u64,
}

impl Tally {
    fn add(&mut self, seq: u32) {
        self.count += 1;
        self.sum += seq as u64;
    }
    fn add_all(&mut self, items: &[Sample]) {
        for s in items {
            self.add(s.seq);
        }
    }
    fn plus(self, other: Tally) -> Tally {
        Tally {
            count: self.count + other.count,
            sum: self.sum + other.sum,
        }
    }
}

/// Samples taken out of the ring, in the order taken: one producer, so the
/// sequence numbers only grow, and each payload matches its number.
#[derive(Default)]
struct Taken {
    tally: Tally,
    last: Option<u32>,
    errors: u32,
}

impl Taken {
    fn take(&mut self, items: &[Sample]) {
        for s in items {
            if s.check != check_of(s.seq) || self.last.is_some_and(|l| s.seq <= l) {
                self.errors += 1;
            }
            self.last = Some(s.seq);
            self.tally.add(s.seq);
        }
    }
}

/// The interrupt's side: the producer.
pub(crate) struct BurstIsr {
    ticks: u32,
    pub(crate) produced: u32,
    /// Samples that went in.
    stored: Tally,
    /// Samples handed back because the ring was full.
    pub(crate) full: Tally,
    /// Samples handed back because a pop in progress held the slot needed,
    /// and how many calls answered so.
    pub(crate) busy: Tally,
    pub(crate) busy_answers: u32,
    /// Samples evicted by its `push_overwrite`s.
    evicted: Taken,
}

impl BurstIsr {
    pub(crate) fn tick(&mut self) {
        self.ticks += 1;
        let left = ITEMS - self.produced;
        if left == 0 {
            return;
        }
        let seq = self.produced;
        match self.ticks % 4 {
            0 | 1 => {
                self.produced += 1;
                match BURSTS.try_push(Sample::new(seq)) {
                    Ok(()) => self.stored.add(seq),
                    Err(PushError::Full(s)) => self.full.add(s.seq),
                    Err(PushError::Busy(s)) => self.refused_busy(&[s]),
                    Err(PushError::Closed(_)) => self.evicted.errors += 1,
                }
            }
            2 => {
                let k = (1 + (self.ticks / 4) % MAX_BURST as u32).min(left) as usize;
                let mut items = [Sample::new(0); MAX_BURST];
                for (i, s) in items[..k].iter_mut().enumerate() {
                    *s = Sample::new(seq + i as u32);
                }
                self.produced += k as u32;
                let Moved { count, stop } = BURSTS.push_burst(&items[..k]);
                self.stored.add_all(&items[..count]);
                let rest = &items[count..k];
                match stop {
                    None => {}
                    Some(Stop::Full) => self.full.add_all(rest),
                    Some(Stop::Busy) => self.refused_busy(rest),
                    Some(_) => self.evicted.errors += 1,
                }
            }
            _ => {
                self.produced += 1;
                match BURSTS.push_overwrite(Sample::new(seq)) {
                    Ok(old) => {
                        self.stored.add(seq);
                        self.evicted.take(old.as_slice());
                    }
                    Err(PushError::Busy(s)) => self.refused_busy(&[s]),
                    Err(_) => self.evicted.errors += 1,
                }
            }
        }
        if self.produced == ITEMS {
            ISR_DONE.store(true, Ordering::Release);
        }
    }

    /// One call answered busy and handed these samples back.
    fn refused_busy(&mut self, items: &[Sample]) {
        self.busy_answers += 1;
        self.busy.add_all(items);
    }
}

/// Runs the phase; returns whether its checks passed and the interrupt's
/// tallies for the summary.
pub(crate) fn burst_phase() -> (bool, BurstIsr) {
    ISR_DONE.store(false, Ordering::Relaxed);
    with_isr(|isr| {
        isr.burst = Some(BurstIsr {
            ticks: 0,
            produced: 0,
            stored: Tally::default(),
            full: Tally::default(),
            busy: Tally::default(),
            busy_answers: 0,
            evicted: Taken::default(),
        })
    });
    let mut rng = Rng::new(0xB0A7_5EED);
    let mut got = Taken::default();
    let mut busy_answers = 0u32;
    let mut buf = [Sample::new(0); MAX_BURST];
    loop {
        let done = ISR_DONE.load(Ordering::Acquire);
        let k = rng.range(1, MAX_BURST as u32) as usize;
        // Slow work after a pop (the ring fills), sometimes while holding
        // a read chunk (the interrupt finds its slots claimed).
        let stop = match rng.next_u32() % 3 {
            0 => {
                let m = BURSTS.pop_burst(&mut buf[..k]);
                got.take(&buf[..m.count]);
                fw::spin(rng.range(50, 400));
                m.stop
            }
            1 => match BURSTS.read_chunk(k) {
                Ok(chunk) => {
                    let (a, b) = chunk.as_slices();
                    got.take(a);
                    got.take(b);
                    fw::spin(rng.range(50, 800));
                    chunk.release();
                    None
                }
                Err(stop) => Some(stop),
            },
            _ => match BURSTS.try_pop() {
                Ok(s) => {
                    got.take(&[s]);
                    fw::spin(rng.range(0, 200));
                    None
                }
                Err(e) => Some(e.stop()),
            },
        };
        match stop {
            // Nothing of the main loop's is in progress when it pops, but a
            // burst whose run the interrupt's pushes outgrew between its
            // look and its claim stops short with busy (the ring counts it).
            Some(Stop::Busy) => busy_answers += 1,
            Some(Stop::Empty) if done => break,
            Some(Stop::Empty) => fw::spin(30),
            Some(_) => got.errors += 1,
            None => {}
        }
    }
    let isr = with_isr(|isr| isr.burst.take().expect("burst state"));
    // Closed and drained: final.
    BURSTS.close();
    let closed = matches!(BURSTS.try_pop(), Err(PopError::Closed)) && BURSTS.is_drained();

    let stats = BURSTS.stats();
    let n = ITEMS as u64;
    let offered = isr.stored.plus(isr.full).plus(isr.busy);
    let out = got.tally.plus(isr.evicted.tally);
    let ok = got.errors == 0
        && isr.evicted.errors == 0
        && closed
        && isr.produced == ITEMS
        && offered.count == ITEMS
        && offered.sum == n * (n - 1) / 2
        && out.count == isr.stored.count
        && out.sum == isr.stored.sum
        && stats.rejected as u32 == isr.full.count
        && stats.overwritten as u32 == isr.evicted.tally.count
        && stats.busy as u32 == isr.busy_answers + busy_answers
        && isr.busy_answers > 0
        && isr.full.count > 0
        && isr.evicted.tally.count > 0;
    hprintln!(
        "burst ring: produced={} popped={} evicted={} refused full={} busy={} (in {} busy answers: the interrupt hit a pop in progress; main saw {}) order+payload errors={} -> {}",
        isr.produced,
        got.tally.count,
        isr.evicted.tally.count,
        isr.full.count,
        isr.busy.count,
        isr.busy_answers,
        busy_answers,
        got.errors + isr.evicted.errors,
        if ok { "ok" } else { "MISMATCH" }
    );
    #[cfg(feature = "defmt")]
    defmt::println!("burst ring stats {}", stats);
    (ok, isr)
}
