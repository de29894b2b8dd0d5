//! The contract every MPMC ring implements once, and the faces written once
//! on top of it: `push_blocking`/`pop_blocking` (here) and the `async`
//! futures [`Push`](crate::future::Push) and [`Pop`](crate::future::Pop)
//! (`src/future.rs`). A ring's public `push`, `pop` and blocking methods are
//! one-line delegations to these.
//!
//! What a ring provides:
//!
//! - `push_now`/`pop_now`: one attempt that counts nothing (a wait is not a
//!   rejection, and a busy answer on the way is not one either), with three
//!   outcomes: done, closed, or "wait";
//! - with `async`: one poll of a waiting push or pop, given its waiter node
//!   (the ring links it into its own list, under its own protocol:
//!   `src/wait.rs` for the rings on atomics, `src/mpmc/cs/wait.rs` for the
//!   critical-section ring), and the leaving of a dropped waiter.
//!
//! The trait is public only in name (it sits in a private module), so users
//! cannot implement it or call it: it is sealed.

use crate::Closed;

/// A ring with waiting pushes and pops (see the module docs).
pub trait Waitable {
    /// What the ring holds.
    type Item;

    /// Pushes `item` if there is room, counting nothing: `Ok(Ok(()))`
    /// pushed, `Ok(Err(Closed))` closed, `Err(item)` the caller must wait.
    fn push_now(&self, item: Self::Item) -> Result<Result<(), Closed<Self::Item>>, Self::Item>;

    /// Pops the oldest item, counting nothing: `Some(Some(item))`,
    /// `Some(None)` closed and drained, `None` the caller must wait.
    fn pop_now(&self) -> Option<Option<Self::Item>>;

    /// One poll of a waiting push whose node is `node` and whose item is
    /// in `item` (taken out when it is pushed or handed back).
    #[cfg(feature = "async")]
    fn poll_push(
        &self,
        node: &crate::wait::list::Node,
        wake: crate::wait::list::Wake<'_>,
        item: &mut Option<Self::Item>,
    ) -> core::task::Poll<Result<(), Closed<Self::Item>>>;

    /// One poll of a waiting pop whose node is `node`.
    #[cfg(feature = "async")]
    fn poll_pop(
        &self,
        node: &crate::wait::list::Node,
        wake: crate::wait::list::Wake<'_>,
    ) -> core::task::Poll<Option<Self::Item>>;

    /// Takes `node` out of `side`'s list (its future was dropped), passing
    /// on a wake it did not use.
    #[cfg(feature = "async")]
    fn leave(&self, side: crate::wait::Side, node: &crate::wait::list::Node);

    /// Whether a task or thread waits on either side of the ring now (a
    /// hint for the blocking calls' spin: `crate::spin::briefly`).
    #[cfg(feature = "std")]
    fn crowded(&self) -> bool {
        false
    }
}

/// `push_blocking` of any ring: with `std`, a short spin, then the thread
/// parks in a [`Push`](crate::future::Push) whose node lives in this frame;
/// without `std`, a spin with back-off.
pub(crate) fn push_blocking<R: Waitable>(ring: &R, item: R::Item) -> Result<(), Closed<R::Item>> {
    #[cfg(feature = "std")]
    {
        let attempt = |item| ring.push_now(item);
        match attempt(item).or_else(|item| crate::spin::briefly(item, attempt, || ring.crowded())) {
            Ok(done) => done,
            Err(item) => crate::wait::park::wait(crate::future::Push::new(ring, item)),
        }
    }
    #[cfg(not(feature = "std"))]
    crate::spin::until(item, |item| ring.push_now(item))
}

/// `pop_blocking` of any ring, as [`push_blocking`].
pub(crate) fn pop_blocking<R: Waitable>(ring: &R) -> Option<R::Item> {
    #[cfg(feature = "std")]
    {
        let attempt = |()| ring.pop_now().ok_or(());
        match attempt(()).or_else(|()| crate::spin::briefly((), attempt, || ring.crowded())) {
            Ok(out) => out,
            Err(()) => crate::wait::park::wait(crate::future::Pop::new(ring)),
        }
    }
    #[cfg(not(feature = "std"))]
    crate::spin::until((), |()| ring.pop_now().ok_or(()))
}

/// One poll of a waiting push on a ring whose waiters are a
/// [`WaitList`](crate::wait::queue::WaitList) per side: the list's protocol
/// around [`Waitable::push_now`].
#[cfg(feature = "async")]
pub(crate) fn poll_push_in<R: Waitable>(
    ring: &R,
    list: &crate::wait::queue::WaitList,
    node: &crate::wait::list::Node,
    wake: crate::wait::list::Wake<'_>,
    item: &mut Option<R::Item>,
) -> core::task::Poll<Result<(), Closed<R::Item>>> {
    list.poll(node, wake, || match ring.push_now(item.take()?) {
        Ok(done) => Some(done),
        Err(back) => {
            *item = Some(back);
            None
        }
    })
}

#[cfg(all(test, feature = "std", not(sluicegate_loom)))]
mod tests {
    use super::Waitable;
    use crate::mpmc::{BurstRing, Ring};
    use core::time::Duration;
    use std::time::Instant;

    /// `crowded` is the hint the blocking calls yield on: true while a
    /// thread is parked on either side, false once nobody waits.
    fn crowded_while_a_thread_waits<R: Waitable<Item = u32> + Sync>(ring: &R) {
        assert!(!ring.crowded());
        let seen = std::thread::scope(|s| {
            let popper = s.spawn(|| super::pop_blocking(ring));
            let deadline = Instant::now() + Duration::from_secs(10);
            let mut seen = ring.crowded();
            while !seen && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
                seen = ring.crowded();
            }
            // The item releases the popper whether or not it was seen.
            assert_eq!(ring.push_now(7).ok(), Some(Ok(())));
            assert_eq!(popper.join().unwrap(), Some(7));
            seen
        });
        assert!(
            seen,
            "a thread parked in pop_blocking, and crowded() never said so"
        );
        assert!(!ring.crowded());
    }

    #[test]
    fn crowded_on_every_ring_with_a_list() {
        crowded_while_a_thread_waits(&Ring::<u32, 2>::new());
        crowded_while_a_thread_waits(&BurstRing::<u32, 2, 1>::new());
    }
}
