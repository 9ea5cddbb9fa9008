//! The engine server: NBoard or GTP on stdin/stdout, told apart by the first command.
//!
//! A reader thread (`input`) reads stdin and raises the stop flag for lines that must
//! interrupt a search; the controller (this module's [`serve`]) owns the [`Engine`] and hands
//! each line to the protocol's session, which parses it, calls the engine and prints through
//! the single `output::Output`. Logs go to stderr only.

mod dialect;
mod gtp;
mod gtp_args;
mod gtp_clock;
mod input;
mod nboard;
mod output;
mod session;

pub use dialect::Dialect;
pub use session::{ServerConfig, DEFAULT_DEPTH, MAX_LINE_BYTES};

use crate::engine::Engine;
use input::{spawn_reader, Input, Interrupts};
use output::Output;
use session::{Flow, Session};
use std::io::{Read, Write};

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
