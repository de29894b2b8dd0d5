//! [`OwnedPermit`]: a [`Permit`] that holds its limiter through an `Arc`, so
//! it is `'static` and can move into a spawned task or another thread
//! (feature `std`), and the acquires that make one. Its outcomes are
//! [`Permit`]'s, with the `Arc` dropped after the release.

use std::sync::Arc;

use super::permit::Grant;
use super::{Limiter, Permit, Priority};

/// A [`Permit`] that owns a reference count of its limiter
/// (`Arc<Limiter>`) instead of borrowing it: `Send + 'static`, for a
/// limiter that is not in a `static` (built from run-time configuration,
/// one per backend) and a permit that crosses `tokio::spawn` or
/// `std::thread::spawn`.
///
/// It is a [`Permit`], so it has the same outcomes and the same
/// accounting: ending it releases its units exactly once, then drops its
/// `Arc`; dropping it without an outcome counts as `ignore`.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Instant;
/// use sluicegate::limit::{Limiter, LimiterConfig};
///
/// let gate = Arc::new(Limiter::new(LimiterConfig::DEFAULT));
/// let permit = gate.try_acquire_owned().expect("room");
/// let worker = std::thread::spawn(move || {
///     let start = Instant::now();
///     // ... the request's work ...
///     let micros = start.elapsed().as_micros();
///     permit.success(u32::try_from(micros).unwrap_or(u32::MAX));
/// });
/// worker.join().unwrap();
/// assert_eq!((gate.in_flight(), gate.stats().succeeded), (0, 1));
/// ```
pub type OwnedPermit = Permit<'static, Arc<Limiter>>;

impl Limiter {
    /// [`try_acquire`](Self::try_acquire) for a limiter in an `Arc`: the
    /// permit keeps the limiter alive, so it can move into a spawned task.
    /// One `Arc` clone (a `fetch_add`) on admission, and its drop after the
    /// release, on top of the borrowed permit's cost.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sluicegate::limit::{Limiter, LimiterConfig, OwnedPermit};
    ///
    /// let gate = Arc::new(Limiter::new(LimiterConfig { min_limit: 1, initial_limit: 1, ..LimiterConfig::DEFAULT }));
    /// let permit: OwnedPermit = gate.try_acquire_owned().unwrap();
    /// assert!(gate.try_acquire_owned().is_none()); // a limit of 1
    /// assert_eq!(Arc::strong_count(&gate), 2); // the permit's
    /// permit.ignore();
    /// assert_eq!(Arc::strong_count(&gate), 1);
    /// ```
    #[inline]
    pub fn try_acquire_owned(self: &Arc<Self>) -> Option<OwnedPermit> {
        self.try_acquire_owned_with(Priority::Critical)
    }

    /// [`try_acquire_with`](Self::try_acquire_with) for a limiter in an
    /// `Arc`: the same admission, an [`OwnedPermit`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
    ///
    /// let gate = Arc::new(Limiter::new(LimiterConfig { min_limit: 4, initial_limit: 4, ..LimiterConfig::DEFAULT }));
    /// let held: Vec<_> = (0..2).map(|_| gate.try_acquire_owned().unwrap()).collect();
    /// // Background may fill half of the limit: 2 are in flight already.
    /// let background = gate.try_acquire_owned_with(Priority::Background); // its reserve
    /// assert!(background.is_some());
    /// assert!(gate.try_acquire_owned_with(Priority::Background).is_none());
    /// # drop((held, background));
    /// ```
    #[inline]
    pub fn try_acquire_owned_with(self: &Arc<Self>, priority: Priority) -> Option<OwnedPermit> {
        self.admit(priority, 1, |grant| self.own(grant))
    }

    /// [`try_acquire_n_with`](Self::try_acquire_n_with) for a limiter in an
    /// `Arc`: `n` units at once, an [`OwnedPermit`] of that weight.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sluicegate::limit::{Limiter, LimiterConfig, Priority};
    ///
    /// let gate = Arc::new(Limiter::new(LimiterConfig::DEFAULT)); // a limit of 8
    /// let batch = gate.try_acquire_owned_n_with(Priority::Critical, 8).unwrap();
    /// assert_eq!((batch.weight(), gate.in_flight()), (8, 8));
    /// std::thread::spawn(move || batch.dropped()).join().unwrap();
    /// assert_eq!((gate.in_flight(), gate.stats().dropped), (0, 8));
    /// ```
    #[inline]
    pub fn try_acquire_owned_n_with(
        self: &Arc<Self>,
        priority: Priority,
        n: u32,
    ) -> Option<OwnedPermit> {
        self.acquire_n(priority, n, |grant| self.own(grant))
    }

    /// The owned permit of a grant just admitted.
    #[inline(always)]
    fn own(self: &Arc<Self>, grant: Grant) -> OwnedPermit {
        Permit::new(Arc::clone(self), grant)
    }
}
