//! RAM of every ring type, measured with `size_of` in this build: one line
//! `ram <board> <implementation> <T> <N> <bytes>` per type and size, for the
//! README's "which type for which job" table. heapless 0.9's queues beside
//! them (its `mpmc::Queue` takes at most 128 items with the default `u8`
//! index).
#![no_std]
#![no_main]

use core::mem::size_of;

use cortex_m_rt::entry;
use fw::hprintln;
use sluicegate::limit::Limiter;
use sluicegate::{mpmc, spsc};

fn line(implementation: &str, t: &str, n: usize, bytes: usize) {
    hprintln!("ram {} {} {} {} {}", fw::ID, implementation, t, n, bytes);
}

macro_rules! rows {
    ($($n:literal),+) => {$(
        line("sluicegate-spsc", "u32", $n, size_of::<spsc::Ring<u32, $n>>());
        line("sluicegate-spsc-overwrite", "u32", $n, size_of::<spsc::Ring<u32, $n, spsc::Overwrite>>());
        line("sluicegate-spsc-marked", "u32", $n, size_of::<spsc::Ring<u32, $n, spsc::Marked>>());
        line("sluicegate-spsc-flag", "u32", $n, size_of::<spsc::flag::Ring<u32, $n>>());
        line("sluicegate-mpmc", "u32", $n, size_of::<mpmc::Ring<u32, $n>>());
        line("sluicegate-mpmc-cs", "u32", $n, size_of::<mpmc::cs::Ring<u32, $n>>());
        line("sluicegate-mpmc-cs-marked", "u32", $n, size_of::<mpmc::cs::Ring<u32, $n, mpmc::cs::Marked>>());
        line("heapless-spsc", "u32", $n, size_of::<heapless::spsc::Queue<u32, $n>>());
    )+};
}

#[entry]
fn main() -> ! {
    rows!(8, 128, 1024);
    line(
        "sluicegate-mpmc-mask",
        "u32",
        8,
        size_of::<mpmc::SmallRing<u32, 8>>(),
    );
    line(
        "sluicegate-mpmc-mask",
        "u32",
        32,
        size_of::<mpmc::SmallRing<u32, 32>>(),
    );
    line(
        "sluicegate-mpmc",
        "u32",
        32,
        size_of::<mpmc::Ring<u32, 32>>(),
    );
    line(
        "sluicegate-mpmc-bits",
        "u32",
        8,
        size_of::<mpmc::Ring<u32, 8, mpmc::FreeBits<1>>>(),
    );
    line(
        "sluicegate-mpmc-bits",
        "u32",
        128,
        size_of::<mpmc::Ring<u32, 128, mpmc::FreeBits<4>>>(),
    );
    line(
        "sluicegate-mpmc-bits",
        "u32",
        1024,
        size_of::<mpmc::Ring<u32, 1024, mpmc::FreeBits<32>>>(),
    );
    line(
        "sluicegate-burst-ring",
        "u32",
        8,
        size_of::<mpmc::BurstRing<u32, 8, 1>>(),
    );
    line(
        "sluicegate-burst-ring",
        "u32",
        128,
        size_of::<mpmc::BurstRing<u32, 128, 4>>(),
    );
    line(
        "sluicegate-burst-ring",
        "u32",
        1024,
        size_of::<mpmc::BurstRing<u32, 1024, 32>>(),
    );
    line(
        "sluicegate-mpmc-marked",
        "u32",
        8,
        size_of::<mpmc::Ring<u32, 8, mpmc::FreeIndices<8>, mpmc::Marked>>(),
    );
    line(
        "sluicegate-mpmc-marked",
        "u32",
        1024,
        size_of::<mpmc::Ring<u32, 1024, mpmc::FreeIndices<1024>, mpmc::Marked>>(),
    );
    line(
        "sluicegate-burst-ring-marked",
        "u32",
        8,
        size_of::<mpmc::BurstRing<u32, 8, 1, mpmc::burst_ring::Marked>>(),
    );
    line(
        "sluicegate-burst-ring-marked",
        "u32",
        1024,
        size_of::<mpmc::BurstRing<u32, 1024, 32, mpmc::burst_ring::Marked>>(),
    );
    for n in [8, 128] {
        let bytes = match n {
            8 => size_of::<heapless::mpmc::Queue<u32, 8>>(),
            _ => size_of::<heapless::mpmc::Queue<u32, 128>>(),
        };
        line("heapless-mpmc", "u32", n, bytes);
    }
    line("sluicegate-limit", "-", 0, size_of::<Limiter>());
    fw::exit(true)
}
