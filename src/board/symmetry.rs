//! The eight symmetries of the board (the dihedral group of the square), as bitboard transforms.

/// One of the 8 symmetries: identity, the three rotations, and the four reflections.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    Identity,
    /// Mirror top to bottom (row 1 <-> row 8).
    FlipVertical,
    /// Mirror left to right (file a <-> file h).
    FlipHorizontal,
    /// Rotate half a turn.
    Rotate180,
    /// Reflect across the a1-h8 diagonal.
    FlipDiagonal,
    /// Reflect across the h1-a8 anti-diagonal.
    FlipAntiDiagonal,
    /// Rotate a quarter turn clockwise.
    Rotate90,
    /// Rotate a quarter turn anticlockwise.
    Rotate270,
}

impl Symmetry {
    /// All eight symmetries, identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::FlipVertical,
        Symmetry::FlipHorizontal,
        Symmetry::Rotate180,
        Symmetry::FlipDiagonal,
        Symmetry::FlipAntiDiagonal,
        Symmetry::Rotate90,
        Symmetry::Rotate270,
    ];

    /// Applies the symmetry to a bitboard.
    pub fn apply(self, bits: u64) -> u64 {
        match self {
            Symmetry::Identity => bits,
            Symmetry::FlipVertical => bits.swap_bytes(),
            Symmetry::FlipHorizontal => flip_horizontal(bits),
            Symmetry::Rotate180 => bits.reverse_bits(),
            Symmetry::FlipDiagonal => flip_diagonal(bits),
            Symmetry::FlipAntiDiagonal => flip_diagonal(bits.reverse_bits()),
            Symmetry::Rotate90 => flip_diagonal(bits.swap_bytes()),
            Symmetry::Rotate270 => flip_diagonal(bits).swap_bytes(),
        }
    }

    /// Applies the symmetry to a square index (0 = a1 .. 63 = h8).
    pub fn apply_square(self, square: usize) -> usize {
        self.apply(1u64 << square).trailing_zeros() as usize
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        match self {
            Symmetry::Rotate90 => Symmetry::Rotate270,
            Symmetry::Rotate270 => Symmetry::Rotate90,
            other => other,
        }
    }
}

fn flip_horizontal(mut x: u64) -> u64 {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    x = ((x >> 1) & K1) | ((x & K1) << 1);
    x = ((x >> 2) & K2) | ((x & K2) << 2);
    ((x >> 4) & K4) | ((x & K4) << 4)
}

/// Transposes the board: square (col, row) goes to (row, col).
fn flip_diagonal(mut x: u64) -> u64 {
    let mut t = 0x0F0F_0F0F_0000_0000 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = 0x3333_0000_3333_0000 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = 0x5500_5500_5500_5500 & (x ^ (x << 7));
    x ^ t ^ (t >> 7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_map_corners_as_named() {
        // a1 = 0, h1 = 7, a8 = 56, h8 = 63; b1 = 1
        assert_eq!(Symmetry::FlipVertical.apply_square(0), 56);
        assert_eq!(Symmetry::FlipHorizontal.apply_square(0), 7);
        assert_eq!(Symmetry::Rotate180.apply_square(0), 63);
        assert_eq!(Symmetry::FlipDiagonal.apply_square(1), 8);
        assert_eq!(Symmetry::FlipAntiDiagonal.apply_square(0), 63);
        assert_eq!(Symmetry::FlipAntiDiagonal.apply_square(7), 7);
        assert_eq!(Symmetry::Rotate90.apply_square(0), 7);
        assert_eq!(Symmetry::Rotate270.apply_square(0), 56);
    }

    #[test]
    fn inverse_undoes() {
        for s in Symmetry::ALL {
            for sq in 0..64 {
                assert_eq!(s.inverse().apply_square(s.apply_square(sq)), sq);
            }
        }
    }
}
