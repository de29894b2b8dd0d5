//! RAM of every ring type on this host, measured with `size_of` and pinned
//! for x86-64, where the README's "which type for which job" table quotes
//! them (`u32` items; the Cortex-M figures come from the firmware's `ram`
//! binary under `ci/qemu.sh`). A layout change that moves these numbers
//! fails here until the table is updated.
#![cfg(not(sluicegate_loom))]

use core::mem::size_of;
use sluicegate::limit::Limiter;
use sluicegate::{mpmc, spsc};

fn measured() -> Vec<(&'static str, usize, usize)> {
    let mut rows = Vec::new();
    macro_rules! rows {
        ($($n:literal),+) => {$(
            rows.push(("spsc::Ring", $n, size_of::<spsc::Ring<u32, $n>>()));
            rows.push(("spsc::Ring<Overwrite>", $n, size_of::<spsc::Ring<u32, $n, spsc::Overwrite>>()));
            rows.push(("spsc::flag::Ring", $n, size_of::<spsc::flag::Ring<u32, $n>>()));
            rows.push(("mpmc::Ring", $n, size_of::<mpmc::Ring<u32, $n>>()));
            #[cfg(feature = "critical-section")]
            rows.push(("mpmc::cs::Ring", $n, size_of::<mpmc::cs::Ring<u32, $n>>()));
            #[cfg(feature = "critical-section")]
            rows.push((
                "mpmc::cs::Ring<Marked>",
                $n,
                size_of::<mpmc::cs::Ring<u32, $n, mpmc::cs::Marked>>(),
            ));
        )+};
    }
    rows!(8, 128, 1024);
    rows.push(("mpmc::SmallRing", 8, size_of::<mpmc::SmallRing<u32, 8>>()));
    rows.push(("mpmc::SmallRing", 64, size_of::<mpmc::SmallRing<u32, 64>>()));
    rows.push(("mpmc::Ring", 64, size_of::<mpmc::Ring<u32, 64>>()));
    rows.push((
        "mpmc::Ring<FreeBits>",
        8,
        size_of::<mpmc::Ring<u32, 8, mpmc::FreeBits<1>>>(),
    ));
    rows.push((
        "mpmc::Ring<FreeBits>",
        128,
        size_of::<mpmc::Ring<u32, 128, mpmc::FreeBits<4>>>(),
    ));
    rows.push((
        "mpmc::Ring<FreeBits>",
        1024,
        size_of::<mpmc::Ring<u32, 1024, mpmc::FreeBits<32>>>(),
    ));
    rows.push((
        "mpmc::BurstRing",
        8,
        size_of::<mpmc::BurstRing<u32, 8, 1>>(),
    ));
    rows.push((
        "mpmc::BurstRing",
        128,
        size_of::<mpmc::BurstRing<u32, 128, 4>>(),
    ));
    rows.push((
        "mpmc::BurstRing",
        1024,
        size_of::<mpmc::BurstRing<u32, 1024, 32>>(),
    ));
    rows.push((
        "mpmc::Ring<Marked>",
        8,
        size_of::<mpmc::Ring<u32, 8, mpmc::FreeIndices<8>, mpmc::Marked>>(),
    ));
    rows.push((
        "mpmc::Ring<Marked>",
        1024,
        size_of::<mpmc::Ring<u32, 1024, mpmc::FreeIndices<1024>, mpmc::Marked>>(),
    ));
    rows.push((
        "mpmc::BurstRing<Marked>",
        8,
        size_of::<mpmc::BurstRing<u32, 8, 1, mpmc::burst_ring::Marked>>(),
    ));
    rows.push((
        "mpmc::BurstRing<Marked>",
        1024,
        size_of::<mpmc::BurstRing<u32, 1024, 32, mpmc::burst_ring::Marked>>(),
    ));
    rows.push(("limit::Limiter", 0, size_of::<Limiter>()));
    rows
}

// With the `async` feature every ring also holds its waiters, which the
// rows below leave out (`async_adds` pins them): on x86-64 one more 128-byte
// line for an SPSC ring (a waker cell per side) and for an `mpmc::Ring` or
// `mpmc::BurstRing` (a waiter list per side: count, lock word, head and
// tail; a `Marked` burst ring's drain waiters share its marks' line), and
// 48 bytes for an `mpmc::cs::Ring` (a count and a list per side;
// 24 more with `Marked`, the drain waiters' list and count);
// a `limit::Limiter` holds its waiting acquires' backlog, one more line.
#[test]
#[cfg(all(target_arch = "x86_64", not(feature = "async")))]
fn ram_on_x86_64_is_what_the_readme_says() {
    let want: &[(&str, usize, usize)] = &[
        ("spsc::Ring", 8, 384),
        ("spsc::Ring<Overwrite>", 8, 384),
        ("spsc::flag::Ring", 8, 96),
        ("mpmc::Ring", 8, 1152),
        ("mpmc::cs::Ring", 8, 88),
        ("mpmc::cs::Ring<Marked>", 8, 128),
        ("spsc::Ring", 128, 896),
        ("spsc::Ring<Overwrite>", 128, 1024),
        ("spsc::flag::Ring", 128, 1056),
        ("mpmc::Ring", 128, 5504),
        ("mpmc::cs::Ring", 128, 568),
        ("spsc::Ring", 1024, 4480),
        ("spsc::Ring<Overwrite>", 1024, 5504),
        ("spsc::flag::Ring", 1024, 8224),
        ("mpmc::Ring", 1024, 37760),
        ("mpmc::cs::Ring", 1024, 4152),
        ("mpmc::cs::Ring<Marked>", 1024, 4192),
        ("mpmc::Ring", 64, 3200),
        ("mpmc::SmallRing", 8, 768),
        ("mpmc::SmallRing", 64, 1920),
        ("mpmc::Ring<FreeBits>", 8, 896),
        ("mpmc::Ring<FreeBits>", 128, 3328),
        ("mpmc::Ring<FreeBits>", 1024, 21248),
        ("mpmc::BurstRing", 8, 768),
        ("mpmc::BurstRing", 128, 1152),
        ("mpmc::BurstRing", 1024, 4864),
        ("mpmc::Ring<Marked>", 8, 1280),
        ("mpmc::Ring<Marked>", 1024, 37888),
        ("mpmc::BurstRing<Marked>", 8, 896),
        ("mpmc::BurstRing<Marked>", 1024, 4992),
        ("limit::Limiter", 0, 512),
    ];
    let got = measured();
    for (name, n, bytes) in &got {
        eprintln!("ram x86_64 {name} u32 {n} {bytes}");
    }
    for row in want {
        if cfg!(feature = "critical-section") || !row.0.starts_with("mpmc::cs::Ring") {
            assert!(got.contains(row), "{row:?} not in {got:?}");
        }
    }
}

/// What the `async` feature adds to each ring (x86-64): the waiters.
#[test]
#[cfg(all(target_arch = "x86_64", feature = "async"))]
fn async_adds() {
    let got = measured();
    let size = |name: &str, n: usize| got.iter().find(|r| r.0 == name && r.1 == n).unwrap().2;
    for n in [8, 128, 1024] {
        eprintln!(
            "ram x86_64 async {n}: spsc {} mpmc {}",
            size("spsc::Ring", n),
            size("mpmc::Ring", n)
        );
    }
    assert_eq!(size("spsc::Ring", 8), 384 + 128);
    assert_eq!(size("mpmc::Ring", 8), 1152 + 128);
    assert_eq!(size("mpmc::Ring", 128), 5504 + 128);
    assert_eq!(size("mpmc::SmallRing", 8), 768 + 128);
    assert_eq!(size("mpmc::BurstRing", 8), 768 + 128);
    assert_eq!(size("mpmc::BurstRing", 1024), 4864 + 128);
    // The drain waiters' list shares the marks' line.
    assert_eq!(size("mpmc::BurstRing<Marked>", 1024), 4992 + 128);
    #[cfg(feature = "critical-section")]
    assert_eq!(size("mpmc::cs::Ring", 8), 88 + 64);
    // And a `Marked` one, its drain waiters' list and count.
    #[cfg(feature = "critical-section")]
    assert_eq!(size("mpmc::cs::Ring<Marked>", 8), 128 + 64 + 32);
    // The waiting acquires' backlog: one more line, and the configuration
    // and the rise words, last, no longer fit the one after it.
    assert_eq!(size("limit::Limiter", 0), 512 + 256);
}
