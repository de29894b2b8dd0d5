//! Code-size twin of `size_heapless_mpmc`: an interrupt-to-main pipeline on a
//! `static` `mpmc::cs::Ring` (each operation one critical section; rejects
//! when full). Compare the `.text` sizes.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::{entry, exception};
use sluicegate::mpmc::cs::Ring;

const SAMPLES: u32 = 20_000;

static RING: Ring<u32, 16> = Ring::new();
/// Next sample and drops; only the interrupt stores them.
static NEXT: AtomicU32 = AtomicU32::new(0);
static DROPPED: AtomicU32 = AtomicU32::new(0);
static DONE: AtomicBool = AtomicBool::new(false);

#[exception]
fn SysTick() {
    let next = NEXT.load(Ordering::Relaxed);
    if next < SAMPLES {
        if RING.try_push(next).is_err() {
            DROPPED.store(DROPPED.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
        NEXT.store(next + 1, Ordering::Relaxed);
        if next + 1 == SAMPLES {
            DONE.store(true, Ordering::Release);
        }
    }
}

#[entry]
fn main() -> ! {
    let mut syst = cortex_m::Peripherals::take().unwrap().SYST;
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(400);
    syst.clear_current();
    syst.enable_counter();
    syst.enable_interrupt();
    let (mut got, mut sum) = (0u32, 0u64);
    loop {
        let done = DONE.load(Ordering::Acquire);
        match RING.try_pop() {
            Some(v) => {
                got += 1;
                sum += v as u64;
                fw::spin(v % 512);
            }
            None if done => break,
            None => {}
        }
    }
    syst.disable_interrupt();
    let dropped = DROPPED.load(Ordering::Relaxed);
    let ok = got + dropped == SAMPLES && dropped as usize == RING.stats().rejected && sum > 0;
    fw::hprintln!(
        "size_mpmc_cs: received={} dropped={} ok={}",
        got,
        dropped,
        ok
    );
    fw::exit(ok)
}
