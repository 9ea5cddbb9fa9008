//! `oxello book build`: the positions of the first moves of games, merged under symmetry, each
//! with its best move outside the book searched; values negamaxed to the start.
//!
//! The output file doubles as the run's state: it is rewritten after every batch, and a run
//! that finds it resumes, skipping the positions it holds searched deep enough. `--shard i/n`
//! searches every n-th position only; `book merge` joins the shards.

use super::exits::{search_into, ExitSearchArgs, Unsearched};
use crate::batch::parse_shard;
use crate::board::{Board, Move, Position};
use crate::book::{is_book_position, moves_reaching, Book};
use crate::eval::Evaluation;
use crate::training::dataset::{load_all_games, GameSources};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// `oxello book build`.
#[derive(clap::Args, Debug)]
pub struct BuildArgs {
    #[command(flatten)]
    sources: GameSources,
    /// The book written; if it exists, the build resumes from it.
    #[arg(long)]
    out: PathBuf,
    /// Positions up to this many moves from the start.
    #[arg(long, default_value_t = 24)]
    plies: usize,
    /// Keep the positions that at least this many games reach.
    #[arg(long, default_value_t = 2)]
    min_games: u32,
    #[command(flatten)]
    search: ExitSearchArgs,
    /// This run's share of the positions, i/n (the shards are then merged).
    #[arg(long, default_value = "0/1")]
    shard: String,
}

/// Every position (canonical) within `plies` moves of the start of the games, with the number
/// of games reaching it; positions that must pass or are over are left out.
pub fn game_positions(games: &[Vec<Move>], plies: usize) -> HashMap<Board, u32> {
    let mut counts: HashMap<Board, u32> = HashMap::new();
    for moves in games {
        let mut position = Position::START;
        let mut seen = HashSet::new();
        for (ply, &mv) in moves.iter().enumerate() {
            if ply > plies {
                break;
            }
            if is_book_position(&position.board) {
                let key = position.board.canonical().0;
                if seen.insert(key) {
                    *counts.entry(key).or_default() += 1;
                }
            }
            let Ok(next) = position.play(mv) else { break };
            position = next;
        }
    }
    counts
}

/// Runs `oxello book build` on `threads` workers (default: all cores).
pub fn run(
    args: &BuildArgs,
    threads: Option<usize>,
    evaluation: &Evaluation,
) -> anyhow::Result<()> {
    let (shard, shards) = parse_shard(&args.shard)?;
    let games: Vec<Vec<Move>> = load_all_games(&args.sources.files()?)?
        .into_iter()
        .map(|g| g.moves)
        .collect();
    let mut positions: Vec<(Board, u32)> = game_positions(&games, args.plies)
        .into_iter()
        .filter(|&(_, games)| games >= args.min_games)
        .collect();
    positions.sort_by_key(|(b, _)| (b.player, b.opponent));
    let in_book: HashSet<Board> = positions.iter().map(|(b, _)| *b).collect();
    let mine: Vec<(Board, u32)> = positions
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % shards == shard)
        .map(|(_, p)| *p)
        .collect();
    let mut book = if args.out.exists() {
        Book::read_file(&args.out)?
    } else {
        Book::default()
    };
    let todo: Vec<Unsearched> = mine
        .iter()
        .filter(|(b, _)| !args.search.done(book.get(b)))
        .map(|&(board, games)| Unsearched {
            board,
            games,
            staying: moves_reaching(&board, |next| in_book.contains(next)),
        })
        .collect();
    log::info!(
        "{} games, {} positions within {} plies reached by {}+ games; shard {shard}/{shards}: {}, {} still to search",
        games.len(),
        positions.len(),
        args.plies,
        args.min_games,
        mine.len(),
        todo.len()
    );
    let workers = threads.unwrap_or_else(crate::engine::all_cores);
    search_into(
        &mut book,
        &todo,
        mine.len(),
        &args.out,
        workers,
        evaluation,
        args.search,
    )?;
    Ok(())
}
