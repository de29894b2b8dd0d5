//! The two-thread harnesses of `benches/spsc.rs`: one item at a time
//! (`stream`), batches, the ping-pong round trip and its floors, and
//! overwrite with a live consumer (`overwrite_live`, timed per push or per
//! item delivered, see [`Per`]; it also counts the pushes that answered
//! busy). Each spawns the other thread once per sample and starts both at a
//! barrier.

use crate::common::{wait, Shares};
use core::hint::black_box;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use core::time::Duration;
use crossbeam_utils::CachePadded;
use std::sync::Barrier;
use std::thread;
use std::time::Instant;

/// Runs `other` on a new thread and `mine` on this one, both starting at a
/// barrier; returns the time `mine` took from the barrier on.
fn timed_against(other: impl FnOnce() + Send, mine: impl FnOnce()) -> Duration {
    let barrier = &Barrier::new(2);
    thread::scope(|s| {
        s.spawn(move || {
            barrier.wait();
            other();
        });
        barrier.wait();
        let start = Instant::now();
        mine();
        start.elapsed()
    })
}

/// Pushes `v`, waiting (`common::wait`) while `push` refuses it.
#[inline(always)]
fn push_waiting<P>(push: fn(&mut P, u64) -> bool, p: &mut P, v: u64) {
    let mut m = 0;
    while !push(p, v) {
        wait(&mut m);
    }
}

/// Pops one item, waiting (`common::wait`) while `pop` finds none.
#[inline(always)]
fn pop_waiting<C>(pop: fn(&mut C) -> Option<u64>, c: &mut C) -> u64 {
    let mut m = 0;
    loop {
        if let Some(v) = pop(c) {
            return v;
        }
        wait(&mut m);
    }
}

/// Moves `iters` items from a producer thread to the calling (consumer)
/// thread; returns the consumer's time from the barrier to the last item.
pub(crate) fn stream<P: Send, C>(
    iters: u64,
    mut p: P,
    mut c: C,
    push: fn(&mut P, u64) -> bool,
    pop: fn(&mut C) -> Option<u64>,
) -> Duration {
    // `move`: the producer's handle goes to its thread, instead of sharing
    // a cache line with the consumer's on this stack.
    timed_against(
        move || {
            for i in 0..iters {
                push_waiting(push, &mut p, i);
            }
        },
        || {
            for _ in 0..iters {
                black_box(pop_waiting(pop, &mut c));
            }
        },
    )
}

/// Moves `iters` batches of `batch` items; `push(p, first_value, max)` and
/// `pop(c, out)` move up to `max` / `out.len()` items and return how many
/// (0: wait). `out` is the consumer's buffer, allocated once per sample
/// (the copying consumers copy into it, and the harness `black_box`es what
/// they copied; the zero-copy ones only take its length).
pub(crate) fn batches<P: Send, C>(
    iters: u64,
    batch: usize,
    mut p: P,
    mut c: C,
    push: fn(&mut P, u64, usize) -> usize,
    pop: fn(&mut C, &mut [u64]) -> usize,
) -> Duration {
    let total = iters * batch as u64;
    let mut out = vec![0u64; batch];
    timed_against(
        move || {
            let mut sent = 0u64;
            let mut m = 0;
            while sent < total {
                let want = batch.min((total - sent) as usize);
                match push(&mut p, sent, want) {
                    0 => wait(&mut m),
                    n => {
                        sent += n as u64;
                        m = 0;
                    }
                }
            }
        },
        || {
            let mut got = 0u64;
            let mut m = 0;
            while got < total {
                let want = batch.min((total - got) as usize);
                match pop(&mut c, &mut out[..want]) {
                    0 => wait(&mut m),
                    n => {
                        black_box(&out[..n]);
                        got += n as u64;
                        m = 0;
                    }
                }
            }
        },
    )
}

/// `iters` round trips: the caller pushes into `a` and waits for the echo
/// from `b`; the other thread pops from `a` and pushes into `b`.
pub(crate) fn pingpong<P: Send, C: Send>(
    iters: u64,
    (mut pa, mut ca): (P, C),
    (mut pb, mut cb): (P, C),
    push: fn(&mut P, u64) -> bool,
    pop: fn(&mut C) -> Option<u64>,
) -> Duration {
    timed_against(
        move || {
            for _ in 0..iters {
                let v = pop_waiting(pop, &mut ca);
                push_waiting(push, &mut pb, v);
            }
        },
        || {
            for i in 0..iters {
                push_waiting(push, &mut pa, i);
                black_box(pop_waiting(pop, &mut cb));
            }
        },
    )
}

/// The floor of a round trip: two threads bouncing one padded word.
pub(crate) fn pingpong_floor(iters: u64) -> Duration {
    let word = CachePadded::new(AtomicU64::new(0));
    let barrier = Barrier::new(2);
    thread::scope(|s| {
        s.spawn(|| {
            barrier.wait();
            for i in 0..iters {
                let mut m = 0;
                while word.load(Ordering::Acquire) != 2 * i + 1 {
                    wait(&mut m);
                }
                word.store(2 * i + 2, Ordering::Release);
            }
        });
        barrier.wait();
        let start = Instant::now();
        for i in 0..iters {
            word.store(2 * i + 1, Ordering::Release);
            let mut m = 0;
            while word.load(Ordering::Acquire) != 2 * i + 2 {
                wait(&mut m);
            }
        }
        start.elapsed()
    })
}

/// One direction of `pingpong_floor_two_lines`: a value and the flag that
/// publishes it, each on its own cache line, as a ring's slot and index are.
#[derive(Default)]
pub(crate) struct Mailbox {
    value: CachePadded<AtomicU64>,
    flag: CachePadded<AtomicU64>,
}

impl Mailbox {
    fn send(&self, seq: u64, v: u64) {
        self.value.store(v, Ordering::Relaxed);
        self.flag.store(seq, Ordering::Release);
    }

    fn recv(&self, seq: u64) -> u64 {
        let mut m = 0;
        while self.flag.load(Ordering::Acquire) != seq {
            wait(&mut m);
        }
        self.value.load(Ordering::Relaxed)
    }
}

/// The floor of a round trip through any ring that keeps its index and its
/// items on different cache lines: each way, the value's line and the
/// flag's line both move to the other core.
pub(crate) fn pingpong_floor_two_lines(iters: u64) -> Duration {
    let (a, b) = (Mailbox::default(), Mailbox::default());
    let barrier = Barrier::new(2);
    thread::scope(|s| {
        s.spawn(|| {
            barrier.wait();
            for i in 1..=iters {
                let v = a.recv(i);
                b.send(i, v);
            }
        });
        barrier.wait();
        let start = Instant::now();
        for i in 1..=iters {
            a.send(i, i);
            black_box(b.recv(i));
        }
        start.elapsed()
    })
}

/// What one `overwrite_live` sample measured.
pub(crate) struct Live {
    /// The producer's time for all its pushes.
    pub(crate) elapsed: Duration,
    /// Items the consumer received (the rest were overwritten).
    pub(crate) got: u64,
    /// Calls of `push` that answered busy and were made again.
    pub(crate) busy: u64,
}

/// The caller pushes `iters` items with overwrite-oldest while another
/// thread pops as fast as it can. `push` returns `false` when it did not
/// store the item (a ring that answers busy): the producer waits
/// (`common::wait`) and pushes the same item again.
pub(crate) fn overwrite_live<P, C: Send>(
    iters: u64,
    mut p: P,
    mut c: C,
    push: fn(&mut P, u64) -> bool,
    pop: fn(&mut C) -> Option<u64>,
) -> Live {
    let barrier = &Barrier::new(2);
    let done = &AtomicBool::new(false);
    thread::scope(|s| {
        let consumer = s.spawn(move || {
            barrier.wait();
            let mut m = 0;
            let mut got = 0u64;
            while !done.load(Ordering::Relaxed) {
                match pop(&mut c) {
                    Some(v) => {
                        black_box(v);
                        got += 1;
                        m = 0;
                    }
                    None => wait(&mut m),
                }
            }
            got
        });
        barrier.wait();
        let start = Instant::now();
        let mut busy = 0;
        for i in 0..iters {
            let mut m = 0;
            while !push(&mut p, i) {
                busy += 1;
                wait(&mut m);
            }
        }
        let elapsed = start.elapsed();
        done.store(true, Ordering::Relaxed);
        Live {
            elapsed,
            got: consumer.join().expect("consumer thread"),
            busy,
        }
    })
}

/// What `overwrite_live_group` reports per iteration.
#[derive(Clone, Copy)]
pub(crate) enum Per {
    /// The producer's time per push.
    Push,
    /// The producer's time per item the consumer received: a ring whose
    /// consumer falls behind pushes fast (every push evicts, alone on the
    /// ring) but delivers little, which the time per push alone rewards.
    Delivered,
}

impl Per {
    /// The sample's time per iteration; also adds its pushes and deliveries
    /// to `id`'s share (see [`Shares`]).
    pub(crate) fn time(self, shares: &Shares, id: &str, iters: u64, live: &Live) -> Duration {
        shares.add(id, iters, live.got);
        match self {
            Per::Push => live.elapsed,
            Per::Delivered => live.elapsed.mul_f64(iters as f64 / live.got.max(1) as f64),
        }
    }
}
