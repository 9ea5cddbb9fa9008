//! The opening book: positions from strong games, merged under the 8 symmetries of the board.
//!
//! Every book position stores the searched score of its best move that leaves the book (its
//! *exit*); the value of a position is the better of its exit and of the moves that stay in the
//! book, negamaxed from the deepest positions up to the start. In play, the engine takes a book
//! move whenever the position is in the book ([`Book::choose`]) and learns the games it is
//! told to ([`learn`]); the tools that build, show, extend and merge books are in
//! `tools::book`.

pub mod edax;
mod entries;
mod format;
pub mod learn;

pub use entries::{is_book_position, moves_reaching, Book, BookEntry, BookMove, NO_EXIT};
pub use format::{write_atomically, BookError, BookFormat};
