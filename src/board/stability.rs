//! Stable discs: discs that can never be flipped again, whatever is played. Used to bound the
//! final score in the endgame solver. The set found is sound (every disc in it is stable) but
//! not complete. It starts from the exactly stable discs of the four edges (a disc on an edge
//! can only be flipped along that edge, so a table over every edge arrangement settles them)
//! and the discs whose four lines are full; then a disc is added when, along each of the four
//! lines through it, the line is full or it rests against the board's edge or a stable disc of
//! its own colour, until nothing more is added.

use std::sync::LazyLock;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;
const ROW_1: u64 = 0x0000_0000_0000_00FF;
const ROW_8: u64 = 0xFF00_0000_0000_0000;
const BORDER: u64 = FILE_A | FILE_H | ROW_1 | ROW_8;

/// Squares whose whole line along `shift` (7 or 9) is occupied. `top` holds the squares with
/// no neighbour `shift` above them on that line, `bottom` those with none below; a first pass
/// finds the squares occupied from themselves up to the top end, by doubling steps, and a
/// second spreads the answer of each line's bottom square up the line.
#[inline]
fn full_diagonals(occupied: u64, shift: u32, top: u64, bottom: u64) -> u64 {
    let top2 = top | (top >> shift);
    let top4 = top2 | (top2 >> (2 * shift));
    let mut up = occupied & ((occupied >> shift) | top);
    up &= (up >> (2 * shift)) | top2;
    up &= (up >> (4 * shift)) | top4;
    let bottom2 = bottom | (bottom << shift);
    let bottom4 = bottom2 | (bottom2 << (2 * shift));
    let mut full = up & bottom;
    full |= (full << shift) & !bottom;
    full |= (full << (2 * shift)) & !bottom2;
    full |= (full << (4 * shift)) & !bottom4;
    full
}

/// Squares whose row, column, diagonal and anti-diagonal are full, one mask per line kind.
#[inline]
fn full_lines(occupied: u64) -> [u64; 4] {
    let mut rows = occupied;
    rows &= rows >> 4;
    rows &= rows >> 2;
    rows &= rows >> 1;
    let rows = (rows & FILE_A) * 0xFF;
    let mut cols = occupied;
    cols &= cols.rotate_right(8);
    cols &= cols.rotate_right(16);
    cols &= cols.rotate_right(32);
    let diagonal = full_diagonals(occupied, 9, FILE_H | ROW_8, FILE_A | ROW_1);
    let anti = full_diagonals(occupied, 7, FILE_A | ROW_8, FILE_H | ROW_1);
    [rows, cols, diagonal, anti]
}

/// The result of `mover` playing on `square` (0-7) of one line of eight squares where the
/// other colour holds `waiting`: both colours' squares afterwards, flips along the line only.
fn play_on_line(mover: u8, waiting: u8, square: u32) -> (u8, u8) {
    let mut flips = 0u8;
    for step in [-1i32, 1] {
        let mut run = 0u8;
        let mut at = square as i32 + step;
        while (0..8).contains(&at) && waiting >> at & 1 == 1 {
            run |= 1 << at;
            at += step;
        }
        if (0..8).contains(&at) && mover >> at & 1 == 1 {
            flips |= run;
        }
    }
    (mover | 1 << square | flips, waiting & !flips)
}

/// Index of an edge arrangement in [`EDGE_STABLE`]: `own` in the low byte, `other` above.
#[inline]
fn edge_index(own: u8, other: u8) -> usize {
    usize::from(own) | usize::from(other) << 8
}

/// For every arrangement of one edge (see [`edge_index`]), the `own` discs that no sequence
/// of moves on its empty squares, by either colour in any order, can flip. Built from the
/// full edges down: a disc is stable when it keeps its colour and stays stable after every
/// possible next move.
fn edge_stability_table() -> Box<[u8; 1 << 16]> {
    let mut table = Box::new([0u8; 1 << 16]);
    for empties in 0..=8 {
        for own in 0..=u8::MAX {
            for other in 0..=u8::MAX {
                let free = !(own | other);
                if own & other != 0 || free.count_ones() != empties {
                    continue;
                }
                let mut stable = own;
                for square in (0..8).filter(|s| free >> s & 1 == 1) {
                    let (own_after, other_after) = play_on_line(own, other, square);
                    stable &= table[edge_index(own_after, other_after)];
                    let (other_after, own_after) = play_on_line(other, own, square);
                    stable &= table[edge_index(own_after, other_after)];
                }
                table[edge_index(own, other)] = stable;
            }
        }
    }
    table
}

/// Stable own discs of every edge arrangement, built on first use.
static EDGE_STABLE: LazyLock<Box<[u8; 1 << 16]>> = LazyLock::new(edge_stability_table);

/// The squares of file A, as a bitboard, of each byte (bit `i` is row `i`).
const FILE_A_OF_BYTE: [u64; 256] = {
    let mut spread = [0u64; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut row = 0;
        while row < 8 {
            if byte >> row & 1 == 1 {
                spread[byte] |= 1 << (8 * row);
            }
            row += 1;
        }
        byte += 1;
    }
    spread
};

/// File A of `discs` packed into a byte, row `i` in bit `i`.
#[inline]
fn file_a_byte(discs: u64) -> u8 {
    ((discs & FILE_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// The exactly stable `discs` of the four edges, the other colour holding `others`.
#[inline]
fn edge_stable_discs(discs: u64, others: u64) -> u64 {
    let table = &**EDGE_STABLE;
    let row = |shift: u32| {
        let index = edge_index((discs >> shift) as u8, (others >> shift) as u8);
        u64::from(table[index]) << shift
    };
    let file = |shift: u32| {
        let index = edge_index(file_a_byte(discs >> shift), file_a_byte(others >> shift));
        FILE_A_OF_BYTE[usize::from(table[index])] << shift
    };
    row(0) | row(56) | file(0) | file(7)
}

/// A set of `discs` that can never be flipped, given all discs `occupied`.
#[inline(always)]
pub fn stable_discs(discs: u64, occupied: u64) -> u64 {
    let [rows, cols, diagonal, anti] = full_lines(occupied);
    let mut stable =
        edge_stable_discs(discs, occupied & !discs) | (discs & rows & cols & diagonal & anti);
    loop {
        let horizontal =
            rows | FILE_A | FILE_H | ((stable << 1) & !FILE_A) | ((stable >> 1) & !FILE_H);
        let vertical = cols | ROW_1 | ROW_8 | (stable << 8) | (stable >> 8);
        let diag = diagonal | BORDER | ((stable << 9) & !FILE_A) | ((stable >> 9) & !FILE_H);
        let anti_diag = anti | BORDER | ((stable << 7) & !FILE_H) | ((stable >> 7) & !FILE_A);
        let next = stable | (discs & horizontal & vertical & diag & anti_diag);
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The squares of `occupied` whose line through `step` (d_col, d_row) is full, square by
    /// square.
    fn full_by_walking(occupied: u64, (d_col, d_row): (i32, i32)) -> u64 {
        let on_board = |col: i32, row: i32| (0..8).contains(&col) && (0..8).contains(&row);
        let mut full = 0;
        for square in 0..64 {
            let (col, row) = (square % 8, square / 8);
            let mut all = true;
            for sense in [1, -1] {
                let (mut c, mut r) = (col, row);
                while on_board(c, r) {
                    all &= occupied & 1 << (r * 8 + c) != 0;
                    c += sense * d_col;
                    r += sense * d_row;
                }
            }
            if all {
                full |= 1 << square;
            }
        }
        full
    }

    #[test]
    fn full_lines_match_a_square_by_square_walk() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..4000 {
            crate::board::xorshift(&mut state);
            // Dense boards, so that full lines of every kind occur.
            let holes = round % 12;
            let mut occupied = u64::MAX;
            let mut bits = state;
            for _ in 0..holes {
                occupied &= !(1 << (bits % 64));
                bits = bits.rotate_left(11) ^ 0x9E37_79B9_7F4A_7C15;
            }
            let expected = [(1, 0), (0, 1), (1, 1), (1, -1)].map(|d| full_by_walking(occupied, d));
            assert_eq!(full_lines(occupied), expected, "occupied {occupied:#018x}");
        }
    }

    #[test]
    fn corners_are_stable_and_lone_centre_discs_are_not() {
        let occupied = 1 | 1 << 27 | 1 << 36;
        assert_eq!(stable_discs(1 | 1 << 27, occupied), 1);
        let full = u64::MAX;
        assert_eq!(stable_discs(0xF0F0, full), 0xF0F0);
    }

    #[test]
    fn an_edge_disc_that_no_sequence_of_edge_moves_can_flip_is_stable() {
        // Row 1: a1 O, b1 X, c1-g1 O, h1 empty. Whoever plays h1, b1 stays X (X at h1 flips
        // c1-g1 and fills the row); no neighbour-by-neighbour rule sees it.
        let x = 1 << 1;
        let o = 1 | 0b0111_1100;
        assert_eq!(stable_discs(x, x | o), x);
        assert_eq!(stable_discs(o, x | o), 1, "X at h1 flips c1-g1");
    }

    #[test]
    fn file_edges_are_packed_and_spread_back_square_for_square() {
        for byte in 0..=u8::MAX {
            let file = FILE_A_OF_BYTE[usize::from(byte)];
            assert_eq!(file & !FILE_A, 0);
            assert_eq!(file_a_byte(file), byte);
            assert_eq!(file_a_byte(file | !FILE_A), byte, "other files are ignored");
        }
    }

    #[test]
    fn an_edge_run_from_a_corner_is_stable() {
        let run = 0b0000_0111u64; // a1, b1, c1
        assert_eq!(stable_discs(run, run), run);
    }
}
