//! `oxello tune-mpc`: fits the Multi-ProbCut table to the evaluation in use.
//!
//! Positions are drawn from games by a seed; each is searched full width by iterative
//! deepening to a fixed depth, which gives its score at every depth from 1 up (0 is the static
//! evaluation). For every depth `d` the scores at `d` are fitted by least squares to those at
//! its shallow depth, and the deviations from that line as a linear function of the empties.
//!
//! The endgame solver's fit comes from positions with `PROBABLE_CUT_MIN_EMPTIES` to
//! `--endgame-empties` empties, each solved exactly and searched `endgame_shallow_depth` plies,
//! fitted the same way. Rerun it whenever the evaluation changes.
//!
//! The files read in this order: `sampling` (the positions), `searches` (their scores),
//! `fit` (the least squares), `table` (a whole table from a source) and `command` (the tool).

mod command;
mod fit;
mod sampling;
mod searches;
mod table;

pub use command::{run, Part, TuneMpcArgs};
pub use fit::{fit_depths, fit_endgame, FitReport};
pub use sampling::{sample_boards, sample_positions, PositionSource};
pub use searches::{depth_scores, endgame_scores, DepthScores, EndgameScores};
pub use table::{check_settings, fit_endgame_solver, fit_midgame, fit_table, FitSettings};
