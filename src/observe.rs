//! The observers every ring and ring handle derives from its own `len`:
//! `is_empty`, `is_full`, `free_slots` and `capacity`, written once.
//!
//! Each type's `len` is its own (an exact count in a critical section, a
//! snapshot of two indices, an estimate while operations are in progress),
//! and so is the sentence that says how current it is; what follows from
//! it is the same everywhere. The four are inherent methods, so that users
//! call them without importing a trait: a type's `impl` block expands them
//! with [`derived_observers!`], which also writes their docs and doc tests
//! from a few lines the type gives.

/// Expands, inside an `impl` block of a type that has `len(&self) ->
/// usize` and a const parameter `N` (its capacity), to `is_empty`,
/// `is_full`, `free_slots` and `capacity` with their docs and doc tests.
///
/// The doc tests are made from the arguments:
///
/// - `obj`: the name of the observed value in them;
/// - `make`: statements that bind `obj` to a value of the type with a
///   capacity of 4, empty;
/// - `push`: one statement that pushes one item;
/// - `caveat`: the end of the first sentence of the three that read `len`
///   (how current the answer is, or a link to where `len` says it).
macro_rules! derived_observers {
    (
        obj: $obj:literal,
        make: $make:literal,
        push: $push:literal,
        caveat: $caveat:literal $(,)?
    ) => {
        #[doc = concat!(
                                            "`len() == 0`", $caveat, "\n\n```\n",
                                            $make, "\n",
                                            "assert!(", $obj, ".is_empty());\n",
                                            $push, "\n",
                                            "assert!(!", $obj, ".is_empty());\n```"
                                        )]
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }

        #[doc = concat!(
                                            "`len() == N`", $caveat, "\n\n```\n",
                                            $make, "\n",
                                            "for _ in 0..3 {\n    ", $push, "\n}\n",
                                            "assert!(!", $obj, ".is_full());\n",
                                            $push, "\n",
                                            "assert!(", $obj, ".is_full());\n```"
                                        )]
        pub fn is_full(&self) -> bool {
            self.len() == N
        }

        #[doc = concat!(
                                            "`N - len()`", $caveat, "\n\n```\n",
                                            $make, "\n",
                                            $push, "\n",
                                            "assert_eq!(", $obj, ".free_slots(), 3);\n```"
                                        )]
        pub fn free_slots(&self) -> usize {
            N - self.len()
        }

        #[doc = concat!(
                                            "How many items it holds when full (`N`).\n\n```\n",
                                            $make, "\n",
                                            "assert_eq!(", $obj, ".capacity(), 4);\n```"
                                        )]
        pub const fn capacity(&self) -> usize {
            N
        }
    };
}
pub(crate) use derived_observers;

/// The high-water mark of an MPMC ring as `stats` reports it: `mark`, or
/// `len` (the length now, a length the ring had) if that is more, which
/// is then kept in `mark` so that no later read reports less. The
/// read-modify-write runs only when the mark rises.
#[cfg(sluicegate_cas)]
pub(crate) fn kept_peak(mark: &crate::sync::AtomicUsize, len: usize) -> usize {
    // Relaxed: a statistic, ordered with nothing.
    let was = mark.load(crate::sync::Ordering::Relaxed);
    if len > was {
        mark.fetch_max(len, crate::sync::Ordering::Relaxed);
    }
    was.max(len)
}
