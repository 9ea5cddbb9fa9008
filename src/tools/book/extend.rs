//! `oxello book extend`: plays lines from the start along the book's own choices; where a line
//! takes an exit, the position it reaches joins the book (its exit searched) and the position
//! left gets its next-best exit searched, so the book deepens where it would be played.
//!
//! The book is saved after every line that adds to it, and line `i`'s choices are drawn from
//! the seed and `i` alone, so an interrupted run resumes with `--first-line K` (K the lines it
//! finished, which its progress shows) and ends as the whole run would have.

use super::exits::{engine_on, search_exit, ExitSearchArgs};
use crate::batch::progress_bar;
use crate::board::{Board, Move, Position};
use crate::book::{is_book_position, Book};
use crate::engine::Engine;
use crate::eval::Evaluation;
use crate::random::seeded_hash;
use std::path::PathBuf;

/// `oxello book extend`.
#[derive(clap::Args, Debug)]
pub struct ExtendArgs {
    /// The book to extend, oxello's or Edax's (rewritten in place, in its own format).
    book: PathBuf,
    /// How many lines the run plays.
    #[arg(long, default_value_t = 100)]
    lines: u64,
    /// Start at this line, the earlier ones being done (to resume an interrupted run).
    #[arg(long, default_value_t = 0)]
    first_line: u64,
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
    let (mut book, mut format) = Book::read_file_with_format(&args.book)?;
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
    let first = args.first_line.min(args.lines);
    bar.set_position(first);
    for line in first..args.lines {
        let added = extend_line(&mut book, &mut engine, args, line);
        if added > 0 {
            format = book.write_file_as(&args.book, &format)?;
        }
        bar.set_message(format!("{} positions added", book.len() - before));
        bar.inc(1);
        log::info!("{} of {} lines done", line + 1, args.lines);
    }
    bar.finish_and_clear();
    println!(
        "{}: {} positions ({} added by {} lines)",
        args.book.display(),
        book.len(),
        book.len() - before,
        args.lines - first
    );
    Ok(())
}
