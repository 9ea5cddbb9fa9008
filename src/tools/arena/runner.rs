//! The match itself: games from the openings on `--concurrency` workers, each game appended to
//! the record as it ends, the tally of both engines and the report.

use super::game::{play_game, GameOutcome, Job, Seats};
use super::player::{EngineSpec, Failure, TimeControl};
use super::stats::{Outcomes, Sprt, SprtVerdict};
use super::{player, records, resume};
use crate::board::{Color, Move};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The first and the second engine; scores are given for the first.
    pub engines: [EngineSpec; 2],
    /// Openings, each played twice.
    pub openings: Vec<Vec<Move>>,
    /// The first engine's time control.
    pub time: TimeControl,
    /// The second engine's time as a multiple of the first's (1 for an even match): time
    /// odds, e.g. to weigh a second thread against twice the time.
    pub time_odds: f64,
    /// Time an engine may go over its limit before it loses on time.
    pub margin: Duration,
    pub concurrency: usize,
    /// Where finished games are appended, one GGF game a line (gzip-compressed if the name
    /// ends in `.gz`).
    pub games_file: Option<PathBuf>,
    pub sprt: Option<Sprt>,
    /// This run's share of the openings: rank i, i + n, ... of `(i, n)`.
    pub shard: (u64, u64),
}

/// One engine's side of the results.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EngineTally {
    pub outcomes: Outcomes,
    /// Sum of its final disc differences over the games played to the end.
    pub disc_sum: i64,
    pub finished_games: u32,
    pub time_losses: u32,
    pub illegal_moves: u32,
    pub crashes: u32,
    /// Over the games played to the end under a clock: how many, the sum of the shares of
    /// the clock's time (main time and increments) left at the end, and the least seconds
    /// left.
    pub clock_games: u32,
    pub clock_left_share_sum: f64,
    pub clock_left_least: Option<f64>,
}

impl EngineTally {
    pub fn mean_discs(&self) -> f64 {
        self.disc_sum as f64 / f64::from(self.finished_games.max(1))
    }

    /// The mean share of its clock the engine had left at the end of a game, if it played
    /// under a clock.
    pub fn mean_clock_left(&self) -> Option<f64> {
        (self.clock_games > 0).then(|| self.clock_left_share_sum / f64::from(self.clock_games))
    }

    /// Counts the clock `color` had left at the end of a game played to the end.
    fn count_clock(&mut self, record: &crate::notation::GgfGame, color: Color) {
        let Some(clock) = record.clock(color).ok().flatten() else {
            return;
        };
        let (Some(left), given) = (record.time_left(color), record.time_given(&clock, color))
        else {
            return;
        };
        if given <= 0.0 {
            return;
        }
        self.clock_games += 1;
        self.clock_left_share_sum += left / given;
        self.clock_left_least = Some(self.clock_left_least.map_or(left, |least| least.min(left)));
    }
}

/// The state of a match, after each game.
#[derive(Clone, Debug, Default)]
pub struct MatchReport {
    pub tallies: [EngineTally; 2],
    pub games: u32,
    pub planned: u32,
    pub sprt: Option<(f64, SprtVerdict)>,
}

fn tally(report: &mut MatchReport, job: Job, outcome: &GameOutcome) {
    for engine in 0..2 {
        let color = if (engine == 0) == job.first_is_black {
            Color::Black
        } else {
            Color::White
        };
        let t = &mut report.tallies[engine];
        match outcome.winner {
            None => t.outcomes.draws += 1,
            Some(winner) if winner == color => t.outcomes.wins += 1,
            Some(_) => t.outcomes.losses += 1,
        }
        if let Some(black_score) = outcome.black_score {
            t.count_clock(&outcome.record, color);
            t.finished_games += 1;
            t.disc_sum += i64::from(if color == Color::Black {
                black_score
            } else {
                -black_score
            });
        }
        if let Some((loser, failure)) = &outcome.failure {
            if *loser == color {
                match failure {
                    Failure::Time => t.time_losses += 1,
                    Failure::Illegal(_) | Failure::Garbage(_) => t.illegal_moves += 1,
                    Failure::Crash(_) => t.crashes += 1,
                }
            }
        }
    }
    report.games += 1;
}

/// Plays the match; `on_game` sees the report after every game. Stops early on an SPRT verdict.
pub fn run_match(
    config: &MatchConfig,
    mut on_game: impl FnMut(&MatchReport, &GameOutcome),
) -> anyhow::Result<MatchReport> {
    let (shard, shards) = config.shard;
    let jobs: Vec<Job> = (0..config.openings.len())
        .filter(|opening| *opening as u64 % shards == shard)
        .flat_map(|opening| {
            [true, false].map(|first_is_black| Job {
                opening,
                first_is_black,
            })
        })
        .collect();
    let mut report = MatchReport {
        planned: jobs.len() as u32,
        ..MatchReport::default()
    };
    let records = match &config.games_file {
        Some(path) => records::read_records(path)?,
        None => Vec::new(),
    };
    let names = [
        config.engines[0].name.as_str(),
        config.engines[1].name.as_str(),
    ];
    let (played, jobs) = resume::split_played(jobs, &config.openings, names, &records);
    if !played.is_empty() {
        log::info!(
            "{} games of this match are in the games file already",
            played.len()
        );
    }
    let stop = AtomicBool::new(false);
    let mut take = |report: &mut MatchReport, job: Job, outcome: &GameOutcome| {
        tally(report, job, outcome);
        if let Some(sprt) = &config.sprt {
            let outcomes = report.tallies[0].outcomes;
            let verdict = sprt.verdict(&outcomes);
            if report.sprt.is_none_or(|(_, v)| v == SprtVerdict::Continue) {
                report.sprt = Some((sprt.llr(&outcomes), verdict));
            }
            if verdict != SprtVerdict::Continue {
                stop.store(true, Ordering::Relaxed);
            }
        }
        on_game(report, outcome);
    };
    for (job, outcome) in &played {
        take(&mut report, *job, outcome);
    }
    let mut games_file = match &config.games_file {
        Some(path) => Some(records::GamesFile::open(path)?),
        None => None,
    };
    let (job_sender, job_receiver) = crossbeam_channel::unbounded();
    for job in jobs {
        job_sender.send(job).expect("the receiver is alive");
    }
    drop(job_sender);
    let (result_sender, result_receiver) = crossbeam_channel::unbounded();
    let times = [config.time, config.time.scaled(config.time_odds)];
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..config.concurrency.max(1) {
            let (jobs, results, stop) = (job_receiver.clone(), result_sender.clone(), &stop);
            scope.spawn(move || {
                let mut players: [Option<player::Player>; 2] = [None, None];
                for job in jobs.iter() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let [first, second] = &mut players;
                    let (black, white) = if job.first_is_black { (0, 1) } else { (1, 0) };
                    let specs = [&config.engines[black], &config.engines[white]];
                    let seats_players = if job.first_is_black {
                        [first, second]
                    } else {
                        [second, first]
                    };
                    let mut seats = Seats {
                        specs,
                        players: seats_players,
                    };
                    let outcome = play_game(
                        &mut seats,
                        &config.openings[job.opening],
                        [times[black], times[white]],
                        config.margin,
                    );
                    if results.send((job, outcome)).is_err() {
                        break;
                    }
                }
                for player in players.into_iter().flatten() {
                    player.quit();
                }
            });
        }
        drop(result_sender);
        for (job, outcome) in result_receiver.iter() {
            if let Some(file) = games_file.as_mut() {
                file.append(&outcome.record)?;
            }
            take(&mut report, job, &outcome);
        }
        Ok(())
    })?;
    if let Some(file) = games_file {
        file.finish()?;
    }
    Ok(report)
}

/// The final table: one row per engine, then the SPRT verdict if one was run.
pub fn format_report(config: &MatchConfig, report: &MatchReport) -> String {
    let mut lines = vec![format!(
        "{:<16} {:>5} {:>5} {:>5} {:>7} {:>22} {:>6} {:>7} {:>5} {:>7} {:>7}",
        "engine",
        "wins",
        "draws",
        "losses",
        "score",
        "elo (95%)",
        "LOS",
        "discs",
        "time",
        "illegal",
        "crashes"
    )];
    for (spec, tally) in config.engines.iter().zip(&report.tallies) {
        let o = tally.outcomes;
        let elo = o.elo().map_or("-".to_string(), |(elo, low, high)| {
            format!("{elo:+.0} [{low:+.0}, {high:+.0}]")
        });
        lines.push(format!(
            "{:<16} {:>5} {:>5} {:>5} {:>6.1}% {:>22} {:>5.1}% {:>+7.2} {:>5} {:>7} {:>7}",
            spec.name,
            o.wins,
            o.draws,
            o.losses,
            100.0 * o.score(),
            elo,
            100.0 * o.likelihood_of_superiority(),
            tally.mean_discs(),
            tally.time_losses,
            tally.illegal_moves,
            tally.crashes
        ));
    }
    for (spec, tally) in config.engines.iter().zip(&report.tallies) {
        if let (Some(mean), Some(least)) = (tally.mean_clock_left(), tally.clock_left_least) {
            lines.push(format!(
                "{}: {:.1}% of its clock (main time and increments) left at the end on average, \
                 {least:.2} s at least, over {} games played out",
                spec.name,
                100.0 * mean,
                tally.clock_games
            ));
        }
    }
    lines.push(format!(
        "{} of {} games played",
        report.games, report.planned
    ));
    if let (Some(sprt), Some((llr, verdict))) = (&config.sprt, report.sprt) {
        let (lower, upper) = sprt.bounds();
        let text = match verdict {
            SprtVerdict::AcceptH1 => format!(
                "H1 accepted: {} is at least {} Elo stronger",
                config.engines[0].name, sprt.elo1
            ),
            SprtVerdict::AcceptH0 => format!(
                "H0 accepted: {} is not {} Elo stronger",
                config.engines[0].name, sprt.elo1
            ),
            SprtVerdict::Continue => "no verdict yet".to_string(),
        };
        lines.push(format!(
            "SPRT elo0={} elo1={}: LLR {llr:.2} in [{lower:.2}, {upper:.2}]: {text}",
            sprt.elo0, sprt.elo1
        ));
    }
    lines.join("\n")
}
