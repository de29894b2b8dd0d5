//! What a single fresh pop (`try_pop_fresh_with`) must do, on a `VecDeque`
//! model of the ring: pop until an item has not expired, discarding (in
//! order) at most `n` expired ones. Shared by the tests and the fuzz
//! targets that check a ring's fresh pop against a model.

use std::collections::VecDeque;

/// Runs the fresh pop on `model` and returns what the ring must answer:
/// the item (or `None`) and the discarded items, in order.
pub fn fresh_pop(
    model: &mut VecDeque<u64>,
    expired: impl Fn(&u64) -> bool,
    n: usize,
) -> (Option<u64>, Vec<u64>) {
    let mut gone = Vec::new();
    while let Some(&x) = model.front() {
        if !expired(&x) {
            return (model.pop_front(), gone);
        }
        if gone.len() == n {
            break;
        }
        gone.push(model.pop_front().expect("front"));
    }
    (None, gone)
}
