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
//! [`crate::board::Board::canonical`]); squares run a1 = 0 to h8 = 63, 64 is a pass and 65 no move. Edax
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

mod book;
mod checks;
mod convert;
mod date;
mod file;
mod hash;
mod level;

pub use book::{
    EdaxBook, EdaxBookError, EdaxLink, EdaxOptions, EdaxPosition, EdaxRelease, NO_MOVE, PASS,
};
pub use date::EdaxDate;
pub use file::is_edax_book;
