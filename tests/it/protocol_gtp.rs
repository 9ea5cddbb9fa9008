//! GTP sessions against the real binary: exact replies, a whole game, bad input, stops.

use crate::common::engine_process::EngineProcess;
use oxello::board::{Color, Move, Position};
use oxello::notation::{format_position, parse_move};
use std::time::{Duration, Instant};

fn ok(reply: &[String]) -> String {
    assert!(reply[0].starts_with('='), "expected success, got {reply:?}");
    reply.join("\n")[1..].trim().to_string()
}

fn err(reply: &[String]) -> String {
    assert!(
        reply[0].starts_with('?'),
        "expected an error, got {reply:?}"
    );
    reply.join("\n")[1..].trim().to_string()
}

#[test]
fn administrative_commands_answer_exactly() {
    let mut e = EngineProcess::start(&["--depth", "2", "--threads", "1"]);
    assert_eq!(e.gtp("protocol_version"), ["= 2"]);
    assert_eq!(e.gtp("12 name"), ["=12 oxello"]);
    assert_eq!(
        e.gtp("version"),
        [format!("= {}", env!("CARGO_PKG_VERSION"))]
    );
    assert_eq!(e.gtp("known_command genmove"), ["= true"]);
    assert_eq!(e.gtp("known_command fly"), ["= false"]);
    let commands = ok(&e.gtp("list_commands"));
    for command in [
        "play",
        "genmove",
        "undo",
        "time_left",
        "kgs-time_settings",
        "gogui-rules_legal_moves",
        "oxello-threads",
        "oxello-book",
    ] {
        assert!(
            commands.lines().any(|c| c == command),
            "{command} missing from {commands}"
        );
    }
    assert_eq!(e.gtp("boardsize 8"), ["= "]);
    assert_eq!(e.gtp("3 boardsize 19"), ["?3 unacceptable size"]);
    assert_eq!(e.gtp("komi 0.5"), ["= "]);
    assert_eq!(e.gtp("set_game Othello"), ["= "]);
    assert_eq!(e.gtp("list_games"), ["= Othello"]);
    assert_eq!(e.gtp("gogui-rules_game_id"), ["= Othello"]);
    assert_eq!(e.gtp("gogui-rules_board_size"), ["= 8"]);
    assert_eq!(e.gtp("gogui-rules_side_to_move"), ["= black"]);
    assert_eq!(e.gtp("gogui-rules_legal_moves"), ["= D3 C4 F5 E6"]);
    assert_eq!(e.gtp("gogui-rules_final_result"), ["= unknown"]);
    // Row 8 first, as GoGui draws row 1 at the bottom: row 5 (d5 black, e5 white) above row 4.
    assert_eq!(
        e.gtp("gogui-rules_board"),
        [
            "= ",
            ". . . . . . . .",
            ". . . . . . . .",
            ". . . . . . . .",
            ". . . X O . . .",
            ". . . O X . . .",
            ". . . . . . . .",
            ". . . . . . . .",
            ". . . . . . . ."
        ]
    );
    assert_eq!(e.gtp("play B f5"), ["= "]);
    assert_eq!(e.gtp("gogui-rules_side_to_move"), ["= white"]);
    assert_eq!(e.gtp("undo"), ["= "]);
    assert_eq!(e.gtp("undo"), ["? cannot undo"]);
    let board = e.gtp("showboard");
    assert_eq!(board[0], "= ");
    assert_eq!(board[4], "3 . . . * . . . . 3");
    assert_eq!(board[5], "4 . . * O X . . . 4");
    assert_eq!(e.gtp("final_score"), ["= 0"]);
    assert_eq!(e.gtp("quit"), ["= "]);
    assert!(e.close(Duration::from_secs(5)).success());
}

/// Plays genmove against genmove to the end, checking every move against our own rules.
#[test]
fn a_whole_game_to_the_end() {
    let mut e = EngineProcess::start(&["--depth", "3", "--threads", "2"]);
    let mut position = Position::START;
    let mut plies = 0;
    while !position.board.is_game_over() {
        let color = if position.side_to_move == Color::Black {
            "b"
        } else {
            "w"
        };
        let answer = ok(&e.gtp(&format!("genmove {color}")));
        let mv = parse_move(&answer).unwrap_or_else(|_| panic!("genmove answered '{answer}'"));
        if mv == Move::Pass {
            assert!(
                position.board.must_pass(),
                "passed with a legal move at {}",
                format_position(&position)
            );
        }
        position = position
            .play(mv)
            .unwrap_or_else(|e| panic!("illegal {answer}: {e}"));
        plies += 1;
        assert!(plies < 70);
    }
    assert_eq!(ok(&e.gtp("oxello-position")), format_position(&position));
    let expected = match position.black_final_score() {
        s if s > 0 => format!("B+{s}"),
        s if s < 0 => format!("W+{}", -s),
        _ => "0".to_string(),
    };
    assert_eq!(ok(&e.gtp("final_score")), expected);
    assert_eq!(ok(&e.gtp("gogui-rules_final_result")), expected);
    assert_eq!(e.gtp("gogui-rules_legal_moves"), ["= "]);
    assert_eq!(ok(&e.gtp("genmove b")), "pass");
    assert_eq!(ok(&e.gtp("genmove w")), "pass");
    assert_eq!(err(&e.gtp("play b a1")), "the game is over");
    assert_eq!(err(&e.gtp("play w pass")), "the game is over");
}

/// A game in which a side has to pass: `play` and `genmove` for the other side insert it.
#[test]
fn forced_passes_are_inserted() {
    let (transcript, _) = crate::common::game_until_forced_pass();
    let mut e = EngineProcess::start(&["--depth", "2", "--threads", "1"]);
    let mut position = Position::START;
    for mv in &transcript {
        let color = if position.side_to_move == Color::Black {
            "b"
        } else {
            "w"
        };
        match mv {
            Move::Pass => {}
            Move::Play(_) => {
                let text = oxello::notation::format_move(*mv);
                assert_eq!(
                    e.gtp(&format!("play {color} {text}")),
                    ["= "],
                    "play {color} {text}"
                );
            }
        }
        position = position.play(*mv).unwrap();
        if position.board.must_pass() {
            break;
        }
    }
    assert!(position.board.must_pass());
    let mover = position.side_to_move.other();
    let mover_name = if mover == Color::Black { "b" } else { "w" };
    let answer = ok(&e.gtp(&format!("genmove {mover_name}")));
    let after_pass = position.play(Move::Pass).unwrap();
    let mv = parse_move(&answer).unwrap();
    assert!(
        after_pass.play(mv).is_ok(),
        "{answer} is not legal after the pass"
    );
}

#[test]
fn bad_input_gets_errors_and_leaves_the_position_alone() {
    let mut e = EngineProcess::start(&["--depth", "2", "--threads", "1"]);
    assert_eq!(e.gtp("play b f5"), ["= "]);
    let before = ok(&e.gtp("oxello-position"));
    let bad: &[&str] = &[
        "fly_away",
        "play",
        "play b",
        "play x f5",
        "play w z9",
        "play w a1",
        "play b d6",
        "play w pass",
        "genmove",
        "genmove purple",
        "boardsize",
        "boardsize -1",
        "komi lots",
        "time_settings 1e300 0 0",
        "time_settings 10 x 1",
        "time_left b -5 0",
        "oxello-threads 100000",
        "oxello-threads 0",
        "oxello-hash 99999999999",
        "oxello-hash many",
        "oxello-depth 61",
        "set_game Chess",
        "42 known_command",
    ];
    for command in bad {
        let reply = e.gtp(command);
        assert!(reply[0].starts_with('?'), "{command} -> {reply:?}");
    }
    assert_eq!(
        e.gtp("42 play w frog"),
        ["?42 illegal move: 'frog' is not a move"]
    );
    e.send("");
    e.send("   ");
    e.send("# a comment");
    e.send_bytes(b"play b \xff\xfe\n");
    assert!(e.until(Duration::from_secs(5), |l| l.is_empty())[0].starts_with('?'));
    e.send(&"x".repeat(200_000));
    let reply = e.until(Duration::from_secs(5), |l| l.is_empty());
    assert_eq!(
        reply[0],
        format!(
            "? line too long (over {} bytes)",
            oxello::protocol::MAX_LINE_BYTES
        )
    );
    assert_eq!(
        ok(&e.gtp("oxello-position")),
        before,
        "the position changed"
    );
    assert_eq!(e.gtp("name"), ["= oxello"], "the engine still answers");
}

#[test]
fn quit_stops_a_long_search_at_once() {
    let mut e = EngineProcess::start(&["--threads", "2", "--movetime", "20000", "--no-book"]);
    e.send("genmove b");
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    e.send("quit");
    let replies = e.until(Duration::from_secs(5), |l| l == "= ");
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "took {:?}",
        asked.elapsed()
    );
    assert!(
        parse_move(replies[0].trim_start_matches("= ")).is_ok(),
        "{replies:?}"
    );
    assert!(e.close(Duration::from_secs(5)).success());
}

#[test]
fn end_of_input_during_a_search_answers_then_exits_cleanly() {
    let mut e = EngineProcess::start(&["--threads", "2", "--movetime", "400", "--no-book"]);
    e.send("genmove b");
    let mut e = e;
    let started = Instant::now();
    drop(e.stdin_for_test());
    let reply = e.until(Duration::from_secs(5), |l| l.starts_with('='));
    assert!(
        parse_move(reply[0].trim_start_matches("= ")).is_ok(),
        "{reply:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(e.close(Duration::from_secs(5)).success());
}

#[test]
fn time_settings_per_move_are_kept() {
    let mut e = EngineProcess::start(&["--threads", "2", "--no-book"]);
    assert_eq!(e.gtp("time_settings 0 1 1"), ["= "]);
    for color in ["b", "w", "b", "w"] {
        let started = Instant::now();
        let answer = ok(&e.gtp(&format!("genmove {color}")));
        assert!(parse_move(&answer).is_ok());
        assert!(
            started.elapsed() < Duration::from_millis(1500),
            "a 1 s move took {:?}",
            started.elapsed()
        );
    }
    assert_eq!(e.gtp("time_settings 3 0 0"), ["= "]);
    assert_eq!(e.gtp("time_left w 2 0"), ["= "]);
    let started = Instant::now();
    assert!(parse_move(&ok(&e.gtp("genmove b"))).is_ok());
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn an_increment_and_fractional_clocks_are_taken_and_kept() {
    let mut e = EngineProcess::start(&["--threads", "1", "--no-book"]);
    assert_eq!(e.gtp("kgs-time_settings fischer 0.8 0.05"), ["= "]);
    assert_eq!(e.gtp("time_left b 0.35 0"), ["= "]);
    let started = Instant::now();
    assert!(parse_move(&ok(&e.gtp("genmove b"))).is_ok());
    assert!(
        started.elapsed() < Duration::from_millis(350),
        "a move with 0.35 s on the clock took {:?}",
        started.elapsed()
    );
    assert_eq!(e.gtp("kgs-time_settings canadian 0 0.2 1"), ["= "]);
    assert!(parse_move(&ok(&e.gtp("genmove w"))).is_ok());
    for bad in [
        "kgs-time_settings hourglass 30",
        "kgs-time_settings fischer 30",
        "kgs-time_settings byoyomi 30 x 5",
        "time_left b 0.5",
    ] {
        let reply = e.gtp(bad);
        assert!(reply[0].starts_with("? "), "{bad}: {reply:?}");
    }
    assert_eq!(e.gtp("kgs-time_settings none"), ["= "]);
    assert!(parse_move(&ok(&e.gtp("genmove b"))).is_ok());
}
