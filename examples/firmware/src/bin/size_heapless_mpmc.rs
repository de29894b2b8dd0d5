//! Code-size twin of `size_mpmc_cs`: the same interrupt-to-main pipeline on a
//! `static` heapless 0.9 `mpmc::Queue` (Vyukov; rejects when full; heapless
//! counts nothing, so the interrupt counts the drops). Compare the `.text` sizes.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::{entry, exception};
use heapless::mpmc::Queue;

const SAMPLES: u32 = 20_000;

// heapless 0.9 deprecates the constructor (not lock-free under preemption).
#[expect(deprecated)]
static RING: Queue<u32, 16> = Queue::new();
/// Next sample and drops; only the interrupt stores them.
static NEXT: AtomicU32 = AtomicU32::new(0);
static DROPPED: AtomicU32 = AtomicU32::new(0);
static DONE: AtomicBool = AtomicBool::new(false);

#[exception]
fn SysTick() {
    let next = NEXT.load(Ordering::Relaxed);
    if next < SAMPLES {
        if RING.enqueue(next).is_err() {
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
        match RING.dequeue() {
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
    let ok = got + dropped == SAMPLES && sum > 0;
    fw::hprintln!(
        "size_heapless_mpmc: received={} dropped={} ok={}",
        got,
        dropped,
        ok
    );
    fw::exit(ok)
}
