//! The checks a read Edax book passes: Edax's own on each position, and that the positions are
//! distinct and every link reaches one of them.

use super::{board_index, edax_next, EdaxBook, EdaxBookError, EdaxPosition, NO_MOVE, PASS};
use crate::board::Board;
use crate::notation::format_square;

impl EdaxBook {
    /// Checks every position as Edax's own consistency check does, and that every link
    /// reaches a position of the book.
    pub(super) fn check(&self) -> Result<(), EdaxBookError> {
        let (index_of, first_repeat) = board_index(&self.positions);
        if let Some(index) = first_repeat {
            return Err(bad_position(
                index,
                &self.positions[index],
                "the position is in the book twice",
            ));
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
}

fn bad_position(index: usize, position: &EdaxPosition, reason: &str) -> EdaxBookError {
    EdaxBookError::BadPosition {
        index,
        board: board_text(&position.board),
        reason: reason.to_string(),
    }
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
