//! Trying again with back-off: the blocking calls' whole wait without
//! `std` (`until`), and with `std` their short spin before they park the
//! thread (`briefly`; the parking is `wait::park`).

/// Runs `attempt` until it answers `Ok`, handing what it gave back (`Err`,
/// e.g. the item of a push that found no room) to the next try, with
/// [`crossbeam_utils::Backoff`] between tries: the blocking calls' wait
/// without `std`. A spin: `snooze` yields the thread only if some crate in
/// the build turns on crossbeam-utils' own `std` feature.
#[cfg(not(feature = "std"))]
pub(crate) fn until<S, R>(mut state: S, mut attempt: impl FnMut(S) -> Result<R, S>) -> R {
    let backoff = crossbeam_utils::Backoff::new();
    loop {
        match attempt(state) {
            Ok(out) => return out,
            Err(back) => state = back,
        }
        backoff.snooze();
    }
}

/// With `std`, before a blocking call parks: tries `attempt` a few more
/// times with a short spin between tries, and hands the state back
/// (`Err`) if it never succeeded. A wait that a push or pop on another
/// core ends within microseconds then costs no park, no unpark and no
/// list operation. Bounded: 7 rounds of 1 to 64 spin hints (127 in all),
/// then, only while `crowded` says other threads or tasks wait on the
/// same ring, up to 4 more tries each after a `yield_now` (as crossbeam's
/// `Backoff::snooze`): with more threads than cores the one that would
/// make room or an item is often runnable but not running, and yielding
/// lets it run where a park and an unpark would cost two system calls
/// and two context switches. An idle waiter alone on its ring does not
/// yield: on this crate's Linux test machine, a thread that spent more
/// CPU before it parked was woken later (p50 1.7 to 2 us without the
/// yields, 9 to 10 us with them or with eight times the spin).
#[cfg(feature = "std")]
pub(crate) fn briefly<S, R>(
    mut state: S,
    mut attempt: impl FnMut(S) -> Result<R, S>,
    crowded: impl Fn() -> bool,
) -> Result<R, S> {
    // Under the loom models one round and no yield: the models check the
    // parking, and every round would multiply the interleavings they
    // explore.
    const ROUNDS: u32 = if cfg!(sluicegate_loom) { 1 } else { 7 };
    const YIELDS: u32 = if cfg!(sluicegate_loom) { 0 } else { 4 };
    for round in 0..ROUNDS {
        for _ in 0..1u32 << round {
            core::hint::spin_loop();
        }
        match attempt(state) {
            Ok(out) => return Ok(out),
            Err(back) => state = back,
        }
    }
    // An empty range under the loom models.
    #[allow(clippy::reversed_empty_ranges)]
    for _ in 0..YIELDS {
        if !crowded() {
            break;
        }
        crate::sync::thread::yield_now();
        match attempt(state) {
            Ok(out) => return Ok(out),
            Err(back) => state = back,
        }
    }
    Err(state)
}
