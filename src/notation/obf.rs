//! OBF, the test-suite format of the FFO positions: `<board> <side>; F5:+12; H1:-4;` where the
//! board is a board string, each `MOVE:score` gives the exact score of a move (scores may be
//! written `+8`, `+08` or `-4`), and `%` starts a comment.

use super::board_text::{format_position, parse_position};
use super::error::NotationError;
use super::square::{format_move, parse_move};
use crate::board::{Move, Position};

/// One OBF line: a position and the listed scores of its moves (best first, as in the files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfEntry {
    pub position: Position,
    /// Moves with their exact scores for the side to move, in file order.
    pub move_scores: Vec<(Move, i32)>,
}

impl ObfEntry {
    /// Parses one line; `Ok(None)` for a blank or comment-only line.
    pub fn parse(line: &str) -> Result<Option<ObfEntry>, NotationError> {
        let content = line.split('%').next().unwrap_or("").trim();
        if content.is_empty() {
            return Ok(None);
        }
        let mut fields = content.split(';').map(str::trim);
        let position = parse_position(fields.next().unwrap_or(""))?;
        let mut move_scores = Vec::new();
        for field in fields.filter(|f| !f.is_empty()) {
            let (mv, score) = field
                .split_once(':')
                .ok_or_else(|| NotationError::new(format!("'{field}' is not MOVE:score")))?;
            let mv = parse_move(mv.trim())?;
            let score: i32 = score
                .trim()
                .parse()
                .map_err(|_| NotationError::new(format!("'{score}' is not a score")))?;
            if !(-64..=64).contains(&score) {
                return Err(NotationError::new(format!(
                    "score {score} is out of -64..64"
                )));
            }
            move_scores.push((mv, score));
        }
        Ok(Some(ObfEntry {
            position,
            move_scores,
        }))
    }

    /// The best listed score, if any.
    pub fn best_score(&self) -> Option<i32> {
        self.move_scores.iter().map(|&(_, score)| score).max()
    }
}

impl std::fmt::Display for ObfEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{};", format_position(&self.position))?;
        for (mv, score) in &self.move_scores {
            write!(f, " {}:{score:+};", format_move(*mv))?;
        }
        Ok(())
    }
}

/// Parses a whole OBF file, skipping blank and comment lines; errors name the line.
pub fn parse_obf_file(text: &str) -> Result<Vec<ObfEntry>, NotationError> {
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let entry = ObfEntry::parse(line)
            .map_err(|e| NotationError::new(format!("line {}: {e}", number + 1)))?;
        entries.extend(entry);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_line_and_prints_it_back() {
        let line = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; B1:-04; % first";
        let entry = ObfEntry::parse(line).unwrap().unwrap();
        assert_eq!(entry.move_scores.len(), 3);
        assert_eq!(entry.best_score(), Some(18));
        assert_eq!(entry.move_scores[2], (Move::Play(1), -4));
        let printed = entry.to_string();
        assert!(printed.ends_with("X; G8:+18; H1:+12; B1:-4;"));
        assert_eq!(ObfEntry::parse(&printed).unwrap().unwrap(), entry);
        assert_eq!(ObfEntry::parse("  % only a comment").unwrap(), None);
    }

    #[test]
    fn rejects_bad_scores() {
        let board = "-".repeat(64);
        assert!(ObfEntry::parse(&format!("{board} X; G8:+99;")).is_err());
        assert!(ObfEntry::parse(&format!("{board} X; G8+1;")).is_err());
        assert!(ObfEntry::parse(&format!("{board} X; Z9:+1;")).is_err());
    }
}
