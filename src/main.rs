//! The `oxello` command: with no subcommand, the engine on stdin/stdout; otherwise a tool.

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::time::Instant;

use oxello::engine::EngineOptions;
use oxello::notation::format_move;
use oxello::protocol::ServerConfig;
use oxello::search::{OrderingOptions, ParallelOptions, SearchOptions};
use oxello::tools::bench::{branching_factors, run_bench};
use oxello::tools::perft::{perft, perft_parallel, PassCounting};
use oxello::tools::solve::{first_number, format_row, header, solve_suite};
use oxello::{Board, Move};

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
    /// Log level on stderr: error, warn, info, debug or trace (RUST_LOG also works).
    #[arg(long)]
    log_level: Option<log::LevelFilter>,
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
    },
    /// Solve every position of an OBF suite exactly and compare with the listed scores.
    Solve {
        /// The OBF file (e.g. ../shared/data/fforum-40-59.obf).
        file: std::path::PathBuf,
        /// Prove only win, loss or draw.
        #[arg(long)]
        wld: bool,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 256)]
        hash: usize,
    },
    /// Search fixed positions to a fixed depth; the node total is a signature of the search.
    Bench {
        /// Search depth in plies.
        #[arg(long, default_value_t = 12)]
        depth: u32,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        /// Split only at the root (no young-brothers-wait at interior nodes).
        #[arg(long)]
        root_split_only: bool,
        /// Do not search the table move first.
        #[arg(long)]
        no_table_move: bool,
        /// Do not order by shallow searches at high depth.
        #[arg(long)]
        no_shallow_search: bool,
        /// Do not order by hints (fastest first, potential mobility, square priority).
        #[arg(long)]
        no_hints: bool,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let mut logger =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"));
    if let Some(level) = cli.log_level {
        logger.filter_level(level);
    }
    logger.target(env_logger::Target::Stderr).init();
    let all_cores = EngineOptions::default().threads;
    match cli.command {
        None => oxello::protocol::serve(
            ServerConfig {
                engine: EngineOptions {
                    threads: cli.threads.unwrap_or(all_cores),
                    hash_mib: cli.hash,
                },
                depth: cli.depth,
                move_time: cli.movetime.map(std::time::Duration::from_millis),
            },
            std::io::stdin(),
            std::io::stdout(),
        ),
        Some(Command::Perft { depth, no_pass_ply }) => {
            run_perft(depth, no_pass_ply, cli.threads.unwrap_or(1))
        }
        Some(Command::Solve { file, wld, hash }) => {
            let threads = cli.threads.unwrap_or(all_cores);
            let all_right = run_solve(
                &file,
                EngineOptions {
                    threads,
                    hash_mib: hash,
                },
                wld,
            )?;
            if !all_right {
                std::process::exit(1);
            }
            Ok(())
        }
        Some(Command::Bench {
            depth,
            hash,
            root_split_only,
            no_table_move,
            no_shallow_search,
            no_hints,
        }) => {
            let search = SearchOptions {
                ordering: OrderingOptions {
                    table_move: !no_table_move,
                    shallow_search: !no_shallow_search,
                    hints: !no_hints,
                },
                parallel: ParallelOptions {
                    root_split: true,
                    interior_split_depth: if root_split_only {
                        None
                    } else {
                        ParallelOptions::default().interior_split_depth
                    },
                },
                ..SearchOptions::default()
            };
            let threads = cli.threads.unwrap_or(1);
            run_bench_command(
                EngineOptions {
                    threads,
                    hash_mib: hash,
                },
                depth,
                search,
            )
        }
    }
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

fn run_bench_command(options: EngineOptions, depth: u32, search: SearchOptions) -> Result<()> {
    println!(
        "{:>3} {:>5} {:>4} {:>12} {:>9} {:>11}",
        "#", "move", "eval", "nodes", "time", "nps"
    );
    let lines = run_bench(options, depth, search, |i, line| {
        let mv = line.best_move.map_or(Move::Pass, Move::Play);
        println!(
            "{:>3} {:>5} {:>+4} {:>12} {:>8.3}s {:>11.0}",
            i + 1,
            format_move(mv),
            line.score,
            line.nodes,
            line.elapsed.as_secs_f64(),
            line.nodes as f64 / line.elapsed.as_secs_f64().max(1e-9)
        );
    })?;
    let ebf: Vec<String> = branching_factors(&lines)
        .iter()
        .map(|(d, b)| format!("{d}:{b:.2}"))
        .collect();
    println!(
        "effective branching factor per iteration: {}",
        ebf.join(" ")
    );
    let nodes: u64 = lines.iter().map(|l| l.nodes).sum();
    let seconds: f64 = lines.iter().map(|l| l.elapsed.as_secs_f64()).sum();
    println!("time {seconds:.3} s");
    println!("{nodes} nodes {:.0} nps", nodes as f64 / seconds.max(1e-9));
    Ok(())
}

/// Solves an OBF file, printing the table; true when every score agrees with the file.
fn run_solve(file: &std::path::Path, options: EngineOptions, wld: bool) -> Result<bool> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
    let entries = oxello::notation::parse_obf_file(&text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let name = file
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let bar = indicatif::ProgressBar::new(entries.len() as u64).with_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} solved, {elapsed} {msg}")
            .expect("the progress template is valid"),
    );
    println!("{}", header());
    let solved = solve_suite(&entries, first_number(&name), options, wld, |line| {
        bar.suspend(|| println!("{}", format_row(line)));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    let nodes: u64 = solved.iter().map(|s| s.nodes).sum();
    let seconds: f64 = solved.iter().map(|s| s.elapsed.as_secs_f64()).sum();
    let right = solved.iter().filter(|s| s.ok).count();
    println!(
        "total: {right}/{} right, {nodes} nodes, {seconds:.3} s, {:.0} nps",
        solved.len(),
        nodes as f64 / seconds.max(1e-9)
    );
    Ok(right == solved.len())
}
