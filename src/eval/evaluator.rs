//! The one interface every evaluation sits behind: a score in discs for the side to move, with
//! the hooks the search uses to share work between a node's children and to order moves.

use super::probcut_table::ProbCutTable;
use crate::cpu::Isa;

/// Scores positions of type `N` for the side to move, in discs (positive: the side to move is
/// ahead). Never called on a finished game: the search scores those exactly.
pub trait Evaluator<N>: Sync {
    fn evaluate(&self, node: &N) -> i32;

    /// [`Evaluator::evaluate`] from code compiled for the instruction-set level `I` (see
    /// [`crate::cpu::Isa`]), for an evaluation with versions per level.
    #[inline(always)]
    fn evaluate_at<I: Isa>(&self, _isa: I, node: &N) -> i32
    where
        Self: Sized,
    {
        self.evaluate(node)
    }

    /// The evaluation of `parent`'s children, called with each child's move, position and
    /// window, from code compiled for the level `I`. An evaluator that can share work between
    /// the children of one node does it once here (the patterns: the parent's indices, which a
    /// move changes on a few squares only).
    ///
    /// The window `(lower, upper)` lets an evaluation stop early, fail-soft: a score strictly
    /// inside it is exact, one at or below `lower` only an upper bound of the exact score, one
    /// at or above `upper` only a lower bound. A window wider than any score asks for exact
    /// scores.
    fn children_of<I: Isa>(&self, isa: I, _parent: &N) -> impl Fn(usize, &N, (i32, i32)) -> i32 + '_
    where
        Self: Sized,
    {
        #[inline(always)]
        move |_, child, _| self.evaluate_at(isa, child)
    }

    /// The Multi-ProbCut table fitted to this evaluation; by default the built-in one, fitted
    /// to the built-in weights.
    fn probcut_table(&self) -> &ProbCutTable {
        ProbCutTable::built_in()
    }

    /// [`Evaluator::evaluate_at`] for move ordering alone: an evaluation may answer here with
    /// a cheaper approximation of itself (the network: its linear part).
    #[inline(always)]
    fn evaluate_for_ordering<I: Isa>(&self, isa: I, node: &N) -> i32
    where
        Self: Sized,
    {
        self.evaluate_at(isa, node)
    }

    /// [`Evaluator::children_of`] for move ordering alone, exact scores asked: an evaluation
    /// may answer here with a cheaper approximation of itself (the network: its linear part).
    fn children_for_ordering<I: Isa>(&self, isa: I, parent: &N) -> impl Fn(usize, &N) -> i32 + '_
    where
        Self: Sized,
    {
        let children = self.children_of(isa, parent);
        #[inline(always)]
        move |square, child| children(square, child, (i32::MIN, i32::MAX))
    }
}
