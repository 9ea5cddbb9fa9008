//! Edax's book in memory: its positions with their links and leaf moves, its options and
//! releases, and the helpers the file, the checks and the conversion share.

use super::date::EdaxDate;
use super::hash;
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
pub(super) const SCORE_INF: i16 = 127;

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
    pub(super) fn release_byte(self) -> u8 {
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
    pub(super) fn hash(self, board: &Board) -> u64 {
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
    pub(super) const NONE: EdaxLink = EdaxLink {
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
pub(super) fn board_index(positions: &[EdaxPosition]) -> HashMap<Board, usize> {
    positions
        .iter()
        .enumerate()
        .map(|(index, position)| (position.board, index))
        .collect()
}

/// A board as a board string that `oxello` reads back (64 squares, `X` the side to move,
/// then the side to move as Edax tells it: Black with an even number of empty squares).
pub(super) fn board_string(board: &Board) -> String {
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
pub(super) fn edax_next(board: &Board, square: u8) -> Board {
    if square == PASS {
        board.pass()
    } else {
        board.play_with_flips(usize::from(square), board.flips(usize::from(square)))
    }
}
