//! `spsc::Ring` against rtrb, ringbuf, heapless `spsc::Queue`, nexus-queue
//! `spsc` (stream and ping-pong only) and crossbeam `ArrayQueue` (used
//! single-producer/single-consumer), u64 items, all in one binary so every
//! comparison is side by side in one run. Run with
//! `cargo bench -p sluicegate-bench --bench spsc`; `ci/bench-table.sh` turns
//! the results into a table (BENCHMARKS.md condenses it).
//!
//! Two-thread cases follow rtrb's `performance-comparison`: `iter_custom`,
//! the other thread spawned once per sample, a barrier so both start
//! together, and `spin_loop` while the ring is full or empty (with a
//! `yield_now` every `yield_every()` misses in a row, see `common::wait`).
//! Each sample builds fresh rings.
//!
//! Groups (time is per iteration):
//!
//! - `spsc_stream_{16,1024}`: one item per call; an iteration is one item
//!   through the ring. `sluicegate_flag` is `spsc::flag::Ring` (a flag per
//!   slot, no shared index).
//! - `spsc_batch_{8,32,256}` (capacity 1024): an iteration is one batch.
//!   `*_burst`: copy in/out as much as fits (ours `push_burst`/`pop_burst`,
//!   rtrb `push_partial_slice`/`pop_partial_slice`, ringbuf `push_slice`/
//!   `pop_slice`). `*_chunk`: zero-copy, the producer writes the values in
//!   place and the consumer sums them in place (ours and rtrb chunks,
//!   ringbuf `vacant_slices_mut`/`as_slices` + `advance_{write,read}_index`).
//! - `spsc_pingpong`: two rings, one item in flight; an iteration is one
//!   round trip. `floor_atomic` bounces one cache-padded atomic word;
//!   `floor_two_lines` bounces a value and a flag on separate lines, the
//!   least that a ring whose index and slots live apart moves per trip
//!   (`sluicegate_flag` keeps each item and its flag on one line).
//! - `overwrite_live_{16,1024}`: the producer pushes with overwrite-oldest
//!   while a consumer pops; an iteration is one push.
//!   `overwrite_delivered_1024`: the same, an iteration is one item the
//!   consumer received (producer time / items delivered). Each group prints
//!   the share of the pushes the consumer received (`delivered share`) and,
//!   for `mpmc::BurstRing` (`sluicegate_burst_ring`), whose `push_overwrite`
//!   answers busy while the oldest item is being popped, the share of its
//!   calls that did (`busy share`; the producer waits as on a full ring and
//!   pushes the item again).
//! - `overwrite_single_1024`, `pair_1024`, `batch_pair_{8,32}` (single
//!   thread): push on a full ring with overwrite (beside the SPSC ring, the
//!   MPMC rings `mpmc::Ring` and `mpmc::BurstRing`); one push and one pop on
//!   an empty ring; one batch in and out (burst and chunk). `floor_vecdeque`
//!   is `VecDeque` (no atomics at all).
//!
//! Capacities: heapless's `Queue<T, N>` holds `N - 1` items (one slot stays
//! free to tell full from empty), so it runs with `N` = 16 / 1024 (capacity
//! 15 / 1023) against capacity 16 / 1024 for the others. nexus-queue rounds
//! its capacity up to a power of two, which 16 and 1024 already are.

use core::hint::black_box;
use core::mem::MaybeUninit;
use criterion::Criterion;
use crossbeam_queue::ArrayQueue;
use ringbuf::traits::{Consumer as _, Producer as _, Raw as _, Split as _};
use sluicegate::mpmc::BurstRing;
use sluicegate::spsc::{Overwrite, Ring};
use sluicegate::{mpmc, spsc};
use std::collections::VecDeque;

mod common;
use common::{Case, Shares};

#[path = "spsc/harness.rs"]
mod harness;
use harness::{batches, overwrite_live, stream, Per};
#[path = "spsc/pingpong.rs"]
mod pingpong;
use pingpong::pingpong_group;

// ------------------------------------------------------ the adapters, per peer

/// Our SPSC ring, rejecting when full.
type RejectRing<const N: usize> = Ring<u64, N>;
/// Our SPSC ring with the overwrite-oldest policy.
type OverwriteRing<const N: usize> = Ring<u64, N, Overwrite>;
type RejectProducer<'a, const N: usize> = spsc::Producer<'a, u64, N, spsc::Reject>;
type RejectConsumer<'a, const N: usize> = spsc::Consumer<'a, u64, N, spsc::Reject>;
/// Our SPSC ring with a flag per slot and no shared index.
type FlagRing<const N: usize> = spsc::flag::Ring<u64, N>;
type HeaplessQueue<const N: usize> = heapless::spsc::Queue<u64, N>;
type RingbufProducer = ringbuf::HeapProd<u64>;
type RingbufConsumer = ringbuf::HeapCons<u64>;

fn sluicegate_push<const N: usize>(p: &mut RejectProducer<'_, N>, v: u64) -> bool {
    p.try_push(v).is_ok()
}
fn sluicegate_pop<const N: usize>(c: &mut RejectConsumer<'_, N>) -> Option<u64> {
    c.try_pop()
}
fn flag_push<const N: usize>(p: &mut spsc::flag::Producer<'_, u64, N>, v: u64) -> bool {
    p.try_push(v).is_ok()
}
fn flag_pop<const N: usize>(c: &mut spsc::flag::Consumer<'_, u64, N>) -> Option<u64> {
    c.try_pop()
}
fn rtrb_push(p: &mut rtrb::Producer<u64>, v: u64) -> bool {
    p.push(v).is_ok()
}
fn rtrb_pop(c: &mut rtrb::Consumer<u64>) -> Option<u64> {
    c.pop().ok()
}
fn ringbuf_push(p: &mut RingbufProducer, v: u64) -> bool {
    p.try_push(v).is_ok()
}
fn ringbuf_pop(c: &mut RingbufConsumer) -> Option<u64> {
    c.try_pop()
}
fn heapless_push(p: &mut heapless::spsc::Producer<'_, u64>, v: u64) -> bool {
    p.enqueue(v).is_ok()
}
fn heapless_pop(c: &mut heapless::spsc::Consumer<'_, u64>) -> Option<u64> {
    c.dequeue()
}
fn nexus_push(p: &mut nexus_queue::spsc::Producer<u64>, v: u64) -> bool {
    p.push(v).is_ok()
}
fn nexus_pop(c: &mut nexus_queue::spsc::Consumer<u64>) -> Option<u64> {
    c.pop()
}
fn arrayqueue_push(q: &mut &ArrayQueue<u64>, v: u64) -> bool {
    q.push(v).is_ok()
}
fn arrayqueue_pop(q: &mut &ArrayQueue<u64>) -> Option<u64> {
    q.pop()
}

fn ringbuf_split(cap: usize) -> (RingbufProducer, RingbufConsumer) {
    ringbuf::HeapRb::<u64>::new(cap).split()
}

// ------------------------------------------------------------------- groups

fn stream_group<const N: usize>(c: &mut Criterion) {
    let mut g = c.benchmark_group(format!("spsc_stream_{N}"));
    g.bench_function("sluicegate", |b| {
        b.iter_custom(|iters| {
            let mut ring = Box::new(RejectRing::<N>::new());
            let (p, c) = ring.split();
            stream(iters, p, c, sluicegate_push::<N>, sluicegate_pop::<N>)
        })
    });
    g.bench_function("sluicegate_flag", |b| {
        b.iter_custom(|iters| {
            let mut ring = Box::new(FlagRing::<N>::new());
            let (p, c) = ring.split();
            stream(iters, p, c, flag_push::<N>, flag_pop::<N>)
        })
    });
    g.bench_function("rtrb", |b| {
        b.iter_custom(|iters| {
            let (p, c) = rtrb::RingBuffer::new(N);
            stream(iters, p, c, rtrb_push, rtrb_pop)
        })
    });
    g.bench_function("ringbuf", |b| {
        b.iter_custom(|iters| {
            let (p, c) = ringbuf_split(N);
            stream(iters, p, c, ringbuf_push, ringbuf_pop)
        })
    });
    g.bench_function("heapless", |b| {
        b.iter_custom(|iters| {
            let mut q = Box::new(HeaplessQueue::<N>::new());
            let (p, c) = q.split();
            stream(iters, p, c, heapless_push, heapless_pop)
        })
    });
    g.bench_function("nexus_queue", |b| {
        b.iter_custom(|iters| {
            let (p, c) = nexus_queue::spsc::ring_buffer(N);
            stream(iters, p, c, nexus_push, nexus_pop)
        })
    });
    g.bench_function("crossbeam_arrayqueue", |b| {
        b.iter_custom(|iters| {
            let q = ArrayQueue::new(N);
            stream(iters, &q, &q, arrayqueue_push, arrayqueue_pop)
        })
    });
    g.finish();
}

/// Source of the copying producers.
static SRC: [u64; 256] = {
    let mut a = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        a[i] = i as u64;
        i += 1;
    }
    a
};

/// Writes `base, base+1, ...` into uninitialised slots (the zero-copy
/// producers' work).
#[inline(always)]
fn fill(a: &mut [MaybeUninit<u64>], b: &mut [MaybeUninit<u64>], base: u64) {
    for (k, s) in a.iter_mut().chain(b.iter_mut()).enumerate() {
        s.write(base + k as u64);
    }
}

/// Sums items in place (the zero-copy consumers' work).
#[inline(always)]
fn sum(a: &[u64], b: &[u64]) -> u64 {
    a.iter().chain(b).fold(0, |s, &x| s.wrapping_add(x))
}

fn batch_group(c: &mut Criterion, batch: usize) {
    const N: usize = 1024;
    let mut g = c.benchmark_group(format!("spsc_batch_{batch}"));
    g.bench_function("sluicegate_burst", |b| {
        b.iter_custom(|iters| {
            let mut ring = Box::new(RejectRing::<N>::new());
            let (p, c) = ring.split();
            batches(
                iters,
                batch,
                p,
                c,
                |p, _, n| p.push_burst(&SRC[..n]),
                |c, out| c.pop_burst(out),
            )
        })
    });
    g.bench_function("rtrb_burst", |b| {
        b.iter_custom(|iters| {
            let (p, c) = rtrb::RingBuffer::new(N);
            batches(
                iters,
                batch,
                p,
                c,
                |p, _, n| n - p.push_partial_slice(&SRC[..n]).1.len(),
                |c, out| c.pop_partial_slice(out).0.len(),
            )
        })
    });
    g.bench_function("ringbuf_burst", |b| {
        b.iter_custom(|iters| {
            let (p, c) = ringbuf_split(N);
            batches(
                iters,
                batch,
                p,
                c,
                |p, _, n| p.push_slice(&SRC[..n]),
                |c, out| c.pop_slice(out),
            )
        })
    });
    g.bench_function("sluicegate_chunk", |b| {
        b.iter_custom(|iters| {
            let mut ring = Box::new(RejectRing::<N>::new());
            let (p, c) = ring.split();
            batches(
                iters,
                batch,
                p,
                c,
                |p, base, n| {
                    let mut w = p.write_chunk_uninit_up_to(n);
                    let k = w.len();
                    let (a, b) = w.as_mut_slices();
                    fill(a, b, base);
                    // SAFETY: `fill` initialised every reserved slot.
                    unsafe { w.commit_all() };
                    k
                },
                |c, out| {
                    let r = c.read_chunk_up_to(out.len());
                    let k = r.len();
                    let (a, b) = r.as_slices();
                    black_box(sum(a, b));
                    r.commit_all();
                    k
                },
            )
        })
    });
    g.bench_function("rtrb_chunk", |b| {
        b.iter_custom(|iters| {
            let (p, c) = rtrb::RingBuffer::new(N);
            batches(
                iters,
                batch,
                p,
                c,
                |p, base, n| {
                    let mut w = match p.write_chunk_uninit(n) {
                        Ok(w) => w,
                        Err(rtrb::chunks::ChunkError::TooFewSlots(0)) => return 0,
                        Err(rtrb::chunks::ChunkError::TooFewSlots(k)) => {
                            p.write_chunk_uninit(k).unwrap()
                        }
                    };
                    let k = w.len();
                    let (a, b) = w.as_mut_slices();
                    fill(a, b, base);
                    // SAFETY: `fill` initialised every reserved slot.
                    unsafe { w.commit_all() };
                    k
                },
                |c, out| {
                    let n = out.len();
                    let r = match c.read_chunk(n) {
                        Ok(r) => r,
                        Err(rtrb::chunks::ChunkError::TooFewSlots(0)) => return 0,
                        Err(rtrb::chunks::ChunkError::TooFewSlots(k)) => c.read_chunk(k).unwrap(),
                    };
                    let k = r.len();
                    let (a, b) = r.as_slices();
                    black_box(sum(a, b));
                    r.commit_all();
                    k
                },
            )
        })
    });
    g.bench_function("ringbuf_chunk", |b| {
        b.iter_custom(|iters| {
            let (p, c) = ringbuf_split(N);
            batches(
                iters,
                batch,
                p,
                c,
                |p, base, n| {
                    let (a, b) = p.vacant_slices_mut();
                    let la = a.len().min(n);
                    let lb = b.len().min(n - la);
                    fill(&mut a[..la], &mut b[..lb], base);
                    // SAFETY: the first la + lb vacant slots were initialised.
                    unsafe { p.advance_write_index(la + lb) };
                    la + lb
                },
                |c, out| {
                    let n = out.len();
                    let (a, b) = c.as_slices();
                    let la = a.len().min(n);
                    let lb = b.len().min(n - la);
                    black_box(sum(&a[..la], &b[..lb]));
                    // SAFETY: u64 needs no drop; we read the first la + lb.
                    unsafe { c.advance_read_index(la + lb) };
                    la + lb
                },
            )
        })
    });
    g.finish();
}

/// `W`: the `mpmc::BurstRing`'s bitmap words for `N` (`N / 32`, 1 below 32).
fn overwrite_live_group<const N: usize, const W: usize>(c: &mut Criterion, per: Per) {
    let name = match per {
        Per::Push => "overwrite_live",
        Per::Delivered => "overwrite_delivered",
    };
    let group = format!("{name}_{N}");
    let shares = &Shares::default();
    let mut g = c.benchmark_group(&group);
    g.bench_function("sluicegate_spsc", |b| {
        b.iter_custom(|iters| {
            let mut ring = Box::new(OverwriteRing::<N>::new());
            let (p, c) = ring.split();
            let r = overwrite_live(
                iters,
                p,
                c,
                |p, v| {
                    let _ = black_box(p.push_overwrite(v));
                    true
                },
                |c| c.try_pop(),
            );
            per.time(shares, "sluicegate_spsc", iters, &r)
        })
    });
    g.bench_function("sluicegate_mpmc", |b| {
        b.iter_custom(|iters| {
            let ring = Box::new(mpmc::Ring::<u64, N>::new());
            let r: &mpmc::Ring<u64, N> = &ring;
            let r = overwrite_live(
                iters,
                r,
                r,
                |r, v| {
                    let _ = black_box(r.push_overwrite(v));
                    true
                },
                |r| r.try_pop(),
            );
            per.time(shares, "sluicegate_mpmc", iters, &r)
        })
    });
    // A busy answer (the oldest item is being popped) hands the item back:
    // the producer waits and pushes it again, and the share of such calls
    // is printed beside the delivered share.
    g.bench_function("sluicegate_burst_ring", |b| {
        b.iter_custom(|iters| {
            let ring = Box::new(BurstRing::<u64, N, W>::new());
            let r: &BurstRing<u64, N, W> = &ring;
            let r = overwrite_live(
                iters,
                r,
                r,
                |r, v| match r.push_overwrite(v) {
                    Ok(evicted) => {
                        black_box(evicted);
                        true
                    }
                    Err(_) => false,
                },
                |r| r.try_pop().ok(),
            );
            shares.busy("sluicegate_burst_ring", iters + r.busy, r.busy);
            per.time(shares, "sluicegate_burst_ring", iters, &r)
        })
    });
    g.bench_function("crossbeam_force_push", |b| {
        b.iter_custom(|iters| {
            let q = ArrayQueue::new(N);
            let r = overwrite_live(
                iters,
                &q,
                &q,
                |q, v| {
                    black_box(q.force_push(v));
                    true
                },
                |q| q.pop(),
            );
            per.time(shares, "crossbeam_force_push", iters, &r)
        })
    });
    g.finish();
    shares.print(&group);
}

/// A single-thread case: `batch` items in with `push`, then out into a
/// buffer with `pop`, per iteration (each returns how many it moved).
fn burst_pair<P: 'static, C: 'static>(
    group: &'static str,
    name: &'static str,
    batch: usize,
    mut p: P,
    mut c: C,
    mut push: impl FnMut(&mut P, &[u64]) -> usize + 'static,
    mut pop: impl FnMut(&mut C, &mut [u64]) -> usize + 'static,
) -> Case<'static> {
    let mut out = vec![0u64; batch];
    (
        group,
        name,
        Box::new(move |iters| {
            for _ in 0..iters {
                black_box(push(&mut p, black_box(&SRC[..batch])));
                black_box(pop(&mut c, black_box(&mut out[..])));
            }
        }),
    )
}

/// A single-thread case: one push of the iteration's number and one pop per
/// iteration, both on `state` (a producer/consumer pair, or a queue that
/// does both).
fn push_pop<S: 'static, A, B>(
    group: &'static str,
    name: &'static str,
    mut state: S,
    mut push: impl FnMut(&mut S, u64) -> A + 'static,
    mut pop: impl FnMut(&mut S) -> B + 'static,
) -> Case<'static> {
    (
        group,
        name,
        Box::new(move |iters| {
            for i in 0..iters {
                black_box(push(&mut state, black_box(i)));
                black_box(pop(&mut state));
            }
        }),
    )
}

/// A single-thread case: `push` on a ring filled with `fill` items first,
/// so every timed push evicts the oldest.
fn push_on_full<S: 'static, A>(
    name: &'static str,
    fill: usize,
    mut state: S,
    mut push: impl FnMut(&mut S, u64) -> A + 'static,
) -> Case<'static> {
    for i in 0..fill as u64 {
        push(&mut state, i);
    }
    (
        "overwrite_single_1024",
        name,
        Box::new(move |iters| {
            for i in 0..iters {
                black_box(push(&mut state, black_box(i)));
            }
        }),
    )
}

/// A ring that lives as long as the cases that borrow it.
fn leak<T>(v: T) -> &'static mut T {
    Box::leak(Box::new(v))
}

// ------------------------------------------------------ single-thread cases

/// The single-threaded cases (criterion and instruction counts).
fn single_thread_cases() -> Vec<Case<'static>> {
    const N: usize = 1024;
    let mut v: Vec<Case<'static>> = Vec::new();

    // One push and one pop on an empty ring.
    let g = "pair_1024";
    v.push(push_pop(
        g,
        "sluicegate",
        leak(RejectRing::<N>::new()).split(),
        |(p, _), x| p.try_push(x),
        |(_, c)| c.try_pop(),
    ));
    // The same with watermarks that the pair never crosses: the push's
    // compare and the pop's check of the level, on every operation.
    v.push(push_pop(
        g,
        "sluicegate_watermarks",
        leak(Ring::<u64, N, sluicegate::spsc::Marked>::with_watermarks(
            N / 4,
            3 * N / 4,
        ))
        .split(),
        |(p, _), x| p.try_push(x),
        |(_, c)| c.try_pop(),
    ));
    v.push(push_pop(
        g,
        "sluicegate_overwrite_policy",
        leak(OverwriteRing::<N>::new()).split(),
        |(p, _), x| p.push_overwrite(x),
        |(_, c)| c.try_pop(),
    ));
    v.push(push_pop(
        g,
        "sluicegate_flag",
        leak(FlagRing::<N>::new()).split(),
        |(p, _), x| p.try_push(x),
        |(_, c)| c.try_pop(),
    ));
    v.push(push_pop(
        g,
        "rtrb",
        rtrb::RingBuffer::new(N),
        |(p, _), x| p.push(x),
        |(_, c)| c.pop(),
    ));
    v.push(push_pop(
        g,
        "ringbuf",
        ringbuf_split(N),
        |(p, _), x| p.try_push(x),
        |(_, c)| c.try_pop(),
    ));
    v.push(push_pop(
        g,
        "heapless",
        leak(HeaplessQueue::<N>::new()).split(),
        |(p, _), x| p.enqueue(x),
        |(_, c)| c.dequeue(),
    ));
    v.push(push_pop(
        g,
        "crossbeam_arrayqueue",
        ArrayQueue::new(N),
        |q, x| q.push(x),
        |q| q.pop(),
    ));
    v.push(push_pop(
        g,
        "floor_vecdeque",
        VecDeque::with_capacity(N),
        |d, x| {
            if d.len() < N {
                d.push_back(x);
            }
        },
        |d| d.pop_front(),
    ));

    // One batch in and one batch out on an empty ring (the batch paths'
    // own cost, without a second thread): bursts copy from and to a
    // buffer, chunks write and sum in place.
    for batch in [8usize, 32] {
        let g: &'static str = if batch == 8 {
            "batch_pair_8"
        } else {
            "batch_pair_32"
        };
        let (p, c) = leak(RejectRing::<N>::new()).split();
        v.push(burst_pair(
            g,
            "sluicegate_burst",
            batch,
            p,
            c,
            |p, x| p.push_burst(x),
            |c, o| c.pop_burst(o),
        ));
        let (p, c) = rtrb::RingBuffer::new(N);
        v.push(burst_pair(
            g,
            "rtrb_burst",
            batch,
            p,
            c,
            |p, x| x.len() - p.push_partial_slice(x).1.len(),
            |c, o| c.pop_partial_slice(o).0.len(),
        ));
        let (p, c) = ringbuf_split(N);
        v.push(burst_pair(
            g,
            "ringbuf_burst",
            batch,
            p,
            c,
            |p, x| p.push_slice(x),
            |c, o| c.pop_slice(o),
        ));
        let (mut p, mut c) = leak(RejectRing::<N>::new()).split();
        v.push((
            g,
            "sluicegate_chunk",
            Box::new(move |iters| {
                for i in 0..iters {
                    let mut w = p.write_chunk_uninit_up_to(black_box(batch));
                    let (a, b) = w.as_mut_slices();
                    fill(a, b, i);
                    // SAFETY: `fill` initialised every reserved slot.
                    unsafe { w.commit_all() };
                    let r = c.read_chunk_up_to(black_box(batch));
                    let (a, b) = r.as_slices();
                    black_box(sum(a, b));
                    r.commit_all();
                }
            }),
        ));
        let (mut p, mut c) = rtrb::RingBuffer::new(N);
        v.push((
            g,
            "rtrb_chunk",
            Box::new(move |iters| {
                for i in 0..iters {
                    if let Ok(mut w) = p.write_chunk_uninit(black_box(batch)) {
                        let (a, b) = w.as_mut_slices();
                        fill(a, b, i);
                        // SAFETY: `fill` initialised every reserved slot.
                        unsafe { w.commit_all() };
                    }
                    if let Ok(r) = c.read_chunk(black_box(batch)) {
                        let (a, b) = r.as_slices();
                        black_box(sum(a, b));
                        r.commit_all();
                    }
                }
            }),
        ));
    }

    // Push with overwrite on a full ring (every push evicts).
    v.push(push_on_full(
        "sluicegate_spsc",
        N,
        leak(OverwriteRing::<N>::new()).split(),
        |(p, _), x| p.push_overwrite(x),
    ));
    v.push(push_on_full(
        "sluicegate_mpmc",
        N,
        mpmc::Ring::<u64, N>::new(),
        |r, x| r.push_overwrite(x),
    ));
    v.push(push_on_full(
        "sluicegate_burst_ring",
        N,
        BurstRing::<u64, N, { N / 32 }>::new(),
        |r, x| r.push_overwrite(x),
    ));
    v.push(push_on_full(
        "ringbuf",
        N,
        ringbuf::HeapRb::<u64>::new(N),
        |r, x| r.push_overwrite(x),
    ));
    v.push(push_on_full(
        "crossbeam_force_push",
        N,
        ArrayQueue::new(N),
        |q, x| q.force_push(x),
    ));
    v.push(push_on_full(
        "floor_vecdeque",
        N,
        VecDeque::with_capacity(N),
        |d, x| {
            let old = if d.len() == N { d.pop_front() } else { None };
            d.push_back(x);
            old
        },
    ));
    v
}

fn main() {
    let mut cases = single_thread_cases();
    if common::icount(&mut cases) {
        return;
    }
    let mut c = common::criterion();
    stream_group::<16>(&mut c);
    stream_group::<1024>(&mut c);
    for batch in [8, 32, 256] {
        batch_group(&mut c, batch);
    }
    pingpong_group(&mut c);
    overwrite_live_group::<16, 1>(&mut c, Per::Push);
    overwrite_live_group::<1024, 32>(&mut c, Per::Push);
    overwrite_live_group::<1024, 32>(&mut c, Per::Delivered);
    common::bench_cases(&mut c, &mut cases);
    c.final_summary();
}
