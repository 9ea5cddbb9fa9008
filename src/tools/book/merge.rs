//! `oxello book merge`: one book from several (the shards of a build, or books built apart);
//! of two entries for a position the one searched deeper stays, and values are negamaxed over
//! the whole.

use crate::book::Book;
use std::path::PathBuf;

/// `oxello book merge`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The books to join.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The book written.
    #[arg(long)]
    out: PathBuf,
}

/// Runs `oxello book merge`.
pub fn run(args: &MergeArgs) -> anyhow::Result<()> {
    let mut entries = Vec::new();
    for path in &args.inputs {
        entries.extend_from_slice(Book::read_file(path)?.entries());
    }
    let book = Book::new(entries);
    book.write_file(&args.out)?;
    println!(
        "{}: {} positions from {} books",
        args.out.display(),
        book.len(),
        args.inputs.len()
    );
    Ok(())
}
