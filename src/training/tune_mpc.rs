//! `oxello tune-mpc`: fits the Multi-ProbCut table to the evaluation in use.
//!
//! Positions are drawn from games by a seed; each is searched full width by iterative
//! deepening to a fixed depth, which gives its score at every depth from 1 up (0 is the static
//! evaluation). For every depth `d` the scores at `d` are fitted by least squares to those at
//! its shallow depth, and the deviations from that line as a linear function of the empties.
//!
//! The endgame solver's fit comes from positions with `PROBABLE_CUT_MIN_EMPTIES` to
//! `--endgame-empties` empties, each solved exactly and searched `endgame_shallow_depth` plies,
//! fitted the same way. Rerun it whenever the evaluation changes.

use super::dataset::{label_examples, load_all_games, GameSources, LabelledGame};
use crate::batch::{map_on_engines, progress_bar};
use crate::board::{Board, Color, Position};
use crate::engine::{Engine, EngineOptions};
use crate::eval::probcut_table::{DepthFit, Fit, ProbCutTable, MAX_FIT_DEPTH, MIN_CUT_DEPTH};
use crate::eval::{Evaluation, Evaluator, NetworkWeights};
use crate::random::seeded_hash;
use crate::search::probcut::{endgame_shallow_depth, shallow_depth, PROBABLE_CUT_MIN_EMPTIES};
use crate::search::{Limits, ParallelOptions, Proof, SearchOptions};
use std::path::PathBuf;

/// A position's search scores at every depth from 0 (the static evaluation) up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepthScores {
    pub empties: u32,
    pub scores: Vec<i32>,
}

/// Up to `count` positions drawn by `seed`: for draw `i`, a number of empties from
/// `min_empties` to `max_empties` by the hash of `2i + 1`, and `pick(hash of 2i, empties)`,
/// the position the draw gives, if any (at most `100 * count` draws).
fn draw_positions(
    count: usize,
    seed: u64,
    (min_empties, max_empties): (u32, u32),
    mut pick: impl FnMut(u64, u32) -> Option<Position>,
) -> Vec<Position> {
    let mut positions = Vec::with_capacity(count);
    let mut draw = 0u64;
    while positions.len() < count && draw < 100 * count as u64 {
        let empties = min_empties
            + (seeded_hash(seed, 2 * draw + 1) % u64::from(max_empties - min_empties + 1)) as u32;
        positions.extend(pick(seeded_hash(seed, 2 * draw), empties));
        draw += 1;
    }
    positions
}

/// `count` positions drawn from `games` by `seed`, each with `min_empties` to `max_empties`
/// empty squares and a move to play: a game and a number of empties a draw, the game played
/// up to them (none where it never has that many empties with a move to play).
pub fn sample_positions(
    games: &[LabelledGame],
    count: usize,
    seed: u64,
    empties: (u32, u32),
) -> Vec<Position> {
    if games.is_empty() {
        return Vec::new();
    }
    draw_positions(count, seed, empties, |hash, empties| {
        let game = &games[(hash % games.len() as u64) as usize];
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
        (position.board.empty_count() == empties && position.board.moves() != 0).then_some(position)
    })
}

/// `count` positions drawn from `boards` by `seed`: for each, a number of empties from
/// `min_empties` to `max_empties`, then one of the boards with that many empties and a move to
/// play (none where there is no such board), as [`sample_positions`] draws from games.
pub fn sample_boards(
    boards: &[Board],
    count: usize,
    seed: u64,
    empties: (u32, u32),
) -> Vec<Position> {
    let mut by_empties: Vec<Vec<Board>> = vec![Vec::new(); 61];
    for board in boards.iter().filter(|b| b.moves() != 0) {
        by_empties[board.empty_count() as usize].push(*board);
    }
    draw_positions(count, seed, empties, |hash, empties| {
        let candidates = &by_empties[empties as usize];
        (!candidates.is_empty()).then(|| Position {
            board: candidates[(hash % candidates.len() as u64) as usize],
            side_to_move: Color::Black,
        })
    })
}

/// Where the fits' positions come from: the positions of games, or labelled positions.
pub enum PositionSource {
    Games(Vec<LabelledGame>),
    Boards(Vec<Board>),
}

impl PositionSource {
    /// `count` positions drawn by `seed` with `empties` empty squares (see [`sample_positions`]
    /// and [`sample_boards`]).
    pub fn sample(&self, count: usize, seed: u64, empties: (u32, u32)) -> Vec<Position> {
        match self {
            PositionSource::Games(games) => sample_positions(games, count, seed, empties),
            PositionSource::Boards(boards) => sample_boards(boards, count, seed, empties),
        }
    }

    /// The positions of the labels files `files`.
    pub fn labelled(files: &[PathBuf]) -> anyhow::Result<PositionSource> {
        Ok(PositionSource::Boards(
            label_examples(files)?
                .into_iter()
                .flat_map(|(_, examples)| examples.into_iter().map(|e| e.board))
                .collect(),
        ))
    }
}

/// What the fits search: how many positions, how deep, drawn by which seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FitSettings {
    /// Midgame positions to search.
    pub positions: usize,
    /// Deepest midgame search, and so the deepest depth fitted.
    pub depth: u32,
    /// Seed of the choice of positions.
    pub seed: u64,
    /// Endgame positions to solve.
    pub endgame_positions: usize,
    /// The endgame positions have from 16 up to this many empties.
    pub endgame_empties: u32,
}

impl Default for FitSettings {
    fn default() -> Self {
        FitSettings {
            positions: 2000,
            depth: 12,
            seed: 1,
            endgame_positions: 1000,
            endgame_empties: 24,
        }
    }
}

/// Search options of the fits: full width, on one thread.
fn full_width_on_one_thread() -> SearchOptions {
    SearchOptions {
        selectivity: 0,
        answer_forced_at_once: false,
        parallel: ParallelOptions {
            enabled: false,
            ..ParallelOptions::default()
        },
        ..SearchOptions::default()
    }
}

/// The scores of `position` at depths 0 to `depth`, searched full width on one thread.
pub fn depth_scores(engine: &mut Engine, position: Position, depth: u32) -> DepthScores {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    engine.new_game(position);
    let mut scores = vec![engine.evaluation().evaluate(&position.board)];
    engine.search(&limits, full_width_on_one_thread(), &mut |p| {
        if p.proof == Proof::Heuristic && p.depth as usize == scores.len() {
            scores.push(p.score);
        }
    });
    DepthScores {
        empties: position.board.empty_count(),
        scores,
    }
}

/// An endgame position's exact score and the score of the search that predicts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndgameScores {
    pub empties: u32,
    pub shallow: i32,
    pub exact: i32,
}

/// The exact score of `position` and its score by a search of `endgame_shallow_depth` plies.
pub fn endgame_scores(engine: &mut Engine, position: Position) -> EndgameScores {
    let empties = position.board.empty_count();
    let shallow = *depth_scores(engine, position, endgame_shallow_depth(empties))
        .scores
        .last()
        .expect("a search has a score");
    engine.new_game(position);
    let exact = engine.search(&Limits::default(), full_width_on_one_thread(), &mut |_| {});
    debug_assert_eq!(exact.proof, Proof::Exact);
    EndgameScores {
        empties,
        shallow,
        exact: exact.score,
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

/// A fit, with how many positions it rests on and its residuals' deviation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitReport {
    pub fit: Fit,
    pub positions: usize,
    pub deviation: f64,
}

/// Fits `(empties, shallow, deep)` triples: the line deep ≈ a·shallow + b by least squares, and
/// the residuals' σ as a linear function of the empties; `None` below 30 triples or when
/// they fit no rising line.
fn fit_line(triples: &[(u32, f64, f64)]) -> Option<FitReport> {
    if triples.len() < 30 {
        return None;
    }
    let rows: Vec<([f64; 2], f64)> = triples.iter().map(|&(_, s, d)| ([s, 1.0], d)).collect();
    let [a, b] = least_squares(&rows)?;
    if a <= 0.0 {
        return None;
    }
    let mut squares = 0.0;
    let mut deviations = Vec::with_capacity(triples.len());
    for &(empties, s, d) in triples {
        let residual = d - (a * s + b);
        squares += residual * residual;
        deviations.push(([1.0, f64::from(empties)], residual.abs()));
    }
    // A normal error's mean absolute value is σ·√(2/π).
    let scale = (std::f64::consts::PI / 2.0).sqrt();
    let sigma = least_squares(&deviations)?.map(|c| c * scale);
    Some(FitReport {
        fit: Fit { a, b, sigma },
        positions: triples.len(),
        deviation: (squares / triples.len() as f64).sqrt(),
    })
}

/// Fits the midgame depths `MIN_CUT_DEPTH` to `max_depth` to `samples`; `None` if some depth
/// has too few positions to fit.
pub fn fit_depths(samples: &[DepthScores], max_depth: u32) -> Option<Vec<(DepthFit, FitReport)>> {
    (MIN_CUT_DEPTH..=max_depth)
        .map(|depth| {
            let shallow = shallow_depth(depth) as usize;
            let triples: Vec<(u32, f64, f64)> = samples
                .iter()
                .filter_map(|s| {
                    let deep = *s.scores.get(depth as usize)?;
                    Some((s.empties, f64::from(s.scores[shallow]), f64::from(deep)))
                })
                .collect();
            let report = fit_line(&triples)?;
            Some((
                DepthFit {
                    depth,
                    fit: report.fit,
                },
                report,
            ))
        })
        .collect()
}

/// Fits the endgame solver's prediction to `samples`.
pub fn fit_endgame(samples: &[EndgameScores]) -> Option<FitReport> {
    let triples: Vec<(u32, f64, f64)> = samples
        .iter()
        .map(|s| (s.empties, f64::from(s.shallow), f64::from(s.exact)))
        .collect();
    fit_line(&triples)
}

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

/// Searches `positions` on `workers` threads (one single-threaded search each) with `work`,
/// showing progress. Each search starts on a cleared table, so the results do not depend on
/// the threads.
fn search_all<R: Send>(
    positions: &[Position],
    evaluation: &Evaluation,
    workers: usize,
    work: impl Fn(&mut Engine, Position) -> R + Sync,
) -> anyhow::Result<Vec<R>> {
    let bar = progress_bar(
        positions.len() as u64,
        "{bar:30} {pos}/{len} positions [{elapsed}<{eta}]",
    );
    let options = EngineOptions {
        threads: 1,
        hash_mib: 16,
    };
    let results = map_on_engines(
        positions,
        workers,
        options,
        evaluation,
        |engine, &position| {
            let result = work(engine, position);
            bar.inc(1);
            result
        },
    )?;
    bar.finish_and_clear();
    Ok(results)
}

/// Fits the midgame depths to searches of positions from `source` and prints each fit on
/// stderr.
pub fn fit_midgame(
    settings: &FitSettings,
    source: &PositionSource,
    evaluation: &Evaluation,
    workers: usize,
) -> anyhow::Result<Vec<DepthFit>> {
    // Far enough from the end that no iteration reaches the exact solver.
    let empties = (settings.depth + 8, 56);
    let positions = source.sample(settings.positions, settings.seed, empties);
    eprintln!(
        "midgame: {} positions with {}-{} empties, searched to depth {}",
        positions.len(),
        empties.0,
        empties.1,
        settings.depth
    );
    let samples = search_all(&positions, evaluation, workers, |engine, position| {
        depth_scores(engine, position, settings.depth)
    })?;
    let fits = fit_depths(&samples, settings.depth)
        .ok_or_else(|| anyhow::anyhow!("too few positions to fit every depth"))?;
    eprintln!(
        "{:>5} {:>7} {:>9} {:>7} {:>7} {:>9} {:>12}",
        "depth", "shallow", "positions", "a", "b", "deviation", "sigma at 36"
    );
    for (fit, report) in &fits {
        eprintln!(
            "{:>5} {:>7} {:>9} {:>7.3} {:>7.2} {:>9.2} {:>12.2}",
            fit.depth,
            shallow_depth(fit.depth),
            report.positions,
            fit.fit.a,
            fit.fit.b,
            report.deviation,
            fit.fit.sigma(36)
        );
    }
    Ok(fits.into_iter().map(|(fit, _)| fit).collect())
}

/// Fits the endgame solver's prediction to exact solves of positions from `source` and prints
/// the fit on stderr.
pub fn fit_endgame_solver(
    settings: &FitSettings,
    source: &PositionSource,
    evaluation: &Evaluation,
    workers: usize,
) -> anyhow::Result<Fit> {
    let empties = (PROBABLE_CUT_MIN_EMPTIES, settings.endgame_empties);
    let positions = source.sample(settings.endgame_positions, settings.seed, empties);
    eprintln!(
        "endgame: {} positions with {}-{} empties, solved exactly",
        positions.len(),
        empties.0,
        empties.1
    );
    let samples = search_all(&positions, evaluation, workers, endgame_scores)?;
    let report =
        fit_endgame(&samples).ok_or_else(|| anyhow::anyhow!("too few endgame positions to fit"))?;
    let fit = report.fit;
    eprintln!(
        "endgame: {} positions, exact = {:.3} * shallow + {:.2}, deviation {:.2}, sigma {:.2} at {} and {:.2} at {} empties",
        report.positions,
        fit.a,
        fit.b,
        report.deviation,
        fit.sigma(empties.0),
        empties.0,
        fit.sigma(empties.1),
        empties.1
    );
    Ok(fit)
}

/// Checks `settings` against what the table can hold.
pub fn check_settings(settings: &FitSettings) -> anyhow::Result<()> {
    if !(MIN_CUT_DEPTH + 1..=MAX_FIT_DEPTH).contains(&settings.depth) {
        anyhow::bail!(
            "--depth must be from {} to {MAX_FIT_DEPTH}",
            MIN_CUT_DEPTH + 1
        );
    }
    if !(PROBABLE_CUT_MIN_EMPTIES + 2..=40).contains(&settings.endgame_empties) {
        anyhow::bail!(
            "--endgame-empties must be from {} to 40",
            PROBABLE_CUT_MIN_EMPTIES + 2
        );
    }
    Ok(())
}

/// The whole table fitted to `evaluation` on positions from `source`, on `workers` threads.
pub fn fit_table(
    settings: &FitSettings,
    source: &PositionSource,
    evaluation: &Evaluation,
    workers: usize,
) -> anyhow::Result<ProbCutTable> {
    check_settings(settings)?;
    Ok(ProbCutTable {
        fits: fit_midgame(settings, source, evaluation, workers)?,
        endgame: fit_endgame_solver(settings, source, evaluation, workers)?,
    })
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
        let fits = fit_depths(&samples, 6).unwrap();
        assert_eq!(fits.len(), 4);
        for (DepthFit { fit, .. }, report) in &fits {
            assert!(
                (fit.a - 2.0).abs() < 1e-9 && (fit.b - 3.0).abs() < 1e-9,
                "{fit:?}"
            );
            assert!(fit.sigma.iter().all(|c| c.abs() < 1e-6), "{fit:?}");
            assert_eq!(report.positions, 60);
        }
        assert!(fit_depths(&samples[..20], 6).is_none(), "too few positions");
    }

    #[test]
    fn the_endgame_fit_measures_a_deviation_that_grows_with_the_empties() {
        // exact = shallow - 1, off by +(empties - 14) and -(empties - 14) in pairs: the line
        // is recovered, and the mean absolute residual, empties - 14, is σ·√(2/π).
        let samples: Vec<EndgameScores> = (0..90)
            .map(|i: i32| {
                let empties = 16 + (i / 2 % 9) as u32;
                let error = (empties as i32 - 14) * if i % 2 == 0 { 1 } else { -1 };
                let shallow = i / 2 % 17 - 8;
                EndgameScores {
                    empties,
                    shallow,
                    exact: shallow - 1 + error,
                }
            })
            .collect();
        let report = fit_endgame(&samples).unwrap();
        let fit = report.fit;
        assert!(
            (fit.a - 1.0).abs() < 1e-9 && (fit.b + 1.0).abs() < 1e-9,
            "{fit:?}"
        );
        let scale = (std::f64::consts::PI / 2.0).sqrt();
        for empties in [16, 24] {
            let expected = f64::from(empties - 14) * scale;
            assert!((fit.sigma(empties) - expected).abs() < 1e-9, "{fit:?}");
        }
    }
}
