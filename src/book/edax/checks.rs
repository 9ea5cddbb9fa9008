//! The checks a read Edax book passes: Edax's own check of each position, looser on a leaf
//! not searched yet, and that every link reaches a position of the book.
//!
//! Edax's loader itself checks only the header: it reads positions until the file ends,
//! skips a position that comes again, and loads the rest unchecked (its `position_is_ok` runs
//! in debug builds and in `book fix`). oxello checks more, since it plays from the book as it
//! reads it: a damaged file is refused with the position and the reason rather than played.

use super::book::{
    board_index, board_string, edax_next, EdaxBook, EdaxBookError, EdaxPosition, NO_MOVE, PASS,
};
use crate::notation::format_square;

impl EdaxBook {
    /// Checks every position as Edax's `position_is_ok` does (but for a leaf not searched
    /// yet, see [`check_position`]), and that every link reaches a position of the book.
    pub(super) fn check(&self) -> Result<(), EdaxBookError> {
        let index_of = board_index(&self.positions);
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
}

fn bad_position(index: usize, position: &EdaxPosition, reason: &str) -> EdaxBookError {
    EdaxBookError::BadPosition {
        index,
        board: board_string(&position.board),
        reason: reason.to_string(),
    }
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

/// Edax's own check of a position: a legal board in its least symmetric form, legal links and
/// leaf, a pass only where the side to move must pass, no move twice. One difference: Edax
/// refuses "no move" as the leaf unless every move is linked, where oxello takes it as a
/// leaf not searched yet (Edax plays from such a position, and its `book link` searches it).
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
