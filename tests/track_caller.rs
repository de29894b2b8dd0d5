//! A `const fn` that can panic at run time reports the caller's line.
#![cfg(not(sluicegate_loom))]

use sluicegate::limit::{Limiter, LimiterConfig};
use std::sync::{Arc, Mutex};

#[test]
fn limiter_new_panics_at_the_callers_line() {
    let seen = Arc::new(Mutex::new(None));
    let hook_seen = seen.clone();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        *hook_seen.lock().unwrap() = info.location().map(|l| (l.file().to_string(), l.line()));
    }));
    let bad = LimiterConfig {
        min_limit: 0,
        ..LimiterConfig::DEFAULT
    };
    let line = line!() + 1;
    let r = std::panic::catch_unwind(|| Limiter::new(bad));
    std::panic::set_hook(previous);
    assert!(r.is_err(), "an invalid configuration panics");
    let (file, at) = seen.lock().unwrap().clone().expect("a location");
    assert!(file.ends_with("track_caller.rs"), "panic located in {file}");
    assert_eq!(at, line);
}
