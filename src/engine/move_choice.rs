//! [`MoveChoice`]: the move the engine plays, from its book or a search.

use crate::board::Move;
use crate::book::BookMove;
use crate::search::SearchResult;

/// The move the engine plays and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub enum MoveChoice {
    /// From the opening book, with the book's value.
    Book(BookMove),
    /// The best move of a search (a pass when it has none).
    Search(SearchResult),
}

impl MoveChoice {
    /// The move to play.
    pub fn mv(&self) -> Move {
        match self {
            MoveChoice::Book(book) => Move::Play(book.square),
            MoveChoice::Search(result) => result.best_move.map_or(Move::Pass, Move::Play),
        }
    }
}
