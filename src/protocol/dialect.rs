//! The two protocols, told apart by the first command, and which lines end a session or
//! interrupt a search in each.

use super::{gtp, nboard};

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

    /// Whether `line` is `quit`, which ends the session (as the end of input does); `None`
    /// is input that is not a line (an over-long one, the end).
    pub(super) fn ends(self, line: Option<&str>) -> bool {
        line.is_some_and(|line| match self {
            Dialect::NBoard => nboard::is_quit(line),
            Dialect::Gtp => gtp::is_quit(line),
        })
    }

    /// Whether this input must stop a running search. NBoard: every line (a GUI only talks
    /// during a search to change what it wants) and end of input. GTP: only `quit`, so that
    /// commands queued by a script are answered in turn.
    pub(super) fn interrupts(self, line: Option<&str>) -> bool {
        match (self, line) {
            (Dialect::NBoard, _) => true,
            (Dialect::Gtp, Some(line)) => gtp::is_quit(line),
            (Dialect::Gtp, None) => false,
        }
    }
}
