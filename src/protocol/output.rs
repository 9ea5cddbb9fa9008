//! The single writer of stdout: every reply goes through one lock and is flushed at once, so
//! lines from the search callback and from the controller never interleave.

use parking_lot::Mutex;
use std::io::Write;

/// The protocol's output stream.
pub struct Output {
    sink: Mutex<Box<dyn Write + Send>>,
}

impl Output {
    pub fn new(sink: impl Write + Send + 'static) -> Output {
        Output {
            sink: Mutex::new(Box::new(sink)),
        }
    }

    /// Writes `text` (one or more lines) and a line ending, then flushes. A closed stdout is
    /// logged, not fatal: the engine then ends at the end of input.
    pub fn send(&self, text: &str) {
        let mut sink = self.sink.lock();
        let written = sink
            .write_all(text.as_bytes())
            .and_then(|_| sink.write_all(b"\n"))
            .and_then(|_| sink.flush());
        if let Err(error) = written {
            log::warn!("cannot write to stdout: {error}");
        }
    }
}
