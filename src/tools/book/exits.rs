//! Searching the exits of book positions, what `book build`, `deepen`, `extend` and `check`
//! share: the search's limits, batches of positions on many engines saved as they go, one
//! engine on all threads.

use crate::batch::{map_on_engines, progress_bar};
use crate::board::Board;
use crate::book::{Book, BookEntry};
use crate::engine::Engine;
use crate::eval::Evaluation;
use crate::search::level_depth;
use crate::search::Limits;
use std::path::Path;

/// Positions searched between two saves of a book.
const BATCH: usize = 256;

/// How the book's positions are searched.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ExitSearchArgs {
    /// Midgame depth of every search.
    #[arg(long, default_value_t = 12)]
    pub depth: u32,
    /// Positions with at most this many empty squares are solved exactly (default: the
    /// depth + 4, as the engine's levels do).
    #[arg(long)]
    pub exact_empties: Option<u32>,
}

impl ExitSearchArgs {
    /// The limits of the search of a position with `empties` empty squares.
    fn limits(&self, empties: u32) -> Limits {
        let depth = match self.exact_empties {
            Some(exact) => (empties > exact).then_some(self.depth),
            None => level_depth(self.depth, empties),
        };
        Limits {
            depth,
            ..Limits::default()
        }
    }
}

impl ExitSearchArgs {
    /// Whether a book entry already holds a search at least this deep (or is exact), so a
    /// resumed run skips it.
    pub(super) fn done(&self, entry: Option<&BookEntry>) -> bool {
        entry.is_some_and(|e| e.exact || u32::from(e.depth) >= self.depth.min(60))
    }
}

/// A position whose exit is still to search: how many games reach it, and the moves that
/// stay in the book.
#[derive(Clone, Copy, Debug)]
pub struct Unsearched {
    pub board: Board,
    pub games: u32,
    pub staying: u64,
}

/// Searches the exits of `todo` on `workers` engines in batches, inserting the entries into
/// `book`, negamaxing it and saving it to `out` after every batch, so that an interrupted run
/// keeps its work; the progress bar and the closing report count `total` positions (the
/// shard's), those not in `todo` done before.
pub(super) fn search_into(
    book: &mut Book,
    todo: &[Unsearched],
    total: usize,
    out: &Path,
    workers: usize,
    evaluation: &Evaluation,
    search: ExitSearchArgs,
) -> anyhow::Result<()> {
    let bar = progress_bar(
        total as u64,
        "{bar:30} {pos}/{len} positions searched [{elapsed}<{eta}]",
    );
    bar.set_position((total - todo.len()) as u64);
    for batch in todo.chunks(BATCH) {
        let entries: Vec<BookEntry> =
            map_on_engines(batch, workers, worker_options(), evaluation, |engine, p| {
                search_exit(engine, &p.board, p.staying, p.games, search)
            })?;
        for entry in entries {
            book.insert(entry);
        }
        book.negamax();
        book.write_file(out)?;
        bar.inc(batch.len() as u64);
        log::info!("{} of {total} positions searched", bar.position());
    }
    book.negamax();
    book.write_file(out)?;
    bar.finish_and_clear();
    println!(
        "{}: {} positions ({} of this shard's {total} searched in this run)",
        out.display(),
        book.len(),
        todo.len()
    );
    Ok(())
}

/// Searches a book position's exit as `search` says (see [`crate::book::learn::search_exit`]).
pub fn search_exit(
    engine: &mut Engine,
    board: &Board,
    staying: u64,
    games: u32,
    search: ExitSearchArgs,
) -> BookEntry {
    let limits = search.limits(board.empty_count());
    let never = std::sync::atomic::AtomicBool::new(false);
    crate::book::learn::search_exit(engine, board, staying, games, search.depth, &limits, &never)
}

/// The engine options of the book's searches: one thread each, the default table.
fn worker_options() -> crate::engine::EngineOptions {
    crate::engine::EngineOptions {
        threads: 1,
        ..Default::default()
    }
}

/// One engine searching on `threads` threads (default: all cores), for the tools that search
/// one position at a time.
pub(super) fn engine_on(threads: Option<usize>, evaluation: &Evaluation) -> anyhow::Result<Engine> {
    Ok(Engine::with_evaluation(
        crate::engine::EngineOptions {
            threads: threads.unwrap_or_else(crate::engine::all_cores),
            ..worker_options()
        },
        evaluation.clone(),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_empties_decides_where_searches_solve_to_the_end() {
        let default = ExitSearchArgs {
            depth: 12,
            exact_empties: None,
        };
        assert_eq!(default.limits(16).depth, None);
        assert_eq!(default.limits(17).depth, Some(12));
        let wider = ExitSearchArgs {
            exact_empties: Some(20),
            ..default
        };
        assert_eq!(wider.limits(20).depth, None);
        assert_eq!(wider.limits(21).depth, Some(12));
    }
}
