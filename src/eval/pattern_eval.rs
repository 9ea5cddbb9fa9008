//! The trained evaluation: the sum of the weights of every pattern instance's slot, plus a bias,
//! for the phase of the position.

use super::patterns::{for_each_slot, phase_of};
use super::weights::{Weights, WeightsError, SCALE};
use super::Evaluator;
use crate::board::Board;

/// The weights trained by `oxello train` on the WTHOR database, built into the binary.
static BUILT_IN: &[u8] = include_bytes!("oxello.weights");

/// Pattern evaluation with a set of weights.
#[derive(Clone, Debug)]
pub struct PatternEvaluator {
    weights: Weights,
}

impl PatternEvaluator {
    /// The built-in weights.
    pub fn built_in() -> PatternEvaluator {
        PatternEvaluator::from_bytes(BUILT_IN).expect("the built-in weights are valid")
    }

    /// Weights from the bytes of a weights file.
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternEvaluator, WeightsError> {
        Ok(PatternEvaluator {
            weights: Weights::from_bytes(bytes)?,
        })
    }

    /// An evaluator with the given weights.
    pub fn new(weights: Weights) -> PatternEvaluator {
        PatternEvaluator { weights }
    }

    /// The score in 1/256 disc, before rounding.
    #[inline]
    pub fn raw(&self, board: &Board) -> i32 {
        let weights = self.weights.phase(phase_of(board.empty_count()));
        let mut sum = 0i32;
        for_each_slot(board, |slot| sum += i32::from(weights[slot]));
        sum
    }
}

impl Evaluator<Board> for PatternEvaluator {
    #[inline]
    fn evaluate(&self, board: &Board) -> i32 {
        let raw = self.raw(board);
        ((raw + raw.signum() * SCALE / 2) / SCALE).clamp(-63, 63)
    }
}
