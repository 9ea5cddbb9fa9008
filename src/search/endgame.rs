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
//! - small: fastest first (fewest opponent replies), parity as a tie-break, no table, but
//!   from `CACHE_MIN_EMPTIES` a small per-thread cache of exact bounds (`endgame_cache`),
//!   and the enhanced transposition cutoff from it where the children are in its range (a
//!   child whose cached bound settles the window is not searched);
//! - last `LAST_MOVES_EMPTIES`: one function per count of empties, the empty squares handed
//!   down as a list in quadrant parity order, a square tried only next to an opponent disc,
//!   the stability cutoff at 4 and 5 empties for high alphas; the last square only counts
//!   flips, the opponent's only where the window needs them.
//!
//! In the selective iterations that precede the exact one (see `midgame::Step`), deep nodes
//! also try a probable cut, and what they store from `PROBABLE_CUT_MIN_EMPTIES` up is marked
//! selective in the table so the exact iteration takes only their moves, never their bounds.

use super::api::INFINITY;
use super::endgame_cache::Slot;
use super::endgame_keys::{child_keys, CORNERS, LANES};
use super::parallel::{in_order, Abort, SharedBest};
use super::probcut::{endgame_cut_bounds, endgame_shallow_depth, PROBABLE_CUT_MIN_EMPTIES};
use super::searcher::Searcher;
use super::tt::NO_MOVE;
use crate::board::{adjacent_empties, flips_at, last_flip_count, Board, Squares};
use crate::cpu::{per_level, Isa, IsaDetected};
use crate::eval::Evaluator;
use arrayvec::ArrayVec;
use std::cmp::Reverse;
use std::ops::ControlFlow;

/// From this many empties the solver uses the transposition table; the thread's endgame cache
/// holds the smaller nodes (measured against 11: the same nodes within 1% and 0.95x the time
/// on FFO #20-#39 and #40-#49; from 13, 4% more nodes).
pub const TABLE_MIN_EMPTIES: u32 = 12;
/// From this many empties the solver looks its children up in the table for a transposition
/// cutoff: the children of a node of `TABLE_MIN_EMPTIES` are below the table's range (they
/// are looked up in the thread's endgame cache instead), and looking them up in the table
/// costs memory traffic for nothing (measured: 4% of the time on FFO #20-#39, 8% on #40-#49,
/// the same nodes).
const ETC_MIN_EMPTIES: u32 = TABLE_MIN_EMPTIES + 1;
/// From this many empties the moves after the first (all of them at a node the table expects
/// to fail low) are searched in parallel.
pub const SPLIT_MIN_EMPTIES: u32 = 15;
/// From this many empties the moves after the table move are also keyed by the evaluation of
/// the position each leads to, the children evaluated together from the parent's pattern
/// indices (measured against 14: 6-7% fewer nodes on FFO #20-#39 and #40-#49 in the same
/// time; from 11, 2% fewer again but 3-5% more time).
pub const EVAL_ORDER_MIN_EMPTIES: u32 = 12;
/// Discs of evaluation worth one unit of the fastest-first key (16 units: one opponent reply).
const EVAL_ORDER_WEIGHT: i32 = 2;
/// From this many empties moves are ordered by a shallow search with the evaluation instead.
pub const SHALLOW_ORDER_MIN_EMPTIES: u32 = 18;

/// Depth of the ordering search at `empties` (at least `SHALLOW_ORDER_MIN_EMPTIES`): one ply
/// more every three empties.
fn shallow_order_depth(empties: u32) -> u32 {
    (empties - 12) / 3
}

/// At or below this many empties moves go in parity order without sorting.
pub const LAST_MOVES_EMPTIES: u32 = 5;

/// The lowest alpha at which nodes of 4 and 5 empties try the stability cutoff: below it the
/// opponent seldom has the stable discs to cut, and the test costs more than it saves.
/// Measured: on FFO #48 the cutoff at 4 and 5 empties takes 32% of the nodes and 16% of the
/// instructions off; on the smaller #21-#36 it adds 3% instructions with no floor and 0.5%
/// with floors of 6 and 8, but those raise FFO #45 #48 #49 #51 from 630M nodes to 649M
/// (2 and 4: 633M, and 1% more instructions on #21-#36).
const LAST_STABILITY_MIN_ALPHA: [i32; 2] = [2, 4];

/// From this many empties the small tier keeps its results in the thread's endgame cache
/// (measured on an Intel Xeon: from 6 against 9, 14% fewer nodes and 6-7% less time on FFO
/// #20-#39 and #40-#49; the lowest size the small tier handles).
pub const CACHE_MIN_EMPTIES: u32 = 6;
/// From this many empties, where the children are in the cache's range, the small tier looks
/// them up there before searching any (measured: 4-5% fewer nodes on FFO #20-#39 and
/// #40-#49 in the same time).
const SMALL_ETC_MIN_EMPTIES: u32 = CACHE_MIN_EMPTIES + 1;
// The children of the table's smallest nodes are in the cache's range (their cutoff above).
const _: () = assert!(TABLE_MIN_EMPTIES > CACHE_MIN_EMPTIES);
// The cache holds only full-width results: no probable cut in its range or below.
const _: () = assert!(PROBABLE_CUT_MIN_EMPTIES >= TABLE_MIN_EMPTIES);

/// The four 4x4 quadrants; an odd number of empties in a quadrant favours moving there first.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0F0F_0F0F,
    0x0000_0000_F0F0_F0F0,
    0x0F0F_0F0F_0000_0000,
    0xF0F0_F0F0_0000_0000,
];

/// The quadrant (0-3) of a square.
#[inline]
fn quadrant(square: u8) -> u8 {
    (square >> 2 & 1) | (square >> 4 & 2)
}

/// The empty `squares` of `board`, those in quadrants with an odd number of empties first.
#[inline(always)]
fn parity_sorted<const N: usize>(board: &Board, squares: [u8; N]) -> [u8; N] {
    let odd = odd_quadrant_squares(board.empties());
    let mut ordered = squares;
    ordered.sort_by_key(|&square| odd & (1u64 << square) == 0);
    ordered
}

/// `squares` without the one at `index`, the others in order (`N` is one less than its
/// length).
#[inline]
fn without<const N: usize>(squares: &[u8], index: usize) -> [u8; N] {
    let mut rest = [0; N];
    for (i, slot) in rest.iter_mut().enumerate() {
        *slot = squares[i + usize::from(i >= index)];
    }
    rest
}

/// Empty squares lying in quadrants with an odd number of empties.
#[inline]
fn odd_quadrant_squares(empties: u64) -> u64 {
    QUADRANTS
        .iter()
        .filter(|&&q| (empties & q).count_ones() & 1 == 1)
        .fold(0, |acc, &q| acc | (empties & q))
}

/// The eight squares around each square: a move can flip only if one of them holds an
/// opponent disc, which is cheaper to test than computing the flips.
static NEIGHBOURS: [u64; 64] = {
    let mut masks = [0u64; 64];
    let mut square = 0;
    while square < 64 {
        masks[square] = adjacent_empties(1 << square, !(1 << square));
        square += 1;
    }
    masks
};

/// The discs `player` flips on the empty `square`, zero when the move is illegal.
#[inline]
fn flips_if_any<I: Isa>(isa: I, square: usize, player: u64, opponent: u64) -> u64 {
    if NEIGHBOURS[square] & opponent == 0 {
        0
    } else {
        flips_at(isa, square, player, opponent)
    }
}

/// The score of a board with one empty square `square` against the null window (`alpha`,
/// `alpha + 1`), fail-soft: exact, except where the side to move cannot play there and the
/// score it would have if the opponent could not either already fails low (the opponent's
/// move only lowers it), which is returned as the bound without looking at that move.
#[inline(always)]
fn solve_last_square(board: &Board, square: usize, alpha: i32) -> i32 {
    let player = board.player_count() as i32;
    let flipped = last_flip_count(square, board.player) as i32;
    if flipped > 0 {
        return 2 * (player + flipped) - 62;
    }
    // Neither side plays: the empty square goes to the winner.
    let diff = 2 * player - 63;
    let unplayed = if diff > 0 { diff + 1 } else { diff - 1 };
    if unplayed <= alpha {
        return unplayed;
    }
    let flipped = last_flip_count(square, board.opponent) as i32;
    if flipped > 0 {
        return 2 * (player - flipped) - 64;
    }
    unplayed
}

/// A null-window endgame search of one thread, below the splits of its searcher.
struct Solver<'c, 'a, E> {
    searcher: Searcher<'c, 'a, Board, E>,
}

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

    /// The last few empties: no table, no move generation (each empty square is tried for
    /// flips), the empty squares handed down as a list in quadrant parity order.
    #[inline(always)]
    fn solve_last_body<I: Isa>(&mut self, isa: I, board: &Board, alpha: i32, empties: u32) -> i32 {
        let empty_squares = board.empties();
        let odd = odd_quadrant_squares(empty_squares);
        let mut squares = [0u8; LAST_MOVES_EMPTIES as usize];
        let mut count = 0;
        for group in [empty_squares & odd, empty_squares & !odd] {
            for square in Squares(group) {
                squares[count] = square as u8;
                count += 1;
            }
        }
        match empties {
            1 => {
                self.searcher.count_node();
                solve_last_square(board, usize::from(squares[0]), alpha)
            }
            2 => self.last_2(isa, board, alpha, [squares[0], squares[1]]),
            3 => self.last_3_at(isa, board, alpha, [squares[0], squares[1], squares[2]]),
            4 => self.last_4_at(
                isa,
                board,
                alpha,
                [squares[0], squares[1], squares[2], squares[3]],
            ),
            _ => self.last_5(isa, board, alpha, squares),
        }
    }

    /// The stability cutoff of the last empties, tried only from `LAST_STABILITY_MIN_ALPHA`.
    #[inline(always)]
    fn last_stability_bound(&mut self, board: &Board, alpha: i32, empties: usize) -> Option<i32> {
        if alpha < LAST_STABILITY_MIN_ALPHA[empties - 4] {
            return None;
        }
        let bound = stability_bound(board, alpha)?;
        self.searcher.count_node();
        Some(bound)
    }

    /// Five empties: the stability cutoff, then each child's four squares put back in parity
    /// order.
    #[inline]
    fn last_5<I: Isa>(&mut self, isa: I, board: &Board, alpha: i32, squares: [u8; 5]) -> i32 {
        if let Some(bound) = self.last_stability_bound(board, alpha, 5) {
            return bound;
        }
        self.last_moves(
            isa,
            board,
            alpha,
            &squares,
            #[inline(always)]
            |solver, child, child_alpha, played| {
                let rest = parity_sorted(child, without(&squares, played));
                solver.last_4_at(isa, child, child_alpha, rest)
            },
        )
    }

    /// Four empties: the stability cutoff, then the squares in the order given.
    #[inline(always)]
    fn last_4_body<I: Isa>(&mut self, isa: I, board: &Board, alpha: i32, squares: [u8; 4]) -> i32 {
        if let Some(bound) = self.last_stability_bound(board, alpha, 4) {
            return bound;
        }
        self.last_moves(
            isa,
            board,
            alpha,
            &squares,
            #[inline(always)]
            |solver, child, child_alpha, played| {
                solver.last_3_at(isa, child, child_alpha, without(&squares, played))
            },
        )
    }

    /// Three empties: the square alone in its quadrant, if one is, goes first.
    #[inline(always)]
    fn last_3_body<I: Isa>(&mut self, isa: I, board: &Board, alpha: i32, squares: [u8; 3]) -> i32 {
        let [a, b, c] = squares;
        let ordered = match (quadrant(a) == quadrant(b), quadrant(a) == quadrant(c)) {
            (true, false) => [c, a, b],
            (false, true) => [b, a, c],
            _ => squares,
        };
        self.last_moves(
            isa,
            board,
            alpha,
            &ordered,
            #[inline(always)]
            |solver, child, child_alpha, played| {
                solver.last_2(isa, child, child_alpha, without(&ordered, played))
            },
        )
    }

    /// Two empties: each move leaves one square to score.
    #[inline]
    fn last_2<I: Isa>(&mut self, isa: I, board: &Board, alpha: i32, squares: [u8; 2]) -> i32 {
        self.last_moves(
            isa,
            board,
            alpha,
            &squares,
            #[inline(always)]
            |_, child, child_alpha, played| {
                solve_last_square(child, usize::from(squares[1 - played]), child_alpha)
            },
        )
    }

    /// A node of the last empties, `squares` tried in order: the best score of the side to
    /// move (fail-soft), of the opponent if it must pass, or the final score. `child_score`
    /// gives a child's score from the child's side, against the child's window.
    #[inline(always)]
    fn last_moves<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        squares: &[u8],
        child_score: impl Fn(&mut Self, &Board, i32, usize) -> i32,
    ) -> i32 {
        if let Some(score) = self.try_squares(isa, board, alpha, squares, &child_score) {
            return score;
        }
        match self.try_squares(isa, &board.pass(), -alpha - 1, squares, &child_score) {
            Some(score) => -score,
            None => board.final_score(),
        }
    }

    /// The best score among the side to move's moves on `squares` (fail-soft), or `None` if
    /// it has none.
    #[inline(always)]
    fn try_squares<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        squares: &[u8],
        child_score: &impl Fn(&mut Self, &Board, i32, usize) -> i32,
    ) -> Option<i32> {
        self.searcher.count_node();
        let mut best = None;
        for (index, &square) in squares.iter().enumerate() {
            let square = usize::from(square);
            let flipped = flips_if_any(isa, square, board.player, board.opponent);
            if flipped == 0 {
                continue;
            }
            let child = board.play_with_flips(square, flipped);
            let score = -child_score(self, &child, -alpha - 1, index);
            if score > alpha {
                return Some(score);
            }
            best = Some(best.map_or(score, |b: i32| b.max(score)));
        }
        best
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

    /// Fastest first (no sorting for a single move), no table.
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
        let mut list = MoveEntries::new();
        ordered_moves(isa, board, moves, NO_MOVE, &mut list);
        let mut best = -INFINITY;
        // The children are looked up in the cache once, here, not again when searched.
        let probed = empties >= SMALL_ETC_MIN_EMPTIES;
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
        let mut list = MoveEntries::new();
        ordered_moves(isa, board, moves, table_move, &mut list);
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        // The children are in the thread's endgame cache's range instead: the same cutoff from
        // there, and no second look-up when they are searched.
        let probed = empties < ETC_MIN_EMPTIES;
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

    /// Keys the moves of `board` by the evaluation: below `SHALLOW_ORDER_MIN_EMPTIES` the
    /// static evaluation (its version for ordering: the network's linear part) weighed into
    /// the fastest-first key, from there a shallow search.
    #[inline(always)]
    fn order_by_evaluation<I: Isa>(
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
    fn order_by_shallow_search(&mut self, list: &mut MoveEntries, empties: u32) {
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

/// A move with its ordering key and the position it leads to.
#[derive(Clone, Copy)]
struct MoveEntry {
    key: i32,
    square: u8,
    child: Board,
    /// The child's slot in the thread's endgame cache, found by `cache_cutoff` (unset before).
    cache_slot: Slot,
}

/// Room for every move of a position (33 is the most known in a legal position).
type MoveEntries = ArrayVec<MoveEntry, 36>;

const TABLE_MOVE_KEY: i32 = 1 << 24;

/// Appends the moves to `list`, keyed fastest first: few opponent replies (corner replies
/// worst), little potential mobility for the opponent, odd quadrants and corners preferred, and
/// discs made stable at the corners; the children's own parts of the key are computed `LANES`
/// at a time (`endgame_keys`).
#[inline(always)]
fn ordered_moves<I: Isa>(
    isa: I,
    board: &Board,
    moves: u64,
    table_move: u8,
    list: &mut MoveEntries,
) {
    let first = list.len();
    for square in Squares(moves) {
        let child = board.play_with_flips(square, board.flips_at(isa, square));
        list.push(MoveEntry {
            key: 0,
            square: square as u8,
            child,
            cache_slot: Slot::UNSET,
        });
    }
    let odd = odd_quadrant_squares(board.empties());
    for chunk in list[first..].chunks_mut(LANES) {
        let mut players = [0; LANES];
        let mut opponents = [0; LANES];
        for (lane, entry) in chunk.iter().enumerate() {
            players[lane] = entry.child.player;
            opponents[lane] = entry.child.opponent;
        }
        let keys = child_keys(isa, &players, &opponents, chunk.len());
        for (entry, key) in chunk.iter_mut().zip(keys) {
            let bit = 1u64 << entry.square;
            entry.key = if entry.square == table_move {
                TABLE_MOVE_KEY
            } else {
                key + i32::from(bit & odd != 0) * 4 + i32::from(bit & CORNERS != 0) * 8
            };
        }
    }
}

/// The enhanced transposition cutoff from the thread's endgame cache: `Break` with the score
/// and square of a move whose child's cached bound refutes the null window around `alpha`;
/// otherwise the moves whose cached bounds prove them no better than `alpha` are taken out of
/// `list`, and `Continue` carries the best of their bounds (`-INFINITY` if none).
#[inline(always)]
fn cache_cutoff(list: &mut MoveEntries, alpha: i32) -> ControlFlow<(i32, u8), i32> {
    for entry in list.iter_mut() {
        entry.cache_slot = Slot::of(&entry.child);
        entry.cache_slot.prefetch();
    }
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

/// Removes and returns the entry with the highest key.
#[inline]
fn take_best(list: &mut MoveEntries) -> Option<MoveEntry> {
    let best = (0..list.len()).max_by_key(|&i| (list[i].key, Reverse(i)))?;
    Some(list.swap_remove(best))
}

/// An upper bound from the opponent's stable discs that already fails low, if any. Computed
/// only when the bound could reach `alpha` at all.
#[inline(always)]
fn stability_bound(board: &Board, alpha: i32) -> Option<i32> {
    if alpha < 64 - 2 * board.opponent_count() as i32 {
        return None;
    }
    let bound = 64 - 2 * board.stable_opponent_discs().count_ones() as i32;
    (bound <= alpha).then_some(bound)
}

#[cfg(test)]
mod tests {
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
