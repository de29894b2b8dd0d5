//! The goals the crate's presets are held to, one function each, measured
//! on full-length scenarios. Each returns whether it holds and the figures
//! it measured.
//!
//! Each takes `seeds`, the number of draws of arrivals and service times
//! ([`Scenario::reseeded`]) it is checked on; 1 is the table's own draw. A
//! threshold must hold on every draw; the comparison with the anchors is
//! made between means over the draws (the best of seven anchors on one
//! draw is biased upward by that draw's noise).

use super::anchors::anchor_rows;
use super::catalogue as cat;
use super::harness::{Kind, Report, Row, Scenario};
use super::table::background_share_pct;

/// One goal's verdict.
#[derive(Clone, Debug)]
pub struct Goal {
    /// What is checked.
    pub name: &'static str,
    /// Whether every part holds.
    pub pass: bool,
    /// The measured figures, one line per scenario checked (`FAIL ` in
    /// front of those that miss).
    pub detail: Vec<String>,
}

fn goal(name: &'static str, parts: Vec<(bool, String)>) -> Goal {
    Goal {
        name,
        pass: parts.iter().all(|p| p.0),
        detail: parts
            .into_iter()
            .map(|(ok, s)| format!("{}{s}", if ok { "" } else { "FAIL " }))
            .collect(),
    }
}

pub use super::crate_limiters::BACKGROUND_RESERVE_PCT;

/// The figure compared across limiters: good-put in % of capacity, except
/// in a scenario measured on one class ([`Scenario::goal_class`]), where it
/// is that class's good answers in % of its requests offered, and at low
/// traffic, where capacity is ~80× the offered load and the figure is the
/// good answers in % of the requests offered.
pub fn served_pct(sc: &Scenario, r: &Report) -> f64 {
    let m = r.main();
    if let Some(c) = sc.goal_class {
        m.class[c].pct(m.class[c].good)
    } else if sc.kind == Kind::LowTraffic {
        m.all.pct(m.all.good)
    } else {
        m.goodput_pct
    }
}

/// Every scenario: good-put within 3 points of the best adaptive anchor (or
/// better), at a p99 at most 1.2× that anchor's, each the mean over
/// `seeds` draws. The static row is an oracle that knows the pool, so it is
/// not an anchor here. See [`served_pct`]; a scenario measured on one class
/// names it.
pub fn vs_anchors(row: &Row, scenarios: &[Scenario], seeds: u64) -> Goal {
    let anchors: Vec<Row> = anchor_rows()
        .into_iter()
        .filter(|a| !a.name.starts_with("static"))
        .collect();
    let parts = scenarios
        .iter()
        .map(|sc| {
            let draws: Vec<Scenario> = (0..seeds).map(|k| sc.reseeded(k)).collect();
            // (served %, p99 in µs) of a row, means over the draws.
            let means = |r: &Row| {
                let (mut served, mut p99) = (0.0, 0.0);
                for d in &draws {
                    let rep = (r.run)(d);
                    served += served_pct(d, &rep);
                    p99 += rep.main().p99_us as f64;
                }
                (served / seeds as f64, p99 / seeds as f64)
            };
            let (best, theirs) = anchors
                .iter()
                .map(|a| (&a.name, means(a)))
                .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
                .unwrap();
            let mine = means(row);
            let ok = mine.0 >= theirs.0 - 3.0 && mine.1 <= 1.2 * theirs.1;
            (
                ok,
                format!(
                    "{}{}: {:.0} % / p99 {:.1} ms vs {best} {:.0} % / {:.1} ms{}",
                    sc.name,
                    match sc.goal_class {
                        Some(c) => format!(" ({})", ["critical", "normal", "background"][c]),
                        None => String::new(),
                    },
                    mine.0,
                    mine.1 / 1e3,
                    theirs.0,
                    theirs.1 / 1e3,
                    if seeds > 1 {
                        format!(" (means of {seeds} draws)")
                    } else {
                        String::new()
                    }
                ),
            )
        })
        .collect();
    goal("within 3 points of the best anchor, p99 ≤ 1.2×", parts)
}

/// `part` on `seeds` draws of `sc`: holds if it holds on every draw. The
/// figures are the first draw's, then those of the draws that miss.
fn on_draws(
    sc: &Scenario,
    seeds: u64,
    part: impl Fn(&Scenario) -> (bool, String),
) -> (bool, String) {
    let (ok, first) = part(sc);
    let misses: Vec<String> = (1..seeds)
        .map(|k| (k, part(&sc.reseeded(k))))
        .filter(|(_, (ok, _))| !ok)
        .map(|(k, (_, line))| format!("draw {k}: {line}"))
        .collect();
    if seeds == 1 {
        return (ok, first);
    }
    let held = seeds - misses.len() as u64 - u64::from(!ok);
    let mut line = format!("{first} [holds on {held} of {seeds} draws]");
    for m in &misses {
        line.push_str(&format!("; {m}"));
    }
    (ok && misses.is_empty(), line)
}

/// ±20 %, ±50 % and exponential service: shed < 5 % at 50 % load, good-put
/// ≥ 90 % of capacity at 150 %.
pub fn spread(row: &Row, seeds: u64) -> Goal {
    let mut parts = Vec::new();
    let half = [
        cat::spread(20, 50, 30),
        cat::spread(50, 50, 30),
        cat::exponential(50, 30),
    ];
    for sc in half {
        parts.push(on_draws(&sc, seeds, |sc| {
            let r = (row.run)(sc);
            let shed = r.main().all.pct(r.main().all.shed);
            (shed < 5.0, format!("{}: shed {shed:.1} %", sc.name))
        }));
    }
    let over = [
        cat::spread(20, 150, 30),
        cat::spread(50, 150, 30),
        cat::exponential(150, 30),
    ];
    for sc in over {
        parts.push(on_draws(&sc, seeds, |sc| {
            let g = (row.run)(sc).main().goodput_pct;
            (g >= 90.0, format!("{}: good-put {g:.0} %", sc.name))
        }));
    }
    goal(
        "spread: shed < 5 % at 50 %, good-put ≥ 90 % at 150 %",
        parts,
    )
}

fn ratchet_part(sc: &Scenario, r: &Report) -> (bool, String) {
    let w = &sc.windows[0];
    let workers = sc.workers_at(w.from_us) as f64;
    let (mean, _, max) = r.limit_stats(w.from_us, w.to_us);
    let p50 = r.main().p50_us as f64 / sc.service.mean_us();
    let ok = mean <= 2.5 * workers && p50 <= 2.5;
    (
        ok,
        format!(
            "{}: limit {:.2}× pool (max {max}), p50 {p50:.2}× service",
            sc.name,
            mean / workers
        ),
    )
}

/// 2× load, 4 to 64 workers: limit ≤ 2.5× the pool and p50 ≤ 2.5× the
/// service time, over 30 s and over 10 minutes.
pub fn ratchet(row: &Row, seeds: u64) -> Goal {
    let mut parts = Vec::new();
    let short = [4, 8, 16, 32, 64].map(|w| cat::ratchet(w, 30));
    for sc in short
        .iter()
        .chain(&[8, 64].map(|w| cat::ratchet_long(w, 600)))
    {
        parts.push(on_draws(sc, seeds, |sc| ratchet_part(sc, &(row.run)(sc))));
    }
    goal("ratchet: limit ≤ 2.5× pool, p50 ≤ 2.5× service", parts)
}

/// 2× slowdown: good-put in the first 5 s ≥ 85 % of the new capacity; at
/// 5 req/s at most 10 s with the limit below half the pool.
pub fn slowdown(row: &Row, seeds: u64) -> Goal {
    let first = on_draws(&cat::slowdown_and_back(), seeds, |sc| {
        let first = (row.run)(sc)
            .windows
            .iter()
            .find(|w| w.label == "20–25 s")
            .unwrap()
            .goodput_pct;
        (
            first >= 85.0,
            format!("{}: first 5 s {first:.0} %", sc.name),
        )
    });
    let low = on_draws(&cat::low_traffic(2, 120, 600), seeds, |low| {
        let rl = (row.run)(low);
        let below = rl.time_below_half(low.below_half_from.unwrap(), |t| low.workers_at(t));
        (
            below <= 10_000_000,
            format!("{}: {:.1} s below half", low.name, below as f64 / 1e6),
        )
    });
    goal(
        "slowdown ×2: first 5 s ≥ 85 %, at 5 req/s ≤ 10 s below half",
        vec![first, low],
    )
}

/// 1 ms clock on a 1.2 ms operation: good-put ≥ 95 % at 150 % load.
pub fn coarse_clock(row: &Row, seeds: u64) -> Goal {
    let part = on_draws(&cat::tick_1ms(150, 30), seeds, |sc| {
        let g = (row.run)(sc).main().goodput_pct;
        (g >= 95.0, format!("{}: {g:.0} %", sc.name))
    });
    goal("1 ms tick, 1.2 ms op: good-put ≥ 95 % at 150 %", vec![part])
}

/// 64 → 128 workers × 50 ms: the limit reaches 128 within 0.5 s.
pub fn capacity_doubling(row: &Row, seeds: u64) -> Goal {
    let part = on_draws(&cat::capacity_64_to_128(20, 60), seeds, |sc| {
        let t = (row.run)(sc).reach_us[0];
        (
            t.is_some_and(|t| t <= 500_000),
            format!(
                "{}: {}",
                sc.name,
                t.map_or("never".to_string(), |t| format!("{:.2} s", t as f64 / 1e6))
            ),
        )
    });
    goal("128 × 50 ms doubling: limit ≥ 128 within 0.5 s", vec![part])
}

/// Background gets at least its reserved share of successes under 2× load;
/// there and at limit 1, critical is never refused while a lower class
/// holds the last permit.
pub fn classes(row: &Row, seeds: u64) -> Goal {
    let share = on_draws(&cat::classes(30), seeds, |sc| {
        let r = (row.run)(sc);
        let share = background_share_pct(&r);
        let inv = r.critical_refused_behind_lower;
        (
            share >= BACKGROUND_RESERVE_PCT && inv == 0,
            format!(
                "{}: background {share:.2} % of successes (reserve {BACKGROUND_RESERVE_PCT} %), \
                 {inv} critical refusals behind a lower class",
                sc.name
            ),
        )
    });
    let inversion = on_draws(&cat::classes_limit1(30), seeds, |one| {
        let inv = (row.run)(one).critical_refused_behind_lower;
        (
            inv == 0,
            format!("{}: {inv} critical refusals behind a lower class", one.name),
        )
    });
    goal(
        "classes: background ≥ reserve, critical never refused behind a lower class on the last permit",
        vec![share, inversion],
    )
}

/// Closed-loop clients, stalls and a cold start ([`cat::settling`]): from
/// 5 s after the transient (or the start) to the end, every second's mean
/// limit at most 2.5× the pool and its p50 at most 2× the unloaded p50 (the
/// service's median), and good-put at least 95 % of capacity. The highest
/// limit sampled is reported beside (AIMD's sawtooth touches more than the
/// mean for moments).
pub fn settling(row: &Row, seeds: u64) -> Goal {
    let parts = cat::settling()
        .iter()
        .map(|sc| {
            on_draws(sc, seeds, |d| {
                let r = (row.run)(d);
                let pool = d.workers_at(d.windows[0].from_us) as f64;
                let unloaded = d.service.mean_us();
                let mut worst_limit = 0.0f64;
                let mut worst_p50 = 0u64;
                // The reports' windows are the scenario's, in order.
                for (w, measured) in d.windows[1..].iter().zip(&r.windows[1..]) {
                    worst_limit = worst_limit.max(r.limit_stats(w.from_us, w.to_us).0);
                    worst_p50 = worst_p50.max(measured.p50_us);
                }
                let (_, _, highest) = r.limit_stats(d.windows[0].from_us, d.windows[0].to_us);
                let good = r.main().goodput_pct;
                let ok = worst_limit <= 2.5 * pool
                    && worst_p50 as f64 <= 2.0 * unloaded
                    && good >= 95.0;
                (
                    ok,
                    format!(
                        "{}: worst second's limit {:.1} (≤ {:.0}), highest {highest}, p50 {:.1} ms (≤ {:.1}), good-put {good:.0} %",
                        d.name,
                        worst_limit,
                        2.5 * pool,
                        worst_p50 as f64 / 1e3,
                        2.0 * unloaded / 1e3
                    ),
                )
            })
        })
        .collect();
    goal(
        "after a stall, a cold start or with closed-loop clients: limit ≤ 2.5× pool, p50 ≤ 2× unloaded within 5 s",
        parts,
    )
}

/// The waiting acquires ([`cat::blocking_all`]): the same backlog before
/// every row (as Netflix's `LifoBlockingLimiter` wraps its limiters), so
/// the rows differ by their limits alone. Good-put at least the best
/// adaptive anchor's (means over the draws; within 3 points with priority
/// classes, whose shares the anchors do not keep), and every draw's p99
/// within the client's deadline.
pub fn blocking(row: &Row, seeds: u64) -> Goal {
    let anchors: Vec<Row> = anchor_rows()
        .into_iter()
        .filter(|a| !a.name.starts_with("static"))
        .collect();
    let parts = cat::blocking_all(30)
        .iter()
        .map(|sc| {
            let draws: Vec<Scenario> = (0..seeds).map(|k| sc.reseeded(k)).collect();
            // (mean good-put %, worst p99 in µs) over the draws.
            let measure = |r: &Row| {
                let (mut good, mut p99) = (0.0, 0u64);
                for d in &draws {
                    let rep = (r.run)(d);
                    good += rep.main().goodput_pct;
                    p99 = p99.max(rep.main().p99_us);
                }
                (good / seeds as f64, p99)
            };
            let (best, theirs) = anchors
                .iter()
                .map(|a| (&a.name, measure(a)))
                .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
                .unwrap();
            let mine = measure(row);
            // Below Critical's share the crate keeps headroom that
            // limiters without classes fill.
            let slack = if sc.classes == [0, 1000, 0] { 0.5 } else { 3.0 };
            let ok = mine.0 >= theirs.0 - slack && mine.1 <= sc.timeout_us;
            (
                ok,
                format!(
                    "{}: good-put {:.1} % (≥ {best}'s {:.1} % − {slack}), p99 {:.1} ms (≤ {:.0} ms; theirs {:.1})",
                    sc.name,
                    mine.0,
                    theirs.0,
                    mine.1 as f64 / 1e3,
                    sc.timeout_us as f64 / 1e3,
                    theirs.1 as f64 / 1e3,
                ),
            )
        })
        .collect();
    goal(
        "waiting acquires: good-put ≥ the best anchor's behind the same backlog (− 3 with classes), p99 ≤ the deadline",
        parts,
    )
}

/// The goal called `name` (its function's name), for `row`;
/// `vs_anchors:TEXT` compares on the scenarios whose names contain `TEXT`.
pub fn by_name(name: &str, row: &Row, seeds: u64) -> Option<Goal> {
    if let Some(part) = name.strip_prefix("vs_anchors:") {
        let some: Vec<Scenario> = cat::catalogue()
            .into_iter()
            .filter(|sc| sc.name.contains(part))
            .collect();
        return Some(vs_anchors(row, &some, seeds));
    }
    Some(match name {
        "vs_anchors" => vs_anchors(row, &cat::catalogue(), seeds),
        "spread" => spread(row, seeds),
        "ratchet" => ratchet(row, seeds),
        "slowdown" => slowdown(row, seeds),
        "coarse_clock" => coarse_clock(row, seeds),
        "capacity_doubling" => capacity_doubling(row, seeds),
        "classes" => classes(row, seeds),
        "settling" => settling(row, seeds),
        "blocking" => blocking(row, seeds),
        _ => return None,
    })
}

/// Every goal for `row`, on `seeds` draws of each scenario.
pub fn all(row: &Row, seeds: u64) -> Vec<Goal> {
    vec![
        vs_anchors(row, &cat::catalogue(), seeds),
        spread(row, seeds),
        ratchet(row, seeds),
        slowdown(row, seeds),
        coarse_clock(row, seeds),
        capacity_doubling(row, seeds),
        classes(row, seeds),
        settling(row, seeds),
        blocking(row, seeds),
    ]
}
