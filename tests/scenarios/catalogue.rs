//! The scenarios. Each constructor takes its duration (or the part of it that
//! can be shortened), so the test file runs short versions of the same
//! scenarios and the example the full ones; [`catalogue`] lists the full set.
//!
//! Unless a scenario says otherwise: 8 workers, service 10 ms ± 10 %
//! (uniform), client timeout 100 ms, 1 µs clock, limits min 2 / initial =
//! workers / max 200, all requests `Normal` (and the comparison with the
//! anchors on all of them), statistics over 5 s to the end.
//! "Load" is the arrival rate over the capacity (workers / mean service).

use super::harness::{
    Backlog, BacklogOrder, Burst, Check, ClosedLoop, Door, Kind, Limits, Scenario, Service, Window,
};

const MS: u64 = 1000;
const S: u64 = 1_000_000;

/// FNV-1a of the name: every scenario has its own fixed seed.
fn seed_of(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// The common defaults with `workers`, `service` and `load` (× capacity).
pub fn base(
    name: &str,
    about: &str,
    workers: u32,
    service: Service,
    load: f64,
    secs: u64,
) -> Scenario {
    let rate = load * workers as f64 * 1e6 / service.mean_us();
    Scenario {
        name: name.to_string(),
        about: about.to_string(),
        kind: Kind::Plain,
        seed: seed_of(name),
        duration_us: secs * S,
        tick_us: 1,
        timeout_us: 100 * MS,
        door: Door::Fifo,
        check: Check::Expired,
        retry: None,
        backlog: None,
        workers: vec![(0, workers)],
        service,
        slow: Vec::new(),
        rate_per_s: rate,
        rate_steps: Vec::new(),
        clients: None,
        burst: None,
        classes: [0, 1000, 0],
        goal_class: None,
        limits: Limits {
            min: 2,
            initial: workers,
            max: 200,
        },
        windows: vec![Window::secs(5.0, secs as f64)],
        reach: Vec::new(),
        marks: Vec::new(),
        below_half_from: None,
        settle_us: None,
    }
}

/// 10 ms ± `pct` %.
pub fn uniform(pct: u32) -> Service {
    Service::Uniform {
        mean_us: 10 * MS,
        spread_pct: pct,
    }
}

/// The demo's service at `load_pct` % load (the load sweep).
pub fn load(load_pct: u32, secs: u64) -> Scenario {
    base(
        &format!("load-{load_pct}"),
        &format!("8 workers × 10 ms ± 10 %, {load_pct} % load"),
        8,
        uniform(10),
        load_pct as f64 / 100.0,
        secs,
    )
}

/// The ratchet: 2× load, 10 ms ± 10 %, timeout 1 s, max limit 1000 (so a
/// climbing baseline shows in full); statistics over the last third.
pub fn ratchet(workers: u32, secs: u64) -> Scenario {
    let mut sc = base(
        &format!("ratchet-{workers}w"),
        &format!("{workers} workers × 10 ms ± 10 %, 2× load, timeout 1 s"),
        workers,
        uniform(10),
        2.0,
        secs,
    );
    sc.kind = Kind::Ratchet;
    sc.timeout_us = S;
    sc.limits.max = 1000;
    sc.windows = vec![Window::secs((secs * 2 / 3) as f64, secs as f64)];
    sc
}

/// The ratchet over a long run, statistics over the last sixth.
pub fn ratchet_long(workers: u32, secs: u64) -> Scenario {
    let mut sc = ratchet(workers, secs);
    sc.name = format!("ratchet-long-{workers}w");
    sc.about = format!("{} s: {}", secs, sc.about);
    sc.windows = vec![Window::secs((secs * 5 / 6) as f64, secs as f64)];
    sc.marks = [10, 60, 120, 300, secs - 1]
        .iter()
        .filter(|&&t| t < secs)
        .map(|&t| t * S)
        .collect();
    sc
}

/// The ratchet at the demo's timeout (100 ms), 2× load, 8 workers.
pub fn ratchet_demo(secs: u64) -> Scenario {
    let mut sc = base(
        "ratchet-8w-t100",
        "8 workers × 10 ms ± 10 %, 2× load, timeout 100 ms",
        8,
        uniform(10),
        2.0,
        secs,
    );
    sc.kind = Kind::Ratchet;
    sc
}

/// Uniform spread ± `pct` % at `load_pct` %.
pub fn spread(pct: u32, load_pct: u32, secs: u64) -> Scenario {
    base(
        &format!("spread-{pct}-{load_pct}"),
        &format!("8 workers × 10 ms ± {pct} %, {load_pct} % load"),
        8,
        uniform(pct),
        load_pct as f64 / 100.0,
        secs,
    )
}

/// Exponential service, mean 10 ms.
pub fn exponential(load_pct: u32, secs: u64) -> Scenario {
    base(
        &format!("exp-{load_pct}"),
        &format!("8 workers, exponential service mean 10 ms, {load_pct} % load"),
        8,
        Service::Exponential { mean_us: 10 * MS },
        load_pct as f64 / 100.0,
        secs,
    )
}

/// 80 % hits of 1 ms, 20 % misses of 20 ms, each ± 10 %.
pub fn bimodal(load_pct: u32, secs: u64) -> Scenario {
    base(
        &format!("bimodal-{load_pct}"),
        &format!("8 workers, 80 % 1 ms hits / 20 % 20 ms misses, {load_pct} % load"),
        8,
        Service::Bimodal {
            hit_us: MS,
            miss_us: 20 * MS,
            miss_pct: 20,
        },
        load_pct as f64 / 100.0,
        secs,
    )
}

/// Lognormal, median 6 ms, σ 1 (mean 9.9 ms, p99 61 ms).
pub fn lognormal(load_pct: u32, secs: u64) -> Scenario {
    base(
        &format!("lognormal-{load_pct}"),
        &format!("8 workers, lognormal service median 6 ms σ 1.0, {load_pct} % load"),
        8,
        Service::LogNormal {
            median_us: 6 * MS,
            sigma_centi: 100,
        },
        load_pct as f64 / 100.0,
        secs,
    )
}

/// 2 % of requests hang for 500 ms (always past the 100 ms timeout).
pub fn hung(load_pct: u32, secs: u64) -> Scenario {
    base(
        &format!("hung-{load_pct}"),
        &format!("8 workers × 10 ms ± 10 %, 2 % hang 500 ms, {load_pct} % load"),
        8,
        Service::Hung {
            mean_us: 10 * MS,
            hung_us: 500 * MS,
            hung_permille: 20,
        },
        load_pct as f64 / 100.0,
        secs,
    )
}

/// 4 workers × 1.2 ms ± 10 %, latency read on a 1 ms clock.
pub fn tick_1ms(load_pct: u32, secs: u64) -> Scenario {
    let mut sc = base(
        &format!("tick-1ms-{load_pct}"),
        &format!("4 workers × 1.2 ms ± 10 %, 1 ms clock, {load_pct} % load"),
        4,
        Service::Uniform {
            mean_us: 1200,
            spread_pct: 10,
        },
        load_pct as f64 / 100.0,
        secs,
    );
    sc.tick_us = MS;
    sc
}

/// Workers 8 → 16 at 20 s under 2400/s (3× before, 1.5× after).
pub fn capacity_8_to_16() -> Scenario {
    let mut sc = base(
        "capacity-8to16",
        "8 → 16 workers × 10 ms ± 10 % at 20 s, 2400/s (3× then 1.5×)",
        8,
        uniform(10),
        3.0,
        40,
    );
    sc.kind = Kind::Transient;
    sc.workers = vec![(0, 8), (20 * S, 16)];
    sc.windows = vec![
        Window::secs(25.0, 40.0),
        Window::secs(10.0, 20.0),
        Window::secs(20.0, 21.0),
        Window::secs(21.0, 25.0),
    ];
    sc.reach = vec![(20 * S, 16), (20 * S, 18)];
    sc.marks = [15, 20, 21, 25, 39].iter().map(|t| t * S).collect();
    sc
}

/// Workers 64 → 128 × 50 ms at `at_s` under 3840/s (3× before, 1.5× after),
/// timeout 500 ms, max limit 1000.
pub fn capacity_64_to_128(at_s: u64, secs: u64) -> Scenario {
    let mut sc = base(
        "capacity-64to128",
        &format!("64 → 128 workers × 50 ms ± 10 % at {at_s} s, 3840/s, timeout 500 ms"),
        64,
        Service::Uniform {
            mean_us: 50 * MS,
            spread_pct: 10,
        },
        3.0,
        secs,
    );
    sc.kind = Kind::Transient;
    sc.timeout_us = 500 * MS;
    sc.limits.max = 1000;
    sc.workers = vec![(0, 64), (at_s * S, 128)];
    let at = at_s as f64;
    sc.windows = vec![
        Window::secs(at + 10.0, secs as f64),
        Window::secs(at / 2.0, at),
        Window::secs(at, at + 2.0),
        Window::secs(at + 2.0, at + 10.0),
    ];
    sc.reach = vec![(at_s * S, 128), (at_s * S, 144)];
    sc
}

/// Service × 10 for 1 s at 20 s, 80 % load, timeout 500 ms.
pub fn spike() -> Scenario {
    let mut sc = base(
        "spike-10x",
        "8 workers × 10 ms ± 10 %, 80 % load, service ×10 during 20–21 s, timeout 500 ms",
        8,
        uniform(10),
        0.8,
        30,
    );
    sc.kind = Kind::Transient;
    sc.timeout_us = 500 * MS;
    sc.slow = vec![(20 * S, 21 * S, 10.0)];
    sc.windows = vec![
        Window::secs(5.0, 30.0),
        Window::secs(10.0, 20.0),
        Window::secs(20.0, 21.0),
        Window::secs(21.0, 22.0),
        Window::secs(22.0, 30.0),
    ];
    sc.marks = [19, 20, 21, 22, 25].iter().map(|t| t * S).collect();
    sc
}

/// 10 → 20 ms at 20 s, back to 10 ms at 40 s; 640/s (80 % then 160 %).
pub fn slowdown_and_back() -> Scenario {
    let mut sc = base(
        "slowdown-x2-and-back",
        "8 workers, 10 → 20 ms at 20 s → 10 ms at 40 s, 640/s (80 % / 160 %)",
        8,
        uniform(10),
        0.8,
        60,
    );
    sc.kind = Kind::Transient;
    sc.slow = vec![(20 * S, 40 * S, 2.0)];
    sc.windows = vec![
        Window::secs(5.0, 60.0),
        Window::secs(10.0, 20.0),
        Window::secs(20.0, 25.0),
        Window::secs(25.0, 40.0),
        Window::secs(40.0, 45.0),
        Window::secs(45.0, 60.0),
    ];
    sc.marks = [19, 21, 25, 30, 39, 41, 50].iter().map(|t| t * S).collect();
    sc
}

/// 10 → 30 ms for good at 20 s; 640/s (80 % then 240 %).
pub fn slowdown_x3() -> Scenario {
    let mut sc = base(
        "slowdown-x3",
        "8 workers, 10 → 30 ms at 20 s for good, 640/s (80 % / 240 %)",
        8,
        uniform(10),
        0.8,
        40,
    );
    sc.kind = Kind::Transient;
    sc.slow = vec![(20 * S, u64::MAX, 3.0)];
    sc.windows = vec![
        Window::secs(25.0, 40.0),
        Window::secs(10.0, 20.0),
        Window::secs(20.0, 25.0),
    ];
    sc.marks = [19, 21, 25, 30, 39].iter().map(|t| t * S).collect();
    sc
}

/// 5 req/s plus bursts of 12 every 10 s, 8 × 20 ms, service × `factor`
/// for good from `at_s`, timeout 1 s.
pub fn low_traffic(factor: u32, at_s: u64, secs: u64) -> Scenario {
    let mut sc = base(
        &format!("low-traffic-x{factor}"),
        &format!(
            "5 req/s + bursts of 12 every 10 s, 8 workers × 20 ms ± 10 %, ×{factor} from {at_s} s, timeout 1 s"
        ),
        8,
        Service::Uniform {
            mean_us: 20 * MS,
            spread_pct: 10,
        },
        1.0,
        secs,
    );
    sc.kind = Kind::LowTraffic;
    sc.rate_per_s = 5.0;
    sc.burst = Some(Burst {
        first_us: 5 * S,
        period_us: 10 * S,
        size: 12,
    });
    sc.timeout_us = S;
    sc.slow = vec![(at_s * S, u64::MAX, factor as f64)];
    let mid = at_s + (secs - at_s) * 3 / 8;
    sc.windows = vec![
        Window::secs(at_s as f64, secs as f64),
        Window::secs(0.0, at_s as f64),
        Window::secs(at_s as f64, mid as f64),
        Window::secs(mid as f64, secs as f64),
    ];
    sc.below_half_from = Some(at_s * S);
    sc
}

/// Sustained 2× load with 20 % critical, 50 % normal, 30 % background.
pub fn classes(secs: u64) -> Scenario {
    let mut sc = base(
        "classes-2x",
        "8 workers × 10 ms ± 10 %, 2× load, 20 % critical / 50 % normal / 30 % background",
        8,
        uniform(10),
        2.0,
        secs,
    );
    sc.kind = Kind::Classes;
    sc.classes = [200, 500, 300];
    sc
}

/// One worker, limit fixed at 1, 150 % load, a third of each class. Only
/// Critical may take the last (here the only) permit, so the comparison
/// with the anchors is on Critical's good answers.
pub fn classes_limit1(secs: u64) -> Scenario {
    let mut sc = base(
        "classes-limit1",
        "1 worker × 10 ms ± 10 %, limit 1, 150 % load, a third of each class",
        1,
        uniform(10),
        1.5,
        secs,
    );
    sc.kind = Kind::Classes;
    sc.classes = [333, 333, 334];
    sc.goal_class = Some(0);
    sc.limits = Limits {
        min: 1,
        initial: 1,
        max: 1,
    };
    sc
}

/// 8 workers × 5 ms ± 20 %, min limit 8, `clients` closed-loop clients
/// (think 1 ms, back-off 10 ms after a refusal, as `population` says) and
/// no open-loop arrivals; the goal windows start 5 s after `settle_s`.
fn closed_base(
    name: &str,
    about: &str,
    population: Vec<(u64, u32)>,
    settle_s: u64,
    secs: u64,
) -> Scenario {
    let mut sc = base(
        name,
        about,
        8,
        Service::Uniform {
            mean_us: 5 * MS,
            spread_pct: 20,
        },
        1.0,
        secs,
    );
    sc.kind = Kind::Settle;
    sc.rate_per_s = 0.0;
    sc.clients = Some(ClosedLoop {
        population,
        think_us: MS,
        backoff_us: 10 * MS,
    });
    sc.limits = Limits {
        min: 8,
        initial: 8,
        max: 200,
    };
    let from = (settle_s + 5).min(secs.saturating_sub(1));
    sc.windows = vec![Window::secs(from as f64, secs as f64)];
    sc.windows
        .extend((from..secs).map(|t| Window::secs(t as f64, (t + 1) as f64)));
    sc.marks = vec![
        settle_s * S,
        (settle_s + 1) * S,
        from * S,
        (from + secs) / 2 * S,
        (secs * S).saturating_sub(SAMPLE_MARK),
    ];
    sc.settle_us = Some(settle_s * S);
    sc
}

/// Last trajectory mark: one sample before the end.
const SAMPLE_MARK: u64 = 10 * MS;

/// `clients` closed-loop clients from the start.
pub fn closed_loop(clients: u32, secs: u64) -> Scenario {
    closed_base(
        &format!("closed-{clients}"),
        &format!("{clients} closed-loop clients (think 1 ms, back-off 10 ms), 8 workers × 5 ms ± 20 %, min 8"),
        vec![(0, clients)],
        0,
        secs,
    )
}

/// 4 clients (every sample queue-free), a stall that makes the requests
/// started in `stall_ms` ms 9× slower just before 64 clients arrive at 5 s:
/// a baseline taught by the stall must come back down.
pub fn stall_then_load(stall_ms: u64, secs: u64) -> Scenario {
    let mut sc = closed_base(
        &format!("stall-{stall_ms}ms-then-64"),
        &format!("4 clients, requests started in {stall_ms} ms at 4.8 s 9× slower, 64 clients from 5 s; 8 × 5 ms, min 8"),
        vec![(0, 4), (5 * S, 64)],
        5,
        secs,
    );
    sc.slow = vec![(4800 * MS, 4800 * MS + stall_ms * MS, 9.0)];
    sc
}

/// 64 clients; the requests started in 50 ms at 6 s are 9× slower.
pub fn stall_under_load(secs: u64) -> Scenario {
    let mut sc = closed_base(
        "stall-under-64",
        "64 clients, requests started in 50 ms at 6 s 9× slower; 8 × 5 ms, min 8",
        vec![(0, 64)],
        6,
        secs,
    );
    sc.slow = vec![(6 * S, 6 * S + 50 * MS, 9.0)];
    sc
}

/// 64 clients; a cache that warms: requests started in the first 500 ms
/// are 6× slower.
pub fn cold_start(secs: u64) -> Scenario {
    let mut sc = closed_base(
        "cold-start-64",
        "64 clients, the first 500 ms 6× slower (a cold cache); 8 × 5 ms, min 8",
        vec![(0, 64)],
        0,
        secs,
    );
    sc.slow = vec![(0, 500 * MS, 6.0)];
    sc
}

/// 64 clients; the dependency is `factor`× slower from 5 s for `len_s`
/// seconds, then as before: a baseline that rose with it (and was
/// confirmed, for a slowdown longer than a check) must come back down.
pub fn slowdown_under_load(factor: f64, len_s: u64, secs: u64) -> Scenario {
    let mut sc = closed_base(
        &format!("slowdown-x{factor}-{len_s}s-under-64"),
        &format!(
            "64 clients, the dependency {factor}× slower from 5 s for {len_s} s; 8 × 5 ms, min 8"
        ),
        vec![(0, 64)],
        5 + len_s,
        secs,
    );
    sc.slow = vec![(5 * S, (5 + len_s) * S, factor)];
    sc
}

/// 128 clients on 32 workers × 5 ms ± 20 % with the default `min_limit`
/// of 2 (a queue-free sample needs at most 2 in flight, so the baseline
/// stays young under load); the dependency 3× slower from 5 s for 10 s.
pub fn slowdown_min2(secs: u64) -> Scenario {
    let mut sc = closed_base(
        "slowdown-x3-10s-under-128-min2",
        "128 clients, the dependency 3× slower from 5 s for 10 s; 32 × 5 ms, min 2",
        vec![(0, 128)],
        15,
        secs,
    );
    sc.workers = vec![(0, 32)];
    sc.limits = Limits {
        min: 2,
        initial: 8,
        max: 1000,
    };
    sc.slow = vec![(5 * S, 15 * S, 3.0)];
    sc
}

/// The closed-loop, stall and slowdown scenarios at full length.
pub fn settling() -> Vec<Scenario> {
    let mut v: Vec<Scenario> = [16, 64, 256].map(|c| closed_loop(c, 60)).into();
    v.extend([15, 40, 300].map(|ms| stall_then_load(ms, 60)));
    v.push(stall_under_load(60));
    v.push(cold_start(60));
    v.push(slowdown_under_load(3.0, 10, 60));
    v.push(slowdown_under_load(1.6, 20, 60));
    v.push(slowdown_min2(60));
    v
}

/// Requests the limiter refuses wait in a backlog of 100 for a permit (the
/// waiting acquires) instead of being shed, at `load_pct` % of capacity:
/// 16 workers × 10 ms ± 20 %, client deadline 100 ms, served in `order`.
pub fn blocking(load_pct: u32, order: BacklogOrder, secs: u64) -> Scenario {
    let order_name = name_of(order);
    let mut sc = base(
        &format!("blocking-{order_name}-{load_pct}"),
        &format!("{load_pct} % load; refused requests wait (backlog of 100, {order_name})"),
        16,
        uniform(20),
        load_pct as f64 / 100.0,
        secs,
    );
    sc.backlog = Some(Backlog { size: 100, order });
    sc
}

/// The backlog order's name in the scenarios' names.
fn name_of(order: BacklogOrder) -> &'static str {
    match order {
        BacklogOrder::Lifo => "lifo",
        BacklogOrder::Fifo => "fifo",
        BacklogOrder::Adaptive => "adaptive",
    }
}

/// [`blocking`] with the classes 20 / 50 / 30 % Critical / Normal /
/// Background: a lower class waits longest, so oldest first its waiters
/// are admitted near the deadline and some answer late.
pub fn blocking_classes(load_pct: u32, order: BacklogOrder, secs: u64) -> Scenario {
    let mut sc = blocking(load_pct, order, secs);
    let order_name = name_of(order);
    sc.name = format!("blocking-{order_name}-classes-{load_pct}");
    sc.about = format!(
        "{load_pct} % load; refused requests wait (backlog of 100, {order_name}), classes 20/50/30 %"
    );
    sc.classes = [200, 500, 300];
    sc
}

/// [`blocking_classes`] at 1.5× with most of the traffic Background
/// (10/10/80 %): oldest first, Background, held to its share, is admitted
/// only from the stale end of a full backlog.
pub fn blocking_background(order: BacklogOrder, secs: u64) -> Scenario {
    let mut sc = blocking_classes(150, order, secs);
    let order_name = name_of(order);
    sc.name = format!("blocking-{order_name}-background-150");
    sc.about = format!(
        "150 % load; refused requests wait (backlog of 100, {order_name}), classes 10/10/80 %"
    );
    sc.classes = [100, 100, 800];
    sc
}

/// The waiting acquires at 1.2×, 2× and 3× load (LIFO), at 2× FIFO, and
/// FIFO with classes at 1.2×, 1.5× (mostly Background) and 2×; adaptive
/// LIFO at 2× and with the classes of the FIFO ones.
pub fn blocking_all(secs: u64) -> Vec<Scenario> {
    use BacklogOrder::{Adaptive, Fifo, Lifo};
    vec![
        blocking(120, Lifo, secs),
        blocking(200, Lifo, secs),
        blocking(300, Lifo, secs),
        blocking(200, Fifo, secs),
        blocking_classes(120, Fifo, secs),
        blocking_classes(200, Fifo, secs),
        blocking_background(Fifo, secs),
        blocking(200, Adaptive, secs),
        blocking_classes(120, Adaptive, secs),
        blocking_classes(200, Adaptive, secs),
        blocking_background(Adaptive, secs),
    ]
}

/// Every scenario at full length, in table order.
pub fn catalogue() -> Vec<Scenario> {
    let mut v = vec![ratchet_demo(60)];
    v.extend([4, 8, 16, 32, 64].map(|w| ratchet(w, 30)));
    v.extend([8, 64].map(|w| ratchet_long(w, 600)));
    v.extend([50, 90, 120, 200, 300].map(|l| load(l, 30)));
    for l in [50, 150] {
        v.extend([10, 20, 30, 50, 90].map(|p| spread(p, l, 30)));
    }
    for l in [50, 150] {
        v.push(exponential(l, 30));
        v.push(bimodal(l, 30));
        v.push(lognormal(l, 30));
        v.push(hung(l, 30));
        v.push(tick_1ms(l, 30));
    }
    v.push(capacity_8_to_16());
    v.push(capacity_64_to_128(20, 60));
    v.push(spike());
    v.push(slowdown_and_back());
    v.push(slowdown_x3());
    v.push(low_traffic(3, 120, 600));
    v.push(low_traffic(2, 120, 600));
    v.push(classes(30));
    v.push(classes_limit1(30));
    v.extend(settling());
    v
}
