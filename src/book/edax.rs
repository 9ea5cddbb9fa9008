//! Edax's opening book file (`book.dat`), read and written as Edax 4.4 and 4.6 do, and its
//! conversion to and from oxello's [`Book`].
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

use super::{is_book_position, Book, BookEntry, NO_MOVE as OXELLO_NO_MOVE};
use crate::board::{Board, Squares};
use crate::notation::format_square;
use std::collections::HashMap;

/// `EDAX` as Edax writes it first.
const EDAX_MAGIC: u32 = 0x4544_4158;
/// `BOOK` as Edax writes it second.
const BOOK_MAGIC: u32 = 0x424F_4F4B;
/// The version byte Edax 4 writes and checks.
const VERSION: u8 = 4;
/// Bytes before the first position.
const HEADER_BYTES: usize = 42;
/// Bytes of a position before its links.
const POSITION_FIXED_BYTES: usize = 40;
/// Edax's square number of a pass.
pub const PASS: u8 = 64;
/// Edax's square number of no move.
pub const NO_MOVE: u8 = 65;
/// Edax's infinite score: the value of a position with neither links nor leaf, the score of
/// no leaf.
const SCORE_INF: i16 = 127;
/// Edax's selectivity level that cuts nothing.
const NO_SELECTIVITY: u8 = 5;
/// Edax's error margins of a new book: the bounds around a midgame search's score, and
/// around a selective search to the end.
const MIDGAME_ERROR: i32 = 2;
const ENDCUT_ERROR: i32 = 1;

/// Whether bytes begin as an Edax book does.
pub fn is_edax_book(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && read_u32(bytes, 0) == EDAX_MAGIC && read_u32(bytes, 4) == BOOK_MAGIC
}

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
            EdaxRelease::V4_4 => table_hash(board),
            EdaxRelease::V4_6 => crc_hash(board),
        }
    }
}

/// When the book was saved, as Edax records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdaxDate {
    pub year: i16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
}

impl EdaxDate {
    /// Now, in UTC.
    pub fn now() -> EdaxDate {
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let (days, time) = (seconds / 86_400, seconds % 86_400);
        let (year, month, day) = civil_from_days(days as i64);
        EdaxDate {
            year: year as i16,
            month: month as u8,
            day: day as u8,
            hour: (time / 3600) as u8,
            minute: (time / 60 % 60) as u8,
            second: (time % 60) as u8,
        }
    }
}

/// The Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
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

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn read_i32(bytes: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn read_i16(bytes: &[u8], at: usize) -> i16 {
    i16::from_le_bytes(bytes[at..at + 2].try_into().expect("2 bytes"))
}

/// A board as Edax's text shows it (`X` the side to move... here simply player `X`,
/// opponent `O`), for messages.
fn board_text(board: &Board) -> String {
    (0..64)
        .map(
            |square| match (board.player >> square & 1, board.opponent >> square & 1) {
                (1, _) => 'X',
                (_, 1) => 'O',
                _ => '-',
            },
        )
        .collect()
}

/// A square, a pass or no move, as text.
fn move_text(square: u8) -> String {
    match square {
        PASS => "pass".to_string(),
        NO_MOVE => "no move".to_string(),
        square if square < 64 => format_square(square).to_ascii_lowercase(),
        other => format!("square {other}"),
    }
}

impl EdaxBook {
    /// Reads an Edax book file's bytes, checking the header, the count and every position:
    /// a legal board in its least symmetric form, legal and distinct links and leaf, no
    /// position twice, and every link reaching a position of the book.
    pub fn from_bytes(bytes: &[u8]) -> Result<EdaxBook, EdaxBookError> {
        if !is_edax_book(bytes) {
            return Err(EdaxBookError::NotAnEdaxBook);
        }
        if bytes.len() < HEADER_BYTES {
            return Err(EdaxBookError::Truncated("the header".to_string()));
        }
        if bytes[8] != VERSION {
            return Err(EdaxBookError::UnsupportedVersion(bytes[8]));
        }
        let release = bytes[9];
        let date = EdaxDate {
            year: read_i16(bytes, 10),
            month: bytes[12],
            day: bytes[13],
            hour: bytes[14],
            minute: bytes[15],
            second: bytes[16],
        };
        let options = EdaxOptions {
            level: read_i32(bytes, 18),
            n_empties: read_i32(bytes, 22),
            midgame_error: read_i32(bytes, 26),
            endcut_error: read_i32(bytes, 30),
            verbosity: read_i32(bytes, 34),
        };
        let count = read_u32(bytes, 38);
        let mut positions = Vec::new();
        let mut at = HEADER_BYTES;
        while at < bytes.len() {
            let index = positions.len();
            let truncated = || EdaxBookError::Truncated(format!("position {index}"));
            let fixed = bytes
                .get(at..at + POSITION_FIXED_BYTES)
                .ok_or_else(truncated)?;
            let link_count = usize::from(fixed[38]);
            let moves_end = at + POSITION_FIXED_BYTES + 2 * (link_count + 1);
            let moves = bytes
                .get(at + POSITION_FIXED_BYTES..moves_end)
                .ok_or_else(truncated)?;
            let link = |pair: &[u8]| EdaxLink {
                score: pair[0] as i8,
                square: pair[1],
            };
            let mut pairs = moves.chunks_exact(2).map(link).collect::<Vec<_>>();
            let leaf = pairs.pop().expect("a position has a leaf");
            positions.push(EdaxPosition {
                board: Board::new(read_u64(fixed, 0), read_u64(fixed, 8)),
                wins: read_u32(fixed, 16),
                draws: read_u32(fixed, 20),
                losses: read_u32(fixed, 24),
                lines: read_u32(fixed, 28),
                value: read_i16(fixed, 32),
                lower: read_i16(fixed, 34),
                upper: read_i16(fixed, 36),
                level: fixed[39],
                links: pairs,
                leaf,
            });
            at = moves_end;
        }
        if positions.len() != count as usize {
            return Err(EdaxBookError::WrongCount {
                header: count,
                found: positions.len(),
            });
        }
        let book = EdaxBook {
            release,
            date,
            options,
            positions,
        };
        book.check()?;
        Ok(book)
    }

    /// Checks every position as Edax's own consistency check does, and that every link
    /// reaches a position of the book.
    fn check(&self) -> Result<(), EdaxBookError> {
        let mut index_of = HashMap::with_capacity(self.positions.len());
        for (index, position) in self.positions.iter().enumerate() {
            if index_of.insert(position.board, index).is_some() {
                return Err(bad_position(
                    index,
                    position,
                    "the position is in the book twice",
                ));
            }
        }
        for (index, position) in self.positions.iter().enumerate() {
            check_position(position).map_err(|reason| bad_position(index, position, &reason))?;
        }
        for (index, position) in self.positions.iter().enumerate() {
            for link in &position.links {
                let child = edax_next(&position.board, link.square);
                if !index_of.contains_key(&child.canonical().0) {
                    return Err(bad_position(
                        index,
                        position,
                        &format!(
                            "link {} leads to a position the book does not hold",
                            move_text(link.square)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The book as Edax of `release` writes it: the header, then the positions in the order of
    /// Edax's buckets, in this book's order within a bucket.
    pub fn to_bytes(&self, release: EdaxRelease) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(HEADER_BYTES + self.positions.len() * 60);
        bytes.extend_from_slice(&EDAX_MAGIC.to_le_bytes());
        bytes.extend_from_slice(&BOOK_MAGIC.to_le_bytes());
        bytes.push(VERSION);
        bytes.push(release.release_byte());
        let date = self.date;
        bytes.extend_from_slice(&date.year.to_le_bytes());
        bytes.extend_from_slice(&[date.month, date.day, date.hour, date.minute, date.second, 0]);
        let options = self.options;
        for value in [
            options.level,
            options.n_empties,
            options.midgame_error,
            options.endcut_error,
            options.verbosity,
        ] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes.extend_from_slice(&(self.positions.len() as u32).to_le_bytes());
        for &index in &edax_order(&self.positions, release) {
            let p = &self.positions[index];
            bytes.extend_from_slice(&p.board.player.to_le_bytes());
            bytes.extend_from_slice(&p.board.opponent.to_le_bytes());
            for count in [p.wins, p.draws, p.losses, p.lines] {
                bytes.extend_from_slice(&count.to_le_bytes());
            }
            for score in [p.value, p.lower, p.upper] {
                bytes.extend_from_slice(&score.to_le_bytes());
            }
            bytes.push(p.links.len() as u8);
            bytes.push(p.level);
            for link in p.links.iter().chain(std::iter::once(&p.leaf)) {
                bytes.push(link.score as u8);
                bytes.push(link.square);
            }
        }
        bytes
    }

    /// The bucket of Edax's table that Edax of `release` puts each position in, in this
    /// book's order: a file written as Edax writes has them in non-decreasing order.
    pub fn buckets(&self, release: EdaxRelease) -> Vec<u64> {
        let buckets = edax_buckets(self.positions.len());
        self.positions
            .iter()
            .map(|p| release.hash(&p.board) & (buckets - 1))
            .collect()
    }

    /// The Edax book of `book`: each position with its links (the moves that reach book
    /// positions, with their values) and its exit as the leaf, a position of its own for each
    /// forced pass on the way, and the bounds and counts that Edax's negamax gives them. The
    /// level of a position is the depth of its exit's search; the book's level is the deepest,
    /// and its n_empties the fewest empties of its positions.
    pub fn from_book(book: &Book, date: EdaxDate) -> EdaxBook {
        let value_of = |board: &Board| book.get(board).map(|e| i16::from(e.value));
        let mut positions = Vec::new();
        let mut passes: HashMap<Board, EdaxPosition> = HashMap::new();
        for entry in book.entries() {
            let board = entry.board;
            let mut links = Vec::new();
            for square in Squares(board.moves()) {
                let child = board.play(square).expect("a legal move");
                let score = if child.moves() != 0 {
                    value_of(&child).map(|value| -value)
                } else {
                    let passed = child.pass();
                    let reached = (passed.moves() != 0).then(|| value_of(&passed)).flatten();
                    if let Some(value) = reached {
                        // The position that must pass joins the book, worth the opposite of
                        // the position after its pass.
                        let (canonical, _) = child.canonical();
                        passes.entry(canonical).or_insert_with(|| EdaxPosition {
                            links: vec![EdaxLink {
                                score: -value as i8,
                                square: PASS,
                            }],
                            leaf: EdaxLink::NONE,
                            level: entry.depth,
                            ..EdaxPosition::empty(canonical)
                        });
                    }
                    reached
                };
                if let Some(score) = score {
                    links.push(EdaxLink {
                        score: score as i8,
                        square: square as u8,
                    });
                }
            }
            links.sort_by_key(|l| std::cmp::Reverse(l.score));
            let leaf = match entry.exit_move {
                OXELLO_NO_MOVE => EdaxLink::NONE,
                exit if links.iter().any(|l| l.square == exit) => EdaxLink::NONE,
                exit => EdaxLink {
                    score: entry.exit_score,
                    square: exit,
                },
            };
            positions.push(EdaxPosition {
                links,
                leaf,
                level: entry.depth,
                ..EdaxPosition::empty(board)
            });
        }
        positions.extend(passes.into_values().filter(|p| !book.contains(&p.board)));
        positions.sort_by_key(|p| (p.board.player, p.board.opponent));
        let options = EdaxOptions {
            level: positions
                .iter()
                .map(|p| i32::from(p.level))
                .max()
                .unwrap_or(0),
            n_empties: positions
                .iter()
                .map(|p| p.board.empty_count() as i32)
                .min()
                .unwrap_or(0),
            midgame_error: MIDGAME_ERROR,
            endcut_error: ENDCUT_ERROR,
            verbosity: 0,
        };
        let mut edax = EdaxBook {
            release: EdaxRelease::V4_6.release_byte(),
            date,
            options,
            positions,
        };
        edax.negamax();
        edax
    }

    /// Sets every position's value, bounds and counts from its leaf and its links' positions,
    /// as Edax's negamax does (a position's counts add up those of the positions its links
    /// reach, once per link), and every link's score from the position it reaches.
    pub fn negamax(&mut self) {
        let index_of: HashMap<Board, usize> = self
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| (p.board, i))
            .collect();
        let mut done = vec![false; self.positions.len()];
        // Deepest first: a position's links reach positions with more discs, or after a pass
        // the same discs with a move to make, done before it.
        let mut order: Vec<usize> = (0..self.positions.len()).collect();
        order.sort_by_key(|&i| {
            let board = &self.positions[i].board;
            (board.empty_count(), board.moves() == 0)
        });
        for i in order {
            let (midgame_error, endcut_error) =
                (self.options.midgame_error, self.options.endcut_error);
            let mut position = self.positions[i].clone();
            let empties = position.board.empty_count();
            let mut value = -SCORE_INF;
            let (mut lower, mut upper) = (-SCORE_INF, -SCORE_INF);
            let mut counts = [0u64; 4];
            if i16::from(position.leaf.score) > -SCORE_INF {
                let score = i32::from(position.leaf.score);
                value = score as i16;
                let (depth, selectivity) = edax_level(position.level, empties);
                let (low, high) = if depth == empties && selectivity == NO_SELECTIVITY {
                    counts[usize::from(score < 0) + usize::from(score <= 0)] += 1;
                    (score, score)
                } else if depth == empties {
                    (score - endcut_error, score + endcut_error)
                } else {
                    let bias = (depth & 1) as i32 - (empties & 1) as i32;
                    (score - midgame_error - bias, score + midgame_error - bias)
                };
                (lower, upper) = (low as i16, high as i16);
                counts[3] += 1;
            }
            for link in position.links.iter_mut() {
                let child_board = edax_next(&position.board, link.square).canonical().0;
                let Some(&child) = index_of.get(&child_board) else {
                    continue;
                };
                debug_assert!(done[child], "a link reaches a position with more discs");
                let child = &self.positions[child];
                link.score = (-child.value).clamp(-64, 64) as i8;
                value = value.max(-child.value);
                lower = lower.max(-child.upper);
                upper = upper.max(-child.lower);
                counts[0] += u64::from(child.losses);
                counts[1] += u64::from(child.draws);
                counts[2] += u64::from(child.wins);
                counts[3] += u64::from(child.lines);
            }
            let saturate = |count: u64| count.min(u64::from(u32::MAX)) as u32;
            position.value = value;
            position.lower = lower;
            position.upper = upper;
            position.wins = saturate(counts[0]);
            position.draws = saturate(counts[1]);
            position.losses = saturate(counts[2]);
            position.lines = saturate(counts[3]);
            self.positions[i] = position;
            done[i] = true;
        }
    }

    /// oxello's book of the Edax book: every position where the side to move has a move, its
    /// leaf as the exit, searched at its level (exact where Edax's level solves), and its lines
    /// as its games; values negamaxed again.
    pub fn to_book(&self) -> Book {
        Book::new(
            self.positions
                .iter()
                .filter(|p| is_book_position(&p.board))
                .map(|p| {
                    let empties = p.board.empty_count();
                    let (depth, selectivity) = edax_level(p.level, empties);
                    let exit_move = if p.leaf.square < 64 {
                        p.leaf.square
                    } else {
                        OXELLO_NO_MOVE
                    };
                    BookEntry {
                        board: p.board,
                        value: p.value.clamp(-64, 64) as i8,
                        exit_move,
                        exit_score: if exit_move == OXELLO_NO_MOVE {
                            0
                        } else {
                            p.leaf.score.clamp(-64, 64)
                        },
                        depth: p.level.min(60),
                        exact: depth == empties && selectivity == NO_SELECTIVITY,
                        games: p.lines,
                    }
                }),
        )
    }
}

impl EdaxPosition {
    /// A position with nothing known yet.
    fn empty(board: Board) -> EdaxPosition {
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

fn bad_position(index: usize, position: &EdaxPosition, reason: &str) -> EdaxBookError {
    EdaxBookError::BadPosition {
        index,
        board: board_text(&position.board),
        reason: reason.to_string(),
    }
}

/// The board after `square` (or a pass) from `board`.
fn edax_next(board: &Board, square: u8) -> Board {
    if square == PASS {
        board.pass()
    } else {
        board.play_with_flips(usize::from(square), board.flips(usize::from(square)))
    }
}

/// Edax's own check of a position: a legal board in its least symmetric form, legal links and
/// leaf, a pass only where the side to move must pass, no move twice.
fn check_position(position: &EdaxPosition) -> Result<(), String> {
    let board = &position.board;
    if board.player & board.opponent != 0 {
        return Err("a square holds two discs".to_string());
    }
    const CENTRE: u64 = 0x0000_0018_1800_0000;
    if (board.player | board.opponent) & CENTRE != CENTRE {
        return Err("a centre square is empty".to_string());
    }
    if board.canonical().0 != *board {
        return Err("the board is not in its least symmetric form".to_string());
    }
    let moves = board.moves();
    let must_pass = moves == 0 && board.opponent_moves() != 0;
    let legal = |square: u8| square < 64 && moves >> square & 1 == 1;
    for (i, link) in position.links.iter().enumerate() {
        let ok = if link.square == PASS {
            must_pass && position.links.len() == 1
        } else {
            legal(link.square)
        };
        if !ok {
            return Err(format!(
                "link {} is not a legal move",
                move_text(link.square)
            ));
        }
        if position.links[..i].iter().any(|l| l.square == link.square) {
            return Err(format!("link {} is there twice", move_text(link.square)));
        }
    }
    let leaf = position.leaf.square;
    let leaf_ok = match leaf {
        PASS => must_pass && position.links.is_empty(),
        // No leaf known: Edax loads such positions and searches their leaf when it links
        // the book.
        NO_MOVE => true,
        square => legal(square),
    };
    if !leaf_ok {
        return Err(format!("leaf {} is not a legal move", move_text(leaf)));
    }
    if position.links.iter().any(|l| l.square == leaf) {
        return Err(format!("leaf {} is also a link", move_text(leaf)));
    }
    Ok(())
}

/// Edax's search of a position at `level` with `empties` empty squares: its depth and its
/// selectivity ([`NO_SELECTIVITY`] cuts nothing: a search as deep as the empties then solves
/// exactly). From Edax's table of levels: up to level 10 it solves from twice the level's
/// empties; higher levels solve from a fixed number of empties and search a few more to the
/// end selectively; level 60 solves everything.
fn edax_level(level: u8, empties: u32) -> (u32, u8) {
    let level = u32::from(level);
    // Per band of levels: the empties up to which each selectivity searches to the end,
    // most selective last; beyond them, the midgame search at the level's depth.
    let bands: &[(u32, u8)] = match level {
        0 => return (0, NO_SELECTIVITY),
        1..=10 => {
            return (
                if empties <= 2 * level { empties } else { level },
                NO_SELECTIVITY,
            )
        }
        11..=12 => &[(21, 5), (24, 3)],
        13..=18 => &[(21, 5), (24, 3), (27, 1)],
        19..=21 => &[(24, 5), (27, 3), (30, 1)],
        22..=24 => &[(24, 5), (27, 4), (30, 2), (33, 0)],
        25..=27 => &[(27, 5), (30, 3), (33, 1)],
        28..=31 => &[(30, 5), (33, 3), (36, 1)],
        32..=33 => &[(30, 5), (33, 4), (36, 2), (39, 0)],
        34..=35 => &[(30, 5), (33, 4), (36, 3), (39, 1)],
        36..=59 => {
            return match empties {
                e if e <= level - 6 => (e, 5),
                e if e <= level - 3 => (e, 4),
                e if e <= level => (e, 3),
                e if e <= level + 3 => (e, 2),
                e if e <= level + 6 => (e, 1),
                e if e <= level + 9 => (e, 0),
                _ => (level, 0),
            }
        }
        _ => return (empties, NO_SELECTIVITY),
    };
    bands
        .iter()
        .find(|&&(up_to, _)| empties <= up_to)
        .map_or((level, 0), |&(_, selectivity)| (empties, selectivity))
}

/// The positions' order in the file Edax of `release` writes: bucket by bucket of its table
/// (65,536 buckets, doubled while the positions would fill them 16 deep), each position in
/// the bucket of its hash code; within a bucket, the order given.
fn edax_order(positions: &[EdaxPosition], release: EdaxRelease) -> Vec<usize> {
    let buckets = edax_buckets(positions.len());
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by_key(|&i| release.hash(&positions[i].board) & (buckets - 1));
    order
}

/// Edax's number of buckets for a book of `count` positions.
fn edax_buckets(count: usize) -> u64 {
    let mut buckets = 65_536u64;
    while (buckets << 4) < count as u64 {
        buckets <<= 1;
    }
    buckets
}

/// Edax 4.5 and later's hash code of a board: CRC-32C steps over the two bitboards, the
/// first step's result in the high half.
fn crc_hash(board: &Board) -> u64 {
    let first = crc32c_step(0, board.player);
    (u64::from(first) << 32) | u64::from(crc32c_step(first, board.opponent))
}

/// One step of CRC-32C over the 8 bytes of `data` from `crc`, without the inversions before
/// and after (the SSE 4.2 instruction's step, which Edax uses).
fn crc32c_step(crc: u32, data: u64) -> u32 {
    !crc32c::crc32c_append(!crc, &data.to_le_bytes())
}

/// Edax 4.4's hash code of a board: per byte of the two bitboards (player first, low byte
/// first), a random number from a table, all XORed.
fn table_hash(board: &Board) -> u64 {
    let table = edax_hash_table();
    board
        .player
        .to_le_bytes()
        .iter()
        .chain(board.opponent.to_le_bytes().iter())
        .enumerate()
        .fold(0, |hash, (i, &byte)| hash ^ table[i][usize::from(byte)])
}

/// Edax 4.4's table of hash numbers: drawn in order from its 48-bit linear congruential
/// generator (Java's, seeded with its multiplier), each number of fewer than 8 set bits drawn
/// again.
fn edax_hash_table() -> &'static [[u64; 256]; 16] {
    static TABLE: std::sync::OnceLock<Box<[[u64; 256]; 16]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        const MULTIPLIER: u64 = 0x5_DEEC_E66D;
        const MASK: u64 = (1 << 48) - 1;
        let mut state = MULTIPLIER & MASK;
        let mut next = || {
            state = (MULTIPLIER.wrapping_mul(state) + 0xB) & MASK;
            let high = state >> 16;
            state = (MULTIPLIER.wrapping_mul(state) + 0xB) & MASK;
            (high << 32) | (state >> 16)
        };
        let mut table = Box::new([[0u64; 256]; 16]);
        for row in table.iter_mut() {
            for cell in row.iter_mut() {
                *cell = loop {
                    let number = next();
                    if number.count_ones() >= 8 {
                        break number;
                    }
                };
            }
        }
        table
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CRC-32C step bit by bit (reflected polynomial 0x82F63B78, no inversions), as the
    /// SSE 4.2 instruction computes it.
    fn bitwise_step(mut crc: u32, data: u64) -> u32 {
        for byte in data.to_le_bytes() {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0x82F6_3B78
                } else {
                    crc >> 1
                };
            }
        }
        crc
    }

    #[test]
    fn the_crc_step_is_the_instructions_step() {
        for (crc, data) in [
            (0, 0),
            (0, 0x0000_0008_1000_0000),
            (0x1234_5678, 0x0000_0010_0800_0000),
            (!0, u64::MAX),
        ] {
            assert_eq!(crc32c_step(crc, data), bitwise_step(crc, data));
        }
        // The check value of CRC-32C, with its inversions: "123456789" gives 0xE3069283.
        let standard = !bitwise_step(!0, u64::from_le_bytes(*b"12345678"));
        assert_eq!(crc32c::crc32c(b"12345678"), standard);
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn dates_count_from_1970() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_785), (2026, 11, 28));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn edax_levels_solve_where_its_table_says() {
        assert_eq!(edax_level(5, 10), (10, NO_SELECTIVITY));
        assert_eq!(edax_level(5, 11), (5, NO_SELECTIVITY));
        assert_eq!(edax_level(21, 24), (24, NO_SELECTIVITY));
        assert_eq!(edax_level(21, 26), (26, 3));
        assert_eq!(edax_level(21, 31), (21, 0));
        assert_eq!(edax_level(40, 34), (34, NO_SELECTIVITY));
        assert_eq!(edax_level(40, 49), (49, 0));
        assert_eq!(edax_level(40, 50), (40, 0));
        assert_eq!(edax_level(60, 50), (50, NO_SELECTIVITY));
    }
}
