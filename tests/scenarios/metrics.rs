//! The event loop's tallies: how each attempt ended, per reported window
//! and in total, with the latencies and the work spent.

use super::harness::Counts;

pub(super) enum End {
    Good(u64),
    Shed,
    TimedOut,
    Late,
}

#[derive(Default)]
pub(super) struct WindowAcc {
    pub(super) all: Counts,
    pub(super) burst: Counts,
    pub(super) class: [Counts; 3],
    pub(super) latencies: Vec<u32>,
    pub(super) served_latencies: Vec<u32>,
    pub(super) work_us: u64,
    pub(super) wasted_work_us: u64,
    pub(super) requests: [u64; 3],
    pub(super) succeeded: [u64; 3],
    pub(super) bands: [u64; 3],
}

pub(super) struct Metrics {
    pub(super) windows: Vec<(u64, u64, WindowAcc)>,
    pub(super) total: Counts,
}

fn count(c: &mut Counts, end: &End) {
    c.offered += 1;
    match end {
        End::Good(_) => c.good += 1,
        End::Shed => c.shed += 1,
        End::TimedOut => c.timed_out += 1,
        End::Late => c.late += 1,
    }
}

impl Metrics {
    pub(super) fn windows_at(&mut self, t: u64) -> impl Iterator<Item = &mut WindowAcc> {
        self.windows
            .iter_mut()
            .filter(move |(from, to, _)| *from <= t && t < *to)
            .map(|w| &mut w.2)
    }

    pub(super) fn end(&mut self, arrival: u64, class: usize, burst: bool, end: End) {
        count(&mut self.total, &end);
        for acc in self.windows_at(arrival) {
            count(&mut acc.all, &end);
            count(&mut acc.class[class], &end);
            if burst {
                count(&mut acc.burst, &end);
            }
            if let End::Good(lat) = end {
                acc.latencies.push(lat as u32);
            }
        }
    }

    /// A worker finished an attempt sent at `arrival`; `wasted`: its
    /// client no longer waited.
    pub(super) fn served(&mut self, arrival: u64, latency: u64, work: u64, wasted: bool) {
        for acc in self.windows_at(arrival) {
            acc.served_latencies.push(latency as u32);
            acc.work_us += work;
            if wasted {
                acc.wasted_work_us += work;
            }
        }
    }

    /// An attempt was sent at `sent` while its class was in degradation
    /// band `band`.
    pub(super) fn band(&mut self, sent: u64, band: usize) {
        for acc in self.windows_at(sent) {
            acc.bands[band] += 1;
        }
    }

    /// A request created at `created` ended, answered in time or not.
    pub(super) fn request(&mut self, created: u64, class: usize, ok: bool) {
        for acc in self.windows_at(created) {
            acc.requests[class] += 1;
            acc.succeeded[class] += u64::from(ok);
        }
    }
}

pub(super) fn percentile(sorted: &[u32], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as u64
}
