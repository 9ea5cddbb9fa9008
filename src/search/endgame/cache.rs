//! A small cache of exact endgame bounds for the solver's positions below the transposition
//! table's range: one per thread, direct-mapped, always replacing, small enough to stay in the
//! processor's caches. It spares the re-search of small subtrees reached again by
//! transposition without the main table's memory traffic.
//!
//! What it holds never goes stale: every bound comes from a search to the end with no
//! selective pruning (probable cuts start far above its range), keyed by the position's whole
//! 64-bit hash key (as the transposition table's entries are), so it stays true across
//! iterations, searches and games. An entry is one word, the key's low bits and the bounds,
//! so that the cache stays in the second-level cache beside the search's other data
//! (measured against entries holding the whole position, 24 bytes: 0.98x the time).

use crate::board::Board;
use std::cell::Cell;

/// Entries in each thread's cache (a power of two): 8 bytes each, 512 KiB in all.
const ENTRIES: usize = 1 << 16;
/// Bits of the hash key that pick the slot (its highest).
const SLOT_BITS: u32 = ENTRIES.trailing_zeros();
/// The bits of the hash key an entry keeps to recognise its position: the low 48, below the
/// slot's.
const CHECK_MASK: u64 = (1 << 48) - 1;

/// The bounds known for one position, with the low bits of its hash key: `check << 16 |
/// lower << 8 | upper` (the bounds as bytes).
#[derive(Clone, Copy)]
struct Entry(u64);

impl Entry {
    /// A slot with no bounds: (-64, 64) settles no window, whatever position it is read for.
    const EMPTY: Entry = Entry::new(0, -64, 64);

    const fn new(check: u64, lower: i8, upper: i8) -> Entry {
        Entry(check << 16 | (lower as u8 as u64) << 8 | upper as u8 as u64)
    }

    fn check(self) -> u64 {
        self.0 >> 16
    }

    fn lower(self) -> i8 {
        (self.0 >> 8) as u8 as i8
    }

    fn upper(self) -> i8 {
        self.0 as u8 as i8
    }
}

// The slot's bits and the check's do not overlap.
const _: () = assert!(SLOT_BITS <= 16);

thread_local! {
    static CACHE: Box<[Cell<Entry>; ENTRIES]> = vec![Cell::new(Entry::EMPTY); ENTRIES]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("the vector has ENTRIES slots"));
}

/// A position's place in the thread's cache: its hash key, whose high bits pick the slot and
/// whose low bits the entry keeps to recognise it. Found once for a position's prefetch,
/// probe and store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot(u64);

impl Slot {
    /// A placeholder for a position not looked up yet.
    pub(super) const UNSET: Slot = Slot(0);

    /// The slot of `board`.
    #[inline]
    pub(super) fn of(board: &Board) -> Slot {
        Slot(board.hash_key())
    }

    #[inline]
    fn index(self) -> usize {
        (self.0 >> (64 - SLOT_BITS)) as usize
    }

    #[inline]
    fn check(self) -> u64 {
        self.0 & CHECK_MASK
    }

    /// Starts loading the slot into the processor's first-level cache, so that a probe soon
    /// after does not wait for it.
    #[inline]
    pub(super) fn prefetch(self) {
        CACHE.with(|cache| crate::search::prefetch::prefetch(&cache[self.index()]));
    }

    /// A score that settles the null window (`alpha`, `alpha + 1`) for the slot's position, if
    /// the bounds this thread has seen for it do: the lower bound when it beats `alpha`, the
    /// upper bound when it does not reach above it.
    #[inline]
    pub(super) fn probe(self, alpha: i32) -> Option<i32> {
        let entry = CACHE.with(|cache| cache[self.index()].get());
        if entry.check() != self.check() {
            return None;
        }
        let (lower, upper) = (i32::from(entry.lower()), i32::from(entry.upper()));
        if lower > alpha {
            Some(lower)
        } else if upper <= alpha {
            Some(upper)
        } else {
            None
        }
    }

    /// Records the fail-soft result `score` of a null-window search around `alpha` on the
    /// slot's position: a lower bound if it beat `alpha`, else an upper bound; merged with the
    /// bounds already held for the same position, replacing any other.
    #[inline]
    pub(super) fn store(self, alpha: i32, score: i32) {
        CACHE.with(|cache| {
            let cell = &cache[self.index()];
            let entry = cell.get();
            let (mut lower, mut upper) = if entry.check() == self.check() {
                (entry.lower(), entry.upper())
            } else {
                (-64, 64)
            };
            let score = score.clamp(-64, 64) as i8;
            if i32::from(score) > alpha {
                lower = lower.max(score);
            } else {
                upper = upper.min(score);
            }
            cell.set(Entry::new(self.check(), lower, upper));
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(player: u64, opponent: u64) -> Board {
        Board { player, opponent }
    }

    fn probe(board: &Board, alpha: i32) -> Option<i32> {
        Slot::of(board).probe(alpha)
    }

    fn store(board: &Board, alpha: i32, score: i32) {
        Slot::of(board).store(alpha, score)
    }

    #[test]
    fn bounds_answer_the_windows_they_settle() {
        let position = board(0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        assert_eq!(probe(&position, 0), None, "nothing stored yet");
        store(&position, 10, 12);
        assert_eq!(probe(&position, 11), Some(12), "a lower bound above alpha");
        assert_eq!(probe(&position, 5), Some(12));
        assert_eq!(
            probe(&position, 12),
            None,
            "a lower bound that does not beat alpha"
        );
        store(&position, 20, 16);
        assert_eq!(probe(&position, 16), Some(16), "an upper bound at alpha");
        assert_eq!(probe(&position, 14), None, "between the bounds");
    }

    #[test]
    fn negative_and_extreme_bounds_keep_their_sign() {
        let position = board(0x0000_0000_1000_0000, 0x0000_0018_0800_0000);
        store(&position, -20, -30);
        assert_eq!(probe(&position, -30), Some(-30), "an upper bound at alpha");
        assert_eq!(probe(&position, -31), None);
        store(&position, -40, -36);
        assert_eq!(
            probe(&position, -37),
            Some(-36),
            "a lower bound above alpha"
        );
        store(&position, -64, 64);
        assert_eq!(probe(&position, 63), Some(64), "the highest score");
        let other = board(0x0000_0000_0800_0000, 0x0000_0018_1000_0000);
        store(&other, -63, -64);
        assert_eq!(probe(&other, -64), Some(-64), "the lowest score");
    }

    #[test]
    fn another_position_in_the_slot_replaces_without_false_hits() {
        let first = board(0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        let second = (1u64..)
            .map(|bits| board(bits, 0x0000_0010_0800_0000 & !bits))
            .find(|b| Slot::of(b).index() == Slot::of(&first).index() && *b != first)
            .expect("a colliding position");
        store(&first, 0, 8);
        assert_eq!(probe(&second, 0), None, "the slot holds the other position");
        store(&second, 0, -8);
        assert_eq!(probe(&first, 0), None, "replaced");
        assert_eq!(probe(&second, 0), Some(-8));
    }
}
