//! WTHOR game databases (`.wtb`): a 16-byte header then 68-byte game records. A record holds the
//! tournament, Black and White player numbers (u16 little-endian), Black's real final disc count,
//! Black's "theoretical" disc count (perfect play from `depth` empties on), and 60 move bytes
//! `10 * row + column` (1-based; 0 = no move). Passes are implicit.

use super::error::NotationError;
use crate::board::{Move, Position};

const HEADER_BYTES: usize = 16;
const RECORD_BYTES: usize = 68;

/// The file header fields that matter for reading and writing games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WthorHeader {
    /// Creation date: century, year in century, month, day.
    pub created: [u8; 4],
    /// The year the games were played.
    pub game_year: u16,
    /// Empties from which the theoretical score is perfect play.
    pub theoretical_depth: u8,
}

/// One game of a WTHOR file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorGame {
    pub tournament: u16,
    pub black_player: u16,
    pub white_player: u16,
    /// Black's disc count at the end of the game as played.
    pub black_discs: u8,
    /// Black's disc count with perfect play from `theoretical_depth` empties.
    pub theoretical_black_discs: u8,
    /// The moves as squares (0 = a1 .. 63 = h8), passes left out.
    pub squares: Vec<u8>,
}

impl WthorGame {
    /// Replays the game from the start position, inserting forced passes; returns the moves
    /// with passes explicit and the final position, or where the record is illegal.
    pub fn replay(&self) -> Result<(Vec<Move>, Position), NotationError> {
        let mut position = Position::START;
        let mut moves = Vec::with_capacity(self.squares.len() + 2);
        for (i, &square) in self.squares.iter().enumerate() {
            if position.board.must_pass() {
                moves.push(Move::Pass);
                position = position.play(Move::Pass).expect("forced pass is legal");
            }
            position = position.play(Move::Play(square)).map_err(|why| {
                NotationError::new(format!(
                    "move {} ({}) is illegal: {why}",
                    i + 1,
                    super::square::format_square(square)
                ))
            })?;
            moves.push(Move::Play(square));
        }
        Ok((moves, position))
    }
}

/// A whole WTHOR file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorFile {
    pub header: WthorHeader,
    pub games: Vec<WthorGame>,
}

/// Parses the bytes of a WTHOR `.wtb` file.
pub fn read_wthor_file(bytes: &[u8]) -> Result<WthorFile, NotationError> {
    if bytes.len() < HEADER_BYTES {
        return Err(NotationError::new("a WTHOR file needs a 16-byte header"));
    }
    let count = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    let board_size = bytes[12];
    if board_size != 0 && board_size != 8 {
        return Err(NotationError::new(format!(
            "only 8x8 WTHOR files are supported (board size {board_size})"
        )));
    }
    let body = &bytes[HEADER_BYTES..];
    if body.len() != count * RECORD_BYTES {
        return Err(NotationError::new(format!(
            "header says {count} games ({} bytes) but {} bytes follow",
            count * RECORD_BYTES,
            body.len()
        )));
    }
    let header = WthorHeader {
        created: [bytes[0], bytes[1], bytes[2], bytes[3]],
        game_year: u16::from_le_bytes([bytes[10], bytes[11]]),
        theoretical_depth: bytes[14],
    };
    let games = body
        .chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(i, record)| {
            parse_record(record).map_err(|e| NotationError::new(format!("game {}: {e}", i + 1)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(WthorFile { header, games })
}

fn parse_record(record: &[u8]) -> Result<WthorGame, NotationError> {
    let word = |at: usize| u16::from_le_bytes([record[at], record[at + 1]]);
    let mut squares = Vec::with_capacity(60);
    let mut ended = false;
    for &byte in &record[8..] {
        if byte == 0 {
            ended = true;
            continue;
        }
        let (row, col) = (byte / 10, byte % 10);
        if ended || !(1..=8).contains(&row) || !(1..=8).contains(&col) {
            return Err(NotationError::new(format!("bad move byte {byte}")));
        }
        squares.push((row - 1) * 8 + (col - 1));
    }
    Ok(WthorGame {
        tournament: word(0),
        black_player: word(2),
        white_player: word(4),
        black_discs: record[6],
        theoretical_black_discs: record[7],
        squares,
    })
}

/// Writes games as the bytes of a WTHOR `.wtb` file.
pub fn write_wthor(file: &WthorFile) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_BYTES + file.games.len() * RECORD_BYTES);
    bytes.extend_from_slice(&file.header.created);
    bytes.extend_from_slice(&(file.games.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&0u16.to_le_bytes());
    bytes.extend_from_slice(&file.header.game_year.to_le_bytes());
    bytes.extend_from_slice(&[8, 0, file.header.theoretical_depth, 0]);
    for game in &file.games {
        bytes.extend_from_slice(&game.tournament.to_le_bytes());
        bytes.extend_from_slice(&game.black_player.to_le_bytes());
        bytes.extend_from_slice(&game.white_player.to_le_bytes());
        bytes.push(game.black_discs);
        bytes.push(game.theoretical_black_discs);
        let mut moves = [0u8; 60];
        for (slot, &sq) in moves.iter_mut().zip(&game.squares) {
            *slot = (sq / 8 + 1) * 10 + sq % 8 + 1;
        }
        bytes.extend_from_slice(&moves);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_truncated_files() {
        assert!(read_wthor_file(&[0; 10]).is_err());
        let mut bytes = vec![0u8; 16];
        bytes[4] = 1;
        assert!(read_wthor_file(&bytes).is_err());
    }
}
