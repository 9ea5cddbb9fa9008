//! A small cache of exact endgame bounds for the solver's positions below the transposition
//! table's range: one per thread, direct-mapped, always replacing, small enough to stay in the
//! processor's caches. It spares the re-search of small subtrees reached again by
//! transposition without the main table's memory traffic.
//!
//! What it holds never goes stale: every bound comes from a search to the end with no
//! selective pruning (probable cuts start far above its range), keyed by the whole position,
//! so it stays true across iterations, searches and games.

use crate::board::Board;
use std::cell::Cell;

/// Entries in each thread's cache (a power of two): 24 bytes each, 1.5 MiB in all.
const ENTRIES: usize = 1 << 16;

/// The bounds known for one position.
#[derive(Clone, Copy)]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
}

impl Entry {
    /// A slot that matches no position: no legal position has both sides on every square.
    const EMPTY: Entry = Entry {
        player: u64::MAX,
        opponent: u64::MAX,
        lower: -64,
        upper: 64,
    };
}

thread_local! {
    static CACHE: Box<[Cell<Entry>]> = vec![Cell::new(Entry::EMPTY); ENTRIES].into_boxed_slice();
}

/// The slot of a position: the high bits of its hash key.
#[inline]
fn slot(board: &Board) -> usize {
    (board.hash_key() >> (64 - ENTRIES.trailing_zeros())) as usize
}

/// Starts loading the slot of `board` into the processor's first-level cache, so that a probe
/// soon after does not wait for it.
#[inline]
pub(super) fn prefetch(board: &Board) {
    CACHE.with(|cache| super::prefetch(&cache[slot(board)]));
}

/// A score that settles the null window (`alpha`, `alpha + 1`) for `board`, if the bounds this
/// thread has seen for it do: the lower bound when it beats `alpha`, the upper bound when it
/// does not reach above it.
#[inline]
pub(super) fn probe(board: &Board, alpha: i32) -> Option<i32> {
    let entry = CACHE.with(|cache| cache[slot(board)].get());
    if entry.player != board.player || entry.opponent != board.opponent {
        return None;
    }
    let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
    if lower > alpha {
        Some(lower)
    } else if upper <= alpha {
        Some(upper)
    } else {
        None
    }
}

/// Records the fail-soft result `score` of a null-window search around `alpha` on `board`: a
/// lower bound if it beat `alpha`, else an upper bound; merged with the bounds already held
/// for the same position, replacing any other.
#[inline]
pub(super) fn store(board: &Board, alpha: i32, score: i32) {
    CACHE.with(|cache| {
        let cell = &cache[slot(board)];
        let mut entry = cell.get();
        if entry.player != board.player || entry.opponent != board.opponent {
            entry = Entry {
                player: board.player,
                opponent: board.opponent,
                ..Entry::EMPTY
            };
        }
        let score = score.clamp(-64, 64) as i8;
        if i32::from(score) > alpha {
            entry.lower = entry.lower.max(score);
        } else {
            entry.upper = entry.upper.min(score);
        }
        cell.set(entry);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(player: u64, opponent: u64) -> Board {
        Board { player, opponent }
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
    fn another_position_in_the_slot_replaces_without_false_hits() {
        let first = board(0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        let second = (1u64..)
            .map(|bits| board(bits, 0x0000_0010_0800_0000 & !bits))
            .find(|b| slot(b) == slot(&first) && *b != first)
            .expect("a colliding position");
        store(&first, 0, 8);
        assert_eq!(probe(&second, 0), None, "the slot holds the other position");
        store(&second, 0, -8);
        assert_eq!(probe(&first, 0), None, "replaced");
        assert_eq!(probe(&second, 0), Some(-8));
    }
}
