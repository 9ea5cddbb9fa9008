//! The part of the endgame solver's fastest-first move key that depends on the child alone:
//! its replies (corner replies counted twice), the potential mobility of the side to move in
//! the child, and the discs the side that moved holds stable at the corners. A node keys all
//! its children, so on AVX-512 eight of them are keyed together, one in each 64-bit lane of a
//! register (measured against each child keyed on its own: 0.986x the time on FFO #20-#39 and
//! #40-#49, the same nodes); other levels key each child with the board's own functions.

use crate::board::{adjacent_empties, Board};
use crate::cpu::Isa;

/// How many children are keyed together.
pub(super) const LANES: usize = 8;

/// The four corners.
pub(super) const CORNERS: u64 = 0x8100_0000_0000_0081;

/// The child-alone part of the key of each of the first `children` lanes' children
/// (`players[lane]` to move against `opponents[lane]`); the keys of the other lanes mean
/// nothing.
#[inline(always)]
pub(super) fn child_keys<I: Isa>(
    isa: I,
    players: &[u64; LANES],
    opponents: &[u64; LANES],
    children: usize,
) -> [i32; LANES] {
    #[cfg(target_arch = "x86_64")]
    if isa.level() == crate::cpu::Level::V4 {
        // SAFETY: the CPU has AVX-512 F and BW.
        return unsafe { child_keys_avx512(players, opponents) };
    }
    let mut keys = [0; LANES];
    for lane in 0..children {
        keys[lane] = child_key(isa, &Board::new(players[lane], opponents[lane]));
    }
    keys
}

/// Whether this level keys the children `LANES` at a time ([`child_keys`]) rather than each
/// as it is made ([`child_key`]).
#[inline(always)]
pub(super) fn keys_together<I: Isa>(isa: I) -> bool {
    cfg!(target_arch = "x86_64") && isa.level() == crate::cpu::Level::V4
}

/// The child-alone part of the key of one child.
#[inline(always)]
pub(super) fn child_key<I: Isa>(isa: I, child: &Board) -> i32 {
    let replies = child.moves_at(isa);
    let potential = adjacent_empties(child.opponent, child.empties()).count_ones() as i32;
    -(replies.count_ones() as i32) * 16
        - (replies & CORNERS).count_ones() as i32 * 16
        - potential * 2
        + corner_stability(child.opponent) * 2
}

/// The mover's corners and the edge squares next to them that it holds with the corner.
#[inline(always)]
fn corner_stability(discs: u64) -> i32 {
    let next_to_owned_corner = ((discs & 0x0100_0000_0000_0001) << 1)
        | ((discs & 0x8000_0000_0000_0080) >> 1)
        | ((discs & 0x0000_0000_0000_0081) << 8)
        | ((discs & 0x8100_0000_0000_0000) >> 8);
    ((next_to_owned_corner | CORNERS) & discs).count_ones() as i32
}

/// [`child_keys`] on AVX-512, the eight children side by side: the moves found by doubling
/// shifts along the four line directions, as the board's portable move generator does, and
/// the key as `2 * (stable - 8 * replies - 8 * corner_replies - potential)`, its counts summed
/// byte by byte (a byte's weighed sum stays below 256) and then across each lane's bytes.
///
/// # Safety
/// The CPU must support AVX-512 F and BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn child_keys_avx512(players: &[u64; LANES], opponents: &[u64; LANES]) -> [i32; LANES] {
    use std::arch::x86_64::*;

    /// Every lane `bits`.
    #[inline(always)]
    fn splat(bits: u64) -> __m512i {
        // SAFETY: the caller's CPU has AVX-512 F.
        unsafe { _mm512_set1_epi64(bits as i64) }
    }

    /// The squares reached by runs of `mask` discs starting next to `player`, in both senses
    /// of the direction `S` squares apart (`D` = 2 `S`).
    #[inline(always)]
    unsafe fn flanked<const S: u32, const D: u32>(player: __m512i, mask: __m512i) -> __m512i {
        let mut up = _mm512_and_si512(mask, _mm512_slli_epi64::<S>(player));
        let mut down = _mm512_and_si512(mask, _mm512_srli_epi64::<S>(player));
        up = _mm512_or_si512(up, _mm512_and_si512(mask, _mm512_slli_epi64::<S>(up)));
        down = _mm512_or_si512(down, _mm512_and_si512(mask, _mm512_srli_epi64::<S>(down)));
        let pre_up = _mm512_and_si512(mask, _mm512_slli_epi64::<S>(mask));
        let pre_down = _mm512_and_si512(mask, _mm512_srli_epi64::<S>(mask));
        for _ in 0..2 {
            up = _mm512_or_si512(up, _mm512_and_si512(pre_up, _mm512_slli_epi64::<D>(up)));
            down = _mm512_or_si512(
                down,
                _mm512_and_si512(pre_down, _mm512_srli_epi64::<D>(down)),
            );
        }
        _mm512_or_si512(_mm512_slli_epi64::<S>(up), _mm512_srli_epi64::<S>(down))
    }

    let player = _mm512_loadu_si512(players.as_ptr().cast());
    let opponent = _mm512_loadu_si512(opponents.as_ptr().cast());
    let empties = _mm512_andnot_si512(_mm512_or_si512(player, opponent), splat(u64::MAX));

    // A disc on the a- or h-file can never be flanked sideways.
    let inner = _mm512_and_si512(opponent, splat(0x7E7E_7E7E_7E7E_7E7E));
    let reach = _mm512_or_si512(
        _mm512_or_si512(
            flanked::<1, 2>(player, inner),
            flanked::<8, 16>(player, opponent),
        ),
        _mm512_or_si512(
            flanked::<7, 14>(player, inner),
            flanked::<9, 18>(player, inner),
        ),
    );
    let replies = _mm512_and_si512(reach, empties);
    let corner_replies = _mm512_and_si512(replies, splat(CORNERS));

    let horizontal = _mm512_or_si512(
        _mm512_and_si512(
            _mm512_slli_epi64::<1>(opponent),
            splat(0xFEFE_FEFE_FEFE_FEFE),
        ),
        _mm512_and_si512(
            _mm512_srli_epi64::<1>(opponent),
            splat(0x7F7F_7F7F_7F7F_7F7F),
        ),
    );
    let around = _mm512_or_si512(horizontal, opponent);
    let vertical = _mm512_or_si512(
        _mm512_slli_epi64::<8>(around),
        _mm512_srli_epi64::<8>(around),
    );
    let potential = _mm512_and_si512(_mm512_or_si512(horizontal, vertical), empties);

    let next_to_owned_corner = _mm512_or_si512(
        _mm512_or_si512(
            _mm512_slli_epi64::<1>(_mm512_and_si512(opponent, splat(0x0100_0000_0000_0001))),
            _mm512_srli_epi64::<1>(_mm512_and_si512(opponent, splat(0x8000_0000_0000_0080))),
        ),
        _mm512_or_si512(
            _mm512_slli_epi64::<8>(_mm512_and_si512(opponent, splat(0x0000_0000_0000_0081))),
            _mm512_srli_epi64::<8>(_mm512_and_si512(opponent, splat(0x8100_0000_0000_0000))),
        ),
    );
    let stable = _mm512_and_si512(
        _mm512_or_si512(next_to_owned_corner, splat(CORNERS)),
        opponent,
    );

    // Each byte's set bits, from a table of the sixteen nibbles.
    let nibble_counts = _mm512_broadcast_i32x4(_mm_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
    ));
    let low_nibbles = _mm512_set1_epi8(0x0F);
    let byte_counts = |bits: __m512i| {
        let low = _mm512_shuffle_epi8(nibble_counts, _mm512_and_si512(bits, low_nibbles));
        let high_nibbles = _mm512_and_si512(_mm512_srli_epi64::<4>(bits), low_nibbles);
        _mm512_add_epi8(low, _mm512_shuffle_epi8(nibble_counts, high_nibbles))
    };
    let replies_bytes = _mm512_add_epi8(byte_counts(replies), byte_counts(corner_replies));
    let against = _mm512_add_epi8(
        _mm512_slli_epi64::<3>(replies_bytes),
        byte_counts(potential),
    );
    let zero = _mm512_setzero_si512();
    let keys = _mm512_slli_epi64::<1>(_mm512_sub_epi64(
        _mm512_sad_epu8(byte_counts(stable), zero),
        _mm512_sad_epu8(against, zero),
    ));
    let mut out = [0i32; LANES];
    _mm256_storeu_si256(out.as_mut_ptr().cast(), _mm512_cvtepi64_epi32(keys));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::xorshift;
    use crate::cpu::{IsaBaseline, IsaDetected};
    use crate::notation::parse_square;

    #[test]
    fn corner_stability_counts_corners_and_the_edge_squares_they_hold() {
        let discs = |names: &[&str]| {
            names
                .iter()
                .fold(0u64, |bits, name| bits | 1 << parse_square(name).unwrap())
        };
        assert_eq!(corner_stability(discs(&["b1", "a2", "g8", "h7"])), 0);
        assert_eq!(corner_stability(discs(&["a1", "b1", "a2", "b2"])), 3);
        assert_eq!(corner_stability(discs(&["h1", "g1", "h2", "g2"])), 3);
        assert_eq!(corner_stability(discs(&["a8", "b8", "a7", "b7"])), 3);
        assert_eq!(corner_stability(discs(&["h8", "g8", "h7", "g7"])), 3);
        assert_eq!(corner_stability(u64::MAX), 12);
    }

    /// Pseudo-random boards, some sparse and some nearly full, with the extremes (empty and
    /// full boards, one side alone) among them.
    fn boards() -> Vec<Board> {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || xorshift(&mut state);
        let mut boards = vec![
            Board::new(0, 0),
            Board::new(u64::MAX, 0),
            Board::new(0, u64::MAX),
            Board::new(0x5555_5555_5555_5555, 0xAAAA_AAAA_AAAA_AAAA),
            Board::START,
        ];
        for _ in 0..4000 {
            let (a, b, c) = (next(), next(), next());
            let occupied = match c % 3 {
                0 => a | b,
                1 => a & b,
                _ => a | b | c,
            };
            let player = occupied & next();
            boards.push(Board::new(player, occupied & !player));
        }
        boards
    }

    /// The detected level's keys (AVX-512's where the CPU has it) and the baseline's, eight
    /// children at a time, against each child keyed on its own with the portable functions.
    #[test]
    fn child_keys_of_every_level_match_each_child_keyed_on_its_own() {
        for chunk in boards().chunks(LANES) {
            let mut players = [0; LANES];
            let mut opponents = [0; LANES];
            for (lane, board) in chunk.iter().enumerate() {
                players[lane] = board.player;
                opponents[lane] = board.opponent;
            }
            let detected = child_keys(IsaDetected, &players, &opponents, chunk.len());
            let baseline = child_keys(IsaBaseline, &players, &opponents, chunk.len());
            for (lane, board) in chunk.iter().enumerate() {
                let expected = child_key(IsaBaseline, board);
                assert_eq!(detected[lane], expected, "{board:?} at the detected level");
                assert_eq!(baseline[lane], expected, "{board:?} at the baseline level");
            }
        }
    }
}
