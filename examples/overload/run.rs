//! What a run of the overload stand's model reports: the engine's report,
//! its limit over time, and the windows the tables are cut from.

use super::scenarios::harness::Report;
use super::{Scenario, MS, REQUEST_BYTES, SECOND};

/// One point of a run's limit over time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    pub t: u64,
    /// The limiter's limit at `t` (0 without a limiter).
    pub limit: u32,
}

/// Attempts sent in a window, and what became of them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub attempts: u64,
    /// Refused at the door or evicted from the queue.
    pub shed: u64,
    /// The client gave up waiting (skipped, discarded, or answered late).
    pub timed_out: u64,
}

/// Everything a run measured.
#[derive(Clone, Debug)]
pub struct Run {
    pub scenario: Scenario,
    /// The engine's report: one window per [`Scenario::spans`].
    pub report: Report,
    pub series: Vec<Sample>,
    /// Most requests waiting at once (plus blocked senders), and the
    /// queue's memory at that point.
    pub peak_queue: usize,
    pub peak_bytes: usize,
    /// Requests the ring's fresh pop discarded (`RingStats::expired`;
    /// policy 2c).
    pub expired: usize,
}

/// Summary of a run over a window of virtual time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Window {
    pub seconds: f64,
    /// Good responses per second.
    pub goodput: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub served: u64,
    pub counts: Counts,
    /// Served requests nobody waited for.
    pub wasted: u64,
    /// Worker time on them, share of all worker time spent.
    pub wasted_work: f64,
    /// Fresh requests per class and how many of them succeeded (any attempt).
    pub requests: [u64; 2],
    pub succeeded: [u64; 2],
    /// Attempts by the limiter's degradation band their class was in when
    /// sent (`Limiter::pressure`): normal, elevated, saturated.
    pub bands: [u64; 3],
    /// Over the whole run: most requests waiting at once (plus blocked
    /// senders), and the queue's memory at that point.
    pub peak_queue: usize,
    pub peak_bytes: usize,
}

impl Window {
    pub fn shed_pct(&self) -> f64 {
        pct(self.counts.shed, self.counts.attempts)
    }
    pub fn timed_out_pct(&self) -> f64 {
        pct(self.counts.timed_out, self.counts.attempts)
    }
    pub fn wasted_pct(&self) -> f64 {
        pct(self.wasted, self.served)
    }
    /// Share of the attempts sent in degradation band `b`, %.
    pub fn band_pct(&self, b: usize) -> f64 {
        pct(self.bands[b], self.bands.iter().sum())
    }
    /// Share of class `c`'s fresh requests that succeeded, %.
    pub fn success_pct(&self, c: usize) -> f64 {
        pct(self.succeeded[c], self.requests[c])
    }
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

impl Run {
    pub(super) fn new(scenario: Scenario, report: Report) -> Self {
        Run {
            scenario,
            series: report
                .samples
                .iter()
                .map(|&(t, limit)| Sample { t, limit })
                .collect(),
            peak_queue: report.peak_queue,
            peak_bytes: report.peak_slots * REQUEST_BYTES,
            expired: report.expired as usize,
            report,
        }
    }

    /// The steady part of the run: from the warm-up to the end.
    pub fn steady(&self) -> Window {
        self.window(self.scenario.warmup, self.scenario.duration)
    }

    /// Results for `from..to`, one of the scenario's windows (attempts by
    /// send time, requests by arrival time).
    pub fn window(&self, from: u64, to: u64) -> Window {
        let i = self
            .scenario
            .spans()
            .position(|s| s == (from, to))
            .unwrap_or_else(|| panic!("{from}..{to} is not among the scenario's windows"));
        let r = &self.report.windows[i];
        let seconds = (to - from) as f64 / SECOND as f64;
        Window {
            seconds,
            goodput: r.all.good as f64 / seconds,
            p50_ms: r.served_p50_us as f64 / MS as f64,
            p99_ms: r.served_p99_us as f64 / MS as f64,
            served: r.all.good + r.all.late,
            counts: Counts {
                attempts: r.all.offered,
                shed: r.all.shed,
                timed_out: r.all.timed_out + r.all.late,
            },
            wasted: r.all.late,
            wasted_work: if r.work_us == 0 {
                0.0
            } else {
                r.wasted_work_us as f64 / r.work_us as f64
            },
            requests: [r.requests[0], r.requests[2]],
            succeeded: [r.succeeded[0], r.succeeded[2]],
            bands: r.bands,
            peak_queue: self.peak_queue,
            peak_bytes: self.peak_bytes,
        }
    }
}
