//! Principal variation search below the root, generic over [`SearchNode`], so that Othello and
//! the test trees run the same alpha-beta: the recursion (`Searcher::pvs`, with Multi-ProbCut)
//! and the parallel splits of a node's moves after the first. Where a node reaches the end of
//! the game, the game's own solver takes over through [`SearchNode::solve_null_window`]. The
//! iterations at the root are [`super::root`].

use super::api::{Bound, INFINITY};
use super::context::SearchContext;
use super::node::SearchNode;
use super::ordering::{Candidate, MoveList};
use super::parallel::{in_order, Abort, SharedBest};
use super::probcut::{cut_bounds, shallow_depth, MIN_CUT_DEPTH};
use super::searcher::Searcher;
use super::tt::NO_MOVE;
use crate::cpu::{per_level, Isa};
use crate::eval::Evaluator;
use arrayvec::ArrayVec;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicI32, Ordering};

/// The shallowest depth at which a null-window node looks its children up in the table
/// before searching them.
const ETC_MIN_DEPTH: u32 = 4;

impl<'a, N: SearchNode, E: Evaluator<N>> SearchContext<'a, N, E> {
    /// Fixed-depth alpha-beta (PVS) of `node` with window (`alpha`, `beta`): the recursion the
    /// engine uses, without iterative deepening. Returns a fail-soft score.
    pub fn alpha_beta(&self, node: &N, alpha: i32, beta: i32, depth: u32) -> i32 {
        Searcher::new(self).pvs(node, alpha, beta, depth, true)
    }
}

impl<'c, 'a, N: SearchNode, E: Evaluator<N>> Searcher<'c, 'a, N, E> {
    /// The value of a node at depth 0: exact if the game is over, else the evaluation.
    #[inline(always)]
    pub(super) fn leaf<I: Isa>(&self, isa: I, node: &N) -> i32 {
        if node.moves_at(isa) == 0 && node.pass().moves_at(isa) == 0 {
            node.final_score()
        } else if self.ordering_only {
            self.ctx.evaluator.evaluate_for_ordering(isa, node)
        } else {
            self.ctx.evaluator.evaluate_at(isa, node)
        }
    }

    per_level! {
        /// Principal variation search, fail-soft. `pv` marks nodes on the principal variation,
        /// searched with an open window; the others get null windows.
        pub(super) fn pvs[pvs_at, pvs_v4, pvs_v3, pvs_baseline](
            &mut self, node: &N, alpha: i32, beta: i32, depth: u32, pv: bool
        ) -> i32 => pvs_body;

        /// The search of a node's moves once the table has not settled it ([`Self::expand_body`]).
        #[allow(clippy::too_many_arguments)] // with the level's token, one more than the lint's 7
        fn expand[expand_at, expand_v4, expand_v3, expand_baseline](
            &mut self,
            node: &N,
            moves: u64,
            window: (i32, i32),
            depth: u32,
            pv: bool,
            table: (u64, u8),
        ) -> i32 => expand_body;

        /// A node one ply above the leaves ([`Self::frontier_body`]).
        fn frontier[frontier_at, frontier_v4, frontier_v3, frontier_baseline](
            &mut self, node: &N, moves: u64, window: (i32, i32)
        ) -> i32 => frontier_body;
    }

    /// [`Self::pvs`], compiled into each level's clone.
    #[inline(always)]
    fn pvs_body<I: Isa>(
        &mut self,
        isa: I,
        node: &N,
        alpha: i32,
        beta: i32,
        depth: u32,
        pv: bool,
    ) -> i32 {
        self.count_node();
        if self.stopped() {
            return 0;
        }
        if depth == 0 {
            return self.leaf(isa, node);
        }
        let moves = node.moves_at(isa);
        if moves == 0 {
            let passed = node.pass();
            if passed.moves_at(isa) == 0 {
                return node.final_score();
            }
            return -self.pvs_at(isa, &passed, -beta, -alpha, depth, pv);
        }
        let depth = depth.min(node.moves_left());
        if depth == node.moves_left() && beta == alpha + 1 {
            if let Some(score) = N::solve_null_window(self, node, alpha) {
                return score;
            }
        }
        if depth == 1 {
            return self.frontier_at(isa, node, moves, (alpha, beta));
        }
        let key = node.key();
        let (settled, table_move) =
            self.ctx
                .tt
                .probe_window(key, depth, self.ctx.probe_selectivity(), (alpha, beta));
        if let Some(score) = settled {
            return score;
        }
        let framed = self.enter_frame(key, depth, (alpha, beta));
        let score = self.expand_at(
            isa,
            node,
            moves,
            (alpha, beta),
            depth,
            pv,
            (key, table_move),
        );
        if framed {
            if let Some(completed_elsewhere) = self.leave_frame() {
                return completed_elsewhere;
            }
        }
        score
    }

    /// The search of a node's moves, once the table has not settled it: Multi-ProbCut, the
    /// enhanced transposition cutoff, then the moves in order (the table's move for the
    /// node's `key` first), deferring those another thread is in, or splitting them between
    /// threads.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // with the level's token, one more than the lint's 7
    fn expand_body<I: Isa>(
        &mut self,
        isa: I,
        node: &N,
        moves: u64,
        (mut alpha, beta): (i32, i32),
        depth: u32,
        pv: bool,
        (key, table_move): (u64, u8),
    ) -> i32 {
        if !pv && beta == alpha + 1 && depth >= MIN_CUT_DEPTH && depth < node.moves_left() {
            if let Some(score) = self.probable_cut(node, alpha, beta, depth) {
                return score;
            }
        }

        let ordering = self.ctx.options.ordering;
        let mut list = MoveList::new(isa, node, moves, table_move, &ordering);
        if !pv && depth >= ETC_MIN_DEPTH {
            if let Some(score) = self.transposition_cut(&list, depth, beta) {
                return score;
            }
        }
        // The ordering searches wait until the table move, if any, has failed to cut.
        let mut shallow = if list.len() > 1 {
            ordering.shallow_depth(depth)
        } else {
            None
        };

        let alpha_at_entry = alpha;
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        let mut searched = 0;
        let busy = self.ctx.busy_nodes_at(depth);
        let mut deferred = ArrayVec::<u8, 64>::new();
        let mut deferred_taken = 0;
        loop {
            if !(searched == 0 && list.holds_table_move()) {
                if let Some(shallow) = shallow.take() {
                    list.rekey(|c| {
                        -self.pvs_at(isa, &c.child, -INFINITY, INFINITY, shallow, false)
                    });
                }
            }
            if searched >= self.ctx.options.parallel.elders
                && self.ctx.splits_at(depth, node.moves_left())
            {
                let rest = list.remaining_sorted();
                if !rest.is_empty() {
                    let (score, mv) = search_siblings(self, rest, alpha, beta, depth, pv);
                    if score > best {
                        best = score;
                        best_move = mv;
                    }
                }
                break;
            }
            // The node's moves in order, then those deferred because another thread had them.
            let (candidate, deferrable) = match list.next_best() {
                Some(candidate) => (candidate, searched > 0),
                None => match deferred.get(deferred_taken) {
                    Some(&mv) => {
                        deferred_taken += 1;
                        let child = node.play_at(isa, usize::from(mv));
                        (Candidate { mv, child, key: 0 }, false)
                    }
                    None => break,
                },
            };
            let child_mark = busy.map(|busy| (busy, candidate.child.key()));
            if let Some((busy, child_key)) = child_mark {
                if deferrable && busy.is_busy(child_key) {
                    deferred.push(candidate.mv);
                    continue;
                }
                busy.enter(child_key, self.thread);
            }
            let score = if searched == 0 {
                -self.pvs_at(isa, &candidate.child, -beta, -alpha, depth - 1, pv)
            } else {
                self.null_window_then_open(&candidate.child, alpha, beta, depth - 1, pv)
            };
            if let Some((busy, child_key)) = child_mark {
                busy.leave(child_key, self.thread);
            }
            searched += 1;
            if score > best {
                best = score;
                best_move = candidate.mv;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if self.stopped() {
            return 0;
        }
        self.ctx.tt.store(
            key,
            depth,
            self.ctx.result_selectivity(depth, node.moves_left()),
            alpha_at_entry,
            beta,
            best,
            best_move,
        );
        best
    }

    /// A node one ply above the leaves, with its legal `moves`: the best evaluation of its
    /// children, taken class by class of [`SearchNode::FRONTIER_ORDER`] up to the first that
    /// reaches `beta` (fail-soft). No table and no ordering by hints: here a table probe or a
    /// hint costs about what the evaluations it might save cost. In a search that only orders
    /// moves, the children take the evaluation's version for ordering.
    #[inline(always)]
    fn frontier_body<I: Isa>(&mut self, isa: I, node: &N, moves: u64, window: (i32, i32)) -> i32 {
        if self.ordering_only {
            let evaluate_child = self.ctx.evaluator.children_for_ordering(isa, node);
            self.best_child(isa, node, moves, window, |mv, child, _| {
                evaluate_child(mv, child)
            })
        } else {
            let evaluate_child = self.ctx.evaluator.children_of(isa, node);
            self.best_child(isa, node, moves, window, evaluate_child)
        }
    }

    /// The best score of `node`'s children by `evaluate_child`, for [`Self::frontier_body`].
    #[inline(always)]
    fn best_child<I: Isa>(
        &mut self,
        isa: I,
        node: &N,
        moves: u64,
        (alpha, beta): (i32, i32),
        evaluate_child: impl Fn(usize, &N, (i32, i32)) -> i32,
    ) -> i32 {
        let mut best = -INFINITY;
        for &class in N::FRONTIER_ORDER {
            let mut rest = moves & class;
            while rest != 0 {
                let mv = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                self.count_node();
                let child = node.play_at(isa, mv);
                let score = if child.moves_at(isa) == 0 && child.pass().moves_at(isa) == 0 {
                    -child.final_score()
                } else {
                    // A child that can neither reach `beta` nor beat the best so far (or
                    // `alpha`) need only be bounded.
                    -evaluate_child(mv, &child, (-beta, -alpha.max(best)))
                };
                if score > best {
                    best = score;
                    if score >= beta {
                        return best;
                    }
                }
            }
        }
        best
    }

    /// Enhanced transposition cutoff: a child the table already proves at least `beta` for the
    /// side to move here ends the node before any search.
    fn transposition_cut(&self, list: &MoveList<N>, depth: u32, beta: i32) -> Option<i32> {
        let selectivity = self.ctx.probe_selectivity();
        list.remaining().iter().find_map(|candidate| {
            let entry = self.ctx.tt.probe(candidate.child.key())?;
            let score = -i32::from(entry.upper);
            (entry.covers(depth - 1, selectivity) && score >= beta).then_some(score)
        })
    }

    /// Multi-ProbCut at a null-window node of `depth`: the shallow search's verdict on the
    /// window's shifted bounds, taken as the node's (`beta` for a probable fail high, `alpha`
    /// for a probable fail low), or `None` when it is inconclusive or selectivity is off.
    fn probable_cut(&mut self, node: &N, alpha: i32, beta: i32, depth: u32) -> Option<i32> {
        let level = self.ctx.midgame_selectivity();
        if level == 0 {
            return None;
        }
        let (high, low) = cut_bounds(
            self.ctx.probcut,
            depth,
            node.moves_left(),
            level,
            alpha,
            beta,
        );
        let shallow = shallow_depth(depth);
        if let Some(high) = high {
            if self.pvs(node, high - 1, high, shallow, false) >= high {
                return Some(beta);
            }
        }
        if let Some(low) = low {
            if self.pvs(node, low, low + 1, shallow, false) <= low {
                return Some(alpha);
            }
        }
        None
    }

    /// A move after the first: a null-window test against `alpha`, re-searched with the open
    /// window on a principal variation node when it lands inside (`alpha`, `beta`).
    #[inline]
    pub(super) fn null_window_then_open(
        &mut self,
        child: &N,
        alpha: i32,
        beta: i32,
        depth: u32,
        pv: bool,
    ) -> i32 {
        let score = -self.pvs(child, -alpha - 1, -alpha, depth, false);
        if pv && score > alpha && score < beta {
            -self.pvs(child, -beta, -alpha, depth, true)
        } else {
            score
        }
    }
}

pub(super) fn bound_of(score: i32, alpha: i32, beta: i32) -> Bound {
    if score <= alpha {
        Bound::Upper
    } else if score >= beta {
        Bound::Lower
    } else {
        Bound::Exact
    }
}

/// Searches `siblings` of a node of `depth` in parallel (young brothers wait) after its first
/// move raised the bound to `alpha`, the workers sharing the bound through an atomic; a fail
/// high ends the split and cuts the other workers short, and a move that beats the bound on a
/// principal variation node is re-searched with the open window. Returns the best score and
/// move among them (fail-soft).
fn search_siblings<N: SearchNode, E: Evaluator<N>>(
    owner: &Searcher<'_, '_, N, E>,
    siblings: &[Candidate<N>],
    alpha: i32,
    beta: i32,
    depth: u32,
    pv: bool,
) -> (i32, u8) {
    let ctx = owner.ctx;
    let abort = Abort::new(owner.abort);
    let shared_alpha = AtomicI32::new(alpha);
    let best = SharedBest::new(-INFINITY, siblings[0].mv);
    let ordering_only = owner.ordering_only;
    in_order(
        siblings,
        || {
            // The workers of a split inside a search that only orders moves only order too.
            let mut worker = Searcher::below(ctx, Some(&abort));
            worker.ordering_only = ordering_only;
            worker
        },
        |searcher, candidate| {
            let floor = shared_alpha.load(Ordering::Relaxed);
            if floor >= beta || searcher.stopped() {
                return ControlFlow::Break(());
            }
            let score =
                searcher.null_window_then_open(&candidate.child, floor, beta, depth - 1, pv);
            if searcher.stopped() {
                return ControlFlow::Break(());
            }
            best.offer(score, candidate.mv);
            abort.after_move(&shared_alpha, score, beta)
        },
    );
    best.get()
}
