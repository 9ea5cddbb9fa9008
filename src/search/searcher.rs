//! The [`Searcher`]: one thread's view of a search, over the shared [`SearchContext`]: the
//! split it works below, the nodes it has not reported yet, and while helpers are at work the
//! nodes it is inside that another thread may complete first.

use super::context::SearchContext;
use super::parallel::Abort;
use crate::eval::Evaluator;
use arrayvec::ArrayVec;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// How often (in nodes) a thread publishes its node count and checks the clock.
const POLL_INTERVAL: u64 = 1024;

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
    /// mark their moves busy (see [`SearchContext::busy_nodes_at`]) up.
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

impl<'c, 'a, N, E: Evaluator<N>> Searcher<'c, 'a, N, E> {
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
    use crate::search::api::Limits;
    use crate::search::options::SearchOptions;
    use crate::search::parallel::BusyNodes;
    use crate::search::tt::TranspositionTable;
    use crate::search::tt::NO_MOVE;
    use std::sync::atomic::AtomicBool;

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
