//! Static evaluation: a score in discs for the side to move, from a position that is not over.
//!
//! Three evaluations sit behind one [`Evaluator`] interface: the trained linear pattern
//! evaluation ([`PatternEvaluator`]), the network that corrects it ([`NetworkEvaluator`]; both
//! built into the binary, the network the default), and a hand-made one ([`SimpleEvaluator`])
//! kept as a baseline.

mod deferred;
mod evaluation;
mod evaluator;
pub mod indices;
pub mod network;
mod pattern_eval;
pub mod patterns;
pub mod probcut_table;
mod simd;
mod simple;
pub mod weights;

pub use deferred::DeferredEvaluation;
pub use evaluation::Evaluation;
pub use evaluator::Evaluator;
pub use indices::ParentIndices;
pub use network::{NetworkError, NetworkEvaluator, NetworkWeights};
pub use pattern_eval::PatternEvaluator;
pub use probcut_table::ProbCutTable;
pub use simple::SimpleEvaluator;
pub use weights::{Weights, WeightsError};
