//! The solver of one thread ([`Solver`]) and where each of its tiers and techniques starts, in
//! empties: what the tiers' files share.

use crate::board::Board;
use crate::search::probcut::PROBABLE_CUT_MIN_EMPTIES;
use crate::search::searcher::Searcher;

/// From this many empties the solver uses the transposition table; the thread's endgame cache
/// holds the smaller nodes (measured against 11: the same nodes within 1% and 0.95x the time
/// on FFO #20-#39 and #40-#49; from 13, 4% more nodes).
pub const TABLE_MIN_EMPTIES: u32 = 12;
/// From this many empties the solver looks its children up in the table for a transposition
/// cutoff: the children of a node of `TABLE_MIN_EMPTIES` are below the table's range (they
/// are looked up in the thread's endgame cache instead), and looking them up in the table
/// costs memory traffic for nothing (measured: 4% of the time on FFO #20-#39, 8% on #40-#49,
/// the same nodes).
pub(super) const ETC_MIN_EMPTIES: u32 = TABLE_MIN_EMPTIES + 1;
/// From this many empties the moves after the first (all of them at a node the table expects
/// to fail low) are searched in parallel.
pub const SPLIT_MIN_EMPTIES: u32 = 15;
/// From this many empties the moves after the table move are also keyed by the evaluation of
/// the position each leads to, the children evaluated together from the parent's pattern
/// indices (measured against 14: 6-7% fewer nodes on FFO #20-#39 and #40-#49 in the same
/// time; from 11, 2% fewer again but 3-5% more time).
pub const EVAL_ORDER_MIN_EMPTIES: u32 = 12;
/// Discs of evaluation worth one unit of the fastest-first key (16 units: one opponent reply).
pub(super) const EVAL_ORDER_WEIGHT: i32 = 2;
/// From this many empties moves are ordered by a shallow search with the evaluation instead.
pub const SHALLOW_ORDER_MIN_EMPTIES: u32 = 18;

/// Depth of the ordering search at `empties` (at least `SHALLOW_ORDER_MIN_EMPTIES`): one ply
/// more every three empties.
pub(super) fn shallow_order_depth(empties: u32) -> u32 {
    (empties - 12) / 3
}

/// From this many empties the small tier keys its moves fastest first; below it, in parity
/// order without keys (measured against fastest first at 6 empties: 7-11% more nodes but 4%
/// fewer instructions and 10-11% fewer mispredicted branches under cachegrind, FFO #40-#49
/// and 20 positions of 20 empties; 0.975x the wall time on 100 positions of 20 empties).
pub(super) const FASTEST_FIRST_MIN_EMPTIES: u32 = LAST_MOVES_EMPTIES + 2;

/// At or below this many empties moves go in parity order without sorting.
pub const LAST_MOVES_EMPTIES: u32 = 5;

/// The lowest alpha at which nodes of 4 and 5 empties try the stability cutoff: below it the
/// opponent seldom has the stable discs to cut, and the test costs more than it saves.
/// Measured: on FFO #48 the cutoff at 4 and 5 empties takes 32% of the nodes and 16% of the
/// instructions off; on the smaller #21-#36 it adds 3% instructions with no floor and 0.5%
/// with floors of 6 and 8, but those raise FFO #45 #48 #49 #51 from 630M nodes to 649M
/// (2 and 4: 633M, and 1% more instructions on #21-#36).
pub(super) const LAST_STABILITY_MIN_ALPHA: [i32; 2] = [2, 4];

/// From this many empties the small tier keeps its results in the thread's endgame cache
/// (measured on an Intel Xeon: from 6 against 9, 14% fewer nodes and 6-7% less time on FFO
/// #20-#39 and #40-#49; the lowest size the small tier handles).
pub const CACHE_MIN_EMPTIES: u32 = 6;
/// From this many empties, where the children are in the cache's range, the small tier looks
/// them up there before searching any (measured: 4-5% fewer nodes on FFO #20-#39 and
/// #40-#49 in the same time).
pub(super) const SMALL_ETC_MIN_EMPTIES: u32 = CACHE_MIN_EMPTIES + 1;
// The children of the table's smallest nodes are in the cache's range (their cutoff above).
const _: () = assert!(TABLE_MIN_EMPTIES > CACHE_MIN_EMPTIES);
// The cache holds only full-width results: no probable cut in its range or below.
const _: () = assert!(PROBABLE_CUT_MIN_EMPTIES >= TABLE_MIN_EMPTIES);

/// A null-window endgame search of one thread, below the splits of its searcher.
pub(super) struct Solver<'c, 'a, E> {
    pub(super) searcher: Searcher<'c, 'a, Board, E>,
}

/// An upper bound from the opponent's stable discs that already fails low, if any. Computed
/// only when the bound could reach `alpha` at all.
#[inline(always)]
pub(super) fn stability_bound(board: &Board, alpha: i32) -> Option<i32> {
    if alpha < 64 - 2 * board.opponent_count() as i32 {
        return None;
    }
    let bound = 64 - 2 * board.stable_opponent_discs().count_ones() as i32;
    (bound <= alpha).then_some(bound)
}
