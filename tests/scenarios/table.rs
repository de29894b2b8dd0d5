//! Printing: one table per scenario, one line per limiter, as aligned text or
//! as markdown.

use super::harness::{Kind, Report, Scenario, SAMPLE_US};

fn ms(us: u64) -> String {
    let x = us as f64 / 1000.0;
    if x < 9.95 {
        format!("{x:.1}")
    } else {
        format!("{x:.0}")
    }
}

fn secs(us: Option<u64>) -> String {
    match us {
        Some(t) => format!("{:.2} s", t as f64 / 1e6),
        None => "never".to_string(),
    }
}

/// Times at which the trajectory is shown: the scenario's marks, or six
/// points across the main window.
fn marks(sc: &Scenario) -> Vec<u64> {
    if !sc.marks.is_empty() {
        return sc.marks.clone();
    }
    let w = &sc.windows[0];
    let step = (w.to_us - w.from_us) / 5;
    (0..6)
        .map(|i| (w.from_us + i * step).min(w.to_us - SAMPLE_US))
        .collect()
}

/// Column headers for `sc`.
pub fn header(sc: &Scenario) -> Vec<String> {
    let main = &sc.windows[0].label;
    let mut h: Vec<String> = vec![
        "limiter".into(),
        format!("good-put % cap {main}"),
        "p50 ms".into(),
        "p99 ms".into(),
        "shed %".into(),
        "t/o %".into(),
        "limit mean [min–max]".into(),
        format!(
            "limit at {} s",
            marks(sc)
                .iter()
                .map(|t| format!("{}", t / 1_000_000))
                .collect::<Vec<_>>()
                .join("/")
        ),
    ];
    match sc.kind {
        Kind::Plain => {}
        Kind::Ratchet => {
            h.push("limit / workers".into());
            h.push("p50 / service".into());
        }
        Kind::Transient => {
            for w in &sc.windows[1..] {
                h.push(format!("good-put {}", w.label));
            }
            for (_, target) in &sc.reach {
                h.push(format!("time to limit ≥ {target}"));
            }
        }
        Kind::LowTraffic => {
            for w in &sc.windows[1..] {
                h.push(format!("burst shed % {}", w.label));
            }
            h.push("time limit < workers/2 after change".into());
        }
        Kind::Settle => {
            h.push("highest limit".into());
            h.push("worst 1 s p50 ms".into());
        }
        Kind::Classes => {
            h.push("success % C/N/B".into());
            h.push("background share of successes %".into());
            h.push("critical refused while a lower class held the last permit".into());
        }
    }
    h
}

/// One line of the table for `r`.
pub fn line(sc: &Scenario, r: &Report) -> Vec<String> {
    let m = r.main();
    let w = &sc.windows[0];
    let (mean, lo, hi) = r.limit_stats(w.from_us, w.to_us);
    let mut v = vec![
        r.limiter.clone(),
        format!("{:.0}", m.goodput_pct),
        ms(m.p50_us),
        ms(m.p99_us),
        format!("{:.1}", m.all.pct(m.all.shed)),
        format!("{:.1}", m.all.pct(m.all.timed_out + m.all.late)),
        format!("{mean:.1} [{lo}–{hi}]"),
        marks(sc)
            .iter()
            .map(|&t| r.limit_at(t).to_string())
            .collect::<Vec<_>>()
            .join(" → "),
    ];
    match sc.kind {
        Kind::Plain => {}
        Kind::Ratchet => {
            let workers = sc.workers_at(w.from_us) as f64;
            v.push(format!("{:.2}", mean / workers));
            v.push(format!("{:.2}", m.p50_us as f64 / sc.service.mean_us()));
        }
        Kind::Transient => {
            for x in &r.windows[1..] {
                v.push(format!("{:.0}", x.goodput_pct));
            }
            for t in &r.reach_us {
                v.push(secs(*t));
            }
        }
        Kind::LowTraffic => {
            for x in &r.windows[1..] {
                v.push(format!("{:.0}", x.burst.pct(x.burst.shed)));
            }
            let from = sc.below_half_from.unwrap_or(0);
            v.push(secs(Some(r.time_below_half(from, |t| sc.workers_at(t)))));
        }
        Kind::Settle => {
            let (_, _, hi) = r.limit_stats(w.from_us, w.to_us);
            v.push(hi.to_string());
            v.push(ms(worst_p50(r)));
        }
        Kind::Classes => {
            let c = &m.class;
            v.push(format!(
                "{:.0} / {:.0} / {:.0}",
                c[0].pct(c[0].good),
                c[1].pct(c[1].good),
                c[2].pct(c[2].good)
            ));
            v.push(format!("{:.1}", background_share_pct(r)));
            v.push(r.critical_refused_behind_lower.to_string());
        }
    }
    v
}

/// The highest p50 of the one-second windows (`windows[1..]`) of a
/// `Kind::Settle` scenario.
pub fn worst_p50(r: &Report) -> u64 {
    r.windows[1..].iter().map(|w| w.p50_us).max().unwrap_or(0)
}

/// Background successes in % of all successes in the main window.
pub fn background_share_pct(r: &Report) -> f64 {
    let c = &r.main().class;
    let good: u64 = c.iter().map(|x| x.good).sum();
    if good == 0 {
        0.0
    } else {
        100.0 * c[2].good as f64 / good as f64
    }
}

/// Renders `rows` (header first) as markdown or as aligned text.
pub fn render(rows: &[Vec<String>], markdown: bool) -> String {
    let mut out = String::new();
    if markdown {
        for (i, r) in rows.iter().enumerate() {
            out += &format!("| {} |\n", r.join(" | "));
            if i == 0 {
                out += &format!("|{}\n", "---|".repeat(r.len()));
            }
        }
        return out;
    }
    let cols = rows[0].len();
    let width: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&width)
            .map(|(s, &w)| format!("{s}{}", " ".repeat(w - s.chars().count())))
            .collect();
        out += cells.join("  ").trim_end();
        out += "\n";
    }
    out
}

/// The title, the header and one line per report.
pub fn scenario_table(sc: &Scenario, reports: &[Report], markdown: bool) -> String {
    let mut rows = vec![header(sc)];
    rows.extend(reports.iter().map(|r| line(sc, r)));
    let title = if markdown {
        format!("**`{}`**: {}\n\n", sc.name, sc.about)
    } else {
        format!("== {}: {}\n", sc.name, sc.about)
    };
    format!("{title}{}", render(&rows, markdown))
}
