//! The limiter (both laws), sequentially, against a model: admission of one
//! or of `n` units exactly by the class threshold or reserve applied to
//! `in_flight + n` (never over the limit, a reserve never the last permit; a
//! weight outside `1..=max_limit` refused; in shadow mode never over
//! `max_limit`, the would-be refusals counted), the limit always within [min,
//! max], each move of the limit one of the moves its law allows (a cut to
//! `max(min, limit · backoff / 256)` or a probe to `min_limit`; growth by at
//! most a quarter of the limit under AIMD, at most doubling under the
//! gradient law; a probe's end, on a success or on a drop of its own permit,
//! back to the limit before it; under the gradient law, once a mean exists,
//! no cut from a drop before the epoch has seen 9), no cut from a permit
//! admitted before the
//! last cut, every count in units (a weighted permit counts its weight),
//! ignored outcomes never moving anything, dropped and queued outcomes never
//! touching the baseline, the baseline and mean (level shifts included) never
//! outside the queue-free latencies seen, every counter exact and the
//! snapshot adding up. Configurations include edge values and invalid ones
//! (which `try_new` must refuse for the documented reasons); counters and
//! epochs start at arbitrary values to reach wrap-around.
//!
//! The waiting acquires too: a waiter is admitted exactly when the rule
//! above admits, joins the backlog otherwise (or is shed when it is full),
//! and each release of `n` units (and each rise of the limit by `n`) wakes
//! exactly the `n` waiters the model expects (the first
//! linked one of the highest class, the newest under LIFO, the oldest under
//! FIFO, under adaptive LIFO the oldest while fewer than half the backlog
//! are linked and the newest from there, a waiter woken and refused again
//! back in its place, and
//! then, with a unit free, the first waiter of a lower class woken; a
//! woken waiter admitted with a unit still free wakes the first waiter); a
//! waiter dropped with an unused wake passes it on; a waiter's try once
//! linked, refused with nothing in flight at a limit that admits its class
//! nothing, raises the limit by one and wakes the first waiter; `queued`,
//! `timed_out` and `backlog_peak` are exact.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sluicegate::limit::{
    Acquire, BacklogOrder, Law, Limiter, LimiterConfig, Permit, Priority, MAX_LIMIT,
};
use sluicegate_fuzz::WakeCount;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

#[derive(Arbitrary, Debug)]
struct Config {
    gradient: bool,
    min_limit: u32,
    initial_limit: u32,
    max_limit: u32,
    backoff: u16,
    tolerance: u16,
    latency_floor: u32,
    normal_share: u16,
    background_share: u16,
    normal_reserve: u16,
    background_reserve: u16,
    shadow: bool,
    backlog: u8,
    /// `BacklogOrder`: 0 LIFO, 1 FIFO, 2 adaptive (others LIFO).
    order: u8,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Acquire(u8),
    AcquireN {
        class: u8,
        n: u8,
    },
    Success {
        which: u8,
        ticks: u32,
    },
    Dropped(u8),
    Ignore(u8),
    Forget(u8),
    /// A waiting acquire of class `n % 3`, polled once.
    Wait(u8),
    /// Polls a waiter again.
    PollWaiter(u8),
    /// Drops a waiter (a timeout, a cancel).
    DropWaiter(u8),
}

/// A waiting acquire and what the model expects of it.
struct Waiter<'g> {
    fut: Pin<Box<Acquire<'g>>>,
    count: Arc<WakeCount>,
    waker: Waker,
    class: usize,
    /// Wakes it should have had.
    woken: usize,
}

/// The model's list: waiter ids in wake order, each with its class. Ids
/// are handed out in order of arrival, so within a class the list is in
/// order of ids: newest first if `lifo`, else oldest first. Links `id`
/// there: an arriving waiter at the front (LIFO) or back (FIFO) of its
/// class, a woken one that waits again back in its place.
fn link(list: &mut Vec<(usize, usize)>, id: usize, class: usize, lifo: bool) {
    let at = list
        .iter()
        .position(|&(k, c)| c > class || (c == class && if lifo { k < id } else { k > id }))
        .unwrap_or(list.len());
    list.insert(at, (id, class));
}

/// The waiter a wake takes when the first it may take is at `at`: that
/// one, or with `from` or more linked (adaptive LIFO) the last of its
/// class.
fn pick(list: &[(usize, usize)], at: usize, from: usize) -> usize {
    if list.len() < from {
        return at;
    }
    let class = list[at].1;
    at + list[at..].iter().take_while(|&&(_, c)| c == class).count() - 1
}

/// A dropped waiter's unused wake wakes the list's first (as `pick`
/// says).
fn wake_first(list: &mut Vec<(usize, usize)>, waiters: &mut [Option<Waiter<'_>>], from: usize) {
    wake_n(list, waiters, 1, from);
}

/// `n` units come free (a release of weight `n`, or the limit raised by
/// `n`): the list's first `n` are woken, one at a time as `pick` says.
fn wake_n(
    list: &mut Vec<(usize, usize)>,
    waiters: &mut [Option<Waiter<'_>>],
    n: usize,
    from: usize,
) {
    for _ in 0..n.min(list.len()) {
        let (id, _) = list.remove(pick(list, 0, from));
        waiters[id].as_mut().unwrap().woken += 1;
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Small values, so limits are small and full/empty are reached.
    config: Config,
    epoch: usize,
    count: usize,
    ops: Vec<Op>,
}

fn shrink(v: u32) -> u32 {
    // Mostly small limits, sometimes the edges.
    match v % 8 {
        0 => v,
        1 => MAX_LIMIT.wrapping_add(v % 3).wrapping_sub(1),
        _ => v % 12,
    }
}

fn valid(c: &LimiterConfig) -> bool {
    c.min_limit >= 1
        && c.min_limit <= c.max_limit
        && c.max_limit <= MAX_LIMIT
        && (c.min_limit..=c.max_limit).contains(&c.initial_limit)
        && (1..=255).contains(&c.backoff)
        && c.tolerance >= 256
        && 1 <= c.background_share
        && c.background_share <= c.normal_share
        && c.normal_share <= 256
        && c.normal_reserve <= c.normal_share
        && c.background_reserve <= c.background_share
}

/// In flight below which a class is admitted (the documented rule).
fn threshold(limit: u32, class: usize, share: u16) -> usize {
    let l = limit as usize;
    if class == 0 {
        return l;
    }
    ((l * share as usize) >> 8).min(l.saturating_sub(1))
}

/// Permits a class with a non-zero reserve may hold whatever the others do.
fn reserved(limit: u32, reserve: u16) -> usize {
    let l = limit as usize;
    ((l * reserve as usize) >> 8)
        .max(1)
        .min(l.saturating_sub(1))
}

const CLASSES: [Priority; 3] = [Priority::Critical, Priority::Normal, Priority::Background];

fuzz_target!(|input: Input| {
    let c = &input.config;
    let config = LimiterConfig {
        law: if c.gradient { Law::Gradient } else { Law::Aimd },
        min_limit: shrink(c.min_limit),
        initial_limit: shrink(c.initial_limit),
        max_limit: shrink(c.max_limit),
        backoff: c.backoff % 300,
        tolerance: c.tolerance % 700,
        latency_floor: c.latency_floor % 64,
        normal_share: c.normal_share % 300,
        background_share: c.background_share % 300,
        normal_reserve: c.normal_reserve % 300,
        background_reserve: c.background_reserve % 300,
        enforce: !c.shadow,
        backlog: (c.backlog % 5) as u32,
        backlog_order: match c.order {
            1 => BacklogOrder::Fifo,
            2 => BacklogOrder::Adaptive,
            _ => BacklogOrder::Lifo,
        },
    };
    let gate = match Limiter::with_start(config, input.epoch, input.count) {
        Ok(a) => {
            assert!(valid(&config), "accepted an invalid config: {config:?}");
            assert!(Limiter::try_new(config).is_ok());
            a
        }
        Err(_) => {
            assert!(!valid(&config), "refused a valid config: {config:?}");
            assert!(Limiter::try_new(config).is_err());
            return;
        }
    };
    let shares = [256u16, config.normal_share, config.background_share];
    let reserves = [0u16, config.normal_reserve, config.background_reserve];
    let cut = |limit: u32| {
        ((limit as usize * config.backoff as usize) >> 8).max(config.min_limit as usize) as u32
    };

    // (permit, class, epochs at admission)
    let mut held: Vec<(Permit<'_>, usize, usize)> = Vec::new();
    // Units held, by the model.
    let units = |held: &[(Permit<'_>, usize, usize)]| -> usize {
        held.iter().map(|h| h.0.weight() as usize).sum()
    };
    let (mut admitted, mut dropped, mut ignored, mut succeeded) = (0usize, 0usize, 0usize, 0usize);
    let mut shed = [0usize; 3];
    let mut limit = config.initial_limit;
    let (mut decreases, mut increases, mut probes) = (0usize, 0usize, 0usize);
    // Epochs started: every cut, every gradient change, every probe's end.
    let mut epochs = 0usize;
    // The limit before the probe in progress.
    let mut before_probe = None;
    // The lowest and highest queue-free latency seen, in ticks as the
    // limiter takes them (0 counts as 1; at most 2^28 - 1).
    let mut free_seen: Option<(u32, u32)> = None;
    // The waiters (by id; `None` once gone), the linked ones in wake
    // order, and the backlog's counts.
    let mut waiters: Vec<Option<Waiter<'_>>> = Vec::new();
    let mut list: Vec<(usize, usize)> = Vec::new();
    let (mut queued, mut timed_out, mut peak) = (0usize, 0usize, 0usize);
    let lifo = !matches!(input.config.order, 1 | 2);
    // From how many linked waiters a wake takes the newest of a class.
    let from = if input.config.order == 2 {
        (input.config.backlog % 5).div_ceil(2) as usize
    } else {
        usize::MAX
    };
    // Whether a request of `class` for one unit is admitted now, and
    // whether only in shadow mode.
    let admits = |held: &[(Permit<'_>, usize, usize)], limit: u32, class: usize| {
        let in_flight: usize = held.iter().map(|h| h.0.weight() as usize).sum();
        let in_class: usize = held
            .iter()
            .filter(|h| h.1 == class)
            .map(|h| h.0.weight() as usize)
            .sum();
        let open = in_flight < threshold(limit, class, shares[class])
            || (reserves[class] != 0
                && in_flight + 1 < limit as usize
                && in_class < reserved(limit, reserves[class]));
        let shadow = !open && !config.enforce && in_flight < config.max_limit as usize;
        (open, shadow)
    };
    // Whether a refusal of `class` now raises the limit by one: nothing in
    // flight and a limit at which the class's share and reserve admit
    // nothing (below `max_limit`, limits enforced).
    let shut = |held: &[(Permit<'_>, usize, usize)], limit: u32, class: usize| {
        config.enforce
            && held.is_empty()
            && limit < config.max_limit
            && threshold(limit, class, shares[class]) == 0
            && (reserves[class] == 0 || limit < 2)
    };

    // Drops of permits of the current epoch since it started, and the
    // epoch they count for.
    let (mut epoch_drops, mut drops_epoch) = (0usize, 0usize);
    for op in &input.ops {
        if drops_epoch != epochs {
            (epoch_drops, drops_epoch) = (0, epochs);
        }
        let baseline_before = (gate.baseline(), gate.stats().mean);
        let mut queue_free = false;
        let mut from_epoch = None;
        match *op {
            Op::Acquire(p) | Op::AcquireN { class: p, .. } => {
                let class = p as usize % 3;
                // The weight asked for: 1 for `try_acquire_with`; else mostly
                // small, sometimes 0 or around `max_limit`.
                let n = match *op {
                    Op::AcquireN { n, .. } if n >= 240 => config
                        .max_limit
                        .wrapping_add((n - 240) as u32 % 3)
                        .wrapping_sub(1),
                    Op::AcquireN { n, .. } => n as u32 % 6,
                    _ => 1,
                };
                let w = n as usize;
                let in_flight = units(&held);
                let in_class: usize = held
                    .iter()
                    .filter(|h| h.1 == class)
                    .map(|h| h.0.weight() as usize)
                    .sum();
                let fits = (1..=config.max_limit as usize).contains(&w);
                let open = fits
                    && (in_flight + w <= threshold(limit, class, shares[class])
                        || (reserves[class] != 0
                            && in_flight + w < limit as usize
                            && in_class + w <= reserved(limit, reserves[class])));
                let shadow =
                    fits && !open && !config.enforce && in_flight + w <= config.max_limit as usize;
                let got = match *op {
                    Op::AcquireN { .. } => gate.try_acquire_n_with(CLASSES[class], n),
                    _ => gate.try_acquire_with(CLASSES[class]),
                };
                match got {
                    Some(permit) => {
                        assert!(open || shadow, "admitted over the class threshold");
                        if config.enforce {
                            assert!(in_flight + w <= limit as usize, "admitted over the limit");
                            if class != 0 {
                                assert!(in_flight + w < limit as usize, "took the last permit");
                            }
                        }
                        assert!(in_flight + w <= config.max_limit as usize);
                        assert_eq!(permit.weight(), n);
                        assert_eq!(permit.limit_at_admission(), limit);
                        assert_eq!(permit.in_flight_at_admission() as usize, in_flight + w);
                        held.push((permit, class, epochs));
                        admitted += w;
                        if shadow {
                            shed[class] += 1;
                        }
                    }
                    None => {
                        assert!(!open && !shadow, "shed below the class threshold");
                        shed[class] += 1;
                        // (A request heavier than the limit raises nothing.)
                        if fits && w <= limit as usize && shut(&held, limit, class) {
                            limit += 1;
                            increases += 1;
                            wake_n(&mut list, &mut waiters, 1, from);
                        }
                    }
                }
                assert_eq!(gate.limit(), limit);
            }
            Op::Wait(p) => {
                let class = p as usize % 3;
                let (open, shadow) = admits(&held, limit, class);
                let (count, waker) = WakeCount::waker();
                let mut fut = Box::pin(gate.acquire(CLASSES[class]));
                let live = waiters.iter().flatten().count();
                // Its first try, refused at a limit that admits the class
                // nothing, raises it (waking a waiter already there); its
                // try once it waits is made at the raised limit.
                let raised = !open && !shadow && shut(&held, limit, class);
                if raised {
                    limit += 1;
                    increases += 1;
                    wake_n(&mut list, &mut waiters, 1, from);
                }
                let then = admits(&held, limit, class);
                let waits_then = raised && live < config.backlog as usize;
                match fut.as_mut().poll(&mut Context::from_waker(&waker)) {
                    Poll::Ready(Some(permit)) if waits_then => {
                        assert!(then.0 || then.1, "a waiter admitted over the threshold");
                        held.push((permit, class, epochs));
                        admitted += 1;
                        shed[class] += usize::from(then.1);
                        queued += 1;
                        peak = peak.max(live + 1);
                    }
                    Poll::Ready(Some(permit)) => {
                        assert!(open || shadow, "a waiter admitted over the threshold");
                        held.push((permit, class, epochs));
                        admitted += 1;
                        shed[class] += usize::from(shadow);
                    }
                    Poll::Ready(None) => {
                        assert!(!open && !shadow, "a waiter shed below the threshold");
                        assert_eq!(
                            live, config.backlog as usize,
                            "shed with room in the backlog"
                        );
                        shed[class] += 1;
                    }
                    Poll::Pending => {
                        assert!(!open && !shadow, "a waiter waits below the threshold");
                        assert!(
                            !then.0 && !then.1,
                            "a waiter waits below the raised threshold"
                        );
                        assert!(live < config.backlog as usize, "waits past the backlog");
                        queued += 1;
                        peak = peak.max(live + 1);
                        link(&mut list, waiters.len(), class, lifo);
                        waiters.push(Some(Waiter {
                            fut,
                            count,
                            waker,
                            class,
                            woken: 0,
                        }));
                        // Its try once linked, refused at a limit that
                        // still admits the class nothing, raises it again
                        // (and the wake may be its own).
                        if shut(&held, limit, class) {
                            limit += 1;
                            increases += 1;
                            wake_n(&mut list, &mut waiters, 1, from);
                        }
                    }
                }
            }
            Op::PollWaiter(i) | Op::DropWaiter(i) if waiters.iter().flatten().count() > 0 => {
                let ids: Vec<usize> = (0..waiters.len())
                    .filter(|&k| waiters[k].is_some())
                    .collect();
                let id = ids[i as usize % ids.len()];
                let linked = list.iter().position(|&(k, _)| k == id);
                if let Some(at) = linked {
                    list.remove(at);
                }
                let mut w = waiters[id].take().unwrap();
                let class = w.class;
                if matches!(op, Op::DropWaiter(_)) {
                    drop(w);
                    timed_out += 1;
                    shed[class] += 1;
                    if linked.is_none() {
                        // Woken and gone without trying: the wake moves on.
                        wake_first(&mut list, &mut waiters, from);
                    }
                } else {
                    let (open, shadow) = admits(&held, limit, class);
                    match w.fut.as_mut().poll(&mut Context::from_waker(&w.waker)) {
                        Poll::Ready(Some(permit)) => {
                            assert!(open || shadow, "a waiter admitted over the threshold");
                            held.push((permit, class, epochs));
                            admitted += 1;
                            shed[class] += usize::from(shadow);
                            // Woken, and a unit still free: it wakes the
                            // list's first.
                            if linked.is_none() && units(&held) < limit as usize {
                                wake_first(&mut list, &mut waiters, from);
                            }
                        }
                        Poll::Pending => {
                            assert!(
                                !open && !shadow,
                                "a waiter left waiting below the threshold"
                            );
                            // Kept in place if it was linked; a woken one
                            // goes back to its place in its class, and with
                            // a unit free wakes the first of a lower class.
                            match linked {
                                Some(at) => list.insert(at, (id, class)),
                                None => link(&mut list, id, class, lifo),
                            }
                            waiters[id] = Some(w);
                            // Its try once linked, refused with nothing in
                            // flight at a limit that admits the class
                            // nothing, raises the limit (the first waiter,
                            // maybe itself, is woken), before the pass-down.
                            if shut(&held, limit, class) {
                                limit += 1;
                                increases += 1;
                                wake_n(&mut list, &mut waiters, 1, from);
                            }
                            if linked.is_none() && units(&held) < limit as usize {
                                if let Some(at) = list.iter().position(|&(_, c)| c > class) {
                                    let (other, _) = list.remove(pick(&list, at, from));
                                    waiters[other].as_mut().unwrap().woken += 1;
                                }
                            }
                        }
                        Poll::Ready(None) => panic!("a waiter in the backlog shed"),
                    }
                }
            }
            Op::Success { which, ticks } if !held.is_empty() => {
                let (permit, _, epoch) = held.swap_remove(which as usize % held.len());
                queue_free = permit.in_flight_at_admission() <= config.min_limit;
                from_epoch = Some(epoch);
                let w = permit.weight() as usize;
                succeeded += w;
                permit.success(ticks);
                wake_n(&mut list, &mut waiters, w, from);
                if queue_free {
                    let t = ticks.clamp(1, u32::MAX >> 4);
                    let (lo, hi) = free_seen.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t)));
                    free_seen = Some((lo, hi));
                    let (b, m) = (gate.baseline().unwrap(), gate.stats().mean.unwrap());
                    assert!((lo..=hi).contains(&b), "baseline {b} outside {lo}..={hi}");
                    assert!((lo..=hi).contains(&m), "mean {m} outside {lo}..={hi}");
                }
            }
            Op::Dropped(which) if !held.is_empty() => {
                let (permit, _, epoch) = held.swap_remove(which as usize % held.len());
                from_epoch = Some(epoch);
                if epoch == epochs {
                    epoch_drops += 1;
                }
                let w = permit.weight() as usize;
                dropped += w;
                permit.dropped();
                wake_n(&mut list, &mut waiters, w, from);
                assert_eq!(
                    (gate.baseline(), gate.stats().mean),
                    baseline_before,
                    "a drop moved the baseline"
                );
            }
            Op::Ignore(which) | Op::Forget(which) if !held.is_empty() => {
                let (permit, ..) = held.swap_remove(which as usize % held.len());
                let w = permit.weight() as usize;
                ignored += w;
                if matches!(op, Op::Ignore(_)) {
                    permit.ignore();
                } else {
                    drop(permit);
                }
                wake_n(&mut list, &mut waiters, w, from);
                assert_eq!(gate.limit(), limit);
                assert_eq!(
                    (gate.baseline(), gate.stats().mean),
                    baseline_before,
                    "an ignore moved the baseline"
                );
            }
            _ => {}
        }
        if !queue_free {
            assert_eq!(
                (gate.baseline(), gate.stats().mean),
                baseline_before,
                "a queued or non-success outcome moved the baseline"
            );
        }
        let s = gate.stats();
        let now = s.limit;
        if let Some(epoch) = from_epoch {
            let current = epoch == epochs;
            if now < limit {
                assert!(current, "a stale permit moved the limit {limit} -> {now}");
                let probe = s.probes == probes + 1;
                if probe {
                    assert_eq!(now, config.min_limit, "a probe goes to min_limit");
                    before_probe = Some(limit);
                    probes += 1;
                } else if matches!(op, Op::Dropped(_)) || config.law == Law::Aimd {
                    assert_eq!(now, cut(limit), "bad cut {limit} -> {now}");
                    // Once a mean exists, a gradient drop cuts only when the
                    // window's drops pass 8 (and half its successes); the
                    // window's drops are some of the epoch's.
                    if config.law == Law::Gradient
                        && matches!(op, Op::Dropped(_))
                        && baseline_before.1.is_some()
                    {
                        assert!(
                            epoch_drops > 8,
                            "a drop cut with {epoch_drops} in its epoch"
                        );
                    }
                    before_probe = None;
                } else {
                    assert!(
                        now >= (limit / 2).max(config.min_limit),
                        "bad scale {limit} -> {now}"
                    );
                    before_probe = None;
                }
                decreases += 1;
                epochs += 1;
            } else if now > limit {
                assert!(current, "a stale permit grew the limit {limit} -> {now}");
                // A success grows it, or a drop of a probe's permit ends
                // the probe, back to the limit before it.
                assert!(
                    matches!(op, Op::Success { .. })
                        || (matches!(op, Op::Dropped(_)) && before_probe == Some(now)),
                    "only a success grows, or a drop ends a probe"
                );
                assert!(now <= config.max_limit);
                match before_probe.take() {
                    Some(back) if now == back => epochs += 1,
                    other => {
                        if config.law == Law::Gradient {
                            epochs += 1;
                        }
                        before_probe = other;
                        let most = if config.law == Law::Gradient {
                            2 * limit
                        } else {
                            limit + (limit / 4).max(1)
                        };
                        assert!(now <= most, "bad growth {limit} -> {now}");
                    }
                }
                increases += 1;
                // The new units wake as many waiters (after the release's).
                wake_n(&mut list, &mut waiters, (now - limit) as usize, from);
            }
        }
        limit = now;
        assert!((config.min_limit..=config.max_limit).contains(&limit));
        assert_eq!(s.in_flight as usize, units(&held));
        assert_eq!(gate.in_flight() as usize, units(&held));
        // Each of the three release counters starts at `count`, so the
        // admitted count starts at `3 · count` (all wrapping).
        assert_eq!(
            s.admitted.wrapping_sub(input.count.wrapping_mul(3)),
            admitted
        );
        assert_eq!(s.succeeded.wrapping_sub(input.count), succeeded);
        assert_eq!(s.dropped.wrapping_sub(input.count), dropped);
        assert_eq!(s.ignored.wrapping_sub(input.count), ignored);
        assert_eq!(
            s.admitted,
            s.succeeded
                .wrapping_add(s.dropped)
                .wrapping_add(s.ignored)
                .wrapping_add(s.in_flight as usize)
        );
        assert_eq!(s.shed, shed);
        assert_eq!(
            (s.queued, s.timed_out, s.backlog_peak),
            (queued, timed_out, peak)
        );
        for w in waiters.iter().flatten() {
            assert_eq!(w.count.wakes(), w.woken, "a wake went astray");
        }
        assert_eq!(
            (s.decreases, s.increases, s.probes),
            (decreases, increases, probes)
        );
    }
    drop(waiters);
    drop(held);
    assert_eq!(gate.in_flight(), 0);
});
