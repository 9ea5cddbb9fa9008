//! The trained evaluation: the sum of the weights of every pattern instance's slot, plus a bias,
//! for the phase of the position.

use super::patterns::{extract, feature_offsets, phase_of, tables, FEATURE_SLOTS, PHASES};
use super::weights::{Weights, WeightsError, SCALE};
use super::Evaluator;
use crate::board::Board;

/// The weights trained by `oxello train` on the WTHOR database, built into the binary.
static BUILT_IN: &[u8] = include_bytes!("oxello.weights");

/// One placed pattern as the evaluation reads it.
#[derive(Clone, Copy, Debug)]
struct PlacedInstance {
    /// Its squares.
    mask: u64,
    /// Where its table of [`PatternEvaluator::ternary`] starts.
    ternary_start: usize,
    /// Where its type's weights start in a phase's table.
    weights_start: usize,
}

/// Pattern evaluation with a set of weights.
///
/// An instance's discs of one colour are extracted from the board as a small number (one bit a
/// square, in ascending square order); a table of the instance turns that number into its base-3
/// value in the type's reading order, so that every instance of a type reads the same weights.
/// The weights are laid out by type and index rather than by instance, which keeps the tables
/// a search touches about five times smaller and so more of them in the cache.
#[derive(Clone, Debug)]
pub struct PatternEvaluator {
    instances: Vec<PlacedInstance>,
    /// Per instance, for every set of its squares (as extracted bits), the base-3 index of a
    /// position with discs of the side to move on exactly those squares.
    ternary: Vec<u16>,
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
        let mut slot_of_entry = Vec::new();
        let mut type_starts = Vec::new();
        for slots in &tables.slot_of_index {
            type_starts.push(slot_of_entry.len());
            slot_of_entry.extend_from_slice(slots);
        }
        let features_start = slot_of_entry.len();
        slot_of_entry.extend((0..FEATURE_SLOTS).map(|f| (tables.feature_base() + f) as u32));
        slot_of_entry.push(tables.bias_slot() as u32);
        let mut instances = Vec::new();
        let mut ternary = Vec::new();
        for instance in &tables.instances {
            let mask = instance.mask();
            instances.push(PlacedInstance {
                mask,
                ternary_start: ternary.len(),
                weights_start: type_starts[instance.kind],
            });
            for bits in 0..1usize << instance.squares.len() {
                let index = instance.squares.iter().fold(0usize, |acc, &sq| {
                    let position = (mask & ((1u64 << sq) - 1)).count_ones();
                    acc * 3 + (bits >> position & 1)
                });
                ternary.push(u16::try_from(index).expect("a pattern has at most 10 squares"));
            }
        }
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
            ternary,
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
            .map(|instance| {
                let ternary = &self.ternary[instance.ternary_start..];
                let index = usize::from(ternary[extract(board.player, instance.mask)])
                    + 2 * usize::from(ternary[extract(board.opponent, instance.mask)]);
                i32::from(table[instance.weights_start + index])
            })
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
