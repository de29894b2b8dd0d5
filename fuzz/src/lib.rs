//! Shared pieces of the fuzz targets: where positions start, which capacity,
//! a payload that is `!Sync`, counts itself and may panic in `Drop`, the
//! checks of the in-place drops and of the SPSC handles' lifecycle, and (in
//! [`mpmc`]) the model and driver of both MPMC rings, and a waker that
//! counts its wakes. The SPSC targets carry their own `VecDeque` models.

pub mod mpmc;

use std::cell::Cell;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Wake, Waker};

use arbitrary::Arbitrary;
use sluicegate::spsc::{Consumer, Policy, Producer, Ring};

/// Where a ring's positions start, so wrap-around at every integer limit the
/// ring uses is reached by short inputs.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Start {
    Zero,
    /// Just below `usize::MAX` (Reject positions wrap there).
    NearUsizeMax(u8),
    /// Just below `u32::MAX` (where a 32-bit MCU wraps).
    NearU32Max(u8),
    /// Just below `usize::MAX / 2` (Overwrite stores positions doubled).
    NearHalfUsize(u8),
    /// Just below `u32::MAX / 2`.
    NearHalfU32(u8),
    Any(usize),
}

impl Start {
    pub fn position(self) -> usize {
        match self {
            Start::Zero => 0,
            Start::NearUsizeMax(k) => usize::MAX - k as usize,
            Start::NearU32Max(k) => u32::MAX as usize - k as usize,
            Start::NearHalfUsize(k) => (usize::MAX >> 1) - k as usize,
            Start::NearHalfU32(k) => (u32::MAX >> 1) as usize - k as usize,
            Start::Any(p) => p,
        }
    }
}

/// Which capacity to test: small, so full and empty are reached often.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Cap {
    One,
    Two,
    Eight,
}

/// Which free pool an MPMC target's ring uses.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Pool {
    /// `FreeIndices<N>`, the default (`Ring`).
    Indices,
    /// `FreeMask` (`SmallRing`).
    Mask,
    /// `FreeBits<1>`, at the capacity `Cap` says.
    Bits,
    /// `FreeBits<2>` at 64 slots: a take scans two words.
    Bits64,
}

std::thread_local! {
    /// Items made and not yet dropped, on this (the fuzzing) thread.
    static LIVE: Cell<usize> = const { Cell::new(0) };
}

/// The payload of the panics `Item::drop` provokes.
pub struct Bomb;

/// A payload that is `Send + !Sync` (the `Cell`), owns heap memory (so the
/// sanitizer sees a leak or a double free), counts how many are alive, and
/// panics in `Drop` while armed: the rings' in-place drop paths
/// (`ReadChunk::commit`, the rings' own `Drop`) must leave every other item
/// intact and drop none twice.
pub struct Item {
    value: Box<u64>,
    armed: Cell<bool>,
}

impl Item {
    /// Item ids with `id % 7 == 3` are armed: short inputs reach them.
    pub fn new(value: u64) -> Self {
        LIVE.with(|l| l.set(l.get() + 1));
        Self {
            value: Box::new(value),
            armed: Cell::new(Self::is_bomb(value)),
        }
    }

    /// Whether `Item::new(value)` panics when the ring drops it in place.
    pub fn is_bomb(value: u64) -> bool {
        value % 7 == 3
    }

    /// Its value; disarms it, for items the harness itself drops.
    pub fn take(self) -> u64 {
        self.armed.set(false);
        *self.value
    }

    /// Its value, left armed.
    pub fn value(&self) -> u64 {
        *self.value
    }

    /// Items alive on this thread.
    pub fn live() -> usize {
        LIVE.with(Cell::get)
    }
}

impl Drop for Item {
    fn drop(&mut self) {
        LIVE.with(|l| l.set(l.get() - 1));
        // Not while unwinding already: a second panic would abort, as in std.
        if self.armed.get() && !std::thread::panicking() {
            std::panic::panic_any(Bomb);
        }
    }
}

/// Runs `f` and reports whether it panicked with [`Bomb`]. Any other panic
/// aborts (a crash for the fuzzer); a `Bomb` panic is not printed.
pub fn bombed(f: impl FnOnce()) -> bool {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let fuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Bomb>() {
                fuzzer_hook(info);
                std::process::abort();
            }
        }));
    });
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => false,
        Err(payload) if payload.is::<Bomb>() => true,
        Err(_) => std::process::abort(),
    }
}

/// `clear()` (given as `clear`) on a ring whose items are `model`: it drops
/// them in place, so the first bomb stops it there; without one it clears
/// them all and says how many.
pub fn clear_checked(model: &mut VecDeque<u64>, clear: impl FnOnce() -> usize) {
    let mut cleared = 0;
    let bombed_now = bombed(|| cleared = clear());
    match model.iter().position(|&v| Item::is_bomb(v)) {
        Some(at) => {
            assert!(bombed_now);
            model.drain(..=at);
        }
        None => {
            assert!(!bombed_now);
            assert_eq!(cleared, model.len());
            model.clear();
        }
    }
}

/// Drops `ring`, whose items are `model`: its `Drop` frees them all, even
/// if one panics (and it panics exactly when one is a bomb); then no item
/// is alive.
pub fn drop_checked<R>(ring: R, model: &VecDeque<u64>) {
    let bombs = model.iter().any(|&v| Item::is_bomb(v));
    assert_eq!(bombed(|| drop(ring)), bombs);
    assert_eq!(Item::live(), 0, "an item leaked");
}

/// An SPSC ring's handles, either of which may have been dropped.
pub type Handles<'a, T, const N: usize, P> =
    (Option<Producer<'a, T, N, P>>, Option<Consumer<'a, T, N, P>>);

/// Drops the producer (if alive): the consumer sees it abandoned.
pub fn drop_producer<T, const N: usize, P: Policy>((tx, rx): &mut Handles<'_, T, N, P>) {
    *tx = None;
    if let Some(rx) = rx {
        assert!(rx.is_abandoned());
    }
}

/// Drops the consumer (if alive): the producer sees it abandoned.
pub fn drop_consumer<T, const N: usize, P: Policy>((tx, rx): &mut Handles<'_, T, N, P>) {
    *rx = None;
    if let Some(tx) = tx {
        assert!(tx.is_abandoned());
    }
}

/// `try_split`: succeeds exactly when both handles are gone, and gives
/// both back.
pub fn split<'a, T, const N: usize, P: Policy>(
    ring: &'a Ring<T, N, P>,
    handles: &mut Handles<'a, T, N, P>,
) {
    match ring.try_split() {
        Some((t, r)) => {
            assert!(handles.0.is_none() && handles.1.is_none());
            *handles = (Some(t), Some(r));
        }
        None => assert!(handles.0.is_some() || handles.1.is_some()),
    }
}

/// Each live handle sees the other abandoned exactly when it is gone.
pub fn check_abandoned<T, const N: usize, P: Policy>((tx, rx): &Handles<'_, T, N, P>) {
    if let Some(tx) = tx {
        assert_eq!(tx.is_abandoned(), rx.is_none());
    }
    if let Some(rx) = rx {
        assert_eq!(rx.is_abandoned(), tx.is_none());
    }
}

/// A waker that counts its wakes, for the targets that poll futures by hand.
pub struct WakeCount(AtomicUsize);

impl WakeCount {
    /// A fresh count and the waker that adds to it.
    pub fn waker() -> (Arc<WakeCount>, Waker) {
        let c = Arc::new(WakeCount(AtomicUsize::new(0)));
        (c.clone(), Waker::from(c))
    }

    /// The wakes so far.
    pub fn wakes(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

impl Wake for WakeCount {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}
