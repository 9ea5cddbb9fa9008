//! The transposition-table key of a position: a fast, well-mixed 64-bit hash of both bitboards.

/// Mixes `player` and `opponent` into a 64-bit key. Cheaper than Zobrist keys for copy-make
/// boards and good enough for table indexing; the table verifies entries with the key as well.
#[inline]
pub fn hash_key(player: u64, opponent: u64) -> u64 {
    let mut h = player.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ opponent.rotate_left(23);
    h = (h ^ (h >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= opponent.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 29)
}
