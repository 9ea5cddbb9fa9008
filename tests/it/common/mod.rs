//! Helpers shared by the integration tests: an independent slow rules reference, plain
//! minimax, random reachable positions, and the paths of the repository's data files and test fixtures.

pub mod cli;
pub mod engine_process;
pub mod http;

use oxello::board::{Board, Move, Position, Squares};
use oxello::eval::Evaluator;
use oxello::search::{
    Limits, SearchContext, SearchNode, SearchOptions, TranspositionTable, INFINITY,
};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// A file of the repository's `data/` folder (the FFO suites, the XOT openings).
pub fn data_file(name: &str) -> PathBuf {
    existing(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(name),
    )
}

/// A test fixture from `tests/fixtures/` (a few WTHOR games, a short selfplay file).
pub fn fixture(name: &str) -> PathBuf {
    existing(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
}

fn existing(path: PathBuf) -> PathBuf {
    assert!(
        path.is_file(),
        "this test needs {}, which is missing",
        path.display()
    );
    path
}

/// A mailbox board for the reference rules: one cell per square, 0 empty, 1 player, 2 opponent.
pub struct Mailbox([u8; 64]);

const DIRECTIONS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

impl Mailbox {
    pub fn from_board(board: &Board) -> Mailbox {
        let mut cells = [0u8; 64];
        for (sq, cell) in cells.iter_mut().enumerate() {
            if board.player >> sq & 1 == 1 {
                *cell = 1;
            } else if board.opponent >> sq & 1 == 1 {
                *cell = 2;
            }
        }
        Mailbox(cells)
    }

    /// Discs flipped by the player on `square`, walking each direction square by square.
    pub fn flips(&self, square: usize) -> u64 {
        if self.0[square] != 0 {
            return 0;
        }
        let (col, row) = ((square % 8) as i32, (square / 8) as i32);
        let mut flipped = 0u64;
        for (dc, dr) in DIRECTIONS {
            let mut run = 0u64;
            let (mut c, mut r) = (col + dc, row + dr);
            while (0..8).contains(&c) && (0..8).contains(&r) {
                let at = (r * 8 + c) as usize;
                match self.0[at] {
                    2 => run |= 1 << at,
                    1 => {
                        flipped |= run;
                        break;
                    }
                    _ => break,
                }
                c += dc;
                r += dr;
            }
        }
        flipped
    }

    /// Legal moves: every empty square with at least one flip.
    pub fn moves(&self) -> u64 {
        (0..64)
            .filter(|&sq| self.flips(sq) != 0)
            .fold(0, |acc, sq| acc | 1 << sq)
    }
}

/// Reference perft with the mailbox rules; `pass_is_ply` picks the convention.
pub fn reference_perft(board: &Board, depth: u32, pass_is_ply: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mailbox = Mailbox::from_board(board);
    let moves = mailbox.moves();
    if moves == 0 {
        let passed = Board::new(board.opponent, board.player);
        if Mailbox::from_board(&passed).moves() == 0 {
            return 1;
        }
        let next_depth = if pass_is_ply { depth - 1 } else { depth };
        return reference_perft(&passed, next_depth, pass_is_ply);
    }
    Squares(moves)
        .map(|sq| {
            let flipped = mailbox.flips(sq);
            let child = Board::new(board.opponent ^ flipped, board.player | flipped | 1 << sq);
            reference_perft(&child, depth - 1, pass_is_ply)
        })
        .sum()
}

/// Plain negamax to `depth`: no pruning, no table, the same leaf rule and pass rule as the
/// engine (a finished game scores exactly, a pass is not a ply).
pub fn minimax(board: &Board, depth: u32, eval: &impl Evaluator<Board>) -> i32 {
    let moves = board.moves();
    if moves == 0 && board.opponent_moves() == 0 {
        return board.final_score();
    }
    if depth == 0 {
        return eval.evaluate(board);
    }
    if moves == 0 {
        return -minimax(&board.pass(), depth, eval);
    }
    Squares(moves)
        .map(|sq| -minimax(&SearchNode::play(board, sq), depth - 1, eval))
        .max()
        .expect("a position with moves")
}

/// A pool of one thread, where a search is serial and so reproducible.
pub fn one_thread_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool of one thread")
}

/// The limits and options of a full-width search to `depth` that searches a forced move too.
pub fn full_width_to(depth: u32) -> (Limits, SearchOptions) {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let options = SearchOptions {
        answer_forced_at_once: false,
        selectivity: 0,
        ..SearchOptions::default()
    };
    (limits, options)
}

/// The engine's fixed-depth alpha-beta of `board` to `depth`, full width, with a fresh table and
/// an open window, run on `pool`.
pub fn full_width_alpha_beta(
    pool: &rayon::ThreadPool,
    board: &Board,
    depth: u32,
    eval: &impl Evaluator<Board>,
) -> i32 {
    let stop = AtomicBool::new(false);
    let tt = TranspositionTable::new(1);
    let (limits, options) = full_width_to(depth);
    pool.install(|| {
        SearchContext::new(&tt, eval, &stop, options, &limits, board.empty_count())
            .alpha_beta(board, -INFINITY, INFINITY, depth)
    })
}

/// Plays from the start, choosing each move by the next value of `choices` (modulo the number
/// of moves) and passing when forced; stops when the choices or the game run out.
pub fn playout(choices: &[u8]) -> Board {
    let mut board = Board::START;
    for &choice in choices {
        let mut moves = board.moves();
        if moves == 0 {
            if board.opponent_moves() == 0 {
                break;
            }
            board = board.pass();
            moves = board.moves();
        }
        let square = Squares(moves)
            .nth(usize::from(choice) % moves.count_ones() as usize)
            .expect("choice is below the move count");
        board = board.play(square).expect("a generated move is legal");
    }
    board
}

/// A deterministic sequence of pseudo-random bytes (xorshift), for reproducible samples.
pub fn pseudo_random_bytes(mut seed: u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 32) as u8
        })
        .collect()
}

/// The moves of the first pseudo-random game (by seed) that reaches a position where the side
/// to move must pass, and that position.
pub fn game_until_forced_pass() -> (Vec<Move>, Position) {
    for seed in 1..10_000u64 {
        let mut position = Position::START;
        let mut moves = Vec::new();
        for choice in pseudo_random_bytes(seed, 64) {
            if position.board.is_game_over() {
                break;
            }
            if position.board.must_pass() {
                return (moves, position);
            }
            let legal = position.board.moves();
            let sq = Squares(legal)
                .nth(usize::from(choice) % legal.count_ones() as usize)
                .expect("choice is below the move count");
            let mv = Move::Play(sq as u8);
            position = position.play(mv).expect("a generated move is legal");
            moves.push(mv);
        }
    }
    panic!("no pseudo-random game reaches a forced pass");
}
