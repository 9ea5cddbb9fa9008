//! Multi-ProbCut for the midgame (Buro, 1997): a shallow search predicts the deep one, so a
//! node whose shallow score lies far outside the window is cut without the deep search.
//!
//! For a remaining depth `d` the shallow search goes `shallow_depth(d)` plies. The deep score
//! is modelled as `a·shallow + b` plus a normal error of deviation `σ(d, empties)`; a cut at
//! confidence `t` takes a fail high when the shallow score clears `(beta + t·σ - b) / a`, and
//! a fail low when it stays under `(alpha - t·σ - b) / a`. The fit (per depth: `a`, `b`, and σ
//! as a linear function of the empties) comes from `oxello tune-mpc`, which searches positions
//! of real games at every depth, and is built into the binary beside the weights.
//!
//! The endgame solver's selective iterations cut the same way: from `PROBABLE_CUT_MIN_EMPTIES`
//! a shallow search of `endgame_shallow_depth(empties)` plies predicts the exact score, with
//! its own fit (exact ≈ `a`·shallow + `b`, σ linear in the empties) from the same command, and
//! the levels and their confidences are shared, so that the midgame's iterations, the solver's
//! and the table keep one account of selectivity.

use std::sync::LazyLock;

/// The table `oxello tune-mpc` fitted to the built-in weights.
static BUILT_IN_TEXT: &str = include_str!("../eval/oxello.mpc");

static BUILT_IN: LazyLock<ProbCutTable> = LazyLock::new(|| {
    ProbCutTable::parse(BUILT_IN_TEXT).expect("the built-in Multi-ProbCut table is valid")
});

/// The first line of a table file: its format and version.
const HEADER: &str = "oxello-mpc 2";

/// From this many empties the endgame solver's selective iterations try probable cuts.
pub const PROBABLE_CUT_MIN_EMPTIES: u32 = 16;
/// Selective iterations of the endgame solver before the exact one; they run from this level
/// down to 1.
pub const SELECTIVE_LEVELS: u8 = LEVELS.len() as u8;
const _: () = assert!(
    SELECTIVE_LEVELS <= super::tt::MAX_SELECTIVITY,
    "the table records every selective level"
);

/// The shallowest remaining depth at which a probable cut is tried.
pub const MIN_CUT_DEPTH: u32 = 3;

/// The deepest remaining depth a table can fit.
pub const MAX_FIT_DEPTH: u32 = 30;

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

/// A line that predicts a deep score from a shallow one: deep ≈ `a`·shallow + `b`, with a
/// deviation of `sigma[0]` + `sigma[1]`·empties discs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub a: f64,
    pub b: f64,
    pub sigma: [f64; 2],
}

impl Fit {
    /// The deviation of the prediction at `empties` (at least half a disc).
    pub fn sigma(&self, empties: u32) -> f64 {
        (self.sigma[0] + self.sigma[1] * f64::from(empties)).max(0.5)
    }

    /// The null-window bounds a shallow score is tested against for a node at `empties` with
    /// window (`alpha`, `beta`) at selectivity `level` (1 to 3): a shallow score at or above
    /// the first proves a probable fail high, one at or below the second a probable fail low.
    /// A bound no score can reach is `None`.
    fn cut_bounds(&self, empties: u32, level: u8, alpha: i32, beta: i32) -> CutBounds {
        let Some(&(t, _)) = selective_level(level) else {
            return (None, None);
        };
        let margin = t * self.sigma(empties);
        let high = ((f64::from(beta) + margin - self.b) / self.a).ceil();
        let low = ((f64::from(alpha) - margin - self.b) / self.a).floor();
        (
            (high < 64.0).then_some(high as i32),
            (low > -64.0).then_some(low as i32),
        )
    }

    /// The fit as the words of a table line: `a A b B sigma S0 S1`.
    fn format(&self) -> String {
        format!(
            "a {:.4} b {:.4} sigma {:.4} {:.4}",
            self.a, self.b, self.sigma[0], self.sigma[1]
        )
    }
}

/// The shallow scores that prove a probable fail high and a probable fail low, if any can.
pub type CutBounds = (Option<i32>, Option<i32>);

/// The fit of one remaining depth of the midgame search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthFit {
    pub depth: u32,
    pub fit: Fit,
}

/// The Multi-ProbCut parameters: a fit per midgame depth and one for the endgame solver.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbCutTable {
    /// Fits by depth, from `MIN_CUT_DEPTH` up, without gaps.
    pub fits: Vec<DepthFit>,
    /// The exact score predicted from a search of `endgame_shallow_depth(empties)` plies.
    pub endgame: Fit,
}

impl ProbCutTable {
    /// The table built into the binary.
    pub fn built_in() -> &'static ProbCutTable {
        &BUILT_IN
    }

    /// The fit for `depth`: its own, or past the deepest fitted depth, that of the deepest
    /// fitted depth of the same parity.
    fn fit(&self, depth: u32) -> Option<&Fit> {
        let deepest = self.fits.last()?.depth;
        let depth = if depth > deepest {
            deepest - u32::from((depth - deepest) % 2 == 1)
        } else {
            depth
        };
        self.fits.iter().find(|f| f.depth == depth).map(|f| &f.fit)
    }

    /// The deviation of a search of `depth` predicted from its shallow search, at `empties`.
    pub fn sigma(&self, depth: u32, empties: u32) -> Option<f64> {
        Some(self.fit(depth)?.sigma(empties))
    }

    /// The shallow-search bounds of a midgame node of `depth` at `empties` with window
    /// (`alpha`, `beta`) at selectivity `level` (see [`Fit`]); no bound past the fitted depths'
    /// reach or at level 0.
    pub fn cut_bounds(
        &self,
        depth: u32,
        empties: u32,
        level: u8,
        alpha: i32,
        beta: i32,
    ) -> CutBounds {
        self.fit(depth).map_or((None, None), |fit| {
            fit.cut_bounds(empties, level, alpha, beta)
        })
    }

    /// The shallow-search bounds of a null-window endgame node around `alpha` at `empties`, at
    /// the solver's selectivity `level`.
    pub fn endgame_cut_bounds(&self, empties: u32, level: u8, alpha: i32) -> CutBounds {
        self.endgame.cut_bounds(empties, level, alpha, alpha + 1)
    }

    /// Reads a table from its text.
    pub fn parse(text: &str) -> Result<ProbCutTable, String> {
        let mut lines = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .enumerate()
            .filter(|(_, l)| !l.is_empty());
        match lines.next() {
            Some((_, HEADER)) => {}
            Some((i, other)) => {
                return Err(format!(
                    "line {}: expected '{HEADER}', found '{other}': not a Multi-ProbCut table of this version",
                    i + 1
                ))
            }
            None => return Err("empty Multi-ProbCut table".to_string()),
        }
        let mut fits = Vec::new();
        let mut endgame = None;
        for (i, line) in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            let number = |k: usize| -> Result<f64, String> {
                words
                    .get(k)
                    .and_then(|w| w.parse::<f64>().ok())
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| format!("line {}: bad number in '{line}'", i + 1))
            };
            let fit = |first: usize| -> Result<Fit, String> {
                let a = number(first + 1)?;
                if a <= 0.0 {
                    return Err(format!("line {}: the slope must be positive", i + 1));
                }
                Ok(Fit {
                    a,
                    b: number(first + 3)?,
                    sigma: [number(first + 5)?, number(first + 6)?],
                })
            };
            match words.as_slice() {
                ["endgame", "a", _, "b", _, "sigma", _, _] if endgame.is_none() => {
                    endgame = Some(fit(1)?);
                }
                ["depth", _, "a", _, "b", _, "sigma", _, _] => {
                    let depth = number(1)? as u32;
                    let expected = MIN_CUT_DEPTH + fits.len() as u32;
                    if depth != expected || depth > MAX_FIT_DEPTH {
                        return Err(format!(
                            "line {}: depth {depth} where depth {expected} was due",
                            i + 1
                        ));
                    }
                    fits.push(DepthFit {
                        depth,
                        fit: fit(2)?,
                    });
                }
                _ => return Err(format!("line {}: cannot read '{line}'", i + 1)),
            }
        }
        if fits.is_empty() {
            return Err("the table fits no depth".to_string());
        }
        let endgame = endgame.ok_or("the table has no endgame line")?;
        Ok(ProbCutTable { fits, endgame })
    }

    /// The table as text, in the form [`ProbCutTable::parse`] reads.
    pub fn format(&self) -> String {
        let mut text = format!(
            "# oxello Multi-ProbCut table (oxello tune-mpc): per depth, deep = a * shallow + b\n\
             # with a deviation of s0 + s1 * empties; the shallow depth is 2 * (depth / 4) + depth % 2;\n\
             # endgame: the exact score from a search of (empties - 2) / 3 plies\n\
             {HEADER}\n\
             endgame {}\n",
            self.endgame.format()
        );
        for fit in &self.fits {
            text.push_str(&format!("depth {} {}\n", fit.depth, fit.fit.format()));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> ProbCutTable {
        ProbCutTable {
            fits: (MIN_CUT_DEPTH..=6)
                .map(|depth| DepthFit {
                    depth,
                    fit: Fit {
                        a: 1.0,
                        b: f64::from(depth % 2),
                        sigma: [2.0, 0.1],
                    },
                })
                .collect(),
            endgame: Fit {
                a: 0.5,
                b: 1.0,
                sigma: [1.0, 0.25],
            },
        }
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
    fn a_table_round_trips_through_its_text() {
        let table = table();
        assert_eq!(ProbCutTable::parse(&table.format()).unwrap(), table);
        assert!(ProbCutTable::built_in().fits.len() >= 5);
    }

    #[test]
    fn foreign_or_damaged_tables_are_refused() {
        let text = table().format();
        assert!(
            ProbCutTable::parse("oxello-mpc 1\ndepth 3 a 1 b 0 sigma 1 0\n")
                .unwrap_err()
                .contains("not a Multi-ProbCut table of this version")
        );
        assert!(ProbCutTable::parse(&text.replace("depth 4", "depth 5"))
            .unwrap_err()
            .contains("was due"));
        assert!(ProbCutTable::parse(&text.replace("a 1.0000", "a -1"))
            .unwrap_err()
            .contains("positive"));
        assert!(ProbCutTable::parse(&text.replace("sigma", "sigma x y"))
            .unwrap_err()
            .contains("cannot read"));
        let without_endgame: String = text
            .lines()
            .filter(|l| !l.starts_with("endgame"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(ProbCutTable::parse(&without_endgame)
            .unwrap_err()
            .contains("no endgame line"));
    }

    #[test]
    fn cut_bounds_widen_with_confidence_and_deviation() {
        let table = table();
        // Depth 4 (b = 0), 20 empties: sigma 4; t 2.6, 2.0, 1.5 give margins 10.4, 8, 6.
        assert_eq!(table.cut_bounds(4, 20, 1, -1, 0), (Some(11), Some(-12)));
        assert_eq!(table.cut_bounds(4, 20, 2, -1, 0), (Some(8), Some(-9)));
        assert_eq!(table.cut_bounds(4, 20, 3, -1, 0), (Some(6), Some(-7)));
        // Depth 5 fits b = 1: the shallow bound moves down by one.
        assert_eq!(table.cut_bounds(5, 20, 2, -1, 0), (Some(7), Some(-10)));
        // Past the deepest fit (6), depth 9 takes depth 5's, depth 10 depth 6's.
        assert_eq!(
            table.cut_bounds(9, 20, 2, -1, 0),
            table.cut_bounds(5, 20, 2, -1, 0)
        );
        assert_eq!(table.cut_bounds(4, 20, 0, -1, 0), (None, None));
        assert_eq!(table.cut_bounds(4, 20, 2, 60, 61).0, None, "beyond 64");
    }

    #[test]
    fn endgame_bounds_follow_the_endgame_fit() {
        let table = table();
        // 20 empties: sigma 6; t 2.0 gives a margin of 12, and the line 0.5 x + 1 is undone
        // as (bound - 1) / 0.5.
        assert_eq!(table.endgame_cut_bounds(20, 2, 3), (Some(30), Some(-20)));
        // A wider sigma at 28 empties (8) moves both bounds out.
        assert_eq!(table.endgame_cut_bounds(28, 2, 3), (Some(38), Some(-28)));
        assert_eq!(table.endgame_cut_bounds(20, 0, 3), (None, None));
        assert_eq!(
            (16..=40).map(endgame_shallow_depth).collect::<Vec<_>>()[..4],
            [4, 5, 5, 5]
        );
    }
}
