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
//! The endgame solver's selective iterations (their levels and from how many empties they
//! cut) are set here too, so that the midgame's iterations and the table share one account of
//! selectivity.

use std::sync::LazyLock;

/// The table `oxello tune-mpc` fitted to the built-in weights.
static BUILT_IN_TEXT: &str = include_str!("../eval/oxello.mpc");

static BUILT_IN: LazyLock<ProbCutTable> = LazyLock::new(|| {
    ProbCutTable::parse(BUILT_IN_TEXT).expect("the built-in Multi-ProbCut table is valid")
});

/// The first line of a table file: its format and version.
const HEADER: &str = "oxello-mpc 1";

/// From this many empties the endgame solver's selective iterations try probable cuts.
pub const PROBABLE_CUT_MIN_EMPTIES: u32 = 16;
/// Selective iterations of the endgame solver before the exact one; they run from this level
/// down to 1.
pub const SELECTIVE_LEVELS: u8 = 3;
const _: () = assert!(
    SELECTIVE_LEVELS <= super::tt::MAX_SELECTIVITY,
    "the table records every selective level"
);

/// The shallowest remaining depth at which a probable cut is tried.
pub const MIN_CUT_DEPTH: u32 = 3;

/// The deepest remaining depth a table can fit.
pub const MAX_FIT_DEPTH: u32 = 30;

/// Confidence of each midgame selectivity level, as the `t` of the cut test (level 1 first):
/// about 99%, 95% and 87% of the deep results lie within `t·σ` of their prediction.
const CONFIDENCE_T: [f64; 3] = [2.6, 2.0, 1.5];

/// The confidence of a selectivity level in per cent, as engines show it (`18@95%`): the
/// share of deep results within `t·σ` of their prediction, both sides counted; 100 for full
/// width (level 0).
pub fn level_percent(level: u8) -> u32 {
    match level {
        0 => 100,
        1 => 99,
        2 => 95,
        _ => 87,
    }
}

/// The depth of the shallow search that predicts a search of `depth` plies: about a quarter
/// of it, doubled, keeping the parity of `depth` (an odd and an even depth see the side to
/// move differently, so the pair must agree).
pub fn shallow_depth(depth: u32) -> u32 {
    2 * (depth / 4) + (depth & 1)
}

/// The fit of one remaining depth: deep ≈ `a`·shallow + `b`, with a deviation of
/// `sigma[0]` + `sigma[1]`·empties discs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthFit {
    pub depth: u32,
    pub a: f64,
    pub b: f64,
    pub sigma: [f64; 2],
}

/// The Multi-ProbCut parameters: a fit per depth.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbCutTable {
    /// Fits by depth, from `MIN_CUT_DEPTH` up, without gaps.
    pub fits: Vec<DepthFit>,
}

impl ProbCutTable {
    /// The table built into the binary.
    pub fn built_in() -> &'static ProbCutTable {
        &BUILT_IN
    }

    /// The fit for `depth`: its own, or past the deepest fitted depth, that of the deepest
    /// fitted depth of the same parity.
    fn fit(&self, depth: u32) -> Option<&DepthFit> {
        let deepest = self.fits.last()?.depth;
        let depth = if depth > deepest {
            deepest - u32::from((depth - deepest) % 2 == 1)
        } else {
            depth
        };
        self.fits.iter().find(|f| f.depth == depth)
    }

    /// The deviation of a search of `depth` predicted from its shallow search, at `empties`.
    pub fn sigma(&self, depth: u32, empties: u32) -> Option<f64> {
        let [base, per_empty] = self.fit(depth)?.sigma;
        Some((base + per_empty * f64::from(empties)).max(0.5))
    }

    /// The null-window bounds the shallow search is tried against, for a node of `depth` at
    /// `empties` with window (`alpha`, `beta`) at selectivity `level` (1 to 3): a shallow score
    /// at or above the first proves a probable fail high, one at or below the second a
    /// probable fail low. A bound no score can reach is `None`.
    pub fn cut_bounds(
        &self,
        depth: u32,
        empties: u32,
        level: u8,
        alpha: i32,
        beta: i32,
    ) -> (Option<i32>, Option<i32>) {
        let Some(fit) = self.fit(depth) else {
            return (None, None);
        };
        let Some(&t) = CONFIDENCE_T.get(usize::from(level).wrapping_sub(1)) else {
            return (None, None);
        };
        let margin = t * self.sigma(depth, empties).unwrap_or(f64::INFINITY);
        let high = ((f64::from(beta) + margin - fit.b) / fit.a).ceil();
        let low = ((f64::from(alpha) - margin - fit.b) / fit.a).floor();
        (
            (high < 64.0).then_some(high as i32),
            (low > -64.0).then_some(low as i32),
        )
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
        for (i, line) in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            let number = |k: usize| -> Result<f64, String> {
                words
                    .get(k)
                    .and_then(|w| w.parse::<f64>().ok())
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| format!("line {}: bad number in '{line}'", i + 1))
            };
            match words.as_slice() {
                ["depth", _, "a", _, "b", _, "sigma", _, _] => {
                    let depth = number(1)? as u32;
                    let expected = MIN_CUT_DEPTH + fits.len() as u32;
                    if depth != expected || depth > MAX_FIT_DEPTH {
                        return Err(format!(
                            "line {}: depth {depth} where depth {expected} was due",
                            i + 1
                        ));
                    }
                    let a = number(3)?;
                    if a <= 0.0 {
                        return Err(format!("line {}: the slope must be positive", i + 1));
                    }
                    fits.push(DepthFit {
                        depth,
                        a,
                        b: number(5)?,
                        sigma: [number(7)?, number(8)?],
                    });
                }
                _ => return Err(format!("line {}: cannot read '{line}'", i + 1)),
            }
        }
        if fits.is_empty() {
            return Err("the table fits no depth".to_string());
        }
        Ok(ProbCutTable { fits })
    }

    /// The table as text, in the form [`ProbCutTable::parse`] reads.
    pub fn format(&self) -> String {
        let mut text = format!(
            "# oxello Multi-ProbCut table (oxello tune-mpc): per depth, deep = a * shallow + b\n\
             # with a deviation of s0 + s1 * empties; the shallow depth is 2 * (depth / 4) + depth % 2\n\
             {HEADER}\n"
        );
        for fit in &self.fits {
            text.push_str(&format!(
                "depth {} a {:.4} b {:.4} sigma {:.4} {:.4}\n",
                fit.depth, fit.a, fit.b, fit.sigma[0], fit.sigma[1]
            ));
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
                    a: 1.0,
                    b: f64::from(depth % 2),
                    sigma: [2.0, 0.1],
                })
                .collect(),
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
            ProbCutTable::parse("oxello-mpc 2\ndepth 3 a 1 b 0 sigma 1 0\n")
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
}
