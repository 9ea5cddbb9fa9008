//! `oxello selfplay`: games from randomised openings, searched at a fixed depth and played
//! exactly from a number of empties on, written as `<transcript> <black final score>` lines
//! (the format `oxello train` reads). Game `g` of a run belongs to shard `g mod n`, and its
//! random opening depends only on the seed and `g`, so shards are disjoint and reproducible
//! and their outputs can simply be concatenated.

use super::{map_on_engines, parse_shard, progress_bar};
use crate::board::{Move, Position, Squares};
use crate::engine::{Engine, EngineOptions};
use crate::eval::Evaluation;
use crate::notation::format_transcript;
use crate::random::seeded_hash;
use crate::search::{Limits, SearchOptions};

/// Selfplay settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfplayConfig {
    /// Games in the whole run (over all shards).
    pub games: u64,
    /// Midgame search depth.
    pub depth: u32,
    /// Random moves at the start of each game.
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

/// Plays game number `game`: its transcript and Black's final disc difference.
pub fn play_game(engine: &mut Engine, config: &SelfplayConfig, game: u64) -> (Vec<Move>, i32) {
    let mut position = Position::START;
    let mut moves = Vec::new();
    let mut random = seeded_hash(config.seed, game);
    engine.new_game(position);
    while !position.board.is_game_over() {
        let legal = position.board.moves();
        let mv = if legal == 0 {
            Move::Pass
        } else if (moves.len() as u32) < config.random_plies {
            random = seeded_hash(random, moves.len() as u64);
            let pick = (random % u64::from(legal.count_ones())) as usize;
            Move::Play(Squares(legal).nth(pick).expect("pick is below the count") as u8)
        } else {
            let empties = position.board.empty_count();
            let limits = Limits {
                depth: (empties > config.exact_empties).then_some(config.depth),
                ..Limits::default()
            };
            let result = engine.search(&limits, SearchOptions::default(), &mut |_| {});
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
    let options = EngineOptions {
        threads: 1,
        hash_mib: 16,
    };
    map_on_engines(
        &games,
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

/// `oxello selfplay`: training games against itself from random openings.
#[derive(clap::Args, Debug)]
pub struct SelfplayArgs {
    /// Games in the whole run, over all shards.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Midgame depth.
    #[arg(long, default_value_t = 8)]
    depth: u32,
    /// Random moves at the start of each game.
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
    /// Output file (one game a line); stdout when absent.
    #[arg(long)]
    output: Option<std::path::PathBuf>,
}

/// Runs `oxello selfplay`, writing the games to the output file or stdout.
pub fn run(args: &SelfplayArgs, evaluation: &Evaluation) -> anyhow::Result<()> {
    let config = SelfplayConfig {
        games: args.games,
        depth: args.depth,
        random_plies: args.random_plies,
        exact_empties: args.exact_empties,
        seed: args.seed,
        shard: parse_shard(&args.shard)?,
    };
    let planned = config.shard_games().count();
    let bar = progress_bar(planned as u64, "{bar:30} {pos}/{len} games [{elapsed}]");
    let lines = selfplay(&config, evaluation, &|| bar.inc(1))?;
    bar.finish_and_clear();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}
