//! The bytes of an Edax book: the header, then each position with its links and leaf, in the
//! order of Edax's hash buckets.

use super::book::{
    board_string, EdaxBook, EdaxBookError, EdaxLink, EdaxOptions, EdaxPosition, EdaxRelease,
};
use super::date::EdaxDate;
use crate::board::Board;
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

/// Whether bytes begin as an Edax book does.
pub fn is_edax_book(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && read_u32(bytes, 0) == EDAX_MAGIC && read_u32(bytes, 4) == BOOK_MAGIC
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

impl EdaxBook {
    /// Reads an Edax book file's bytes, checking the header, the count and every position:
    /// a legal board in its least symmetric form, legal and distinct links and leaf, and
    /// every link reaching a position of the book. A position that comes again is skipped
    /// with a warning, as Edax's loader skips it. The positions keep the file's order.
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
        let mut first_of: HashMap<Board, usize> = HashMap::new();
        let mut read = 0;
        let mut at = HEADER_BYTES;
        while at < bytes.len() {
            let index = read;
            read += 1;
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
            at = moves_end;
            let board = Board::new(read_u64(fixed, 0), read_u64(fixed, 8));
            if let Some(first) = first_of.get(&board) {
                log::warn!(
                    "Edax book position {index} ({}) repeats position {first}: skipped, as Edax skips it",
                    board_string(&board)
                );
                continue;
            }
            first_of.insert(board, index);
            positions.push(EdaxPosition {
                board,
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
        }
        if read != count as usize {
            return Err(EdaxBookError::WrongCount {
                header: count,
                found: read,
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

    /// The book as Edax of `release` writes it: the header, then the positions in the order of
    /// Edax's buckets, in this book's order within a bucket. The release byte is the book's
    /// own when it names `release` (4.5 for 4.6, say), else `release`'s; so an Edax book read
    /// and not changed is written back byte for byte.
    pub fn to_bytes(&self, release: EdaxRelease) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(HEADER_BYTES + self.positions.len() * 60);
        bytes.extend_from_slice(&EDAX_MAGIC.to_le_bytes());
        bytes.extend_from_slice(&BOOK_MAGIC.to_le_bytes());
        bytes.push(VERSION);
        bytes.push(if EdaxRelease::of_byte(self.release) == release {
            self.release
        } else {
            release.release_byte()
        });
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
}

/// The positions' order in the file Edax of `release` writes: bucket by bucket of its table
/// (65,536 buckets, doubled while the positions would fill them 16 deep), each position in
/// the bucket of its hash code; within a bucket, the order given.
fn edax_order(positions: &[EdaxPosition], release: EdaxRelease) -> Vec<usize> {
    let buckets = edax_buckets(positions.len());
    let mut order: Vec<usize> = (0..positions.len()).collect();
    // Stable: within a bucket, the order given.
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
