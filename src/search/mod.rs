//! The search: iterative-deepening principal variation search over a [`SearchNode`], with a
//! shared transposition table, move ordering, helper threads and parallel splitting on a rayon
//! pool, and time control. It knows nothing of protocols: callers give [`Limits`] and get a
//! [`SearchResult`] back, with progress reported through a callback.
//!
//! The files depend one way, so they read in this order: what a caller gives and gets (`api`:
//! limits, results, progress), the table (`tt`, its memory in the crate's `zeroed_memory`, and
//! `prefetch`), `time`, the selectivity tables (`probcut`), the split primitives (`parallel`),
//! the search's `options`, the `context` all threads of a search share, one thread's view of
//! it (`searcher`), the game interface (`node`), `ordering`, the helper threads of the
//! selective iterations (`helpers`), the alpha-beta (`midgame`), Othello's exact solver
//! (`endgame`, with its cache and move keys), which orders its moves with the
//! midgame's shallow searches, Othello's board as a node (`othello`), which hands the end of
//! every search to that solver, and last the iterations from the root (`root`).

mod api;
mod context;
mod endgame;
mod helpers;
mod midgame;
mod node;
mod options;
mod ordering;
mod othello;
mod parallel;
mod prefetch;
pub mod probcut;
mod root;
mod searcher;
pub mod time;
pub mod tt;

pub use api::{
    level_depth, Bound, GameClock, Limits, Progress, Proof, RootMove, SearchResult, EXACT_MARGIN,
    INFINITY,
};
pub use context::SearchContext;
pub use endgame::SHALLOW_ORDER_MIN_EMPTIES;
pub use node::SearchNode;
pub use options::{
    OrderingOptions, ParallelOptions, SearchOptions, DATA_SELECTIVITY, DEFAULT_SELECTIVITY,
};
pub use root::search;
pub use searcher::Searcher;
pub use time::{IterationReport, TimeBudget};
pub use tt::{TableAllocationError, TranspositionTable};
