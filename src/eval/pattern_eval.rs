//! The trained evaluation: the sum of the weights of every pattern instance's slot, plus a bias,
//! for the phase of the position.

use super::indices::{mover_indices, Lanes, ParentIndices};
use super::patterns::{feature_offsets_at, phase_of, tables, FEATURE_SLOTS, PHASES};
use super::weights::{Trust, Weights, WeightsError, SCALE};
use super::Evaluator;
use crate::board::Board;
use crate::cpu::{Isa, IsaDetected};

/// The weights trained by `oxello train` on the WTHOR database, built into the binary.
static BUILT_IN: &[u8] = include_bytes!("oxello.weights");

/// Pattern evaluation with a set of weights.
///
/// Each instance's base-3 index, in its type's reading order ([`super::indices`]), reads the
/// weight of its type at that index, so that every instance of a type reads the same weights.
/// The weights are laid out by type and index rather than by instance, which keeps the tables
/// a search touches about five times smaller and so more of them in the cache.
#[derive(Clone, Debug)]
pub struct PatternEvaluator {
    /// Per instance, where its type's weights start in a phase's table.
    weights_starts: Vec<u32>,
    /// Per phase, the weight of every index of every type, one type after another, then the
    /// counting features' weights, and the bias last.
    by_index: Vec<Box<[i16]>>,
    /// Where the counting features' weights start in a phase's table.
    features_start: usize,
    /// The weights' checksum ([`Weights::checksum`]).
    checksum: u64,
}

impl PatternEvaluator {
    /// The built-in weights.
    pub fn built_in() -> PatternEvaluator {
        let (weights, checksum) = Self::read_built_in();
        PatternEvaluator::with_checksum(weights, checksum)
    }

    /// The weights built into the binary.
    pub fn built_in_weights() -> Weights {
        Self::read_built_in().0
    }

    fn read_built_in() -> (Weights, u64) {
        Weights::read(BUILT_IN, Trust::BuiltIn).expect("the built-in weights are valid")
    }

    /// Weights from the bytes of a weights file.
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternEvaluator, WeightsError> {
        let (weights, checksum) = Weights::read(bytes, Trust::Verify)?;
        Ok(PatternEvaluator::with_checksum(weights, checksum))
    }

    /// An evaluator with the given weights.
    pub fn new(weights: Weights) -> PatternEvaluator {
        let checksum = weights.checksum();
        PatternEvaluator::with_checksum(weights, checksum)
    }

    /// An evaluator with the given weights, whose checksum is known.
    fn with_checksum(weights: Weights, checksum: u64) -> PatternEvaluator {
        let tables = tables();
        let mut slot_of_entry = Vec::new();
        let mut type_starts = Vec::new();
        for slots in &tables.slot_of_index {
            type_starts.push(slot_of_entry.len());
            slot_of_entry.extend_from_slice(slots);
        }
        let features_start = slot_of_entry.len();
        slot_of_entry.extend((0..FEATURE_SLOTS).map(|f| (tables.feature_base() + f) as u32));
        slot_of_entry.push(tables.bias_slot() as u32);
        let weights_starts = tables
            .instances
            .iter()
            .map(|instance| type_starts[instance.kind] as u32)
            .collect();
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
            weights_starts,
            by_index,
            features_start,
            checksum,
        }
    }

    /// The checksum of the weights, which tells them apart ([`Weights::checksum`]).
    pub fn checksum(&self) -> u64 {
        self.checksum
    }

    /// The score of `board` in 1/256 disc, before rounding.
    #[inline(always)]
    pub fn raw(&self, board: &Board) -> i32 {
        self.raw_at(IsaDetected, board)
    }

    /// [`PatternEvaluator::raw`] from code compiled for the instruction-set level `I`.
    #[inline(always)]
    pub fn raw_at<I: Isa>(&self, isa: I, board: &Board) -> i32 {
        self.raw_with(isa, board, &mover_indices(isa, board))
    }

    /// The score of `board` in 1/256 disc, before rounding, given its instances' `indices` for
    /// the side to move.
    #[inline(always)]
    fn raw_with<I: Isa>(&self, isa: I, board: &Board, indices: &Lanes) -> i32 {
        self.raw_with_features(isa, board, indices, &feature_offsets_at(isa, board))
    }

    /// [`PatternEvaluator::raw_with`] given also where its counting features fall
    /// ([`feature_offsets_at`]).
    #[inline(always)]
    pub(super) fn raw_with_features<I: Isa>(
        &self,
        _isa: I,
        board: &Board,
        indices: &Lanes,
        features: &[usize; 4],
    ) -> i32 {
        let table = &self.by_index[phase_of(board.empty_count())];
        let bias = i32::from(table[table.len() - 1]);
        let features: i32 = features
            .iter()
            .map(|&offset| i32::from(table[self.features_start + offset]))
            .sum();
        self.weights_starts
            .iter()
            .zip(indices.0.iter())
            .map(|(&start, &index)| i32::from(table[start as usize + usize::from(index)]))
            .sum::<i32>()
            + features
            + bias
    }

    /// The evaluation of `child`, the position after the move to `square` flipping `flipped`
    /// from a parent with `indices`: its indices derived from the parent's.
    /// `I` is the instruction-set level of the calling code.
    #[inline(always)]
    pub fn evaluate_child<I: Isa>(
        &self,
        isa: I,
        indices: &ParentIndices,
        (square, flipped): (usize, u64),
        child: &Board,
    ) -> i32 {
        to_discs(self.raw_with(isa, child, &indices.after_move(isa, square, flipped)))
    }
}

/// Disc units of a raw score in 1/256 disc, rounded half away from zero, within the scores a
/// game can end with.
#[inline]
pub(super) fn to_discs(raw: i32) -> i32 {
    ((raw + raw.signum() * SCALE / 2) / SCALE).clamp(-63, 63)
}

impl Evaluator<Board> for PatternEvaluator {
    #[inline(always)]
    fn evaluate(&self, board: &Board) -> i32 {
        to_discs(self.raw(board))
    }

    #[inline(always)]
    fn evaluate_at<I: Isa>(&self, isa: I, board: &Board) -> i32 {
        to_discs(self.raw_at(isa, board))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_weights_pass_their_checksum() {
        let checked = Weights::from_bytes(BUILT_IN).expect("the built-in weights are valid");
        assert_eq!(checked, PatternEvaluator::built_in_weights());
        assert_eq!(PatternEvaluator::built_in().checksum(), checked.checksum());
    }
}
