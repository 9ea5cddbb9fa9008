//! What every part of the search shares: the game it searches ([`SearchNode`]), the options,
//! the [`SearchContext`] all threads of one search share (table, evaluator, stop flag, limits,
//! node count, selectivity) and the [`Searcher`], one thread's view of it. The search itself
//! is built on these: `midgame` (the alpha-beta and its iterations), then `endgame` (Othello's
//! exact solver), then `othello` (the board as a node).

use super::api::Limits;
use super::parallel::{Abort, BusyNodes};
use super::probcut::{ProbCutTable, PROBABLE_CUT_MIN_EMPTIES};
use super::time::TimeBudget;
use super::tt::TranspositionTable;
use crate::cpu::{Isa, IsaDetected};
use crate::eval::Evaluator;
use arrayvec::ArrayVec;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// A game position the search can explore. Moves are identified by numbers 0..64 so that the
/// legal moves of a node fit in one `u64`.
///
/// The methods the search's hot code calls take the instruction-set level that code is
/// compiled for ([`Isa`]), for a game whose rules have versions per level; the others may
/// ignore it.
pub trait SearchNode: Copy + Send + Sync {
    /// The legal moves of the side to move, as a set of move numbers.
    fn moves_at<I: Isa>(&self, isa: I) -> u64;
    /// The position after move `mv` (a member of [`SearchNode::moves_at`]).
    fn play_at<I: Isa>(&self, isa: I, mv: usize) -> Self;
    /// [`SearchNode::moves_at`] at the detected level.
    fn moves(&self) -> u64 {
        self.moves_at(IsaDetected)
    }
    /// [`SearchNode::play_at`] at the detected level.
    fn play(&self, mv: usize) -> Self {
        self.play_at(IsaDetected, mv)
    }
    /// The position after the side to move passes (when it has no move).
    fn pass(&self) -> Self;
    /// The exact final score for the side to move, when neither side can move.
    fn final_score(&self) -> i32;
    /// A key for the transposition table.
    fn key(&self) -> u64;
    /// Moves left until the game is surely over (Othello: empty squares); a search at least
    /// this deep is exact.
    fn moves_left(&self) -> u32;
    /// Sets of moves, together all of them, in the order a node one ply above the leaves tries
    /// them: a static order, likelier moves first, where a node any deeper orders by hints.
    const FRONTIER_ORDER: &'static [u64] = &[u64::MAX];

    /// A cheap guess of how good `mv` (leading to `child`) is, for move ordering: higher is
    /// searched first.
    fn ordering_hint_at<I: Isa>(&self, isa: I, mv: usize, child: &Self) -> i32;

    /// A dedicated exact solver, if the game has one: the final score of `node` against the
    /// null window (`alpha`, `alpha + 1`), fail-soft. Called where the search reaches the end
    /// of the game; `None` leaves it to the general search.
    fn solve_null_window<E: Evaluator<Self>>(
        _searcher: &mut Searcher<'_, '_, Self, E>,
        _node: &Self,
        _alpha: i32,
    ) -> Option<i32> {
        None
    }
}

/// How often (in nodes) a thread publishes its node count and checks the clock.
const POLL_INTERVAL: u64 = 1024;

/// The shallowest depth at which a node defers the moves another thread is searching, while
/// helpers are at work.
const DEFER_MIN_DEPTH: u32 = 4;

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

/// Everything the threads of one search share.
pub struct SearchContext<'a, N, E> {
    pub tt: &'a TranspositionTable,
    pub evaluator: &'a E,
    /// Set by the caller to end the search.
    pub stop: &'a AtomicBool,
    /// Set by the search itself at its deadline or node limit: the caller's flag stays as the
    /// caller left it, so the next search does not start stopped.
    expired: AtomicBool,
    pub options: SearchOptions,
    start: Instant,
    pub(super) budget: TimeBudget,
    hard_deadline: Option<Instant>,
    node_limit: Option<u64>,
    pub(super) depth_limit: Option<u32>,
    nodes: AtomicU64,
    /// Selectivity level of the endgame solver in the current iteration; 0 = full width.
    pub(super) selectivity: AtomicU8,
    /// Multi-ProbCut level of the current iteration's depth-limited nodes; 0 = full width.
    pub(super) midgame_selectivity: AtomicU8,
    /// The evaluation's Multi-ProbCut table.
    pub(super) probcut: &'a ProbCutTable,
    parallel: bool,
    /// Set while helper threads search the tree beside the main thread, sharing the work by
    /// deferring each other's busy nodes instead of by splits (see `super::helpers`).
    helpers_at_work: AtomicBool,
    /// The nodes being searched, while helpers are at work; made only for a search that can
    /// have helpers, so that the others (one thread, full width, the data tools' many small
    /// solves) do not allocate it.
    busy: Option<BusyNodes>,
    _node: PhantomData<fn(N)>,
}

impl<'a, N: SearchNode, E: Evaluator<N>> SearchContext<'a, N, E> {
    /// A context for one search under `limits` from a root with `moves_left` moves to the end.
    /// The clock starts now. Parallel splitting is used when the options enable it and the
    /// current rayon pool has more than one thread.
    pub fn new(
        tt: &'a TranspositionTable,
        evaluator: &'a E,
        stop: &'a AtomicBool,
        options: SearchOptions,
        limits: &Limits,
        moves_left: u32,
    ) -> Self {
        let start = Instant::now();
        let budget = TimeBudget::from_limits(limits, moves_left);
        let parallel = options.parallel.enabled && rayon::current_num_threads() > 1;
        SearchContext {
            tt,
            evaluator,
            stop,
            expired: AtomicBool::new(false),
            options,
            start,
            budget,
            hard_deadline: budget.hard.map(|d| start + d),
            node_limit: limits.nodes,
            depth_limit: limits.depth,
            nodes: AtomicU64::new(0),
            selectivity: AtomicU8::new(0),
            midgame_selectivity: AtomicU8::new(0),
            probcut: evaluator.probcut_table(),
            parallel,
            helpers_at_work: AtomicBool::new(false),
            busy: (parallel && options.parallel.helpers && options.selectivity > 0)
                .then(BusyNodes::new),
            _node: PhantomData,
        }
    }

    /// Nodes searched so far by all threads (up to each thread's last report).
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    #[inline]
    pub(super) fn stopped(&self) -> bool {
        self.expired.load(Ordering::Relaxed) || self.stop.load(Ordering::Relaxed)
    }

    /// The endgame solver's selectivity level now (0: full width, every bound proved).
    #[inline]
    pub(super) fn selectivity(&self) -> u8 {
        self.selectivity.load(Ordering::Relaxed)
    }

    /// The Multi-ProbCut level of depth-limited nodes in this iteration (0: full width).
    #[inline]
    pub(super) fn midgame_selectivity(&self) -> u8 {
        self.midgame_selectivity.load(Ordering::Relaxed)
    }

    /// The selectivity a table entry must at least match to answer a probe: the midgame
    /// level in depth-limited iterations, the endgame solver's in searches to the end.
    #[inline]
    pub(super) fn probe_selectivity(&self) -> u8 {
        self.midgame_selectivity().max(self.selectivity())
    }

    /// The selectivity to store a result with: this iteration's level for a search to the end
    /// from `PROBABLE_CUT_MIN_EMPTIES` empties up, whose tree may hold probable cuts; 0 below
    /// that, where the solver takes none; for depth-limited results, the Multi-ProbCut level
    /// they were searched at.
    #[inline]
    pub(super) fn result_selectivity(&self, depth: u32, moves_left: u32) -> u8 {
        if depth >= moves_left {
            if moves_left >= PROBABLE_CUT_MIN_EMPTIES {
                self.selectivity()
            } else {
                0
            }
        } else {
            self.midgame_selectivity()
        }
    }

    /// Whether the search splits its work between threads now.
    #[inline]
    pub(super) fn parallel(&self) -> bool {
        self.parallel && !self.helpers_at_work()
    }

    /// Whether helper threads search beside the main thread now.
    #[inline]
    pub(super) fn helpers_at_work(&self) -> bool {
        self.helpers_at_work.load(Ordering::Relaxed)
    }

    /// Whether the depth-limited iterations leave the other threads to helpers instead of
    /// splitting nodes: under Multi-ProbCut only. Full-width trees split well, and their scores
    /// stay those of one thread (a helper's bounds, some from an iteration ahead of the main
    /// thread's, would change them).
    pub(super) fn uses_helpers(&self) -> bool {
        self.busy.is_some()
    }

    /// The busy nodes a node `depth` plies from the leaves checks and marks: while helpers
    /// are at work, from [`DEFER_MIN_DEPTH`] plies up.
    #[inline]
    pub(super) fn busy_nodes_at(&self, depth: u32) -> Option<&BusyNodes> {
        if depth >= DEFER_MIN_DEPTH && self.helpers_at_work() {
            self.busy.as_ref()
        } else {
            None
        }
    }

    /// Marks helpers at work (`true`: no splits, busy nodes deferred) or gone.
    pub(super) fn set_helpers_at_work(&self, at_work: bool) {
        self.helpers_at_work.store(at_work, Ordering::Relaxed);
    }

    /// Whether a search `depth` plies deep from a node `moves_left` from the end may split
    /// there. Searches to the end never do: the endgame solver's own splits do that work, and
    /// splitting above them costs transpositions between the siblings' trees.
    pub(super) fn may_split(&self, depth: u32, moves_left: u32) -> bool {
        self.parallel() && depth < moves_left
    }

    /// Whether an interior node (see [`SearchContext::may_split`]) splits its moves after the
    /// first.
    pub(super) fn splits_at(&self, depth: u32, moves_left: u32) -> bool {
        self.may_split(depth, moves_left)
            && self
                .options
                .parallel
                .interior_split_depth
                .is_some_and(|d| depth >= d)
    }
}

/// One thread's part of a search: the shared context, the splits it searches below, and the
/// nodes it has not reported yet; while helpers are at work, also the nodes it is inside
/// that another thread may complete first.
pub struct Searcher<'c, 'a, N, E> {
    pub(super) ctx: &'c SearchContext<'a, N, E>,
    pub(super) abort: Option<&'c Abort<'c>>,
    pub(super) pending_nodes: u64,
    /// The pool thread the searcher runs on, which the busy nodes know it by.
    pub(super) thread: usize,
    /// The nodes this thread is inside, root side first, from one ply below the nodes that
    /// mark their moves busy ([`DEFER_MIN_DEPTH`]) up.
    frames: ArrayVec<Frame, MAX_FRAMES>,
    /// Set when another thread completed the node of a frame, with a result in the table that
    /// settles this thread's window there: the frame's index and that result. Every search
    /// below the frame returns at once, as under an abort, and the frame's node returns the
    /// result.
    unwind: Option<(usize, i32)>,
    /// Set while the thread's search only orders moves (the solver's shallow searches): its
    /// leaves take the evaluation's cheaper version for ordering
    /// ([`Evaluator::children_for_ordering`]).
    pub(super) ordering_only: bool,
}

/// A node a thread is inside, as it searches it: what the table needs to tell whether
/// another thread's result for the node settles it.
#[derive(Clone, Copy)]
struct Frame {
    key: u64,
    depth: u32,
    window: (i32, i32),
}

/// Frames a thread keeps: one a ply of the deepest search (and of its Multi-ProbCut searches,
/// which nest within it at a lesser depth); deeper ones go unrecorded.
const MAX_FRAMES: usize = 128;

impl<N, E> Drop for Searcher<'_, '_, N, E> {
    fn drop(&mut self) {
        self.ctx
            .nodes
            .fetch_add(self.pending_nodes, Ordering::Relaxed);
    }
}

impl<'c, 'a, N: SearchNode, E: Evaluator<N>> Searcher<'c, 'a, N, E> {
    pub(super) fn new(ctx: &'c SearchContext<'a, N, E>) -> Self {
        Self::below(ctx, None)
    }

    /// A searcher working below the split `abort`: a fail high there or above ends its work.
    pub(super) fn below(ctx: &'c SearchContext<'a, N, E>, abort: Option<&'c Abort<'c>>) -> Self {
        Searcher {
            ctx,
            abort,
            pending_nodes: 0,
            thread: rayon::current_thread_index().unwrap_or(0),
            frames: ArrayVec::new(),
            unwind: None,
            ordering_only: false,
        }
    }

    /// Whether this thread's search is over: the whole search stopped, or a split above it
    /// failed high.
    #[inline]
    pub(super) fn stopped(&self) -> bool {
        self.unwind.is_some() || self.ctx.stopped() || self.abort.is_some_and(|a| a.raised())
    }

    /// Records that the thread enters a node of `depth` with `window`, if helpers are at work
    /// and its parent marks it busy (see [`SearchContext::busy_nodes_at`]); first it takes any
    /// notice of a node another thread completed. Returns whether the frame was recorded, for
    /// [`Searcher::leave_frame`].
    #[inline]
    pub(super) fn enter_frame(&mut self, key: u64, depth: u32, window: (i32, i32)) -> bool {
        let Some(busy) = self.ctx.busy_nodes_at(depth + 1) else {
            return false;
        };
        if let Some(completed) = busy.take_notice(self.thread) {
            self.unwind_to(completed);
        }
        self.frames.try_push(Frame { key, depth, window }).is_ok()
    }

    /// Leaves the node of the last frame, telling the other threads inside it (that marked
    /// it busy) that it is complete if it is; returns the result another thread found for
    /// it, if the search below was cut short for that.
    #[inline]
    pub(super) fn leave_frame(&mut self) -> Option<i32> {
        let frame = self.frames.pop()?;
        if let Some(busy) = self.ctx.busy.as_ref() {
            let still_inside = busy.others_inside(frame.key, self.thread);
            if still_inside != 0 && !self.stopped() {
                busy.notify(still_inside, frame.key);
            }
        }
        match self.unwind {
            Some((level, score)) if level == self.frames.len() => {
                self.unwind = None;
                Some(score)
            }
            _ => None,
        }
    }

    /// Stops the search below the node of `key`, if this thread is inside it and the table
    /// settles its window there.
    fn unwind_to(&mut self, key: u64) {
        let selectivity = self.ctx.probe_selectivity();
        let outer = self.unwind.map_or(self.frames.len(), |(level, _)| level);
        let settled = self.frames[..outer]
            .iter()
            .enumerate()
            .filter(|(_, frame)| frame.key == key)
            .find_map(|(level, frame)| {
                let (score, _) =
                    self.ctx
                        .tt
                        .probe_window(key, frame.depth, selectivity, frame.window);
                score.map(|score| (level, score))
            });
        if settled.is_some() {
            self.unwind = settled;
        }
    }

    #[inline]
    pub(super) fn count_node(&mut self) {
        self.pending_nodes += 1;
        if self.pending_nodes >= POLL_INTERVAL {
            self.poll();
        }
    }

    /// Publishes the node count and stops the search at the deadline or node limit.
    fn poll(&mut self) {
        let total = self
            .ctx
            .nodes
            .fetch_add(self.pending_nodes, Ordering::Relaxed)
            + self.pending_nodes;
        self.pending_nodes = 0;
        let out_of_nodes = self.ctx.node_limit.is_some_and(|limit| total >= limit);
        let out_of_time = self
            .ctx
            .hard_deadline
            .is_some_and(|deadline| Instant::now() >= deadline);
        if out_of_nodes || out_of_time {
            self.ctx.expired.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::eval::SimpleEvaluator;
    use crate::search::tt::NO_MOVE;

    #[test]
    fn a_node_another_thread_completed_ends_the_search_below_it() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            let tt = TranspositionTable::new(1);
            let stop = AtomicBool::new(false);
            let options = SearchOptions::default();
            let ctx = SearchContext::<Board, _>::new(
                &tt,
                &SimpleEvaluator,
                &stop,
                options,
                &Limits::default(),
                60,
            );
            ctx.set_helpers_at_work(true);
            let busy = ctx
                .busy
                .as_ref()
                .expect("two threads under Multi-ProbCut have helpers");
            let mut searcher = Searcher::new(&ctx);
            let me = BusyNodes::occupant(searcher.thread);
            let (outer, inner, shallow) = (0x1111_2222_3333_4444, 0x5555_6666_7777_8888, 0x99);
            assert!(searcher.enter_frame(outer, 8, (0, 1)));
            assert!(searcher.enter_frame(inner, 6, (-1, 0)));

            tt.store(inner, 3, 0, -1, 0, 7, NO_MOVE);
            busy.notify(me, inner);
            assert!(searcher.enter_frame(shallow, 4, (0, 1)));
            assert!(
                !searcher.stopped(),
                "a result shallower than the thread's search settles nothing"
            );
            assert_eq!(searcher.leave_frame(), None);

            tt.store(outer, 8, 0, 0, 1, 5, NO_MOVE);
            busy.notify(me, outer);
            assert!(searcher.enter_frame(shallow, 4, (0, 1)));
            assert!(searcher.stopped(), "the search below the outer node ends");
            assert_eq!(searcher.leave_frame(), None);
            assert_eq!(searcher.leave_frame(), None);
            assert_eq!(
                searcher.leave_frame(),
                Some(5),
                "the outer node returns the result"
            );
            assert!(!searcher.stopped());
        });
    }
}
