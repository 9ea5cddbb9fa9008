//! The least-squares fits: deep scores against shallow ones, a line per depth and one for the
//! solver, with the residuals' deviation as a linear function of the empties.

use super::searches::{DepthScores, EndgameScores};
use crate::eval::probcut_table::{DepthFit, Fit, MIN_CUT_DEPTH};
use crate::search::probcut::shallow_depth;

/// Least squares: the `x` minimising |A x - y|² for rows `(features, y)`, or `None` when the
/// features do not determine it.
fn least_squares<const K: usize>(rows: &[([f64; K], f64)]) -> Option<[f64; K]> {
    let mut normal = [[0.0; K]; K];
    let mut right = [0.0; K];
    for (features, y) in rows {
        for i in 0..K {
            right[i] += features[i] * y;
            for j in 0..K {
                normal[i][j] += features[i] * features[j];
            }
        }
    }
    for column in 0..K {
        let pivot = (column..K)
            .max_by(|&a, &b| normal[a][column].abs().total_cmp(&normal[b][column].abs()))?;
        if normal[pivot][column].abs() < 1e-9 {
            return None;
        }
        normal.swap(column, pivot);
        right.swap(column, pivot);
        let (pivot_row, pivot_right) = (normal[column], right[column]);
        for (i, (row, value)) in normal.iter_mut().zip(right.iter_mut()).enumerate() {
            if i != column {
                let factor = row[column] / pivot_row[column];
                for (entry, pivot_entry) in row.iter_mut().zip(pivot_row) {
                    *entry -= factor * pivot_entry;
                }
                *value -= factor * pivot_right;
            }
        }
    }
    Some(std::array::from_fn(|i| right[i] / normal[i][i]))
}

/// A fit, with how many positions it rests on and its residuals' deviation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitReport {
    pub fit: Fit,
    pub positions: usize,
    pub deviation: f64,
}

/// Fits `(empties, shallow, deep)` triples: the line deep ≈ a·shallow + b by least squares, and
/// the residuals' σ as a linear function of the empties; `None` below 30 triples or when
/// they fit no rising line.
fn fit_line(triples: &[(u32, f64, f64)]) -> Option<FitReport> {
    if triples.len() < 30 {
        return None;
    }
    let rows: Vec<([f64; 2], f64)> = triples.iter().map(|&(_, s, d)| ([s, 1.0], d)).collect();
    let [a, b] = least_squares(&rows)?;
    if a <= 0.0 {
        return None;
    }
    let mut squares = 0.0;
    let mut deviations = Vec::with_capacity(triples.len());
    for &(empties, s, d) in triples {
        let residual = d - (a * s + b);
        squares += residual * residual;
        deviations.push(([1.0, f64::from(empties)], residual.abs()));
    }
    // A normal error's mean absolute value is σ·√(2/π).
    let scale = (std::f64::consts::PI / 2.0).sqrt();
    let sigma = least_squares(&deviations)?.map(|c| c * scale);
    Some(FitReport {
        fit: Fit { a, b, sigma },
        positions: triples.len(),
        deviation: (squares / triples.len() as f64).sqrt(),
    })
}

/// Fits the midgame depths `MIN_CUT_DEPTH` to `max_depth` to `samples`; `None` if some depth
/// has too few positions to fit.
pub fn fit_depths(samples: &[DepthScores], max_depth: u32) -> Option<Vec<(DepthFit, FitReport)>> {
    (MIN_CUT_DEPTH..=max_depth)
        .map(|depth| {
            let shallow = shallow_depth(depth) as usize;
            let triples: Vec<(u32, f64, f64)> = samples
                .iter()
                .filter_map(|s| {
                    let deep = *s.scores.get(depth as usize)?;
                    Some((s.empties, f64::from(s.scores[shallow]), f64::from(deep)))
                })
                .collect();
            let report = fit_line(&triples)?;
            Some((
                DepthFit {
                    depth,
                    fit: report.fit,
                },
                report,
            ))
        })
        .collect()
}

/// Fits the endgame solver's prediction to `samples`.
pub fn fit_endgame(samples: &[EndgameScores]) -> Option<FitReport> {
    let triples: Vec<(u32, f64, f64)> = samples
        .iter()
        .map(|s| (s.empties, f64::from(s.shallow), f64::from(s.exact)))
        .collect();
    fit_line(&triples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_recovers_an_exact_line_and_refuses_a_degenerate_one() {
        let rows: Vec<([f64; 2], f64)> = (0..10)
            .map(|x| ([f64::from(x), 1.0], 3.0 * f64::from(x) - 2.0))
            .collect();
        let [a, b] = least_squares(&rows).unwrap();
        assert!((a - 3.0).abs() < 1e-9 && (b + 2.0).abs() < 1e-9);
        let flat: Vec<([f64; 2], f64)> = (0..10).map(|x| ([1.0, 1.0], f64::from(x))).collect();
        assert_eq!(least_squares(&flat), None);
    }

    #[test]
    fn a_fit_finds_the_relation_the_samples_were_made_with() {
        // Depths 0 to 2 vary freely; from 3 on, deep = 2 * shallow + 3 exactly.
        let samples: Vec<DepthScores> = (0..60)
            .map(|i: i32| {
                let mut scores = vec![i % 13 - 6, i % 7 - 3, i % 11 - 5];
                for depth in 3..=6 {
                    scores.push(2 * scores[shallow_depth(depth) as usize] + 3);
                }
                DepthScores {
                    empties: 30 + (i % 7) as u32,
                    scores,
                }
            })
            .collect();
        let fits = fit_depths(&samples, 6).unwrap();
        assert_eq!(fits.len(), 4);
        for (DepthFit { fit, .. }, report) in &fits {
            assert!(
                (fit.a - 2.0).abs() < 1e-9 && (fit.b - 3.0).abs() < 1e-9,
                "{fit:?}"
            );
            assert!(fit.sigma.iter().all(|c| c.abs() < 1e-6), "{fit:?}");
            assert_eq!(report.positions, 60);
        }
        assert!(fit_depths(&samples[..20], 6).is_none(), "too few positions");
    }

    #[test]
    fn the_endgame_fit_measures_a_deviation_that_grows_with_the_empties() {
        // exact = shallow - 1, off by +(empties - 14) and -(empties - 14) in pairs: the line
        // is recovered, and the mean absolute residual, empties - 14, is σ·√(2/π).
        let samples: Vec<EndgameScores> = (0..90)
            .map(|i: i32| {
                let empties = 16 + (i / 2 % 9) as u32;
                let error = (empties as i32 - 14) * if i % 2 == 0 { 1 } else { -1 };
                let shallow = i / 2 % 17 - 8;
                EndgameScores {
                    empties,
                    shallow,
                    exact: shallow - 1 + error,
                }
            })
            .collect();
        let report = fit_endgame(&samples).unwrap();
        let fit = report.fit;
        assert!(
            (fit.a - 1.0).abs() < 1e-9 && (fit.b + 1.0).abs() < 1e-9,
            "{fit:?}"
        );
        let scale = (std::f64::consts::PI / 2.0).sqrt();
        for empties in [16, 24] {
            let expected = f64::from(empties - 14) * scale;
            assert!((fit.sigma(empties) - expected).abs() < 1e-9, "{fit:?}");
        }
    }
}
