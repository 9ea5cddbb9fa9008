//! `oxello book extend`: plays lines from the start along the book's own choices; where a line
//! takes an exit, the position it reaches joins the book (its exit searched) and the position
//! left gets its next-best exit searched, so the book deepens where it would be played.
//!
//! The book is saved after every line, so an interrupted run keeps what it added; lines are
//! drawn from the seed, so a rerun with the same options repeats the same choices.

use super::{engine_on, search_exit, ExitSearchArgs};
use crate::board::{Board, Move, Position};
use crate::book::{is_book_position, Book};
use crate::engine::Engine;
use crate::eval::Evaluation;
use crate::random::seeded_hash;
use crate::tools::progress_bar;
use std::path::PathBuf;

/// `oxello book extend`.
#[derive(clap::Args, Debug)]
pub struct ExtendArgs {
    /// The book to extend (rewritten in place).
    book: PathBuf,
    /// How many lines to play.
    #[arg(long, default_value_t = 100)]
    lines: u64,
    /// Lines stop this many moves from the start.
    #[arg(long, default_value_t = 30)]
    plies: u32,
    /// Along a line, play any book move within this many discs of the best, for variety.
    #[arg(long, default_value_t = 2)]
    randomness: i32,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    search: ExitSearchArgs,
}

/// Plays one line of the book from the start, adding the positions its exits reach; returns
/// how many positions joined the book.
fn extend_line(book: &mut Book, engine: &mut Engine, args: &ExtendArgs, line: u64) -> usize {
    let mut position = Position::START;
    let mut added = 0;
    for ply in 0..args.plies {
        let random = seeded_hash(args.seed, line << 8 | u64::from(ply));
        let Some(choice) = book.choose(&position, args.randomness, random) else {
            break;
        };
        let board = position.board;
        let mut next = position
            .play(Move::Play(choice.square))
            .expect("book moves are legal");
        if next.board.must_pass() {
            next = next.play(Move::Pass).expect("a pass is legal");
        }
        if choice.leaves_book {
            if !is_book_position(&next.board) {
                break;
            }
            let games = 0;
            let entry = search_exit(
                engine,
                &next.board,
                book.moves_in_book(&next.board),
                games,
                args.search,
            );
            book.insert(entry);
            let left = book.get(&board).copied().expect("the line is in the book");
            let entry = search_exit(
                engine,
                &board,
                book.moves_in_book(&board),
                left.games,
                args.search,
            );
            book.insert(entry);
            book.negamax();
            added += 1;
        }
        position = next;
    }
    added
}

/// Runs `oxello book extend` with `threads` search threads.
pub fn run(
    args: &ExtendArgs,
    threads: Option<usize>,
    evaluation: &Evaluation,
) -> anyhow::Result<()> {
    let mut book = Book::read_file(&args.book)?;
    if !book.contains(&Board::START) {
        anyhow::bail!(
            "{}: the start position is not in the book, so it has no line to extend",
            args.book.display()
        );
    }
    let before = book.len();
    let mut engine = engine_on(threads, evaluation)?;
    let bar = progress_bar(
        args.lines,
        "{bar:30} {pos}/{len} lines {msg} [{elapsed}<{eta}]",
    );
    for line in 0..args.lines {
        let added = extend_line(&mut book, &mut engine, args, line);
        if added > 0 {
            book.write_file(&args.book)?;
        }
        bar.set_message(format!("{} positions added", book.len() - before));
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!(
        "{}: {} positions ({} added by {} lines)",
        args.book.display(),
        book.len(),
        book.len() - before,
        args.lines
    );
    Ok(())
}
