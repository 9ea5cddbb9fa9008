//! `oxello train`: fits the pattern weights to labelled positions.
//!
//! Games are split into training and validation sets by a seeded hash of their number. Each
//! phase is fitted on its own (phases run in parallel, each one sequential, so the result
//! depends only on the seed): least squares by stochastic gradient descent with per-slot
//! AdaGrad steps and an L2 penalty that keeps rarely seen patterns near zero.
//!
//! Positions come labelled with their games' results (WTHOR games, selfplay transcripts) or
//! with search scores (`oxello label` files), or both; a labels file's scores are first
//! blended with the labels after them in their game (`--label-lambda`, as `train-network`
//! does), so that the endgame's exact scores correct what the searches got wrong.

use super::dataset::{
    all_examples, label_examples_by_file, label_floor, labelling_bar, load_all_games, Example,
    ExamplesByGame, GameSources, LabelBlending,
};
use super::label_files::format::LabelsHeader;
use crate::batch::progress_bar;
use crate::eval::indices::for_each_slot;
use crate::eval::patterns::{phase_empties, phase_of, tables, PHASES};
use crate::eval::weights::SCALE;
use crate::eval::{Evaluation, Evaluator, PatternEvaluator, Weights};
use crate::random::seeded_hash;
use rayon::prelude::*;
use std::path::PathBuf;

/// Training settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainConfig {
    pub epochs: u32,
    pub learning_rate: f32,
    /// L2 penalty per slot update.
    pub l2: f32,
    /// Per cent of the games kept for validation.
    pub validation_percent: u64,
    pub seed: u64,
    /// A training position also trains the phases whose empties lie within this many of its
    /// own, so that neighbouring phases share data and their weights change smoothly.
    pub phase_overlap: u32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 12,
            learning_rate: 1.0,
            l2: 0.001,
            validation_percent: 10,
            seed: 1,
            phase_overlap: 0,
        }
    }
}

/// Validation error of one phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseReport {
    pub phase: usize,
    pub training_positions: usize,
    pub validation_positions: usize,
    /// Mean absolute error of the starting weights (all zero, predicting a draw, unless
    /// training starts from other weights).
    pub mae_before: f64,
    /// Mean absolute error of the trained evaluation, in discs.
    pub mae_after: f64,
    /// The least error any evaluation can reach on these validation labels (see
    /// `dataset::label_floor`).
    pub floor: f64,
}

/// Whether game number `game` belongs to the validation set.
pub fn is_validation(game: u64, config: &TrainConfig) -> bool {
    seeded_hash(config.seed, game) % 100 < config.validation_percent
}

/// Splits the examples of numbered games into per-phase training and validation sets, a game
/// wholly on one side.
pub fn split(
    per_game: Vec<(u64, Vec<Example>)>,
    config: &TrainConfig,
) -> (Vec<Vec<Example>>, Vec<Vec<Example>>) {
    let mut training = vec![Vec::new(); PHASES];
    let mut validation = vec![Vec::new(); PHASES];
    for (game, examples) in per_game {
        if is_validation(game, config) {
            for example in examples {
                validation[phase_of(example.board.empty_count())].push(example);
            }
            continue;
        }
        for example in examples {
            let empties = example.board.empty_count();
            for (phase, phase_examples) in training.iter_mut().enumerate() {
                let (low, high) = phase_empties(phase);
                if empties + config.phase_overlap >= low && empties <= high + config.phase_overlap {
                    phase_examples.push(example);
                }
            }
        }
    }
    (training, validation)
}

/// Fits one phase's weights (in discs) to its examples, starting from `initial`; from all
/// zero, the bias starts at the mean label.
fn fit_phase(
    examples: &[Example],
    phase: usize,
    initial: Vec<f32>,
    config: &TrainConfig,
    progress: &(dyn Fn() + Sync),
) -> Vec<f32> {
    let slots = tables().slots;
    let mut weights = initial;
    let mut squared = vec![0f32; slots];
    if !examples.is_empty() && weights.iter().all(|&w| w == 0.0) {
        weights[tables().bias_slot()] =
            examples.iter().map(|e| e.label).sum::<f32>() / examples.len() as f32;
    }
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut touched = Vec::with_capacity(64);
    for epoch in 0..config.epochs {
        for i in (1..order.len()).rev() {
            let j = (seeded_hash(
                config.seed ^ (phase as u64) << 32,
                (u64::from(epoch) << 40) | i as u64,
            ) % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for &i in &order {
            let example = &examples[i];
            touched.clear();
            for_each_slot(&example.board, |slot| touched.push(slot));
            let prediction: f32 = touched.iter().map(|&s| weights[s]).sum();
            let error = prediction - example.label;
            for &slot in &touched {
                let gradient = error + config.l2 * weights[slot];
                squared[slot] += gradient * gradient;
                weights[slot] -= config.learning_rate * gradient / (squared[slot] + 1.0).sqrt();
            }
        }
        progress();
    }
    weights
}

/// Where the numbers of games read with their results start, so that they never meet the ranks
/// of labelled games in the validation split.
const GAME_NUMBERS_START: u64 = 1 << 40;

/// The empties over which the headline error is measured: the midgame, where the evaluation
/// matters (the solver takes over later).
pub const MIDGAME_EMPTIES: std::ops::RangeInclusive<u32> = 24..=59;

/// The examples with `MIDGAME_EMPTIES` empties, over which the headline error is measured.
pub fn midgame_examples<'e>(examples: impl IntoIterator<Item = &'e Example>) -> Vec<Example> {
    examples
        .into_iter()
        .filter(|e| MIDGAME_EMPTIES.contains(&e.board.empty_count()))
        .copied()
        .collect()
}

/// Mean absolute error of an evaluator over examples (0 when there are none).
pub fn mean_absolute_error(
    evaluator: &(dyn Evaluator<crate::board::Board> + Sync),
    examples: &[Example],
) -> f64 {
    if examples.is_empty() {
        return 0.0;
    }
    let total: f64 = examples
        .par_iter()
        .map(|e| f64::from((evaluator.evaluate(&e.board) as f32 - e.label).abs()))
        .sum();
    total / examples.len() as f64
}

/// Trains weights on `training` (per phase) from `initial` and measures them on `validation`.
pub fn train(
    training: &[Vec<Example>],
    validation: &[Vec<Example>],
    initial: &Weights,
    config: &TrainConfig,
    progress: &(dyn Fn() + Sync),
) -> (Weights, Vec<PhaseReport>) {
    let fitted: Vec<Vec<f32>> = (0..PHASES)
        .into_par_iter()
        .map(|phase| {
            let start = initial
                .phase(phase)
                .iter()
                .map(|&w| f32::from(w) / SCALE as f32)
                .collect();
            fit_phase(&training[phase], phase, start, config, progress)
        })
        .collect();
    let slots = tables().slots;
    let mut weights = Weights::zero();
    for (phase, values) in fitted.iter().enumerate() {
        for (slot, &w) in values.iter().enumerate() {
            weights.values[phase * slots + slot] = (w * SCALE as f32)
                .round()
                .clamp(f32::from(i16::MIN), f32::from(i16::MAX))
                as i16;
        }
    }
    let trained = PatternEvaluator::new(weights.clone());
    let untrained = PatternEvaluator::new(initial.clone());
    let reports = (0..PHASES)
        .map(|phase| PhaseReport {
            phase,
            training_positions: training[phase].len(),
            validation_positions: validation[phase].len(),
            mae_before: mean_absolute_error(&untrained, &validation[phase]),
            mae_after: mean_absolute_error(&trained, &validation[phase]),
            floor: label_floor(&validation[phase]),
        })
        .collect();
    (weights, reports)
}

/// An error when neither games nor labels files are named: nothing to train on.
pub fn ensure_training_data(games: &GameSources, labels: &[PathBuf]) -> anyhow::Result<()> {
    if games.is_empty() && labels.is_empty() {
        anyhow::bail!("nothing to train on: name game files, a --data directory or --labels files");
    }
    Ok(())
}

/// The examples a training tool reads, grouped by game: the positions of `games` labelled with
/// their results (exact from `exact_empties`; `evaluation` orders the solver's moves), numbered
/// apart from the ranks of labelled games, and the positions of each of the `labels` files
/// with its header, numbered by their games' ranks. Says on stderr how many it read.
pub fn load_examples(
    games: &GameSources,
    labels: &[PathBuf],
    exact_empties: u32,
    evaluation: &Evaluation,
) -> anyhow::Result<(ExamplesByGame, Vec<(LabelsHeader, ExamplesByGame)>)> {
    ensure_training_data(games, labels)?;
    let mut per_game = Vec::new();
    if !games.is_empty() {
        let files = games.files()?;
        let games = load_all_games(&files)?;
        eprintln!(
            "{} games from {} files; labelling positions (exact from {exact_empties} empties)",
            games.len(),
            files.len(),
        );
        let bar = labelling_bar(games.len());
        let examples = all_examples(&games, exact_empties, evaluation, &|| bar.inc(1))?;
        bar.finish_and_clear();
        // Game numbers of their own, apart from the ranks of labelled games.
        per_game.extend((GAME_NUMBERS_START..).zip(examples));
    }
    let labelled = label_examples_by_file(labels)?;
    let games_of = || labelled.iter().flat_map(|(_, per_game)| per_game);
    if !labels.is_empty() {
        eprintln!(
            "{} positions of {} games from {} labels files",
            games_of().map(|(_, e)| e.len()).sum::<usize>(),
            games_of().count(),
            labels.len()
        );
    }
    Ok((per_game, labelled))
}

/// `oxello train`: fits pattern weights to games and labelled positions.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    #[command(flatten)]
    games: GameSources,
    /// Labels files written by `oxello label` (positions with search scores), instead of or
    /// beside games.
    #[arg(long = "labels", num_args = 1..)]
    labels: Vec<PathBuf>,
    /// How many times each labelled position counts in training against a game's position:
    /// a search score is a much less noisy label than a game's result.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    label_weight: u32,
    #[command(flatten)]
    blending: LabelBlending,
    /// Start from these weights (`linear`: the built-in linear weights, which `builtin` also
    /// names here, or a weights file) rather than from zero.
    #[arg(long)]
    init: Option<String>,
    /// Where to write the weights.
    #[arg(long, default_value = "oxello.weights")]
    output: PathBuf,
    /// Passes over the training positions.
    #[arg(long, default_value_t = TrainConfig::default().epochs)]
    epochs: u32,
    /// AdaGrad learning rate.
    #[arg(long, default_value_t = TrainConfig::default().learning_rate)]
    learning_rate: f32,
    /// L2 penalty.
    #[arg(long, default_value_t = TrainConfig::default().l2)]
    l2: f32,
    /// Per cent of the games kept for validation.
    #[arg(long, default_value_t = TrainConfig::default().validation_percent)]
    validation: u64,
    /// Seed of the split and the shuffles.
    #[arg(long, default_value_t = TrainConfig::default().seed)]
    seed: u64,
    /// Train each phase also on the positions within this many empties of its own
    #[arg(long, default_value_t = TrainConfig::default().phase_overlap)]
    phase_overlap: u32,
    /// Label positions with at most this many empties by solving them exactly.
    #[arg(long, default_value_t = 12)]
    exact_empties: u32,
}

/// Runs `oxello train`: labels the games' positions (`evaluation` orders the exact solver's
/// moves), fits the weights, writes them, and prints the error per phase.
pub fn run(args: &TrainArgs, evaluation: &Evaluation) -> anyhow::Result<()> {
    let config = TrainConfig {
        epochs: args.epochs,
        learning_rate: args.learning_rate,
        l2: args.l2,
        validation_percent: args.validation,
        seed: args.seed,
        phase_overlap: args.phase_overlap,
    };
    let (per_game, labelled) =
        load_examples(&args.games, &args.labels, args.exact_empties, evaluation)?;
    let labelled = args.blending.blend(labelled);
    let (labelled_training, labelled_validation) = split(labelled, &config);
    let initial = match args.init.as_deref() {
        None => Weights::zero(),
        Some("linear" | "builtin" | "built-in") => PatternEvaluator::built_in_weights(),
        Some(path) => {
            let bytes = std::fs::read(path)
                .map_err(|e| anyhow::anyhow!("cannot read weights '{path}': {e}"))?;
            Weights::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("{path}: {e}"))?
        }
    };
    let (mut training, mut validation) = split(per_game, &config);
    for (phase, examples) in labelled_training.into_iter().enumerate() {
        for _ in 0..args.label_weight {
            training[phase].extend_from_slice(&examples);
        }
    }
    for (phase, examples) in labelled_validation.into_iter().enumerate() {
        validation[phase].extend(examples);
    }
    let bar = progress_bar(
        u64::from(config.epochs) * PHASES as u64,
        "{bar:30} {pos}/{len} phase epochs [{elapsed}]",
    );
    let (weights, reports) = train(&training, &validation, &initial, &config, &|| bar.inc(1));
    bar.finish_and_clear();
    std::fs::write(&args.output, weights.to_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.output.display()))?;
    println!(
        "{:>5} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "phase", "empties", "training", "validation", "MAE start", "MAE", "floor"
    );
    for r in &reports {
        let (low, high) = phase_empties(r.phase);
        println!(
            "{:>5} {:>7} {:>10} {:>10} {:>10.2} {:>10.2} {:>10.2}",
            r.phase,
            format!("{low}-{high}"),
            r.training_positions,
            r.validation_positions,
            r.mae_before,
            r.mae_after,
            r.floor
        );
    }
    let evaluator = PatternEvaluator::new(weights);
    let midgame = midgame_examples(validation.iter().flatten());
    println!(
        "validation MAE over 24-59 empties: {:.2} discs, floor {:.2} ({} positions); weights written to {}",
        mean_absolute_error(&evaluator, &midgame),
        label_floor(&midgame),
        midgame.len(),
        args.output.display()
    );
    Ok(())
}
