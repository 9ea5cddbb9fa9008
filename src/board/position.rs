//! A [`Position`]: a board plus the colour of the side to move, for everything that speaks in
//! colours (notation, protocols, game records) rather than in "player/opponent".

use super::bitboard::{Board, Color};

/// A move: a square index (0 = a1 .. 63 = h8) or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Place a disc on the square.
    Play(u8),
    /// No legal move: the turn goes to the other side.
    Pass,
}

/// Why a move cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    #[error("the game is over")]
    GameOver,
    #[error("pass is not allowed: the side to move has a legal move")]
    PassNotAllowed,
    #[error("the side to move has no legal move and must pass")]
    MustPass,
    #[error("square is not a legal move")]
    NotLegal,
}

/// A board seen with colours: whose discs are whose, and who is to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The board from the side to move's point of view.
    pub board: Board,
    /// The colour of the side to move.
    pub side_to_move: Color,
}

impl Default for Position {
    fn default() -> Self {
        Position::START
    }
}

impl Position {
    /// The standard start position, Black to move.
    pub const START: Position = Position {
        board: Board::START,
        side_to_move: Color::Black,
    };

    /// A position from Black's and White's discs and the side to move.
    pub fn from_colors(black: u64, white: u64, side_to_move: Color) -> Position {
        let board = match side_to_move {
            Color::Black => Board::new(black, white),
            Color::White => Board::new(white, black),
        };
        Position {
            board,
            side_to_move,
        }
    }

    /// Black's discs.
    pub fn black(&self) -> u64 {
        match self.side_to_move {
            Color::Black => self.board.player,
            Color::White => self.board.opponent,
        }
    }

    /// White's discs.
    pub fn white(&self) -> u64 {
        match self.side_to_move {
            Color::Black => self.board.opponent,
            Color::White => self.board.player,
        }
    }

    /// Whether `mv` is legal here (a pass only when forced and the game is not over).
    pub fn is_legal(&self, mv: Move) -> bool {
        self.play(mv).is_ok()
    }

    /// The position after `mv`, or why it is illegal.
    pub fn play(&self, mv: Move) -> Result<Position, IllegalMove> {
        let moves = self.board.moves();
        let board = match mv {
            Move::Pass if moves != 0 => return Err(IllegalMove::PassNotAllowed),
            Move::Pass if self.board.opponent_moves() == 0 => return Err(IllegalMove::GameOver),
            Move::Pass => self.board.pass(),
            Move::Play(_) if moves == 0 && self.board.opponent_moves() == 0 => {
                return Err(IllegalMove::GameOver)
            }
            Move::Play(_) if moves == 0 => return Err(IllegalMove::MustPass),
            Move::Play(sq) if sq >= 64 || moves & (1u64 << sq) == 0 => {
                return Err(IllegalMove::NotLegal)
            }
            Move::Play(sq) => self
                .board
                .play_with_flips(sq as usize, self.board.flips(sq as usize)),
        };
        Ok(Position {
            board,
            side_to_move: self.side_to_move.other(),
        })
    }

    /// Black's final disc count with empties going to the winner (WTHOR's "score").
    pub fn black_final_discs(&self) -> u32 {
        let black = self.black().count_ones() as i32;
        let white = self.white().count_ones() as i32;
        let empties = 64 - black - white;
        let won = match black.cmp(&white) {
            std::cmp::Ordering::Greater => empties,
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Equal => empties / 2,
        };
        (black + won) as u32
    }

    /// Final disc difference from Black's point of view, empties to the winner.
    pub fn black_final_score(&self) -> i32 {
        self.for_black(self.board.final_score())
    }

    /// A score for the side to move seen from Black's side.
    pub fn for_black(&self, score: i32) -> i32 {
        match self.side_to_move {
            Color::Black => score,
            Color::White => -score,
        }
    }
}
