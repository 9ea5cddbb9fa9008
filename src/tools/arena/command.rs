//! The `oxello match` command: its options, turned into a [`MatchConfig`], and its output.

use super::player::{EngineSpec, Protocol, TimeControl};
use super::runner::{format_report, run_match, MatchConfig};
use super::stats::Sprt;
use crate::batch::openings::{choose_openings, parse_openings, BUILTIN_XOT};
use crate::batch::progress_bar;

/// `oxello match`: a match between two engines over openings, colours swapped.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// Command line of the first engine (scores are given for it).
    #[arg(long)]
    engine1: String,
    /// Command line of the second engine.
    #[arg(long)]
    engine2: String,
    /// Protocol of the first engine: gtp or nboard.
    #[arg(long, default_value = "gtp")]
    protocol1: Protocol,
    /// Protocol of the second engine: gtp or nboard.
    #[arg(long, default_value = "gtp")]
    protocol2: Protocol,
    /// Name of the first engine in the report and the games file.
    #[arg(long)]
    name1: Option<String>,
    /// Name of the second engine.
    #[arg(long)]
    name2: Option<String>,
    /// Do not send passes to the first engine (GTP engines that insert passes themselves).
    #[arg(long)]
    implicit_passes1: bool,
    /// Do not send passes to the second engine (needed for gtp-rhino).
    #[arg(long)]
    implicit_passes2: bool,
    /// Openings, one transcript a line (default: the built-in XOT list of 10,784 openings).
    #[arg(long)]
    openings_file: Option<std::path::PathBuf>,
    /// How many openings to play (each twice).
    #[arg(long, default_value_t = 50)]
    openings: usize,
    /// Play every game from the start position instead of from openings (with books, and
    /// `--book-random` for variety).
    #[arg(long, conflicts_with = "openings_file")]
    from_start: bool,
    /// Let the engines play from their opening books in games from openings (always on with
    /// --from-start). Off, oxello engines speaking GTP are told `oxello-book off`.
    #[arg(long)]
    books: bool,
    /// Seed for choosing the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Fixed depth (sent to NBoard engines; give GTP engines their depth on their command line).
    #[arg(long, conflicts_with_all = ["movetime", "tc"])]
    depth: Option<u32>,
    /// Milliseconds per move.
    #[arg(long, conflicts_with = "tc")]
    movetime: Option<u64>,
    /// Game clock: seconds of main time, optionally plus an increment (e.g. 60+0.5).
    #[arg(long)]
    tc: Option<String>,
    /// Time odds: the second engine gets this many times the first engine's time (per move,
    /// or main time and increment on the clock), e.g. 2 to play one thread against one with
    /// twice the time.
    #[arg(long, default_value_t = 1.0, conflicts_with = "depth", value_parser = parse_time_odds)]
    time_odds: f64,
    /// Milliseconds an engine may exceed its time before it loses on time.
    #[arg(long, default_value_t = 200)]
    margin: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// GGF file that every finished game is appended to, gzip-compressed if its name ends in
    /// `.gz`; a match given a file that holds some of its games plays only the others.
    #[arg(long)]
    games_file: Option<std::path::PathBuf>,
    /// Play only this shard of the openings: i/n plays those of rank i, i + n, ... (give each
    /// shard its own --games-file; the files joined report the whole match).
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// Stop on a verdict of the sequential test, e.g. "elo0=0 elo1=10 alpha=0.05 beta=0.05".
    #[arg(long)]
    sprt: Option<String>,
}

fn parse_time_odds(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|odds| odds.is_finite() && *odds > 0.0)
        .ok_or_else(|| format!("time odds are a positive factor such as 2 or 0.5, not '{text}'"))
}

/// The name of an engine: given, or the program name of its command line.
fn engine_name(name: Option<String>, command: &str) -> String {
    name.unwrap_or_else(|| {
        let program = command.split_whitespace().next().unwrap_or("engine");
        program.rsplit('/').next().unwrap_or(program).to_string()
    })
}

/// The two engines' names, told apart: the games file knows an engine only by its name, so
/// when two names are equal (a build against itself with other options) the ones taken from
/// the program get `-1` and `-2`; a name given stays as given, and two equal names given are
/// refused.
fn engine_names(args: &MatchArgs) -> anyhow::Result<[String; 2]> {
    let mut names = [
        engine_name(args.name1.clone(), &args.engine1),
        engine_name(args.name2.clone(), &args.engine2),
    ];
    if names[0] == names[1] {
        let given = [args.name1.is_some(), args.name2.is_some()];
        if given == [true, true] {
            anyhow::bail!(
                "--name1 and --name2 are both '{}': the games file tells the engines apart by \
                 name",
                names[0]
            );
        }
        for (index, (name, given)) in names.iter_mut().zip(given).enumerate() {
            if !given {
                name.push_str(&format!("-{}", index + 1));
            }
        }
    }
    Ok(names)
}

fn parse_time_control(args: &MatchArgs) -> anyhow::Result<TimeControl> {
    if let Some(depth) = args.depth {
        return Ok(TimeControl::Depth(depth));
    }
    if let Some(ms) = args.movetime {
        return Ok(TimeControl::PerMove(ms as f64 / 1000.0));
    }
    let Some(tc) = &args.tc else {
        return Ok(TimeControl::PerMove(1.0));
    };
    let (main, increment) = tc.split_once('+').unwrap_or((tc, "0"));
    let seconds = |text: &str| -> anyhow::Result<f64> {
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| anyhow::anyhow!("--tc takes seconds[+increment], not '{tc}'"))
    };
    Ok(TimeControl::Clock {
        main: seconds(main)?,
        increment: seconds(increment)?,
    })
}

/// Runs `oxello match` with a progress bar, then prints the report.
pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    let time = parse_time_control(&args)?;
    let all = match &args.openings_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("cannot read openings {}: {e}", path.display()))?;
            parse_openings(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
        None => parse_openings(BUILTIN_XOT).expect("the built-in XOT list parses"),
    };
    let sprt = args
        .sprt
        .as_deref()
        .map(Sprt::parse)
        .transpose()
        .map_err(|e| anyhow::anyhow!(e))?;
    let [name1, name2] = engine_names(&args)?;
    let config = MatchConfig {
        engines: [
            EngineSpec {
                name: name1,
                command: args.engine1,
                protocol: args.protocol1,
                implicit_passes: args.implicit_passes1,
                use_book: args.books || args.from_start,
            },
            EngineSpec {
                name: name2,
                command: args.engine2,
                protocol: args.protocol2,
                implicit_passes: args.implicit_passes2,
                use_book: args.books || args.from_start,
            },
        ],
        openings: if args.from_start {
            vec![Vec::new(); args.openings]
        } else {
            choose_openings(&all, args.openings, args.seed)
        },
        time,
        time_odds: args.time_odds,
        margin: std::time::Duration::from_millis(args.margin),
        concurrency: args.concurrency,
        games_file: args.games_file,
        sprt,
        shard: crate::batch::parse_shard(&args.shard)?,
    };
    let bar = progress_bar(
        2 * config.openings.len() as u64,
        "{bar:30} {pos}/{len} games {msg} [{elapsed}]",
    );
    let first = config.engines[0].name.clone();
    let report = run_match(&config, |report, _| {
        let o = report.tallies[0].outcomes;
        bar.set_message(format!(
            "{first} +{} ={} -{} ({:.1}%)",
            o.wins,
            o.draws,
            o.losses,
            100.0 * o.score()
        ));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    println!("{}", format_report(&config, &report));
    Ok(())
}
