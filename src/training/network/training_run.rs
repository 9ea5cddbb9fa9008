//! A training run: reads and labels the examples a plan names, trains a network on them,
//! quantises it and measures its errors.

use super::model::Sample;
use super::trainer::{errors, train_network, NetworkTrainConfig};
use crate::batch::progress_bar;
use crate::board::Board;
use crate::eval::network::{NetworkEvaluator, NetworkWeights};
use crate::eval::{Evaluation, Evaluator, PatternEvaluator};
use crate::training::dataset::{
    label_examples_by_file, Example, ExamplesByGame, GameSources, LabelBlending,
};
use crate::training::train::{ensure_training_data, is_validation, load_examples, TrainConfig};
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::PathBuf;

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

/// The training and validation samples of `plan`'s games and labels files. Each labels file
/// becomes samples as soon as it is read, so that a run holds at its peak its samples and one
/// file's examples, not every file's examples beside them.
fn read_samples(
    plan: &TrainingPlan<'_>,
    config: &NetworkTrainConfig,
    evaluation: &Evaluation,
    linear: &PatternEvaluator,
) -> anyhow::Result<(Vec<Sample>, Vec<Sample>)> {
    let split = |per_game: &ExamplesByGame, weight, searched| {
        samples_of(
            per_game,
            weight,
            searched,
            config.seed,
            config.validation_percent,
            linear,
        )
    };
    ensure_training_data(plan.games, plan.labels)?;
    let (mut training, mut validation) = if plan.games.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        let (results, _) = load_examples(plan.games, &[], plan.exact_empties, evaluation)?;
        split(&results, 1.0, false)
    };
    let (mut positions, mut games) = (0, 0);
    for file in plan.labels {
        let labelled = plan
            .blending
            .blend(label_examples_by_file(std::slice::from_ref(file))?);
        positions += labelled.iter().map(|(_, e)| e.len()).sum::<usize>();
        games += labelled.len();
        let (file_training, file_validation) = split(&labelled, plan.label_weight, true);
        training.extend(file_training);
        validation.extend(file_validation);
    }
    if !plan.labels.is_empty() {
        eprintln!(
            "{positions} positions of {games} games from {} labels files",
            plan.labels.len()
        );
    }
    Ok((training, validation))
}

/// What a network is trained on and how: the command line's settings, or a recipe's.
#[derive(Clone, Debug)]
pub struct TrainingPlan<'a> {
    pub games: &'a GameSources,
    pub labels: &'a [PathBuf],
    pub validation_labels: &'a [PathBuf],
    pub label_weight: f32,
    pub blending: LabelBlending,
    pub exact_empties: u32,
    pub config: NetworkTrainConfig,
}

/// A trained network, quantised, and its midgame errors on the validation positions.
#[derive(Clone, Debug)]
pub struct TrainedNetwork {
    pub weights: NetworkWeights,
    /// The validation positions the errors are measured on (searched, midgame).
    pub headline_positions: usize,
    /// The linear evaluation's error, the float network's and the integer network's, in discs.
    pub linear_error: f64,
    pub float_error: f64,
    pub integer_error: f64,
}

/// Reads and labels the examples of `plan`, trains a network on them (showing progress on
/// stderr) and quantises it. Deterministic for the plan's seed, whatever the threads.
pub fn train_from_files(
    plan: &TrainingPlan<'_>,
    evaluation: &Evaluation,
) -> anyhow::Result<TrainedNetwork> {
    let config = NetworkTrainConfig {
        // Files that judge leave every game of the training files to training.
        validation_percent: if plan.validation_labels.is_empty() {
            plan.config.validation_percent
        } else {
            0
        },
        ..plan.config
    };
    let linear = PatternEvaluator::built_in();
    let (mut training, mut validation) = read_samples(plan, &config, evaluation, &linear)?;
    if !plan.validation_labels.is_empty() {
        let judged = plan
            .blending
            .blend(label_examples_by_file(plan.validation_labels)?);
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
    let headline_positions = validation.iter().filter(|s| s.is_headline()).count();
    eprintln!(
        "{} training and {} validation positions ({headline_positions} of them searched, midgame)",
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
            let line = format!(
                "epoch {}: validation loss {:.3}, midgame error {:.3} discs",
                report.epoch + 1,
                report.validation_loss,
                report.headline_error
            );
            bar.set_message(line.clone());
            bar.suspend(|| eprintln!("{line}"));
        },
    );
    bar.finish_and_clear();
    let weights = network.quantised(linear.checksum());
    let (_, float_error) = errors(&network, &validation);
    let evaluator = NetworkEvaluator::new(linear.clone(), &weights)?;
    let integer_error = headline_error(&validation, |s| f64::from(evaluator.evaluate(&s.board)));
    Ok(TrainedNetwork {
        weights,
        headline_positions,
        linear_error,
        float_error,
        integer_error,
    })
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
