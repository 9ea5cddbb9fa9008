//! Every `oxello` command line that README, protocol.md and docs/ show in a code block parses
//! with the real command line, options, values and subcommands checked: a renamed option or
//! subcommand fails here before a reader copies a line that no longer runs.

use clap::Parser;
use oxello::cli::Cli;
use std::path::{Path, PathBuf};

/// The Markdown files whose command lines are checked.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("protocol.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.expect("docs/ is readable").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let results = root.join("benches/results/README.md");
    files.push(results);
    files
}

/// The lines of a Markdown text's code blocks (fenced, or indented by four spaces), with
/// continuation lines ending in `\` joined.
fn code_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut fenced = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let code = if fenced {
            Some(line)
        } else {
            line.strip_prefix("    ")
        };
        let Some(code) = code else { continue };
        let code = code.trim();
        match code.strip_suffix('\\') {
            Some(start) => {
                pending.push_str(start);
                pending.push(' ');
            }
            None => {
                pending.push_str(code);
                lines.push(std::mem::take(&mut pending));
            }
        }
    }
    lines
}

/// Whether a word names the oxello program (`oxello`, `target/release/oxello`, ...).
fn is_oxello(word: &str) -> bool {
    Path::new(word)
        .file_name()
        .is_some_and(|name| name == "oxello")
}

/// The shell words of a command up to its first redirection, pipe or command separator.
fn command_words(line: &str) -> Vec<String> {
    let line = line.trim_start_matches("$ ");
    let words = shell_words::split(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    words
        .into_iter()
        .take_while(|w| {
            !matches!(w.as_str(), "|" | "&&" | ";" | "&" | "||")
                && !w.starts_with('>')
                && !w.starts_with("2>")
                && !w.starts_with('<')
        })
        .collect()
}

/// The oxello argument lists in a code line: the line itself when it runs oxello (directly or
/// through `cargo run --release --`), and any word of it that is itself an oxello command
/// (an engine given to `oxello match` or to a GUI).
fn oxello_commands(line: &str) -> Vec<Vec<String>> {
    let first = line.trim_start_matches("$ ").split_whitespace().next();
    let runs_oxello = first.is_some_and(|w| is_oxello(w) || w == "cargo");
    let quotes_oxello = ["\"oxello", "'oxello", "/oxello "]
        .iter()
        .any(|q| line.contains(q));
    if !runs_oxello && !quotes_oxello {
        return Vec::new();
    }
    let words = command_words(line);
    if words
        .iter()
        .any(|w| w.starts_with('[') || w.starts_with('<'))
    {
        // A synopsis (`oxello [--threads N] ...`), not a command line.
        return Vec::new();
    }
    let mut found = Vec::new();
    let start = if words.first().is_some_and(|w| is_oxello(w)) {
        Some(1)
    } else if words.starts_with(&["cargo".into(), "run".into(), "--release".into()]) {
        words.iter().position(|w| w == "--").map(|i| i + 1)
    } else {
        None
    };
    if let Some(start) = start {
        found.push(words[start..].to_vec());
    }
    for word in &words {
        if word.contains(' ') {
            found.extend(oxello_commands(word));
        }
    }
    found
}

#[test]
fn every_documented_command_line_parses() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in documents() {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for line in code_lines(&text) {
            for args in oxello_commands(&line) {
                checked += 1;
                let argv = std::iter::once("oxello".to_string()).chain(args.iter().cloned());
                if let Err(error) = Cli::try_parse_from(argv) {
                    failures.push(format!("{}: `{line}`: {}", path.display(), error.kind()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        checked >= 30,
        "only {checked} command lines found in the documents"
    );
}

#[test]
fn a_misspelt_option_is_caught() {
    let line = "    oxello bench --depht 12";
    let commands: Vec<Vec<String>> = code_lines(line)
        .iter()
        .flat_map(|l| oxello_commands(l))
        .collect();
    assert_eq!(commands, [["bench", "--depht", "12"]]);
    let argv = std::iter::once("oxello".to_string()).chain(commands[0].iter().cloned());
    assert!(Cli::try_parse_from(argv).is_err());
}

#[test]
fn engines_inside_a_command_are_found() {
    let line = r#"gogui-twogtp -black "oxello --movetime 1000" -white "gtp-rhino -l 5" > log.txt"#;
    assert_eq!(oxello_commands(line), [["--movetime", "1000"]]);
    let nested = r#"cargo run --release -- match --engine1 "target/release/oxello --depth 8" --engine2 "oxello --eval simple""#;
    assert_eq!(oxello_commands(nested).len(), 3);
}
