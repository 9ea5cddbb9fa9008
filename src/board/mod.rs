//! The rules of Othello on bitboards. A [`Board`] is seen from the side to move: `player` holds
//! its discs, `opponent` the other side's; bit 0 is a1 (top-left), bit 7 h1, bit 63 h8.

mod bitboard;
mod flips;
mod hash;
mod last_flip;
mod moves;
mod position;
mod stability;
mod symmetry;

pub use bitboard::{Board, Color, Squares};
pub use flips::{flips, flips_at, flips_portable};
pub use hash::hash_key;
pub use last_flip::last_flip_count;
pub use moves::{adjacent_empties, legal_moves, legal_moves_at, legal_moves_portable};
pub use position::{IllegalMove, Move, Position};
pub use stability::stable_discs;
pub use symmetry::Symmetry;

/// One step of a xorshift generator: the fixed, reproducible random bits the board tests sweep
/// boards with.
#[cfg(test)]
pub(crate) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[cfg(target_arch = "x86_64")]
pub use flips::{flips_avx2, flips_avx512};
#[cfg(target_arch = "x86_64")]
pub use moves::legal_moves_avx2;
