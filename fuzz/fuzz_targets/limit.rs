//! The AIMD limiter, sequentially, against a model: admission exactly by the
//! class threshold (never over the limit), the limit always within
//! [min, max], cuts exactly `max(min, limit * backoff / 256)` and at most once
//! per epoch, growth by at most one, dropped/ignored outcomes never touching
//! the baseline, every counter exact and the snapshot adding up. Configurations
//! include edge values and invalid ones (which `try_new` must refuse for the
//! documented reasons); counters and epochs start at arbitrary values to reach
//! wrap-around.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::limit::{Limiter, LimiterConfig, Permit, Priority, MAX_LIMIT};

#[derive(Arbitrary, Debug)]
struct Config {
    min_limit: u32,
    initial_limit: u32,
    max_limit: u32,
    backoff: u16,
    tolerance: u16,
    window_log2: u8,
    normal_share: u16,
    background_share: u16,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Acquire(u8),
    Success { which: u8, ticks: u32 },
    Dropped(u8),
    Ignore(u8),
    Forget(u8),
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Small values, so limits are small and full/empty are reached.
    config: Config,
    epoch: usize,
    count: usize,
    ops: Vec<Op>,
}

fn shrink(v: u32) -> u32 {
    // Mostly small limits, sometimes the edges.
    match v % 8 {
        0 => v,
        1 => MAX_LIMIT.wrapping_add(v % 3).wrapping_sub(1),
        _ => v % 12,
    }
}

fn valid(c: &LimiterConfig) -> bool {
    c.min_limit >= 1
        && c.min_limit <= c.max_limit
        && c.max_limit <= MAX_LIMIT
        && (c.min_limit..=c.max_limit).contains(&c.initial_limit)
        && (1..=255).contains(&c.backoff)
        && c.tolerance >= 256
        && c.baseline_window >= 2
        && c.baseline_window.is_power_of_two()
        && 1 <= c.background_share
        && c.background_share <= c.normal_share
        && c.normal_share <= 256
}

fn threshold(limit: u32, share: u16) -> usize {
    (((limit as usize) * share as usize) >> 8).max(1)
}

fuzz_target!(|input: Input| {
    let c = &input.config;
    let config = LimiterConfig {
        min_limit: shrink(c.min_limit),
        initial_limit: shrink(c.initial_limit),
        max_limit: shrink(c.max_limit),
        backoff: c.backoff % 300,
        tolerance: c.tolerance % 700,
        baseline_window: 1u32.checked_shl(c.window_log2 as u32 % 40).unwrap_or(0)
            + (c.window_log2 > 200) as u32,
        normal_share: c.normal_share % 300,
        background_share: c.background_share % 300,
    };
    let aimd = match Limiter::with_start(config, input.epoch, input.count) {
        Ok(a) => {
            assert!(valid(&config), "accepted an invalid config: {config:?}");
            assert!(Limiter::try_new(config).is_ok());
            a
        }
        Err(_) => {
            assert!(!valid(&config), "refused a valid config: {config:?}");
            assert!(Limiter::try_new(config).is_err());
            return;
        }
    };
    let shares = [256u16, config.normal_share, config.background_share];
    let cut = |limit: u32| {
        ((limit as usize * config.backoff as usize) >> 8).max(config.min_limit as usize) as u32
    };

    // (permit, decreases at admission)
    let mut held: Vec<(Permit<'_>, usize)> = Vec::new();
    let (mut admitted, mut dropped, mut ignored, mut succeeded) = (0usize, 0usize, 0usize, 0usize);
    let mut shed = [0usize; 3];
    let mut limit = config.initial_limit;
    let mut decreases = 0usize;

    for op in &input.ops {
        let baseline_before = aimd.baseline();
        match *op {
            Op::Acquire(p) => {
                let class = p as usize % 3;
                let priority = [Priority::Critical, Priority::Normal, Priority::Background][class];
                let open = held.len() < threshold(limit, shares[class]);
                match aimd.try_acquire_with(priority) {
                    Some(permit) => {
                        assert!(open, "admitted over the class threshold");
                        assert!(held.len() < limit as usize, "admitted over the limit");
                        assert_eq!(permit.limit_at_admission(), limit);
                        assert_eq!(permit.in_flight_at_admission() as usize, held.len() + 1);
                        held.push((permit, decreases));
                        admitted += 1;
                    }
                    None => {
                        assert!(!open, "shed below the class threshold");
                        shed[class] += 1;
                    }
                }
                assert_eq!(aimd.limit(), limit);
            }
            Op::Success { which, ticks } if !held.is_empty() => {
                let (permit, epoch) = held.swap_remove(which as usize % held.len());
                permit.success(ticks);
                succeeded += 1;
                let now = aimd.limit();
                let may_cut = epoch == decreases && cut(limit) < limit;
                if now < limit {
                    assert!(may_cut && now == cut(limit), "bad cut {limit} -> {now}");
                    decreases += 1;
                } else {
                    assert!(
                        now == limit || (now == limit + 1 && now <= config.max_limit),
                        "bad growth {limit} -> {now}"
                    );
                }
                limit = now;
            }
            Op::Dropped(which) if !held.is_empty() => {
                let (permit, epoch) = held.swap_remove(which as usize % held.len());
                permit.dropped();
                dropped += 1;
                let now = aimd.limit();
                if epoch == decreases && cut(limit) < limit {
                    // A drop from the current epoch always cuts, exactly once.
                    assert_eq!(now, cut(limit));
                    decreases += 1;
                } else {
                    assert_eq!(now, limit, "a stale or floor-level drop moved the limit");
                }
                limit = now;
                assert_eq!(
                    aimd.baseline(),
                    baseline_before,
                    "a drop moved the baseline"
                );
            }
            Op::Ignore(which) | Op::Forget(which) if !held.is_empty() => {
                let (permit, _) = held.swap_remove(which as usize % held.len());
                if matches!(op, Op::Ignore(_)) {
                    permit.ignore();
                } else {
                    drop(permit);
                }
                ignored += 1;
                assert_eq!(aimd.limit(), limit);
                assert_eq!(
                    aimd.baseline(),
                    baseline_before,
                    "an ignore moved the baseline"
                );
            }
            _ => {}
        }
        assert!((config.min_limit..=config.max_limit).contains(&limit));
        let s = aimd.stats();
        assert_eq!(s.limit, limit);
        assert_eq!(s.in_flight as usize, held.len());
        assert_eq!(aimd.in_flight() as usize, held.len());
        // Each of the three release counters starts at `count`, so the
        // admitted count starts at `3 · count` (all wrapping).
        assert_eq!(
            s.admitted.wrapping_sub(input.count.wrapping_mul(3)),
            admitted
        );
        assert_eq!(s.succeeded.wrapping_sub(input.count), succeeded);
        assert_eq!(s.dropped.wrapping_sub(input.count), dropped);
        assert_eq!(s.ignored.wrapping_sub(input.count), ignored);
        assert_eq!(
            s.admitted,
            s.succeeded
                .wrapping_add(s.dropped)
                .wrapping_add(s.ignored)
                .wrapping_add(s.in_flight as usize)
        );
        assert_eq!(s.shed, shed);
        assert_eq!(s.decreases, decreases);
    }
    drop(held);
    assert_eq!(aimd.in_flight(), 0);
});
