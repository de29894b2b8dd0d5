//! The event loop, the scenario and the metrics (the service model is in
//! [`super::service`]).
//!
//! One tick of virtual time is 1 µs. A run is a pure function of the
//! [`Scenario`] (its seed included) and the limiter: every random draw comes
//! from a seeded splitmix64, and the only floating-point operations are the
//! IEEE-754 basic ones (`+ - * /`, `sqrt`), which are correctly rounded
//! everywhere; `ln` and `exp` are computed from those (in [`super::service`])
//! rather than taken from the platform's libm. So the same scenario gives the
//! same numbers on every machine.
//!
//! The model:
//! * open-loop arrivals: a Poisson stream of `rate_per_s` (changed at the
//!   times in `rate_steps`), plus optional bursts of `size` simultaneous
//!   requests every `period_us`; no retries;
//! * each arrival draws its class and its unscaled service time from its own
//!   stream, so every limiter sees the same requests (common random numbers);
//! * the permit is asked for on arrival; a refused request is *shed*;
//! * admitted requests wait in one FIFO queue in front of `workers` workers
//!   and hold their permit while they wait and while they are served;
//! * a worker that reaches a request whose client deadline (arrival +
//!   `timeout_us`) has passed skips it: the permit ends `Dropped`
//!   (*timed out*); an answer after the deadline ends `Dropped` (*late*); an
//!   answer in time ends `Success` with the latency measured on a clock of
//!   `tick_us` (end tick − start tick, as a tick counter read twice);
//! * the service time of a request is its drawn time × the slowdown factor in
//!   force when a worker starts it;
//! * after `duration_us` no request arrives; the run goes on until every
//!   admitted request has ended, so every offered request has an outcome.
//!
//! Counts are attributed to a window by the request's *arrival* time.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::clients::Clients;
pub use super::clients::ClosedLoop;
pub use super::service::{ln, Rng, Service};

/// How a permit ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Answered in time; `ticks` is the latency on the scenario's clock.
    Success {
        /// Latency in the scenario's clock ticks (`tick_us` each).
        ticks: u32,
    },
    /// Timed out in the queue or answered after the deadline.
    Dropped,
    /// Ended without a load signal (the harness never produces it; kept so
    /// adapters map the whole interface).
    Ignore,
}

/// A concurrency limiter driven by the harness, single-threaded.
///
/// `class` is 0 (critical), 1 (normal) or 2 (background). `now_us` is the
/// virtual time; limiters with timers use it, and [`SimLimiter::advance`] is
/// called before every event so timers fire on time.
pub trait SimLimiter {
    /// What an admitted request holds until it ends.
    type Token;
    /// Admit a request of `class` at `now_us`, or refuse it.
    fn acquire(&mut self, now_us: u64, class: usize) -> Option<Self::Token>;
    /// End an admitted request.
    fn release(&mut self, token: Self::Token, now_us: u64, outcome: Outcome);
    /// The limit in force.
    fn limit(&self) -> u32;
    /// Virtual time has reached `now_us` (fire due timers).
    fn advance(&mut self, _now_us: u64) {}
}

/// min / initial / max limit of a scenario, shared by every row that has them.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Lowest limit.
    pub min: u32,
    /// Limit at start.
    pub initial: u32,
    /// Highest limit.
    pub max: u32,
}

/// What a row's constructor may know about the scenario.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    /// The scenario's limits.
    pub limits: Limits,
    /// Clock tick in µs (latencies in `Outcome::Success` are in these).
    pub tick_us: u64,
    /// Workers at t = 0.
    pub workers: u32,
    /// Seed for limiters that draw random numbers (probe jitter).
    pub seed: u64,
}

/// Periodic bursts of simultaneous arrivals.
#[derive(Clone, Copy, Debug)]
pub struct Burst {
    /// First burst at this time.
    pub first_us: u64,
    /// Time between bursts.
    pub period_us: u64,
    /// Requests per burst.
    pub size: u32,
}

/// A stretch of the run whose counts are reported.
#[derive(Clone, Debug)]
pub struct Window {
    /// Column label.
    pub label: String,
    /// Start (inclusive), by arrival time.
    pub from_us: u64,
    /// End (exclusive).
    pub to_us: u64,
}

impl Window {
    /// A window labelled `"{from}–{to} s"`.
    pub fn secs(from_s: f64, to_s: f64) -> Self {
        Window {
            label: format!("{}–{} s", trim(from_s), trim(to_s)),
            from_us: (from_s * 1e6) as u64,
            to_us: (to_s * 1e6) as u64,
        }
    }
}

fn trim(x: f64) -> String {
    if x == x.trunc() {
        format!("{}", x as u64)
    } else {
        format!("{x}")
    }
}

/// Which extra columns a scenario's table has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The common columns only.
    Plain,
    /// Limit and p50 over the pool width and the service time.
    Ratchet,
    /// Good-put per window and the time to reach the `reach` limits.
    Transient,
    /// Burst shed per window and time with the limit below half the pool.
    LowTraffic,
    /// Per-class shares and refusals of critical work while a lower class
    /// held the last permit.
    Classes,
    /// After a transient (or the start): the highest limit and the worst
    /// one-second p50 from 5 s after it (`windows[1..]` are those seconds).
    Settle,
}

/// One scenario: the service, the load, the phases and what to report.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Short unique name, used to select it on the command line.
    pub name: String,
    /// One line for humans.
    pub about: String,
    /// Which extra columns it reports.
    pub kind: Kind,
    /// Seed of the arrival and service streams.
    pub seed: u64,
    /// Arrivals stop here.
    pub duration_us: u64,
    /// Clock tick of the latencies handed to the limiter.
    pub tick_us: u64,
    /// Client deadline after arrival.
    pub timeout_us: u64,
    /// `(from_us, workers)`, sorted, the first at 0.
    pub workers: Vec<(u64, u32)>,
    /// Unqueued service time.
    pub service: Service,
    /// `(from_us, to_us, factor)`: service of requests started in the span
    /// is multiplied by `factor`.
    pub slow: Vec<(u64, u64, f64)>,
    /// Poisson arrival rate (0 with closed-loop clients only).
    pub rate_per_s: f64,
    /// `(from_us, rate_per_s)`, sorted: the Poisson rate from each time on
    /// (each gap is drawn at the rate in force when it starts).
    pub rate_steps: Vec<(u64, f64)>,
    /// Closed-loop clients, besides the Poisson arrivals.
    pub clients: Option<ClosedLoop>,
    /// Optional periodic bursts.
    pub burst: Option<Burst>,
    /// Class weights (critical, normal, background) in ‰.
    pub classes: [u32; 3],
    /// The class whose good answers the comparison with the anchors
    /// measures (0 critical, 1 normal, 2 background); `None`: every request.
    pub goal_class: Option<usize>,
    /// min / initial / max limit for every row that has them.
    pub limits: Limits,
    /// Reported windows; the first is the main one (latency percentiles,
    /// shed, limit statistics).
    pub windows: Vec<Window>,
    /// `(from_us, target)`: report how long after `from_us` the limit first
    /// reaches `target`.
    pub reach: Vec<(u64, u32)>,
    /// Times at which the limit trajectory is reported.
    pub marks: Vec<u64>,
    /// Report the time from this instant on during which the limit is below
    /// half the workers.
    pub below_half_from: Option<u64>,
    /// The transient a `Kind::Settle` scenario recovers from.
    pub settle_us: Option<u64>,
}

impl Scenario {
    /// The same scenario on its `k`th other draw of arrivals and service
    /// times (`k = 0`: itself), so a goal can be checked on more than the
    /// one seed the table shows.
    pub fn reseeded(&self, k: u64) -> Scenario {
        let mut sc = self.clone();
        if k != 0 {
            sc.seed = Rng(self.seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64();
        }
        sc
    }

    /// Workers at `t`.
    pub fn workers_at(&self, t: u64) -> u32 {
        let mut w = self.workers[0].1;
        for &(from, n) in &self.workers {
            if from <= t {
                w = n;
            }
        }
        w
    }

    /// Poisson arrival rate at `t`.
    pub fn rate_at(&self, t: u64) -> f64 {
        let mut r = self.rate_per_s;
        for &(from, rate) in &self.rate_steps {
            if from <= t {
                r = rate;
            }
        }
        r
    }

    /// Slowdown factor for a request started at `t`.
    pub fn slow_at(&self, t: u64) -> f64 {
        let mut f = 1.0;
        for &(from, to, x) in &self.slow {
            if from <= t && t < to {
                f *= x;
            }
        }
        f
    }

    /// Requests the pool can serve in `[from, to)` (1 ms steps).
    pub fn capacity(&self, from_us: u64, to_us: u64) -> f64 {
        let mean = self.service.mean_us();
        let mut sum = 0.0;
        let mut t = from_us;
        while t < to_us {
            let step = (to_us - t).min(1000);
            sum += self.workers_at(t) as f64 * step as f64 / (mean * self.slow_at(t));
            t += step;
        }
        sum
    }

    /// The context handed to row constructors.
    pub fn ctx(&self) -> Ctx {
        Ctx {
            limits: self.limits,
            tick_us: self.tick_us,
            workers: self.workers[0].1,
            seed: self.seed ^ 0x5EED_0FA5_C401_2500,
        }
    }
}

/// Outcome counts of the requests that arrived in a window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Requests that arrived.
    pub offered: u64,
    /// Answered in time.
    pub good: u64,
    /// Refused by the limiter.
    pub shed: u64,
    /// Skipped by a worker after the deadline.
    pub timed_out: u64,
    /// Answered after the deadline.
    pub late: u64,
}

impl Counts {
    /// Every offered request ended in exactly one way.
    pub fn conserved(&self) -> bool {
        self.offered == self.good + self.shed + self.timed_out + self.late
    }

    /// `part` in % of offered.
    pub fn pct(&self, part: u64) -> f64 {
        if self.offered == 0 {
            0.0
        } else {
            100.0 * part as f64 / self.offered as f64
        }
    }
}

/// What one window measured.
#[derive(Clone, Debug)]
pub struct WindowReport {
    /// The window's label.
    pub label: String,
    /// All requests.
    pub all: Counts,
    /// Requests that came in a burst.
    pub burst: Counts,
    /// Per class.
    pub class: [Counts; 3],
    /// Good answers in % of the window's capacity.
    pub goodput_pct: f64,
    /// Latency (µs) percentiles of good answers.
    pub p50_us: u64,
    /// 99th percentile.
    pub p99_us: u64,
}

/// Everything a run measured.
#[derive(Clone, Debug)]
pub struct Report {
    /// Row name.
    pub limiter: String,
    /// Scenario name.
    pub scenario: String,
    /// The whole run.
    pub total: Counts,
    /// One per scenario window, in order.
    pub windows: Vec<WindowReport>,
    /// The limit every 10 ms: `(t_us, limit)`.
    pub samples: Vec<(u64, u32)>,
    /// Time after each `reach` start until the limit first reached its
    /// target (`None`: never).
    pub reach_us: Vec<Option<u64>>,
    /// Refusals of a critical request while a normal or background request
    /// held the last permit: it was admitted with the whole limit then in
    /// force in use, itself included.
    pub critical_refused_behind_lower: u64,
    /// Permits acquired minus permits released at the end (0 unless the
    /// harness lost one).
    pub unreleased: i64,
}

impl Report {
    /// The main window.
    pub fn main(&self) -> &WindowReport {
        &self.windows[0]
    }

    /// Limit samples in `[from, to)`.
    pub fn limits_in(&self, from_us: u64, to_us: u64) -> impl Iterator<Item = u32> + '_ {
        self.samples
            .iter()
            .filter(move |s| s.0 >= from_us && s.0 < to_us)
            .map(|s| s.1)
    }

    /// Mean, min and max of the limit in `[from, to)`.
    pub fn limit_stats(&self, from_us: u64, to_us: u64) -> (f64, u32, u32) {
        let (mut n, mut sum, mut lo, mut hi) = (0u64, 0u64, u32::MAX, 0u32);
        for l in self.limits_in(from_us, to_us) {
            n += 1;
            sum += l as u64;
            lo = lo.min(l);
            hi = hi.max(l);
        }
        if n == 0 {
            (0.0, 0, 0)
        } else {
            (sum as f64 / n as f64, lo, hi)
        }
    }

    /// The last sampled limit at or before `t`.
    pub fn limit_at(&self, t_us: u64) -> u32 {
        let i = self.samples.partition_point(|s| s.0 <= t_us);
        self.samples[i.saturating_sub(1)].1
    }

    /// Time (µs) from `from_us` to the end of sampling with the limit below
    /// `half_of / 2`.
    pub fn time_below_half(&self, from_us: u64, half_of: impl Fn(u64) -> u32) -> u64 {
        self.samples
            .iter()
            .filter(|s| s.0 >= from_us && 2 * s.1 < half_of(s.0))
            .count() as u64
            * SAMPLE_US
    }
}

/// The limit is sampled this often.
pub const SAMPLE_US: u64 = 10_000;

struct Waiting<T> {
    arrival: u64,
    /// The closed-loop client and its request number, if one sent it.
    client: Option<(u32, u64)>,
    class: usize,
    /// A lower class admitted to the last permit.
    last: bool,
    burst: bool,
    service_us: f64,
    token: T,
}

struct Active<T> {
    arrival: u64,
    client: Option<(u32, u64)>,
    class: usize,
    last: bool,
    burst: bool,
    token: T,
}

enum End {
    Good(u64),
    Shed,
    TimedOut,
    Late,
}

struct Metrics {
    windows: Vec<(u64, u64, WindowAcc)>,
    total: Counts,
}

#[derive(Default)]
struct WindowAcc {
    all: Counts,
    burst: Counts,
    class: [Counts; 3],
    latencies: Vec<u32>,
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
    fn end(&mut self, arrival: u64, class: usize, burst: bool, end: End) {
        count(&mut self.total, &end);
        for (from, to, acc) in &mut self.windows {
            if *from <= arrival && arrival < *to {
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
    }
}

fn percentile(sorted: &[u32], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as u64
}

/// Runs `sc` against `lim` and measures it.
pub fn run<L: SimLimiter>(sc: &Scenario, lim: &mut L, name: &str) -> Report {
    let mut arrivals = Rng(sc.seed);
    let mut draws = Rng(sc.seed ^ 0xD1CE_D1CE_D1CE_D1CE);
    // The gap to the next Poisson arrival, drawn at `t`.
    let mut gap = |t: u64| match sc.rate_at(t) {
        r if r > 0.0 => Some((-1e6 / r * ln(arrivals.unit())) as u64),
        _ => None,
    };
    let class_total: u64 = sc.classes.iter().map(|&w| w as u64).sum();

    let mut metrics = Metrics {
        windows: sc
            .windows
            .iter()
            .map(|w| (w.from_us, w.to_us, WindowAcc::default()))
            .collect(),
        total: Counts::default(),
    };
    let mut queue: VecDeque<Waiting<L::Token>> = VecDeque::new();
    let mut slab: Vec<Option<Active<L::Token>>> = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    let mut done: BinaryHeap<Reverse<(u64, u64, usize)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut busy = 0u32;
    let mut held = [0u64; 3];
    // Requests of a lower class holding the last permit.
    let mut lower_on_last = 0u64;
    let mut acquired = 0i64;
    let mut released = 0i64;
    let mut inversions = 0u64;
    let mut samples = Vec::with_capacity((sc.duration_us / SAMPLE_US + 1) as usize);
    let mut reach: Vec<Option<u64>> = vec![None; sc.reach.len()];

    let mut next_poisson = gap(0).unwrap_or(u64::MAX);
    let mut clients = sc.clients.as_ref().map(|c| Clients::new(c, sc.seed));
    let mut requests = 0u64;
    let mut next_burst = sc.burst.map_or(u64::MAX, |b| b.first_us);
    let mut next_sample = 0u64;
    let mut wake: Vec<u64> = sc.workers.iter().skip(1).map(|w| w.0).collect();
    wake.reverse();

    loop {
        let t_arrival = next_poisson.min(next_burst);
        let t_arrival = if t_arrival < sc.duration_us {
            t_arrival
        } else {
            u64::MAX
        };
        let t_done = done.peek().map_or(u64::MAX, |r| r.0 .0);
        let t_sample = if next_sample <= sc.duration_us {
            next_sample
        } else {
            u64::MAX
        };
        let t_wake = wake.last().copied().unwrap_or(u64::MAX);
        let t_client = clients.as_ref().map_or(u64::MAX, Clients::next_at);
        let t_client = if t_client < sc.duration_us {
            t_client
        } else {
            u64::MAX
        };
        let now = t_arrival
            .min(t_done)
            .min(t_sample)
            .min(t_wake)
            .min(t_client);
        if now == u64::MAX {
            debug_assert!(queue.is_empty());
            break;
        }
        lim.advance(now);

        if t_done == now {
            let Reverse((finish, _, slot)) = done.pop().unwrap();
            let a = slab[slot].take().unwrap();
            free.push(slot);
            busy -= 1;
            held[a.class] -= 1;
            lower_on_last -= a.last as u64;
            released += 1;
            let latency = finish - a.arrival;
            if latency > sc.timeout_us {
                lim.release(a.token, now, Outcome::Dropped);
                metrics.end(a.arrival, a.class, a.burst, End::Late);
            } else {
                let ticks = (finish / sc.tick_us - a.arrival / sc.tick_us) as u32;
                lim.release(a.token, now, Outcome::Success { ticks });
                metrics.end(a.arrival, a.class, a.burst, End::Good(latency));
            }
            if let (Some(c), Some((client, req))) = (clients.as_mut(), a.client) {
                c.ended(client, req, now);
            }
        } else if t_wake == now {
            wake.pop();
        } else if t_sample == now {
            samples.push((now, lim.limit()));
            next_sample += SAMPLE_US;
        } else {
            // Who sends at `now`: a client (or nobody, if the client event
            // was a timeout), or the open-loop arrivals.
            let (burst, n, client) = if t_client == now && t_arrival != now {
                match clients.as_mut().unwrap().due(now) {
                    Some(client) => {
                        requests += 1;
                        (false, 1, Some((client, requests)))
                    }
                    None => (false, 0, None),
                }
            } else {
                let burst = next_burst == now && next_burst <= next_poisson;
                if burst {
                    let b = sc.burst.unwrap();
                    next_burst = now + b.period_us;
                } else {
                    next_poisson = gap(now).map_or(u64::MAX, |g| now + g.max(1));
                }
                (burst, if burst { sc.burst.unwrap().size } else { 1 }, None)
            };
            for _ in 0..n {
                let r = draws.below(class_total.max(1));
                let class = if r < sc.classes[0] as u64 {
                    0
                } else if r < (sc.classes[0] + sc.classes[1]) as u64 {
                    1
                } else {
                    2
                };
                let service_us = sc.service.draw(&mut draws);
                match lim.acquire(now, class) {
                    Some(token) => {
                        acquired += 1;
                        held[class] += 1;
                        let last = class != 0 && held.iter().sum::<u64>() >= lim.limit() as u64;
                        lower_on_last += last as u64;
                        if let (Some(c), Some((who, req))) = (clients.as_mut(), client) {
                            c.admitted(who, req, now + sc.timeout_us);
                        }
                        queue.push_back(Waiting {
                            arrival: now,
                            client,
                            class,
                            last,
                            burst,
                            service_us,
                            token,
                        });
                    }
                    None => {
                        if class == 0 && lower_on_last > 0 {
                            inversions += 1;
                        }
                        metrics.end(now, class, burst, End::Shed);
                        if let (Some(c), Some((who, _))) = (clients.as_mut(), client) {
                            c.refused(who, now);
                        }
                    }
                }
            }
        }

        // Idle workers take the queue's head, skipping expired requests.
        let workers = sc.workers_at(now);
        while busy < workers {
            let Some(w) = queue.pop_front() else { break };
            if now >= w.arrival + sc.timeout_us {
                held[w.class] -= 1;
                lower_on_last -= w.last as u64;
                released += 1;
                lim.release(w.token, now, Outcome::Dropped);
                metrics.end(w.arrival, w.class, w.burst, End::TimedOut);
                if let (Some(c), Some((who, req))) = (clients.as_mut(), w.client) {
                    c.ended(who, req, now);
                }
                continue;
            }
            let service = ((w.service_us * sc.slow_at(now)).round() as u64).max(1);
            let slot = free.pop().unwrap_or_else(|| {
                slab.push(None);
                slab.len() - 1
            });
            slab[slot] = Some(Active {
                arrival: w.arrival,
                client: w.client,
                class: w.class,
                last: w.last,
                burst: w.burst,
                token: w.token,
            });
            busy += 1;
            seq += 1;
            done.push(Reverse((now + service, seq, slot)));
        }

        for (i, &(from, target)) in sc.reach.iter().enumerate() {
            if reach[i].is_none() && now >= from && lim.limit() >= target {
                reach[i] = Some(now - from);
            }
        }
    }

    let windows = sc
        .windows
        .iter()
        .zip(metrics.windows)
        .map(|(w, (_, _, mut acc))| {
            acc.latencies.sort_unstable();
            WindowReport {
                label: w.label.clone(),
                all: acc.all,
                burst: acc.burst,
                class: acc.class,
                goodput_pct: 100.0 * acc.all.good as f64 / sc.capacity(w.from_us, w.to_us),
                p50_us: percentile(&acc.latencies, 0.50),
                p99_us: percentile(&acc.latencies, 0.99),
            }
        })
        .collect();
    Report {
        limiter: name.to_string(),
        scenario: sc.name.clone(),
        total: metrics.total,
        windows,
        samples,
        reach_us: reach,
        critical_refused_behind_lower: inversions,
        unreleased: acquired - released,
    }
}

/// A limiter row of the table: a name and how to run a scenario with it.
pub struct Row {
    /// Shown in the table.
    pub name: String,
    /// Builds a fresh limiter for the scenario and runs it.
    pub run: Box<dyn Fn(&Scenario) -> Report>,
}

impl std::fmt::Debug for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Row").field("name", &self.name).finish()
    }
}

impl Row {
    /// A row whose limiter is built from the scenario's context by `make`.
    pub fn new<L, F>(name: &str, make: F) -> Row
    where
        L: SimLimiter,
        F: Fn(&Ctx) -> L + 'static,
    {
        let label = name.to_string();
        Row {
            name: label.clone(),
            run: Box::new(move |sc| run(sc, &mut make(&sc.ctx()), &label)),
        }
    }
}
