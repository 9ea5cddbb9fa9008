//! Property tests of the line parsers: arbitrary input never panics the server, every GTP
//! reply is well framed, and the GGF parser reports errors instead of failing.

use oxello::engine::EngineOptions;
use oxello::notation::GgfGame;
use oxello::protocol::{serve, ServerConfig};
use proptest::prelude::*;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A sink the test can read after the server is done.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn run(input: Vec<u8>) -> String {
    let config = ServerConfig {
        engine: EngineOptions {
            threads: 1,
            hash_mib: 1,
        },
        evaluation: oxello::eval::Evaluation::default().into(),
        depth: Some(1),
        move_time: None,
        selectivity: oxello::search::DEFAULT_SELECTIVITY,
        book: Some(oxello::book::Book::builtin()),
        book_file: None,
        book_randomness: 2,
        ponder: true,
    };
    let sink = Captured::default();
    serve(config, std::io::Cursor::new(input), sink.clone()).expect("the server ends cleanly");
    let bytes = sink.0.lock().unwrap().clone();
    String::from_utf8(bytes).expect("the output is UTF-8")
}

/// Lines that look like commands of either protocol, with random arguments and bytes.
fn command_line() -> impl Strategy<Value = Vec<u8>> {
    let words = prop::sample::select(vec![
        "play",
        "genmove",
        "undo",
        "boardsize",
        "komi",
        "time_settings",
        "time_left",
        "showboard",
        "final_score",
        "oxello-depth",
        "oxello-ponder",
        "oxello-hash",
        "known_command",
        "set",
        "move",
        "go",
        "hint",
        "ping",
        "analyze",
        "learn",
        "b",
        "w",
        "pass",
        "f5",
        "d6",
        "PA",
        "-1",
        "8",
        "1e9",
        "game",
        "depth",
        "(;GM[Othello]",
        "BO[8",
        "*]",
        ";)",
        "\t",
        "#",
    ]);
    (
        prop::collection::vec(words, 0..6),
        prop::collection::vec(any::<u8>(), 0..4),
    )
        .prop_map(|(w, noise)| {
            let mut line = w.join(" ").into_bytes();
            line.extend(noise.into_iter().filter(|&b| b != b'\n'));
            line.push(b'\n');
            line
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn gtp_input_never_breaks_the_server(lines in prop::collection::vec(command_line(), 0..12)) {
        let mut input = b"name\n".to_vec();
        input.extend(lines.concat());
        let output = run(input);
        prop_assert!(output.starts_with("= oxello\n\n"));
        for block in output.split("\n\n").filter(|b| !b.is_empty()) {
            prop_assert!(block.starts_with('=') || block.starts_with('?'), "badly framed reply {:?}", block);
        }
    }

    #[test]
    fn nboard_input_never_breaks_the_server(lines in prop::collection::vec(command_line(), 0..12)) {
        let mut input = b"nboard 2\n".to_vec();
        input.extend(lines.concat());
        let output = run(input);
        prop_assert!(output.starts_with("set myname oxello\n"));
    }

    #[test]
    fn arbitrary_bytes_never_break_the_server(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        run(bytes);
    }

    #[test]
    fn the_ggf_parser_never_panics(text in ".{0,200}") {
        let _ = GgfGame::parse(&text);
    }

    #[test]
    fn mutated_ggf_games_parse_or_fail_cleanly(cut in 0usize..200, insert in ".{0,3}", at in 0usize..200) {
        let game = "(;GM[Othello]PC[x]TI[5:00/1/2:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//1.2]W[d6/-1.5/3];)";
        let mut text: String = game.chars().take(cut.max(1)).collect();
        let position = text.char_indices().nth(at).map_or(text.len(), |(i, _)| i);
        text.insert_str(position, &insert);
        if let Ok(parsed) = GgfGame::parse(&text) {
            prop_assert_eq!(GgfGame::parse(&parsed.to_string()).unwrap(), parsed);
        }
    }
}
