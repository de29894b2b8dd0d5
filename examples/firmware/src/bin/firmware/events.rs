//! The MPMC phase of the firmware (see `main.rs`): the interrupt and the
//! main loop both push (alternating `try_push` and `push_overwrite`) and
//! both pop one small `static` ring, and every item is accounted for.

use core::sync::atomic::{AtomicBool, Ordering};

use fw::{hprintln, Rng};
use sluicegate::mpmc;
use sluicegate::Overwritten;

use super::{check_of, with_isr};

const MPMC_CAP: usize = 8;
/// Items each side pushes in the MPMC phase.
const MPMC_ITEMS: u32 = 20_000;
/// Producer ids, kept in the top bit of an item's tag.
const FROM_MAIN: u32 = 0;
const FROM_ISR: u32 = 1;

pub(crate) static EVENTS: mpmc::Ring<Event, MPMC_CAP> = mpmc::Ring::new();
pub(crate) static CS_EVENTS: mpmc::cs::Ring<Event, MPMC_CAP> = mpmc::cs::Ring::new();
pub(crate) static MASK_EVENTS: mpmc::SmallRing<Event, MPMC_CAP> = mpmc::SmallRing::new();
pub(crate) static BITS_EVENTS: mpmc::Ring<Event, MPMC_CAP, mpmc::FreeBits<1>> = mpmc::Ring::new();
/// Set by the interrupt after its last MPMC push.
static MPMC_ISR_DONE: AtomicBool = AtomicBool::new(false);

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Event {
    /// Producer (top bit) and its sequence number.
    tag: u32,
    check: u32,
}

impl Event {
    fn new(from: u32, seq: u32) -> Self {
        let tag = from << 31 | seq;
        Self {
            tag,
            check: check_of(tag),
        }
    }
    fn from(&self) -> usize {
        (self.tag >> 31) as usize
    }
    fn seq(&self) -> u32 {
        self.tag & 0x7FFF_FFFF
    }
}

/// The MPMC rings, seen the same way by the phase.
pub(crate) trait EventRing: Sync {
    fn try_push(&self, e: Event) -> Result<(), sluicegate::TryPushError<Event>>;
    fn push_overwrite(&self, e: Event) -> Overwritten<Event>;
    fn try_pop(&self) -> Option<Event>;
    fn stats(&self) -> sluicegate::RingStats;
    fn is_empty(&self) -> bool;
}

macro_rules! event_ring {
    ($ring:ty) => {
        impl EventRing for $ring {
            fn try_push(&self, e: Event) -> Result<(), sluicegate::TryPushError<Event>> {
                <$ring>::try_push(self, e)
            }
            fn push_overwrite(&self, e: Event) -> Overwritten<Event> {
                <$ring>::push_overwrite(self, e)
            }
            fn try_pop(&self) -> Option<Event> {
                <$ring>::try_pop(self)
            }
            fn stats(&self) -> sluicegate::RingStats {
                <$ring>::stats(self)
            }
            fn is_empty(&self) -> bool {
                <$ring>::is_empty(self)
            }
        }
    };
}
event_ring!(mpmc::Ring<Event, MPMC_CAP>);
event_ring!(mpmc::cs::Ring<Event, MPMC_CAP>);
event_ring!(mpmc::SmallRing<Event, MPMC_CAP>);
event_ring!(mpmc::Ring<Event, MPMC_CAP, mpmc::FreeBits<1>>);

/// Count and sum of sequence numbers.
#[derive(Clone, Copy, Default)]
pub(crate) struct Tally {
    count: u32,
    sum: u64,
}

impl Tally {
    fn add(&mut self, seq: u32) {
        self.count += 1;
        self.sum += seq as u64;
    }
    fn plus(self, other: Tally) -> Tally {
        Tally {
            count: self.count + other.count,
            sum: self.sum + other.sum,
        }
    }
}

/// What one side (main or interrupt) saw of the MPMC ring.
#[derive(Default)]
pub(crate) struct Ledger {
    pub(crate) produced: u32,
    /// Items this side took out of the ring (pops and evictions), per producer.
    taken: [Tally; 2],
    /// Items handed back on push without entering (a full `try_push` or an
    /// `Overwritten::Rejected`), per producer.
    refused: [Tally; 2],
    /// Last sequence number this side took out, per producer.
    last_taken: [Option<u32>; 2],
    pub(crate) rejected: u32,
    /// `push_overwrite`s that handed the new item back.
    overwrite_rejected: u32,
    pub(crate) evicted: u32,
    errors: u32,
}

impl Ledger {
    fn took(&mut self, e: Event) {
        let from = e.from();
        if e.check != check_of(e.tag) || self.last_taken[from].is_some_and(|l| e.seq() <= l) {
            self.errors += 1;
        }
        self.last_taken[from] = Some(e.seq());
        self.taken[from].add(e.seq());
    }

    /// Pushes this side's next item, alternating the two kinds of push.
    fn push(&mut self, ring: &dyn EventRing, from: u32) {
        let new = Event::new(from, self.produced);
        self.produced += 1;
        if self.produced & 1 == 0 {
            if let Err(full) = ring.try_push(new) {
                self.rejected += 1;
                self.refused[from as usize].add(full.into_inner().seq());
            }
        } else {
            match ring.push_overwrite(new) {
                Overwritten::Stored => {}
                Overwritten::Rejected(_) => {
                    self.rejected += 1;
                    self.overwrite_rejected += 1;
                    self.refused[from as usize].add(new.seq());
                }
                Overwritten::Evicted(old) => {
                    self.evicted += 1;
                    self.took(old);
                }
            }
        }
    }

    fn pop(&mut self, ring: &dyn EventRing) -> bool {
        match ring.try_pop() {
            Some(e) => {
                self.took(e);
                true
            }
            None => false,
        }
    }
}

/// The interrupt's side of the MPMC phase.
pub(crate) struct MpmcIsr {
    ring: &'static dyn EventRing,
    ledger: Ledger,
    ticks: u32,
}

impl MpmcIsr {
    pub(crate) fn tick(&mut self) {
        self.ticks += 1;
        if self.ledger.produced < MPMC_ITEMS {
            self.ledger.push(self.ring, FROM_ISR);
            if self.ledger.produced == MPMC_ITEMS {
                MPMC_ISR_DONE.store(true, Ordering::Release);
            }
        }
        if self.ticks & 1 == 0 {
            self.ledger.pop(self.ring);
        }
    }
}

/// One MPMC phase on `ring`; `name` for the report. With `holds_nothing`
/// (the critical-section ring) `push_overwrite` must never hand back the new
/// item.
pub(crate) fn mpmc_phase(
    ring: &'static dyn EventRing,
    name: &str,
    holds_nothing: bool,
) -> (bool, Ledger, Ledger) {
    MPMC_ISR_DONE.store(false, Ordering::Relaxed);
    with_isr(|isr| {
        isr.mpmc = Some(MpmcIsr {
            ring,
            ledger: Ledger::default(),
            ticks: 0,
        })
    });
    let mut main = Ledger::default();
    let mut rng = Rng::new(0x0BAD_CAFE);
    while main.produced < MPMC_ITEMS || !MPMC_ISR_DONE.load(Ordering::Acquire) {
        if main.produced < MPMC_ITEMS {
            main.push(ring, FROM_MAIN);
        }
        if rng.next_u32() & 1 == 0 {
            main.pop(ring);
        }
        fw::spin(rng.range(0, 300));
    }
    let isr = with_isr(|isr| isr.mpmc.take().expect("mpmc state")).ledger;
    while main.pop(ring) {}

    let stats = ring.stats();
    let mut ok = main.errors == 0 && isr.errors == 0;
    for from in [FROM_MAIN, FROM_ISR] {
        let f = from as usize;
        let n = MPMC_ITEMS as u64;
        let all = main.taken[f]
            .plus(main.refused[f])
            .plus(isr.taken[f])
            .plus(isr.refused[f]);
        ok &= all.count == MPMC_ITEMS && all.sum == n * (n - 1) / 2;
    }
    ok &= stats.rejected as u32 == main.rejected + isr.rejected
        && stats.overwritten as u32 == main.evicted + isr.evicted
        && ring.is_empty()
        && stats.overwritten > 0
        && stats.rejected > 0
        && (!holds_nothing || main.overwrite_rejected + isr.overwrite_rejected == 0);
    hprintln!(
        "{}: pushed main={} isr={}; taken by main={} by isr={}; evicted={} rejected={} order+payload errors={} -> {}",
        name,
        main.produced,
        isr.produced,
        main.taken[0].plus(main.taken[1]).count,
        isr.taken[0].plus(isr.taken[1]).count,
        stats.overwritten,
        stats.rejected,
        main.errors + isr.errors,
        if ok { "ok" } else { "MISMATCH" }
    );
    (ok, main, isr)
}
