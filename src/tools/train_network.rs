//! `oxello train-network`: trains the network evaluation ([`crate::eval::network`]) on the
//! errors of the built-in linear evaluation.
//!
//! Minibatch gradient descent with Adam on the squared error in discs. A position's gradient
//! reaches only the rows it sums, so a minibatch updates only the rows it touched (lazy Adam:
//! a row's moments move when it has a gradient). Training is deterministic for a seed whatever
//! the threads: each minibatch is cut into a fixed number of pieces worked in parallel and
//! merged in order. Games are split into training and validation as `oxello train` splits
//! them; the weights of the epoch with the least validation error are kept (the midgame error
//! against searched labels where there are any, else the loss), and training stops when
//! `--patience` epochs in a row have not improved on it. The result is quantised to the
//! evaluation's integers and its error measured again. A searched label is first blended with
//! the labels after it in its game (`--label-lambda`; a static one, of a depth-0 file, with
//! `--static-label-lambda`), in training and validation alike.

use super::dataset::{label_examples_by_file, Example, ExamplesByGame, GameSources, LabelBlending};
use super::progress_bar;
use super::train::{is_validation, load_examples, TrainConfig, MIDGAME_EMPTIES};
use crate::board::Board;
use crate::eval::indices::for_each_slot;
use crate::eval::network::{
    NetworkEvaluator, NetworkWeights, ACTIVATION_ONE, BIAS_LIMIT, CORRECTION_LIMIT, HIDDEN,
    OUTPUT_ONE, ROW_LIMIT, SUMMED_ROWS,
};
use crate::eval::patterns::{phase_of, PHASES};
use crate::eval::{Evaluation, Evaluator, PatternEvaluator};
use crate::random::seeded_hash;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::PathBuf;

/// Pieces a minibatch is cut into: fixed, so that results do not depend on the threads.
const PIECES: usize = 16;

/// Training settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetworkTrainConfig {
    pub epochs: u32,
    pub batch: usize,
    pub learning_rate: f32,
    /// L2 penalty on the weights a minibatch touches.
    pub l2: f32,
    /// Per cent of the games kept for validation.
    pub validation_percent: u64,
    pub seed: u64,
    /// Epochs without a better validation loss before training stops.
    pub patience: u32,
}

impl Default for NetworkTrainConfig {
    fn default() -> Self {
        NetworkTrainConfig {
            epochs: 30,
            batch: 4096,
            learning_rate: 0.002,
            l2: 0.001,
            validation_percent: 10,
            seed: 1,
            patience: 3,
        }
    }
}

/// A position as the trainer sees it: the rows it sums, the linear evaluation's score, its
/// label and how much it counts.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    board: Board,
    rows: [u32; SUMMED_ROWS],
    empties: u8,
    /// Whether the label is a search's score (else a game's result).
    searched: bool,
    weight: f32,
    /// The linear evaluation's score in discs, before rounding.
    linear: f32,
    label: f32,
}

impl Sample {
    /// The sample of `board` labelled `label`, counting `weight` times.
    pub fn new(
        linear: &PatternEvaluator,
        board: &Board,
        label: f32,
        weight: f32,
        searched: bool,
    ) -> Sample {
        let mut rows = [0u32; SUMMED_ROWS];
        let mut count = 0;
        for_each_slot(board, |slot| {
            // The last slot is the linear evaluation's bias, which has no row.
            if count < SUMMED_ROWS {
                rows[count] = slot as u32;
            }
            count += 1;
        });
        assert_eq!(count, SUMMED_ROWS + 1, "slots of a position");
        Sample {
            board: *board,
            rows,
            empties: board.empty_count() as u8,
            searched,
            weight,
            linear: linear.raw(board) as f32 / 256.0,
            label,
        }
    }

    /// The position.
    pub fn board(&self) -> &Board {
        &self.board
    }

    fn phase(&self) -> usize {
        phase_of(u32::from(self.empties))
    }

    /// Whether the sample counts in the headline error: a searched label in the midgame.
    fn is_headline(&self) -> bool {
        self.searched && MIDGAME_EMPTIES.contains(&u32::from(self.empties))
    }
}

/// The network in floating point, as it trains: the same shape as [`NetworkWeights`], rows in
/// activation units, outputs in discs.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    rows: Vec<[f32; HIDDEN]>,
    hidden_bias: [f32; HIDDEN],
    output: Vec<[f32; HIDDEN]>,
    output_bias: Vec<f32>,
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

    fn accumulator(&self, sample: &Sample) -> [f32; HIDDEN] {
        let mut sum = self.hidden_bias;
        for &row in &sample.rows {
            for (s, w) in sum.iter_mut().zip(self.rows[row as usize].iter()) {
                *s += w;
            }
        }
        sum
    }

    /// The evaluation of a sample in discs, linear part included.
    pub fn predict(&self, sample: &Sample) -> f32 {
        let phase = sample.phase();
        let active = self.accumulator(sample).map(|a| a.clamp(0.0, 1.0));
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
fn add_into<const N: usize>(sum: &mut [f32; N], add: &[f32; N]) {
    for (s, a) in sum.iter_mut().zip(add) {
        *s += a;
    }
}

fn dot(a: &[f32; HIDDEN], b: &[f32; HIDDEN]) -> f32 {
    a.iter().zip(b.iter()).map(|(x, y)| x * y).sum()
}

/// The gradients of one piece of a minibatch: the small dense parameters', and per sample the
/// gradient of its accumulator (which each of its rows receives).
struct PieceGradients {
    hidden_bias: [f32; HIDDEN],
    output: Vec<[f32; HIDDEN]>,
    output_bias: Vec<f32>,
    accumulators: Vec<[f32; HIDDEN]>,
}

impl PieceGradients {
    /// The gradients of the weighted squared error over `samples`, divided by `total_weight`.
    fn of(network: &FloatNetwork, samples: &[&Sample], total_weight: f32) -> PieceGradients {
        let mut gradients = PieceGradients {
            hidden_bias: [0.0; HIDDEN],
            output: vec![[0.0; HIDDEN]; PHASES],
            output_bias: vec![0.0; PHASES],
            accumulators: Vec::with_capacity(samples.len()),
        };
        for sample in samples {
            let phase = sample.phase();
            let accumulator = network.accumulator(sample);
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

/// Adam's moments of one parameter vector.
#[derive(Clone)]
struct Moments<const N: usize> {
    first: [f32; N],
    second: [f32; N],
}

impl<const N: usize> Moments<N> {
    const ZERO: Moments<N> = Moments {
        first: [0.0; N],
        second: [0.0; N],
    };
}

/// Adam's settings and step count.
struct Adam {
    learning_rate: f32,
    l2: f32,
    step: i32,
}

impl Adam {
    const BETA1: f32 = 0.9;
    const BETA2: f32 = 0.999;
    const EPSILON: f32 = 1e-8;

    /// One step of `weights` along `gradient`.
    #[inline]
    fn update<const N: usize>(
        &self,
        weights: &mut [f32; N],
        gradient: &[f32; N],
        moments: &mut Moments<N>,
    ) {
        let corrected_rate = self.learning_rate * (1.0 - Self::BETA2.powi(self.step)).sqrt()
            / (1.0 - Self::BETA1.powi(self.step));
        for i in 0..N {
            let g = gradient[i] + self.l2 * weights[i];
            moments.first[i] = Self::BETA1 * moments.first[i] + (1.0 - Self::BETA1) * g;
            moments.second[i] = Self::BETA2 * moments.second[i] + (1.0 - Self::BETA2) * g * g;
            weights[i] -=
                corrected_rate * moments.first[i] / (moments.second[i].sqrt() + Self::EPSILON);
        }
    }
}

/// One Adam step of the rows a minibatch touched. `minibatch` is its samples, the length of
/// its pieces and their gradients. The rows are cut into blocks updated in parallel, each
/// taking its rows' gradients from every sample in order, so that the sums do not depend on
/// the threads; `gradients` is all zero before and after.
fn update_rows(
    adam: &Adam,
    rows: &mut [[f32; HIDDEN]],
    moments: &mut [Moments<HIDDEN>],
    gradients: &mut [[f32; HIDDEN]],
    (samples, piece, pieces): (&[&Sample], usize, &[PieceGradients]),
) {
    let block = rows.len().div_ceil(PIECES);
    rows.par_chunks_mut(block)
        .zip(moments.par_chunks_mut(block))
        .zip(gradients.par_chunks_mut(block))
        .enumerate()
        .for_each(|(number, ((weights, moments), gradients))| {
            let first = number * block;
            let mut touched = Vec::new();
            for (part, piece) in samples.chunks(piece).zip(pieces) {
                for (sample, to_accumulator) in part.iter().zip(&piece.accumulators) {
                    for &row in &sample.rows {
                        let at = (row as usize).wrapping_sub(first);
                        if at >= gradients.len() {
                            continue;
                        }
                        if gradients[at] == [0.0; HIDDEN] {
                            touched.push(at);
                        }
                        add_into(&mut gradients[at], to_accumulator);
                    }
                }
            }
            touched.sort_unstable();
            touched.dedup();
            // What a row's byte holds, so that quantising never clips a trained weight.
            let limit = ROW_LIMIT as f32 / ACTIVATION_ONE as f32;
            for at in touched {
                adam.update(&mut weights[at], &gradients[at], &mut moments[at]);
                for w in &mut weights[at] {
                    *w = w.clamp(-limit, limit);
                }
                gradients[at] = [0.0; HIDDEN];
            }
        });
}

/// What one epoch ended with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    pub epoch: u32,
    /// Weighted mean squared error over the validation samples.
    pub validation_loss: f64,
    /// Mean absolute error over the headline validation samples, in discs.
    pub headline_error: f64,
}

/// The weighted mean squared error and the headline mean absolute error of `network` on
/// `samples`.
pub fn errors(network: &FloatNetwork, samples: &[Sample]) -> (f64, f64) {
    let (squared, weight, absolute, headline) = samples
        .par_iter()
        .map(|s| {
            let error = f64::from(network.predict(s) - s.label);
            let counts = s.is_headline();
            (
                f64::from(s.weight) * error * error,
                f64::from(s.weight),
                if counts { error.abs() } else { 0.0 },
                usize::from(counts),
            )
        })
        .reduce(
            || (0.0, 0.0, 0.0, 0),
            |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3),
        );
    (
        squared / weight.max(f64::MIN_POSITIVE),
        absolute / headline.max(1) as f64,
    )
}

/// Trains a network on `training` from its initial state, keeping the one that does best on
/// `validation`; `progress` is called after each minibatch, `epoch_done` after each epoch.
pub fn train_network(
    training: &[Sample],
    validation: &[Sample],
    config: &NetworkTrainConfig,
    progress: &(dyn Fn() + Sync),
    epoch_done: &mut dyn FnMut(&EpochReport),
) -> FloatNetwork {
    let mut network = FloatNetwork::initial(config.seed);
    // Judged by the midgame error against searched labels where there are any: the endgame's
    // exact labels and games' results, which the loss weighs most, are not what the
    // evaluation is for in play.
    let has_headline = validation.iter().any(Sample::is_headline);
    let criterion = |(loss, headline): (f64, f64)| if has_headline { headline } else { loss };
    let mut best = (criterion(errors(&network, validation)), network.clone());
    let mut row_moments = vec![Moments::<HIDDEN>::ZERO; network.rows.len()];
    let mut row_gradients = vec![[0f32; HIDDEN]; network.rows.len()];
    let mut bias_moments = Moments::<HIDDEN>::ZERO;
    let mut output_moments = vec![Moments::<HIDDEN>::ZERO; PHASES];
    let mut output_bias_moments = vec![Moments::<1>::ZERO; PHASES];
    let mut adam = Adam {
        learning_rate: config.learning_rate,
        l2: config.l2,
        step: 0,
    };
    let mut order: Vec<u32> = (0..training.len() as u32).collect();
    let mut stale_epochs = 0;
    for epoch in 0..config.epochs {
        for i in (1..order.len()).rev() {
            let j = seeded_hash(config.seed ^ u64::from(epoch) << 48, i as u64) % (i as u64 + 1);
            order.swap(i, j as usize);
        }
        for batch in order.chunks(config.batch) {
            let samples: Vec<&Sample> = batch.iter().map(|&i| &training[i as usize]).collect();
            let total_weight: f32 = samples.iter().map(|s| s.weight).sum();
            let piece = samples.len().div_ceil(PIECES);
            let pieces: Vec<PieceGradients> = samples
                .par_chunks(piece)
                .map(|part| PieceGradients::of(&network, part, total_weight))
                .collect();
            adam.step += 1;
            let mut hidden_bias = [0f32; HIDDEN];
            let mut output = [[0f32; HIDDEN]; PHASES];
            let mut output_bias = [[0f32; 1]; PHASES];
            for gradients in &pieces {
                add_into(&mut hidden_bias, &gradients.hidden_bias);
                for phase in 0..PHASES {
                    add_into(&mut output[phase], &gradients.output[phase]);
                    output_bias[phase][0] += gradients.output_bias[phase];
                }
            }
            update_rows(
                &adam,
                &mut network.rows,
                &mut row_moments,
                &mut row_gradients,
                (&samples, piece, &pieces),
            );
            adam.update(&mut network.hidden_bias, &hidden_bias, &mut bias_moments);
            for phase in 0..PHASES {
                adam.update(
                    &mut network.output[phase],
                    &output[phase],
                    &mut output_moments[phase],
                );
                let mut bias = [network.output_bias[phase]];
                adam.update(
                    &mut bias,
                    &output_bias[phase],
                    &mut output_bias_moments[phase],
                );
                network.output_bias[phase] = bias[0];
            }
            progress();
        }
        let (validation_loss, headline_error) = errors(&network, validation);
        epoch_done(&EpochReport {
            epoch,
            validation_loss,
            headline_error,
        });
        let measure = criterion((validation_loss, headline_error));
        if measure < best.0 {
            best = (measure, network.clone());
            stale_epochs = 0;
        } else {
            stale_epochs += 1;
            if stale_epochs >= config.patience {
                break;
            }
        }
    }
    best.1
}

/// `oxello train-network`: trains the network evaluation on games and labelled positions.
#[derive(clap::Args, Debug)]
pub struct TrainNetworkArgs {
    #[command(flatten)]
    games: GameSources,
    /// Labels files written by `oxello label` (plain or packed).
    #[arg(long = "labels", num_args = 1..)]
    labels: Vec<PathBuf>,
    /// Labels files whose positions only judge the network (never trained on: a training
    /// position among them is dropped): the epoch kept and the errors printed are theirs.
    /// Positions like those the engine meets in play (selfplay games from XOT openings) judge
    /// it better than held-out games of the training set, which share their openings with it.
    #[arg(long = "validation-labels", num_args = 1..)]
    validation_labels: Vec<PathBuf>,
    /// How much a labelled position counts against a game's position: a search score is a
    /// much less noisy label than a game's result.
    #[arg(long, default_value_t = 3.0)]
    label_weight: f32,
    #[command(flatten)]
    blending: LabelBlending,
    /// Label games' positions with at most this many empties by solving them exactly.
    #[arg(long, default_value_t = 12)]
    exact_empties: u32,
    /// Where to write the network.
    #[arg(long, default_value = "oxello.network")]
    output: PathBuf,
    /// Most passes over the training positions.
    #[arg(long, default_value_t = NetworkTrainConfig::default().epochs)]
    epochs: u32,
    /// Positions per minibatch.
    #[arg(long, default_value_t = NetworkTrainConfig::default().batch as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    batch: u32,
    /// Adam's learning rate.
    #[arg(long, default_value_t = NetworkTrainConfig::default().learning_rate)]
    learning_rate: f32,
    /// L2 penalty.
    #[arg(long, default_value_t = NetworkTrainConfig::default().l2)]
    l2: f32,
    /// Per cent of the games kept for validation (none with `--validation-labels`).
    #[arg(long, default_value_t = NetworkTrainConfig::default().validation_percent)]
    validation: u64,
    /// Seed of the split, the starting weights and the shuffles.
    #[arg(long, default_value_t = NetworkTrainConfig::default().seed)]
    seed: u64,
    /// Epochs without a better validation loss before training stops.
    #[arg(long, default_value_t = NetworkTrainConfig::default().patience)]
    patience: u32,
}

/// Splits games' examples into training and validation samples, a game wholly on one side.
fn samples_of(
    per_game: &ExamplesByGame,
    weight: f32,
    searched: bool,
    seed: u64,
    validation_percent: u64,
    linear: &PatternEvaluator,
) -> (Vec<Sample>, Vec<Sample>) {
    let split = TrainConfig {
        validation_percent,
        seed,
        ..TrainConfig::default()
    };
    let to_samples = |validation: bool| -> Vec<Sample> {
        per_game
            .par_iter()
            .filter(|(game, _)| is_validation(*game, &split) == validation)
            .flat_map_iter(|(_, examples)| {
                examples
                    .iter()
                    .map(|e: &Example| Sample::new(linear, &e.board, e.label, weight, searched))
            })
            .collect()
    };
    (to_samples(false), to_samples(true))
}

/// Runs `oxello train-network`: reads and labels the examples, trains, quantises, writes the
/// network and prints its errors beside the linear evaluation's.
pub fn run(args: &TrainNetworkArgs, evaluation: &Evaluation) -> anyhow::Result<()> {
    let config = NetworkTrainConfig {
        epochs: args.epochs,
        batch: args.batch as usize,
        learning_rate: args.learning_rate,
        l2: args.l2,
        // Files that judge leave every game of the training files to training.
        validation_percent: if args.validation_labels.is_empty() {
            args.validation
        } else {
            0
        },
        seed: args.seed,
        patience: args.patience,
    };
    let (results, labelled) =
        load_examples(&args.games, &args.labels, args.exact_empties, evaluation)?;
    let labelled = args.blending.blend(labelled);
    let linear = PatternEvaluator::built_in();
    let (mut training, mut validation) = samples_of(
        &results,
        1.0,
        false,
        config.seed,
        config.validation_percent,
        &linear,
    );
    let (searched_training, searched_validation) = samples_of(
        &labelled,
        args.label_weight,
        true,
        config.seed,
        config.validation_percent,
        &linear,
    );
    training.extend(searched_training);
    validation.extend(searched_validation);
    drop((results, labelled));
    if !args.validation_labels.is_empty() {
        let judged = args
            .blending
            .blend(label_examples_by_file(&args.validation_labels)?);
        validation = judged
            .iter()
            .flat_map(|(_, examples)| examples)
            .map(|e| Sample::new(&linear, &e.board, e.label, 1.0, true))
            .collect();
        // Selfplay from the same openings repeats whole games: what judges is never trained on.
        let judged: HashSet<Board> = validation.iter().map(|s| s.board.canonical().0).collect();
        let before = training.len();
        training.retain(|s| !judged.contains(&s.board.canonical().0));
        eprintln!(
            "{} training positions dropped as validation positions",
            before - training.len()
        );
    }
    if training.is_empty() || validation.is_empty() {
        anyhow::bail!("too few games to train on and validate with");
    }
    let headline = validation.iter().filter(|s| s.is_headline()).count();
    eprintln!(
        "{} training and {} validation positions ({headline} of them searched, midgame)",
        training.len(),
        validation.len(),
    );
    let batches = training.len().div_ceil(config.batch) as u64;
    let bar = progress_bar(
        u64::from(config.epochs) * batches,
        "{bar:30} {pos}/{len} minibatches [{elapsed}<{eta}] {msg}",
    );
    let linear_error = headline_error(&validation, |s| f64::from(s.linear));
    let network = train_network(
        &training,
        &validation,
        &config,
        &|| bar.inc(1),
        &mut |report| {
            bar.set_message(format!(
                "epoch {}: validation loss {:.3}, midgame error {:.3}",
                report.epoch + 1,
                report.validation_loss,
                report.headline_error
            ));
            bar.suspend(|| {
                eprintln!(
                    "epoch {}: validation loss {:.3}, midgame error {:.3} discs",
                    report.epoch + 1,
                    report.validation_loss,
                    report.headline_error
                )
            });
        },
    );
    bar.finish_and_clear();
    let weights = network.quantised(linear.checksum());
    std::fs::write(&args.output, weights.to_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.output.display()))?;
    let (_, float_error) = errors(&network, &validation);
    let evaluator = NetworkEvaluator::new(linear.clone(), &weights)?;
    let integer_error = headline_error(&validation, |s| f64::from(evaluator.evaluate(&s.board)));
    println!(
        "midgame validation error (24-59 empties, searched labels blended with λ {}, {} \
         positions): linear {:.3}, network {:.3} (float, unrounded), {:.3} (as evaluated: \
         integers, whole discs); network written to {}",
        args.blending.label_lambda,
        headline,
        linear_error,
        float_error,
        integer_error,
        args.output.display()
    );
    Ok(())
}

/// The mean absolute error of `score` over the headline samples.
fn headline_error(samples: &[Sample], score: impl Fn(&Sample) -> f64 + Sync) -> f64 {
    let (total, count) = samples
        .par_iter()
        .filter(|s| s.is_headline())
        .map(|s| ((score(s) - f64::from(s.label)).abs(), 1usize))
        .reduce(|| (0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    total / count.max(1) as f64
}
