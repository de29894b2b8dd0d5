//! The front door: the queue between admission and the workers. A FIFO
//! that takes everything, or the crate's `mpmc::Ring` of [`RING`] slots with
//! what a full ring does to a send, and optionally the ring's fresh pop; or
//! a source that can be slowed, feeding an `spsc::Ring` with watermarks.
//! The queue holds the engine's attempt slots.

use std::collections::VecDeque;

use sluicegate::spsc::{Level, Marked};
use sluicegate::{mpmc, spsc};

/// Slots of the ring door: two requests per worker of the demo's 8 × 10 ms
/// service, so a full ring adds about two service times.
pub const RING: usize = 16;

/// The slowed source's marks: it stops reading at [`HIGH`] requests in the
/// ring (XOFF) and reads again once the workers drained it to [`LOW`] (XON),
/// so 4 requests still wait for the 8 workers when it resumes.
pub const LOW: usize = 4;
/// See [`LOW`].
pub const HIGH: usize = 12;

/// Which queue a scenario puts before its workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Door {
    /// An unbounded FIFO.
    Fifo,
    /// The crate's `mpmc::Ring` of [`RING`] slots.
    Ring {
        /// What a send to a full ring does.
        full: Full,
        /// The workers pop with `try_pop_fresh_with`: the ring discards (and
        /// counts in `RingStats::expired`) requests that cannot finish
        /// before their deadline, by the workers' service-time estimate.
        fresh: bool,
    },
}

/// What a send to a full ring does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// `try_push` fails: the client gets a fast refusal.
    Reject,
    /// The send waits for room (`push_blocking` in real code); waiting
    /// senders race for a freed slot, so a random one gets it.
    Block,
    /// `push_overwrite` evicts the oldest request, whose client is refused.
    DropOldest,
    /// The ring is an `spsc::Ring<_, RING, Marked>` with watermarks
    /// [`LOW`] and [`HIGH`], fed by one source that stops reading new
    /// requests while the ring's level is `High` (a reader that stops
    /// reading its socket, so TCP's window holds the clients back) and reads
    /// the ones that waited, oldest first, once it is `Normal` again. The
    /// ring never refuses: requests wait upstream, where their clients may
    /// give up on them.
    Slowed,
}

/// What a push did.
pub(super) enum Push {
    /// In the queue.
    Queued,
    /// Refused: the ring was full.
    Refused,
    /// The ring was full (or, [`Full::Slowed`], its level `High`) and the
    /// sender waits for a slot.
    Blocked,
    /// In the queue; the oldest request (this slot) was evicted for it.
    Evicted(u32),
}

/// The queue of one run.
pub(super) struct Queue {
    door: Door,
    fifo: VecDeque<u32>,
    ring: Box<mpmc::Ring<u32, RING>>,
    marked: Box<spsc::Ring<u32, RING, Marked>>,
}

impl Queue {
    pub(super) fn new(door: Door) -> Self {
        Queue {
            door,
            fifo: VecDeque::new(),
            ring: Box::new(mpmc::Ring::new()),
            marked: Box::new(spsc::Ring::with_watermarks(LOW, HIGH)),
        }
    }

    /// A new request's push.
    pub(super) fn push(&mut self, slot: u32) -> Push {
        match self.door {
            Door::Fifo => {
                self.fifo.push_back(slot);
                Push::Queued
            }
            Door::Ring { full, .. } => match full {
                Full::Reject => match self.ring.try_push(slot) {
                    Ok(()) => Push::Queued,
                    Err(_) => Push::Refused,
                },
                Full::Block => match self.ring.try_push(slot) {
                    Ok(()) => Push::Queued,
                    Err(_) => Push::Blocked,
                },
                Full::DropOldest => match self.ring.push_overwrite(slot).into_item() {
                    None => Push::Queued,
                    Some(old) if old == slot => Push::Refused,
                    Some(old) => Push::Evicted(old),
                },
                Full::Slowed => {
                    let (mut tx, _) = self.marked.split();
                    if tx.level() == Level::High {
                        return Push::Blocked;
                    }
                    match tx.try_push(slot) {
                        Ok(()) => Push::Queued,
                        Err(_) => Push::Blocked,
                    }
                }
            },
        }
    }

    /// A blocked sender's push into a slot that was just freed (or, for the
    /// slowed source, once the level is `Normal`).
    pub(super) fn push_freed(&mut self, slot: u32) {
        if self.slowed() {
            let (mut tx, _) = self.marked.split();
            tx.try_push(slot).expect("a Normal ring has room");
        } else {
            self.ring.try_push(slot).expect("a slot was just freed");
        }
    }

    /// The door is the slowed source's.
    pub(super) fn slowed(&self) -> bool {
        matches!(
            self.door,
            Door::Ring {
                full: Full::Slowed,
                ..
            }
        )
    }

    /// The slowed source reads again: the ring's level is `Normal`.
    pub(super) fn reading(&mut self) -> bool {
        let (mut tx, _) = self.marked.split();
        tx.level() == Level::Normal
    }

    /// The slowed source's ring: how often its level changed.
    pub(super) fn transitions(&self) -> usize {
        self.marked.transitions()
    }

    /// The head, for a worker. With the fresh pop, the requests `expired`
    /// says cannot be served in time are handed to `discard` instead.
    pub(super) fn pop(
        &mut self,
        expired: impl Fn(u32) -> bool,
        discard: impl FnMut(u32),
    ) -> Option<u32> {
        if self.slowed() {
            let (_, mut rx) = self.marked.split();
            return if let Door::Ring { fresh: true, .. } = self.door {
                rx.try_pop_fresh_with(|&s: &u32| expired(s), discard)
            } else {
                rx.try_pop()
            };
        }
        match self.door {
            Door::Fifo => self.fifo.pop_front(),
            Door::Ring { fresh: true, .. } => {
                self.ring.try_pop_fresh_with(|&s: &u32| expired(s), discard)
            }
            Door::Ring { fresh: false, .. } => self.ring.try_pop(),
        }
    }

    /// Requests in the queue.
    pub(super) fn len(&self) -> usize {
        if self.slowed() {
            return self.marked.len();
        }
        match self.door {
            Door::Fifo => self.fifo.len(),
            Door::Ring { .. } => self.ring.len(),
        }
    }

    /// Requests the queue's memory holds now (the FIFO's allocation).
    pub(super) fn slots(&self) -> usize {
        match self.door {
            Door::Fifo => self.fifo.capacity(),
            Door::Ring { .. } => RING,
        }
    }

    /// Requests the fresh pop discarded.
    pub(super) fn expired(&self) -> u64 {
        (self.ring.stats().expired + self.marked.stats().expired) as u64
    }

    /// The door blocks senders.
    pub(super) fn blocks(&self) -> bool {
        matches!(
            self.door,
            Door::Ring {
                full: Full::Block,
                ..
            }
        )
    }
}
