//! Edax's `book.dat`: the exporter writes Edax's header, records and order (Edax 4.4 and 4.6)
//! field by field, checked here by a reader of the layout's own and hash codes computed here
//! bit by bit; books round-trip both ways; a small book laid out byte by byte here as Edax
//! writes it is imported and played from over GTP and NBoard; damaged files are refused with
//! the reason, and leave no output behind.

use crate::common::cli::{assert_fails_with, assert_prints, oxello_in, scratch_dir, text};
use crate::common::engine_process::EngineProcess;
use oxello::board::{Board, Squares, Symmetry};
use oxello::book::edax::{EdaxBook, EdaxDate, EdaxLink, EdaxOptions, EdaxPosition, EdaxRelease};
use oxello::book::{Book, BookEntry};
use oxello::notation::parse_square;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

const PASS: u8 = 64;
const NO_MOVE: u8 = 65;

/// One position as the file lays it out.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Record {
    board: Board,
    counts: [u32; 4],
    scores: [i16; 3],
    level: u8,
    links: Vec<(i8, u8)>,
    leaf: (i8, u8),
}

/// The header fields of an Edax book, read at their offsets.
#[derive(Debug, PartialEq, Eq)]
struct Header {
    magic: [u8; 8],
    version: u8,
    release: u8,
    date: (i16, [u8; 6]),
    options: [i32; 5],
    count: u32,
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().unwrap())
}

/// Reads the layout: a 42-byte header, then 40 fixed bytes and the move pairs per position.
fn read_layout(bytes: &[u8]) -> (Header, Vec<Record>) {
    let header = Header {
        magic: bytes[0..8].try_into().unwrap(),
        version: bytes[8],
        release: bytes[9],
        date: (
            i16::from_le_bytes([bytes[10], bytes[11]]),
            bytes[12..18].try_into().unwrap(),
        ),
        options: std::array::from_fn(|i| le_u32(&bytes[18 + 4 * i..]) as i32),
        count: le_u32(&bytes[38..]),
    };
    let mut records = Vec::new();
    let mut at = 42;
    while at < bytes.len() {
        let r = &bytes[at..];
        let links = usize::from(r[38]);
        let pair = |i: usize| (r[40 + 2 * i] as i8, r[41 + 2 * i]);
        records.push(Record {
            board: Board::new(
                u64::from_le_bytes(r[0..8].try_into().unwrap()),
                u64::from_le_bytes(r[8..16].try_into().unwrap()),
            ),
            counts: std::array::from_fn(|i| le_u32(&r[16 + 4 * i..])),
            scores: std::array::from_fn(|i| i16::from_le_bytes([r[32 + 2 * i], r[33 + 2 * i]])),
            level: r[39],
            links: (0..links).map(pair).collect(),
            leaf: pair(links),
        });
        at += 40 + 2 * (links + 1);
    }
    assert_eq!(at, bytes.len(), "the last position ends with the file");
    (header, records)
}

/// Asserts that two lists hold the same records, whatever their order.
fn assert_same_records(mut got: Vec<Record>, mut expected: Vec<Record>) {
    let key = |r: &Record| (r.board.player, r.board.opponent);
    got.sort_by_key(key);
    expected.sort_by_key(key);
    assert_eq!(got, expected);
}

/// Lays out an Edax book byte by byte.
fn write_layout(release: u8, options: [i32; 5], records: &[Record]) -> Vec<u8> {
    let mut bytes = b"XADEKOOB".to_vec();
    bytes.extend_from_slice(&[4, release]);
    bytes.extend_from_slice(&2025i16.to_le_bytes());
    bytes.extend_from_slice(&[6, 30, 12, 0, 0, 0]);
    for option in options {
        bytes.extend_from_slice(&option.to_le_bytes());
    }
    bytes.extend_from_slice(&(records.len() as u32).to_le_bytes());
    for r in records {
        bytes.extend_from_slice(&r.board.player.to_le_bytes());
        bytes.extend_from_slice(&r.board.opponent.to_le_bytes());
        for count in r.counts {
            bytes.extend_from_slice(&count.to_le_bytes());
        }
        for score in r.scores {
            bytes.extend_from_slice(&score.to_le_bytes());
        }
        bytes.extend_from_slice(&[r.links.len() as u8, r.level]);
        for (score, square) in r.links.iter().chain(std::iter::once(&r.leaf)) {
            bytes.extend_from_slice(&[*score as u8, *square]);
        }
    }
    bytes
}

/// The least of a board's 8 symmetric forms.
fn least(board: &Board) -> Board {
    Symmetry::ALL
        .iter()
        .map(|&s| board.transformed(s))
        .min_by_key(|b| (b.player, b.opponent))
        .unwrap()
}

/// One step of CRC-32C without inversions, bit by bit.
fn crc32c_step(mut crc: u32, data: u64) -> u32 {
    for byte in data.to_le_bytes() {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82F6_3B78 & (crc & 1).wrapping_neg());
        }
    }
    crc
}

/// Edax 4.4's table of hash numbers: its 48-bit generator seeded with its multiplier, numbers
/// with fewer than 8 bits set drawn again.
fn table_of_edax_4_4() -> Vec<[u64; 256]> {
    let mut x: u64 = 0x5DEE_CE66D;
    let mut draw = || {
        x = (x.wrapping_mul(0x5DEE_CE66D).wrapping_add(11)) & 0xFFFF_FFFF_FFFF;
        let high = x >> 16;
        x = (x.wrapping_mul(0x5DEE_CE66D).wrapping_add(11)) & 0xFFFF_FFFF_FFFF;
        high << 32 | x >> 16
    };
    (0..16)
        .map(|_| {
            std::array::from_fn(|_| loop {
                let n = draw();
                if n.count_ones() >= 8 {
                    break n;
                }
            })
        })
        .collect()
}

/// The bucket of Edax's table that a release puts a board in, for a book of `count`.
fn bucket(release: u8, board: &Board, count: usize, table: &[[u64; 256]]) -> u64 {
    let mut buckets = 65_536u64;
    while buckets * 16 < count as u64 {
        buckets *= 2;
    }
    let hash = if release >= 5 {
        let high = crc32c_step(0, board.player);
        u64::from(high) << 32 | u64::from(crc32c_step(high, board.opponent))
    } else {
        let mut bytes = board.player.to_le_bytes().to_vec();
        bytes.extend_from_slice(&board.opponent.to_le_bytes());
        bytes
            .iter()
            .enumerate()
            .fold(0, |h, (i, &b)| h ^ table[i][usize::from(b)])
    };
    hash & (buckets - 1)
}

fn sq(name: &str) -> u8 {
    parse_square(name).unwrap()
}

fn after(board: &Board, square: u8) -> Board {
    board.play(usize::from(square)).unwrap()
}

#[test]
fn an_exported_book_has_edaxs_header_records_and_order() {
    let book = Book::builtin();
    let date = EdaxDate {
        year: 2026,
        month: 11,
        day: 28,
        hour: 9,
        minute: 5,
        second: 7,
    };
    let edax = EdaxBook::from_book(&book, date);
    let table = table_of_edax_4_4();
    for (release, release_byte) in [(EdaxRelease::V4_4, 4), (EdaxRelease::V4_6, 6)] {
        let (header, records) = read_layout(&edax.to_bytes(release));
        let deepest = book.entries().iter().map(|e| e.depth).max().unwrap();
        let fewest_empties = records.iter().map(|r| r.board.empty_count()).min().unwrap();
        assert_eq!(
            header,
            Header {
                magic: *b"XADEKOOB",
                version: 4,
                release: release_byte,
                date: (2026, [11, 28, 9, 5, 7, 0]),
                options: [i32::from(deepest), fewest_empties as i32, 2, 1, 0],
                count: records.len() as u32,
            }
        );
        // Every book position, and a position of its own before each forced pass.
        let boards: HashMap<Board, &Record> = records.iter().map(|r| (r.board, r)).collect();
        assert_eq!(boards.len(), records.len(), "no position twice");
        let must_pass = records.iter().filter(|r| r.board.moves() == 0).count();
        assert_eq!(records.len() - must_pass, book.len());
        for r in &records {
            assert_eq!(least(&r.board), r.board, "least symmetric form");
            let mut best = i16::from(r.leaf.0);
            for &(score, square) in &r.links {
                let child = if square == PASS {
                    assert_eq!(r.board.moves(), 0);
                    r.board.pass()
                } else {
                    after(&r.board, square)
                };
                let child = boards
                    .get(&least(&child))
                    .expect("a link reaches a position");
                assert_eq!(i16::from(score), -child.scores[0], "a link's score");
                best = best.max(i16::from(score));
            }
            assert_eq!(r.scores[0], best, "the value is the best move's");
            assert!(r.scores[1] <= r.scores[0] && r.scores[0] <= r.scores[2]);
            if r.board.moves() != 0 {
                let entry = book.get(&r.board).unwrap();
                assert_eq!(r.scores[0], i16::from(entry.value));
                assert_eq!(r.level, entry.depth);
                let linked = r.links.iter().fold(0u64, |m, l| m | 1 << l.1);
                assert_eq!(linked, book.moves_in_book(&r.board));
                if r.leaf.1 != NO_MOVE {
                    assert_eq!(r.leaf, (entry.exit_score, entry.exit_move));
                }
            }
        }
        // The order of Edax's buckets, computed here.
        let buckets: Vec<u64> = records
            .iter()
            .map(|r| bucket(release_byte, &r.board, records.len(), &table))
            .collect();
        assert!(buckets.windows(2).all(|w| w[0] <= w[1]), "bucket order");
        assert_eq!(edax.buckets(release).len(), records.len());
    }
}

/// A forced pass in a book: the position that must pass becomes an Edax position of its own,
/// linked by the move before it and linking to the position after the pass with a pass;
/// imported again, the book is the same.
#[test]
fn a_forced_pass_is_a_position_with_a_pass_link() {
    let (moves, must_pass) = crate::common::game_until_forced_pass();
    let before = moves[..moves.len() - 1]
        .iter()
        .fold(oxello::board::Position::START, |p, &m| p.play(m).unwrap());
    let oxello::board::Move::Play(last) = moves[moves.len() - 1] else {
        panic!("a game's last move before a pass is a move")
    };
    let passed = must_pass.board.pass();
    // Each position's exit: a move other than the one through the pass.
    let exit = |board: &Board, score: i8| BookEntry {
        board: *board,
        value: score,
        exit_move: Squares(board.moves())
            .find(|&s| *board != before.board || s != usize::from(last))
            .map_or(oxello::book::NO_EXIT, |s| s as u8),
        exit_score: score,
        depth: 16,
        exact: false,
        games: 1,
    };
    let book = Book::new([exit(&before.board, -20), exit(&passed, 7)]);
    // Through the pass, the mover keeps the move: the move before it is worth the passed
    // position's value to the side that played it.
    let through = book
        .moves(&before.board)
        .into_iter()
        .find(|m| m.square == last)
        .unwrap();
    assert_eq!(through.value, 7);
    let edax = EdaxBook::from_book(&book, EdaxDate::now());
    let (_, records) = read_layout(&edax.to_bytes(EdaxRelease::V4_6));
    assert_eq!(records.len(), 3);
    let pass_position = records
        .iter()
        .find(|r| r.board == least(&must_pass.board))
        .expect("the position that must pass");
    assert_eq!(pass_position.links, [(-7, PASS)]);
    assert_eq!(pass_position.leaf, (-127, NO_MOVE));
    assert_eq!(pass_position.scores[0], -7);
    let first = records
        .iter()
        .find(|r| r.board == least(&before.board))
        .unwrap();
    assert_eq!(first.scores[0], 7);
    assert!(first.links.iter().all(|l| l.0 == 7));
    let back = EdaxBook::from_bytes(&edax.to_bytes(EdaxRelease::V4_4))
        .unwrap()
        .to_book();
    assert_eq!(back.len(), 2);
    // Whether a search was exact is Edax's to say from its level and the empties (level 16
    // solves from 21 empties); the rest comes back as it was.
    let known = |b: &Book, board: &Board| {
        b.moves(board)
            .iter()
            .map(|m| (m.square, m.value, m.depth, m.leaves_book))
            .collect::<Vec<_>>()
    };
    for entry in book.entries() {
        let other = back.get(&entry.board).unwrap();
        assert_eq!(
            (other.value, other.exit_move),
            (entry.value, entry.exit_move)
        );
        assert_eq!(known(&back, &entry.board), known(&book, &entry.board));
    }
}

#[test]
fn a_book_exported_and_imported_keeps_its_positions_values_and_links() {
    let dir = scratch_dir("edax-round-trip");
    for release in ["4.4", "4.6"] {
        let out = oxello_in(
            &dir,
            &[
                "book",
                "export-edax",
                "--out",
                "built-in.dat",
                "--edax-release",
                release,
            ],
        );
        assert_prints(&out, "built-in.dat:");
        let out = oxello_in(
            &dir,
            &["book", "import-edax", "built-in.dat", "--out", "back.book"],
        );
        assert_prints(&out, "back.book:");
        let builtin = Book::builtin();
        let back = Book::read_file(&dir.join("back.book")).unwrap();
        assert_eq!(back.len(), builtin.len());
        for (a, b) in builtin.entries().iter().zip(back.entries()) {
            assert_eq!(a.board, b.board);
            assert_eq!(a.value, b.value);
            assert_eq!(
                builtin.moves_in_book(&a.board),
                back.moves_in_book(&b.board)
            );
            // An exit the book's own moves have overtaken is dropped; the others stay.
            let live_exit = a.exit_move != oxello::book::NO_EXIT
                && builtin.moves_in_book(&a.board) & 1 << a.exit_move == 0;
            if live_exit {
                assert_eq!((a.exit_move, a.exit_score), (b.exit_move, b.exit_score));
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A small Edax book laid out as Edax writes it, its values, bounds and counts worked out
/// here as Edax's negamax gives them: the start, every first move linked to the position
/// after f5 (worth -1 to White); there d6 linked to the position after f5 d6 (+1 to Black,
/// leaf c3) and the leaf f6 at -4. Midgame bounds at level 20 are the score -2 and +2, moved
/// by 1 where the empties are odd; a position's lines are its leaf's and its links'.
fn small_edax_book() -> Vec<Record> {
    small_edax_book_at(20)
}

/// The small book with its positions searched at `level` (even, so that the bounds stay).
fn small_edax_book_at(level: u8) -> Vec<Record> {
    let start = Board::START;
    let f5 = after(&start, sq("f5"));
    let f5d6 = after(&f5, sq("d6"));
    let (f5_least, f5d6_least) = (least(&f5), least(&f5d6));
    // The moves in the stored orientation.
    let oriented = |board: &Board, stored: &Board, square: u8| {
        Symmetry::ALL
            .iter()
            .find(|s| board.transformed(**s) == *stored)
            .unwrap()
            .apply_square(usize::from(square)) as u8
    };
    let start_links: Vec<(i8, u8)> = Squares(start.moves()).map(|s| (1, s as u8)).collect();
    let d6 = oriented(&f5, &f5_least, sq("d6"));
    vec![
        Record {
            board: least(&start),
            counts: [0, 0, 0, 8],
            scores: [1, -1, 3],
            level,
            links: start_links,
            leaf: (-127, NO_MOVE),
        },
        Record {
            board: f5_least,
            counts: [0, 0, 0, 2],
            scores: [-1, -3, 1],
            level,
            links: vec![(-1, d6)],
            leaf: (-4, oriented(&f5, &f5_least, sq("f6"))),
        },
        Record {
            board: f5d6_least,
            counts: [0, 0, 0, 1],
            scores: [1, -1, 3],
            level,
            links: Vec::new(),
            leaf: (1, oriented(&f5d6, &f5d6_least, sq("c3"))),
        },
    ]
}

#[test]
fn an_edax_book_imports_and_exports_back_as_edax_writes_it() {
    let dir = scratch_dir("edax-import");
    let records = small_edax_book();
    let bytes = write_layout(6, [20, 24, 2, 1, 0], &records);
    std::fs::write(dir.join("small.dat"), &bytes).unwrap();
    let out = oxello_in(
        &dir,
        &["book", "import-edax", "small.dat", "--out", "small.book"],
    );
    assert_prints(&out, "small.book: 3 positions from the Edax book's 3");
    let report = text(&out.stdout);
    for first in ["f5", "d3", "c4", "e6"] {
        assert!(
            report.contains(&format!("{first}       +1  depth 20")),
            "{report}"
        );
    }
    let book = Book::read_file(&dir.join("small.book")).unwrap();
    let f5 = after(&Board::START, sq("f5"));
    let values: Vec<(String, i32)> = book
        .moves(&f5)
        .iter()
        .map(|m| (oxello::notation::format_square(m.square), m.value))
        .collect();
    let expected = [("D6", -1), ("F6", -4)];
    assert_eq!(values, expected.map(|(s, v)| (s.to_string(), v)));
    // `book show` reads the Edax book itself.
    let out = oxello_in(&dir, &["book", "show", "f5", "--book", "small.dat"]);
    assert_prints(&out, "book: 3 positions");
    assert!(text(&out.stdout).contains("f6       -4  depth 20  leaves the book"));
    // Exported again, every field is as it was (the position after f5 d6 has Edax's
    // midgame bounds, the others those of their links); only the date differs.
    let edax = EdaxBook::from_book(&book, EdaxDate::now());
    let (header, exported) = read_layout(&edax.to_bytes(EdaxRelease::V4_6));
    assert_eq!(header.options, [20, 58, 2, 1, 0]);
    assert_same_records(exported, records);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_engine_plays_from_an_edax_book_in_both_protocols() {
    let dir = scratch_dir("edax-play");
    std::fs::write(
        dir.join("small.dat"),
        write_layout(4, [20, 24, 2, 1, 0], &small_edax_book()),
    )
    .unwrap();
    let book = dir.join("small.dat");
    let args = [
        "--threads",
        "1",
        "--depth",
        "2",
        "--book",
        book.to_str().unwrap(),
    ];
    let mut e = EngineProcess::start(&args);
    assert_eq!(e.gtp("play b f5"), ["= "]);
    let reply = e.gtp("genmove w");
    assert_eq!(reply, ["= D6"]);
    assert!(e.close(Duration::from_secs(5)).success());

    let mut e = EngineProcess::start(&args);
    e.send("nboard 2");
    e.send("set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *];)");
    e.send("move f5");
    e.send("hint 3");
    e.send("ping 1");
    let lines = e.until(Duration::from_secs(30), |l| l == "pong 1");
    assert_eq!(
        lines,
        [
            "set myname oxello",
            "book D6 -1.00 1 20",
            "book F6 -4.00 0 20",
            "pong 1"
        ]
    );
    e.send("quit");
    assert!(e.close(Duration::from_secs(5)).success());
    std::fs::remove_dir_all(&dir).ok();
}

/// Plays `moves` from the start in an NBoard session on the book at `path`, asks it to learn
/// the game and waits until it has.
fn learn_over_nboard(path: &Path, moves: &[&str]) {
    let mut e = EngineProcess::start(&["--threads", "1", "--book", path.to_str().unwrap()]);
    e.send("nboard 2");
    for mv in moves {
        e.send(&format!("move {mv}"));
    }
    e.send("learn");
    e.send("ping 1");
    let lines = e.until(Duration::from_secs(60), |l| l == "pong 1");
    assert_eq!(lines, ["set myname oxello", "learned", "pong 1"]);
    e.send("quit");
    assert!(e.close(Duration::from_secs(5)).success());
}

/// NBoard `learn` saves what it learns into an Edax book as an Edax book, of the release it
/// came as.
#[test]
fn nboard_learn_keeps_an_edax_book_in_edaxs_format() {
    let dir = scratch_dir("edax-learn");
    let path = dir.join("small.dat");
    std::fs::write(
        &path,
        write_layout(6, [4, 24, 2, 1, 0], &small_edax_book_at(4)),
    )
    .unwrap();
    learn_over_nboard(
        &path,
        &["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"],
    );
    let bytes = std::fs::read(&path).unwrap();
    let (header, records) = read_layout(&bytes);
    assert_eq!((header.magic, header.release), (*b"XADEKOOB", 6));
    let learned = EdaxBook::from_bytes(&bytes).unwrap().to_book();
    let mut position = oxello::board::Position::START;
    for mv in ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6"] {
        position = position.play(oxello::board::Move::Play(sq(mv))).unwrap();
        assert!(learned.contains(&position.board), "after {mv}");
    }
    assert_eq!(records.len(), learned.len());
    std::fs::remove_dir_all(&dir).ok();
}

/// Imports `bytes` as an Edax book and checks that it fails with `reason` and writes nothing.
fn assert_refused(dir: &Path, bytes: &[u8], reason: &str) {
    std::fs::write(dir.join("broken.dat"), bytes).unwrap();
    let out = oxello_in(
        dir,
        &["book", "import-edax", "broken.dat", "--out", "broken.book"],
    );
    assert_fails_with(&out, reason);
    assert!(!dir.join("broken.book").exists(), "no output for {reason}");
    assert!(!dir.join("broken.book.partial").exists());
    let out = oxello_in(dir, &["--book", "broken.dat"]);
    assert_fails_with(&out, reason);
}

#[test]
fn damaged_edax_books_are_refused_with_the_reason() {
    let dir = scratch_dir("edax-damaged");
    let records = small_edax_book();
    let good = write_layout(6, [20, 24, 2, 1, 0], &records);

    let mut wrong_magic = good.clone();
    wrong_magic[0..4].copy_from_slice(b"EDAX");
    assert_refused(&dir, &wrong_magic, "'XADEKOOB'");
    let mut wrong_version = good.clone();
    wrong_version[8] = 3;
    assert_refused(&dir, &wrong_version, "Edax book version 3 is not supported");

    assert_refused(&dir, &good[..30], "truncated: it ends inside the header");
    assert_refused(
        &dir,
        &good[..good.len() - 1],
        "truncated: it ends inside position 2",
    );
    let last_length = 40 + 2 * (records[2].links.len() + 1);
    assert_refused(
        &dir,
        &good[..good.len() - last_length],
        "header counts 3 positions, but it holds 2",
    );

    let mut illegal = records.clone();
    illegal[2].links.push((0, sq("a1")));
    assert_refused(
        &dir,
        &write_layout(6, [20, 24, 2, 1, 0], &illegal),
        "position 2 (",
    );
    assert_refused(
        &dir,
        &write_layout(6, [20, 24, 2, 1, 0], &illegal),
        "link a1 is not a legal move",
    );
    let mut missing = records.clone();
    missing.pop();
    assert_refused(
        &dir,
        &write_layout(6, [20, 24, 2, 1, 0], &missing),
        "leads to a position the book does not hold",
    );
    let mut not_least = records.clone();
    let stored = not_least[2].board;
    not_least[2].board = Symmetry::ALL
        .iter()
        .map(|&s| stored.transformed(s))
        .find(|b| *b != stored)
        .expect("a position after two moves has another symmetric form");
    assert_refused(
        &dir,
        &write_layout(6, [20, 24, 2, 1, 0], &not_least),
        "position 2 (",
    );
    assert_refused(
        &dir,
        &write_layout(6, [20, 24, 2, 1, 0], &not_least),
        "not in its least symmetric form",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The record of an Edax position, as the file lays it out.
fn record_of(p: &EdaxPosition) -> Record {
    Record {
        board: p.board,
        counts: [p.wins, p.draws, p.losses, p.lines],
        scores: [p.value, p.lower, p.upper],
        level: p.level,
        links: p.links.iter().map(|l| (l.score, l.square)).collect(),
        leaf: (p.leaf.score, p.leaf.square),
    }
}

/// A position with nothing negamaxed yet.
fn unscored(board: Board, level: u8, links: Vec<u8>, leaf: (i8, u8)) -> EdaxPosition {
    EdaxPosition {
        level,
        links: links
            .into_iter()
            .map(|square| EdaxLink { score: 0, square })
            .collect(),
        leaf: EdaxLink {
            score: leaf.0,
            square: leaf.1,
        },
        ..EdaxPosition::empty(board)
    }
}

/// Negamaxes positions as Edax does and lays them out in the order of Edax 4.6's buckets, the
/// positions that share a bucket in the order `within` gives (not the boards' order).
fn edax_file(
    positions: Vec<EdaxPosition>,
    options: [i32; 5],
    within: impl Fn(&Board) -> u64,
) -> (Vec<u8>, Vec<Record>) {
    let mut edax = EdaxBook {
        release: 6,
        date: EdaxDate::now(),
        options: EdaxOptions {
            level: options[0],
            n_empties: options[1],
            midgame_error: options[2],
            endcut_error: options[3],
            verbosity: options[4],
        },
        positions,
    };
    edax.negamax();
    let table = table_of_edax_4_4();
    let count = edax.positions.len();
    let mut records: Vec<Record> = edax.positions.iter().map(record_of).collect();
    records.sort_by_key(|r| (bucket(6, &r.board, count, &table), within(&r.board)));
    (write_layout(6, options, &records), records)
}

/// Every position within `plies` moves of the start, in least symmetric form: those short of
/// `plies` link every move (links in an order of their own, neither the squares' nor the
/// scores'), the others have a leaf whose score depends on the board.
fn tree_book(plies: u32, level: u8) -> Vec<EdaxPosition> {
    let mut layer = vec![least(&Board::START)];
    let mut positions = Vec::new();
    let mut seen: HashMap<Board, ()> = HashMap::new();
    for ply in 0..=plies {
        let mut next = Vec::new();
        for board in layer {
            let moves: Vec<u8> = Squares(board.moves()).map(|s| s as u8).collect();
            if ply < plies {
                let mut links = moves.clone();
                links.rotate_left(moves.len() / 2);
                for &square in &links {
                    let child = least(&after(&board, square));
                    if seen.insert(child, ()).is_none() {
                        next.push(child);
                    }
                }
                positions.push(unscored(board, level, links, (-127, NO_MOVE)));
            } else {
                let score = (board.player.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60) as i8 - 8;
                positions.push(unscored(board, level, Vec::new(), (score, moves[0])));
            }
        }
        layer = next;
    }
    positions
}

/// A position that must pass whose leaf is the pass, a solved draw (the position after the
/// pass not in the book), comes through import and export whole: oxello's book holds the
/// position after the pass, worth the draw, so the move before it is worth 0 in play.
#[test]
fn a_must_pass_position_with_a_pass_leaf_survives_import_and_export() {
    let dir = scratch_dir("edax-pass-leaf");
    let (moves, must_pass) = crate::common::game_until_forced_pass();
    let before = moves[..moves.len() - 1]
        .iter()
        .fold(oxello::board::Position::START, |p, &m| p.play(m).unwrap());
    let oxello::board::Move::Play(last) = moves[moves.len() - 1] else {
        panic!("a game's last move before a pass is a move")
    };
    let parent = least(&before.board);
    let into_pass = Squares(parent.moves())
        .map(|s| s as u8)
        .find(|&s| least(&after(&parent, s)) == least(&must_pass.board))
        .expect("the move before the pass, in the stored orientation");
    assert_eq!(least(&after(&before.board, last)), least(&must_pass.board));
    let other = Squares(parent.moves())
        .map(|s| s as u8)
        .find(|&s| s != into_pass)
        .expect("the position before has another move");
    let positions = vec![
        unscored(parent, 60, vec![into_pass], (-3, other)),
        unscored(least(&must_pass.board), 60, Vec::new(), (0, PASS)),
    ];
    let (bytes, records) = edax_file(positions, [60, 30, 2, 1, 0], |b| b.player);
    let pass_record = records.iter().find(|r| r.leaf.1 == PASS).unwrap();
    assert_eq!(
        (pass_record.counts, pass_record.scores),
        ([0, 1, 0, 1], [0, 0, 0])
    );
    std::fs::write(dir.join("pass.dat"), &bytes).unwrap();

    // In play: the move into the pass is worth the draw, better than the other move.
    let out = oxello_in(
        &dir,
        &["book", "import-edax", "pass.dat", "--out", "pass.book"],
    );
    assert_prints(&out, "pass.book: 2 positions from the Edax book's 2");
    let book = Book::read_file(&dir.join("pass.book")).unwrap();
    let values: Vec<(u8, i32, bool)> = book
        .moves(&parent)
        .iter()
        .map(|m| (m.square, m.value, m.leaves_book))
        .collect();
    assert_eq!(values, [(into_pass, 0, false), (other, -3, true)]);
    let after_pass = book
        .get(&must_pass.board.pass())
        .expect("the position after the pass");
    assert_eq!((after_pass.value, after_pass.exact), (0, true));

    // Back to Edax: from the Edax book, its own bytes; from the oxello book, the same
    // positions, counts, values and links.
    let out = oxello_in(
        &dir,
        &["book", "export-edax", "pass.dat", "--out", "again.dat"],
    );
    assert_prints(
        &out,
        "again.dat: 2 positions as Edax 4.6 writes them (1 of them positions that must pass)",
    );
    assert_eq!(std::fs::read(dir.join("again.dat")).unwrap(), bytes);
    let out = oxello_in(
        &dir,
        &["book", "export-edax", "pass.book", "--out", "back.dat"],
    );
    assert_prints(&out, "back.dat: 2 positions");
    let (_, back) = read_layout(&std::fs::read(dir.join("back.dat")).unwrap());
    assert_same_records(back, records);
    std::fs::remove_dir_all(&dir).ok();
}

/// An Edax book read and written back without a change is Edax's own bytes: the header's
/// date and options, the positions in Edax's buckets and in their order within a bucket, the
/// links in their order, Edax's "unknown" link score (-127) as it is. In the other release's
/// layout it holds the same positions in that release's order.
#[test]
fn an_unchanged_edax_book_is_written_back_byte_for_byte() {
    let dir = scratch_dir("edax-pass-through");
    let mut positions = tree_book(6, 12);
    // A link to a position that knows nothing (no leaf, no links) scores 127: Edax's unknown.
    let unknown = positions.iter().position(|p| p.links.is_empty()).unwrap();
    positions[unknown].leaf = EdaxLink {
        score: -127,
        square: NO_MOVE,
    };
    let reverse_board = |b: &Board| u64::MAX - b.player;
    let (bytes, records) = edax_file(positions, [12, 40, 3, 2, 1], reverse_board);
    let table = table_of_edax_4_4();
    let buckets: Vec<u64> = records
        .iter()
        .map(|r| bucket(6, &r.board, records.len(), &table))
        .collect();
    let shared = buckets.windows(2).filter(|w| w[0] == w[1]).count();
    assert!(shared > 0, "positions that share a bucket");
    assert!(records.iter().any(|r| r.links.iter().any(|l| l.0 == 127)));
    std::fs::write(dir.join("tree.dat"), &bytes).unwrap();
    let out = oxello_in(
        &dir,
        &["book", "export-edax", "tree.dat", "--out", "same.dat"],
    );
    assert_prints(
        &out,
        &format!("same.dat: {} positions as Edax 4.6", records.len()),
    );
    assert!(
        std::fs::read(dir.join("same.dat")).unwrap() == bytes,
        "byte for byte"
    );

    let out = oxello_in(
        &dir,
        &[
            "book",
            "export-edax",
            "tree.dat",
            "--out",
            "old.dat",
            "--edax-release",
            "4.4",
        ],
    );
    assert_prints(&out, "as Edax 4.4 writes them");
    let (header, old) = read_layout(&std::fs::read(dir.join("old.dat")).unwrap());
    assert_eq!(
        (header.release, header.options, header.date.0),
        (4, [12, 40, 3, 2, 1], 2025)
    );
    let old_buckets: Vec<u64> = old
        .iter()
        .map(|r| bucket(4, &r.board, old.len(), &table))
        .collect();
    assert!(
        old_buckets.windows(2).all(|w| w[0] <= w[1]),
        "Edax 4.4's order"
    );
    assert_same_records(old, records);
    std::fs::remove_dir_all(&dir).ok();
}

/// A position that comes twice is skipped as Edax skips it (the first stays); bytes after
/// the last position that do not make a position are refused.
#[test]
fn a_repeated_position_is_skipped_and_trailing_bytes_refused() {
    let dir = scratch_dir("edax-repeats");
    let mut records = small_edax_book();
    let mut repeat = records[2].clone();
    repeat.scores = [9, 9, 9];
    records.push(repeat);
    let bytes = write_layout(6, [20, 24, 2, 1, 0], &records);
    std::fs::write(dir.join("twice.dat"), &bytes).unwrap();
    let out = oxello_in(
        &dir,
        &["book", "import-edax", "twice.dat", "--out", "twice.book"],
    );
    assert_prints(&out, "twice.book: 3 positions from the Edax book's 3");
    assert!(
        text(&out.stderr).contains("position 3 (")
            && text(&out.stderr).contains("repeats position 2"),
        "{}",
        text(&out.stderr)
    );
    let out = oxello_in(
        &dir,
        &["book", "export-edax", "twice.dat", "--out", "once.dat"],
    );
    assert_prints(&out, "once.dat: 3 positions");
    let (header, once) = read_layout(&std::fs::read(dir.join("once.dat")).unwrap());
    assert_eq!(header.count, 3);
    assert!(once.contains(&records[2]) && !once.contains(&records[3]));

    let mut trailing = write_layout(6, [20, 24, 2, 1, 0], &small_edax_book());
    trailing.extend_from_slice(&[0, 1, 2, 3, 4]);
    assert_refused(&dir, &trailing, "truncated: it ends inside position 3");
    std::fs::remove_dir_all(&dir).ok();
}

/// The board of a damaged position is named as a board string that reads back.
#[test]
fn a_damaged_positions_board_reads_back() {
    let records = small_edax_book();
    let mut illegal = records.clone();
    illegal[1].links.push((0, sq("a1")));
    let error = EdaxBook::from_bytes(&write_layout(6, [20, 24, 2, 1, 0], &illegal))
        .unwrap_err()
        .to_string();
    let board = error
        .split_once("position 1 (")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(board, _)| board)
        .unwrap_or_else(|| panic!("{error}"));
    let position = oxello::notation::parse_position(board).unwrap();
    assert_eq!(least(&position.board), records[1].board);
    assert_eq!(position.side_to_move, oxello::board::Color::White);
}

/// NBoard `learn` on an Edax book updates it in place: the game's new positions join it,
/// those it went through get their links, and every other position (neither on the game's
/// line nor reaching one of its positions) stays byte for byte, as do the header's options.
#[test]
fn nboard_learn_updates_an_edax_book_in_place() {
    let dir = scratch_dir("edax-learn-in-place");
    let path = dir.join("tree.dat");
    let line = ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"];
    let mut on_line = vec![least(&Board::START)];
    let mut board = Board::START;
    for mv in line {
        board = after(&board, sq(mv));
        on_line.push(least(&board));
    }
    let mut positions = tree_book(4, 4);
    // Off the line, a position that knows nothing: the link to it scores Edax's 127.
    let unknown = positions
        .iter()
        .rposition(|p| p.links.is_empty() && !on_line.contains(&p.board))
        .unwrap();
    positions[unknown].leaf = EdaxLink {
        score: -127,
        square: NO_MOVE,
    };
    let (bytes, records) = edax_file(positions, [4, 24, 2, 1, 0], |b| b.player);
    assert!(records.iter().any(|r| r.links.iter().any(|l| l.0 == 127)));
    std::fs::write(&path, &bytes).unwrap();
    learn_over_nboard(&path, &line);

    let learned_bytes = std::fs::read(&path).unwrap();
    let (header, learned) = read_layout(&learned_bytes);
    assert_eq!((header.release, header.options), (6, [4, 24, 2, 1, 0]));
    assert_ne!(header.date.0, 2025, "a changed book is dated anew");
    let by_board: HashMap<Board, &Record> = learned.iter().map(|r| (r.board, r)).collect();
    for board in &on_line[..on_line.len() - 1] {
        assert!(
            by_board.contains_key(board),
            "the game's positions are in the book"
        );
    }
    // The positions that reach the line, through links of the learned book.
    let mut reaching: std::collections::HashSet<Board> = on_line.iter().copied().collect();
    loop {
        let before = reaching.len();
        for r in &learned {
            if r.links
                .iter()
                .any(|&(_, s)| reaching.contains(&least(&after(&r.board, s))))
            {
                reaching.insert(r.board);
            }
        }
        if reaching.len() == before {
            break;
        }
    }
    let mut kept = 0;
    for old in &records {
        let new = by_board.get(&old.board).expect("no position is lost");
        if reaching.contains(&old.board) {
            assert_eq!(
                new.links[..old.links.len()]
                    .iter()
                    .map(|l| l.1)
                    .collect::<Vec<_>>(),
                old.links.iter().map(|l| l.1).collect::<Vec<_>>(),
                "links kept in order"
            );
        } else {
            assert_eq!(*new, old, "a position off the line is kept");
            kept += 1;
        }
    }
    assert!(
        kept * 2 > records.len(),
        "{kept} of {} positions off the line",
        records.len()
    );
    assert!(learned.len() > records.len());
    // Written in Edax's order and read back whole.
    let count = learned.len();
    let table = table_of_edax_4_4();
    let buckets: Vec<u64> = learned
        .iter()
        .map(|r| bucket(6, &r.board, count, &table))
        .collect();
    assert!(buckets.windows(2).all(|w| w[0] <= w[1]));
    EdaxBook::from_bytes(&learned_bytes).unwrap();
    std::fs::remove_dir_all(&dir).ok();
}

/// `book extend` on an Edax book keeps it an Edax book, with its options, and loses none of
/// its positions.
#[test]
fn extending_an_edax_book_keeps_it_edaxs() {
    let dir = scratch_dir("edax-extend");
    let (bytes, records) = edax_file(tree_book(3, 3), [3, 20, 2, 1, 0], |b| b.player);
    std::fs::write(dir.join("tree.dat"), &bytes).unwrap();
    let out = oxello_in(
        &dir,
        &[
            "--threads",
            "1",
            "book",
            "extend",
            "tree.dat",
            "--lines",
            "2",
            "--plies",
            "8",
            "--depth",
            "2",
        ],
    );
    assert_prints(&out, "added by 2 lines");
    let extended = std::fs::read(dir.join("tree.dat")).unwrap();
    let (header, learned) = read_layout(&extended);
    assert_eq!(
        (header.magic, header.options),
        (*b"XADEKOOB", [3, 20, 2, 1, 0])
    );
    assert!(learned.len() > records.len());
    for old in &records {
        assert!(learned.iter().any(|r| r.board == old.board));
    }
    EdaxBook::from_bytes(&extended).unwrap();
    std::fs::remove_dir_all(&dir).ok();
}
