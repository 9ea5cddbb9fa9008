//! Edax's table of search levels: how deep, and how selectively, a level searches a position.

/// Edax's selectivity level that cuts nothing.
pub(super) const NO_SELECTIVITY: u8 = 5;

/// Edax's search of a position at `level` with `empties` empty squares: its depth and its
/// selectivity ([`NO_SELECTIVITY`] cuts nothing: a search as deep as the empties then solves
/// exactly). From Edax's table of levels: up to level 10 it solves from twice the level's
/// empties; higher levels solve from a fixed number of empties and search a few more to the
/// end selectively; level 60 solves everything.
pub(super) fn edax_level(level: u8, empties: u32) -> (u32, u8) {
    let level = u32::from(level);
    // Per band of levels: the empties up to which each selectivity searches to the end,
    // most selective last; beyond them, the midgame search at the level's depth.
    let bands: &[(u32, u8)] = match level {
        0 => return (0, NO_SELECTIVITY),
        1..=10 => {
            return (
                if empties <= 2 * level { empties } else { level },
                NO_SELECTIVITY,
            )
        }
        11..=12 => &[(21, 5), (24, 3)],
        13..=18 => &[(21, 5), (24, 3), (27, 1)],
        19..=21 => &[(24, 5), (27, 3), (30, 1)],
        22..=24 => &[(24, 5), (27, 4), (30, 2), (33, 0)],
        25..=27 => &[(27, 5), (30, 3), (33, 1)],
        28..=29 => &[(27, 5), (30, 4), (33, 2), (36, 0)],
        30..=31 => &[(30, 5), (33, 3), (36, 1)],
        32..=33 => &[(30, 5), (33, 4), (36, 2), (39, 0)],
        34..=35 => &[(30, 5), (33, 4), (36, 3), (39, 1)],
        36..=59 => {
            return match empties {
                e if e <= level - 6 => (e, 5),
                e if e <= level - 3 => (e, 4),
                e if e <= level => (e, 3),
                e if e <= level + 3 => (e, 2),
                e if e <= level + 6 => (e, 1),
                e if e <= level + 9 => (e, 0),
                _ => (level, 0),
            }
        }
        _ => return (empties, NO_SELECTIVITY),
    };
    bands
        .iter()
        .find(|&&(up_to, _)| empties <= up_to)
        .map_or((level, 0), |&(_, selectivity)| (empties, selectivity))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edax_levels_solve_where_its_table_says() {
        assert_eq!(edax_level(5, 10), (10, NO_SELECTIVITY));
        assert_eq!(edax_level(5, 11), (5, NO_SELECTIVITY));
        assert_eq!(edax_level(21, 24), (24, NO_SELECTIVITY));
        assert_eq!(edax_level(21, 26), (26, 3));
        assert_eq!(edax_level(21, 31), (21, 0));
        assert_eq!(edax_level(28, 27), (27, NO_SELECTIVITY));
        assert_eq!(edax_level(29, 28), (28, 4));
        assert_eq!(edax_level(29, 30), (30, 4));
        assert_eq!(edax_level(28, 36), (36, 0));
        assert_eq!(edax_level(28, 37), (28, 0));
        assert_eq!(edax_level(30, 30), (30, NO_SELECTIVITY));
        assert_eq!(edax_level(31, 36), (36, 1));
        assert_eq!(edax_level(40, 34), (34, NO_SELECTIVITY));
        assert_eq!(edax_level(40, 49), (49, 0));
        assert_eq!(edax_level(40, 50), (40, 0));
        assert_eq!(edax_level(60, 50), (50, NO_SELECTIVITY));
    }
}
