//! The base-3 index of every pattern instance, summed from powers of 3 square by square instead
//! of read by bit extraction, and kept up to date move by move.
//!
//! A disc on a square adds to the index of each instance holding that square the power of 3 of
//! the square's place in the instance's reading order: once for a disc of the side to move,
//! twice for one of the other side. A move changes only the played square and the flipped
//! ones, so the indices of a node's children derive from the node's own, as the side not to
//! move sees them, plus the powers of those few squares ([`ParentIndices::after_move`]). The
//! sums run over a fixed number of 16-bit lanes, one an instance, which the compiler turns into
//! vector additions on every target.
//!
//! Bit extraction (`pext`) read the same indices directly, but two per instance at every
//! evaluation, and on CPUs where `pext` is microcoded (AMD before Zen 3) it took three quarters
//! of the evaluation's time.

use super::patterns::{feature_offsets, tables};
use crate::board::{Board, Squares};
use crate::cpu::{Isa, IsaDetected};
use std::sync::LazyLock;

/// Lanes of an index vector: the pattern instances, rounded up to a multiple of 16 (one
/// 256-bit vector of 16-bit lanes); the lanes beyond the instances stay 0.
pub const LANES: usize = 64;

/// One 16-bit value per instance, aligned for vector loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Lanes(pub [u16; LANES]);

impl Lanes {
    const ZERO: Lanes = Lanes([0; LANES]);

    #[inline(always)]
    fn add<I: Isa>(&mut self, isa: I, other: &Lanes) {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        #[cfg(target_arch = "x86_64")]
        if super::simd::in_avx2(isa) {
            // `self + 2 * 0 + other`. SAFETY: the CPU has AVX2.
            *self = unsafe { self.plus_avx2(&Lanes::ZERO, other) };
            return;
        }
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = a.wrapping_add(*b);
        }
    }

    /// `self + 2 * twice + once`, lane by lane.
    #[inline(always)]
    fn plus<I: Isa>(&self, isa: I, twice: &Lanes, once: &Lanes) -> Lanes {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        #[cfg(target_arch = "x86_64")]
        if super::simd::in_avx2(isa) {
            // SAFETY: the CPU has AVX2.
            return unsafe { self.plus_avx2(twice, once) };
        }
        let mut out = Lanes::ZERO;
        for i in 0..LANES {
            out.0[i] = self.0[i]
                .wrapping_add(twice.0[i].wrapping_mul(2))
                .wrapping_add(once.0[i]);
        }
        out
    }

    /// [`Lanes::plus`] in 256-bit AVX2 vectors.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn plus_avx2(&self, twice: &Lanes, once: &Lanes) -> Lanes {
        use std::arch::x86_64::*;
        let mut out = Lanes::ZERO;
        for chunk in (0..LANES).step_by(16) {
            // SAFETY: `chunk + 16 <= LANES`, and `Lanes` is aligned to 32 bytes, as is each
            // chunk of 16 lanes.
            unsafe {
                let base = _mm256_load_si256(self.0.as_ptr().add(chunk).cast());
                let twice = _mm256_load_si256(twice.0.as_ptr().add(chunk).cast());
                let once = _mm256_load_si256(once.0.as_ptr().add(chunk).cast());
                let sum =
                    _mm256_add_epi16(_mm256_add_epi16(base, _mm256_add_epi16(twice, twice)), once);
                _mm256_store_si256(out.0.as_mut_ptr().add(chunk).cast(), sum);
            }
        }
        out
    }
}

/// Per square, the power of 3 it weighs in each instance holding it (0 in the others).
static SQUARE_POWERS: LazyLock<Box<[Lanes; 64]>> = LazyLock::new(|| {
    let instances = &tables().instances;
    assert!(
        instances.len() <= LANES,
        "more pattern instances than lanes"
    );
    let mut powers = Box::new([Lanes::ZERO; 64]);
    for (lane, instance) in instances.iter().enumerate() {
        for (place, &square) in instance.squares.iter().enumerate() {
            let exponent = (instance.squares.len() - 1 - place) as u32;
            powers[usize::from(square)].0[lane] = 3u16.pow(exponent);
        }
    }
    powers
});

/// The sum of the powers of the squares of `squares`.
#[inline(always)]
fn sum_of_powers<I: Isa>(isa: I, powers: &[Lanes; 64], squares: u64) -> Lanes {
    let mut sum = Lanes::ZERO;
    for square in Squares(squares) {
        sum.add(isa, &powers[square]);
    }
    sum
}

/// The index of every instance with discs of `ones` as 1 and of `twos` as 2.
#[inline(always)]
fn indices_of<I: Isa>(isa: I, ones: u64, twos: u64) -> Lanes {
    let powers = &**SQUARE_POWERS;
    sum_of_powers(isa, powers, ones).plus(isa, &sum_of_powers(isa, powers, twos), &Lanes::ZERO)
}

/// The index of every instance on `board` as the side to move sees it: its discs 1, the other
/// side's 2.
#[inline(always)]
pub fn mover_indices<I: Isa>(isa: I, board: &Board) -> Lanes {
    indices_of(isa, board.player, board.opponent)
}

/// The index of every instance on a position as the side not to move sees it (its discs 1,
/// the mover's 2): the view of the side to move after any move, which the positions after each
/// move derive their indices from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParentIndices(Lanes);

impl ParentIndices {
    /// The indices of `board` for its side not to move, square by square.
    #[inline(always)]
    pub fn of<I: Isa>(isa: I, board: &Board) -> ParentIndices {
        ParentIndices(indices_of(isa, board.opponent, board.player))
    }

    /// The indices for the side to move after the move to `square` flipping `flipped`: in its
    /// view the square goes from 0 to 2 and the flipped discs from 1 to 2, so only those few
    /// squares' powers are added.
    #[inline(always)]
    pub fn after_move<I: Isa>(&self, isa: I, square: usize, flipped: u64) -> Lanes {
        let powers = &**SQUARE_POWERS;
        self.0
            .plus(isa, &powers[square], &sum_of_powers(isa, powers, flipped))
    }
}

/// Calls `visit` with the weight slot of every instance on `board`, then of every counting
/// feature, then the bias slot.
#[inline]
pub fn for_each_slot(board: &Board, mut visit: impl FnMut(usize)) {
    let tables = tables();
    let indices = mover_indices(IsaDetected, board);
    for (instance, &index) in tables.instances.iter().zip(indices.0.iter()) {
        visit(tables.slot_of_index[instance.kind][usize::from(index)] as usize);
    }
    for offset in feature_offsets(board) {
        visit(tables.feature_base() + offset);
    }
    visit(tables.bias_slot());
}
