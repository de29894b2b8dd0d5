//! Board support shared by the firmware binaries: semihosting output and exit,
//! a panic handler, and instruction counting with SysTick under QEMU's
//! `-icount`.
#![no_std]

use core::panic::PanicInfo;

use cortex_m::peripheral::{syst::SystClkSource, SYST};
use cortex_m_semihosting::debug;
pub use cortex_m_semihosting::hprintln;

/// The QEMU machine this build is for (from the target triple, see build.rs).
pub const BOARD: &str = env!("FW_BOARD");
/// Its core.
pub const CORE: &str = env!("FW_CORE");
/// Short name of this build (core and CAS flavour) for the cost table.
pub const TAG: &str = env!("FW_TAG");
/// This build's board field in the `cost` lines: `microbit-cs`,
/// `microbit-sc` or `lm3s6965evb`.
pub const ID: &str = env!("FW_ID");
/// Where compare-and-swap comes from in this build.
pub const CAS: &str = env!("FW_CAS");

/// Ends the QEMU run: exit status 0 if `ok`, 1 otherwise.
pub fn exit(ok: bool) -> ! {
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    #[allow(clippy::empty_loop)]
    loop {}
}

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    hprintln!("PANIC {}", info);
    exit(false)
}

/// Spins for exactly `2 * n` instructions (plus the call): a two-instruction
/// countdown loop.
#[inline(never)]
pub fn spin(n: u32) {
    if n == 0 {
        return;
    }
    // SAFETY: a register-only countdown loop; touches no memory or stack and
    // leaves every register but the one we own as it was.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {0}, #1",
            "bne 2b",
            inout(reg) n => _,
            options(nomem, nostack),
        );
    }
}

/// SysTick as a down-counting 24-bit clock (interrupt off) and the ratio
/// between its ticks and executed instructions, measured once.
pub struct Clock {
    /// Ticks for `CAL_INSNS` instructions.
    cal_ticks: u32,
}

/// Instructions in the calibration run.
const CAL_INSNS: u32 = 200_000;

impl Clock {
    /// Starts SysTick free-running on the core clock (no interrupt) and
    /// measures ticks per instruction with [`spin`].
    pub fn start(syst: &mut SYST) -> Self {
        syst.disable_interrupt();
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(0x00FF_FFFF);
        syst.clear_current();
        syst.enable_counter();
        // The difference of two spins cancels the call overhead exactly.
        let t0 = now();
        spin(CAL_INSNS / 2 + 1000);
        let t1 = now();
        spin(1000);
        let t2 = now();
        let long = ticks(t0, t1);
        let short = ticks(t1, t2);
        Self {
            cal_ticks: long - short,
        }
    }

    /// Ticks that `insns` instructions take.
    pub fn ticks_for(&self, insns: u32) -> u32 {
        ((insns as u64 * self.cal_ticks as u64) / CAL_INSNS as u64) as u32
    }

    /// Instructions × 10 that `ticks` took, per one of `ops` operations.
    pub fn insns_x10(&self, ticks: i64, ops: u32) -> i64 {
        let den = self.cal_ticks as i64 * ops as i64;
        let num = ticks * CAL_INSNS as i64 * 10;
        // Round to nearest.
        (num + den / 2).div_euclid(den)
    }

    /// Ticks per 1000 instructions (for the report).
    pub fn ticks_per_1000_insns(&self) -> u32 {
        self.ticks_for(1000)
    }
}

/// The SysTick counter now (counts down).
#[inline(always)]
pub fn now() -> u32 {
    SYST::get_current()
}

/// Ticks from `start` to `end` (both from [`now`], less than 2^24 apart).
#[inline(always)]
pub fn ticks(start: u32, end: u32) -> u32 {
    start.wrapping_sub(end) & 0x00FF_FFFF
}

/// A small xorshift generator for jitter.
pub struct Rng(u32);

impl Rng {
    /// Seeded (`seed` must not be 0).
    pub const fn new(seed: u32) -> Self {
        Self(seed)
    }
    /// The next value.
    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
    /// A value in `lo..lo + span` (`span` > 0).
    pub fn range(&mut self, lo: u32, span: u32) -> u32 {
        lo + self.next_u32() % span
    }
}

#[cfg(feature = "defmt")]
mod defmt_logger {
    //! A defmt logger with no transport under QEMU: it counts the encoded
    //! bytes, which proves the `defmt::Format` impls run.
    use core::sync::atomic::{AtomicU32, Ordering};

    static BYTES: AtomicU32 = AtomicU32::new(0);

    #[defmt::global_logger]
    struct Counter;

    // SAFETY: defmt calls `write` only between `acquire` and `release`; the
    // firmware logs from the main loop only (never from an interrupt), so
    // there is no reentrancy, and the only state is an atomic counter.
    unsafe impl defmt::Logger for Counter {
        fn acquire() {}
        unsafe fn flush() {}
        unsafe fn release() {}
        unsafe fn write(bytes: &[u8]) {
            let n = BYTES.load(Ordering::Relaxed);
            BYTES.store(n + bytes.len() as u32, Ordering::Relaxed);
        }
    }

    /// Bytes the defmt encoder has produced so far.
    pub fn bytes() -> u32 {
        BYTES.load(Ordering::Relaxed)
    }

    #[defmt::panic_handler]
    fn defmt_panic() -> ! {
        super::exit(false)
    }
}

#[cfg(feature = "defmt")]
pub use defmt_logger::bytes as defmt_bytes;
