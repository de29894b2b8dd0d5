//! The one place that decides where atomics, `UnsafeCell` and cache padding
//! come from. Every other module imports from here and nowhere else.
//!
//! | build                                                                 | atomics from      |
//! |-----------------------------------------------------------------------|-------------------|
//! | the loom models: `RUSTFLAGS="--cfg sluicegate_loom" cargo test --lib` | `loom`            |
//! | feature `portable-atomic`                                             | `portable-atomic` |
//! | otherwise                                                             | `core`            |
//!
//! loom's types have no `const fn new`, so constructors that must be `const`
//! outside loom are written once with [`const_fn!`] and lose `const` under
//! loom (crossbeam-epoch's approach). Under loom no `static` ring exists; the
//! models build rings on the heap instead.

#[cfg(sluicegate_loom)]
pub(crate) use loom::sync::atomic::AtomicUsize;

#[cfg(all(not(sluicegate_loom), feature = "portable-atomic"))]
pub(crate) use portable_atomic::AtomicUsize;

#[cfg(all(not(sluicegate_loom), not(feature = "portable-atomic")))]
#[allow(unused_imports)] // unused on targets without CAS
pub(crate) use core::sync::atomic::AtomicUsize;

#[cfg(all(not(sluicegate_loom), not(feature = "portable-atomic")))]
#[allow(unused_imports)] // unused on targets without CAS
pub(crate) use core::sync::atomic::AtomicU32;
/// 32-bit atomics, for `mpmc::FreeBits`'s words (32 slots each on every target).
#[cfg(sluicegate_loom)]
pub(crate) use loom::sync::atomic::AtomicU32;
#[cfg(all(not(sluicegate_loom), feature = "portable-atomic"))]
pub(crate) use portable_atomic::AtomicU32;

pub(crate) use core::sync::atomic::Ordering;

/// Whether a notifier whose writes are all `SeqCst` checks the waiters'
/// gate with a `SeqCst` load instead of a fence and a relaxed load ("Without
/// the notifier's fence" in `src/wait.rs`): on x86 and AArch64 with native
/// atomics, where that load is a plain load (or `ldar`) and the fence a
/// locked instruction (or `dmb`). Not on 32-bit Arm (the two forms cost the
/// same), with `portable-atomic` (whose read-modify-writes may be critical
/// sections), or under loom (which models `SeqCst` accesses as acquire and
/// release only).
#[cfg_attr(not(sluicegate_cas), allow(dead_code))] // only the CAS rings notify
pub(crate) const SEQCST_GATE: bool = cfg!(all(
    any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64"
    ),
    not(feature = "portable-atomic"),
    not(sluicegate_loom)
));

/// A memory fence (the waiter protocol's `SeqCst` fences, `src/wait.rs`,
/// and the SPSC watermark's raise, `src/spsc/watermark.rs`; native on every
/// target, Cortex-M0 included).
#[cfg(not(sluicegate_loom))]
pub(crate) use core::sync::atomic::fence;
#[cfg(sluicegate_loom)]
pub(crate) use loom::sync::atomic::fence;

#[cfg(all(feature = "std", sluicegate_loom))]
pub(crate) use loom::thread;
/// Threads for the blocking calls' parking (feature `std`): loom's under
/// the models, so that a lost unpark is a deadlock loom reports.
#[cfg(all(feature = "std", not(sluicegate_loom)))]
pub(crate) use std::thread;

/// An atomic word that only ever sees loads and stores, never a
/// read-modify-write. Those are native on every target with atomics,
/// Cortex-M0 included, so it comes from `core` even with the
/// `portable-atomic` feature on (whose critical-section fallback would wrap
/// every load and store in a critical section). Mixing is sound because no
/// read-modify-write ever touches such a word; a word that needs one is
/// reached through [`rmw_view`] for all its concurrent accesses.
#[cfg(not(sluicegate_loom))]
pub(crate) use core::sync::atomic::AtomicUsize as LoadStoreUsize;
#[cfg(sluicegate_loom)]
pub(crate) use loom::sync::atomic::AtomicUsize as LoadStoreUsize;

/// A flag that only ever sees loads and stores (native on every target with
/// atomics, so it too comes from `core`).
#[cfg(not(sluicegate_loom))]
pub(crate) use core::sync::atomic::AtomicBool as LoadStoreBool;
#[cfg(sluicegate_loom)]
pub(crate) use loom::sync::atomic::AtomicBool as LoadStoreBool;

/// The CAS-capable view of a [`LoadStoreUsize`]. Once a word needs a
/// read-modify-write, *every* concurrent access to it must go through this
/// view, so that all of them use the same implementation (with
/// `portable-atomic`'s critical-section fallback, the same lock).
#[cfg(sluicegate_cas)]
#[inline(always)]
pub(crate) fn rmw_view(word: &LoadStoreUsize) -> &AtomicUsize {
    #[cfg(all(feature = "portable-atomic", not(sluicegate_loom)))]
    {
        // SAFETY: `word.as_ptr()` is valid and aligned for `usize` (and
        // `portable_atomic::AtomicUsize` has the alignment of `usize`) for
        // as long as `word` is borrowed; callers route every concurrent
        // access of this word through this view (see above), and the only
        // other accesses (construction, `&mut` in `Drop`) are exclusive.
        unsafe { AtomicUsize::from_ptr(word.as_ptr()) }
    }
    #[cfg(not(all(feature = "portable-atomic", not(sluicegate_loom))))]
    {
        word
    }
}

/// What the stand-ins of the CAS-only methods (`try_split`) demand where
/// compare-and-swap is missing (thumbv6m without `portable-atomic`). Nothing
/// implements it, so a call to one is a compile error that says which
/// feature brings the method back, where a missing method would get "no
/// method named `try_split`" and a suggestion of `split`. Public in a private
/// module: callers cannot name it, let alone implement it.
#[cfg(not(sluicegate_cas))]
#[diagnostic::on_unimplemented(
    message = "sluicegate: this method of `{Self}` needs compare-and-swap, which this target lacks",
    label = "needs compare-and-swap",
    note = "on thumbv6m, enable sluicegate's `portable-atomic` feature (and let the binary choose how portable-atomic provides it: see the README's \"Adding it to a build\")"
)]
pub trait CompareAndSwap {}

/// Writes a `const fn` outside loom and a plain `fn` under loom, from one body.
macro_rules! const_fn {
    ($(#[$attr:meta])* $vis:vis fn $name:ident $($rest:tt)*) => {
        #[cfg(not(sluicegate_loom))]
        $(#[$attr])* $vis const fn $name $($rest)*
        #[cfg(sluicegate_loom)]
        $(#[$attr])* $vis fn $name $($rest)*
    };
}
pub(crate) use const_fn;

/// `UnsafeCell` with loom's closure API, so the same code is checked by loom
/// and compiles to a bare pointer access otherwise.
#[cfg(not(sluicegate_loom))]
#[repr(transparent)]
pub(crate) struct UnsafeCell<T>(core::cell::UnsafeCell<T>);

#[cfg(not(sluicegate_loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(value: T) -> Self {
        Self(core::cell::UnsafeCell::new(value))
    }

    /// Runs `f` with a shared raw pointer to the contents.
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// Runs `f` with a unique raw pointer to the contents.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(sluicegate_loom)]
pub(crate) use loom::cell::UnsafeCell;

/// One storage slot of a ring.
pub(crate) type Slot<T> = UnsafeCell<core::mem::MaybeUninit<T>>;

const_fn! {
    /// `N` empty slots.
    pub(crate) fn slots<T, const N: usize>() -> [Slot<T>; N] {
        #[cfg(not(sluicegate_loom))]
        {
            [const { UnsafeCell::new(core::mem::MaybeUninit::uninit()) }; N]
        }
        #[cfg(sluicegate_loom)]
        {
            core::array::from_fn(|_| UnsafeCell::new(core::mem::MaybeUninit::uninit()))
        }
    }
}

/// Keeps the producer's and the consumer's hot words on separate cache lines
/// on targets that have caches (128 bytes on x86-64 and aarch64, from
/// `crossbeam-utils`); adds nothing on bare-metal Arm, where RAM is scarce and
/// there is no cache to share.
#[cfg(not(all(target_arch = "arm", target_os = "none")))]
pub(crate) type Padded<T> = crossbeam_utils::CachePadded<T>;

/// No padding on microcontrollers.
#[cfg(all(target_arch = "arm", target_os = "none"))]
#[repr(transparent)]
pub(crate) struct Padded<T>(T);

#[cfg(all(target_arch = "arm", target_os = "none"))]
impl<T> Padded<T> {
    pub(crate) const fn new(value: T) -> Self {
        Self(value)
    }
}

#[cfg(all(target_arch = "arm", target_os = "none"))]
impl<T> core::ops::Deref for Padded<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A counter with a single writer: incremented with a load and a store, so it
/// needs no read-modify-write (Cortex-M0 has none) and costs nothing until the
/// event it counts happens. Readers on any context see a recent value. It
/// wraps on overflow (at 2^32 on 32-bit targets).
pub(crate) struct SoloCounter(LoadStoreUsize);

impl SoloCounter {
    const_fn! {
        pub(crate) fn new() -> Self {
            Self(LoadStoreUsize::new(0))
        }
    }

    /// Adds `n`. Only the one owner of the counter may call this.
    #[inline]
    pub(crate) fn add(&self, n: usize) {
        // Relaxed: the value carries no data; readers only need some recent count.
        let v = self.0.load(Ordering::Relaxed);
        self.0.store(v.wrapping_add(n), Ordering::Relaxed);
    }

    /// The current count.
    #[inline]
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

/// A counter any context may bump (needs compare-and-swap).
#[cfg(sluicegate_cas)]
pub(crate) struct SharedCounter(AtomicUsize);

#[cfg(sluicegate_cas)]
impl SharedCounter {
    const_fn! {
        pub(crate) fn new() -> Self {
            Self(AtomicUsize::new(0))
        }
    }

    /// Adds `n` (wrapping).
    #[inline]
    pub(crate) fn add(&self, n: usize) {
        // Relaxed: a statistic, ordered with nothing.
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    /// The current count.
    #[inline]
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// Adds `n` with `Release`: what the caller did before is visible to
    /// whoever reads the new count with [`Self::get_acquire`].
    #[inline]
    pub(crate) fn add_release(&self, n: usize) {
        self.0.fetch_add(n, Ordering::Release);
    }

    /// The current count, with `Acquire` (pairs with [`Self::add_release`]).
    #[inline]
    pub(crate) fn get_acquire(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// The seeded generator the tests share (the integration tests, the
/// scenario suite and the demo include the same file).
#[cfg(all(test, not(sluicegate_loom)))]
#[path = "../tests/common/splitmix.rs"]
pub(crate) mod splitmix;

/// The loom models' `loom::model`, which fails a model that explored a
/// single execution.
#[cfg(all(test, sluicegate_loom))]
pub(crate) mod explores;

/// The pause points: where a unit test may stop a thread inside an
/// operation, and the harness that does (test-only).
#[cfg_attr(not(sluicegate_cas), allow(dead_code))]
pub(crate) mod pause;
#[cfg_attr(not(sluicegate_cas), allow(unused_imports))] // Point: only the CAS rings name it
pub(crate) use pause::{pause_point, Point};
