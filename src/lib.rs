//! oxello: a multithreaded Othello engine.
//!
//! - [`board`]: the rules on bitboards (moves, flips, passes, scores, symmetries, hashing);
//! - [`cpu`]: the instruction-set levels the search is compiled for, chosen at run time;
//! - [`book`]: the opening book (positions merged under symmetry, values negamaxed);
//! - [`notation`]: squares, board strings, transcripts, OBF, GGF and WTHOR, parsed and printed;
//! - [`tools`]: the command-line tools users run against the engine (match, book, bench, perft, solve);
//! - [`training`]: what makes the evaluation (selfplay, labels, datasets, trainers, fits);
//! - [`batch`]: what the long jobs share (engines over many items, progress, shards, openings);
//! - [`web`]: `oxello web`, a board in the browser over the same engine core;
//! - [`zeroed_memory`]: large zeroed arrays on huge pages (the table's, the network's rows).

pub mod batch;
pub mod board;
pub mod book;
pub mod cli;
pub mod cpu;
pub mod engine;
pub mod eval;
pub mod notation;
pub mod protocol;
pub mod random;
pub mod search;
pub mod tools;
pub mod training;
pub mod web;
pub mod zeroed_memory;

pub use board::{Board, Color, Move, Position};
