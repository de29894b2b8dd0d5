//! The SVG: good-put and p99 against offered load (one line per policy), and
//! the limiters' limits over time across the slowdown. A policy has the same
//! colour in every panel; each panel's legend sits in a column to the right
//! of its plot, so it covers no line.

use std::error::Error;
use std::path::Path;

use plotters::prelude::*;

use crate::sim::{Run, Scenario, Window, MS, SECOND};
use crate::Row;

/// One colour per policy name (every panel), distinguishable on white.
const COLOURS: [(&str, RGBColor); 16] = [
    ("1 unbounded, no check", RGBColor(120, 120, 120)),
    ("1 unbounded", RGBColor(0, 0, 0)),
    ("1 unbounded, budget chk", RGBColor(150, 90, 40)),
    ("2 ring 16, reject", RGBColor(31, 119, 180)),
    ("2b ring 16, block", RGBColor(23, 190, 207)),
    ("2c ring 16, expire", RGBColor(0, 90, 140)),
    ("2d ring 16, block+exp", RGBColor(100, 200, 160)),
    ("2e ring 16, slowed src", RGBColor(60, 60, 160)),
    ("2f slowed src+exp", RGBColor(150, 150, 230)),
    ("3 ring 16, drop oldest", RGBColor(44, 160, 44)),
    ("4 static limit 4", RGBColor(255, 127, 14)),
    ("4 static limit 16", RGBColor(188, 189, 34)),
    ("4 static limit 64", RGBColor(140, 86, 75)),
    ("5 AIMD", RGBColor(214, 39, 40)),
    ("6 AIMD, 2 classes", RGBColor(148, 103, 189)),
    ("7 gradient", RGBColor(227, 119, 194)),
];

fn colour(name: &str) -> RGBColor {
    COLOURS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(RGBColor(90, 90, 90), |&(_, c)| c)
}

/// Width of the legend column right of each plot, pixels.
const LEGEND: u32 = 230;

/// Draws a legend of `(label, colour, dashed)` entries in `area`.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, RGBColor)],
) -> Result<(), Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    for (k, (label, c)) in entries.iter().enumerate() {
        let y = 50 + 22 * k as i32;
        area.draw(&PathElement::new(vec![(8, y), (34, y)], c.stroke_width(3)))?;
        area.draw(&Text::new(
            label.clone(),
            (42, y - 7),
            ("sans-serif", 14).into_font(),
        ))?;
    }
    Ok(())
}

/// Writes the three charts to `out` (creating its directory).
pub fn write(
    out: &Path,
    loads: &[u64],
    rows: &[Row],
    sweep: &[Vec<Window>],
    base: &Scenario,
    slow: &[Run],
    slow_rows: &[Row],
) -> Result<(), Box<dyn Error>> {
    if let Some(dir) = out.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)?;
        }
    }
    let root = SVGBackend::new(out, (1000 + LEGEND, 1500)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas: Vec<_> = root
        .split_evenly((3, 1))
        .into_iter()
        .map(|a| a.split_horizontally(1000))
        .collect();
    let entries: Vec<(String, RGBColor)> = rows
        .iter()
        .map(|r| (r.name.to_string(), colour(r.name)))
        .collect();
    let x = |load: u64| load as f64 / 100.0;
    let (x0, x1) = (x(loads[0]), x(*loads.last().unwrap_or(&300)));
    let cap = base.capacity_per_s();

    // 1. Good-put.
    let mut chart = ChartBuilder::on(&areas[0].0)
        .caption("Good-put vs offered load", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, 0f64..110f64)?;
    chart
        .configure_mesh()
        .x_desc("offered load (x capacity)")
        .y_desc("good-put (% of capacity)")
        .draw()?;
    for (i, row) in rows.iter().enumerate() {
        chart.draw_series(LineSeries::new(
            loads
                .iter()
                .enumerate()
                .map(|(j, &l)| (x(l), 100.0 * sweep[j][i].goodput / cap)),
            colour(row.name).stroke_width(2),
        ))?;
    }
    legend(&areas[0].1, &entries)?;

    // 2. p99, log scale (the unbounded queue's reaches seconds).
    let top = sweep
        .iter()
        .flatten()
        .map(|w| w.p99_ms)
        .fold(1000.0f64, f64::max)
        * 1.5;
    let mut chart = ChartBuilder::on(&areas[1].0)
        .caption(
            "p99 latency of served requests vs offered load (log scale)",
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, (5f64..top).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("offered load (x capacity)")
        .y_desc("p99 (ms)")
        .draw()?;
    for (i, row) in rows.iter().enumerate() {
        chart.draw_series(LineSeries::new(
            loads
                .iter()
                .enumerate()
                .map(|(j, &l)| (x(l), sweep[j][i].p99_ms.max(5.0))),
            colour(row.name).stroke_width(2),
        ))?;
    }
    let timeout = base.timeout as f64 / MS as f64;
    let grey = RGBColor(160, 160, 160);
    chart.draw_series(LineSeries::new(
        [(x0, timeout), (x1, timeout)],
        grey.stroke_width(1),
    ))?;
    let mut with_timeout = entries.clone();
    with_timeout.push(("client timeout".to_string(), grey));
    legend(&areas[1].1, &with_timeout)?;

    // 3. The limit over time across the slowdown.
    let end = slow
        .first()
        .map_or(1.0, |r| r.scenario.duration as f64 / SECOND as f64);
    let change = slow
        .first()
        .map_or(0.0, |r| r.scenario.change_at as f64 / SECOND as f64);
    let adaptive: Vec<(usize, &Row)> = slow_rows
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.policy.limiter(crate::sim::AIMD).is_some()
                && !matches!(r.policy, crate::sim::Policy::Static(_))
        })
        .collect();
    let ymax = adaptive
        .iter()
        .flat_map(|&(i, _)| slow[i].series.iter().map(|s| s.limit))
        .max()
        .unwrap_or(10)
        .min(80) as f64
        * 1.2;
    let mut chart = ChartBuilder::on(&areas[2].0)
        .caption(
            format!(
                "Concurrency limit over time: service {} ms -> {} ms at {change:.0} s",
                base.service / MS,
                slow.first().map_or(0, |r| r.scenario.service_after / MS)
            ),
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..end, 0f64..ymax)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("limit (permits)")
        .draw()?;
    for &(i, row) in &adaptive {
        chart.draw_series(LineSeries::new(
            slow[i]
                .series
                .iter()
                .map(|s| (s.t as f64 / SECOND as f64, f64::from(s.limit))),
            colour(row.name).stroke_width(2),
        ))?;
    }
    let workers = f64::from(base.workers);
    let grey = RGBColor(160, 160, 160);
    chart.draw_series(LineSeries::new(
        [(0.0, workers), (end, workers)],
        grey.stroke_width(1),
    ))?;
    let red = RGBColor(200, 0, 0);
    chart.draw_series(LineSeries::new(
        [(change, 0.0), (change, ymax)],
        red.stroke_width(1),
    ))?;
    chart.draw_series(std::iter::once(Text::new(
        format!("slowdown at {change:.0} s"),
        (change + 0.3, ymax * 0.95),
        ("sans-serif", 14).into_font().color(&red),
    )))?;
    let mut entries: Vec<(String, RGBColor)> = adaptive
        .iter()
        .map(|&(_, r)| (format!("{} (limit)", r.name), colour(r.name)))
        .collect();
    entries.push(("workers".to_string(), grey));
    entries.push(("slowdown".to_string(), red));
    legend(&areas[2].1, &entries)?;
    root.present()?;
    Ok(())
}
