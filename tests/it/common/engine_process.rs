//! Drives the built `oxello` binary as a GUI would: lines in, lines out, with timeouts.

use std::io::Write;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// The lines of stderr, when the engine was started with its log kept.
    log: Option<Receiver<String>>,
}

/// Sends the lines of `source` to a channel from a thread of their own.
fn line_channel(source: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (sender, lines) = channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(source).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

impl EngineProcess {
    pub fn start(args: &[&str]) -> EngineProcess {
        EngineProcess::spawn(args, false)
    }

    /// Starts the engine with its log on stderr kept for [`EngineProcess::log_until`] (give
    /// `--log-level` in `args`).
    pub fn start_logged(args: &[&str]) -> EngineProcess {
        EngineProcess::spawn(args, true)
    }

    fn spawn(args: &[&str], logged: bool) -> EngineProcess {
        let mut command = Command::new(env!("CARGO_BIN_EXE_oxello"));
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        if logged {
            command.env_remove("RUST_LOG").stderr(Stdio::piped());
        } else {
            command.env("RUST_LOG", "off").stderr(Stdio::null());
        }
        let mut child = command.spawn().expect("the oxello binary starts");
        let lines = line_channel(child.stdout.take().unwrap());
        let log = child.stderr.take().map(line_channel);
        EngineProcess {
            stdin: child.stdin.take(),
            child,
            lines,
            log,
        }
    }

    /// Log lines up to and including the first that satisfies `last`; panics after `timeout`.
    pub fn log_until(&self, timeout: Duration, last: impl Fn(&str) -> bool) -> Vec<String> {
        let log = self
            .log
            .as_ref()
            .expect("the engine was started with its log kept");
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = log.recv_timeout(left).unwrap_or_else(|_| {
                panic!("no expected log line within {timeout:?}; saw {seen:?}")
            });
            let done = last(&line);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// The log lines that have come so far.
    pub fn log_so_far(&self) -> Vec<String> {
        let log = self
            .log
            .as_ref()
            .expect("the engine was started with its log kept");
        log.try_iter().collect()
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// The next line, or `None` after `timeout`.
    pub fn line(&self, timeout: Duration) -> Option<String> {
        self.lines.recv_timeout(timeout).ok()
    }

    /// Lines up to and including the first that satisfies `last`; panics after `timeout`.
    pub fn until(&self, timeout: Duration, last: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .line(left)
                .unwrap_or_else(|| panic!("no expected line within {timeout:?}; saw {seen:?}"));
            let done = last(&line);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// A GTP exchange: sends `command`, returns the reply lines (blank line consumed).
    pub fn gtp(&mut self, command: &str) -> Vec<String> {
        self.send(command);
        let mut reply = self.until(Duration::from_secs(60), |l| l.is_empty());
        reply.pop();
        reply
    }

    /// Takes stdin so that the test can close it while the engine is busy.
    pub fn stdin_for_test(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// Closes stdin and waits for the exit, at most `timeout`.
    pub fn close(mut self, timeout: Duration) -> ExitStatus {
        drop(self.stdin.take());
        self.wait(timeout, "end of input")
    }

    /// Waits for the exit with stdin still open (after `quit`), at most `timeout`.
    pub fn exit(mut self, timeout: Duration) -> ExitStatus {
        self.wait(timeout, "quit")
    }

    fn wait(&mut self, timeout: Duration, after: &str) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                self.child.kill().ok();
                panic!("the engine did not exit within {timeout:?} of {after}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}
