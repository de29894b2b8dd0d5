//! The burst groups of `benches/mpmc.rs`: producers and consumers moving
//! bursts of [`BURST`] items through each MPMC ring that has bursts (and the
//! SPSC ring's, for scale), timed per item.

use super::*;

/// Items per burst in the burst groups.
pub const BURST: usize = 32;

/// A producer's part of a burst transfer: pushes `0..per` in bursts of
/// `BURST` with `push` (which moves what it can and says how many), waiting
/// while it moves none.
fn produce_bursts(per: u64, w: &mut Waiter<'_>, mut push: impl FnMut(&[u64]) -> usize) {
    let mut buf = [0u64; BURST];
    let mut i = 0;
    while i < per {
        let k = (per - i).min(BURST as u64) as usize;
        for (j, b) in buf[..k].iter_mut().enumerate() {
            *b = i + j as u64;
        }
        let mut sent = 0;
        while sent < k {
            let n = push(&buf[sent..k]);
            if n == 0 {
                if !w.wait() {
                    return;
                }
            } else {
                w.hit();
            }
            sent += n;
        }
        i += k as u64;
    }
}

/// A consumer's part of a burst transfer: pops bursts of up to `BURST` with
/// `pop` until `popped` reaches `total`, waiting while it gets none.
fn consume_bursts(
    popped: &AtomicU64,
    total: u64,
    w: &mut Waiter<'_>,
    mut pop: impl FnMut(&mut [u64]) -> usize,
) {
    let mut buf = [0u64; BURST];
    while popped.load(Ordering::Relaxed) < total {
        let n = pop(&mut buf);
        if n > 0 {
            black_box(&buf);
            w.hit();
            popped.fetch_add(n as u64, Ordering::Relaxed);
        } else if !w.wait() {
            return;
        }
    }
}

/// `transfer` with bursts of `BURST` (`push_burst` / `pop_burst`).
fn transfer_burst(q: &dyn Bursts, threads: usize, iters: u64) -> Transfer {
    let t = run_transfer(
        threads,
        iters,
        |per, w| produce_bursts(per, w, |b| q.push_burst(b)),
        |popped, total, w| consume_bursts(popped, total, w, |o| q.pop_burst(o)),
    );
    // Leave the ring empty for the next sample.
    while q.pop_burst(&mut [0; BURST]) > 0 {}
    t
}

/// `transfer_burst` through a fresh SPSC ring (one producer, one consumer):
/// its handles go to the two threads.
fn transfer_spsc_burst<const N: usize>(iters: u64) -> Transfer {
    let mut ring = Box::new(spsc::Ring::<u64, N>::new());
    let (p, c) = ring.split();
    let (p, c) = (Mutex::new(Some(p)), Mutex::new(Some(c)));
    run_transfer(
        1,
        iters,
        |per, w| {
            let mut p = p.lock().unwrap().take().expect("one producer");
            produce_bursts(per, w, |b| p.push_burst(b))
        },
        |popped, total, w| {
            let mut c = c.lock().unwrap().take().expect("one consumer");
            consume_bursts(popped, total, w, |o| c.pop_burst(o))
        },
    )
}

pub fn burst_groups(c: &mut Criterion) {
    fn leak<T>(v: T) -> &'static T {
        Box::leak(Box::new(v))
    }
    let ring128: &'static Ring<u64, 128> = leak(Ring::new());
    let ring1024: &'static Ring<u64, 1024> = leak(Ring::new());
    let burst128: &'static BurstRing<u64, 128, 4> = leak(BurstRing::new());
    let burst1024: &'static BurstRing<u64, 1024, 32> = leak(BurstRing::new());
    let rte128: &'static RteRing<u64, 128> = leak(RteRing::new());
    let rte1024: &'static RteRing<u64, 1024> = leak(RteRing::new());
    let aq128: &'static ArrayQueue<u64> = leak(ArrayQueue::new(128));
    let aq1024: &'static ArrayQueue<u64> = leak(ArrayQueue::new(1024));
    for threads in [1usize, 2] {
        for cap in [128usize, 1024] {
            let group = format!("mpmc_burst32_{threads}p{threads}c_{cap}");
            let mut g = c.benchmark_group(&group);
            let bursts: [(&str, &dyn Bursts); 3] = if cap == 128 {
                [
                    ("sluicegate_burst", ring128),
                    ("sluicegate_burst_ring", burst128),
                    ("floor_rte_ring", rte128),
                ]
            } else {
                [
                    ("sluicegate_burst", ring1024),
                    ("sluicegate_burst_ring", burst1024),
                    ("floor_rte_ring", rte1024),
                ]
            };
            let report = |name: &str, iters: u64, t: Transfer| {
                if let Some(got) = t.aborted {
                    eprintln!("{group}/{name}: sample of {iters} items aborted with {got} popped");
                }
                t.elapsed
            };
            for (name, q) in bursts {
                g.bench_function(name, |b| {
                    b.iter_custom(|iters| report(name, iters, transfer_burst(q, threads, iters)))
                });
            }
            // ArrayQueue has no bursts: single items, per item.
            let aq: &dyn Queue = if cap == 128 { aq128 } else { aq1024 };
            g.bench_function("crossbeam_arrayqueue", |b| {
                b.iter_custom(|iters| {
                    report("crossbeam_arrayqueue", iters, transfer(aq, threads, iters))
                })
            });
            if threads == 1 {
                g.bench_function("sluicegate_spsc_burst", |b| {
                    b.iter_custom(|iters| {
                        let t = if cap == 128 {
                            transfer_spsc_burst::<128>(iters)
                        } else {
                            transfer_spsc_burst::<1024>(iters)
                        };
                        report("sluicegate_spsc_burst", iters, t)
                    })
                });
            }
            g.finish();
        }
    }
}
