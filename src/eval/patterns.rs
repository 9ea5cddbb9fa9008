//! The board patterns of the trained evaluation and how a position maps onto weight slots.
//!
//! Each pattern type is a list of squares; its instances are its images under the 8 board
//! symmetries (one per distinct set of squares). An instance's squares are read in the image of
//! the type's order, each as 0 (empty), 1 (side to move) or 2 (other side), giving a base-3
//! index. Indices that a symmetry of the pattern itself maps onto each other share a weight
//! slot, so the evaluation is exactly invariant under the board's symmetries.
//!
//! After the patterns come counting features, each count its own slot: the legal moves of each
//! side (mobility) and the empty squares next to each side's discs (potential mobility), which
//! patterns see only piecemeal. Counts are the same under every symmetry.

use crate::board::{adjacent_empties, Board, Symmetry};
use crate::cpu::{Isa, IsaDetected};
use std::sync::OnceLock;

/// Identifies this pattern set in weights files.
pub const PATTERN_SET_ID: u32 = 3;

/// The sets whose weights files this build still reads: each set's id, how many of
/// [`PATTERN_TYPES`] it has (the first ones: types are only ever appended) and whether it has
/// the counting features. What an older set lacks weighs nothing.
pub const READABLE_SETS: [(u32, usize, bool); 3] = [
    (1, 11, false),
    (2, 11, true),
    (PATTERN_SET_ID, PATTERN_TYPES.len(), true),
];

/// Slots of a mobility count, 0 to 30 moves (more counts as 30).
const MOBILITY_VALUES: usize = 31;
/// Slots of a potential mobility count, 0 to 40 squares (more counts as 40).
const POTENTIAL_VALUES: usize = 41;
/// Slots of the counting features: the side to move's mobility, the other side's, then their
/// potential mobilities.
pub const FEATURE_SLOTS: usize = 2 * MOBILITY_VALUES + 2 * POTENTIAL_VALUES;

/// Where each counting feature's value falls in the block of [`FEATURE_SLOTS`].
#[inline(always)]
pub fn feature_offsets(board: &Board) -> [usize; 4] {
    feature_offsets_at(IsaDetected, board)
}

/// [`feature_offsets`] from code compiled for the instruction-set level `I`.
#[inline(always)]
pub fn feature_offsets_at<I: Isa>(isa: I, board: &Board) -> [usize; 4] {
    let empties = board.empties();
    let count = |bits: u64, cap: usize| (bits.count_ones() as usize).min(cap - 1);
    [
        count(board.moves_at(isa), MOBILITY_VALUES),
        MOBILITY_VALUES + count(board.opponent_moves_at(isa), MOBILITY_VALUES),
        2 * MOBILITY_VALUES + count(adjacent_empties(board.opponent, empties), POTENTIAL_VALUES),
        2 * MOBILITY_VALUES
            + POTENTIAL_VALUES
            + count(adjacent_empties(board.player, empties), POTENTIAL_VALUES),
    ]
}

/// The pattern types: a name and the squares of one instance (a1 = 0 .. h8 = 63). New types go
/// at the end, so that the slots of the older ones keep their numbers.
pub const PATTERN_TYPES: [(&str, &[u8]); 13] = [
    ("corner 3x3", &[0, 1, 2, 8, 9, 10, 16, 17, 18]),
    ("corner 2x5", &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12]),
    ("edge + 2 X", &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14]),
    ("row 2", &[8, 9, 10, 11, 12, 13, 14, 15]),
    ("row 3", &[16, 17, 18, 19, 20, 21, 22, 23]),
    ("row 4", &[24, 25, 26, 27, 28, 29, 30, 31]),
    ("diagonal 8", &[0, 9, 18, 27, 36, 45, 54, 63]),
    ("diagonal 7", &[1, 10, 19, 28, 37, 46, 55]),
    ("diagonal 6", &[2, 11, 20, 29, 38, 47]),
    ("diagonal 5", &[3, 12, 21, 30, 39]),
    ("diagonal 4", &[4, 13, 22, 31]),
    ("edge block", &[0, 2, 3, 4, 5, 7, 10, 11, 12, 13]),
    ("corner triangle", &[0, 1, 2, 3, 8, 9, 10, 16, 17, 24]),
];

/// Phases of the game with their own weights, by number of empty squares.
pub const PHASES: usize = 12;

/// The phase of a position with `empties` empty squares: 1-5 empties is phase 0, 56-60 phase 11.
#[inline]
pub fn phase_of(empties: u32) -> usize {
    (empties.saturating_sub(1) as usize / 5).min(PHASES - 1)
}

/// The empties a phase covers (the inverse of [`phase_of`]), lowest and highest.
pub fn phase_empties(phase: usize) -> (u32, u32) {
    let low = phase as u32 * 5 + 1;
    let high = if phase + 1 == PHASES { 60 } else { low + 4 };
    (low, high)
}

/// One placed pattern: its squares in reading order and its type.
#[derive(Clone, Debug)]
pub struct Instance {
    pub kind: usize,
    pub squares: Vec<u8>,
}

impl Instance {
    /// Its squares as a bit set.
    pub fn mask(&self) -> u64 {
        set_of(&self.squares)
    }
}

/// All instances and the index-to-slot maps of every type.
#[derive(Debug)]
pub struct PatternTables {
    pub instances: Vec<Instance>,
    /// Per type: base-3 index -> slot number (global over all types).
    pub slot_of_index: Vec<Vec<u32>>,
    /// Number of slots: the patterns', then [`FEATURE_SLOTS`] for the counting features, then
    /// one bias slot (the last).
    pub slots: usize,
}

impl PatternTables {
    /// The slot of the constant term.
    pub fn bias_slot(&self) -> usize {
        self.slots - 1
    }

    /// The first slot of the counting features (the patterns' slots are those before).
    pub fn feature_base(&self) -> usize {
        self.slots - 1 - FEATURE_SLOTS
    }

    /// The slots of the first `types` pattern types (they come first, type after type).
    pub fn pattern_slots_of_first(&self, types: usize) -> usize {
        match self.slot_of_index.get(types) {
            Some(map) => *map.iter().min().expect("a type has indices") as usize,
            None => self.feature_base(),
        }
    }
}

/// The pattern tables, built on first use.
pub fn tables() -> &'static PatternTables {
    static TABLES: OnceLock<PatternTables> = OnceLock::new();
    TABLES.get_or_init(build_tables)
}

fn build_tables() -> PatternTables {
    let mut instances = Vec::new();
    let mut slot_of_index = Vec::new();
    let mut next_slot = 0u32;
    for (kind, (_, squares)) in PATTERN_TYPES.iter().enumerate() {
        let images: Vec<Vec<u8>> = Symmetry::ALL
            .iter()
            .map(|s| {
                squares
                    .iter()
                    .map(|&sq| s.apply_square(sq as usize) as u8)
                    .collect()
            })
            .collect();
        // The pattern's internal symmetries (the images that cover its own square set), each
        // as the place value in the image's index of each of the type's squares' digits.
        let own_set = set_of(squares);
        let place = |position: usize| 3usize.pow((squares.len() - 1 - position) as u32);
        let place_values: Vec<Vec<usize>> = images
            .iter()
            .filter(|image| set_of(image) == own_set)
            .map(|image| {
                let mut values = vec![0; squares.len()];
                for (position, sq) in image.iter().enumerate() {
                    let from = squares.iter().position(|s| s == sq).expect("same set");
                    values[from] = place(position);
                }
                values
            })
            .collect();
        let mut seen = Vec::new();
        for image in images {
            let set = set_of(&image);
            if !seen.contains(&set) {
                seen.push(set);
                instances.push(Instance {
                    kind,
                    squares: image,
                });
            }
        }
        let size = 3usize.pow(squares.len() as u32);
        // A permuted index is a sum over digits: that of the index's last digits plus that of
        // the others, each looked up.
        let low_digits = squares.len().min(5);
        let low_size = 3usize.pow(low_digits as u32);
        let halves: Vec<(Vec<usize>, Vec<usize>)> = place_values
            .iter()
            .map(|values| {
                let (high, low) = values.split_at(squares.len() - low_digits);
                let high = (0..size / low_size).map(|h| permuted_index(h, high));
                let low = (0..low_size).map(|l| permuted_index(l, low));
                (high.collect(), low.collect())
            })
            .collect();
        let mut canonical_slot = vec![u32::MAX; size];
        let mut map = vec![0u32; size];
        for (index, slot) in map.iter_mut().enumerate() {
            let (high, low) = (index / low_size, index % low_size);
            let canonical = halves
                .iter()
                .map(|(highs, lows)| highs[high] + lows[low])
                .min()
                .expect("the identity is a permutation");
            if canonical_slot[canonical] == u32::MAX {
                canonical_slot[canonical] = next_slot;
                next_slot += 1;
            }
            *slot = canonical_slot[canonical];
        }
        slot_of_index.push(map);
    }
    PatternTables {
        instances,
        slot_of_index,
        slots: next_slot as usize + FEATURE_SLOTS + 1,
    }
}

fn set_of(squares: &[u8]) -> u64 {
    squares.iter().fold(0, |acc, &sq| acc | 1 << sq)
}

/// The index whose digits are `index`'s, the digit of position `p` (the last is the lowest)
/// weighing `place_values[p]`.
fn permuted_index(mut index: usize, place_values: &[usize]) -> usize {
    let mut permuted = 0;
    for &value in place_values.iter().rev() {
        permuted += index % 3 * value;
        index /= 3;
    }
    permuted
}

/// The base-3 index of an instance on `board` (side to move = 1, other side = 2).
#[inline]
pub fn instance_index(board: &Board, squares: &[u8]) -> usize {
    let mut index = 0;
    for &sq in squares {
        let cell = ((board.player >> sq) & 1) + 2 * ((board.opponent >> sq) & 1);
        index = index * 3 + cell as usize;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_has_its_symmetric_instances() {
        let t = tables();
        let count = |kind: usize| t.instances.iter().filter(|i| i.kind == kind).count();
        let counts: Vec<usize> = (0..PATTERN_TYPES.len()).map(count).collect();
        assert_eq!(counts, [4, 8, 4, 4, 4, 4, 2, 4, 4, 4, 4, 4, 4]);
        assert_eq!(t.instances.len(), 54);
    }

    #[test]
    fn types_take_their_slots_in_order() {
        let t = tables();
        for kind in 0..PATTERN_TYPES.len() {
            let first = t.pattern_slots_of_first(kind);
            let next = t.pattern_slots_of_first(kind + 1);
            let slots = &t.slot_of_index[kind];
            assert_eq!(*slots.iter().min().unwrap() as usize, first);
            assert_eq!(*slots.iter().max().unwrap() as usize + 1, next);
        }
        assert_eq!(
            t.pattern_slots_of_first(PATTERN_TYPES.len()),
            t.feature_base()
        );
    }

    /// The counts square by square: legal moves by trying each empty square, potential
    /// mobility by looking at each empty square's neighbours.
    fn counted(board: &Board) -> [usize; 4] {
        let empty = |sq: usize| board.empties() >> sq & 1 == 1;
        let beside = |sq: usize, discs: u64| {
            let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
            (-1..=1).any(|df| {
                (-1..=1).any(|dr| {
                    let (f, r) = (file + df, rank + dr);
                    (0..8).contains(&f) && (0..8).contains(&r) && discs >> (r * 8 + f) & 1 == 1
                })
            })
        };
        let other = Board::new(board.opponent, board.player);
        let count = |keep: &dyn Fn(usize) -> bool| (0..64).filter(|&sq| keep(sq)).count();
        [
            count(&|sq| empty(sq) && board.flips(sq) != 0),
            count(&|sq| empty(sq) && other.flips(sq) != 0),
            count(&|sq| empty(sq) && beside(sq, board.opponent)),
            count(&|sq| empty(sq) && beside(sq, board.player)),
        ]
    }

    #[test]
    fn features_count_mobility_and_potential_mobility() {
        let mut board = Board::START;
        for step in 0..50u64 {
            let moves = board.moves();
            if moves == 0 {
                break;
            }
            let [own, theirs, own_potential, their_potential] = counted(&board);
            assert_eq!(
                feature_offsets(&board),
                [
                    own.min(30),
                    31 + theirs.min(30),
                    62 + own_potential.min(40),
                    103 + their_potential.min(40)
                ],
                "{board:?}"
            );
            let pick = (step * 7) as u32 % moves.count_ones();
            let square = crate::board::Squares(moves).nth(pick as usize).unwrap();
            board = board.play(square).expect("a legal move");
        }
        assert_eq!(FEATURE_SLOTS, 144);
    }
}
