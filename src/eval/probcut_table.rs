//! The Multi-ProbCut table of an evaluation: how well its shallow searches foretell its deep
//! ones (Buro, 1997), fitted by `oxello tune-mpc` to searches with that evaluation.
//!
//! For a remaining depth `d`, the deep score is modelled as `a·shallow + b` plus a normal error
//! of deviation `σ(d, empties)`, the shallow search going `2·(d/4) + d%2` plies; the endgame
//! solver's exact score is modelled the same way from a search of `(empties - 2) / 3` plies.
//! The table belongs to the evaluation it was fitted to: the built-in one to the built-in
//! weights (`oxello.mpc` beside them), a network's to the network, in its file. How a search
//! cuts with it is `crate::search::probcut`'s business.

use std::sync::LazyLock;

/// The table `oxello tune-mpc` fitted to the built-in weights.
static BUILT_IN_TEXT: &str = include_str!("oxello.mpc");

static BUILT_IN: LazyLock<ProbCutTable> = LazyLock::new(|| {
    ProbCutTable::parse(BUILT_IN_TEXT).expect("the built-in Multi-ProbCut table is valid")
});

/// The first line of a table file: its format and version.
const HEADER: &str = "oxello-mpc 2";

/// The shallowest remaining depth a table fits, and so the shallowest at which a probable cut
/// is tried.
pub const MIN_CUT_DEPTH: u32 = 3;

/// The deepest remaining depth a table can fit.
pub const MAX_FIT_DEPTH: u32 = 30;

/// A line that predicts a deep score from a shallow one: deep ≈ `a`·shallow + `b`, with a
/// deviation of `sigma[0]` + `sigma[1]`·empties discs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub a: f64,
    pub b: f64,
    pub sigma: [f64; 2],
}

/// The shallow scores that prove a probable fail high and a probable fail low, if any can.
pub type CutBounds = (Option<i32>, Option<i32>);

impl Fit {
    /// The deviation of the prediction at `empties` (at least half a disc).
    pub fn sigma(&self, empties: u32) -> f64 {
        (self.sigma[0] + self.sigma[1] * f64::from(empties)).max(0.5)
    }

    /// The null-window bounds a shallow score is tested against for a node at `empties` with
    /// window (`alpha`, `beta`), cutting at `t` deviations: a shallow score at or above the
    /// first proves a probable fail high, one at or below the second a probable fail low. A
    /// bound no score can reach is `None`.
    pub fn cut_bounds(&self, empties: u32, t: f64, alpha: i32, beta: i32) -> CutBounds {
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
    /// The exact score predicted from a search of `(empties - 2) / 3` plies.
    pub endgame: Fit,
}

impl ProbCutTable {
    /// The table built into the binary, fitted to the built-in weights.
    pub fn built_in() -> &'static ProbCutTable {
        &BUILT_IN
    }

    /// The fit for `depth`: its own, or past the deepest fitted depth, that of the deepest
    /// fitted depth of the same parity.
    pub fn fit(&self, depth: u32) -> Option<&Fit> {
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
    fn a_table_round_trips_through_its_text() {
        let table = table();
        assert_eq!(ProbCutTable::parse(&table.format()).unwrap(), table);
        assert!(ProbCutTable::built_in().fits.len() >= 5);
    }

    #[test]
    fn past_the_deepest_fit_a_depth_takes_the_deepest_of_its_parity() {
        let table = table();
        assert_eq!(table.fit(9), table.fit(5));
        assert_eq!(table.fit(10), table.fit(6));
        assert_eq!(table.fit(2), None);
        assert_eq!(table.sigma(4, 20), Some(4.0));
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
}
