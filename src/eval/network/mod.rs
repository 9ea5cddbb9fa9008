//! The network evaluation: the linear pattern sum, plus a small network's correction of it.
//!
//! The network reads the same inputs as the linear evaluation: each pattern instance's index
//! and each counting feature's value pick a weight slot, and each slot a *row* of [`HIDDEN`]
//! 16-bit weights. The rows of a position's slots are summed with the hidden units' bias (the
//! accumulator), clipped to the activation's range 0..=[`ACTIVATION_ONE`], and weighed by the
//! output layer of the position's phase. The linear part keeps everything a sum of patterns
//! knows; the network adds what depends on patterns together (a hidden unit fires only when
//! its rows' sum crosses zero), trained on the linear part's errors.
//!
//! All arithmetic is on integers, so every instruction-set level gives the same score: the
//! rows' weights are bounded ([`ROW_LIMIT`]: a byte each) and the bias ([`BIAS_LIMIT`]) so
//! that no sum can overflow 16 bits, and the AVX2 path adds 16 lanes at a time what the
//! baseline adds one by one. The accumulator is summed afresh at each evaluation from the
//! indices the search derives move by move.

pub mod file;
mod forward;
mod shape;

pub use file::{NetworkError, NetworkWeights};
pub use shape::{
    ACTIVATION_ONE, BIAS_LIMIT, CORRECTION_LIMIT, HIDDEN, OUTPUT_ONE, ROW_LIMIT, SUMMED_ROWS,
};

use super::evaluator::Evaluator;
use super::indices::{mover_indices, Lanes, ParentIndices};
use super::pattern_eval::to_discs;
use super::pattern_eval::PatternEvaluator;
use super::patterns::{feature_offsets_at, phase_of, tables};
use super::probcut_table::ProbCutTable;
use super::weights::fnv1a;
use crate::board::Board;
use crate::cpu::{Isa, IsaDetected};
use crate::zeroed_memory::ZeroedArray;
use forward::{Accumulator, InputRow, Row};
use std::sync::{Arc, OnceLock};

/// The network built into the binary, with its own Multi-ProbCut table: the default
/// evaluation (docs/evaluation.md gives the commands that made it).
pub static BUILT_IN: &[u8] = include_bytes!("../oxello.network");

/// The network evaluation with a set of weights, over the linear evaluation it corrects.
#[derive(Debug)]
pub struct NetworkEvaluator {
    linear: PatternEvaluator,
    /// Per instance, where its type's rows start in `rows`.
    row_starts: Vec<u32>,
    /// The counting features' first row in `rows`.
    feature_base: usize,
    /// Every type's row per base-3 index, one type after another (a row shared by indices
    /// that a pattern's symmetry maps onto each other is repeated, so that an index reads its
    /// row directly), then the counting features' rows: 18 MB read at random, on huge pages
    /// where the system gives them (fewer TLB misses: searches 3.6% quicker on a first Zen).
    rows: ZeroedArray<InputRow>,
    hidden_bias: Row,
    output: Vec<Row>,
    output_bias: Vec<i32>,
    checksum: u64,
    /// The Multi-ProbCut table fitted to the network, if its file carries one.
    probcut: Option<ProbCutTable>,
}

impl NetworkEvaluator {
    /// An evaluator of `weights` over `linear`, refused if the network was trained on another
    /// linear evaluation's errors.
    pub fn new(
        linear: PatternEvaluator,
        weights: &NetworkWeights,
    ) -> Result<NetworkEvaluator, NetworkError> {
        weights.check_range()?;
        NetworkEvaluator::with_checksum(linear, weights, weights.checksum())
    }

    /// [`NetworkEvaluator::new`] for weights whose checksum is known and whose range was
    /// checked (as reading a file does).
    fn with_checksum(
        linear: PatternEvaluator,
        weights: &NetworkWeights,
        checksum: u64,
    ) -> Result<NetworkEvaluator, NetworkError> {
        if weights.linear_checksum != linear.checksum() {
            return Err(NetworkError::Linear {
                found: weights.linear_checksum,
                expected: linear.checksum(),
            });
        }
        let tables = tables();
        assert_eq!(
            tables.instances.len() + 4,
            SUMMED_ROWS,
            "rows summed per position"
        );
        let features = &weights.rows[tables.feature_base()..];
        let entries = tables.slot_of_index.iter().map(Vec::len).sum::<usize>() + features.len();
        let mut rows =
            ZeroedArray::<InputRow>::try_new(entries).expect("memory for the network's rows");
        // Within a byte: `check_range`, by `new` or by reading the file.
        let input_row = |row: &[i16; HIDDEN]| InputRow(row.map(|w| w as i8));
        let mut next = rows.as_mut_slice().iter_mut();
        let mut type_starts = Vec::new();
        let mut filled = 0;
        for slots in &tables.slot_of_index {
            type_starts.push(filled as u32);
            for (&slot, entry) in slots.iter().zip(next.by_ref()) {
                *entry = input_row(&weights.rows[slot as usize]);
            }
            filled += slots.len();
        }
        let feature_base = filled;
        for (entry, row) in next.zip(features) {
            *entry = input_row(row);
        }
        Ok(NetworkEvaluator {
            linear,
            row_starts: tables
                .instances
                .iter()
                .map(|instance| type_starts[instance.kind])
                .collect(),
            feature_base,
            rows,
            hidden_bias: Row(weights.hidden_bias),
            output: weights.output.iter().map(|&r| Row(r)).collect(),
            output_bias: weights.output_bias.clone(),
            checksum,
            probcut: weights.probcut.clone(),
        })
    }

    /// The built-in network ([`BUILT_IN`]), laid out once per process and shared.
    pub fn built_in() -> Arc<NetworkEvaluator> {
        static LAID_OUT: OnceLock<Arc<NetworkEvaluator>> = OnceLock::new();
        LAID_OUT
            .get_or_init(|| {
                Arc::new(
                    NetworkEvaluator::from_bytes(BUILT_IN).expect("the built-in network is valid"),
                )
            })
            .clone()
    }

    /// The network's file read over the built-in linear weights.
    pub fn from_bytes(bytes: &[u8]) -> Result<NetworkEvaluator, NetworkError> {
        let (weights, checksum) = NetworkWeights::read(bytes)?;
        NetworkEvaluator::with_checksum(PatternEvaluator::built_in(), &weights, checksum)
    }

    /// The linear evaluation this network corrects.
    pub fn linear(&self) -> &PatternEvaluator {
        &self.linear
    }

    /// A number that tells this evaluation from others: the linear weights' checksum, the
    /// network's and that of its Multi-ProbCut table (which changes what searches find)
    /// together.
    pub fn fingerprint(&self) -> u64 {
        let table = self
            .probcut
            .as_ref()
            .map_or(0, |table| fnv1a(table.format().as_bytes()).rotate_left(2));
        self.linear.checksum().rotate_left(1) ^ self.checksum ^ table
    }

    /// Whether the network's file carries its own Multi-ProbCut table.
    pub fn has_probcut_table(&self) -> bool {
        self.probcut.is_some()
    }

    /// The score of `board` in 1/256 disc, before rounding.
    #[inline(always)]
    pub fn raw(&self, board: &Board) -> i32 {
        self.raw_at(IsaDetected, board)
    }

    /// [`NetworkEvaluator::raw`] from code compiled for the instruction-set level `I`.
    #[inline(always)]
    pub fn raw_at<I: Isa>(&self, isa: I, board: &Board) -> i32 {
        self.raw_with(isa, board, &mover_indices(isa, board))
    }

    /// The network's part alone of the score of `board`, in 1/256 disc.
    pub fn correction(&self, board: &Board) -> i32 {
        let isa = IsaDetected;
        let indices = mover_indices(isa, board);
        self.correction_with(isa, board, &indices, feature_offsets_at(isa, board))
    }

    #[inline(always)]
    fn correction_with<I: Isa>(
        &self,
        isa: I,
        board: &Board,
        indices: &Lanes,
        features: [usize; 4],
    ) -> i32 {
        let mut accumulator = Accumulator::from(&self.hidden_bias);
        for (&start, &index) in self.row_starts.iter().zip(indices.0.iter()) {
            accumulator.add(isa, &self.rows[start as usize + usize::from(index)]);
        }
        for offset in features {
            accumulator.add(isa, &self.rows[self.feature_base + offset]);
        }
        let phase = phase_of(board.empty_count());
        (accumulator.output(isa, &self.output[phase]) + self.output_bias[phase])
            .clamp(-CORRECTION_LIMIT, CORRECTION_LIMIT)
    }

    #[inline(always)]
    fn raw_with<I: Isa>(&self, isa: I, board: &Board, indices: &Lanes) -> i32 {
        let features = feature_offsets_at(isa, board);
        self.linear
            .raw_with_features(isa, board, indices, &features)
            + self.correction_with(isa, board, indices, features)
    }

    /// The evaluation of `child`, the position after the move to `square` flipping `flipped`
    /// from a parent with `indices`: its indices derived from the parent's. Fail-soft in
    /// `(lower, upper)` (see [`Evaluator::children_of`]): when the linear score is more than
    /// [`CORRECTION_LIMIT`] outside the window, the network is not run and the bound the
    /// linear score gives is returned.
    #[inline(always)]
    pub fn evaluate_child<I: Isa>(
        &self,
        isa: I,
        indices: &ParentIndices,
        (square, flipped): (usize, u64),
        child: &Board,
        (lower, upper): (i32, i32),
    ) -> i32 {
        let indices = indices.after_move(isa, square, flipped);
        let features = feature_offsets_at(isa, child);
        let linear = self
            .linear
            .raw_with_features(isa, child, &indices, &features);
        let highest = to_discs(linear + CORRECTION_LIMIT);
        if highest <= lower {
            return highest;
        }
        let lowest = to_discs(linear - CORRECTION_LIMIT);
        if lowest >= upper {
            return lowest;
        }
        to_discs(linear + self.correction_with(isa, child, &indices, features))
    }
}

impl Evaluator<Board> for NetworkEvaluator {
    #[inline(always)]
    fn evaluate(&self, board: &Board) -> i32 {
        to_discs(self.raw(board))
    }

    /// The network's own table, or without one the built-in table.
    fn probcut_table(&self) -> &ProbCutTable {
        self.probcut.as_ref().unwrap_or(ProbCutTable::built_in())
    }

    #[inline(always)]
    fn evaluate_at<I: Isa>(&self, isa: I, board: &Board) -> i32 {
        to_discs(self.raw_at(isa, board))
    }
}
