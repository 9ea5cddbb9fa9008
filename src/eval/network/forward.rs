//! The network's integer arithmetic, per instruction-set level: input rows (a byte a weight)
//! added into the accumulator (16 bits a lane), then the clipped activation weighed by an
//! output layer. The AVX2 path (for x86-64-v3 and v4) and the baseline compute the same
//! integers.

use super::shape::{ACTIVATION_ONE, HIDDEN, OUTPUT_ONE};
use crate::cpu::Isa;

/// [`HIDDEN`] 16-bit weights, aligned for vector loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Row(pub [i16; HIDDEN]);

/// An input row as the search reads it: [`HIDDEN`] weights of one byte each (every row
/// weight lies within [`super::shape::ROW_LIMIT`]), so that a row is one 64-byte cache line rather
/// than two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct InputRow(pub [i8; HIDDEN]);

// SAFETY: integers only.
unsafe impl crate::zeroed_memory::Zeroable for InputRow {}

/// The sum of a position's rows and the bias: the hidden units before activation.
#[derive(Clone, Copy, Debug)]
pub struct Accumulator(Row);

/// The shift that turns the output layer's sum (activation units times output units) into
/// 1/256 disc.
const OUTPUT_SHIFT: u32 = (ACTIVATION_ONE * OUTPUT_ONE / 256).trailing_zeros();
const _: () = assert!(1 << OUTPUT_SHIFT == ACTIVATION_ONE * OUTPUT_ONE / 256);

impl From<&Row> for Accumulator {
    #[inline(always)]
    fn from(bias: &Row) -> Self {
        Accumulator(*bias)
    }
}

impl Accumulator {
    /// Adds an input row. The weights' bounds keep every sum within 16 bits, so wrapping never
    /// happens.
    #[inline(always)]
    pub fn add<I: Isa>(&mut self, isa: I, row: &InputRow) {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        #[cfg(target_arch = "x86_64")]
        if crate::eval::simd::in_avx2(isa) {
            // SAFETY: the CPU has AVX2.
            unsafe { self.add_avx2(row) };
            return;
        }
        for (a, &b) in self.0 .0.iter_mut().zip(row.0.iter()) {
            *a = a.wrapping_add(i16::from(b));
        }
    }

    /// The output in 1/256 disc, before the output bias: each hidden unit clipped to
    /// 0..=[`ACTIVATION_ONE`] and weighed by `weights`.
    #[inline(always)]
    pub fn output<I: Isa>(&self, isa: I, weights: &Row) -> i32 {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        #[cfg(target_arch = "x86_64")]
        if crate::eval::simd::in_avx2(isa) {
            // SAFETY: the CPU has AVX2.
            return unsafe { self.output_avx2(weights) } >> OUTPUT_SHIFT;
        }
        let sum: i32 = self
            .0
             .0
            .iter()
            .zip(weights.0.iter())
            .map(|(&a, &w)| i32::from(a.clamp(0, ACTIVATION_ONE as i16)) * i32::from(w))
            .sum();
        sum >> OUTPUT_SHIFT
    }

    /// [`Accumulator::add`] in 256-bit vectors: 16 bytes at a time widened to 16 lanes.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn add_avx2(&mut self, row: &InputRow) {
        use std::arch::x86_64::*;
        for chunk in (0..HIDDEN).step_by(16) {
            // SAFETY: `chunk + 16 <= HIDDEN`; both rows are aligned to 64 bytes, so each
            // accumulator chunk of 16 lanes to 32 bytes and each input chunk to 16.
            unsafe {
                let sum = self.0 .0.as_mut_ptr().add(chunk).cast::<__m256i>();
                let bytes = _mm_load_si128(row.0.as_ptr().add(chunk).cast());
                let add = _mm256_cvtepi8_epi16(bytes);
                _mm256_store_si256(sum, _mm256_add_epi16(_mm256_load_si256(sum), add));
            }
        }
    }

    /// The sum of [`Accumulator::output`] in 256-bit vectors, before the shift.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn output_avx2(&self, weights: &Row) -> i32 {
        use std::arch::x86_64::*;
        let zero = _mm256_setzero_si256();
        let one = _mm256_set1_epi16(ACTIVATION_ONE as i16);
        let mut sums = _mm256_setzero_si256();
        for chunk in (0..HIDDEN).step_by(16) {
            // SAFETY: as in `add_avx2`.
            unsafe {
                let hidden = _mm256_load_si256(self.0 .0.as_ptr().add(chunk).cast());
                let active = _mm256_min_epi16(_mm256_max_epi16(hidden, zero), one);
                let weight = _mm256_load_si256(weights.0.as_ptr().add(chunk).cast());
                sums = _mm256_add_epi32(sums, _mm256_madd_epi16(active, weight));
            }
        }
        crate::eval::simd::sum_of_lanes_avx2(sums)
    }
}
