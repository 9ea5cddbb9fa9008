//! The `oxello` command: with no subcommand, the engine on stdin/stdout; otherwise a tool, whose
//! options and run function live beside it in `oxello::tools`.

use anyhow::Result;
use clap::{Parser, Subcommand};

use oxello::book::Book;
use oxello::engine::EngineOptions;
use oxello::eval::Evaluation;
use oxello::protocol::ServerConfig;
use oxello::tools::{
    arena, bench, book, eval_error, label, perft, selfplay, solve, train, tune_mpc,
};

#[derive(Parser)]
#[command(
    name = "oxello",
    version,
    about = "A multithreaded Othello engine (NBoard and GTP on stdin/stdout)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Search threads for the engine (default: all cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// Transposition table size in MiB for the engine.
    #[arg(long, default_value_t = oxello::engine::DEFAULT_HASH_MIB)]
    hash: usize,
    /// Midgame search depth per move (exact solving from depth + 4 empties).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60))]
    depth: Option<u32>,
    /// Time per move in milliseconds (a game clock from the protocol also applies).
    #[arg(long)]
    movetime: Option<u64>,
    /// Midgame Multi-ProbCut: 0 searches full width, 1 to 4 cut at about 99%, 95%, 87% and
    /// 73% confidence.
    #[arg(long, default_value_t = oxello::search::DEFAULT_SELECTIVITY,
          value_parser = clap::value_parser!(u8).range(0..=4))]
    selectivity: u8,
    /// Opening book file for the engine (default: the built-in book).
    #[arg(long, conflicts_with = "no_book")]
    book: Option<std::path::PathBuf>,
    /// Play without an opening book.
    #[arg(long)]
    no_book: bool,
    /// Play any book move within this many discs of the best, as long as a game's book moves
    /// give away no more than that in all, the odds halving with each disc (0: always the
    /// best), for variety.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(i32).range(0..=64))]
    book_random: i32,
    /// Log level on stderr: error, warn, info, debug or trace (RUST_LOG also works).
    #[arg(long, global = true)]
    log_level: Option<log::LevelFilter>,
    /// Evaluation: builtin (the trained patterns), simple, or a weights file.
    #[arg(long, global = true, default_value = "builtin")]
    eval: String,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the game tree from the start position.
    Perft(perft::PerftArgs),
    /// Solve every position of an OBF suite exactly and compare with the listed scores.
    Solve(solve::SolveArgs),
    /// Play a match between two engines (GTP or NBoard) over openings, colours swapped.
    Match(Box<arena::command::MatchArgs>),
    /// Fit pattern weights to games (WTHOR .wtb files or selfplay transcripts).
    Train(train::TrainArgs),
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
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let mut logger =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"));
    if let Some(level) = cli.log_level {
        logger.filter_level(level);
    }
    logger.target(env_logger::Target::Stderr).init();
    let all_cores = oxello::engine::all_cores();
    let evaluation = Evaluation::from_name(&cli.eval).map_err(|e| anyhow::anyhow!(e))?;
    match cli.command {
        None => oxello::protocol::serve(
            ServerConfig {
                book: match (&cli.book, cli.no_book) {
                    (_, true) => None,
                    (Some(path), false) => Some(std::sync::Arc::new(Book::read_file(path)?)),
                    (None, false) => Some(Book::builtin()),
                },
                book_file: cli.book.clone().filter(|_| !cli.no_book),
                book_randomness: cli.book_random,
                evaluation,
                engine: EngineOptions {
                    threads: cli.threads.unwrap_or(all_cores),
                    hash_mib: cli.hash,
                },
                depth: cli.depth,
                move_time: cli.movetime.map(std::time::Duration::from_millis),
                selectivity: cli.selectivity,
            },
            std::io::stdin(),
            std::io::stdout(),
        ),
        Some(Command::Perft(args)) => perft::run(&args, cli.threads.unwrap_or(1)),
        Some(Command::Solve(args)) => {
            if !solve::run(&args, cli.threads.unwrap_or(all_cores), evaluation)? {
                std::process::exit(1);
            }
            Ok(())
        }
        Some(Command::Match(args)) => arena::command::run(*args),
        Some(Command::Train(args)) => train::run(&args, &evaluation),
        Some(Command::Label(args)) => label::run(&args, cli.threads, &evaluation),
        Some(Command::Selfplay(args)) => selfplay::run(&args, &evaluation),
        Some(Command::EvalError(args)) => eval_error::run(&args, &evaluation),
        Some(Command::Bench(args)) => bench::run(&args, cli.threads.unwrap_or(1), evaluation),
        Some(Command::TuneMpc(args)) => tune_mpc::run(&args, &evaluation),
        Some(Command::Book(args)) => book::run(args, cli.threads, &evaluation),
    }
}
