//! `mpmc::Ring` and `mpmc::BurstRing` against crossbeam `ArrayQueue` and
//! heapless `mpmc::Queue`, u64 items, all threads released together by a
//! barrier. Run with `cargo bench -p sluicegate-bench --bench mpmc`.
//!
//! Ids: `sluicegate` is `mpmc::Ring` (`sluicegate_burst` its bursts),
//! `sluicegate_burst_ring` is `mpmc::BurstRing`, `sluicegate_spsc_burst` the
//! SPSC ring's bursts (one producer, one consumer only) and
//! `floor_rte_ring` a spinning ring in the manner of DPDK's rte_ring
//! (`mpmc/rte_ring.rs`): the speed floor of a burst claim, unusable where a
//! context can be preempted inside an operation.
//!
//! - `mpmc_{1p1c,2p2c}_{128,1024}`: producers push `iters` items in all
//!   (waiting on full), consumers pop until they have all of them; an
//!   iteration is one item through the ring.
//! - `mpmc_overwrite_2p2c_1024`: two producers push `iters` items in all with
//!   overwrite-oldest (`push_overwrite` / `force_push`) while two consumers
//!   pop; an iteration is one push. `mpmc_overwrite_delivered_2p2c_1024`:
//!   the same, an iteration is one item the consumers received. Each group
//!   prints the share of the pushes the consumers received and, for
//!   `BurstRing`, the share of its `push_overwrite` calls that answered busy
//!   (the producer then waits as on a full ring and pushes the item again).
//!   (1p1c is `overwrite_live_*` / `overwrite_delivered_*` in the spsc
//!   bench, next to the SPSC ring.)
//! - `mpmc_{1p1c,2p2c}_64`: the same at capacity 64, where `SmallRing`
//!   (`sluicegate_mask`: the ring with the one-word free pool `FreeMask`)
//!   runs beside the default ring; at 128 `sluicegate_bits` is the ring
//!   with the bitmap free pool `FreeBits<4>`.
//! - `mpmc_pair_128` (single thread): one push and one pop on an empty ring
//!   (`sluicegate_bits`: the ring with the bitmap free pool `FreeBits<4>`);
//!   `mpmc_pair_64` the same at capacity 64, with `SmallRing`.
//! - `mpmc_burst32_{1p1c,2p2c}_{128,1024}`: as `mpmc_*_*`, producers
//!   pushing with `push_burst` and consumers popping with `pop_burst`, 32
//!   at a time; an iteration is one item. ArrayQueue (no batch operations)
//!   moves single items in the same groups; `spsc_batch_32` is the SPSC
//!   ring at capacity 1024 per batch of 32.
//! - `mpmc_burst32_pair_128` (single thread): `push_burst` and `pop_burst`
//!   of 32 on an empty ring (`sluicegate_bits`: with `FreeBits<4>`);
//!   ArrayQueue does 32 pushes and 32 pops. An iteration is the 32 items.
//!   `mpmc_burst32_pair_64` the same at capacity 64, with `SmallRing`.
//!   `mpmc_burst32_pair_offset_128` the same with 5 items left in the ring,
//!   so that every burst starts mid-word and crosses into the next bitmap
//!   word (the burst ring's slower case; the floor beside it).
//!
//! A waiting thread spins (`spin_loop`) and yields to the scheduler after
//! `common::yield_every()`
//! failed attempts in a row: with 2 producers and 2 consumers on a 2-core
//! machine pure spinning would only measure the scheduler. Same for all,
//! and the same whether a ring answered full, empty or (`BurstRing`) busy.
//!
//! heapless's `mpmc::Queue` allows capacities up to 128 (`u8` positions),
//! so it appears in the 128 groups only. It is Vyukov's queue without a
//! fallback: a thread preempted between claiming a cell and finishing makes
//! the others fail or spin (heapless #583, the reason heapless 0.9 deprecates
//! its constructor), and on an oversubscribed machine
//! the run may not finish. So every transfer has a deadline: a sample that
//! runs past it is aborted (reported on stderr, its time counted as the time
//! until the abort), and a probe before each benchmark skips an
//! implementation whose probe transfer does not finish at all. heapless can
//! also spin forever *inside* its `enqueue` (seen with 1p1c at capacity 128),
//! out of reach of any deadline, so its two-thread cases run in a child
//! process of this binary that is killed after 90 s (reported as `HUNG`).

use core::hint::black_box;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use core::time::Duration;
use criterion::Criterion;
use crossbeam_queue::ArrayQueue;
use sluicegate::mpmc::burst_ring::{Marked, Marks};

use sluicegate::mpmc::{BurstRing, FreeBits, FreeIndices, FreeMask, FreePool, Ring, SmallRing};
use sluicegate::spsc;
use std::sync::{Barrier, Mutex};
use std::thread;
use std::time::Instant;

mod common;
use common::{yield_every, Case, Shares};

#[path = "mpmc/rte_ring.rs"]
mod rte_ring;
use rte_ring::RteRing;
#[path = "mpmc/bursts.rs"]
mod bursts;
use bursts::{burst_groups, BURST};
#[path = "mpmc/idle.rs"]
mod idle;
#[path = "mpmc/transfer.rs"]
mod transfer;
use transfer::{run_transfer, Transfer, Waiter};

/// Single items through a shared ring. `false` / `None`: nothing moved
/// (full, empty, or busy), wait and call again.
trait Queue: Sync {
    fn push(&self, v: u64) -> bool;
    fn pop(&self) -> Option<u64>;
}

/// Overwrite-oldest pushes through a shared ring.
trait Overwrite: Sync {
    /// Pushes `v`, evicting the oldest item if the ring is full; `false`
    /// if the ring answered busy and did not store it (call again).
    fn push_overwrite(&self, v: u64) -> bool;
    fn pop(&self) -> Option<u64>;
    /// Whether `push_overwrite` can answer busy (its share is printed).
    fn can_be_busy(&self) -> bool {
        false
    }
}

/// Bursts through a shared ring: each call moves what it can from the
/// front of the slice and says how many (0: wait and call again).
trait Bursts: Sync {
    fn push_burst(&self, items: &[u64]) -> usize;
    fn pop_burst(&self, out: &mut [u64]) -> usize;
}

impl<const N: usize, F: FreePool<N>, M: Marks> Queue for Ring<u64, N, F, M> {
    fn push(&self, v: u64) -> bool {
        self.try_push(v).is_ok()
    }
    fn pop(&self) -> Option<u64> {
        self.try_pop()
    }
}

impl<const N: usize> Overwrite for Ring<u64, N> {
    fn push_overwrite(&self, v: u64) -> bool {
        let _ = black_box(Ring::push_overwrite(self, v));
        true
    }
    fn pop(&self) -> Option<u64> {
        self.try_pop()
    }
}

impl<const N: usize> Bursts for Ring<u64, N> {
    fn push_burst(&self, items: &[u64]) -> usize {
        Ring::push_burst(self, items)
    }
    fn pop_burst(&self, out: &mut [u64]) -> usize {
        Ring::pop_burst(self, out)
    }
}

impl<const N: usize, const W: usize, M: Marks> Queue for BurstRing<u64, N, W, M> {
    fn push(&self, v: u64) -> bool {
        self.try_push(v).is_ok()
    }
    fn pop(&self) -> Option<u64> {
        self.try_pop().ok()
    }
}

impl<const N: usize, const W: usize> Overwrite for BurstRing<u64, N, W> {
    fn push_overwrite(&self, v: u64) -> bool {
        match BurstRing::push_overwrite(self, v) {
            Ok(evicted) => {
                black_box(evicted);
                true
            }
            Err(_) => false,
        }
    }
    fn pop(&self) -> Option<u64> {
        self.try_pop().ok()
    }
    fn can_be_busy(&self) -> bool {
        true
    }
}

impl<const N: usize, const W: usize, M: Marks> Bursts for BurstRing<u64, N, W, M> {
    fn push_burst(&self, items: &[u64]) -> usize {
        BurstRing::push_burst(self, items).count
    }
    fn pop_burst(&self, out: &mut [u64]) -> usize {
        BurstRing::pop_burst(self, out).count
    }
}

impl<const N: usize> Queue for RteRing<u64, N> {
    fn push(&self, v: u64) -> bool {
        self.try_push(v)
    }
    fn pop(&self) -> Option<u64> {
        self.try_pop()
    }
}

impl<const N: usize> Bursts for RteRing<u64, N> {
    fn push_burst(&self, items: &[u64]) -> usize {
        RteRing::push_burst(self, items)
    }
    fn pop_burst(&self, out: &mut [u64]) -> usize {
        RteRing::pop_burst(self, out)
    }
}

#[cfg(feature = "critical-section")]
impl<M: sluicegate::mpmc::cs::Marks> Queue for sluicegate::mpmc::cs::Ring<u64, 128, M> {
    fn push(&self, v: u64) -> bool {
        self.try_push(v).is_ok()
    }
    fn pop(&self) -> Option<u64> {
        self.try_pop()
    }
}

impl Queue for ArrayQueue<u64> {
    fn push(&self, v: u64) -> bool {
        ArrayQueue::push(self, v).is_ok()
    }
    fn pop(&self) -> Option<u64> {
        ArrayQueue::pop(self)
    }
}

impl Overwrite for ArrayQueue<u64> {
    fn push_overwrite(&self, v: u64) -> bool {
        black_box(self.force_push(v));
        true
    }
    fn pop(&self) -> Option<u64> {
        ArrayQueue::pop(self)
    }
}

type Heapless = heapless::mpmc::Queue<u64, 128>;

#[allow(deprecated)]
impl Queue for Heapless {
    fn push(&self, v: u64) -> bool {
        self.enqueue(v).is_ok()
    }
    fn pop(&self) -> Option<u64> {
        self.dequeue()
    }
}

/// `threads` producers push `iters` items in all, `threads` consumers pop
/// them all.
fn transfer(q: &dyn Queue, threads: usize, iters: u64) -> Transfer {
    let t = run_transfer(
        threads,
        iters,
        move |per, w| {
            for i in 0..per {
                while !q.push(i) {
                    if !w.wait() {
                        return;
                    }
                }
                w.hit();
            }
        },
        move |popped, total, w| {
            let mut mine = 0;
            while popped.load(Ordering::Relaxed) < total {
                match q.pop() {
                    Some(v) => {
                        black_box(v);
                        w.hit();
                        mine += 1;
                        if mine == 256 {
                            popped.fetch_add(mine, Ordering::Relaxed);
                            mine = 0;
                        }
                    }
                    None => {
                        if mine > 0 {
                            popped.fetch_add(mine, Ordering::Relaxed);
                            mine = 0;
                        }
                        if !w.wait() {
                            return;
                        }
                    }
                }
            }
        },
    );
    // Leave the ring empty for the next sample.
    while q.pop().is_some() {}
    t
}

/// Producers overwrite-push `iters` items in all while consumers pop.
/// Returns the producers' time, per push or (`per_delivered`) scaled to
/// per item the consumers received: a queue whose consumers fall behind
/// pushes fast (every push evicts) but delivers little, which the time per
/// push alone rewards. A push answered busy is made again after a wait
/// (`common::wait`); `share(pushes, received, busy answers)` gets the
/// sample's counts.
fn overwrite(
    q: &dyn Overwrite,
    threads: usize,
    iters: u64,
    per_delivered: bool,
    share: impl FnOnce(u64, u64, u64),
) -> Duration {
    let per = iters.div_ceil(threads as u64);
    let done = AtomicBool::new(false);
    let got = AtomicU64::new(0);
    let busy = AtomicU64::new(0);
    let barrier = Barrier::new(2 * threads + 1);
    let elapsed = thread::scope(|s| {
        let producers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    let mut n = 0;
                    for i in 0..per {
                        let mut misses = 0;
                        while !q.push_overwrite(i) {
                            n += 1;
                            common::wait(&mut misses);
                        }
                    }
                    busy.fetch_add(n, Ordering::Relaxed);
                })
            })
            .collect();
        for _ in 0..threads {
            s.spawn(|| {
                barrier.wait();
                let mut misses = 0u32;
                let mut n = 0u64;
                while !done.load(Ordering::Relaxed) {
                    if q.pop().is_some() {
                        n += 1;
                    } else {
                        misses += 1;
                        if misses.is_multiple_of(yield_every()) {
                            thread::yield_now();
                        } else {
                            core::hint::spin_loop();
                        }
                    }
                }
                got.fetch_add(n, Ordering::Relaxed);
            });
        }
        barrier.wait();
        let start = Instant::now();
        for p in producers {
            p.join().unwrap();
        }
        let e = start.elapsed();
        done.store(true, Ordering::Relaxed);
        e
    });
    while q.pop().is_some() {}
    // The scope joined every thread: the counts are final.
    let got = got.load(Ordering::Relaxed);
    share(per * threads as u64, got, busy.load(Ordering::Relaxed));
    if per_delivered {
        elapsed.mul_f64(iters as f64 / got.max(1) as f64)
    } else {
        elapsed
    }
}

fn transfer_groups(c: &mut Criterion) {
    let ring1024: &'static Ring<u64, 1024> = Box::leak(Box::new(Ring::new()));
    let ring128: &'static Ring<u64, 128> = Box::leak(Box::new(Ring::new()));
    let aq1024: &'static ArrayQueue<u64> = Box::leak(Box::new(ArrayQueue::new(1024)));
    let aq128: &'static ArrayQueue<u64> = Box::leak(Box::new(ArrayQueue::new(128)));
    #[allow(deprecated)]
    let hl128: &'static Heapless = Box::leak(Box::new(Heapless::new()));

    let ring64: &'static Ring<u64, 64> = Box::leak(Box::new(Ring::new()));
    let small64: &'static SmallRing<u64, 64> = Box::leak(Box::new(SmallRing::new()));
    let aq64: &'static ArrayQueue<u64> = Box::leak(Box::new(ArrayQueue::new(64)));
    let bits128: &'static Ring<u64, 128, FreeBits<4>> = Box::leak(Box::new(Ring::new()));
    let burst64: &'static BurstRing<u64, 64, 2> = Box::leak(Box::new(BurstRing::new()));
    let burst128: &'static BurstRing<u64, 128, 4> = Box::leak(Box::new(BurstRing::new()));
    let burst1024: &'static BurstRing<u64, 1024, 32> = Box::leak(Box::new(BurstRing::new()));

    for threads in [1usize, 2] {
        for cap in [64usize, 128, 1024] {
            let peers: Vec<(&str, &dyn Queue)> = if cap == 64 {
                vec![
                    ("sluicegate", ring64),
                    ("sluicegate_mask", small64),
                    ("sluicegate_burst_ring", burst64),
                    ("crossbeam_arrayqueue", aq64),
                ]
            } else if cap == 128 {
                vec![
                    ("sluicegate", ring128),
                    ("sluicegate_bits", bits128),
                    ("sluicegate_burst_ring", burst128),
                    ("crossbeam_arrayqueue", aq128),
                    ("heapless", hl128),
                ]
            } else {
                vec![
                    ("sluicegate", ring1024),
                    ("sluicegate_burst_ring", burst1024),
                    ("crossbeam_arrayqueue", aq1024),
                ]
            };
            let group = format!("mpmc_{threads}p{threads}c_{cap}");
            let mut g = c.benchmark_group(&group);
            for (name, q) in peers {
                let id = format!("{group}/{name}");
                let only = std::env::var(CHILD_ENV).ok();
                if only.as_deref().is_some_and(|o| o != id) {
                    continue; // a child measures only its one benchmark
                }
                if name == "heapless" && only.is_none() {
                    // heapless can spin forever inside `enqueue`, where no
                    // deadline of ours reaches: measure it in a child
                    // process that is killed if it overruns.
                    in_child(&id);
                    continue;
                }
                // Probe: does a fixed transfer finish at all?
                // Small under `cargo test --benches` (no `--bench` flag).
                let probe: u64 = if std::env::args().any(|a| a == "--bench") {
                    1_000_000
                } else {
                    10_000
                };
                let t = transfer(q, threads, probe);
                if let Some(got) = t.aborted {
                    eprintln!(
                        "{group}/{name}: SKIPPED: probe of {probe} items aborted after {:?} \
                         with {got} items popped",
                        t.elapsed
                    );
                    continue;
                }
                g.bench_function(name, |b| {
                    b.iter_custom(|iters| {
                        let t = transfer(q, threads, iters);
                        if let Some(got) = t.aborted {
                            eprintln!(
                                "{group}/{name}: sample of {iters} items aborted after {:?} \
                                 with {got} popped",
                                t.elapsed
                            );
                        }
                        t.elapsed
                    })
                });
            }
            g.finish();
        }
    }
}

/// Set in a child process to the one benchmark id it measures.
const CHILD_ENV: &str = "SLUICEGATE_BENCH_ONLY";

/// How long a child may run before it counts as hung and is killed.
const CHILD_LIMIT: Duration = Duration::from_secs(90);

/// Runs benchmark `id` in a child process (this executable, same criterion
/// options and filter) and kills it after `CHILD_LIMIT`.
fn in_child(id: &str) {
    let exe = std::env::current_exe().expect("own executable");
    let mut child = std::process::Command::new(exe)
        .args(std::env::args().skip(1))
        .env(CHILD_ENV, id)
        .spawn()
        .expect("spawn child benchmark");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for child") {
            if !status.success() {
                eprintln!("{id}: child benchmark failed: {status}");
            }
            return;
        }
        if start.elapsed() > CHILD_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            eprintln!(
                "{id}: HUNG: no result after {CHILD_LIMIT:?}; killed (a thread spinning \
                 inside the queue's own code, past every deadline of the harness)"
            );
            return;
        }
        thread::sleep(Duration::from_millis(100));
    }
}

fn overwrite_group(c: &mut Criterion) {
    let ring: &'static Ring<u64, 1024> = Box::leak(Box::new(Ring::new()));
    let burst: &'static BurstRing<u64, 1024, 32> = Box::leak(Box::new(BurstRing::new()));
    let aq: &'static ArrayQueue<u64> = Box::leak(Box::new(ArrayQueue::new(1024)));
    let peers: [(&str, &dyn Overwrite); 3] = [
        ("sluicegate", ring),
        ("sluicegate_burst_ring", burst),
        ("crossbeam_force_push", aq),
    ];
    for (group, per_delivered) in [
        ("mpmc_overwrite_2p2c_1024", false),
        ("mpmc_overwrite_delivered_2p2c_1024", true),
    ] {
        let shares = &Shares::default();
        let mut g = c.benchmark_group(group);
        for (name, q) in peers {
            g.bench_function(name, |b| {
                b.iter_custom(|iters| {
                    overwrite(q, 2, iters, per_delivered, |p, got, busy| {
                        shares.add(name, p, got);
                        if q.can_be_busy() {
                            shares.busy(name, p + busy, busy);
                        }
                    })
                })
            });
        }
        g.finish();
        shares.print(group);
    }
}

/// `push_burst` and `pop_burst` of 32 on an empty ring of `N` with free
/// pool `F`, one pair per iteration.
fn burst_pair<const N: usize, F: FreePool<N>>() -> Box<dyn FnMut(u64)> {
    let ring: &'static Ring<u64, N, F> = Box::leak(Box::new(Ring::new()));
    Box::new(move |iters| {
        let mut buf = [0u64; 32];
        for i in 0..iters {
            buf[0] = i;
            black_box(ring.push_burst(black_box(&buf)));
            black_box(ring.pop_burst(black_box(&mut buf)));
        }
    })
}

/// ArrayQueue's stand-in for a burst pair: 32 pushes, then 32 pops.
fn singles_pair(cap: usize) -> Box<dyn FnMut(u64)> {
    let q: &'static ArrayQueue<u64> = Box::leak(Box::new(ArrayQueue::new(cap)));
    Box::new(move |iters| {
        for i in 0..iters {
            for k in 0..32 {
                black_box(q.push(black_box(i + k)).is_ok());
            }
            for _ in 0..32 {
                black_box(q.pop());
            }
        }
    })
}

/// Single-threaded push+pop pairs and burst pairs (criterion and
/// instruction counts).
fn single_thread_cases() -> Vec<Case<'static>> {
    let ring: &'static Ring<u64, 128> = Box::leak(Box::new(Ring::new()));
    let aq = ArrayQueue::new(128);
    #[allow(deprecated)]
    let hl: &'static Heapless = Box::leak(Box::new(Heapless::new()));
    let pair = |q: &'static dyn Queue| -> Box<dyn FnMut(u64)> {
        Box::new(move |iters| {
            for i in 0..iters {
                black_box(q.push(black_box(i)));
                black_box(q.pop());
            }
        })
    };
    let ring64: &'static Ring<u64, 64> = Box::leak(Box::new(Ring::new()));
    let small64: &'static SmallRing<u64, 64> = Box::leak(Box::new(SmallRing::new()));
    let aq64: &'static ArrayQueue<u64> = Box::leak(Box::new(ArrayQueue::new(64)));
    let bits128: &'static Ring<u64, 128, FreeBits<4>> = Box::leak(Box::new(Ring::new()));
    // A burst pair through the `Bursts` face (the rings that are not
    // `mpmc::Ring`).
    let dyn_burst_pair = |q: &'static dyn Bursts| -> Box<dyn FnMut(u64)> {
        Box::new(move |iters| {
            let mut buf = [0u64; BURST];
            for i in 0..iters {
                buf[0] = i;
                black_box(q.push_burst(black_box(&buf)));
                black_box(q.pop_burst(black_box(&mut buf)));
            }
        })
    };
    // Leaves 5 items in the ring, so that bursts of 32 start mid-word.
    fn offset(q: &'static dyn Bursts) -> &'static dyn Bursts {
        q.push_burst(&[0; 5]);
        q
    }
    let (mut spsc_p, mut spsc_c) = Box::leak(Box::new(spsc::Ring::<u64, 128>::new())).split();
    #[allow(unused_mut)] // pushed to with `critical-section`
    let mut cases: Vec<Case<'static>> = vec![
        (
            "mpmc_burst32_pair_128",
            "sluicegate_burst",
            burst_pair::<128, FreeIndices<128>>(),
        ),
        (
            "mpmc_burst32_pair_128",
            "sluicegate_bits",
            burst_pair::<128, FreeBits<4>>(),
        ),
        (
            "mpmc_burst32_pair_128",
            "sluicegate_burst_ring",
            dyn_burst_pair(Box::leak(Box::new(BurstRing::<u64, 128, 4>::new()))),
        ),
        (
            "mpmc_burst32_pair_128",
            "floor_rte_ring",
            dyn_burst_pair(Box::leak(Box::new(RteRing::<u64, 128>::new()))),
        ),
        (
            "mpmc_burst32_pair_128",
            "sluicegate_spsc_burst",
            Box::new(move |iters| {
                let mut buf = [0u64; BURST];
                for i in 0..iters {
                    buf[0] = i;
                    black_box(spsc_p.push_burst(black_box(&buf)));
                    black_box(spsc_c.pop_burst(black_box(&mut buf)));
                }
            }),
        ),
        (
            "mpmc_burst32_pair_128",
            "crossbeam_arrayqueue",
            singles_pair(128),
        ),
        (
            "mpmc_burst32_pair_offset_128",
            "sluicegate_burst_ring",
            dyn_burst_pair(offset(Box::leak(Box::new(BurstRing::<u64, 128, 4>::new())))),
        ),
        (
            "mpmc_burst32_pair_offset_128",
            "floor_rte_ring",
            dyn_burst_pair(offset(Box::leak(Box::new(RteRing::<u64, 128>::new())))),
        ),
        (
            "mpmc_burst32_pair_64",
            "sluicegate_mask",
            burst_pair::<64, FreeMask>(),
        ),
        (
            "mpmc_burst32_pair_64",
            "crossbeam_arrayqueue",
            singles_pair(64),
        ),
        ("mpmc_pair_128", "sluicegate", pair(ring)),
        (
            "mpmc_pair_128",
            "crossbeam_arrayqueue",
            pair(Box::leak(Box::new(aq))),
        ),
        ("mpmc_pair_128", "heapless", pair(hl)),
        (
            "mpmc_pair_128",
            "sluicegate_burst_ring",
            pair(Box::leak(Box::new(BurstRing::<u64, 128, 4>::new()))),
        ),
        (
            "mpmc_pair_128",
            "floor_rte_ring",
            pair(Box::leak(Box::new(RteRing::<u64, 128>::new()))),
        ),
        ("mpmc_pair_64", "sluicegate", pair(ring64)),
        ("mpmc_pair_64", "sluicegate_mask", pair(small64)),
        (
            "mpmc_pair_64",
            "sluicegate_burst_ring",
            pair(Box::leak(Box::new(BurstRing::<u64, 64, 2>::new()))),
        ),
        ("mpmc_pair_64", "crossbeam_arrayqueue", pair(aq64)),
        (
            "mpmc_pair_64",
            "floor_rte_ring",
            pair(Box::leak(Box::new(RteRing::<u64, 64>::new()))),
        ),
        ("mpmc_pair_128", "sluicegate_bits", pair(bits128)),
        // With watermarks, crossing no mark: the cost of testing them.
        (
            "mpmc_pair_128",
            "sluicegate_marked",
            pair(Box::leak(Box::new(Ring::<
                u64,
                128,
                FreeIndices<128>,
                Marked,
            >::with_watermarks(32, 96)))),
        ),
        (
            "mpmc_pair_128",
            "sluicegate_burst_ring_marked",
            pair(Box::leak(Box::new(
                BurstRing::<u64, 128, 4, Marked>::with_watermarks(32, 96),
            ))),
        ),
        (
            "mpmc_burst32_pair_128",
            "sluicegate_burst_ring_marked",
            dyn_burst_pair(Box::leak(Box::new(
                BurstRing::<u64, 128, 4, Marked>::with_watermarks(32, 96),
            ))),
        ),
    ];
    // `mpmc::cs` (feature `critical-section`: critical-section's `std`
    // implementation, a global mutex): for the instruction count of the
    // `async` wake checks, not a peer of the others.
    #[cfg(feature = "critical-section")]
    {
        let cs: &'static sluicegate::mpmc::cs::Ring<u64, 128> =
            Box::leak(Box::new(sluicegate::mpmc::cs::Ring::new()));
        cases.push(("mpmc_pair_128", "sluicegate_cs", pair(cs)));
        // With watermarks the pair crosses no mark: the cost of testing.
        let marked: &'static sluicegate::mpmc::cs::Ring<u64, 128, sluicegate::mpmc::cs::Marked> =
            Box::leak(Box::new(sluicegate::mpmc::cs::Ring::with_watermarks(
                32, 96,
            )));
        cases.push(("mpmc_pair_128", "sluicegate_cs_marked", pair(marked)));
    }
    cases.extend(idle::idle_cases());
    cases
}

fn main() {
    let mut cases = single_thread_cases();
    if common::icount(&mut cases) {
        return;
    }
    let mut c = common::criterion();
    transfer_groups(&mut c);
    if std::env::var(CHILD_ENV).is_ok() {
        c.final_summary();
        return;
    }
    burst_groups(&mut c);
    overwrite_group(&mut c);
    common::bench_cases(&mut c, &mut cases);
    c.final_summary();
}
