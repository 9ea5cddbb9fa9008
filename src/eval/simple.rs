//! A hand-made evaluation good enough to play sensibly: mobility, potential mobility (frontier),
//! corners, X- and C-squares next to empty corners, parity and, late, the disc difference.

use super::evaluator::Evaluator;
use crate::board::Board;

const CORNERS: u64 = 0x8100_0000_0000_0081;
/// Squares diagonally next to a corner (b2, g2, b7, g7), paired with their corner.
const X_SQUARES: [(u64, u64); 4] = [
    (1 << 9, 1 << 0),
    (1 << 14, 1 << 7),
    (1 << 49, 1 << 56),
    (1 << 54, 1 << 63),
];
/// Edge squares next to a corner (b1, a2, g1, h2, a7, b8, h7, g8), paired with their corner.
const C_SQUARES: [(u64, u64); 4] = [
    ((1 << 1) | (1 << 8), 1 << 0),
    ((1 << 6) | (1 << 15), 1 << 7),
    ((1 << 48) | (1 << 57), 1 << 56),
    ((1 << 55) | (1 << 62), 1 << 63),
];

/// The hand-made evaluation.
#[derive(Clone, Copy, Debug, Default)]
pub struct SimpleEvaluator;

/// Empty squares next to any disc of `discs` (where `discs` could be outflanked later).
fn frontier(discs: u64, empties: u64) -> u32 {
    let spread = ((discs << 1) & 0xFEFE_FEFE_FEFE_FEFE)
        | ((discs >> 1) & 0x7F7F_7F7F_7F7F_7F7F)
        | (discs << 8)
        | (discs >> 8)
        | ((discs << 9) & 0xFEFE_FEFE_FEFE_FEFE)
        | ((discs >> 9) & 0x7F7F_7F7F_7F7F_7F7F)
        | ((discs << 7) & 0x7F7F_7F7F_7F7F_7F7F)
        | ((discs >> 7) & 0xFEFE_FEFE_FEFE_FEFE);
    (spread & empties).count_ones()
}

impl SimpleEvaluator {
    /// The score in hundredths of a disc, before rounding.
    pub fn centidiscs(&self, board: &Board) -> i32 {
        let (p, o) = (board.player, board.opponent);
        let empties = board.empties();
        let empty_count = empties.count_ones() as i32;
        let my_moves = board.moves().count_ones() as i32;
        let their_moves = board.opponent_moves().count_ones() as i32;

        let mobility = 100 * (my_moves - their_moves) * 10 / (my_moves + their_moves + 2);
        let potential = 12 * (frontier(o, empties) as i32 - frontier(p, empties) as i32);
        let corners = 380 * ((p & CORNERS).count_ones() as i32 - (o & CORNERS).count_ones() as i32);
        let mut risky = 0;
        for (x, corner) in X_SQUARES {
            if empties & corner != 0 {
                risky += 160 * (((o & x) != 0) as i32 - ((p & x) != 0) as i32);
            }
        }
        for (c, corner) in C_SQUARES {
            if empties & corner != 0 {
                risky += 50 * ((o & c).count_ones() as i32 - (p & c).count_ones() as i32);
            }
        }
        let parity = if empty_count % 2 == 1 { 40 } else { -40 };
        let disc_weight = (20 - empty_count).max(0) * 4;
        let discs = disc_weight * (p.count_ones() as i32 - o.count_ones() as i32);
        mobility + potential + corners + risky + parity + discs
    }
}

impl Evaluator<Board> for SimpleEvaluator {
    fn evaluate(&self, board: &Board) -> i32 {
        let centi = self.centidiscs(board);
        ((centi + centi.signum() * 50) / 100).clamp(-63, 63)
    }
}
