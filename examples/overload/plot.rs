//! The SVG: good-put and p99 against offered load (one line per policy), and
//! the AIMD limit over time across the slowdown.

use std::error::Error;
use std::path::Path;

use plotters::prelude::*;

use crate::sim::{Run, Scenario, Window, MS, SECOND};
use crate::Row;

/// One colour per row, distinguishable on white.
const COLOURS: [RGBColor; 10] = [
    RGBColor(120, 120, 120),
    RGBColor(0, 0, 0),
    RGBColor(150, 90, 40),
    RGBColor(31, 119, 180),
    RGBColor(23, 190, 207),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(227, 119, 194),
];

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
    let root = SVGBackend::new(out, (1000, 1500)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((3, 1));
    let x = |load: u64| load as f64 / 100.0;
    let (x0, x1) = (x(loads[0]), x(*loads.last().unwrap_or(&300)));
    let cap = base.capacity_per_s();

    // 1. Good-put.
    let mut chart = ChartBuilder::on(&areas[0])
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
        let c = COLOURS[i % COLOURS.len()];
        chart
            .draw_series(LineSeries::new(
                loads
                    .iter()
                    .enumerate()
                    .map(|(j, &l)| (x(l), 100.0 * sweep[j][i].goodput / cap)),
                c.stroke_width(2),
            ))?
            .label(row.name)
            .legend(move |(a, b)| PathElement::new(vec![(a, b), (a + 20, b)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::MiddleRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;

    // 2. p99, log scale (the unbounded queue's reaches seconds).
    let top = sweep
        .iter()
        .flatten()
        .map(|w| w.p99_ms)
        .fold(1000.0f64, f64::max)
        * 1.5;
    let mut chart = ChartBuilder::on(&areas[1])
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
        let c = COLOURS[i % COLOURS.len()];
        chart
            .draw_series(LineSeries::new(
                loads
                    .iter()
                    .enumerate()
                    .map(|(j, &l)| (x(l), sweep[j][i].p99_ms.max(5.0))),
                c.stroke_width(2),
            ))?
            .label(row.name)
            .legend(move |(a, b)| PathElement::new(vec![(a, b), (a + 20, b)], c.stroke_width(2)));
    }
    let timeout = base.timeout as f64 / MS as f64;
    chart
        .draw_series(LineSeries::new(
            [(x0, timeout), (x1, timeout)],
            BLACK.mix(0.4).stroke_width(1),
        ))?
        .label("client timeout")
        .legend(|(a, b)| PathElement::new(vec![(a, b), (a + 20, b)], BLACK.mix(0.4)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;

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
        .filter(|(_, r)| r.policy.limiter(crate::sim::AIMD).is_some())
        .collect();
    let ymax = adaptive
        .iter()
        .flat_map(|&(i, _)| slow[i].series.iter().map(|s| s.limit))
        .max()
        .unwrap_or(10)
        .min(80) as f64
        * 1.2;
    let mut chart = ChartBuilder::on(&areas[2])
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
    for (k, &(i, row)) in adaptive.iter().enumerate() {
        let c = COLOURS[(k * 3 + 3) % COLOURS.len()];
        chart
            .draw_series(LineSeries::new(
                slow[i]
                    .series
                    .iter()
                    .map(|s| (s.t as f64 / SECOND as f64, f64::from(s.limit))),
                c.stroke_width(2),
            ))?
            .label(row.name)
            .legend(move |(a, b)| PathElement::new(vec![(a, b), (a + 20, b)], c.stroke_width(2)));
    }
    let workers = f64::from(base.workers);
    chart
        .draw_series(LineSeries::new(
            [(0.0, workers), (end, workers)],
            BLACK.mix(0.4),
        ))?
        .label("workers")
        .legend(|(a, b)| PathElement::new(vec![(a, b), (a + 20, b)], BLACK.mix(0.4)));
    chart.draw_series(LineSeries::new(
        [(change, 0.0), (change, ymax)],
        RED.mix(0.5),
    ))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
