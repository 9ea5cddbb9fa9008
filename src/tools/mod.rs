//! Command-line tools, each a module on top of the library.

pub mod arena;
pub mod bench;
pub mod perft;
pub mod solve;
