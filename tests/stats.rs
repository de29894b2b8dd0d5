//! `RingStats` on every ring: interval counts with `since` across the
//! counters' wrap (the counters start just below `usize::MAX`), and the
//! high-water mark within the bound each ring documents.
#![cfg(not(sluicegate_loom))]

use sluicegate::{mpmc, spsc, Overwritten, RingStats, TryPopError};

const NEAR_WRAP: usize = usize::MAX - 1;

/// Two rejections and three evictions across the wrap of both counters.
fn interval_across_wrap(before: RingStats, after: RingStats) {
    assert!(after.rejected < before.rejected, "rejected did not wrap");
    assert!(
        after.overwritten < before.overwritten,
        "overwritten did not wrap"
    );
    let d = after.since(&before);
    assert_eq!((d.rejected, d.overwritten), (2, 3));
    assert_eq!(d.peak, after.peak);
}

#[test]
fn since_counts_an_interval_across_the_wrap_spsc() {
    let mut ring: spsc::Ring<u32, 2, spsc::Overwrite> = spsc::Ring::new();
    ring.preset_counters(NEAR_WRAP, NEAR_WRAP);
    let (mut tx, mut rx) = ring.split();
    tx.try_push(1).unwrap();
    tx.try_push(2).unwrap();
    let before = tx.stats();
    assert_eq!(before.rejected, NEAR_WRAP);
    assert!(tx.try_push(3).is_err());
    assert!(tx.try_push(4).is_err());
    for i in 5..8 {
        assert!(matches!(tx.push_overwrite(i), Overwritten::Evicted(_)));
    }
    interval_across_wrap(before, tx.stats());
    assert_eq!(rx.drain().collect::<Vec<_>>(), [6, 7]);
}

/// On a full MPMC ring of 2 (either kind) with both counters preset just
/// below the wrap: two rejections and three evictions across it, holding 6
/// and 7 at the end.
macro_rules! mpmc_interval_across_wrap {
    ($ring:ident) => {
        $ring.preset_counters(NEAR_WRAP, NEAR_WRAP);
        $ring.push_iter([1, 2]);
        let before = $ring.stats();
        assert!($ring.try_push(3).is_err());
        assert!($ring.try_push(4).is_err());
        for i in 5..8 {
            assert!(matches!($ring.push_overwrite(i), Overwritten::Evicted(_)));
        }
        interval_across_wrap(before, $ring.stats());
    };
}

#[test]
fn since_counts_an_interval_across_the_wrap_mpmc() {
    let mut ring: mpmc::Ring<u32, 2> = mpmc::Ring::new();
    mpmc_interval_across_wrap!(ring);
    // The close compares the evictions it has seen start with those that
    // ended, modulo the wrap: with none in progress, the ring drains.
    ring.close();
    assert_eq!(ring.try_pop_or_closed(), Ok(6));
    assert_eq!(ring.try_pop_or_closed(), Ok(7));
    assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
}

/// A close right below the wrap: the evictions seen to start (counted in
/// the state word's high bits) and those that ended (`overwritten`) are
/// compared modulo the narrower count, so the closed ring still drains.
#[test]
fn close_drains_with_the_eviction_count_near_the_wrap() {
    let mut ring: mpmc::Ring<u32, 2> = mpmc::Ring::new();
    ring.preset_counters(0, NEAR_WRAP);
    ring.try_push(1).unwrap();
    ring.close();
    assert_eq!(ring.try_pop_or_closed(), Ok(1));
    assert_eq!(ring.try_pop_or_closed(), Err(TryPopError::Closed));
}

#[cfg(feature = "critical-section")]
#[test]
fn since_counts_an_interval_across_the_wrap_mpmc_cs() {
    let mut ring: mpmc::cs::Ring<u32, 2> = mpmc::cs::Ring::new();
    mpmc_interval_across_wrap!(ring);
}

#[test]
fn since_keeps_the_later_peak() {
    let earlier = RingStats {
        rejected: 5,
        overwritten: 0,
        busy: 0,
        expired: usize::MAX,
        transitions: 1,
        peak: 3,
    };
    let later = RingStats {
        rejected: 7,
        overwritten: 1,
        busy: 0,
        expired: 2,
        transitions: 4,
        peak: 9,
    };
    assert_eq!(
        later.since(&earlier),
        RingStats {
            rejected: 2,
            overwritten: 1,
            busy: 0,
            expired: 3,
            transitions: 3,
            peak: 9
        }
    );
}

/// On a new MPMC ring of `$n` slots whose pops sample the length at one
/// position (or slot) in `$k`: a burst of `$burst` (at least `$k`) after one
/// item in and out at position 0 (a sample: 1); the burst's first sampling
/// pop is the one at position `$k`, which finds `$burst + 1 - $k` items, so
/// the mark is that, less than `$k` below the true one (no `stats` read
/// while the burst is inside, which would count all of it). Then the ring
/// filled, `$at_full` done on the full ring, and cleared: the mark is `$n`.
macro_rules! peak_within_one_period {
    ($ring:ident, $n:expr, $k:expr, $burst:expr, $at_full:expr) => {
        let (n, k, burst): (usize, usize, u32) = ($n, $k, $burst);
        assert!(burst as usize >= k && (burst as usize) < n);
        $ring.try_push(0).unwrap();
        assert_eq!($ring.try_pop(), Some(0)); // position 0: samples 1
        assert_eq!($ring.stats().peak, 1);
        assert_eq!($ring.push_iter(1..=burst), burst as usize);
        assert_eq!($ring.clear(), burst as usize);
        assert_eq!($ring.stats().peak, burst as usize + 1 - k);
        let _ = $ring.push_iter(0..n as u32);
        $at_full;
        $ring.clear();
        assert_eq!($ring.stats().peak, n);
    };
}

#[cfg(feature = "critical-section")]
#[test]
fn peak_is_sampled_within_n_over_16_mpmc_cs() {
    let ring: mpmc::cs::Ring<u32, 64> = mpmc::cs::Ring::new();
    peak_within_one_period!(ring, 64, 4, 37, {
        let _ = ring.try_push(64); // refused: 64 items inside
    });
}

/// The same on the SCQ ring, where positions play the part of slots: one
/// in `N / 16` samples, but at least one in 64 on hosts.
#[test]
fn peak_is_sampled_within_one_period_mpmc() {
    type R = mpmc::Ring<u32, 128>;
    let ring = R::new();
    let k = R::PEAK_SAMPLE_EVERY;
    assert_eq!(k, if cfg!(target_os = "none") { 8 } else { 64 });
    peak_within_one_period!(ring, 128, k, 100, {
        let _ = ring.push_overwrite(128); // an eviction: no free slot
    });
    type Big = mpmc::Ring<u32, 1024>;
    assert_eq!(Big::PEAK_SAMPLE_EVERY, 64); // N / 16 everywhere
    if !cfg!(miri) {
        // Thousands of operations: minutes under Miri, which the 128-slot
        // case above already covers.
        let big = Big::new();
        peak_within_one_period!(big, 1024, 64, 600, {
            let _ = big.try_push(0); // refused: full
        });
    }
    assert_eq!(mpmc::Ring::<u32, 4096>::PEAK_SAMPLE_EVERY, 256);
}

/// A `stats` read counts the length at that moment into the mark and keeps
/// it: once the items it counted are popped (the pops' samples, from
/// position 1 on, see fewer), the next read returns no less. On every MPMC
/// ring, small and large.
#[test]
fn an_mpmc_peak_never_goes_down() {
    macro_rules! check {
        ($ring:expr, $m:expr) => {{
            let ring = $ring;
            let m: usize = $m;
            let kind = core::any::type_name_of_val(&ring);
            // Off the sampling positions: one item in and out first.
            ring.push_iter(0..1);
            assert_eq!(ring.clear(), 1);
            assert_eq!(ring.push_iter(0..m as u32), m, "{kind}");
            assert_eq!(ring.stats().peak, m, "{kind}: the length now");
            assert_eq!(ring.clear(), m, "{kind}");
            assert_eq!(ring.stats().peak, m, "{kind}: drained");
            ring.push_iter(0..1);
            assert_eq!(ring.clear(), 1);
            assert_eq!(ring.stats().peak, m, "{kind}: after one more");
        }};
    }
    check!(mpmc::Ring::<u32, 4>::new(), 3);
    check!(mpmc::SmallRing::<u32, 4>::new(), 3);
    check!(mpmc::Ring::<u32, 64, mpmc::FreeBits<2>>::new(), 40);
    check!(mpmc::BurstRing::<u32, 4, 1>::new(), 3);
    check!(mpmc::BurstRing::<u32, 64, 2>::new(), 40);
    #[cfg(feature = "critical-section")]
    check!(mpmc::cs::Ring::<u32, 4>::new(), 3);
    #[cfg(feature = "critical-section")]
    check!(mpmc::cs::Ring::<u32, 64>::new(), 40);
    if !cfg!(miri) {
        check!(mpmc::Ring::<u32, 1024>::new(), 600);
        check!(mpmc::BurstRing::<u32, 1024, 32>::new(), 600);
    }
}

/// A push refused as full raises the SCQ ring's mark to `N` even where no
/// sample saw the ring full (here the samples at positions 64 and 128 see
/// 65 and 1 items; on a microcontroller, one in 8).
#[test]
fn a_refused_push_makes_the_mpmc_peak_n() {
    let ring: mpmc::Ring<u32, 128> = mpmc::Ring::new();
    ring.try_push(0).unwrap();
    assert_eq!(ring.try_pop(), Some(0));
    assert_eq!(ring.push_iter(1..), 128);
    assert!(ring.try_push(0).is_err());
    assert_eq!(ring.clear(), 128);
    assert_eq!(ring.stats().peak, 128);
}

/// `push_iter` whose iterator closes the ring before yielding its second
/// item: one pushed (asserted), the second refused by the close and
/// counted, with room in the ring. Returns the ring's stats.
macro_rules! push_iter_closed_by_its_iterator {
    ($ring:expr) => {{
        let ring = $ring;
        let mut k = 0;
        let pushed = ring.push_iter(core::iter::from_fn(|| {
            k += 1;
            if k == 2 {
                ring.close();
            }
            Some(k)
        }));
        assert_eq!(pushed, 1);
        ring.stats()
    }};
}

/// Items refused with room in the ring count in `rejected` but do not
/// make the mark `N`: the item a close refused `push_iter`, a bulk push
/// that did not fit. A bulk refused on a full ring does.
#[test]
fn a_refusal_with_room_leaves_the_mpmc_peak() {
    let s = push_iter_closed_by_its_iterator!(&mpmc::Ring::<u32, 64>::new());
    assert_eq!((s.rejected, s.peak), (1, 1));
    #[cfg(feature = "critical-section")]
    {
        let s = push_iter_closed_by_its_iterator!(&mpmc::cs::Ring::<u32, 64>::new());
        assert_eq!((s.rejected, s.peak), (1, 1));
    }
    let burst: mpmc::BurstRing<u32, 64, 2> = mpmc::BurstRing::new();
    burst.try_push(1).unwrap();
    assert!(burst.push_bulk(&[0; 65]).is_err());
    burst.push_bulk(&[7; 39]).unwrap();
    assert!(burst.push_bulk(&[8; 30]).is_err());
    let s = burst.stats();
    assert_eq!((s.rejected, s.peak), (95, 40));
    burst.push_bulk(&[9; 24]).unwrap();
    assert!(burst.push_bulk(&[8; 2]).is_err());
    let mut out = [0; 10];
    assert_eq!(burst.pop_bulk(&mut out), Ok(()));
    assert_eq!(burst.stats().peak, 64);
}

/// Where every pop samples (below 16 slots on the critical-section ring,/// Where every pop samples (below 16 slots on the critical-section ring,
/// and on the SCQ ring on microcontrollers) the mark is exact.
#[cfg(feature = "critical-section")]
#[test]
fn peak_is_exact_below_16_slots() {
    let ring: mpmc::cs::Ring<u32, 8> = mpmc::cs::Ring::new();
    ring.push_iter(0..5);
    ring.clear();
    ring.push_iter(0..3);
    ring.clear();
    assert_eq!(ring.stats().peak, 5);
}

/// The SPSC consumer counts what it finds when it looks at the producer's
/// position: 3, then (after popping the two it had seen while 5 more came,
/// 7 inside at most) 5. The true mark, 7, is at most twice that.
#[test]
fn spsc_peak_is_what_the_consumer_saw() {
    let mut ring: spsc::Ring<u32, 8> = spsc::Ring::new();
    let (mut tx, mut rx) = ring.split();
    tx.push_iter(0..3);
    assert_eq!(rx.try_pop(), Some(0)); // looks: 3
    assert_eq!(rx.stats().peak, 3);
    tx.push_iter(3..8); // 7 inside
    assert_eq!(rx.stats().peak, 7); // the length now
    assert_eq!(rx.try_pop(), Some(1));
    assert_eq!(rx.try_pop(), Some(2)); // both seen before: no look
    assert_eq!(rx.try_pop(), Some(3)); // looks: 5
    rx.clear();
    let peak = rx.stats().peak;
    assert_eq!(peak, 5);
    assert!(peak <= 7 && 7 <= 2 * peak);
}

/// A static ring split again: the new consumer counts what the old
/// handles left as a look.
#[test]
fn spsc_peak_counts_a_split_as_a_look() {
    static RING: spsc::Ring<u32, 4> = spsc::Ring::new();
    let (mut tx, rx) = RING.try_split().unwrap();
    tx.push_iter(0..4);
    drop((tx, rx));
    let (_tx, mut rx) = RING.try_split().unwrap();
    rx.clear();
    assert_eq!(RING.stats().peak, 4);
}

/// The item `push_iter` took from its iterator and could not push, because
/// the iterator closed the ring before yielding it, is counted as rejected.
#[test]
fn push_iter_counts_the_item_a_close_refused_mpmc() {
    let ring: mpmc::Ring<u32, 4> = mpmc::Ring::new();
    let stats = push_iter_closed_by_its_iterator!(&ring);
    assert_eq!((ring.len(), stats.rejected), (1, 1));
}

/// On `mpmc::cs::Ring` the iterator runs outside the critical sections: an
/// item whose room another push took meanwhile (here the iterator itself),
/// or that a close refused, is counted as rejected.
#[cfg(feature = "critical-section")]
#[test]
fn push_iter_counts_the_item_it_lost_the_room_for_mpmc_cs() {
    let ring: mpmc::cs::Ring<u32, 2> = mpmc::cs::Ring::new();
    let mut k = 0;
    let pushed = ring.push_iter(std::iter::from_fn(|| {
        k += 1;
        if k == 2 {
            assert!(ring.try_push(0).is_ok());
        }
        Some(k)
    }));
    assert_eq!((pushed, ring.len(), ring.stats().rejected), (1, 2, 1));
    let closing: mpmc::cs::Ring<u32, 2> = mpmc::cs::Ring::new();
    let stats = push_iter_closed_by_its_iterator!(&closing);
    assert_eq!((closing.len(), stats.rejected), (1, 1));
}
