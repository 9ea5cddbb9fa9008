//! The search: iterative-deepening principal variation search over a [`SearchNode`], with a
//! shared transposition table, move ordering, helper threads and parallel splitting on a rayon
//! pool, and time control. It knows nothing of protocols: callers give [`Limits`] and get a
//! [`SearchResult`] back, with progress reported through a callback.
//!
//! The files depend one way, so they read in this order: the table (`tt`, its memory in the
//! crate's `zeroed_memory`), `time`, the selectivity tables (`probcut`), the split primitives
//! (`parallel`), what the parts share (`context`: the game interface, options, the shared
//! context and a thread's `Searcher`), `ordering`, the helper threads of the selective
//! iterations (`helpers`), the alpha-beta and its iterations (`midgame`), Othello's exact solver
//! (`endgame`, with `endgame_cache` and `endgame_keys`), which orders its moves with the
//! midgame's shallow searches, and last Othello's board as a node (`othello`), which hands the
//! end of every search to that solver.

mod api;
mod context;
mod endgame;
mod endgame_cache;
mod endgame_keys;
mod helpers;
mod midgame;
mod ordering;
mod othello;
mod parallel;
mod prefetch;
pub mod probcut;
mod root;
pub mod time;
pub mod tt;

pub use api::{
    level_depth, Bound, GameClock, Limits, Progress, Proof, RootMove, SearchResult, EXACT_MARGIN,
    INFINITY,
};
pub use context::{
    OrderingOptions, ParallelOptions, SearchContext, SearchNode, SearchOptions, Searcher,
    DATA_SELECTIVITY, DEFAULT_SELECTIVITY,
};
pub use endgame::SHALLOW_ORDER_MIN_EMPTIES;
pub use root::search;
pub use time::{IterationReport, TimeBudget};
pub use tt::{TableAllocationError, TranspositionTable};
