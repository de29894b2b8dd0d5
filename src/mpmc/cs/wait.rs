//! Waiting on the critical-section ring (feature `async`): [`Ring::push`]
//! and [`Ring::pop`], their futures [`Push`] and [`Pop`], and the wake-ups
//! the ring's other operations send them.
//!
//! # Model
//!
//! The waiters live in the ring's state, behind the same critical section
//! as the items: per side (tasks waiting for an item, tasks waiting for
//! room) an intrusive list of the nodes inside the waiting futures (or
//! blocking calls' frames), and the count of nodes linked (`src/wait/list.rs`
//! has the node's states). Any number of tasks wait; none polls. A push
//! wakes the popper that waited longest, a pop the pusher that waited
//! longest, the close every waiter; a future dropped with a wake it did not
//! use passes it on.
//!
//! # Protocol
//!
//! A waiter (the future's `poll`), in **one** critical section: tries the
//! operation; if it cannot proceed, links its node (in its place if a wake
//! brought it here: before the nodes that came after it) with a target to wake. The target
//! (a clone of its waker) is made *before* the section when the node is
//! not linked; a linked node keeps the one it has if it wakes the same
//! task, and otherwise the poll clones one outside and takes a second
//! section.
//!
//! Every operation that lets the other side proceed (a push that stored an
//! item, a pop that took one, the close) checks, in **the same** critical
//! section as its change, whether that side's count is zero. Only if it is
//! not does it, in another section, take the first node out of the list
//! (the close: every node, a batch per section) and wake it outside.
//!
//! **Why no wake-up is lost, without any fence.** A waiter's last check and
//! its linking are one critical section, and so are a notifier's change and
//! its count check. Critical sections exclude each other, so one of the two
//! comes entirely first. If the waiter's does, the notifier sees the count,
//! and its later section takes out this node or an earlier one still
//! waiting (a node leaves only when its future completes, or is dropped and
//! passes on a wake it received; a woken node that finds nothing links
//! again in its place, before the nodes that came after it). If the
//! notifier's does, the waiter's check sees the item, the room or the
//! close. This needs only what `critical-section`'s
//! contract gives every user: that a critical section sees every write made
//! in the ones before it. On a single core with interrupts masked
//! (cortex-m's `critical-section-single-core`) that is program order on the
//! one core; on multi-core implementations (a hardware spinlock as on the
//! RP2040, or the `std` implementation's mutex on a host) the lock's
//! acquire and release order the accesses across cores.
//!
//! An interrupt handler's `try_push` never waits for a waiter: a context
//! inside a critical section cannot be interrupted, so the handler never
//! finds the list half linked.
//!
//! No waker code runs inside a critical section: the clone, the wakes and
//! the drop of a replaced or given-up waker all run after the section that
//! moved it (`Waker::will_wake`, a comparison of two pointers, is the only
//! waker method called inside one).
//!
//! **Cost when nobody waits.** A load of the count, a test and a branch
//! inside the critical section the operation takes anyway; no fence and no
//! second section (`BENCHMARKS.md` has the counts).
//!
//! # Not modelled by loom
//!
//! The ring's mutual exclusion comes from `critical_section::with`, which
//! the test binaries link to `critical-section`'s `std` implementation (a
//! `std::sync::Mutex`, invisible to loom), and a binary can link only one
//! implementation. So there is no loom model of this ring's waits; the list
//! and node code is the one `mpmc::Ring`'s models check, and
//! `tests/wait_cs.rs` checks this ring on threads, under Miri too.

use super::{Marks, NoMarks, Ring, State};
use crate::sync::{LoadStoreUsize, Ordering};
use crate::wait::list::{
    Left, Linked, Node, RawList, Target, Wake, IN_ORDER, NOTIFIED_ALL, NOTIFIED_ONE, UNLINKED,
};
use crate::wait::{each, OnDrop, Side};
use crate::{future, Closed};
use core::task::Poll;

/// Nodes woken per critical section by the close.
const BATCH: usize = 8;

/// Per side (`Side as usize`): the waiting nodes.
pub(super) struct Lists([RawList; 2]);

impl Lists {
    pub(super) const fn new() -> Self {
        Self([RawList::new(), RawList::new()])
    }
}

/// Per side: how many nodes are linked (the notifiers' check).
pub(super) type Counts = [LoadStoreUsize; 2];

/// Both counts at zero.
pub(super) const fn counts() -> Counts {
    [LoadStoreUsize::new(0), LoadStoreUsize::new(0)]
}

/// A waiter's critical section, answered.
enum Step<O> {
    /// The operation went through (or the ring is closed): the output, and
    /// what leaving the list left to do.
    Done(O, Left),
    /// Linked (or still linked): `Pending`, after dropping the replaced
    /// target.
    Wait(Target),
    /// The node needs a fresh target: clone one outside and try again.
    NeedTarget,
}

impl<T, const N: usize, M: Marks> State<T, N, M> {
    /// Whether a future waits on `side` (the notifiers' check).
    #[inline(always)]
    pub(super) fn waiting(&self, side: Side) -> bool {
        // Relaxed: inside the critical section, which orders it.
        self.waiting[side as usize].load(Ordering::Relaxed) != 0
    }

    /// `side`'s list and count.
    fn list(&mut self, side: Side) -> (&mut RawList, &LoadStoreUsize) {
        (
            &mut self.lists.0[side as usize],
            &self.waiting[side as usize],
        )
    }
}

/// Picks a list of waiters (and its count) out of the state: a side's, or
/// a [`Marked`](super::Marked) ring's drain waiters'.
pub(super) type Pick<T, const N: usize, M> =
    for<'s> fn(&'s mut State<T, N, M>) -> (&'s mut RawList, &'s LoadStoreUsize);

/// The list of `side`, as a [`Pick`].
fn pick<T, const N: usize, M: Marks>(side: Side) -> Pick<T, N, M> {
    match side {
        Side::Item => |s| s.list(Side::Item),
        Side::Room => |s| s.list(Side::Room),
    }
}

impl<T, const N: usize, M: Marks> Ring<T, N, M> {
    /// Runs `f` in one critical section; if `progressed` says its result
    /// lets tasks of `side` proceed, checks in the same section whether any
    /// wait there, and wakes one after it.
    #[inline(always)]
    pub(super) fn with_notify<R>(
        &self,
        side: Side,
        f: impl FnOnce(&mut State<T, N, M>) -> R,
        progressed: impl FnOnce(&R) -> bool,
    ) -> R {
        // One word of what to wake after the section (bit 0: a waiter of
        // `side`, bit 1: the drain waiters), so that one value lives
        // across the section's end and one test takes the common path.
        let (out, wake) = self.with(|s| {
            let out = f(s);
            let mut wake = u8::from(progressed(&out) && s.waiting(side));
            // After a pop (`side` is `Room`), the level (`marks.rs`): true
            // if the pop lowered it with drain waiters linked. Nothing
            // without marks. (Tested after a failed pop too: it moved
            // nothing, so it cannot cross a mark, and the test costs the
            // pops that move an item less than a second condition would.)
            if side == Side::Room && M::popped(&mut s.marks, s.len) {
                wake |= 2;
            }
            (out, wake)
        });
        if wake != 0 {
            self.wake_after(side, wake);
        }
        out
    }

    /// `with_notify`'s wakes, out of line.
    #[cold]
    #[inline(never)]
    fn wake_after(&self, side: Side, wake: u8) {
        if wake & 1 != 0 {
            self.wake_one(side);
        }
        if wake & 2 != 0 {
            self.wake_drained();
        }
    }

    /// After a lowering of the level: wakes every drain waiter.
    #[cold]
    #[inline(never)]
    fn wake_drained(&self) {
        // Reached only after a `Marked` ring's lowering or close found drain
        // waiters (`with_notify`, `close_and_wake`), so the list exists.
        self.wake_all(|s| M::low_list(&mut s.marks).expect("only a Marked ring lowers its level"));
    }

    /// After the close: wakes every waiting task.
    #[inline]
    pub(super) fn close_and_wake(&self) -> bool {
        let (was_open, waiting, drain) = self.with(|s| {
            let was_open = s.close();
            // Relaxed: inside the critical section, which orders it (as
            // `waiting`); `None` for a ring without marks.
            let drain =
                M::low_list(&mut s.marks).is_some_and(|(_, n)| n.load(Ordering::Relaxed) != 0);
            (
                was_open,
                s.waiting(Side::Item) || s.waiting(Side::Room),
                drain,
            )
        });
        // Each list is woken even if a waker of an earlier one panics.
        let wakes: [&dyn Fn(); 3] = [
            &|| {
                if waiting {
                    self.wake_all(pick(Side::Item))
                }
            },
            &|| {
                if waiting {
                    self.wake_all(pick(Side::Room))
                }
            },
            &|| {
                if drain {
                    self.wake_drained()
                }
            },
        ];
        each(wakes.into_iter(), |wake| wake());
        was_open
    }

    /// Takes the first node of `side` out in one critical section and
    /// wakes it after it.
    #[cold]
    #[inline(never)]
    fn wake_one(&self, side: Side) {
        let taken = self.with(|s| {
            let (list, waiting) = s.list(side);
            // SAFETY: inside the critical section, which guards the list.
            unsafe { list.wake_one(waiting, NOTIFIED_ONE, IN_ORDER) }
        });
        if let Some(t) = taken {
            t.wake();
        }
    }

    /// Takes every node of the list `list` picks linked now out, a batch
    /// per critical section, and wakes each batch after its section.
    #[cold]
    #[inline(never)]
    fn wake_all(&self, list: Pick<T, N, M>) {
        let mut left = None;
        loop {
            let mut batch: [Target; BATCH] = [const { Target::None }; BATCH];
            let mut k = 0;
            self.with(|s| {
                let (list, waiting) = list(s);
                let n = left.get_or_insert(waiting.load(Ordering::Relaxed));
                while k < BATCH && *n > 0 {
                    // SAFETY: inside the critical section.
                    match unsafe { list.wake_one(waiting, NOTIFIED_ALL, IN_ORDER) } {
                        Some(t) => batch[k] = t,
                        None => *n = 0,
                    }
                    k += 1;
                    *n = n.saturating_sub(1);
                }
            });
            if left == Some(0) {
                each(batch.into_iter(), Target::wake);
                return;
            }
            // If a wake panics, the waiters still linked are woken as the
            // panic unwinds: nobody else would wake them.
            let rest = OnDrop::new(|| self.wake_all(list));
            each(batch.into_iter(), Target::wake);
            rest.defuse();
        }
    }

    /// One poll of a waiter of the list `list` picks (the module's
    /// protocol): `op` tries the operation (`None`: it must wait); a result
    /// for which `progressed` is true wakes a waiter of side `other`.
    pub(super) fn poll_wait<O>(
        &self,
        list: Pick<T, N, M>,
        other: Side,
        node: &Node,
        wake: Wake<'_>,
        mut op: impl FnMut(&mut State<T, N, M>) -> Option<O>,
        progressed: impl Fn(&O) -> bool,
    ) -> Poll<O> {
        // A node that is not linked has no target (a wake took it, or it
        // never had one): clone one before the section.
        let mut fresh = (node.state() == UNLINKED
            || node.state() == NOTIFIED_ONE
            || node.state() == NOTIFIED_ALL)
            .then(|| wake.target());
        loop {
            let step = self.with_notify(
                other,
                |s| {
                    let state = node.state();
                    let woken = state == NOTIFIED_ONE || state == NOTIFIED_ALL;
                    let out = op(s);
                    let (list, waiting) = list(s);
                    match out {
                        // A wake received before this section is served by
                        // this try.
                        Some(out) => {
                            // SAFETY: inside the critical section; the node
                            // is this future's.
                            Step::Done(out, unsafe { list.leave(waiting, node, false, IN_ORDER) })
                        }
                        None => {
                            // SAFETY: as above; the node is pinned in the
                            // future (or the blocking call's frame) and in no
                            // other list.
                            match unsafe { list.link(waiting, node, woken, wake, &mut fresh) } {
                                Linked::Ok(old) => Step::Wait(old),
                                Linked::NeedTarget => Step::NeedTarget,
                            }
                        }
                    }
                },
                |step| matches!(step, Step::Done(out, _) if progressed(out)),
            );
            match step {
                Step::Done(out, left) => {
                    drop(fresh);
                    left.finish();
                    return Poll::Ready(out);
                }
                Step::Wait(old) => {
                    drop(old);
                    drop(fresh);
                    return Poll::Pending;
                }
                Step::NeedTarget => fresh = Some(wake.target()),
            }
        }
    }

    /// Takes `node` out of `side`'s list (a future dropped before it
    /// completed), passing on a wake it did not use.
    pub(super) fn leave(&self, side: Side, node: &Node) {
        self.leave_list(pick(side), node);
    }

    /// Takes `node` out of the list `list` picks, as [`leave`](Self::leave).
    pub(super) fn leave_list(&self, list: Pick<T, N, M>, node: &Node) {
        // Only the owner moves a node to `UNLINKED`, so reading it here is
        // exact.
        if node.state() != UNLINKED {
            self.with(|s| {
                let (list, waiting) = list(s);
                // SAFETY: inside the critical section; the node is ours.
                unsafe { list.leave(waiting, node, true, IN_ORDER) }
            })
            .finish();
        }
    }
}

/// The push of a waiting future: `Some(result)` if it went through or the
/// ring is closed, `None` (the item back in `item`) if it is full.
#[inline(always)]
fn push_if_room<T, const N: usize, M: Marks>(
    s: &mut State<T, N, M>,
    item: &mut Option<T>,
) -> Option<Result<(), Closed<T>>> {
    match s.push_unless_full(item.take()?) {
        Ok(done) => Some(done),
        Err(back) => {
            *item = Some(back);
            None
        }
    }
}

impl<T, const N: usize, M: Marks> Ring<T, N, M> {
    /// Pushes `item`, waiting (asynchronously) for a free slot, as
    /// [`mpmc::Ring::push`](crate::mpmc::Ring::push): resolves to `Ok(())`
    /// once the item is in, or to `Err(Closed(item))` once the ring is
    /// closed; any pop or the close wakes it, any number of tasks may wait
    /// and none polls. Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::cs::Ring;
    ///
    /// static JOBS: Ring<u32, 2> = Ring::new();
    /// std::thread::scope(|s| {
    ///     s.spawn(|| pollster::block_on(async {
    ///         for i in 0..10 {
    ///             JOBS.push(i).await.unwrap();
    ///         }
    ///     }));
    ///     let sum: u32 = pollster::block_on(async {
    ///         let mut sum = 0;
    ///         for _ in 0..10 {
    ///             sum += JOBS.pop().await.unwrap();
    ///         }
    ///         sum
    ///     });
    ///     assert_eq!(sum, 45);
    /// });
    /// JOBS.close();
    /// assert!(pollster::block_on(JOBS.push(1)).is_err()); // handed back
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub fn push(&self, item: T) -> Push<'_, T, N, M> {
        future::Push::new(self, item)
    }

    /// Pops the oldest item, waiting (asynchronously) until there is one;
    /// resolves to `None` once the ring is closed and drained, as
    /// [`mpmc::Ring::pop`](crate::mpmc::Ring::pop). Feature `async`.
    ///
    /// ```
    /// use sluicegate::mpmc::cs::Ring;
    ///
    /// static EVENTS: Ring<u8, 4> = Ring::new();
    /// let isr = std::thread::spawn(|| {
    ///     EVENTS.try_push(1).unwrap();
    ///     EVENTS.close();
    /// });
    /// assert_eq!(pollster::block_on(EVENTS.pop()), Some(1));
    /// assert_eq!(pollster::block_on(EVENTS.pop()), None); // closed and drained
    /// isr.join().unwrap();
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "async")))]
    pub fn pop(&self) -> Pop<'_, T, N, M> {
        future::Pop::new(self)
    }
}

/// The future of [`Ring::push`] (feature `async`): [`future::Push`] on this
/// ring.
///
/// ```
/// use sluicegate::mpmc::cs::{Push, Ring};
///
/// let ring: Ring<u8, 1> = Ring::new();
/// let push: Push<'_, u8, 1> = ring.push(1);
/// assert_eq!(pollster::block_on(push), Ok(()));
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub type Push<'r, T, const N: usize, M = NoMarks> = future::Push<'r, Ring<T, N, M>>;

/// The future of [`Ring::pop`] (feature `async`): [`future::Pop`] on this
/// ring.
///
/// ```
/// use sluicegate::mpmc::cs::{Pop, Ring};
///
/// let ring: Ring<u8, 1> = Ring::new();
/// ring.try_push(2).unwrap();
/// let pop: Pop<'_, u8, 1> = ring.pop();
/// assert_eq!(pollster::block_on(pop), Some(2));
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub type Pop<'r, T, const N: usize, M = NoMarks> = future::Pop<'r, Ring<T, N, M>>;

/// The waiting half of the ring contract (`src/contract.rs`; the other
/// half, `push_now`/`pop_now`, is in `lifecycle.rs`).
impl<T, const N: usize, M: Marks> Ring<T, N, M> {
    /// One poll of a waiting push (the contract's `poll_push`).
    pub(super) fn poll_push(
        &self,
        node: &Node,
        wake: Wake<'_>,
        item: &mut Option<T>,
    ) -> Poll<Result<(), Closed<T>>> {
        self.poll_wait(
            pick(Side::Room),
            Side::Item,
            node,
            wake,
            |s| push_if_room(s, item),
            Result::is_ok,
        )
    }

    /// One poll of a waiting pop (the contract's `poll_pop`).
    pub(super) fn poll_pop(&self, node: &Node, wake: Wake<'_>) -> Poll<Option<T>> {
        self.poll_wait(
            pick(Side::Item),
            Side::Room,
            node,
            wake,
            |s| match s.pop() {
                Some(v) => Some(Some(v)),
                None if s.is_closed() => Some(None),
                None => None,
            },
            Option::is_some,
        )
    }
}
