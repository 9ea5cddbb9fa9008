//! The [`SearchContext`] all threads of one search share: the table, the evaluator, the stop
//! flag, the limits and deadline, the node count, the selectivity of the current iteration and,
//! while helpers are at work, the nodes being searched.

use super::api::Limits;
use super::options::SearchOptions;
use super::parallel::BusyNodes;
use super::probcut::{ProbCutTable, PROBABLE_CUT_MIN_EMPTIES};
use super::time::TimeBudget;
use super::tt::TranspositionTable;
use crate::eval::Evaluator;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// The shallowest depth at which a node defers the moves another thread is searching, while
/// helpers are at work.
const DEFER_MIN_DEPTH: u32 = 4;

/// Everything the threads of one search share.
pub struct SearchContext<'a, N, E> {
    pub tt: &'a TranspositionTable,
    pub evaluator: &'a E,
    /// Set by the caller to end the search.
    pub stop: &'a AtomicBool,
    /// Set by the search itself at its deadline or node limit: the caller's flag stays as the
    /// caller left it, so the next search does not start stopped.
    pub(super) expired: AtomicBool,
    pub options: SearchOptions,
    start: Instant,
    pub(super) budget: TimeBudget,
    pub(super) hard_deadline: Option<Instant>,
    pub(super) node_limit: Option<u64>,
    pub(super) depth_limit: Option<u32>,
    pub(super) nodes: AtomicU64,
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
    pub(super) busy: Option<BusyNodes>,
    _node: PhantomData<fn(N)>,
}

impl<'a, N, E: Evaluator<N>> SearchContext<'a, N, E> {
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
        let budget = TimeBudget::from_limits(limits, moves_left, rayon::current_num_threads());
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
