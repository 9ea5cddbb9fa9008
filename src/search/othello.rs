//! Othello's board as a [`SearchNode`]: its moves, an ordering hint (fastest first), and the
//! exact endgame solver as the end of every search that reaches the last empty square.

use super::endgame;
use super::node::SearchNode;
use super::searcher::Searcher;
use crate::board::{adjacent_empties, Board};
use crate::cpu::Isa;
use crate::eval::Evaluator;

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

/// The corners.
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// The squares next to a corner: X-squares (diagonally) and C-squares (on the edges).
const BESIDE_CORNERS: u64 = 0x42C3_0000_0000_C342;

impl SearchNode for Board {
    /// Corners first, the squares beside them last.
    const FRONTIER_ORDER: &'static [u64] = &[CORNERS, !(CORNERS | BESIDE_CORNERS), BESIDE_CORNERS];

    #[inline(always)]
    fn moves_at<I: Isa>(&self, isa: I) -> u64 {
        Board::moves_at(self, isa)
    }

    #[inline(always)]
    fn play_at<I: Isa>(&self, isa: I, mv: usize) -> Board {
        self.play_with_flips(mv, self.flips_at(isa, mv))
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
    #[inline(always)]
    fn ordering_hint_at<I: Isa>(&self, isa: I, mv: usize, child: &Board) -> i32 {
        let replies = child.moves_at(isa);
        let corner_replies = (replies & 0x8100_0000_0000_0081).count_ones() as i32;
        let replies = replies.count_ones() as i32;
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
