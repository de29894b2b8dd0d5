//! The overload stand's model: a discrete-event simulation on virtual time.
//!
//! One tick is one microsecond of virtual time. Nothing here reads a clock or
//! spawns a thread; a seeded generator drives arrivals and service times, so a
//! run gives the same numbers on every machine.
//!
//! # The model
//!
//! * **Service**: `workers` workers take requests from the server's queue in
//!   FIFO order. A request takes a service time drawn uniformly from ±10 %
//!   around the mean; the mean can change at `change_at` (a database that
//!   slows down). Before serving, a worker checks the request's deadline (the
//!   client's send time plus its timeout, propagated with the request as gRPC
//!   does) according to [`Check`]; skipping costs nothing.
//! * **Clients**: fresh requests arrive as a Poisson process at `load_pct` %
//!   of the service's capacity (open loop: users do not wait for each other).
//!   A client waits `timeout` ticks for each attempt, then gives up on it (the
//!   server is not told and may still serve it: *wasted work*) and retries, up
//!   to `max_attempts` attempts in all. A fast refusal ("503, retry after")
//!   is retried too. [`Backoff::Jittered`] waits the server's retry-after hint
//!   plus a random delay up to an exponentially growing cap ("full jitter");
//!   [`Backoff::Immediate`] retries at once.
//! * **Front door** ([`Policy`]): what happens to a request between the
//!   network and the workers. The rings are the crate's [`mpmc::Ring`] (the
//!   server queue has many producers and many consumers); the limiters are
//!   the crate's [`Limiter`], driven on virtual ticks: a permit is taken on
//!   arrival, held while the request waits and is served, and ended with
//!   `success(latency)` when it was answered before its deadline and
//!   `dropped()` when it was skipped or answered too late.
//!
//! Definitions used in the report: *good-put* is responses that reached a
//! client still waiting, per second; *latency* is from the client's send (or
//! its first try to send, when the send blocks) to the response, over every
//! request the workers served; *shed* is attempts refused at the door or
//! evicted from the queue; *wasted* is served requests whose client had
//! already given up.

#![allow(dead_code)] // shared with tests/overload.rs, which uses a subset

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use sluicegate::limit::{Limiter, LimiterConfig, Permit, Priority};
use sluicegate::mpmc;

/// Ticks per millisecond (a tick is 1 µs).
pub const MS: u64 = 1000;
/// Ticks per second.
pub const SECOND: u64 = 1000 * MS;

/// Capacity of the bounded rings (policies 2, 2b, 3): two requests per worker
/// of the default service, so a full ring adds about two service times.
pub const RING: usize = 16;

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

/// How a client spaces its retries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backoff {
    /// Retry at once, ignoring retry-after hints.
    Immediate,
    /// Wait the server's retry-after hint (after a 503) plus a uniform random
    /// delay in `0..min(400 ms, 25 ms × 2^retry)` ("full jitter").
    Jittered,
}

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
    /// Interval of the time series, ticks.
    pub sample_every: u64,
    pub seed: u64,
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
            backoff: Backoff::Jittered,
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
            sample_every: 100 * MS,
            seed: 0x5eed_0000 + load_pct,
        }
    }

    /// Requests per second the pool serves at the initial service time.
    pub fn capacity_per_s(&self) -> f64 {
        self.workers as f64 * SECOND as f64 / self.service as f64
    }
}

#[path = "run.rs"]
mod run;
use run::Fate;
pub use run::{Run, Sample, Served, Window};

#[path = "../../tests/common/splitmix.rs"]
mod splitmix;
pub use splitmix::Rng;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// A fresh request.
    Arrive,
    /// A retry of request `r` is due.
    Retry(u32),
    /// Worker `w` finished attempt `a`.
    Done(u32, u32),
    /// The client of attempt `a` stops waiting.
    Timeout(u32),
    Sample,
}

/// Where an attempt is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Where {
    /// Blocked in a send (policy 2b).
    Blocked,
    Queued,
    Serving,
    /// Left the server (served, skipped, refused or evicted).
    Gone,
}

struct Attempt<'a> {
    request: u32,
    sent: u64,
    /// When the client stops waiting.
    deadline: u64,
    /// The client is still waiting for this attempt.
    waiting: bool,
    at: Where,
    fate: Fate,
    admitted: u64,
    /// When a worker started on it.
    started: u64,
    permit: Option<Permit<'a>>,
}

struct Request {
    created: u64,
    class: usize,
    tries: u32,
    ok: bool,
}

/// The front door: the queue between the network and the workers.
enum Door<'a> {
    Unbounded(VecDeque<u32>),
    Ring(&'a mpmc::Ring<u32, RING>),
    Gate(&'a Limiter, VecDeque<u32>),
}

struct Sim<'a> {
    sc: Scenario,
    now: u64,
    seq: u64,
    events: BinaryHeap<Reverse<(u64, u64, Event)>>,
    rng: Rng,
    door: Door<'a>,
    /// Blocked senders (policy 2b).
    blocked: Vec<u32>,
    idle: Vec<u32>,
    /// Workers' running estimate of the service time (EWMA, 1/8).
    estimate: u64,
    attempts: Vec<Attempt<'a>>,
    requests: Vec<Request>,
    served: Vec<Served>,
    series: Vec<Sample>,
    interval_ok: u64,
    peak_queue: usize,
    peak_bytes: usize,
}

/// Runs one scenario.
pub fn run(sc: &Scenario) -> Run {
    let ring = mpmc::Ring::<u32, RING>::new();
    let limiter = sc
        .policy
        .limiter(sc.aimd)
        .map(|c| Limiter::try_new(c).expect("valid"));
    let door = match (sc.policy, &limiter) {
        (Policy::Unbounded, _) => Door::Unbounded(VecDeque::new()),
        (Policy::Reject | Policy::Block | Policy::DropOldest, _) => Door::Ring(&ring),
        (_, Some(l)) => Door::Gate(l, VecDeque::new()),
        (_, None) => unreachable!("limiter policies have a limiter"),
    };
    let mut sim = Sim {
        sc: *sc,
        now: 0,
        seq: 0,
        events: BinaryHeap::new(),
        rng: Rng::new(sc.seed),
        door,
        blocked: Vec::new(),
        idle: (0..sc.workers).rev().collect(),
        estimate: sc.service,
        attempts: Vec::new(),
        requests: Vec::new(),
        served: Vec::new(),
        series: Vec::new(),
        interval_ok: 0,
        peak_queue: 0,
        peak_bytes: 0,
    };
    sim.at(0, Event::Arrive);
    sim.at(sc.sample_every, Event::Sample);
    while let Some(Reverse((t, _, ev))) = sim.events.pop() {
        if t >= sc.duration {
            break;
        }
        sim.now = t;
        sim.handle(ev);
    }
    // End every permit still held (requests cut off by the end of the run).
    for a in &mut sim.attempts {
        drop(a.permit.take());
    }
    if let Some(l) = &limiter {
        debug_assert_eq!(l.in_flight(), 0, "a permit was lost");
    }
    Run {
        scenario: *sc,
        served: sim.served,
        attempts: sim.attempts.iter().map(|a| (a.sent, a.fate)).collect(),
        requests: sim
            .requests
            .iter()
            .map(|r| (r.created, r.class, r.ok))
            .collect(),
        series: sim.series,
        peak_queue: sim.peak_queue,
        peak_bytes: sim.peak_bytes,
        expired: ring.stats().expired,
    }
}

impl<'a> Sim<'a> {
    fn at(&mut self, t: u64, ev: Event) {
        self.seq += 1;
        self.events.push(Reverse((t, self.seq, ev)));
    }

    fn mean_service(&self) -> u64 {
        if self.now >= self.sc.change_at {
            self.sc.service_after
        } else {
            self.sc.service
        }
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Arrive => {
                let mean = self.sc.service as f64 * 100.0
                    / (self.sc.workers as f64 * self.sc.load_pct as f64);
                let next = self.now + self.rng.exp(mean);
                self.at(next, Event::Arrive);
                let class = usize::from(self.rng.below(100) >= self.sc.critical_pct);
                let r = self.requests.len() as u32;
                self.requests.push(Request {
                    created: self.now,
                    class,
                    tries: 0,
                    ok: false,
                });
                self.send(r);
            }
            Event::Retry(r) => self.send(r),
            Event::Timeout(a) => {
                let at = &mut self.attempts[a as usize];
                if !at.waiting {
                    return;
                }
                at.waiting = false;
                at.fate = Fate::TimedOut;
                let r = at.request;
                if at.at == Where::Blocked {
                    // Gives up its blocked send; removed from `blocked` lazily.
                    at.at = Where::Gone;
                }
                self.retry(r, 0);
            }
            Event::Done(w, a) => self.done(w, a),
            Event::Sample => {
                let limit = match &self.door {
                    Door::Gate(l, _) => l.limit(),
                    _ => 0,
                };
                let queue = self.queue_len();
                self.series.push(Sample {
                    t: self.now,
                    limit,
                    queue,
                    ok: core::mem::take(&mut self.interval_ok),
                });
                self.at(self.now + self.sc.sample_every, Event::Sample);
            }
        }
    }

    /// Sends a new attempt of request `r`.
    fn send(&mut self, r: u32) {
        let req = &mut self.requests[r as usize];
        req.tries += 1;
        let class = req.class;
        let a = self.attempts.len() as u32;
        self.attempts.push(Attempt {
            request: r,
            sent: self.now,
            deadline: self.now + self.sc.timeout,
            waiting: true,
            at: Where::Queued,
            fate: Fate::Other,
            admitted: self.now,
            started: 0,
            permit: None,
        });
        self.at(self.now + self.sc.timeout, Event::Timeout(a));
        let refused = match &mut self.door {
            Door::Unbounded(q) => {
                q.push_back(a);
                false
            }
            Door::Ring(ring) => match self.sc.policy {
                Policy::DropOldest => match ring.push_overwrite(a).into_item() {
                    None => false,
                    Some(old) if old == a => true,
                    Some(old) => {
                        self.evicted(old);
                        false
                    }
                },
                Policy::Block => {
                    if ring.try_push(a).is_err() {
                        self.attempts[a as usize].at = Where::Blocked;
                        self.blocked.push(a);
                    }
                    false
                }
                _ => ring.try_push(a).is_err(),
            },
            Door::Gate(limiter, q) => {
                let prio = if self.sc.policy == Policy::AimdClasses && class == 1 {
                    Priority::Background
                } else {
                    Priority::Critical
                };
                match limiter.try_acquire_with(prio) {
                    Some(p) => {
                        self.attempts[a as usize].permit = Some(p);
                        q.push_back(a);
                        false
                    }
                    None => true,
                }
            }
        };
        if refused {
            self.refuse(a);
        } else {
            self.note_queue();
            self.dispatch();
        }
    }

    /// A fast 503 for attempt `a` (refused at the door).
    fn refuse(&mut self, a: u32) {
        let at = &mut self.attempts[a as usize];
        at.at = Where::Gone;
        at.fate = Fate::Shed;
        at.waiting = false;
        let r = at.request;
        // Retry-after hint: about the time the queue takes to drain.
        let hint = 2 * self.estimate;
        self.retry(r, hint);
    }

    /// Attempt `a` was evicted from the ring (policy 3): answer 503 now.
    fn evicted(&mut self, a: u32) {
        if self.attempts[a as usize].waiting {
            self.refuse(a);
        } else {
            self.attempts[a as usize].at = Where::Gone;
        }
    }

    fn retry(&mut self, r: u32, hint: u64) {
        let req = &self.requests[r as usize];
        if req.ok || req.tries >= self.sc.max_attempts {
            return;
        }
        let delay = match self.sc.backoff {
            Backoff::Immediate => 0,
            Backoff::Jittered => {
                let cap = ((25 * MS) << (req.tries - 1)).min(400 * MS);
                hint + self.rng.below(cap)
            }
        };
        self.at(self.now + delay, Event::Retry(r));
    }

    fn queue_len(&self) -> usize {
        let q = match &self.door {
            Door::Unbounded(q) | Door::Gate(_, q) => q.len(),
            Door::Ring(r) => r.len(),
        };
        q + self.blocked.len()
    }

    fn note_queue(&mut self) {
        let len = self.queue_len();
        if len > self.peak_queue {
            self.peak_queue = len;
            let slots = match &self.door {
                Door::Unbounded(q) | Door::Gate(_, q) => q.capacity(),
                Door::Ring(_) => RING,
            };
            self.peak_bytes = self.peak_bytes.max(slots * REQUEST_BYTES);
        }
    }

    fn pop(&mut self) -> Option<u32> {
        match &mut self.door {
            Door::Unbounded(q) | Door::Gate(_, q) => q.pop_front(),
            Door::Ring(ring) => {
                let ring = *ring;
                let mut freed = 0;
                let a = if self.sc.check == Check::Fresh {
                    let (now, estimate, attempts) = (self.now, self.estimate, &self.attempts);
                    let mut late = Vec::new();
                    let a = ring.try_pop_fresh_with(
                        |&a: &u32| {
                            let at = &attempts[a as usize];
                            at.at == Where::Queued && now + estimate > at.deadline
                        },
                        |a| late.push(a),
                    );
                    freed += late.len();
                    for a in late {
                        self.attempts[a as usize].at = Where::Gone;
                    }
                    a
                } else {
                    ring.try_pop()
                };
                freed += usize::from(a.is_some());
                // Each freed slot: one blocked sender (a random one, as
                // spinning waiters race) gets it.
                for _ in 0..freed {
                    while !self.blocked.is_empty() {
                        let i = self.rng.below(self.blocked.len() as u64) as usize;
                        let b = self.blocked.swap_remove(i);
                        let at = &mut self.attempts[b as usize];
                        if at.at == Where::Blocked {
                            at.at = Where::Queued;
                            ring.try_push(b).expect("a slot was just freed");
                            break;
                        }
                    }
                }
                a
            }
        }
    }

    /// Idle workers take queued requests.
    fn dispatch(&mut self) {
        while let Some(&w) = self.idle.last() {
            let Some(a) = self.pop() else { return };
            let now = self.now;
            let estimate = self.estimate;
            let at = &mut self.attempts[a as usize];
            if at.at != Where::Queued {
                continue; // evicted or abandoned while blocked
            }
            let skip = match self.sc.check {
                Check::None => false,
                Check::Expired => now >= at.deadline,
                Check::Budget => now + estimate > at.deadline,
                Check::Fresh => false, // the ring's pop tested it
            };
            if skip {
                at.at = Where::Gone;
                if let Some(p) = at.permit.take() {
                    p.dropped();
                }
                continue;
            }
            at.at = Where::Serving;
            at.started = now;
            self.idle.pop();
            let mean = self.mean_service();
            let work = match self.sc.spread {
                Spread::Uniform10 => mean - mean / 10 + self.rng.below(mean / 5 + 1),
                Spread::Exponential => self.rng.exp(mean as f64).max(1),
            };
            self.at(now + work, Event::Done(w, a));
        }
    }

    fn done(&mut self, w: u32, a: u32) {
        self.idle.push(w);
        let now = self.now;
        let at = &mut self.attempts[a as usize];
        at.at = Where::Gone;
        let ok = at.waiting;
        let latency = now - at.sent;
        let work = now - at.started;
        let r = at.request;
        if ok {
            at.waiting = false;
            at.fate = Fate::Ok;
        }
        if let Some(p) = at.permit.take() {
            if now <= at.deadline {
                p.success(u32::try_from(now - at.admitted).unwrap_or(u32::MAX));
            } else {
                p.dropped();
            }
        }
        if ok {
            self.requests[r as usize].ok = true;
            self.interval_ok += 1;
        }
        self.served.push(Served {
            at: now,
            latency,
            ok,
            work,
        });
        self.estimate = self.estimate - self.estimate / 8 + work / 8;
        self.dispatch();
    }
}
