//! What a run of the overload stand's model reports: its time series, the
//! requests it served, its counts, and the windows the tables are cut from.

use super::{Scenario, MS, SECOND};

/// One point of a run's time series (covers `sample_every` ticks up to `t`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    pub t: u64,
    /// The limiter's limit at `t` (0 without a limiter).
    pub limit: u32,
    /// Requests waiting at the server (plus blocked senders) at `t`.
    pub queue: usize,
    /// Good responses in the interval.
    pub ok: u64,
}

/// A served request.
#[derive(Clone, Copy, Debug)]
pub struct Served {
    /// Response time.
    pub at: u64,
    /// Latency from the client's send, ticks.
    pub latency: u64,
    /// The client was still waiting.
    pub ok: bool,
    /// Worker time it took.
    pub work: u64,
}

/// An attempt's fate, recorded at its send time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub attempts: u64,
    /// Refused at the door or evicted from the queue.
    pub shed: u64,
    /// The client gave up waiting.
    pub timed_out: u64,
    /// Skipped by a worker's deadline check.
    pub skipped: u64,
}

/// Everything a run measured.
#[derive(Clone, Debug)]
pub struct Run {
    pub scenario: Scenario,
    pub served: Vec<Served>,
    /// Per attempt: (send time, counts contribution), summed in windows.
    pub(super) attempts: Vec<(u64, Fate)>,
    /// Per fresh request: (creation time, class, succeeded).
    pub requests: Vec<(u64, usize, bool)>,
    pub series: Vec<Sample>,
    pub peak_queue: usize,
    pub peak_bytes: usize,
    /// Requests the ring's fresh pop discarded (`RingStats::expired`;
    /// policy 2c).
    pub expired: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fate {
    Ok,
    Shed,
    TimedOut,
    /// Still open at the end, or answered late after a timeout (counted there).
    Other,
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
    /// The steady part of the run: from the warm-up to the end.
    pub fn steady(&self) -> Window {
        self.window(self.scenario.warmup, self.scenario.duration)
    }

    /// Results for `from..to` (responses by response time, attempts by send
    /// time, requests by creation time; requests created in the last timeout
    /// × attempts of the run are left out of success rates, as still open).
    pub fn window(&self, from: u64, to: u64) -> Window {
        let mut lat: Vec<u64> = Vec::new();
        let mut w = Window {
            seconds: (to - from) as f64 / SECOND as f64,
            peak_queue: self.peak_queue,
            peak_bytes: self.peak_bytes,
            ..Window::default()
        };
        let (mut work, mut wasted_work) = (0u64, 0u64);
        for s in self.served.iter().filter(|s| (from..to).contains(&s.at)) {
            w.served += 1;
            work += s.work;
            lat.push(s.latency);
            if s.ok {
                w.goodput += 1.0;
            } else {
                w.wasted += 1;
                wasted_work += s.work;
            }
        }
        w.goodput /= w.seconds;
        w.wasted_work = if work == 0 {
            0.0
        } else {
            wasted_work as f64 / work as f64
        };
        lat.sort_unstable();
        let q = |p: usize| {
            if lat.is_empty() {
                0.0
            } else {
                lat[(lat.len() * p / 100).min(lat.len() - 1)] as f64 / MS as f64
            }
        };
        w.p50_ms = q(50);
        w.p99_ms = q(99);
        for &(t, fate) in &self.attempts {
            if (from..to).contains(&t) {
                w.counts.attempts += 1;
                match fate {
                    Fate::Shed => w.counts.shed += 1,
                    Fate::TimedOut => w.counts.timed_out += 1,
                    _ => {}
                }
            }
        }
        let open = self.scenario.duration.saturating_sub(
            self.scenario.timeout * 2 * u64::from(self.scenario.max_attempts) + SECOND,
        );
        for &(t, class, ok) in &self.requests {
            if (from..to.min(open)).contains(&t) {
                w.requests[class] += 1;
                w.succeeded[class] += u64::from(ok);
            }
        }
        w
    }
}
