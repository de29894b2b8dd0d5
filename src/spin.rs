//! The blocking calls' wait without `std` (with `std` they park the thread:
//! `wait::park`): try again and again, backing off in between.

/// Runs `attempt` until it answers `Ok`, handing what it gave back (`Err`,
/// e.g. the item of a push that found no room) to the next try, with
/// [`crossbeam_utils::Backoff`] between tries: the blocking calls' wait
/// without `std`. A spin: `snooze` yields the thread only if some crate in
/// the build turns on crossbeam-utils' own `std` feature.
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
