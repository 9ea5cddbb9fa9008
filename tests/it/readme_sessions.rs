//! README's typed sessions replayed against the real binary: in every code block that starts
//! with `$ target/release/oxello`, the lines after `> ` are sent to the engine started with
//! that command line, and it must answer exactly the block's other lines, so that what a
//! newcomer types first answers as README shows.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// A session of README: the engine's arguments, the lines typed, the lines answered.
#[derive(Debug)]
struct Session {
    arguments: Vec<String>,
    typed: Vec<String>,
    answered: Vec<String>,
}

/// The sessions of a Markdown text: fenced blocks whose first line is `$ target/release/oxello`.
fn sessions(text: &str) -> Vec<Session> {
    let mut sessions = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            match block.take() {
                Some(lines) => sessions.extend(session_of(&lines)),
                None => block = Some(Vec::new()),
            }
        } else if let Some(lines) = block.as_mut() {
            lines.push(line);
        }
    }
    sessions
}

fn session_of(lines: &[&str]) -> Option<Session> {
    let command = lines.first()?.strip_prefix("$ target/release/oxello")?;
    let mut session = Session {
        arguments: command.split_whitespace().map(str::to_string).collect(),
        typed: Vec::new(),
        answered: Vec::new(),
    };
    for line in &lines[1..] {
        match line.strip_prefix("> ") {
            Some(typed) => session.typed.push(typed.to_string()),
            None => session.answered.push(line.trim_end().to_string()),
        }
    }
    Some(session)
}

/// What the engine answers to `session`'s lines, its standard input closed after them.
fn replay(session: &Session) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxello"))
        .args(&session.arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the oxello binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    for line in &session.typed {
        writeln!(input, "{line}").expect("the engine reads its input");
    }
    drop(input);
    let output = child.wait_with_output().expect("the engine exits");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("the protocol is text")
        .lines()
        .map(|line| line.trim_end().to_string())
        .collect()
}

/// Lines without the blank lines at the end.
fn without_trailing_blanks(mut lines: Vec<String>) -> Vec<String> {
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

#[test]
fn readme_sessions_answer_as_shown() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md is readable");
    let sessions = sessions(&readme);
    let nboard = sessions
        .iter()
        .filter(|s| s.typed.first().is_some_and(|l| l.starts_with("nboard")))
        .count();
    assert!(nboard >= 1, "README shows an NBoard session");
    assert!(sessions.len() > nboard, "README shows a GTP session");
    for session in &sessions {
        assert!(!session.typed.is_empty(), "{session:?}");
        assert_eq!(
            without_trailing_blanks(replay(session)),
            without_trailing_blanks(session.answered.clone()),
            "README's session typing {:?}",
            session.typed
        );
    }
}
