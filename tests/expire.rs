//! Expiry on every ring with counters: `try_pop_fresh(_with)` and
//! `pop_burst_fresh` against a `VecDeque` model (which items come out, which
//! are discarded, and `RingStats::expired`), the per-call bound, a panicking
//! discard, and MPMC threads with exact accounting (every item pushed is
//! popped fresh, discarded and counted, or still in the ring).
#![cfg(not(sluicegate_loom))]

#[path = "common/splitmix.rs"]
mod splitmix;

use sluicegate::expire::{Expiry, OlderThan, Stamp};
use sluicegate::mpmc::burst_ring::BurstRing;
use sluicegate::mpmc::{FreeBits, FreeMask, Ring, SmallRing};
use sluicegate::spsc::{self, Overwrite};
use sluicegate::RingStats;
use splitmix::Rng as SplitMix64;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;

type Item = Stamp<u32>;

/// What every ring kind offers for expiry, for one test body.
trait Fresh {
    const N: usize;
    fn push(&mut self, item: Item) -> bool;
    fn pop_fresh_with(&mut self, check: OlderThan, on: &mut dyn FnMut(Item)) -> Option<Item>;
    fn pop_burst_fresh<E: Expiry<Item>>(&mut self, out: &mut [Item], check: E) -> usize;
    fn stats(&self) -> RingStats;
}

macro_rules! fresh_mpmc {
    ($ty:ty, $n:expr) => {
        impl Fresh for $ty {
            const N: usize = $n;
            fn push(&mut self, item: Item) -> bool {
                self.try_push(item).is_ok()
            }
            fn pop_fresh_with(
                &mut self,
                check: OlderThan,
                on: &mut dyn FnMut(Item),
            ) -> Option<Item> {
                self.try_pop_fresh_with(check, on)
            }
            fn pop_burst_fresh<E: Expiry<Item>>(&mut self, out: &mut [Item], check: E) -> usize {
                <$ty>::pop_burst_fresh(self, out, check)
            }
            fn stats(&self) -> RingStats {
                <$ty>::stats(self)
            }
        }
    };
}

fresh_mpmc!(Ring<Item, 8>, 8);
fresh_mpmc!(Ring<Item, 4, FreeMask>, 4);
fresh_mpmc!(Ring<Item, 64, FreeBits<2>>, 64);
fresh_mpmc!(SmallRing<Item, 16>, 16);
#[cfg(feature = "critical-section")]
fresh_mpmc!(sluicegate::mpmc::cs::Ring<Item, 8>, 8);

impl Fresh for BurstRing<Item, 8, 1> {
    const N: usize = 8;
    fn push(&mut self, item: Item) -> bool {
        self.try_push(item).is_ok()
    }
    fn pop_fresh_with(&mut self, check: OlderThan, on: &mut dyn FnMut(Item)) -> Option<Item> {
        self.try_pop_fresh_with(check, on).ok()
    }
    fn pop_burst_fresh<E: Expiry<Item>>(&mut self, out: &mut [Item], check: E) -> usize {
        BurstRing::pop_burst_fresh(self, out, check).count
    }
    fn stats(&self) -> RingStats {
        BurstRing::stats(self)
    }
}

/// An SPSC ring's two handles.
struct Spsc<'a, P: spsc::Policy, const N: usize> {
    tx: spsc::Producer<'a, Item, N, P>,
    rx: spsc::Consumer<'a, Item, N, P>,
}

impl<P: spsc::Policy, const N: usize> Fresh for Spsc<'_, P, N> {
    const N: usize = N;
    fn push(&mut self, item: Item) -> bool {
        self.tx.try_push(item).is_ok()
    }
    fn pop_fresh_with(&mut self, check: OlderThan, on: &mut dyn FnMut(Item)) -> Option<Item> {
        self.rx.try_pop_fresh_with(check, on)
    }
    fn pop_burst_fresh<E: Expiry<Item>>(&mut self, out: &mut [Item], check: E) -> usize {
        self.rx.pop_burst_fresh(out, check)
    }
    fn stats(&self) -> RingStats {
        self.rx.stats()
    }
}

/// Random pushes stamped with a clock that moves in random steps, random
/// single and burst fresh pops, against a model: the same items come out,
/// the same are discarded, and `expired` counts them; at the end every item
/// pushed is accounted for exactly once.
fn matches_model<R: Fresh>(mut ring: R, seed: u64) {
    let mut rng = SplitMix64(seed);
    let mut model: VecDeque<Item> = VecDeque::new();
    // Start near the clock's wrap, so ages are taken across it.
    let mut now: u32 = u32::MAX - 5_000;
    let (mut pushed, mut popped, mut discarded) = (0usize, 0usize, 0usize);
    let steps = if cfg!(miri) { 600 } else { 20_000 };
    for step in 0..steps {
        now = now.wrapping_add(rng.below(8) as u32);
        let budget = rng.below(40) as u32;
        let check = OlderThan { now, budget };
        let expired = |s: &Item| {
            let age = now.wrapping_sub(s.at);
            age > budget && age < 1 << 31
        };
        match rng.below(4) {
            0 | 1 => {
                // Stamps up to 20 ticks old, sometimes one from the future.
                let at = now.wrapping_sub(rng.below(24) as u32).wrapping_add(3);
                let item = Stamp { at, item: step };
                let fits = model.len() < R::N;
                assert_eq!(ring.push(item), fits, "step {step}: push");
                if fits {
                    model.push_back(item);
                    pushed += 1;
                }
            }
            2 => {
                let mut gone = Vec::new();
                let got = ring.pop_fresh_with(check, &mut |s| gone.push(s));
                let mut want_gone = Vec::new();
                let mut want = None;
                while want_gone.len() < R::N {
                    match model.pop_front() {
                        Some(s) if expired(&s) => want_gone.push(s),
                        other => {
                            want = other;
                            break;
                        }
                    }
                }
                assert_eq!((got, &gone), (want, &want_gone), "step {step}: pop");
                popped += usize::from(got.is_some());
                discarded += gone.len();
            }
            _ => {
                let mut out = [Stamp::default(); 5];
                let len = 1 + rng.below(5) as usize;
                let kept = ring.pop_burst_fresh(&mut out[..len], check);
                let mut want = Vec::new();
                let mut dropped = 0;
                while want.len() < len && dropped < R::N {
                    match model.pop_front() {
                        Some(s) if expired(&s) => dropped += 1,
                        Some(s) => want.push(s),
                        None => break,
                    }
                }
                assert_eq!(&out[..kept], &want[..], "step {step}: burst");
                popped += kept;
                discarded += dropped;
            }
        }
        assert_eq!(ring.stats().expired, discarded, "step {step}: count");
    }
    let mut rest = 0;
    while ring
        .pop_fresh_with(
            OlderThan {
                now,
                budget: u32::MAX >> 1,
            },
            &mut |_| panic!("nothing has expired with this budget"),
        )
        .is_some()
    {
        rest += 1;
    }
    assert_eq!(rest, model.len());
    assert_eq!(pushed, popped + discarded + rest, "every item once");
    assert!(
        discarded > steps as usize / 20 && popped > steps as usize / 20,
        "both paths taken"
    );
}

#[test]
fn fresh_pops_match_a_model_on_every_ring() {
    let seeds = if cfg!(miri) { 1 } else { 4 };
    for seed in 0..seeds {
        matches_model(Ring::<Item, 8>::new(), seed);
        matches_model(Ring::<Item, 4, FreeMask>::new(), seed);
        matches_model(Ring::<Item, 64, FreeBits<2>>::new(), seed);
        matches_model(SmallRing::<Item, 16>::new(), seed);
        #[cfg(feature = "critical-section")]
        matches_model(sluicegate::mpmc::cs::Ring::<Item, 8>::new(), seed);
        matches_model(BurstRing::<Item, 8, 1>::new(), seed);
        let mut reject: spsc::Ring<Item, 8> = spsc::Ring::new();
        let (tx, rx) = reject.split();
        matches_model(Spsc { tx, rx }, seed);
        let mut overwrite: spsc::Ring<Item, 4, Overwrite> = spsc::Ring::new();
        let (tx, rx) = overwrite.split();
        matches_model(Spsc { tx, rx }, seed);
    }
}

/// A call discards at most `N` items, even when every discard brings a new
/// expired item (here the discard closure pushes one): the call returns and
/// says so, instead of running for as long as expired items arrive.
#[test]
fn a_call_discards_at_most_n() {
    let ring: Ring<u32, 4> = Ring::new();
    ring.push_iter([0, 0, 0, 0]);
    let fresh = ring.try_pop_fresh_with(|x: &u32| *x == 0, |x| ring.try_push(x).unwrap());
    assert_eq!(fresh, None);
    assert_eq!(ring.stats().expired, 4);
    assert_eq!(ring.len(), 4, "each discard pushed one back");

    let burst: BurstRing<u32, 4, 1> = BurstRing::new();
    burst.push_burst(&[0; 4]);
    let mut out = [9; 8];
    let moved = burst.pop_burst_fresh(&mut out, |x: &u32| *x == 0);
    assert_eq!(moved.count, 0);
    assert_eq!(burst.stats().expired, 4);
}

/// A panicking discard (or `Drop`) leaves the count right: each item is
/// counted before it is handed over, and nothing else is lost.
#[test]
fn a_panicking_discard_leaves_the_count_right() {
    let ring: Ring<u32, 4> = Ring::new();
    ring.push_iter([1, 2, 30]);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ring.try_pop_fresh_with(
            |x: &u32| *x < 10,
            |x| {
                if x == 2 {
                    panic!("discard failed")
                }
            },
        )
    }));
    assert!(r.is_err());
    assert_eq!(ring.stats().expired, 2, "1 and 2 were discarded");
    assert_eq!(ring.try_pop(), Some(30));

    /// Panics when dropped while armed.
    struct Bomb(bool);
    impl Drop for Bomb {
        fn drop(&mut self) {
            if self.0 {
                panic!("drop failed")
            }
        }
    }
    let bombs: Ring<Bomb, 2> = Ring::new();
    bombs.try_push(Bomb(true)).ok().unwrap();
    bombs.try_push(Bomb(false)).ok().unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        bombs.try_pop_fresh(|b: &Bomb| b.0)
    }));
    assert!(r.is_err());
    assert_eq!(bombs.stats().expired, 1);
    assert_eq!(bombs.len(), 1);
}

/// A check that panics in the middle of a burst: the call's other items,
/// which the panic keeps from the caller (kept, judged expired, or not yet
/// judged), count as expired; the item whose check panicked is lost with
/// the panic (counted as nothing, as in the single form); the ring is left
/// consistent.
fn a_panicking_check_in_a_burst<R: Fresh>(mut ring: R) {
    let mut out = [Stamp { at: 0, item: 0 }; 8];
    panics_on_500(&mut ring, &mut out);
    assert_eq!(ring.stats().expired, 5, "all but 500, whose check panicked");
    // The ring still works, and its count is right.
    assert!(ring.push(Stamp { at: 0, item: 800 }));
    let got = ring.pop_fresh_with(OlderThan { now: 0, budget: 10 }, &mut |_| panic!("fresh"));
    assert_eq!(got.map(|s| s.item), Some(800));
    assert_eq!(ring.stats().expired, 5);

    // Bursts of one and two: 200, kept in the first, is lost with the panic
    // in the third and counted; 600 and 700 were never popped.
    panics_on_500(&mut ring, &mut out[..2]);
    assert_eq!(
        ring.stats().expired,
        5 + 3,
        "1, 2, and 200 kept before the panic"
    );
    let mut rest = [Stamp { at: 0, item: 0 }; 4];
    let n = ring.pop_burst_fresh(&mut rest, OlderThan { now: 0, budget: 10 });
    assert_eq!(
        rest[..n].iter().map(|s| s.item).collect::<Vec<_>>(),
        [600, 700]
    );
}

/// Pushes 1, 200, 2, 500, 600 and 700 and pops them fresh in bursts into
/// `out`, with a check (below 100: expired) that panics on its fourth
/// call, the one for 500.
fn panics_on_500<R: Fresh>(ring: &mut R, out: &mut [Item]) {
    for v in [1, 200, 2, 500, 600, 700] {
        assert!(ring.push(Stamp { at: 0, item: v }));
    }
    let mut calls = 0;
    let check = |s: &Item| {
        calls += 1;
        if calls == 4 {
            panic!("check failed");
        }
        s.item < 100
    };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ring.pop_burst_fresh(out, check)
    }));
    assert!(r.is_err());
}

#[test]
fn a_panicking_check_in_a_burst_is_counted() {
    a_panicking_check_in_a_burst(Ring::<Item, 8>::new());
    a_panicking_check_in_a_burst(SmallRing::<Item, 16>::new());
    #[cfg(feature = "critical-section")]
    a_panicking_check_in_a_burst(sluicegate::mpmc::cs::Ring::<Item, 8>::new());
    a_panicking_check_in_a_burst(BurstRing::<Item, 8, 1>::new());
    let mut reject: spsc::Ring<Item, 8> = spsc::Ring::new();
    let (tx, rx) = reject.split();
    a_panicking_check_in_a_burst(Spsc { tx, rx });
    let mut overwrite: spsc::Ring<Item, 8, Overwrite> = spsc::Ring::new();
    let (tx, rx) = overwrite.split();
    a_panicking_check_in_a_burst(Spsc { tx, rx });
}

/// Four producers stamp items with a shared clock while four consumers pop
/// fresh ones with a budget; a slow consumer lets items expire. Every item
/// is exactly once popped fresh, discarded (handed to the closure and
/// counted), or left in the ring, and a fresh item was within its budget
/// when it was popped.
fn threads<R, F>(ring: Arc<R>, pop: F)
where
    R: Send + Sync + 'static,
    F: Fn(&R, OlderThan, &mut dyn FnMut(Item)) -> Option<Item> + Send + Sync + Copy + 'static,
    R: PushStamp,
{
    const P: usize = 4;
    let per = if cfg!(miri) { 20 } else { 50_000 };
    let clock = Arc::new(AtomicU32::new(0));
    let seen: Arc<Vec<AtomicBool>> =
        Arc::new((0..P * per).map(|_| AtomicBool::new(false)).collect());
    let done = Arc::new(AtomicUsize::new(0));
    let discarded = Arc::new(AtomicUsize::new(0));
    let mark = |seen: &[AtomicBool], s: Item| {
        assert!(
            !seen[s.item as usize].swap(true, Ordering::Relaxed),
            "twice: {}",
            s.item
        )
    };
    let mut hs = Vec::new();
    for p in 0..P {
        let (ring, clock, done) = (ring.clone(), clock.clone(), done.clone());
        hs.push(thread::spawn(move || {
            for k in 0..per {
                let at = clock.fetch_add(1, Ordering::Relaxed);
                let mut s = Stamp {
                    at,
                    item: (p * per + k) as u32,
                };
                while let Err(back) = ring.push_stamp(s) {
                    s = back;
                    thread::yield_now();
                }
            }
            done.fetch_add(1, Ordering::Release);
        }));
    }
    for c in 0..4 {
        let (ring, clock, done, seen, discarded) = (
            ring.clone(),
            clock.clone(),
            done.clone(),
            seen.clone(),
            discarded.clone(),
        );
        hs.push(thread::spawn(move || loop {
            let finished = done.load(Ordering::Acquire) == P;
            let now = clock.load(Ordering::Relaxed);
            let check = OlderThan { now, budget: 64 };
            let got = pop(&ring, check, &mut |s| {
                let age = now.wrapping_sub(s.at);
                assert!(age > 64 && age < 1 << 31, "discarded at age {age}");
                mark(&seen, s);
                discarded.fetch_add(1, Ordering::Relaxed);
            });
            match got {
                Some(s) => {
                    assert!(now.wrapping_sub(s.at) <= 64 || now.wrapping_sub(s.at) >= 1 << 31);
                    mark(&seen, s);
                    if c == 0 {
                        // The slow consumer.
                        thread::yield_now();
                    }
                }
                None if finished => break,
                None => thread::yield_now(),
            }
        }));
    }
    for h in hs {
        h.join().unwrap();
    }
    let missing = seen.iter().filter(|b| !b.load(Ordering::Relaxed)).count();
    assert_eq!(missing, 0, "every item popped or discarded");
    assert_eq!(ring.expired(), discarded.load(Ordering::Relaxed));
}

/// A push of a stamped item and the ring's expired count, for `threads`.
trait PushStamp {
    fn push_stamp(&self, s: Item) -> Result<(), Item>;
    fn expired(&self) -> usize;
}

impl<const N: usize> PushStamp for Ring<Item, N> {
    fn push_stamp(&self, s: Item) -> Result<(), Item> {
        self.try_push(s).map_err(|e| e.into_inner())
    }
    fn expired(&self) -> usize {
        self.stats().expired
    }
}

impl<const N: usize> PushStamp for BurstRing<Item, N, 1> {
    fn push_stamp(&self, s: Item) -> Result<(), Item> {
        self.try_push(s).map_err(|e| match e {
            sluicegate::mpmc::burst_ring::PushError::Full(s)
            | sluicegate::mpmc::burst_ring::PushError::Busy(s)
            | sluicegate::mpmc::burst_ring::PushError::Closed(s) => s,
        })
    }
    fn expired(&self) -> usize {
        self.stats().expired
    }
}

#[test]
fn threads_account_for_every_item() {
    threads(Arc::new(Ring::<Item, 16>::new()), |r, c, on| {
        r.try_pop_fresh_with(c, on)
    });
    threads(Arc::new(BurstRing::<Item, 16, 1>::new()), |r, c, on| {
        r.try_pop_fresh_with(c, on).ok()
    });
}

/// The async form discards, counts, and ends with the ring.
#[cfg(feature = "async")]
#[test]
fn async_pop_fresh_discards_and_ends_with_the_close() {
    let ring: Ring<u32, 4> = Ring::new();
    ring.push_iter([1, 2, 50]);
    assert_eq!(
        pollster::block_on(ring.pop_fresh(|x: &u32| *x < 10)),
        Some(50)
    );
    assert_eq!(ring.stats().expired, 2);
    ring.try_push(3).unwrap();
    ring.close();
    assert_eq!(pollster::block_on(ring.pop_fresh(|x: &u32| *x < 10)), None);
    assert_eq!(ring.stats().expired, 3);

    // Across more than `N` discards in one call (it yields between runs).
    let feed: Arc<Ring<u32, 2>> = Arc::new(Ring::new());
    let tx = {
        let feed = feed.clone();
        thread::spawn(move || {
            for x in [0, 0, 0, 0, 0, 7] {
                feed.push_blocking(x).unwrap();
            }
        })
    };
    assert_eq!(
        pollster::block_on(feed.pop_fresh(|x: &u32| *x == 0)),
        Some(7)
    );
    tx.join().unwrap();
    assert_eq!(feed.stats().expired, 5);

    let mut spsc: spsc::Ring<u32, 4> = spsc::Ring::new();
    let (mut tx, mut rx) = spsc.split();
    tx.push_iter([1, 60]);
    drop(tx);
    assert_eq!(
        pollster::block_on(rx.pop_fresh(|x: &u32| *x < 10)),
        Some(60)
    );
    assert_eq!(pollster::block_on(rx.pop_fresh(|x: &u32| *x < 10)), None);
    assert_eq!(rx.stats().expired, 1);
}
