//! The firmware telemetry pattern, on the host: a fast producer (an ADC
//! interrupt, here a thread sampling at 20 kHz) pushes into a `static`
//! overwrite ring with `push_overwrite`, never waiting; a slow consumer (the
//! radio task, here a thread waking every 5 ms and sending up to 16 samples)
//! reads what is there. The ring keeps the newest samples; the old ones are
//! overwritten and counted.
//!
//! Prints how many samples were overwritten and how fresh the delivered ones
//! were (age at delivery).
//!
//! Run: `cargo run --release --example telemetry`

use std::time::{Duration, Instant};

use sluicegate::spsc::{Overwrite, Ring};

/// A telemetry sample: sequence number and the time it was taken.
#[derive(Clone, Copy, Debug)]
struct Sample {
    seq: u64,
    taken_ns: u64,
}

static TELEMETRY: Ring<Sample, 64, Overwrite> = Ring::new();

const SAMPLE_EVERY: Duration = Duration::from_micros(50);
const RADIO_EVERY: Duration = Duration::from_millis(5);
const RADIO_BATCH: usize = 16;
const RUN: Duration = Duration::from_secs(2);

fn main() {
    let (mut tx, mut rx) = TELEMETRY.try_split().expect("split once");
    let start = Instant::now();
    let now_ns = move || start.elapsed().as_nanos() as u64;
    let (produced, ages, delivered) = std::thread::scope(|s| {
        let producer = s.spawn(move || {
            let mut seq = 0u64;
            let mut next = Duration::ZERO;
            while start.elapsed() < RUN {
                // Pace by deadline (sleep, then spin the last stretch).
                while start.elapsed() < next {
                    std::hint::spin_loop();
                }
                // The "interrupt": never waits; the oldest sample goes if full.
                let _evicted = tx
                    .push_overwrite(Sample {
                        seq,
                        taken_ns: now_ns(),
                    })
                    .into_item();
                seq += 1;
                next += SAMPLE_EVERY;
                if next > start.elapsed() + Duration::from_micros(200) {
                    std::thread::sleep(Duration::from_micros(100));
                }
            }
            seq
        });
        let mut ages = Vec::new();
        let mut delivered = Vec::new();
        while start.elapsed() < RUN {
            std::thread::sleep(RADIO_EVERY);
            for _ in 0..RADIO_BATCH {
                let Some(s) = rx.try_pop() else { break };
                ages.push(now_ns() - s.taken_ns);
                delivered.push(s.seq);
            }
        }
        (producer.join().expect("producer"), ages, delivered)
    });
    let stats = TELEMETRY.stats();
    let mut sorted = ages.clone();
    sorted.sort_unstable();
    let q = |p: usize| sorted[(sorted.len() * p / 100).min(sorted.len() - 1)] as f64 / 1e6;
    let gaps = delivered.windows(2).filter(|w| w[1] != w[0] + 1).count();
    println!(
        "producer: {produced} samples in {:.1} s ({:.1} kHz) into a ring of {}",
        RUN.as_secs_f64(),
        produced as f64 / RUN.as_secs_f64() / 1e3,
        TELEMETRY.capacity()
    );
    println!(
        "consumer: every {} ms, up to {RADIO_BATCH} samples: {} delivered ({:.1} %)",
        RADIO_EVERY.as_millis(),
        delivered.len(),
        100.0 * delivered.len() as f64 / produced.max(1) as f64
    );
    println!(
        "overwritten: {} ({:.1} % of produced), rejected: {}; left in the ring: {}",
        stats.overwritten,
        100.0 * stats.overwritten as f64 / produced.max(1) as f64,
        stats.rejected,
        TELEMETRY.len()
    );
    println!(
        "accounting: delivered + overwritten + rejected + left = {} (produced {produced})",
        delivered.len() + stats.overwritten + stats.rejected + TELEMETRY.len()
    );
    println!(
        "freshness of delivered samples (age at delivery): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        q(50),
        q(99),
        q(100)
    );
    println!(
        "sequence gaps between consecutive deliveries: {gaps} (each a run of overwritten samples)"
    );
    println!(
        "the ring spans {:.1} ms of samples at the producer's rate",
        (TELEMETRY.capacity() as u128 * SAMPLE_EVERY.as_micros()) as f64 / 1000.0
    );
}
