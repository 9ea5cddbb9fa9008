//! `oxello book import-edax` and `oxello book export-edax`: Edax's `book.dat` to an oxello book
//! and back (the format and the conversion are [`crate::book::edax`]).

use super::show;
use crate::board::Position;
use crate::book::edax::{EdaxBook, EdaxDate, EdaxRelease};
use crate::book::{write_atomically, Book, BookFormat};
use std::path::PathBuf;
use std::sync::Arc;

/// `oxello book import-edax`.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The Edax book to read (`book.dat` of Edax 4.4 to 4.6).
    edax_book: PathBuf,
    /// The oxello book written.
    #[arg(long)]
    out: PathBuf,
}

/// `oxello book export-edax`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The book to export, oxello's or Edax's (default: the built-in book).
    book: Option<PathBuf>,
    /// The Edax book written.
    #[arg(long)]
    out: PathBuf,
    /// The Edax release whose layout to write: 4.4 or 4.6 (the two differ in the order of
    /// the positions and the release byte; each reads the other's). Default: an Edax book's
    /// own, else 4.6.
    #[arg(long)]
    edax_release: Option<EdaxRelease>,
}

/// Runs `oxello book import-edax`: reads and checks the Edax book, writes it as an oxello
/// book, and reports its size and the start position's moves.
pub fn run_import(args: &ImportArgs) -> anyhow::Result<()> {
    let bytes = std::fs::read(&args.edax_book)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", args.edax_book.display()))?;
    let edax = EdaxBook::from_bytes(&bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.edax_book.display()))?;
    let book = edax.to_book();
    book.write_file(&args.out)?;
    println!(
        "{}: {} positions from the Edax book's {} (level {}; positions that must pass are looked up after the pass)",
        args.out.display(),
        book.len(),
        edax.positions.len(),
        edax.options.level
    );
    print!("{}", show::report(&book, &Position::START));
    Ok(())
}

/// Runs `oxello book export-edax`: an Edax book given is written back whole, with what
/// oxello's reading of it would change (nothing: its own bytes, in the release asked for);
/// an oxello book is made into a new Edax book.
pub fn run_export(args: &ExportArgs) -> anyhow::Result<()> {
    let (book, format) = match &args.book {
        Some(path) => {
            let (book, format) = Book::read_file_with_format(path)?;
            (Arc::new(book), format)
        }
        None => (Book::builtin(), BookFormat::Oxello),
    };
    let edax = match format {
        BookFormat::Edax(edax) => edax.updated(&book, EdaxDate::now()),
        BookFormat::Oxello => EdaxBook::from_book(&book, EdaxDate::now()),
    };
    let release = args
        .edax_release
        .unwrap_or_else(|| EdaxRelease::of_byte(edax.release));
    write_atomically(&args.out, &edax.to_bytes(release))?;
    println!(
        "{}: {} positions as Edax {} writes them ({} of them positions that must pass), level {}",
        args.out.display(),
        edax.positions.len(),
        match release {
            EdaxRelease::V4_4 => "4.4",
            EdaxRelease::V4_6 => "4.6",
        },
        edax.positions
            .iter()
            .filter(|p| p.board.moves() == 0)
            .count(),
        edax.options.level
    );
    Ok(())
}
