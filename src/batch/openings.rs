//! Opening lists: one transcript a line (the XOT format), chosen reproducibly by a seed, for
//! matches and selfplay.

use crate::board::Move;
use crate::notation::parse_transcript_lines;

/// Matthias Berg's large XOT list (10,784 balanced 8-move openings), built into the binary so
/// that `oxello match` finds its openings from any directory.
pub const BUILTIN_XOT: &str = include_str!("../../data/xot-openings-large.txt");

/// Reads openings from `text`, one transcript a line; blank lines and `%`/`#` comments skipped.
pub fn parse_openings(text: &str) -> Result<Vec<Vec<Move>>, String> {
    parse_transcript_lines(text)
        .map(|games| games.into_iter().map(|(moves, _)| moves).collect())
        .map_err(|e| format!("opening on {e}"))
}

/// `count` openings drawn without repetition by `seed` (all of them, shuffled, if fewer).
pub fn choose_openings(openings: &[Vec<Move>], count: usize, seed: u64) -> Vec<Vec<Move>> {
    let mut order: Vec<usize> = (0..openings.len()).collect();
    for i in (1..order.len()).rev() {
        let j = (crate::random::seeded_hash(seed, i as u64) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
        .into_iter()
        .take(count)
        .map(|i| openings[i].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_list_is_the_large_xot_set() {
        let openings = parse_openings(BUILTIN_XOT).unwrap();
        assert_eq!(openings.len(), 10_784);
        assert!(openings.iter().all(|o| o.len() == 8));
    }

    #[test]
    fn openings_are_parsed_and_chosen_reproducibly() {
        let text = "f5d6c3d3c4f4c5b3\n% comment\n\nf5f6e6f4e3c5c4e7\nf5d6c5f4e3c6d3f6\n";
        let openings = parse_openings(text).unwrap();
        assert_eq!(openings.len(), 3);
        let a = choose_openings(&openings, 2, 7);
        assert_eq!(a, choose_openings(&openings, 2, 7));
        assert_eq!(a.len(), 2);
        assert_ne!(a[0], a[1]);
        assert!(parse_openings("f5a1").is_err());
    }
}
