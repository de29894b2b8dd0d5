//! The long stress of the MPMC rings' waits on a multi-threaded executor
//! (feature `stress` of this package): 8 producer tasks `push().await` and 8
//! consumer tasks `pop().await` 10 M items through a ring of 4 on tokio's
//! multi-threaded runtime, 20 times per ring, with exact accounting (every
//! item once, each producer's items in order at every consumer, nothing
//! counted as rejected). A lost wake-up hangs a run, which the run's
//! deadline turns into a failure.
//!
//! ```text
//! cargo run --release -p sluicegate-bench --features stress --example wait_stress [items] [runs]
//! ```

use sluicegate::mpmc::{BurstRing, Ring};
use sluicegate::RingStats;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PRODUCERS: u64 = 8;
const CONSUMERS: usize = 8;

/// What the stress needs of a ring.
trait Waits: Send + Sync + 'static {
    fn push(&self, v: u64) -> impl Future<Output = ()> + Send;
    fn pop(&self) -> impl Future<Output = Option<u64>> + Send;
    fn close(&self);
    fn stats(&self) -> RingStats;
}

impl Waits for Ring<u64, 4> {
    async fn push(&self, v: u64) {
        Ring::push(self, v).await.unwrap();
    }
    async fn pop(&self) -> Option<u64> {
        Ring::pop(self).await
    }
    fn close(&self) {
        Ring::close(self);
    }
    fn stats(&self) -> RingStats {
        Ring::stats(self)
    }
}

impl Waits for BurstRing<u64, 4, 1> {
    async fn push(&self, v: u64) {
        BurstRing::push(self, v).await.unwrap();
    }
    async fn pop(&self) -> Option<u64> {
        BurstRing::pop(self).await
    }
    fn close(&self) {
        BurstRing::close(self);
    }
    fn stats(&self) -> RingStats {
        BurstRing::stats(self)
    }
}

/// One run: `items` items in all; fails on a lost, repeated or reordered
/// item, a rejection, or a run that takes longer than `deadline`.
async fn run<R: Waits>(ring: Arc<R>, items: u64, deadline: Duration) {
    let per = items / PRODUCERS;
    let consumers: Vec<_> = (0..CONSUMERS)
        .map(|_| {
            let ring = ring.clone();
            tokio::spawn(async move {
                let mut last = [None::<u64>; PRODUCERS as usize];
                let mut got = 0u64;
                while let Some(v) = ring.pop().await {
                    let (p, s) = ((v >> 40) as usize, v & ((1 << 40) - 1));
                    assert!(
                        last[p].is_none_or(|l| l < s),
                        "producer {p}: {s} out of order"
                    );
                    last[p] = Some(s);
                    got += 1;
                }
                got
            })
        })
        .collect();
    let producers: Vec<_> = (0..PRODUCERS)
        .map(|p| {
            let ring = ring.clone();
            tokio::spawn(async move {
                for s in 0..per {
                    ring.push(p << 40 | s).await;
                }
            })
        })
        .collect();
    let all = async {
        for p in producers {
            p.await.unwrap();
        }
        ring.close();
        let mut got = 0;
        for c in consumers {
            got += c.await.unwrap();
        }
        got
    };
    let got = tokio::time::timeout(deadline, all)
        .await
        .expect("a run passed its deadline: a lost wake-up?");
    assert_eq!(got, per * PRODUCERS, "every item once");
    let stats = ring.stats();
    assert_eq!((stats.rejected, stats.overwritten), (0, 0), "{stats:?}");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let items: u64 = args
        .next()
        .map_or(10_000_000, |a| a.parse().expect("items"));
    let runs: usize = args.next().map_or(20, |a| a.parse().expect("runs"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_time()
        .build()
        .unwrap();
    let deadline = Duration::from_secs(120);
    for (name, each) in [("mpmc::Ring<_, 4>", 0), ("mpmc::BurstRing<_, 4, 1>", 1)] {
        let t0 = Instant::now();
        for i in 0..runs {
            let t = Instant::now();
            match each {
                0 => rt.block_on(run(Arc::new(Ring::<u64, 4>::new()), items, deadline)),
                _ => rt.block_on(run(
                    Arc::new(BurstRing::<u64, 4, 1>::new()),
                    items,
                    deadline,
                )),
            }
            println!(
                "{name}: run {} of {runs}: {items} items in {:.2} s, exact",
                i + 1,
                t.elapsed().as_secs_f64()
            );
        }
        println!(
            "{name}: {runs} runs of {items} items through 16 tasks on {} worker threads, all exact, {:.1} s",
            rt.metrics().num_workers(),
            t0.elapsed().as_secs_f64()
        );
    }
}
