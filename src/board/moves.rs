//! Legal move generation: the set of empty squares where the player outflanks at least one
//! opponent disc. A portable shift version for any CPU and an AVX2 version that runs the four
//! line directions in parallel; `legal_moves` picks the AVX2 one from the level `crate::cpu`
//! chose (or at build time when the build targets AVX2), `legal_moves_at` from the level its
//! caller is compiled for.

#[cfg(target_arch = "x86_64")]
use crate::cpu::Level;
use crate::cpu::{Isa, IsaDetected};

/// Opponent discs that may be flipped along a line with a horizontal component: a disc on the
/// a- or h-file can never be flanked sideways, and masking them stops shifts from wrapping rows.
const INNER_FILES: u64 = 0x7E7E_7E7E_7E7E_7E7E;

/// Empty squares next to at least one disc of `discs` (all 8 directions): the potential
/// mobility of the other side against those discs.
#[inline]
pub const fn adjacent_empties(discs: u64, empties: u64) -> u64 {
    let horizontal =
        ((discs << 1) & 0xFEFE_FEFE_FEFE_FEFE) | ((discs >> 1) & 0x7F7F_7F7F_7F7F_7F7F);
    let around = horizontal | discs;
    (horizontal | (around << 8) | (around >> 8)) & empties
}

/// The legal moves of `player` against `opponent`, as a bitboard (bit 0 = a1, bit 63 = h8).
#[inline(always)]
pub fn legal_moves(player: u64, opponent: u64) -> u64 {
    legal_moves_at(IsaDetected, player, opponent)
}

/// [`legal_moves`] at the instruction-set level `I`: the AVX2 version from x86-64-v3.
#[inline(always)]
pub fn legal_moves_at<I: Isa>(isa: I, player: u64, opponent: u64) -> u64 {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = isa;
    #[cfg(target_arch = "x86_64")]
    if cfg!(target_feature = "avx2") || isa.level() >= Level::V3 {
        // SAFETY: the CPU has AVX2.
        return unsafe { legal_moves_avx2(player, opponent) };
    }
    legal_moves_portable(player, opponent)
}

/// Squares reached by runs of `mask` discs starting next to `player`, in both senses of one
/// line direction (`shift` squares apart), doubling the step to cover runs of up to six.
#[inline(always)]
fn flanked_both_ways(player: u64, mask: u64, shift: u32) -> u64 {
    let double = 2 * shift;
    let mut up = mask & (player << shift);
    let mut down = mask & (player >> shift);
    up |= mask & (up << shift);
    down |= mask & (down >> shift);
    let pre_up = mask & (mask << shift);
    let pre_down = mask & (mask >> shift);
    up |= pre_up & (up << double);
    down |= pre_down & (down >> double);
    up |= pre_up & (up << double);
    down |= pre_down & (down >> double);
    (up << shift) | (down >> shift)
}

/// Portable legal move generation with 64-bit shifts; the reference for the SIMD versions.
#[inline]
pub fn legal_moves_portable(player: u64, opponent: u64) -> u64 {
    let inner = opponent & INNER_FILES;
    let reach = flanked_both_ways(player, inner, 1)
        | flanked_both_ways(player, opponent, 8)
        | flanked_both_ways(player, inner, 7)
        | flanked_both_ways(player, inner, 9);
    reach & !(player | opponent)
}

/// AVX2 legal move generation: the four directions side by side in one 256-bit register.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn legal_moves_avx2(player: u64, opponent: u64) -> u64 {
    use std::arch::x86_64::*;
    let shift1 = _mm256_set_epi64x(7, 9, 8, 1);
    let shift2 = _mm256_set_epi64x(14, 18, 16, 2);
    let inner = (opponent & INNER_FILES) as i64;
    let mask = _mm256_set_epi64x(inner, inner, opponent as i64, inner);
    let p = _mm256_set1_epi64x(player as i64);

    let mut up = _mm256_and_si256(mask, _mm256_sllv_epi64(p, shift1));
    let mut down = _mm256_and_si256(mask, _mm256_srlv_epi64(p, shift1));
    up = _mm256_or_si256(up, _mm256_and_si256(mask, _mm256_sllv_epi64(up, shift1)));
    down = _mm256_or_si256(
        down,
        _mm256_and_si256(mask, _mm256_srlv_epi64(down, shift1)),
    );
    let pre_up = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, shift1));
    let pre_down = _mm256_and_si256(mask, _mm256_srlv_epi64(mask, shift1));
    up = _mm256_or_si256(up, _mm256_and_si256(pre_up, _mm256_sllv_epi64(up, shift2)));
    down = _mm256_or_si256(
        down,
        _mm256_and_si256(pre_down, _mm256_srlv_epi64(down, shift2)),
    );
    up = _mm256_or_si256(up, _mm256_and_si256(pre_up, _mm256_sllv_epi64(up, shift2)));
    down = _mm256_or_si256(
        down,
        _mm256_and_si256(pre_down, _mm256_srlv_epi64(down, shift2)),
    );
    let reach = _mm256_or_si256(
        _mm256_sllv_epi64(up, shift1),
        _mm256_srlv_epi64(down, shift1),
    );
    let half = _mm_or_si128(
        _mm256_castsi256_si128(reach),
        _mm256_extracti128_si256(reach, 1),
    );
    let all = _mm_or_si128(half, _mm_unpackhi_epi64(half, half));
    (_mm_cvtsi128_si64(all) as u64) & !(player | opponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_has_four_moves() {
        let black = 0x0000_0008_1000_0000u64;
        let white = 0x0000_0010_0800_0000u64;
        // d3, c4, f5, e6
        let expected = (1 << 19) | (1 << 26) | (1 << 37) | (1 << 44);
        assert_eq!(legal_moves_portable(black, white), expected);
        assert_eq!(legal_moves(black, white), expected);
    }
}
