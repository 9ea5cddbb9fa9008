//! The training wing: what makes the evaluation. Label files at the ground floor, games and
//! labelled positions read into datasets above them, then the tools: selfplay, labelling, the
//! linear weights' trainer, the network's trainer, the error of an evaluation and the
//! Multi-ProbCut fit.

pub mod dataset;
pub mod eval_error;
pub mod label;
pub mod label_files;
pub mod network;
pub mod selfplay;
pub mod train;
pub mod tune_mpc;
