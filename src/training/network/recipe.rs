//! Recipes: a network rebuilt from the repository alone by one command (`oxello train-network
//! --recipe builtin`). A recipe names the committed label shards it trains on, the positions
//! that judge it, the trainer's settings and seed, and the Multi-ProbCut fit, whose positions
//! come from the committed WTHOR shards. Training and fit are deterministic whatever the
//! threads, so the same checkout rebuilds the same file, which the printed fingerprints tell.

use super::trainer::NetworkTrainConfig;
use super::training_run::{train_from_files, TrainingPlan};
use crate::eval::network::{NetworkEvaluator, NetworkWeights};
use crate::eval::weights::fnv1a;
use crate::eval::{Evaluation, PatternEvaluator};
use crate::training::dataset::{GameSources, LabelBlending};
use crate::training::tune_mpc::{fit_table, FitSettings, PositionSource};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The recipes `--recipe` names.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecipeName {
    /// The built-in network, `src/eval/oxello.network`.
    Builtin,
}

impl RecipeName {
    /// The recipe on one `data_share`th of its training shards (1: all of them), its files
    /// found in the checkout at `repository`.
    pub fn recipe(self, repository: &Path, data_share: u32) -> anyhow::Result<Recipe> {
        match self {
            RecipeName::Builtin => Recipe::builtin_share(repository, data_share),
        }
    }
}

/// The shards of the built-in network: each series of `data/training/` and the shards of it
/// taken (those committed at c58d1c8, when it was first trained).
const BUILTIN_SHARDS: [(&str, Range<u32>); 3] = [
    ("wthor-d10-e20", 0..5),
    ("xot-d10-e20", 0..24),
    ("xot-d0-e20", 0..54),
];

/// The WTHOR shards, whose positions the built-in network's Multi-ProbCut table is fitted to.
const BUILTIN_FIT_SHARDS: (&str, Range<u32>) = ("wthor-d10-e20", 0..5);

/// The selfplay positions that judge the built-in network (never trained on).
const BUILTIN_VALIDATION: &str = "data/validation/xot-d10-e20-seed99.lgz";

/// Everything a network is rebuilt from.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// Packed label shards to train on.
    pub shards: Vec<PathBuf>,
    /// Labels whose positions judge the network: the epoch kept is the best on them.
    pub validation: Vec<PathBuf>,
    pub label_weight: f32,
    pub blending: LabelBlending,
    pub config: NetworkTrainConfig,
    /// Labels whose positions the Multi-ProbCut table is fitted to.
    pub fit_positions: Vec<PathBuf>,
    pub fit: FitSettings,
}

/// The files `series-s<i>of64.lgz` of `data/training/` for `i` in `shards`.
fn shard_files(repository: &Path, series: &str, shards: Range<u32>) -> Vec<PathBuf> {
    shards
        .map(|i| repository.join(format!("data/training/{series}-s{i}of64.lgz")))
        .collect()
}

impl Recipe {
    /// The built-in network's recipe: the settings it was trained with (`train-network`'s and
    /// `tune-mpc`'s defaults of 2026-12-04, pinned) on the shards it was trained on. An error
    /// names a file the checkout lacks.
    pub fn builtin(repository: &Path) -> anyhow::Result<Recipe> {
        Recipe::builtin_share(repository, 1)
    }

    /// The built-in recipe on one `data_share`th of its data, for the learning curve: the
    /// first `ceil(n / data_share)` shards of each of its series of `n` shards (1/8: 11 of the
    /// 83), with the same validation positions, settings and Multi-ProbCut fit.
    pub fn builtin_share(repository: &Path, data_share: u32) -> anyhow::Result<Recipe> {
        anyhow::ensure!(data_share >= 1, "the share of the data must be 1 or more");
        let recipe = Recipe {
            shards: BUILTIN_SHARDS
                .iter()
                .flat_map(|(series, shards)| {
                    let taken = shards.len().div_ceil(data_share as usize) as u32;
                    shard_files(repository, series, shards.start..shards.start + taken)
                })
                .collect(),
            validation: vec![repository.join(BUILTIN_VALIDATION)],
            label_weight: 3.0,
            blending: LabelBlending {
                label_lambda: 0.7,
                static_label_lambda: 0.9,
            },
            // Pinned here, not taken from the tools' defaults, so that changing a default
            // does not change what this recipe rebuilds.
            config: NetworkTrainConfig {
                epochs: 30,
                batch: 4096,
                learning_rate: 0.002,
                l2: 0.001,
                validation_percent: 10,
                seed: 1,
                patience: 3,
            },
            fit_positions: shard_files(
                repository,
                BUILTIN_FIT_SHARDS.0,
                BUILTIN_FIT_SHARDS.1.clone(),
            ),
            fit: FitSettings {
                positions: 2000,
                depth: 12,
                seed: 1,
                endgame_positions: 1000,
                endgame_empties: 24,
            },
        };
        let files = recipe.shards.iter().chain(&recipe.validation);
        if let Some(missing) = files.chain(&recipe.fit_positions).find(|f| !f.is_file()) {
            anyhow::bail!(
                "{} is missing: --repository must name a checkout of oxello",
                missing.display()
            );
        }
        Ok(recipe)
    }

    /// The recipe with `labels` trained on beside its own shards (same validation, settings
    /// and fit): the learning curve above the recipe's data, or another kind of data judged
    /// by the same measure. An error names a file that is not there.
    pub fn with_added_labels(mut self, labels: &[PathBuf]) -> anyhow::Result<Recipe> {
        if let Some(missing) = labels.iter().find(|f| !f.is_file()) {
            anyhow::bail!("{} is not a labels file", missing.display());
        }
        self.shards.extend(labels.iter().cloned());
        Ok(self)
    }
}

/// The network of `recipe`, trained and given its own Multi-ProbCut table, on the threads of
/// the current rayon pool.
pub fn rebuild(recipe: &Recipe) -> anyhow::Result<NetworkWeights> {
    let plan = TrainingPlan {
        games: &GameSources::default(),
        labels: &recipe.shards,
        validation_labels: &recipe.validation,
        label_weight: recipe.label_weight,
        blending: recipe.blending,
        exact_empties: 0,
        config: recipe.config,
    };
    // The evaluation would label games' endgames; a recipe has labels only.
    let trained = train_from_files(&plan, &Evaluation::linear())?;
    eprintln!(
        "midgame validation error: linear {:.3}, network {:.3} (float), {:.3} (integers)",
        trained.linear_error, trained.float_error, trained.integer_error
    );
    let mut weights = trained.weights;
    let network = NetworkEvaluator::new(PatternEvaluator::built_in(), &weights)?;
    let table = fit_table(
        &recipe.fit,
        &PositionSource::labelled(&recipe.fit_positions)?,
        &Evaluation::Network(Arc::new(network)),
        rayon::current_num_threads(),
    )?;
    weights.probcut = Some(table);
    Ok(weights)
}

/// The fingerprints of a network: its weights' checksum (as the file's header holds it) and
/// the FNV-1a of the whole file, its Multi-ProbCut table included.
pub fn fingerprints(weights: &NetworkWeights) -> (u64, u64) {
    (weights.checksum(), fnv1a(&weights.to_bytes()))
}

/// Rebuilds `recipe` on `threads` threads, writes the network to `output` and prints its
/// fingerprints and how long it took.
pub fn rebuild_and_write(recipe: &Recipe, threads: usize, output: &Path) -> anyhow::Result<()> {
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let weights = pool.install(|| rebuild(recipe))?;
    std::fs::write(output, weights.to_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", output.display()))?;
    let (weights_fingerprint, file_fingerprint) = fingerprints(&weights);
    println!(
        "network written to {}: weights fingerprint {weights_fingerprint:016x}, file \
         fingerprint {file_fingerprint:016x}; {:.1} minutes on {threads} threads",
        output.display(),
        started.elapsed().as_secs_f64() / 60.0
    );
    Ok(())
}
