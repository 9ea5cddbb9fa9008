//! The opening book end to end: `book build` from games (whole, sharded and merged, resumed),
//! `book show`, `book extend`, `book deepen`, damaged files refused, the engine playing from a book over
//! GTP and NBoard, and learning games into the book (NBoard `learn`).

use crate::common::cli::{assert_fails_with, assert_prints, oxello_in, scratch_dir, text};
use crate::common::engine_process::EngineProcess;
use crate::common::fixture;
use oxello::board::{Board, Move, Position, Squares, Symmetry};
use oxello::book::{Book, BookEntry};
use oxello::notation::{format_square, parse_square, read_wthor_file};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const GAMES: &str = "logistello-book-excerpt.wtb";
const PLIES: usize = 8;

/// Builds a book from the fixture games into `dir/name`, searched at depth 4, with `extra`
/// options.
fn build(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    build_at(dir, name, "4", extra)
}

/// Builds a book from the fixture games into `dir/name`, searched at `depth`, with `extra`
/// options.
fn build_at(dir: &Path, name: &str, depth: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let games = fixture(GAMES);
    let plies = PLIES.to_string();
    let mut args = vec![
        "build",
        games.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--plies",
        &plies,
        "--depth",
        depth,
    ];
    args.extend_from_slice(extra);
    assert_prints(&book_tool(dir, &args), "positions");
    out
}

/// Runs `oxello --threads 1 book` with `args` in `dir`.
fn book_tool(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["--threads", "1", "book"];
    all.extend_from_slice(args);
    oxello_in(dir, &all)
}

/// The positions within `PLIES` moves of the fixture's games that two or more games reach, in
/// their least symmetric form: worked out here from the WTHOR records alone.
fn positions_of_two_games_or_more() -> HashMap<Board, u32> {
    let file = read_wthor_file(&std::fs::read(fixture(GAMES)).unwrap()).unwrap();
    let mut counts: HashMap<Board, u32> = HashMap::new();
    for game in &file.games {
        let (moves, _) = game.replay().unwrap();
        let mut position = Position::START;
        for &mv in moves.iter().take(PLIES + 1) {
            if position.board.moves() != 0 {
                let least = Symmetry::ALL
                    .iter()
                    .map(|&s| position.board.transformed(s))
                    .min_by_key(|b| (b.player, b.opponent))
                    .unwrap();
                *counts.entry(least).or_default() += 1;
            }
            position = position.play(mv).unwrap();
        }
    }
    counts.retain(|_, games| *games >= 2);
    counts
}

#[test]
fn a_build_holds_the_positions_of_the_games_with_negamaxed_values() {
    let dir = scratch_dir("book-build");
    let path = build(&dir, "whole.book", &[]);
    let book = Book::read_file(&path).unwrap();
    let expected = positions_of_two_games_or_more();
    assert_eq!(book.len(), expected.len());
    for entry in book.entries() {
        assert_eq!(expected.get(&entry.board), Some(&entry.games), "{entry:?}");
        assert_eq!(entry.depth, 4);
        let moves = book.moves(&entry.board);
        assert!(!moves.is_empty(), "{entry:?}");
        // A position is worth its best move; the moves reaching book positions are worth
        // what those positions are worth for the other side.
        assert_eq!(i32::from(entry.value), moves[0].value, "{entry:?}");
        for m in moves.iter().filter(|m| !m.leaves_book) {
            let next = entry.board.play(m.square as usize).unwrap();
            assert_eq!(m.value, -i32::from(book.get(&next).unwrap().value));
        }
    }
    assert!(book.contains(&Board::START));

    // Run again: everything is searched already, so the run only reports.
    let out = oxello_in(
        &dir,
        &[
            "--threads",
            "1",
            "book",
            "build",
            fixture(GAMES).to_str().unwrap(),
            "--out",
            path.to_str().unwrap(),
            "--plies",
            &PLIES.to_string(),
            "--depth",
            "4",
        ],
    );
    assert_prints(&out, "(0 of this shard's");
    assert_eq!(Book::read_file(&path).unwrap(), book);
}

/// Merges two books with `book merge` into `dir/merged.book`: the merged book and the run.
fn merge(dir: &Path, first: &Path, second: &Path) -> (Book, std::process::Output) {
    let merged = dir.join("merged.book");
    let (first, second, out) = (
        first.to_str().unwrap(),
        second.to_str().unwrap(),
        merged.to_str().unwrap(),
    );
    let report = book_tool(dir, &["merge", first, second, "--out", out]);
    let book = Book::read_file(&merged).unwrap_or_default();
    (book, report)
}

#[test]
fn shards_merge_into_the_whole_book() {
    let dir = scratch_dir("book-shards");
    let whole = Book::read_file(&build(&dir, "whole.book", &[])).unwrap();
    let first = build(&dir, "first.book", &["--shard", "0/2"]);
    let second = build(&dir, "second.book", &["--shard", "1/2"]);
    let (a, b) = (
        Book::read_file(&first).unwrap(),
        Book::read_file(&second).unwrap(),
    );
    assert!(!a.is_empty() && !b.is_empty());
    assert_eq!(a.len() + b.len(), whole.len());
    let (merged, report) = merge(&dir, &first, &second);
    assert_prints(&report, &format!("{} positions from 2 books", whole.len()));
    let boards = |book: &Book| book.entries().iter().map(|e| e.board).collect::<Vec<_>>();
    assert_eq!(boards(&merged), boards(&whole));
}

#[test]
fn show_lists_the_book_moves_of_a_position() {
    let dir = scratch_dir("book-show");
    let path = build(&dir, "show.book", &[]);
    let book = Book::read_file(&path).unwrap();
    let out = oxello_in(
        &dir,
        &["book", "show", "--book", path.to_str().unwrap(), "f5"],
    );
    let after_f5 = Board::START
        .play(parse_square("f5").unwrap() as usize)
        .unwrap();
    let value = book.get(&after_f5).unwrap().value;
    assert_prints(&out, &format!("White to move: value {value:+}"));
    for m in book.moves(&after_f5) {
        let row = format!(
            "{:<4}  {:>+5}",
            format_square(m.square).to_ascii_lowercase(),
            m.value
        );
        assert!(text(&out.stdout).contains(&row), "{row} missing");
    }
    let out = oxello_in(
        &dir,
        &["book", "show", "--book", path.to_str().unwrap(), "a1"],
    );
    assert_fails_with(&out, "bad moves 'a1'");
    let deep = "f5d6c3d3c4f4f6f3e6e7d7";
    let out = oxello_in(
        &dir,
        &["book", "show", "--book", path.to_str().unwrap(), deep],
    );
    assert_prints(&out, "not in the book");
}

#[test]
fn extend_deepens_the_lines_the_book_plays() {
    let dir = scratch_dir("book-extend");
    let path = build(&dir, "extend.book", &[]);
    let before = Book::read_file(&path).unwrap();
    let copy = dir.join("copy.book");
    std::fs::copy(&path, &copy).unwrap();
    let extend_lines = |book: &Path, lines: &str, first_line: &str| {
        oxello_in(
            &dir,
            &[
                "--threads",
                "1",
                "book",
                "extend",
                book.to_str().unwrap(),
                "--lines",
                lines,
                "--first-line",
                first_line,
                "--plies",
                "14",
                "--depth",
                "3",
            ],
        )
    };
    let extend = |book: &Path| extend_lines(book, "3", "0");
    assert_prints(&extend(&path), "added by 3 lines");
    let after = Book::read_file(&path).unwrap();
    assert!(
        after.len() > before.len(),
        "{} -> {}",
        before.len(),
        after.len()
    );
    for entry in before.entries() {
        assert!(after.contains(&entry.board));
    }
    // The same seed and options repeat the same lines.
    assert_prints(&extend(&copy), "added by 3 lines");
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&path).unwrap());

    // A run stopped after its first line and resumed from the second ends as the whole run.
    let resumed = dir.join("resumed.book");
    std::fs::write(&resumed, before.to_bytes()).unwrap();
    assert_prints(&extend_lines(&resumed, "1", "0"), "added by 1 lines");
    assert_prints(&extend_lines(&resumed, "3", "1"), "added by 2 lines");
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&path).unwrap()
    );
}

/// Runs `book deepen` on `book` to depth 5, writing `out`, with `extra` options.
fn deepen(dir: &Path, book: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let (book, out) = (book.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["deepen", book, "--out", out, "--depth", "5"];
    args.extend_from_slice(extra);
    book_tool(dir, &args)
}

#[test]
fn deepen_searches_every_position_again_as_a_deeper_build_would() {
    let dir = scratch_dir("book-deepen");
    let shallow = build(&dir, "shallow.book", &[]);
    let deeper_build = Book::read_file(&build_at(&dir, "deeper.book", "5", &[])).unwrap();
    let deepened = dir.join("deepened.book");
    let out = deepen(&dir, &shallow, &deepened, &[]);
    assert_prints(
        &out,
        &format!("({0} of this shard's {0} searched", deeper_build.len()),
    );
    assert_eq!(Book::read_file(&deepened).unwrap(), deeper_build);
    assert!(Book::read_file(&shallow)
        .unwrap()
        .entries()
        .iter()
        .all(|e| e.depth == 4));

    // A rerun finds its output searched as deep and leaves it.
    assert_prints(
        &deepen(&dir, &shallow, &deepened, &[]),
        "(0 of this shard's",
    );

    // Shards, merged, give every position its deeper search.
    let parts: Vec<PathBuf> = (0..2)
        .map(|i| {
            let part = dir.join(format!("part{i}.book"));
            let shard = format!("{i}/2");
            assert_prints(
                &deepen(&dir, &shallow, &part, &["--shard", &shard]),
                "positions",
            );
            part
        })
        .collect();
    let (merged, report) = merge(&dir, &parts[0], &parts[1]);
    assert_prints(&report, "positions from 2 books");
    assert_eq!(merged.len(), deeper_build.len());
    assert!(merged.entries().iter().all(|e| e.depth == 5 || e.exact));
}

#[test]
fn check_searches_the_book_moves_deeper() {
    let dir = scratch_dir("book-check");
    let path = build(&dir, "check.book", &[]);
    let out = oxello_in(
        &dir,
        &[
            "--threads",
            "1",
            "book",
            "check",
            "--book",
            path.to_str().unwrap(),
            "--sample",
            "6",
            "--extra-depth",
            "1",
            "--selectivity",
            "0",
        ],
    );
    assert_prints(&out, "6 positions,");
    assert_prints(&out, "checked 1 plies deeper than built");
    assert_prints(&out, "book value minus deeper score, in book (");
    assert_prints(&out, "book value minus deeper score, exits (");
}

#[test]
fn damaged_books_are_refused_with_a_reason() {
    let dir = scratch_dir("book-damaged");
    let path = build(&dir, "good.book", &[]);
    let bytes = std::fs::read(&path).unwrap();
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "text.book",
            b"not a book at all".to_vec(),
            "not an oxello book",
        ),
        (
            "short.book",
            bytes[..bytes.len() - 10].to_vec(),
            "truncated",
        ),
        (
            "flipped.book",
            {
                let mut b = bytes.clone();
                b[40] ^= 1;
                b
            },
            "checksum",
        ),
    ];
    for (name, content, reason) in cases {
        let bad = dir.join(name);
        std::fs::write(&bad, content).unwrap();
        let out = oxello_in(&dir, &["book", "show", "--book", bad.to_str().unwrap()]);
        assert_fails_with(&out, reason);
        let out = oxello_in(&dir, &["--book", bad.to_str().unwrap()]);
        assert_fails_with(&out, reason);
    }
    let out = oxello_in(&dir, &["book", "show", "--book", "no-such.book"]);
    assert_fails_with(&out, "cannot read no-such.book");
}

/// A book of one position, White to move after f5, whose only known move is `exit`.
fn one_position_book(dir: &Path, exit: Move) -> PathBuf {
    let Move::Play(square) = exit else {
        panic!("a pass is no exit")
    };
    let after_f5 = Board::START
        .play(parse_square("f5").unwrap() as usize)
        .unwrap();
    let book = Book::new([BookEntry {
        board: after_f5,
        value: 0,
        exit_move: square,
        exit_score: 10,
        depth: 20,
        exact: false,
        games: 7,
    }]);
    let path = dir.join("one.book");
    book.write_file(&path).unwrap();
    path
}

/// White's reply to f5 from a 2-ply search without a book.
fn searched_reply_to_f5() -> Move {
    let mut e = EngineProcess::start(&["--depth", "2", "--threads", "1", "--no-book"]);
    assert_eq!(e.gtp("play b f5"), ["= "]);
    let reply = e.gtp("genmove w");
    oxello::notation::parse_move(reply[0].trim_start_matches("= ")).unwrap()
}

/// A reply to f5 that the search does not choose.
fn another_reply_to_f5(searched: Move) -> Move {
    let after_f5 = Board::START
        .play(parse_square("f5").unwrap() as usize)
        .unwrap();
    Squares(after_f5.moves())
        .map(|sq| Move::Play(sq as u8))
        .find(|&m| m != searched)
        .unwrap()
}

#[test]
fn gtp_plays_from_the_book_until_told_not_to() {
    let dir = scratch_dir("book-gtp");
    let searched = searched_reply_to_f5();
    let booked = another_reply_to_f5(searched);
    let path = one_position_book(&dir, booked);
    let name = |m: Move| oxello::notation::format_move(m);
    let mut e = EngineProcess::start(&[
        "--depth",
        "2",
        "--threads",
        "1",
        "--book",
        path.to_str().unwrap(),
    ]);
    assert_eq!(e.gtp("play b f5"), ["= "]);
    assert_eq!(e.gtp("genmove w"), [format!("= {}", name(booked))]);
    assert_eq!(e.gtp("undo"), ["= "]);
    assert_eq!(e.gtp("oxello-book off"), ["= "]);
    assert_eq!(e.gtp("genmove w"), [format!("= {}", name(searched))]);
    assert_eq!(e.gtp("undo"), ["= "]);
    assert_eq!(e.gtp("oxello-book on"), ["= "]);
    assert_eq!(e.gtp("genmove w"), [format!("= {}", name(booked))]);
    assert_eq!(
        e.gtp("oxello-book maybe"),
        ["? oxello-book takes on or off, not 'maybe'"]
    );
    assert!(e.close(Duration::from_secs(5)).success());

    let mut e = EngineProcess::start(&["--depth", "2", "--threads", "1", "--no-book"]);
    assert_eq!(
        e.gtp("oxello-book on"),
        ["? there is no book to play from (started with --no-book)"]
    );
    assert!(e.close(Duration::from_secs(5)).success());
}

#[test]
fn nboard_hints_list_book_moves_and_go_plays_one() {
    let dir = scratch_dir("book-nboard");
    let booked = another_reply_to_f5(searched_reply_to_f5());
    let path = one_position_book(&dir, booked);
    let mut e = EngineProcess::start(&["--threads", "1", "--book", path.to_str().unwrap()]);
    e.send("nboard 2");
    assert_eq!(
        e.line(Duration::from_secs(30)).as_deref(),
        Some("set myname oxello")
    );
    e.send("set depth 2");
    e.send("set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *];)");
    e.send("move f5");
    e.send("hint 3");
    e.send("ping 1");
    let lines = e.until(Duration::from_secs(30), |l| l == "pong 1");
    let name = oxello::notation::format_move(booked);
    assert_eq!(
        lines,
        [format!("book {name} 10.00 0 20"), "pong 1".to_string()]
    );
    e.send("go");
    let lines = e.until(Duration::from_secs(30), |l| l.starts_with("=== "));
    assert_eq!(lines, [format!("=== {name}/10.00/0.000")]);
    e.send("quit");
    assert!(e.close(Duration::from_secs(5)).success());
}

/// The transcript of the second fixture selfplay game (f5 f4 ...: it leaves a book of
/// Logistello's games at once).
fn a_selfplay_transcript() -> String {
    let text = std::fs::read_to_string(fixture("selfplay.txt")).unwrap();
    let line = text.lines().nth(1).unwrap();
    line.split_whitespace().next().unwrap().to_string()
}

/// The positions of [`a_selfplay_transcript`]'s game, from the start.
fn positions_of_a_selfplay_game() -> Vec<Position> {
    let transcript = a_selfplay_transcript();
    let (moves, _) = oxello::notation::parse_transcript(&transcript, &Position::START).unwrap();
    let mut positions = vec![Position::START];
    for mv in moves {
        positions.push(positions.last().unwrap().play(mv).unwrap());
    }
    positions
}

/// The boards of `positions` that a book learning them up to `plies` moves holds.
fn learnable(positions: &[Position], plies: u32) -> Vec<Board> {
    positions
        .iter()
        .map(|p| p.board)
        .filter(|b| b.moves() != 0 && b.empty_count() + plies >= 60)
        .collect()
}

#[test]
fn learning_a_game_adds_its_positions_with_their_exits() {
    use oxello::book::learn::{learn_game, learning_depth, search_exit};
    use oxello::engine::{Engine, EngineOptions};
    use oxello::search::level_depth;
    use oxello::search::Limits;

    let dir = scratch_dir("book-learn");
    let before = Book::read_file(&build(&dir, "built.book", &[])).unwrap();
    assert_eq!(learning_depth(&before), 4);
    let positions = positions_of_a_selfplay_game();
    let line = learnable(&positions, 12);
    let known: Vec<Board> = line
        .iter()
        .copied()
        .filter(|b| before.contains(b))
        .collect();
    assert!(!known.is_empty() && known.len() < line.len());

    let options = EngineOptions {
        threads: 1,
        hash_mib: 16,
    };
    let mut engine = Engine::new(options).unwrap();
    let mut book = before.clone();
    let go_on = AtomicBool::new(false);
    let learned = learn_game(&mut book, &mut engine, &positions, 12, 4, &go_on);
    assert!(learned.complete);
    assert_eq!(learned.added, line.len() - known.len());
    assert_eq!(book.len(), before.len() + learned.added);
    for board in &line {
        let entry = book.get(board).unwrap();
        let games_before = before.get(board).map_or(0, |e| e.games);
        assert_eq!(entry.games, games_before + 1, "{entry:?}");
    }
    // Every exit leaves the book, and every value is the best of the moves the book knows.
    for entry in book.entries() {
        if entry.exit_move != oxello::book::NO_EXIT {
            let staying = book.moves_in_book(&entry.board);
            assert_eq!(staying & 1 << entry.exit_move, 0, "{entry:?}");
        }
        let moves = book.moves(&entry.board);
        assert_eq!(i32::from(entry.value), moves[0].value, "{entry:?}");
    }
    // The deepest learned position's exit is what a search of all its moves finds.
    let deepest = *line.last().unwrap();
    let limits = Limits {
        depth: level_depth(4, deepest.empty_count()),
        ..Limits::default()
    };
    let mut fresh = Engine::new(options).unwrap();
    let searched = search_exit(&mut fresh, &deepest, 0, 1, 4, &limits, &go_on);
    let learned_entry = book.get(&deepest).unwrap();
    assert_eq!(
        (learned_entry.exit_score, learned_entry.depth),
        (searched.exit_score, 4)
    );

    // Learned again, the game adds nothing and only counts once more.
    let mut again = book.clone();
    let relearned = learn_game(&mut again, &mut engine, &positions, 12, 4, &go_on);
    assert_eq!((relearned.added, relearned.researched), (0, 0));
    for entry in again.entries() {
        let first = book.get(&entry.board).unwrap();
        let extra = u32::from(line.iter().any(|b| b.canonical().0 == entry.board));
        assert_eq!(
            *entry,
            BookEntry {
                games: first.games + extra,
                ..*first
            }
        );
    }

    // Stopped, learning leaves the book as it was.
    let mut stopped = before.clone();
    let stop = AtomicBool::new(true);
    let cut = learn_game(&mut stopped, &mut engine, &positions, 12, 4, &stop);
    assert_eq!((cut.added, cut.complete), (0, false));
    assert_eq!(stopped, before);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn nboard_learn_saves_the_game_into_the_book_file() {
    let dir = scratch_dir("book-nboard-learn");
    let path = build(&dir, "learning.book", &[]);
    let before = Book::read_file(&path).unwrap();
    let positions = positions_of_a_selfplay_game();
    let transcript = a_selfplay_transcript();
    let mut e = EngineProcess::start(&["--threads", "1", "--book", path.to_str().unwrap()]);
    e.send("nboard 2");
    for square in transcript.as_bytes().chunks(2).take(40) {
        e.send(&format!("move {}", std::str::from_utf8(square).unwrap()));
    }
    e.send("learn");
    e.send("ping 1");
    let lines = e.until(Duration::from_secs(60), |l| l == "pong 1");
    assert_eq!(lines, ["set myname oxello", "learned", "pong 1"]);
    let after = Book::read_file(&path).unwrap();
    let line = learnable(&positions[..=40], oxello::book::learn::LEARN_PLIES);
    let new = line.iter().filter(|b| !before.contains(b)).count();
    assert!(new > 0);
    assert_eq!(after.len(), before.len() + new);
    assert!(line.iter().all(|b| after.contains(b)));
    // The engine plays from what it learned.
    e.send(&format!(
        "set game (;GM[Othello]BO[8 {} *];)",
        oxello::notation::format_position(&positions[20])
            .split_whitespace()
            .next()
            .unwrap()
    ));
    e.send("hint 1");
    e.send("ping 2");
    let lines = e.until(Duration::from_secs(60), |l| l == "pong 2");
    assert!(lines[0].starts_with("book "), "{lines:?}");
    e.send("quit");
    assert!(e.close(Duration::from_secs(5)).success());

    let mut e = EngineProcess::start(&["--threads", "1", "--no-book"]);
    e.send("nboard 2");
    e.send("learn");
    e.send("ping 1");
    let lines = e.until(Duration::from_secs(30), |l| l == "pong 1");
    assert_eq!(
        lines,
        [
            "set myname oxello",
            "status learn: there is no book to learn into (--no-book)",
            "learned",
            "pong 1"
        ]
    );
    assert!(e.close(Duration::from_secs(5)).success());
    std::fs::remove_dir_all(&dir).ok();
}

/// A book of the start position alone, claiming to be searched `depth` plies deep, so that
/// learning a game searches that deep.
fn deep_start_book(dir: &Path, depth: u8) -> PathBuf {
    let book = Book::new([BookEntry {
        board: Board::START,
        value: 0,
        exit_move: parse_square("f5").unwrap() as u8,
        exit_score: 0,
        depth,
        exact: false,
        games: 1,
    }]);
    let path = dir.join("deep.book");
    book.write_file(&path).unwrap();
    path
}

#[test]
fn learning_goes_on_through_other_lines_but_ends_with_the_session() {
    let dir = scratch_dir("book-learn-end");
    let path = deep_start_book(&dir, 40);
    let transcript = a_selfplay_transcript();
    for ending in ["quit", "end of input"] {
        let mut e = EngineProcess::start(&["--threads", "1", "--book", path.to_str().unwrap()]);
        e.send("nboard 2");
        for square in transcript.as_bytes().chunks(2).take(30) {
            e.send(&format!("move {}", std::str::from_utf8(square).unwrap()));
        }
        assert_eq!(
            e.line(Duration::from_secs(30)).as_deref(),
            Some("set myname oxello")
        );
        e.send("learn");
        e.send("ping 1");
        // Searches of depth 40 take far longer than this wait: the ping waits its turn.
        assert_eq!(e.line(Duration::from_secs(2)), None, "{ending}");
        let status = if ending == "quit" {
            e.send("quit");
            e.exit(Duration::from_secs(10))
        } else {
            e.close(Duration::from_secs(10))
        };
        assert!(status.success(), "{ending}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
