//! Multi-ProbCut for the midgame (Buro, 1997): a shallow search predicts the deep one, so a
//! node whose shallow score lies far outside the window is cut without the deep search.
//!
//! For a remaining depth `d` the shallow search goes `shallow_depth(d)` plies, and the
//! evaluation's table ([`ProbCutTable`], fitted by `oxello tune-mpc`) predicts the deep score
//! from it: a cut at confidence `t` takes a fail high when the shallow score clears
//! `(beta + t·σ - b) / a`, and a fail low when it stays under `(alpha - t·σ - b) / a`.
//!
//! The endgame solver's selective iterations cut the same way: from `PROBABLE_CUT_MIN_EMPTIES`
//! a shallow search of `endgame_shallow_depth(empties)` plies predicts the exact score, with
//! the table's endgame fit, and the levels and their confidences are shared, so that the
//! midgame's iterations, the solver's and the transposition table keep one account of
//! selectivity.

pub use crate::eval::probcut_table::{CutBounds, ProbCutTable, MAX_FIT_DEPTH, MIN_CUT_DEPTH};

/// From this many empties the endgame solver's selective iterations try probable cuts.
pub const PROBABLE_CUT_MIN_EMPTIES: u32 = 16;
/// Selective iterations of the endgame solver before the exact one; they run from this level
/// down to 1.
pub const SELECTIVE_LEVELS: u8 = LEVELS.len() as u8;
const _: () = assert!(
    SELECTIVE_LEVELS <= super::tt::MAX_SELECTIVITY,
    "the table records every selective level"
);

/// Each selectivity level (level 1 first): the `t` of its cut test, and its confidence in
/// per cent, the share of deep results within `t·σ` of their prediction, both sides counted.
const LEVELS: [(f64, u32); 4] = [(2.6, 99), (2.0, 95), (1.5, 87), (1.1, 73)];

/// The level of `level`, if it is a selective one.
fn selective_level(level: u8) -> Option<&'static (f64, u32)> {
    LEVELS.get(usize::from(level).wrapping_sub(1))
}

/// The confidence of a selectivity level in per cent, as engines show it (`18@95%`); 100 for
/// full width (level 0).
pub fn level_percent(level: u8) -> u32 {
    selective_level(level.min(SELECTIVE_LEVELS)).map_or(100, |&(_, percent)| percent)
}

/// The depth of the shallow search that predicts a search of `depth` plies: about a quarter
/// of it, doubled, keeping the parity of `depth` (an odd and an even depth see the side to
/// move differently, so the pair must agree).
pub fn shallow_depth(depth: u32) -> u32 {
    2 * (depth / 4) + (depth & 1)
}

/// The depth of the shallow search that predicts the exact score of a position with `empties`
/// empty squares (at least `PROBABLE_CUT_MIN_EMPTIES`): one ply every three empties.
pub fn endgame_shallow_depth(empties: u32) -> u32 {
    (empties - 2) / 3
}

/// The shallow-search bounds of a midgame node of `depth` at `empties` with window
/// (`alpha`, `beta`) at selectivity `level` (see [`ProbCutTable`]); no bound past the fitted
/// depths' reach or at level 0.
pub fn cut_bounds(
    table: &ProbCutTable,
    depth: u32,
    empties: u32,
    level: u8,
    alpha: i32,
    beta: i32,
) -> CutBounds {
    match (table.fit(depth), selective_level(level)) {
        (Some(fit), Some(&(t, _))) => fit.cut_bounds(empties, t, alpha, beta),
        _ => (None, None),
    }
}

/// The shallow-search bounds of a null-window endgame node around `alpha` at `empties`, at
/// the solver's selectivity `level`.
pub fn endgame_cut_bounds(table: &ProbCutTable, empties: u32, level: u8, alpha: i32) -> CutBounds {
    selective_level(level).map_or((None, None), |&(t, _)| {
        table.endgame.cut_bounds(empties, t, alpha, alpha + 1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Depths 3 to 6 at a = 1, b = depth % 2, σ = 2 + 0.1·empties; the endgame at a = 0.5,
    /// b = 1, σ = 1 + 0.25·empties.
    fn table() -> ProbCutTable {
        ProbCutTable::parse(
            "oxello-mpc 2\n\
             endgame a 0.5 b 1 sigma 1 0.25\n\
             depth 3 a 1 b 1 sigma 2 0.1\n\
             depth 4 a 1 b 0 sigma 2 0.1\n\
             depth 5 a 1 b 1 sigma 2 0.1\n\
             depth 6 a 1 b 0 sigma 2 0.1\n",
        )
        .unwrap()
    }

    #[test]
    fn shallow_searches_keep_the_parity_of_the_deep_one() {
        for depth in MIN_CUT_DEPTH..=MAX_FIT_DEPTH {
            let shallow = shallow_depth(depth);
            assert!(
                shallow < depth && (depth - shallow).is_multiple_of(2),
                "{depth}"
            );
        }
        assert_eq!(
            (shallow_depth(3), shallow_depth(4), shallow_depth(8)),
            (1, 2, 4)
        );
    }

    #[test]
    fn cut_bounds_widen_with_confidence_and_deviation() {
        let table = table();
        // Depth 4 (b = 0), 20 empties: sigma 4; t 2.6, 2.0, 1.5 give margins 10.4, 8, 6.
        assert_eq!(cut_bounds(&table, 4, 20, 1, -1, 0), (Some(11), Some(-12)));
        assert_eq!(cut_bounds(&table, 4, 20, 2, -1, 0), (Some(8), Some(-9)));
        assert_eq!(cut_bounds(&table, 4, 20, 3, -1, 0), (Some(6), Some(-7)));
        // Depth 5 fits b = 1: the shallow bound moves down by one.
        assert_eq!(cut_bounds(&table, 5, 20, 2, -1, 0), (Some(7), Some(-10)));
        // Past the deepest fit (6), depth 9 takes depth 5's, depth 10 depth 6's.
        assert_eq!(
            cut_bounds(&table, 9, 20, 2, -1, 0),
            cut_bounds(&table, 5, 20, 2, -1, 0)
        );
        assert_eq!(cut_bounds(&table, 4, 20, 0, -1, 0), (None, None));
        assert_eq!(cut_bounds(&table, 2, 20, 2, -1, 0), (None, None), "no fit");
        assert_eq!(cut_bounds(&table, 4, 20, 2, 60, 61).0, None, "beyond 64");
    }

    #[test]
    fn endgame_bounds_follow_the_endgame_fit() {
        let table = table();
        // 20 empties: sigma 6; t 2.0 gives a margin of 12, and the line 0.5 x + 1 is undone
        // as (bound - 1) / 0.5.
        assert_eq!(endgame_cut_bounds(&table, 20, 2, 3), (Some(30), Some(-20)));
        // A wider sigma at 28 empties (8) moves both bounds out.
        assert_eq!(endgame_cut_bounds(&table, 28, 2, 3), (Some(38), Some(-28)));
        assert_eq!(endgame_cut_bounds(&table, 20, 0, 3), (None, None));
        assert_eq!(
            (16..=40).map(endgame_shallow_depth).collect::<Vec<_>>()[..4],
            [4, 5, 5, 5]
        );
    }
}
