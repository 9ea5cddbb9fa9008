//! Board strings: the 64 squares a1, b1, .. h1, a2, .. h8 then the side to move. Black is `X`
//! (also `x`, `*`, `b`, `B`), White `O` (also `o`, `0`, `w`, `W`), empty `-` (also `.`, `_`).
//! Whitespace anywhere is ignored. Printed as Edax does: 64 characters, a space, `X` or `O`.

use super::error::NotationError;
use crate::board::{Color, Position};

enum Cell {
    Black,
    White,
    Empty,
}

fn cell(c: char) -> Option<Cell> {
    match c {
        'X' | 'x' | '*' | 'b' | 'B' => Some(Cell::Black),
        'O' | 'o' | '0' | 'w' | 'W' => Some(Cell::White),
        '-' | '.' | '_' => Some(Cell::Empty),
        _ => None,
    }
}

/// Parses a board string (64 squares then the side to move).
pub fn parse_position(text: &str) -> Result<Position, NotationError> {
    let mut black = 0u64;
    let mut white = 0u64;
    let mut squares = 0usize;
    let mut side = None;
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        let Some(kind) = cell(c) else {
            return Err(NotationError::new(format!(
                "'{}' is not a board character (X O -)",
                c.escape_debug()
            )));
        };
        if squares < 64 {
            match kind {
                Cell::Black => black |= 1 << squares,
                Cell::White => white |= 1 << squares,
                Cell::Empty => {}
            }
            squares += 1;
        } else if side.is_none() {
            side = Some(match kind {
                Cell::Black => Color::Black,
                Cell::White => Color::White,
                Cell::Empty => return Err(NotationError::new("the side to move must be X or O")),
            });
        } else {
            return Err(NotationError::new(
                "too many characters after the side to move",
            ));
        }
    }
    if squares < 64 {
        return Err(NotationError::new(format!(
            "a board needs 64 squares, found {squares}"
        )));
    }
    let side = side.ok_or_else(|| NotationError::new("the side to move (X or O) is missing"))?;
    Ok(Position::from_colors(black, white, side))
}

/// Prints a position as 64 squares of `X`/`O`/`-`, a space and the side to move.
pub fn format_position(position: &Position) -> String {
    let (black, white) = (position.black(), position.white());
    let mut text: String = (0..64)
        .map(|sq| {
            if black >> sq & 1 != 0 {
                'X'
            } else if white >> sq & 1 != 0 {
                'O'
            } else {
                '-'
            }
        })
        .collect();
    text.push(' ');
    text.push(match position.side_to_move {
        Color::Black => 'X',
        Color::White => 'O',
    });
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_prints_and_parses() {
        let text = format_position(&Position::START);
        assert_eq!(
            text,
            "---------------------------OX------XO--------------------------- X"
        );
        assert_eq!(parse_position(&text), Ok(Position::START));
        let spaced = "........ ........ ........ ...wb... ...bw... ........ ........ ........ b";
        assert_eq!(parse_position(spaced), Ok(Position::START));
    }

    #[test]
    fn rejects_short_long_and_strange_input() {
        assert!(parse_position("XO X").is_err());
        let full = "-".repeat(64);
        assert!(parse_position(&full).is_err());
        assert!(parse_position(&format!("{full} X X")).is_err());
        assert!(parse_position(&format!("{full} -")).is_err());
        assert!(parse_position(&format!("{}? X", "-".repeat(63))).is_err());
    }
}
