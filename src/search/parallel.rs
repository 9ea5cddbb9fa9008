//! Parallel search on the rayon pool the search runs in: the moves after the first (the
//! "young brothers") are searched side by side, sharing the best bound through an atomic; a
//! fail high ends the split, and a move that beats the bound on a principal variation node is
//! re-searched with the open window. Workers take the moves in their order, so the most
//! promising ones are searched first whatever the number of threads.

use super::midgame::{bound_of, RootState, SearchContext, Searcher};
use super::node::SearchNode;
use super::ordering::Candidate;
use super::INFINITY;
use crate::eval::Evaluator;
use parking_lot::Mutex;
use rayon::prelude::*;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicUsize, Ordering};

/// Runs `search` on `items` with one worker per thread of the pool (at most one per item),
/// each worker taking the next item not yet taken, in the order of the list. A rayon
/// parallel iterator would instead hand the second half of the list to the second thread,
/// which then starts on the weaker moves. A worker stops at the end of the list or when
/// `search` breaks; `new_worker` builds each worker's state.
pub(super) fn in_order<T: Sync, W>(
    items: &[T],
    new_worker: impl Fn() -> W + Sync,
    search: impl Fn(&mut W, &T) -> ControlFlow<()> + Sync,
) {
    let next = AtomicUsize::new(0);
    let workers = rayon::current_num_threads().min(items.len());
    (0..workers).into_par_iter().for_each(|_| {
        let mut worker = new_worker();
        while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
            if search(&mut worker, item).is_break() {
                break;
            }
        }
    });
}

/// The best (score, move) found by the threads of a split, kept in one atomic: the score and
/// move are packed so that the larger score (then the larger move) compares larger.
pub(super) struct SharedBest(AtomicU32);

impl SharedBest {
    fn pack(score: i32, mv: u8) -> u32 {
        ((score + 1024) as u32) << 8 | u32::from(mv)
    }

    pub(super) fn new(score: i32, mv: u8) -> SharedBest {
        SharedBest(AtomicU32::new(Self::pack(score, mv)))
    }

    /// Records a result; keeps the best.
    pub(super) fn offer(&self, score: i32, mv: u8) {
        self.0.fetch_max(Self::pack(score, mv), Ordering::Relaxed);
    }

    /// The best score and its move.
    pub(super) fn get(&self) -> (i32, u8) {
        let packed = self.0.load(Ordering::Relaxed);
        ((packed >> 8) as i32 - 1024, packed as u8)
    }
}

/// Searches `siblings` of a node of `depth` in parallel after its first move raised the bound
/// to `alpha`; returns the best score and move among them (fail-soft).
pub(super) fn search_siblings<N: SearchNode, E: Evaluator<N>>(
    ctx: &SearchContext<'_, N, E>,
    siblings: &[Candidate<N>],
    alpha: i32,
    beta: i32,
    depth: u32,
    pv: bool,
) -> (i32, u8) {
    let shared_alpha = AtomicI32::new(alpha);
    let best = SharedBest::new(-INFINITY, siblings[0].mv);
    in_order(
        siblings,
        || Searcher::new(ctx),
        |searcher, candidate| {
            let floor = shared_alpha.load(Ordering::Relaxed);
            if floor >= beta || ctx.stopped() {
                return ControlFlow::Break(());
            }
            let score =
                searcher.null_window_then_open(&candidate.child, floor, beta, depth - 1, pv);
            if ctx.stopped() {
                return ControlFlow::Break(());
            }
            best.offer(score, candidate.mv);
            shared_alpha.fetch_max(score, Ordering::Relaxed);
            if score >= beta {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    best.get()
}

/// Searches the root moves after the first in parallel against the bound `alpha` set by the
/// first; fills in each move's score and bound and returns the best score among them.
pub(super) fn search_root_moves<N: SearchNode, E: Evaluator<N>>(
    ctx: &SearchContext<'_, N, E>,
    roots: &mut [RootState<N>],
    alpha: i32,
    beta: i32,
    depth: u32,
) -> i32 {
    let shared_alpha = AtomicI32::new(alpha);
    for root in roots.iter_mut() {
        root.score = -INFINITY;
        root.bound = super::Bound::Upper;
    }
    let slots: Vec<Mutex<&mut RootState<N>>> = roots.iter_mut().map(Mutex::new).collect();
    in_order(
        &slots,
        || Searcher::new(ctx),
        |searcher, slot| {
            let floor = shared_alpha.load(Ordering::Relaxed);
            if floor >= beta || ctx.stopped() {
                return ControlFlow::Break(());
            }
            let mut root = slot.lock();
            let score = searcher.null_window_then_open(&root.child, floor, beta, depth - 1, true);
            if ctx.stopped() {
                return ControlFlow::Break(());
            }
            root.score = score;
            root.bound = bound_of(score, floor, beta);
            root.current = true;
            shared_alpha.fetch_max(score, Ordering::Relaxed);
            if score >= beta {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    drop(slots);
    roots.iter().map(|r| r.score).max().unwrap_or(-INFINITY)
}
