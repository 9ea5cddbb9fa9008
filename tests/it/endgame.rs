//! The exact solver against outside truth: the FFO suites' scores, plain reference solvers on
//! random endgames, win/loss/draw against the exact score, parallel against serial, and the
//! exact labels of training positions.

use crate::common::{data_file, fixture, one_thread_pool, pseudo_random_bytes};
use oxello::board::{Board, Color, Position, Squares};
use oxello::cpu::Isa;
use oxello::engine::{Engine, EngineOptions};
use oxello::eval::{Evaluation, Evaluator};
use oxello::notation::parse_obf_file;
use oxello::search::{
    Limits, Proof, SearchContext, SearchOptions, TranspositionTable, SHALLOW_ORDER_MIN_EMPTIES,
};
use oxello::training::dataset::{all_examples, load_games, ExactSolver, Example};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Plain negamax to the end of the game: no pruning, no table, no ordering.
fn negamax(board: &Board) -> i32 {
    let moves = board.moves();
    if moves == 0 {
        let passed = board.pass();
        if passed.moves() == 0 {
            return board.final_score();
        }
        return -negamax(&passed);
    }
    Squares(moves)
        .map(|sq| -negamax(&board.play(sq).unwrap()))
        .max()
        .unwrap()
}

/// Plain fail-hard alpha-beta to the end of the game, moves in square order, no table.
fn alpha_beta(board: &Board, mut alpha: i32, beta: i32) -> i32 {
    let moves = board.moves();
    if moves == 0 {
        let passed = board.pass();
        if passed.moves() == 0 {
            return board.final_score().clamp(alpha, beta);
        }
        return -alpha_beta(&passed, -beta, -alpha);
    }
    for sq in Squares(moves) {
        let score = -alpha_beta(&board.play(sq).unwrap(), -beta, -alpha);
        if score >= beta {
            return beta;
        }
        alpha = alpha.max(score);
    }
    alpha
}

/// A position with exactly `empties` empty squares from a random game, if the game lasts.
fn random_endgame(seed: u64, empties: u32) -> Option<Board> {
    let choices = pseudo_random_bytes(seed, 64);
    let mut board = Board::START;
    for choice in choices {
        if board.empty_count() == empties {
            return (board.moves() != 0).then_some(board);
        }
        let mut moves = board.moves();
        if moves == 0 {
            board = board.pass();
            moves = board.moves();
            if moves == 0 {
                return None;
            }
        }
        let sq = Squares(moves).nth(usize::from(choice) % moves.count_ones() as usize)?;
        board = board.play(sq)?;
    }
    None
}

fn solve(engine: &mut Engine, board: &Board, win_loss_draw: bool) -> (i32, Proof) {
    engine.new_game(Position {
        board: *board,
        side_to_move: Color::Black,
    });
    let options = SearchOptions {
        win_loss_draw,
        answer_forced_at_once: false,
        ..SearchOptions::default()
    };
    let result = engine.search(&Limits::default(), options, &mut |_| {});
    (result.score, result.proof)
}

fn check_suite(name: &str, threads: usize) {
    let text = std::fs::read_to_string(data_file(name)).unwrap();
    let entries = parse_obf_file(&text).unwrap();
    let mut engine = Engine::new(EngineOptions {
        threads,
        hash_mib: 64,
    })
    .unwrap();
    for (i, entry) in entries.iter().enumerate() {
        let (score, proof) = solve(&mut engine, &entry.position.board, false);
        assert_eq!(proof, Proof::Exact);
        assert_eq!(
            Some(score),
            entry.best_score(),
            "{name} position {}: {entry}",
            i + 1
        );
    }
}

#[test]
fn ffo_1_to_19_are_solved_exactly() {
    check_suite("fforum-1-19.obf", 1);
}

#[test]
fn ffo_20_to_39_are_solved_exactly() {
    check_suite("fforum-20-39.obf", 2);
}

/// The built-in network, counting its evaluations: those a search's leaves take, and those
/// for move ordering alone.
struct CountingNetwork {
    network: Evaluation,
    full: AtomicU64,
    for_ordering: AtomicU64,
}

impl Evaluator<Board> for CountingNetwork {
    fn evaluate(&self, board: &Board) -> i32 {
        self.full.fetch_add(1, Ordering::Relaxed);
        self.network.evaluate(board)
    }

    fn evaluate_for_ordering<I: Isa>(&self, isa: I, board: &Board) -> i32 {
        self.for_ordering.fetch_add(1, Ordering::Relaxed);
        self.network.evaluate_for_ordering(isa, board)
    }

    fn children_for_ordering<I: Isa>(
        &self,
        isa: I,
        parent: &Board,
    ) -> impl Fn(usize, &Board) -> i32 + '_ {
        let children = self.network.children_for_ordering(isa, parent);
        move |square, child| {
            self.for_ordering.fetch_add(1, Ordering::Relaxed);
            children(square, child)
        }
    }
}

/// The exact solver evaluates only to order its moves, so it takes the evaluation's version
/// for ordering (the network's linear part) everywhere, in its shallow ordering searches too,
/// and still finds the exact score.
#[test]
fn the_solver_orders_by_the_evaluations_version_for_ordering_alone() {
    let empties = SHALLOW_ORDER_MIN_EMPTIES + 2;
    let counting = CountingNetwork {
        network: Evaluation::default(),
        full: AtomicU64::new(0),
        for_ordering: AtomicU64::new(0),
    };
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })
    .unwrap();
    let single = one_thread_pool();
    let stop = AtomicBool::new(false);
    let boards: Vec<Board> = (0..20)
        .filter_map(|seed| random_endgame(seed, empties))
        .take(3)
        .collect();
    assert_eq!(boards.len(), 3, "too few random endgames");
    for board in boards {
        let exact = solve(&mut engine, &board, false).0;
        let tt = TranspositionTable::new(16);
        let (above, below) = single.install(|| {
            let ctx = SearchContext::new(
                &tt,
                &counting,
                &stop,
                SearchOptions::default(),
                &Limits::default(),
                empties,
            );
            (
                ctx.alpha_beta(&board, exact - 1, exact, empties),
                ctx.alpha_beta(&board, exact, exact + 1, empties),
            )
        });
        assert!(above >= exact && below <= exact, "{board:?}: {exact}");
    }
    assert_eq!(counting.full.load(Ordering::Relaxed), 0);
    assert!(counting.for_ordering.load(Ordering::Relaxed) > 0);
}

#[test]
fn solver_equals_plain_negamax_at_ten_empties() {
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })
    .unwrap();
    let boards: Vec<Board> = (0..40)
        .filter_map(|seed| random_endgame(seed, 10))
        .take(12)
        .collect();
    assert!(
        boards.len() >= 10,
        "too few random endgames: {}",
        boards.len()
    );
    for board in boards {
        assert_eq!(
            solve(&mut engine, &board, false).0,
            negamax(&board),
            "{board:?}"
        );
    }
}

#[test]
fn solver_equals_plain_alpha_beta_from_eleven_to_fourteen_empties() {
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })
    .unwrap();
    let mut compared = 0;
    // Deeper positions are checked against the FFO suites' published scores: plain alpha-beta
    // at 15 and 16 empties took most of the test suite's time.
    for empties in 11..=14 {
        for seed in 0..40 {
            let Some(board) = random_endgame(1000 * u64::from(empties) + seed, empties) else {
                continue;
            };
            let expected = alpha_beta(&board, -64, 64);
            let (score, proof) = solve(&mut engine, &board, false);
            assert_eq!(proof, Proof::Exact);
            assert_eq!(score, expected, "{board:?}");
            let (wld, proof) = solve(&mut engine, &board, true);
            assert_eq!(proof, Proof::WinLossDraw);
            assert_eq!(
                wld.signum(),
                expected.signum(),
                "win/loss/draw of {board:?}"
            );
            compared += 1;
            if compared % 10 == 0 {
                break;
            }
        }
    }
    assert!(compared >= 40, "only {compared} positions compared");
}

#[test]
fn parallel_solver_equals_serial() {
    let text = std::fs::read_to_string(data_file("fforum-20-39.obf")).unwrap();
    let entries = parse_obf_file(&text).unwrap();
    let mut boards: Vec<Board> = entries.iter().take(12).map(|e| e.position.board).collect();
    boards.extend(
        (0..60)
            .filter_map(|seed| random_endgame(7 * seed + 3, 18))
            .take(6),
    );
    let mut serial = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 32,
    })
    .unwrap();
    let mut parallel = Engine::new(EngineOptions {
        threads: 4,
        hash_mib: 32,
    })
    .unwrap();
    for board in boards {
        assert_eq!(
            solve(&mut serial, &board, false),
            solve(&mut parallel, &board, false),
            "{board:?}"
        );
    }
}

#[test]
fn the_labelling_solver_proves_the_floor_or_beats_it() {
    let solver = ExactSolver::new(&Evaluation::default()).unwrap();
    let mut both_paths = [false, false];
    for seed in 0..12u64 {
        let Some(board) = random_endgame(300 + seed, 13) else {
            continue;
        };
        let truth = alpha_beta(&board, -64, 64);
        assert_eq!(solver.score(&board, None), truth, "no floor: {board:?}");
        assert_eq!(
            solver.score(&board, Some(truth)),
            truth,
            "floor at the score"
        );
        if truth > -64 {
            let floor = (truth - 6).max(-64);
            assert_eq!(solver.score(&board, Some(floor)), truth, "floor below");
            both_paths[1] = true;
        }
        both_paths[0] = true;
    }
    assert_eq!(both_paths, [true, true], "too few random endgames lasted");
}

#[test]
fn exact_labels_along_real_games_are_the_positions_scores() {
    let games = load_games(&fixture("WTH_2020.wtb")).unwrap();
    let games = &games[..30];
    let exact_empties = 12;
    let labelled = all_examples(games, exact_empties, &Evaluation::default(), &|| {}).unwrap();
    let mut exact = 0;
    let mut played_move_not_best = 0;
    for (game, examples) in games.iter().zip(&labelled) {
        let mut previous: Option<&Example> = None;
        for example in examples {
            let empties = example.board.empty_count();
            if empties > exact_empties {
                let label = example.label as i32;
                assert_eq!(label.abs(), game.black_score.abs(), "the game's score");
                continue;
            }
            let truth = alpha_beta(&example.board, -64, 64);
            assert_eq!(example.label, truth as f32, "{:?}", example.board);
            exact += 1;
            let follows = |before: &&Example| {
                Squares(before.board.moves()).any(|sq| before.board.play(sq) == Some(example.board))
            };
            if let Some(before) = previous.filter(follows) {
                if before.label != -example.label {
                    played_move_not_best += 1;
                }
            }
            previous = Some(example);
        }
    }
    assert!(exact >= 30 * 10, "only {exact} positions labelled exactly");
    assert!(
        played_move_not_best > 0,
        "no game had a mistake to correct: the floor path alone was tested"
    );
}
