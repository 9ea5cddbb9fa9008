//! Move transcripts such as `f5d6c3d3c4`: squares written one after another, case-insensitive,
//! whitespace ignored. Passes may be written (`pa`, `ps`, `--`) or left out; the parser inserts
//! forced passes, so the returned list always has them explicitly. The printer leaves them out.

use super::error::NotationError;
use super::square::parse_move;
use crate::board::{Move, Position};

/// Parses transcripts from the start, one a line, as opening lists and position files hold
/// them; blank lines and `%` or `#` comments are skipped. Returns each game's moves (passes
/// explicit) and final position, or the first bad line's number and fault.
pub fn parse_transcript_lines(text: &str) -> Result<Vec<(Vec<Move>, Position)>, String> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i, line.split(['%', '#']).next().unwrap_or("").trim()))
        .filter(|(_, line)| !line.is_empty())
        .map(|(i, line)| {
            parse_transcript(line, &Position::START).map_err(|e| format!("line {}: {e}", i + 1))
        })
        .collect()
}

/// Parses a transcript played from `start`, checking every move; returns the moves with every
/// pass explicit, and the final position.
pub fn parse_transcript(
    text: &str,
    start: &Position,
) -> Result<(Vec<Move>, Position), NotationError> {
    let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let mut moves = Vec::with_capacity(compact.len() / 2);
    let mut position = *start;
    let mut at = 0;
    while at < compact.len() {
        let len = if compact[at..].len() >= 4 && compact[at..at + 4].eq_ignore_ascii_case(b"pass") {
            4
        } else {
            2
        };
        let token = compact.get(at..at + len).ok_or_else(|| {
            NotationError::new(format!(
                "transcript ends in the middle of a move at {}",
                at + 1
            ))
        })?;
        let token = std::str::from_utf8(token)
            .map_err(|_| NotationError::new("transcript is not ASCII"))?;
        let mv = parse_move(token)?;
        if let Move::Play(_) = mv {
            if position.board.must_pass() {
                moves.push(Move::Pass);
                position = position.play(Move::Pass).expect("forced pass is legal");
            }
        }
        position = position.play(mv).map_err(|why| {
            NotationError::new(format!(
                "move {} ({token}) is illegal: {why}",
                moves.len() + 1
            ))
        })?;
        moves.push(mv);
        at += len;
    }
    Ok((moves, position))
}

/// Prints moves as a lower-case transcript without separators, passes left out.
pub fn format_transcript(moves: &[Move]) -> String {
    moves
        .iter()
        .filter_map(|mv| match mv {
            Move::Play(sq) => Some(super::square::format_square(*sq).to_ascii_lowercase()),
            Move::Pass => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_transcripts_skip_comments_and_name_a_bad_line() {
        let games = parse_transcript_lines("# two games\n\nf5d6 % an opening\n  f5f6e6\n").unwrap();
        let moves: Vec<String> = games.iter().map(|(m, _)| format_transcript(m)).collect();
        assert_eq!(moves, ["f5d6", "f5f6e6"]);
        assert_eq!(
            games[1].1,
            parse_transcript("f5f6e6", &Position::START).unwrap().1
        );
        let fault = parse_transcript_lines("f5d6\n# fine\nf5f5\n").unwrap_err();
        assert!(fault.starts_with("line 3: "), "{fault}");
    }

    #[test]
    fn parses_and_prints_an_opening() {
        let (moves, _) = parse_transcript("F5d6 C3", &Position::START).unwrap();
        assert_eq!(moves, vec![Move::Play(37), Move::Play(43), Move::Play(18)]);
        assert_eq!(format_transcript(&moves), "f5d6c3");
    }

    #[test]
    fn rejects_illegal_and_truncated() {
        assert!(parse_transcript("a1", &Position::START).is_err());
        assert!(parse_transcript("f5d", &Position::START).is_err());
        assert!(parse_transcript("pa", &Position::START).is_err());
    }
}
