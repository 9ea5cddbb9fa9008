//! `oxello book check`: how much the book's moves lose by a deeper search. A sample of book
//! positions is searched a few plies deeper than the book was built; every move the book
//! would play there (within `--randomness` discs of its best) is searched as deep, and its
//! loss is the deeper best score minus the move's deeper score. It also reports how far the
//! book's values of those moves stand from their deeper scores, apart for the moves that stay
//! in the book and for the exits.

use super::exits::engine_on;
use crate::batch::progress_bar;
use crate::board::{Board, Color, Position};
use crate::book::Book;
use crate::engine::Engine;
use crate::eval::Evaluation;
use crate::random::seeded_hash;
use crate::search::level_depth;
use crate::search::{Limits, SearchOptions};
use std::path::PathBuf;

/// `oxello book check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The book to check (default: the built-in book).
    #[arg(long)]
    book: Option<PathBuf>,
    /// How many book positions to check.
    #[arg(long, default_value_t = 100)]
    sample: usize,
    /// Plies beyond each position's own search depth.
    #[arg(long, default_value_t = 4)]
    extra_depth: u32,
    /// Check every book move within this many discs of the book's best (all that
    /// `--book-random` may play there, and more).
    #[arg(long, default_value_t = 2)]
    randomness: i32,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Multi-ProbCut level of the deeper searches, as the engine's `--selectivity` (0: full
    /// width, a truer judge but many times slower).
    #[arg(long, default_value_t = crate::search::DATA_SELECTIVITY,
          value_parser = clap::value_parser!(u8).range(0..=4))]
    selectivity: u8,
}

/// A book move checked by a deeper search.
struct CheckedMove {
    /// The deeper best score minus the move's deeper score.
    loss: i32,
    /// The book's value of the move minus its deeper score: how far the book errs on it.
    value_error: i32,
    board: Board,
    square: u8,
    /// How far the book puts the move below its best.
    below_book_best: i32,
    leaves_book: bool,
    /// The deeper search's best move in the position.
    deeper_best: Option<u8>,
}

/// The score of `board` for the side to move by a search of `depth` plies.
fn searched_score(engine: &mut Engine, board: &Board, depth: u32, selectivity: u8) -> i32 {
    searched(engine, board, depth, selectivity).0
}

/// The score of `board` for the side to move by a search of `depth` plies, and its best move.
fn searched(engine: &mut Engine, board: &Board, depth: u32, selectivity: u8) -> (i32, Option<u8>) {
    if board.is_game_over() {
        return (board.final_score(), None);
    }
    let position = Position {
        board: *board,
        side_to_move: Color::Black,
    };
    let limits = Limits {
        depth: level_depth(depth, board.empty_count()),
        ..Limits::default()
    };
    let options = SearchOptions {
        answer_forced_at_once: false,
        selectivity,
        ..SearchOptions::default()
    };
    let result = engine.search_at(&position, &limits, options, &mut |_| {});
    (result.score, result.best_move)
}

/// Runs `oxello book check` with `threads` search threads.
pub fn run(
    args: &CheckArgs,
    threads: Option<usize>,
    evaluation: &Evaluation,
) -> anyhow::Result<()> {
    let book = match &args.book {
        Some(path) => std::sync::Arc::new(Book::read_file(path)?),
        None => Book::builtin(),
    };
    let mut sample: Vec<(u64, Board, u8)> = book
        .entries()
        .iter()
        .filter(|e| !e.exact)
        .enumerate()
        .map(|(i, e)| (seeded_hash(args.seed, i as u64), e.board, e.depth))
        .collect();
    sample.sort_unstable_by_key(|(draw, _, _)| *draw);
    sample.truncate(args.sample);
    let mut engine = engine_on(threads, evaluation)?;
    let bar = progress_bar(
        sample.len() as u64,
        "{bar:30} {pos}/{len} positions checked [{elapsed}<{eta}]",
    );
    let mut losses: Vec<CheckedMove> = Vec::new();
    for &(_, board, depth) in &sample {
        let deeper = u32::from(depth) + args.extra_depth;
        let (best, deeper_best) = searched(&mut engine, &board, deeper, args.selectivity);
        let moves = book.moves(&board);
        let book_best = moves.first().map_or(0, |m| m.value);
        for m in moves
            .iter()
            .take_while(|m| m.value >= book_best - args.randomness.max(0))
        {
            let next = board.play(m.square as usize).expect("book moves are legal");
            let score = if next.moves() == 0 && !next.is_game_over() {
                searched_score(&mut engine, &next.pass(), deeper - 1, args.selectivity)
            } else {
                -searched_score(&mut engine, &next, deeper - 1, args.selectivity)
            };
            losses.push(CheckedMove {
                loss: (best - score).max(0),
                value_error: m.value - score,
                board,
                square: m.square,
                below_book_best: book_best - m.value,
                leaves_book: m.leaves_book,
                deeper_best,
            });
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    losses.sort_by_key(|m| std::cmp::Reverse(m.loss));
    let count = losses.len().max(1) as f64;
    let over = |discs: i32| losses.iter().filter(|m| m.loss > discs).count();
    println!(
        "{} positions, {} book moves checked {} plies deeper than built",
        sample.len(),
        losses.len(),
        args.extra_depth
    );
    println!(
        "loss: mean {:.2}, median {}, max {}; over 2 discs: {} ({:.1}%), over 4: {} ({:.1}%)",
        losses.iter().map(|m| f64::from(m.loss)).sum::<f64>() / count,
        losses.get(losses.len() / 2).map_or(0, |m| m.loss),
        losses.first().map_or(0, |m| m.loss),
        over(2),
        100.0 * over(2) as f64 / count,
        over(4),
        100.0 * over(4) as f64 / count,
    );
    for (kind, leaves_book) in [("in book", false), ("exits", true)] {
        let errors: Vec<f64> = losses
            .iter()
            .filter(|m| m.leaves_book == leaves_book)
            .map(|m| f64::from(m.value_error))
            .collect();
        let n = errors.len().max(1) as f64;
        println!(
            "book value minus deeper score, {kind} ({} moves): mean {:+.2}, mean absolute {:.2}",
            errors.len(),
            errors.iter().sum::<f64>() / n,
            errors.iter().map(|e| e.abs()).sum::<f64>() / n,
        );
    }
    for m in losses.iter().take_while(|m| m.loss > 2) {
        println!(
            "  loses {}: {} ({}, {} below the book's best; deeper best {}) in {}",
            m.loss,
            crate::notation::format_square(m.square).to_ascii_lowercase(),
            if m.leaves_book { "exit" } else { "in book" },
            m.below_book_best,
            m.deeper_best
                .map_or("none".to_string(), |s| crate::notation::format_square(s)
                    .to_ascii_lowercase()),
            crate::notation::format_position(&Position {
                board: m.board,
                side_to_move: Color::Black,
            })
        );
    }
    Ok(())
}
