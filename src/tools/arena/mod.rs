//! `oxello match`: engine-vs-engine matches over GTP or NBoard.
//!
//! Each opening is played twice with colours swapped. `--concurrency` workers each keep their
//! own pair of engine processes alive from game to game (GTP: `clear_board`; NBoard: the whole
//! game is sent with `set game` before every move), and restart an engine after it crashed,
//! hung or misbehaved. Every finished game is appended at once to the GGF file (`records`:
//! plain, or gzip-compressed when named `.gz`), and a match given a file that already holds
//! some of its games plays only the others (`resume`).
//! `--shard i/n` plays the openings of rank i, i + n, ...; the shards' files joined together
//! report the whole match.

pub mod command;
mod game;
mod player;
mod process;
pub mod records;
mod resume;
mod runner;
pub mod stats;

pub use crate::batch::openings::{choose_openings, parse_openings, BUILTIN_XOT};
pub use game::GameOutcome;
pub use player::{EngineSpec, Failure, Protocol, TimeControl};
pub use runner::{format_report, run_match, EngineTally, MatchConfig, MatchReport};
pub use stats::{Outcomes, Sprt, SprtVerdict};
