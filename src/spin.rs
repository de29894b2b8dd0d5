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
/// so an idle waiter spends a few microseconds here once and then sleeps.
/// It does not yield the thread: with `yield_now` between tries the
/// measured wake-up of a parked thread took 2 to 3 times as long (p50).
#[cfg(feature = "std")]
pub(crate) fn briefly<S, R>(
    mut state: S,
    mut attempt: impl FnMut(S) -> Result<R, S>,
) -> Result<R, S> {
    // Under the loom models one round: the models check the parking, and
    // every round would multiply the interleavings they explore.
    const ROUNDS: u32 = if cfg!(sluicegate_loom) { 1 } else { 7 };
    for round in 0..ROUNDS {
        for _ in 0..1u32 << round {
            core::hint::spin_loop();
        }
        match attempt(state) {
            Ok(out) => return Ok(out),
            Err(back) => state = back,
        }
    }
    Err(state)
}
