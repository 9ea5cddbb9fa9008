//! What every protocol's session shares: how the engine was started ([`ServerConfig`]), the
//! [`Session`] a protocol keeps over a connection, and what the controller does after a line.

use super::output::Output;
use crate::book::{Book, BookFormat};
use crate::engine::{Engine, EngineOptions};
use crate::eval::DeferredEvaluation;
use crate::search::SearchOptions;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The longest line accepted; longer ones are discarded and reported.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Default search depth when neither a depth nor a time is given.
pub const DEFAULT_DEPTH: u32 = 14;

/// How the engine was started: options, evaluation and the default limits for a move.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub engine: EngineOptions,
    /// The evaluation; the built-in network may still be in the making.
    pub evaluation: DeferredEvaluation,
    /// Midgame depth per move (exact solving from `depth + 4` empties).
    pub depth: Option<u32>,
    /// Time per move, unless the protocol gives a clock.
    pub move_time: Option<Duration>,
    /// Midgame Multi-ProbCut level of every search (0: full width).
    pub selectivity: u8,
    /// The opening book played from, if any.
    pub book: Option<Arc<Book>>,
    /// The file the book came from and its format, where NBoard `learn` saves what it learns
    /// in that format (`None`: the built-in book, which keeps it until the engine exits).
    pub book_file: Option<(PathBuf, BookFormat)>,
    /// Book moves within this many discs of the best are played at random (0: the best).
    pub book_randomness: i32,
    /// Think on the opponent's time.
    pub ponder: bool,
}

impl ServerConfig {
    /// The search settings of a move.
    pub(super) fn search_options(&self) -> SearchOptions {
        SearchOptions {
            selectivity: self.selectivity,
            ..SearchOptions::default()
        }
    }
}

/// What the controller does after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    Continue,
    Quit,
}

/// One protocol's state over a connection.
pub(super) trait Session {
    /// Handles one input line.
    fn handle(&mut self, line: &str, engine: &mut Engine, out: &Output) -> Flow;
    /// The search settings of the session's moves, which pondering searches with too.
    fn search_options(&self) -> SearchOptions;
    /// Reports a discarded over-long line.
    fn overlong(&mut self, out: &Output);
}
