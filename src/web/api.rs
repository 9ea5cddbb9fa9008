//! The web server's routes: the built-in page and a JSON API. [`handle`] turns a method, a path
//! and a body into a [`Reply`] without touching the network, so tests and fuzzing call it
//! directly. Every fault in a request is a 4xx reply with a message; nothing here panics on
//! input, and nothing reads or writes files.
//!
//! | route | body | reply |
//! | --- | --- | --- |
//! | `GET /`, `/app.js`, `/style.css` | | the page |
//! | `POST /api/position` | `{"setup": text}` or `{"start": board, "moves": [..]}` | the position |
//! | `POST /api/think` | the game, `time_ms` or `depth`, `book` | `{"job": id}` |
//! | `POST /api/hints` | the game, `time_ms` | `{"job": id}` |
//! | `POST /api/review` | the game, `time_ms` a position | `{"job": id}` |
//! | `POST /api/stop` | | `{"job": id}` |
//! | `GET /api/job` | | the latest job's status |

use super::jobs::{move_name, Jobs, Task};
use crate::board::{Color, Move, Position, Squares};
use crate::engine::Game;
use crate::notation::{format_position, parse_move, parse_position, parse_transcript, GgfGame};
use crate::search::{level_depth, Limits};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The largest request body read; a longer one gets 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// The longest a request may make the engine think about one move or one hints search.
pub const MAX_MOVE_TIME_MS: u64 = 60_000;
/// The longest a review may spend on one position (a game has at most about 61).
pub const MAX_REVIEW_TIME_MS: u64 = 10_000;
/// The fastest time a request may ask for.
pub const MIN_TIME_MS: u64 = 10;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// An HTTP reply: status, content type and body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Reply {
    fn json(status: u16, value: &impl Serialize) -> Reply {
        match serde_json::to_vec(value) {
            Ok(body) => Reply {
                status,
                content_type: "application/json",
                body,
            },
            Err(error) => Reply::error(500, &format!("cannot write the reply: {error}")),
        }
    }

    /// A JSON error reply: `{"error": message}`.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: serde_json::json!({ "error": message })
                .to_string()
                .into_bytes(),
        }
    }

    fn asset(content_type: &'static str, text: &'static str) -> Reply {
        Reply {
            status: 200,
            content_type,
            body: text.as_bytes().to_vec(),
        }
    }
}

/// A fault in a request: its status and message.
struct BadRequest(u16, String);

impl BadRequest {
    fn new(message: impl Into<String>) -> BadRequest {
        BadRequest(400, message.into())
    }
}

/// Answers one request.
pub fn handle(method: &str, path: &str, body: &[u8], jobs: &Jobs) -> Reply {
    let path = path.split(['?', '#']).next().unwrap_or("");
    let routed = match (method, path) {
        ("GET", "/" | "/index.html") => {
            return Reply::asset("text/html; charset=utf-8", INDEX_HTML)
        }
        ("GET", "/app.js") => return Reply::asset("text/javascript; charset=utf-8", APP_JS),
        ("GET", "/style.css") => return Reply::asset("text/css; charset=utf-8", STYLE_CSS),
        ("GET", "/api/job") => Ok(Reply::json(200, &jobs.status())),
        ("POST", "/api/position") => position(body),
        ("POST", "/api/think") => think(body, jobs),
        ("POST", "/api/hints") => hints(body, jobs),
        ("POST", "/api/review") => review(body, jobs),
        ("POST", "/api/stop") => Ok(Reply::json(200, &JobId { job: jobs.stop() })),
        (
            _,
            "/" | "/index.html" | "/app.js" | "/style.css" | "/api/job" | "/api/position"
            | "/api/think" | "/api/hints" | "/api/review" | "/api/stop",
        ) => Err(BadRequest(
            405,
            format!("{method} is not allowed on {path}"),
        )),
        _ => Err(BadRequest(404, format!("no such page: {path}"))),
    };
    routed.unwrap_or_else(|BadRequest(status, message)| Reply::error(status, &message))
}

#[derive(Serialize)]
struct JobId {
    job: u64,
}

/// Queues a task: its job's id, or 503 when no engine is left to run it.
fn submit(jobs: &Jobs, task: Task) -> Result<Reply, BadRequest> {
    match jobs.submit(task) {
        Ok(job) => Ok(Reply::json(200, &JobId { job })),
        Err(error) => Err(BadRequest(
            503,
            format!("the engine is not running: {error}"),
        )),
    }
}

fn parse_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, BadRequest> {
    if body.len() > MAX_BODY_BYTES {
        return Err(BadRequest(
            413,
            format!("the body is over {MAX_BODY_BYTES} bytes"),
        ));
    }
    serde_json::from_slice(body).map_err(|e| BadRequest::new(format!("bad JSON: {e}")))
}

/// A game as the page sends it: a start position (default the standard one) and the moves
/// from it (`f5`, `pass`; forced passes may be left out).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct GameText {
    start: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
}

impl GameText {
    fn game(&self) -> Result<Game, BadRequest> {
        let start = match &self.start {
            Some(text) => parse_position(text)
                .map_err(|e| BadRequest::new(format!("bad start position: {e}")))?,
            None => Position::START,
        };
        let mut game = Game::new(start);
        for (i, text) in self.moves.iter().enumerate() {
            let mv =
                parse_move(text).map_err(|e| BadRequest::new(format!("move {}: {e}", i + 1)))?;
            if let Move::Play(_) = mv {
                if game.position().board.must_pass() && !game.position().board.is_game_over() {
                    game.play(Move::Pass).expect("a forced pass is legal");
                }
            }
            game.play(mv)
                .map_err(|e| BadRequest::new(format!("move {} ({text}) is illegal: {e}", i + 1)))?;
        }
        Ok(game)
    }
}

fn game_from_setup(text: &str) -> Result<Game, BadRequest> {
    let text = text.trim();
    if text.contains("(;") {
        let record =
            GgfGame::parse(text).map_err(|e| BadRequest::new(format!("bad GGF game: {e}")))?;
        return Game::from_moves(record.start, record.moves.iter().map(|m| m.mv))
            .map_err(|(i, e)| BadRequest::new(format!("GGF move {} is illegal: {e}", i + 1)));
    }
    if let Ok(start) = parse_position(text) {
        return Ok(Game::new(start));
    }
    let (moves, _) = parse_transcript(text, &Position::START).map_err(|e| {
        BadRequest::new(format!(
            "not a board string (64 squares of X O - and the side to move), a transcript \
             or a GGF game: {e}"
        ))
    })?;
    Ok(Game::from_moves(Position::START, moves).expect("the transcript was checked"))
}

/// What the page shows of a position.
#[derive(Serialize)]
struct PositionView {
    /// The start position's board string and the moves from it, passes written out.
    start: String,
    moves: Vec<String>,
    /// The current board string (`X` Black, `O` White, `-` empty; then the side to move).
    board: String,
    /// `black` or `white`; `null` when the game is over.
    to_move: Option<&'static str>,
    legal: Vec<String>,
    must_pass: bool,
    over: bool,
    black: u32,
    white: u32,
    /// The last move's square and the discs it flipped.
    last: Option<String>,
    flipped: Vec<String>,
}

fn squares(bits: u64) -> Vec<String> {
    Squares(bits)
        .map(|sq| move_name(Move::Play(sq as u8)))
        .collect()
}

fn view(game: &Game) -> PositionView {
    let position = game.position();
    let board = position.board;
    let over = board.is_game_over();
    let (last, flipped) = match (game.moves().last(), game.positions()) {
        (Some(&Move::Play(square)), [.., before, after]) => {
            let (taken_from, taken_by) = match before.side_to_move {
                Color::Black => (before.white(), after.black()),
                Color::White => (before.black(), after.white()),
            };
            (
                Some(move_name(Move::Play(square))),
                squares(taken_from & taken_by),
            )
        }
        _ => (None, Vec::new()),
    };
    PositionView {
        start: format_position(&game.start()),
        moves: game.moves().iter().map(|&m| move_name(m)).collect(),
        board: format_position(&position),
        to_move: (!over).then_some(position.side_to_move.name()),
        legal: squares(board.moves()),
        must_pass: !over && board.must_pass(),
        over,
        black: position.black().count_ones(),
        white: position.white().count_ones(),
        last,
        flipped,
    }
}

fn position(body: &[u8]) -> Result<Reply, BadRequest> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct PositionRequest {
        setup: Option<String>,
        start: Option<String>,
        #[serde(default)]
        moves: Vec<String>,
    }
    let request: PositionRequest = parse_body(body)?;
    let game = match request.setup {
        Some(text) => {
            if request.start.is_some() || !request.moves.is_empty() {
                return Err(BadRequest::new("give either setup or start and moves"));
            }
            game_from_setup(&text)?
        }
        None => GameText {
            start: request.start,
            moves: request.moves,
        }
        .game()?,
    };
    Ok(Reply::json(200, &view(&game)))
}

fn time_limit(time_ms: Option<u64>, default: u64, max: u64) -> Result<Duration, BadRequest> {
    let ms = time_ms.unwrap_or(default);
    if !(MIN_TIME_MS..=max).contains(&ms) {
        return Err(BadRequest::new(format!(
            "time_ms must be between {MIN_TIME_MS} and {max}, not {ms}"
        )));
    }
    Ok(Duration::from_millis(ms))
}

fn playable(game: &Game) -> Result<(), BadRequest> {
    if game.position().board.is_game_over() {
        return Err(BadRequest::new("the game is over"));
    }
    Ok(())
}

fn think(body: &[u8], jobs: &Jobs) -> Result<Reply, BadRequest> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ThinkRequest {
        start: Option<String>,
        #[serde(default)]
        moves: Vec<String>,
        time_ms: Option<u64>,
        depth: Option<u32>,
        #[serde(default)]
        book: bool,
    }
    let request: ThinkRequest = parse_body(body)?;
    let game = GameText {
        start: request.start,
        moves: request.moves,
    }
    .game()?;
    playable(&game)?;
    let limits = match request.depth {
        Some(depth @ 1..=60) => {
            if request.time_ms.is_some() {
                return Err(BadRequest::new("give time_ms or depth, not both"));
            }
            Limits {
                depth: level_depth(depth, game.position().board.empty_count()),
                move_time: Some(Duration::from_millis(MAX_MOVE_TIME_MS)),
                ..Limits::default()
            }
        }
        Some(depth) => {
            return Err(BadRequest::new(format!(
                "depth must be between 1 and 60, not {depth}"
            )))
        }
        None => Limits {
            move_time: Some(time_limit(request.time_ms, 1000, MAX_MOVE_TIME_MS)?),
            ..Limits::default()
        },
    };
    submit(
        jobs,
        Task::Think {
            game,
            limits,
            book: request.book,
        },
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimedGame {
    start: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
    time_ms: Option<u64>,
}

impl TimedGame {
    fn game(&self) -> Result<Game, BadRequest> {
        GameText {
            start: self.start.clone(),
            moves: self.moves.clone(),
        }
        .game()
    }
}

fn hints(body: &[u8], jobs: &Jobs) -> Result<Reply, BadRequest> {
    let request: TimedGame = parse_body(body)?;
    let game = request.game()?;
    playable(&game)?;
    let limits = Limits {
        move_time: Some(time_limit(request.time_ms, 5000, MAX_MOVE_TIME_MS)?),
        ..Limits::default()
    };
    submit(jobs, Task::Hints { game, limits })
}

fn review(body: &[u8], jobs: &Jobs) -> Result<Reply, BadRequest> {
    let request: TimedGame = parse_body(body)?;
    let game = request.game()?;
    if game.moves().is_empty() {
        return Err(BadRequest::new("a review needs at least one move"));
    }
    let per_position = time_limit(request.time_ms, 500, MAX_REVIEW_TIME_MS)?;
    submit(jobs, Task::Review { game, per_position })
}
