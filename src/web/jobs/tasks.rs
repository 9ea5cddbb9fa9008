//! The page's searches: the engine's move, every move's score (hints), and a game's review,
//! each reporting its progress into the job's status as it goes.

use super::status::{
    Hint, HintsReport, JobContext, ReviewReport, ReviewedMove, ScoredPosition, Task, ThinkReport,
};
use crate::board::Move;
use crate::engine::{Engine, Game, MoveChoice};
use crate::notation::format_move;
use crate::search::probcut::level_percent;
use crate::search::{Bound, Limits, Proof, RootMove, SearchOptions};
use std::time::Duration;

/// The page's searches: the engine's move, hints, or a review.
pub fn run_task(engine: &mut Engine, task: Task, context: &JobContext) -> bool {
    match task {
        Task::Think { game, limits, book } => think(engine, game, &limits, book, context),
        Task::Hints { game, limits } => hints(engine, game, &limits, context),
        Task::Review { game, per_position } => review(engine, &game, per_position, context),
    }
}

/// How far a score is searched: `exact`, `win/loss/draw`, `18@73%` or `18`.
fn depth_text(depth: u32, selectivity: u8, proof: Proof) -> String {
    match proof {
        Proof::Exact => "exact".to_string(),
        Proof::WinLossDraw => "win/loss/draw".to_string(),
        Proof::Heuristic if selectivity == 0 => depth.to_string(),
        Proof::Heuristic => format!("{depth}@{}%", level_percent(selectivity)),
    }
}

/// A move as the page writes it: `f5`, or `pass`.
pub fn move_name(mv: Move) -> String {
    match mv {
        Move::Play(_) => format_move(mv).to_ascii_lowercase(),
        Move::Pass => "pass".to_string(),
    }
}

fn search_move_name(mv: Option<u8>) -> String {
    move_name(mv.map_or(Move::Pass, Move::Play))
}

impl ThinkReport {
    /// The report of a search, from its progress or its result: its best move (`None`: a
    /// pass), principal variation, score, depth and (nodes, time).
    fn of_search(
        best: Option<u8>,
        pv: &[Option<u8>],
        score: i32,
        depth: String,
        (nodes, elapsed): (u64, Duration),
    ) -> ThinkReport {
        ThinkReport {
            mv: search_move_name(best),
            score,
            depth,
            pv: pv.iter().map(|&m| search_move_name(m)).collect(),
            nodes,
            seconds: elapsed.as_secs_f64(),
            book: false,
        }
    }
}

fn think(
    engine: &mut Engine,
    game: Game,
    limits: &Limits,
    book: bool,
    context: &JobContext,
) -> bool {
    engine.set_game(game);
    engine.enable_book(book);
    let choice = engine.choose_move(limits, SearchOptions::default(), &mut |progress| {
        let report = ThinkReport::of_search(
            progress.pv.first().copied().flatten(),
            &progress.pv,
            progress.score,
            depth_text(progress.depth, progress.selectivity, progress.proof),
            (progress.nodes, progress.elapsed),
        );
        context.update(|status| status.think = Some(report));
    });
    let report = match &choice {
        MoveChoice::Book(book_move) => ThinkReport {
            mv: move_name(Move::Play(book_move.square)),
            score: book_move.value,
            depth: if book_move.exact {
                "exact".to_string()
            } else {
                "book".to_string()
            },
            pv: vec![move_name(Move::Play(book_move.square))],
            nodes: 0,
            seconds: 0.0,
            book: true,
        },
        MoveChoice::Search(result) => ThinkReport::of_search(
            result.best_move,
            &result.pv,
            result.score,
            depth_text(result.depth, result.selectivity, result.proof),
            (result.nodes, result.elapsed),
        ),
    };
    context.update(|status| status.think = Some(report));
    true
}

impl HintsReport {
    /// The hints of a search, from its progress or its result: its depth, its root moves and
    /// (nodes, time).
    fn of_search(
        depth: String,
        root_moves: &[RootMove],
        (nodes, elapsed): (u64, Duration),
    ) -> HintsReport {
        HintsReport {
            depth,
            hints: root_moves
                .iter()
                .map(|root| Hint {
                    mv: search_move_name(root.mv),
                    score: root.score,
                    bound: match root.bound {
                        Bound::Exact => "exact",
                        Bound::Upper => "upper",
                        Bound::Lower => "lower",
                    },
                })
                .collect(),
            nodes,
            seconds: elapsed.as_secs_f64(),
        }
    }
}

fn hints(engine: &mut Engine, game: Game, limits: &Limits, context: &JobContext) -> bool {
    engine.set_game(game);
    let options = SearchOptions {
        multi_pv: 64,
        answer_forced_at_once: false,
        ..SearchOptions::default()
    };
    let result = engine.search(limits, options, &mut |progress| {
        let report = HintsReport::of_search(
            depth_text(progress.depth, progress.selectivity, progress.proof),
            &progress.root_moves,
            (progress.nodes, progress.elapsed),
        );
        context.update(|status| status.hints = Some(report));
    });
    if result.depth > 0 || result.proof == Proof::Exact {
        let report = HintsReport::of_search(
            depth_text(result.depth, result.selectivity, result.proof),
            &result.root_moves,
            (result.nodes, result.elapsed),
        );
        context.update(|status| status.hints = Some(report));
    }
    true
}

/// A position's score for its side to move, how it was proven, and its best move.
struct Scored {
    score: i32,
    depth: String,
    exact: bool,
    best: Option<String>,
}

/// Scores every position of `game` from the last to the first, so that the exact end of the
/// game comes first and fills the table the earlier positions' searches read. Returns false if
/// stopped before the first position.
fn review(engine: &mut Engine, game: &Game, per_position: Duration, context: &JobContext) -> bool {
    let positions = game.positions();
    let moves = game.moves();
    let total = positions.len();
    context.update(|status| {
        status.review = Some(ReviewReport {
            total,
            ..ReviewReport::default()
        });
    });
    let mut scored: Vec<Option<Scored>> = (0..total).map(|_| None).collect();
    let limits = Limits {
        move_time: Some(per_position),
        ..Limits::default()
    };
    let options = SearchOptions {
        answer_forced_at_once: false,
        ..SearchOptions::default()
    };
    for ply in (0..total).rev() {
        let position = positions[ply];
        let board = position.board;
        let this = if board.is_game_over() {
            Scored {
                score: board.final_score(),
                depth: "exact".to_string(),
                exact: true,
                best: None,
            }
        } else if board.must_pass() && ply + 1 < total {
            let after = scored[ply + 1].as_ref().expect("scored from the end");
            Scored {
                score: -after.score,
                depth: after.depth.clone(),
                exact: after.exact,
                best: None,
            }
        } else {
            let result = engine.search_at(&position, &limits, options, &mut |_| {});
            if engine.stop_requested() && result.depth == 0 && result.proof != Proof::Exact {
                return false;
            }
            Scored {
                score: result.score,
                depth: depth_text(result.depth, result.selectivity, result.proof),
                exact: result.proof == Proof::Exact,
                best: result.best_move.map(|m| search_move_name(Some(m))),
            }
        };
        let point = ScoredPosition {
            ply,
            black_score: position.for_black(this.score),
            depth: this.depth.clone(),
            best: this.best.clone(),
        };
        let reviewed = scored.get(ply + 1).and_then(Option::as_ref).map(|after| {
            // Two searches of different depths may disagree: a move played that scores at
            // least the position's own score was as good as the best found.
            let played_score = -after.score;
            let (best, best_score) = if moves[ply] == Move::Pass || played_score >= this.score {
                (Some(move_name(moves[ply])), played_score)
            } else {
                (this.best.clone(), this.score)
            };
            ReviewedMove {
                ply: ply + 1,
                color: position.side_to_move.name(),
                mv: move_name(moves[ply]),
                best,
                best_score,
                played_score,
                loss: best_score - played_score,
                exact: this.exact && after.exact,
            }
        });
        scored[ply] = Some(this);
        context.update(|status| {
            if let Some(report) = status.review.as_mut() {
                report.done += 1;
                report.positions.insert(0, point);
                if let Some(reviewed) = reviewed {
                    report.moves.insert(0, reviewed);
                }
            }
        });
        if engine.stop_requested() {
            return ply == 0;
        }
    }
    true
}
