//! NBoard sessions against the real binary: a whole game, hints, ping during a search, bad
//! input and end of input.

use crate::common::engine_process::EngineProcess;
use oxello::board::{Move, Position};
use oxello::notation::{format_move, parse_move};
use std::time::{Duration, Instant};

const LONG: Duration = Duration::from_secs(60);

/// An engine without its book (these tests are about the search; `tests/it/book.rs` plays from
/// the book).
fn start(args: &[&str]) -> EngineProcess {
    let mut e = EngineProcess::start(&[args, &["--no-book"]].concat());
    e.send("nboard 2");
    assert_eq!(e.line(LONG).as_deref(), Some("set myname oxello"));
    e
}

/// Sends `ping n` and returns every line before `pong n`.
fn sync(e: &mut EngineProcess, n: u32) -> Vec<String> {
    e.send(&format!("ping {n}"));
    let mut lines = e.until(LONG, |l| l == format!("pong {n}"));
    lines.pop();
    lines
}

/// Sends `go` and returns the move of the `=== ` line and the lines before it.
fn go(e: &mut EngineProcess) -> (Move, Vec<String>) {
    e.send("go");
    let lines = e.until(LONG, |l| l.starts_with("=== "));
    let answer = lines.last().unwrap()["=== ".len()..].to_string();
    let mv = answer.split('/').next().unwrap();
    (
        parse_move(mv).unwrap_or_else(|_| panic!("bad move in '{answer}'")),
        lines,
    )
}

const START_GGF: &str = "(;GM[Othello]PC[NBoard]DT[2026-11-22]PB[me]PW[oxello]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)";

#[test]
fn a_whole_game_to_the_end() {
    let mut e = start(&["--threads", "2"]);
    e.send("set depth 3");
    e.send(&format!("set game {START_GGF}"));
    assert!(sync(&mut e, 1).is_empty());
    let mut position = Position::START;
    while !position.board.is_game_over() {
        let (mv, lines) = go(&mut e);
        let nodestats = lines
            .iter()
            .find(|l| l.starts_with("nodestats "))
            .expect("nodestats before ===");
        let fields: Vec<&str> = nodestats.split_whitespace().collect();
        assert!(
            fields[1].parse::<u64>().is_ok() && fields[2].parse::<f64>().is_ok(),
            "{nodestats}"
        );
        assert!(
            !fields[2].contains('e'),
            "no exponent notation: {nodestats}"
        );
        position = position
            .play(mv)
            .unwrap_or_else(|why| panic!("{} illegal: {why}", format_move(mv)));
        e.send(&format!("move {}/0.00/0.01", format_move(mv)));
    }
    assert!(sync(&mut e, 2).is_empty(), "no complaint about any move");
    e.send("quit");
    assert!(e.close(Duration::from_secs(5)).success());
}

#[test]
fn hint_streams_the_best_moves_with_depths() {
    let mut e = start(&["--threads", "2"]);
    e.send("set depth 6");
    e.send(&format!("set game {START_GGF}"));
    e.send("move f5");
    e.send("hint 3");
    // White has three replies to f5: d6, f4, f6. Every iteration names all of them; from 3
    // plies on the depth carries the default selectivity's confidence.
    let lines = e.until(LONG, |l| {
        l.starts_with("search ") && l.ends_with(" 0 6@73%")
    });
    let mut moves_at_6: Vec<String> = lines
        .iter()
        .filter(|l| l.ends_with(" 0 6@73%"))
        .map(|l| l[7..9].to_string())
        .collect();
    while moves_at_6.len() < 3 {
        let line = e.line(LONG).expect("more search lines");
        assert!(
            line.starts_with("search ") && line.ends_with(" 0 6@73%"),
            "{line}"
        );
        moves_at_6.push(line[7..9].to_string());
    }
    moves_at_6.sort();
    assert_eq!(moves_at_6, ["D6", "F4", "F6"]);
    for line in &lines {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields.len(), 5, "{line}");
        assert!(fields[2].parse::<f64>().is_ok(), "{line}");
        assert_eq!(fields[3], "0");
        let depth: u32 = fields[4].split('@').next().unwrap().parse().unwrap();
        let selective = if depth >= 3 { "@73%" } else { "" };
        assert_eq!(fields[4], format!("{depth}{selective}"), "{line}");
    }
    assert!(sync(&mut e, 3).is_empty());
}

#[test]
fn hint_near_the_end_reports_exact_scores() {
    let mut e = start(&["--threads", "2"]);
    // FFO #1 (14 empties): exact from depth + 4 empties on, so "100%".
    let game = "(;GM[Othello]BO[8 --XXXXX- -OOOXX-O -OOOXXOX -OXOXOXX OXXXOXXX --XOXOXX -XXXOOO- -OOOOO-- *];)";
    e.send("set depth 12");
    e.send(&format!("set game {game}"));
    e.send("hint 2");
    let lines = e.until(LONG, |l| l.ends_with(" 100%"));
    let best = lines.last().unwrap();
    assert!(best.starts_with("search G8"), "{best}");
    assert!(best.contains(" 18.00 0 100%"), "{best}");
}

#[test]
fn ping_interrupts_a_long_search_and_nothing_stale_follows() {
    let mut e = start(&["--threads", "2"]);
    e.send("set depth 40");
    e.send(&format!("set game {START_GGF}"));
    e.send("hint 4");
    std::thread::sleep(Duration::from_millis(500));
    let asked = Instant::now();
    e.send("ping 17");
    e.until(Duration::from_secs(5), |l| l == "pong 17");
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "pong took {:?}",
        asked.elapsed()
    );
    assert_eq!(
        e.line(Duration::from_millis(700)),
        None,
        "a line arrived after pong"
    );
    e.send("go");
    std::thread::sleep(Duration::from_millis(300));
    e.send("ping 18");
    let lines = e.until(Duration::from_secs(5), |l| l == "pong 18");
    assert!(
        lines.iter().any(|l| l.starts_with("=== ")),
        "the interrupted go still answers before pong: {lines:?}"
    );
    assert_eq!(e.line(Duration::from_millis(500)), None);
}

#[test]
fn bad_input_is_explained_and_the_game_stays() {
    let mut e = start(&["--threads", "1"]);
    e.send("set depth 2");
    e.send(&format!("set game {START_GGF}"));
    e.send("move f5");
    let statuses: &[&str] = &[
        "set depth deep",
        "set depth 0",
        "set depth 99999999999999999999",
        "set game (;GM[Othello]BO[8 nonsense];)",
        "set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[A1];)",
        "set game",
        "move z9",
        "move a1",
        "move",
        "hint many",
        "set contempt lots",
    ];
    for line in statuses {
        e.send(line);
        let reply = sync(&mut e, 100);
        assert_eq!(reply.len(), 1, "{line} -> {reply:?}");
        assert!(reply[0].starts_with("status "), "{line} -> {reply:?}");
    }
    for ignored in ["frobnicate", "", "   ", "set colour blue"] {
        e.send(ignored);
        assert!(sync(&mut e, 101).is_empty(), "{ignored} was answered");
    }
    e.send_bytes(b"move \xff\xfe\n");
    assert_eq!(sync(&mut e, 102).len(), 1);
    e.send(&"m".repeat(100_000));
    let reply = sync(&mut e, 103);
    assert!(
        reply.len() == 1 && reply[0].starts_with("status "),
        "{reply:?}"
    );
    // The game is still the start plus f5: White's reply must be legal there.
    let (mv, _) = go(&mut e);
    let after_f5 = Position::START.play(Move::Play(37)).unwrap();
    assert!(
        after_f5.play(mv).is_ok(),
        "{} is not a reply to f5",
        format_move(mv)
    );
}

#[test]
fn go_with_no_move_answers_pass() {
    let mut e = start(&["--threads", "1"]);
    // A position where the side to move has no legal move but the other side has.
    let (_, position) = crate::common::game_until_forced_pass();
    let text = oxello::notation::format_position(&position);
    let (board, side) = text.split_at(64);
    let side = if side.trim() == "X" { "*" } else { "O" };
    let board = board.replace('X', "*");
    e.send(&format!("set game (;GM[Othello]BO[8 {board} {side}];)"));
    let (mv, _) = go(&mut e);
    assert_eq!(mv, Move::Pass);
}

#[test]
fn end_of_input_during_a_search_exits_promptly() {
    let mut e = start(&["--threads", "2"]);
    e.send("set depth 40");
    e.send("hint 1");
    std::thread::sleep(Duration::from_millis(300));
    let closed = Instant::now();
    let status = e.close(Duration::from_secs(5));
    assert!(status.success());
    assert!(closed.elapsed() < Duration::from_secs(2));
}

#[test]
fn analyze_scores_every_position() {
    let mut e = start(&["--threads", "2"]);
    e.send("set depth 2");
    e.send("set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6]B[C3];)");
    e.send("analyze");
    let lines = e.until(LONG, |l| l.starts_with("analysis 0 "));
    let numbers: Vec<u32> = lines
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(numbers, [3, 2, 1, 0]);
    e.send("learn");
    assert_eq!(
        e.line(LONG).as_deref(),
        Some("status learn: there is no book to learn into (--no-book)")
    );
    assert_eq!(e.line(LONG).as_deref(), Some("learned"));
}
