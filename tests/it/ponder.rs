//! Pondering against the real binary: the search after a predicted reply starts from what the
//! ponder learned, an unexpected reply drops the ponder, commands are answered at once while
//! pondering, quit and end of input end it, and it prints nothing by itself.

use crate::common::engine_process::EngineProcess;
use oxello::board::{Move, Position};
use oxello::notation::{format_move, parse_move};
use std::time::{Duration, Instant};

const LONG: Duration = Duration::from_secs(60);

/// A midgame line, Black to move after it.
const OPENING: [&str; 10] = ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"];

fn position_after(moves: &[&str]) -> Position {
    moves.iter().fold(Position::START, |p, m| {
        p.play(parse_move(m).unwrap()).expect("a legal line")
    })
}

/// Waits until the engine has laid out its network: a first search asked for sooner waits for
/// it out of its own time, which on a loaded machine can leave it too little to find a reply
/// to expect.
fn network_ready(e: &EngineProcess) {
    e.log_until(LONG, |l| l.contains("the network is laid out"));
}

/// An NBoard engine on one thread without a book, its log kept, at the opening's end, its
/// network laid out.
fn nboard(extra: &[&str]) -> EngineProcess {
    let args = [
        &["--threads", "1", "--no-book", "--log-level", "debug"],
        extra,
    ]
    .concat();
    let mut e = EngineProcess::start_logged(&args);
    e.send("nboard 2");
    assert_eq!(e.line(LONG).as_deref(), Some("set myname oxello"));
    for mv in OPENING {
        e.send(&format!("move {mv}"));
    }
    network_ready(&e);
    e
}

/// A GTP engine on one thread, its log kept, at the opening's end, its network laid out.
fn gtp(extra: &[&str]) -> EngineProcess {
    let args = [&["--threads", "1", "--log-level", "debug"], extra].concat();
    let mut e = EngineProcess::start_logged(&args);
    for (i, mv) in OPENING.iter().enumerate() {
        let color = if i % 2 == 0 { "b" } else { "w" };
        assert_eq!(e.gtp(&format!("play {color} {mv}")), ["= "]);
    }
    network_ready(&e);
    e
}

/// NBoard `go`: the move and the nodes its search reported.
fn go(e: &mut EngineProcess) -> (Move, u64) {
    e.send("go");
    let lines = e.until(LONG, |l| l.starts_with("=== "));
    let nodes = lines
        .iter()
        .find_map(|l| l.strip_prefix("nodestats "))
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .expect("nodestats before ===");
    let answer = &lines.last().unwrap()["=== ".len()..];
    (
        parse_move(answer.split('/').next().unwrap()).unwrap(),
        nodes,
    )
}

/// The reply the engine logged it expects after its move.
fn expected_reply(e: &EngineProcess) -> Move {
    let log = e.log_until(LONG, |l| l.contains("ponder: expecting "));
    let line = log.last().unwrap();
    let reply = line.rsplit(' ').next().unwrap();
    parse_move(reply).unwrap_or_else(|_| panic!("no move in '{line}'"))
}

/// Waits until the ponder search logs a completed iteration of at least `depth` plies.
fn ponder_reaches(e: &EngineProcess, depth: u32) {
    e.log_until(LONG, |l| {
        l.split("ponder: depth ")
            .nth(1)
            .and_then(|rest| rest.split('@').next()?.parse::<u32>().ok())
            .is_some_and(|d| d >= depth)
    });
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

#[test]
fn the_search_after_the_predicted_reply_goes_on_from_the_ponder() {
    const DEPTH: u32 = 14;
    let mut pondering = nboard(&["--ponder"]);
    let mut control = nboard(&[]);
    for e in [&mut pondering, &mut control] {
        e.send(&format!("set depth {DEPTH}"));
    }
    let (mv, _) = go(&mut pondering);
    let reply = expected_reply(&pondering);
    let (control_mv, _) = go(&mut control);
    assert_eq!(mv, control_mv, "one thread at a fixed depth plays alike");
    let position = position_after(&OPENING).play(mv).unwrap();
    assert!(position.play(reply).is_ok(), "the expected reply is legal");

    pondering.send(&format!("move {}", format_move(mv)));
    // The ponder searches the reply's position: once it has completed more than DEPTH plies,
    // the table holds that position searched to DEPTH, whenever the reply interrupts it.
    ponder_reaches(&pondering, DEPTH + 1);
    control.send(&format!("move {}", format_move(mv)));
    for e in [&mut pondering, &mut control] {
        e.send(&format!("move {}", format_move(reply)));
    }
    let (_, pondered_nodes) = go(&mut pondering);
    let (_, control_nodes) = go(&mut control);
    // Usually a few hundred nodes against 188,131; when the ponder was stopped inside a deeper
    // iteration, whose entries replaced some of DEPTH's with bounds that do not settle its
    // windows, up to about three quarters. Without the ponder the two searches are the same.
    assert!(
        pondered_nodes < control_nodes,
        "after the ponder the depth-{DEPTH} search took {pondered_nodes} nodes, without it {control_nodes}"
    );
    let log = pondering.log_until(LONG, |l| l.contains("ponder hit"));
    assert!(log.last().unwrap().contains("1 of 1 predictions"));
}

#[test]
fn an_unexpected_reply_drops_the_ponder() {
    let mut e = nboard(&["--ponder"]);
    e.send("set depth 10");
    let (mv, _) = go(&mut e);
    let expected = expected_reply(&e);
    e.send(&format!("move {}", format_move(mv)));
    ponder_reaches(&e, 8);
    let after = position_after(&OPENING).play(mv).unwrap();
    let other = oxello::board::Squares(after.board.moves())
        .map(|sq| Move::Play(sq as u8))
        .find(|m| *m != expected)
        .expect("the opponent has another move");
    e.send(&format!("move {}", format_move(other)));
    e.send("ping 1");
    assert_eq!(e.line(LONG).as_deref(), Some("pong 1"));
    e.log_until(LONG, |l| l.contains("ponder miss: 0 of 1 predictions hit"));
    let (answer, _) = go(&mut e);
    assert!(after.play(other).unwrap().play(answer).is_ok());
    e.log_until(LONG, |l| l.contains("ponder: expecting "));
}

#[test]
fn ping_is_answered_at_once_under_a_deep_ponder() {
    let mut e = nboard(&["--ponder", "--movetime", "200"]);
    let (mv, _) = go(&mut e);
    e.send(&format!("move {}", format_move(mv)));
    ponder_reaches(&e, 12);
    let mut delays = Vec::new();
    for n in 1..=7 {
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        e.send(&format!("ping {n}"));
        assert_eq!(e.line(LONG), Some(format!("pong {n}")));
        delays.push(sent.elapsed());
    }
    assert!(
        median(delays.clone()) < Duration::from_millis(50),
        "pong delays {delays:?}"
    );
    assert!(delays.iter().all(|d| *d < Duration::from_secs(1)));
    e.log_until(LONG, |l| l.contains("searched to depth"));
}

#[test]
fn gtp_commands_are_answered_at_once_while_pondering() {
    let mut e = gtp(&["--ponder", "--no-book", "--movetime", "200"]);
    let reply = e.gtp("genmove b");
    assert!(reply[0].starts_with("= "), "{reply:?}");
    ponder_reaches(&e, 12);
    let mut delays = Vec::new();
    for _ in 0..7 {
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        assert_eq!(e.gtp("name"), ["= oxello"]);
        delays.push(sent.elapsed());
    }
    assert!(
        median(delays.clone()) < Duration::from_millis(50),
        "reply delays {delays:?}"
    );
}

#[test]
fn pondering_prints_nothing_by_itself() {
    let mut e = gtp(&["--ponder", "--no-book", "--movetime", "100"]);
    let reply = e.gtp("genmove b");
    assert!(reply[0].starts_with("= "), "{reply:?}");
    ponder_reaches(&e, 10);
    assert_eq!(
        e.line(Duration::from_millis(1500)),
        None,
        "no output while pondering"
    );
    assert_eq!(e.gtp("showboard").len(), 12);
    e.log_until(LONG, |l| l.contains("searched to depth"));
    assert_eq!(e.line(Duration::from_millis(500)), None);
}

#[test]
fn quit_ends_a_ponder() {
    let mut e = nboard(&["--ponder", "--movetime", "100"]);
    let (mv, _) = go(&mut e);
    e.send(&format!("move {}", format_move(mv)));
    ponder_reaches(&e, 10);
    let sent = Instant::now();
    e.send("quit");
    assert!(e.exit(Duration::from_secs(5)).success());
    assert!(
        sent.elapsed() < Duration::from_secs(2),
        "{:?}",
        sent.elapsed()
    );
}

#[test]
fn end_of_input_ends_a_ponder() {
    let mut e = gtp(&["--ponder", "--no-book", "--movetime", "100"]);
    assert!(e.gtp("genmove b")[0].starts_with("= "));
    ponder_reaches(&e, 10);
    let sent = Instant::now();
    assert!(e.close(Duration::from_secs(5)).success());
    assert!(
        sent.elapsed() < Duration::from_secs(2),
        "{:?}",
        sent.elapsed()
    );
}

#[test]
fn no_ponder_while_the_next_position_is_in_the_book() {
    let mut e =
        EngineProcess::start_logged(&["--threads", "1", "--ponder", "--log-level", "debug"]);
    assert!(e.gtp("genmove b")[0].starts_with("= "));
    e.log_until(LONG, |l| l.contains("nothing to ponder"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(e.gtp("name"), ["= oxello"]);
    let log = e.log_so_far();
    assert!(
        !log.iter().any(|l| l.contains("searched to depth")),
        "no ponder search ran: {log:?}"
    );
}

#[test]
fn pondering_is_switched_by_each_protocol() {
    let mut e = gtp(&["--no-book", "--movetime", "100"]);
    assert_eq!(e.gtp("oxello-ponder on"), ["= "]);
    assert!(e.gtp("genmove b")[0].starts_with("= "));
    e.log_until(LONG, |l| l.contains("ponder: expecting "));
    assert_eq!(e.gtp("oxello-ponder off"), ["= "]);
    assert_eq!(
        e.gtp("oxello-ponder maybe"),
        ["? oxello-ponder takes on or off, not 'maybe'"]
    );
    let mut n = nboard(&["--movetime", "100"]);
    n.send("set ponder on");
    let _ = go(&mut n);
    n.log_until(LONG, |l| l.contains("ponder: expecting "));
    n.send("set ponder sometimes");
    assert_eq!(
        n.line(LONG).as_deref(),
        Some("status set ponder takes on or off, not 'sometimes'")
    );
}
