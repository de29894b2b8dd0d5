//! The AIMD limiter in front of a server of fixed capacity, as scenarios of
//! the limiter suite's engine (`tests/scenarios/harness.rs`).
//!
//! The server is `CAP` workers × 10 ms ± 10 % behind one FIFO queue; clients
//! give up after four service times; arrivals are Poisson. Each case changes
//! the offered load (and the workers) in phases and checks each phase's
//! window: the limit's mean over the window's second half, good-put against
//! the window's capacity, per-class success and shed rates. Assertions are
//! ranges derived from the model, not recorded outputs.
#![cfg(not(sluicegate_loom))]

mod scenarios;

use scenarios::catalogue::{base, uniform};
use scenarios::crate_limiters::limiter_row;
use scenarios::harness::{Counts, Limits, Report, Scenario, Window, WindowReport};
use sluicegate::limit::LimiterConfig;

/// Mean service time, µs.
const SERVICE: u64 = 10_000;
/// Server concurrency.
const CAP: u32 = 32;
/// Arrivals per second that exactly fill the server.
const FULL: f64 = CAP as f64 * 1e6 / SERVICE as f64;

/// Draws each case runs on (a few keep the test fast in debug builds).
const DRAWS: core::ops::Range<u64> = 0..4;

/// `phases` of `(service times, workers, load × FULL)` back to back, critical
/// work `critical_permille` ‰ and the rest split evenly between normal and
/// background, the crate's default preset with limits 4 / `initial` / 200.
/// One window per phase, in order.
fn scenario(
    name: &str,
    initial: u32,
    critical_permille: u32,
    phases: &[(u64, u32, f64)],
) -> Scenario {
    let end: u64 = phases.iter().map(|p| p.0 * SERVICE).sum();
    let mut sc = base(name, name, CAP, uniform(10), phases[0].2, 1);
    sc.duration_us = end;
    sc.timeout_us = 4 * SERVICE;
    let lower = (1000 - critical_permille) / 2;
    sc.classes = [critical_permille, lower, 1000 - critical_permille - lower];
    sc.limits = Limits {
        min: 4,
        initial,
        max: 200,
    };
    sc.rate_per_s = phases[0].2 * FULL;
    sc.workers.clear();
    sc.windows.clear();
    let mut from = 0;
    for (i, &(len, workers, load)) in phases.iter().enumerate() {
        let to = from + len * SERVICE;
        sc.workers.push((from, workers));
        sc.rate_steps.push((from, load * FULL));
        sc.windows.push(Window {
            label: format!("phase {i}"),
            from_us: from,
            to_us: to,
        });
        from = to;
    }
    sc
}

fn run(sc: &Scenario) -> Report {
    let row = limiter_row("sluicegate AIMD (DEFAULT)", LimiterConfig::DEFAULT);
    (row.run)(sc)
}

/// The limit's mean over the second half of `sc`'s window `w` in `r`.
fn mean_limit_late(sc: &Scenario, r: &Report, w: usize) -> f64 {
    let (from, to) = (sc.windows[w].from_us, sc.windows[w].to_us);
    r.limit_stats(from + (to - from) / 2, to).0
}

/// The band the limit must settle in: the server's true concurrency is `cap`;
/// AIMD saws around the point where the median latency is the baseline
/// plus half of it (the default tolerance): about 1.5 × `cap` in flight, and
/// up to 2 × `cap` of limit when normal work, admitted up to 75 % of the
/// limit, is most of the load. So 0.75 × `cap` ..= 2.25 × `cap`.
fn assert_near(limit: f64, cap: u32, what: &str) {
    let cap = f64::from(cap);
    assert!(
        (0.75 * cap..=2.25 * cap).contains(&limit),
        "{what}: mean limit {limit:.1}, server concurrency {cap}"
    );
}

fn success_permille(c: &Counts) -> u64 {
    c.good * 1000 / c.offered.max(1)
}

fn shed_permille(c: &Counts) -> u64 {
    c.shed * 1000 / c.offered.max(1)
}

/// Critical-only traffic at 2× capacity for 120 service times from
/// `initial`: the second half must sit near CAP with good-put ≥ 85 %.
fn converges_from(initial: u32) {
    let phase = (60, CAP, 2.0);
    let sc = scenario("limit-sim-converge", initial, 1000, &[phase, phase]);
    for k in DRAWS {
        let r = run(&sc.reseeded(k));
        let late = &r.windows[1];
        assert_near(mean_limit_late(&sc, &r, 1), CAP, "second half");
        assert!(
            late.goodput_pct >= 85.0,
            "draw {k}: good-put {:.1} %",
            late.goodput_pct
        );
        // Little's law: with the limit near CAP nothing waits for long.
        assert_eq!(late.all.timed_out + late.all.late, 0, "draw {k}");
    }
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn limit_sim_converges_from_a_high_start() {
    converges_from(200);
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn limit_sim_converges_from_a_low_start() {
    converges_from(4);
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn limit_sim_load_steps_capacity_change_and_priorities() {
    let sc = scenario(
        "limit-sim-steps",
        20,
        200,
        &[
            // Warm-up at half load: starting at 20 with ≈ 16 in flight, the
            // background share sheds until the limit has grown. Not checked.
            (40, CAP, 0.5),
            // Below capacity: nothing should be shed or time out.
            (80, CAP, 0.5),
            // At capacity.
            (80, CAP, 1.0),
            // 2× overload.
            (80, CAP, 2.0),
            // Capacity halves under the same load.
            (80, CAP / 2, 2.0),
            // And recovers. Additive increase climbs back from ≈ CAP / 2 at
            // about +1 per service time, ≈ 16 service times; allow 30.
            (30, CAP, 2.0),
            // Recovered.
            (80, CAP, 2.0),
        ],
    );
    for k in DRAWS {
        load_steps(&sc, &run(&sc.reseeded(k)), k);
    }
}

fn load_steps(sc: &Scenario, r: &Report, k: u64) {
    let obs: &[WindowReport] = &r.windows[1..];
    let late = |i: usize| mean_limit_late(sc, r, i + 1);
    for (i, o) in obs.iter().enumerate() {
        std::println!("draw {k} {}: {o:?} mean limit {:.1}", o.label, late(i));
    }
    let class = |i: usize, c: usize| &obs[i].class[c];

    // Below capacity: ≥ 99 % of critical and normal work served. Random
    // bursts still reach the background threshold (half the limit) now and
    // then, so ≥ 90 % of background work.
    assert!(success_permille(class(0, 0)) >= 990);
    assert!(success_permille(class(0, 1)) >= 990);
    assert!(success_permille(class(0, 2)) >= 900);
    // At capacity: random arrivals at utilisation 1 queue now and then, so
    // the limit settles where that queueing starts and background work is
    // shed part of the time. Critical and normal work is still ≥ 99 % served
    // and good-put is ≥ 75 % of capacity.
    assert!(success_permille(class(1, 0)) >= 990);
    assert!(success_permille(class(1, 1)) >= 990);
    assert!(
        obs[1].goodput_pct >= 75.0,
        "good-put {}",
        obs[1].goodput_pct
    );

    // 2× overload: good-put ≥ 85 % of capacity, the limit near CAP, critical
    // work ≥ 95 % served, and lower classes shed first.
    assert!(
        obs[2].goodput_pct >= 85.0,
        "good-put {}",
        obs[2].goodput_pct
    );
    assert_near(late(2), CAP, "2x overload");
    assert!(
        success_permille(class(2, 0)) >= 950,
        "critical {:?}",
        obs[2]
    );
    assert!(shed_permille(class(2, 2)) > shed_permille(class(2, 1)));
    assert!(shed_permille(class(2, 1)) > shed_permille(class(2, 0)));

    // Capacity halved: the limit re-converges near the new capacity and
    // good-put stays ≥ 80 % of it (the window's capacity counts the workers
    // it has).
    assert_near(late(3), CAP / 2, "halved");
    assert!(
        obs[3].goodput_pct >= 80.0,
        "good-put {}",
        obs[3].goodput_pct
    );
    assert!(success_permille(class(3, 0)) > success_permille(class(3, 2)));

    // Recovered: back near CAP, good-put ≥ 80 % of capacity again.
    assert!(late(4) > late(3));
    assert_near(late(5), CAP, "recovered");
    assert!(
        obs[5].goodput_pct >= 80.0,
        "good-put {}",
        obs[5].goodput_pct
    );
    assert!(success_permille(class(5, 0)) >= 950);
}
