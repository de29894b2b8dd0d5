//! Code-size twin of `size_heapless`: the same interrupt-to-main pipeline on
//! a sluicegate SPSC ring (reject when full). Compare the `.text` sizes.
#![no_std]
#![no_main]

use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::{entry, exception};
use critical_section::Mutex;
use sluicegate::spsc::{Producer, Ring};

const SAMPLES: u32 = 20_000;

static RING: Ring<u32, 16> = Ring::new();
static SOURCE: Mutex<RefCell<Option<Source>>> = Mutex::new(RefCell::new(None));
static DONE: AtomicBool = AtomicBool::new(false);

struct Source {
    tx: Producer<'static, u32, 16>,
    next: u32,
    dropped: u32,
}

#[exception]
fn SysTick() {
    critical_section::with(|cs| {
        if let Some(s) = SOURCE.borrow_ref_mut(cs).as_mut() {
            if s.next < SAMPLES {
                if s.tx.try_push(s.next).is_err() {
                    s.dropped += 1;
                }
                s.next += 1;
                if s.next == SAMPLES {
                    DONE.store(true, Ordering::Release);
                }
            }
        }
    });
}

#[entry]
fn main() -> ! {
    let mut syst = cortex_m::Peripherals::take().unwrap().SYST;
    let (tx, mut rx) = RING.try_split().unwrap();
    critical_section::with(|cs| {
        SOURCE.borrow(cs).replace(Some(Source {
            tx,
            next: 0,
            dropped: 0,
        }))
    });
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(400);
    syst.clear_current();
    syst.enable_counter();
    syst.enable_interrupt();
    let (mut got, mut sum) = (0u32, 0u64);
    loop {
        let done = DONE.load(Ordering::Acquire);
        match rx.try_pop() {
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
    let dropped = critical_section::with(|cs| SOURCE.borrow_ref(cs).as_ref().unwrap().dropped);
    let ok = got + dropped == SAMPLES && dropped as usize == RING.stats().rejected && sum > 0;
    fw::hprintln!(
        "size_sluicegate: received={} dropped={} ok={}",
        got,
        dropped,
        ok
    );
    fw::exit(ok)
}
