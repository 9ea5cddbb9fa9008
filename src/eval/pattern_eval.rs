//! The trained evaluation: the sum of the weights of every pattern instance's slot, plus a bias,
//! for the phase of the position.

use super::evaluator::Evaluator;
use super::indices::{mover_indices, Lanes, ParentIndices, LANES};
use super::patterns::{feature_offsets_at, phase_of, tables, FEATURE_SLOTS, PHASES};
use super::weights::{Trust, Weights, WeightsError, SCALE};
use crate::board::Board;
use crate::cpu::{Isa, IsaDetected};

/// The weights trained by `oxello train` on the WTHOR database, built into the binary.
static BUILT_IN: &[u8] = include_bytes!("oxello.weights");

/// Per index lane, where its instance's type's weights start in a phase's table (32 bits a
/// lane, aligned for the gathers' vector loads).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct InstanceStarts([u32; LANES]);

/// Pattern evaluation with a set of weights.
///
/// Each instance's base-3 index, in its type's reading order ([`super::indices`]), reads the
/// weight of its type at that index, so that every instance of a type reads the same weights.
/// The weights are laid out by type and index rather than by instance, which keeps the tables
/// a search touches about five times smaller and so more of them in the cache.
#[derive(Clone, Debug)]
pub struct PatternEvaluator {
    /// Per instance, where its type's weights start in a phase's table; the lanes beyond the
    /// instances point at a zero weight after the bias, for the gathers.
    starts: InstanceStarts,
    /// The pattern instances: the lanes of `starts` and of the indices in use.
    instances: usize,
    /// Whether the instances' weights are read by AVX2 gathers ([`crate::cpu::fast_gather`]).
    gather: bool,
    /// Per phase, the weight of every index of every type, one type after another, then the
    /// counting features' weights, the bias, and two zero weights (which the gathers' 4-byte
    /// reads of the last weight and of the lanes beyond the instances land on).
    by_index: Vec<Box<[i16]>>,
    /// Where the counting features' weights start in a phase's table.
    features_start: usize,
    /// Where the bias is in a phase's table.
    bias_entry: usize,
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
        let bias_entry = slot_of_entry.len();
        slot_of_entry.push(tables.bias_slot() as u32);
        let mut starts = InstanceStarts([bias_entry as u32 + 1; LANES]);
        for (start, instance) in starts.0.iter_mut().zip(&tables.instances) {
            *start = type_starts[instance.kind] as u32;
        }
        let by_index = (0..PHASES)
            .map(|phase| {
                let values = weights.phase(phase);
                slot_of_entry
                    .iter()
                    .map(|&slot| values[slot as usize])
                    .chain([0, 0])
                    .collect()
            })
            .collect();
        PatternEvaluator {
            starts,
            instances: tables.instances.len(),
            gather: crate::cpu::fast_gather(),
            by_index,
            features_start,
            bias_entry,
            checksum,
        }
    }

    /// This evaluator reading the instances' weights by AVX2 gathers or not, where the CPU has
    /// AVX2 (the score is the same either way).
    pub fn with_gathers(mut self, gather: bool) -> PatternEvaluator {
        self.gather = gather;
        self
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
        isa: I,
        board: &Board,
        indices: &Lanes,
        features: &[usize; 4],
    ) -> i32 {
        let table = &self.by_index[phase_of(board.empty_count())];
        let bias = i32::from(table[self.bias_entry]);
        let features: i32 = features
            .iter()
            .map(|&offset| i32::from(table[self.features_start + offset]))
            .sum();
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        #[cfg(target_arch = "x86_64")]
        if self.gather && super::simd::in_avx2(isa) {
            // SAFETY: the CPU has AVX2.
            return unsafe { self.gathered(table, indices) } + features + bias;
        }
        self.starts.0[..self.instances]
            .iter()
            .zip(indices.0.iter())
            .map(|(&start, &index)| i32::from(table[start as usize + usize::from(index)]))
            .sum::<i32>()
            + features
            + bias
    }

    /// The sum of the instances' weights in `table` (a phase's), read by AVX2 gathers eight
    /// instances at a time: each lane reads 4 bytes at its weight and keeps the low 16 bits.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn gathered(&self, table: &[i16], indices: &Lanes) -> i32 {
        use std::arch::x86_64::*;
        // The last weight a 4-byte read may start at: the first of the two zeros. Every
        // offset is kept to it, so that no read leaves the table, whatever the indices.
        let last = _mm256_set1_epi32(table.len() as i32 - 2);
        let mut sums = _mm256_setzero_si256();
        for lane in (0..self.instances).step_by(8) {
            // SAFETY: `lane + 8 <= LANES` (the instances fit the lanes), and every offset is
            // at most `last`, whose 4 bytes are the table's last two weights. An instance's
            // index is below 3 to the power of its squares, so its start plus its index is a
            // weight of its type's block; the lanes beyond the instances read the first zero
            // weight after the bias (their index is 0).
            unsafe {
                let starts = _mm256_load_si256(self.starts.0.as_ptr().add(lane).cast());
                let index =
                    _mm256_cvtepu16_epi32(_mm_loadu_si128(indices.0.as_ptr().add(lane).cast()));
                let offsets = _mm256_min_epu32(_mm256_add_epi32(starts, index), last);
                let words = _mm256_i32gather_epi32::<2>(table.as_ptr().cast(), offsets);
                let weights = _mm256_srai_epi32::<16>(_mm256_slli_epi32::<16>(words));
                sums = _mm256_add_epi32(sums, weights);
            }
        }
        crate::eval::simd::sum_of_lanes_avx2(sums)
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
