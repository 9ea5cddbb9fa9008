//! `oxello eval-error`: the static evaluation's mean absolute error against the theoretical
//! (or exact) final score, per phase, on any set of games.

use super::dataset::{all_examples, LabelledGame};
use super::train::{mean_absolute_error, midgame_error};
use crate::eval::patterns::{phase_of, PHASES};
use crate::eval::Evaluation;

/// Error of one phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseError {
    pub phase: usize,
    pub positions: usize,
    pub mae: f64,
}

/// Per-phase errors and the error over positions with 24 to 59 empties.
pub fn evaluation_error(games: &[LabelledGame], evaluation: &Evaluation) -> (Vec<PhaseError>, f64) {
    let examples: Vec<_> = all_examples(games, 0).into_iter().flatten().collect();
    let mut by_phase = vec![Vec::new(); PHASES];
    for example in &examples {
        by_phase[phase_of(example.board.empty_count())].push(*example);
    }
    let phases = by_phase
        .iter()
        .enumerate()
        .map(|(phase, examples)| PhaseError {
            phase,
            positions: examples.len(),
            mae: mean_absolute_error(evaluation, examples),
        })
        .collect();
    (phases, midgame_error(evaluation, &examples).0)
}
