//! Growing a book by search: the search of a position's exit that every book tool uses, and
//! the learning of a played game (NBoard `learn`), whose positions up to a ply limit join the
//! book with their exits searched.

use super::entries::{is_book_position, Book, BookEntry, NO_EXIT};
use crate::board::{Board, Color, Position};
use crate::search::{level_depth, Limits, Proof, SearchOptions, SearchResult};
use std::sync::atomic::{AtomicBool, Ordering};

/// A learned game's positions join the book up to this many moves from the start.
pub const LEARN_PLIES: u32 = 30;

/// The depth of learning's searches in a book that has no start position to tell its own.
pub const DEFAULT_LEARN_DEPTH: u32 = 14;

/// What book learning searches with: a search of any position to limits, until they are
/// reached or `stop` is raised (whatever else would stop the searcher's own searches), sharing
/// what it learns between searches. The engine is one.
pub trait ExitSearcher {
    fn search_until(
        &mut self,
        position: &Position,
        limits: &Limits,
        options: SearchOptions,
        stop: &AtomicBool,
    ) -> SearchResult;
}

/// Searches `board`'s best move among those not in `staying` (the moves that reach book
/// positions) to `limits`, or until `stop` is raised (the entry is then worthless), and
/// returns the position's book entry: that move and its score, or no exit when every legal
/// move stays in the book. `depth` is the midgame depth recorded. The entry's value is the
/// exit's until negamaxed.
pub fn search_exit(
    engine: &mut impl ExitSearcher,
    board: &Board,
    staying: u64,
    games: u32,
    depth: u32,
    limits: &Limits,
    stop: &AtomicBool,
) -> BookEntry {
    let exits = board.moves() & !staying;
    let depth = depth.min(60) as u8;
    if exits == 0 {
        return BookEntry {
            board: *board,
            value: 0,
            exit_move: NO_EXIT,
            exit_score: 0,
            depth,
            exact: false,
            games,
        };
    }
    let position = Position {
        board: *board,
        side_to_move: Color::Black,
    };
    let options = SearchOptions {
        root_moves: exits,
        answer_forced_at_once: false,
        ..SearchOptions::for_data()
    };
    let result = engine.search_until(&position, limits, options, stop);
    let score = result.score.clamp(-64, 64) as i8;
    BookEntry {
        board: *board,
        value: score,
        exit_move: result.best_move.unwrap_or(NO_EXIT),
        exit_score: score,
        depth,
        exact: result.proof == Proof::Exact,
        games,
    }
}

/// What learning a game changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Learned {
    /// The game's positions that joined the book.
    pub added: usize,
    /// Book positions whose exit was the game's move, searched again for the next best.
    pub researched: usize,
    /// Whether every search was done (false: `stop` cut learning short).
    pub complete: bool,
}

/// The depth a book's searches went to: its start position's, or [`DEFAULT_LEARN_DEPTH`].
pub fn learning_depth(book: &Book) -> u32 {
    book.get(&Board::START)
        .map_or(DEFAULT_LEARN_DEPTH, |start| u32::from(start.depth))
}

/// Learns a game, given as its consecutive `positions`: every position within `plies` moves
/// of the start where the side to move has a move joins the book, its exit searched at
/// `depth` (solved within `depth + 4` empties, as the engine's levels do), deepest first so
/// that each exit leaves the book; a book position whose exit was the game's move has its
/// next best exit searched; the game counts once more in the positions it went through; and
/// the values are negamaxed. Learning a game twice adds nothing the second time. When `stop`
/// is raised, the search it cuts is dropped and the book keeps what was learned before.
pub fn learn_game(
    book: &mut Book,
    engine: &mut impl ExitSearcher,
    positions: &[Position],
    plies: u32,
    depth: u32,
    stop: &AtomicBool,
) -> Learned {
    let limits = |board: &Board| Limits {
        depth: level_depth(depth, board.empty_count()),
        ..Limits::default()
    };
    let line: Vec<Board> = positions
        .iter()
        .map(|p| p.board)
        .filter(|b| is_book_position(b) && b.empty_count() + plies >= 60)
        .collect();
    let (known, new): (Vec<Board>, Vec<Board>) = line.iter().partition(|b| book.contains(b));
    let stopped = || stop.load(Ordering::Relaxed);
    let mut added = 0;
    for board in new.iter().rev() {
        let staying = book.moves_in_book(board);
        let entry = search_exit(engine, board, staying, 1, depth, &limits(board), stop);
        if stopped() {
            break;
        }
        book.insert(entry);
        added += 1;
    }
    let mut researched = 0;
    // The positions the book knew, once every new one is in.
    let known = if added == new.len() { &known[..] } else { &[] };
    for board in known {
        let entry = *book.get(board).expect("a known position stays in the book");
        let staying = book.moves_in_book(&entry.board);
        if entry.exit_move != NO_EXIT && staying & 1 << entry.exit_move != 0 {
            let games = entry.games;
            let entry = search_exit(engine, board, staying, games, depth, &limits(board), stop);
            if stopped() {
                break;
            }
            book.insert(entry);
            researched += 1;
        }
        let entry = *book.get(board).expect("a known position stays in the book");
        book.insert(BookEntry {
            games: entry.games.saturating_add(1),
            ..entry
        });
    }
    book.negamax();
    Learned {
        added,
        researched,
        complete: !stopped(),
    }
}
