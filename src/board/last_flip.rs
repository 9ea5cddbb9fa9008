//! The number of discs flipped by a move on the last empty square. With one square empty,
//! every other square holds a disc, so the count depends on the mover's discs alone: along each
//! line through the square, the mover's discs gathered into a byte index a table of counts.
//! The bytes are gathered by shifts and multiplications (a row is a byte already; a column's
//! bits multiplied by a constant land in the top byte by rank; a diagonal's, multiplied by
//! 0x0101..01, by file), which every 64-bit CPU does fast: bit extraction (`pext`) gathers
//! them too, but is microcoded, and slow, on AMD processors before Zen 3.

use super::flips::LINES;

/// Flips along one line, by the square's position in the line (0-7) and the mover's discs on
/// the line as a byte (bit i: position i, the file along a row or a diagonal, the rank along a
/// column); every other position of the line holds an opponent disc, and positions off the
/// line read as empty, which never close a run.
static LINE_FLIP_COUNTS: [[u8; 256]; 8] = build_line_flip_counts();

const fn build_line_flip_counts() -> [[u8; 256]; 8] {
    let mut counts = [[0u8; 256]; 8];
    let mut position = 0;
    while position < 8 {
        let mut pattern = 0;
        while pattern < 256 {
            counts[position][pattern] =
                run_to_own_disc(pattern, position, 1) + run_to_own_disc(pattern, position, -1);
            pattern += 1;
        }
        position += 1;
    }
    counts
}

/// The opponent discs between `position` and the mover's first disc in direction `step`, or 0
/// when the run reaches the end of the byte without one.
const fn run_to_own_disc(pattern: usize, position: usize, step: isize) -> u8 {
    let mut at = position as isize + step;
    let mut run = 0;
    while at >= 0 && at < 8 {
        if pattern & (1 << at) != 0 {
            return run;
        }
        run += 1;
        at += step;
    }
    0
}

/// The squares of file a.
const FILE_A: u64 = 0x0101_0101_0101_0101;
/// Multiplying the discs of file a by this puts the disc of rank r on bit 56 + r.
const FILE_TO_TOP_BYTE: u64 = 0x0102_0408_1020_4080;

/// For each square, its two diagonals (with the square), whose discs multiplied by
/// [`FILE_A`] land in the top byte by file: each diagonal holds one square a file.
static DIAGONALS: [[u64; 2]; 64] = build_diagonals();

const fn build_diagonals() -> [[u64; 2]; 64] {
    let mut diagonals = [[0u64; 2]; 64];
    let mut square = 0;
    while square < 64 {
        let bit = 1u64 << square;
        diagonals[square] = [LINES[square][2] | bit, LINES[square][3] | bit];
        square += 1;
    }
    diagonals
}

/// How many discs `mover` flips by playing `square` when it is the only empty square (every
/// square but `square` outside `mover` holds an opponent disc). Zero means the move is illegal.
#[inline]
pub fn last_flip_count(square: usize, mover: u64) -> u32 {
    let (file, rank) = (square % 8, square / 8);
    let row = (mover >> (8 * rank)) as u8;
    let column = (((mover >> file) & FILE_A).wrapping_mul(FILE_TO_TOP_BYTE) >> 56) as u8;
    let [diagonal, anti_diagonal] =
        DIAGONALS[square].map(|line| ((mover & line).wrapping_mul(FILE_A) >> 56) as u8);
    let count =
        |position: usize, pattern: u8| u32::from(LINE_FLIP_COUNTS[position][usize::from(pattern)]);
    count(file, row) + count(rank, column) + count(file, diagonal) + count(file, anti_diagonal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::flips_portable;

    #[test]
    fn the_count_equals_the_flips_on_random_full_boards() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            crate::board::xorshift(&mut state);
            for square in 0..64 {
                let mover = state & !(1u64 << square);
                let opponent = !mover & !(1u64 << square);
                assert_eq!(
                    last_flip_count(square, mover),
                    flips_portable(square, mover, opponent).count_ones(),
                    "square {square}, mover {mover:#018x}"
                );
            }
        }
    }

    #[test]
    fn a_corner_closing_a_full_row_flips_the_run() {
        // a1 empty; the mover holds h1 only on row 1, the opponent b1..g1; nothing else of the
        // mover's touches a1's column or diagonal.
        let mover = 1u64 << 7;
        assert_eq!(last_flip_count(0, mover), 6);
    }
}
