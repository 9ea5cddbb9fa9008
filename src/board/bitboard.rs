//! [`Board`]: the position seen from the side to move, two bitboards, with the rules that act
//! on it (moves, flips, passes, scores, stable discs, symmetries, the hash); [`Color`], and
//! [`Squares`], the squares of a bitboard one by one.

use super::flips::{flips, flips_at};
use super::hash::hash_key;
use super::moves::{legal_moves, legal_moves_at};
use super::stability::stable_discs;
use super::symmetry::Symmetry;
use crate::cpu::Isa;

/// One of the two players. Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Black,
    White,
}

impl Color {
    /// The other player.
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The player's name in lower case, as GTP and the web page write it.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

/// A position from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Board {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the side that just moved.
    pub opponent: u64,
}

impl Board {
    /// The standard start position, Black to move (d5 and e4 black, d4 and e5 white).
    pub const START: Board = Board {
        player: 0x0000_0008_1000_0000,
        opponent: 0x0000_0010_0800_0000,
    };

    /// A board from the discs of the side to move and of the other side.
    pub const fn new(player: u64, opponent: u64) -> Board {
        Board { player, opponent }
    }

    /// Legal moves of the side to move as a bitboard.
    #[inline(always)]
    pub fn moves(&self) -> u64 {
        legal_moves(self.player, self.opponent)
    }

    /// [`Board::moves`] at the instruction-set level `I` (see [`crate::cpu::Isa`]).
    #[inline(always)]
    pub fn moves_at<I: Isa>(&self, isa: I) -> u64 {
        legal_moves_at(isa, self.player, self.opponent)
    }

    /// Legal moves of the side that just moved (its moves if the side to move passed).
    #[inline(always)]
    pub fn opponent_moves(&self) -> u64 {
        legal_moves(self.opponent, self.player)
    }

    /// [`Board::opponent_moves`] at the instruction-set level `I`.
    #[inline(always)]
    pub fn opponent_moves_at<I: Isa>(&self, isa: I) -> u64 {
        legal_moves_at(isa, self.opponent, self.player)
    }

    /// Discs flipped by the side to move playing `square`; zero if the move is illegal.
    #[inline(always)]
    pub fn flips(&self, square: usize) -> u64 {
        flips(square, self.player, self.opponent)
    }

    /// [`Board::flips`] at the instruction-set level `I`.
    #[inline(always)]
    pub fn flips_at<I: Isa>(&self, isa: I, square: usize) -> u64 {
        flips_at(isa, square, self.player, self.opponent)
    }

    /// The position after the side to move plays `square`, flipping `flipped`
    /// (as given by [`Board::flips`]); the other side is then to move.
    #[inline(always)]
    pub fn play_with_flips(&self, square: usize, flipped: u64) -> Board {
        Board {
            player: self.opponent ^ flipped,
            opponent: self.player ^ flipped ^ (1u64 << square),
        }
    }

    /// The position after the side to move plays `square`, or `None` if it is illegal.
    pub fn play(&self, square: usize) -> Option<Board> {
        if square >= 64 || (self.player | self.opponent) & (1u64 << square) != 0 {
            return None;
        }
        let flipped = self.flips(square);
        (flipped != 0).then(|| self.play_with_flips(square, flipped))
    }

    /// The position after the side to move passes.
    #[inline(always)]
    pub fn pass(&self) -> Board {
        Board {
            player: self.opponent,
            opponent: self.player,
        }
    }

    /// Whether the side to move has no legal move but the game goes on (it must pass).
    pub fn must_pass(&self) -> bool {
        self.moves() == 0 && self.opponent_moves() != 0
    }

    /// Whether neither side can move.
    pub fn is_game_over(&self) -> bool {
        self.moves() == 0 && self.opponent_moves() == 0
    }

    /// Empty squares as a bitboard.
    #[inline(always)]
    pub fn empties(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// Number of empty squares.
    #[inline(always)]
    pub fn empty_count(&self) -> u32 {
        self.empties().count_ones()
    }

    /// Discs of the side to move.
    #[inline(always)]
    pub fn player_count(&self) -> u32 {
        self.player.count_ones()
    }

    /// Discs of the other side.
    #[inline(always)]
    pub fn opponent_count(&self) -> u32 {
        self.opponent.count_ones()
    }

    /// The final disc difference for the side to move, empties going to the winner (the WTHOR
    /// and FFO convention). Meaningful when the game is over.
    #[inline(always)]
    pub fn final_score(&self) -> i32 {
        let player = self.player_count() as i32;
        let opponent = self.opponent_count() as i32;
        let empties = 64 - player - opponent;
        let diff = player - opponent;
        match diff.cmp(&0) {
            std::cmp::Ordering::Greater => diff + empties,
            std::cmp::Ordering::Less => diff - empties,
            std::cmp::Ordering::Equal => 0,
        }
    }

    /// Whether the discs overlap (an impossible board).
    pub fn is_valid(&self) -> bool {
        self.player & self.opponent == 0
    }

    /// Discs of the side to move that can never be flipped (a sound subset).
    #[inline(always)]
    pub fn stable_player_discs(&self) -> u64 {
        stable_discs(self.player, self.player | self.opponent)
    }

    /// Discs of the other side that can never be flipped (a sound subset).
    #[inline(always)]
    pub fn stable_opponent_discs(&self) -> u64 {
        stable_discs(self.opponent, self.player | self.opponent)
    }

    /// The same board transformed by one of the 8 symmetries of the square.
    pub fn transformed(&self, symmetry: Symmetry) -> Board {
        Board {
            player: symmetry.apply(self.player),
            opponent: symmetry.apply(self.opponent),
        }
    }

    /// The least of the 8 symmetric forms (by player, then opponent), and the symmetry that
    /// maps this board to it: one key for a position and all its mirror images.
    pub fn canonical(&self) -> (Board, Symmetry) {
        Symmetry::ALL
            .iter()
            .map(|&symmetry| (self.transformed(symmetry), symmetry))
            .min_by_key(|(b, _)| (b.player, b.opponent))
            .expect("there are 8 symmetries")
    }

    /// A 64-bit key for the transposition table.
    #[inline(always)]
    pub fn hash_key(&self) -> u64 {
        hash_key(self.player, self.opponent)
    }
}

/// Iterates over the squares (bit indices) set in a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Squares(pub u64);

impl Iterator for Squares {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let square = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(square)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_score_gives_empties_to_the_winner() {
        let board = Board::new(0xFF, 0xFF00);
        assert_eq!(board.final_score(), 0);
        let board = Board::new(0xFFF, 0xF000);
        assert_eq!(board.final_score(), 12 - 4 + 48);
        assert_eq!(board.pass().final_score(), -(12 - 4 + 48));
    }

    #[test]
    fn play_rejects_occupied_and_non_flipping_squares() {
        let board = Board::START;
        assert!(board.play(27).is_none());
        assert!(board.play(0).is_none());
        let after = board.play(37).expect("f5 is legal");
        assert_eq!(after.player_count(), 1);
        assert_eq!(after.opponent_count(), 4);
    }
}
