//! The exact endgame solver for Othello: null-window searches to the end of the game, used by
//! the main search wherever its depth reaches the last empty square.
//!
//! Three tiers, by empties:
//! - deep (>= `TABLE_MIN_EMPTIES`): transposition table, stability cutoff, enhanced
//!   transposition cutoff (from the table from `ETC_MIN_EMPTIES`, from the thread's cache
//!   below), table move then fastest-first ordering, weighed with the static
//!   evaluation from `EVAL_ORDER_MIN_EMPTIES` and replaced by shallow searches from
//!   `SHALLOW_ORDER_MIN_EMPTIES` (both with the evaluation's version for ordering, the
//!   network's linear part; evaluations only once the table move has failed to cut, and
//!   none where the table expects a fail low), and a parallel split of the moves
//!   (`SPLIT_MIN_EMPTIES` and up) after the first, or of all of them where the table expects
//!   a fail low;
//! - small: fastest first (fewest opponent replies), parity as a tie-break, from
//!   `FASTEST_FIRST_MIN_EMPTIES` (below it parity order without keys), no table, but
//!   from `CACHE_MIN_EMPTIES` a small per-thread cache of exact bounds (`cache`),
//!   and the enhanced transposition cutoff from it where the children are in its range (a
//!   child whose cached bound settles the window is not searched);
//! - last `LAST_MOVES_EMPTIES`: one function per count of empties, the empty squares handed
//!   down as a list in quadrant parity order, a square tried only next to an opponent disc,
//!   the stability cutoff at 4 and 5 empties for high alphas; the last square only counts
//!   flips, the opponent's only where the window needs them.
//!
//! In the selective iterations that precede the exact one (see `root::Step`), deep nodes
//! also try a probable cut, and what they store from `PROBABLE_CUT_MIN_EMPTIES` up is marked
//! selective in the table so the exact iteration takes only their moves, never their bounds.
//!
//! The files, in reading order: `solver` (one thread's [`Solver`] and where each tier starts),
//! `cache` (each thread's cache of exact bounds), `keys` (the children's fastest-first keys,
//! eight at a time on AVX-512), `last_moves` (the last empties), `move_order` (the moves' keys
//! and the evaluation's part in them), and this one (the dispatch, the small and deep tiers,
//! probable cuts and splits).

use super::api::INFINITY;
use super::parallel::{in_order, Abort, SharedBest};
use super::probcut::{endgame_cut_bounds, endgame_shallow_depth, PROBABLE_CUT_MIN_EMPTIES};
use super::searcher::Searcher;
use super::tt::NO_MOVE;
use crate::board::{Board, Squares};
use crate::cpu::{per_level, Isa, IsaDetected};
use crate::eval::Evaluator;
use std::cmp::Reverse;
use std::ops::ControlFlow;

mod cache;
mod keys;
mod last_moves;
mod move_order;
mod solver;

use cache::Slot;
use keys::CORNERS;
use last_moves::odd_quadrant_squares;
use move_order::{cache_cutoff, ordered_moves, take_best, MoveEntries, MoveEntry, TABLE_MOVE_KEY};
use solver::{
    stability_bound, Solver, CACHE_MIN_EMPTIES, ETC_MIN_EMPTIES, FASTEST_FIRST_MIN_EMPTIES,
    SMALL_ETC_MIN_EMPTIES, SPLIT_MIN_EMPTIES, TABLE_MIN_EMPTIES,
};
pub use solver::{EVAL_ORDER_MIN_EMPTIES, LAST_MOVES_EMPTIES, SHALLOW_ORDER_MIN_EMPTIES};

/// The exact score of `board` against the null window (`alpha`, `alpha + 1`), fail-soft.
pub(super) fn null_window_solve<E: Evaluator<Board>>(
    searcher: &mut Searcher<'_, '_, Board, E>,
    board: &Board,
    alpha: i32,
) -> i32 {
    let mut solver = Solver {
        searcher: Searcher::below(searcher.ctx, searcher.abort),
    };
    solver.solve(IsaDetected, board, alpha, board.empty_count())
}

impl<'c, 'a, E: Evaluator<Board>> Solver<'c, 'a, E> {
    /// Dispatches by the number of empties.
    #[inline(always)]
    fn solve<I: Isa>(&mut self, isa: I, board: &Board, alpha: i32, empties: u32) -> i32 {
        if empties >= TABLE_MIN_EMPTIES {
            self.solve_deep_at(isa, board, alpha, empties)
        } else if empties > LAST_MOVES_EMPTIES {
            self.solve_small(isa, board, alpha, empties)
        } else {
            self.solve_last_at(isa, board, alpha, empties)
        }
    }

    per_level! {
        /// The last few empties ([`Self::solve_last_body`]).
        fn solve_last[solve_last_at, solve_last_v4, solve_last_v3, solve_last_baseline](
            &mut self, board: &Board, alpha: i32, empties: u32
        ) -> i32 => solve_last_body;

        /// Four empties ([`Self::last_4_body`]).
        fn last_4[last_4_at, last_4_v4, last_4_v3, last_4_baseline](
            &mut self, board: &Board, alpha: i32, squares: [u8; 4]
        ) -> i32 => last_4_body;

        /// Three empties ([`Self::last_3_body`]).
        fn last_3[last_3_at, last_3_v4, last_3_v3, last_3_baseline](
            &mut self, board: &Board, alpha: i32, squares: [u8; 3]
        ) -> i32 => last_3_body;

        /// A node of middle size without the cache ([`Self::search_small_body`]).
        fn search_small[search_small_at, search_small_v4, search_small_v3, search_small_baseline](
            &mut self, board: &Board, alpha: i32, empties: u32
        ) -> i32 => search_small_body;

        /// A large node ([`Self::solve_deep_body`]).
        fn solve_deep[solve_deep_at, solve_deep_v4, solve_deep_v3, solve_deep_baseline](
            &mut self, board: &Board, alpha: i32, empties: u32
        ) -> i32 => solve_deep_body;
    }

    /// Middle sizes: the thread's endgame cache from `CACHE_MIN_EMPTIES`, then the search.
    #[inline(always)]
    fn solve_small<I: Isa>(&mut self, isa: I, board: &Board, alpha: i32, empties: u32) -> i32 {
        if empties < CACHE_MIN_EMPTIES {
            return self.search_small_at(isa, board, alpha, empties);
        }
        let slot = Slot::of(board);
        if let Some(score) = slot.probe(alpha) {
            self.searcher.count_node();
            return score;
        }
        self.search_small_stored(isa, board, alpha, empties, slot)
    }

    /// A node in the cache's range whose `slot` has been looked up to no avail: the search,
    /// its result kept in the cache.
    #[inline(always)]
    fn search_small_stored<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        empties: u32,
        slot: Slot,
    ) -> i32 {
        let score = self.search_small_at(isa, board, alpha, empties);
        slot.store(alpha, score);
        score
    }

    /// The score of a move's child from a node of `empties` searched against `alpha`, from
    /// the node's side; `probed` when the node has looked the child up in the thread's cache
    /// already (`cache_cutoff`), so that it is not looked up again.
    #[inline(always)]
    fn solve_child<I: Isa>(
        &mut self,
        isa: I,
        entry: &MoveEntry,
        alpha: i32,
        empties: u32,
        probed: bool,
    ) -> i32 {
        let child = &entry.child;
        if probed {
            -self.search_small_stored(isa, child, -alpha - 1, empties - 1, entry.cache_slot)
        } else {
            -self.solve(isa, child, -alpha - 1, empties - 1)
        }
    }

    /// Fastest first (no sorting for a single move; parity order below
    /// `FASTEST_FIRST_MIN_EMPTIES`), no table.
    #[inline(always)]
    fn search_small_body<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        empties: u32,
    ) -> i32 {
        self.searcher.count_node();
        let moves = board.moves_at(isa);
        if moves == 0 {
            let passed = board.pass();
            if passed.moves_at(isa) == 0 {
                return board.final_score();
            }
            return -self.solve_small(isa, &passed, -alpha - 1, empties);
        }
        if let Some(bound) = stability_bound(board, alpha) {
            return bound;
        }
        if moves & (moves - 1) == 0 {
            let square = moves.trailing_zeros() as usize;
            let child = board.play_with_flips(square, board.flips_at(isa, square));
            return -self.solve(isa, &child, -alpha - 1, empties - 1);
        }
        if empties < FASTEST_FIRST_MIN_EMPTIES {
            return self.search_in_parity_order(isa, board, alpha, empties, moves);
        }
        // The children are looked up in the cache once, here, not again when searched.
        let probed = empties >= SMALL_ETC_MIN_EMPTIES;
        let mut list = MoveEntries::new();
        ordered_moves(isa, board, moves, NO_MOVE, probed, &mut list);
        let mut best = -INFINITY;
        if probed {
            match cache_cutoff(&mut list, alpha) {
                ControlFlow::Break((score, _)) => return score,
                ControlFlow::Continue(known_best) => best = known_best,
            }
        }
        while let Some(entry) = take_best(&mut list) {
            let score = self.solve_child(isa, &entry, alpha, empties, probed);
            if score > best {
                best = score;
                if score > alpha {
                    return score;
                }
            }
        }
        best
    }

    /// The `moves` in parity order without keys: corners of odd quadrants, the rest of the
    /// odd quadrants, then the even ones.
    #[inline(always)]
    fn search_in_parity_order<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        empties: u32,
        moves: u64,
    ) -> i32 {
        let odd = odd_quadrant_squares(board.empties());
        let mut best = -INFINITY;
        for group in [moves & odd & CORNERS, moves & odd & !CORNERS, moves & !odd] {
            for square in Squares(group) {
                let child = board.play_with_flips(square, board.flips_at(isa, square));
                let score = -self.solve(isa, &child, -alpha - 1, empties - 1);
                if score > best {
                    best = score;
                    if score > alpha {
                        return score;
                    }
                }
            }
        }
        best
    }

    /// Large positions: table, stability, enhanced transposition cutoff, parallel split.
    #[inline(always)]
    fn solve_deep_body<I: Isa>(&mut self, isa: I, board: &Board, alpha: i32, empties: u32) -> i32 {
        self.searcher.count_node();
        if self.searcher.stopped() {
            return alpha;
        }
        let moves = board.moves_at(isa);
        if moves == 0 {
            let passed = board.pass();
            if passed.moves_at(isa) == 0 {
                return board.final_score();
            }
            return -self.solve_deep_at(isa, &passed, -alpha - 1, empties);
        }
        if let Some(bound) = stability_bound(board, alpha) {
            return bound;
        }
        let tt = self.searcher.ctx.tt;
        let selectivity = self.searcher.ctx.selectivity();
        let key = board.hash_key();
        let mut table_move = NO_MOVE;
        // A bound at or below alpha from any earlier search, even a shallower or selective one:
        // the node will probably fail low, every move gets searched and their order matters
        // little, so the ordering searches are skipped.
        let mut expects_fail_low = false;
        if let Some(entry) = tt.probe(key) {
            table_move = entry.best_move;
            expects_fail_low = i32::from(entry.upper) <= alpha;
            if entry.covers(empties, selectivity) {
                if i32::from(entry.lower) > alpha {
                    return i32::from(entry.lower);
                }
                if i32::from(entry.upper) <= alpha {
                    return i32::from(entry.upper);
                }
            }
        }
        if selectivity > 0 && empties >= PROBABLE_CUT_MIN_EMPTIES {
            if let Some(score) = self.probable_cut(board, alpha, empties, selectivity) {
                return score;
            }
        }
        // The children are in the thread's endgame cache's range instead: the same cutoff from
        // there, and no second look-up when they are searched.
        let probed = empties < ETC_MIN_EMPTIES;
        let mut list = MoveEntries::new();
        ordered_moves(isa, board, moves, table_move, probed, &mut list);
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        if probed {
            match cache_cutoff(&mut list, alpha) {
                ControlFlow::Break((score, square)) => {
                    self.store(key, empties, alpha, score, square);
                    return score;
                }
                ControlFlow::Continue(known_best) => best = known_best,
            }
        } else {
            for entry in &list {
                tt.prefetch(entry.child.hash_key());
            }
            // Enhanced transposition cutoff: a child already known to refute the bound.
            for entry in &list {
                if let Some(known) = tt.probe(entry.child.hash_key()) {
                    let score = -i32::from(known.upper);
                    if known.covers(empties - 1, selectivity) && score > alpha {
                        self.store(key, empties, alpha, score, entry.square);
                        return score;
                    }
                }
            }
        }
        // The ordering by evaluation waits until the table move, if any, has failed to cut.
        let mut unordered =
            empties >= EVAL_ORDER_MIN_EMPTIES && list.len() > 1 && !expects_fail_low;
        let table_move_first = list.iter().any(|e| e.key == TABLE_MOVE_KEY);
        // Young brothers wait for the first move to fail to cut, except where the node is
        // expected to fail low: every move will be searched then, so the split starts at once.
        let split_after = usize::from(!expects_fail_low);

        let mut searched = 0;
        while !list.is_empty() {
            if unordered && !(searched == 0 && table_move_first) {
                self.order_by_evaluation(isa, board, &mut list, empties);
                unordered = false;
            }
            if searched == split_after
                && empties >= SPLIT_MIN_EMPTIES
                && self.searcher.ctx.parallel()
            {
                let (score, square) = self.split(&mut list, alpha, empties);
                if score > best {
                    best = score;
                    best_move = square;
                }
                break;
            }
            let Some(entry) = take_best(&mut list) else {
                break;
            };
            let score = self.solve_child(isa, &entry, alpha, empties, probed);
            searched += 1;
            if score > best {
                best = score;
                best_move = entry.square;
                if score > alpha {
                    break;
                }
            }
        }
        if self.searcher.stopped() {
            return alpha;
        }
        self.store(key, empties, alpha, best, best_move);
        best
    }

    /// Stores a null-window result around `alpha`, marked with the selectivity its tree may
    /// carry.
    #[inline]
    fn store(&self, key: u64, empties: u32, alpha: i32, score: i32, best_move: u8) {
        let ctx = self.searcher.ctx;
        let selectivity = ctx.result_selectivity(empties, empties);
        ctx.tt.store(
            key,
            empties,
            selectivity,
            alpha,
            alpha + 1,
            score,
            best_move,
        );
    }

    /// Probable cut: a shallow search that clears the null window by the level's margin (the
    /// fitted deviation of the exact score from it, times the level's confidence) is taken as
    /// the answer (`alpha + 1` or `alpha`). Only in the selective iterations.
    fn probable_cut(
        &mut self,
        board: &Board,
        alpha: i32,
        empties: u32,
        selectivity: u8,
    ) -> Option<i32> {
        let depth = endgame_shallow_depth(empties);
        let (high, low) =
            endgame_cut_bounds(self.searcher.ctx.probcut, empties, selectivity, alpha);
        if let Some(high) = high {
            if self.searcher.pvs(board, high - 1, high, depth, false) >= high {
                return Some(alpha + 1);
            }
        }
        if let Some(low) = low {
            if self.searcher.pvs(board, low, low + 1, depth, false) <= low {
                return Some(alpha);
            }
        }
        None
    }

    /// Searches the remaining moves of a node in parallel (all of them, or those after the
    /// first); the first fail high aborts the others, down to the bottom of their subtrees.
    fn split(&mut self, rest: &mut MoveEntries, alpha: i32, empties: u32) -> (i32, u8) {
        rest.sort_by_key(|e| Reverse(e.key));
        let abort = Abort::new(self.searcher.abort);
        let best = SharedBest::new(-INFINITY, NO_MOVE);
        let ctx = self.searcher.ctx;
        in_order(
            rest,
            || Solver {
                searcher: Searcher::below(ctx, Some(&abort)),
            },
            |solver, entry| {
                if solver.searcher.stopped() {
                    return ControlFlow::Break(());
                }
                let score = -solver.solve(IsaDetected, &entry.child, -alpha - 1, empties - 1);
                if solver.searcher.stopped() && score <= alpha {
                    return ControlFlow::Break(());
                }
                best.offer(score, entry.square);
                if score > alpha {
                    abort.raise();
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            },
        );
        best.get()
    }
}

#[cfg(test)]
mod tests {
    use super::last_moves::solve_last_square;
    use super::*;
    use crate::eval::SimpleEvaluator;
    use crate::search::tt::TranspositionTable;
    use crate::search::{Limits, SearchContext, SearchOptions};
    use std::sync::atomic::AtomicBool;

    /// The position after playing the lowest legal square (or passing) until `empties` remain.
    fn lowest_square_game(empties: u32) -> Board {
        let mut board = Board::START;
        while board.empty_count() > empties {
            let moves = board.moves();
            board = if moves == 0 {
                assert!(board.pass().moves() != 0, "the game ended early");
                board.pass()
            } else {
                board.play(moves.trailing_zeros() as usize).unwrap()
            };
        }
        board
    }

    /// Plain negamax to the end, no pruning.
    fn negamax(board: &Board) -> i32 {
        let moves = board.moves();
        if moves == 0 {
            let passed = board.pass();
            return if passed.moves() == 0 {
                board.final_score()
            } else {
                -negamax(&passed)
            };
        }
        Squares(moves)
            .map(|sq| -negamax(&board.play(sq).unwrap()))
            .max()
            .unwrap()
    }

    /// Boards with one empty square, random discs on the rest, against every window: the
    /// last square's score is exact wherever it fails high, and a true upper bound where it
    /// fails low (without the opponent's move when the side to move cannot play).
    #[test]
    fn the_last_square_is_exact_or_a_bound_on_the_right_side() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut bounds_short_of_exact = 0;
        for _ in 0..3000 {
            let square = (crate::board::xorshift(&mut state) % 64) as usize;
            let occupied = !(1u64 << square);
            let player = crate::board::xorshift(&mut state) & occupied;
            let board = Board::new(player, occupied & !player);
            let exact = negamax(&board);
            for alpha in -65..=64 {
                let score = solve_last_square(&board, square, alpha);
                if exact > alpha {
                    assert_eq!(score, exact, "{board:?} at {alpha}");
                } else {
                    assert!(
                        score <= alpha && score >= exact,
                        "{board:?} at {alpha}: {score}"
                    );
                    bounds_short_of_exact += i32::from(score != exact);
                }
            }
        }
        assert!(bounds_short_of_exact > 0, "the shortcut was never taken");
    }

    #[test]
    fn the_exact_solver_never_trusts_selective_bounds() {
        // The root and its children both in the table's range.
        let empties = TABLE_MIN_EMPTIES + 1;
        let mut board = lowest_square_game(empties);
        if board.moves() == 0 {
            board = board.pass();
        }
        assert!(board.moves() != 0, "the test position must have moves");
        let truth = negamax(&board);
        let tt = TranspositionTable::new(1);
        // Selective entries that lie: the root and every child claim impossible exact scores.
        let lie = if truth > 0 { -64 } else { 64 };
        tt.store(board.hash_key(), empties, 1, -64, 64, lie, NO_MOVE);
        for square in Squares(board.moves()) {
            let child = board.play(square).unwrap();
            tt.store(child.hash_key(), empties - 1, 2, -64, 64, lie, NO_MOVE);
        }
        let stop = AtomicBool::new(false);
        let context = SearchContext::new(
            &tt,
            &SimpleEvaluator,
            &stop,
            SearchOptions::default(),
            &Limits::default(),
            12,
        );
        let mut searcher = Searcher::new(&context);
        for alpha in truth - 3..=truth + 2 {
            let score = null_window_solve(&mut searcher, &board, alpha);
            if score > alpha {
                assert!(
                    truth >= score,
                    "fail high at {alpha}: {score}, truth {truth}"
                );
            } else {
                assert!(
                    truth <= score,
                    "fail low at {alpha}: {score}, truth {truth}"
                );
            }
        }
    }
}
