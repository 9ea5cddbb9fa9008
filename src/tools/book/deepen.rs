//! `oxello book deepen`: searches the exit of every position of a book again, deeper, and
//! negamaxes the new values, so the book's choices rest on deeper searches without new
//! positions.
//!
//! The output doubles as the run's state: it is saved after every batch, and a run that finds
//! it resumes, skipping the positions it already holds searched as deep. `--shard i/n`
//! searches every n-th position only; `book merge` joins the shards (the deeper entry wins).

use super::exits::{search_into, ExitSearchArgs, Unsearched};
use crate::batch::parse_shard;
use crate::book::Book;
use crate::eval::Evaluation;
use std::path::PathBuf;

/// `oxello book deepen`.
#[derive(clap::Args, Debug)]
pub struct DeepenArgs {
    /// The book to deepen.
    book: PathBuf,
    /// Where the deepened book goes (default: over the input); if it exists, the run resumes
    /// from it.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    search: ExitSearchArgs,
    /// This run's share of the positions, i/n (the shards are then merged).
    #[arg(long, default_value = "0/1")]
    shard: String,
}

/// Runs `oxello book deepen` on `threads` workers (default: all cores).
pub fn run(
    args: &DeepenArgs,
    threads: Option<usize>,
    evaluation: &Evaluation,
) -> anyhow::Result<()> {
    let (shard, shards) = parse_shard(&args.shard)?;
    let out = args.out.as_ref().unwrap_or(&args.book);
    let mut book = Book::read_file(if out.exists() { out } else { &args.book })?;
    let mine: Vec<Unsearched> = book
        .entries()
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % shards == shard)
        .map(|(_, e)| Unsearched {
            board: e.board,
            games: e.games,
            staying: book.moves_in_book(&e.board),
        })
        .collect();
    let todo: Vec<Unsearched> = mine
        .iter()
        .filter(|p| !args.search.done(book.get(&p.board)))
        .copied()
        .collect();
    log::info!(
        "{} positions; shard {shard}/{shards}: {}, {} still to search at depth {}",
        book.len(),
        mine.len(),
        todo.len(),
        args.search.depth
    );
    let workers = threads.unwrap_or_else(crate::engine::all_cores);
    search_into(
        &mut book,
        &todo,
        mine.len(),
        out,
        workers,
        evaluation,
        args.search,
    )?;
    Ok(())
}
