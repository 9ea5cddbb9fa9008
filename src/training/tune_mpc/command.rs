//! The command line of `oxello tune-mpc`: which fits to make, where the positions come from,
//! and where the table (and a network carrying it) is written.

use super::sampling::PositionSource;
use super::table::{check_settings, fit_endgame_solver, fit_midgame, FitSettings};
use crate::eval::probcut_table::ProbCutTable;
use crate::eval::{Evaluation, NetworkWeights};
use crate::training::dataset::{load_all_games, GameSources};
use std::path::PathBuf;

/// Which fits a run makes; the others are kept from the table already at `--output`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Midgame,
    Endgame,
    Both,
}

/// `oxello tune-mpc`: fits the Multi-ProbCut table to searches of positions from games.
#[derive(clap::Args, Debug)]
pub struct TuneMpcArgs {
    #[command(flatten)]
    games: GameSources,
    /// Labels files (plain or packed) whose positions are searched instead of games'.
    #[arg(long = "labels", num_args = 1.., conflicts_with_all = ["files", "data"])]
    labels: Vec<PathBuf>,
    /// Positions to search.
    #[arg(long, default_value_t = FitSettings::default().positions)]
    positions: usize,
    /// Deepest search, and so the deepest depth fitted.
    #[arg(long, default_value_t = FitSettings::default().depth)]
    depth: u32,
    /// Seed of the choice of positions.
    #[arg(long, default_value_t = FitSettings::default().seed)]
    seed: u64,
    /// Endgame positions to solve, for the solver's fit.
    #[arg(long, default_value_t = FitSettings::default().endgame_positions)]
    endgame_positions: usize,
    /// The endgame positions have from 16 up to this many empties.
    #[arg(long, default_value_t = FitSettings::default().endgame_empties)]
    endgame_empties: u32,
    /// Which fits to make; the rest is kept from the table at `--output`.
    #[arg(long, value_enum, default_value_t = Part::Both)]
    part: Part,
    /// Where to write the table (the linear weights' built-in one is src/eval/oxello.mpc; a
    /// network's is in its file, see `--network-out`).
    #[arg(long, default_value = "oxello.mpc")]
    output: PathBuf,
    /// With a network evaluation (the built-in one or `--eval NET`), also write the network
    /// with the new table in it to this file, so that `--eval` with that file searches with
    /// its own table.
    #[arg(long)]
    network_out: Option<PathBuf>,
}

/// Runs `oxello tune-mpc` with the evaluation `--eval eval_name` named, writes the table (and
/// with `--network-out`, the network with it) and prints each fit.
pub fn run(args: &TuneMpcArgs, eval_name: &str, evaluation: &Evaluation) -> anyhow::Result<()> {
    let settings = FitSettings {
        positions: args.positions,
        depth: args.depth,
        seed: args.seed,
        endgame_positions: args.endgame_positions,
        endgame_empties: args.endgame_empties,
    };
    check_settings(&settings)?;
    let network = match (&args.network_out, evaluation) {
        (None, _) => None,
        (Some(_), Evaluation::Network(_)) => Some(
            Evaluation::network_file(eval_name)
                .map_err(anyhow::Error::from)
                .and_then(|bytes| Ok(NetworkWeights::from_bytes(&bytes)?))
                .map_err(|e| anyhow::anyhow!("cannot read the network {eval_name}: {e}"))?,
        ),
        (Some(_), _) => anyhow::bail!("--network-out needs a network evaluation (--eval NET)"),
    };
    let kept = if args.part == Part::Both {
        None
    } else {
        let text = std::fs::read_to_string(&args.output).map_err(|e| {
            anyhow::anyhow!(
                "--part {:?} keeps the other fit from {}, which cannot be read: {e}",
                args.part,
                args.output.display()
            )
        })?;
        Some(
            ProbCutTable::parse(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", args.output.display()))?,
        )
    };
    let source = if args.labels.is_empty() {
        let games = load_all_games(&args.games.files()?)?;
        eprintln!("{} games", games.len());
        PositionSource::Games(games)
    } else {
        let source = PositionSource::labelled(&args.labels)?;
        if let PositionSource::Boards(boards) = &source {
            eprintln!("{} labelled positions", boards.len());
        }
        source
    };
    let workers = crate::engine::all_cores();
    let fits = match &kept {
        Some(table) if args.part == Part::Endgame => table.fits.clone(),
        _ => fit_midgame(&settings, &source, evaluation, workers)?,
    };
    let endgame = match &kept {
        Some(table) if args.part == Part::Midgame => table.endgame,
        _ => fit_endgame_solver(&settings, &source, evaluation, workers)?,
    };
    let table = ProbCutTable { fits, endgame };
    std::fs::write(&args.output, table.format())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.output.display()))?;
    println!("table written to {}", args.output.display());
    if let (Some(path), Some(mut network)) = (&args.network_out, network) {
        network.probcut = Some(table);
        std::fs::write(path, network.to_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        println!("network with its table written to {}", path.display());
    }
    Ok(())
}
