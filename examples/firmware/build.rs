//! Picks the board (and its `memory.x`) from the target triple and passes the
//! linker scripts.
use std::{env, fs, path::PathBuf};

fn main() {
    let target = env::var("TARGET").unwrap();
    let (board, core) = match target.as_str() {
        "thumbv6m-none-eabi" => ("microbit", "Cortex-M0"),
        "thumbv7m-none-eabi" => ("lm3s6965evb", "Cortex-M3"),
        other => {
            panic!("no board for target {other}: use thumbv6m-none-eabi or thumbv7m-none-eabi")
        }
    };
    if board == "microbit"
        && env::var_os("CARGO_FEATURE_CAS_CRITICAL_SECTION").is_none()
        && env::var_os("CARGO_FEATURE_CAS_SINGLE_CORE").is_none()
    {
        panic!(
            "thumbv6m has no CAS: build with --features cas-critical-section or cas-single-core"
        );
    }
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let src = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("memory")
        .join(format!("{board}.x"));
    fs::copy(&src, out.join("memory.x")).unwrap();
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-env=FW_BOARD={board}");
    println!("cargo:rustc-env=FW_CORE={core}");
    let cas = if env::var_os("CARGO_FEATURE_CAS_CRITICAL_SECTION").is_some() {
        "CAS via critical-section"
    } else if env::var_os("CARGO_FEATURE_CAS_SINGLE_CORE").is_some() {
        "CAS via portable-atomic single-core"
    } else {
        "native CAS"
    };
    println!("cargo:rustc-env=FW_CAS={cas}");
    // Short name of this build in the cost table.
    let tag = match (board, cas) {
        ("microbit", "CAS via critical-section") => "M0/critical-section",
        ("microbit", _) => "M0/single-core",
        _ => "M3",
    };
    println!("cargo:rustc-env=FW_TAG={tag}");
    // The board field of the machine-readable `cost` lines (ci/qemu.sh's names).
    let id = match (board, cas) {
        ("microbit", "CAS via critical-section") => "microbit-cs",
        ("microbit", _) => "microbit-sc",
        _ => "lm3s6965evb",
    };
    // With the library's `async` feature: the same board, suffixed.
    let suffix = if env::var_os("CARGO_FEATURE_ASYNC").is_some() {
        "-async"
    } else {
        ""
    };
    println!("cargo:rustc-env=FW_ID={id}{suffix}");
    println!("cargo:rustc-link-arg=-Tlink.x");
    if env::var_os("CARGO_FEATURE_DEFMT").is_some() {
        println!("cargo:rustc-link-arg=-Tdefmt.x");
    }
}
