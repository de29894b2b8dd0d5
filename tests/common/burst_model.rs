//! What `mpmc::BurstRing` must answer, on one thread, given the operations
//! that are in progress (claimed and not yet committed), and a driver that
//! runs random operations on a ring and on the model and checks every
//! answer. Positions count from the ring's start. The integration tests
//! (`tests/burst_ring.rs`) and the crate's pause tests include this file with
//! `#[path]`; each brings the ring's types and `splitmix` into its own scope,
//! reached here through `super::`.

use super::splitmix::Rng;
use super::{
    BurstRing, Level, Marks, Moved, NoMarks, PopError, PushError, ReadChunk, Stop, WriteChunk,
};
use std::collections::{BTreeMap, BTreeSet};
use std::format;
use std::vec;
use std::vec::Vec;

/// Why an operation moved fewer items than asked (as the ring's `Stop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    Full,
    Empty,
    Busy,
    Closed,
}

/// The model: positions claimed, items published, claims in progress.
#[derive(Clone, Debug)]
pub struct Model {
    pub n: u64,
    pub prod: u64,
    pub cons: u64,
    /// Published items by position (claimed by a push and committed).
    pub items: BTreeMap<u64, u32>,
    /// Positions claimed by a push in progress (not published yet).
    pub pushing: BTreeSet<u64>,
    /// Positions claimed by a pop or eviction in progress (not consumed yet).
    pub popping: BTreeSet<u64>,
    /// Positions claimed without an item (left by a dropped write chunk,
    /// or skipped by `push_overwrite` because a pop held the slot), not
    /// passed yet.
    pub voids: BTreeSet<u64>,
    /// Voids a pop has passed (claimed in `cons`) and not yet flipped: their
    /// slots are held as a pop's are.
    pub passing: BTreeSet<u64>,
    /// Voids passed (flipped, `cons` past them) whose marks are not yet
    /// cleared: their slots' next positions are not free yet, and the pass
    /// still holds the front (pops answer busy).
    pub clearing: BTreeSet<u64>,
    /// A `push_overwrite` holds a position under its flag (claimed in
    /// `prod`), and has not yet cleared the flag.
    pub evicting: bool,
    pub closed: bool,
    /// The most positions claimed by pushes and not by pops so far (a bound
    /// for the sampled high-water mark).
    pub highest: u64,
    pub rejected: usize,
    /// Of `rejected`, the items of bulk pushes refused as full with room
    /// in the ring: they do not make the ring's `peak` `N`.
    pub rejected_with_room: usize,
    pub overwritten: usize,
    pub busy: usize,
    /// Items the fresh pops discarded.
    pub expired: usize,
}

impl Model {
    pub fn new(n: usize) -> Self {
        Model {
            n: n as u64,
            prod: 0,
            cons: 0,
            items: BTreeMap::new(),
            pushing: BTreeSet::new(),
            popping: BTreeSet::new(),
            voids: BTreeSet::new(),
            passing: BTreeSet::new(),
            clearing: BTreeSet::new(),
            evicting: false,
            closed: false,
            highest: 0,
            rejected: 0,
            rejected_with_room: 0,
            overwritten: 0,
            busy: 0,
            expired: 0,
        }
    }

    /// Whether position `q` may be pushed: its previous lap claimed by a
    /// pop (or passed, if a void), and no pop still holding the slot (a
    /// pop may hold it for several laps, the positions `push_overwrite`
    /// made void meanwhile).
    pub fn free(&self, q: u64) -> bool {
        q < self.n
            || (q - self.n < self.cons
                && !self
                    .popping
                    .iter()
                    .chain(&self.passing)
                    .chain(&self.clearing)
                    .any(|p| p % self.n == q % self.n))
    }

    /// Free positions from `prod`, at most `max` (and `n`).
    pub fn push_run(&self, max: usize) -> usize {
        if self.closed || self.evicting {
            return 0;
        }
        (0..max.min(self.n as usize))
            .take_while(|&k| self.free(self.prod + k as u64))
            .count()
    }

    /// `cons` as the ring's full test reads it: before the voids a pass is
    /// passing.
    pub fn front(&self) -> u64 {
        self.cons - self.passing.len() as u64
    }

    /// Why a push cannot claim position `q` (its run stopped there).
    pub fn push_stop(&self, q: u64) -> Why {
        if self.closed {
            Why::Closed
        } else if self.evicting {
            Why::Busy
        } else if q - self.front() >= self.n {
            Why::Full
        } else {
            Why::Busy
        }
    }

    /// Published positions from `cons`, at most `max` (and `n`); none while
    /// a pass of voids holds the front.
    pub fn pop_run(&self, max: usize) -> usize {
        if !self.passing.is_empty() || !self.clearing.is_empty() {
            return 0;
        }
        (0..max.min(self.n as usize))
            .take_while(|&k| self.items.contains_key(&(self.cons + k as u64)))
            .count()
    }

    /// Why a pop stops at position `q` (the first it could not take).
    /// `bulk_short`: a bulk that found some items there, fewer than it
    /// asked for (it answers empty, even on a closed ring).
    pub fn pop_stop(&self, q: u64, bulk_short: bool) -> Why {
        if !self.passing.is_empty() || !self.clearing.is_empty() || q < self.prod {
            // A push holds `q`.
            return Why::Busy;
        }
        if bulk_short || !self.closed {
            return Why::Empty;
        }
        if self.evicting {
            // An eviction whose void was passed up to `prod` claims its
            // next position after the close too.
            return Why::Busy;
        }
        // Closed and drained (a pop in progress only takes).
        Why::Closed
    }

    /// A pop blocked at a void at the front passes the run of voids there
    /// (as a pop that consumed them) and tries again.
    pub fn skip_front_voids(&mut self) {
        if !self.passing.is_empty() || !self.clearing.is_empty() {
            return;
        }
        while self.voids.remove(&self.cons) {
            self.cons += 1;
        }
    }

    /// A write chunk that claimed `positions` is dropped with its first
    /// `written` filled with `items`: those are published, the rest void.
    pub fn drop_chunk(&mut self, positions: &[u64], items: &[u32], written: usize) {
        self.publish(&positions[..written], &items[..written]);
        for q in &positions[written..] {
            assert!(self.pushing.remove(q));
            self.voids.insert(*q);
        }
        // Voids at the front are passed at once, as a pop would pass them.
        if positions.get(written) == Some(&self.cons) {
            self.skip_front_voids();
        }
    }

    /// Counts a refusal as the ring does, and returns it.
    pub fn count(&mut self, why: Why, items: usize) -> Why {
        match why {
            Why::Full => self.rejected += items,
            Why::Busy => self.busy += 1,
            _ => {}
        }
        why
    }

    /// A push claims `k` positions from `prod` (the caller checked the run).
    pub fn claim_push(&mut self, k: usize) -> Vec<u64> {
        let got: Vec<u64> = (self.prod..self.prod + k as u64).collect();
        self.pushing.extend(&got);
        self.prod += k as u64;
        self.highest = self.highest.max(self.prod - self.front());
        got
    }

    /// A push publishes the positions it claimed.
    pub fn publish(&mut self, positions: &[u64], items: &[u32]) {
        for (&q, &v) in positions.iter().zip(items) {
            assert!(self.pushing.remove(&q));
            self.items.insert(q, v);
        }
    }

    /// A pop claims `k` published positions from `cons` and takes their items.
    pub fn claim_pop(&mut self, k: usize) -> (Vec<u64>, Vec<u32>) {
        let got: Vec<u64> = (self.cons..self.cons + k as u64).collect();
        let items = got.iter().map(|q| self.items.remove(q).unwrap()).collect();
        self.popping.extend(&got);
        self.cons += k as u64;
        (got, items)
    }

    /// A pop frees the positions it claimed.
    pub fn consume(&mut self, positions: &[u64]) {
        for q in positions {
            assert!(self.popping.remove(q));
        }
    }

    /// Counts a bulk push's refusal as the ring does: one refused as full
    /// with room in the ring is noted apart.
    fn refuse_bulk(&mut self, why: Why, items: usize) -> Why {
        if why == Why::Full && self.prod - self.front() < self.n {
            self.rejected_with_room += items;
        }
        self.count(why, items)
    }

    /// Whole operations, as one thread sees them.
    pub fn push_burst(&mut self, items: &[u32]) -> (usize, Option<Why>) {
        let n = self.push_run(items.len());
        let why = (n < items.len()).then(|| self.push_stop(self.prod + n as u64));
        if let Some(why) = why {
            self.count(why, items.len() - n);
        }
        let at = self.claim_push(n);
        self.publish(&at, &items[..n]);
        (n, why)
    }

    pub fn push_bulk(&mut self, items: &[u32]) -> Result<(), Why> {
        if items.len() as u64 > self.n {
            if self.closed {
                return Err(Why::Closed);
            }
            return Err(self.refuse_bulk(Why::Full, items.len()));
        }
        let n = self.push_run(items.len());
        if n < items.len() {
            let why = self.push_stop(self.prod + n as u64);
            return Err(self.refuse_bulk(why, items.len()));
        }
        let at = self.claim_push(n);
        self.publish(&at, items);
        Ok(())
    }

    /// A burst pop: claims the published run, passes voids in front of it,
    /// and claims again, until it has `k` or is blocked.
    pub fn pop_burst(&mut self, k: usize) -> (Vec<u32>, Option<Why>) {
        let mut got = Vec::new();
        while got.len() < k {
            self.skip_front_voids();
            let n = self.pop_run(k - got.len());
            if n == 0 {
                let why = self.pop_stop(self.cons, false);
                return (got, Some(self.count(why, 0)));
            }
            let (at, items) = self.claim_pop(n);
            self.consume(&at);
            got.extend(items);
        }
        (got, None)
    }

    pub fn pop_bulk(&mut self, k: usize) -> Result<Vec<u32>, Why> {
        if k as u64 > self.n {
            let drained = self.closed
                && self.prod == self.cons
                && self.pop_stop(self.cons, false) == Why::Closed;
            return Err(if drained { Why::Closed } else { Why::Empty });
        }
        self.skip_front_voids();
        let n = self.pop_run(k);
        if n < k {
            let why = self.pop_stop(self.cons + n as u64, n > 0);
            return Err(self.count(why, 0));
        }
        let (at, items) = self.claim_pop(n);
        self.consume(&at);
        Ok(items)
    }

    /// `push_overwrite`: `Ok(None)` stored, `Ok(Some(old))` evicted, or the
    /// reason the new item came back. Where a pop holds the slot of the
    /// next position, that position becomes a void and the next one is
    /// tried (at most `n` voids per call).
    pub fn push_overwrite(&mut self, item: u32) -> Result<Option<u32>, Why> {
        if self.closed {
            return Err(Why::Closed);
        }
        if self.evicting {
            return Err(self.count(Why::Busy, 1));
        }
        loop {
            let q = self.prod;
            if self.free(q) {
                let at = self.claim_push(1);
                self.publish(&at, &[item]);
                return Ok(None);
            }
            // `q - n` is the oldest position (the ring is full), or a pop
            // holds its slot. The busy answers come before the claim.
            let old = q - self.n;
            if self.passing.contains(&old) || self.clearing.contains(&old) {
                return Err(self.count(Why::Busy, 1));
            }
            if self.voids.contains(&old) {
                self.skip_front_voids();
                continue;
            }
            if old == self.cons && !self.items.contains_key(&old) {
                // A push still holds the oldest position.
                return Err(self.count(Why::Busy, 1));
            }
            let at = self.hold();
            return self.overwrite_holding(at, item, 0);
        }
    }

    /// `push_overwrite` claims the next position under its flag.
    pub fn hold(&mut self) -> u64 {
        self.evicting = true;
        self.claim_push(1)[0]
    }

    /// `push_overwrite` holding position `at` under its flag: stores there,
    /// evicts the oldest, or makes `at` a void and holds the next position;
    /// gives `at` back and answers busy where it can do none of them.
    /// `voids`: how many it made before.
    pub fn overwrite_holding(
        &mut self,
        mut at: u64,
        item: u32,
        mut voids: u64,
    ) -> Result<Option<u32>, Why> {
        loop {
            let old = at - self.n;
            if self.passing.contains(&old) || self.clearing.contains(&old) {
                break;
            }
            if self.voids.contains(&old) {
                assert_eq!(old, self.cons, "a void behind the front");
                self.skip_front_voids();
                continue;
            }
            if self.free(at) {
                self.publish(&[at], &[item]);
                self.evicting = false;
                return Ok(None);
            }
            if old == self.cons {
                if !self.items.contains_key(&old) {
                    break;
                }
                let (old_at, old_item) = self.claim_pop(1);
                self.consume(&old_at);
                self.publish(&[at], &[item]);
                self.evicting = false;
                self.overwritten += 1;
                return Ok(Some(old_item[0]));
            }
            if voids == self.n {
                break;
            }
            voids += 1;
            assert!(self.pushing.remove(&at));
            self.voids.insert(at);
            at = self.claim_push(1)[0];
        }
        assert!(self.pushing.remove(&at));
        assert_eq!(at, self.prod - 1);
        self.prod -= 1;
        self.evicting = false;
        Err(self.count(Why::Busy, 1))
    }
}

/// The ring's answer for the model's.
pub fn stop(why: Why) -> Stop {
    match why {
        Why::Full => Stop::Full,
        Why::Empty => Stop::Empty,
        Why::Busy => Stop::Busy,
        Why::Closed => Stop::Closed,
    }
}

/// A held read chunk, the items it claimed and their positions.
type Held<'r, const N: usize, const W: usize, M> =
    (ReadChunk<'r, u32, N, W, M>, Vec<u32>, Vec<u64>);
/// Reads a ring's level and marks, `(level, low, high)`, if it has them.
pub type LevelOf<const N: usize, const W: usize, M> =
    fn(&BurstRing<u32, N, W, M>) -> Option<(Level, usize, usize)>;

/// A held write chunk and the positions it claimed.
type Writing<'r, const N: usize, const W: usize, M> = (WriteChunk<'r, u32, N, W, M>, Vec<u64>);

/// Random operations on a ring, each checked against the model: answers,
/// items, counters, length and the closed and drained flags.
pub struct Driver<'r, const N: usize, const W: usize, M: Marks = NoMarks> {
    pub m: Model,
    pub rng: Rng,
    /// The next item to push (items are unique).
    pub next: u32,
    /// Whether `ops` may close the ring.
    pub may_close: bool,
    chunks: Vec<Held<'r, N, W, M>>,
    writing: Vec<Writing<'r, N, W, M>>,
    /// A ring with watermarks: its level and marks (`with_level`).
    level_of: LevelOf<N, W, M>,
}

impl<'r, const N: usize, const W: usize, M: Marks> Driver<'r, N, W, M> {
    pub fn new(n: usize, seed: u64) -> Self {
        Driver {
            m: Model::new(n),
            rng: Rng(seed),
            next: 0,
            may_close: true,
            chunks: Vec::new(),
            writing: Vec::new(),
            level_of: |_| None,
        }
    }

    /// Checks the level too after every step, as `level_of` reads it and
    /// the marks (a ring with watermarks).
    #[allow(dead_code)] // the crate's pause tests drive rings without marks
    pub fn with_level(mut self, level_of: LevelOf<N, W, M>) -> Self {
        self.level_of = level_of;
        self
    }

    /// `steps` random operations on `ring`.
    pub fn ops(&mut self, ring: &'r BurstRing<u32, N, W, M>, steps: usize, ctx: &str) {
        let mut buf = vec![0u32; 2 * N + 3];
        for step in 0..steps {
            let ctx = format!("{ctx} step {step}");
            self.op(ring, &mut buf, &ctx);
            self.check(ring, &ctx);
        }
    }

    /// Releases every held read chunk, and fills every held write chunk.
    pub fn release_all(&mut self) {
        for (chunk, _, at) in self.chunks.drain(..) {
            chunk.release();
            self.m.consume(&at);
        }
        for (chunk, at) in self.writing.drain(..) {
            let items: Vec<u32> = (self.next..self.next + at.len() as u32).collect();
            self.next += at.len() as u32;
            assert_eq!(chunk.fill_from_slice(&items), at.len());
            self.m.drop_chunk(&at, &items, at.len());
        }
    }

    /// Checks the ring's observers against the model.
    pub fn check(&self, ring: &BurstRing<u32, N, W, M>, ctx: &str) {
        let m = &self.m;
        // (`N + 1` claimed while a `push_overwrite` holds its position
        // before it takes the oldest; the ring's `len` says `N`.)
        assert_eq!(ring.len() as u64, (m.prod - m.front()).min(m.n), "{ctx}");
        let s = ring.stats();
        assert_eq!(
            (s.rejected, s.overwritten, s.busy, s.expired),
            (m.rejected, m.overwritten, m.busy, m.expired),
            "{ctx}"
        );
        let len = (m.prod - m.front()).min(m.n);
        if m.rejected != m.rejected_with_room || s.overwritten != 0 {
            assert_eq!(s.peak, N, "{ctx}: a full ring was seen");
        } else {
            assert!(
                len <= s.peak as u64 && s.peak as u64 <= m.highest,
                "{ctx}: peak {}",
                s.peak
            );
        }
        assert_eq!(ring.is_closed(), m.closed, "{ctx}");
        let drained = m.closed && m.prod == m.cons && m.pop_stop(m.cons, false) == Why::Closed;
        assert_eq!(ring.is_drained(), drained, "{ctx}");
        // On one thread every operation that ends at `low` or fewer lowers
        // the level and every one that ends at `high` or more raises it,
        // whatever the counts it passed through.
        if let Some((level, low, high)) = (self.level_of)(ring) {
            let len = len as usize;
            match level {
                Level::High => assert!(len > low, "{ctx}: High at {len}, low {low}"),
                Level::Normal => assert!(len < high, "{ctx}: Normal at {len}, high {high}"),
            }
            assert_eq!(
                s.transitions % 2 == 1,
                level == Level::High,
                "{ctx}: {} transitions, {level:?}",
                s.transitions
            );
        }
    }

    fn op(&mut self, ring: &'r BurstRing<u32, N, W, M>, buf: &mut [u32], ctx: &str) {
        let k = 1 + self.rng.below(2 * N as u64 + 2) as usize;
        let kind = self.rng.below(KINDS);
        self.apply(ring, buf, kind, k, ctx);
    }

    /// Operation `kind` (below [`KINDS`]) of size `k` (`1..=2N + 2`): the
    /// pushes and pops, bursts and bulks of `k`, evictions, read and write
    /// chunks held and finished later, drain, clear, the fresh pops and
    /// (the last kind, if `may_close`) close. `buf` holds at least `k`
    /// items.
    pub fn apply(
        &mut self,
        ring: &'r BurstRing<u32, N, W, M>,
        buf: &mut [u32],
        kind: u64,
        k: usize,
        ctx: &str,
    ) {
        if std::env::var("DBG").is_ok() {
            std::eprintln!("{ctx}: kind {kind} k {k} model {:?}", self.m);
        }
        let m = &mut self.m;
        let next = self.next;
        let items: Vec<u32> = (next..next + k as u32).collect();
        self.next += k as u32;
        match kind {
            0 => {
                let want = match m.push_burst(&items[..1]) {
                    (1, _) => Ok(()),
                    (_, Some(Why::Full)) => Err(PushError::Full(next)),
                    (_, Some(Why::Busy)) => Err(PushError::Busy(next)),
                    _ => Err(PushError::Closed(next)),
                };
                assert_eq!(ring.try_push(next), want, "{ctx}: try_push");
            }
            1 => {
                let (count, why) = m.push_burst(&items);
                let want = Moved {
                    count,
                    stop: why.map(stop),
                };
                assert_eq!(ring.push_burst(&items), want, "{ctx}: push_burst {k}");
            }
            2 => {
                let want = m.push_bulk(&items).map_err(stop);
                assert_eq!(ring.push_bulk(&items), want, "{ctx}: push_bulk {k}");
            }
            3 => {
                let want = m.push_overwrite(next).map_err(|why| match why {
                    Why::Closed => PushError::Closed(next),
                    _ => PushError::Busy(next),
                });
                assert_eq!(ring.push_overwrite(next), want, "{ctx}: push_overwrite");
            }
            4 => {
                let want = match m.pop_burst(1) {
                    (got, _) if got.len() == 1 => Ok(got[0]),
                    (_, Some(Why::Busy)) => Err(PopError::Busy),
                    (_, Some(Why::Closed)) => Err(PopError::Closed),
                    _ => Err(PopError::Empty),
                };
                assert_eq!(ring.try_pop(), want, "{ctx}: try_pop");
            }
            5 => {
                let (want, why) = m.pop_burst(k);
                let got = ring.pop_burst(&mut buf[..k]);
                let moved = Moved {
                    count: want.len(),
                    stop: why.map(stop),
                };
                assert_eq!(got, moved, "{ctx}: pop_burst {k}");
                assert_eq!(buf[..want.len()], want[..], "{ctx}: pop_burst {k}");
            }
            6 => {
                let got = ring.pop_bulk(&mut buf[..k]);
                match m.pop_bulk(k) {
                    Ok(want) => {
                        assert_eq!(got, Ok(()), "{ctx}: pop_bulk {k}");
                        assert_eq!(buf[..k], want[..], "{ctx}: pop_bulk {k}");
                    }
                    Err(why) => assert_eq!(got, Err(stop(why)), "{ctx}: pop_bulk {k}"),
                }
            }
            7 => {
                let got = ring.read_chunk(k);
                m.skip_front_voids();
                let n = m.pop_run(k);
                if n == 0 {
                    let why = m.pop_stop(m.cons, false);
                    let why = stop(m.count(why, 0));
                    let got = got.map(|c| c.len());
                    assert_eq!(got, Err(why), "{ctx}: read_chunk {k}");
                } else {
                    let chunk = got.unwrap();
                    assert_eq!(chunk.len(), n, "{ctx}: read_chunk {k}");
                    let (at, want) = m.claim_pop(n);
                    self.chunks.push((chunk, want, at));
                }
            }
            // Release a held chunk, after checking it still holds its items.
            8 if !self.chunks.is_empty() => {
                let i = self.rng.below(self.chunks.len() as u64) as usize;
                let (chunk, want, at) = self.chunks.swap_remove(i);
                let mut got: Vec<u32> = (0..chunk.len()).map(|i| chunk.get(i).unwrap()).collect();
                assert_eq!(got, want, "{ctx}: a held chunk");
                let (a, b) = chunk.as_slices();
                got.clear();
                got.extend(a.iter().chain(b));
                assert_eq!(got, want, "{ctx}: a held chunk");
                chunk.release();
                m.consume(&at);
            }
            9 => {
                let got = ring.write_chunk(k);
                let n = m.push_run(k);
                if n == 0 {
                    let why = m.push_stop(m.prod);
                    let why = stop(m.count(why, 0));
                    assert_eq!(
                        got.map(|c| c.len()).unwrap_err(),
                        why,
                        "{ctx}: write_chunk {k}"
                    );
                } else {
                    let chunk = got.unwrap();
                    assert_eq!(chunk.len(), n, "{ctx}: write_chunk {k}");
                    let at = m.claim_push(n);
                    self.writing.push((chunk, at));
                }
            }
            // Fill a held write chunk: whole, in part, or not at all.
            10 if !self.writing.is_empty() => {
                let i = self.rng.below(self.writing.len() as u64) as usize;
                let (chunk, at) = self.writing.swap_remove(i);
                let fresh: Vec<u32> = (self.next..self.next + at.len() as u32).collect();
                self.next += at.len() as u32;
                let written = match self.rng.below(3) {
                    0 => {
                        let mut made = fresh.iter().copied();
                        chunk.fill_with(|| made.next().unwrap());
                        at.len()
                    }
                    1 => {
                        drop(chunk);
                        0
                    }
                    _ => {
                        let w = self.rng.below(at.len() as u64 + 1) as usize;
                        assert_eq!(chunk.fill_from_slice(&fresh[..w]), w, "{ctx}");
                        w
                    }
                };
                m.drop_chunk(&at, &fresh, written);
            }
            11 => {
                let got: Vec<u32> = ring.drain().collect();
                let mut want = Vec::new();
                loop {
                    let (one, _) = m.pop_burst(1);
                    if one.is_empty() {
                        break;
                    }
                    want.extend(one);
                }
                assert_eq!(got, want, "{ctx}: drain");
            }
            12 => {
                let got = ring.clear();
                let mut want = 0;
                while m.pop_burst(1).0.len() == 1 {
                    want += 1;
                }
                assert_eq!(got, want, "{ctx}: clear");
            }
            // The fresh pops: an item expires when its value mod 5 is below
            // `k` mod 5; at most `N` discards per call, each counted.
            13 => {
                let below = (k % 5) as u32;
                let expired = |x: &u32| x % 5 < below;
                let (mut want, mut gone) = (Err(PopError::Empty), Vec::new());
                for _ in 0..N {
                    match m.pop_burst(1) {
                        (got, _) if got.len() == 1 && expired(&got[0]) => gone.push(got[0]),
                        (got, _) if got.len() == 1 => {
                            want = Ok(got[0]);
                            break;
                        }
                        (_, why) => {
                            want = Err(match why {
                                Some(Why::Busy) => PopError::Busy,
                                Some(Why::Closed) => PopError::Closed,
                                _ => PopError::Empty,
                            });
                            break;
                        }
                    }
                }
                m.expired += gone.len();
                let mut discarded = Vec::new();
                let got = ring.try_pop_fresh_with(expired, |x| discarded.push(x));
                assert_eq!((got, discarded), (want, gone), "{ctx}: try_pop_fresh");
            }
            14 => {
                let below = (k % 5) as u32;
                let expired = |x: &u32| x % 5 < below;
                let (mut want, mut gone, mut why) = (Vec::new(), 0, None);
                while want.len() < k && gone < N {
                    let room = (k - want.len()).min(N - gone);
                    let (got, stop) = m.pop_burst(room);
                    why = stop;
                    for x in &got {
                        if expired(x) {
                            gone += 1;
                        } else {
                            want.push(*x);
                        }
                    }
                    if got.len() < room {
                        break;
                    }
                }
                if want.len() < k && why.is_none() {
                    why = Some(Why::Empty);
                }
                m.expired += gone;
                let moved = ring.pop_burst_fresh(&mut buf[..k], expired);
                let want_moved = Moved {
                    count: want.len(),
                    stop: why.map(stop),
                };
                assert_eq!(moved, want_moved, "{ctx}: pop_burst_fresh {k}");
                assert_eq!(buf[..want.len()], want[..], "{ctx}: pop_burst_fresh {k}");
            }
            15 if self.may_close => {
                assert_eq!(ring.close(), !m.closed, "{ctx}: close");
                m.closed = true;
            }
            16 => {
                // `push_iter` of an exact-size iterator: the burst's claims,
                // without counting what does not fit as rejected.
                let (count, why) = m.push_burst(&items);
                if why == Some(Why::Full) {
                    m.rejected -= k - count;
                }
                let mut rest = items.iter().copied();
                assert_eq!(ring.push_iter(&mut rest), count, "{ctx}: push_iter {k}");
                assert_eq!(
                    rest.next(),
                    items.get(count).copied(),
                    "{ctx}: push_iter {k}"
                );
            }
            _ => {}
        }
    }
}

/// How many kinds of operation [`Driver::apply`] knows.
pub const KINDS: u64 = 17;
