//! The engine server: NBoard or GTP on stdin/stdout, told apart by the first command.
//!
//! A reader thread (`input`) reads stdin and raises the stop flag for lines that must
//! interrupt a search; the controller (this module's [`serve`]) owns the [`Engine`] and hands
//! each line to the protocol's session, which parses it, calls the engine and prints through
//! the single `output::Output`. Logs go to stderr only.

mod gtp;
mod input;
mod nboard;
mod output;

pub use input::MAX_LINE_BYTES;

use crate::book::{Book, BookFormat};
use crate::engine::{Engine, EngineOptions};
use crate::eval::DeferredEvaluation;
use crate::search::SearchOptions;
use input::{spawn_reader, Input, Interrupts};
use output::Output;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

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
    fn search_options(&self) -> SearchOptions {
        SearchOptions {
            selectivity: self.selectivity,
            ..SearchOptions::default()
        }
    }
}

/// The two protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    NBoard,
    Gtp,
}

impl Dialect {
    /// The protocol a first line speaks: `nboard ...` is NBoard, any other command GTP; blank
    /// lines and comments decide nothing.
    pub fn detect(line: &str) -> Option<Dialect> {
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            return None;
        }
        let first = content.split_whitespace().next().unwrap_or("");
        Some(if first.eq_ignore_ascii_case("nboard") {
            Dialect::NBoard
        } else {
            Dialect::Gtp
        })
    }

    /// Whether this line is `quit`, which ends the session (as the end of input does).
    fn ends(self, input: &Input) -> bool {
        let Input::Line(line) = input else {
            return false;
        };
        match self {
            Dialect::NBoard => nboard::is_quit(line),
            Dialect::Gtp => gtp::is_quit(line),
        }
    }

    /// Whether this input must stop a running search. NBoard: every line (a GUI only talks
    /// during a search to change what it wants) and end of input. GTP: only `quit`, so that
    /// commands queued by a script are answered in turn.
    fn interrupts(self, input: &Input) -> bool {
        match (self, input) {
            (Dialect::NBoard, _) => true,
            (Dialect::Gtp, Input::Line(line)) => gtp::is_quit(line),
            (Dialect::Gtp, _) => false,
        }
    }
}

/// What the controller does after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// One protocol's state over a connection.
trait Session {
    /// Handles one input line.
    fn handle(&mut self, line: &str, engine: &mut Engine, out: &Output) -> Flow;
    /// The search settings of the session's moves, which pondering searches with too.
    fn search_options(&self) -> SearchOptions;
    /// Reports a discarded over-long line.
    fn overlong(&mut self, out: &Output);
}

/// A seed that differs from run to run, for the book's random choices.
fn time_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ u64::from(std::process::id()) << 32
}

/// Serves one connection until `quit` or end of input.
pub fn serve(
    config: ServerConfig,
    source: impl Read + Send + 'static,
    sink: impl Write + Send + 'static,
) -> anyhow::Result<()> {
    let mut engine = Engine::with_evaluation(config.engine, config.evaluation.clone())?;
    engine.set_book(config.book.clone(), config.book_randomness, time_seed());
    engine.set_pondering(config.ponder);
    let out = Output::new(sink);
    let interrupts = Interrupts::new(engine.stop_flag());
    let messages = spawn_reader(source, interrupts.clone());
    let mut session: Option<Box<dyn Session>> = None;
    for message in messages.iter() {
        interrupts.taken(&message);
        interrupts.arm();
        match message.input {
            Input::Eof => break,
            Input::Overlong => match session.as_mut() {
                Some(session) => session.overlong(&out),
                None => log::warn!("ignored a line over {MAX_LINE_BYTES} bytes"),
            },
            Input::Line(line) => {
                if session.is_none() {
                    session = match Dialect::detect(&line) {
                        Some(Dialect::NBoard) => Some(Box::new(nboard::NBoardSession::new(
                            &config,
                            interrupts.ending(),
                        ))),
                        Some(Dialect::Gtp) => Some(Box::new(gtp::GtpSession::new(&config))),
                        None => continue,
                    };
                }
                let session = session.as_mut().expect("the session was just chosen");
                if session.handle(&line, &mut engine, &out) == Flow::Quit {
                    break;
                }
                if engine.wants_to_ponder() && interrupts.start_pondering(|| !messages.is_empty()) {
                    engine.ponder(session.search_options());
                    interrupts.stop_pondering();
                }
            }
        }
    }
    engine.stop();
    Ok(())
}
