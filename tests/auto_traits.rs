//! `Send` and `Sync` of every public type, pinned at compile time: this file
//! stops compiling if a handle that hands out `&T` through `&self` becomes
//! `Sync` for `!Sync` items, or if a type loses a bound it should have.
//! The reasoning for each bound is in `CONTRIBUTING.md` ("Auto traits").
#![cfg(not(sluicegate_loom))]

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

use sluicegate::limit::{ConfigError, Limiter, LimiterConfig, LimiterStats, Permit, Priority};
use sluicegate::spsc::{
    Consumer, Overwrite, Peek, Producer, ReadChunk, Reject, Ring, WriteChunkUninit,
};
use sluicegate::{mpmc, Full, Insufficient, Overwritten, RingStats};

fn is_send<T: Send + ?Sized>() {}
fn is_sync<T: Sync + ?Sized>() {}

/// Fails to compile if `$t: $trait`. (Two blanket impls of a helper trait,
/// one for every type and one for types with the trait; naming the helper's
/// item is ambiguous exactly when both apply.)
macro_rules! assert_not {
    ($trait:path: $($t:ty),+ $(,)?) => {{
        trait AmbiguousIfImpl<A> {
            fn probe() {}
        }
        impl<X: ?Sized> AmbiguousIfImpl<()> for X {}
        struct WhenImplemented;
        impl<X: ?Sized + $trait> AmbiguousIfImpl<WhenImplemented> for X {}
        $( let _ = <$t as AmbiguousIfImpl<_>>::probe; )+
    }};
}

type C = Cell<u32>; // Send + !Sync: shared through a `&T`, a data race
type R = Rc<u32>; // !Send + !Sync

#[test]
fn spsc_read_side_is_sync_only_for_sync_items() {
    // These hand out `&T` through `&self` (`as_slices`, `Deref`), or could
    // (the consumer's bound), so sharing them must need `T: Sync`.
    assert_not!(Sync:
        Consumer<'static, C, 4>,
        Consumer<'static, C, 4, Overwrite>,
        ReadChunk<'static, C, 4, Reject>,
        ReadChunk<'static, C, 4, Overwrite>,
        Peek<'static, C, 4, Overwrite>,
    );
    // ... and they can still be moved to the consumer's thread.
    is_send::<Consumer<'static, C, 4>>();
    is_send::<Consumer<'static, C, 4, Overwrite>>();
    is_send::<ReadChunk<'static, C, 4, Reject>>();
    is_send::<Peek<'static, C, 4, Overwrite>>();
    // With `Sync` items, sharing is fine.
    is_sync::<Consumer<'static, AtomicU32, 4>>();
    is_sync::<ReadChunk<'static, AtomicU32, 4, Overwrite>>();
    is_sync::<Peek<'static, AtomicU32, 4, Overwrite>>();
}

#[test]
fn spsc_ring_and_write_side_need_only_send_items() {
    // No `&T` through `&self`: `T: Send` is enough for both traits.
    is_send::<Ring<C, 4>>();
    is_sync::<Ring<C, 4>>();
    is_sync::<Ring<C, 4, Overwrite>>();
    is_send::<Producer<'static, C, 4, Overwrite>>();
    is_sync::<Producer<'static, C, 4, Overwrite>>();
    is_send::<WriteChunkUninit<'static, C, 4, Reject>>();
    is_sync::<WriteChunkUninit<'static, C, 4, Reject>>();
    // Items that can't cross threads make nothing cross threads.
    assert_not!(Send: Ring<R, 4>, Producer<'static, R, 4>, Consumer<'static, R, 4>, ReadChunk<'static, R, 4, Reject>);
    assert_not!(Sync: Ring<R, 4>, Producer<'static, R, 4>, WriteChunkUninit<'static, R, 4, Reject>);
}

#[test]
fn spsc_flag_ring_and_handles_need_only_send_items() {
    // No `&self` method of either handle reaches an item (`peek` takes
    // `&mut self`), so both are `Sync` with the ring, which needs `T: Send`.
    use sluicegate::spsc::flag;
    is_sync::<flag::Ring<C, 4>>();
    is_send::<flag::Ring<C, 4>>();
    is_send::<flag::Producer<'static, C, 4>>();
    is_send::<flag::Consumer<'static, C, 4>>();
    is_sync::<flag::Consumer<'static, C, 4>>();
    assert_not!(Sync: flag::Ring<R, 4>);
    assert_not!(Send: flag::Ring<R, 4>, flag::Producer<'static, R, 4>, flag::Consumer<'static, R, 4>);
}

#[test]
fn mpmc_ring_needs_only_send_items() {
    // Items move in and out by value; nothing hands out `&T`.
    is_send::<mpmc::Ring<C, 4>>();
    is_sync::<mpmc::Ring<C, 4>>();
    assert_not!(Send: mpmc::Ring<R, 4>);
    assert_not!(Sync: mpmc::Ring<R, 4>);
    // With watermarks: the same bounds; the drain wait holds only `&Ring`
    // and its waiter node.
    type Marked<T> = mpmc::Ring<T, 4, mpmc::FreeIndices<4>, mpmc::Marked>;
    is_send::<Marked<C>>();
    is_sync::<Marked<C>>();
    assert_not!(Send: Marked<R>);
    assert_not!(Sync: Marked<R>);
    #[cfg(feature = "async")]
    {
        is_send::<mpmc::BelowLow<'static, C, 4>>();
        is_sync::<mpmc::BelowLow<'static, C, 4>>();
        assert_not!(Send: mpmc::BelowLow<'static, R, 4>);
    }
}

#[test]
fn burst_ring_needs_send_items_and_its_read_chunk_sync_ones() {
    use mpmc::burst_ring::{Moved, PopError, PushError, ReadChunk, Stop};
    // The ring moves `Copy` items by value; only a read chunk lends `&T`.
    type K = std::marker::PhantomData<C>; // Copy + Send + !Sync
    is_send::<mpmc::BurstRing<K, 4, 1>>();
    is_sync::<mpmc::BurstRing<K, 4, 1>>();
    assert_not!(Send: ReadChunk<'static, K, 4, 1>);
    assert_not!(Sync: ReadChunk<'static, K, 4, 1>);
    is_send::<ReadChunk<'static, u8, 4, 1>>();
    is_sync::<ReadChunk<'static, u8, 4, 1>>();
    // Items that can't cross threads make nothing cross threads.
    type P = *const u8; // Copy, !Send, !Sync
    assert_not!(Send: mpmc::BurstRing<P, 4, 1>);
    assert_not!(Sync: mpmc::BurstRing<P, 4, 1>);
    // Its futures: as the other MPMC rings' (`Push` holds the item, `Pop`
    // only `&BurstRing`).
    #[cfg(feature = "async")]
    {
        use mpmc::burst_ring::{Pop, Push};
        is_send::<Push<'static, K, 4, 1>>();
        is_send::<Pop<'static, K, 4, 1>>();
        is_sync::<Pop<'static, K, 4, 1>>();
        is_sync::<Push<'static, u32, 4, 1>>();
        assert_not!(Sync: Push<'static, K, 4, 1>);
        assert_not!(Send: Push<'static, P, 4, 1>, Pop<'static, P, 4, 1>);
        // The drain wait holds only `&BurstRing` and its waiter node.
        use mpmc::burst_ring::BelowLow;
        is_send::<BelowLow<'static, K, 4, 1>>();
        is_sync::<BelowLow<'static, K, 4, 1>>();
        assert_not!(Send: BelowLow<'static, P, 4, 1>);
    }
    // With watermarks: the same bounds.
    use mpmc::burst_ring::{Marked, NoMarks};
    is_send::<mpmc::BurstRing<K, 4, 1, Marked>>();
    is_sync::<mpmc::BurstRing<K, 4, 1, Marked>>();
    assert_not!(Sync: mpmc::BurstRing<P, 4, 1, Marked>);
    is_send::<Marked>();
    is_sync::<NoMarks>();
    // The answers: plain data, or the item handed back.
    is_send::<Moved>();
    is_sync::<Moved>();
    is_send::<Stop>();
    is_sync::<Stop>();
    is_send::<PopError>();
    is_sync::<PopError>();
    is_send::<PushError<K>>();
    assert_not!(Sync: PushError<K>);
    assert_not!(Send: PushError<P>);
}

#[cfg(feature = "critical-section")]
#[test]
fn mpmc_cs_ring_needs_only_send_items() {
    // Every access to the state is inside a critical section; items move by value.
    is_send::<mpmc::cs::Ring<C, 4>>();
    is_sync::<mpmc::cs::Ring<C, 4>>();
    assert_not!(Send: mpmc::cs::Ring<R, 4>);
    assert_not!(Sync: mpmc::cs::Ring<R, 4>);
    // The same with watermarks: the marks are plain words (and, with
    // `async`, a list reached only inside the critical section).
    is_send::<mpmc::cs::Ring<C, 4, mpmc::cs::Marked>>();
    is_sync::<mpmc::cs::Ring<C, 4, mpmc::cs::Marked>>();
    assert_not!(Send: mpmc::cs::Ring<R, 4, mpmc::cs::Marked>);
    assert_not!(Sync: mpmc::cs::Ring<R, 4, mpmc::cs::Marked>);
    is_send::<mpmc::cs::Level>();
}

/// A waiting acquire's future moves between a multi-threaded executor's
/// threads: `Send` (its waiter node is shared with releasers only through
/// the limiter's locked list).
#[cfg(feature = "async")]
#[test]
fn acquire_future_is_send_and_sync() {
    is_send::<sluicegate::limit::Acquire<'static>>();
    is_sync::<sluicegate::limit::Acquire<'static>>();
}

/// An owned permit moves into a spawned task or thread: `Send + 'static`.
#[cfg(feature = "std")]
#[test]
fn owned_permit_is_send_and_static() {
    fn is_static<T: 'static>() {}
    is_send::<sluicegate::limit::OwnedPermit>();
    is_sync::<sluicegate::limit::OwnedPermit>();
    is_static::<sluicegate::limit::OwnedPermit>();
}

#[test]
fn limiter_and_error_types() {
    is_send::<Limiter>();
    is_sync::<Limiter>();
    is_send::<Permit<'static>>();
    is_sync::<Permit<'static>>();
    is_send::<LimiterConfig>();
    is_sync::<LimiterConfig>();
    is_send::<LimiterStats>();
    is_sync::<LimiterStats>();
    is_send::<ConfigError>();
    is_sync::<ConfigError>();
    is_send::<Priority>();
    is_sync::<Priority>();
    is_send::<Insufficient>();
    is_sync::<Insufficient>();
    is_send::<RingStats>();
    is_sync::<RingStats>();
    // `Full<T>` and `Overwritten<T>` are plain data around the item: they
    // follow `T`.
    is_send::<Overwritten<C>>();
    assert_not!(Sync: Overwritten<C>);
    is_sync::<Overwritten<AtomicU32>>();
    assert_not!(Send: Overwritten<R>);
    is_send::<Full<C>>();
    assert_not!(Sync: Full<C>);
    is_sync::<Full<AtomicU32>>();
    assert_not!(Send: Full<R>);
    // So do the lifecycle outcomes that carry an item back.
    is_send::<sluicegate::Closed<C>>();
    assert_not!(Sync: sluicegate::Closed<C>);
    is_sync::<sluicegate::Closed<AtomicU32>>();
    assert_not!(Send: sluicegate::Closed<R>);
    is_send::<sluicegate::TryPushError<C>>();
    assert_not!(Sync: sluicegate::TryPushError<C>);
    is_sync::<sluicegate::TryPushError<AtomicU32>>();
    assert_not!(Send: sluicegate::TryPushError<R>);
    is_send::<sluicegate::TryPopError>();
    is_sync::<sluicegate::TryPopError>();
}

/// Threads that share a read chunk of `Sync` items may read the same items
/// at once (the sound case of that race; Miri checks it).
#[test]
fn shared_read_chunk_from_two_threads() {
    let mut ring: Ring<AtomicU32, 4> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    tx.try_push(AtomicU32::new(0)).unwrap();
    let rounds = if cfg!(miri) { 20 } else { 1000 };
    let chunk = rx.read_chunk(1).unwrap();
    std::thread::scope(|s| {
        let chunk = &chunk;
        for _ in 0..2 {
            s.spawn(move || {
                for _ in 0..rounds {
                    chunk.as_slices().0[0].fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    drop(chunk);
    assert_eq!(rx.try_pop().unwrap().into_inner(), 2 * rounds);
}

/// The same through a shared read chunk of an `Overwrite` ring, with the
/// producer pushing with overwrite on a third thread meanwhile (every push
/// rejected: the chunk holds the oldest item).
#[test]
fn shared_read_chunk_while_the_producer_rejects() {
    let mut ring: Ring<AtomicU32, 2, Overwrite> = Ring::new();
    let (mut tx, mut rx) = ring.split();
    tx.try_push(AtomicU32::new(0)).unwrap();
    tx.try_push(AtomicU32::new(100)).unwrap();
    let rounds = if cfg!(miri) { 20 } else { 1000 };
    let chunk = rx.read_chunk_up_to(2);
    let rejected = std::thread::scope(|s| {
        let chunk = &chunk;
        for _ in 0..2 {
            s.spawn(move || {
                for _ in 0..rounds {
                    let (a, b) = chunk.as_slices();
                    a.iter().chain(b).for_each(|v| {
                        v.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        }
        // The producer never waits: full and claimed, so it rejects each new item.
        s.spawn(move || {
            (0..rounds)
                .filter(|_| tx.push_overwrite(AtomicU32::new(7)).into_item().is_some())
                .count()
        })
        .join()
        .unwrap()
    });
    assert_eq!(rejected, rounds as usize);
    drop(chunk);
    let got: Vec<u32> = std::iter::from_fn(|| rx.try_pop())
        .map(AtomicU32::into_inner)
        .collect();
    assert_eq!(got, [2 * rounds, 100 + 2 * rounds]);
}

/// With the `defmt` feature, every ring, handle and outcome is
/// `defmt::Format` (with any item type: the summaries show no items).
#[cfg(feature = "defmt")]
#[test]
fn rings_handles_and_outcomes_are_defmt_format() {
    fn is_format<T: defmt::Format + ?Sized>() {}
    struct NotFormat;
    is_format::<Ring<NotFormat, 4>>();
    is_format::<Ring<NotFormat, 4, Overwrite>>();
    is_format::<Producer<'static, NotFormat, 4>>();
    is_format::<Consumer<'static, NotFormat, 4, Overwrite>>();
    is_format::<mpmc::Ring<NotFormat, 4>>();
    #[cfg(feature = "critical-section")]
    is_format::<mpmc::cs::Ring<NotFormat, 4>>();
    is_format::<sluicegate::Closed<u8>>();
    is_format::<sluicegate::TryPushError<u8>>();
    is_format::<sluicegate::TryPopError>();
    is_format::<RingStats>();
    is_format::<sluicegate::spsc::Level>();
}

#[cfg(feature = "async")]
#[test]
fn wait_futures_cross_threads_with_send_items() {
    // A future moves to another executor thread with its item: `T: Send`.
    // `&Push` reaches the held item only to ask whether it is there, and
    // the SPSC `&Pop` holds `&mut Consumer`, so their `Sync` follows the
    // fields' (`T: Sync` too); the MPMC `Pop` holds only `&Ring`.
    is_send::<sluicegate::spsc::Push<'static, 'static, C, 4, Reject>>();
    is_send::<sluicegate::spsc::Pop<'static, 'static, C, 4, Overwrite>>();
    is_send::<mpmc::Push<'static, C, 4>>();
    is_send::<mpmc::Pop<'static, C, 4>>();
    is_sync::<mpmc::Pop<'static, C, 4>>();
    is_sync::<sluicegate::spsc::Push<'static, 'static, u32, 4, Reject>>();
    assert_not!(Sync: sluicegate::spsc::Push<'static, 'static, C, 4, Reject>, sluicegate::spsc::Pop<'static, 'static, C, 4, Reject>, mpmc::Push<'static, C, 4>);
    assert_not!(Send: sluicegate::spsc::Push<'static, 'static, R, 4, Reject>, sluicegate::spsc::Pop<'static, 'static, R, 4, Reject>, mpmc::Push<'static, R, 4>, mpmc::Pop<'static, R, 4>);
    // `BelowLow` holds only `&mut Producer` (and its cell's number): as
    // the producer, `Send` and `Sync` for `T: Send`.
    is_send::<sluicegate::spsc::BelowLow<'static, 'static, C, 4, Reject>>();
    is_sync::<sluicegate::spsc::BelowLow<'static, 'static, C, 4, Reject>>();
    assert_not!(Send: sluicegate::spsc::BelowLow<'static, 'static, R, 4, Reject>);
}

#[test]
fn the_level_is_plain_data() {
    is_send::<sluicegate::spsc::Level>();
    is_sync::<sluicegate::spsc::Level>();
}

#[cfg(all(feature = "async", feature = "critical-section"))]
#[test]
fn cs_wait_futures_cross_threads_with_send_items() {
    // As the MPMC ring's: `Push` holds the item (`Sync` needs `T: Sync`),
    // `Pop` only `&Ring`, which is `Sync` for `T: Send`.
    is_send::<mpmc::cs::Push<'static, C, 4>>();
    is_send::<mpmc::cs::Pop<'static, C, 4>>();
    is_sync::<mpmc::cs::Pop<'static, C, 4>>();
    is_sync::<mpmc::cs::Push<'static, u32, 4>>();
    assert_not!(Sync: mpmc::cs::Push<'static, C, 4>);
    assert_not!(Send: mpmc::cs::Push<'static, R, 4>, mpmc::cs::Pop<'static, R, 4>);
    // The drain wait holds only `&Ring` and its node, as `Pop`.
    is_send::<mpmc::cs::BelowLow<'static, C, 4>>();
    is_sync::<mpmc::cs::BelowLow<'static, C, 4>>();
    assert_not!(Send: mpmc::cs::BelowLow<'static, R, 4>);
}
