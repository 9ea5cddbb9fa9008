//! The last `LAST_MOVES_EMPTIES` empties: one function per count, no table and no move
//! generation (each empty square is tried for flips), the empty squares put in quadrant parity
//! order once, at the first node of this range, and handed down in that order (sorting them
//! again at each node cost more than the nodes it saved), the stability cutoff at 4 and 5
//! empties for high alphas, and the last square counting flips only.

use super::solver::{stability_bound, Solver, LAST_MOVES_EMPTIES, LAST_STABILITY_MIN_ALPHA};
use crate::board::{adjacent_empties, flips_at, last_flip_count, Board, Squares};
use crate::cpu::Isa;
use crate::eval::Evaluator;

/// The four 4x4 quadrants; an odd number of empties in a quadrant favours moving there first.
pub(super) const QUADRANTS: [u64; 4] = [
    0x0000_0000_0F0F_0F0F,
    0x0000_0000_F0F0_F0F0,
    0x0F0F_0F0F_0000_0000,
    0xF0F0_F0F0_0000_0000,
];

/// `squares` without the one at `index`, the others in order (`N` is one less than its
/// length).
#[inline]
pub(super) fn without<const N: usize>(squares: &[u8], index: usize) -> [u8; N] {
    let mut rest = [0; N];
    for (i, slot) in rest.iter_mut().enumerate() {
        *slot = squares[i + usize::from(i >= index)];
    }
    rest
}

/// Empty squares lying in quadrants with an odd number of empties.
#[inline]
pub(super) fn odd_quadrant_squares(empties: u64) -> u64 {
    QUADRANTS
        .iter()
        .filter(|&&q| (empties & q).count_ones() & 1 == 1)
        .fold(0, |acc, &q| acc | (empties & q))
}

/// The eight squares around each square: a move can flip only if one of them holds an
/// opponent disc, which is cheaper to test than computing the flips.
static NEIGHBOURS: [u64; 64] = {
    let mut masks = [0u64; 64];
    let mut square = 0;
    while square < 64 {
        masks[square] = adjacent_empties(1 << square, !(1 << square));
        square += 1;
    }
    masks
};

/// The discs `player` flips on the empty `square`, zero when the move is illegal.
#[inline]
pub(super) fn flips_if_any<I: Isa>(isa: I, square: usize, player: u64, opponent: u64) -> u64 {
    if NEIGHBOURS[square] & opponent == 0 {
        0
    } else {
        flips_at(isa, square, player, opponent)
    }
}

/// The score of a board with one empty square `square` against the null window (`alpha`,
/// `alpha + 1`), fail-soft: exact, except where the side to move cannot play there and the
/// score it would have if the opponent could not either already fails low (the opponent's
/// move only lowers it), which is returned as the bound without looking at that move.
#[inline(always)]
pub(super) fn solve_last_square(board: &Board, square: usize, alpha: i32) -> i32 {
    let player = board.player_count() as i32;
    let flipped = last_flip_count(square, board.player) as i32;
    if flipped > 0 {
        return 2 * (player + flipped) - 62;
    }
    // Neither side plays: the empty square goes to the winner.
    let diff = 2 * player - 63;
    let unplayed = if diff > 0 { diff + 1 } else { diff - 1 };
    if unplayed <= alpha {
        return unplayed;
    }
    let flipped = last_flip_count(square, board.opponent) as i32;
    if flipped > 0 {
        return 2 * (player - flipped) - 64;
    }
    unplayed
}

impl<'c, 'a, E: Evaluator<Board>> Solver<'c, 'a, E> {
    /// The last few empties: no table, no move generation (each empty square is tried for
    /// flips), the empty squares handed down as a list in quadrant parity order.
    #[inline(always)]
    pub(super) fn solve_last_body<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        empties: u32,
    ) -> i32 {
        let empty_squares = board.empties();
        let odd = odd_quadrant_squares(empty_squares);
        let mut squares = [0u8; LAST_MOVES_EMPTIES as usize];
        let mut count = 0;
        for group in [empty_squares & odd, empty_squares & !odd] {
            for square in Squares(group) {
                squares[count] = square as u8;
                count += 1;
            }
        }
        match empties {
            1 => {
                self.searcher.count_node();
                solve_last_square(board, usize::from(squares[0]), alpha)
            }
            2 => self.last_2(isa, board, alpha, [squares[0], squares[1]]),
            3 => self.last_3_at(isa, board, alpha, [squares[0], squares[1], squares[2]]),
            4 => self.last_4_at(
                isa,
                board,
                alpha,
                [squares[0], squares[1], squares[2], squares[3]],
            ),
            _ => self.last_5(isa, board, alpha, squares),
        }
    }

    /// The stability cutoff of the last empties, tried only from `LAST_STABILITY_MIN_ALPHA`.
    #[inline(always)]
    pub(super) fn last_stability_bound(
        &mut self,
        board: &Board,
        alpha: i32,
        empties: usize,
    ) -> Option<i32> {
        if alpha < LAST_STABILITY_MIN_ALPHA[empties - 4] {
            return None;
        }
        let bound = stability_bound(board, alpha)?;
        self.searcher.count_node();
        Some(bound)
    }

    /// Five empties: the stability cutoff, then the squares in the order given.
    #[inline]
    pub(super) fn last_5<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        squares: [u8; 5],
    ) -> i32 {
        if let Some(bound) = self.last_stability_bound(board, alpha, 5) {
            return bound;
        }
        self.last_moves(
            isa,
            board,
            alpha,
            &squares,
            #[inline(always)]
            |solver, child, child_alpha, played| {
                solver.last_4_at(isa, child, child_alpha, without(&squares, played))
            },
        )
    }

    /// Four empties: the stability cutoff, then the squares in the order given.
    #[inline(always)]
    pub(super) fn last_4_body<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        squares: [u8; 4],
    ) -> i32 {
        if let Some(bound) = self.last_stability_bound(board, alpha, 4) {
            return bound;
        }
        self.last_moves(
            isa,
            board,
            alpha,
            &squares,
            #[inline(always)]
            |solver, child, child_alpha, played| {
                solver.last_3_at(isa, child, child_alpha, without(&squares, played))
            },
        )
    }

    /// Three empties: the squares in the order given.
    #[inline(always)]
    pub(super) fn last_3_body<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        squares: [u8; 3],
    ) -> i32 {
        self.last_moves(
            isa,
            board,
            alpha,
            &squares,
            #[inline(always)]
            |solver, child, child_alpha, played| {
                solver.last_2(isa, child, child_alpha, without(&squares, played))
            },
        )
    }

    /// Two empties: each move leaves one square to score.
    #[inline]
    pub(super) fn last_2<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        squares: [u8; 2],
    ) -> i32 {
        self.last_moves(
            isa,
            board,
            alpha,
            &squares,
            #[inline(always)]
            |_, child, child_alpha, played| {
                solve_last_square(child, usize::from(squares[1 - played]), child_alpha)
            },
        )
    }

    /// A node of the last empties, `squares` tried in order: the best score of the side to
    /// move (fail-soft), of the opponent if it must pass, or the final score. `child_score`
    /// gives a child's score from the child's side, against the child's window.
    #[inline(always)]
    pub(super) fn last_moves<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        squares: &[u8],
        child_score: impl Fn(&mut Self, &Board, i32, usize) -> i32,
    ) -> i32 {
        if let Some(score) = self.try_squares(isa, board, alpha, squares, &child_score) {
            return score;
        }
        match self.try_squares(isa, &board.pass(), -alpha - 1, squares, &child_score) {
            Some(score) => -score,
            None => board.final_score(),
        }
    }

    /// The best score among the side to move's moves on `squares` (fail-soft), or `None` if
    /// it has none.
    #[inline(always)]
    pub(super) fn try_squares<I: Isa>(
        &mut self,
        isa: I,
        board: &Board,
        alpha: i32,
        squares: &[u8],
        child_score: &impl Fn(&mut Self, &Board, i32, usize) -> i32,
    ) -> Option<i32> {
        self.searcher.count_node();
        let mut best = None;
        for (index, &square) in squares.iter().enumerate() {
            let square = usize::from(square);
            let flipped = flips_if_any(isa, square, board.player, board.opponent);
            if flipped == 0 {
                continue;
            }
            let child = board.play_with_flips(square, flipped);
            let score = -child_score(self, &child, -alpha - 1, index);
            if score > alpha {
                return Some(score);
            }
            best = Some(best.map_or(score, |b: i32| b.max(score)));
        }
        best
    }
}
