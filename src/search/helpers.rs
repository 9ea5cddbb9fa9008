//! Helper threads for the depth-limited iterations under Multi-ProbCut: while the main thread
//! searches an iteration, each other thread of the pool searches the same root to the same
//! depth with the same window, and the threads share the work through the transposition table
//! and the busy nodes (simplified ABDADA): a move whose position another thread is searching
//! waits until the node's other moves are done. Under Multi-ProbCut nearly all the work of a
//! node lies under its first move, which node splits (young brothers wait) leave to one
//! thread; here every thread enters it, and they part wherever a node offers more than one
//! move. The searches to the end and full-width iterations keep their splits, which pay there.

use super::context::SearchContext;
use super::node::SearchNode;
use super::parallel::Abort;
use super::searcher::Searcher;
use crate::eval::Evaluator;
use std::sync::atomic::{fence, AtomicI32, AtomicU32, AtomicUsize, Ordering};

/// Iterations a search can have, one a depth (a depth is at most the 60 empty squares).
const DEPTHS: usize = 65;

/// The helpers of one search: the main thread's iteration and window, and the end of each
/// iteration.
pub(super) struct Helpers {
    /// Raised at the end of the main thread's iteration of each depth, and all of them when
    /// the helpers are dismissed.
    iteration_over: [Abort<'static>; DEPTHS],
    /// Helpers inside their search, so that a dismissal can wait until none is left.
    active: AtomicUsize,
    /// The depth of the main thread's iteration.
    main_depth: AtomicU32,
    /// The window of the main thread's iteration (it widens on a fail).
    window: (AtomicI32, AtomicI32),
}

impl Helpers {
    pub(super) fn new() -> Helpers {
        Helpers {
            iteration_over: std::array::from_fn(|_| Abort::new(None)),
            active: AtomicUsize::new(0),
            main_depth: AtomicU32::new(0),
            window: (AtomicI32::new(0), AtomicI32::new(0)),
        }
    }

    /// Tells the helpers that the main thread searches `depth` plies deep with the window
    /// (`alpha`, `beta`).
    pub(super) fn main_searches(&self, depth: u32, alpha: i32, beta: i32) {
        self.window.0.store(alpha, Ordering::Relaxed);
        self.window.1.store(beta, Ordering::Relaxed);
        self.main_depth.store(depth, Ordering::Relaxed);
    }

    /// Tells the helpers that the main thread completed its iteration `depth` plies deep:
    /// a helper still at it or shallower stops there.
    pub(super) fn main_completed(&self, depth: u32) {
        for over in &self.iteration_over[..=(depth as usize).min(DEPTHS - 1)] {
            over.raise();
        }
    }

    /// Sends every other thread of the pool to search `root` beside the main thread, as far
    /// as `max_depth` (shallower than a search to the end), until dismissed; the splits pause
    /// meanwhile. The helpers run as jobs of `scope`, which the main thread must not wait in
    /// before it dismisses them (it may only once they are dismissed: a helper that starts
    /// then returns at once).
    pub(super) fn call<'s, N: SearchNode, E: Evaluator<N>>(
        &'s self,
        scope: &rayon::Scope<'s>,
        ctx: &'s SearchContext<'_, N, E>,
        root: &'s N,
        max_depth: u32,
    ) {
        ctx.set_helpers_at_work(true);
        for _ in 1..rayon::current_num_threads() {
            scope.spawn(move |_| self.help(ctx, root, max_depth));
        }
    }

    /// Searches `root` as a helper until dismissed or the search stops: the main thread's
    /// iteration, or the next one if the helper already completed it, up to `max_depth`.
    fn help<N: SearchNode, E: Evaluator<N>>(
        &self,
        ctx: &SearchContext<'_, N, E>,
        root: &N,
        max_depth: u32,
    ) {
        self.active.fetch_add(1, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        let mut done = 0;
        loop {
            let depth = (done + 1)
                .max(self.main_depth.load(Ordering::Relaxed))
                .min(max_depth);
            if depth <= done || self.dismissed() {
                break;
            }
            let over = &self.iteration_over[depth as usize];
            if over.raised() {
                // The main thread is between iterations.
                std::hint::spin_loop();
                continue;
            }
            let (alpha, beta) = (
                self.window.0.load(Ordering::Relaxed),
                self.window.1.load(Ordering::Relaxed),
            );
            let mut searcher = Searcher::below(ctx, Some(over));
            searcher.pvs(root, alpha, beta, depth, true);
            if ctx.stopped() {
                break;
            }
            done = depth;
        }
        self.active.fetch_sub(1, Ordering::Release);
    }

    fn dismissed(&self) -> bool {
        self.iteration_over[DEPTHS - 1].raised()
    }

    /// Ends every helper's search and returns once none is left searching, so that nothing a
    /// helper stores can mix with what the main thread does next; the splits resume.
    pub(super) fn dismiss<N: SearchNode, E: Evaluator<N>>(&self, ctx: &SearchContext<'_, N, E>) {
        self.main_completed(DEPTHS as u32);
        fence(Ordering::SeqCst);
        while self.active.load(Ordering::Acquire) > 0 {
            std::hint::spin_loop();
        }
        ctx.set_helpers_at_work(false);
    }
}
