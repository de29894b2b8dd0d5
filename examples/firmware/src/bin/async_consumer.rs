//! The `async` phase (library feature `async`): an async consumer task woken
//! by the SysTick interrupt's pushes. The interrupt `try_push`es
//! sequence-numbered items into a `static` SPSC ring, then drops its
//! producer and does the same into a `static` `mpmc::Ring` and then into a
//! `static` `mpmc::cs::Ring`, closing each after its items (counting the
//! items refused when a ring is full). One task on a minimal executor
//! (below) awaits `rx.pop()`, `EVENTS.pop()` and `CS_EVENTS.pop()` until
//! they answer `None`; while both rings are empty the core sleeps in `wfi`, so
//! only a wake from the interrupt can make it go on.
//!
//! Check, per ring: received + refused == produced, every sequence number
//! once and in order (count and sum), refusals equal the ring's `rejected`
//! counter; the task really waited (Pending polls > 0) and every wait was
//! ended by a wake (no poll without one).
//!
//! The executor is a few lines here instead of embassy-executor, to keep the
//! firmware's dependency set small: one task, a waker that sets a flag, `wfi`
//! while the flag is clear.
#![no_std]
#![no_main]

use core::cell::RefCell;
use core::future::Future;
use core::pin::pin;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use core::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::{entry, exception};
use critical_section::Mutex;
use sluicegate::mpmc;
use sluicegate::spsc::{Producer, Ring};

const ITEMS: u32 = 20_000;

static RING: Ring<u32, 8> = Ring::new();
static EVENTS: mpmc::Ring<u32, 8> = mpmc::Ring::new();
static CS_EVENTS: mpmc::cs::Ring<u32, 8> = mpmc::cs::Ring::new();
static SOURCE: Mutex<RefCell<Option<Source>>> = Mutex::new(RefCell::new(None));

/// The interrupt's side.
struct Source {
    tx: Option<Producer<'static, u32, 8>>,
    next: u32,
    refused: u32,
    refused_sum: u64,
    mpmc_refused: u32,
    mpmc_refused_sum: u64,
    cs_refused: u32,
    cs_refused_sum: u64,
}

#[exception]
fn SysTick() {
    critical_section::with(|cs| {
        let mut source = SOURCE.borrow_ref_mut(cs);
        let Some(s) = source.as_mut() else { return };
        // First ITEMS into the SPSC ring, then (producer dropped: the task's
        // `rx.pop()` answers None once drained) ITEMS into the MPMC ring,
        // then the close, then the same into the cs ring.
        if let Some(tx) = s.tx.as_mut() {
            if tx.try_push(s.next).is_err() {
                s.refused += 1;
                s.refused_sum += s.next as u64;
            }
            s.next += 1;
            if s.next == ITEMS {
                s.tx = None;
                s.next = 0;
            }
        } else if s.next < ITEMS {
            if EVENTS.try_push(s.next).is_err() {
                s.mpmc_refused += 1;
                s.mpmc_refused_sum += s.next as u64;
            }
            s.next += 1;
            if s.next == ITEMS {
                EVENTS.close();
            }
        } else if s.next < 2 * ITEMS {
            let v = s.next - ITEMS;
            if CS_EVENTS.try_push(v).is_err() {
                s.cs_refused += 1;
                s.cs_refused_sum += v as u64;
            }
            s.next += 1;
            if s.next == 2 * ITEMS {
                CS_EVENTS.close();
            }
        }
    });
}

// --- the executor: one task, a flag, `wfi` --------------------------------

static WOKEN: AtomicBool = AtomicBool::new(false);
static WAKES: AtomicU32 = AtomicU32::new(0);

fn wake_flag() {
    // Load and store (thumbv6m has no fetch_add), in a critical section: the
    // task's own registration may wake it too.
    critical_section::with(|_| WAKES.store(WAKES.load(Ordering::Relaxed) + 1, Ordering::Relaxed));
    WOKEN.store(true, Ordering::Release);
}

const VTABLE: RawWakerVTable = RawWakerVTable::new(
    |_| RawWaker::new(core::ptr::null(), &VTABLE),
    |_| wake_flag(),
    |_| wake_flag(),
    |_| {},
);

/// Polls `fut` to completion; between polls sleeps until a wake. Returns the
/// output and how many polls returned Pending.
fn block_on<F: Future>(fut: F) -> (F::Output, u32) {
    let mut fut = pin!(fut);
    // SAFETY: the vtable's functions ignore the data pointer (null) and
    // touch only statics, so every contract of RawWaker holds trivially.
    let waker = unsafe { Waker::from_raw(RawWaker::new(core::ptr::null(), &VTABLE)) };
    let mut cx = Context::from_waker(&waker);
    let mut pending = 0;
    loop {
        WOKEN.store(false, Ordering::Relaxed);
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return (out, pending);
        }
        pending += 1;
        // Sleep until the interrupt has woken the task. Interrupts are
        // masked between the check and `wfi`, so a wake in between is not
        // slept through (`wfi` returns on a pending interrupt even masked).
        loop {
            cortex_m::interrupt::disable();
            if WOKEN.load(Ordering::Acquire) {
                // SAFETY: re-enables what we disabled just above.
                unsafe { cortex_m::interrupt::enable() };
                break;
            }
            cortex_m::asm::wfi();
            // SAFETY: as above; the pending SysTick runs now.
            unsafe { cortex_m::interrupt::enable() };
        }
    }
}

/// What the task saw on one ring.
#[derive(Default)]
struct Got {
    count: u32,
    sum: u64,
    last: u32,
    out_of_order: u32,
}

impl Got {
    fn take(&mut self, v: u32) {
        if self.count > 0 && v <= self.last {
            self.out_of_order += 1;
        }
        self.count += 1;
        self.sum += v as u64;
        self.last = v;
    }
}

#[entry]
fn main() -> ! {
    let mut syst = cortex_m::Peripherals::take().unwrap().SYST;
    let (tx, mut rx) = RING.try_split().unwrap();
    critical_section::with(|cs| {
        SOURCE.borrow(cs).replace(Some(Source {
            tx: Some(tx),
            next: 0,
            refused: 0,
            refused_sum: 0,
            mpmc_refused: 0,
            mpmc_refused_sum: 0,
            cs_refused: 0,
            cs_refused_sum: 0,
        }))
    });
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(500);
    syst.clear_current();
    syst.enable_counter();
    syst.enable_interrupt();

    let ((spsc, mpmc, cs), pending) = block_on(async {
        let mut spsc = Got::default();
        while let Some(v) = rx.pop().await {
            spsc.take(v);
            // Work now and then slower than the interrupt: the ring fills.
            fw::spin(if v % 64 < 8 { 600 } else { 20 });
        }
        let mut mpmc = Got::default();
        while let Some(v) = EVENTS.pop().await {
            mpmc.take(v);
            fw::spin(if v % 64 < 8 { 600 } else { 20 });
        }
        let mut cs = Got::default();
        while let Some(v) = CS_EVENTS.pop().await {
            cs.take(v);
            fw::spin(if v % 64 < 8 { 600 } else { 20 });
        }
        (spsc, mpmc, cs)
    });
    syst.disable_interrupt();

    let s = critical_section::with(|cs| SOURCE.borrow(cs).take().unwrap());
    let all = ITEMS as u64 * (ITEMS as u64 - 1) / 2;
    let wakes = WAKES.load(Ordering::Relaxed);
    let spsc_ok = spsc.count + s.refused == ITEMS
        && spsc.sum + s.refused_sum == all
        && spsc.out_of_order == 0
        && s.refused as usize == RING.stats().rejected;
    let mpmc_ok = mpmc.count + s.mpmc_refused == ITEMS
        && mpmc.sum + s.mpmc_refused_sum == all
        && mpmc.out_of_order == 0
        && s.mpmc_refused as usize == EVENTS.stats().rejected;
    let cs_ok = cs.count + s.cs_refused == ITEMS
        && cs.sum + s.cs_refused_sum == all
        && cs.out_of_order == 0
        && s.cs_refused as usize == CS_EVENTS.stats().rejected;
    let ok = spsc_ok && mpmc_ok && cs_ok && pending > 0 && wakes >= pending;
    fw::hprintln!(
        "async {} ({}, {}): {} spsc[received={} refused={}] mpmc[received={} refused={}] cs[received={} refused={}] task[pending={} wakes={}]",
        fw::BOARD,
        fw::CORE,
        fw::CAS,
        if ok { "PASS" } else { "FAIL" },
        spsc.count,
        s.refused,
        mpmc.count,
        s.mpmc_refused,
        cs.count,
        s.cs_refused,
        pending,
        wakes
    );
    fw::exit(ok)
}
