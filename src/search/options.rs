//! The options of a search beyond its limits: how it uses the thread pool, which ordering
//! heuristics are on, how many moves get exact scores, and its Multi-ProbCut level.

/// How a search uses the thread pool it runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParallelOptions {
    /// Use the pool's other threads at all, the endgame solver's splits included; off for a
    /// search that is itself one of many run side by side.
    pub enabled: bool,
    /// Search the root moves after the first in parallel.
    pub root_split: bool,
    /// Also split the moves after the first at interior nodes at least this deep
    /// (young brothers wait); `None` splits only at the root.
    pub interior_split_depth: Option<u32>,
    /// Moves an interior node searches alone before it splits the rest (young brothers wait
    /// for this many elders): each one that fails to cut makes the node likelier to need all
    /// its moves, so that the split's work is less often wasted.
    pub elders: u32,
    /// In the depth-limited iterations under Multi-ProbCut, let the other threads search the
    /// same root beside the main thread, deferring each other's busy nodes (see
    /// `super::helpers`), instead of splitting nodes; full-width iterations and the searches to
    /// the end split all the same.
    pub helpers: bool,
}

impl Default for ParallelOptions {
    fn default() -> Self {
        ParallelOptions {
            enabled: true,
            root_split: true,
            interior_split_depth: Some(6),
            elders: 1,
            helpers: true,
        }
    }
}

/// Which ordering heuristics are on; all by default. Switching them off measures their effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderingOptions {
    /// Search the transposition table's best move first.
    pub table_move: bool,
    /// At high depth, order by a shallow search of each move.
    pub shallow_search: bool,
    /// Order by the node's hint (fastest first, potential mobility, square priority).
    pub hints: bool,
}

impl Default for OrderingOptions {
    fn default() -> Self {
        OrderingOptions {
            table_move: true,
            shallow_search: true,
            hints: true,
        }
    }
}

impl OrderingOptions {
    /// Depth of the ordering search at a node of `depth`, if one is worth doing.
    pub fn shallow_depth(&self, depth: u32) -> Option<u32> {
        if !self.shallow_search {
            return None;
        }
        match depth {
            0..=4 => None,
            5..=8 => Some(0),
            9..=12 => Some(1),
            _ => Some(2),
        }
    }
}

/// Search settings beyond the limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    pub ordering: OrderingOptions,
    pub parallel: ParallelOptions,
    /// How many best root moves get exact scores (1 = normal play; more for hints).
    pub multi_pv: usize,
    /// Answer a single legal move or a pass at once, without searching.
    pub answer_forced_at_once: bool,
    /// At the end of the game, prove only win, loss or draw (faster than the exact score).
    pub win_loss_draw: bool,
    /// Multi-ProbCut level of the depth-limited iterations: 0 searches full width, 1 to 4
    /// cut at about 99%, 95%, 87% and 73% confidence (see [`super::probcut`]).
    pub selectivity: u8,
    /// The root moves searched, as a square mask: a book searching the best move outside its
    /// own lines asks for the others only. A mask that leaves no legal move searches them all.
    pub root_moves: u64,
}

/// The midgame selectivity of a normal search: cuts at about 73% confidence, where a move's
/// time buys the most strength (see docs/experiments.md).
pub const DEFAULT_SELECTIVITY: u8 = 4;

/// The midgame selectivity of the searches that make data to keep (labels, selfplay games, book
/// values): about 95% confidence, where a result's accuracy counts for more than its time, and
/// the level the shipped labels and book were made at.
pub const DATA_SELECTIVITY: u8 = 2;

impl SearchOptions {
    /// The options of a search that makes data to keep: the defaults at
    /// [`DATA_SELECTIVITY`].
    pub fn for_data() -> SearchOptions {
        SearchOptions {
            selectivity: DATA_SELECTIVITY,
            ..SearchOptions::default()
        }
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            ordering: OrderingOptions::default(),
            parallel: ParallelOptions::default(),
            multi_pv: 1,
            answer_forced_at_once: true,
            win_loss_draw: false,
            selectivity: DEFAULT_SELECTIVITY,
            root_moves: u64::MAX,
        }
    }
}
