//! What a job is and what the page sees of it: the [`Task`] asked for, the [`JobStatus`] it
//! polls with each task's report, and the [`JobContext`] through which a running job keeps
//! that status up to date.

use crate::engine::Game;
use crate::search::Limits;
use parking_lot::Mutex;
use serde::Serialize;
use std::time::Duration;

/// A search the page asked for.
#[derive(Clone, Debug)]
pub enum Task {
    /// The engine's move in the game's current position (from its book if `book`).
    Think {
        game: Game,
        limits: Limits,
        book: bool,
    },
    /// Every legal move's score in the game's current position.
    Hints { game: Game, limits: Limits },
    /// Every position of a game scored, each within `per_position`, from the end backwards.
    Review { game: Game, per_position: Duration },
}

impl Task {
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Task::Think { .. } => "think",
            Task::Hints { .. } => "hints",
            Task::Review { .. } => "review",
        }
    }
}

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Queued or searching.
    Running,
    /// Finished by its own limits.
    Done,
    /// Stopped by a stop request or by a newer job; what it found so far is kept.
    Stopped,
    /// Ended by a fault of the engine (its message in `JobStatus::error`).
    Failed,
}

/// The engine's move, or its best so far.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThinkReport {
    /// `f5`, or `pass`.
    #[serde(rename = "move")]
    pub mv: String,
    /// Discs for the side to move after the move.
    pub score: i32,
    /// `18@73%` (depth and the cuts' confidence), `18` (full width), `exact`, `win/loss/draw`
    /// or `book`.
    pub depth: String,
    pub pv: Vec<String>,
    pub nodes: u64,
    pub seconds: f64,
    pub book: bool,
}

/// One legal move's score from a hints search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hint {
    #[serde(rename = "move")]
    pub mv: String,
    pub score: i32,
    /// `exact` (the score), `upper` (at most the score) or `lower` (at least).
    pub bound: &'static str,
}

/// The hints search's latest iteration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HintsReport {
    pub depth: String,
    pub hints: Vec<Hint>,
    pub nodes: u64,
    pub seconds: f64,
}

/// A position of a reviewed game, scored for the side to move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoredPosition {
    /// Moves played before it (0: the start).
    pub ply: usize,
    /// Black's score: discs Black ends with minus White's, with best play from here.
    pub black_score: i32,
    pub depth: String,
    /// The best move (`None` at the end of the game or for a forced pass).
    pub best: Option<String>,
}

/// A move of a reviewed game, against the best move of its position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReviewedMove {
    /// 1 for the first move.
    pub ply: usize,
    pub color: &'static str,
    #[serde(rename = "move")]
    pub mv: String,
    /// The best move: the one played when it scores at least the position's search.
    pub best: Option<String>,
    /// Discs for the mover after the best move, and after the move played.
    pub best_score: i32,
    pub played_score: i32,
    /// Discs the move gave away against the best move (0 when it was as good).
    pub loss: i32,
    /// Whether both scores are exact.
    pub exact: bool,
}

/// A review so far: positions are scored from the end backwards.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReviewReport {
    /// Positions scored, out of `total`.
    pub done: usize,
    pub total: usize,
    /// Every position scored so far, by ply (the chart's points).
    pub positions: Vec<ScoredPosition>,
    /// Every move whose two positions are scored, by ply.
    pub moves: Vec<ReviewedMove>,
}

/// The latest job: what the page polls.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobStatus {
    pub id: u64,
    pub kind: &'static str,
    pub state: JobState,
    pub think: Option<ThinkReport>,
    pub hints: Option<HintsReport>,
    pub review: Option<ReviewReport>,
    /// Why a failed job failed.
    pub error: Option<String>,
}

impl JobStatus {
    pub(super) fn queued(id: u64, kind: &'static str) -> JobStatus {
        JobStatus {
            id,
            kind,
            state: JobState::Running,
            think: None,
            hints: None,
            review: None,
            error: None,
        }
    }
}

/// A running job's link to its status: its updates land only while the status is still
/// this job's (a newer job replaces it).
pub struct JobContext<'a> {
    status: &'a Mutex<JobStatus>,
    id: u64,
}

impl<'a> JobContext<'a> {
    /// The link of job `id` to `status`.
    pub(super) fn new(status: &'a Mutex<JobStatus>, id: u64) -> JobContext<'a> {
        JobContext { status, id }
    }

    /// Changes the status if it is still this job's.
    pub(super) fn update(&self, change: impl FnOnce(&mut JobStatus)) {
        let mut status = self.status.lock();
        if status.id == self.id {
            change(&mut status);
        }
    }
}
