//! The root driver: iterative deepening from the root with aspiration windows, the root moves
//! after the first searched in parallel, the selective iterations before an exact end, partial
//! iterations that count when time runs out, and the principal variation read from the table.
//! The recursion below the root is [`super::midgame`].

use super::api::{Bound, Progress, Proof, RootMove, SearchResult, INFINITY};
use super::context::SearchContext;
use super::helpers::Helpers;
use super::midgame::bound_of;
use super::node::SearchNode;
use super::ordering::MoveList;
use super::parallel::{in_order, Abort};
use super::probcut::{MIN_CUT_DEPTH, SELECTIVE_LEVELS};
use super::searcher::Searcher;
use super::time::IterationReport;
use super::tt::{TranspositionTable, MAX_SELECTIVITY, NO_MOVE};
use crate::cpu::IsaDetected;
use crate::eval::Evaluator;
use parking_lot::Mutex;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

/// A root move during the search.
#[derive(Clone, Copy)]
pub(super) struct RootState<N> {
    pub mv: u8,
    pub child: N,
    pub score: i32,
    pub bound: Bound,
    /// Whether the score comes from the current iteration.
    pub current: bool,
}

/// Searches the root moves after the first in parallel against the bound `alpha` set by the
/// first; fills in each move's score and bound and returns the best score among them. A fail
/// high cuts the other workers short.
fn search_root_moves<N: SearchNode, E: Evaluator<N>>(
    ctx: &SearchContext<'_, N, E>,
    roots: &mut [RootState<N>],
    alpha: i32,
    beta: i32,
    depth: u32,
) -> i32 {
    let abort = Abort::new(None);
    let shared_alpha = AtomicI32::new(alpha);
    for root in roots.iter_mut() {
        root.score = -INFINITY;
        root.bound = Bound::Upper;
    }
    let slots: Vec<Mutex<&mut RootState<N>>> = roots.iter_mut().map(Mutex::new).collect();
    in_order(
        &slots,
        || Searcher::below(ctx, Some(&abort)),
        |searcher, slot| {
            let floor = shared_alpha.load(Ordering::Relaxed);
            if floor >= beta || searcher.stopped() {
                return ControlFlow::Break(());
            }
            let mut root = slot.lock();
            let score = searcher.null_window_then_open(&root.child, floor, beta, depth - 1, true);
            if searcher.stopped() {
                return ControlFlow::Break(());
            }
            root.score = score;
            root.bound = bound_of(score, floor, beta);
            root.current = true;
            abort.after_move(&shared_alpha, score, beta)
        },
    );
    drop(slots);
    roots.iter().map(|r| r.score).max().unwrap_or(-INFINITY)
}

/// Iterative deepening from `root` until the limits of `ctx`, exactness, or a stop; reports
/// each completed iteration to `on_progress` and returns the last completed one.
pub fn search<N: SearchNode, E: Evaluator<N>>(
    ctx: &SearchContext<'_, N, E>,
    root: &N,
    on_progress: &mut dyn FnMut(&Progress),
) -> SearchResult {
    ctx.tt.new_search(root.key());
    let mut searcher = Searcher::new(ctx);
    let legal = root.moves();
    let moves = match legal & ctx.options.root_moves {
        0 => legal,
        allowed => allowed,
    };
    let moves_left = root.moves_left();
    if moves == 0 {
        let passed = root.pass();
        let (score, proof) = if passed.moves() == 0 {
            (root.final_score(), Proof::Exact)
        } else {
            (-searcher.leaf(IsaDetected, &passed), Proof::Heuristic)
        };
        drop(searcher);
        return forced_result(ctx, None, score, proof);
    }
    if moves.count_ones() == 1 && ctx.options.answer_forced_at_once {
        let mv = moves.trailing_zeros() as u8;
        let score = -searcher.leaf(IsaDetected, &root.play(mv as usize));
        drop(searcher);
        return forced_result(ctx, Some(mv), score, Proof::Heuristic);
    }

    let table_move = ctx.tt.probe(root.key()).map_or(NO_MOVE, |e| e.best_move);
    let mut list = MoveList::new(IsaDetected, root, moves, table_move, &ctx.options.ordering);
    let mut roots: Vec<RootState<N>> = list
        .remaining_sorted()
        .iter()
        .map(|c| RootState {
            mv: c.mv,
            child: c.child,
            score: -INFINITY,
            bound: Bound::Upper,
            current: false,
        })
        .collect();
    let max_depth = ctx.depth_limit.unwrap_or(u32::MAX).clamp(1, moves_left);
    let multi_pv = ctx.options.multi_pv.max(1);
    let mut result: Option<SearchResult> = None;
    let win_loss_draw = ctx.options.win_loss_draw;

    let (mut last_iteration, mut last_iteration_end) = (None, Duration::ZERO);
    let mut same_best_move = 0;
    let mut step = Step {
        depth: 0,
        selectivity: 0,
    };
    log::debug!(
        "budget at {moves_left} empties: target {:?}, hard {:?}{}",
        ctx.budget.target,
        ctx.budget.hard,
        if ctx.budget.solve_now {
            ", solving"
        } else {
            ""
        }
    );
    let jump = JumpPoint::of(ctx.budget.hard.is_some() && !ctx.budget.solve_now);
    let helpers = Helpers::new();
    // Helpers search the whole root, so not where only some root moves are asked for.
    let use_helpers = ctx.uses_helpers() && moves == legal;
    let helpers_depth = max_depth.min(moves_left - 1);
    rayon::in_place_scope(|scope| {
        while let Some(next) = step.next(max_depth, moves_left, jump) {
            step = next;
            let depth = step.depth;
            let to_the_end = depth >= moves_left;
            if to_the_end && ctx.helpers_at_work() {
                helpers.dismiss(ctx);
            }
            ctx.selectivity.store(step.selectivity, Ordering::Relaxed);
            let midgame_selectivity = if to_the_end || depth < MIN_CUT_DEPTH {
                0
            } else {
                ctx.options.selectivity.min(MAX_SELECTIVITY)
            };
            ctx.midgame_selectivity
                .store(midgame_selectivity, Ordering::Relaxed);
            // From the first selective iteration on, the selectivity stays until the end.
            if use_helpers && !ctx.helpers_at_work() && !to_the_end && depth >= MIN_CUT_DEPTH {
                helpers.call(scope, ctx, root, helpers_depth);
            }
            // What the protocols show: the solver's level in a search to the end.
            let shown_selectivity = if to_the_end {
                step.selectivity
            } else {
                midgame_selectivity
            };
            let proved = to_the_end && step.selectivity == 0;
            let previous = result.as_ref().map(|r| r.score);
            for root in roots.iter_mut() {
                root.current = false;
            }
            let (mut alpha, mut beta) = match previous {
                _ if to_the_end && win_loss_draw => (-1, 1),
                Some(score) if depth > 2 && multi_pv == 1 => {
                    ((score - 4).max(-INFINITY), (score + 4).min(INFINITY))
                }
                _ => (-INFINITY, INFINITY),
            };
            loop {
                helpers.main_searches(depth, alpha, beta);
                let best = search_root(
                    &mut searcher,
                    &mut roots,
                    (alpha, beta),
                    depth,
                    moves_left,
                    multi_pv,
                );
                if ctx.stopped() || (to_the_end && win_loss_draw) {
                    break;
                }
                if best <= alpha && alpha > -INFINITY {
                    alpha = -INFINITY;
                } else if best >= beta && beta < INFINITY {
                    beta = INFINITY;
                } else {
                    break;
                }
            }
            if ctx.stopped() {
                if multi_pv == 1 {
                    if let Some(partial) = partial_iteration(ctx, &roots, depth) {
                        result = Some(partial);
                    }
                }
                break;
            }
            helpers.main_completed(depth);
            roots.sort_by_key(|r| std::cmp::Reverse(r.score));
            let proof = match (proved, win_loss_draw) {
                (false, _) => Proof::Heuristic,
                (true, false) => Proof::Exact,
                (true, true) => Proof::WinLossDraw,
            };
            let mut pv = vec![Some(roots[0].mv)];
            principal_variation(ctx.tt, &roots[0].child, depth - 1, &mut pv);
            let root_moves: Vec<RootMove> = roots
                .iter()
                .map(|r| RootMove {
                    mv: Some(r.mv),
                    score: r.score,
                    bound: r.bound,
                })
                .collect();
            let nodes = ctx.nodes() + searcher.pending_nodes;
            let progress = Progress {
                depth,
                selectivity: shown_selectivity,
                proof,
                score: roots[0].score,
                nodes,
                elapsed: ctx.elapsed(),
                pv: pv.clone(),
                root_moves: root_moves.clone(),
            };
            log::debug!(
                "iteration depth {depth} selectivity {}: score {:+} nodes {nodes} after {:.3} s",
                step.selectivity,
                progress.score,
                progress.elapsed.as_secs_f64()
            );
            on_progress(&progress);
            let best_move_changed = result
                .as_ref()
                .is_some_and(|r| r.best_move != Some(roots[0].mv));
            same_best_move = if best_move_changed {
                1
            } else {
                same_best_move + 1
            };
            let iteration = IterationReport {
                elapsed: progress.elapsed,
                last: progress.elapsed - last_iteration_end,
                before_last: last_iteration,
                best_move_changed,
                same_best_move,
                score: roots[0].score,
                score_drop: result
                    .as_ref()
                    .map_or(0, |r| (r.score - roots[0].score).max(0)),
            };
            last_iteration = Some(iteration.last);
            last_iteration_end = progress.elapsed;
            result = Some(SearchResult {
                best_move: Some(roots[0].mv),
                score: roots[0].score,
                depth,
                selectivity: shown_selectivity,
                proof,
                pv,
                nodes,
                elapsed: progress.elapsed,
                root_moves,
            });
            if proved || !ctx.budget.starts_next_iteration(&iteration) {
                break;
            }
        }
        helpers.dismiss(ctx);
    });
    let mut result = result.unwrap_or_else(|| {
        // Stopped before the first iteration ended: fall back on the ordering's choice.
        let fallback = roots[0];
        SearchResult {
            best_move: Some(fallback.mv),
            score: -searcher.leaf(IsaDetected, &fallback.child).clamp(-64, 64),
            depth: 0,
            selectivity: 0,
            proof: Proof::Heuristic,
            pv: vec![Some(fallback.mv)],
            nodes: 0,
            elapsed: Duration::ZERO,
            root_moves: Vec::new(),
        }
    });
    drop(searcher);
    result.nodes = ctx.nodes();
    result.elapsed = ctx.elapsed();
    result
}

/// The result of an iteration the stop cut short, if it completed a root move worth playing:
/// the best of the moves it proved at least as good as their window's lower end (the previous
/// best move searched first, or a move that beat it). `None` keeps the last full iteration.
fn partial_iteration<N: SearchNode, E: Evaluator<N>>(
    ctx: &SearchContext<'_, N, E>,
    roots: &[RootState<N>],
    depth: u32,
) -> Option<SearchResult> {
    let best = roots
        .iter()
        .filter(|r| r.current && r.bound != Bound::Upper)
        .max_by_key(|r| r.score)?;
    let mut pv = vec![Some(best.mv)];
    principal_variation(ctx.tt, &best.child, depth - 1, &mut pv);
    Some(SearchResult {
        best_move: Some(best.mv),
        score: best.score,
        depth,
        selectivity: ctx.midgame_selectivity(),
        proof: Proof::Heuristic,
        pv,
        nodes: ctx.nodes(),
        elapsed: ctx.elapsed(),
        root_moves: roots
            .iter()
            .map(|r| RootMove {
                mv: Some(r.mv),
                score: r.score,
                bound: r.bound,
            })
            .collect(),
    })
}

fn forced_result<N: SearchNode, E: Evaluator<N>>(
    ctx: &SearchContext<'_, N, E>,
    mv: Option<u8>,
    score: i32,
    proof: Proof,
) -> SearchResult {
    SearchResult {
        best_move: mv,
        score,
        depth: 0,
        selectivity: 0,
        proof,
        pv: vec![mv],
        nodes: ctx.nodes(),
        elapsed: ctx.elapsed(),
        root_moves: vec![RootMove {
            mv,
            score,
            bound: Bound::Exact,
        }],
    }
}

/// From this many moves to the end, selective iterations of the endgame solver come before
/// the exact one.
const SELECTIVE_MIN_MOVES: u32 = 20;

/// Where iterative deepening leaves the midgame for the end: once the next midgame iteration
/// would reach this fraction (numerator, denominator) of the moves left. A search without a
/// deadline always completes its solve, and jumping half way gets there soonest (FFO #20-#39
/// takes 1.25x the time when it jumps at 7/8). A search with a deadline seldom completes a solve
/// begun that early and loses the rest of its time to it; its midgame iterations are worth more
/// (at 100 ms a move, 7/8 scores +63 Elo against 1/2; see docs/experiments.md). A move the
/// clock plan has set aside the time to solve jumps as an untimed search does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct JumpPoint(u32, u32);

impl JumpPoint {
    const UNTIMED: JumpPoint = JumpPoint(1, 2);
    const TIMED: JumpPoint = JumpPoint(7, 8);

    /// The jump point of a search that has a deadline or not.
    fn of(timed: bool) -> JumpPoint {
        if timed {
            JumpPoint::TIMED
        } else {
            JumpPoint::UNTIMED
        }
    }

    /// Whether an iteration `depth` plies deep from `moves_left` goes to the end instead.
    fn reached(self, depth: u32, moves_left: u32) -> bool {
        depth >= moves_left * self.0 / self.1
    }
}

/// One iteration of iterative deepening: a depth, and for searches to the end, the endgame
/// solver's selectivity level (0 for the exact search).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    depth: u32,
    selectivity: u8,
}

impl Step {
    /// The iteration after this one, if any: one ply deeper, except that from the `jump` point
    /// it jumps to the end, where the endgame solver is far cheaper per ply; at the end,
    /// selective iterations (most selective first) fill the table with good moves and give the
    /// exact search a close first window.
    fn next(self, max_depth: u32, moves_left: u32, jump: JumpPoint) -> Option<Step> {
        if self.depth == moves_left && self.selectivity > 0 {
            return Some(Step {
                depth: moves_left,
                selectivity: self.selectivity - 1,
            });
        }
        if self.depth >= max_depth.min(moves_left) {
            return None;
        }
        let next = if jump.reached(self.depth + 1, moves_left) && max_depth >= moves_left {
            moves_left
        } else {
            self.depth + 1
        }
        .min(max_depth);
        let selectivity = if next == moves_left && moves_left >= SELECTIVE_MIN_MOVES {
            SELECTIVE_LEVELS
        } else {
            0
        };
        Some(Step {
            depth: next,
            selectivity,
        })
    }
}

/// One iteration over the root moves with window (`alpha`, `beta`). The first `multi_pv` moves
/// get open windows; later moves are tested against the `multi_pv`-th best score so far. The
/// root is `moves_left` from the end.
fn search_root<N: SearchNode, E: Evaluator<N>>(
    searcher: &mut Searcher<'_, '_, N, E>,
    roots: &mut [RootState<N>],
    (alpha, beta): (i32, i32),
    depth: u32,
    moves_left: u32,
    multi_pv: usize,
) -> i32 {
    let ctx = searcher.ctx;
    let mut best = -INFINITY;
    let split =
        ctx.may_split(depth, moves_left) && ctx.options.parallel.root_split && multi_pv == 1;
    for i in 0..roots.len() {
        if split && i == 1 {
            let floor = alpha.max(best);
            let rest = search_root_moves(ctx, &mut roots[1..], floor, beta, depth);
            return best.max(rest);
        }
        let floor = if i < multi_pv {
            alpha
        } else {
            let mut searched: Vec<i32> = roots[..i].iter().map(|r| r.score).collect();
            searched.sort_unstable_by(|a, b| b.cmp(a));
            alpha.max(searched[multi_pv - 1])
        };
        let root = &mut roots[i];
        let score = if i < multi_pv {
            -searcher.pvs(&root.child, -beta, -floor, depth - 1, true)
        } else {
            searcher.null_window_then_open(&root.child, floor, beta, depth - 1, true)
        };
        if ctx.stopped() {
            return best;
        }
        root.score = score;
        root.bound = bound_of(score, floor, beta);
        root.current = true;
        best = best.max(score);
        if score >= beta {
            for later in roots[i + 1..].iter_mut() {
                later.score = -INFINITY;
                later.bound = Bound::Upper;
            }
            break;
        }
    }
    best
}

/// Extends `pv` with the table's best moves from `node`, checked for legality.
fn principal_variation<N: SearchNode>(
    tt: &TranspositionTable,
    node: &N,
    plies: u32,
    pv: &mut Vec<Option<u8>>,
) {
    let mut node = *node;
    let mut remaining = plies;
    while remaining > 0 && pv.len() < 64 {
        let moves = node.moves();
        if moves == 0 {
            let passed = node.pass();
            if passed.moves() == 0 {
                break;
            }
            pv.push(None);
            node = passed;
            continue;
        }
        match tt.probe(node.key()) {
            Some(entry) if entry.best_move < 64 && moves >> entry.best_move & 1 == 1 => {
                pv.push(Some(entry.best_move));
                node = node.play(usize::from(entry.best_move));
                remaining -= 1;
            }
            _ => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(max_depth: u32, moves_left: u32, jump: JumpPoint) -> Vec<(u32, u8)> {
        let mut step = Step {
            depth: 0,
            selectivity: 0,
        };
        let mut all = Vec::new();
        while let Some(next) = step.next(max_depth, moves_left, jump) {
            all.push((next.depth, next.selectivity));
            step = next;
        }
        all
    }

    /// Midgame iterations 1 to `last`, then the selective levels of the end at 24 moves left.
    fn midgame_then_the_end_of_24(last: u32) -> Vec<(u32, u8)> {
        let mut expected: Vec<(u32, u8)> = (1..=last).map(|d| (d, 0)).collect();
        expected.extend((0..=super::SELECTIVE_LEVELS).rev().map(|s| (24, s)));
        expected
    }

    #[test]
    fn deepening_jumps_to_the_end_through_the_selective_levels() {
        assert_eq!(
            steps(60, 24, JumpPoint::UNTIMED),
            midgame_then_the_end_of_24(11)
        );
    }

    #[test]
    fn a_search_with_a_deadline_jumps_later() {
        assert_eq!(
            steps(60, 24, JumpPoint::TIMED),
            midgame_then_the_end_of_24(20)
        );
        assert_eq!(JumpPoint::of(true), JumpPoint::TIMED);
        assert_eq!(JumpPoint::of(false), JumpPoint::UNTIMED);
    }

    #[test]
    fn small_endgames_and_depth_limits_have_no_selective_iterations() {
        let mut expected: Vec<(u32, u8)> = (1..7).map(|d| (d, 0)).collect();
        expected.push((14, 0));
        assert_eq!(steps(60, 14, JumpPoint::UNTIMED), expected);
        assert_eq!(steps(3, 24, JumpPoint::TIMED), vec![(1, 0), (2, 0), (3, 0)]);
    }
}
