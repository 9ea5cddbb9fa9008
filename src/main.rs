//! The `oxello` command: with no subcommand, the engine on stdin/stdout; otherwise a tool.

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::time::Instant;

use oxello::tools::perft::{perft, perft_parallel, PassCounting};
use oxello::Board;

#[derive(Parser)]
#[command(
    name = "oxello",
    version,
    about = "A multithreaded Othello engine (NBoard and GTP on stdin/stdout)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the game tree from the start position.
    Perft {
        /// Plies to search.
        depth: u32,
        /// Do not count a pass as a ply (the other published convention).
        #[arg(long)]
        no_pass_ply: bool,
        /// Worker threads (1 = single-threaded).
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    match cli.command {
        None => run_engine(),
        Some(Command::Perft {
            depth,
            no_pass_ply,
            threads,
        }) => run_perft(depth, no_pass_ply, threads),
    }
}

fn run_engine() -> Result<()> {
    let mut line = String::new();
    while std::io::stdin().read_line(&mut line)? > 0 {
        line.clear();
    }
    Ok(())
}

fn run_perft(depth: u32, no_pass_ply: bool, threads: usize) -> Result<()> {
    let passes = if no_pass_ply {
        PassCounting::Free
    } else {
        PassCounting::AsPly
    };
    let start = Instant::now();
    let leaves = if threads <= 1 {
        perft(&Board::START, depth, passes)
    } else {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        pool.install(|| perft_parallel(&Board::START, depth, passes))
    };
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "perft {depth}: {leaves} leaves in {seconds:.3} s ({:.0} leaves/s)",
        leaves as f64 / seconds.max(1e-9)
    );
    Ok(())
}
