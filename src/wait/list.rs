//! The intrusive waiter list of the MPMC rings: [`Node`]s that live in the
//! waiting futures (or in a blocking call's stack frame), linked into a
//! [`RawList`] per side of a ring. This file has the list and the node's
//! state machine; who holds the list's lock is up to the caller
//! (`queue.rs` for `mpmc::Ring`, the ring's critical section for
//! `mpmc::cs::Ring`).
//!
//! # Node states
//!
//! | state          | meaning                                        | who moves it out, and to what                       |
//! |----------------|------------------------------------------------|-----------------------------------------------------|
//! | `UNLINKED`     | not in the list; nobody but the owner sees it  | the owner, under the lock: `LINKED`                 |
//! | `LINKED`       | in the list, with a target to wake             | a notifier, under the lock: `NOTIFIED_*`; the owner, under the lock: `UNLINKED` |
//! | `NOTIFIED_ONE` | taken out by a wake-one; its target was taken  | the owner, without the lock: `UNLINKED` (the wake served by its next poll), or under it passing the wake on |
//! | `NOTIFIED_ALL` | taken out by a wake-all; its target was taken  | the owner, without the lock: `UNLINKED`            |
//!
//! Every move into `NOTIFIED_*` is a `Release` store made under the lock
//! after the notifier has unlinked the node and taken its target; the owner
//! reads the state with `Acquire` outside the lock. So an owner that reads
//! `NOTIFIED_*` owns every field of its node again (no notifier touches a
//! node once it has left the list), and one that reads `LINKED` takes the
//! lock before touching anything else.
//!
//! `waiting` (the gate the notifiers read) counts the `LINKED` nodes; it is
//! changed only under the lock, with a load and a store.

use crate::sync::{LoadStoreUsize, Ordering, UnsafeCell};
use core::marker::PhantomPinned;
use core::ptr::NonNull;
use core::task::Waker;

/// Not in the list.
pub(crate) const UNLINKED: usize = 0;
/// In the list.
pub(crate) const LINKED: usize = 1;
/// Taken out by a wake-one, which it must pass on if its owner leaves
/// without polling.
pub(crate) const NOTIFIED_ONE: usize = 2;
/// Taken out by a wake-all (a close, an eviction's end).
pub(crate) const NOTIFIED_ALL: usize = 3;

/// The `newest_from` of a list whose wakes always take the first node of a
/// rank ([`RawList::wake_one`]).
pub(crate) const IN_ORDER: usize = usize::MAX;

/// How the context that waits wants to be woken.
#[derive(Clone, Copy, Debug)]
pub enum Wake<'a> {
    /// A task, through its waker.
    Task(&'a Waker),
    /// The calling thread, unparked (the blocking calls).
    #[cfg(feature = "std")]
    Thread,
}

impl Wake<'_> {
    /// A target that wakes this context. Runs the waker's clone: call it
    /// outside any lock.
    pub(crate) fn target(self) -> Target {
        match self {
            Wake::Task(w) => Target::Task(w.clone()),
            #[cfg(feature = "std")]
            Wake::Thread => Target::Thread(crate::sync::thread::current()),
        }
    }

    /// Whether `t` already wakes this context (pointer comparisons only,
    /// so it may run under the lock).
    fn is(self, t: &Target) -> bool {
        match (self, t) {
            (Wake::Task(w), Target::Task(old)) => old.will_wake(w),
            // A blocking call's node is only ever used by its own thread.
            #[cfg(feature = "std")]
            (Wake::Thread, Target::Thread(_)) => true,
            _ => false,
        }
    }
}

/// What a notifier wakes.
pub(crate) enum Target {
    /// Nothing (taken by a wake).
    None,
    Task(Waker),
    #[cfg(feature = "std")]
    Thread(crate::sync::thread::Thread),
}

impl Target {
    /// Wakes it (outside any lock: this runs the executor's code).
    pub(crate) fn wake(self) {
        match self {
            Target::None => {}
            Target::Task(w) => w.wake(),
            #[cfg(feature = "std")]
            Target::Thread(t) => t.unpark(),
        }
    }
}

/// One waiter: lives in a pinned future or a blocking call's frame, and is
/// linked into its side's list while it waits. `!Unpin`: the list holds its
/// address.
pub struct Node {
    /// One of the states in the module table. Stored by the owner (any
    /// state) and by notifiers (`NOTIFIED_*`, under the lock).
    state: LoadStoreUsize,
    /// Neighbours in the list; under the lock.
    prev: UnsafeCell<Option<NonNull<Node>>>,
    next: UnsafeCell<Option<NonNull<Node>>>,
    /// Under the lock while `LINKED`; the owner's once it reads
    /// `NOTIFIED_*` or `UNLINKED`.
    target: UnsafeCell<Target>,
    /// Where a ranked list keeps it ([`RawList::link_ranked`]); written by
    /// its owner under the lock before it links, read under the lock.
    rank: UnsafeCell<usize>,
    /// Its place in the order of arrival ([`RawList::link`]), kept while a
    /// wake takes it out and it links again; under the lock.
    place: UnsafeCell<usize>,
    _pin: PhantomPinned,
}

impl core::fmt::Debug for Node {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Node")
            .field("state", &self.state())
            .finish_non_exhaustive()
    }
}

// SAFETY: the node's cells are reached only under its list's lock, or by
// its owner when the state says no notifier can reach it (module docs);
// `Target` is `Send` (a `Waker` or a `Thread`).
unsafe impl Sync for Node {}
// SAFETY: as above: the raw links are only followed under the lock.
unsafe impl Send for Node {}

impl Node {
    crate::sync::const_fn! {
        pub(crate) fn new() -> Self {
            Self {
                state: LoadStoreUsize::new(UNLINKED),
                prev: UnsafeCell::new(None),
                next: UnsafeCell::new(None),
                target: UnsafeCell::new(Target::None),
                rank: UnsafeCell::new(0),
                place: UnsafeCell::new(0),
                _pin: PhantomPinned,
            }
        }
    }

    /// The state as its owner sees it outside the lock (`Acquire`: pairs
    /// with a notifier's `Release` store of `NOTIFIED_*`).
    #[inline]
    pub(crate) fn state(&self) -> usize {
        self.state.load(Ordering::Acquire)
    }

    /// The owner, after reading `NOTIFIED_*`: its next try serves the wake.
    /// No other context touches the node now (module docs).
    #[inline]
    pub(crate) fn consume(&self) {
        self.state.store(UNLINKED, Ordering::Relaxed);
    }
}

/// The list of one side of a ring, with its count of linked nodes. Every
/// method must be called with the side's lock held (or with the only
/// reference: `&mut`).
pub(crate) struct RawList {
    head: Option<NonNull<Node>>,
    tail: Option<NonNull<Node>>,
    /// The place the next node to arrive takes (wrapping).
    arrivals: usize,
}

// SAFETY: the pointers are followed only under the lock that owns the list,
// and the nodes they reach are `Sync`.
unsafe impl Send for RawList {}

/// What leaving the list left to do outside the lock.
pub(crate) struct Left {
    /// The node's own target, to drop.
    pub(crate) old: Target,
    /// A wake-one passed on, to wake.
    pub(crate) passed: Target,
}

impl Left {
    /// Drops the old target and wakes the passed-on one (outside the lock).
    pub(crate) fn finish(self) {
        drop(self.old);
        self.passed.wake();
    }
}

/// What linking answered.
pub(crate) enum Linked {
    /// Linked, with this target replaced (drop it outside the lock).
    Ok(Target),
    /// The node needs a fresh target and none was given: clone one outside
    /// the lock and try again.
    NeedTarget,
}

impl RawList {
    pub(crate) const fn new() -> Self {
        Self {
            head: None,
            tail: None,
            arrivals: 0,
        }
    }

    /// Links `node`, or keeps it where it is if it is linked; makes its
    /// target wake `wake`, from `fresh` if it needs a new one. A node
    /// arriving (`!served`) takes the next place and goes to the back. One
    /// whose wake this poll serves (a wake took it out, and it found
    /// nothing) keeps its place: it goes before the first node that arrived
    /// after it. Every wake takes the head, so that is near the head, and
    /// several woken together go back in the order they came, whichever of
    /// them runs first. The list stays in order of places; the walk passes
    /// only the nodes that came before it, and those are woken nodes that
    /// linked again.
    ///
    /// # Safety
    /// The lock is held, `node` is pinned and is the caller's own, and it
    /// is not in another list.
    pub(crate) unsafe fn link(
        &mut self,
        waiting: &LoadStoreUsize,
        node: &Node,
        served: bool,
        wake: Wake<'_>,
        fresh: &mut Option<Target>,
    ) -> Linked {
        // SAFETY: the lock is held, `node` is pinned, the caller's and in
        // no other list (this function's contract), which `link_with` and
        // the insertions require.
        unsafe {
            self.link_with(waiting, node, wake, fresh, |list| {
                if served {
                    let place = node.place.with(|p| *p);
                    list.insert_where(node, |_, p| came_before(place, p));
                } else {
                    list.arrive(node);
                    list.push_back(node);
                }
            })
        }
    }

    /// Gives `node` the next place.
    ///
    /// # Safety
    /// The lock is held and `node` is the caller's own.
    unsafe fn arrive(&mut self, node: &Node) {
        // SAFETY: under the lock, or the owner's (the contract).
        node.place.with_mut(|p| unsafe { *p = self.arrivals });
        self.arrivals = self.arrivals.wrapping_add(1);
    }

    /// [`link`](Self::link) in rank order: the nodes of lower ranks nearer
    /// the head, and within a rank in order of places, oldest first, or
    /// newest first if `lifo`. So a node arriving goes to the back of its
    /// rank's nodes, or to their front if `lifo`; a served one keeps its
    /// place among them, as in [`link`](Self::link). Walks the nodes of
    /// lower ranks and some of its own: for lists that a bound keeps short.
    ///
    /// # Safety
    /// As [`link`](Self::link); every node of this list is linked with
    /// this method, always with the same `lifo`.
    #[allow(clippy::too_many_arguments)] // one call site, each a plain word
    pub(crate) unsafe fn link_ranked(
        &mut self,
        waiting: &LoadStoreUsize,
        node: &Node,
        rank: usize,
        lifo: bool,
        served: bool,
        wake: Wake<'_>,
        fresh: &mut Option<Target>,
    ) -> Linked {
        // SAFETY: as in `link`; and every node of the list is linked here,
        // so the ranks and places read under the lock are set (this
        // function's contract).
        unsafe {
            self.link_with(waiting, node, wake, fresh, |list| {
                node.rank.with_mut(|r| *r = rank);
                if !served {
                    list.arrive(node);
                }
                let place = node.place.with(|p| *p);
                let behind = |r: usize, p: usize| {
                    r > rank
                        || (r == rank
                            && if lifo {
                                came_before(p, place)
                            } else {
                                came_before(place, p)
                            })
                };
                list.insert_where(node, behind);
            })
        }
    }

    /// The common part of the links: the target, then `insert` (which puts
    /// the node in the list) if the node is not linked yet.
    ///
    /// # Safety
    /// As [`link`](Self::link).
    unsafe fn link_with(
        &mut self,
        waiting: &LoadStoreUsize,
        node: &Node,
        wake: Wake<'_>,
        fresh: &mut Option<Target>,
        insert: impl FnOnce(&mut Self),
    ) -> Linked {
        // SAFETY: under the lock, or the owner's (the caller's contract).
        let keep = node.target.with(|t| wake.is(unsafe { &*t }));
        if !keep && fresh.is_none() {
            return Linked::NeedTarget;
        }
        let old = if keep {
            Target::None
        } else {
            let new = fresh.take().unwrap_or(Target::None);
            // SAFETY: as above.
            node.target
                .with_mut(|t| core::mem::replace(unsafe { &mut *t }, new))
        };
        // Relaxed: under the lock.
        if node.state.load(Ordering::Relaxed) != LINKED {
            insert(self);
            node.state.store(LINKED, Ordering::Relaxed);
            waiting.store(waiting.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
        Linked::Ok(old)
    }

    /// Takes `node` out of the list if it is in it. A wake-one it received
    /// and did not serve (`pass`: its owner did not poll after it) goes to
    /// the next waiter, as [`wake_one`](Self::wake_one) with `newest_from`
    /// picks it.
    ///
    /// # Safety
    /// The lock is held and `node` is the caller's own; as
    /// [`wake_one`](Self::wake_one)'s for `newest_from`.
    pub(crate) unsafe fn leave(
        &mut self,
        waiting: &LoadStoreUsize,
        node: &Node,
        pass: bool,
        newest_from: usize,
    ) -> Left {
        let mut left = Left {
            old: Target::None,
            passed: Target::None,
        };
        match node.state.load(Ordering::Relaxed) {
            LINKED => {
                // SAFETY: linked in this list (the caller's contract).
                unsafe { self.remove(node) };
                waiting.store(waiting.load(Ordering::Relaxed) - 1, Ordering::Relaxed);
                // SAFETY: unlinked and ours.
                left.old = node
                    .target
                    .with_mut(|t| core::mem::replace(unsafe { &mut *t }, Target::None));
            }
            NOTIFIED_ONE if pass => {
                // SAFETY: the lock is held, and the ranks are set if
                // `newest_from` reads them (this function's contract).
                if let Some(t) = unsafe { self.wake_one(waiting, NOTIFIED_ONE, newest_from) } {
                    left.passed = t;
                }
            }
            _ => {}
        }
        node.state.store(UNLINKED, Ordering::Relaxed);
        left
    }

    /// Takes the first waiter out, marks it `how` (`NOTIFIED_ONE` or
    /// `NOTIFIED_ALL`) and returns its target. With `newest_from` or more
    /// nodes linked, the last node of the first one's rank instead (the
    /// adaptive order of a ranked list linked oldest first: [`IN_ORDER`]
    /// for never).
    ///
    /// # Safety
    /// The lock is held; with a `newest_from` other than [`IN_ORDER`],
    /// every node of the list was linked with
    /// [`link_ranked`](Self::link_ranked).
    pub(crate) unsafe fn wake_one(
        &mut self,
        waiting: &LoadStoreUsize,
        how: usize,
        newest_from: usize,
    ) -> Option<Target> {
        let node = self.head?;
        // SAFETY: the lock is held and `node` is the head, so linked; the
        // ranks are set if `newest_from` reads them (the contract).
        unsafe {
            let node = self.pick(waiting, node, newest_from);
            Some(self.wake_node(waiting, node, how))
        }
    }

    /// Wakes (one) the first waiter of a rank above `rank`, if any (the
    /// last of that rank with `newest_from` or more nodes linked, as in
    /// [`wake_one`](Self::wake_one)), and returns its target.
    ///
    /// # Safety
    /// The lock is held; every node of the list was linked with
    /// [`link_ranked`](Self::link_ranked).
    pub(crate) unsafe fn wake_one_after_rank(
        &mut self,
        waiting: &LoadStoreUsize,
        rank: usize,
        newest_from: usize,
    ) -> Option<Target> {
        // SAFETY: the lock is held and every rank set (the contract).
        unsafe {
            let p = self.first_where(|r, _| r > rank)?;
            let p = self.pick(waiting, p, newest_from);
            Some(self.wake_node(waiting, p, NOTIFIED_ONE))
        }
    }

    /// `first`, or with `newest_from` or more nodes linked the last node
    /// of its rank (the walk passes the nodes of that rank).
    ///
    /// # Safety
    /// The lock is held, `first` is linked, and the ranks are set if
    /// `newest_from` is not [`IN_ORDER`].
    unsafe fn pick(
        &self,
        waiting: &LoadStoreUsize,
        first: NonNull<Node>,
        newest_from: usize,
    ) -> NonNull<Node> {
        // `IN_ORDER` first: a constant in the rings' lists, so their wakes
        // load nothing more. Relaxed: under the lock.
        if newest_from == IN_ORDER || waiting.load(Ordering::Relaxed) < newest_from {
            return first;
        }
        // SAFETY: under the lock; linked nodes are alive and their ranks
        // set (the contract).
        unsafe {
            let rank = first.as_ref().rank.with(|r| *r);
            let mut last = first;
            while let Some(n) = last.as_ref().next.with(|x| *x) {
                if n.as_ref().rank.with(|r| *r) != rank {
                    break;
                }
                last = n;
            }
            last
        }
    }

    /// Inserts `node` before the first node whose rank and place pass
    /// `stop`, or at the back if none does.
    ///
    /// # Safety
    /// As [`first_where`](Self::first_where) and
    /// [`push_back`](Self::push_back).
    unsafe fn insert_where(&mut self, node: &Node, stop: impl Fn(usize, usize) -> bool) {
        // SAFETY: the caller's contract: the lock is held, the ranks that
        // `stop` reads are set, `node` is pinned and in no list.
        unsafe {
            match self.first_where(stop) {
                Some(at) => self.insert_before(node, at),
                None => self.push_back(node),
            }
        }
    }

    /// The first node (from the head) whose rank and place pass `stop`.
    ///
    /// # Safety
    /// The lock is held; where `stop` reads ranks, every node of the list
    /// was linked with [`link_ranked`](Self::link_ranked), so its rank is
    /// set.
    unsafe fn first_where(&self, stop: impl Fn(usize, usize) -> bool) -> Option<NonNull<Node>> {
        let mut at = self.head;
        while let Some(p) = at {
            // SAFETY: under the lock; linked nodes are alive, and their
            // ranks and places set (the contract).
            let (r, place, next) = unsafe {
                let n = p.as_ref();
                (
                    n.rank.with(|r| *r),
                    n.place.with(|x| *x),
                    n.next.with(|x| *x),
                )
            };
            if stop(r, place) {
                return Some(p);
            }
            at = next;
        }
        None
    }

    /// Takes `node` out, marks it `how` and returns its target.
    ///
    /// # Safety
    /// The lock is held and `node` is in this list.
    unsafe fn wake_node(
        &mut self,
        waiting: &LoadStoreUsize,
        node: NonNull<Node>,
        how: usize,
    ) -> Target {
        // SAFETY: a linked node is pinned and alive until it leaves the list
        // under the lock, which we hold.
        let node = unsafe { node.as_ref() };
        // SAFETY: it is in this list (the contract).
        unsafe { self.remove(node) };
        waiting.store(waiting.load(Ordering::Relaxed) - 1, Ordering::Relaxed);
        // SAFETY: under the lock, and the node is still `LINKED`.
        let target = node
            .target
            .with_mut(|t| core::mem::replace(unsafe { &mut *t }, Target::None));
        // Release: the owner that reads this (Acquire) sees the node out of
        // the list and its target taken; we touch the node no more.
        node.state.store(how, Ordering::Release);
        target
    }

    /// # Safety
    /// The lock is held; `node` is pinned and in no list.
    unsafe fn push_back(&mut self, node: &Node) {
        let p = NonNull::from(node);
        // SAFETY: under the lock (the caller's contract).
        unsafe {
            node.prev.with_mut(|x| *x = self.tail);
            node.next.with_mut(|x| *x = None);
            match self.tail {
                Some(t) => t.as_ref().next.with_mut(|x| *x = Some(p)),
                None => self.head = Some(p),
            }
        }
        self.tail = Some(p);
    }

    /// # Safety
    /// As [`Self::push_back`]; `at` is in this list.
    unsafe fn insert_before(&mut self, node: &Node, at: NonNull<Node>) {
        let p = NonNull::from(node);
        // SAFETY: under the lock (the caller's contract); `at` and its
        // neighbours are linked, so alive.
        unsafe {
            let prev = at.as_ref().prev.with(|x| *x);
            node.prev.with_mut(|x| *x = prev);
            node.next.with_mut(|x| *x = Some(at));
            at.as_ref().prev.with_mut(|x| *x = Some(p));
            match prev {
                Some(q) => q.as_ref().next.with_mut(|x| *x = Some(p)),
                None => self.head = Some(p),
            }
        }
    }

    /// # Safety
    /// The lock is held and `node` is in this list.
    unsafe fn remove(&mut self, node: &Node) {
        // SAFETY: under the lock; the neighbours are linked, so alive.
        unsafe {
            let prev = node.prev.with(|x| *x);
            let next = node.next.with(|x| *x);
            match prev {
                Some(p) => p.as_ref().next.with_mut(|x| *x = next),
                None => self.head = next,
            }
            match next {
                Some(n) => n.as_ref().prev.with_mut(|x| *x = prev),
                None => self.tail = prev,
            }
            node.prev.with_mut(|x| *x = None);
            node.next.with_mut(|x| *x = None);
        }
    }
}

/// Whether place `a` came before place `b`: places are handed out in
/// order and wrap, and the waiters linked at one time span far fewer than
/// half the word.
fn came_before(a: usize, b: usize) -> bool {
    (b.wrapping_sub(a) as isize) > 0
}

#[cfg(all(test, not(sluicegate_loom)))]
mod tests {
    use super::*;
    use crate::sync::LoadStoreUsize;
    use core::pin::Pin;
    use std::boxed::Box;
    use std::vec::Vec;

    /// The nodes of `list` from the head, as indexes into `nodes`.
    fn order(list: &RawList, nodes: &[Pin<Box<Node>>]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = list.head;
        while let Some(p) = at {
            out.push(
                nodes
                    .iter()
                    .position(|n| core::ptr::eq(&**n, p.as_ptr()))
                    .unwrap(),
            );
            // SAFETY: single-threaded test; the nodes outlive the list's use.
            at = unsafe { p.as_ref().next.with(|x| *x) };
        }
        out
    }

    /// Places wrap: four nodes arrive across the wrap of the counter, the
    /// first three are woken and link again in reverse order, each back in
    /// its place: the list is in order of arrival again.
    #[test]
    fn served_nodes_keep_their_places_across_the_wrap() {
        let waker = futures::task::noop_waker();
        let waiting = LoadStoreUsize::new(0);
        let mut list = RawList::new();
        list.arrivals = usize::MAX - 1;
        let nodes: Vec<Pin<Box<Node>>> = (0..4).map(|_| Box::pin(Node::new())).collect();
        let link = |list: &mut RawList, i: usize, served: bool| {
            let mut fresh = Some(Wake::Task(&waker).target());
            // SAFETY: single-threaded, so the "lock" is ours; the nodes are
            // pinned, ours and in no other list.
            let linked =
                unsafe { list.link(&waiting, &nodes[i], served, Wake::Task(&waker), &mut fresh) };
            assert!(matches!(linked, Linked::Ok(_)));
        };
        for i in 0..4 {
            link(&mut list, i, false);
        }
        assert_eq!(order(&list, &nodes), [0, 1, 2, 3]);
        for _ in 0..3 {
            // SAFETY: as above.
            assert!(unsafe { list.wake_one(&waiting, NOTIFIED_ONE, IN_ORDER) }.is_some());
        }
        assert_eq!(order(&list, &nodes), [3]);
        for i in [2, 0, 1] {
            nodes[i].consume();
            link(&mut list, i, true);
        }
        assert_eq!(order(&list, &nodes), [0, 1, 2, 3]);
        assert_eq!(waiting.load(Ordering::Relaxed), 4);
    }
}
