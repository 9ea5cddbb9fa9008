//! The hash codes Edax gives a board: they order the positions of its book file.

use crate::board::Board;

/// Edax 4.5 and later's hash code of a board: CRC-32C steps over the two bitboards, the
/// first step's result in the high half.
pub(super) fn crc_hash(board: &Board) -> u64 {
    let first = crc32c_step(0, board.player);
    (u64::from(first) << 32) | u64::from(crc32c_step(first, board.opponent))
}

/// One step of CRC-32C over the 8 bytes of `data` from `crc`, without the inversions before
/// and after (the SSE 4.2 instruction's step, which Edax uses).
fn crc32c_step(crc: u32, data: u64) -> u32 {
    !crc32c::crc32c_append(!crc, &data.to_le_bytes())
}

/// Edax 4.4's hash code of a board: per byte of the two bitboards (player first, low byte
/// first), a random number from a table, all XORed.
pub(super) fn table_hash(board: &Board) -> u64 {
    let table = edax_hash_table();
    board
        .player
        .to_le_bytes()
        .iter()
        .chain(board.opponent.to_le_bytes().iter())
        .enumerate()
        .fold(0, |hash, (i, &byte)| hash ^ table[i][usize::from(byte)])
}

/// Edax 4.4's table of hash numbers: drawn in order from its 48-bit linear congruential
/// generator (Java's, seeded with its multiplier), each number of fewer than 8 set bits drawn
/// again.
fn edax_hash_table() -> &'static [[u64; 256]; 16] {
    static TABLE: std::sync::OnceLock<Box<[[u64; 256]; 16]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        const MULTIPLIER: u64 = 0x5_DEEC_E66D;
        const MASK: u64 = (1 << 48) - 1;
        let mut state = MULTIPLIER & MASK;
        let mut next = || {
            state = (MULTIPLIER.wrapping_mul(state) + 0xB) & MASK;
            let high = state >> 16;
            state = (MULTIPLIER.wrapping_mul(state) + 0xB) & MASK;
            (high << 32) | (state >> 16)
        };
        let mut table = Box::new([[0u64; 256]; 16]);
        for row in table.iter_mut() {
            for cell in row.iter_mut() {
                *cell = loop {
                    let number = next();
                    if number.count_ones() >= 8 {
                        break number;
                    }
                };
            }
        }
        table
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CRC-32C step bit by bit (reflected polynomial 0x82F63B78, no inversions), as the
    /// SSE 4.2 instruction computes it.
    fn bitwise_step(mut crc: u32, data: u64) -> u32 {
        for byte in data.to_le_bytes() {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0x82F6_3B78
                } else {
                    crc >> 1
                };
            }
        }
        crc
    }

    #[test]
    fn the_crc_step_is_the_instructions_step() {
        for (crc, data) in [
            (0, 0),
            (0, 0x0000_0008_1000_0000),
            (0x1234_5678, 0x0000_0010_0800_0000),
            (!0, u64::MAX),
        ] {
            assert_eq!(crc32c_step(crc, data), bitwise_step(crc, data));
        }
        // The check value of CRC-32C, with its inversions: "123456789" gives 0xE3069283.
        let standard = !bitwise_step(!0, u64::from_le_bytes(*b"12345678"));
        assert_eq!(crc32c::crc32c(b"12345678"), standard);
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
    }
}
