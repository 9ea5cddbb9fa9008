//! `oxello bench`: searches a fixed set of midgame positions to a fixed depth with a fresh
//! table each, and reports the total nodes (a signature of the search's behaviour with one
//! thread), the speed, and the effective branching factor per iteration; with `--scaling`,
//! the time to depth and the nodes for each thread count, against the first. `--positions`
//! searches the games of a file instead, such as `data/bench-96.txt`, where twelve positions
//! are too few (a thread count's node total over twelve swings with one or two of them).

use crate::board::{Move, Position};
use crate::engine::{Engine, EngineOptions};
use crate::eval::Evaluation;
use crate::notation::{format_move, parse_transcript, parse_transcript_lines};
use crate::search::{Limits, OrderingOptions, ParallelOptions, SearchOptions, DEFAULT_SELECTIVITY};
use anyhow::Context;
use std::path::Path;
use std::time::Duration;

/// Twelve positions from tournament games (WTHOR 2020), 20 to 36 plies in.
pub const BENCH_TRANSCRIPTS: [&str; 12] = [
    "f5f6e6f4g5e7f7d6f3g6d8h5e3g4h3h4d3h2c3e8",
    "f5d6c5f4e3c6e6f7g4b5e7f6g5g6c7c3d7d3f8c8a5f3",
    "f5d6c5f4d3f6e6c4e3c6b4f3b5e2f2f1e7d2d7c2g6f7g5h6",
    "f5f6e6f4e3d6c4f3g3c3c5d3c6e2d2e1g5h3g4h6f2f1c7c2e7b4",
    "f5f6e6f4e3c5c4e7c6e2f3f2g5g4g6d6h3h5h4h2h6h7d2d3c7d7c3g3",
    "f5d6c3d3c4f4e3f3g3f2g4e2d2g6f6g5e6c1c7h5d1e1h4h6g1f1b1h3g7d7",
    "f5f6e6f4e3d2g5e7f7d6c5g6d3c6e2f3c4d7d1f8c7c3f2e1f1c2e8g4g3h3b4c1",
    "f5d6c3d3c4f4c5b3c2b4e3d2b5c6d1e2b6f3e1a5d7f2a3a4a6e7e6d8c7f6c8f7e8f8",
    "f5d6c3d3c4f4c5b4e3e6b6c6b5f3a4e2g4g3e1f6g5a6f2d2c2a5a7d1c1a3a2b3f7h4h2h5",
    "f5d6c5f6e6b4c6e7d7d8c7f7c3b5g6c8c4b3b6a6a4a3a2h6",
    "f5f6e6f4d3e7f3e3g5g6g4h3h5h6g3h4d7d6e8c4c3c5b5f7c7c6b4b6",
    "f5d6c3d3c4b3c6f4e6c5e3f3g3g4h3h5b5g6f2f6d2e2e1c1d1c2b1e7b4g1h4g5",
];

/// The bench positions.
pub fn bench_positions() -> Vec<Position> {
    BENCH_TRANSCRIPTS
        .iter()
        .map(|t| {
            parse_transcript(t, &Position::START)
                .expect("bench transcripts are legal")
                .1
        })
        .collect()
}

/// The positions of a file of game transcripts from the start, one a line (`f5d6c3...`, passes
/// implied); blank lines and `%` or `#` comments are skipped.
pub fn read_positions(path: &Path) -> anyhow::Result<Vec<Position>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let games =
        parse_transcript_lines(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    anyhow::ensure!(!games.is_empty(), "{} holds no game", path.display());
    Ok(games.into_iter().map(|(_, position)| position).collect())
}

/// What one bench position took.
#[derive(Clone, Debug)]
pub struct BenchLine {
    pub score: i32,
    pub best_move: Option<u8>,
    pub nodes: u64,
    pub elapsed: Duration,
    /// The deepest completed iteration.
    pub depth: u32,
    /// Nodes of each completed iteration (cumulative at the end of iteration d, index d-1).
    pub nodes_per_iteration: Vec<u64>,
}

/// Searches every one of `positions` under `limits` with a fresh engine of `options` and
/// `search`.
pub fn run_bench(
    positions: &[Position],
    options: EngineOptions,
    evaluation: Evaluation,
    limits: Limits,
    search: SearchOptions,
    mut on_line: impl FnMut(usize, &BenchLine),
) -> anyhow::Result<Vec<BenchLine>> {
    let mut engine = Engine::with_evaluation(options, evaluation)?;
    let mut lines = Vec::new();
    for (i, &position) in positions.iter().enumerate() {
        engine.new_game(position);
        let mut per_iteration = Vec::new();
        let result = engine.search(&limits, search, &mut |p| per_iteration.push(p.nodes));
        let line = BenchLine {
            score: result.score,
            best_move: result.best_move,
            nodes: result.nodes,
            elapsed: result.elapsed,
            depth: result.depth,
            nodes_per_iteration: per_iteration,
        };
        on_line(i, &line);
        lines.push(line);
    }
    Ok(lines)
}

/// Effective branching factor of each iteration d >= 2: the geometric mean over positions of
/// (nodes of iteration d) / (nodes of iteration d-1), each iteration's own nodes.
pub fn branching_factors(lines: &[BenchLine]) -> Vec<(u32, f64)> {
    let deepest = lines
        .iter()
        .map(|l| l.nodes_per_iteration.len())
        .min()
        .unwrap_or(0);
    (2..=deepest)
        .filter_map(|d| {
            let logs: Vec<f64> = lines
                .iter()
                .filter_map(|l| {
                    let own = |k: usize| {
                        l.nodes_per_iteration[k - 1]
                            - if k >= 2 {
                                l.nodes_per_iteration[k - 2]
                            } else {
                                0
                            }
                    };
                    let (this, before) = (own(d), own(d - 1));
                    (this > 0 && before > 0).then(|| (this as f64 / before as f64).ln())
                })
                .collect();
            (!logs.is_empty()).then(|| {
                (
                    d as u32,
                    (logs.iter().sum::<f64>() / logs.len() as f64).exp(),
                )
            })
        })
        .collect()
}

/// `oxello bench`: the fixed positions searched to a fixed depth.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Search depth in plies.
    #[arg(long, default_value_t = 12)]
    depth: u32,
    /// Search each position for this many milliseconds instead of to a depth, and report the
    /// depth each one reached and their median (the depth a move at this time control gets).
    #[arg(long, conflicts_with_all = ["depth", "scaling"], value_parser = clap::value_parser!(u64).range(1..))]
    move_time: Option<u64>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Share the selective depth-limited iterations between threads by splitting nodes (young
    /// brothers wait) instead of by helper threads searching beside the main thread.
    #[arg(long)]
    splits: bool,
    /// Split only at the root (no young-brothers-wait at interior nodes).
    #[arg(long, conflicts_with = "split_depth")]
    root_split_only: bool,
    /// Split interior nodes with at least this many plies to go (default: the engine's).
    #[arg(long)]
    split_depth: Option<u32>,
    /// Moves an interior node searches alone before it splits (default: the engine's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    elders: Option<u32>,
    /// Do not search the table move first.
    #[arg(long)]
    no_table_move: bool,
    /// Do not order by shallow searches at high depth.
    #[arg(long)]
    no_shallow_search: bool,
    /// Do not order by hints (fastest first, potential mobility, square priority).
    #[arg(long)]
    no_hints: bool,
    /// Midgame Multi-ProbCut level: 0 full width, 1 to 4 about 99%, 95%, 87% and 73% confidence.
    #[arg(long, default_value_t = DEFAULT_SELECTIVITY,
          value_parser = clap::value_parser!(u8).range(0..=4))]
    selectivity: u8,
    /// Thread counts to compare, e.g. 1,2,4,8: a row each with the time to depth, the nodes
    /// and the speed, and the speedup and node overhead against the first count (replaces
    /// the row of each search; `--per-position` gives one a position instead).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=256))]
    scaling: Vec<u64>,
    /// With --scaling: runs of every thread count, taken in turn (1, 2, ..., 1, 2, ...), whose
    /// medians are reported.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    rounds: u32,
    /// With --scaling: after the rows, a line a position with its median nodes at each thread
    /// count and, for the counts after the first, the median and range of its per-round ratio
    /// to the first count's nodes (which positions make the node overhead, and how steadily).
    #[arg(long, requires = "scaling")]
    per_position: bool,
    /// Search the games of this file instead of the built-in twelve positions: one transcript
    /// from the start a line, e.g. `data/bench-96.txt` (96 positions, for scaling figures that
    /// one or two positions do not sway).
    #[arg(long)]
    positions: Option<std::path::PathBuf>,
}

impl BenchArgs {
    /// What each position is searched to: the depth, or the move time.
    fn limits(&self) -> Limits {
        match self.move_time {
            Some(ms) => Limits {
                move_time: Some(Duration::from_millis(ms)),
                ..Limits::default()
            },
            None => Limits {
                depth: Some(self.depth),
                ..Limits::default()
            },
        }
    }

    /// The positions to search: the file's, or the built-in twelve.
    fn positions(&self) -> anyhow::Result<Vec<Position>> {
        match &self.positions {
            Some(path) => read_positions(path),
            None => Ok(bench_positions()),
        }
    }
}

/// One thread count's bench: the total time and nodes of its searches.
fn totals(lines: &[BenchLine]) -> (f64, u64) {
    (
        lines.iter().map(|l| l.elapsed.as_secs_f64()).sum(),
        lines.iter().map(|l| l.nodes).sum(),
    )
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// One thread count's runs in `oxello bench --scaling`: the bench on that many threads, and
/// (from 2 threads up to the machine's cores) as many one-thread benches at once, whose time
/// says what the cores give when no work is shared.
#[derive(Default, Clone)]
struct ScalingRuns {
    /// Each round's time of the bench on that many threads.
    seconds: Vec<f64>,
    /// Each round's nodes of that bench, position by position.
    per_position: Vec<Vec<u64>>,
    side_by_side: Vec<f64>,
}

impl ScalingRuns {
    /// The nodes of a round's bench, all positions together.
    fn nodes(&self, round: usize) -> u64 {
        self.per_position[round].iter().sum()
    }
}

/// `n` one-thread benches at once, one an OS thread: the mean of their times.
fn side_by_side(
    n: usize,
    positions: &[Position],
    args: &BenchArgs,
    search: SearchOptions,
    evaluation: &Evaluation,
) -> anyhow::Result<f64> {
    let options = EngineOptions {
        threads: 1,
        hash_mib: args.hash,
    };
    let times = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..n)
            .map(|_| {
                let evaluation = evaluation.clone();
                scope.spawn(move || {
                    run_bench(
                        positions,
                        options,
                        evaluation,
                        args.limits(),
                        search,
                        |_, _| {},
                    )
                    .map(|lines| totals(&lines).0)
                })
            })
            .collect();
        runs.into_iter()
            .map(|run| run.join().expect("a bench thread does not panic"))
            .collect::<anyhow::Result<Vec<f64>>>()
    })?;
    Ok(times.iter().sum::<f64>() / n as f64)
}

/// `oxello bench --scaling`: every thread count `rounds` times in turn, then a row each with
/// the medians. When the first count is 1, a count of 2 up to the machine's cores is also run
/// as that many one-thread benches at once: the speedup they make together at no node overhead
/// is the most the cores allow (`cores x`), the mark to read the shared search's speedup
/// against. Thread counts beyond the machine's cores still measure the node overhead, but
/// their time says nothing: the row says so.
fn run_scaling(
    positions: &[Position],
    args: &BenchArgs,
    search: SearchOptions,
    evaluation: Evaluation,
) -> anyhow::Result<()> {
    let cores = crate::engine::all_cores();
    // What the cores give is a speedup over one thread, so only measured from a first count of 1.
    let measures_cores = args.scaling[0] == 1;
    let mut runs = vec![ScalingRuns::default(); args.scaling.len()];
    for round in 0..args.rounds {
        for (i, &threads) in args.scaling.iter().enumerate() {
            let options = EngineOptions {
                threads: threads as usize,
                hash_mib: args.hash,
            };
            let lines = run_bench(
                positions,
                options,
                evaluation.clone(),
                args.limits(),
                search,
                |_, _| {},
            )?;
            let (seconds, nodes) = totals(&lines);
            log::info!(
                "round {} threads {threads}: {seconds:.3} s {nodes} nodes",
                round + 1
            );
            runs[i].seconds.push(seconds);
            runs[i]
                .per_position
                .push(lines.iter().map(|l| l.nodes).collect());
            if measures_cores && (2..=cores).contains(&(threads as usize)) {
                let seconds = side_by_side(threads as usize, positions, args, search, &evaluation)?;
                log::info!(
                    "round {} {threads} one-thread benches at once: {seconds:.3} s each",
                    round + 1
                );
                runs[i].side_by_side.push(seconds);
            }
        }
    }
    println!(
        "{:>7} {:>9} {:>13} {:>11} {:>8} {:>9} {:>8}  medians of {} runs at depth {}",
        "threads", "time", "nodes", "nps", "speedup", "nodes x", "cores x", args.rounds, args.depth
    );
    // Each ratio is taken within a round, between runs minutes apart at most, and the rows
    // show their medians: the machine's speed drifts more than that between rounds.
    let first = &runs[0];
    let ratio = |per_round: &dyn Fn(usize) -> f64| {
        median((0..first.seconds.len()).map(per_round).collect())
    };
    for (&threads, run) in args.scaling.iter().zip(&runs) {
        let seconds = median(run.seconds.clone());
        let nodes = median(
            (0..run.seconds.len())
                .map(|r| run.nodes(r) as f64)
                .collect(),
        );
        let speedup = ratio(&|r| first.seconds[r] / run.seconds[r].max(1e-9));
        let overhead = ratio(&|r| run.nodes(r) as f64 / (first.nodes(r) as f64).max(1.0));
        let ceiling = if run.side_by_side.is_empty() {
            "-".to_string()
        } else {
            let cores_give =
                ratio(&|r| threads as f64 * first.seconds[r] / run.side_by_side[r].max(1e-9));
            format!("{cores_give:.2}x")
        };
        let note = if threads as usize > cores {
            format!("  oversubscribed ({cores} cores): time and speedup say nothing, nodes do")
        } else {
            String::new()
        };
        println!(
            "{threads:>7} {seconds:>8.3}s {nodes:>13.0} {:>11.0} {speedup:>7.2}x {overhead:>8.2}x {ceiling:>8}{note}",
            nodes / seconds.max(1e-9),
        );
    }
    if args.per_position {
        print_per_position(&args.scaling, &runs, positions.len());
    }
    Ok(())
}

/// The `--per-position` table of `oxello bench --scaling`: a position's median nodes at each
/// thread count and, after the first count, the median and range of the per-round ratios.
fn print_per_position(counts: &[u64], runs: &[ScalingRuns], positions: usize) {
    let header: Vec<String> = counts
        .iter()
        .enumerate()
        .map(|(i, &threads)| {
            let width = if i == 0 { 12 } else { 33 };
            let name = if threads == 1 { "thread" } else { "threads" };
            format!("{:>width$}", format!("{threads} {name}"))
        })
        .collect();
    println!("{:>4} {}", "#", header.join(" "));
    let first = &runs[0].per_position;
    for position in 0..positions {
        let cells: Vec<String> = runs
            .iter()
            .enumerate()
            .map(|(i, run)| {
                let nodes = median(
                    run.per_position
                        .iter()
                        .map(|round| round[position] as f64)
                        .collect(),
                );
                if i == 0 {
                    return format!("{nodes:>12.0}");
                }
                let ratios: Vec<f64> = run
                    .per_position
                    .iter()
                    .zip(first)
                    .map(|(round, base)| round[position] as f64 / (base[position] as f64).max(1.0))
                    .collect();
                let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
                let high = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                format!(
                    "{nodes:>12.0} {:>5.2}x ({low:.2}-{high:.2}x)",
                    median(ratios)
                )
            })
            .collect();
        println!("{:>4} {}", position + 1, cells.join(" "));
    }
}

/// Runs `oxello bench` on `threads` threads: a row a position, the effective branching factor
/// per iteration, and last the signature line `N nodes M nps`.
pub fn run(args: &BenchArgs, threads: usize, evaluation: Evaluation) -> anyhow::Result<()> {
    let search = SearchOptions {
        ordering: OrderingOptions {
            table_move: !args.no_table_move,
            shallow_search: !args.no_shallow_search,
            hints: !args.no_hints,
        },
        parallel: ParallelOptions {
            interior_split_depth: if args.root_split_only {
                None
            } else {
                args.split_depth
                    .or(ParallelOptions::default().interior_split_depth)
            },
            elders: args.elders.unwrap_or(ParallelOptions::default().elders),
            helpers: !args.splits,
            ..ParallelOptions::default()
        },
        selectivity: args.selectivity,
        ..SearchOptions::default()
    };
    let positions = args.positions()?;
    if !args.scaling.is_empty() {
        return run_scaling(&positions, args, search, evaluation);
    }
    let options = EngineOptions {
        threads,
        hash_mib: args.hash,
    };
    println!(
        "{:>3} {:>5} {:>4} {:>5} {:>12} {:>9} {:>11}",
        "#", "move", "eval", "depth", "nodes", "time", "nps"
    );
    let lines = run_bench(
        &positions,
        options,
        evaluation,
        args.limits(),
        search,
        |i, line| {
            let mv = line.best_move.map_or(Move::Pass, Move::Play);
            println!(
                "{:>3} {:>5} {:>+4} {:>5} {:>12} {:>8.3}s {:>11.0}",
                i + 1,
                format_move(mv),
                line.score,
                line.depth,
                line.nodes,
                line.elapsed.as_secs_f64(),
                line.nodes as f64 / line.elapsed.as_secs_f64().max(1e-9)
            );
        },
    )?;
    let ebf: Vec<String> = branching_factors(&lines)
        .iter()
        .map(|(d, b)| format!("{d}:{b:.2}"))
        .collect();
    println!(
        "effective branching factor per iteration: {}",
        ebf.join(" ")
    );
    if let Some(ms) = args.move_time {
        let depths: Vec<f64> = lines.iter().map(|l| f64::from(l.depth)).collect();
        // The mean tells apart what the median, a whole ply, hides.
        let mean = depths.iter().sum::<f64>() / depths.len() as f64;
        println!("median depth {} at {ms} ms a move", median(depths));
        println!("mean depth {mean:.2} at {ms} ms a move");
    }
    let nodes: u64 = lines.iter().map(|l| l.nodes).sum();
    let seconds: f64 = lines.iter().map(|l| l.elapsed.as_secs_f64()).sum();
    println!("instruction set {}", crate::cpu::level().name());
    println!("time {seconds:.3} s");
    println!("{nodes} nodes {:.0} nps", nodes as f64 / seconds.max(1e-9));
    Ok(())
}
