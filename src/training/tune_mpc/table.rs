//! A whole Multi-ProbCut table fitted to an evaluation: the midgame depths and the solver's
//! line, from positions of a source, with the settings that say how many and how deep.

use super::fit::{fit_depths, fit_endgame};
use super::sampling::PositionSource;
use super::searches::{depth_scores, endgame_scores, search_all};
use crate::eval::probcut_table::{DepthFit, Fit, ProbCutTable, MAX_FIT_DEPTH, MIN_CUT_DEPTH};
use crate::eval::Evaluation;
use crate::search::probcut::{shallow_depth, PROBABLE_CUT_MIN_EMPTIES};

/// What the fits search: how many positions, how deep, drawn by which seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FitSettings {
    /// Midgame positions to search.
    pub positions: usize,
    /// Deepest midgame search, and so the deepest depth fitted.
    pub depth: u32,
    /// Seed of the choice of positions.
    pub seed: u64,
    /// Endgame positions to solve.
    pub endgame_positions: usize,
    /// The endgame positions have from 16 up to this many empties.
    pub endgame_empties: u32,
}

impl Default for FitSettings {
    fn default() -> Self {
        FitSettings {
            positions: 2000,
            depth: 12,
            seed: 1,
            endgame_positions: 1000,
            endgame_empties: 24,
        }
    }
}

/// Fits the midgame depths to searches of positions from `source` and prints each fit on
/// stderr.
pub fn fit_midgame(
    settings: &FitSettings,
    source: &PositionSource,
    evaluation: &Evaluation,
    workers: usize,
) -> anyhow::Result<Vec<DepthFit>> {
    // Far enough from the end that no iteration reaches the exact solver.
    let empties = (settings.depth + 8, 56);
    let positions = source.sample(settings.positions, settings.seed, empties);
    eprintln!(
        "midgame: {} positions with {}-{} empties, searched to depth {}",
        positions.len(),
        empties.0,
        empties.1,
        settings.depth
    );
    let samples = search_all(&positions, evaluation, workers, |engine, position| {
        depth_scores(engine, position, settings.depth)
    })?;
    let fits = fit_depths(&samples, settings.depth)
        .ok_or_else(|| anyhow::anyhow!("too few positions to fit every depth"))?;
    eprintln!(
        "{:>5} {:>7} {:>9} {:>7} {:>7} {:>9} {:>12}",
        "depth", "shallow", "positions", "a", "b", "deviation", "sigma at 36"
    );
    for (fit, report) in &fits {
        eprintln!(
            "{:>5} {:>7} {:>9} {:>7.3} {:>7.2} {:>9.2} {:>12.2}",
            fit.depth,
            shallow_depth(fit.depth),
            report.positions,
            fit.fit.a,
            fit.fit.b,
            report.deviation,
            fit.fit.sigma(36)
        );
    }
    Ok(fits.into_iter().map(|(fit, _)| fit).collect())
}

/// Fits the endgame solver's prediction to exact solves of positions from `source` and prints
/// the fit on stderr.
pub fn fit_endgame_solver(
    settings: &FitSettings,
    source: &PositionSource,
    evaluation: &Evaluation,
    workers: usize,
) -> anyhow::Result<Fit> {
    let empties = (PROBABLE_CUT_MIN_EMPTIES, settings.endgame_empties);
    let positions = source.sample(settings.endgame_positions, settings.seed, empties);
    eprintln!(
        "endgame: {} positions with {}-{} empties, solved exactly",
        positions.len(),
        empties.0,
        empties.1
    );
    let samples = search_all(&positions, evaluation, workers, endgame_scores)?;
    let report =
        fit_endgame(&samples).ok_or_else(|| anyhow::anyhow!("too few endgame positions to fit"))?;
    let fit = report.fit;
    eprintln!(
        "endgame: {} positions, exact = {:.3} * shallow + {:.2}, deviation {:.2}, sigma {:.2} at {} and {:.2} at {} empties",
        report.positions,
        fit.a,
        fit.b,
        report.deviation,
        fit.sigma(empties.0),
        empties.0,
        fit.sigma(empties.1),
        empties.1
    );
    Ok(fit)
}

/// Checks `settings` against what the table can hold.
pub fn check_settings(settings: &FitSettings) -> anyhow::Result<()> {
    if !(MIN_CUT_DEPTH + 1..=MAX_FIT_DEPTH).contains(&settings.depth) {
        anyhow::bail!(
            "--depth must be from {} to {MAX_FIT_DEPTH}",
            MIN_CUT_DEPTH + 1
        );
    }
    if !(PROBABLE_CUT_MIN_EMPTIES + 2..=40).contains(&settings.endgame_empties) {
        anyhow::bail!(
            "--endgame-empties must be from {} to 40",
            PROBABLE_CUT_MIN_EMPTIES + 2
        );
    }
    Ok(())
}

/// The whole table fitted to `evaluation` on positions from `source`, on `workers` threads.
pub fn fit_table(
    settings: &FitSettings,
    source: &PositionSource,
    evaluation: &Evaluation,
    workers: usize,
) -> anyhow::Result<ProbCutTable> {
    check_settings(settings)?;
    Ok(ProbCutTable {
        fits: fit_midgame(settings, source, evaluation, workers)?,
        endgame: fit_endgame_solver(settings, source, evaluation, workers)?,
    })
}
