//! The crate's limiters as table rows. Everything that depends on the
//! crate's limiter API lives in this file, so an API change is adapted here
//! only.
//!
//! The adapter drives the real limiter single-threaded: `acquire` is
//! `try_acquire_with(priority)`, the token is the crate's `Permit`, and the
//! outcome maps one to one onto `success(ticks)`, `dropped()`, `ignore()`.
//! Each row's configuration takes min / initial / max from the scenario and
//! the adaptation parameters from the row.
//!
//! Both control laws are the one `Limiter` type with a different
//! configuration, so a row is a preset and a name (see [`crate_rows`]).

use sluicegate::limit::{Limiter, LimiterConfig, Permit, Pressure, Priority, ONE};

use super::harness::{run, Outcome, Row, Scenario, SimLimiter};

/// What the adapter needs from one of the crate's limiters. Every crate
/// limiter shares `Permit` and the class API, so a new one is registered with
/// an `impl` here and a line in [`crate_rows`].
pub trait Gate {
    /// `try_acquire_with`.
    fn acquire(&self, priority: Priority) -> Option<Permit<'_>>;
    /// The limit in force.
    fn limit(&self) -> u32;
    /// Permits out.
    fn in_flight(&self) -> u32;
    /// `pressure`.
    fn pressure(&self, priority: Priority) -> Pressure;
}

impl Gate for Limiter {
    fn acquire(&self, priority: Priority) -> Option<Permit<'_>> {
        self.try_acquire_with(priority)
    }
    fn limit(&self) -> u32 {
        Limiter::limit(self)
    }
    fn in_flight(&self) -> u32 {
        Limiter::in_flight(self)
    }
    fn pressure(&self, priority: Priority) -> Pressure {
        Limiter::pressure(self, priority)
    }
}

/// A crate limiter borrowed for one run, and the priority each class asks
/// it with.
#[derive(Debug)]
pub struct CrateLimiter<'a, G> {
    gate: &'a G,
    priority: fn(usize) -> Priority,
}

impl<'a, G> CrateLimiter<'a, G> {
    /// `gate`, asked with the default class priorities ([`priority`]).
    pub fn new(gate: &'a G) -> Self {
        CrateLimiter { gate, priority }
    }
}

/// Class 0, 1, 2: `Critical`, `Normal`, `Background`.
pub fn priority(class: usize) -> Priority {
    match class {
        0 => Priority::Critical,
        1 => Priority::Normal,
        _ => Priority::Background,
    }
}

impl<'a, G: Gate> SimLimiter for CrateLimiter<'a, G> {
    type Token = Permit<'a>;

    fn acquire(&mut self, _now_us: u64, class: usize) -> Option<Permit<'a>> {
        self.gate.acquire((self.priority)(class))
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

    fn wakes_on_rise(&self) -> bool {
        true
    }

    fn band(&self, class: usize) -> usize {
        match self.gate.pressure((self.priority)(class)) {
            Pressure::Normal => 0,
            Pressure::Elevated => 1,
            Pressure::Saturated => 2,
        }
    }
}

/// A row whose limiter `build` makes fresh for each scenario; checks that
/// every permit came back.
pub fn row<G: Gate + 'static>(name: &str, build: impl Fn(&Scenario) -> G + 'static) -> Row {
    row_with(name, priority, build)
}

/// [`row`] with the priority each class asks with.
pub fn row_with<G: Gate + 'static>(
    name: &str,
    priority: fn(usize) -> Priority,
    build: impl Fn(&Scenario) -> G + 'static,
) -> Row {
    let label = name.to_string();
    Row {
        name: label.clone(),
        run: Box::new(move |sc| {
            let gate = build(sc);
            let mut limiter = CrateLimiter {
                gate: &gate,
                priority,
            };
            let report = run(sc, &mut limiter, &label);
            assert_eq!(gate.in_flight(), 0, "{label}: permits left in flight");
            report
        }),
    }
}

/// `base` with the scenario's min / initial / max.
fn with_limits(base: LimiterConfig, sc: &Scenario) -> LimiterConfig {
    LimiterConfig {
        min_limit: sc.limits.min,
        initial_limit: sc.limits.initial,
        max_limit: sc.limits.max,
        ..base
    }
}

/// A `Limiter` row: `base`'s adaptation parameters, the scenario's limits.
pub fn limiter_row(name: &str, base: LimiterConfig) -> Row {
    row(name, move |sc| Limiter::new(with_limits(base, sc)))
}

/// The background reserve of the default presets, in % of the limit: what
/// the classes goal asks of background's share of successes.
pub const BACKGROUND_RESERVE_PCT: f64 =
    LimiterConfig::DEFAULT.background_reserve as f64 * 100.0 / ONE as f64;

/// The crate's rows, in table order: the two presets, untuned. The goal
/// checks run for each.
pub fn crate_rows() -> Vec<Row> {
    vec![
        limiter_row("sluicegate AIMD (DEFAULT)", LimiterConfig::DEFAULT),
        limiter_row("sluicegate gradient (GRADIENT)", LimiterConfig::GRADIENT),
    ]
}
