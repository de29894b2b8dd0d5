//! The scenario, its options and the metrics; the event loop is in
//! [`super::engine`], the queue before the workers in [`super::door`], the
//! service model in [`super::service`].
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
//!   requests every `period_us`;
//! * each arrival draws its class and its unscaled service time from its own
//!   stream, so every limiter sees the same requests (common random numbers);
//!   every attempt of a request takes that service time;
//! * the permit is asked for on each attempt's send; a refused attempt is
//!   *shed*;
//! * admitted attempts wait in the [`Door`] in front of `workers` workers (an
//!   unbounded FIFO unless the scenario puts the crate's ring there, which
//!   may refuse, block the send or evict the oldest) and hold their permit
//!   while they wait and while they are served; an attempt the ring refuses
//!   or evicts is shed too, its permit ended `Ignore` or `Dropped`;
//! * a worker that reaches an attempt the [`Check`] rejects (by default: its
//!   client deadline, send + `timeout_us`, has passed) skips it, and the
//!   ring's fresh pop discards such attempts itself: the permit ends
//!   `Dropped` (*timed out*); an answer after the deadline ends `Dropped`
//!   (*late*; its work is *wasted*); an answer in time ends `Success` with
//!   the latency measured on a clock of `tick_us` (end tick − start tick, as
//!   a tick counter read twice);
//! * with [`Retry`], an open-loop client waits for each attempt until its
//!   deadline (the server is not told when it gives up) and, refused or
//!   timed out, sends another after its [`Backoff`], up to `attempts` in
//!   all; a refusal carries a retry-after hint of twice the workers'
//!   running service-time estimate;
//! * the service time of an attempt is its drawn time × the slowdown factor
//!   in force when a worker starts it;
//! * after `duration_us` no request arrives (retries still do); the run goes
//!   on until every admitted attempt has ended, so every offered attempt has
//!   an outcome and every request a result.
//!
//! Counts are attributed to a window by the attempt's send time, request
//! results by the request's arrival time.

pub use super::clients::ClosedLoop;
pub use super::door::Door;
pub use super::engine::run;
pub use super::service::{Rng, Service};
pub use sluicegate::limit::BacklogOrder;

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
    /// Ended without a load signal: admitted, then refused by the ring.
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
    /// Whether a rise of the limit serves the backlog: one waiter per unit
    /// added (the crate's `raise`). Netflix's blocking limiters wake a
    /// waiter on a release only.
    fn wakes_on_rise(&self) -> bool {
        false
    }
    /// The degradation band a request of `class` sees now, before it asks:
    /// 0 normal, 1 elevated, 2 saturated (the crate's `Limiter::pressure`;
    /// limiters without such a signal say 0).
    fn band(&self, _class: usize) -> usize {
        0
    }
}

/// No limiter: every attempt is admitted (the door alone decides).
#[derive(Clone, Copy, Debug)]
pub struct Unlimited;

impl SimLimiter for Unlimited {
    type Token = ();
    fn acquire(&mut self, _now_us: u64, _class: usize) -> Option<()> {
        Some(())
    }
    fn release(&mut self, _token: (), _now_us: u64, _outcome: Outcome) {}
    fn limit(&self) -> u32 {
        0
    }
}

/// What a worker checks before serving an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Serves everything it dequeues.
    None,
    /// Skips an attempt whose deadline has passed.
    Expired,
    /// Skips an attempt that cannot finish before its deadline by the
    /// workers' running estimate of the service time (EWMA, 1/8).
    Budget,
}

/// Open-loop clients that retry.
#[derive(Clone, Copy, Debug)]
pub struct Retry {
    /// Attempts per request, the first included.
    pub attempts: u32,
    /// How a client spaces them.
    pub backoff: Backoff,
}

/// How a client spaces its retries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backoff {
    /// At once, ignoring retry-after hints.
    Immediate,
    /// The retry-after hint (after a refusal) plus a uniform delay in
    /// `0..min(max_us, first_us × 2^(attempt − 1))` ("full jitter").
    Jittered {
        /// The first retry's jitter range.
        first_us: u64,
        /// The largest jitter range.
        max_us: u64,
    },
}

/// Requests the limiter refuses wait for a permit instead of being shed:
/// the waiting acquires (`Limiter::acquire`), for every row alike (Netflix's
/// `LifoBlockingLimiter` wraps any of its limiters the same way). A waiter
/// gives up at its client's deadline; each release offers its permit to one
/// waiter, the highest class first, then as `order` says (the crate's
/// `BacklogOrder`: the newest, the oldest, or the oldest while fewer than
/// half of `size` wait).
#[derive(Clone, Copy, Debug)]
pub struct Backlog {
    /// Most waiters at once; one more is shed at once.
    pub size: usize,
    /// Which waiter of a class first.
    pub order: BacklogOrder,
}

impl Backlog {
    /// Whether the next offer goes to the newest waiter of a class, with
    /// `waiting` waiters.
    pub fn newest_first(&self, waiting: usize) -> bool {
        match self.order {
            BacklogOrder::Lifo => true,
            BacklogOrder::Fifo => false,
            BacklogOrder::Adaptive => waiting >= self.size.div_ceil(2),
        }
    }
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
    /// Client deadline after each send.
    pub timeout_us: u64,
    /// The queue before the workers.
    pub door: Door,
    /// What a worker checks before serving.
    pub check: Check,
    /// Open-loop clients retry (`None`: each request is sent once).
    pub retry: Option<Retry>,
    /// Refused requests wait for a permit (`None`: they are shed).
    pub backlog: Option<Backlog>,
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
    /// Latency (µs) percentiles of every answer, late ones included.
    pub served_p50_us: u64,
    /// 99th percentile.
    pub served_p99_us: u64,
    /// Worker time spent on the window's attempts, µs.
    pub work_us: u64,
    /// The part of it spent on late answers.
    pub wasted_work_us: u64,
    /// Requests per class that arrived in the window.
    pub requests: [u64; 3],
    /// How many of them were answered in time (any attempt).
    pub succeeded: [u64; 3],
    /// Attempts sent in the window by the degradation band their class
    /// was in ([`SimLimiter::band`]): normal, elevated, saturated.
    pub bands: [u64; 3],
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
    /// Most attempts waiting at once (queued or blocked in a send).
    pub peak_queue: usize,
    /// Requests the queue's memory held at that peak (its allocation).
    pub peak_slots: usize,
    /// Attempts the ring's fresh pop discarded (`RingStats::expired`).
    pub expired: u64,
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
