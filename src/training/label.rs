//! `oxello label`: the positions of games labelled with search scores, the training data of an
//! evaluation that learns from searches rather than from game results.
//!
//! Games are taken in an order drawn from the seed (so that the first thousands of a large
//! database are a fair sample of it); game of rank `r` belongs to shard `r mod n`. Every
//! position is labelled once per run, in its first game of that order (positions are compared
//! up to symmetry): with at most `--exact-empties` empties by its exact score, proved from the
//! end of the game back, above that by a `--depth` search with the given weights (depth 0: the
//! evaluation's static score). Each game is searched on a cleared table, so a run's file
//! depends only on its games, settings and seed, whatever the threads and interruptions.
//!
//! Games played perfectly from the exact empties on (`oxello selfplay` with at least as many
//! `--exact-empties`) need no proof: with `--played-exact` their result is the exact score of
//! those positions, and only one game in [`PLAY_CHECK_ONE_IN`], drawn by its rank, is proved to
//! check that the games are what the flag says.

use super::dataset::{
    exact_scores, load_all_games, played_scores, positions_of, ExactSolver, GameSources,
};
use super::label_files::format::{Label, LabelsFile, LabelsHeader, LabelsWriter};
use super::label_files::packed;
use crate::batch::{map_on_engines, parse_shard, progress_bar};
use crate::board::{Board, Position};
use crate::book::write_atomically;
use crate::engine::{all_cores, Engine, EngineOptions};
use crate::eval::{Evaluation, Evaluator};
use crate::random::seeded_hash;
use crate::search::level_depth;
use crate::search::{Limits, Proof, SearchOptions};
use std::collections::HashSet;
use std::path::PathBuf;

/// Games labelled between two appends to the file.
const BATCH_GAMES: usize = 32;
/// Transposition table of each labelling thread, in MiB.
const TABLE_MIB: usize = 16;
/// With `--played-exact`, one game in this many is proved all the same, to check the claim.
pub const PLAY_CHECK_ONE_IN: u64 = 32;
/// Mixed into the seed for the draw of the games `--played-exact` proves.
const PLAY_CHECK_DRAW: u64 = 0xC4EC_6A3E;

/// `oxello label`: labels the positions of games with search scores.
#[derive(clap::Args, Debug)]
pub struct LabelArgs {
    #[command(flatten)]
    sources: GameSources,
    /// The labels file to write; a run resumes from it when it exists.
    #[arg(long)]
    out: PathBuf,
    /// Depth of the midgame searches; 0 labels with the evaluation's static score, no search.
    #[arg(long, default_value_t = 8)]
    depth: u8,
    /// Positions with at most this many empties are labelled with their exact score.
    #[arg(long, default_value_t = 20)]
    exact_empties: u8,
    /// The games were played perfectly from --exact-empties empties on (`oxello selfplay` with
    /// at least as many --exact-empties): label those positions with the game's result instead
    /// of proving their scores. One game in 32 is proved all the same; a game whose result is
    /// not its positions' exact score stops the run.
    #[arg(long)]
    played_exact: bool,
    /// Label only the first N games of the seeded order (over all shards); default: all.
    #[arg(long = "games")]
    max_games: Option<usize>,
    /// Seed of the order of the games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// This machine's share of the run: i/n labels the games of rank i, i + n, i + 2n, ...
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// Once the shard is labelled, also write its labels packed with their games to this file
    /// (gzip, about 1.3 bytes a position: the form kept in the repository; `train` and
    /// `eval-error` read it as they read the labels file).
    #[arg(long)]
    pack: Option<PathBuf>,
}

/// The order in which a run labels `games` games: game indices sorted by a hash of the seed.
pub fn game_order(games: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..games).collect();
    order.sort_by_key(|&g| seeded_hash(seed, g as u64));
    order
}

/// What a file already holds: its header, the records kept, the positions they label, and the
/// rank to go on from.
struct Resume {
    header: LabelsHeader,
    kept_records: usize,
    seen: HashSet<Board>,
    next_rank: usize,
}

/// Reads an existing file to go on from it: the last game's records may be incomplete, so they
/// are dropped and that game is labelled again.
fn resume_from(
    out: &std::path::Path,
    header: LabelsHeader,
    shard: (u64, u64),
) -> anyhow::Result<Option<Resume>> {
    let bytes = match std::fs::read(out) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => anyhow::bail!("cannot read {}: {e}", out.display()),
    };
    let file =
        LabelsFile::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    let settings = |h: LabelsHeader| (h.depth, h.exact_empties, h.seed);
    if settings(file.header) != settings(header) {
        anyhow::bail!(
            "{} was labelled with depth {}, exact empties {}, seed {}; resume it with the same settings or write another file",
            out.display(),
            file.header.depth,
            file.header.exact_empties,
            file.header.seed
        );
    }
    match file.header.evaluation {
        Some(theirs) if Some(theirs) != header.evaluation => anyhow::bail!(
            "{} was labelled with another evaluation (fingerprint {theirs:016x}, this run's is {:016x}); resume it with the --eval it was begun with or write another file",
            out.display(),
            header.evaluation.unwrap_or_default()
        ),
        Some(_) => {}
        None => log::warn!(
            "{} does not record its evaluation (format version 1): make sure this run's --eval is the one it was begun with",
            out.display()
        ),
    }
    if let Some(stranger) = file
        .labels
        .iter()
        .find(|l| u64::from(l.game) % shard.1 != shard.0)
    {
        anyhow::bail!(
            "{} holds game {}, which is not in shard {}/{}",
            out.display(),
            stranger.game,
            shard.0,
            shard.1
        );
    }
    let last = file.labels.last().map(|l| l.game);
    let kept: Vec<&Label> = file
        .labels
        .iter()
        .filter(|l| Some(l.game) != last)
        .collect();
    Ok(Some(Resume {
        header: file.header,
        kept_records: kept.len(),
        seen: kept.iter().map(|l| l.board.canonical().0).collect(),
        next_rank: last.map_or(0, |g| g as usize),
    }))
}

/// A game to label: its rank, positions, final position, and which positions are new.
struct Claimed {
    rank: u32,
    positions: Vec<Position>,
    end: Position,
    new: Vec<bool>,
}

/// Whether `--played-exact` proves the game of this rank all the same.
fn play_checked(seed: u64, rank: u32) -> bool {
    seeded_hash(seed ^ PLAY_CHECK_DRAW, u64::from(rank)).is_multiple_of(PLAY_CHECK_ONE_IN)
}

/// The exact scores of a game's positions with at most the exact empties: proved, or read off
/// the result of a game played perfectly from there (`played_exact`), a drawn few proved to
/// check it.
fn exact_scores_of(
    game: &Claimed,
    header: LabelsHeader,
    played_exact: bool,
    solver: &ExactSolver,
) -> Result<Vec<Option<i32>>, String> {
    let exact_empties = u32::from(header.exact_empties);
    if !played_exact {
        return Ok(exact_scores(
            &game.positions,
            &game.end,
            exact_empties,
            solver,
        ));
    }
    let played = played_scores(&game.positions, &game.end, exact_empties);
    if play_checked(header.seed, game.rank) {
        let proved = exact_scores(&game.positions, &game.end, exact_empties, solver);
        if let Some(at) = (0..proved.len()).find(|&i| proved[i] != played[i]) {
            return Err(format!(
                "game {} was not played perfectly from {exact_empties} empties: its result gives \
                 the position before move {} {:+}, its exact score is {:+} (label it without \
                 --played-exact, or play it with selfplay --exact-empties {exact_empties} or more)",
                game.rank,
                at + 1,
                played[at].unwrap_or_default(),
                proved[at].unwrap_or_default()
            ));
        }
    }
    Ok(played)
}

/// Labels the new positions of one game, on a cleared table.
fn label_game(
    engine: &mut Engine,
    evaluation: &Evaluation,
    solver: &ExactSolver,
    game: &Claimed,
    header: LabelsHeader,
    played_exact: bool,
) -> Result<Vec<Label>, String> {
    engine.new_game(Position::START);
    let exact_empties = u32::from(header.exact_empties);
    let exact_needed = game
        .positions
        .iter()
        .zip(&game.new)
        .any(|(p, &new)| new && p.board.empty_count() <= exact_empties);
    let exact = if exact_needed {
        exact_scores_of(game, header, played_exact, solver)?
    } else {
        vec![None; game.positions.len()]
    };
    let mut labels = Vec::new();
    for ((position, &new), exact) in game.positions.iter().zip(&game.new).zip(exact) {
        if !new {
            continue;
        }
        let (score, depth) = match exact {
            Some(score) => (score, 0),
            None if header.depth == 0 => (evaluation.evaluate(&position.board), 0),
            None => {
                let limits = Limits {
                    depth: level_depth(u32::from(header.depth), position.board.empty_count()),
                    ..Limits::default()
                };
                let options = SearchOptions {
                    answer_forced_at_once: false,
                    ..SearchOptions::for_data()
                };
                let result = engine.search_at(position, &limits, options, &mut |_| {});
                let depth = if result.proof == Proof::Exact {
                    0
                } else {
                    header.depth
                };
                (result.score, depth)
            }
        };
        labels.push(Label {
            game: game.rank,
            board: position.board,
            score: score.clamp(-64, 64) as i8,
            depth,
        });
    }
    Ok(labels)
}

/// Runs `oxello label` on `threads` threads (default: all cores), searching with `evaluation`.
pub fn run(
    args: &LabelArgs,
    threads: Option<usize>,
    evaluation: &Evaluation,
) -> anyhow::Result<()> {
    let shard = parse_shard(&args.shard)?;
    let header = LabelsHeader {
        depth: args.depth,
        exact_empties: args.exact_empties,
        seed: args.seed,
        evaluation: Some(evaluation.fingerprint()),
    };
    let files = args.sources.files()?;
    let games = load_all_games(&files)?;
    let order = game_order(games.len(), args.seed);
    let total = args.max_games.unwrap_or(games.len()).min(games.len());
    let ranks: Vec<usize> = (0..total)
        .filter(|&r| r as u64 % shard.1 == shard.0)
        .collect();
    let resume = resume_from(&args.out, header, shard)?;
    let (mut seen, next_rank, file_header, kept) = match resume {
        Some(r) => (r.seen, r.next_rank, r.header, Some(r.kept_records)),
        None => (HashSet::new(), 0, header, None),
    };
    let mut writer = LabelsWriter::open(&args.out, file_header, kept)?;
    let todo: Vec<usize> = ranks.iter().copied().filter(|&r| r >= next_rank).collect();
    eprintln!(
        "{} games from {} files; labelling {} of this shard's {} (depth {}, exact from {} empties)",
        games.len(),
        files.len(),
        todo.len(),
        ranks.len(),
        args.depth,
        args.exact_empties
    );
    let solver = ExactSolver::new(evaluation)?;
    let workers = threads.unwrap_or_else(all_cores);
    let options = EngineOptions {
        threads: 1,
        hash_mib: TABLE_MIB,
    };
    let bar = progress_bar(
        ranks.len() as u64,
        "{bar:30} {pos}/{len} games labelled [{elapsed}<{eta}]",
    );
    bar.set_position((ranks.len() - todo.len()) as u64);
    let mut written = 0usize;
    for batch in todo.chunks(BATCH_GAMES) {
        let claimed: Vec<Claimed> = batch
            .iter()
            .map(|&rank| {
                let (positions, end) = positions_of(&games[order[rank]]);
                let new = positions
                    .iter()
                    .map(|p| p.board.moves() != 0 && seen.insert(p.board.canonical().0))
                    .collect();
                Claimed {
                    rank: rank as u32,
                    positions,
                    end,
                    new,
                }
            })
            .collect();
        let labels: Vec<Label> =
            map_on_engines(&claimed, workers, options, evaluation, |engine, game| {
                label_game(engine, evaluation, &solver, game, header, args.played_exact)
            })?
            .into_iter()
            .collect::<Result<Vec<_>, String>>()
            .map_err(|e| anyhow::anyhow!(e))?
            .into_iter()
            .flatten()
            .collect();
        writer
            .append(&labels)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.out.display()))?;
        written += labels.len();
        bar.inc(batch.len() as u64);
        log::info!(
            "{} of {} games labelled, {} positions this run",
            bar.position(),
            ranks.len(),
            written
        );
    }
    bar.finish_and_clear();
    println!(
        "{}: {} positions labelled ({} in this run) from {} games of this shard",
        args.out.display(),
        seen.len(),
        written,
        ranks.len()
    );
    if let Some(pack_path) = &args.pack {
        let file = LabelsFile::read_complete(&args.out)?;
        let bytes = packed::pack(&file, |rank| {
            order
                .get(rank as usize)
                .map(|&index| games[index].moves.as_slice())
        })
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.out.display()))?;
        write_atomically(pack_path, &bytes)?;
        println!(
            "{}: {} positions packed with their games in {} bytes",
            pack_path.display(),
            file.labels.len(),
            bytes.len()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_a_permutation_fixed_by_the_seed() {
        let order = game_order(1000, 7);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
        assert_eq!(order, game_order(1000, 7));
        assert_ne!(order, game_order(1000, 8));
        assert_ne!(order[..10], sorted[..10]);
    }
}
