//! What the search needs from a game: the [`SearchNode`] trait, and its implementation for
//! Othello's [`Board`]. The alpha-beta is written once against the trait, so the same code
//! searches Othello and the small trees of the tests.

use super::endgame;
use super::midgame::Searcher;
use crate::board::Board;
use crate::eval::Evaluator;

/// A game position the search can explore. Moves are identified by numbers 0..64 so that the
/// legal moves of a node fit in one `u64`.
pub trait SearchNode: Copy + Send + Sync {
    /// The legal moves of the side to move, as a set of move numbers.
    fn moves(&self) -> u64;
    /// The position after move `mv` (a member of [`SearchNode::moves`]).
    fn play(&self, mv: usize) -> Self;
    /// The position after the side to move passes (when it has no move).
    fn pass(&self) -> Self;
    /// The exact final score for the side to move, when neither side can move.
    fn final_score(&self) -> i32;
    /// A key for the transposition table.
    fn key(&self) -> u64;
    /// Moves left until the game is surely over (Othello: empty squares); a search at least
    /// this deep is exact.
    fn moves_left(&self) -> u32;
    /// A cheap guess of how good `mv` (leading to `child`) is, for move ordering: higher is
    /// searched first.
    fn ordering_hint(&self, mv: usize, child: &Self) -> i32;

    /// A dedicated exact solver, if the game has one: the final score of `node` against the
    /// null window (`alpha`, `alpha + 1`), fail-soft. Called where the search reaches the end
    /// of the game; `None` leaves it to the general search.
    fn solve_null_window<E: Evaluator<Self>>(
        _searcher: &mut Searcher<'_, '_, Self, E>,
        _node: &Self,
        _alpha: i32,
    ) -> Option<i32> {
        None
    }
}

/// Square priorities for ordering: corners first, then edges and centre, X- and C-squares last.
const SQUARE_PRIORITY: [i8; 64] = [
    9, 1, 6, 5, 5, 6, 1, 9, //
    1, 0, 3, 3, 3, 3, 0, 1, //
    6, 3, 5, 4, 4, 5, 3, 6, //
    5, 3, 4, 0, 0, 4, 3, 5, //
    5, 3, 4, 0, 0, 4, 3, 5, //
    6, 3, 5, 4, 4, 5, 3, 6, //
    1, 0, 3, 3, 3, 3, 0, 1, //
    9, 1, 6, 5, 5, 6, 1, 9, //
];

/// Empty squares next to at least one disc of `discs`.
#[inline]
pub(crate) const fn adjacent_empties(discs: u64, empties: u64) -> u64 {
    let horizontal =
        ((discs << 1) & 0xFEFE_FEFE_FEFE_FEFE) | ((discs >> 1) & 0x7F7F_7F7F_7F7F_7F7F);
    let around = horizontal | discs;
    (horizontal | (around << 8) | (around >> 8)) & empties
}

impl SearchNode for Board {
    #[inline]
    fn moves(&self) -> u64 {
        Board::moves(self)
    }

    #[inline]
    fn play(&self, mv: usize) -> Board {
        self.play_with_flips(mv, self.flips(mv))
    }

    #[inline]
    fn pass(&self) -> Board {
        Board::pass(self)
    }

    #[inline]
    fn final_score(&self) -> i32 {
        Board::final_score(self)
    }

    #[inline]
    fn key(&self) -> u64 {
        self.hash_key()
    }

    #[inline]
    fn moves_left(&self) -> u32 {
        self.empty_count()
    }

    /// Fastest first: few replies for the opponent, little potential mobility for it, and the
    /// square's own priority.
    #[inline]
    fn ordering_hint(&self, mv: usize, child: &Board) -> i32 {
        let replies = child.moves().count_ones() as i32;
        let corner_replies = (child.moves() & 0x8100_0000_0000_0081).count_ones() as i32;
        let potential = adjacent_empties(child.opponent, child.empties()).count_ones() as i32;
        i32::from(SQUARE_PRIORITY[mv]) * 8 - replies * 32 - corner_replies * 64 - potential * 4
    }

    fn solve_null_window<E: Evaluator<Board>>(
        searcher: &mut Searcher<'_, '_, Board, E>,
        board: &Board,
        alpha: i32,
    ) -> Option<i32> {
        Some(endgame::null_window_solve(searcher, board, alpha))
    }
}
