//! `oxello eval-error`: the static evaluation's mean absolute error against the theoretical
//! (or exact) final score, per phase, on any set of games, or against the search scores of
//! labels files, beside the floor no evaluation can go below on the same labels.

use super::dataset::{
    all_examples, label_examples, label_floor, labelling_bar, load_all_games, Example, LabelledGame,
};
use super::train::{is_validation, mean_absolute_error, midgame_examples, TrainConfig};
use crate::eval::patterns::{phase_empties, phase_of, PHASES};
use crate::eval::Evaluation;

/// Error of one phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseError {
    pub phase: usize,
    pub positions: usize,
    pub mae: f64,
    /// The least mean absolute error any function of the position can reach on these labels.
    pub floor: f64,
}

/// The errors of one evaluation on a set of games.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluationError {
    pub phases: Vec<PhaseError>,
    /// Error over positions with 24 to 59 empties.
    pub midgame: f64,
    /// The floor over positions with 24 to 59 empties.
    pub midgame_floor: f64,
}

/// Per-phase errors, the error over positions with 24 to 59 empties, and their floors; positions
/// with at most `exact_empties` empties are measured against their exact scores (`progress` is
/// called after each game is labelled).
pub fn evaluation_error(
    games: &[LabelledGame],
    evaluation: &Evaluation,
    exact_empties: u32,
    progress: &(dyn Fn() + Sync),
) -> anyhow::Result<EvaluationError> {
    let examples: Vec<_> = all_examples(games, exact_empties, evaluation, progress)?
        .into_iter()
        .flatten()
        .collect();
    Ok(examples_error(&examples, evaluation))
}

/// Per-phase errors of `evaluation` on labelled positions, the error over positions with 24 to
/// 59 empties, and their floors.
pub fn examples_error(examples: &[Example], evaluation: &Evaluation) -> EvaluationError {
    let mut by_phase = vec![Vec::new(); PHASES];
    for example in examples {
        by_phase[phase_of(example.board.empty_count())].push(*example);
    }
    let phases = by_phase
        .iter()
        .enumerate()
        .map(|(phase, examples)| PhaseError {
            phase,
            positions: examples.len(),
            mae: mean_absolute_error(evaluation, examples),
            floor: label_floor(examples),
        })
        .collect();
    let midgame = midgame_examples(examples);
    EvaluationError {
        phases,
        midgame: mean_absolute_error(evaluation, &midgame),
        midgame_floor: label_floor(&midgame),
    }
}

/// `oxello eval-error`: the static evaluation's error against the games' scores.
#[derive(clap::Args, Debug)]
pub struct EvalErrorArgs {
    /// WTHOR .wtb files or selfplay transcripts.
    #[arg(required_unless_present = "labels")]
    files: Vec<std::path::PathBuf>,
    /// Measure positions with at most this many empties against their exact scores.
    #[arg(long, default_value_t = 0)]
    exact_empties: u32,
    /// Labels files written by `oxello label`: measure against their search scores instead.
    #[arg(long = "labels", num_args = 1.., conflicts_with = "files")]
    labels: Vec<std::path::PathBuf>,
    /// With --labels, only the games `oxello train` keeps for validation by default (its
    /// --seed and --validation defaults): the positions weights trained on those files never
    /// saw.
    #[arg(long, requires = "labels")]
    held_out: bool,
}

/// Runs `oxello eval-error`, printing the error and its floor per phase.
pub fn run(args: &EvalErrorArgs, evaluation: &Evaluation) -> anyhow::Result<()> {
    let (error, games) = if args.labels.is_empty() {
        let games = load_all_games(&args.files)?;
        let bar = labelling_bar(games.len());
        let error = evaluation_error(&games, evaluation, args.exact_empties, &|| bar.inc(1))?;
        bar.finish_and_clear();
        (error, games.len())
    } else {
        let config = TrainConfig::default();
        let per_game: Vec<_> = label_examples(&args.labels)?
            .into_iter()
            .filter(|(game, _)| !args.held_out || is_validation(*game, &config))
            .collect();
        let examples: Vec<Example> = per_game.iter().flat_map(|(_, e)| e.clone()).collect();
        (examples_error(&examples, evaluation), per_game.len())
    };
    println!(
        "{:>5} {:>7} {:>10} {:>8} {:>8}",
        "phase", "empties", "positions", "MAE", "floor"
    );
    for p in &error.phases {
        let (low, high) = phase_empties(p.phase);
        println!(
            "{:>5} {:>7} {:>10} {:>8.2} {:>8.2}",
            p.phase,
            format!("{low}-{high}"),
            p.positions,
            p.mae,
            p.floor
        );
    }
    println!(
        "MAE over 24-59 empties: {:.2} discs, floor {:.2} ({} games)",
        error.midgame, error.midgame_floor, games
    );
    Ok(())
}
