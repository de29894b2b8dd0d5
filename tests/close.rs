//! Closing the MPMC rings (`mpmc::Ring`, and `mpmc::cs::Ring` with the
//! `critical-section` feature): single-threaded behaviour, then real threads
//! with exact accounting. Every item a producer tried to push is, exactly
//! once, popped, evicted and handed back, or refused by the close and handed
//! back; a push that starts after the close is seen is refused; once a pop
//! says "closed and drained", nothing is ever popped again.
#![cfg(not(sluicegate_loom))]

use sluicegate::{Closed, Overwritten, TryPopError, TryPushError};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

/// The operations both rings share.
trait Closable<T>: Sync {
    fn try_push(&self, item: T) -> Result<(), TryPushError<T>>;
    fn push_overwrite(&self, item: T) -> Overwritten<T>;
    fn push_blocking(&self, item: T) -> Result<(), Closed<T>>;
    fn try_pop(&self) -> Option<T>;
    fn try_pop_or_closed(&self) -> Result<T, TryPopError>;
    fn pop_blocking(&self) -> Option<T>;
    fn close(&self) -> bool;
    fn is_closed(&self) -> bool;
    fn len(&self) -> usize;
}

macro_rules! closable {
    ($($ring:ident)::+) => {
        impl<T: Send, const N: usize> Closable<T> for $($ring)::+<T, N> {
            fn try_push(&self, item: T) -> Result<(), TryPushError<T>> { Self::try_push(self, item) }
            fn push_overwrite(&self, item: T) -> Overwritten<T> { Self::push_overwrite(self, item) }
            fn push_blocking(&self, item: T) -> Result<(), Closed<T>> { Self::push_blocking(self, item) }
            fn try_pop(&self) -> Option<T> { Self::try_pop(self) }
            fn try_pop_or_closed(&self) -> Result<T, TryPopError> { Self::try_pop_or_closed(self) }
            fn pop_blocking(&self) -> Option<T> { Self::pop_blocking(self) }
            fn close(&self) -> bool { Self::close(self) }
            fn is_closed(&self) -> bool { Self::is_closed(self) }
            fn len(&self) -> usize { Self::len(self) }
        }
    };
}
closable!(sluicegate::mpmc::Ring);
#[cfg(feature = "critical-section")]
closable!(sluicegate::mpmc::cs::Ring);

fn behaviour(ring: &impl Closable<u32>, n: u32) {
    for i in 0..n {
        ring.try_push(i).unwrap();
    }
    assert_eq!(ring.try_push(99), Err(TryPushError::Full(99)));
    assert_eq!(ring.try_pop_or_closed(), Ok(0));
    assert!(!ring.is_closed());
    assert!(ring.close());
    assert!(
        !ring.close(),
        "a second close reports it was closed already"
    );
    assert!(ring.is_closed());
    // Every kind of push now hands its item back.
    assert_eq!(ring.try_push(100), Err(TryPushError::Closed(100)));
    assert_eq!(ring.push_blocking(101), Err(Closed(101)));
    assert_eq!(ring.push_overwrite(102), Overwritten::Rejected(102));
    // What was inside drains in order, then "closed" for ever.
    for i in 1..n {
        assert_eq!(ring.pop_blocking(), Some(i));
    }
    for _ in 0..3 {
        assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
        assert_eq!(ring.pop_blocking(), None);
        assert_eq!(ring.try_pop(), None);
    }
    assert_eq!(ring.len(), 0);
}

#[test]
fn close_refuses_pushes_and_drains_scq() {
    behaviour(&sluicegate::mpmc::Ring::<u32, 4>::new(), 4);
    behaviour(&sluicegate::mpmc::Ring::<u32, 1>::new(), 1);
    // Positions near the wrap of the counters.
    behaviour(
        &sluicegate::mpmc::Ring::<u32, 4>::with_start(usize::MAX - 3),
        4,
    );
}

#[test]
#[cfg(feature = "critical-section")]
fn close_refuses_pushes_and_drains_cs() {
    behaviour(&sluicegate::mpmc::cs::Ring::<u32, 4>::new(), 4);
    behaviour(&sluicegate::mpmc::cs::Ring::<u32, 1>::new(), 1);
}

/// Many refused pushes leave unused positions in the SCQ index ring, more
/// than its `3N-1` threshold; the items behind them still come out, and the
/// ring still reports "closed and drained" afterwards.
#[test]
fn refused_pushes_do_not_hide_items() {
    let ring = sluicegate::mpmc::Ring::<u32, 2>::new();
    ring.try_push(1).unwrap();
    ring.close();
    for i in 0..50 {
        assert_eq!(ring.try_push(i), Err(TryPushError::Closed(i)));
    }
    assert_eq!(ring.try_pop_or_closed(), Ok(1));
    assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
}

/// What the observers say about a closed ring, for every MPMC ring kind:
/// one push as each kind of refused push would make it, and the answers
/// of `len`, `free_slots`, `is_full` and `stats().peak`.
trait Observed {
    /// A push the close refuses, in one of the ring's ways (`how`).
    fn refused_push(&self, how: usize, item: u32);
    fn push(&self, item: u32);
    fn pop(&self) -> Option<u32>;
    fn close(&self);
    fn drained(&self) -> bool;
    /// `(len, free_slots, is_full, stats().peak)`.
    fn seen(&self) -> (usize, usize, bool, usize);
}

macro_rules! observed_scq {
    ($ring:ty) => {
        impl Observed for $ring {
            fn refused_push(&self, how: usize, item: u32) {
                match how % 4 {
                    0 => assert_eq!(self.try_push(item), Err(TryPushError::Closed(item))),
                    1 => assert_eq!(self.push_blocking(item), Err(Closed(item))),
                    2 => assert_eq!(self.push_overwrite(item), Overwritten::Rejected(item)),
                    _ => assert_eq!(self.push_burst(&[item, item, item]), 0),
                }
            }
            fn push(&self, item: u32) {
                self.try_push(item).unwrap();
            }
            fn pop(&self) -> Option<u32> {
                self.try_pop()
            }
            fn close(&self) {
                assert!(<$ring>::close(self));
            }
            fn drained(&self) -> bool {
                self.try_pop_or_closed() == Err(TryPopError::Closed)
            }
            fn seen(&self) -> (usize, usize, bool, usize) {
                (
                    self.len(),
                    self.free_slots(),
                    self.is_full(),
                    self.stats().peak,
                )
            }
        }
    };
}
observed_scq!(sluicegate::mpmc::Ring<u32, 4>);
observed_scq!(sluicegate::mpmc::Ring<u32, 128>);
observed_scq!(sluicegate::mpmc::SmallRing<u32, 4>);
observed_scq!(sluicegate::mpmc::Ring<u32, 64, sluicegate::mpmc::FreeBits<2>>);
#[cfg(feature = "critical-section")]
observed_scq!(sluicegate::mpmc::cs::Ring<u32, 4>);

macro_rules! observed_burst {
    ($ring:ty) => {
        impl Observed for $ring {
            fn refused_push(&self, how: usize, item: u32) {
                use sluicegate::mpmc::burst_ring::PushError;
                match how % 3 {
                    0 => assert_eq!(self.try_push(item), Err(PushError::Closed(item))),
                    1 => assert_eq!(self.push_overwrite(item), Err(PushError::Closed(item))),
                    _ => assert_eq!(self.push_burst(&[item, item, item]).count, 0),
                }
            }
            fn push(&self, item: u32) {
                self.try_push(item).unwrap();
            }
            fn pop(&self) -> Option<u32> {
                self.try_pop().ok()
            }
            fn close(&self) {
                assert!(<$ring>::close(self));
            }
            fn drained(&self) -> bool {
                self.is_drained()
            }
            fn seen(&self) -> (usize, usize, bool, usize) {
                (
                    self.len(),
                    self.free_slots(),
                    self.is_full(),
                    self.stats().peak,
                )
            }
        }
    };
}
observed_burst!(sluicegate::mpmc::BurstRing<u32, 4, 1>);
observed_burst!(sluicegate::mpmc::BurstRing<u32, 128, 4>);

/// `n` items in a ring of `cap`, closed, then `refused` pushes of every
/// kind: the observers count the items alone, the high-water mark stays at
/// `n`, and popping them counts down to 0 (not to the refused pushes).
fn exact_after_close<R: Observed>(ring: &R, cap: usize, n: usize, refused: usize) {
    let kind = std::any::type_name::<R>();
    for i in 0..n {
        ring.push(i as u32);
    }
    ring.close();
    for k in 0..refused {
        ring.refused_push(k, 1000 + k as u32);
        assert_eq!(
            ring.seen(),
            (n, cap - n, n == cap, n),
            "{kind}, {n} items: after {} refused pushes",
            k + 1
        );
    }
    for i in 0..n {
        assert_eq!(ring.pop(), Some(i as u32));
        let left = n - i - 1;
        let (len, free, full, peak) = ring.seen();
        assert_eq!(
            (len, free, full),
            (left, cap - left, false),
            "{kind}, {n} items: after pop {}",
            i + 1
        );
        // Pops sample the length at one position in K (the documented
        // slack), never above the most items there were.
        assert!(
            (left..=n).contains(&peak),
            "{kind}, {n} items: peak {peak} after pop {}",
            i + 1
        );
    }
    assert!(ring.drained());
    let (len, free, full, peak) = ring.seen();
    assert_eq!((len, free, full), (0, cap, false));
    assert!(peak <= n, "{kind}, {n} items: peak {peak} once drained");
}

#[test]
fn observers_are_exact_after_a_close() {
    // The most refusals: more than twice the largest ring's positions, or
    // under Miri (which checks every observer call) just over once.
    let most = if cfg!(miri) { 130 } else { 300 };
    for refused in [1, 3, 7, 20, most] {
        exact_after_close(&sluicegate::mpmc::Ring::<u32, 4>::new(), 4, 3, refused);
        exact_after_close(&sluicegate::mpmc::SmallRing::<u32, 4>::new(), 4, 3, refused);
        exact_after_close(
            &sluicegate::mpmc::BurstRing::<u32, 4, 1>::new(),
            4,
            3,
            refused,
        );
        #[cfg(feature = "critical-section")]
        exact_after_close(&sluicegate::mpmc::cs::Ring::<u32, 4>::new(), 4, 3, refused);
        for n in [0, 1, 4] {
            exact_after_close(&sluicegate::mpmc::Ring::<u32, 4>::new(), 4, n, refused);
            exact_after_close(
                &sluicegate::mpmc::BurstRing::<u32, 4, 1>::new(),
                4,
                n,
                refused,
            );
        }
        for n in [1, 5, 65, 127] {
            exact_after_close(&sluicegate::mpmc::Ring::<u32, 128>::new(), 128, n, refused);
            exact_after_close(
                &sluicegate::mpmc::BurstRing::<u32, 128, 4>::new(),
                128,
                n,
                refused,
            );
        }
        let bits = sluicegate::mpmc::Ring::<u32, 64, sluicegate::mpmc::FreeBits<2>>::new();
        exact_after_close(&bits, 64, 40, refused);
    }
}

/// Items left in a closed ring are dropped with it, exactly once.
#[test]
fn closed_ring_drops_what_is_left() {
    let drops = std::sync::Arc::new(AtomicUsize::new(0));
    struct D(std::sync::Arc<AtomicUsize>);
    impl Drop for D {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
    {
        let ring = sluicegate::mpmc::Ring::<D, 4>::new();
        for _ in 0..3 {
            assert!(ring.try_push(D(drops.clone())).is_ok());
        }
        ring.close();
        for _ in 0..20 {
            // Refused: handed back and dropped here.
            drop(ring.try_push(D(drops.clone())).unwrap_err().into_inner());
        }
        assert_eq!(drops.load(Ordering::Relaxed), 20);
    }
    assert_eq!(drops.load(Ordering::Relaxed), 23);
}

const PRODUCERS: usize = 3;
const CONSUMERS: usize = 3;

fn per_producer() -> usize {
    if cfg!(miri) {
        40
    } else if cfg!(debug_assertions) {
        4_000
    } else {
        20_000
    }
}

/// One flag per item: set once when the item leaves by any route.
struct Ledger {
    seen: Vec<AtomicBool>,
    m: usize,
}

impl Ledger {
    fn mark(&self, v: u64) {
        let (p, s) = ((v >> 32) as usize, (v & 0xffff_ffff) as usize);
        assert!(p < PRODUCERS && s < self.m, "corrupt item {v:#x}");
        assert!(
            !self.seen[p * self.m + s].swap(true, Ordering::Relaxed),
            "duplicate item {v:#x}"
        );
    }
}

/// Producers push (one with `try_push`, one with `push_blocking`, one with
/// `push_overwrite`) until the close refuses them; consumers pop with
/// `pop_blocking` until it says "closed and drained"; the main thread closes
/// after `close_after` items came out (or once every producer is done).
fn stress<R: Closable<u64>>(ring: &R, close_after: usize) {
    let m = per_producer();
    let ledger = Ledger {
        seen: (0..PRODUCERS * m).map(|_| AtomicBool::new(false)).collect(),
        m,
    };
    let (out, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let tried: Vec<AtomicUsize> = (0..PRODUCERS).map(|_| AtomicUsize::new(0)).collect();
    let (ledger, out, done, tried) = (&ledger, &out, &done, &tried);
    let popped = thread::scope(|s| {
        for (p, tried) in tried.iter().enumerate() {
            s.spawn(move || {
                for seq in 0..m {
                    let v = ((p as u64) << 32) | seq as u64;
                    tried.store(seq + 1, Ordering::Relaxed);
                    let closed_before = ring.is_closed();
                    let refused = match p % 3 {
                        0 => loop {
                            match ring.try_push(v) {
                                Ok(()) => break None,
                                Err(TryPushError::Closed(back)) => break Some(back),
                                Err(TryPushError::Full(_)) => thread::yield_now(),
                            }
                        },
                        1 => ring.push_blocking(v).err().map(Closed::into_inner),
                        _ => match ring.push_overwrite(v) {
                            Overwritten::Stored => None,
                            Overwritten::Evicted(old) => {
                                ledger.mark(old);
                                None
                            }
                            Overwritten::Rejected(back) => {
                                assert_eq!(back, v);
                                if ring.is_closed() {
                                    Some(back)
                                } else {
                                    // Every slot held by operations in
                                    // progress, not the close: handed
                                    // back and accounted; on to the next.
                                    ledger.mark(back);
                                    continue;
                                }
                            }
                        },
                    };
                    match refused {
                        None => {
                            assert!(!closed_before, "a push after the close was accepted");
                        }
                        Some(back) => {
                            assert_eq!(back, v, "the refused item is handed back");
                            assert!(ring.is_closed());
                            ledger.mark(back);
                            // Closed is final: every later push fails too.
                            assert!(ring.try_push(u64::MAX).is_err());
                            break;
                        }
                    }
                }
                done.fetch_add(1, Ordering::Relaxed);
            });
        }
        let consumers: Vec<_> = (0..CONSUMERS)
            .map(|_| {
                s.spawn(move || {
                    let mut n = 0usize;
                    while let Some(v) = ring.pop_blocking() {
                        ledger.mark(v);
                        out.fetch_add(1, Ordering::Relaxed);
                        n += 1;
                    }
                    // "Closed and drained" is final.
                    assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
                    assert_eq!(ring.try_pop(), None);
                    n
                })
            })
            .collect();
        while out.load(Ordering::Relaxed) < close_after && done.load(Ordering::Relaxed) < PRODUCERS
        {
            thread::yield_now();
        }
        assert!(ring.close());
        consumers
            .into_iter()
            .map(|c| c.join().unwrap())
            .sum::<usize>()
    });
    // Every item a producer tried is accounted for (`mark` already
    // failed on any item accounted twice).
    let mut missing = 0;
    for (p, tried) in tried.iter().enumerate() {
        for s in 0..tried.load(Ordering::Relaxed) {
            if !ledger.seen[p * m + s].load(Ordering::Relaxed) {
                missing += 1;
            }
        }
    }
    assert_eq!(missing, 0, "items lost around the close");
    assert!(close_after == 0 || popped >= close_after.min(1));
    assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
    eprintln!("closed after {close_after}: popped {popped}");
}

#[test]
fn stress_close_exact_accounting_scq() {
    for close_after in [0, per_producer() / 2, per_producer()] {
        stress(&sluicegate::mpmc::Ring::<u64, 8>::new(), close_after);
        stress(&sluicegate::mpmc::Ring::<u64, 1>::new(), close_after);
    }
}

#[test]
#[cfg(feature = "critical-section")]
fn stress_close_exact_accounting_cs() {
    for close_after in [0, per_producer() / 2, per_producer()] {
        stress(&sluicegate::mpmc::cs::Ring::<u64, 8>::new(), close_after);
        stress(&sluicegate::mpmc::cs::Ring::<u64, 1>::new(), close_after);
    }
}

/// `Debug` says whether the ring is closed.
#[test]
fn debug_shows_closed() {
    let ring = sluicegate::mpmc::Ring::<u32, 2>::new();
    ring.try_push(1).unwrap();
    ring.close();
    assert_eq!(
        format!("{ring:?}"),
        "Ring { capacity: 2, len: 1, closed: true, stats: RingStats { rejected: 0, overwritten: 0, busy: 0, expired: 0, transitions: 0, peak: 1 } }"
    );
}
