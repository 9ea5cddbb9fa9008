//! The command line of `oxello train-network`: trains on the files named and writes the
//! network, or rebuilds a recipe's.

use super::recipe::{rebuild_and_write, RecipeName};
use super::trainer::NetworkTrainConfig;
use super::training_run::{train_from_files, TrainingPlan};
use crate::eval::Evaluation;
use crate::training::dataset::{GameSources, LabelBlending};
use std::path::PathBuf;

/// The options a recipe pins (its shards, blending, epochs and seed): given beside `--recipe`
/// they would change nothing, so they are refused.
const TRAINING_OPTIONS: [&str; 15] = [
    "files",
    "data",
    "labels",
    "validation_labels",
    "label_weight",
    "label_lambda",
    "static_label_lambda",
    "exact_empties",
    "epochs",
    "batch",
    "learning_rate",
    "l2",
    "validation",
    "seed",
    "patience",
];

/// `oxello train-network`: trains the network evaluation on games and labelled positions.
#[derive(clap::Args, Debug)]
pub struct TrainNetworkArgs {
    /// Rebuild a network from the repository alone, with the recipe's shards, settings and
    /// Multi-ProbCut fit (`builtin`: the built-in network); prints the weights' fingerprint.
    /// Only `--output`, `--repository`, `--data-share`, `--add-labels` and `--threads` apply
    /// beside it: the recipe pins everything else, so any other training option is refused
    /// rather than ignored.
    #[arg(long, value_enum, conflicts_with_all = TRAINING_OPTIONS)]
    recipe: Option<RecipeName>,
    /// The checkout whose `data/` a recipe reads.
    #[arg(long, default_value = ".", requires = "recipe")]
    repository: PathBuf,
    /// Train the recipe on one Nth of its data (the first ceil(n/N) shards of each of its
    /// series), for the learning curve: 8 takes 11 of the built-in recipe's 83 shards.
    #[arg(long, default_value_t = 1, requires = "recipe",
          value_parser = clap::value_parser!(u32).range(1..))]
    data_share: u32,
    /// Labels files (plain or packed) to train the recipe on beside its own shards, with its
    /// settings and fit: the learning curve above the recipe's data, or new data judged at
    /// the same amount.
    #[arg(long = "add-labels", num_args = 1.., requires = "recipe")]
    add_labels: Vec<PathBuf>,
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

/// Runs `oxello train-network`: with `--recipe`, rebuilds that network (trained, its table
/// fitted) on `threads` threads; else trains on the files named, writes the network and prints
/// its errors beside the linear evaluation's. `eval_name` is the `--eval` given: a recipe
/// trains over the built-in linear weights whatever it says, so another one is refused.
pub fn run(
    args: &TrainNetworkArgs,
    threads: usize,
    eval_name: &str,
    evaluation: &Evaluation,
) -> anyhow::Result<()> {
    if let Some(recipe) = args.recipe {
        if !Evaluation::names_built_in_network(eval_name) {
            anyhow::bail!(
                "--eval {eval_name} does not apply with --recipe: a recipe always trains over \
                 the built-in linear weights; leave --eval out"
            );
        }
        let recipe = recipe
            .recipe(&args.repository, args.data_share)?
            .with_added_labels(&args.add_labels)?;
        return rebuild_and_write(&recipe, threads, &args.output);
    }
    let plan = TrainingPlan {
        games: &args.games,
        labels: &args.labels,
        validation_labels: &args.validation_labels,
        label_weight: args.label_weight,
        blending: args.blending,
        exact_empties: args.exact_empties,
        config: NetworkTrainConfig {
            epochs: args.epochs,
            batch: args.batch as usize,
            learning_rate: args.learning_rate,
            l2: args.l2,
            validation_percent: args.validation,
            seed: args.seed,
            patience: args.patience,
        },
    };
    let trained = train_from_files(&plan, evaluation)?;
    std::fs::write(&args.output, trained.weights.to_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.output.display()))?;
    println!(
        "midgame validation error (24-59 empties, searched labels blended with λ {}, {} \
         positions): linear {:.3}, network {:.3} (float, unrounded), {:.3} (as evaluated: \
         integers, whole discs); network written to {}",
        args.blending.label_lambda,
        trained.headline_positions,
        trained.linear_error,
        trained.float_error,
        trained.integer_error,
        args.output.display()
    );
    Ok(())
}
