//! The overload stand's claims, asserted on its simulation (the model in
//! `examples/overload/sim.rs`, on the scenario suite's engine, run shorter
//! here). Assertions are ranges drawn
//! from the model (capacity, timeout, Little's law), never recorded outputs.
//! Every claim is checked on two seeds.
#![cfg(not(sluicegate_loom))]

#[path = "../examples/overload/sim.rs"]
mod sim;

use sim::{Check, Policy, Run, Scenario, Window, MS, SECOND};

const SEEDS: [u64; 2] = [1, 2];

/// The stand's service at `load_pct` % of capacity, 8 s of virtual time
/// (the first 2 s left out).
fn scenario(policy: Policy, load_pct: u64, seed: u64) -> Scenario {
    let mut sc = Scenario::base(policy, load_pct);
    sc.duration = 8 * SECOND;
    sc.warmup = 2 * SECOND;
    sc.seed = seed;
    sc
}

fn steady(policy: Policy, check: Check, load_pct: u64, seed: u64) -> Window {
    let mut sc = scenario(policy, load_pct, seed);
    sc.check = check;
    sim::run(&sc).steady()
}

/// Good-put in % of the pool's capacity.
fn goodput_pct(w: &Window) -> f64 {
    100.0 * w.goodput / Scenario::base(Policy::Reject, 100).capacity_per_s()
}

/// The p50 latency with no load to speak of (0.5x, nothing queues for long):
/// about one service time.
fn unloaded_p50(seed: u64) -> f64 {
    let w = steady(Policy::Reject, Check::Expired, 50, seed);
    let service = Scenario::base(Policy::Reject, 50).service as f64 / MS as f64;
    assert!(
        (0.9 * service..=1.3 * service).contains(&w.p50_ms),
        "unloaded p50 {} ms, service {service} ms",
        w.p50_ms
    );
    w.p50_ms
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_unbounded_queue_collapses_at_2x() {
    for seed in SEEDS {
        for check in [Check::None, Check::Expired] {
            let w = steady(Policy::Unbounded, check, 200, seed);
            assert!(
                goodput_pct(&w) < 20.0,
                "seed {seed}, {check:?}: good-put {:.0} %",
                goodput_pct(&w)
            );
            // Work is still done, for clients that have gone.
            assert!(w.wasted_pct() > 80.0, "seed {seed}: {w:?}");
            assert!(w.p50_ms > 100.0, "seed {seed}: p50 {}", w.p50_ms);
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_reject_ring_and_aimd_stay_near_capacity_at_2x() {
    for seed in SEEDS {
        let unloaded = unloaded_p50(seed);
        for policy in [Policy::Reject, Policy::Aimd] {
            let w = steady(policy, Check::Expired, 200, seed);
            assert!(
                goodput_pct(&w) >= 90.0,
                "seed {seed}, {policy:?}: good-put {:.0} %",
                goodput_pct(&w)
            );
            assert!(
                w.p99_ms <= 4.0 * unloaded,
                "seed {seed}, {policy:?}: p99 {} ms vs unloaded {unloaded} ms",
                w.p99_ms
            );
            assert!(w.wasted_pct() < 2.0, "seed {seed}, {policy:?}: {w:?}");
            // Most attempts at 2x must be refused: shed, not queued.
            assert!(w.shed_pct() > 50.0, "seed {seed}, {policy:?}: {w:?}");
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_rings_hold_at_most_their_capacity() {
    for seed in SEEDS {
        for policy in [Policy::Reject, Policy::DropOldest] {
            let run = sim::run(&scenario(policy, 300, seed));
            assert!(
                run.peak_queue <= sim::RING,
                "{policy:?}: {}",
                run.peak_queue
            );
            assert!(run.peak_queue >= sim::RING / 2, "{policy:?}: never filled");
        }
        // The unbounded queue grows with the run.
        let mut sc = scenario(Policy::Unbounded, 300, seed);
        sc.check = Check::None;
        let run = sim::run(&sc);
        assert!(run.peak_queue > 100 * sim::RING, "{}", run.peak_queue);
    }
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_drop_oldest_serves_fresher_requests_than_reject() {
    for seed in SEEDS {
        let rej = steady(Policy::Reject, Check::Expired, 200, seed);
        let dro = steady(Policy::DropOldest, Check::Expired, 200, seed);
        assert!(goodput_pct(&dro) >= 90.0, "seed {seed}: {dro:?}");
        assert!(
            dro.p50_ms < rej.p50_ms,
            "seed {seed}: drop-oldest p50 {} ms, reject {} ms",
            dro.p50_ms,
            rej.p50_ms
        );
    }
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_deadline_budget_check_cuts_wasted_work_of_unbounded_queue() {
    for seed in SEEDS {
        let none = steady(Policy::Unbounded, Check::None, 200, seed);
        let budget = steady(Policy::Unbounded, Check::Budget, 200, seed);
        assert!(
            budget.wasted_pct() + 30.0 < none.wasted_pct(),
            "seed {seed}: wasted {} % with the check, {} % without",
            budget.wasted_pct(),
            none.wasted_pct()
        );
        assert!(goodput_pct(&budget) >= 40.0, "seed {seed}: {budget:?}");
        // ... but every answer still comes at about the timeout.
        assert!(budget.p50_ms >= 80.0, "seed {seed}: {budget:?}");
    }
}

/// The ring's fresh pop (expiry): behind a blocking ring, whose senders
/// wait upstream past their deadlines, it discards (and counts) what can no
/// longer be served in time, so at 2x load good-put is at least 95 % of
/// capacity with the p99 within the client's timeout and nothing wasted,
/// where the same ring without it wastes work. Behind a rejecting ring of
/// 16 nothing waits long enough to expire: the count is 0.
#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_fresh_pop_discards_what_expired_and_counts_it() {
    for seed in SEEDS {
        let mut sc = scenario(Policy::Block, 200, seed);
        sc.check = Check::Fresh;
        let run = sim::run(&sc);
        let w = run.steady();
        let timeout_ms = (sc.timeout / MS) as f64;
        assert!(goodput_pct(&w) >= 95.0, "seed {seed}: {w:?}");
        assert!(w.p99_ms <= timeout_ms, "seed {seed}: p99 {} ms", w.p99_ms);
        assert!(w.wasted_pct() < 1.0, "seed {seed}: {w:?}");
        assert!(run.expired > 1000, "seed {seed}: {} expired", run.expired);

        let plain = steady(Policy::Block, Check::Expired, 200, seed);
        assert!(plain.wasted_pct() > 5.0, "seed {seed}: {plain:?}");

        for load in [50, 90, 120, 150, 200, 300] {
            let mut sc = scenario(Policy::Reject, load, seed);
            sc.check = Check::Fresh;
            assert_eq!(sim::run(&sc).expired, 0, "seed {seed}, load {load}");
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_static_limit_too_low_wastes_capacity() {
    for seed in SEEDS {
        // 4 permits for 8 workers: at most half the pool is ever busy.
        let w = steady(Policy::Static(4), Check::Expired, 200, seed);
        assert!(
            (35.0..=55.0).contains(&goodput_pct(&w)),
            "seed {seed}: good-put {:.0} %",
            goodput_pct(&w)
        );
    }
}

/// The service time doubles at 6 s; good-put after is judged from 10 s to
/// the end (16 s), against the new capacity.
#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_slowed_source_sheds_nothing_and_stays_under_its_high_mark() {
    for seed in SEEDS {
        for load in [50, 120, 200, 300] {
            for check in [Check::Expired, Check::Fresh] {
                let mut sc = scenario(Policy::Slowed, load, seed);
                sc.check = check;
                let run = sim::run(&sc);
                let w = run.steady();
                let what = format!("seed {seed}, {load} %, {check:?}");
                assert_eq!(
                    w.counts.shed, 0,
                    "{what}: the source is slowed, never refused"
                );
                assert!(
                    run.peak_queue <= sim::HIGH,
                    "{what}: peak {}",
                    run.peak_queue
                );
                if load >= 120 {
                    // Overloaded, the source did stop: the ring reached its
                    // high mark and the clients' waits ran out upstream.
                    assert_eq!(run.peak_queue, sim::HIGH, "{what}");
                    assert!(w.timed_out_pct() > 20.0, "{what}: {w:?}");
                } else {
                    assert!(goodput_pct(&w) >= 45.0, "{what}: {w:?}");
                }
            }
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_degradation_band_comes_before_shedding() {
    for seed in SEEDS {
        let (run, _) = slowdown(Policy::Aimd, seed);
        let before = run.window(2 * SECOND, 6 * SECOND);
        let after = run.window(10 * SECOND, 16 * SECOND);
        // One class: a saturated class is shed, and only then.
        for w in [before, after] {
            assert_eq!(w.bands.iter().sum::<u64>(), w.counts.attempts, "{w:?}");
            assert_eq!(w.bands[2], w.counts.shed, "{w:?}");
        }
        // Below capacity the signal is mostly normal; overloaded after the
        // slowdown, a good share of attempts see the elevated band, where
        // an application serves the cheaper answer instead of being shed.
        assert!(before.band_pct(0) >= 80.0, "seed {seed}: {before:?}");
        assert!(after.band_pct(1) >= 10.0, "seed {seed}: {after:?}");
        assert!(after.band_pct(0) < 20.0, "seed {seed}: {after:?}");
    }
}

fn slowdown(policy: Policy, seed: u64) -> (Run, f64) {
    let mut sc = Scenario::base(policy, 80);
    sc.service_after = 2 * sc.service;
    sc.change_at = 6 * SECOND;
    sc.duration = 16 * SECOND;
    sc.seed = seed;
    sc.windows = &[(10 * SECOND, 16 * SECOND), (2 * SECOND, 6 * SECOND)];
    let new_cap = sc.capacity_per_s() / 2.0;
    let run = sim::run(&sc);
    let after = run.window(10 * SECOND, 16 * SECOND);
    (run, 100.0 * after.goodput / new_cap)
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_aimd_recovers_after_slowdown_static_limit_does_not() {
    for seed in SEEDS {
        let (run, aimd) = slowdown(Policy::Aimd, seed);
        assert!(aimd >= 85.0, "seed {seed}: AIMD good-put {aimd:.0} % after");
        // Before the change everyone is below capacity and served.
        let before = run.window(2 * SECOND, 6 * SECOND);
        assert!(goodput_pct(&before) >= 70.0, "seed {seed}: {before:?}");
        // Limit 64 fits the timeout at 10 ms (56 waiting / 8 workers x 10 ms
        // + 10 ms = 80 ms < 100 ms) but not at 20 ms (160 ms).
        let (_, fixed) = slowdown(Policy::Static(64), seed);
        assert!(
            fixed <= 30.0,
            "seed {seed}: static limit 64 good-put {fixed:.0} % after"
        );
        // The limit fell after the change and settled near the worker count.
        let late: Vec<u32> = run
            .series
            .iter()
            .filter(|s| s.t >= 10 * SECOND)
            .map(|s| s.limit)
            .collect();
        let mean = late.iter().sum::<u32>() as usize / late.len();
        assert!((4..=24).contains(&mean), "seed {seed}: mean limit {mean}");
    }
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_critical_class_succeeds_while_background_is_shed() {
    for seed in SEEDS {
        let w = steady(Policy::AimdClasses, Check::Expired, 200, seed);
        assert!(
            w.success_pct(0) >= 95.0,
            "seed {seed}: critical {:.1} %",
            w.success_pct(0)
        );
        assert!(
            w.success_pct(1) <= 60.0,
            "seed {seed}: background {:.1} %",
            w.success_pct(1)
        );
        assert!(goodput_pct(&w) >= 80.0, "seed {seed}: {w:?}");
        // One class: no such protection.
        let one = steady(Policy::Aimd, Check::Expired, 200, seed);
        assert!(one.success_pct(0) < 80.0, "seed {seed}: {one:?}");
    }
}

#[test]
#[cfg_attr(miri, ignore = "a pure single-threaded model; minutes under Miri")]
fn overload_simulation_is_deterministic() {
    let sc = scenario(Policy::AimdClasses, 150, 9);
    let (a, b) = (sim::run(&sc), sim::run(&sc));
    assert_eq!(
        format!("{:?}", a.report.total),
        format!("{:?}", b.report.total)
    );
    assert_eq!(format!("{:?}", a.steady()), format!("{:?}", b.steady()));
    let other = sim::run(&Scenario { seed: 10, ..sc });
    assert_ne!(format!("{:?}", a.steady()), format!("{:?}", other.steady()));
}
