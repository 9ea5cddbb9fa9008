//! Command-line tools, each a module on top of the library.

pub mod arena;
pub mod bench;
pub mod dataset;
pub mod eval_error;
pub mod perft;
pub mod selfplay;
pub mod solve;
pub mod train;
