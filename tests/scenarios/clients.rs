//! Closed-loop clients: a fixed population (changing at set times), each
//! with at most one request out. A client sends a request, waits for its
//! end (answered, late or skipped) or for its own timeout, whichever comes
//! first, thinks, and sends the next; a refused request makes it back off
//! before it tries again. Think time and back-off are exponential with the
//! configured means, drawn from the scenario's seed, so a run stays a pure
//! function of the scenario and the limiter.
//!
//! This is the traffic a service with a fixed number of callers sees (a
//! connection pool, a fleet of workers, a load tester with N threads):
//! every permit a limiter frees is taken again at once, so the in-flight
//! count at admission sits at the limit whenever the clients outnumber it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::service::{ln, Rng};

/// A closed-loop client population.
#[derive(Clone, Debug)]
pub struct ClosedLoop {
    /// `(from_us, clients)`, sorted, the first at 0: how many clients there
    /// are from each time on. New clients start within one think time;
    /// clients beyond a lowered count stop after their request in flight.
    pub population: Vec<(u64, u32)>,
    /// Mean think time between an answer (or a client's timeout) and the
    /// next request.
    pub think_us: u64,
    /// Mean back-off after a refused request.
    pub backoff_us: u64,
}

/// What a client event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// The client sends its next request.
    Send,
    /// The client's timeout for request `req` (ignored if that request has
    /// ended).
    GiveUp(u64),
}

/// The clients' state and their pending events.
pub struct Clients {
    cfg: ClosedLoop,
    rng: Rng,
    /// The request each client waits for, if any.
    waiting: Vec<Option<u64>>,
    /// Clients with an index at or above this stop sending.
    active: u32,
    /// `(time, seq, client, kind)`.
    events: BinaryHeap<Reverse<(u64, u64, u32, Kind)>>,
    seq: u64,
    next_change: usize,
}

impl Clients {
    /// The clients of `cfg`, drawing from `seed`.
    pub fn new(cfg: &ClosedLoop, seed: u64) -> Self {
        let mut c = Clients {
            cfg: cfg.clone(),
            rng: Rng(seed ^ 0xC11E_47C1_1E47_C11E),
            waiting: Vec::new(),
            active: 0,
            events: BinaryHeap::new(),
            seq: 0,
            next_change: 0,
        };
        c.apply_changes(0);
        c
    }

    fn draw(&mut self, mean_us: u64) -> u64 {
        ((-(mean_us as f64) * ln(self.rng.unit())) as u64).max(1)
    }

    fn push(&mut self, at: u64, client: u32, kind: Kind) {
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, client, kind)));
    }

    /// Applies the population changes due at `now`.
    fn apply_changes(&mut self, now: u64) {
        while let Some(&(from, n)) = self.cfg.population.get(self.next_change) {
            if from > now {
                break;
            }
            self.next_change += 1;
            for client in self.active..n {
                if client as usize >= self.waiting.len() {
                    self.waiting.push(None);
                }
                // Spread the starts over one think time.
                let at = from + self.rng.below(self.cfg.think_us.max(1));
                self.push(at, client, Kind::Send);
            }
            self.active = n;
        }
    }

    /// When the next client event (or population change) is due.
    pub fn next_at(&self) -> u64 {
        let change = self
            .cfg
            .population
            .get(self.next_change)
            .map_or(u64::MAX, |c| c.0);
        self.events.peek().map_or(u64::MAX, |e| e.0 .0).min(change)
    }

    /// The client due at `now` that sends a request, if any (a due timeout
    /// or population change is handled here and yields `None`).
    pub fn due(&mut self, now: u64) -> Option<u32> {
        self.apply_changes(now);
        let Reverse((at, _, client, kind)) = *self.events.peek()?;
        if at != now {
            return None;
        }
        self.events.pop();
        match kind {
            Kind::Send if client < self.active => Some(client),
            Kind::Send => None,
            Kind::GiveUp(req) => {
                if self.waiting[client as usize] == Some(req) {
                    self.waiting[client as usize] = None;
                    let think = self.draw(self.cfg.think_us);
                    self.push(now + think, client, Kind::Send);
                }
                None
            }
        }
    }

    /// `client`'s request `req`, sent at `now`, was admitted; the client
    /// gives up on it at `deadline`.
    pub fn admitted(&mut self, client: u32, req: u64, deadline: u64) {
        self.waiting[client as usize] = Some(req);
        self.push(deadline, client, Kind::GiveUp(req));
    }

    /// `client`'s request sent at `now` was refused: it backs off.
    pub fn refused(&mut self, client: u32, now: u64) {
        let backoff = self.draw(self.cfg.backoff_us);
        self.push(now + backoff, client, Kind::Send);
    }

    /// `client`'s request `req` ended at `now` (answered, late or skipped):
    /// the client thinks and sends the next, unless it gave up on it.
    pub fn ended(&mut self, client: u32, req: u64, now: u64) {
        if self.waiting[client as usize] == Some(req) {
            self.waiting[client as usize] = None;
            let think = self.draw(self.cfg.think_us);
            self.push(now + think, client, Kind::Send);
        }
    }
}
