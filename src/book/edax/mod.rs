//! Edax's opening book file (`book.dat`), read and written as Edax 4.4 and 4.6 do, and its
//! conversion to and from oxello's [`Book`](crate::book::Book).
//!
//! The file, all numbers little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 4 + 4 | `EDAX` and `BOOK` as 32-bit numbers (the bytes `XADE` `KOOB`) |
//! | 1 + 1 | version 4, release (4 for Edax 4.4, 6 for 4.6) |
//! | 8 | date: year i16, month, day, hour, minute, second, one byte of padding |
//! | 20 | options, i32 each: level, n_empties, midgame_error, endcut_error, verbosity |
//! | 4 | number of positions, u32 |
//! | 40 + 2 (links + 1) each | player u64, opponent u64, wins, draws, losses, lines u32, value, lower, upper i16, link count u8, level u8, then a (score i8, square u8) pair per link and one for the leaf |
//!
//! Boards are the side to move's view in their least symmetric form (the same form as
//! [`Board::canonical`]); squares run a1 = 0 to h8 = 63, 64 is a pass and 65 no move. Edax
//! writes the positions bucket by bucket of its hash table: 65,536 buckets, doubled while 16
//! positions a bucket would not hold them all, each position in the bucket of its hash code
//! (Edax 4.4: a table of random numbers per byte of the board; 4.5 and later: CRC-32C of its two
//! bitboards), in the order they joined the bucket. Edax reads the positions in any order.
//!
//! Edax keeps every move that leads to another book position as a *link* with its score, and
//! the best other move as the *leaf*; oxello's book keeps only the leaf (its *exit*) and finds
//! the links by looking the positions up. A position whose side to move must pass is an Edax
//! position of its own, with one link, the pass; oxello looks such positions up after the pass.
//!
//! The rooms: `file` reads and writes the bytes (header, positions, Edax's bucket order, with
//! `hash` the two releases' hash codes), `checks` holds a read book to Edax's rules, `convert`
//! turns it into oxello's book and back (with Edax's negamax, and `level` its table of search
//! levels), and `date` the header's date.

mod checks;
mod convert;
mod date;
mod file;
mod hash;
mod level;

pub use date::EdaxDate;
pub use file::is_edax_book;

use crate::board::{Board, Color, Position};
use crate::notation::format_position;
use std::collections::HashMap;

/// Edax's square number of a pass.
pub const PASS: u8 = 64;
/// Edax's square number of no move: a leaf not searched yet (oxello's book calls a position
/// without an exit [`NO_EXIT`](crate::book::NO_EXIT)).
pub const NO_MOVE: u8 = 65;
/// Edax's infinite score: the value of a position with neither links nor leaf, the score of
/// no leaf.
const SCORE_INF: i16 = 127;

/// The Edax release whose file to write: it sets the release byte and the order of the
/// positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdaxRelease {
    /// Edax 4.4: positions in the order of its table hash.
    V4_4,
    /// Edax 4.6 (and 4.5): positions in the order of the CRC-32C hash.
    V4_6,
}

impl std::str::FromStr for EdaxRelease {
    type Err = String;

    fn from_str(text: &str) -> Result<EdaxRelease, String> {
        match text {
            "4.4" => Ok(EdaxRelease::V4_4),
            "4.6" => Ok(EdaxRelease::V4_6),
            other => Err(format!("unknown Edax release '{other}' (4.4 or 4.6)")),
        }
    }
}

impl EdaxRelease {
    fn release_byte(self) -> u8 {
        match self {
            EdaxRelease::V4_4 => 4,
            EdaxRelease::V4_6 => 6,
        }
    }

    /// The release a file's release byte names: 4.4 before 4.5, the CRC-32C order after.
    pub fn of_byte(release: u8) -> EdaxRelease {
        if release < 5 {
            EdaxRelease::V4_4
        } else {
            EdaxRelease::V4_6
        }
    }

    /// The hash code Edax of this release gives a board.
    fn hash(self, board: &Board) -> u64 {
        match self {
            EdaxRelease::V4_4 => hash::table_hash(board),
            EdaxRelease::V4_6 => hash::crc_hash(board),
        }
    }
}

/// The settings Edax keeps with a book: the search level of new positions, the fewest
/// empties it adds positions at, and the error margins of its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdaxOptions {
    pub level: i32,
    pub n_empties: i32,
    pub midgame_error: i32,
    pub endcut_error: i32,
    pub verbosity: i32,
}

/// A move of an Edax position with its score for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdaxLink {
    pub score: i8,
    /// A square, [`PASS`] or [`NO_MOVE`].
    pub square: u8,
}

impl EdaxLink {
    /// The leaf of a position without one.
    const NONE: EdaxLink = EdaxLink {
        score: -(SCORE_INF as i8),
        square: NO_MOVE,
    };
}

/// One position of an Edax book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdaxPosition {
    pub board: Board,
    /// Edax's counts of the solved lines through the position that it wins, draws and loses,
    /// and of all the lines through it.
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub lines: u32,
    /// The value for the side to move and its bounds, in discs.
    pub value: i16,
    pub lower: i16,
    pub upper: i16,
    /// The search level of the leaf.
    pub level: u8,
    /// The moves that reach book positions.
    pub links: Vec<EdaxLink>,
    /// The best move that leaves the book, searched.
    pub leaf: EdaxLink,
}

/// An Edax book file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdaxBook {
    pub release: u8,
    pub date: EdaxDate,
    pub options: EdaxOptions,
    pub positions: Vec<EdaxPosition>,
}

/// Why bytes are not an Edax book.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EdaxBookError {
    #[error("not an Edax book (its first 8 bytes are not 'XADEKOOB')")]
    NotAnEdaxBook,
    #[error("Edax book version {0} is not supported (Edax 4 books have version 4)")]
    UnsupportedVersion(u8),
    #[error("the Edax book is truncated: it ends inside {0}")]
    Truncated(String),
    #[error("the Edax book's header counts {header} positions, but it holds {found}")]
    WrongCount { header: u32, found: usize },
    #[error("the Edax book is corrupt: position {index} ({board}): {reason}")]
    BadPosition {
        index: usize,
        board: String,
        reason: String,
    },
}

impl EdaxPosition {
    /// A position with nothing known yet: no links, no leaf, Edax's unknown value and bounds.
    pub fn empty(board: Board) -> EdaxPosition {
        EdaxPosition {
            board,
            wins: 0,
            draws: 0,
            losses: 0,
            lines: 0,
            value: -SCORE_INF,
            lower: -SCORE_INF,
            upper: SCORE_INF,
            level: 0,
            links: Vec::new(),
            leaf: EdaxLink::NONE,
        }
    }
}

/// Each position's index by its board.
fn board_index(positions: &[EdaxPosition]) -> HashMap<Board, usize> {
    positions
        .iter()
        .enumerate()
        .map(|(index, position)| (position.board, index))
        .collect()
}

/// A board as a board string that `oxello` reads back (64 squares, `X` the side to move,
/// then the side to move as Edax tells it: Black with an even number of empty squares).
fn board_string(board: &Board) -> String {
    let side_to_move = if board.empty_count().is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    };
    let (black, white) = match side_to_move {
        Color::Black => (board.player, board.opponent),
        Color::White => (board.opponent, board.player),
    };
    format_position(&Position::from_colors(black, white, side_to_move))
}

/// The board after `square` (or a pass) from `board`.
fn edax_next(board: &Board, square: u8) -> Board {
    if square == PASS {
        board.pass()
    } else {
        board.play_with_flips(usize::from(square), board.flips(usize::from(square)))
    }
}
