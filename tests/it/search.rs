//! The search against outside truth: the textbook alpha-beta example, plain minimax on random
//! positions, serial against parallel, and time and stop limits (down to a stop before the first
//! iteration ends).

use crate::common::{
    full_width_alpha_beta, full_width_to, minimax, one_thread_pool, playout, pseudo_random_bytes,
};
use oxello::board::Board;
use oxello::cpu::Isa;
use oxello::engine::{Engine, EngineOptions};
use oxello::eval::{Evaluation, Evaluator, SimpleEvaluator};
use oxello::search::{
    self, Limits, SearchContext, SearchNode, SearchOptions, TranspositionTable, INFINITY,
};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A node of an endless binary tree, numbered like a heap (children of i: 2i+1, 2i+2).
#[derive(Clone, Copy, Debug)]
struct TreeNode {
    index: usize,
    ply: u32,
}

impl SearchNode for TreeNode {
    fn moves_at<I: Isa>(&self, _isa: I) -> u64 {
        0b11
    }
    fn play_at<I: Isa>(&self, _isa: I, mv: usize) -> TreeNode {
        TreeNode {
            index: 2 * self.index + 1 + mv,
            ply: self.ply + 1,
        }
    }
    fn pass(&self) -> TreeNode {
        unreachable!("a tree node always has moves")
    }
    fn final_score(&self) -> i32 {
        unreachable!("the tree never ends")
    }
    fn key(&self) -> u64 {
        (self.index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    fn moves_left(&self) -> u32 {
        64
    }
    fn ordering_hint_at<I: Isa>(&self, _isa: I, _mv: usize, _child: &TreeNode) -> i32 {
        0
    }
}

/// Leaf values at depth 3 from the maximiser's (root's) point of view, left to right; counts
/// which leaves the search evaluated.
struct TreeLeaves {
    values: [i32; 8],
    evaluated: Mutex<Vec<i32>>,
}

impl Evaluator<TreeNode> for TreeLeaves {
    fn evaluate(&self, node: &TreeNode) -> i32 {
        assert_eq!(node.ply, 3, "only the leaves at depth 3 are evaluated");
        let value = self.values[node.index - 7];
        self.evaluated.lock().unwrap().push(value);
        // Three plies down the minimiser is to move: negamax scores are for the side to move.
        -value
    }
}

#[test]
fn textbook_tree_gives_five_and_prunes_three_leaves() {
    let leaves = TreeLeaves {
        values: [3, 5, 6, 9, 1, 2, 0, -1],
        evaluated: Mutex::new(Vec::new()),
    };
    let tt = TranspositionTable::new(1);
    let stop = AtomicBool::new(false);
    let root = TreeNode { index: 0, ply: 0 };
    let ctx = SearchContext::new(
        &tt,
        &leaves,
        &stop,
        SearchOptions::default(),
        &Limits::default(),
        64,
    );
    assert_eq!(ctx.alpha_beta(&root, -INFINITY, INFINITY, 3), 5);
    let evaluated = leaves.evaluated.lock().unwrap();
    for pruned in [9, 0, -1] {
        assert!(
            !evaluated.contains(&pruned),
            "leaf {pruned} was evaluated: {evaluated:?}"
        );
    }
    for seen in [3, 5, 6, 1, 2] {
        assert!(
            evaluated.contains(&seen),
            "leaf {seen} was never evaluated: {evaluated:?}"
        );
    }
}

fn random_boards(count: u64) -> Vec<Board> {
    (0..count)
        .map(|seed| {
            let bytes = pseudo_random_bytes(seed * 7919 + 17, 60);
            let plies = 4 + (bytes[0] as usize % 54);
            playout(&bytes[1..plies.min(59)])
        })
        .collect()
}

#[test]
fn pvs_with_table_equals_plain_minimax() {
    let eval = SimpleEvaluator;
    let stop = AtomicBool::new(false);
    let single = one_thread_pool();
    let mut compared = 0;
    for board in random_boards(240) {
        for depth in 1..=5 {
            let expected = minimax(&board, depth, &eval);
            assert_eq!(
                full_width_alpha_beta(&single, &board, depth, &eval),
                expected,
                "{board:?} depth {depth}"
            );
            let tt = TranspositionTable::new(1);
            let (limits, options) = full_width_to(depth);
            let result = single.install(|| {
                let ctx =
                    SearchContext::new(&tt, &eval, &stop, options, &limits, board.empty_count());
                search::search(&ctx, &board, &mut |_| {})
            });
            if board.moves() != 0 {
                let deepest = depth.min(board.empty_count());
                assert_eq!(result.depth, deepest);
                assert_eq!(
                    result.proof == oxello::search::Proof::Exact,
                    deepest == board.empty_count()
                );
                let deepest_minimax = if deepest == depth {
                    expected
                } else {
                    minimax(&board, deepest, &eval)
                };
                assert_eq!(
                    result.score, deepest_minimax,
                    "{board:?} iterative depth {depth}"
                );
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 240 * 5);
}

/// A search told to consider only some root moves (as the book does for its exits) equals
/// plain minimax over those moves, and plays one of them.
#[test]
fn a_search_restricted_to_some_root_moves_equals_minimax_over_them() {
    let eval = SimpleEvaluator;
    let stop = AtomicBool::new(false);
    let single = one_thread_pool();
    let mut compared = 0;
    for board in random_boards(120) {
        let moves = board.moves();
        if moves.count_ones() < 2 {
            continue;
        }
        // Every move but the first, then the first alone.
        for allowed in [moves & (moves - 1), moves & moves.wrapping_neg()] {
            for depth in 1..=4 {
                let expected = oxello::board::Squares(allowed)
                    .map(|sq| -minimax(&SearchNode::play(&board, sq), depth - 1, &eval))
                    .max()
                    .unwrap();
                let tt = TranspositionTable::new(1);
                let (limits, full_width) = full_width_to(depth);
                let options = SearchOptions {
                    root_moves: allowed,
                    ..full_width
                };
                let result = single.install(|| {
                    let ctx = SearchContext::new(
                        &tt,
                        &eval,
                        &stop,
                        options,
                        &limits,
                        board.empty_count(),
                    );
                    search::search(&ctx, &board, &mut |_| {})
                });
                assert_eq!(result.score, expected, "{board:?} depth {depth}");
                let best = result.best_move.expect("a move");
                assert!(allowed >> best & 1 == 1, "{board:?} played {best}");
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "only {compared} searches compared");
}

#[test]
fn parallel_search_equals_serial() {
    let boards = random_boards(24);
    for board in boards
        .iter()
        .filter(|b| b.moves().count_ones() > 1 && b.empty_count() > 12)
    {
        let mut scores = Vec::new();
        for threads in [1, 2, 4, 8] {
            let mut engine = Engine::new(EngineOptions {
                threads,
                hash_mib: 16,
            })
            .unwrap();
            engine.new_game(oxello::Position {
                board: *board,
                side_to_move: oxello::Color::Black,
            });
            let limits = Limits {
                depth: Some(8),
                ..Limits::default()
            };
            // Full width: with probable cuts the score depends on what the table holds when.
            let options = SearchOptions {
                selectivity: 0,
                ..SearchOptions::default()
            };
            let result = engine.search(&limits, options, &mut |_| {});
            assert!(board.moves() >> result.best_move.unwrap() & 1 == 1);
            scores.push(result.score);
        }
        assert!(
            scores.iter().all(|&s| s == scores[0]),
            "{board:?}: {scores:?} for 1, 2, 4, 8 threads"
        );
    }
}

#[test]
fn a_timed_search_returns_a_legal_move_in_time_on_1_to_16_threads() {
    let positions = midgame_positions();
    for threads in [1, 2, 3, 16] {
        let mut engine = Engine::new(EngineOptions {
            threads,
            hash_mib: 16,
        })
        .unwrap();
        for position in [
            oxello::Position::START,
            positions[threads % positions.len()],
        ] {
            engine.new_game(position);
            let limits = Limits {
                move_time: Some(Duration::from_millis(300)),
                ..Limits::default()
            };
            let started = Instant::now();
            let result = engine.search(&limits, SearchOptions::default(), &mut |_| {});
            let took = started.elapsed();
            assert!(
                took < Duration::from_secs(2),
                "a 300 ms search on {threads} threads took {took:?}"
            );
            assert!(position.board.moves() >> result.best_move.unwrap() & 1 == 1);
            assert!(result.depth >= 1);
        }
    }
}

#[test]
fn a_stop_request_ends_an_infinite_search_promptly() {
    let mut engine = Engine::new(EngineOptions {
        threads: 2,
        hash_mib: 16,
    })
    .unwrap();
    let stop = engine.stop_flag();
    let stopper = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            let at = Instant::now();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            at
        })
    };
    let result = engine.search(&Limits::default(), SearchOptions::default(), &mut |_| {});
    let returned = Instant::now();
    let stopped_at = stopper.join().unwrap();
    let delay = returned.duration_since(stopped_at);
    assert!(
        delay < Duration::from_millis(500),
        "stopping took {delay:?}"
    );
    assert_eq!(
        result.proof,
        oxello::search::Proof::Heuristic,
        "the start position cannot be solved in 200 ms"
    );
    assert!(oxello::Board::START.moves() >> result.best_move.unwrap() & 1 == 1);
}

#[test]
fn a_time_per_move_is_used_up_to_its_hard_limit() {
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })
    .unwrap();
    let limits = Limits {
        move_time: Some(Duration::from_millis(300)),
        ..Limits::default()
    };
    let result = engine.search(&limits, SearchOptions::default(), &mut |_| {});
    // No iteration is held back for fear of not finishing: only the hard limit (the time less
    // 15 ms for replying) ends a search that cannot prove its score.
    assert!(
        result.elapsed >= Duration::from_millis(280),
        "stopped after {:?} of 300 ms",
        result.elapsed
    );
}

#[test]
fn a_search_ended_by_its_own_limit_leaves_the_next_one_free_to_search() {
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })
    .unwrap();
    let limits = [
        Limits {
            move_time: Some(Duration::from_millis(100)),
            ..Limits::default()
        },
        Limits {
            nodes: Some(50_000),
            ..Limits::default()
        },
    ];
    for (i, position) in oxello::tools::bench::bench_positions()
        .into_iter()
        .take(4)
        .enumerate()
    {
        engine.new_game(position);
        let limits = limits[i % 2];
        let result = engine.search(&limits, SearchOptions::default(), &mut |_| {});
        assert!(
            result.depth >= 4 && result.nodes >= 1000 && !result.root_moves.is_empty(),
            "search {i} under {limits:?}: {result:?}"
        );
        assert!(
            !engine.stop_requested(),
            "the caller's stop flag was raised"
        );
    }
}

#[test]
fn a_search_cut_inside_an_iteration_plays_the_root_moves_it_completed() {
    let position = oxello::tools::bench::bench_positions()[3];
    // The linear weights, whose ninth iteration from this position was measured to spread its
    // root moves as the least counts below ask.
    let mut engine = Engine::with_evaluation(
        EngineOptions {
            threads: 1,
            hash_mib: 16,
        },
        Evaluation::linear(),
    )
    .unwrap();
    // Full width and with probable cuts: in both, node limits spread over the ninth
    // iteration stop it after its first root move in most cases.
    for (selectivity, least) in [(0, 5), (oxello::search::DEFAULT_SELECTIVITY, 3)] {
        let options = SearchOptions {
            selectivity,
            ..SearchOptions::default()
        };
        let mut ends = Vec::new();
        engine.new_game(position);
        let full = Limits {
            depth: Some(9),
            ..Limits::default()
        };
        engine.search(&full, options, &mut |p| ends.push(p.nodes));
        let (eighth, ninth) = (ends[7], ends[8]);
        let mut partial = 0;
        for tenth in 1..10 {
            engine.new_game(position);
            let limits = Limits {
                nodes: Some(eighth + (ninth - eighth) * tenth / 10),
                ..Limits::default()
            };
            let mut completed = Vec::new();
            let result = engine.search(&limits, options, &mut |p| {
                completed.push((p.depth, p.pv[0]))
            });
            let &(last_depth, last_move) = completed.last().unwrap();
            assert_eq!(last_depth, 8, "the node limit falls in the ninth iteration");
            let mv = result.best_move.unwrap();
            assert!(position.board.moves() >> mv & 1 == 1);
            if result.depth == 9 {
                partial += 1;
                assert_eq!(result.proof, oxello::search::Proof::Heuristic);
                assert_eq!(result.pv[0], Some(mv));
            } else {
                assert_eq!((result.depth, Some(mv)), (8, last_move));
            }
        }
        assert!(
            partial >= least,
            "selectivity {selectivity}: only {partial} of 9 cut iterations had completed a root move"
        );
    }
}

#[test]
fn multi_probcut_searches_fewer_nodes_at_the_same_depth() {
    let limits = Limits {
        depth: Some(9),
        ..Limits::default()
    };
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })
    .unwrap();
    let mut nodes = [0u64; 2];
    for position in oxello::tools::bench::bench_positions().into_iter().take(4) {
        for (level, total) in [0u8, 2].into_iter().zip(nodes.iter_mut()) {
            engine.new_game(position);
            let options = SearchOptions {
                selectivity: level,
                ..SearchOptions::default()
            };
            let mut shown = Vec::new();
            let result = engine.search(&limits, options, &mut |p| {
                shown.push((p.depth, p.selectivity))
            });
            assert_eq!(result.depth, 9);
            assert!(position.board.moves() >> result.best_move.unwrap() & 1 == 1);
            // Iterations too shallow to cut are full width; the others carry the level.
            for (depth, selectivity) in shown {
                let expected = if depth >= 3 { level } else { 0 };
                assert_eq!(selectivity, expected, "depth {depth}");
            }
            *total += result.nodes;
        }
    }
    assert!(
        nodes[1] * 2 < nodes[0],
        "{} nodes with probable cuts against {} full width",
        nodes[1],
        nodes[0]
    );
}

#[test]
fn a_search_stopped_before_its_first_iteration_scores_a_finished_game_exactly() {
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })
    .unwrap();
    // Black's e4 against White's d4 alone: c4 takes White's last disc and ends the game, 3-0
    // with the 61 empty squares to the winner.
    let board =
        oxello::notation::parse_position(&format!("{}OX{} X", "-".repeat(27), "-".repeat(35)))
            .unwrap();
    let c4 = oxello::notation::parse_square("c4").unwrap();
    assert_eq!(board.board.moves(), 1 << c4);
    engine.stop();
    let options = SearchOptions {
        answer_forced_at_once: false,
        ..SearchOptions::default()
    };
    let limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    let result = engine.search_at(&board, &limits, options, &mut |_| {});
    assert_eq!((result.depth, result.best_move), (0, Some(c4 as u8)));
    assert_eq!(result.score, 64);
}

/// Midgame positions from the bench with a choice of moves, where every kind of split
/// happens (a forced move is answered without a search).
fn midgame_positions() -> Vec<oxello::Position> {
    oxello::tools::bench::bench_positions()
        .into_iter()
        .filter(|p| p.board.moves().count_ones() > 1)
        .collect()
}

#[test]
fn a_stop_cuts_every_worker_of_16_threads_promptly() {
    let mut engine = Engine::new(EngineOptions {
        threads: 16,
        hash_mib: 16,
    })
    .unwrap();
    for position in midgame_positions().into_iter().take(3) {
        engine.new_game(position);
        let stop = engine.stop_flag();
        stop.store(false, std::sync::atomic::Ordering::Relaxed);
        let stopper = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                Instant::now()
            })
        };
        let result = engine.search(&Limits::default(), SearchOptions::default(), &mut |_| {});
        let returned = Instant::now();
        let delay = returned.duration_since(stopper.join().unwrap());
        assert!(
            delay < Duration::from_millis(200),
            "stopping took {delay:?}"
        );
        assert!(position.board.moves() >> result.best_move.unwrap() & 1 == 1);
    }
}

#[test]
fn a_search_that_starts_late_has_that_much_less_time() {
    let clock = oxello::search::GameClock {
        remaining: Duration::from_secs(10),
        increment: Duration::from_secs(1),
        moves_to_go: Some(20),
    };
    let limits = Limits {
        depth: Some(12),
        move_time: Some(Duration::from_millis(100)),
        clock: Some(clock),
        nodes: Some(1_000),
    };
    let late = limits.started_late(Duration::from_millis(30));
    assert_eq!(late.move_time, Some(Duration::from_millis(70)));
    assert_eq!(
        late.clock,
        Some(oxello::search::GameClock {
            remaining: Duration::from_millis(9_970),
            ..clock
        })
    );
    assert_eq!((late.depth, late.nodes), (limits.depth, limits.nodes));
    let too_late = limits.started_late(Duration::from_secs(11));
    assert_eq!(too_late.move_time, Some(Duration::ZERO));
    assert_eq!(too_late.clock.unwrap().remaining, Duration::ZERO);
    assert_eq!(
        Limits::default().started_late(Duration::from_secs(1)),
        Limits::default()
    );
}
