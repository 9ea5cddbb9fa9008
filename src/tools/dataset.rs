//! Games with known outcomes, for training and measuring evaluations: WTHOR databases (the
//! theoretical score) and `oxello selfplay` transcripts (the exact score), turned into
//! positions labelled with the final disc difference for the side to move.

use crate::board::{Board, Move, Position};
use crate::eval::Evaluation;
use crate::notation::{parse_transcript, read_wthor_file};
use crate::search::{Limits, SearchContext, SearchOptions, TranspositionTable, INFINITY};
use rayon::prelude::*;
use std::path::Path;
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
        for game in &file.games {
            let (moves, end) = game
                .replay()
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
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
            let (transcript, score) =
                line.trim()
                    .rsplit_once(char::is_whitespace)
                    .ok_or_else(|| {
                        anyhow::anyhow!(
                            "{} line {}: expected '<moves> <score>'",
                            path.display(),
                            i + 1
                        )
                    })?;
            let black_score: i32 = score.parse().map_err(|_| {
                anyhow::anyhow!("{} line {}: bad score '{score}'", path.display(), i + 1)
            })?;
            let (moves, _) = parse_transcript(transcript, &Position::START)
                .map_err(|e| anyhow::anyhow!("{} line {}: {e}", path.display(), i + 1))?;
            Ok(LabelledGame { moves, black_score })
        })
        .collect()
}

/// Every position of `game` that is not over, with its label; positions with at most
/// `exact_empties` empties are labelled by solving them exactly instead.
pub fn examples_of(
    game: &LabelledGame,
    exact_empties: u32,
    tt: &TranspositionTable,
) -> Vec<Example> {
    let mut position = Position::START;
    let mut examples = Vec::with_capacity(game.moves.len());
    for &mv in &game.moves {
        let board = position.board;
        if board.moves() != 0 {
            let label = if board.empty_count() <= exact_empties {
                solve(&board, tt)
            } else if position.side_to_move == crate::board::Color::Black {
                game.black_score
            } else {
                -game.black_score
            };
            examples.push(Example {
                board,
                label: label as f32,
            });
        }
        position = position.play(mv).expect("games are replayed when loaded");
    }
    examples
}

/// The exact score of a small position, on the calling thread.
fn solve(board: &Board, tt: &TranspositionTable) -> i32 {
    let stop = AtomicBool::new(false);
    let evaluation = Evaluation::Simple;
    let ctx = SearchContext::new(
        tt,
        &evaluation,
        &stop,
        SearchOptions::default(),
        &Limits::default(),
        board.empty_count(),
    );
    ctx.alpha_beta(board, -INFINITY, INFINITY, board.empty_count())
}

/// Examples of many games, in game order, solved in parallel where exact labels are asked for.
pub fn all_examples(games: &[LabelledGame], exact_empties: u32) -> Vec<Vec<Example>> {
    games
        .par_iter()
        .map_init(
            || TranspositionTable::new(1),
            |tt, game| examples_of(game, exact_empties, tt),
        )
        .collect()
}
