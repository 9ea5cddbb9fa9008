//! Games with known outcomes, for training and measuring evaluations: WTHOR databases (the
//! theoretical score) and `oxello selfplay` transcripts (the exact score), turned into
//! positions labelled with the final disc difference for the side to move.

use super::label_files::format::LabelsHeader;
use super::label_files::packed::read_labels;
use crate::batch::progress_bar;
use crate::board::{Board, Move, Position};
use crate::eval::Evaluation;
use crate::notation::{parse_transcript, read_wthor_file};
use crate::search::{
    Limits, ParallelOptions, SearchContext, SearchOptions, TranspositionTable, INFINITY,
};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// A game and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelledGame {
    /// Moves from the start, passes explicit.
    pub moves: Vec<Move>,
    /// Black's final disc difference with perfect play from where the record says it is exact.
    pub black_score: i32,
}

/// A position and its label: the final disc difference for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Example {
    pub board: Board,
    pub label: f32,
    /// Whether the label is the position's proved score (else a search's or a game's).
    pub exact: bool,
}

/// Reads games from WTHOR files (`.wtb`) and selfplay transcripts (any other file: lines of
/// `<transcript> <black score>`). WTHOR games stopped before the end are skipped.
pub fn load_games(path: &Path) -> anyhow::Result<Vec<LabelledGame>> {
    let is_wthor = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wtb"));
    if is_wthor {
        let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let file =
            read_wthor_file(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut games = Vec::with_capacity(file.games.len());
        for (i, game) in file.games.iter().enumerate() {
            let (moves, end) = game
                .replay()
                .map_err(|e| anyhow::anyhow!("{}: game {}: {e}", path.display(), i + 1))?;
            if end.board.is_game_over() {
                let black_score = 2 * i32::from(game.theoretical_black_discs) - 64;
                games.push(LabelledGame { moves, black_score });
            }
        }
        return Ok(games);
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            parse_game_line(line)
                .map(|(game, _)| game)
                .map_err(|e| anyhow::anyhow!("{} line {}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Parses a `<transcript> <black score>` line (selfplay's format): the game from the start and
/// the position its moves reach.
pub fn parse_game_line(line: &str) -> Result<(LabelledGame, Position), String> {
    let (transcript, score) = line
        .trim()
        .rsplit_once(char::is_whitespace)
        .ok_or("expected '<moves> <score>'")?;
    let black_score: i32 = score.parse().map_err(|_| format!("bad score '{score}'"))?;
    let (moves, end) = parse_transcript(transcript, &Position::START).map_err(|e| e.to_string())?;
    Ok((LabelledGame { moves, black_score }, end))
}

/// Reads the games of every file in turn (see [`load_games`]).
pub fn load_all_games(files: &[PathBuf]) -> anyhow::Result<Vec<LabelledGame>> {
    let mut games = Vec::new();
    for file in files {
        games.extend(load_games(file)?);
    }
    Ok(games)
}

/// Where a training tool's games come from: files named on the command line, and every WTHOR
/// file (`.wtb`) of a directory.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct GameSources {
    /// Game files: WTHOR .wtb files or selfplay transcripts.
    files: Vec<PathBuf>,
    /// A directory whose .wtb files are all read (e.g. the WTHOR database and
    /// Logistello's book games).
    #[arg(long)]
    data: Option<PathBuf>,
}

impl GameSources {
    /// Whether no games were named at all.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.data.is_none()
    }

    /// The files to read: those named, then the directory's WTHOR files in name order. An
    /// unreadable directory, or one without WTHOR files, is an error.
    pub fn files(&self) -> anyhow::Result<Vec<PathBuf>> {
        if self.is_empty() {
            anyhow::bail!("no games: name game files or a --data directory");
        }
        let mut files = self.files.clone();
        if let Some(dir) = &self.data {
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
}

/// A progress bar on stderr over the games being labelled.
pub fn labelling_bar(games: usize) -> indicatif::ProgressBar {
    progress_bar(
        games as u64,
        "{bar:30} {pos}/{len} games labelled [{elapsed}<{eta}]",
    )
}

/// The positions of `game` from the start, each before its move, and the position it ends in.
pub fn positions_of(game: &LabelledGame) -> (Vec<Position>, Position) {
    let mut positions = Vec::with_capacity(game.moves.len());
    let mut position = Position::START;
    for &mv in &game.moves {
        positions.push(position);
        position = position.play(mv).expect("games are replayed when loaded");
    }
    (positions, position)
}

/// The exact score for the side to move of every position of a game (`positions`, ending in
/// `end`) with at most `exact_empties` empties, `None` for the others, proved by `solver` from
/// the end of the game back: the move played from a position scores the negation of the next
/// position's score, so that is a floor (see [`ExactSolver::score`]).
pub fn exact_scores(
    positions: &[Position],
    end: &Position,
    exact_empties: u32,
    solver: &ExactSolver,
) -> Vec<Option<i32>> {
    let mut exact = vec![None; positions.len()];
    let mut next = end.board.is_game_over().then(|| end.board.final_score());
    for (i, earlier) in positions.iter().enumerate().rev() {
        if earlier.board.empty_count() > exact_empties {
            break;
        }
        let score = solver.score(&earlier.board, next.map(|s| -s));
        exact[i] = Some(score);
        next = Some(score);
    }
    exact
}

/// The score for the side to move of every position of a game (`positions`, ending in `end`)
/// with at most `exact_empties` empties, `None` for the others, read off the game's result:
/// the exact scores of a game played perfectly from there on (as `oxello selfplay` plays
/// from its `--exact-empties`), without proving them again.
pub fn played_scores(
    positions: &[Position],
    end: &Position,
    exact_empties: u32,
) -> Vec<Option<i32>> {
    let black_score = end.black_final_score();
    positions
        .iter()
        .map(|p| (p.board.empty_count() <= exact_empties).then(|| p.for_black(black_score)))
        .collect()
}

/// Every position of `game` that is not over, with its label; positions with at most
/// `exact_empties` empties are labelled with their exact score instead (see [`exact_scores`]).
pub fn examples_of(game: &LabelledGame, exact_empties: u32, solver: &ExactSolver) -> Vec<Example> {
    let (positions, end) = positions_of(game);
    let exact = exact_scores(&positions, &end, exact_empties, solver);
    positions
        .iter()
        .zip(exact)
        .filter(|(position, _)| position.board.moves() != 0)
        .map(|(position, exact)| {
            let label = exact.unwrap_or(if position.side_to_move == crate::board::Color::Black {
                game.black_score
            } else {
                -game.black_score
            });
            Example {
                board: position.board,
                label: label as f32,
                exact: exact.is_some(),
            }
        })
        .collect()
}

/// The examples of labels files written by `oxello label`, grouped by game (the game's rank
/// in its run, which the shards of one run share).
pub fn label_examples(files: &[PathBuf]) -> anyhow::Result<ExamplesByGame> {
    Ok(label_examples_by_file(files)?
        .into_iter()
        .flat_map(|(_, per_game)| per_game)
        .collect())
}

/// The examples of each labels file, grouped by game, with the file's header (which tells
/// searched labels from static ones).
pub fn label_examples_by_file(
    files: &[PathBuf],
) -> anyhow::Result<Vec<(LabelsHeader, ExamplesByGame)>> {
    files
        .iter()
        .map(|path| {
            let file = read_labels(path)?;
            let mut per_game: ExamplesByGame = Vec::new();
            for label in &file.labels {
                let example = Example {
                    board: label.board,
                    label: f32::from(label.score),
                    exact: file.header.is_exact(label),
                };
                let game = u64::from(label.game);
                match per_game.last_mut() {
                    Some((last, examples)) if *last == game => examples.push(example),
                    _ => per_game.push((game, vec![example])),
                }
            }
            Ok((file.header, per_game))
        })
        .collect()
}

/// Examples grouped by the number of their game.
pub type ExamplesByGame = Vec<(u64, Vec<Example>)>;

/// Blends each searched label of a game with the labels after it (a λ-return): the label
/// becomes `(1 - lambda)` times its own plus `lambda` times the next position's blended label
/// (negated when the other side moves there), from the end of the game back. The deeper
/// searches of later positions, and at last the exact scores of the endgame, so correct what a
/// search's evaluation got wrong. `examples` are a game's in order; exact labels stay as they
/// are, and so does a label whose next position is not one move later (not labelled: a
/// position an earlier game labelled).
pub fn blend_later_labels(examples: &mut [Example], lambda: f32) {
    let mut next: Option<Example> = None;
    for example in examples.iter_mut().rev() {
        let later = next.filter(|_| !example.exact).and_then(|after| {
            let board = &example.board;
            if after.board.empty_count() + 1 != board.empty_count() {
                None
            } else if after.board.opponent & board.player == board.player {
                Some(-after.label)
            } else if after.board.player & board.player == board.player {
                // The other side had to pass: the same side moves again.
                Some(after.label)
            } else {
                None
            }
        });
        if let Some(later) = later {
            example.label = (1.0 - lambda) * example.label + lambda * later;
        }
        next = Some(*example);
    }
}

/// How `train` and `train-network` blend labels with the labels after them in their game
/// (see [`blend_later_labels`]), in training and validation alike.
#[derive(clap::Args, Clone, Copy, Debug, PartialEq)]
pub struct LabelBlending {
    /// Blend each searched label with the labels after it in its game, training and
    /// validation alike: `(1 - λ)` times its own plus `λ` times the next position's blended
    /// label, so that later searches and the endgame's exact scores correct it; 0 keeps the
    /// searches' scores as they are.
    #[arg(long, default_value_t = 0.7, value_parser = parse_lambda)]
    pub label_lambda: f32,
    /// `--label-lambda` for the labels of files of static scores (`oxello label --depth 0`),
    /// which know less than a search's and so lean more on the labels after them.
    #[arg(long, default_value_t = 0.9, value_parser = parse_lambda)]
    pub static_label_lambda: f32,
}

/// Parses `--label-lambda`: a weight from 0 to 1.
fn parse_lambda(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(lambda) if (0.0..=1.0).contains(&lambda) => Ok(lambda),
        _ => Err(format!("expected a number from 0 to 1, got '{text}'")),
    }
}

impl LabelBlending {
    /// The labels of every game of every file blended with `label_lambda`, or
    /// `static_label_lambda` in files of static scores (header depth 0).
    pub fn blend(&self, by_file: Vec<(LabelsHeader, ExamplesByGame)>) -> ExamplesByGame {
        by_file
            .into_iter()
            .flat_map(|(header, mut per_game)| {
                let lambda = if header.depth == 0 {
                    self.static_label_lambda
                } else {
                    self.label_lambda
                };
                per_game
                    .par_iter_mut()
                    .for_each(|(_, examples)| blend_later_labels(examples, lambda));
                per_game
            })
            .collect()
    }
}

/// Proves exact scores of small positions for many threads at once: each search runs on its
/// caller's thread alone (the games are the parallel work), all sharing one table.
pub struct ExactSolver {
    tt: TranspositionTable,
    evaluation: Evaluation,
}

/// The labelling threads' shared table, in MiB.
const LABELLING_TABLE_MIB: usize = 32;

impl ExactSolver {
    /// A solver whose moves are ordered by `evaluation` (the scores do not depend on it).
    pub fn new(evaluation: &Evaluation) -> anyhow::Result<ExactSolver> {
        Ok(ExactSolver {
            tt: TranspositionTable::try_new(LABELLING_TABLE_MIB)?,
            evaluation: evaluation.clone(),
        })
    }

    /// The exact score of `board` for the side to move. Given a `floor` the score is known to
    /// reach, a null-window search first asks whether it does better; in well-played games it
    /// seldom does, and that one proof is the whole cost.
    pub fn score(&self, board: &Board, floor: Option<i32>) -> i32 {
        let empties = board.empty_count();
        let stop = AtomicBool::new(false);
        let options = SearchOptions {
            parallel: ParallelOptions {
                enabled: false,
                ..ParallelOptions::default()
            },
            ..SearchOptions::for_data()
        };
        let ctx = SearchContext::new(
            &self.tt,
            &self.evaluation,
            &stop,
            options,
            &Limits::default(),
            empties,
        );
        let alpha = match floor {
            Some(floor) if floor >= 64 => return floor,
            Some(floor) => {
                let score = ctx.alpha_beta(board, floor, floor + 1, empties);
                if score <= floor {
                    return floor;
                }
                score - 1
            }
            None => -INFINITY,
        };
        ctx.alpha_beta(board, alpha, INFINITY, empties)
    }
}

/// Examples of many games, in game order, labelled in parallel on the rayon pool;
/// `evaluation` orders the exact solver's moves, and `progress` is called after each game.
pub fn all_examples(
    games: &[LabelledGame],
    exact_empties: u32,
    evaluation: &Evaluation,
    progress: &(dyn Fn() + Sync),
) -> anyhow::Result<Vec<Vec<Example>>> {
    let solver = ExactSolver::new(evaluation)?;
    Ok(games
        .par_iter()
        .map(|game| {
            let examples = examples_of(game, exact_empties, &solver);
            progress();
            examples
        })
        .collect())
}

/// The least mean absolute error that any evaluation (any function of the position, the same
/// under the 8 symmetries) can reach on `examples`: a position seen in several games carries
/// each game's label, and the best single answer for it is their median.
pub fn label_floor(examples: &[Example]) -> f64 {
    if examples.is_empty() {
        return 0.0;
    }
    let mut keyed: Vec<((u64, u64), f32)> = examples
        .iter()
        .map(|e| {
            let key = e.board.canonical().0;
            ((key.player, key.opponent), e.label)
        })
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let total: f64 = keyed
        .chunk_by(|a, b| a.0 == b.0)
        .map(|same| {
            let median = same[same.len() / 2].1;
            same.iter()
                .map(|&(_, label)| f64::from((label - median).abs()))
                .sum::<f64>()
        })
        .sum();
    total / examples.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(board: Board, label: f32) -> Example {
        Example {
            board,
            label,
            exact: false,
        }
    }

    #[test]
    fn the_floor_is_the_spread_around_each_positions_median() {
        let start = Board::new(0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        let after_f5 = start.play(37).expect("f5 is legal");
        let after_e6 = start
            .play(44)
            .expect("e6 is legal, a symmetric image of f5");
        let examples = [
            example(start, 0.0),
            example(start, 4.0),
            example(start, 10.0),
            example(after_f5, -2.0),
            example(after_e6, 6.0),
        ];
        // start: median 4, deviations 4 + 0 + 6; after f5/e6: median 6, deviation 8.
        assert_eq!(label_floor(&examples), 18.0 / 5.0);
    }

    /// A game's positions from the start, each with its label, exact from `exact_from` on.
    fn game(moves: &[&str], labels: &[f32], exact_from: usize) -> Vec<Example> {
        let mut position = Position::START;
        let mut examples = Vec::new();
        for (i, (mv, &label)) in moves.iter().zip(labels).enumerate() {
            examples.push(Example {
                board: position.board,
                label,
                exact: i >= exact_from,
            });
            let square = crate::notation::parse_square(mv).expect("a square");
            position = position.play(Move::Play(square)).expect("a legal move");
        }
        examples
    }

    #[test]
    fn a_label_is_blended_with_the_next_ones_from_the_other_sides_view() {
        let mut examples = game(&["f5", "d6", "c3", "d3"], &[2.0, -4.0, 6.0, -10.0], 3);
        blend_later_labels(&mut examples, 0.5);
        let labels: Vec<f32> = examples.iter().map(|e| e.label).collect();
        // From the end: -10 exact; 6 -> (6 + 10) / 2 = 8; -4 -> (-4 - 8) / 2 = -6;
        // 2 -> (2 + 6) / 2 = 4.
        assert_eq!(labels, [4.0, -6.0, 8.0, -10.0]);
    }

    #[test]
    fn exact_labels_and_a_lambda_of_zero_leave_labels_as_they_are() {
        let mut exact = game(&["f5", "d6", "c3"], &[2.0, -4.0, 6.0], 0);
        let before = exact.clone();
        blend_later_labels(&mut exact, 0.7);
        assert_eq!(exact, before);
        let mut searched = game(&["f5", "d6", "c3"], &[2.0, -4.0, 6.0], 3);
        let before = searched.clone();
        blend_later_labels(&mut searched, 0.0);
        assert_eq!(searched, before);
    }

    #[test]
    fn a_pass_keeps_the_view_and_a_missing_position_breaks_the_chain() {
        // Black to move; after its move White has none, so Black moves again.
        let before_pass = Board::new(0b0001, 0b0010);
        let after_pass = Board::new(0b0111, 0);
        let mut examples = [example(before_pass, 2.0), example(after_pass, 8.0)];
        blend_later_labels(&mut examples, 0.5);
        assert_eq!(examples[0].label, 5.0);
        // A position two moves on is not the next one: the label stays.
        let start = Position::START.board;
        let two_on = start.play(37).unwrap().play(43).unwrap();
        let mut examples = [example(start, 2.0), example(two_on, 8.0)];
        blend_later_labels(&mut examples, 0.5);
        assert_eq!(examples[0].label, 2.0);
    }

    #[test]
    fn files_of_static_scores_are_blended_with_their_own_lambda() {
        let header = |depth| LabelsHeader {
            depth,
            exact_empties: 20,
            seed: 1,
            evaluation: Some(7),
        };
        let labels = [2.0, -4.0, 6.0, -10.0];
        let moves = ["f5", "d6", "c3", "d3"];
        let by_file = vec![
            (header(10), vec![(0, game(&moves, &labels, 3))]),
            (header(0), vec![(0, game(&moves, &labels, 3))]),
        ];
        let blending = LabelBlending {
            label_lambda: 0.5,
            static_label_lambda: 0.0,
        };
        let blended = blending.blend(by_file);
        let mut searched = game(&moves, &labels, 3);
        blend_later_labels(&mut searched, 0.5);
        assert_eq!(blended, vec![(0, searched), (0, game(&moves, &labels, 3))]);
    }

    #[test]
    fn positions_seen_once_have_no_floor() {
        let start = Board::new(0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        let examples = [
            example(start, 12.0),
            example(start.play(37).unwrap(), -30.0),
        ];
        assert_eq!(label_floor(&examples), 0.0);
    }
}
