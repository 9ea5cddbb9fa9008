//! Discs flipped by a move. For each of the four lines through the square, the part beyond the
//! square ("up", higher bits) and the part before it ("down") are handled with bit scans: the
//! first non-opponent square along the line must hold a player disc, and everything between is
//! flipped. A portable version and an AVX-512 version do that with bit scans; the AVX2 version
//! (no per-lane bit scan) finds the runs below the square with an occluded fill instead.
//! `flips` takes the widest version of the level `crate::cpu` chose (or known at build time
//! when the build targets it), `flips_at` that of the level its caller is compiled for.

use crate::cpu::{Isa, IsaDetected};

/// The four full lines (row, column, diagonal, anti-diagonal) through each square, the square
/// itself excluded.
pub(super) static LINES: [[u64; 4]; 64] = build_lines();

const fn ray(square: i32, d_col: i32, d_row: i32) -> u64 {
    let mut bits = 0u64;
    let mut col = square % 8 + d_col;
    let mut row = square / 8 + d_row;
    while col >= 0 && col < 8 && row >= 0 && row < 8 {
        bits |= 1u64 << (row * 8 + col);
        col += d_col;
        row += d_row;
    }
    bits
}

const fn build_lines() -> [[u64; 4]; 64] {
    let mut lines = [[0u64; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let s = sq as i32;
        lines[sq] = [
            ray(s, 1, 0) | ray(s, -1, 0),
            ray(s, 0, 1) | ray(s, 0, -1),
            ray(s, 1, 1) | ray(s, -1, -1),
            ray(s, 1, -1) | ray(s, -1, 1),
        ];
        sq += 1;
    }
    lines
}

/// The opponent discs flipped when `player` plays on the empty `square` (0 = a1 .. 63 = h8).
/// Zero means the move is illegal. Uses the widest SIMD version the CPU has.
#[inline(always)]
pub fn flips(square: usize, player: u64, opponent: u64) -> u64 {
    flips_at(IsaDetected, square, player, opponent)
}

/// [`flips`] at the instruction-set level `I`: the AVX2 version at x86-64-v3, the AVX-512 one
/// at x86-64-v4.
#[inline(always)]
pub fn flips_at<I: Isa>(isa: I, square: usize, player: u64, opponent: u64) -> u64 {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = isa;
    #[cfg(target_arch = "x86_64")]
    {
        use crate::cpu::Level;
        let level = isa.level();
        if cfg!(all(
            target_feature = "avx512cd",
            target_feature = "avx512vl"
        )) || level == Level::V4
        {
            // SAFETY: the CPU has AVX-512 CD and VL (and so F and AVX2).
            return unsafe { flips_avx512(square, player, opponent) };
        }
        if cfg!(target_feature = "avx2") || level == Level::V3 {
            // SAFETY: the CPU has AVX2.
            return unsafe { flips_avx2(square, player, opponent) };
        }
    }
    flips_portable(square, player, opponent)
}

/// Portable flips with scalar bit scans; the reference for the SIMD version.
#[inline]
pub fn flips_portable(square: usize, player: u64, opponent: u64) -> u64 {
    let above = u64::MAX.wrapping_shl(1).wrapping_shl(square as u32);
    let below = (1u64 << square) - 1;
    let mut flipped = 0;
    for &line in &LINES[square] {
        let up = line & above;
        let run_end = up & !opponent;
        let outflank = run_end & run_end.wrapping_neg() & player;
        flipped |= outflank.wrapping_sub((outflank != 0) as u64) & up;

        let down = line & below;
        let run_end = down & !opponent;
        let outflank =
            (0x8000_0000_0000_0000u64 >> (run_end | 1).leading_zeros()) & run_end & player;
        flipped |= outflank.wrapping_shl(1).wrapping_neg() & down;
    }
    flipped
}

/// Flips with the four lines in one 256-bit register using AVX2 only. Upward (towards higher
/// bits) the first non-opponent square is isolated as the lowest set bit, as in the other
/// versions; downward, where that would need a leading-zero count, the run of opponent discs
/// next to the square is grown by an occluded fill (steps of one, two and four squares along
/// each lane's direction) and the square beyond it must hold a player disc.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn flips_avx2(square: usize, player: u64, opponent: u64) -> u64 {
    use std::arch::x86_64::*;
    // Lanes follow `LINES`: row, column, diagonal, anti-diagonal.
    let step = _mm256_set_epi64x(7, 9, 8, 1);
    let step2 = _mm256_slli_epi64(step, 1);
    let step4 = _mm256_slli_epi64(step, 2);
    let lines = _mm256_loadu_si256(LINES[square].as_ptr() as *const __m256i);
    let p = _mm256_set1_epi64x(player as i64);
    let o = _mm256_set1_epi64x(opponent as i64);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);
    let above = _mm256_set1_epi64x(u64::MAX.wrapping_shl(1).wrapping_shl(square as u32) as i64);
    let below = _mm256_set1_epi64x(((1u64 << square) - 1) as i64);

    let up = _mm256_and_si256(lines, above);
    let run_end = _mm256_andnot_si256(o, up);
    let lowest = _mm256_and_si256(run_end, _mm256_sub_epi64(zero, run_end));
    let outflank = _mm256_and_si256(lowest, p);
    let none = _mm256_cmpeq_epi64(outflank, zero);
    let flipped_up =
        _mm256_andnot_si256(none, _mm256_and_si256(_mm256_sub_epi64(outflank, one), up));

    // The ray below the square holds only squares of its line, so a shift that leaves the
    // board's geometry lands outside it and is masked away.
    let down = _mm256_and_si256(lines, below);
    let mut open = _mm256_and_si256(down, o);
    let square_bit = _mm256_set1_epi64x((1u64 << square) as i64);
    let mut run = _mm256_and_si256(open, _mm256_srlv_epi64(square_bit, step));
    run = _mm256_or_si256(run, _mm256_and_si256(open, _mm256_srlv_epi64(run, step)));
    open = _mm256_and_si256(open, _mm256_srlv_epi64(open, step));
    run = _mm256_or_si256(run, _mm256_and_si256(open, _mm256_srlv_epi64(run, step2)));
    open = _mm256_and_si256(open, _mm256_srlv_epi64(open, step2));
    run = _mm256_or_si256(run, _mm256_and_si256(open, _mm256_srlv_epi64(run, step4)));
    let beyond = _mm256_and_si256(_mm256_srlv_epi64(run, step), down);
    let outflank = _mm256_and_si256(beyond, p);
    let none = _mm256_cmpeq_epi64(outflank, zero);
    let flipped_down = _mm256_andnot_si256(none, run);

    let all = _mm256_or_si256(flipped_up, flipped_down);
    let half = _mm_or_si128(
        _mm256_castsi256_si128(all),
        _mm256_extracti128_si256(all, 1),
    );
    _mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half))) as u64
}

/// Flips with the four lines in one 256-bit register, using AVX-512's per-lane leading-zero
/// count for the downward scans.
///
/// # Safety
/// The CPU must support AVX2, AVX-512F, AVX-512CD and AVX-512VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512cd,avx512vl")]
#[inline]
pub unsafe fn flips_avx512(square: usize, player: u64, opponent: u64) -> u64 {
    use std::arch::x86_64::*;
    let lines = _mm256_loadu_si256(LINES[square].as_ptr() as *const __m256i);
    let p = _mm256_set1_epi64x(player as i64);
    let not_o = _mm256_set1_epi64x(!opponent as i64);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);
    let above = _mm256_set1_epi64x(u64::MAX.wrapping_shl(1).wrapping_shl(square as u32) as i64);
    let below = _mm256_set1_epi64x(((1u64 << square) - 1) as i64);

    let up = _mm256_and_si256(lines, above);
    let run_end = _mm256_and_si256(up, not_o);
    let lowest = _mm256_and_si256(run_end, _mm256_sub_epi64(zero, run_end));
    let outflank = _mm256_and_si256(lowest, p);
    let has = _mm256_cmpeq_epi64(outflank, zero); // all ones where there is no outflank
    let flipped_up =
        _mm256_andnot_si256(has, _mm256_and_si256(_mm256_sub_epi64(outflank, one), up));

    let down = _mm256_and_si256(lines, below);
    let run_end = _mm256_and_si256(down, not_o);
    let lz = _mm256_lzcnt_epi64(_mm256_or_si256(run_end, one));
    let highest = _mm256_srlv_epi64(_mm256_set1_epi64x(i64::MIN), lz);
    let outflank = _mm256_and_si256(_mm256_and_si256(highest, run_end), p);
    // The squares above the outflanking disc, none where there is none: not the disc nor any
    // below it. (Not `-(outflank << 1)`, which the compiler turns into a 64-bit multiply, slow
    // on Intel.)
    let flipped_down = _mm256_andnot_si256(
        _mm256_or_si256(outflank, _mm256_sub_epi64(outflank, one)),
        down,
    );

    let all = _mm256_or_si256(flipped_up, flipped_down);
    let half = _mm_or_si128(
        _mm256_castsi256_si128(all),
        _mm256_extracti128_si256(all, 1),
    );
    _mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half))) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f5_from_start_flips_e5() {
        let black = 0x0000_0008_1000_0000u64;
        let white = 0x0000_0010_0800_0000u64;
        assert_eq!(flips_portable(37, black, white), 1 << 36);
        assert_eq!(flips(37, black, white), 1 << 36);
        assert_eq!(flips_portable(0, black, white), 0);
    }

    /// A SIMD version of [`flips`].
    #[cfg(target_arch = "x86_64")]
    type FlipsVersion = unsafe fn(usize, u64, u64) -> u64;

    /// Random boards with every density of discs (a quarter empty on average) and every square:
    /// each SIMD version the CPU has gives the portable version's flips.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_simd_versions_equal_the_portable_one() {
        use std::arch::is_x86_feature_detected as has;
        let versions: [(&str, bool, FlipsVersion); 2] = [
            ("AVX2", has!("avx2"), flips_avx2),
            (
                "AVX-512",
                has!("avx512cd") && has!("avx512vl"),
                flips_avx512,
            ),
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || crate::board::xorshift(&mut state);
        for _ in 0..20_000 {
            let (discs, colours) = (next() | next(), next());
            let (player, opponent) = (discs & colours, discs & !colours);
            for square in (0..64).filter(|&sq| discs >> sq & 1 == 0) {
                let expected = flips_portable(square, player, opponent);
                for (name, _, version) in versions.iter().filter(|v| v.1) {
                    // SAFETY: only the versions the CPU has run.
                    let simd = unsafe { version(square, player, opponent) };
                    assert_eq!(
                        simd, expected,
                        "{name}: square {square}, player {player:#018x}, opponent {opponent:#018x}"
                    );
                }
            }
        }
    }
}
