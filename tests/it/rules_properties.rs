//! Property tests: on random reachable positions the bitboard rules equal the mailbox reference,
//! symmetries preserve legality, every text format and the book file round-trip, and random
//! book records are refused without a panic.

use crate::common::{playout, Mailbox};
use oxello::board::{
    flips_portable, legal_moves_portable, Board, Color, Move, Position, Squares, Symmetry,
};
use oxello::notation::{
    format_clock, format_move, format_position, format_transcript, parse_clock, parse_move,
    parse_position, parse_transcript, read_wthor_file, write_wthor, Clock, GgfGame, GgfMove,
    ObfEntry, WthorFile, WthorGame, WthorHeader,
};
use proptest::prelude::*;

fn reachable_board() -> impl Strategy<Value = Board> {
    prop::collection::vec(any::<u8>(), 0..64).prop_map(|choices| playout(&choices))
}

/// A game from the start: the moves made (passes explicit, never last) and the final position.
fn game() -> impl Strategy<Value = (Vec<Move>, Position)> {
    prop::collection::vec(any::<u8>(), 0..64).prop_map(|choices| {
        let mut position = Position::START;
        let mut moves = Vec::new();
        for choice in choices {
            if position.board.is_game_over() {
                break;
            }
            if position.board.must_pass() {
                position = position.play(Move::Pass).unwrap();
                moves.push(Move::Pass);
            }
            let legal = position.board.moves();
            let sq = Squares(legal).nth(usize::from(choice) % legal.count_ones() as usize);
            let mv = Move::Play(sq.unwrap() as u8);
            position = position.play(mv).unwrap();
            moves.push(mv);
        }
        (moves, position)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn moves_and_flips_equal_the_reference(board in reachable_board()) {
        let mailbox = Mailbox::from_board(&board);
        prop_assert_eq!(board.moves(), mailbox.moves());
        prop_assert_eq!(legal_moves_portable(board.player, board.opponent), mailbox.moves());
        for sq in 0..64 {
            if board.empties() >> sq & 1 == 1 {
                prop_assert_eq!(board.flips(sq), mailbox.flips(sq), "square {}", sq);
                prop_assert_eq!(flips_portable(sq, board.player, board.opponent), mailbox.flips(sq));
            }
        }
    }

    #[test]
    fn symmetries_map_legal_moves_to_legal_moves(board in reachable_board()) {
        for symmetry in Symmetry::ALL {
            let image = board.transformed(symmetry);
            prop_assert_eq!(image.moves(), symmetry.apply(board.moves()));
            prop_assert_eq!(image.transformed(symmetry.inverse()), board);
            for sq in Squares(board.moves()) {
                prop_assert_eq!(
                    image.flips(symmetry.apply_square(sq)),
                    symmetry.apply(board.flips(sq))
                );
            }
        }
    }

    #[test]
    fn board_strings_round_trip(board in reachable_board(), white in any::<bool>()) {
        let side = if white { Color::White } else { Color::Black };
        let position = Position { board, side_to_move: side };
        let text = format_position(&position);
        prop_assert_eq!(parse_position(&text).unwrap(), position);
        prop_assert_eq!(parse_position(&text.to_lowercase()).unwrap(), position);
    }

    #[test]
    fn transcripts_round_trip((moves, end) in game()) {
        let text = format_transcript(&moves);
        let (parsed, position) = parse_transcript(&text, &Position::START).unwrap();
        prop_assert_eq!(position, end);
        prop_assert_eq!(parsed, moves);
        let upper = text.to_uppercase();
        prop_assert_eq!(parse_transcript(&upper, &Position::START).unwrap().1, position);
    }

    #[test]
    fn moves_round_trip(sq in 0u8..64) {
        prop_assert_eq!(parse_move(&format_move(Move::Play(sq))).unwrap(), Move::Play(sq));
        prop_assert_eq!(parse_move(&format_move(Move::Pass)).unwrap(), Move::Pass);
    }

    #[test]
    fn obf_lines_round_trip(board in reachable_board(), scores in prop::collection::vec(-64i32..=64, 0..10)) {
        let entry = ObfEntry {
            position: Position { board, side_to_move: Color::Black },
            move_scores: Squares(board.moves()).zip(scores).map(|(sq, s)| (Move::Play(sq as u8), s)).collect(),
        };
        prop_assert_eq!(ObfEntry::parse(&entry.to_string()).unwrap(), Some(entry));
    }

    #[test]
    fn ggf_games_round_trip((moves, _) in game(), times in prop::collection::vec(0u32..100_000, 64)) {
        let mut game = GgfGame::new(Position::START);
        game.tags.push(("PC".into(), "test".into()));
        game.tags.push(("TI".into(), "15:00".into()));
        let mut color = Color::Black;
        for (i, mv) in moves.iter().enumerate() {
            let seconds = (i % 3 != 0).then(|| f64::from(times[i % times.len()]) / 1000.0);
            let eval = (i % 2 == 0).then(|| f64::from(times[i % times.len()] % 129) - 64.0);
            game.moves.push(GgfMove { color, mv: *mv, eval, seconds });
            color = color.other();
        }
        prop_assert_eq!(GgfGame::parse(&game.to_string()).unwrap(), game);
    }

    #[test]
    fn clocks_round_trip(main in 0u32..400_000, inc in 0u32..100, grace in 0u32..1000, tenths in 0u32..10) {
        let clock = Clock {
            main: f64::from(main) + f64::from(tenths) / 10.0,
            increment: f64::from(inc),
            grace: f64::from(grace),
        };
        prop_assert_eq!(parse_clock(&format_clock(&clock)).unwrap(), clock);
    }

    #[test]
    fn wthor_files_round_trip(games in prop::collection::vec(game(), 0..5), ids in any::<[u16; 3]>()) {
        let file = WthorFile {
            header: WthorHeader { created: [20, 26, 11, 22], game_year: 2026, theoretical_depth: 22 },
            games: games
                .iter()
                .map(|(moves, end)| WthorGame {
                    tournament: ids[0],
                    black_player: ids[1],
                    white_player: ids[2],
                    black_discs: end.black_final_discs() as u8,
                    theoretical_black_discs: end.black_final_discs() as u8,
                    squares: moves.iter().filter_map(|m| match m { Move::Play(sq) => Some(*sq), Move::Pass => None }).collect(),
                })
                .collect(),
        };
        let back = read_wthor_file(&write_wthor(&file)).unwrap();
        prop_assert_eq!(&back, &file);
        for (game, (_, end)) in back.games.iter().zip(&games) {
            prop_assert_eq!(game.replay().unwrap().1, *end);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Discs found stable stay with their owner through random continuations to the end.
    #[test]
    fn stable_discs_never_flip(board in reachable_board(), continuations in prop::collection::vec(prop::collection::vec(any::<u8>(), 60), 4)) {
        let stable = board.stable_player_discs();
        let opponent_stable = board.stable_opponent_discs();
        prop_assert_eq!(stable & !board.player, 0);
        prop_assert_eq!(opponent_stable & !board.opponent, 0);
        for choices in continuations {
            // Follow the discs by colour: `mine` are the discs of the side to move at the start.
            let (mut mine, mut theirs, mut my_turn) = (board.player, board.opponent, true);
            for choice in choices {
                let current = if my_turn { Board::new(mine, theirs) } else { Board::new(theirs, mine) };
                let moves = current.moves();
                if moves == 0 {
                    if current.opponent_moves() == 0 {
                        break;
                    }
                    my_turn = !my_turn;
                    continue;
                }
                let sq = Squares(moves).nth(usize::from(choice) % moves.count_ones() as usize).unwrap();
                let next = current.play(sq).unwrap();
                (mine, theirs) = if my_turn { (next.opponent, next.player) } else { (next.player, next.opponent) };
                my_turn = !my_turn;
                prop_assert_eq!(stable & !mine, 0, "a stable disc of the side to move flipped");
                prop_assert_eq!(opponent_stable & !theirs, 0, "a stable disc of the other side flipped");
            }
        }
    }
}

/// A book entry for `board` (a position whose side to move has a move), its exit one of the
/// legal moves or none, as `choice` picks.
fn book_entry(
    board: Board,
    choice: u8,
    value: i8,
    depth: u8,
    games: u32,
) -> oxello::book::BookEntry {
    let legal = board.moves();
    let pick = usize::from(choice) % (legal.count_ones() as usize + 1);
    let exit_move = Squares(legal)
        .nth(pick)
        .map_or(oxello::book::NO_EXIT, |sq| sq as u8);
    oxello::book::BookEntry {
        board,
        value: value.clamp(-64, 64),
        exit_move,
        exit_score: value.clamp(-64, 64),
        depth: depth % 61,
        exact: depth > 60,
        games,
    }
}

/// Book bytes with `records` after a valid header, sealed with their right checksum.
fn sealed_book_bytes(records: &[u8]) -> Vec<u8> {
    let mut bytes = b"oxello-book\n".to_vec();
    bytes.extend_from_slice(&1u32.to_le_bytes());
    bytes.extend_from_slice(&((records.len() / 24) as u64).to_le_bytes());
    bytes.extend_from_slice(&records[..records.len() / 24 * 24]);
    let checksum = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&checksum.to_le_bytes());
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Books of random positions round-trip through the file format, whatever orientation
    /// the positions came in.
    #[test]
    fn books_round_trip(entries in prop::collection::vec((reachable_board(), any::<u8>(), any::<i8>(), any::<u8>(), any::<u32>()), 0..40)) {
        let book = oxello::book::Book::new(
            entries
                .into_iter()
                .filter(|(board, ..)| board.moves() != 0)
                .map(|(board, choice, value, depth, games)| book_entry(board, choice, value, depth, games)),
        );
        let bytes = book.to_bytes();
        prop_assert_eq!(oxello::book::Book::from_bytes(&bytes), Ok(book));
    }

    /// Any records, even with a right checksum, are read or refused without a panic, and a
    /// book that is read answers every lookup.
    #[test]
    fn sealed_random_records_never_panic(records in prop::collection::vec(any::<u8>(), 0..24 * 8)) {
        if let Ok(book) = oxello::book::Book::from_bytes(&sealed_book_bytes(&records)) {
            for entry in book.entries() {
                let moves = book.moves(&entry.board);
                prop_assert!(moves.iter().all(|m| entry.board.moves() >> m.square & 1 == 1));
            }
            prop_assert_eq!(oxello::book::Book::from_bytes(&book.to_bytes()), Ok(book));
        }
    }
}
