//! A tokio service at twice its capacity, with and without [`LimitLayer`].
//!
//! The backend has 8 connections (a tokio `Semaphore`) and holds one for
//! 5 ms per request; a request that has not finished 100 ms after it
//! arrived times out (an error, which the layer counts as overload).
//! Clients arrive open-loop at twice the backend's nominal capacity
//! (8 / 5 ms = 1600 requests/s, so 3200/s) and do not retry. The same run
//! is made on the bare backend and behind the layer, whose limiter starts
//! at the backend's 8 connections (`min_limit` 8); each prints the good-put
//! (requests served in time, per second) and the p50 and p99 latency of
//! the served requests, from arrival to response, over the run after a
//! warm-up.
//!
//! ```text
//! cargo run --release -p sluicegate-tower --example overload [SECONDS]
//! ```
//!
//! SECONDS is the measured time of each run (default 10), after 2 s of
//! warm-up. The figures move with the machine's load: on a busy machine
//! tokio's timers fire late and the backend serves less.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use sluicegate::limit::{Limiter, LimiterConfig};
use sluicegate_tower::{LimitError, LimitLayer};
use tokio::sync::Semaphore;
use tower::{Layer, Service, ServiceExt};

const CONNECTIONS: usize = 8;
const SERVICE_TIME: Duration = Duration::from_millis(5);
const TIMEOUT: Duration = Duration::from_millis(100);
const WARM_UP: Duration = Duration::from_secs(2);

/// The backend's failure: the request did not finish within `TIMEOUT`.
#[derive(Debug)]
struct TimedOut;

/// A backend of `CONNECTIONS` connections, each busy `SERVICE_TIME` per
/// request; requests wait for a connection in arrival order.
#[derive(Clone)]
struct Backend {
    connections: Arc<Semaphore>,
}

impl Service<Instant> for Backend {
    type Response = ();
    type Error = TimedOut;
    type Future = Pin<Box<dyn Future<Output = Result<(), TimedOut>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), TimedOut>> {
        Poll::Ready(Ok(()))
    }

    /// `arrived`: when the client sent the request (its deadline counts
    /// from then, the layer's wait included).
    fn call(&mut self, arrived: Instant) -> Self::Future {
        let connections = self.connections.clone();
        Box::pin(async move {
            let work = async {
                let _connection = connections.acquire().await.map_err(|_| TimedOut)?;
                tokio::time::sleep(SERVICE_TIME).await;
                Ok(())
            };
            tokio::time::timeout_at((arrived + TIMEOUT).into(), work)
                .await
                .unwrap_or(Err(TimedOut))
        })
    }
}

/// What became of one request.
enum Ended {
    Served(Duration),
    TimedOut,
    Shed,
}

/// Offers `rate` requests per second to `service` for `WARM_UP + measured`
/// and returns what became of those that arrived after the warm-up.
async fn run<S>(service: S, rate: f64, measured: Duration) -> Vec<Ended>
where
    S: Service<Instant, Response = (), Error = LimitError<TimedOut>> + Clone + Send + 'static,
    S::Future: Send,
{
    let ended = Arc::new(Mutex::new(Vec::new()));
    let start = Instant::now();
    let end = start + WARM_UP + measured;
    let mut tasks = Vec::new();
    let mut sent = 0u64;
    let mut tick = tokio::time::interval(Duration::from_millis(1));
    while Instant::now() < end {
        tick.tick().await;
        // Open loop: as many arrivals as the clock says are due.
        let due = (start.elapsed().as_secs_f64() * rate) as u64;
        while sent < due {
            sent += 1;
            let service = service.clone();
            let ended = ended.clone();
            tasks.push(tokio::spawn(async move {
                let arrived = Instant::now();
                let result = service.oneshot(arrived).await;
                let outcome = match result {
                    Ok(()) => Ended::Served(arrived.elapsed()),
                    Err(LimitError::Inner(TimedOut)) => Ended::TimedOut,
                    Err(LimitError::Shed(_)) => Ended::Shed,
                };
                if arrived >= start + WARM_UP {
                    ended.lock().unwrap().push(outcome);
                }
            }));
        }
    }
    for task in tasks {
        task.await.unwrap();
    }
    let mut ended = ended.lock().unwrap();
    std::mem::take(&mut *ended)
}

/// The bare backend, with the layer's error type so both runs share `run`.
#[derive(Clone)]
struct Bare(Backend);

impl Service<Instant> for Bare {
    type Response = ();
    type Error = LimitError<TimedOut>;
    type Future = Pin<Box<dyn Future<Output = Result<(), LimitError<TimedOut>>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx).map_err(LimitError::Inner)
    }

    fn call(&mut self, arrived: Instant) -> Self::Future {
        let response = self.0.call(arrived);
        Box::pin(async move { response.await.map_err(LimitError::Inner) })
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn report(name: &str, ended: &[Ended], measured: Duration, offered: f64) {
    let mut served: Vec<Duration> = ended
        .iter()
        .filter_map(|e| match e {
            Ended::Served(d) => Some(*d),
            _ => None,
        })
        .collect();
    served.sort();
    let timed_out = ended
        .iter()
        .filter(|e| matches!(e, Ended::TimedOut))
        .count();
    let shed = ended.iter().filter(|e| matches!(e, Ended::Shed)).count();
    let secs = measured.as_secs_f64();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<13} offered {offered:>5.0}/s  good-put {:>5.0}/s  served p50 {:>6.1} ms  p99 {:>6.1} ms  timed out {:>5.1} %  shed {:>5.1} %",
        served.len() as f64 / secs,
        ms(percentile(&served, 0.50)),
        ms(percentile(&served, 0.99)),
        100.0 * timed_out as f64 / ended.len().max(1) as f64,
        100.0 * shed as f64 / ended.len().max(1) as f64,
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let measured = Duration::from_secs(
        std::env::args()
            .nth(1)
            .map(|s| s.parse().expect("SECONDS: a whole number"))
            .unwrap_or(10),
    );
    let capacity = CONNECTIONS as f64 / SERVICE_TIME.as_secs_f64();
    let backend = || Backend {
        connections: Arc::new(Semaphore::new(CONNECTIONS)),
    };
    println!(
        "backend: {CONNECTIONS} connections x {} ms (nominal capacity {capacity:.0}/s), timeout {} ms; {} s measured after {} s warm-up",
        SERVICE_TIME.as_millis(),
        TIMEOUT.as_millis(),
        measured.as_secs(),
        WARM_UP.as_secs()
    );

    let half = run(Bare(backend()), capacity / 2.0, measured).await;
    report("half load", &half, measured, capacity / 2.0);

    let bare = run(Bare(backend()), 2.0 * capacity, measured).await;
    report("no limiter", &bare, measured, 2.0 * capacity);

    let limiter = Arc::new(Limiter::new(LimiterConfig {
        min_limit: CONNECTIONS as u32,
        initial_limit: CONNECTIONS as u32,
        max_limit: 256,
        ..LimiterConfig::DEFAULT
    }));
    let limited = LimitLayer::new(limiter.clone()).layer(backend());
    let ended = run(limited, 2.0 * capacity, measured).await;
    report("LimitLayer", &ended, measured, 2.0 * capacity);
    let s = limiter.stats();
    println!(
        "LimitLayer: limit {} at the end, baseline {:?} µs, {} cuts, {} raises, {} probes",
        s.limit, s.baseline, s.decreases, s.increases, s.probes
    );
}
