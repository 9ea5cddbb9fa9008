//! The `oxello` command: with no subcommand, the engine on stdin/stdout; otherwise a tool.

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::time::Instant;

use oxello::engine::{Engine, EngineOptions};
use oxello::eval::Evaluation;
use oxello::notation::format_move;
use oxello::protocol::ServerConfig;
use oxello::search::{OrderingOptions, ParallelOptions, SearchOptions};
use oxello::tools::arena::{
    choose_openings, format_report, parse_openings, run_match, EngineSpec, MatchConfig, Protocol,
    Sprt, TimeControl, BUILTIN_XOT,
};
use oxello::tools::bench::{branching_factors, run_bench};
use oxello::tools::perft::{perft, perft_parallel, PassCounting};
use oxello::tools::selfplay::SelfplayConfig;
use oxello::tools::solve::{first_number, format_row, header, solve_suite};
use oxello::tools::train::TrainConfig;
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
    #[arg(long, global = true)]
    log_level: Option<log::LevelFilter>,
    /// Evaluation: builtin (the trained patterns), simple, or a weights file.
    #[arg(long, global = true, default_value = "builtin")]
    eval: String,
}

#[derive(clap::Args)]
struct MatchArgs {
    /// Command line of the first engine (scores are given for it).
    #[arg(long)]
    engine1: String,
    /// Command line of the second engine.
    #[arg(long)]
    engine2: String,
    /// Protocol of the first engine: gtp or nboard.
    #[arg(long, default_value = "gtp")]
    protocol1: Protocol,
    /// Protocol of the second engine: gtp or nboard.
    #[arg(long, default_value = "gtp")]
    protocol2: Protocol,
    /// Name of the first engine in the report and the games file.
    #[arg(long)]
    name1: Option<String>,
    /// Name of the second engine.
    #[arg(long)]
    name2: Option<String>,
    /// Do not send passes to the first engine (GTP engines that insert passes themselves).
    #[arg(long)]
    implicit_passes1: bool,
    /// Do not send passes to the second engine (needed for gtp-rhino).
    #[arg(long)]
    implicit_passes2: bool,
    /// Openings, one transcript a line (default: the built-in XOT list of 10,784 openings).
    #[arg(long)]
    openings_file: Option<std::path::PathBuf>,
    /// How many openings to play (each twice).
    #[arg(long, default_value_t = 50)]
    openings: usize,
    /// Seed for choosing the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Fixed depth (sent to NBoard engines; give GTP engines their depth on their command line).
    #[arg(long, conflicts_with_all = ["movetime", "tc"])]
    depth: Option<u32>,
    /// Milliseconds per move.
    #[arg(long, conflicts_with = "tc")]
    movetime: Option<u64>,
    /// Game clock: seconds of main time, optionally plus an increment (e.g. 60+0.5).
    #[arg(long)]
    tc: Option<String>,
    /// Milliseconds an engine may exceed its time before it loses on time.
    #[arg(long, default_value_t = 200)]
    margin: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// GGF file that every finished game is appended to.
    #[arg(long)]
    games_file: Option<std::path::PathBuf>,
    /// Stop on a verdict of the sequential test, e.g. "elo0=0 elo1=10 alpha=0.05 beta=0.05".
    #[arg(long)]
    sprt: Option<String>,
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
        /// The OBF file (e.g. data/fforum-40-59.obf).
        file: std::path::PathBuf,
        /// Prove only win, loss or draw.
        #[arg(long)]
        wld: bool,
        /// Transposition table size in MiB (large: the hard FFO positions fill 256 MiB).
        #[arg(long, default_value_t = 1024)]
        hash: usize,
    },
    /// Play a match between two engines (GTP or NBoard) over openings, colours swapped.
    Match(Box<MatchArgs>),
    /// Fit pattern weights to games (WTHOR .wtb files or selfplay transcripts).
    Train {
        /// Game files: WTHOR .wtb files or selfplay transcripts.
        files: Vec<std::path::PathBuf>,
        /// A directory whose .wtb files are all read (e.g. the WTHOR database and
        /// Logistello's book games).
        #[arg(long, required_unless_present = "files")]
        data: Option<std::path::PathBuf>,
        /// Where to write the weights.
        #[arg(long, default_value = "oxello.weights")]
        output: std::path::PathBuf,
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
        /// Label positions with at most this many empties by solving them exactly.
        #[arg(long, default_value_t = 12)]
        exact_empties: u32,
    },
    /// Play games against itself from random openings, for training.
    Selfplay {
        /// Games in the whole run, over all shards.
        #[arg(long, default_value_t = 100)]
        games: u64,
        /// Midgame depth.
        #[arg(long, default_value_t = 8)]
        depth: u32,
        /// Random moves at the start of each game.
        #[arg(long, default_value_t = 10)]
        random_plies: u32,
        /// Solve exactly from this many empties.
        #[arg(long, default_value_t = 18)]
        exact_empties: u32,
        /// Seed of the random openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// This machine's share of the run: i/n plays games g with g mod n = i.
        #[arg(long, default_value = "0/1")]
        shard: String,
        /// Output file (one game a line); stdout when absent.
        #[arg(long)]
        output: Option<std::path::PathBuf>,
    },
    /// Mean absolute error of the static evaluation against the games' final scores.
    EvalError {
        /// WTHOR .wtb files or selfplay transcripts.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// Measure positions with at most this many empties against their exact scores.
        #[arg(long, default_value_t = 0)]
        exact_empties: u32,
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
    let all_cores = oxello::engine::all_cores();
    let evaluation = Evaluation::from_name(&cli.eval).map_err(|e| anyhow::anyhow!(e))?;
    match cli.command {
        None => oxello::protocol::serve(
            ServerConfig {
                evaluation,
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
                evaluation,
                wld,
            )?;
            if !all_right {
                std::process::exit(1);
            }
            Ok(())
        }
        Some(Command::Match(args)) => run_match_command(*args),
        Some(Command::Train {
            files,
            data,
            output,
            epochs,
            learning_rate,
            l2,
            validation,
            seed,
            exact_empties,
        }) => {
            let config = TrainConfig {
                epochs,
                learning_rate,
                l2,
                validation_percent: validation,
                seed,
            };
            run_train(
                game_files(files, data.as_deref())?,
                &output,
                &config,
                exact_empties,
                &evaluation,
            )
        }
        Some(Command::Selfplay {
            games,
            depth,
            random_plies,
            exact_empties,
            seed,
            shard,
            output,
        }) => {
            let shard = parse_shard(&shard)?;
            let config = SelfplayConfig {
                games,
                depth,
                random_plies,
                exact_empties,
                seed,
                shard,
            };
            run_selfplay(&config, &evaluation, output.as_deref())
        }
        Some(Command::EvalError {
            files,
            exact_empties,
        }) => run_eval_error(&files, &evaluation, exact_empties),
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
                    interior_split_depth: if root_split_only {
                        None
                    } else {
                        ParallelOptions::default().interior_split_depth
                    },
                    ..ParallelOptions::default()
                },
                ..SearchOptions::default()
            };
            let threads = cli.threads.unwrap_or(1);
            run_bench_command(
                EngineOptions {
                    threads,
                    hash_mib: hash,
                },
                evaluation,
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

fn run_bench_command(
    options: EngineOptions,
    evaluation: Evaluation,
    depth: u32,
    search: SearchOptions,
) -> Result<()> {
    println!(
        "{:>3} {:>5} {:>4} {:>12} {:>9} {:>11}",
        "#", "move", "eval", "nodes", "time", "nps"
    );
    let lines = run_bench(options, evaluation, depth, search, |i, line| {
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
fn run_solve(
    file: &std::path::Path,
    options: EngineOptions,
    evaluation: Evaluation,
    wld: bool,
) -> Result<bool> {
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
    let mut engine = Engine::with_evaluation(options, evaluation)?;
    println!("{}", header());
    let solved = solve_suite(&mut engine, &entries, first_number(&name), wld, |line| {
        bar.suspend(|| println!("{}", format_row(line)));
        bar.inc(1);
    });
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

/// The name of an engine: given, or the program name of its command line.
fn engine_name(name: Option<String>, command: &str) -> String {
    name.unwrap_or_else(|| {
        let program = command.split_whitespace().next().unwrap_or("engine");
        program.rsplit('/').next().unwrap_or(program).to_string()
    })
}

fn parse_time_control(args: &MatchArgs) -> Result<TimeControl> {
    if let Some(depth) = args.depth {
        return Ok(TimeControl::Depth(depth));
    }
    if let Some(ms) = args.movetime {
        return Ok(TimeControl::PerMove(ms as f64 / 1000.0));
    }
    let Some(tc) = &args.tc else {
        return Ok(TimeControl::PerMove(1.0));
    };
    let (main, increment) = tc.split_once('+').unwrap_or((tc, "0"));
    let seconds = |text: &str| -> Result<f64> {
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| anyhow::anyhow!("--tc takes seconds[+increment], not '{tc}'"))
    };
    Ok(TimeControl::Clock {
        main: seconds(main)?,
        increment: seconds(increment)?,
    })
}

fn run_match_command(args: MatchArgs) -> Result<()> {
    let time = parse_time_control(&args)?;
    let all = match &args.openings_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("cannot read openings {}: {e}", path.display()))?;
            parse_openings(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
        None => parse_openings(BUILTIN_XOT).expect("the built-in XOT list parses"),
    };
    let sprt = args
        .sprt
        .as_deref()
        .map(Sprt::parse)
        .transpose()
        .map_err(|e| anyhow::anyhow!(e))?;
    let config = MatchConfig {
        engines: [
            EngineSpec {
                name: engine_name(args.name1, &args.engine1),
                command: args.engine1,
                protocol: args.protocol1,
                implicit_passes: args.implicit_passes1,
            },
            EngineSpec {
                name: engine_name(args.name2, &args.engine2),
                command: args.engine2,
                protocol: args.protocol2,
                implicit_passes: args.implicit_passes2,
            },
        ],
        openings: choose_openings(&all, args.openings, args.seed),
        time,
        margin: std::time::Duration::from_millis(args.margin),
        concurrency: args.concurrency,
        games_file: args.games_file,
        sprt,
    };
    let bar = indicatif::ProgressBar::new(2 * config.openings.len() as u64).with_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg} [{elapsed}]")
            .expect("the progress template is valid"),
    );
    let first = config.engines[0].name.clone();
    let report = run_match(&config, |report, _| {
        let o = report.tallies[0].outcomes;
        bar.set_message(format!(
            "{first} +{} ={} -{} ({:.1}%)",
            o.wins,
            o.draws,
            o.losses,
            100.0 * o.score()
        ));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    println!("{}", format_report(&config, &report));
    Ok(())
}

/// The game files to read: those given, then every WTHOR file of `data` in name order.
fn game_files(
    mut files: Vec<std::path::PathBuf>,
    data: Option<&std::path::Path>,
) -> Result<Vec<std::path::PathBuf>> {
    if let Some(dir) = data {
        let mut found: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| anyhow::anyhow!("cannot read the directory {}: {e}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wtb")))
            .collect();
        if found.is_empty() {
            anyhow::bail!("{} holds no .wtb files", dir.display());
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

fn load_all(files: &[std::path::PathBuf]) -> Result<Vec<oxello::tools::dataset::LabelledGame>> {
    let mut games = Vec::new();
    for file in files {
        games.extend(oxello::tools::dataset::load_games(file)?);
    }
    Ok(games)
}

fn run_train(
    files: Vec<std::path::PathBuf>,
    output: &std::path::Path,
    config: &TrainConfig,
    exact_empties: u32,
    evaluation: &Evaluation,
) -> Result<()> {
    use oxello::eval::patterns::phase_empties;
    use oxello::tools::{dataset, train};
    let games = load_all(&files)?;
    eprintln!(
        "{} games from {} files; labelling positions (exact from {exact_empties} empties)",
        games.len(),
        files.len()
    );
    let bar = labelling_bar(games.len());
    let per_game = dataset::all_examples(&games, exact_empties, evaluation, &|| bar.inc(1))?;
    bar.finish_and_clear();
    let (training, validation) = train::split(per_game, config);
    let bar = indicatif::ProgressBar::new(
        u64::from(config.epochs) * oxello::eval::patterns::PHASES as u64,
    )
    .with_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} phase epochs [{elapsed}]")
            .expect("the progress template is valid"),
    );
    let (weights, reports) = train::train(&training, &validation, config, &|| bar.inc(1));
    bar.finish_and_clear();
    std::fs::write(output, weights.to_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", output.display()))?;
    println!(
        "{:>5} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "phase", "empties", "training", "validation", "MAE zero", "MAE", "floor"
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
    let evaluator = oxello::eval::PatternEvaluator::new(weights);
    let midgame = train::midgame_examples(validation.iter().flatten());
    println!(
        "validation MAE over 24-59 empties: {:.2} discs, floor {:.2} ({} positions); weights written to {}",
        train::mean_absolute_error(&evaluator, &midgame),
        oxello::tools::eval_error::label_floor(&midgame),
        midgame.len(),
        output.display()
    );
    Ok(())
}

/// A progress bar on stderr over the games being labelled.
fn labelling_bar(games: usize) -> indicatif::ProgressBar {
    indicatif::ProgressBar::new(games as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games labelled [{elapsed}<{eta}]",
        )
        .expect("the progress template is valid"),
    )
}

fn parse_shard(text: &str) -> Result<(u64, u64)> {
    let bad = || anyhow::anyhow!("--shard takes i/n with i < n, not '{text}'");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (u64, u64) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

fn run_selfplay(
    config: &SelfplayConfig,
    evaluation: &Evaluation,
    output: Option<&std::path::Path>,
) -> Result<()> {
    let planned = config.shard_games().count();
    let bar = indicatif::ProgressBar::new(planned as u64).with_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games [{elapsed}]")
            .expect("the progress template is valid"),
    );
    let lines = oxello::tools::selfplay::selfplay(config, evaluation, &|| bar.inc(1))?;
    bar.finish_and_clear();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    match output {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}

fn run_eval_error(
    files: &[std::path::PathBuf],
    evaluation: &Evaluation,
    exact_empties: u32,
) -> Result<()> {
    use oxello::eval::patterns::phase_empties;
    use oxello::tools::eval_error::evaluation_error;
    let games = load_all(files)?;
    let bar = labelling_bar(games.len());
    let error = evaluation_error(&games, evaluation, exact_empties, &|| bar.inc(1))?;
    bar.finish_and_clear();
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
        error.midgame,
        error.midgame_floor,
        games.len()
    );
    Ok(())
}
