//! `oxello selfplay`: games from randomised openings, searched at a fixed depth and played
//! exactly from a number of empties on, written as `<transcript> <black final score>` lines
//! (the format `oxello train` reads). A game opens with a line drawn from a list of openings
//! (`--openings`, e.g. the XOT lists) if one is given, then random moves. Game `g` of a run
//! belongs to shard `g mod n`, and its opening depends only on the seed, the list and `g`, so
//! shards are disjoint and reproducible and their outputs can simply be concatenated.
//!
//! Games are written in batches as they finish, in game order, so an interrupted run resumes
//! from its output file: the complete lines it holds are checked to be this run's first games
//! (their openings must be the ones the seed gives) and the rest are played.

use super::dataset::parse_game_line;
use crate::batch::openings::parse_openings;
use crate::batch::{map_on_engines, parse_shard, progress_bar};
use crate::board::{Move, Position, Squares};
use crate::engine::{Engine, EngineOptions};
use crate::eval::Evaluation;
use crate::notation::format_transcript;
use crate::random::seeded_hash;
use crate::search::{Limits, SearchOptions};
use std::io::Write;
use std::path::Path;

/// Games played between two writes of the output.
const BATCH_GAMES: usize = 64;
/// Mixed into the seed for the draw of a game's opening line, so that it does not follow
/// the draw of its first random move.
const OPENING_DRAW: u64 = 0x09E7_11E5;

/// Selfplay settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfplayConfig {
    /// Games in the whole run (over all shards).
    pub games: u64,
    /// Midgame search depth.
    pub depth: u32,
    /// Opening lines, one drawn for each game (none: the games open with random moves alone).
    pub openings: Vec<Vec<Move>>,
    /// Random moves at the start of each game, after its opening line.
    pub random_plies: u32,
    /// From this many empties on, moves are found by exact solving.
    pub exact_empties: u32,
    pub seed: u64,
    /// This shard's number and the number of shards.
    pub shard: (u64, u64),
}

impl SelfplayConfig {
    /// The numbers of this shard's games: game `g` belongs to shard `g mod n`.
    pub fn shard_games(&self) -> impl Iterator<Item = u64> {
        let (shard, shards) = self.shard;
        (0..self.games).filter(move |g| g % shards == shard)
    }
}

/// The moves that open game number `game` (passes explicit): its opening line, drawn from
/// the list, then the random moves; fixed by the seed, the list and the game's number alone.
pub fn opening(config: &SelfplayConfig, game: u64) -> Vec<Move> {
    let mut moves = if config.openings.is_empty() {
        Vec::new()
    } else {
        let drawn = seeded_hash(config.seed ^ OPENING_DRAW, game) % config.openings.len() as u64;
        config.openings[drawn as usize].clone()
    };
    let mut position = moves
        .iter()
        .try_fold(Position::START, |p, &mv| p.play(mv))
        .expect("opening lines are checked when read");
    let line = moves.len();
    let mut random = seeded_hash(config.seed, game);
    while ((moves.len() - line) as u32) < config.random_plies && !position.board.is_game_over() {
        let legal = position.board.moves();
        let mv = if legal == 0 {
            Move::Pass
        } else {
            random = seeded_hash(random, (moves.len() - line) as u64);
            let pick = (random % u64::from(legal.count_ones())) as usize;
            Move::Play(Squares(legal).nth(pick).expect("pick is below the count") as u8)
        };
        position = position.play(mv).expect("moves are legal");
        moves.push(mv);
    }
    moves
}

/// Plays game number `game`: its transcript and Black's final disc difference.
pub fn play_game(engine: &mut Engine, config: &SelfplayConfig, game: u64) -> (Vec<Move>, i32) {
    let mut moves = opening(config, game);
    let mut position = Position::START;
    engine.new_game(position);
    for &mv in &moves {
        engine.play(mv).expect("moves are legal");
        position = position.play(mv).expect("moves are legal");
    }
    while !position.board.is_game_over() {
        let mv = if position.board.moves() == 0 {
            Move::Pass
        } else {
            let empties = position.board.empty_count();
            let limits = Limits {
                depth: (empties > config.exact_empties).then_some(config.depth),
                ..Limits::default()
            };
            let result = engine.search(&limits, SearchOptions::for_data(), &mut |_| {});
            result.best_move.map_or(Move::Pass, Move::Play)
        };
        engine.play(mv).expect("moves are legal");
        position = position.play(mv).expect("moves are legal");
        moves.push(mv);
    }
    (moves, position.black_final_score())
}

/// Plays this shard's games on all cores, one single-threaded engine per worker; returns the
/// output lines in game order.
pub fn selfplay(
    config: &SelfplayConfig,
    evaluation: &Evaluation,
    on_game: &(dyn Fn() + Sync),
) -> anyhow::Result<Vec<String>> {
    let games: Vec<u64> = config.shard_games().collect();
    play_games(&games, config, evaluation, on_game)
}

/// Plays the games numbered `games` on all cores; returns their output lines in order.
fn play_games(
    games: &[u64],
    config: &SelfplayConfig,
    evaluation: &Evaluation,
    on_game: &(dyn Fn() + Sync),
) -> anyhow::Result<Vec<String>> {
    let options = EngineOptions {
        threads: 1,
        hash_mib: 16,
    };
    map_on_engines(
        games,
        crate::engine::all_cores(),
        options,
        evaluation,
        |engine, &game| {
            let (moves, score) = play_game(engine, config, game);
            on_game();
            format!("{} {score:+}", format_transcript(&moves))
        },
    )
}

/// How many of this shard's games an earlier run wrote to `path` (0 if there is no file).
/// Every complete line must be a finished game with its true score, opened by the opening
/// of the game it stands for; an unfinished last line is cut off the file.
pub fn resume_point(path: &Path, config: &SelfplayConfig) -> anyhow::Result<usize> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
    };
    let complete = text.rfind('\n').map_or(0, |end| end + 1);
    let games: Vec<u64> = config.shard_games().collect();
    let lines: Vec<&str> = text[..complete].lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let at = |why: String| anyhow::anyhow!("{} line {}: {why}", path.display(), i + 1);
        let (played, end) = parse_game_line(line).map_err(at)?;
        if !end.board.is_game_over() || played.black_score != end.black_final_score() {
            return Err(at(format!(
                "'{line}' is not a finished game with its score"
            )));
        }
        let game = *games.get(i).ok_or_else(|| {
            at(format!(
                "the file holds more games than this shard's {} of a run of {}",
                games.len(),
                config.games
            ))
        })?;
        if !played.moves.starts_with(&opening(config, game)) {
            return Err(at(format!(
                "this is not game {game} of seed {} with {} random moves{}: resume with the settings the file was begun with (--seed, --openings, --random-plies, --shard) or write another file",
                config.seed,
                config.random_plies,
                if config.openings.is_empty() {
                    String::new()
                } else {
                    format!(" after lines of {} openings", config.openings.len())
                }
            )));
        }
    }
    if complete < text.len() {
        log::info!("{}: dropping an unfinished last line", path.display());
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(complete as u64));
        file.map_err(|e| anyhow::anyhow!("cannot cut {}: {e}", path.display()))?;
    }
    Ok(lines.len())
}

/// `oxello selfplay`: training games against itself from random openings.
#[derive(clap::Args, Debug)]
pub struct SelfplayArgs {
    /// Games in the whole run, over all shards.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Midgame depth.
    #[arg(long, default_value_t = 8)]
    depth: u32,
    /// A file of opening lines (one a line, e.g. data/xot-openings-large.txt): each game opens
    /// with one, drawn by the seed, before its random moves.
    #[arg(long)]
    openings: Option<std::path::PathBuf>,
    /// Random moves at the start of each game (after its opening line, if any).
    #[arg(long, default_value_t = 10)]
    random_plies: u32,
    /// Solve exactly from this many empties.
    #[arg(long, default_value_t = 18)]
    exact_empties: u32,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// This machine's share of the run: i/n plays games g with g mod n = i.
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// Output file (one game a line), written as games finish; a run resumes from it when it
    /// exists (and a larger --games extends it). Stdout when absent.
    #[arg(long)]
    output: Option<std::path::PathBuf>,
}

/// Runs `oxello selfplay`, writing the games to the output file (resuming from it when it
/// exists) or stdout.
pub fn run(args: &SelfplayArgs, evaluation: &Evaluation) -> anyhow::Result<()> {
    let openings = match &args.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
            let openings =
                parse_openings(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            if openings.is_empty() {
                anyhow::bail!("{} holds no opening", path.display());
            }
            openings
        }
        None => Vec::new(),
    };
    let config = SelfplayConfig {
        games: args.games,
        depth: args.depth,
        openings,
        random_plies: args.random_plies,
        exact_empties: args.exact_empties,
        seed: args.seed,
        shard: parse_shard(&args.shard)?,
    };
    let games: Vec<u64> = config.shard_games().collect();
    let done = match &args.output {
        Some(path) => resume_point(path, &config)?,
        None => 0,
    };
    let cannot_write = |e: std::io::Error| {
        let name = args
            .output
            .as_ref()
            .map_or("stdout".to_string(), |p| p.display().to_string());
        anyhow::anyhow!("cannot write {name}: {e}")
    };
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(cannot_write)?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    if done > 0 {
        eprintln!("resuming after the {done} games already written");
    }
    let bar = progress_bar(
        games.len() as u64,
        "{bar:30} {pos}/{len} games [{elapsed}<{eta}]",
    );
    bar.set_position(done as u64);
    for batch in games[done..].chunks(BATCH_GAMES) {
        let lines = play_games(batch, &config, evaluation, &|| bar.inc(1))?;
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(cannot_write)?;
    }
    bar.finish_and_clear();
    Ok(())
}
