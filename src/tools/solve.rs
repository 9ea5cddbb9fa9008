//! `oxello solve`: solves every position of an OBF test suite exactly (or win/loss/draw) and
//! compares with the scores the file lists.

use crate::batch::progress_bar;
use crate::board::Move;
use crate::engine::{Engine, EngineOptions};
use crate::eval::Evaluation;
use crate::notation::{format_move, parse_obf_file, ObfEntry};
use crate::search::tt::COMMITTED_AT_ONCE;
use crate::search::{Limits, SearchOptions, SearchResult};
use std::time::Duration;

/// One solved position of a suite.
#[derive(Clone, Debug)]
pub struct SolvedPosition {
    /// The position's number (the suite's first number plus its index).
    pub number: usize,
    pub empties: u32,
    pub best_move: Move,
    pub score: i32,
    /// The best score the file lists, if it lists any.
    pub expected: Option<i32>,
    pub nodes: u64,
    pub elapsed: Duration,
    /// Whether the result agrees with the file (the sign only, for win/loss/draw).
    pub ok: bool,
}

/// The number of the first position of a suite, from a name like `fforum-40-59.obf`; 1 if the
/// name has none.
pub fn first_number(file_name: &str) -> usize {
    file_name
        .split(|c: char| !c.is_ascii_digit())
        .find(|part| !part.is_empty())
        .and_then(|part| part.parse().ok())
        .unwrap_or(1)
}

/// Whether a solved score agrees with the expected one.
fn agrees(score: i32, expected: Option<i32>, win_loss_draw: bool) -> bool {
    match expected {
        None => true,
        Some(expected) if win_loss_draw => score.signum() == expected.signum(),
        Some(expected) => score == expected,
    }
}

/// Solves `entries` one by one on `engine`, the table cleared for each, reporting each as it
/// is done.
pub fn solve_suite(
    engine: &mut Engine,
    entries: &[ObfEntry],
    first: usize,
    win_loss_draw: bool,
    mut on_solved: impl FnMut(&SolvedPosition),
) -> Vec<SolvedPosition> {
    let search = SearchOptions {
        win_loss_draw,
        answer_forced_at_once: false,
        ..SearchOptions::default()
    };
    let mut solved = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        engine.new_game(entry.position);
        let result: SearchResult = engine.search(&Limits::default(), search, &mut |_| {});
        let expected = entry.best_score();
        let line = SolvedPosition {
            number: first + i,
            empties: entry.position.board.empty_count(),
            best_move: result.best_move.map_or(Move::Pass, Move::Play),
            score: result.score,
            expected,
            nodes: result.nodes,
            elapsed: result.elapsed,
            ok: agrees(result.score, expected, win_loss_draw),
        };
        on_solved(&line);
        solved.push(line);
    }
    solved
}

/// The table header matching [`format_row`].
pub fn header() -> String {
    format!(
        "{:>4} {:>7} {:>5} {:>6} {:>8} {:>4} {:>14} {:>9} {:>11}",
        "#", "empties", "move", "score", "expected", "", "nodes", "time", "nps"
    )
}

/// One row of the results table.
pub fn format_row(line: &SolvedPosition) -> String {
    let seconds = line.elapsed.as_secs_f64();
    format!(
        "{:>4} {:>7} {:>5} {:>+6} {:>8} {:>4} {:>14} {:>8.3}s {:>11.0}",
        line.number,
        line.empties,
        format_move(line.best_move),
        line.score,
        line.expected.map_or("?".to_string(), |e| format!("{e:+}")),
        if line.ok { "ok" } else { "FAIL" },
        line.nodes,
        seconds,
        line.nodes as f64 / seconds.max(1e-9)
    )
}

/// `oxello solve`: solves every position of an OBF suite and compares with its scores.
#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// The OBF file (e.g. data/fforum-40-59.obf).
    #[arg(required_unless_present = "signature")]
    file: Option<std::path::PathBuf>,
    /// Prove only win, loss or draw.
    #[arg(long)]
    wld: bool,
    /// Transposition table size in MiB (large: the hard FFO positions fill 256 MiB).
    #[arg(long, default_value_t = 1024)]
    hash: usize,
    /// Solve the signature set instead of a file: FFO #20-#29, built in, on one thread with a
    /// 64 MiB table (mapped whole at once, so the tree is the same every run); the last line,
    /// `N nodes M nps`, is the solver's signature, as `bench`'s is the midgame's.
    #[arg(long, conflicts_with_all = ["file", "wld", "hash"])]
    signature: bool,
}

/// The signature set: the first ten positions of FFO #20-#39 (18 to 24 empties).
const SIGNATURE_SUITE: &str = include_str!("../../data/fforum-20-39.obf");
const SIGNATURE_POSITIONS: usize = 10;
const SIGNATURE_FIRST: usize = 20;
/// The signature's table: what the engine maps at once, so that no search runs on a table
/// still growing, whose size would change the tree.
const SIGNATURE_HASH_MIB: usize = COMMITTED_AT_ONCE >> 20;

/// Runs `oxello solve`, printing a row a position and the total; true when every score agrees
/// with the file. `threads` is the `--threads` given, if any: all cores by default, and one
/// for the signature, which refuses any other count.
pub fn run(
    args: &SolveArgs,
    threads: Option<usize>,
    evaluation: Evaluation,
) -> anyhow::Result<bool> {
    let (entries, first, hash_mib, threads) = match &args.file {
        Some(file) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
            let entries =
                parse_obf_file(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let name = file
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            let threads = threads.unwrap_or_else(crate::engine::all_cores);
            (entries, first_number(&name), args.hash, threads)
        }
        None => {
            if threads.is_some_and(|t| t != 1) {
                anyhow::bail!("the solver's signature is taken on one thread: leave --threads out");
            }
            let mut entries = parse_obf_file(SIGNATURE_SUITE)
                .map_err(|e| anyhow::anyhow!("the built-in signature set: {e}"))?;
            entries.truncate(SIGNATURE_POSITIONS);
            (entries, SIGNATURE_FIRST, SIGNATURE_HASH_MIB, 1)
        }
    };
    let bar = progress_bar(
        entries.len() as u64,
        "{bar:30} {pos}/{len} solved, {elapsed} {msg}",
    );
    let options = EngineOptions { threads, hash_mib };
    let mut engine = Engine::with_evaluation(options, evaluation)?;
    println!("{}", header());
    let solved = solve_suite(&mut engine, &entries, first, args.wld, |line| {
        bar.suspend(|| println!("{}", format_row(line)));
        bar.inc(1);
    });
    bar.finish_and_clear();
    let nodes: u64 = solved.iter().map(|s| s.nodes).sum();
    let seconds: f64 = solved.iter().map(|s| s.elapsed.as_secs_f64()).sum();
    let right = solved.iter().filter(|s| s.ok).count();
    let nps = nodes as f64 / seconds.max(1e-9);
    println!(
        "total: {right}/{} right, {nodes} nodes, {seconds:.3} s, {nps:.0} nps",
        solved.len()
    );
    if args.signature {
        println!("{nodes} nodes {nps:.0} nps");
    }
    Ok(right == solved.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_numbers_come_from_the_file_name() {
        assert_eq!(first_number("fforum-40-59.obf"), 40);
        assert_eq!(first_number("suite.obf"), 1);
    }

    #[test]
    fn win_loss_draw_compares_signs() {
        assert!(agrees(4, Some(18), true));
        assert!(!agrees(4, Some(18), false));
        assert!(!agrees(0, Some(2), true));
        assert!(agrees(0, Some(0), true));
    }
}
