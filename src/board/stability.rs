//! Stable discs: discs that can never be flipped again, whatever is played. Used to bound the
//! final score in the endgame solver. The set found is sound (every disc in it is stable) but
//! not complete: a disc is taken as stable when, along each of the four lines through it, the
//! line is full or it rests against the board's edge or a stable disc of its own colour.

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;
const ROW_1: u64 = 0x0000_0000_0000_00FF;
const ROW_8: u64 = 0xFF00_0000_0000_0000;
const BORDER: u64 = FILE_A | FILE_H | ROW_1 | ROW_8;

/// The 15 diagonals (a1-h8 direction) and 15 anti-diagonals (h1-a8 direction).
static DIAGONALS: [u64; 30] = build_diagonals();

const fn build_diagonals() -> [u64; 30] {
    let mut masks = [0u64; 30];
    let mut sq = 0;
    while sq < 64 {
        let (col, row) = (sq % 8, sq / 8);
        masks[col + 7 - row] |= 1 << sq;
        masks[15 + col + row] |= 1 << sq;
        sq += 1;
    }
    masks
}

/// Squares whose row, column, diagonal and anti-diagonal are full, one mask per line kind.
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
    let mut diagonal = 0;
    let mut anti = 0;
    for (i, &mask) in DIAGONALS.iter().enumerate() {
        if occupied & mask == mask {
            if i < 15 {
                diagonal |= mask;
            } else {
                anti |= mask;
            }
        }
    }
    [rows, cols, diagonal, anti]
}

/// A set of `discs` that can never be flipped, given all discs `occupied`.
pub fn stable_discs(discs: u64, occupied: u64) -> u64 {
    let [rows, cols, diagonal, anti] = full_lines(occupied);
    let mut stable = 0u64;
    loop {
        let horizontal =
            rows | FILE_A | FILE_H | ((stable << 1) & !FILE_A) | ((stable >> 1) & !FILE_H);
        let vertical = cols | ROW_1 | ROW_8 | (stable << 8) | (stable >> 8);
        let diag = diagonal | BORDER | ((stable << 9) & !FILE_A) | ((stable >> 9) & !FILE_H);
        let anti_diag = anti | BORDER | ((stable << 7) & !FILE_H) | ((stable >> 7) & !FILE_A);
        let next = discs & horizontal & vertical & diag & anti_diag;
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_are_stable_and_lone_centre_discs_are_not() {
        let occupied = 1 | 1 << 27 | 1 << 36;
        assert_eq!(stable_discs(1 | 1 << 27, occupied), 1);
        let full = u64::MAX;
        assert_eq!(stable_discs(0xF0F0, full), 0xF0F0);
    }

    #[test]
    fn an_edge_run_from_a_corner_is_stable() {
        let run = 0b0000_0111u64; // a1, b1, c1
        assert_eq!(stable_discs(run, run), run);
    }
}
