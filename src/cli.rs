//! The command line of `oxello`: the engine's options and the tools' subcommands, each tool's
//! options defined beside the tool. Kept in the library so that tests can check that every
//! command line shown in the documentation parses.

use clap::{Parser, Subcommand};

use crate::tools::{arena, bench, book, perft, solve};
use crate::training::{eval_error, label, network as train_network, selfplay, train, tune_mpc};

/// `oxello [OPTIONS] [COMMAND]`: the engine with no command, else a tool.
#[derive(Parser)]
#[command(
    name = "oxello",
    version,
    about = "A multithreaded Othello engine (NBoard and GTP on stdin/stdout)"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Search threads for the engine (default: all cores).
    #[arg(long, global = true, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB for the engine.
    #[arg(long, default_value_t = crate::engine::DEFAULT_HASH_MIB)]
    pub hash: usize,
    /// Midgame search depth per move (exact solving from depth + 4 empties).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60))]
    pub depth: Option<u32>,
    /// Time per move in milliseconds (a game clock from the protocol also applies).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Midgame Multi-ProbCut: 0 searches full width, 1 to 4 cut at about 99%, 95%, 87% and
    /// 73% confidence.
    #[arg(long, default_value_t = crate::search::DEFAULT_SELECTIVITY,
          value_parser = clap::value_parser!(u8).range(0..=4))]
    pub selectivity: u8,
    /// Opening book file for the engine (default: the built-in book).
    #[arg(long, conflicts_with = "no_book")]
    pub book: Option<std::path::PathBuf>,
    /// Play without an opening book.
    #[arg(long)]
    pub no_book: bool,
    /// Play any book move within this many discs of the best, as long as a game's book moves
    /// give away no more than that in all, the odds halving with each disc (0: always the
    /// best), for variety.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(i32).range(0..=64))]
    pub book_random: i32,
    /// Think on the opponent's time (off by default, so that engines sharing a machine in a
    /// match stay fair).
    #[arg(long)]
    pub ponder: bool,
    /// Log level on stderr: error, warn, info, debug or trace (RUST_LOG also works).
    #[arg(long, global = true)]
    pub log_level: Option<log::LevelFilter>,
    /// Evaluation: network (the built-in network; also `builtin`), linear (the built-in
    /// pattern weights it corrects), simple, or a weights or network file.
    #[arg(long, global = true, default_value = "network")]
    pub eval: String,
}

/// The tools.
#[derive(Subcommand)]
pub enum Command {
    /// Count the leaves of the game tree from the start position.
    Perft(perft::PerftArgs),
    /// Solve every position of an OBF suite exactly and compare with the listed scores.
    Solve(solve::SolveArgs),
    /// Play a match between two engines (GTP or NBoard) over openings, colours swapped.
    Match(Box<arena::command::MatchArgs>),
    /// Fit pattern weights to games (WTHOR .wtb files or selfplay transcripts).
    Train(train::TrainArgs),
    /// Train the network evaluation on the linear evaluation's errors.
    TrainNetwork(train_network::TrainNetworkArgs),
    /// Label the positions of games with search scores, for training.
    Label(label::LabelArgs),
    /// Play games against itself from random openings, for training.
    Selfplay(selfplay::SelfplayArgs),
    /// Mean absolute error of the static evaluation against the games' final scores.
    EvalError(eval_error::EvalErrorArgs),
    /// Search fixed positions to a fixed depth; the node total is a signature of the search.
    Bench(bench::BenchArgs),
    /// Fit the midgame Multi-ProbCut table to searches of positions from games.
    TuneMpc(tune_mpc::TuneMpcArgs),
    /// Opening book tools: build, show, extend, merge.
    Book(book::BookArgs),
    /// A board in the browser: play, hints, set-up and game review (a local web server).
    Web(crate::web::WebArgs),
}

/// Parses `--threads`: a count the engine takes (1 to [`crate::engine::MAX_THREADS`]), so that
/// no tool starts "on 0 threads".
fn parse_threads(text: &str) -> Result<usize, String> {
    let threads: usize = text.parse().map_err(|e| format!("{e}"))?;
    crate::engine::check_threads(threads)
        .map(|()| threads)
        .map_err(|e| e.to_string())
}
