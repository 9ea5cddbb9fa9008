//! `oxello book`: build an opening book from games, show what it knows, extend it along the
//! lines it plays, merge shards, check its moves by deeper searches, and convert Edax books. The book itself
//! (format, lookup, negamax) is [`crate::book`]; these tools search its positions.

pub mod build;
pub mod check;
pub mod deepen;
pub mod edax;
mod exits;
pub mod extend;
pub mod merge;
pub mod show;

pub use exits::{search_exit, ExitSearchArgs, Unsearched};

use crate::eval::Evaluation;

/// `oxello book`: the book tools.
#[derive(clap::Args, Debug)]
pub struct BookArgs {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(clap::Subcommand, Debug)]
enum BookCommand {
    /// Build a book from games: positions up to a ply limit, each exit searched.
    Build(build::BuildArgs),
    /// List the book moves of a position with their values.
    Show(show::ShowArgs),
    /// Deepen the lines the book plays, searching the positions they reach.
    Extend(extend::ExtendArgs),
    /// Search every position's exit again, deeper.
    Deepen(deepen::DeepenArgs),
    /// Join books (e.g. the shards of a build) into one.
    Merge(merge::MergeArgs),
    /// Measure what the book's moves lose by deeper searches of a sample of positions.
    Check(check::CheckArgs),
    /// Convert an Edax book (book.dat) into an oxello book.
    ImportEdax(edax::ImportArgs),
    /// Write a book as an Edax book (book.dat) that Edax 4.4 to 4.6 open.
    ExportEdax(edax::ExportArgs),
}

/// Runs `oxello book`, searching with `evaluation`; `threads` is the global `--threads` option
/// (default: all cores).
pub fn run(args: BookArgs, threads: Option<usize>, evaluation: &Evaluation) -> anyhow::Result<()> {
    match args.command {
        BookCommand::Build(args) => build::run(&args, threads, evaluation),
        BookCommand::Show(args) => show::run(&args),
        BookCommand::Extend(args) => extend::run(&args, threads, evaluation),
        BookCommand::Deepen(args) => deepen::run(&args, threads, evaluation),
        BookCommand::Merge(args) => merge::run(&args),
        BookCommand::Check(args) => check::run(&args, threads, evaluation),
        BookCommand::ImportEdax(args) => edax::run_import(&args),
        BookCommand::ExportEdax(args) => edax::run_export(&args),
    }
}
