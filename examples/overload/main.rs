//! The overload stand: good-put, p50/p99, shed rate and wasted work for every
//! policy from 0.5× to 3× the service's capacity, and what happens when the
//! service slows down mid-run.
//!
//! By default a deterministic discrete-event simulation on virtual time (see
//! `sim.rs`): the queues and gates are the crate's real `mpmc::Ring` and
//! `limit::Limiter`, driven single-threaded on virtual ticks, so the numbers are
//! the same on every machine. `--real` runs a smaller stand on OS threads with
//! the primitives as they run in production (see `real.rs`).
//!
//! ```text
//! cargo run --release --example overload                # simulation, table, SVG
//! cargo run --release --example overload -- --out x.svg # SVG elsewhere
//! cargo run --release --example overload -- --real      # OS threads
//! ```

mod plot;
mod real;
mod sim;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use sim::{Check, Policy, Run, Scenario, Window, MS, SECOND};

/// A row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// Label in the tables and the plot.
    pub name: &'static str,
    /// The front door.
    pub policy: Policy,
    /// The workers' deadline check.
    pub check: Check,
}

const ROWS: &[Row] = &[
    Row {
        name: "1 unbounded, no check",
        policy: Policy::Unbounded,
        check: Check::None,
    },
    Row {
        name: "1 unbounded",
        policy: Policy::Unbounded,
        check: Check::Expired,
    },
    Row {
        name: "1 unbounded, budget chk",
        policy: Policy::Unbounded,
        check: Check::Budget,
    },
    Row {
        name: "2 ring 16, reject",
        policy: Policy::Reject,
        check: Check::Expired,
    },
    Row {
        name: "2b ring 16, block",
        policy: Policy::Block,
        check: Check::Expired,
    },
    Row {
        name: "2c ring 16, expire",
        policy: Policy::Reject,
        check: Check::Fresh,
    },
    Row {
        name: "2d ring 16, block+exp",
        policy: Policy::Block,
        check: Check::Fresh,
    },
    Row {
        name: "2e ring 16, slowed src",
        policy: Policy::Slowed,
        check: Check::Expired,
    },
    Row {
        name: "2f slowed src+exp",
        policy: Policy::Slowed,
        check: Check::Fresh,
    },
    Row {
        name: "3 ring 16, drop oldest",
        policy: Policy::DropOldest,
        check: Check::Expired,
    },
    Row {
        name: "4 static limit 4",
        policy: Policy::Static(4),
        check: Check::Expired,
    },
    Row {
        name: "4 static limit 64",
        policy: Policy::Static(64),
        check: Check::Expired,
    },
    Row {
        name: "5 AIMD",
        policy: Policy::Aimd,
        check: Check::Expired,
    },
    Row {
        name: "6 AIMD, 2 classes",
        policy: Policy::AimdClasses,
        check: Check::Expired,
    },
    Row {
        name: "7 gradient",
        policy: Policy::Gradient,
        check: Check::Expired,
    },
];

/// Rows of the heavy-tail and wide-pool tables: the policies that bound
/// the queue (the unbounded ones collapse there as in the main table).
const HARD_ROWS: &[Row] = &[
    Row {
        name: "2 ring 16, reject",
        policy: Policy::Reject,
        check: Check::Expired,
    },
    Row {
        name: "3 ring 16, drop oldest",
        policy: Policy::DropOldest,
        check: Check::Expired,
    },
    Row {
        name: "4 static limit 8",
        policy: Policy::Static(8),
        check: Check::Expired,
    },
    Row {
        name: "4 static limit 64",
        policy: Policy::Static(64),
        check: Check::Expired,
    },
    Row {
        name: "5 AIMD",
        policy: Policy::Aimd,
        check: Check::Expired,
    },
    Row {
        name: "6 AIMD, 2 classes",
        policy: Policy::AimdClasses,
        check: Check::Expired,
    },
    Row {
        name: "7 gradient",
        policy: Policy::Gradient,
        check: Check::Expired,
    },
];

/// The hard cases, at 2x load: (title, the scenario for a policy).
type Hard = (&'static str, fn(Policy) -> Scenario);
const HARD: &[Hard] = &[
    (
        "exponential service times (mean 10 ms; the default rows are +-10 %)",
        |p| {
            let mut sc = Scenario::base(p, 200);
            sc.spread = sim::Spread::Exponential;
            sc
        },
    ),
    ("a wide pool: 64 workers x 10 ms (6400 requests/s)", |p| {
        let mut sc = Scenario::base(p, 200);
        sc.workers = 64;
        sc
    }),
];

const LOADS: &[u64] = &[50, 90, 120, 150, 200, 300];

/// The slowdown run: offered load in % of the capacity before the change.
const SLOW_LOAD: u64 = 80;
/// When the service slows down, and the windows compared before and after.
const SLOW_AT: u64 = 20 * SECOND;
const SLOW_END: u64 = 50 * SECOND;
const BEFORE: (u64, u64) = (5 * SECOND, SLOW_AT);
/// The first 5 s after the change: how fast each policy adapts.
const RIGHT_AFTER: (u64, u64) = (SLOW_AT, SLOW_AT + 5 * SECOND);
const AFTER: (u64, u64) = (SLOW_AT + 5 * SECOND, SLOW_END);

/// Policies compared across the slowdown.
const SLOW_ROWS: &[Row] = &[
    Row {
        name: "1 unbounded",
        policy: Policy::Unbounded,
        check: Check::Expired,
    },
    Row {
        name: "2 ring 16, reject",
        policy: Policy::Reject,
        check: Check::Expired,
    },
    Row {
        name: "4 static limit 4",
        policy: Policy::Static(4),
        check: Check::Expired,
    },
    Row {
        name: "4 static limit 16",
        policy: Policy::Static(16),
        check: Check::Expired,
    },
    Row {
        name: "4 static limit 64",
        policy: Policy::Static(64),
        check: Check::Expired,
    },
    Row {
        name: "5 AIMD",
        policy: Policy::Aimd,
        check: Check::Expired,
    },
    Row {
        name: "6 AIMD, 2 classes",
        policy: Policy::AimdClasses,
        check: Check::Expired,
    },
    Row {
        name: "7 gradient",
        policy: Policy::Gradient,
        check: Check::Expired,
    },
];

/// The slowdown scenario for `policy`: the service time doubles at 20 s.
pub fn slowdown(policy: Policy) -> Scenario {
    let mut sc = Scenario::base(policy, SLOW_LOAD);
    sc.service_after = 2 * sc.service;
    sc.change_at = SLOW_AT;
    sc.duration = SLOW_END;
    sc.windows = &[BEFORE, RIGHT_AFTER, AFTER];
    sc
}

struct Args {
    real: bool,
    out: PathBuf,
}

fn parse_args() -> Args {
    let mut args = Args {
        real: false,
        out: PathBuf::from("target/overload.svg"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--real" => args.real = true,
            "--out" => match it.next() {
                Some(p) => args.out = PathBuf::from(p),
                None => usage("--out needs a path"),
            },
            "-h" | "--help" => usage(""),
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    args
}

fn usage(msg: &str) -> ! {
    if !msg.is_empty() {
        eprintln!("overload: {msg}");
    }
    eprintln!("usage: overload [--out PATH.svg] [--real]");
    std::process::exit(if msg.is_empty() { 0 } else { 2 })
}

fn main() {
    let args = parse_args();
    let started = Instant::now();
    if args.real {
        real::main();
        eprintln!("done in {:.1} s", started.elapsed().as_secs_f64());
        return;
    }
    let base = Scenario::base(Policy::Unbounded, 100);
    println!(
        "Simulated service: {} workers x {} ms (+-10 %) per request = {:.0} requests/s. \
         Clients wait {} ms per attempt, {} attempts, jittered backoff; {} % of requests \
         critical. {} s of virtual time per run, the first {} s left out. good-put: \
         responses to a waiting client, in % of capacity; latency: every served request, \
         send to response; shed: attempts refused or evicted; t/o: attempts the client gave \
         up on; wasted: served requests nobody waited for; peak q: most requests waiting \
         (incl. blocked senders; not the slowed source's upstream).\n",
        base.workers,
        base.service / MS,
        base.capacity_per_s(),
        base.timeout / MS,
        base.max_attempts,
        base.critical_pct,
        base.duration / SECOND,
        base.warmup / SECOND
    );

    let total = LOADS.len() * ROWS.len() + SLOW_ROWS.len() + HARD.len() * HARD_ROWS.len();
    let mut done = 0;
    let mut step = |what: &str, milestone: bool| {
        done += 1;
        progress(&format!("running {done}/{total}: {what}"), milestone);
    };
    let mut sweep: Vec<Vec<Window>> = Vec::new();
    for &load in LOADS {
        let mut at_load = Vec::new();
        for (i, row) in ROWS.iter().enumerate() {
            step(&format!("{load} % load, {}", row.name), i == 0);
            let mut sc = Scenario::base(row.policy, load);
            sc.check = row.check;
            at_load.push(sim::run(&sc).steady());
        }
        sweep.push(at_load);
    }
    let mut slow: Vec<Run> = Vec::new();
    for (i, row) in SLOW_ROWS.iter().enumerate() {
        step(&format!("slowdown, {}", row.name), i == 0);
        let mut sc = slowdown(row.policy);
        sc.check = row.check;
        slow.push(sim::run(&sc));
    }
    let mut hard: Vec<(Scenario, Vec<Window>)> = Vec::new();
    for &(title, make) in HARD {
        let mut rows = Vec::new();
        for (i, row) in HARD_ROWS.iter().enumerate() {
            step(&format!("{title}, {}", row.name), i == 0);
            let mut sc = make(row.policy);
            sc.check = row.check;
            rows.push(sim::run(&sc).steady());
        }
        hard.push((make(Policy::Reject), rows));
    }
    progress("", false);

    for (i, &load) in LOADS.iter().enumerate() {
        table(load, &base, &sweep[i]);
    }
    for ((title, _), (sc, rows)) in HARD.iter().zip(&hard) {
        hard_table(title, sc, rows);
    }
    slow_table(&slow);
    classes_table(&base, &sweep);

    match plot::write(&args.out, LOADS, ROWS, &sweep, &base, &slow, SLOW_ROWS) {
        Ok(()) => println!("Plot written to {}", args.out.display()),
        Err(e) => eprintln!("could not write the plot to {}: {e}", args.out.display()),
    }
    println!();
    summary(&base, &sweep, &slow, &hard);
    eprintln!("done in {:.1} s", started.elapsed().as_secs_f64());
}

/// The progress line: rewritten in place on a terminal; elsewhere (a log, a
/// pipe) only `milestone` messages are printed, one per line.
pub fn progress(msg: &str, milestone: bool) {
    let mut e = std::io::stderr();
    if e.is_terminal() {
        let _ = write!(e, "\r{msg:<72}\r");
        let _ = e.flush();
    } else if milestone && !msg.is_empty() {
        let _ = writeln!(e, "{msg}");
    }
}

fn cell_ms(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.1} s", v / 1000.0)
    } else {
        format!("{v:.0}")
    }
}

fn table(load: u64, base: &Scenario, rows: &[Window]) {
    println!(
        "### Offered load {:.1}x capacity ({:.0} new requests/s)\n",
        load as f64 / 100.0,
        base.capacity_per_s() * load as f64 / 100.0
    );
    println!(
        "| {:<23} | {:>8} | {:>6} | {:>6} | {:>4} | {:>4} | {:>6} | {:>6} | {:>8} |",
        "policy", "good-put", "p50 ms", "p99 ms", "shed", "t/o", "wasted", "peak q", "peak mem"
    );
    println!(
        "|{:-<25}|{:->9}:|{:->7}:|{:->7}:|{:->5}:|{:->5}:|{:->7}:|{:->7}:|{:->9}:|",
        "", "", "", "", "", "", "", "", ""
    );
    for (row, w) in ROWS.iter().zip(rows) {
        println!(
            "| {:<23} | {:>7.0}% | {:>6} | {:>6} | {:>3.0}% | {:>3.0}% | {:>5.0}% | {:>6} | {:>8} |",
            row.name,
            100.0 * w.goodput / base.capacity_per_s(),
            cell_ms(w.p50_ms),
            cell_ms(w.p99_ms),
            w.shed_pct(),
            w.timed_out_pct(),
            w.wasted_pct(),
            w.peak_queue,
            bytes(w.peak_bytes)
        );
    }
    println!();
}

fn hard_table(title: &str, sc: &Scenario, rows: &[Window]) {
    println!(
        "### Offered load 2.0x capacity, {title}\n\nCapacity {:.0} requests/s.\n",
        sc.capacity_per_s()
    );
    println!(
        "| {:<23} | {:>8} | {:>6} | {:>6} | {:>4} | {:>4} | {:>6} |",
        "policy", "good-put", "p50 ms", "p99 ms", "shed", "t/o", "wasted"
    );
    println!(
        "|{:-<25}|{:->9}:|{:->7}:|{:->7}:|{:->5}:|{:->5}:|{:->7}:|",
        "", "", "", "", "", "", ""
    );
    for (row, w) in HARD_ROWS.iter().zip(rows) {
        println!(
            "| {:<23} | {:>7.0}% | {:>6} | {:>6} | {:>3.0}% | {:>3.0}% | {:>5.0}% |",
            row.name,
            100.0 * w.goodput / sc.capacity_per_s(),
            cell_ms(w.p50_ms),
            cell_ms(w.p99_ms),
            w.shed_pct(),
            w.timed_out_pct(),
            w.wasted_pct(),
        );
    }
    println!();
}

/// A duration given in ms, with its unit.
fn dur(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.1} s", v / 1000.0)
    } else {
        format!("{v:.0} ms")
    }
}

fn bytes(b: usize) -> String {
    if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else {
        format!("{} KiB", b >> 10)
    }
}

fn slow_table(slow: &[Run]) {
    let sc = &slow[0].scenario;
    let old_cap = sc.capacity_per_s();
    let new_cap = old_cap * sc.service as f64 / sc.service_after as f64;
    println!(
        "### The service slows down: {} ms -> {} ms per request at {} s, offered load {:.1}x \
         the old capacity ({:.1}x the new)\n",
        sc.service / MS,
        sc.service_after / MS,
        sc.change_at / SECOND,
        SLOW_LOAD as f64 / 100.0,
        SLOW_LOAD as f64 / 100.0 * old_cap / new_cap
    );
    println!(
        "Before: {}-{} s, in % of the old capacity ({old_cap:.0}/s); right after: {}-{} s, and \
         after: {}-{} s, in % of the new ({new_cap:.0}/s).\n",
        BEFORE.0 / SECOND,
        BEFORE.1 / SECOND,
        RIGHT_AFTER.0 / SECOND,
        RIGHT_AFTER.1 / SECOND,
        AFTER.0 / SECOND,
        AFTER.1 / SECOND
    );
    println!(
        "| {:<19} | {:>12} | {:>10} | {:>14} | {:>12} | {:>10} | {:>10} |",
        "policy",
        "good-put bef",
        "p99 ms bef",
        "good-put 20-25",
        "good-put aft",
        "p99 ms aft",
        "wasted aft"
    );
    println!(
        "|{:-<21}|{:->13}:|{:->11}:|{:->15}:|{:->13}:|{:->11}:|{:->11}:|",
        "", "", "", "", "", "", ""
    );
    for (row, run) in SLOW_ROWS.iter().zip(slow) {
        let b = run.window(BEFORE.0, BEFORE.1);
        let r = run.window(RIGHT_AFTER.0, RIGHT_AFTER.1);
        let a = run.window(AFTER.0, AFTER.1);
        println!(
            "| {:<19} | {:>11.0}% | {:>10} | {:>13.0}% | {:>11.0}% | {:>10} | {:>9.0}% |",
            row.name,
            100.0 * b.goodput / old_cap,
            cell_ms(b.p99_ms),
            100.0 * r.goodput / new_cap,
            100.0 * a.goodput / new_cap,
            cell_ms(a.p99_ms),
            a.wasted_pct()
        );
    }
    println!();
    println!(
        "Degradation bands (`Limiter::pressure`, read before each attempt for its class): \
         the share of attempts sent while their class was normal / elevated (3/4 of its share \
         in use: serve the cheaper answer) / saturated (shed next), and the share shed.\n"
    );
    println!(
        "| {:<19} | {:>22} | {:>22} | {:>22} |",
        "policy", "before: N / E / S, shed", "20-25: N / E / S, shed", "after: N / E / S, shed"
    );
    println!("|{:-<21}|{:->23}:|{:->23}:|{:->23}:|", "", "", "", "");
    let bands = |w: Window| {
        format!(
            "{:.0} / {:.0} / {:.0} %, {:.0} %",
            w.band_pct(0),
            w.band_pct(1),
            w.band_pct(2),
            w.shed_pct()
        )
    };
    for (row, run) in SLOW_ROWS.iter().zip(slow) {
        if row.policy.limiter(sim::AIMD).is_none() {
            continue;
        }
        println!(
            "| {:<19} | {:>22} | {:>22} | {:>22} |",
            row.name,
            bands(run.window(BEFORE.0, BEFORE.1)),
            bands(run.window(RIGHT_AFTER.0, RIGHT_AFTER.1)),
            bands(run.window(AFTER.0, AFTER.1))
        );
    }
    println!();
}

/// Per-class success of the two-class AIMD against one class.
fn classes_table(base: &Scenario, sweep: &[Vec<Window>]) {
    println!(
        "### Priority classes: share of requests that succeeded within {} attempts \
         ({} % critical)\n",
        base.max_attempts, base.critical_pct
    );
    println!(
        "| {:>5} | {:>16} | {:>18} | {:>18} | {:>20} |",
        "load", "AIMD: critical", "AIMD: background", "2 classes: crit.", "2 classes: backgr."
    );
    println!(
        "|{:->6}:|{:->17}:|{:->19}:|{:->19}:|{:->21}:|",
        "", "", "", "", ""
    );
    let one = row_index(Policy::Aimd);
    let two = row_index(Policy::AimdClasses);
    for (i, &load) in LOADS.iter().enumerate() {
        let (a, b) = (&sweep[i][one], &sweep[i][two]);
        println!(
            "| {:>4.1}x | {:>15.1}% | {:>17.1}% | {:>17.1}% | {:>19.1}% |",
            load as f64 / 100.0,
            a.success_pct(0),
            a.success_pct(1),
            b.success_pct(0),
            b.success_pct(1)
        );
    }
    println!();
}

fn row_index(p: Policy) -> usize {
    ROWS.iter().position(|r| r.policy == p).expect("row")
}

fn row_of(name: &str) -> usize {
    ROWS.iter().position(|r| r.name == name).expect("row")
}

/// "What this shows", from the numbers.
fn summary(base: &Scenario, sweep: &[Vec<Window>], slow: &[Run], hard: &[(Scenario, Vec<Window>)]) {
    let cap = base.capacity_per_s();
    let at = |load: u64| LOADS.iter().position(|&l| l == load).expect("load");
    let (lo, two) = (&sweep[at(50)], &sweep[at(200)]);
    let gp = |w: &Window| 100.0 * w.goodput / cap;
    let unloaded = lo[row_of("2 ring 16, reject")].p50_ms;
    let unb = &two[row_of("1 unbounded")];
    let unb_none = &two[row_of("1 unbounded, no check")];
    let unb_budget = &two[row_of("1 unbounded, budget chk")];
    let rej = &two[row_of("2 ring 16, reject")];
    let blk = &two[row_of("2b ring 16, block")];
    let blk_exp = &two[row_of("2d ring 16, block+exp")];
    let dro = &two[row_of("3 ring 16, drop oldest")];
    let s4 = &two[row_of("4 static limit 4")];
    let aimd = &two[row_index(Policy::Aimd)];
    let cls = &two[row_index(Policy::AimdClasses)];
    println!("What this shows (at 2x load unless said otherwise):");
    bullet(&format!(
        "- The unbounded queue collapses: good-put {:.0} % of capacity, p50 {}, {:.0} % of \
         served requests wasted and {} requests queued at the peak ({}). Skipping expired \
         requests does not save it (good-put {:.0} %, {:.0} % wasted): the survivors start just \
         before their deadline and finish after it; skipping those that cannot finish in time \
         recovers {:.0} % good-put, with p50 {}, at the timeout.",
        gp(unb_none),
        dur(unb_none.p50_ms),
        unb_none.wasted_pct(),
        unb_none.peak_queue,
        bytes(unb_none.peak_bytes),
        gp(unb),
        unb.wasted_pct(),
        gp(unb_budget),
        dur(unb_budget.p50_ms)
    ));
    bullet(&format!(
        "- A ring of {} that rejects fast keeps {:.0} % good-put with p99 {} ({:.1}x the \
         unloaded p50 of {}), shedding {:.0} % of attempts in fixed memory. Dropping the \
         oldest keeps the same good-put with fresher answers (p50 {} vs {}): right for \
         data that goes stale.",
        sim::RING,
        gp(rej),
        dur(rej.p99_ms),
        rej.p99_ms / unloaded,
        dur(unloaded),
        rej.shed_pct(),
        dur(dro.p50_ms),
        dur(rej.p50_ms)
    ));
    bullet(&format!(
        "- Blocking the sender moves the queue upstream: {:.0} % good-put, p99 {} and {} \
         senders waiting at the peak, with open-loop clients that do not slow down; {:.0} % \
         of what it serves is wasted, requests that waited upstream past their deadline. \
         Popping with `try_pop_fresh_with`, which discards (and counts) what can no longer \
         be served in time, recovers {:.0} % good-put with p99 {} and {:.0} % wasted. A ring \
         of {} that rejects holds no request long enough to expire at any load here.",
        gp(blk),
        dur(blk.p99_ms),
        blk.peak_queue,
        blk.wasted_pct(),
        gp(blk_exp),
        dur(blk_exp.p99_ms),
        blk_exp.wasted_pct(),
        sim::RING
    ));
    let sl = &two[row_of("2e ring 16, slowed src")];
    let sl_exp = &two[row_of("2f slowed src+exp")];
    let sl_peak = LOADS
        .iter()
        .map(|&l| sweep[at(l)][row_of("2e ring 16, slowed src")].peak_queue)
        .max()
        .unwrap_or(0);
    bullet(&format!(
        "- Watermarks slow the source instead (2e: it stops reading at {} requests in the \
         ring, reads again at {}): nothing is shed at any load and the ring never holds more \
         than {}, but the queue is upstream again, in arrival order, where the clients' \
         deadlines pass: {:.0} % good-put, {:.0} % of attempts timed out. Popping fresh \
         (2f) gets {:.0} %: the requests reach the ring old, so many that start in time finish \
         after their deadline ({:.0} % of what it serves is wasted). Watermarks suit a source \
         that can wait or truly slow down (a UART, a sensor, a batch feed), not clients with \
         deadlines.",
        sim::HIGH,
        sim::LOW,
        sl_peak,
        gp(sl),
        sl.timed_out_pct(),
        gp(sl_exp),
        sl_exp.wasted_pct(),
    ));
    let slow_row = |name: &str| {
        let i = SLOW_ROWS.iter().position(|r| r.name == name).expect("row");
        let r = &slow[i];
        let sc = &r.scenario;
        let new_cap = sc.capacity_per_s() * sc.service as f64 / sc.service_after as f64;
        let w = r.window(AFTER.0, AFTER.1);
        (100.0 * w.goodput / new_cap, w.p99_ms)
    };
    let (s64, s64_p99) = slow_row("4 static limit 64");
    let (a_after, a_p99) = slow_row("5 AIMD");
    let right_after = |name: &str| {
        let i = SLOW_ROWS.iter().position(|r| r.name == name).expect("row");
        let r = &slow[i];
        let sc = &r.scenario;
        let new_cap = sc.capacity_per_s() * sc.service as f64 / sc.service_after as f64;
        100.0 * r.window(RIGHT_AFTER.0, RIGHT_AFTER.1).goodput / new_cap
    };
    bullet(&format!(
        "- A static limit of 4 caps good-put at {:.0} % however idle the workers are; a limit of \
         64 fits the timeout at the old speed but, once the service takes twice as long, keeps \
         {:.0} % of the new capacity (p99 {}). AIMD holds {:.0} % at 2x load (p99 {}, \
         {:.1}x unloaded) and {:.0} % of the new capacity after the slowdown (p99 {}).",
        gp(s4),
        s64,
        dur(s64_p99),
        gp(aimd),
        dur(aimd.p99_ms),
        aimd.p99_ms / unloaded,
        a_after,
        dur(a_p99)
    ));
    bullet(&format!(
        "- In the first 5 s after the slowdown AIMD delivers {:.0} % of the new capacity, the \
         gradient limiter {:.0} %, the reject ring {:.0} %.",
        right_after("5 AIMD"),
        right_after("7 gradient"),
        right_after("2 ring 16, reject")
    ));
    let hard_row = |k: usize, name: &str| {
        let i = HARD_ROWS.iter().position(|r| r.name == name).expect("row");
        let (sc, rows) = &hard[k];
        (
            100.0 * rows[i].goodput / sc.capacity_per_s(),
            rows[i].p99_ms,
        )
    };
    let (e_a, e_ap) = hard_row(0, "5 AIMD");
    let (e_g, e_gp) = hard_row(0, "7 gradient");
    let (w_a, w_ap) = hard_row(1, "5 AIMD");
    let (w_g, w_gp) = hard_row(1, "7 gradient");
    bullet(&format!(
        "- With exponential service times the defaults keep {e_a:.0} % (AIMD, p99 {}) and \
         {e_g:.0} % (gradient, p99 {}); on a pool of 64 workers {w_a:.0} % (p99 {}) and \
         {w_g:.0} % (p99 {}).",
        dur(e_ap),
        dur(e_gp),
        dur(w_ap),
        dur(w_gp)
    ));
    bullet(&format!(
        "- With two classes, {:.1} % of critical requests succeed while {:.0} % of background \
         ones do (one class: {:.0} % of each).",
        cls.success_pct(0),
        cls.success_pct(1),
        aimd.success_pct(0)
    ));
}

/// Prints a bullet wrapped to 100 columns.
fn bullet(text: &str) {
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 100 {
            println!("{line}");
            line = String::from(" ");
        }
        if !line.is_empty() && line != " " {
            line.push(' ');
        }
        line.push_str(word);
    }
    println!("{line}");
}
