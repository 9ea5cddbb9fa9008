//! The reader thread: reads stdin line by line (bounded, any bytes), decides which lines must
//! interrupt a running search, and hands everything to the controller through a channel.
//!
//! Stop protocol: for an interrupting line the reader first counts it as pending, then sets
//! the stop flag, then sends it. The controller uncounts each interrupting line as it takes
//! it, and before starting any search clears the flag and sets it again if interrupts are
//! still pending. Whatever the interleaving, a search never outlives an interrupt sent to it,
//! and no line stops the search it asks for.
//!
//! While the engine ponders, every input interrupts. The reader decides and sends under the
//! same lock under which the controller, finding no input waiting, starts to ponder, so no
//! line can slip in between unnoticed.

use super::dialect::Dialect;
use super::session::MAX_LINE_BYTES;
use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use std::io::{BufRead, BufReader, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// What the reader saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A line without its line ending, invalid UTF-8 replaced by U+FFFD.
    Line(String),
    /// A line over [`MAX_LINE_BYTES`], discarded.
    Overlong,
    /// End of input.
    Eof,
}

impl Input {
    /// The line, if this input is one.
    fn line(&self) -> Option<&str> {
        match self {
            Input::Line(line) => Some(line),
            _ => None,
        }
    }
}

/// A message from the reader: the input and whether it was counted as an interrupt.
#[derive(Debug)]
pub struct Message {
    pub input: Input,
    pub interrupts: bool,
}

/// The controller's side of the stop protocol.
#[derive(Clone)]
pub struct Interrupts {
    stop: Arc<AtomicBool>,
    pending: Arc<AtomicUsize>,
    ending: Arc<AtomicBool>,
    /// Whether the controller is pondering; the reader holds the lock while it decides on a
    /// line and sends it.
    pondering: Arc<Mutex<bool>>,
}

impl Interrupts {
    pub fn new(stop: Arc<AtomicBool>) -> Interrupts {
        Interrupts {
            stop,
            pending: Arc::new(AtomicUsize::new(0)),
            ending: Arc::new(AtomicBool::new(false)),
            pondering: Arc::new(Mutex::new(false)),
        }
    }

    /// Starts pondering unless `input_waiting` says a message is queued: from then on every
    /// input interrupts. Arms the stop flag; false (nothing changed) when input is waiting.
    pub fn start_pondering(&self, input_waiting: impl Fn() -> bool) -> bool {
        let mut pondering = self.pondering.lock();
        if input_waiting() {
            return false;
        }
        *pondering = true;
        self.arm();
        true
    }

    /// Ends pondering: input interrupts as the protocol says again.
    pub fn stop_pondering(&self) {
        *self.pondering.lock() = false;
    }

    /// Raised once the reader has seen the end of the session (`quit` or end of input), for
    /// the jobs that ordinary lines must not interrupt but the end must.
    pub fn ending(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.ending)
    }

    fn raise(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Marks a message as taken by the controller.
    pub fn taken(&self, message: &Message) {
        if message.interrupts {
            self.pending.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Arms the stop flag for the next search: clear, unless interrupts are waiting.
    pub fn arm(&self) {
        self.stop.store(false, Ordering::SeqCst);
        if self.pending.load(Ordering::SeqCst) > 0 {
            self.stop.store(true, Ordering::SeqCst);
        }
    }
}

/// Starts the reader thread over `source`; its messages arrive on the returned channel.
pub fn spawn_reader(
    source: impl Read + Send + 'static,
    interrupts: Interrupts,
) -> Receiver<Message> {
    let (sender, receiver) = crossbeam_channel::unbounded();
    std::thread::Builder::new()
        .name("oxello-stdin".to_string())
        .spawn(move || read_lines(BufReader::new(source), &sender, &interrupts))
        .expect("the reader thread starts");
    receiver
}

fn read_lines(mut source: impl BufRead, sender: &Sender<Message>, interrupts: &Interrupts) {
    let mut dialect: Option<Dialect> = None;
    loop {
        let input = match read_bounded_line(&mut source) {
            Ok(input) => input,
            Err(error) => {
                log::error!("reading stdin failed: {error}");
                Input::Eof
            }
        };
        if dialect.is_none() {
            if let Input::Line(line) = &input {
                dialect = Dialect::detect(line);
            }
        }
        if input == Input::Eof || dialect.is_some_and(|d| d.ends(input.line())) {
            interrupts.ending.store(true, Ordering::SeqCst);
        }
        let eof = input == Input::Eof;
        let pondering = interrupts.pondering.lock();
        let interrupting = *pondering || dialect.is_some_and(|d| d.interrupts(input.line()));
        if interrupting {
            interrupts.pending.fetch_add(1, Ordering::SeqCst);
            interrupts.raise();
        }
        let sent = sender.send(Message {
            input,
            interrupts: interrupting,
        });
        drop(pondering);
        if sent.is_err() || eof {
            return;
        }
    }
}

/// Reads one line of at most [`MAX_LINE_BYTES`] bytes.
fn read_bounded_line(source: &mut impl BufRead) -> std::io::Result<Input> {
    let mut line = Vec::new();
    let mut overlong = false;
    loop {
        let buffer = source.fill_buf()?;
        if buffer.is_empty() {
            return Ok(if overlong {
                Input::Overlong
            } else if line.is_empty() {
                Input::Eof
            } else {
                Input::Line(text(&line))
            });
        }
        let (chunk, found_end) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], true),
            None => (buffer, false),
        };
        if !overlong {
            if line.len() + chunk.len() > MAX_LINE_BYTES {
                overlong = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(found_end);
        source.consume(used);
        if found_end {
            return Ok(if overlong {
                Input::Overlong
            } else {
                Input::Line(text(&line))
            });
        }
    }
}

fn text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded_and_decoded() {
        let mut data = b"ping 1\r\nplay b \xff\xfe\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        data.extend_from_slice(b"\nlast");
        let mut source = BufReader::with_capacity(16, &data[..]);
        assert_eq!(
            read_bounded_line(&mut source).unwrap(),
            Input::Line("ping 1".into())
        );
        assert_eq!(
            read_bounded_line(&mut source).unwrap(),
            Input::Line("play b \u{FFFD}\u{FFFD}".into())
        );
        assert_eq!(read_bounded_line(&mut source).unwrap(), Input::Overlong);
        assert_eq!(
            read_bounded_line(&mut source).unwrap(),
            Input::Line("last".into())
        );
        assert_eq!(read_bounded_line(&mut source).unwrap(), Input::Eof);
    }
}
