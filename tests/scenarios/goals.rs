//! The goals of issue #13, one function each, measured on full-length
//! scenarios. Each returns whether it holds and the figures it measured.

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

/// The figure compared across limiters: good-put in % of capacity, except at
/// low traffic, where capacity is ~80× the offered load and the figure is
/// the good answers in % of the requests offered.
pub fn served_pct(sc: &Scenario, r: &Report) -> f64 {
    let m = r.main();
    if sc.kind == Kind::LowTraffic {
        m.all.pct(m.all.good)
    } else {
        m.goodput_pct
    }
}

/// Every scenario: good-put within 3 points of the best adaptive anchor (or
/// better), at a p99 at most 1.2× that anchor's. The static row is an oracle
/// that knows the pool, so it is not an anchor here. See [`served_pct`].
pub fn vs_anchors(row: &Row, scenarios: &[Scenario]) -> Goal {
    let anchors: Vec<Row> = anchor_rows()
        .into_iter()
        .filter(|a| !a.name.starts_with("static"))
        .collect();
    let parts = scenarios
        .iter()
        .map(|sc| {
            let best = anchors
                .iter()
                .map(|a| (a.run)(sc))
                .max_by(|a, b| served_pct(sc, a).total_cmp(&served_pct(sc, b)))
                .unwrap();
            let me = (row.run)(sc);
            let (g, b) = (me.main(), best.main());
            let (mine, theirs) = (served_pct(sc, &me), served_pct(sc, &best));
            let ok = mine >= theirs - 3.0 && g.p99_us as f64 <= 1.2 * b.p99_us as f64;
            (
                ok,
                format!(
                    "{}: {:.0} % / p99 {:.1} ms vs {} {:.0} % / {:.1} ms",
                    sc.name,
                    mine,
                    g.p99_us as f64 / 1e3,
                    best.limiter,
                    theirs,
                    b.p99_us as f64 / 1e3
                ),
            )
        })
        .collect();
    goal("within 3 points of the best anchor, p99 ≤ 1.2×", parts)
}

/// ±20 %, ±50 % and exponential service: shed < 5 % at 50 % load, good-put
/// ≥ 90 % of capacity at 150 %.
pub fn spread(row: &Row) -> Goal {
    let mut parts = Vec::new();
    let half = [
        cat::spread(20, 50, 30),
        cat::spread(50, 50, 30),
        cat::exponential(50, 30),
    ];
    for sc in half {
        let r = (row.run)(&sc);
        let shed = r.main().all.pct(r.main().all.shed);
        parts.push((shed < 5.0, format!("{}: shed {shed:.1} %", sc.name)));
    }
    let over = [
        cat::spread(20, 150, 30),
        cat::spread(50, 150, 30),
        cat::exponential(150, 30),
    ];
    for sc in over {
        let r = (row.run)(&sc);
        let g = r.main().goodput_pct;
        parts.push((g >= 90.0, format!("{}: good-put {g:.0} %", sc.name)));
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
pub fn ratchet(row: &Row) -> Goal {
    let mut parts = Vec::new();
    for sc in [4, 8, 16, 32, 64].map(|w| cat::ratchet(w, 30)) {
        parts.push(ratchet_part(&sc, &(row.run)(&sc)));
    }
    for sc in [8, 64].map(|w| cat::ratchet_long(w, 600)) {
        parts.push(ratchet_part(&sc, &(row.run)(&sc)));
    }
    goal("ratchet: limit ≤ 2.5× pool, p50 ≤ 2.5× service", parts)
}

/// 2× slowdown: good-put in the first 5 s ≥ 85 % of the new capacity; at
/// 5 req/s at most 10 s with the limit below half the pool.
pub fn slowdown(row: &Row) -> Goal {
    let sc = cat::slowdown_and_back();
    let r = (row.run)(&sc);
    let first = r
        .windows
        .iter()
        .find(|w| w.label == "20–25 s")
        .unwrap()
        .goodput_pct;
    let low = cat::low_traffic(2, 120, 600);
    let rl = (row.run)(&low);
    let below = rl.time_below_half(low.below_half_from.unwrap(), |t| low.workers_at(t));
    goal(
        "slowdown ×2: first 5 s ≥ 85 %, at 5 req/s ≤ 10 s below half",
        vec![
            (
                first >= 85.0,
                format!("{}: first 5 s {first:.0} %", sc.name),
            ),
            (
                below <= 10_000_000,
                format!("{}: {:.1} s below half", low.name, below as f64 / 1e6),
            ),
        ],
    )
}

/// 1 ms clock on a 1.2 ms operation: good-put ≥ 95 % at 150 % load.
pub fn coarse_clock(row: &Row) -> Goal {
    let sc = cat::tick_1ms(150, 30);
    let g = (row.run)(&sc).main().goodput_pct;
    goal(
        "1 ms tick, 1.2 ms op: good-put ≥ 95 % at 150 %",
        vec![(g >= 95.0, format!("{}: {g:.0} %", sc.name))],
    )
}

/// 64 → 128 workers × 50 ms: the limit reaches 128 within 0.5 s.
pub fn capacity_doubling(row: &Row) -> Goal {
    let sc = cat::capacity_64_to_128(20, 60);
    let r = (row.run)(&sc);
    let t = r.reach_us[0];
    goal(
        "128 × 50 ms doubling: limit ≥ 128 within 0.5 s",
        vec![(
            t.is_some_and(|t| t <= 500_000),
            format!(
                "{}: {}",
                sc.name,
                t.map_or("never".to_string(), |t| format!("{:.2} s", t as f64 / 1e6))
            ),
        )],
    )
}

/// Background gets at least its reserved share of successes under 2× load;
/// at limit 1 critical is never refused while background holds the permit.
pub fn classes(row: &Row) -> Goal {
    let sc = cat::classes(30);
    let share = background_share_pct(&(row.run)(&sc));
    let one = cat::classes_limit1(30);
    let inv = (row.run)(&one).critical_refused_behind_background;
    goal(
        "classes: background ≥ reserve, no inversion at limit 1",
        vec![
            (
                share >= BACKGROUND_RESERVE_PCT,
                format!(
                    "{}: background {share:.2} % of successes (reserve {BACKGROUND_RESERVE_PCT} %)",
                    sc.name
                ),
            ),
            (
                inv == 0,
                format!("{}: {inv} critical refusals behind background", one.name),
            ),
        ],
    )
}

/// Every goal for `row`.
pub fn all(row: &Row) -> Vec<Goal> {
    vec![
        vs_anchors(row, &cat::catalogue()),
        spread(row),
        ratchet(row),
        slowdown(row),
        coarse_clock(row),
        capacity_doubling(row),
        classes(row),
    ]
}
