//! Command-line tools, each a module on top of the library.

pub mod arena;
pub mod bench;
pub mod dataset;
pub mod eval_error;
pub mod perft;
pub mod selfplay;
pub mod solve;
pub mod train;

/// A well-mixed hash of `value` under `seed` (SplitMix64's finaliser): the one source of
/// reproducible pseudo-random choices in the tools.
pub fn seeded_hash(seed: u64, value: u64) -> u64 {
    let mut z = seed ^ value.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
