//! Reproducible pseudo-random choices (book moves in play, openings, selfplay, training splits)
//! from one seeded hash, so that a run is repeated exactly from its seed.

/// A well-mixed hash of `value` under `seed` (SplitMix64's finaliser): the one source of
/// reproducible pseudo-random choices of the engine and the tools.
pub fn seeded_hash(seed: u64, value: u64) -> u64 {
    let mut z = seed ^ value.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
