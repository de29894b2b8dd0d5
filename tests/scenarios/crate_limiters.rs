//! The crate's limiters as table rows. Everything that depends on the
//! crate's limiter API lives in this file, so an API change is adapted here
//! only.
//!
//! The adapter drives the real limiter single-threaded: `acquire` is
//! `try_acquire_with(priority)`, the token is the crate's `Permit`, and the
//! outcome maps one to one onto `success(ticks)`, `dropped()`, `ignore()`.
//! Each row's configuration takes min / initial / max from the scenario and
//! the adaptation parameters from the row.

use sluicegate::limit::{Aimd, AimdConfig, Permit, Priority};

use super::harness::{run, Outcome, Row, Scenario, SimLimiter};

/// A crate limiter borrowed for one run.
#[derive(Debug)]
pub struct CrateLimiter<'a> {
    gate: &'a Aimd,
}

fn priority(class: usize) -> Priority {
    match class {
        0 => Priority::Critical,
        1 => Priority::Normal,
        _ => Priority::Background,
    }
}

impl<'a> SimLimiter for CrateLimiter<'a> {
    type Token = Permit<'a>;

    fn acquire(&mut self, _now_us: u64, class: usize) -> Option<Permit<'a>> {
        self.gate.try_acquire_with(priority(class))
    }

    fn release(&mut self, permit: Permit<'a>, _now_us: u64, outcome: Outcome) {
        match outcome {
            Outcome::Success { ticks } => permit.success(ticks),
            Outcome::Dropped => permit.dropped(),
            Outcome::Ignore => permit.ignore(),
        }
    }

    fn limit(&self) -> u32 {
        self.gate.limit()
    }
}

/// `base` with the scenario's min / initial / max.
fn with_limits(base: AimdConfig, sc: &Scenario) -> AimdConfig {
    AimdConfig {
        min_limit: sc.limits.min,
        initial_limit: sc.limits.initial,
        max_limit: sc.limits.max,
        ..base
    }
}

/// An `Aimd` row: `base`'s adaptation parameters, the scenario's limits.
pub fn aimd_row(name: &str, base: AimdConfig) -> Row {
    let label = name.to_string();
    Row {
        name: label.clone(),
        run: Box::new(move |sc| {
            let gate = Aimd::new(with_limits(base, sc));
            let report = run(sc, &mut CrateLimiter { gate: &gate }, &label);
            assert_eq!(gate.in_flight(), 0, "{label}: permits left in flight");
            report
        }),
    }
}

/// The overload demo's adaptation parameters (tolerance 1.5, window 256).
pub const DEMO: AimdConfig = AimdConfig {
    tolerance: 384,
    baseline_window: 256,
    ..AimdConfig::DEFAULT
};

/// The crate's rows, in table order. The goal checks run for each.
pub fn crate_rows() -> Vec<Row> {
    vec![
        aimd_row("sluicegate Aimd (DEFAULT)", AimdConfig::DEFAULT),
        aimd_row("sluicegate Aimd (demo: tol 1.5, window 256)", DEMO),
    ]
}
