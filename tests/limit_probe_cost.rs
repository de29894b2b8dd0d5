//! What the limiter's probes cost under a heavy-tailed service, where the
//! baseline's noise makes rises that a probe cannot tell from a slower
//! dependency: lognormal service times (σ = 1: the p99 is ten times the
//! median), 300 s, on draws of each scenario. Prints, per preset, the probes
//! per minute over the run and, from 10 s on, good-put in % of capacity
//! (mean and worst draw) and the client latency of good answers (means over
//! the draws). `BENCHMARKS.md`
//! ("What the probes after a rise cost") quotes it.
//!
//! ```text
//! cargo test --release --test limit_probe_cost -- --ignored --nocapture
//! ```
#![cfg(not(sluicegate_loom))]

mod scenarios;

use scenarios::catalogue as cat;
use scenarios::crate_limiters::CrateLimiter;
use scenarios::harness::{run, Limits, Scenario, Service, Window};
use sluicegate::limit::{Limiter, LimiterConfig};

const MS: u64 = 1000;
const SECS: u64 = 300;
/// Critical, Normal, Background in ‰.
const MIX: [u32; 3] = [200, 500, 300];
const NORMAL: [u32; 3] = [0, 1000, 0];

/// `clients` closed-loop clients on `workers` workers × lognormal
/// `median_ms`, `min_limit` `min`.
fn closed(clients: u32, workers: u32, min: u32, median_ms: u64, classes: [u32; 3]) -> Scenario {
    let mut sc = cat::closed_loop(clients, SECS);
    sc.name = format!("closed-{clients}-on-{workers}-min-{min}");
    sc.workers = vec![(0, workers)];
    sc.limits = Limits {
        min,
        initial: workers,
        max: 400,
    };
    sc.service = Service::LogNormal {
        median_us: median_ms * MS,
        sigma_centi: 100,
    };
    sc.classes = classes;
    sc.windows = vec![Window::secs(10.0, SECS as f64)];
    sc
}

/// Open-loop arrivals at `load` × capacity on 32 workers, `min_limit` 2.
fn open(load: f64, classes: [u32; 3]) -> Scenario {
    let service = Service::LogNormal {
        median_us: 6 * MS,
        sigma_centi: 100,
    };
    let mut sc = cat::base("open", "open", 32, service, load, SECS);
    sc.name = format!("open-{}-on-32-min-2", (load * 100.0) as u32);
    sc.limits = Limits {
        min: 2,
        initial: 32,
        max: 400,
    };
    sc.classes = classes;
    sc.windows = vec![Window::secs(10.0, SECS as f64)];
    sc
}

fn report(sc: &Scenario, classes: &str, draws: u64) {
    for (law, cfg) in [
        ("AIMD", LimiterConfig::DEFAULT),
        ("gradient", LimiterConfig::GRADIENT),
    ] {
        let (mut probes, mut good, mut worst, mut p50, mut p99) = (0.0, 0.0, f64::MAX, 0.0, 0.0);
        for k in 0..draws {
            let d = sc.reseeded(k);
            let l = Limiter::new(LimiterConfig {
                min_limit: d.limits.min,
                initial_limit: d.limits.initial,
                max_limit: d.limits.max,
                ..cfg
            });
            let r = run(&d, &mut CrateLimiter::new(&l), law);
            assert_eq!(l.in_flight(), 0);
            let m = r.main();
            probes += l.stats().probes as f64 * 60.0 / SECS as f64;
            good += m.goodput_pct;
            worst = worst.min(m.goodput_pct);
            p50 += m.p50_us as f64 / 1e3;
            p99 += m.p99_us as f64 / 1e3;
        }
        let n = draws as f64;
        println!(
            "| {} | {classes} | {law} | {:.1} | {:.1} ({:.1}) | {:.1} | {:.1} |",
            sc.name,
            probes / n,
            good / n,
            worst,
            p50 / n,
            p99 / n
        );
    }
}

#[test]
#[ignore = "minutes of simulation; prints a table for BENCHMARKS.md"]
fn probes_under_a_heavy_tailed_service() {
    println!(
        "| scenario | classes | law | probes / min | good-put % (worst draw) | p50 ms | p99 ms |"
    );
    println!("|---|---|---|---:|---:|---:|---:|");
    report(&closed(128, 32, 2, 3, MIX), "20/50/30", 4);
    report(&closed(128, 32, 2, 3, NORMAL), "Normal", 4);
    report(&open(1.5, MIX), "20/50/30", 16);
    report(&closed(64, 8, 8, 3, NORMAL), "Normal", 4);
}
