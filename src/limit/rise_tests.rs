//! Unit tests of the rises of the baseline: the check that follows a rise
//! (a stall, a cold start), how a rise is found held or undone, and the
//! probes that come sooner after a held rise, single-threaded.

use super::tests::{config, gradient, load_until_probe, mature, succeed_beside};
use super::*;
use std::vec::Vec;

/// The probe's queue-free samples at `ticks` until it ends: returns how
/// many.
fn probe_until_restored(l: &Limiter, ticks: u32) -> usize {
    let mut more = 0;
    while l.track.resume.load(Ordering::Relaxed) != 0 {
        succeed_beside(l, 0, 1, ticks);
        more += 1;
        assert!(more <= YOUNG + 4, "not restored");
    }
    more
}

/// Queue-free successes after a grown-up baseline at 10 ticks: a level
/// shift up to 90, then enough at 90 for queue-free samples to confirm
/// it. Returns how many successes that took.
fn confirmed_rise(l: &Limiter) -> usize {
    mature(l, 10);
    let n = SHIFT_RUN + CHECK_AFTER + FRESH_EVERY + 1;
    succeed_beside(l, 0, n, 90);
    assert_eq!(l.baseline(), Some(90));
    n
}

#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_stalled_rise_is_checked_whether_or_not_the_limit_binds() {
    // A stall: five queue-free samples 9× slower shift a grown-up baseline
    // up. Then load that leaves no queue-free sample and never fills the
    // limit: the rise is checked within `CHECK_AFTER` successes (less the
    // `FRESH_EVERY` to which the last queue-free one is kept, plus a
    // window), the check's queue-free samples bring the baseline back, the
    // limit is restored, and no other probe follows.
    for c in [config(2, 6, 6), gradient(2, 6, 6)] {
        let l = Limiter::try_new(c).unwrap();
        mature(&l, 10);
        // Twice the run: the mean follows the stall most of the way.
        succeed_beside(&l, 0, 2 * SHIFT_RUN, 90);
        assert_eq!(l.baseline(), Some(90), "{:?}", c.law);
        assert!(l.stats().mean.unwrap() >= 60, "{:?}", l.stats());
        let n = load_until_probe(&l, 10, CHECK_AFTER + 64);
        assert!(
            n > CHECK_AFTER - FRESH_EVERY,
            "{:?}: checked after {n}",
            c.law
        );
        let s = l.stats();
        assert_eq!((s.probes, s.limit), (1, 2), "{:?}", c.law);
        // A check lasts `PROBE_SAMPLES` successes: a level shift down
        // brings both estimates back.
        let more = probe_until_restored(&l, 10);
        assert!(more >= PROBE_SAMPLES - 2, "{:?}: ended after {more}", c.law);
        assert!(l.baseline().unwrap() <= 11, "{:?}: {:?}", c.law, l.stats());
        assert!(
            l.stats().mean.unwrap() <= 12,
            "{:?}: {:?}",
            c.law,
            l.stats()
        );
        // Checked: the same load no longer probes.
        succeed_beside(&l, 2, 4 * CHECK_AFTER, 10);
        assert_eq!(l.stats().probes, 1, "{:?}", c.law);
    }
}

#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_cold_start_is_checked() {
    // A cold cache: the young baseline's 32 samples are 6× slow, then the
    // service is warm and the load leaves no queue-free sample. The grown-up
    // baseline is checked after `CHECK_AFTER` successes (the young one keeps
    // its last queue-free sample exactly).
    for c in [config(2, 6, 6), gradient(2, 6, 6)] {
        let l = Limiter::try_new(c).unwrap();
        succeed_beside(&l, 0, YOUNG, 60);
        assert_eq!(l.baseline(), Some(60));
        let n = load_until_probe(&l, 10, CHECK_AFTER + 64);
        assert!(n > CHECK_AFTER, "{:?}: checked after {n}", c.law);
        probe_until_restored(&l, 10);
        assert!(l.baseline().unwrap() <= 11, "{:?}: {:?}", c.law, l.stats());
    }
}

/// Successes at `ticks` with the limit binding (a request refused at the
/// limit before each), none of them queue-free, until the limiter probes:
/// returns how many.
fn bind_until_probe(l: &Limiter, ticks: u32, most: usize) -> usize {
    let probes = l.stats().probes;
    let mut n = 0;
    while l.stats().probes == probes {
        // Fill the limit (the last request is refused) and give all but
        // the last permit back as ignored: the last one, admitted with the
        // rest of the limit in flight, ends the success.
        let mut taken: Vec<_> = core::iter::from_fn(|| l.try_acquire()).collect();
        let last = taken.pop().unwrap();
        assert!(taken.len() > 2, "{:?}", l.stats());
        drop(taken);
        last.success(ticks);
        n += 1;
        assert!(n <= most, "no probe in {most} successes");
    }
    n
}

/// A rise that queue-free samples confirmed (a real slowdown), then the
/// dependency recovers under load that binds the limit and leaves no
/// queue-free sample (closed-loop clients), and nothing looks slow, so the
/// limit grows: only a probe can show the recovery, and it comes within
/// `CHECK_AFTER` successes of the last queue-free one (`1 / RISE_SHARE` of
/// the rise's age, but at least that), not the `PROBE_AFTER` of a baseline
/// that did not rise.
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_recovery_after_a_confirmed_rise_is_probed_soon() {
    for c in [config(2, 6, 12), gradient(2, 6, 12)] {
        let l = Limiter::try_new(c).unwrap();
        confirmed_rise(&l);
        assert_eq!(l.track.risen.load(Ordering::Relaxed), 0, "confirmed");
        let n = bind_until_probe(&l, 10, CHECK_AFTER + 64);
        assert!(
            n > CHECK_AFTER - FRESH_EVERY,
            "{:?}: probed after {n}",
            c.law
        );
        probe_until_restored(&l, 10);
        assert!(l.baseline().unwrap() <= 11, "{:?}: {:?}", c.law, l.stats());
    }
}

/// A slowdown learnt while young: the limit cut to its floor leaves
/// queue-free samples 2× slower before the baseline has grown up, and its
/// running mean takes them in (a rise from 10 to 17 ticks, after load long
/// enough that a rise before it would be old; from the fourth sample on
/// the run is less than a quarter above the running mean, but more than a
/// quarter above the mean where it started). Then load that leaves no
/// queue-free sample and never fills the limit, under which a young
/// baseline is otherwise never probed, until the rise's check, which lasts
/// until the baseline has grown up, at `check` ticks. Returns how many
/// successes the check came after.
fn young_rise_checked(l: &Limiter, check: u32) -> usize {
    succeed_beside(l, 0, 2, 10);
    succeed_beside(l, 2, RISE_OLD, 10);
    assert_eq!(l.stats().probes, 0);
    succeed_beside(l, 0, SHIFT_RUN, 20);
    // (2 × 10 + 5 × 20) / 7
    assert_eq!(l.baseline(), Some(17));
    let n = load_until_probe(l, 20, CHECK_AFTER + 64);
    let more = probe_until_restored(l, check);
    assert_eq!(more, YOUNG - 2 - SHIFT_RUN);
    n
}

/// After a young rise its check or probe found held, at `ticks`: the same
/// load (no queue-free sample, the limit never full) probes no more; once
/// the dependency is back at 10 ticks under load that binds, the probe
/// comes at once (`CHECK_AFTER` after the last queue-free sample, long
/// past; `PROBE_AFTER` had the rise not held) and brings the baseline back.
fn watched_after_a_held_rise(l: &Limiter, ticks: u32, law: Law) {
    succeed_beside(l, 2, 4 * CHECK_AFTER, ticks);
    assert_eq!(l.stats().probes, 1, "{law:?}: no check is due");
    let n = bind_until_probe(l, 10, CHECK_AFTER + 64);
    assert!(n <= 64, "{law:?}: probed after {n}");
    probe_until_restored(l, 10);
    assert!(l.baseline().unwrap() <= 11, "{law:?}: {:?}", l.stats());
}

/// A rise learnt while young is checked after `CHECK_AFTER` successes.
/// Found held (the dependency still 1.5× slower), it makes the probes after
/// it come sooner: once the dependency recovers under load that binds,
/// within `CHECK_AFTER` successes, not the `PROBE_AFTER` of a baseline
/// that never rose.
#[test]
#[cfg_attr(miri, ignore = "half a million sequential successes")]
fn a_rise_learnt_while_young_is_checked_and_watched() {
    for c in [config(2, 6, 12), gradient(2, 6, 12)] {
        let l = Limiter::try_new(c).unwrap();
        let n = young_rise_checked(&l, 15);
        assert!(n > CHECK_AFTER, "{:?}: checked after {n}", c.law);
        // (2 × 10 + 5 × 20 + 25 × 15) / 32 = 15.5: more than halfway from
        // 10 to 17.1, below 17.1.
        assert_eq!(l.baseline(), Some(15), "{:?}", c.law);
        watched_after_a_held_rise(&l, 15, c.law);
    }
}

/// A young rise whose check finds the baseline back below halfway from
/// where the run started to where it took the mean is undone: the probes
/// after it come as for a baseline that never rose.
#[test]
#[cfg_attr(miri, ignore = "half a million sequential successes")]
fn a_young_rise_the_check_finds_undone_is_not_held() {
    for c in [config(2, 6, 12), gradient(2, 6, 12)] {
        let l = Limiter::try_new(c).unwrap();
        young_rise_checked(&l, 10);
        // (2 × 10 + 5 × 20 + 25 × 10) / 32 = 11.6, below 13.6
        assert_eq!(l.baseline(), Some(11), "{:?}", c.law);
        let n = bind_until_probe(&l, 10, PROBE_AFTER + 64);
        assert!(
            n > PROBE_AFTER - FRESH_EVERY,
            "{:?}: probed after {n}",
            c.law
        );
    }
}

/// A young run is measured from a mean of two samples or more: with a
/// heavy-tailed service one short first sample is no level to rise from.
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_young_run_from_a_single_sample_is_no_rise() {
    for c in [config(2, 6, 12), gradient(2, 6, 12)] {
        let l = Limiter::try_new(c).unwrap();
        succeed_beside(&l, 0, 1, 10);
        succeed_beside(&l, 0, SHIFT_RUN, 20);
        succeed_beside(&l, 2, 2 * CHECK_AFTER, 20);
        assert_eq!(l.stats().probes, 0, "{:?}", c.law);
    }
}

/// Load that fills the limit brings a young baseline's probe, and the
/// dependency slows as it starts: the probe's samples show the slowdown (a
/// rise from 10 ticks to a mean of 17). The probe's end judges that rise
/// and finds it held, so once the dependency recovers under load that
/// binds, the probe comes within `CHECK_AFTER` successes, not
/// `PROBE_AFTER`.
#[test]
#[cfg_attr(miri, ignore = "half a million sequential successes")]
fn a_rise_a_young_probe_shows_is_judged_when_it_ends() {
    for c in [config(2, 6, 12), gradient(2, 6, 12)] {
        let l = Limiter::try_new(c).unwrap();
        succeed_beside(&l, 0, 2, 10);
        succeed_beside(&l, 2, RISE_OLD, 10);
        assert_eq!(l.stats().probes, 0, "{:?}", c.law);
        bind_until_probe(&l, 10, 64);
        let more = probe_until_restored(&l, 20);
        assert_eq!(more, YOUNG - 2, "{:?}", c.law);
        // (2 × 10 + 30 × 20) / 32
        assert_eq!(l.baseline(), Some(19), "{:?}", c.law);
        watched_after_a_held_rise(&l, 20, c.law);
    }
}

/// A held rise, then load that binds and grows the limit past where it
/// was when the rise held (nothing looks slow at the new level): the
/// probes come every `CHECK_AFTER` successes, then `1 / RISE_SHARE` of the
/// rise's age apart, and from `RISE_OLD` successes on every `PROBE_AFTER`,
/// as for a baseline that never rose.
#[test]
#[cfg_attr(miri, ignore = "a million sequential successes")]
fn probes_after_a_rise_thin_out_as_it_ages() {
    let l = Limiter::try_new(config(2, 6, 12)).unwrap();
    let rise = confirmed_rise(&l);
    let mut age = rise - SHIFT_RUN;
    let mut gaps = Vec::new();
    while age < RISE_OLD + 2 * PROBE_AFTER {
        let gap = bind_until_probe(&l, 90, PROBE_AFTER + 64);
        // Due `1 / RISE_SHARE` of the rise's age after the last queue-free
        // sample (the previous probe's), which came before the `restored`
        // samples; within a window, and the `FRESH_EVERY` to which the
        // last queue-free sample is kept.
        let due = ((age + gap).min(RISE_OLD) / RISE_SHARE).clamp(CHECK_AFTER, PROBE_AFTER);
        let restored = probe_until_restored(&l, 90);
        assert!(
            gap + FRESH_EVERY + 16 > due && gap <= due + 16,
            "probe {} after {gap}, due after {due} (age {age})",
            gaps.len() + 1
        );
        age += gap + restored;
        gaps.push(gap);
    }
    assert_eq!(l.baseline(), Some(90));
    // About six at `CHECK_AFTER` (to an age of `RISE_SHARE · CHECK_AFTER`),
    // then each `RISE_SHARE / (RISE_SHARE − 1)` times the last up to
    // `RISE_OLD` (26 more), then `PROBE_AFTER` apart: 35 to this age.
    assert!(
        (32..=38).contains(&gaps.len()),
        "{} probes: {gaps:?}",
        gaps.len()
    );
    assert!(
        gaps.windows(2).all(|w| w[1] + FRESH_EVERY + 16 >= w[0]),
        "{gaps:?}"
    );
    assert!(
        *gaps.last().unwrap() > PROBE_AFTER - FRESH_EVERY,
        "{gaps:?}"
    );
}

/// Load of one lower class only, refused at its share of the limit and
/// never finding the whole limit in use (all-`Normal` clients): the limit
/// binds all the same, so a stale baseline is probed.
#[test]
#[cfg_attr(miri, ignore = "a third of a million sequential successes")]
fn a_limit_that_binds_a_lower_class_only_is_probed() {
    for c in [config(2, 8, 8), gradient(2, 8, 8)] {
        let l = Limiter::try_new(c).unwrap();
        mature(&l, 10);
        succeed_beside(&l, 0, RISE_OLD, 10);
        let normal = || l.try_acquire_with(Priority::Normal);
        // Normal's share of 8 is 6: hold 5, take the 6th (not queue-free),
        // be refused beside it with 2 units free.
        let held: Vec<_> = (0..5).map(|_| normal().unwrap()).collect();
        let mut n = 0;
        while l.stats().probes == 0 {
            let p = normal().unwrap();
            assert!(normal().is_none());
            assert_eq!(l.in_flight(), 6);
            p.success(10);
            n += 1;
            assert!(n <= PROBE_AFTER + 64, "{:?}: no probe", c.law);
        }
        assert!(
            n > PROBE_AFTER - FRESH_EVERY,
            "{:?}: probed after {n}",
            c.law
        );
        drop(held);
    }
}

/// A run of noise above the baseline (a probe's own eight samples make
/// such runs) is stepped nearly all the way before it is five long: its
/// level shift jumps little, and it is neither checked nor taken for a
/// young rise. A jump of more than a sixteenth past the steps is a rise.
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_level_shift_within_the_steps_is_not_a_rise() {
    let l = Limiter::try_new(config(2, 6, 6)).unwrap();
    mature(&l, 100);
    let risen_at = l.track.risen_at.load(Ordering::Relaxed);
    // Steps of 1/32 to 103, 106, 110, 113: the shift jumps from there to
    // the run's 116.
    succeed_beside(&l, 0, SHIFT_RUN, 116);
    assert_eq!(l.baseline(), Some(116));
    assert_eq!(l.track.risen.load(Ordering::Relaxed), 0);
    assert_eq!(l.track.risen_at.load(Ordering::Relaxed), risen_at);
    // Steps to about 131, then a jump to 160.
    succeed_beside(&l, 0, SHIFT_RUN, 160);
    assert_eq!(l.baseline(), Some(160));
    assert_eq!(l.track.risen.load(Ordering::Relaxed), RISEN);
    assert_ne!(l.track.risen_at.load(Ordering::Relaxed), risen_at);
}

#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_rise_that_queue_free_samples_confirm_is_not_probed() {
    // A dependency that got slower for good while queue-free samples kept
    // coming for `CHECK_AFTER` successes: confirmed, so load that leaves
    // none and never fills the limit does not probe (as before the rise).
    for c in [config(2, 6, 6), gradient(2, 6, 6)] {
        let l = Limiter::try_new(c).unwrap();
        confirmed_rise(&l);
        let before = l.stats();
        succeed_beside(&l, 2, 4 * CHECK_AFTER, 90);
        let s = l.stats();
        assert_eq!(
            (s.probes, s.decreases, s.limit),
            (0, before.decreases, 6),
            "{:?}",
            c.law
        );
    }
}

/// A stall's rise outside a probe (from 10 to 90), then load that binds
/// the limit and leaves no queue-free sample. The check's samples decide:
/// at least halfway up (the dependency did slow down, maybe less than the
/// stall showed) the rise is held; below (it was a stall) it is undone.
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn the_check_decides_whether_a_rise_held() {
    for (check, held) in [(90, true), (60, true), (40, false), (10, false)] {
        let l = Limiter::try_new(config(2, 6, 6)).unwrap();
        mature(&l, 10);
        let before = l.rise.held_at.load(Ordering::Relaxed);
        succeed_beside(&l, 0, SHIFT_RUN, 90);
        assert_eq!(l.baseline(), Some(90));
        let risen_at = l.track.risen_at.load(Ordering::Relaxed);
        bind_until_probe(&l, check, CHECK_AFTER + 64);
        probe_until_restored(&l, check);
        assert_eq!(l.baseline(), Some(check));
        let at = l.rise.held_at.load(Ordering::Relaxed);
        assert_eq!(
            at,
            if held { risen_at } else { before },
            "checked at {check}"
        );
    }
}

/// A held rise after which the limit cannot grow past where it was then
/// (here its maximum): the slower level stays, and nothing calls for an
/// early probe, so the next one waits the full `PROBE_AFTER`.
#[test]
#[cfg_attr(miri, ignore = "2^16 sequential successes; minutes under Miri")]
fn a_held_rise_under_a_limit_that_does_not_grow_waits_the_full_time() {
    let l = Limiter::try_new(config(2, 6, 6)).unwrap();
    confirmed_rise(&l);
    let risen_at = l.track.risen_at.load(Ordering::Relaxed);
    assert_eq!(l.rise.held_at.load(Ordering::Relaxed), risen_at, "held");
    let n = bind_until_probe(&l, 10, PROBE_AFTER + 64);
    assert!(n + FRESH_EVERY + 16 > PROBE_AFTER, "probed after {n}");
}

/// A dependency that slows while queue-free samples keep coming, noisily
/// enough that no run of `SHIFT_RUN` forms: the baseline walks up in steps
/// and never jumps, yet past a quarter above its settled level it rose.
/// Queue-free samples at the new level then confirm it held, and the probe
/// after it comes soon.
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn a_walk_up_is_a_rise() {
    let l = Limiter::try_new(config(2, 6, 12)).unwrap();
    mature(&l, 10);
    let mut walk = 0;
    while l.baseline().unwrap() < 13 {
        for ticks in [40, 40, 40, 40, 9] {
            succeed_beside(&l, 0, 1, ticks);
        }
        walk += 5;
        assert!(walk < 200, "{:?}", l.stats());
    }
    assert!(l.baseline().unwrap() <= 14, "jumped: {:?}", l.stats());
    assert_eq!(l.track.risen.load(Ordering::Relaxed), RISEN);
    succeed_beside(&l, 0, CHECK_AFTER + FRESH_EVERY + 1, 13);
    assert_eq!(l.track.risen.load(Ordering::Relaxed), 0, "confirmed");
    let n = bind_until_probe(&l, 13, CHECK_AFTER + 64);
    assert!(n > CHECK_AFTER - FRESH_EVERY, "probed after {n}");
}

/// Steps of queue-free samples, four at `toward` and one at `back`, until
/// the baseline reaches `to` (from either side).
fn walk_to(l: &Limiter, toward: u32, back: u32, to: u32) {
    for (n, ticks) in [toward, toward, toward, toward, back]
        .into_iter()
        .cycle()
        .enumerate()
    {
        if (l.baseline().unwrap() < to) != (toward > to) {
            return;
        }
        succeed_beside(l, 0, 1, ticks);
        assert!(n < 400, "{:?}", l.stats());
    }
}

/// The level a walk is measured from is where the last judgement left the
/// baseline, not the lowest it went before: a baseline that dipped (noise)
/// and came back, then was judged by a probe, does not rise when it moves
/// a little above where it came back to.
#[test]
#[cfg_attr(miri, ignore = "2^16 sequential successes; minutes under Miri")]
fn a_walk_is_measured_from_the_last_judgement() {
    let l = Limiter::try_new(config(2, 6, 6)).unwrap();
    mature(&l, 100);
    walk_to(&l, 70, 100, 84);
    walk_to(&l, 120, 99, 100);
    assert_eq!(l.track.risen.load(Ordering::Relaxed), 0, "{:?}", l.stats());
    bind_until_probe(&l, 100, PROBE_AFTER + 64);
    probe_until_restored(&l, 100);
    walk_to(&l, 130, 110, 112);
    assert!(l.baseline().unwrap() <= 116, "jumped: {:?}", l.stats());
    assert_eq!(l.track.risen.load(Ordering::Relaxed), 0, "{:?}", l.stats());
}

/// A level shift up is the level later walks are measured from: noise
/// around the new level (which moves the baseline a step at a time) is no
/// rise again, and queue-free samples confirm the one rise there was.
#[test]
#[cfg_attr(miri, ignore = "thousands of sequential successes; minutes under Miri")]
fn noise_after_a_rise_is_no_new_rise() {
    let l = Limiter::try_new(config(2, 6, 6)).unwrap();
    mature(&l, 10);
    succeed_beside(&l, 0, SHIFT_RUN, 90);
    assert_eq!(l.baseline(), Some(90));
    let risen_at = l.track.risen_at.load(Ordering::Relaxed);
    for ticks in [85, 95]
        .into_iter()
        .cycle()
        .take(CHECK_AFTER + FRESH_EVERY + 2)
    {
        succeed_beside(&l, 0, 1, ticks);
    }
    assert_eq!(l.track.risen_at.load(Ordering::Relaxed), risen_at);
    assert_eq!(l.track.risen.load(Ordering::Relaxed), 0, "confirmed");
}

/// A rise that a probe's own samples show (a heavy-tailed service's eight
/// samples often make one) is checked, binding or not, but even when the
/// check finds the baseline still there it never shortens the wait of the
/// probes after it.
#[test]
#[cfg_attr(miri, ignore = "2^17 sequential successes; minutes under Miri")]
fn a_rise_a_probe_shows_does_not_shorten_the_wait() {
    let l = Limiter::try_new(config(2, 6, 6)).unwrap();
    mature(&l, 10);
    bind_until_probe(&l, 10, PROBE_AFTER + 64);
    probe_until_restored(&l, 90);
    assert_eq!(l.baseline(), Some(90));
    assert_eq!(l.track.risen.load(Ordering::Relaxed), RISEN);
    // The check, at the level the probe found.
    let n = bind_until_probe(&l, 90, CHECK_AFTER + 64);
    assert!(n > CHECK_AFTER - FRESH_EVERY, "checked after {n}");
    probe_until_restored(&l, 90);
    assert_eq!(l.baseline(), Some(90));
    let n = bind_until_probe(&l, 90, PROBE_AFTER + 64);
    assert!(n + FRESH_EVERY + 16 > PROBE_AFTER, "next probe after {n}");
}
