//! The network as it trains: samples, the float network with its forward pass and
//! quantisation, and the gradients of a piece of a minibatch.

use crate::board::Board;
use crate::eval::indices::for_each_slot;
use crate::eval::network::{
    NetworkWeights, ACTIVATION_ONE, BIAS_LIMIT, CORRECTION_LIMIT, HIDDEN, OUTPUT_ONE, ROW_LIMIT,
    SUMMED_ROWS,
};
use crate::eval::patterns::{phase_of, PHASES};
use crate::eval::PatternEvaluator;
use crate::random::seeded_hash;
use crate::training::train::MIDGAME_EMPTIES;

/// A position as the trainer sees it: the position, the linear evaluation's score, its label
/// and how much it counts. The rows it sums are derived from the position when a minibatch
/// or a measure needs them (`Sample::rows`), not kept: 32 bytes a sample instead of 264, so
/// that the memory a training run takes does not bound its data.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub(super) board: Board,
    /// Whether the label is a search's score (else a game's result).
    pub(super) searched: bool,
    pub(super) weight: f32,
    /// The linear evaluation's score in discs, before rounding.
    pub(super) linear: f32,
    pub(super) label: f32,
}

/// The rows a position's accumulator sums: one a pattern instance and counting feature.
pub(super) type Rows = [u32; SUMMED_ROWS];

impl Sample {
    /// The sample of `board` labelled `label`, counting `weight` times.
    pub fn new(
        linear: &PatternEvaluator,
        board: &Board,
        label: f32,
        weight: f32,
        searched: bool,
    ) -> Sample {
        Sample {
            board: *board,
            searched,
            weight,
            linear: linear.raw(board) as f32 / 256.0,
            label,
        }
    }

    /// The rows the position's accumulator sums: its weight slots, in the linear
    /// evaluation's order, but the last (the linear evaluation's bias, which has no row).
    pub(super) fn rows(&self) -> Rows {
        let mut rows = [0u32; SUMMED_ROWS];
        let mut count = 0;
        for_each_slot(&self.board, |slot| {
            if count < SUMMED_ROWS {
                rows[count] = slot as u32;
            }
            count += 1;
        });
        assert_eq!(count, SUMMED_ROWS + 1, "slots of a position");
        rows
    }

    /// The position.
    pub fn board(&self) -> &Board {
        &self.board
    }

    fn phase(&self) -> usize {
        phase_of(self.board.empty_count())
    }

    /// Whether the sample counts in the headline error: a searched label in the midgame.
    pub(super) fn is_headline(&self) -> bool {
        self.searched && MIDGAME_EMPTIES.contains(&self.board.empty_count())
    }
}

/// The network in floating point, as it trains: the same shape as [`NetworkWeights`], rows in
/// activation units, outputs in discs.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    pub(super) rows: Vec<[f32; HIDDEN]>,
    pub(super) hidden_bias: [f32; HIDDEN],
    pub(super) output: Vec<[f32; HIDDEN]>,
    pub(super) output_bias: Vec<f32>,
}

/// A uniform number in [-1, 1) from the seed and a value.
fn uniform(seed: u64, value: u64) -> f32 {
    (seeded_hash(seed, value) >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}

impl FloatNetwork {
    /// The starting network: rows zero (a row no position touches stays zero, adding nothing),
    /// hidden units half active on their bias, random output weights to tell the units apart,
    /// and output biases that cancel them, so that it starts as the linear evaluation.
    pub fn initial(seed: u64) -> FloatNetwork {
        let hidden_bias = std::array::from_fn(|i| 0.5 + 0.3 * uniform(seed, i as u64));
        let output: Vec<[f32; HIDDEN]> = (0..PHASES)
            .map(|phase| {
                std::array::from_fn(|i| 0.5 * uniform(seed ^ 0x5EED, (phase * HIDDEN + i) as u64))
            })
            .collect();
        let output_bias = output
            .iter()
            .map(|weights| -dot(&hidden_bias, weights))
            .collect();
        FloatNetwork {
            rows: vec![[0.0; HIDDEN]; NetworkWeights::row_count()],
            hidden_bias,
            output,
            output_bias,
        }
    }

    fn accumulator(&self, rows: &Rows) -> [f32; HIDDEN] {
        let mut sum = self.hidden_bias;
        for &row in rows {
            for (s, w) in sum.iter_mut().zip(self.rows[row as usize].iter()) {
                *s += w;
            }
        }
        sum
    }

    /// The evaluation of a sample in discs, linear part included.
    pub fn predict(&self, sample: &Sample) -> f32 {
        let phase = sample.phase();
        let active = self.accumulator(&sample.rows()).map(|a| a.clamp(0.0, 1.0));
        let limit = correction_limit();
        sample.linear + self.correction(phase, &active).clamp(-limit, limit)
    }

    /// The network's correction in discs from the hidden units' activations, before it is
    /// clipped to [`CORRECTION_LIMIT`].
    fn correction(&self, phase: usize, active: &[f32; HIDDEN]) -> f32 {
        dot(active, &self.output[phase]) + self.output_bias[phase]
    }

    /// The integer weights of this network, correcting the linear weights of `linear_checksum`.
    pub fn quantised(&self, linear_checksum: u64) -> NetworkWeights {
        let to_integer = |w: f32, limit: i32| {
            (w * ACTIVATION_ONE as f32)
                .round()
                .clamp(-limit as f32, limit as f32) as i16
        };
        let to_row = |w: f32| to_integer(w, ROW_LIMIT);
        let to_output = |w: f32| {
            (w * OUTPUT_ONE as f32)
                .round()
                .clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
        };
        NetworkWeights {
            rows: self.rows.iter().map(|r| r.map(to_row)).collect(),
            hidden_bias: self.hidden_bias.map(|w| to_integer(w, BIAS_LIMIT)),
            output: self.output.iter().map(|r| r.map(to_output)).collect(),
            output_bias: self
                .output_bias
                .iter()
                .map(|&b| (b * 256.0).round() as i32)
                .collect(),
            linear_checksum,
            probcut: None,
        }
    }
}

/// [`CORRECTION_LIMIT`] in discs.
fn correction_limit() -> f32 {
    CORRECTION_LIMIT as f32 / 256.0
}

/// `sum += add`, element by element.
pub(super) fn add_into<const N: usize>(sum: &mut [f32; N], add: &[f32; N]) {
    for (s, a) in sum.iter_mut().zip(add) {
        *s += a;
    }
}

fn dot(a: &[f32; HIDDEN], b: &[f32; HIDDEN]) -> f32 {
    a.iter().zip(b.iter()).map(|(x, y)| x * y).sum()
}

/// The gradients of one piece of a minibatch: the small dense parameters', and per sample the
/// gradient of its accumulator (which each of its rows receives).
pub(super) struct PieceGradients {
    pub(super) hidden_bias: [f32; HIDDEN],
    pub(super) output: Vec<[f32; HIDDEN]>,
    pub(super) output_bias: Vec<f32>,
    pub(super) accumulators: Vec<[f32; HIDDEN]>,
}

impl PieceGradients {
    /// The gradients of the weighted squared error over `samples`, whose rows are `rows`,
    /// divided by `total_weight`.
    pub(super) fn of(
        network: &FloatNetwork,
        (samples, rows): (&[&Sample], &[Rows]),
        total_weight: f32,
    ) -> PieceGradients {
        let mut gradients = PieceGradients {
            hidden_bias: [0.0; HIDDEN],
            output: vec![[0.0; HIDDEN]; PHASES],
            output_bias: vec![0.0; PHASES],
            accumulators: Vec::with_capacity(samples.len()),
        };
        for (sample, rows) in samples.iter().zip(rows) {
            let phase = sample.phase();
            let accumulator = network.accumulator(rows);
            let active = accumulator.map(|a| a.clamp(0.0, 1.0));
            let correction = network.correction(phase, &active);
            if correction.abs() >= correction_limit() {
                // Clipped: no gradient flows back.
                gradients.accumulators.push([0.0; HIDDEN]);
                continue;
            }
            let prediction = sample.linear + correction;
            let error = 2.0 * sample.weight * (prediction - sample.label) / total_weight;
            gradients.output_bias[phase] += error;
            let mut to_accumulator = [0.0; HIDDEN];
            for i in 0..HIDDEN {
                gradients.output[phase][i] += error * active[i];
                if accumulator[i] > 0.0 && accumulator[i] < 1.0 {
                    to_accumulator[i] = error * network.output[phase][i];
                }
                gradients.hidden_bias[i] += to_accumulator[i];
            }
            gradients.accumulators.push(to_accumulator);
        }
        gradients
    }
}

#[cfg(test)]
mod tests {
    use super::Sample;
    use crate::board::{Board, Symmetry};
    use crate::eval::PatternEvaluator;

    #[test]
    fn a_sample_keeps_its_position_and_derives_its_rows() {
        // 32 bytes a sample: 27 million positions (what 40 MB of packed labels hold) in 1 GB.
        assert_eq!(std::mem::size_of::<Sample>(), 32);
        let linear = PatternEvaluator::built_in();
        let mut board = Board::START;
        for _ in 0..6 {
            board = board
                .play(board.moves().trailing_zeros() as usize)
                .expect("a legal move");
        }
        let sorted_rows = |board: &Board| {
            let mut rows = Sample::new(&linear, board, 0.0, 1.0, true).rows();
            rows.sort_unstable();
            rows
        };
        // Weight slots are tied by symmetry: a mirror image sums the same rows.
        for &symmetry in &Symmetry::ALL {
            let image = board.transformed(symmetry);
            assert_eq!(sorted_rows(&image), sorted_rows(&board), "{symmetry:?}");
        }
        assert_ne!(
            sorted_rows(&board),
            sorted_rows(&Board::START),
            "the rows follow the position"
        );
    }
}
