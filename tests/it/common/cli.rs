//! Runs the built `oxello` binary as a command-line tool, in a scratch directory of its own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the oxello binary with `args` in the directory `dir`.
pub fn oxello_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oxello"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the oxello binary runs")
}

/// An empty directory of this test's own, outside the repository.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oxello-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts that a run succeeded and printed `expected` on stdout.
pub fn assert_prints(out: &Output, expected: &str) {
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains(expected), "{stdout}");
}

/// Asserts that a run failed with `expected` in its message on stderr.
pub fn assert_fails_with(out: &Output, expected: &str) {
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains(expected), "{stderr}");
}
