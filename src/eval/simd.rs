//! Vector arithmetic the evaluations share.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

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
