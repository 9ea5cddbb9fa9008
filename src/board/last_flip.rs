//! The number of discs flipped by a move on the last empty square. With one square empty,
//! every other square holds a disc, so the count depends on the mover's discs alone: along each
//! line through the square, the mover's discs gathered into a byte index a table of counts.

use super::flips::LINES;

/// Flips along one line, by the square's position in the line (0-7) and the mover's discs on
/// the line as a byte (bit i: position i); every other position holds an opponent disc, and
/// positions past the line's end read as empty, which never close a run.
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

/// For each square, its four lines with the square included, and the square's position in
/// each of them counted from the line's lowest square.
static SQUARE_LINES: [[(u64, u8); 4]; 64] = build_square_lines();

const fn build_square_lines() -> [[(u64, u8); 4]; 64] {
    let mut lines = [[(0u64, 0u8); 4]; 64];
    let mut square = 0;
    while square < 64 {
        let bit = 1u64 << square;
        let mut kind = 0;
        while kind < 4 {
            let line = LINES[square][kind] | bit;
            lines[square][kind] = (line, (line & (bit - 1)).count_ones() as u8);
            kind += 1;
        }
        square += 1;
    }
    lines
}

/// How many discs `mover` flips by playing `square` when it is the only empty square (every
/// square but `square` outside `mover` holds an opponent disc). Zero means the move is illegal.
#[inline]
pub fn last_flip_count(square: usize, mover: u64) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        SQUARE_LINES[square]
            .iter()
            .map(|&(line, position)| {
                // SAFETY: the build targets BMI2, so every CPU this binary runs on has PEXT.
                let pattern = unsafe { std::arch::x86_64::_pext_u64(mover, line) };
                u32::from(LINE_FLIP_COUNTS[usize::from(position)][pattern as usize])
            })
            .sum()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let opponent = !mover & !(1u64 << square);
        super::flips(square, mover, opponent).count_ones()
    }
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
