//! An engine run as a child process: lines to its stdin, lines from its stdout with deadlines.

use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Instant;

/// Why talking to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProcessError {
    #[error("no answer in time")]
    Timeout,
    #[error("the engine exited")]
    Exited,
    #[error("cannot start '{0}': {1}")]
    Start(String, String),
}

/// A running engine.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl EngineProcess {
    /// Starts `command_line` (split like a shell would, without running one).
    pub fn spawn(command_line: &str) -> Result<EngineProcess, ProcessError> {
        let start_error = |why: String| ProcessError::Start(command_line.to_string(), why);
        let words = shell_words::split(command_line).map_err(|e| start_error(e.to_string()))?;
        let (program, args) = words
            .split_first()
            .ok_or_else(|| start_error("empty command".to_string()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| start_error(e.to_string()))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stdin = child.stdin.take().expect("stdin is piped");
        let (sender, lines) = crossbeam_channel::unbounded();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).split(b'\n') {
                let Ok(line) = line else { break };
                let text = String::from_utf8_lossy(&line)
                    .trim_end_matches('\r')
                    .to_string();
                if sender.send(text).is_err() {
                    break;
                }
            }
        });
        Ok(EngineProcess {
            child,
            stdin,
            lines,
        })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), ProcessError> {
        log::debug!("> {line}");
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|_| ProcessError::Exited)
    }

    /// The next line, waiting until `deadline` at most.
    pub fn line(&mut self, deadline: Instant) -> Result<String, ProcessError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                log::debug!("< {line}");
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(ProcessError::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(ProcessError::Exited),
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}
