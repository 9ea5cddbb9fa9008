//! `oxello eval-error`: the static evaluation's mean absolute error against the theoretical
//! (or exact) final score, per phase, on any set of games.

use super::dataset::{all_examples, LabelledGame};
use super::train::mean_absolute_error;
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
    let midgame: Vec<_> = examples
        .into_iter()
        .filter(|e| (24..=59).contains(&e.board.empty_count()))
        .collect();
    (phases, mean_absolute_error(evaluation, &midgame))
}

/// The empties a phase covers, for tables.
pub fn phase_range(phase: usize) -> (u32, u32) {
    let low = phase as u32 * 5 + 1;
    let high = if phase + 1 == PHASES { 60 } else { low + 4 };
    (low, high)
}
