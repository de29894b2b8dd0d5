//! The model and the driver of the `mpmc` and `mpmc_cs` targets: both
//! rings have the same API ([`Mpmc`] forwards to it), so one `VecDeque`
//! model checks every operation of either, one at a time, with boxed,
//! `!Sync` items of which some panic when the ring drops them.

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use sluicegate::spsc::Level;
use sluicegate::{Closed, Overwritten, RingStats, TryPopError, TryPushError};

use crate::{clear_checked, drop_checked, Item};

#[derive(Arbitrary, Debug)]
pub enum Op {
    Push,
    PushOverwrite,
    Pop,
    /// Several pops in a row (drains quickly, reaches "empty" paths).
    Drain(u8),
    /// Several overwrites in a row (reaches eviction at every offset).
    Flood(u8),
    /// `push_iter` of up to this many new items.
    PushIter(u8),
    /// `drain()` to the end.
    DrainAll,
    /// `clear()` (drops in place: a bomb stops it there).
    Clear,
    /// `close()`.
    Close,
    /// `push_blocking`, where it cannot wait for ever (room, or closed).
    PushBlocking,
    /// `pop_blocking`, where it cannot wait for ever (an item, or closed).
    PopBlocking,
    /// `try_pop_fresh_with`: an item expires when its value mod 5 is below
    /// this mod 5.
    PopFresh(u8),
}

/// The API the two MPMC rings share, for items of type [`Item`].
pub trait Mpmc {
    /// The capacity, `N`.
    const N: usize;
    fn try_push(&self, item: Item) -> Result<(), TryPushError<Item>>;
    fn push_overwrite(&self, item: Item) -> Overwritten<Item>;
    fn try_pop(&self) -> Option<Item>;
    fn try_pop_or_closed(&self) -> Result<Item, TryPopError>;
    fn try_pop_fresh_with(
        &self,
        expiry: impl FnMut(&Item) -> bool,
        on_expired: impl FnMut(Item),
    ) -> Option<Item>;
    fn push_iter(&self, items: impl Iterator<Item = Item>) -> usize;
    fn drain(&self) -> impl Iterator<Item = Item> + '_;
    fn clear(&self) -> usize;
    fn close(&self) -> bool;
    fn is_closed(&self) -> bool;
    fn push_blocking(&self, item: Item) -> Result<(), Closed<Item>>;
    fn pop_blocking(&self) -> Option<Item>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool;
    fn is_full(&self) -> bool;
    fn stats(&self) -> RingStats;
    /// The watermarks and the level, for a ring that has them.
    fn marks(&self) -> Option<((usize, usize), Level)> {
        None
    }
}

macro_rules! forward {
    ($ring:ty $(, $w:ident)? $(; $($extra:item)*)?) => {
        impl<const N: usize $(, const $w: usize)?> Mpmc for $ring {
            const N: usize = N;
            fn try_push(&self, item: Item) -> Result<(), TryPushError<Item>> {
                self.try_push(item)
            }
            fn push_overwrite(&self, item: Item) -> Overwritten<Item> {
                self.push_overwrite(item)
            }
            fn try_pop(&self) -> Option<Item> {
                self.try_pop()
            }
            fn try_pop_or_closed(&self) -> Result<Item, TryPopError> {
                self.try_pop_or_closed()
            }
            fn try_pop_fresh_with(
                &self,
                expiry: impl FnMut(&Item) -> bool,
                on_expired: impl FnMut(Item),
            ) -> Option<Item> {
                self.try_pop_fresh_with(expiry, on_expired)
            }
            fn push_iter(&self, items: impl Iterator<Item = Item>) -> usize {
                self.push_iter(items)
            }
            fn drain(&self) -> impl Iterator<Item = Item> + '_ {
                self.drain()
            }
            fn clear(&self) -> usize {
                self.clear()
            }
            fn close(&self) -> bool {
                self.close()
            }
            fn is_closed(&self) -> bool {
                self.is_closed()
            }
            fn push_blocking(&self, item: Item) -> Result<(), Closed<Item>> {
                self.push_blocking(item)
            }
            fn pop_blocking(&self) -> Option<Item> {
                self.pop_blocking()
            }
            fn len(&self) -> usize {
                self.len()
            }
            fn is_empty(&self) -> bool {
                self.is_empty()
            }
            fn is_full(&self) -> bool {
                self.is_full()
            }
            fn stats(&self) -> RingStats {
                self.stats()
            }
            $($($extra)*)?
        }
    };
}

forward!(sluicegate::mpmc::Ring<Item, N>);
forward!(sluicegate::mpmc::SmallRing<Item, N>);
forward!(
    sluicegate::mpmc::Ring<Item, N, sluicegate::mpmc::FreeBits<W>>,
    W
);
forward!(
    sluicegate::mpmc::Ring<Item, N, sluicegate::mpmc::FreeIndices<N>, sluicegate::mpmc::Marked>;
    fn marks(&self) -> Option<((usize, usize), Level)> {
        Some((self.watermarks(), self.level()))
    }
);
forward!(sluicegate::mpmc::cs::Ring<Item, N>);
forward!(
    sluicegate::mpmc::cs::Ring<Item, N, sluicegate::mpmc::cs::Marked>;
    fn marks(&self) -> Option<((usize, usize), Level)> {
        Some((self.watermarks(), self.level()))
    }
);

#[derive(Default)]
struct Model {
    items: VecDeque<u64>,
    rejected: usize,
    overwritten: usize,
    expired: usize,
    next: u64,
    closed: bool,
}

impl Model {
    fn overwrite<R: Mpmc>(&mut self, ring: &R) {
        self.next += 1;
        if self.closed {
            let back = ring.push_overwrite(Item::new(self.next));
            assert!(matches!(back, Overwritten::Rejected(_)));
            assert_eq!(back.into_item().map(Item::take), Some(self.next));
            return;
        }
        let got = ring
            .push_overwrite(Item::new(self.next))
            .into_item()
            .map(Item::take);
        if self.items.len() < R::N {
            assert_eq!(got, None);
        } else {
            // Sequentially nobody holds a slot: the oldest is evicted.
            assert_eq!(got, self.items.pop_front());
            self.overwritten += 1;
        }
        self.items.push_back(self.next);
    }

    /// One pop: `try_pop` on an open ring, `try_pop_or_closed` on a closed
    /// one (which also answers "closed and drained" exactly when the model
    /// is empty). `try_pop_or_closed` on an open ring answers `Empty` when
    /// there is none.
    fn pop<R: Mpmc>(&mut self, ring: &R) {
        if self.closed {
            match ring.try_pop_or_closed() {
                Ok(item) => assert_eq!(Some(item.take()), self.items.pop_front()),
                Err(e) => {
                    assert_eq!(e, TryPopError::Closed);
                    assert!(self.items.is_empty());
                }
            }
        } else if self.items.is_empty() {
            assert_eq!(
                ring.try_pop_or_closed().map(Item::take),
                Err(TryPopError::Empty)
            );
        } else {
            assert_eq!(ring.try_pop().map(Item::take), self.items.pop_front());
        }
    }

    fn step<R: Mpmc>(&mut self, ring: &R, op: &Op) {
        let cap = R::N;
        match *op {
            Op::PushBlocking => {
                if self.items.len() < cap || self.closed {
                    self.next += 1;
                    match ring.push_blocking(Item::new(self.next)) {
                        Ok(()) => {
                            assert!(!self.closed);
                            self.items.push_back(self.next);
                        }
                        Err(closed) => {
                            assert!(self.closed);
                            assert_eq!(closed.into_inner().take(), self.next);
                        }
                    }
                }
            }
            Op::PopBlocking => {
                if !self.items.is_empty() || self.closed {
                    assert_eq!(ring.pop_blocking().map(Item::take), self.items.pop_front());
                }
            }
            Op::Push => {
                self.next += 1;
                match ring.try_push(Item::new(self.next)) {
                    Ok(()) => {
                        assert!(self.items.len() < cap && !self.closed);
                        self.items.push_back(self.next);
                    }
                    Err(e) => {
                        assert_eq!(e.is_closed(), self.closed);
                        assert!(self.closed || self.items.len() == cap);
                        assert_eq!(e.into_inner().take(), self.next);
                        self.rejected += usize::from(!self.closed);
                    }
                }
            }
            Op::PushIter(n) => {
                let base = self.next;
                let pushed = ring.push_iter((1..=u64::from(n)).map(|k| Item::new(base + k)));
                let room = if self.closed {
                    0
                } else {
                    cap - self.items.len()
                };
                assert_eq!(pushed, usize::from(n).min(room));
                self.items.extend(base + 1..=base + pushed as u64);
                self.next = base + pushed as u64;
            }
            Op::DrainAll => {
                let got: Vec<u64> = ring.drain().map(Item::take).collect();
                assert_eq!(got, self.items.drain(..).collect::<Vec<_>>());
            }
            Op::Clear => clear_checked(&mut self.items, || ring.clear()),
            Op::Close => {
                assert_eq!(ring.close(), !self.closed);
                self.closed = true;
            }
            Op::PopFresh(below) => {
                let below = u64::from(below % 5);
                let mut gone = Vec::new();
                let got = ring.try_pop_fresh_with(
                    |it: &Item| it.value() % 5 < below,
                    |it| gone.push(it.take()),
                );
                // At most `N` discards, each counted and handed over.
                let (mut want, mut want_gone) = (None, Vec::new());
                for _ in 0..cap {
                    match self.items.pop_front() {
                        None => break,
                        Some(v) if v % 5 < below => want_gone.push(v),
                        Some(v) => {
                            want = Some(v);
                            break;
                        }
                    }
                }
                assert_eq!(got.map(Item::take), want);
                assert_eq!(gone, want_gone);
                self.expired += want_gone.len();
            }
            Op::PushOverwrite => self.overwrite(ring),
            Op::Pop => self.pop(ring),
            Op::Drain(n) => {
                for _ in 0..n % (2 * cap as u8 + 2) {
                    self.pop(ring);
                }
            }
            Op::Flood(n) => {
                for _ in 0..n % (3 * cap as u8 + 2) {
                    self.overwrite(ring);
                }
            }
        }
    }
}

/// Runs `ops` on `ring` (new, at any starting position) against the model,
/// checking after every step what no operation in progress leaves exact:
/// the closed flag, the counters, `len`, `is_empty`, `is_full` (closed or
/// not) and the high-water mark (exact where every pop samples the length
/// or the ring filled, else within one sampling period). Then drops the
/// ring, which must free what is left, all of it even if an item panics.
pub fn run<R: Mpmc>(ring: R, ops: &[Op]) {
    let mut m = Model::default();
    let mut max_len = 0usize;
    // The watermarks' model: every step moves the length one way only, so
    // the level after it depends on where the length ended.
    let (mut level, mut transitions) = (Level::Normal, 0);
    for op in ops {
        let before = m.items.len();
        m.step(&ring, op);
        max_len = max_len.max(m.items.len());
        let stats = ring.stats();
        let len = m.items.len();
        match ring.marks() {
            Some(((low, high), got)) => {
                let next = match level {
                    Level::Normal if len > before && len >= high => Level::High,
                    Level::High if len < before && len <= low => Level::Normal,
                    same => same,
                };
                transitions += usize::from(next != level);
                level = next;
                assert_eq!(got, level, "{op:?}: len {before} -> {len}");
                assert_eq!(stats.transitions, transitions);
            }
            None => assert_eq!(stats.transitions, 0),
        }
        assert_eq!(ring.len(), m.items.len());
        assert_eq!(ring.is_empty(), m.items.is_empty());
        assert_eq!(ring.is_full(), m.items.len() == R::N);
        // Exact, whatever the sampling period: this loop reads the stats
        // after every step, and a read keeps the length it counts, so the
        // mark never goes down below a length it was read at.
        assert_eq!(stats.peak, max_len);
        assert_eq!(ring.is_closed(), m.closed);
        assert_eq!(stats.rejected, m.rejected);
        assert_eq!(stats.overwritten, m.overwritten);
        assert_eq!(stats.expired, m.expired);
    }
    drop_checked(ring, &m.items);
}
