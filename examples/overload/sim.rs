//! The overload stand's model: its policies and scenarios, run on the
//! limiter scenario suite's engine (`tests/scenarios/engine.rs`), a
//! discrete-event simulation on virtual time.
//!
//! One tick is one microsecond of virtual time. Nothing here reads a clock or
//! spawns a thread; seeded generators drive arrivals, service times and
//! backoff, so a run gives the same numbers on every machine.
//!
//! # The model
//!
//! * **Service**: `workers` workers take requests from the server's queue in
//!   FIFO order. A request takes a service time drawn around the mean
//!   ([`Spread`]), the same for each of its attempts; the mean can change at
//!   `change_at` (a database that slows down). Before serving, a worker
//!   checks the request's deadline (the client's send time plus its timeout,
//!   propagated with the request as gRPC does) according to [`Check`];
//!   skipping costs nothing.
//! * **Clients**: fresh requests arrive as a Poisson process at `load_pct` %
//!   of the service's capacity (open loop: users do not wait for each other).
//!   A client waits `timeout` ticks for each attempt, then gives up on it (the
//!   server is not told and may still serve it: *wasted work*) and retries, up
//!   to `max_attempts` attempts in all. A fast refusal ("503, retry after")
//!   is retried too. [`JITTERED`] waits the server's retry-after hint plus a
//!   random delay up to an exponentially growing cap ("full jitter");
//!   [`Backoff::Immediate`] retries at once.
//! * **Front door** ([`Policy`]): what happens to a request between the
//!   network and the workers. The rings are the crate's `mpmc::Ring` (the
//!   server queue has many producers and many consumers), or for the slowed
//!   source an `spsc::Ring` with watermarks (one reader feeds it); the limiters are
//!   the crate's [`Limiter`], driven on virtual ticks: a permit is taken on
//!   each attempt's send, held while it waits and is served, and ended with
//!   `success(latency)` when it was answered before its deadline and
//!   `dropped()` when it was skipped or answered too late.
//!
//! Definitions used in the report (each attempt counted by its send time,
//! each request by its arrival): *good-put* is responses that reached a
//! client still waiting, per second; *latency* is from the attempt's send
//! (its first try to send, when the send blocks) to the response, over every
//! attempt the workers served; *shed* is attempts refused at the door or
//! evicted from the queue; *wasted* is served attempts whose client had
//! already given up.

#![allow(dead_code)] // shared with tests/overload.rs, which uses a subset

use sluicegate::limit::{Limiter, LimiterConfig, Priority};

#[path = "../../tests/scenarios/mod.rs"]
mod scenarios;
use scenarios::catalogue;
use scenarios::crate_limiters::{self, row_with};
use scenarios::door::{Door, Full};
#[allow(unused_imports)] // `LOW` is only in the stand's text, not in tests/overload.rs
pub use scenarios::door::{HIGH, LOW, RING};
use scenarios::harness::{self, Retry, Row, Service, Unlimited};
pub use scenarios::harness::{Backoff, Rng};

/// Ticks per millisecond (a tick is 1 µs).
pub const MS: u64 = 1000;
/// Ticks per second.
pub const SECOND: u64 = 1000 * MS;

/// Bytes a queued request occupies (a small HTTP request with headers), to
/// turn queue lengths into memory.
pub const REQUEST_BYTES: usize = 1024;

/// The limiter configuration the stand uses: the crate's default preset,
/// untuned (AIMD, min 2, initial 8, max 1000, a 50 % tolerance over the
/// queue-free median). The service has 8 workers, so `min_limit` 2 is
/// parallelism it always has, as the preset assumes.
pub const AIMD: LimiterConfig = LimiterConfig::DEFAULT;

/// How service times spread around their mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Uniform within ±10 % (max/min 1.22).
    Uniform10,
    /// Exponential (heavy spread: the p99 is 4.6× the mean).
    Exponential,
}

/// What a worker checks before serving a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Serves everything it dequeues.
    None,
    /// Skips a request whose client already gave up (deadline passed).
    Expired,
    /// Skips a request that cannot finish before its deadline (remaining time
    /// below the worker's running estimate of the service time).
    Budget,
    /// The same test made by the ring: the workers pop with
    /// `try_pop_fresh_with`, which discards such requests at the pop and
    /// counts them in `RingStats::expired` (ring policies only).
    Fresh,
}

/// What happens to a request at the server's door.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Policy 1: An unbounded FIFO (`VecDeque`): accepts everything.
    Unbounded,
    /// Policy 2: A bounded ring that refuses when full (fast 503 with retry-after).
    Reject,
    /// Policy 2b: A bounded ring whose send waits for room (`push_blocking` in real
    /// code): the client's send blocks, in virtual time, until a slot frees.
    /// Waiting senders race for a freed slot (Backoff gives no order), so the
    /// model hands it to a random one.
    Block,
    /// Policy 2e: A source that can be slowed feeds an `spsc::Ring` with
    /// watermarks (`Marked`, low 4, high 12): it stops reading new requests
    /// while the level is `High` and reads the ones that waited, oldest
    /// first, once it is `Normal`; they wait upstream meanwhile (a socket not
    /// read, TCP's window holding the clients), where clients may give up.
    Slowed,
    /// Policy 3: A bounded ring that evicts the oldest request (`push_overwrite`);
    /// the evicted request's client gets a 503 at once.
    DropOldest,
    /// Policy 4: A static concurrency limit (an `Limiter` with min = max = the limit)
    /// in front of an unbounded FIFO.
    Static(u32),
    /// Policy 5: The AIMD limiter ([`AIMD`]) in front of an unbounded FIFO.
    Aimd,
    /// Policy 6: The AIMD limiter with two classes: critical requests may use the
    /// whole limit, background ones half of it (plus their 5 % reserve).
    AimdClasses,
    /// Policy 7: The gradient limiter ([`LimiterConfig::GRADIENT`], untuned,
    /// with the same limits) in front of an unbounded FIFO.
    Gradient,
}

impl Policy {
    /// The limiter configuration for the limiter policies, from the adaptive
    /// one `aimd`.
    pub fn limiter(self, aimd: LimiterConfig) -> Option<LimiterConfig> {
        match self {
            Policy::Static(l) => Some(LimiterConfig {
                min_limit: l,
                initial_limit: l,
                max_limit: l,
                ..aimd
            }),
            Policy::Aimd | Policy::AimdClasses => Some(aimd),
            Policy::Gradient => Some(LimiterConfig {
                law: LimiterConfig::GRADIENT.law,
                tolerance: LimiterConfig::GRADIENT.tolerance,
                ..aimd
            }),
            _ => None,
        }
    }
}

/// The clients' backoff: the retry-after hint plus a uniform random delay
/// in `0..min(400 ms, 25 ms × 2^retry)`.
pub const JITTERED: Backoff = Backoff::Jittered {
    first_us: 25 * MS,
    max_us: 400 * MS,
};

/// One run's parameters.
#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    pub policy: Policy,
    /// The adaptive limiter's configuration ([`AIMD`] by default).
    pub aimd: LimiterConfig,
    pub check: Check,
    pub backoff: Backoff,
    /// Workers in the pool.
    pub workers: u32,
    /// How service times spread around their mean.
    pub spread: Spread,
    /// Mean service time before `change_at`, ticks.
    pub service: u64,
    /// Mean service time from `change_at` on, ticks.
    pub service_after: u64,
    pub change_at: u64,
    /// Fresh requests offered, in % of the capacity before the change.
    pub load_pct: u64,
    /// Client timeout per attempt, ticks.
    pub timeout: u64,
    /// Attempts per request, including the first.
    pub max_attempts: u32,
    /// Share of requests in the critical class, %.
    pub critical_pct: u64,
    /// Virtual time simulated, ticks.
    pub duration: u64,
    /// Results count from here on (the start-up transient is left out).
    pub warmup: u64,
    pub seed: u64,
    /// Windows reported besides the steady one (`warmup..duration`).
    pub windows: &'static [(u64, u64)],
}

impl Scenario {
    /// The stand's service: 8 workers, 10 ms per request (800 requests/s),
    /// clients that wait 100 ms and try 3 times with jittered backoff, a
    /// quarter of the requests critical; 20 s of virtual time, the first 2 s
    /// left out; no slowdown.
    pub fn base(policy: Policy, load_pct: u64) -> Self {
        Self {
            policy,
            aimd: AIMD,
            check: Check::Expired,
            backoff: JITTERED,
            workers: 8,
            spread: Spread::Uniform10,
            service: 10 * MS,
            service_after: 10 * MS,
            change_at: u64::MAX,
            load_pct,
            timeout: 100 * MS,
            max_attempts: 3,
            critical_pct: 25,
            duration: 20 * SECOND,
            warmup: 2 * SECOND,
            seed: 0x5eed_0000 + load_pct,
            windows: &[],
        }
    }

    /// Requests per second the pool serves at the initial service time.
    pub fn capacity_per_s(&self) -> f64 {
        self.workers as f64 * SECOND as f64 / self.service as f64
    }
}

#[path = "run.rs"]
mod run;
pub use run::{Run, Window};

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    /// Exponentially distributed with the given mean, at least 1.
    pub fn exp(&mut self, mean: f64) -> u64 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64; // [0, 1)
        ((-(1.0 - u).ln() * mean) as u64).max(1)
    }
}

impl Policy {
    /// The queue before the workers; the ring pops fresh with [`Check::Fresh`].
    fn door(self, check: Check) -> Door {
        let fresh = check == Check::Fresh;
        match self {
            Policy::Reject => Door::Ring {
                full: Full::Reject,
                fresh,
            },
            Policy::Block => Door::Ring {
                full: Full::Block,
                fresh,
            },
            Policy::DropOldest => Door::Ring {
                full: Full::DropOldest,
                fresh,
            },
            Policy::Slowed => Door::Ring {
                full: Full::Slowed,
                fresh,
            },
            _ => Door::Fifo,
        }
    }

    /// The engine's row: no limiter, or the crate's limiter with one class
    /// (every request `Critical`) or two (the rest `Background`).
    fn row(self, aimd: LimiterConfig) -> Row {
        let Some(config) = self.limiter(aimd) else {
            return Row::new("overload", |_| Unlimited);
        };
        let priority: fn(usize) -> Priority = if self == Policy::AimdClasses {
            crate_limiters::priority
        } else {
            |_| Priority::Critical
        };
        row_with("overload", priority, move |_| {
            Limiter::try_new(config).expect("valid")
        })
    }
}

impl Check {
    /// The workers' check on the engine (the ring tests [`Check::Fresh`]).
    fn engine(self) -> harness::Check {
        match self {
            Check::None | Check::Fresh => harness::Check::None,
            Check::Expired => harness::Check::Expired,
            Check::Budget => harness::Check::Budget,
        }
    }
}

impl Scenario {
    /// The reported windows: the steady one, then [`Scenario::windows`].
    pub fn spans(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        core::iter::once((self.warmup, self.duration)).chain(self.windows.iter().copied())
    }

    /// The engine's scenario: `critical_pct` % of requests in class 0, the
    /// rest in class 2 (background).
    fn engine(&self) -> harness::Scenario {
        let service = match self.spread {
            Spread::Uniform10 => Service::Uniform {
                mean_us: self.service,
                spread_pct: 10,
            },
            Spread::Exponential => Service::Exponential {
                mean_us: self.service,
            },
        };
        let load = self.load_pct as f64 / 100.0;
        let mut sc = catalogue::base("overload", "", self.workers, service, load, 0);
        sc.seed = self.seed;
        sc.duration_us = self.duration;
        sc.timeout_us = self.timeout;
        sc.door = self.policy.door(self.check);
        sc.check = self.check.engine();
        sc.retry = Some(Retry {
            attempts: self.max_attempts,
            backoff: self.backoff,
        });
        let critical = self.critical_pct as u32 * 10;
        sc.classes = [critical, 0, 1000 - critical];
        if self.change_at != u64::MAX {
            let factor = self.service_after as f64 / self.service as f64;
            sc.slow = vec![(self.change_at, u64::MAX, factor)];
        }
        sc.windows = self
            .spans()
            .map(|(from_us, to_us)| harness::Window {
                label: String::new(),
                from_us,
                to_us,
            })
            .collect();
        sc
    }
}

/// Runs one scenario.
pub fn run(sc: &Scenario) -> Run {
    let report = (sc.policy.row(sc.aimd).run)(&sc.engine());
    Run::new(*sc, report)
}
