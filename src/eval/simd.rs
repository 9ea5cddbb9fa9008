//! Vector arithmetic the evaluations share.

use crate::cpu::Isa;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Whether code at the level `I` takes the evaluations' AVX2 paths: written out in 256-bit
/// vectors rather than left to the compiler, which in a clone with AVX-512 but generic tuning
/// (the portable build) would use 512-bit registers, slower here than the native build's 256.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(in crate::eval) fn in_avx2<I: Isa>(isa: I) -> bool {
    cfg!(target_feature = "avx2") || isa.level() >= crate::cpu::Level::V3
}

/// The sum of the eight 32-bit lanes of `lanes`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(in crate::eval) fn sum_of_lanes_avx2(lanes: __m256i) -> i32 {
    let halves = _mm_add_epi32(
        _mm256_castsi256_si128(lanes),
        _mm256_extracti128_si256::<1>(lanes),
    );
    let pairs = _mm_add_epi32(halves, _mm_shuffle_epi32::<0b01_00_11_10>(halves));
    let total = _mm_add_epi32(pairs, _mm_shuffle_epi32::<0b10_11_00_01>(pairs));
    _mm_cvtsi128_si32(total)
}
