//! The order of a deep or small node's moves: fastest first from the children's keys, the
//! table move first, the thread cache's cutoff, and the evaluation's part (static scores
//! weighed in, or shallow searches) from `EVAL_ORDER_MIN_EMPTIES` up.

use super::cache::Slot;
use super::keys::{child_key, child_keys, keys_together, CORNERS, LANES};
use super::last_moves::odd_quadrant_squares;
use super::solver::{shallow_order_depth, Solver, EVAL_ORDER_WEIGHT, SHALLOW_ORDER_MIN_EMPTIES};
use crate::board::{Board, Squares};
use crate::cpu::Isa;
use crate::eval::Evaluator;
use crate::search::api::INFINITY;
use arrayvec::ArrayVec;
use std::ops::ControlFlow;

impl<'c, 'a, E: Evaluator<Board>> Solver<'c, 'a, E> {
    /// Keys the moves of `board` by the evaluation: below `SHALLOW_ORDER_MIN_EMPTIES` the
    /// static evaluation (its version for ordering: the network's linear part) weighed into
    /// the fastest-first key, from there a shallow search.
    #[inline(always)]
    pub(super) fn order_by_evaluation<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        list: &mut MoveEntries,
        empties: u32,
    ) {
        if empties < SHALLOW_ORDER_MIN_EMPTIES {
            let evaluate_child = self
                .searcher
                .ctx
                .evaluator
                .children_for_ordering(isa, board);
            for entry in list.iter_mut() {
                let opponent_score = evaluate_child(usize::from(entry.square), &entry.child);
                entry.key -= EVAL_ORDER_WEIGHT * opponent_score;
            }
        } else {
            self.order_by_shallow_search(list, empties);
        }
    }

    /// Keys the moves by a shallow search, fastest first breaking ties. Its leaves take the
    /// evaluation's version for ordering (the network's linear part: it orders the solver's
    /// moves as well, at the linear weights' cost); the table keeps its results as any
    /// search's, of their depth, which the deeper searches of the same positions replace.
    pub(super) fn order_by_shallow_search(&mut self, list: &mut MoveEntries, empties: u32) {
        let depth = shallow_order_depth(empties);
        self.searcher.ordering_only = true;
        for entry in list.iter_mut() {
            let score = -self
                .searcher
                .pvs(&entry.child, -INFINITY, INFINITY, depth, false);
            entry.key = score * 256 + entry.key.clamp(-255, 255);
        }
        self.searcher.ordering_only = false;
    }
}

/// A move with its ordering key and the position it leads to.
#[derive(Clone, Copy)]
pub(super) struct MoveEntry {
    pub(super) key: i32,
    pub(super) square: u8,
    pub(super) child: Board,
    /// The child's slot in the thread's endgame cache, found by `cache_cutoff` (unset before).
    pub(super) cache_slot: Slot,
}

/// Room for every move of a position (33 is the most known in a legal position).
pub(super) type MoveEntries = ArrayVec<MoveEntry, 36>;

pub(super) const TABLE_MOVE_KEY: i32 = 1 << 24;

/// Appends the moves to `list`, keyed fastest first: few opponent replies (corner replies
/// worst), little potential mobility for the opponent, odd quadrants and corners preferred, and
/// discs made stable at the corners. The children's own parts of the key are computed `LANES`
/// at a time on AVX-512 (`keys`), elsewhere each in the loop that makes the child: one loop
/// over the moves instead of four, each of whose exits is a mispredicted branch (counted by
/// cachegrind on FFO #40-#49: 13% fewer mispredicts and 2.6% fewer instructions, the same
/// nodes). When the node will look its children up in the thread's cache (`cached`), each
/// child's slot is found and prefetched as soon as the child is made, so that the keys' work
/// hides the load (measured against prefetching just before the look-ups: the same nodes,
/// 0.94-0.98x the time on FFO #20-#39 and #40-#49).
#[inline(always)]
pub(super) fn ordered_moves<I: Isa>(
    isa: I,
    board: &Board,
    moves: u64,
    table_move: u8,
    cached: bool,
    list: &mut MoveEntries,
) {
    let first = list.len();
    let odd = odd_quadrant_squares(board.empties());
    let key_of = |square: u8, child_part: i32| {
        let bit = 1u64 << square;
        if square == table_move {
            TABLE_MOVE_KEY
        } else {
            child_part + i32::from(bit & odd != 0) * 4 + i32::from(bit & CORNERS != 0) * 8
        }
    };
    let together = keys_together(isa);
    for square in Squares(moves) {
        let child = board.play_with_flips(square, board.flips_at(isa, square));
        let cache_slot = if cached {
            let slot = Slot::of(&child);
            slot.prefetch();
            slot
        } else {
            Slot::UNSET
        };
        let square = square as u8;
        let key = if together {
            0
        } else {
            key_of(square, child_key(isa, &child))
        };
        list.push(MoveEntry {
            key,
            square,
            child,
            cache_slot,
        });
    }
    if !together {
        return;
    }
    for chunk in list[first..].chunks_mut(LANES) {
        let mut players = [0; LANES];
        let mut opponents = [0; LANES];
        for (lane, entry) in chunk.iter().enumerate() {
            players[lane] = entry.child.player;
            opponents[lane] = entry.child.opponent;
        }
        let keys = child_keys(isa, &players, &opponents, chunk.len());
        for (entry, key) in chunk.iter_mut().zip(keys) {
            entry.key = key_of(entry.square, key);
        }
    }
}

/// The enhanced transposition cutoff from the thread's endgame cache (the slots set by
/// `ordered_moves` with `cached`): `Break` with the score and square of a move whose child's
/// cached bound refutes the null window around `alpha`; otherwise the moves whose cached
/// bounds prove them no better than `alpha` are taken out of `list`, and `Continue` carries the
/// best of their bounds (`-INFINITY` if none).
#[inline(always)]
pub(super) fn cache_cutoff(list: &mut MoveEntries, alpha: i32) -> ControlFlow<(i32, u8), i32> {
    debug_assert!(
        list.iter()
            .all(|entry| entry.cache_slot == Slot::of(&entry.child)),
        "the moves were listed without their cache slots"
    );
    let mut known_best = -INFINITY;
    let mut index = 0;
    while index < list.len() {
        match list[index].cache_slot.probe(-alpha - 1) {
            Some(score) if -score > alpha => {
                return ControlFlow::Break((-score, list[index].square))
            }
            Some(score) => {
                known_best = known_best.max(-score);
                list.swap_remove(index);
            }
            None => index += 1,
        }
    }
    ControlFlow::Continue(known_best)
}

/// Removes and returns the entry with the highest key, the first of equals. Each key is packed
/// with its index into one word, so that the maximum is taken without a branch (5% fewer
/// mispredicts on FFO #40-#49 by cachegrind than comparing the pairs).
#[inline]
pub(super) fn take_best(list: &mut MoveEntries) -> Option<MoveEntry> {
    if list.is_empty() {
        return None;
    }
    let packed = list
        .iter()
        .enumerate()
        .map(|(i, entry)| i64::from(entry.key) << 8 | (255 - i) as i64)
        .fold(i64::MIN, i64::max);
    Some(list.swap_remove(255 - (packed & 255) as usize))
}
