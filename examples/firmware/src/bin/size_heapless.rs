//! Code-size twin of `size_sluicegate`: the same interrupt-to-main pipeline
//! on a heapless 0.9 SPSC queue (reject when full; heapless counts nothing,
//! so the interrupt counts the drops). Compare the `.text` sizes.
#![no_std]
#![no_main]

use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::{entry, exception};
use critical_section::Mutex;
use heapless::spsc::{Producer, Queue};

const SAMPLES: u32 = 20_000;

static SOURCE: Mutex<RefCell<Option<Source>>> = Mutex::new(RefCell::new(None));
static DONE: AtomicBool = AtomicBool::new(false);

struct Source {
    tx: Producer<'static, u32>,
    next: u32,
    dropped: u32,
}

#[exception]
fn SysTick() {
    critical_section::with(|cs| {
        if let Some(s) = SOURCE.borrow_ref_mut(cs).as_mut() {
            if s.next < SAMPLES {
                if s.tx.enqueue(s.next).is_err() {
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
    // heapless splits a queue borrowed mutably for 'static: `singleton!`
    // hands one out without a mutable `static` in user code. 16 slots hold
    // 15 items (heapless keeps one slot free to tell full from empty).
    let queue = cortex_m::singleton!(: Queue<u32, 16> = Queue::new()).unwrap();
    let (tx, mut rx) = queue.split();
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
        match rx.dequeue() {
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
    let ok = got + dropped == SAMPLES && sum > 0;
    fw::hprintln!(
        "size_heapless: received={} dropped={} ok={}",
        got,
        dropped,
        ok
    );
    fw::exit(ok)
}
