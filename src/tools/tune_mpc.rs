//! `oxello tune-mpc`: fits the Multi-ProbCut table to the evaluation in use.
//!
//! Positions are drawn from games by a seed; each is searched full width by iterative
//! deepening to a fixed depth, which gives its score at every depth from 1 up (0 is the static
//! evaluation). For every depth `d` the scores at `d` are fitted by least squares to those at
//! its shallow depth, and the deviations from that line as a linear function of the empties.
//! Rerun it whenever the evaluation changes.

use super::dataset::{load_all_games, GameSources, LabelledGame};
use super::{map_on_engines, progress_bar};
use crate::board::Position;
use crate::engine::{Engine, EngineOptions};
use crate::eval::{Evaluation, Evaluator};
use crate::random::seeded_hash;
use crate::search::probcut::{shallow_depth, DepthFit, ProbCutTable, MIN_CUT_DEPTH};
use crate::search::{Limits, ParallelOptions, Proof, SearchOptions};
use std::path::PathBuf;

/// A position's search scores at every depth from 0 (the static evaluation) up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepthScores {
    pub empties: u32,
    pub scores: Vec<i32>,
}

/// `count` positions drawn from `games` by `seed`, each with `min_empties` to `max_empties`
/// empty squares and a move to play.
pub fn sample_positions(
    games: &[LabelledGame],
    count: usize,
    seed: u64,
    (min_empties, max_empties): (u32, u32),
) -> Vec<Position> {
    let mut positions = Vec::with_capacity(count);
    let mut draw = 0u64;
    while positions.len() < count && !games.is_empty() && draw < 100 * count as u64 {
        let game = &games[(seeded_hash(seed, 2 * draw) % games.len() as u64) as usize];
        let empties = min_empties
            + (seeded_hash(seed, 2 * draw + 1) % u64::from(max_empties - min_empties + 1)) as u32;
        draw += 1;
        let mut position = Position::START;
        for &mv in &game.moves {
            if position.board.empty_count() <= empties {
                break;
            }
            match position.play(mv) {
                Ok(next) => position = next,
                Err(_) => break,
            }
        }
        if position.board.empty_count() == empties && position.board.moves() != 0 {
            positions.push(position);
        }
    }
    positions
}

/// The scores of `position` at depths 0 to `depth`, searched full width on one thread.
pub fn depth_scores(engine: &mut Engine, position: Position, depth: u32) -> DepthScores {
    let options = SearchOptions {
        selectivity: 0,
        answer_forced_at_once: false,
        parallel: ParallelOptions {
            enabled: false,
            ..ParallelOptions::default()
        },
        ..SearchOptions::default()
    };
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    engine.new_game(position);
    let mut scores = vec![engine.evaluation().evaluate(&position.board)];
    engine.search(&limits, options, &mut |p| {
        if p.proof == Proof::Heuristic && p.depth as usize == scores.len() {
            scores.push(p.score);
        }
    });
    DepthScores {
        empties: position.board.empty_count(),
        scores,
    }
}

/// Least squares: the `x` minimising |A x - y|² for rows `(features, y)`, or `None` when the
/// features do not determine it.
fn least_squares<const K: usize>(rows: &[([f64; K], f64)]) -> Option<[f64; K]> {
    let mut normal = [[0.0; K]; K];
    let mut right = [0.0; K];
    for (features, y) in rows {
        for i in 0..K {
            right[i] += features[i] * y;
            for j in 0..K {
                normal[i][j] += features[i] * features[j];
            }
        }
    }
    for column in 0..K {
        let pivot = (column..K)
            .max_by(|&a, &b| normal[a][column].abs().total_cmp(&normal[b][column].abs()))?;
        if normal[pivot][column].abs() < 1e-9 {
            return None;
        }
        normal.swap(column, pivot);
        right.swap(column, pivot);
        let (pivot_row, pivot_right) = (normal[column], right[column]);
        for (i, (row, value)) in normal.iter_mut().zip(right.iter_mut()).enumerate() {
            if i != column {
                let factor = row[column] / pivot_row[column];
                for (entry, pivot_entry) in row.iter_mut().zip(pivot_row) {
                    *entry -= factor * pivot_entry;
                }
                *value -= factor * pivot_right;
            }
        }
    }
    Some(std::array::from_fn(|i| right[i] / normal[i][i]))
}

/// The fit of one depth, with how many positions it rests on and its residuals' deviation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthReport {
    pub fit: DepthFit,
    pub positions: usize,
    pub deviation: f64,
}

/// Fits the table to `samples` for depths `MIN_CUT_DEPTH` to `max_depth`; `None` if some depth
/// has too few positions to fit.
pub fn fit_table(
    samples: &[DepthScores],
    max_depth: u32,
) -> Option<(ProbCutTable, Vec<DepthReport>)> {
    let mut fits = Vec::new();
    let mut reports = Vec::new();
    for depth in MIN_CUT_DEPTH..=max_depth {
        let shallow = shallow_depth(depth) as usize;
        let pairs: Vec<(u32, f64, f64)> = samples
            .iter()
            .filter_map(|s| {
                let deep = *s.scores.get(depth as usize)?;
                Some((s.empties, f64::from(s.scores[shallow]), f64::from(deep)))
            })
            .collect();
        if pairs.len() < 30 {
            return None;
        }
        let rows: Vec<([f64; 2], f64)> = pairs.iter().map(|&(_, s, d)| ([s, 1.0], d)).collect();
        let [a, b] = least_squares(&rows)?;
        if a <= 0.0 {
            return None;
        }
        let mut squares = 0.0;
        let mut deviations = Vec::with_capacity(pairs.len());
        for &(empties, s, d) in &pairs {
            let residual = d - (a * s + b);
            squares += residual * residual;
            deviations.push(([1.0, f64::from(empties)], residual.abs()));
        }
        // A normal error's mean absolute value is σ·√(2/π).
        let scale = (std::f64::consts::PI / 2.0).sqrt();
        let sigma = least_squares(&deviations)?.map(|c| c * scale);
        let fit = DepthFit { depth, a, b, sigma };
        fits.push(fit);
        reports.push(DepthReport {
            fit,
            positions: pairs.len(),
            deviation: (squares / pairs.len() as f64).sqrt(),
        });
    }
    Some((ProbCutTable { fits }, reports))
}

/// `oxello tune-mpc`: fits the Multi-ProbCut table to searches of positions from games.
#[derive(clap::Args, Debug)]
pub struct TuneMpcArgs {
    #[command(flatten)]
    games: GameSources,
    /// Positions to search.
    #[arg(long, default_value_t = 2000)]
    positions: usize,
    /// Deepest search, and so the deepest depth fitted.
    #[arg(long, default_value_t = 12)]
    depth: u32,
    /// Seed of the choice of positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the table (the built-in one is src/eval/oxello.mpc).
    #[arg(long, default_value = "oxello.mpc")]
    output: PathBuf,
}

/// Runs `oxello tune-mpc` on all cores (one single-threaded search per core), writes the
/// table and prints each depth's fit.
pub fn run(args: &TuneMpcArgs, evaluation: &Evaluation) -> anyhow::Result<()> {
    if !(MIN_CUT_DEPTH + 1..=crate::search::probcut::MAX_FIT_DEPTH).contains(&args.depth) {
        anyhow::bail!(
            "--depth must be from {} to {}",
            MIN_CUT_DEPTH + 1,
            crate::search::probcut::MAX_FIT_DEPTH
        );
    }
    let files = args.games.files()?;
    let games = load_all_games(&files)?;
    // Far enough from the end that no iteration reaches the exact solver.
    let empties = (args.depth + 8, 56);
    let positions = sample_positions(&games, args.positions, args.seed, empties);
    eprintln!(
        "{} positions with {}-{} empties from {} games, searched to depth {}",
        positions.len(),
        empties.0,
        empties.1,
        games.len(),
        args.depth
    );
    let bar = progress_bar(
        positions.len() as u64,
        "{bar:30} {pos}/{len} positions [{elapsed}<{eta}]",
    );
    let options = EngineOptions {
        threads: 1,
        hash_mib: 16,
    };
    let samples = map_on_engines(
        &positions,
        crate::engine::all_cores(),
        options,
        evaluation,
        |engine, &position| {
            let scores = depth_scores(engine, position, args.depth);
            bar.inc(1);
            scores
        },
    )?;
    bar.finish_and_clear();
    let (table, reports) = fit_table(&samples, args.depth)
        .ok_or_else(|| anyhow::anyhow!("too few positions to fit every depth"))?;
    std::fs::write(&args.output, table.format())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.output.display()))?;
    println!(
        "{:>5} {:>7} {:>9} {:>7} {:>7} {:>9} {:>12}",
        "depth", "shallow", "positions", "a", "b", "deviation", "sigma at 36"
    );
    for r in &reports {
        println!(
            "{:>5} {:>7} {:>9} {:>7.3} {:>7.2} {:>9.2} {:>12.2}",
            r.fit.depth,
            shallow_depth(r.fit.depth),
            r.positions,
            r.fit.a,
            r.fit.b,
            r.deviation,
            table.sigma(r.fit.depth, 36).unwrap_or(f64::NAN)
        );
    }
    println!("table written to {}", args.output.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_recovers_an_exact_line_and_refuses_a_degenerate_one() {
        let rows: Vec<([f64; 2], f64)> = (0..10)
            .map(|x| ([f64::from(x), 1.0], 3.0 * f64::from(x) - 2.0))
            .collect();
        let [a, b] = least_squares(&rows).unwrap();
        assert!((a - 3.0).abs() < 1e-9 && (b + 2.0).abs() < 1e-9);
        let flat: Vec<([f64; 2], f64)> = (0..10).map(|x| ([1.0, 1.0], f64::from(x))).collect();
        assert_eq!(least_squares(&flat), None);
    }

    #[test]
    fn a_fit_finds_the_relation_the_samples_were_made_with() {
        // Depths 0 to 2 vary freely; from 3 on, deep = 2 * shallow + 3 exactly.
        let samples: Vec<DepthScores> = (0..60)
            .map(|i: i32| {
                let mut scores = vec![i % 13 - 6, i % 7 - 3, i % 11 - 5];
                for depth in 3..=6 {
                    scores.push(2 * scores[shallow_depth(depth) as usize] + 3);
                }
                DepthScores {
                    empties: 30 + (i % 7) as u32,
                    scores,
                }
            })
            .collect();
        let (table, reports) = fit_table(&samples, 6).unwrap();
        assert_eq!(table.fits.len(), 4);
        for (fit, report) in table.fits.iter().zip(&reports) {
            assert!(
                (fit.a - 2.0).abs() < 1e-9 && (fit.b - 3.0).abs() < 1e-9,
                "{fit:?}"
            );
            assert!(fit.sigma.iter().all(|c| c.abs() < 1e-6), "{fit:?}");
            assert_eq!(report.positions, 60);
        }
        assert!(fit_table(&samples[..20], 6).is_none(), "too few positions");
    }
}
