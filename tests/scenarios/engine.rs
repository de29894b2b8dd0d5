//! The event loop: one run of a [`Scenario`] against a [`SimLimiter`]. The
//! model it implements is described in [`super::harness`]; the queue before
//! the workers is [`super::door`]'s.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

use super::clients::Clients;
use super::door::{Push, Queue};
use super::harness::{
    Backoff, Check, Counts, Outcome, Report, Scenario, SimLimiter, WindowReport, SAMPLE_US,
};
use super::metrics::{percentile, End, Metrics, WindowAcc};
use super::service::{ln, Rng};

/// Where an attempt is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    /// Its send waits for room in the ring.
    Blocked,
    Queued,
    Serving,
}

/// What the attempts of one request share.
#[derive(Clone, Copy)]
struct Request {
    created: u64,
    class: usize,
    /// Attempts sent so far.
    tries: u32,
    /// Unscaled service time, the same for every attempt.
    service_us: f64,
}

/// An admitted attempt, from its admission to its end.
struct Attempt<T> {
    /// Numbers the attempts of a run (slots are reused).
    serial: u64,
    /// Sent at (latencies and window counts start here).
    arrival: u64,
    /// Admitted at: after `arrival` only if it waited in the backlog. The
    /// latency the limiter is told starts here, as a caller's clock would
    /// after its permit came.
    admitted: u64,
    /// The closed-loop client and its request number, if one sent it.
    client: Option<(u32, u64)>,
    request: Request,
    /// A lower class admitted to the last permit.
    last: bool,
    burst: bool,
    at: At,
    /// When a worker started it.
    started: u64,
    /// The permit, until the attempt ends.
    token: Option<T>,
}

/// What an open-loop client of a scenario with retries (or a blocking door)
/// does next.
enum Next {
    /// It stops waiting for attempt `serial` of `req` (in `slot` if the
    /// attempt is still there).
    GiveUp {
        serial: u64,
        slot: usize,
        req: Request,
    },
    /// It sends another attempt of the request.
    Retry(Request),
    /// Waiter `id` of the backlog reaches its client's deadline.
    Unwait { id: u64 },
}

/// A request waiting in the limiter's backlog (`Scenario::backlog`).
struct Waiter {
    id: u64,
    /// When its attempt was sent (its latency starts here).
    sent: u64,
    req: Request,
    burst: bool,
}

/// A client event in the heap: ordered by time, then by scheduling order,
/// reversed so that the heap pops the earliest.
struct Due {
    t: u64,
    seq: u64,
    next: Next,
}

impl PartialEq for Due {
    fn eq(&self, other: &Self) -> bool {
        (self.t, self.seq) == (other.t, other.seq)
    }
}
impl Eq for Due {}
impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Due {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.t, other.seq).cmp(&(self.t, self.seq))
    }
}

/// A client's view of an attempt.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Client {
    Waiting,
    /// Answered (in time, or refused).
    Answered,
    GaveUp,
}

/// The state of one run.
struct Engine<'s, 'l, L: SimLimiter> {
    sc: &'s Scenario,
    lim: &'l mut L,
    now: u64,
    metrics: Metrics,
    queue: Queue,
    slab: Vec<Option<Attempt<L::Token>>>,
    free: Vec<usize>,
    done: BinaryHeap<Reverse<(u64, u64, usize)>>,
    seq: u64,
    busy: u32,
    held: [u64; 3],
    /// Requests of a lower class holding the last permit.
    lower_on_last: u64,
    acquired: i64,
    released: i64,
    inversions: u64,
    clients: Option<Clients>,
    /// Open-loop clients wait for their attempts (retries or a blocking
    /// door): their give-ups and retries are events.
    waits: bool,
    /// Per attempt serial, when `waits`.
    client: Vec<Client>,
    next: BinaryHeap<Due>,
    /// Retry delays and the blocked sender that gets a freed slot.
    other: Rng,
    /// `(slot, serial)` of blocked senders; entries whose attempt has moved
    /// on are skipped.
    blocked: VecDeque<(usize, u64)>,
    blocked_live: usize,
    /// The workers' running estimate of the service time (EWMA, 1/8).
    estimate: u64,
    serials: u64,
    peak_queue: usize,
    peak_slots: usize,
    /// The backlog of refused requests waiting for a permit, oldest first.
    waiting: Vec<Waiter>,
    /// Releases since the backlog was last served (each offers its permit
    /// to one waiter), and the waiters' numbering.
    offers: usize,
    waiters: u64,
    /// The limit when the backlog was last served.
    served_limit: u32,
}

/// Runs `sc` against `lim` and measures it.
pub fn run<L: SimLimiter>(sc: &Scenario, lim: &mut L, name: &str) -> Report {
    let mut arrivals = Rng(sc.seed);
    let mut draws = Rng(sc.seed ^ 0xD1CE_D1CE_D1CE_D1CE);
    let class_total: u64 = sc.classes.iter().map(|&w| w as u64).sum();
    let queue = Queue::new(sc.door);
    let waits = sc.retry.is_some() || queue.blocks();
    assert!(
        sc.backlog.is_none() || sc.clients.is_none(),
        "a backlog is modelled for open-loop clients only"
    );
    let served_limit = lim.limit();
    let mut e = Engine {
        sc,
        lim,
        now: 0,
        metrics: Metrics {
            windows: sc
                .windows
                .iter()
                .map(|w| (w.from_us, w.to_us, WindowAcc::default()))
                .collect(),
            total: Counts::default(),
        },
        queue,
        slab: Vec::new(),
        free: Vec::new(),
        done: BinaryHeap::new(),
        seq: 0,
        busy: 0,
        held: [0; 3],
        lower_on_last: 0,
        acquired: 0,
        released: 0,
        inversions: 0,
        clients: sc.clients.as_ref().map(|c| Clients::new(c, sc.seed)),
        waits,
        client: Vec::new(),
        next: BinaryHeap::new(),
        other: Rng(sc.seed ^ 0x0E7A_1E55_0E7A_1E55),
        blocked: VecDeque::new(),
        blocked_live: 0,
        estimate: sc.service.mean_us() as u64,
        serials: 0,
        peak_queue: 0,
        peak_slots: 0,
        waiting: Vec::new(),
        offers: 0,
        waiters: 0,
        served_limit,
    };
    let mut samples = Vec::with_capacity((sc.duration_us / SAMPLE_US + 1) as usize);
    let mut reach: Vec<Option<u64>> = vec![None; sc.reach.len()];

    // The gap to the next Poisson arrival, drawn at `t`.
    let mut gap = |t: u64| match sc.rate_at(t) {
        r if r > 0.0 => Some((-1e6 / r * ln(arrivals.unit())) as u64),
        _ => None,
    };
    let mut next_poisson = gap(0).unwrap_or(u64::MAX);
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
        let t_done = e.done.peek().map_or(u64::MAX, |r| r.0 .0);
        let t_sample = if next_sample <= sc.duration_us {
            next_sample
        } else {
            u64::MAX
        };
        let t_wake = wake.last().copied().unwrap_or(u64::MAX);
        let t_client = e.clients.as_ref().map_or(u64::MAX, Clients::next_at);
        let t_client = if t_client < sc.duration_us {
            t_client
        } else {
            u64::MAX
        };
        let t_next = e.next.peek().map_or(u64::MAX, |d| d.t);
        let now = t_arrival
            .min(t_done)
            .min(t_sample)
            .min(t_wake)
            .min(t_client)
            .min(t_next);
        if now == u64::MAX {
            debug_assert_eq!(e.queue.len(), 0);
            break;
        }
        e.now = now;
        e.lim.advance(now);

        if t_done == now {
            e.finish();
        } else if t_wake == now {
            wake.pop();
        } else if t_sample == now {
            samples.push((now, e.lim.limit()));
            next_sample += SAMPLE_US;
        } else if t_next == now {
            let due = e.next.pop().unwrap();
            match due.next {
                Next::GiveUp { serial, slot, req } => e.give_up(serial, slot, req),
                Next::Retry(request) => e.send(request, None, false),
                Next::Unwait { id } => e.unwait(id),
            }
        } else {
            // Who sends at `now`: a client (or nobody, if the client event
            // was a timeout), or the open-loop arrivals.
            let (burst, n, client) = if t_client == now && t_arrival != now {
                match e.clients.as_mut().unwrap().due(now) {
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
                let request = Request {
                    created: now,
                    class,
                    tries: 0,
                    service_us,
                };
                e.send(request, client, burst);
            }
        }

        e.serve_backlog();
        e.dispatch();

        for (i, &(from, target)) in sc.reach.iter().enumerate() {
            if reach[i].is_none() && now >= from && e.lim.limit() >= target {
                reach[i] = Some(now - from);
            }
        }
    }
    e.report(name, samples, reach)
}

impl<L: SimLimiter> Engine<'_, '_, L> {
    /// Sends an attempt of `req`: the limiter, then the door.
    fn send(&mut self, mut req: Request, client: Option<(u32, u64)>, burst: bool) {
        let now = self.now;
        let class = req.class;
        req.tries += 1;
        let band = self.lim.band(class);
        self.metrics.band(now, band);
        let Some(token) = self.lim.acquire(now, class) else {
            if class == 0 && self.lower_on_last > 0 {
                self.inversions += 1;
            }
            if self.sc.backlog.is_some_and(|b| self.waiting.len() < b.size) {
                self.waiters += 1;
                let id = self.waiters;
                self.waiting.push(Waiter {
                    id,
                    sent: now,
                    req,
                    burst,
                });
                self.at(now + self.sc.timeout_us, Next::Unwait { id });
                return;
            }
            self.refused(req, client, burst);
            return;
        };
        self.admit(req, client, burst, token, now);
    }

    /// An attempt of `req` sent at `sent` got `token`: it goes to the door.
    fn admit(
        &mut self,
        req: Request,
        client: Option<(u32, u64)>,
        burst: bool,
        token: L::Token,
        sent: u64,
    ) {
        let now = self.now;
        let class = req.class;
        self.acquired += 1;
        self.held[class] += 1;
        let last = class != 0 && self.held.iter().sum::<u64>() >= self.lim.limit() as u64;
        self.lower_on_last += last as u64;
        self.serials += 1;
        let serial = self.serials;
        let slot = self.free.pop().unwrap_or_else(|| {
            self.slab.push(None);
            self.slab.len() - 1
        });
        self.slab[slot] = Some(Attempt {
            serial,
            arrival: sent,
            admitted: now,
            client,
            request: req,
            last,
            burst,
            at: At::Queued,
            started: 0,
            token: Some(token),
        });
        if self.waits {
            debug_assert_eq!(self.client.len() as u64, serial - 1);
            self.client.push(Client::Waiting);
        }
        match self.queue.push(slot as u32) {
            Push::Refused => {
                // Admitted, then refused by the door: no load signal.
                self.take(slot, Outcome::Ignore);
                if self.waits {
                    self.client[serial as usize - 1] = Client::Answered;
                }
                self.refused(req, client, burst);
                return;
            }
            Push::Blocked => {
                self.attempt(slot).at = At::Blocked;
                self.blocked.push_back((slot, serial));
                self.blocked_live += 1;
            }
            Push::Queued => {}
            Push::Evicted(old) => self.end(old as usize, End::Shed, Outcome::Dropped),
        }
        if let (Some(c), Some((who, n))) = (self.clients.as_mut(), client) {
            c.admitted(who, n, now + self.sc.timeout_us);
        }
        if self.waits {
            let giveup = Next::GiveUp { serial, slot, req };
            self.at(sent + self.sc.timeout_us, giveup);
        }
        // The slowed source's waiting requests are upstream, not queued here.
        let upstream = if self.queue.slowed() {
            0
        } else {
            self.blocked_live
        };
        let len = self.queue.len() + upstream;
        if len > self.peak_queue {
            self.peak_queue = len;
            self.peak_slots = self.peak_slots.max(self.queue.slots());
        }
    }

    fn attempt(&mut self, slot: usize) -> &mut Attempt<L::Token> {
        self.slab[slot].as_mut().expect("a live attempt")
    }

    fn at(&mut self, t: u64, next: Next) {
        self.seq += 1;
        self.next.push(Due {
            t,
            seq: self.seq,
            next,
        });
    }

    /// Refused at the limiter or the door: counted shed, and the client
    /// told at once.
    fn refused(&mut self, req: Request, client: Option<(u32, u64)>, burst: bool) {
        if let (Some(c), Some((who, _))) = (self.clients.as_mut(), client) {
            c.refused(who, self.now);
        }
        self.shed(self.now, req, burst);
    }

    /// An attempt sent at `sent` is counted shed; its client has its answer.
    fn shed(&mut self, sent: u64, req: Request, burst: bool) {
        self.metrics.end(sent, req.class, burst, End::Shed);
        if self.waits {
            // A refusal carries a retry-after hint: about the time the
            // queue takes to drain.
            let hint = 2 * self.estimate;
            self.retry(req, hint);
        } else {
            self.metrics.request(req.created, req.class, false);
        }
    }

    /// The open-loop client of `req` retries after `hint` and its backoff,
    /// or has used its attempts and fails.
    fn retry(&mut self, req: Request, hint: u64) {
        let Some(retry) = self.sc.retry.filter(|r| req.tries < r.attempts) else {
            self.metrics.request(req.created, req.class, false);
            return;
        };
        let delay = match retry.backoff {
            Backoff::Immediate => 0,
            Backoff::Jittered { first_us, max_us } => {
                let range = first_us << (req.tries - 1).min(16);
                hint + self.other.below(range.min(max_us))
            }
        };
        self.at(self.now + delay, Next::Retry(req));
    }

    /// The client of attempt `serial` stops waiting for it: a blocked send
    /// is withdrawn, and the client retries.
    fn give_up(&mut self, serial: u64, slot: usize, req: Request) {
        let state = &mut self.client[serial as usize - 1];
        if *state != Client::Waiting {
            return;
        }
        *state = Client::GaveUp;
        let blocked = self.slab[slot]
            .as_ref()
            .is_some_and(|a| a.serial == serial && a.at == At::Blocked);
        if blocked {
            self.blocked_live -= 1;
            self.end(slot, End::TimedOut, Outcome::Dropped);
        }
        self.retry(req, 0);
    }

    /// Takes attempt `slot` out and ends its permit with `outcome`.
    fn take(&mut self, slot: usize, outcome: Outcome) -> Attempt<L::Token> {
        let mut a = self.slab[slot].take().expect("a live attempt");
        self.free.push(slot);
        self.held[a.request.class] -= 1;
        self.lower_on_last -= a.last as u64;
        self.released += 1;
        let token = a.token.take().expect("a permit held");
        self.lim.release(token, self.now, outcome);
        if !self.waiting.is_empty() {
            self.offers += 1;
        }
        a
    }

    /// Each release since the last call offers its permit to one waiter:
    /// the highest class, then the newest (LIFO) or the oldest. A waiter
    /// the limiter still refuses waits on; if the limit is full (a request
    /// took the permit first) the offer is spent, otherwise (its class may
    /// not have the unit) it passes to the next class down, as the crate's
    /// waiting acquire passes its wake. A limiter that
    /// [wakes on a rise](SimLimiter::wakes_on_rise) also offers one permit
    /// per unit the limit rose by since the last call.
    fn serve_backlog(&mut self) {
        let limit = self.lim.limit();
        let rose = limit.saturating_sub(self.served_limit) as usize;
        self.served_limit = limit;
        let Some(b) = self.sc.backlog else { return };
        if self.lim.wakes_on_rise() && !self.waiting.is_empty() {
            self.offers += rose;
        }
        while self.offers > 0 && !self.waiting.is_empty() {
            self.offers -= 1;
            for class in 0..self.held.len() {
                let of_class = |w: &Waiter| w.req.class == class;
                let i = if b.newest_first(self.waiting.len()) {
                    self.waiting.iter().rposition(of_class)
                } else {
                    self.waiting.iter().position(of_class)
                };
                let Some(i) = i else { continue };
                if let Some(token) = self.lim.acquire(self.now, class) {
                    let w = self.waiting.remove(i);
                    self.admit(w.req, None, w.burst, token, w.sent);
                    break;
                }
                if self.held.iter().sum::<u64>() >= u64::from(self.lim.limit()) {
                    break; // the limit is full: the offer is spent
                }
            }
        }
        self.offers = 0;
    }

    /// Waiter `id` reaches its client's deadline: it times out (or its
    /// client retries), unless it was admitted meanwhile.
    fn unwait(&mut self, id: u64) {
        let Some(i) = self.waiting.iter().position(|w| w.id == id) else {
            return;
        };
        let w = self.waiting.remove(i);
        self.metrics
            .end(w.sent, w.req.class, w.burst, End::TimedOut);
        self.retry(w.req, 0);
    }

    /// Attempt `slot` ends at the server: answered (in time or late),
    /// skipped, or evicted from the ring (`End::Shed`).
    fn end(&mut self, slot: usize, end: End, outcome: Outcome) {
        let a = self.take(slot, outcome);
        let (class, created) = (a.request.class, a.request.created);
        let state = self.waits.then(|| self.client[a.serial as usize - 1]);
        let waiting = state.is_none_or(|s| s == Client::Waiting);
        let good = matches!(end, End::Good(_));
        if self.waits && waiting && (good || matches!(end, End::Shed)) {
            self.client[a.serial as usize - 1] = Client::Answered;
        }
        match end {
            // Evicted: a waiting client is refused; one that gave up has
            // timed out.
            End::Shed if waiting => self.shed(a.arrival, a.request, a.burst),
            End::Shed => self.metrics.end(a.arrival, class, a.burst, End::TimedOut),
            end => {
                self.metrics.end(a.arrival, class, a.burst, end);
                if state.is_none() || (waiting && good) {
                    self.metrics.request(created, class, good);
                }
            }
        }
        if let (Some(c), Some((who, n))) = (self.clients.as_mut(), a.client) {
            c.ended(who, n, self.now);
        }
    }

    /// A worker finished the attempt at the heap's top.
    fn finish(&mut self) {
        let Reverse((finish, _, slot)) = self.done.pop().unwrap();
        self.busy -= 1;
        let a = self.slab[slot].as_ref().expect("a live attempt");
        let (arrival, admitted, started) = (a.arrival, a.admitted, a.started);
        let work = finish - started;
        self.estimate = self.estimate - self.estimate / 8 + work / 8;
        let latency = finish - arrival;
        let late = latency > self.sc.timeout_us;
        self.metrics.served(arrival, latency, work, late);
        if late {
            self.end(slot, End::Late, Outcome::Dropped);
        } else {
            let ticks = (finish / self.sc.tick_us - admitted / self.sc.tick_us) as u32;
            self.end(slot, End::Good(latency), Outcome::Success { ticks });
        }
    }

    /// Idle workers take the queue's head, skipping what the deadline check
    /// says to.
    fn dispatch(&mut self) {
        let now = self.now;
        let workers = self.sc.workers_at(now);
        while self.busy < workers {
            let Some(slot) = self.pop() else {
                // A fresh pop stops after a run of discards (or the slots
                // it freed let waiting senders in): a worker pops again.
                if self.queue.len() > 0 {
                    continue;
                }
                break;
            };
            let a = self.slab[slot].as_ref().expect("a live attempt");
            let deadline = a.arrival + self.sc.timeout_us;
            let skip = match self.sc.check {
                Check::None => false,
                Check::Expired => now >= deadline,
                Check::Budget => now + self.estimate > deadline,
            };
            if skip {
                self.end(slot, End::TimedOut, Outcome::Dropped);
                continue;
            }
            let service = ((a.request.service_us * self.sc.slow_at(now)).round() as u64).max(1);
            let a = self.attempt(slot);
            a.at = At::Serving;
            a.started = now;
            self.busy += 1;
            self.seq += 1;
            self.done.push(Reverse((now + service, self.seq, slot)));
        }
    }

    /// The queue's head; with the ring's fresh pop, what it discards ends
    /// timed out, and each slot freed goes to a blocked sender.
    fn pop(&mut self) -> Option<usize> {
        let (now, estimate, timeout) = (self.now, self.estimate, self.sc.timeout_us);
        let slab = &self.slab;
        let mut discarded = Vec::new();
        let head = self.queue.pop(
            |s| {
                let a = slab[s as usize].as_ref().expect("a live attempt");
                now + estimate > a.arrival + timeout
            },
            |s| discarded.push(s as usize),
        );
        let freed = discarded.len() + usize::from(head.is_some());
        for slot in discarded {
            self.end(slot, End::TimedOut, Outcome::Dropped);
        }
        if self.queue.slowed() {
            while !self.blocked.is_empty() && self.queue.reading() {
                self.unblock(true);
            }
        } else {
            for _ in 0..freed {
                self.unblock(false);
            }
        }
        head.map(|s| s as usize)
    }

    /// A blocked sender takes a freed slot: a random one, or with `oldest`
    /// (the slowed source reading what waited) the oldest one still waiting.
    fn unblock(&mut self, oldest: bool) {
        while !self.blocked.is_empty() {
            let (slot, serial) = if oldest {
                self.blocked.pop_front()
            } else {
                let i = self.other.below(self.blocked.len() as u64) as usize;
                self.blocked.swap_remove_back(i)
            }
            .expect("not empty");
            let Some(a) = self.slab[slot].as_mut().filter(|a| a.serial == serial) else {
                continue;
            };
            if a.at != At::Blocked {
                continue;
            }
            a.at = At::Queued;
            self.blocked_live -= 1;
            self.queue.push_freed(slot as u32);
            return;
        }
    }

    fn report(self, name: &str, samples: Vec<(u64, u32)>, reach: Vec<Option<u64>>) -> Report {
        let sc = self.sc;
        let windows = sc
            .windows
            .iter()
            .zip(self.metrics.windows)
            .map(|(w, (_, _, mut acc))| {
                acc.latencies.sort_unstable();
                acc.served_latencies.sort_unstable();
                WindowReport {
                    label: w.label.clone(),
                    all: acc.all,
                    burst: acc.burst,
                    class: acc.class,
                    goodput_pct: 100.0 * acc.all.good as f64 / sc.capacity(w.from_us, w.to_us),
                    p50_us: percentile(&acc.latencies, 0.50),
                    p99_us: percentile(&acc.latencies, 0.99),
                    served_p50_us: percentile(&acc.served_latencies, 0.50),
                    served_p99_us: percentile(&acc.served_latencies, 0.99),
                    work_us: acc.work_us,
                    wasted_work_us: acc.wasted_work_us,
                    requests: acc.requests,
                    succeeded: acc.succeeded,
                    bands: acc.bands,
                }
            })
            .collect();
        Report {
            limiter: name.to_string(),
            scenario: sc.name.clone(),
            total: self.metrics.total,
            windows,
            samples,
            reach_us: reach,
            critical_refused_behind_lower: self.inversions,
            unreleased: self.acquired - self.released,
            peak_queue: self.peak_queue,
            peak_slots: self.peak_slots,
            expired: self.queue.expired(),
        }
    }
}
