//! The trained evaluation: the sum of the weights of every pattern instance's slot, plus a bias,
//! for the phase of the position.

use super::patterns::{feature_offsets, masked_index, phase_of, tables, FEATURE_SLOTS, PHASES};
use super::weights::{Weights, WeightsError, SCALE};
use super::Evaluator;
use crate::board::Board;

/// The weights trained by `oxello train` on the WTHOR database, built into the binary.
static BUILT_IN: &[u8] = include_bytes!("oxello.weights");

/// Pattern evaluation with a set of weights.
#[derive(Clone, Debug)]
pub struct PatternEvaluator {
    /// Per instance, its squares as a mask and where its indices start in a phase's table.
    instances: Vec<(u64, usize)>,
    /// Per phase, the weight of every index of every instance, one instance after another,
    /// then the counting features' weights, and the bias last: one load an instance, where
    /// the slots need two (index to slot, slot to weight).
    by_index: Vec<Box<[i16]>>,
    /// Where the counting features' weights start in a phase's table.
    features_start: usize,
    /// The weights' checksum ([`Weights::checksum`]).
    checksum: u64,
}

impl PatternEvaluator {
    /// The built-in weights.
    pub fn built_in() -> PatternEvaluator {
        PatternEvaluator::new(Self::built_in_weights())
    }

    /// The weights built into the binary.
    pub fn built_in_weights() -> Weights {
        Weights::from_bytes(BUILT_IN).expect("the built-in weights are valid")
    }

    /// Weights from the bytes of a weights file.
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternEvaluator, WeightsError> {
        Ok(PatternEvaluator::new(Weights::from_bytes(bytes)?))
    }

    /// An evaluator with the given weights.
    pub fn new(weights: Weights) -> PatternEvaluator {
        let tables = tables();
        let mut instances = Vec::new();
        let mut slot_of_entry = Vec::new();
        for (mask, slots) in tables.instance_slots() {
            instances.push((mask, slot_of_entry.len()));
            slot_of_entry.extend_from_slice(slots);
        }
        let features_start = slot_of_entry.len();
        slot_of_entry.extend((0..FEATURE_SLOTS).map(|f| (tables.feature_base() + f) as u32));
        slot_of_entry.push(tables.bias_slot() as u32);
        let by_index = (0..PHASES)
            .map(|phase| {
                let values = weights.phase(phase);
                slot_of_entry
                    .iter()
                    .map(|&slot| values[slot as usize])
                    .collect()
            })
            .collect();
        PatternEvaluator {
            instances,
            by_index,
            features_start,
            checksum: weights.checksum(),
        }
    }

    /// The checksum of the weights, which tells them apart ([`Weights::checksum`]).
    pub fn checksum(&self) -> u64 {
        self.checksum
    }

    /// The score in 1/256 disc, before rounding.
    #[inline]
    pub fn raw(&self, board: &Board) -> i32 {
        let table = &self.by_index[phase_of(board.empty_count())];
        let bias = i32::from(table[table.len() - 1]);
        let features: i32 = feature_offsets(board)
            .iter()
            .map(|&offset| i32::from(table[self.features_start + offset]))
            .sum();
        self.instances
            .iter()
            .map(|&(mask, start)| i32::from(table[start + masked_index(board, mask)]))
            .sum::<i32>()
            + features
            + bias
    }
}

impl Evaluator<Board> for PatternEvaluator {
    #[inline]
    fn evaluate(&self, board: &Board) -> i32 {
        let raw = self.raw(board);
        ((raw + raw.signum() * SCALE / 2) / SCALE).clamp(-63, 63)
    }
}
