//! Shared by the three bench binaries: criterion settings, the spin policy,
//! and the instruction-count mode used by `ci/callgrind.sh`.
//!
//! Naming convention read by `ci/bench-table.sh`: in every group, benchmark
//! ids starting with `sluicegate` are ours, ids starting with `floor` are
//! lower bounds (not products), everything else is a peer.

#![allow(dead_code)]

use core::time::Duration;
use criterion::Criterion;

/// Short default runs (the whole suite in a few minutes); the command line
/// (`--measurement-time`, `--sample-size`, ...) overrides these.
pub fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_millis(2500))
        .sample_size(20)
        .configure_from_args()
}

/// Misses in a row after which a waiting thread yields (see [`wait`]):
/// [`YIELD_EVERY`] unless overridden.
///
/// One `spin_loop` miss costs about 25 ns on the AMD EPYC VM that
/// BENCHMARKS.md's timed figures come from, so this is about 25 µs of
/// spinning: far longer than any hand-off between two running threads, far
/// shorter than a time slice. A count in the tens (a microsecond or two)
/// is too short: with another busy process on the machine, `yield_now`
/// then hands it the core in the middle of ordinary hand-offs, and
/// ping-pong round trips through every ring measure several times the
/// cache-line floor.
/// `SLUICEGATE_BENCH_YIELD_EVERY=n` overrides it (to compare policies, or
/// for a machine whose `spin_loop` is much shorter).
pub fn yield_every() -> u32 {
    static V: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *V.get_or_init(|| {
        std::env::var("SLUICEGATE_BENCH_YIELD_EVERY")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&v| v > 0)
            .unwrap_or(YIELD_EVERY)
    })
}

/// The default of [`yield_every`].
pub const YIELD_EVERY: u32 = 1024;

/// What a thread does while it waits for the other side (full or empty
/// ring), the same for every implementation in a run: `spin_loop`, and
/// every [`yield_every`]th miss in a row a `yield_now`, so that on a loaded or
/// oversubscribed machine a thread whose partner was descheduled gives the
/// core back instead of spinning through its whole time slice. `misses`
/// counts the misses of the current wait (start each wait at 0).
#[inline(always)]
pub fn wait(misses: &mut u32) {
    *misses += 1;
    if (*misses).is_multiple_of(yield_every()) {
        std::thread::yield_now();
    } else {
        core::hint::spin_loop();
    }
}

/// A single-threaded case for both criterion and the instruction counter:
/// runs its operation `iters` times on state it owns.
pub type Case<'a> = (&'static str, &'static str, Box<dyn FnMut(u64) + 'a>);

/// Instruction-count mode. With `SLUICEGATE_ICOUNT=list` prints
/// `group/name` of every case; with `SLUICEGATE_ICOUNT=group/name:iters`
/// runs that case `iters` times (under `valgrind --tool=callgrind`, see
/// `ci/callgrind.sh`). Returns `false` (nothing done) when the variable is
/// not set.
pub fn icount(cases: &mut [Case<'_>]) -> bool {
    let Ok(spec) = std::env::var("SLUICEGATE_ICOUNT") else {
        return false;
    };
    if spec == "list" {
        for (g, n, _) in cases.iter() {
            println!("{g}/{n}");
        }
        return true;
    }
    let (id, iters) = spec
        .rsplit_once(':')
        .expect("SLUICEGATE_ICOUNT=group/name:iters");
    let iters: u64 = iters.parse().expect("iteration count");
    let case = cases
        .iter_mut()
        .find(|(g, n, _)| format!("{g}/{n}") == id)
        .unwrap_or_else(|| panic!("no case {id}"));
    (case.2)(iters);
    true
}

/// Benchmarks every single-threaded case with criterion.
pub fn bench_cases(c: &mut Criterion, cases: &mut [Case<'_>]) {
    for (group, name, op) in cases.iter_mut() {
        let mut g = c.benchmark_group(*group);
        g.bench_function(*name, |b| {
            b.iter_custom(|iters| {
                let start = std::time::Instant::now();
                op(iters);
                start.elapsed()
            })
        });
        g.finish();
    }
}

/// Per benchmark id, the pushes and the items the consumer received, summed
/// over the samples (warm-up included), printed when the group ends: the
/// share of the pushed items each ring delivered. `overwrite_live_*` per
/// push rewards a ring that evicts alone while its consumer starves, and
/// `overwrite_delivered_*` per item leaves out how many were lost; the share
/// says both. For a ring whose `push_overwrite` can answer busy
/// (`mpmc::BurstRing`), also the share of its calls that did ([`Shares::busy`]).
#[derive(Default)]
pub struct Shares(std::sync::Mutex<Vec<Share>>);

/// One id's sums (see [`Shares`]).
struct Share {
    id: String,
    pushed: u64,
    got: u64,
    /// `push_overwrite` calls and how many answered busy, for the rings
    /// that can answer busy.
    calls: Option<(u64, u64)>,
}

impl Shares {
    fn with(&self, id: &str, f: impl FnOnce(&mut Share)) {
        let mut v = self.0.lock().unwrap();
        let i = match v.iter().position(|s| s.id == id) {
            Some(i) => i,
            None => {
                v.push(Share {
                    id: id.to_string(),
                    pushed: 0,
                    got: 0,
                    calls: None,
                });
                v.len() - 1
            }
        };
        f(&mut v[i]);
    }

    pub fn add(&self, id: &str, pushed: u64, got: u64) {
        self.with(id, |s| {
            s.pushed += pushed;
            s.got += got;
        });
    }

    /// Adds `calls` calls of `push_overwrite`, `busy` of which answered busy
    /// (and were called again).
    pub fn busy(&self, id: &str, calls: u64, busy: u64) {
        self.with(id, |s| {
            let (c, b) = s.calls.get_or_insert((0, 0));
            *c += calls;
            *b += busy;
        });
    }

    /// One line per id on stdout (`ci/bench-table.sh` keeps the log):
    /// `delivered share GROUP/ID: P % of N pushes`, and for a ring that can
    /// answer busy `busy share GROUP/ID: P % of N push_overwrite calls`.
    pub fn print(&self, group: &str) {
        for s in self.0.lock().unwrap().iter() {
            println!(
                "delivered share {group}/{}: {:.1} % of {} pushes",
                s.id,
                100.0 * s.got as f64 / s.pushed.max(1) as f64,
                s.pushed
            );
            if let Some((calls, busy)) = s.calls {
                println!(
                    "busy share {group}/{}: {:.2} % of {calls} push_overwrite calls ({busy} busy)",
                    s.id,
                    100.0 * busy as f64 / calls.max(1) as f64,
                );
            }
        }
    }
}
