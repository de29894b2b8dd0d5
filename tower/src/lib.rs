//! A [`tower`](https://docs.rs/tower) layer that sheds load with
//! [`sluicegate`]'s adaptive concurrency limiter.
//!
//! [`LimitLayer`] wraps a service in a [`LimitService`]. `poll_ready`
//! waits for the inner service alone; `call` takes an [`OwnedPermit`] from
//! the shared [`Limiter`] and runs the request under it, and when the
//! response arrives a [`Classify`] decides its outcome (by default `Ok` is a
//! success with the measured latency, `Err` an overload drop), which steers
//! the limit. When the limiter refuses, `call` answers at once with
//! [`LimitError::Shed`], carrying how long to wait before retrying
//! ([`Shed::retry_after`]); the inner service is not called.
//!
//! The admission is decided when the request is sent, not when readiness
//! is polled: a service that is ready but not called yet (in a balancer's
//! ready set, or between `ServiceExt::ready` and `call`) holds no permit,
//! so the limiter counts only requests that run, and a `call` is admitted
//! or refused on the limiter's state at that moment. Each refused `call`
//! counts one shed in [`LimiterStats::shed`](sluicegate::limit::LimiterStats::shed).
//!
//! A refusal is a `call` that fails, not a `poll_ready` that does: tower
//! takes an error from `poll_ready` as the service having failed for good,
//! so, as with tower's own `LoadShed`, the shed is the response. A response
//! future dropped before it completes (a cancelled request) releases its
//! permit as *ignored*: it says nothing about load.
//!
//! Latency is measured with [`Instant`] from `call` to the response and
//! handed to the limiter in ticks of [`LimitLayer::tick`] (1 µs by default;
//! see [`MAX_TICKS`](sluicegate::limit::MAX_TICKS) on choosing it).
//!
//! ```
//! use std::sync::Arc;
//! use sluicegate::limit::{Limiter, LimiterConfig};
//! use sluicegate_tower::{LimitError, LimitLayer};
//! use tower::{service_fn, Layer, ServiceExt};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // The backend has 8 connections: never fewer than 8 in flight.
//! let config = LimiterConfig { min_limit: 8, initial_limit: 8, ..LimiterConfig::DEFAULT };
//! let limiter = Arc::new(Limiter::new(config));
//! let backend = service_fn(|name: &'static str| async move {
//!     Ok::<_, std::io::Error>(format!("hello, {name}"))
//! });
//! let service = LimitLayer::new(limiter.clone()).layer(backend);
//! match service.oneshot("world").await {
//!     Ok(body) => assert_eq!(body, "hello, world"),
//!     Err(LimitError::Shed(shed)) => panic!("503, retry in {:?}", shed.retry_after()),
//!     Err(LimitError::Inner(e)) => panic!("500: {e}"),
//! }
//! assert_eq!(limiter.stats().succeeded, 1);
//! # }
//! ```
//!
//! `examples/overload.rs` runs a backend of 8 connections × 5 ms at twice
//! its capacity with and without the layer and prints the good-put and the
//! served latency of both.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use pin_project_lite::pin_project;
use sluicegate::limit::{Limiter, OwnedPermit, Priority};
use tower_layer::Layer;
use tower_service::Service;

/// How a request ended, as the limiter should count it.
///
/// ```
/// use sluicegate_tower::Outcome;
///
/// // A 429 or 503 from downstream is overload; a 404 says nothing about load.
/// let of_status = |status: u16| match status {
///     429 | 503 | 504 => Outcome::Dropped,
///     400..=499 => Outcome::Ignore,
///     _ => Outcome::Success,
/// };
/// assert_eq!(of_status(503), Outcome::Dropped);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Served: the latency is a sample ([`Permit::success`](sluicegate::limit::Permit::success)).
    Success,
    /// Failed from overload: a timeout, a downstream refusal
    /// ([`Permit::dropped`](sluicegate::limit::Permit::dropped)).
    Dropped,
    /// Ended without saying anything about load: a client error, a
    /// cancellation ([`Permit::ignore`](sluicegate::limit::Permit::ignore)).
    Ignore,
}

/// Decides the [`Outcome`] of a response. Implemented for every
/// `Fn(&Result<T, E>) -> Outcome` and by [`DefaultClassifier`].
///
/// ```
/// use sluicegate_tower::{Classify, Outcome};
///
/// #[derive(Debug)]
/// enum Error { Timeout, NotFound }
/// let classify = |r: &Result<&str, Error>| match r {
///     Ok(_) => Outcome::Success,
///     Err(Error::Timeout) => Outcome::Dropped,
///     Err(Error::NotFound) => Outcome::Ignore,
/// };
/// assert_eq!(classify.classify(&Err(Error::NotFound)), Outcome::Ignore);
/// ```
pub trait Classify<T, E> {
    /// The outcome of `result`.
    fn classify(&self, result: &Result<T, E>) -> Outcome;
}

impl<T, E, F: Fn(&Result<T, E>) -> Outcome> Classify<T, E> for F {
    fn classify(&self, result: &Result<T, E>) -> Outcome {
        self(result)
    }
}

/// The default [`Classify`]: `Ok` is a success, `Err` an overload drop.
///
/// ```
/// use sluicegate_tower::{Classify, DefaultClassifier, Outcome};
///
/// let ok: Result<(), ()> = Ok(());
/// assert_eq!(DefaultClassifier.classify(&ok), Outcome::Success);
/// assert_eq!(DefaultClassifier.classify(&Err::<(), ()>(())), Outcome::Dropped);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultClassifier;

impl<T, E> Classify<T, E> for DefaultClassifier {
    fn classify(&self, result: &Result<T, E>) -> Outcome {
        match result {
            Ok(_) => Outcome::Success,
            Err(_) => Outcome::Dropped,
        }
    }
}

/// Limits a service with a shared [`Limiter`]: see the [crate docs](crate).
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
/// use sluicegate_tower::{LimitLayer, Outcome};
///
/// let limiter = Arc::new(Limiter::new(LimiterConfig::DEFAULT));
/// // Reports as Background, latency in 100 µs ticks, every `Err` ignored.
/// let layer = LimitLayer::new(limiter)
///     .priority(Priority::Background)
///     .tick(Duration::from_micros(100))
///     .classify(|r: &Result<String, std::io::Error>| match r {
///         Ok(_) => Outcome::Success,
///         Err(_) => Outcome::Ignore,
///     });
/// # let _ = layer;
/// ```
#[derive(Clone, Debug)]
pub struct LimitLayer<C = DefaultClassifier> {
    limiter: Arc<Limiter>,
    priority: Priority,
    tick: Duration,
    classify: C,
}

impl LimitLayer {
    /// A layer that admits [`Priority::Critical`] requests through
    /// `limiter`, measures latency in µs and classifies with
    /// [`DefaultClassifier`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    /// use sluicegate_tower::LimitLayer;
    /// use tower::{service_fn, Layer};
    ///
    /// let limiter = Arc::new(Limiter::new(LimiterConfig::DEFAULT));
    /// let echo = service_fn(|x: u32| async move { Ok::<_, ()>(x) });
    /// let _limited = LimitLayer::new(limiter).layer(echo);
    /// ```
    pub fn new(limiter: Arc<Limiter>) -> Self {
        Self {
            limiter,
            priority: Priority::Critical,
            tick: Duration::from_micros(1),
            classify: DefaultClassifier,
        }
    }
}

impl<C> LimitLayer<C> {
    /// The class every request of this layer is admitted in (one layer per
    /// class of route).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
    /// use sluicegate_tower::LimitLayer;
    ///
    /// let limiter = Arc::new(Limiter::new(LimiterConfig::DEFAULT));
    /// let reports = LimitLayer::new(limiter.clone()).priority(Priority::Background);
    /// let checkout = LimitLayer::new(limiter); // Critical
    /// # let _ = (reports, checkout);
    /// ```
    pub fn priority(self, priority: Priority) -> Self {
        Self { priority, ..self }
    }

    /// The tick latencies are reported in (at least 1 ns): short enough to
    /// resolve a typical request, long enough that a timeout stays under
    /// [`MAX_TICKS`](sluicegate::limit::MAX_TICKS) ticks. Retry-after
    /// durations are converted back with it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    /// use sluicegate_tower::LimitLayer;
    ///
    /// // Requests of 50 to 500 ns: a 10 ns tick spans 2.6 s.
    /// let limiter = Arc::new(Limiter::new(LimiterConfig::DEFAULT));
    /// let layer = LimitLayer::new(limiter).tick(Duration::from_nanos(10));
    /// # let _ = layer;
    /// ```
    pub fn tick(self, tick: Duration) -> Self {
        Self {
            tick: tick.max(Duration::from_nanos(1)),
            ..self
        }
    }

    /// How responses are classified (see [`Classify`]).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    /// use sluicegate_tower::{LimitLayer, Outcome};
    ///
    /// let limiter = Arc::new(Limiter::new(LimiterConfig::DEFAULT));
    /// // An HTTP-like status: 503 from downstream is overload.
    /// let layer = LimitLayer::new(limiter).classify(|r: &Result<u16, ()>| match r {
    ///     Ok(503) | Err(_) => Outcome::Dropped,
    ///     Ok(_) => Outcome::Success,
    /// });
    /// # let _ = layer;
    /// ```
    pub fn classify<D>(self, classify: D) -> LimitLayer<D> {
        LimitLayer {
            limiter: self.limiter,
            priority: self.priority,
            tick: self.tick,
            classify,
        }
    }
}

impl<S, C: Clone> Layer<S> for LimitLayer<C> {
    type Service = LimitService<S, C>;

    fn layer(&self, inner: S) -> Self::Service {
        LimitService {
            inner,
            limiter: self.limiter.clone(),
            priority: self.priority,
            tick: self.tick,
            classify: self.classify.clone(),
            ready: false,
        }
    }
}

/// A service limited by a [`LimitLayer`]: see the [crate docs](crate).
///
/// A clone shares the limiter; it is not ready until its own `poll_ready`
/// reports so.
///
/// # Panics
///
/// `call` without a `poll_ready` that reported ready since the last `call`
/// panics, as tower's contract allows (tower's own limits do the same).
///
/// ```
/// use std::sync::Arc;
/// use sluicegate::limit::{Limiter, LimiterConfig};
/// use sluicegate_tower::{LimitError, LimitLayer};
/// use tower::{service_fn, Layer, Service, ServiceExt};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let limiter = Arc::new(Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 1, ..LimiterConfig::DEFAULT }));
/// let echo = service_fn(|x: u32| async move { Ok::<_, ()>(x) });
/// let mut a = LimitLayer::new(limiter.clone()).layer(echo);
/// let mut b = a.clone();
/// // Ready, not called: no permit is held.
/// a.ready().await.unwrap();
/// b.ready().await.unwrap();
/// assert_eq!(limiter.in_flight(), 0);
/// // `a`'s request holds the only permit until it completes.
/// let first = a.call(1);
/// let refused = b.call(2).await;
/// assert!(matches!(refused, Err(LimitError::Shed(_))));
/// assert_eq!(first.await.unwrap(), 1);
/// // Admitted now: the limiter is idle again.
/// assert_eq!(b.ready().await.unwrap().call(3).await.unwrap(), 3);
/// assert_eq!(limiter.stats().shed[0], 1);
/// # }
/// ```
#[derive(Debug)]
pub struct LimitService<S, C = DefaultClassifier> {
    inner: S,
    limiter: Arc<Limiter>,
    priority: Priority,
    tick: Duration,
    classify: C,
    /// `poll_ready` reported ready since the last `call`.
    ready: bool,
}

impl<S: Clone, C: Clone> Clone for LimitService<S, C> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            limiter: self.limiter.clone(),
            priority: self.priority,
            tick: self.tick,
            classify: self.classify.clone(),
            ready: false,
        }
    }
}

impl<S, C, Req> Service<Req> for LimitService<S, C>
where
    S: Service<Req>,
    C: Classify<S::Response, S::Error> + Clone,
{
    type Response = S::Response;
    type Error = LimitError<S::Error>;
    type Future = ResponseFuture<S::Future, C>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // The inner service only: the permit is taken in `call`, so none is
        // held by a service that is ready and not called.
        self.ready = false;
        ready!(self.inner.poll_ready(cx)).map_err(LimitError::Inner)?;
        self.ready = true;
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Req) -> Self::Future {
        // Readiness is for one call.
        assert!(
            std::mem::replace(&mut self.ready, false),
            "LimitService::call before poll_ready reported ready"
        );
        match self.limiter.try_acquire_owned_with(self.priority) {
            Some(permit) => ResponseFuture {
                state: State::Running {
                    inner: self.inner.call(req),
                    permit: Some(permit),
                    start: Instant::now(),
                    tick: self.tick,
                    classify: self.classify.clone(),
                },
            },
            None => ResponseFuture {
                state: State::Shed {
                    shed: Shed {
                        retry_after: self
                            .limiter
                            .retry_after(self.priority)
                            .map(|ticks| self.tick.saturating_mul(ticks)),
                        priority: self.priority,
                    },
                },
            },
        }
    }
}

pin_project! {
    /// The response of a [`LimitService`]: the inner service's response
    /// under a permit, which it releases with the response's outcome, or a
    /// refusal.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    /// use sluicegate_tower::LimitLayer;
    /// use tower::{service_fn, Layer, Service, ServiceExt};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let limiter = Arc::new(Limiter::new(LimiterConfig::DEFAULT));
    /// let echo = service_fn(|x: u32| async move { Ok::<_, ()>(x) });
    /// let mut service = LimitLayer::new(limiter.clone()).layer(echo);
    /// let response = service.ready().await.unwrap().call(7);
    /// assert_eq!(limiter.in_flight(), 1); // held by the response future
    /// drop(response); // cancelled: released as ignored
    /// assert_eq!((limiter.in_flight(), limiter.stats().ignored), (0, 1));
    /// # }
    /// ```
    #[derive(Debug)]
    pub struct ResponseFuture<F, C> {
        #[pin]
        state: State<F, C>,
    }
}

pin_project! {
    /// A response future's state.
    #[project = StateProjection]
    #[derive(Debug)]
    enum State<F, C> {
        /// Admitted: the inner service's future, and the permit it runs
        /// under until it completes.
        Running {
            #[pin]
            inner: F,
            permit: Option<OwnedPermit>,
            start: Instant,
            tick: Duration,
            classify: C,
        },
        /// Refused.
        Shed { shed: Shed },
    }
}

impl<F, C, T, E> Future for ResponseFuture<F, C>
where
    F: Future<Output = Result<T, E>>,
    C: Classify<T, E>,
{
    type Output = Result<T, LimitError<E>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().state.project() {
            StateProjection::Running {
                inner,
                permit,
                start,
                tick,
                classify,
            } => {
                let result = ready!(inner.poll(cx));
                if let Some(permit) = permit.take() {
                    match classify.classify(&result) {
                        Outcome::Success => permit.success(ticks(start.elapsed(), *tick)),
                        Outcome::Dropped => permit.dropped(),
                        Outcome::Ignore => permit.ignore(),
                    }
                }
                Poll::Ready(result.map_err(LimitError::Inner))
            }
            StateProjection::Shed { shed } => Poll::Ready(Err(LimitError::Shed(*shed))),
        }
    }
}

/// `elapsed` in whole ticks, saturated to `u32` (the limiter clamps it to
/// `MAX_TICKS`).
fn ticks(elapsed: Duration, tick: Duration) -> u32 {
    let n = elapsed.as_nanos() / tick.as_nanos().max(1);
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A request the limiter refused: how long to wait before retrying.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use sluicegate::limit::{Limiter, LimiterConfig};
/// use sluicegate_tower::{LimitError, LimitLayer};
/// use tower::{service_fn, Layer, Service, ServiceExt};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let limiter = Arc::new(Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 1, ..LimiterConfig::DEFAULT }));
/// limiter.try_acquire().unwrap().success(2_400_000); // 2.4 s, in µs: queue-free
/// let _busy = limiter.try_acquire().unwrap(); // the only permit
/// let echo = service_fn(|x: u32| async move { Ok::<_, ()>(x) });
/// let Err(LimitError::Shed(shed)) = LimitLayer::new(limiter.clone()).layer(echo).oneshot(1).await else {
///     panic!("admitted over the limit");
/// };
/// assert_eq!(shed.retry_after(), Some(Duration::from_millis(2400)));
/// assert_eq!(shed.retry_after_secs(), 3); // `Retry-After: 3`
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shed {
    retry_after: Option<Duration>,
    priority: Priority,
}

impl Shed {
    /// How long until the permits above the class's share drain
    /// ([`Limiter::retry_after`] converted with the layer's tick); `None`
    /// before the limiter has measured a queue-free latency.
    ///
    /// ```
    /// use sluicegate_tower::LimitError;
    ///
    /// fn backoff<E>(e: &LimitError<E>) -> Option<std::time::Duration> {
    ///     match e {
    ///         LimitError::Shed(shed) => shed.retry_after(),
    ///         LimitError::Inner(_) => None,
    ///     }
    /// }
    /// # let _ = backoff::<()>;
    /// ```
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// [`retry_after`](Self::retry_after) as an HTTP `Retry-After` value:
    /// whole seconds rounded up, at least 1 (a client told 0 would retry at
    /// once into the same overload), and 1 when nothing is known yet.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sluicegate::limit::{Limiter, LimiterConfig};
    /// use sluicegate_tower::{LimitError, LimitLayer};
    /// use tower::{service_fn, Layer, ServiceExt};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let limiter = Arc::new(Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 1, ..LimiterConfig::DEFAULT }));
    /// let _busy = limiter.try_acquire().unwrap(); // nothing measured yet
    /// let echo = service_fn(|x: u32| async move { Ok::<_, ()>(x) });
    /// let Err(LimitError::Shed(shed)) = LimitLayer::new(limiter.clone()).layer(echo).oneshot(1).await else {
    ///     panic!("admitted over the limit");
    /// };
    /// assert_eq!((shed.retry_after(), shed.retry_after_secs()), (None, 1));
    /// # }
    /// ```
    pub fn retry_after_secs(&self) -> u64 {
        match self.retry_after {
            Some(d) => {
                let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
                secs.max(1)
            }
            None => 1,
        }
    }

    /// The class that was refused.
    ///
    /// ```
    /// use sluicegate::limit::Priority;
    /// use sluicegate_tower::Shed;
    ///
    /// fn is_background(shed: &Shed) -> bool {
    ///     shed.priority() == Priority::Background
    /// }
    /// # let _ = is_background;
    /// ```
    pub fn priority(&self) -> Priority {
        self.priority
    }
}

impl fmt::Display for Shed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shed by the concurrency limiter ({:?})", self.priority)?;
        if let Some(d) = self.retry_after {
            write!(f, ", retry after {d:?}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Shed {}

/// The error of a [`LimitService`]: refused by the limiter, or the inner
/// service's own error.
///
/// ```
/// use sluicegate_tower::LimitError;
///
/// fn status<E>(e: &LimitError<E>) -> u16 {
///     match e {
///         LimitError::Shed(_) => 503,
///         LimitError::Inner(_) => 500,
///     }
/// }
/// # let _ = status::<()>;
/// ```
#[derive(Debug)]
pub enum LimitError<E> {
    /// The limiter refused the request; the inner service was not called.
    Shed(Shed),
    /// The inner service failed.
    Inner(E),
}

impl<E: fmt::Display> fmt::Display for LimitError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Shed(shed) => shed.fmt(f),
            Self::Inner(e) => e.fmt(f),
        }
    }
}

/// Displays as what it wraps, and so passes on the inner error's source.
impl<E: std::error::Error + 'static> std::error::Error for LimitError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Shed(_) => None,
            Self::Inner(e) => e.source(),
        }
    }
}
