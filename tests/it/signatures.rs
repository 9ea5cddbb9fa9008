//! The solver's signature (`oxello solve --signature`: the nodes of FFO #20-#29 on one
//! thread) stays where docs/search.md says it is: a change to what the solver searches (its
//! ordering, its cuts, its selective iterations, or the evaluation and table it orders by)
//! moves it, and such a change must say why there, with the new figure.

use crate::common::cli::{oxello_in, scratch_dir, text};
use std::path::Path;

/// How far the signature may move from the documented figure before the docs must say why.
const TOLERANCE: f64 = 0.02;

/// The figure docs/search.md gives after the marker `Solver signature: **`, commas allowed.
fn documented_signature() -> u64 {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/search.md");
    let text = std::fs::read_to_string(&docs).expect("docs/search.md is readable");
    let marker = "Solver signature: **";
    let start = text
        .find(marker)
        .expect("docs/search.md gives the solver's signature")
        + marker.len();
    let digits: String = text[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().expect("the signature is a number")
}

/// The signature the binary prints on its last line, `N nodes M nps`.
fn measured_signature() -> u64 {
    let dir = scratch_dir("solver-signature");
    let out = oxello_in(&dir, &["solve", "--signature"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("total: 10/10 right"), "{stdout}");
    let last = stdout.lines().last().expect("a signature line");
    assert!(last.ends_with(" nps"), "{last}");
    std::fs::remove_dir_all(&dir).ok();
    last.split(" nodes")
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no node count in {last:?}"))
}

#[test]
fn the_solver_signature_is_the_one_the_docs_give() {
    let (documented, measured) = (documented_signature(), measured_signature());
    let change = measured as f64 / documented as f64 - 1.0;
    assert!(
        change.abs() <= TOLERANCE,
        "the solver's signature is {measured} nodes, {:+.1}% from the {documented} of \
         docs/search.md: say why there and give the new figure",
        100.0 * change
    );
}

#[test]
fn the_solver_signature_is_the_same_every_run() {
    assert_eq!(measured_signature(), measured_signature());
}
