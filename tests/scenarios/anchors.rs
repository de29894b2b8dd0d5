//! Models of the anchor limiters, restated from their sources (not their
//! code) and driven by the same harness.
//!
//! * Netflix `concurrency-limits` (snapshot `78a74b9`): `SimpleLimiter`
//!   (admit while in flight < limit; a success reports
//!   `onSample(start, rtt, inflight_at_acquire, false)`, a drop the same with
//!   `true` and the elapsed time, an ignore nothing) in front of
//!   `AIMDLimit`, `Gradient2Limit`, `WindowedLimit(Gradient2Limit)` with the
//!   library defaults, and `VegasLimit`.
//! * Envoy's adaptive-concurrency `GradientController` with the proto
//!   defaults (p50, buffer 25 %, `min_concurrency` 3, 50 samples for the
//!   minRTT, jitter 15 %) and the docs' example intervals (sample window
//!   100 ms, minRTT every 60 s); a timed-out request is
//!   `cancelLatencySample`.
//! * A static limit equal to the workers at start.
//!
//! Deviations: single-threaded (the anchors' check-then-act races cannot
//! show); Envoy's percentile is exact (nearest rank) instead of
//! libcircllhist's approximation; its timers fire at their due time, checked
//! before every event; Vegas clamps `rtt` to ≥ 1 µs instead of throwing on 0;
//! Envoy's `min_concurrency` is capped at the scenario's maximum (limit-1
//! scenarios). Every row uses the scenario's min / initial / max where the
//! original has that setting (Vegas has no minimum: 1; Envoy has no initial
//! limit: it starts in a minRTT window at `min_concurrency`).

use super::harness::{Ctx, Outcome, Rng, Row, SimLimiter};

/// The rows of every anchor, in table order.
pub fn anchor_rows() -> Vec<Row> {
    vec![
        Row::new("Netflix AIMD", |c: &Ctx| {
            Simple::new(NetflixAimd::new(c), c)
        }),
        Row::new("Netflix Gradient2", |c: &Ctx| {
            Simple::new(Gradient2::new(c), c)
        }),
        Row::new("Netflix Windowed(Gradient2)", |c: &Ctx| {
            Simple::new(Windowed::new(Gradient2::new(c)), c)
        }),
        Row::new("Netflix Vegas", |c: &Ctx| Simple::new(Vegas::new(c), c)),
        Row::new("Envoy gradient", Envoy::new),
        Row::new("static (= workers)", |c: &Ctx| Static {
            limit: c.workers,
            in_flight: 0,
        }),
    ]
}

/// A Netflix `Limit`: fed one sample per completed request.
pub trait NetflixLimit {
    /// `onSample(startTime, rtt, inflight, didDrop)`, times in µs.
    fn on_sample(&mut self, start_us: u64, rtt_us: u64, inflight: u32, did_drop: bool);
    /// The integer limit.
    fn limit(&self) -> u32;
}

/// Netflix `SimpleLimiter`.
#[derive(Debug)]
pub struct Simple<A> {
    algo: A,
    in_flight: u32,
    tick_us: u64,
}

impl<A: NetflixLimit> Simple<A> {
    /// In front of `algo`.
    pub fn new(algo: A, c: &Ctx) -> Self {
        Simple {
            algo,
            in_flight: 0,
            tick_us: c.tick_us,
        }
    }
}

/// Netflix token: acquire time and in flight after the increment.
#[derive(Debug)]
pub struct NetflixToken {
    start_us: u64,
    inflight: u32,
}

impl<A: NetflixLimit> SimLimiter for Simple<A> {
    type Token = NetflixToken;

    fn acquire(&mut self, now_us: u64, _class: usize) -> Option<NetflixToken> {
        if self.in_flight >= self.algo.limit() {
            return None;
        }
        self.in_flight += 1;
        Some(NetflixToken {
            start_us: now_us,
            inflight: self.in_flight,
        })
    }

    fn release(&mut self, t: NetflixToken, now_us: u64, outcome: Outcome) {
        self.in_flight -= 1;
        match outcome {
            Outcome::Success { ticks } => {
                self.algo
                    .on_sample(t.start_us, ticks as u64 * self.tick_us, t.inflight, false)
            }
            Outcome::Dropped => {
                self.algo
                    .on_sample(t.start_us, now_us - t.start_us, t.inflight, true)
            }
            Outcome::Ignore => {}
        }
    }

    fn limit(&self) -> u32 {
        self.algo.limit()
    }
}

/// `AIMDLimit`: ×0.9 on a drop or an rtt over 5 s, +1 when in flight ≥ half
/// the limit, clamped to [min, max].
#[derive(Debug)]
pub struct NetflixAimd {
    limit: u32,
    min: u32,
    max: u32,
}

impl NetflixAimd {
    /// With the scenario's limits.
    pub fn new(c: &Ctx) -> Self {
        NetflixAimd {
            limit: c.limits.initial,
            min: c.limits.min,
            max: c.limits.max,
        }
    }
}

impl NetflixLimit for NetflixAimd {
    fn on_sample(&mut self, _start: u64, rtt_us: u64, inflight: u32, did_drop: bool) {
        let mut l = self.limit;
        if did_drop || rtt_us > 5_000_000 {
            l = (l as f64 * 0.9) as u32;
        } else if inflight * 2 >= l {
            l += 1;
        }
        self.limit = l.max(self.min).min(self.max);
    }

    fn limit(&self) -> u32 {
        self.limit
    }
}

/// `ExpAvgMeasurement(window, warmup)`: the plain mean of the first `warmup`
/// samples, then an EWMA with factor `2 / (window + 1)`.
#[derive(Debug)]
struct ExpAvg {
    window: f64,
    warmup: u32,
    count: u32,
    sum: f64,
    value: f64,
}

impl ExpAvg {
    fn add(&mut self, x: f64) -> f64 {
        if self.count < self.warmup {
            self.count += 1;
            self.sum += x;
            self.value = self.sum / self.count as f64;
        } else {
            let f = 2.0 / (self.window + 1.0);
            self.value = self.value * (1.0 - f) + x * f;
        }
        self.value
    }
}

/// `Gradient2Limit` with its defaults: long RTT = `ExpAvg(600, 10)`,
/// tolerance 1.5, smoothing 0.2, queue size 4; app-limited samples (in
/// flight < limit / 2) do not change the limit; drops are not used.
#[derive(Debug)]
pub struct Gradient2 {
    estimated: f64,
    min: f64,
    max: f64,
    long_rtt: ExpAvg,
}

impl Gradient2 {
    /// With the scenario's limits.
    pub fn new(c: &Ctx) -> Self {
        Gradient2 {
            estimated: c.limits.initial as f64,
            min: c.limits.min as f64,
            max: c.limits.max as f64,
            long_rtt: ExpAvg {
                window: 600.0,
                warmup: 10,
                count: 0,
                sum: 0.0,
                value: 0.0,
            },
        }
    }
}

impl NetflixLimit for Gradient2 {
    fn on_sample(&mut self, _start: u64, rtt_us: u64, inflight: u32, _did_drop: bool) {
        let queue = 4.0;
        let short = rtt_us as f64;
        let long = self.long_rtt.add(short);
        if long / short > 2.0 {
            self.long_rtt.value *= 0.95;
        }
        if (inflight as f64) < self.estimated / 2.0 {
            return;
        }
        let gradient = (1.5 * long / short).clamp(0.5, 1.0);
        let mut new = self.estimated * gradient + queue;
        new = self.estimated * 0.8 + new * 0.2;
        self.estimated = new.min(self.max).max(self.min);
    }

    fn limit(&self) -> u32 {
        self.estimated as u32
    }
}

/// `WindowedLimit` with its defaults: windows of 1 s (min = max window
/// time), at least 10 samples, samples under 100 µs ignored, the delegate fed
/// the window's average RTT, maximum in flight and whether any sample
/// dropped.
#[derive(Debug)]
pub struct Windowed<A> {
    delegate: A,
    next_update_us: u64,
    min_rtt: u64,
    sum: u64,
    count: u64,
    max_inflight: u32,
    did_drop: bool,
}

impl<A> Windowed<A> {
    /// Around `delegate`.
    pub fn new(delegate: A) -> Self {
        Windowed {
            delegate,
            next_update_us: 0,
            min_rtt: u64::MAX,
            sum: 0,
            count: 0,
            max_inflight: 0,
            did_drop: false,
        }
    }
}

impl<A: NetflixLimit> NetflixLimit for Windowed<A> {
    fn on_sample(&mut self, start_us: u64, rtt_us: u64, inflight: u32, did_drop: bool) {
        let end = start_us + rtt_us;
        if rtt_us < 100 {
            return;
        }
        self.min_rtt = self.min_rtt.min(rtt_us);
        self.sum += rtt_us;
        self.count += 1;
        self.max_inflight = self.max_inflight.max(inflight);
        self.did_drop |= did_drop;
        if end > self.next_update_us {
            let (min_rtt, sum, count, max_inflight, dropped) = (
                self.min_rtt,
                self.sum,
                self.count,
                self.max_inflight,
                self.did_drop,
            );
            self.min_rtt = u64::MAX;
            self.sum = 0;
            self.count = 0;
            self.max_inflight = 0;
            self.did_drop = false;
            self.next_update_us = end + (min_rtt * 2).clamp(1_000_000, 1_000_000);
            if min_rtt < u64::MAX && count >= 10 {
                self.delegate
                    .on_sample(start_us, sum / count, max_inflight, dropped);
            }
        }
    }

    fn limit(&self) -> u32 {
        self.delegate.limit()
    }
}

/// `VegasLimit` with its defaults: alpha 3·log10(L), beta 6·log10(L),
/// threshold log10(L), ±log10(L) steps (integer log10, at least 1),
/// smoothing 1, a probe of the no-load RTT every `jitter · 30 · L` samples
/// (jitter uniform in [0.5, 1)); max = the scenario's, min 1.
#[derive(Debug)]
pub struct Vegas {
    estimated: f64,
    max: f64,
    rtt_noload: u64,
    probe_count: u64,
    probe_jitter: f64,
    rng: Rng,
}

fn log10_int(l: u32) -> u32 {
    let mut n = 0;
    let mut x = l;
    while x >= 10 {
        x /= 10;
        n += 1;
    }
    n.max(1)
}

impl Vegas {
    /// With the scenario's initial and maximum limits.
    pub fn new(c: &Ctx) -> Self {
        let mut rng = Rng(c.seed);
        let probe_jitter = 0.5 + 0.5 * rng.unit();
        Vegas {
            estimated: c.limits.initial as f64,
            max: c.limits.max as f64,
            rtt_noload: 0,
            probe_count: 0,
            probe_jitter,
            rng,
        }
    }
}

impl NetflixLimit for Vegas {
    fn on_sample(&mut self, _start: u64, rtt_us: u64, inflight: u32, did_drop: bool) {
        let rtt = rtt_us.max(1);
        self.probe_count += 1;
        if self.probe_jitter * 30.0 * self.estimated <= self.probe_count as f64 {
            self.probe_jitter = 0.5 + 0.5 * self.rng.unit();
            self.probe_count = 0;
            self.rtt_noload = rtt;
            return;
        }
        if self.rtt_noload == 0 || rtt < self.rtt_noload {
            self.rtt_noload = rtt;
            return;
        }
        let est = self.estimated;
        let queue = (est * (1.0 - self.rtt_noload as f64 / rtt as f64)).ceil() as i64;
        let l = est as u32;
        let log = log10_int(l) as f64;
        let new = if did_drop {
            est - log
        } else if (inflight as f64) * 2.0 < est {
            return;
        } else {
            let (alpha, beta, threshold) = (3 * log10_int(l), 6 * log10_int(l), log10_int(l));
            if queue <= threshold as i64 {
                est + beta as f64
            } else if queue < alpha as i64 {
                est + log
            } else if queue > beta as i64 {
                est - log
            } else {
                return;
            }
        };
        self.estimated = new.min(self.max).max(1.0);
    }

    fn limit(&self) -> u32 {
        self.estimated as u32
    }
}

/// Envoy's `GradientController`.
///
/// Every 100 ms (outside a minRTT window) the p50 of the window's samples
/// gives `gradient = clamp(1.25 · minRTT / p50, 0.5, 2)` and
/// `limit = L · gradient + sqrt(L · gradient)`, clamped to
/// [`min_concurrency`, max]. The minRTT window sets the limit to
/// `min_concurrency`, drops samples of requests sent before it, and ends
/// with the p50 of 50 samples as the new minRTT and the old limit restored;
/// the next one comes 60 s (+ up to 15 % jitter) later, or at once after the
/// limit was set to `min_concurrency` five windows in a row.
#[derive(Debug)]
pub struct Envoy {
    limit: u32,
    outstanding: u32,
    min_conc: u32,
    max: u32,
    tick_us: u64,
    min_rtt_us: u64,
    samples: Vec<u64>,
    deferred: u32,
    min_rtt_epoch: u64,
    min_rtt_timer: Option<u64>,
    sample_timer: Option<u64>,
    consecutive_min: u32,
    rng: Rng,
}

const ENVOY_INTERVAL_US: u64 = 100_000;
const ENVOY_MIN_RTT_INTERVAL_MS: u64 = 60_000;
const ENVOY_REQUEST_COUNT: usize = 50;

fn envoy_p50(samples: &mut [u64]) -> u64 {
    samples.sort_unstable();
    let rank = (0.5 * samples.len() as f64).ceil() as usize;
    samples[rank.clamp(1, samples.len()) - 1]
}

impl Envoy {
    /// With the scenario's maximum; starts in a minRTT window at t = 0.
    pub fn new(c: &Ctx) -> Self {
        let min_conc = 3.min(c.limits.max);
        let mut e = Envoy {
            limit: min_conc,
            outstanding: 0,
            min_conc,
            max: c.limits.max,
            tick_us: c.tick_us,
            min_rtt_us: 0,
            samples: Vec::new(),
            deferred: 0,
            min_rtt_epoch: 0,
            min_rtt_timer: None,
            sample_timer: None,
            consecutive_min: 0,
            rng: Rng(c.seed),
        };
        e.enter_min_rtt_window(0);
        e.sample_timer = Some(ENVOY_INTERVAL_US);
        e
    }

    fn in_window(&self) -> bool {
        self.deferred > 0
    }

    fn enter_min_rtt_window(&mut self, now: u64) {
        if self.in_window() {
            return;
        }
        self.deferred = self.limit;
        self.update_limit(self.min_conc, now);
        self.samples.clear();
        self.min_rtt_epoch = now;
    }

    fn update_min_rtt(&mut self, now: u64) {
        self.min_rtt_us = envoy_p50(&mut self.samples);
        self.samples.clear();
        self.update_limit(self.deferred, now);
        self.deferred = 0;
        let jitter_range = (ENVOY_MIN_RTT_INTERVAL_MS as f64 * 0.15).ceil() as u64;
        let ms = ENVOY_MIN_RTT_INTERVAL_MS + self.rng.next_u64() % jitter_range;
        self.min_rtt_timer = Some(now + ms * 1000);
        self.sample_timer = Some(now + ENVOY_INTERVAL_US);
    }

    fn reset_sample_window(&mut self, now: u64) {
        if self.samples.is_empty() {
            return;
        }
        let sample_rtt = envoy_p50(&mut self.samples).max(1);
        self.samples.clear();
        let buffered = self.min_rtt_us as f64 + self.min_rtt_us as f64 * 0.25;
        let gradient = (buffered / sample_rtt as f64).clamp(0.5, 2.0);
        let limit = self.limit as f64 * gradient;
        let new = (limit + limit.sqrt()) as u32;
        self.update_limit(new.min(self.max).max(self.min_conc), now);
    }

    fn update_limit(&mut self, new: u32, now: u64) {
        let old = self.limit;
        self.limit = new;
        if !self.in_window() && old == self.min_conc && new == self.min_conc {
            self.consecutive_min += 1;
        } else {
            self.consecutive_min = 0;
        }
        if self.consecutive_min >= 5 && !self.in_window() {
            self.min_rtt_timer = Some(now);
        }
    }
}

impl SimLimiter for Envoy {
    type Token = u64;

    fn acquire(&mut self, now_us: u64, _class: usize) -> Option<u64> {
        if self.outstanding < self.limit {
            self.outstanding += 1;
            Some(now_us)
        } else {
            None
        }
    }

    fn release(&mut self, sent_us: u64, now_us: u64, outcome: Outcome) {
        self.outstanding -= 1;
        let Outcome::Success { ticks } = outcome else {
            return;
        };
        if sent_us < self.min_rtt_epoch {
            return;
        }
        self.samples.push(ticks as u64 * self.tick_us);
        if self.in_window() && self.samples.len() >= ENVOY_REQUEST_COUNT {
            self.update_min_rtt(now_us);
        }
    }

    fn limit(&self) -> u32 {
        self.limit
    }

    fn advance(&mut self, now_us: u64) {
        loop {
            let m = self.min_rtt_timer.filter(|&t| t <= now_us);
            let s = self.sample_timer.filter(|&t| t <= now_us);
            match (m, s) {
                (Some(tm), s) if s.is_none_or(|ts| tm <= ts) => {
                    self.min_rtt_timer = None;
                    self.enter_min_rtt_window(tm);
                }
                (_, Some(ts)) => {
                    if self.in_window() {
                        self.sample_timer = None;
                    } else {
                        self.reset_sample_window(ts);
                        self.sample_timer = Some(ts + ENVOY_INTERVAL_US);
                    }
                }
                _ => break,
            }
        }
    }
}

/// A fixed limit.
#[derive(Debug)]
pub struct Static {
    limit: u32,
    in_flight: u32,
}

impl SimLimiter for Static {
    type Token = ();

    fn acquire(&mut self, _now_us: u64, _class: usize) -> Option<()> {
        if self.in_flight < self.limit {
            self.in_flight += 1;
            Some(())
        } else {
            None
        }
    }

    fn release(&mut self, _t: (), _now_us: u64, _outcome: Outcome) {
        self.in_flight -= 1;
    }

    fn limit(&self) -> u32 {
        self.limit
    }
}
