//! Squares `a1`..`h8` (a1 top-left, files a-h left to right, rows 1-8 top to bottom) and moves,
//! where a pass is written `PA` and read as `pa`, `pas`, `pass`, `ps` or `--`.

use super::error::NotationError;
use crate::board::Move;

/// Parses a square name such as `f5` or `F5` into its index (a1 = 0, h8 = 63).
pub fn parse_square(text: &str) -> Result<u8, NotationError> {
    let bytes = text.as_bytes();
    if bytes.len() == 2 {
        let file = bytes[0].to_ascii_lowercase();
        let row = bytes[1];
        if (b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(&row) {
            return Ok((row - b'1') * 8 + (file - b'a'));
        }
    }
    Err(NotationError::new(format!(
        "'{}' is not a square (a1..h8)",
        text.escape_debug()
    )))
}

/// Prints a square index as an upper-case name such as `F5`.
pub fn format_square(square: u8) -> String {
    let file = (b'A' + square % 8) as char;
    let row = (b'1' + square / 8) as char;
    format!("{file}{row}")
}

/// Parses a move: a square, or a pass (`pa`, `pas`, `pass`, `ps`, `--`), in any case.
pub fn parse_move(text: &str) -> Result<Move, NotationError> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "pa" | "pas" | "pass" | "ps" | "--" => Ok(Move::Pass),
        _ => parse_square(text)
            .map(Move::Play)
            .map_err(|_| NotationError::new(format!("'{}' is not a move", text.escape_debug()))),
    }
}

/// Prints a move in upper case: `F5`, or `PA` for a pass.
pub fn format_move(mv: Move) -> String {
    match mv {
        Move::Play(square) => format_square(square),
        Move::Pass => "PA".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip() {
        for sq in 0..64u8 {
            assert_eq!(parse_square(&format_square(sq)), Ok(sq));
            assert_eq!(parse_square(&format_square(sq).to_lowercase()), Ok(sq));
        }
        assert_eq!(parse_square("a1"), Ok(0));
        assert_eq!(parse_square("H8"), Ok(63));
        assert!(parse_square("i1").is_err());
        assert!(parse_square("a9").is_err());
        assert!(parse_square("a").is_err());
    }

    #[test]
    fn passes_in_every_spelling() {
        for text in ["PA", "pass", "Ps", "--", "PAS"] {
            assert_eq!(parse_move(text), Ok(Move::Pass));
        }
        assert!(parse_move("p").is_err());
    }
}
