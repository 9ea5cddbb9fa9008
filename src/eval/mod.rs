//! Static evaluation: a score in discs for the side to move, from a position that is not over.

mod simple;

pub use simple::SimpleEvaluator;

/// Scores positions of type `N` for the side to move, in discs (positive: the side to move is
/// ahead). Never called on a finished game: the search scores those exactly.
pub trait Evaluator<N>: Sync {
    fn evaluate(&self, node: &N) -> i32;
}
