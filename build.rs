//! Decides once whether compare-and-swap is available, as the cfg
//! `sluicegate_cas`: natively (`target_has_atomic = "ptr"`), through the
//! `portable-atomic` feature, or under loom. Every CAS-only module and item is
//! gated on that one name.

use std::env;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sluicegate_cas)");
    println!("cargo::rerun-if-changed=build.rs");
    let native = env::var("CARGO_CFG_TARGET_HAS_ATOMIC")
        .map(|widths| widths.split(',').any(|w| w == "ptr"))
        .unwrap_or(false);
    let portable = env::var_os("CARGO_FEATURE_PORTABLE_ATOMIC").is_some();
    let loom = env::var_os("CARGO_CFG_SLUICEGATE_LOOM").is_some();
    if native || portable || loom {
        println!("cargo::rustc-cfg=sluicegate_cas");
    }
}
