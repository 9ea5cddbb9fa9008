//! The game the search explores: [`SearchNode`], what a position must answer (its moves, the
//! positions after them, its final score, its key) and the hooks for a game's own ordering and
//! exact solver.

use super::searcher::Searcher;
use crate::cpu::{Isa, IsaDetected};
use crate::eval::Evaluator;

/// A game position the search can explore. Moves are identified by numbers 0..64 so that the
/// legal moves of a node fit in one `u64`.
///
/// The methods the search's hot code calls take the instruction-set level that code is
/// compiled for ([`Isa`]), for a game whose rules have versions per level; the others may
/// ignore it.
pub trait SearchNode: Copy + Send + Sync {
    /// The legal moves of the side to move, as a set of move numbers.
    fn moves_at<I: Isa>(&self, isa: I) -> u64;
    /// The position after move `mv` (a member of [`SearchNode::moves_at`]).
    fn play_at<I: Isa>(&self, isa: I, mv: usize) -> Self;
    /// [`SearchNode::moves_at`] at the detected level.
    fn moves(&self) -> u64 {
        self.moves_at(IsaDetected)
    }
    /// [`SearchNode::play_at`] at the detected level.
    fn play(&self, mv: usize) -> Self {
        self.play_at(IsaDetected, mv)
    }
    /// The position after the side to move passes (when it has no move).
    fn pass(&self) -> Self;
    /// The exact final score for the side to move, when neither side can move.
    fn final_score(&self) -> i32;
    /// A key for the transposition table.
    fn key(&self) -> u64;
    /// Moves left until the game is surely over (Othello: empty squares); a search at least
    /// this deep is exact.
    fn moves_left(&self) -> u32;
    /// Sets of moves, together all of them, in the order a node one ply above the leaves tries
    /// them: a static order, likelier moves first, where a node any deeper orders by hints.
    const FRONTIER_ORDER: &'static [u64] = &[u64::MAX];

    /// A cheap guess of how good `mv` (leading to `child`) is, for move ordering: higher is
    /// searched first.
    fn ordering_hint_at<I: Isa>(&self, isa: I, mv: usize, child: &Self) -> i32;

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
