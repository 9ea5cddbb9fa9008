//! The web server's searches: one engine thread owns the [`Engine`] and runs one job at a time
//! (the engine's move, hints, a game's review). Submitting a job stops the one running, and a job
//! overtaken before it began is skipped, so the engine always works on the latest request. The
//! page polls the latest job's [`JobStatus`], which the search's progress keeps up to date.
//!
//! A stop covers the latest job whenever it comes, even before the engine thread takes that
//! job. A panic while a job runs fails that job with the panic's message, and a fresh engine
//! thread with a fresh engine takes the jobs after it.

use crate::board::Move;
use crate::engine::{Engine, Game, MoveChoice};
use crate::notation::format_move;
use crate::search::probcut::level_percent;
use crate::search::{Bound, Limits, Proof, RootMove, SearchOptions};
use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
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
    fn kind(&self) -> &'static str {
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
    fn queued(id: u64, kind: &'static str) -> JobStatus {
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

struct Job {
    id: u64,
    task: Task,
}

/// What the engine thread and the request handlers share.
struct Shared {
    status: Mutex<JobStatus>,
    /// The id of the newest job submitted.
    latest: AtomicU64,
    /// The newest job a stop request covered.
    stopped_through: AtomicU64,
    /// The engines' stop flag: every engine the thread makes searches under it.
    stop: Arc<AtomicBool>,
}

/// Makes an engine: at the start, and again after a panic.
pub type EngineFactory = dyn Fn() -> anyhow::Result<Engine> + Send + Sync;

/// Runs one job's task on the engine, reporting through the context; returns whether it
/// finished by its own limits. [`run_task`] runs the page's searches; tests give others.
pub type TaskRunner = dyn Fn(&mut Engine, Task, &JobContext) -> bool + Send + Sync;

/// A running job's link to its status.
pub struct JobContext<'a> {
    shared: &'a Shared,
    id: u64,
}

impl JobContext<'_> {
    fn update(&self, change: impl FnOnce(&mut JobStatus)) {
        self.shared.update(self.id, change);
    }
}

impl Shared {
    /// Changes the status if it is still job `id`'s.
    fn update(&self, id: u64, change: impl FnOnce(&mut JobStatus)) {
        let mut status = self.status.lock();
        if status.id == id {
            change(&mut status);
        }
    }
}

/// The handle the request handlers hold: submit, stop, read the status.
pub struct Jobs {
    shared: Arc<Shared>,
    sender: Sender<Job>,
}

/// What an engine thread needs, to start it and its successors.
struct Worker {
    make_engine: Arc<EngineFactory>,
    run: Arc<TaskRunner>,
    jobs: Receiver<Job>,
    shared: Arc<Shared>,
}

impl Jobs {
    /// Starts the engine thread with an engine from `make_engine`, running the page's
    /// searches.
    pub fn start(
        make_engine: impl Fn() -> anyhow::Result<Engine> + Send + Sync + 'static,
    ) -> anyhow::Result<Jobs> {
        Jobs::start_with(make_engine, run_task)
    }

    /// Starts the engine thread with an engine from `make_engine`, running each job with
    /// `run` (a test's runner may fail on purpose).
    pub fn start_with(
        make_engine: impl Fn() -> anyhow::Result<Engine> + Send + Sync + 'static,
        run: impl Fn(&mut Engine, Task, &JobContext) -> bool + Send + Sync + 'static,
    ) -> anyhow::Result<Jobs> {
        let shared = Arc::new(Shared {
            status: Mutex::new(JobStatus {
                state: JobState::Done,
                ..JobStatus::queued(0, "none")
            }),
            latest: AtomicU64::new(0),
            stopped_through: AtomicU64::new(0),
            stop: Arc::new(AtomicBool::new(false)),
        });
        let (sender, receiver) = crossbeam_channel::unbounded();
        let worker = Worker {
            make_engine: Arc::new(make_engine),
            run: Arc::new(run),
            jobs: receiver,
            shared: Arc::clone(&shared),
        };
        let engine = worker.engine()?;
        worker.spawn(engine)?;
        Ok(Jobs { shared, sender })
    }

    /// Stops the running job and queues `task`; returns its id, or an error if no engine
    /// thread is left to take it.
    pub fn submit(&self, task: Task) -> anyhow::Result<u64> {
        let mut status = self.shared.status.lock();
        let id = self.shared.latest.load(Ordering::SeqCst) + 1;
        self.shared.latest.store(id, Ordering::SeqCst);
        self.shared.stop.store(true, Ordering::SeqCst);
        *status = JobStatus::queued(id, task.kind());
        if self.sender.send(Job { id, task }).is_err() {
            status.state = JobState::Failed;
            status.error = Some("the engine thread has ended".to_string());
            anyhow::bail!("the engine thread has ended");
        }
        Ok(id)
    }

    /// Stops the latest job, which keeps what it found so far, even if the engine thread has
    /// not taken it yet; returns its id.
    pub fn stop(&self) -> u64 {
        let latest = self.shared.latest.load(Ordering::SeqCst);
        self.shared
            .stopped_through
            .fetch_max(latest, Ordering::SeqCst);
        self.shared.stop.store(true, Ordering::SeqCst);
        latest
    }

    /// The latest job's status.
    pub fn status(&self) -> JobStatus {
        self.shared.status.lock().clone()
    }
}

impl Worker {
    /// A new engine searching under the shared stop flag.
    fn engine(&self) -> anyhow::Result<Engine> {
        let mut engine = (self.make_engine)()?;
        engine.set_stop_flag(Arc::clone(&self.shared.stop));
        Ok(engine)
    }

    fn spawn(self, engine: Engine) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name("oxello-web-engine".to_string())
            .spawn(move || self.work(engine))
            .map(drop)
    }

    /// Runs the jobs until the channel closes, or until a job panics: that job fails with the
    /// panic's message and a fresh thread with a fresh engine takes over.
    fn work(self, mut engine: Engine) {
        if self.run_jobs(&mut engine) {
            drop(engine);
            self.replace();
        }
    }

    /// Runs the jobs until the channel closes (false) or a job panics (true).
    fn run_jobs(&self, engine: &mut Engine) -> bool {
        let shared = &self.shared;
        for job in self.jobs.iter() {
            shared.stop.store(false, Ordering::SeqCst);
            if shared.latest.load(Ordering::SeqCst) != job.id {
                continue;
            }
            if shared.stopped_through.load(Ordering::SeqCst) >= job.id {
                shared.stop.store(true, Ordering::SeqCst);
            }
            let context = JobContext { shared, id: job.id };
            let run = &self.run;
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run(engine, job.task, &context)
            }));
            match outcome {
                Ok(finished) => {
                    let stopped = !finished || shared.stop.load(Ordering::SeqCst);
                    context.update(|status| {
                        status.state = if stopped {
                            JobState::Stopped
                        } else {
                            JobState::Done
                        };
                    });
                }
                Err(panic) => {
                    let message = panic_message(panic.as_ref());
                    log::error!(
                        "the web server's engine failed on job {}: {message}",
                        job.id
                    );
                    context.update(|status| {
                        status.state = JobState::Failed;
                        status.error = Some(message);
                    });
                    return true;
                }
            }
        }
        false
    }

    /// Starts the successor of a thread whose engine panicked; without one, the channel
    /// closes with this thread and later submits fail with a message.
    fn replace(self) {
        let engine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.engine()))
            .unwrap_or_else(|panic| Err(anyhow::anyhow!("{}", panic_message(panic.as_ref()))));
        let started = engine.and_then(|engine| self.spawn(engine).map_err(anyhow::Error::from));
        if let Err(error) = started {
            log::error!("the web server cannot start a new engine: {error}");
        }
    }
}

/// The text of a panic's payload.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// The page's searches: the engine's move, hints, or a review.
pub fn run_task(engine: &mut Engine, task: Task, context: &JobContext) -> bool {
    let (shared, id) = (context.shared, context.id);
    match task {
        Task::Think { game, limits, book } => think(engine, game, &limits, book, shared, id),
        Task::Hints { game, limits } => hints(engine, game, &limits, shared, id),
        Task::Review { game, per_position } => review(engine, &game, per_position, shared, id),
    }
}

/// How far a score is searched: `exact`, `win/loss/draw`, `18@73%` or `18`.
pub fn depth_text(depth: u32, selectivity: u8, proof: Proof) -> String {
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
    shared: &Shared,
    id: u64,
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
        shared.update(id, |status| status.think = Some(report));
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
    shared.update(id, |status| status.think = Some(report));
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

fn hints(engine: &mut Engine, game: Game, limits: &Limits, shared: &Shared, id: u64) -> bool {
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
        shared.update(id, |status| status.hints = Some(report));
    });
    if result.depth > 0 || result.proof == Proof::Exact {
        let report = HintsReport::of_search(
            depth_text(result.depth, result.selectivity, result.proof),
            &result.root_moves,
            (result.nodes, result.elapsed),
        );
        shared.update(id, |status| status.hints = Some(report));
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
fn review(
    engine: &mut Engine,
    game: &Game,
    per_position: Duration,
    shared: &Shared,
    id: u64,
) -> bool {
    let positions = game.positions();
    let moves = game.moves();
    let total = positions.len();
    shared.update(id, |status| {
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
        shared.update(id, |status| {
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
