//! The searches a fit rests on: a position's full-width scores at every depth, or its exact
//! score beside the solver's shallow prediction, run over many positions on single-threaded
//! engines side by side.

use crate::batch::{map_on_engines, progress_bar};
use crate::board::Position;
use crate::engine::{Engine, EngineOptions};
use crate::eval::{Evaluation, Evaluator};
use crate::search::probcut::endgame_shallow_depth;
use crate::search::{Limits, ParallelOptions, Proof, SearchOptions};

/// A position's search scores at every depth from 0 (the static evaluation) up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepthScores {
    pub empties: u32,
    pub scores: Vec<i32>,
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

/// Searches `positions` on `workers` threads (one single-threaded search each) with `work`,
/// showing progress. Each search starts on a cleared table, so the results do not depend on
/// the threads.
pub(super) fn search_all<R: Send>(
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
