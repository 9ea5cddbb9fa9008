//! Command-line tools that users run against the engine, each a module on top of the library:
//! matches, book tools, bench, perft and solve. The tools that make the evaluation are in
//! [`crate::training`].

pub mod arena;
pub mod bench;
pub mod book;
pub mod perft;
pub mod solve;
