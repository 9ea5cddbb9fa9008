//! `oxello web`'s routes called directly (no network): positions and their faults, the engine's
//! jobs (a newer one stops the older), a real game's review against plain minimax at its end,
//! and fuzzed bodies that must get a 2xx or 4xx reply and leave the server answering.

use oxello::board::{Board, Move, Position};
use oxello::engine::{Engine, EngineOptions};
use oxello::notation::read_wthor_file;
use oxello::web::{handle, Jobs, Reply, MAX_BODY_BYTES};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn jobs() -> Jobs {
    Jobs::start(|| {
        Ok(Engine::new(EngineOptions {
            threads: 1,
            hash_mib: 16,
        })?)
    })
    .expect("the engine thread")
}

fn post(jobs: &Jobs, path: &str, body: &Value) -> Reply {
    handle("POST", path, body.to_string().as_bytes(), jobs)
}

fn json_of(reply: &Reply) -> Value {
    serde_json::from_slice(&reply.body).expect("a JSON reply")
}

fn ok(reply: Reply) -> Value {
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    json_of(&reply)
}

fn error(reply: Reply, status: u16) -> String {
    assert_eq!(
        reply.status,
        status,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    json_of(&reply)["error"]
        .as_str()
        .expect("an error message")
        .to_string()
}

/// Polls the latest job until it is no longer running (or `limit` passes).
fn finished(jobs: &Jobs, id: u64, limit: Duration) -> Value {
    let begun = Instant::now();
    loop {
        let status = ok(handle("GET", "/api/job", b"", jobs));
        assert_eq!(status["id"], id, "job {id} was overtaken");
        if status["state"] != "running" {
            return status;
        }
        assert!(begun.elapsed() < limit, "job {id} still running: {status}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_str().expect("a string").to_string())
        .collect()
}

#[test]
fn the_page_and_its_assets_are_served() {
    let jobs = jobs();
    let page = handle("GET", "/", b"", &jobs);
    assert_eq!(page.status, 200);
    assert!(page.content_type.starts_with("text/html"));
    let html = String::from_utf8(page.body).expect("UTF-8");
    assert!(html.contains("/app.js") && html.contains("/style.css"));
    for (path, kind) in [("/app.js", "text/javascript"), ("/style.css", "text/css")] {
        let reply = handle("GET", path, b"", &jobs);
        assert_eq!(reply.status, 200, "{path}");
        assert!(reply.content_type.starts_with(kind), "{path}");
    }
}

#[test]
fn the_start_position_and_a_move_are_described() {
    let jobs = jobs();
    let start = ok(post(&jobs, "/api/position", &json!({})));
    assert_eq!(strings(&start["legal"]), ["d3", "c4", "f5", "e6"]);
    assert_eq!(
        (start["black"].as_u64(), start["white"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(start["to_move"], "black");
    assert_eq!(start["last"], Value::Null);
    let after = ok(post(&jobs, "/api/position", &json!({"moves": ["f5"]})));
    assert_eq!(after["last"], "f5");
    assert_eq!(strings(&after["flipped"]), ["e5"]);
    assert_eq!(after["to_move"], "white");
    assert_eq!(
        (after["black"].as_u64(), after["white"].as_u64()),
        (Some(4), Some(1))
    );
}

#[test]
fn forced_passes_are_written_out() {
    let (moves, position) = crate::common::game_until_forced_pass();
    let jobs = jobs();
    let texts: Vec<String> = moves
        .iter()
        .filter(|&&m| m != Move::Pass)
        .map(|&m| oxello::notation::format_move(m).to_ascii_lowercase())
        .collect();
    let view = ok(post(&jobs, "/api/position", &json!({ "moves": texts })));
    assert_eq!(view["must_pass"], true, "{view}");
    assert_eq!(view["board"], oxello::notation::format_position(&position));
    let passed = ok(post(
        &jobs,
        "/api/position",
        &json!({ "start": view["board"], "moves": ["pass"] }),
    ));
    assert_eq!(passed["must_pass"], false);
    assert_eq!(strings(&passed["moves"]), ["pass"]);
}

#[test]
fn set_ups_read_board_strings_transcripts_and_ggf() {
    let jobs = jobs();
    let board = ok(post(
        &jobs,
        "/api/position",
        &json!({"setup": "---------------------------OX------XO--------------------------- O"}),
    ));
    assert_eq!(board["to_move"], "white");
    assert_eq!(strings(&board["moves"]).len(), 0);
    let transcript = ok(post(&jobs, "/api/position", &json!({"setup": "f5 d6 C3"})));
    assert_eq!(strings(&transcript["moves"]), ["f5", "d6", "c3"]);
    let ggf = "(;GM[Othello]PC[web]PB[a]PW[b]RE[?]TY[8]\
        BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6];)";
    let record = ok(post(&jobs, "/api/position", &json!({ "setup": ggf })));
    assert_eq!(strings(&record["moves"]), ["f5", "d6"]);
}

#[test]
fn bad_requests_get_4xx_replies_with_a_message() {
    let jobs = jobs();
    let cases: Vec<(&str, &str, Vec<u8>, u16, &str)> = vec![
        ("POST", "/api/position", b"{".to_vec(), 400, "bad JSON"),
        (
            "POST",
            "/api/position",
            br#"{"mvoes": []}"#.to_vec(),
            400,
            "unknown field",
        ),
        (
            "POST",
            "/api/position",
            br#"{"moves": ["a1"]}"#.to_vec(),
            400,
            "move 1 (a1) is illegal",
        ),
        (
            "POST",
            "/api/position",
            br#"{"moves": ["z9"]}"#.to_vec(),
            400,
            "'z9' is not a move",
        ),
        (
            "POST",
            "/api/position",
            br#"{"start": "XO X"}"#.to_vec(),
            400,
            "bad start position",
        ),
        (
            "POST",
            "/api/position",
            br#"{"setup": "hello"}"#.to_vec(),
            400,
            "not a board string",
        ),
        (
            "POST",
            "/api/think",
            br#"{"time_ms": 1}"#.to_vec(),
            400,
            "time_ms must be between",
        ),
        (
            "POST",
            "/api/think",
            br#"{"depth": 61}"#.to_vec(),
            400,
            "depth must be between",
        ),
        (
            "POST",
            "/api/think",
            br#"{"depth": 4, "time_ms": 100}"#.to_vec(),
            400,
            "not both",
        ),
        (
            "POST",
            "/api/hints",
            br#"{"time_ms": 3600000}"#.to_vec(),
            400,
            "time_ms must be",
        ),
        (
            "POST",
            "/api/review",
            br#"{"moves": []}"#.to_vec(),
            400,
            "at least one move",
        ),
        (
            "POST",
            "/api/review",
            br#"{"moves": ["f5"], "time_ms": 20000}"#.to_vec(),
            400,
            "time_ms",
        ),
        ("GET", "/api/think", Vec::new(), 405, "GET is not allowed"),
        ("DELETE", "/", Vec::new(), 405, "not allowed"),
        ("GET", "/../../etc/passwd", Vec::new(), 404, "no such page"),
        ("GET", "/src/main.rs", Vec::new(), 404, "no such page"),
    ];
    for (method, path, body, status, message) in cases {
        let reply = handle(method, path, &body, &jobs);
        let text = error(reply, status);
        assert!(text.contains(message), "{method} {path}: {text}");
    }
    let over = vec![b' '; MAX_BODY_BYTES + 1];
    error(handle("POST", "/api/position", &over, &jobs), 413);
    let full = "-".repeat(64) + " X";
    let text = error(post(&jobs, "/api/think", &json!({ "start": full })), 400);
    assert!(text.contains("the game is over"), "{text}");
    assert_eq!(
        ok(handle("GET", "/api/job", b"", &jobs))["id"],
        0,
        "no job was started"
    );
}

#[test]
fn the_engine_moves_and_a_newer_job_stops_the_older() {
    let jobs = jobs();
    let hints = ok(post(
        &jobs,
        "/api/hints",
        &json!({"moves": ["f5"], "time_ms": 60000}),
    ));
    std::thread::sleep(Duration::from_millis(200));
    let think = ok(post(
        &jobs,
        "/api/think",
        &json!({"moves": ["f5", "d6"], "time_ms": 100, "book": false}),
    ));
    assert!(think["job"].as_u64() > hints["job"].as_u64());
    let status = finished(
        &jobs,
        think["job"].as_u64().expect("an id"),
        Duration::from_secs(20),
    );
    assert_eq!(status["state"], "done");
    let mv = status["think"]["move"].as_str().expect("a move");
    let after = ok(post(
        &jobs,
        "/api/position",
        &json!({"moves": ["f5", "d6"]}),
    ));
    assert!(
        strings(&after["legal"]).contains(&mv.to_string()),
        "{mv} is legal"
    );
    assert!(status["think"]["depth"]
        .as_str()
        .is_some_and(|d| !d.is_empty()));

    let hints = ok(post(
        &jobs,
        "/api/hints",
        &json!({"moves": ["f5"], "time_ms": 60000}),
    ));
    let id = hints["job"].as_u64().expect("an id");
    std::thread::sleep(Duration::from_millis(300));
    ok(handle("POST", "/api/stop", b"", &jobs));
    let status = finished(&jobs, id, Duration::from_secs(20));
    assert_eq!(status["state"], "stopped");
    let listed: Vec<String> = status["hints"]["hints"]
        .as_array()
        .expect("hints")
        .iter()
        .map(|h| h["move"].as_str().expect("a move").to_string())
        .collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["d6", "f4", "f6"],
        "every legal move once: {listed:?}"
    );
}

/// The exact score of `board` for the side to move, by plain minimax.
fn minimax(board: &Board) -> i32 {
    let moves = board.moves();
    if moves == 0 {
        let passed = board.pass();
        if passed.moves() == 0 {
            return board.final_score();
        }
        return -minimax(&passed);
    }
    oxello::board::Squares(moves)
        .map(|sq| -minimax(&board.play(sq).expect("legal")))
        .max()
        .expect("a move")
}

fn wthor_game() -> &'static (Vec<Move>, Position) {
    static GAME: OnceLock<(Vec<Move>, Position)> = OnceLock::new();
    GAME.get_or_init(|| {
        let bytes = std::fs::read(crate::common::fixture("WTH_2020.wtb")).expect("the fixture");
        let file = read_wthor_file(&bytes).expect("a WTHOR file");
        file.games
            .iter()
            .filter_map(|g| g.replay().ok())
            .find(|(moves, end)| moves.len() >= 60 && end.board.empty_count() == 0)
            .expect("a game of 60 moves")
    })
}

#[test]
fn a_review_scores_every_move_and_ends_in_the_exact_result() {
    let (moves, end) = wthor_game();
    let texts: Vec<String> = moves
        .iter()
        .map(|&m| oxello::notation::format_move(m).to_ascii_lowercase())
        .collect();
    let jobs = jobs();
    let reply = ok(post(
        &jobs,
        "/api/review",
        &json!({ "moves": texts, "time_ms": 20 }),
    ));
    let id = reply["job"].as_u64().expect("an id");
    let status = finished(&jobs, id, Duration::from_secs(120));
    assert_eq!(status["state"], "done", "{status}");
    let review = &status["review"];
    let positions = review["positions"].as_array().expect("positions");
    let reviewed = review["moves"].as_array().expect("moves");
    assert_eq!(review["done"], review["total"]);
    assert_eq!(positions.len(), moves.len() + 1);
    assert_eq!(reviewed.len(), moves.len());
    let last = &positions[moves.len()];
    assert_eq!(last["black_score"], end.black_final_score());
    assert_eq!(last["depth"], "exact");

    let mut position = Position::START;
    for (ply, (&mv, row)) in moves.iter().zip(reviewed).enumerate() {
        assert_eq!(row["ply"], ply + 1);
        let (best, played, loss) = (
            row["best_score"].as_i64().expect("a score"),
            row["played_score"].as_i64().expect("a score"),
            row["loss"].as_i64().expect("a loss"),
        );
        assert!(
            loss >= 0 && loss == best - played,
            "move {}: {row}",
            ply + 1
        );
        if loss == 0 {
            assert_eq!(row["best"], row["move"], "move {}: {row}", ply + 1);
        }
        if position.board.empty_count() <= 9 && mv != Move::Pass {
            let exact_best = minimax(&position.board);
            let after = position.play(mv).expect("legal");
            let exact_played = -minimax(&after.board);
            assert_eq!(
                (best, played),
                (i64::from(exact_best), i64::from(exact_played)),
                "move {} ({:?}) at {} empties",
                ply + 1,
                mv,
                position.board.empty_count()
            );
            assert_eq!(row["exact"], true);
        }
        position = position.play(mv).expect("legal");
    }
}

fn any_body() -> impl Strategy<Value = Vec<u8>> {
    let field = prop_oneof![
        proptest::sample::select(vec!["start", "moves", "setup", "time_ms", "depth", "book"])
            .prop_map(str::to_string),
        "[a-z_]{1,8}",
    ];
    let value = prop_oneof![
        Just(json!(null)),
        any::<i64>().prop_map(|n| json!(n)),
        (10u64..200).prop_map(|n| json!(n)),
        "[ -~]{0,80}".prop_map(|s| json!(s)),
        proptest::collection::vec("[a-hA-H][1-8]|pass|pa|[ -~]{0,3}", 0..70).prop_map(|v| json!(v)),
        Just(json!(
            "---------------------------OX------XO--------------------------- X"
        )),
        any::<bool>().prop_map(|b| json!(b)),
    ];
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        proptest::collection::btree_map(field, value, 0..4)
            .prop_map(|m| serde_json::to_vec(&m).expect("JSON")),
    ]
}

fn api_jobs() -> &'static Jobs {
    static JOBS: OnceLock<Jobs> = OnceLock::new();
    JOBS.get_or_init(jobs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn fuzzed_bodies_get_a_reply_and_leave_the_server_working(
        route in prop_oneof![
            Just("/api/position"),
            Just("/api/think"),
            Just("/api/hints"),
            Just("/api/review"),
            Just("/api/stop"),
        ],
        body in any_body(),
    ) {
        let jobs = api_jobs();
        let reply = handle("POST", route, &body, jobs);
        prop_assert!(reply.status == 200 || (400..500).contains(&reply.status),
            "{route}: {} {}", reply.status, String::from_utf8_lossy(&reply.body));
        let value: Value = serde_json::from_slice(&reply.body).expect("a JSON reply");
        if reply.status != 200 {
            prop_assert!(value["error"].as_str().is_some_and(|m| !m.is_empty()));
        }
        let start = handle("POST", "/api/position", b"{}", jobs);
        prop_assert_eq!(start.status, 200);
        // The engine thread still searches.
        let think = handle("POST", "/api/think", br#"{"depth": 1}"#, jobs);
        prop_assert_eq!(think.status, 200);
        let id = json_of(&think)["job"].as_u64().expect("a job id");
        let status = finished(jobs, id, Duration::from_secs(30));
        prop_assert_eq!(&status["state"], "done");
        prop_assert!(status["think"]["move"].is_string(), "{}", status);
    }
}
