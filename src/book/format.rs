//! The book file: a header, fixed-size records in sorted order, and a CRC-32 of everything
//! before it.
//!
//! | bytes | content |
//! |---|---|
//! | 12 | magic `oxello-book\n` |
//! | 4 | format version, little-endian (1) |
//! | 8 | number of positions, little-endian |
//! | 24 each | player discs u64, opponent discs u64, value i8, exit move u8 (255: none), exit score i8, depth u8 (bit 7: exact), games u32 |
//! | 4 | CRC-32 (IEEE) of all the bytes above |
//!
//! Positions are canonical (the least of their symmetric forms) and strictly increasing by
//! (player, opponent), so that the book is searched in place.

use super::edax::{is_edax_book, EdaxBook, EdaxDate, EdaxRelease};
use super::entries::{is_book_position, Book, BookEntry, NO_EXIT};
use crate::board::Board;
use std::path::Path;
use std::sync::Arc;

const MAGIC: &[u8; 12] = b"oxello-book\n";
const VERSION: u32 = 1;
const HEADER_BYTES: usize = 24;
const RECORD_BYTES: usize = 24;
const EXACT_FLAG: u8 = 0x80;

/// Why bytes are not a book.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BookError {
    #[error("not an oxello book (no 'oxello-book' header)")]
    NotABook,
    #[error("book format version {0} is not supported (this oxello reads version {VERSION})")]
    UnsupportedVersion(u32),
    #[error(
        "the book is truncated or has trailing bytes: {found} bytes where {expected} were expected"
    )]
    WrongLength { expected: u64, found: u64 },
    #[error("the book is corrupt: its checksum does not match")]
    Checksum,
    #[error("the book is corrupt: position {index}: {reason}")]
    BadRecord { index: u64, reason: &'static str },
}

impl Book {
    /// The book in its file format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(HEADER_BYTES + RECORD_BYTES * self.len() + 4);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(self.len() as u64).to_le_bytes());
        for e in self.entries() {
            bytes.extend_from_slice(&e.board.player.to_le_bytes());
            bytes.extend_from_slice(&e.board.opponent.to_le_bytes());
            bytes.push(e.value as u8);
            bytes.push(e.exit_move);
            bytes.push(e.exit_score as u8);
            bytes.push(e.depth.min(0x7F) | if e.exact { EXACT_FLAG } else { 0 });
            bytes.extend_from_slice(&e.games.to_le_bytes());
        }
        let checksum = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// Reads a book file's bytes, checking the header, the length, the checksum and every
    /// record.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        if bytes.len() < HEADER_BYTES || &bytes[..12] != MAGIC {
            return Err(BookError::NotABook);
        }
        let version = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(BookError::UnsupportedVersion(version));
        }
        let count = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        let expected = count
            .checked_mul(RECORD_BYTES as u64)
            .and_then(|n| n.checked_add(HEADER_BYTES as u64 + 4));
        if expected != Some(bytes.len() as u64) {
            return Err(BookError::WrongLength {
                expected: expected.unwrap_or(u64::MAX),
                found: bytes.len() as u64,
            });
        }
        let (content, checksum) = bytes.split_at(bytes.len() - 4);
        if crc32fast::hash(content) != u32::from_le_bytes(checksum.try_into().expect("4 bytes")) {
            return Err(BookError::Checksum);
        }
        let mut entries: Vec<BookEntry> = Vec::with_capacity(count as usize);
        for (index, record) in content[HEADER_BYTES..]
            .chunks_exact(RECORD_BYTES)
            .enumerate()
        {
            let entry = parse_record(record).map_err(|reason| BookError::BadRecord {
                index: index as u64,
                reason,
            })?;
            if let Some(previous) = entries.last() {
                let order = |e: &BookEntry| (e.board.player, e.board.opponent);
                if order(previous) >= order(&entry) {
                    return Err(BookError::BadRecord {
                        index: index as u64,
                        reason: "positions out of order",
                    });
                }
            }
            entries.push(entry);
        }
        Ok(Book { entries })
    }

    /// Reads a book file, oxello's or Edax's (told apart by their headers).
    pub fn read_file(path: &Path) -> anyhow::Result<Book> {
        Ok(Book::read_file_with_format(path)?.0)
    }

    /// Reads a book file, oxello's or Edax's, and says which it was.
    pub fn read_file_with_format(path: &Path) -> anyhow::Result<(Book, BookFormat)> {
        let bytes = std::fs::read(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let in_path = |e: &dyn std::fmt::Display| anyhow::anyhow!("{}: {e}", path.display());
        if is_edax_book(&bytes) {
            let edax = EdaxBook::from_bytes(&bytes).map_err(|e| in_path(&e))?;
            Ok((edax.to_book(), BookFormat::Edax(Arc::new(edax))))
        } else if bytes.starts_with(MAGIC) {
            let book = Book::from_bytes(&bytes).map_err(|e| in_path(&e))?;
            Ok((book, BookFormat::Oxello))
        } else {
            Err(in_path(
                &"not an oxello book nor an Edax book (it begins with neither 'oxello-book' nor 'XADEKOOB')",
            ))
        }
    }

    /// Writes the book to `path` in oxello's format (see [`write_atomically`]).
    pub fn write_file(&self, path: &Path) -> anyhow::Result<()> {
        write_atomically(path, &self.to_bytes())
    }

    /// Writes the book to `path` in `format` (see [`write_atomically`]): to an Edax book, as
    /// that book updated with what this one changed in it ([`EdaxBook::updated`]). Returns the
    /// format to write the next change in (the Edax book as written).
    pub fn write_file_as(&self, path: &Path, format: &BookFormat) -> anyhow::Result<BookFormat> {
        match format {
            BookFormat::Oxello => {
                self.write_file(path)?;
                Ok(BookFormat::Oxello)
            }
            BookFormat::Edax(edax) => {
                let updated = edax.updated(self, EdaxDate::now());
                let release = EdaxRelease::of_byte(updated.release);
                write_atomically(path, &updated.to_bytes(release))?;
                Ok(BookFormat::Edax(Arc::new(updated)))
            }
        }
    }
}

/// The formats a book file can have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookFormat {
    /// oxello's own.
    Oxello,
    /// Edax's `book.dat`: the Edax book as read, kept whole (oxello's book holds less of it),
    /// which what oxello changes is written into.
    Edax(Arc<EdaxBook>),
}

/// Writes `bytes` to `path` through a temporary file renamed over it, so that an interrupted
/// or failed write never leaves half a file, nor replaces the file that was there.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    let temporary = std::path::PathBuf::from(temporary);
    std::fs::write(&temporary, bytes)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            anyhow::anyhow!("cannot write {}: {e}", path.display())
        })
}

fn parse_record(record: &[u8]) -> Result<BookEntry, &'static str> {
    let word = |at: usize| u64::from_le_bytes(record[at..at + 8].try_into().expect("8 bytes"));
    let board = Board::new(word(0), word(8));
    if board.player & board.opponent != 0 {
        return Err("a square holds two discs");
    }
    if !is_book_position(&board) {
        return Err("the side to move has no move");
    }
    if board.canonical().0 != board {
        return Err("the position is not in canonical orientation");
    }
    let (value, exit_move, exit_score) = (record[16] as i8, record[17], record[18] as i8);
    if !(-64..=64).contains(&value) || !(-64..=64).contains(&exit_score) {
        return Err("a score is out of range");
    }
    let exit_is_legal =
        exit_move == NO_EXIT || exit_move < 64 && board.moves() & (1u64 << exit_move) != 0;
    if !exit_is_legal {
        return Err("the exit move is not legal");
    }
    Ok(BookEntry {
        board,
        value,
        exit_move,
        exit_score,
        depth: record[19] & !EXACT_FLAG,
        exact: record[19] & EXACT_FLAG != 0,
        games: u32::from_le_bytes(record[20..24].try_into().expect("4 bytes")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Book {
        let f5 = Board::START.play(37).unwrap();
        Book::new([
            BookEntry {
                board: Board::START,
                value: 0,
                exit_move: NO_EXIT,
                exit_score: 0,
                depth: 12,
                exact: false,
                games: 9,
            },
            BookEntry {
                board: f5,
                value: 0,
                exit_move: 45,
                exit_score: -3,
                depth: 60,
                exact: true,
                games: 7,
            },
        ])
    }

    #[test]
    fn books_round_trip() {
        let book = sample();
        assert_eq!(Book::from_bytes(&book.to_bytes()), Ok(book));
        assert_eq!(
            Book::from_bytes(&Book::default().to_bytes()),
            Ok(Book::default())
        );
    }

    #[test]
    fn damaged_books_are_refused() {
        let bytes = sample().to_bytes();
        assert_eq!(Book::from_bytes(b"GIF89a"), Err(BookError::NotABook));
        assert_eq!(Book::from_bytes(&[]), Err(BookError::NotABook));
        let mut newer = bytes.clone();
        newer[12] = 2;
        assert_eq!(
            Book::from_bytes(&newer),
            Err(BookError::UnsupportedVersion(2))
        );
        assert!(matches!(
            Book::from_bytes(&bytes[..bytes.len() - 1]),
            Err(BookError::WrongLength { .. })
        ));
        let mut huge = bytes.clone();
        huge[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            Book::from_bytes(&huge),
            Err(BookError::WrongLength { .. })
        ));
        for at in HEADER_BYTES..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x10;
            assert!(Book::from_bytes(&flipped).is_err(), "byte {at}");
        }
    }

    #[test]
    fn records_are_checked_even_with_a_right_checksum() {
        let reseal = |mut bytes: Vec<u8>| {
            let n = bytes.len() - 4;
            let checksum = crc32fast::hash(&bytes[..n]);
            bytes[n..].copy_from_slice(&checksum.to_le_bytes());
            bytes
        };
        let bytes = sample().to_bytes();
        let mut overlapping = bytes.clone();
        overlapping[HEADER_BYTES + 8..HEADER_BYTES + 16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            Book::from_bytes(&reseal(overlapping)),
            Err(BookError::BadRecord { index: 0, .. })
        ));
        let mut swapped = bytes.clone();
        let (first, second) = (HEADER_BYTES, HEADER_BYTES + RECORD_BYTES);
        let record: Vec<u8> = swapped[first..second].to_vec();
        swapped.copy_within(second..second + RECORD_BYTES, first);
        swapped[second..second + RECORD_BYTES].copy_from_slice(&record);
        assert!(matches!(
            Book::from_bytes(&reseal(swapped)),
            Err(BookError::BadRecord { index: 1, .. })
        ));
        let mut bad_move = bytes.clone();
        bad_move[HEADER_BYTES + 17] = 0;
        assert!(matches!(
            Book::from_bytes(&reseal(bad_move)),
            Err(BookError::BadRecord { .. })
        ));
    }

    #[test]
    fn the_builtin_book_is_valid() {
        let book = Book::builtin();
        assert!(book.contains(&Board::START));
        assert!(!book.moves(&Board::START).is_empty());
    }
}
