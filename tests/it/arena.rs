//! The match runner: a short real match, misbehaving engines, and the statistics.

use oxello::board::Color;
use oxello::notation::GgfGame;
use oxello::tools::arena::stats::{elo_of_score, score_of_elo};
use oxello::tools::arena::{
    choose_openings, parse_openings, run_match, EngineSpec, MatchConfig, Outcomes, Protocol, Sprt,
    SprtVerdict, TimeControl,
};
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

fn oxello(args: &str) -> String {
    format!("{} {args}", env!("CARGO_BIN_EXE_oxello"))
}

/// A script of `tests/fake_engines`, checked to be there.
fn fake_engine_script(name: &str) -> PathBuf {
    let script: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "fake_engines", name]
        .iter()
        .collect();
    assert!(
        script.is_file(),
        "the fake engine script is missing at {}",
        script.display()
    );
    script
}

/// The misbehaving GTP engine of `tests/fake_engines/gtp.sh`, run by `sh`.
fn fake_engine(mode: &str) -> String {
    format!("sh {} {mode}", fake_engine_script("gtp.sh").display())
}

/// oxello with `args`, every line the harness sends it appended to `log`.
fn recorded_oxello(log: &std::path::Path, args: &str) -> String {
    let script = fake_engine_script("record.sh");
    format!("sh {} {} {}", script.display(), log.display(), oxello(args))
}

fn spec(name: &str, command: String, protocol: Protocol) -> EngineSpec {
    EngineSpec {
        name: name.to_string(),
        command,
        protocol,
        implicit_passes: false,
        use_book: false,
    }
}

/// oxello at depth 1 against `second`, one game at a time, no file, no SPRT.
fn match_config(second: EngineSpec, openings: usize, time: TimeControl) -> MatchConfig {
    MatchConfig {
        engines: [
            spec("oxello", oxello("--depth 1 --threads 1"), Protocol::Gtp),
            second,
        ],
        openings: xot(openings),
        time,
        time_odds: 1.0,
        margin: Duration::from_millis(300),
        concurrency: 1,
        games_file: None,
        sprt: None,
        shard: (0, 1),
    }
}

fn xot(count: usize) -> Vec<Vec<oxello::Move>> {
    let text = std::fs::read_to_string(crate::common::data_file("xot-openings-small.txt")).unwrap();
    choose_openings(&parse_openings(&text).unwrap(), count, 42)
}

#[test]
fn a_short_match_plays_every_game_with_consistent_totals() {
    let games_file =
        std::env::temp_dir().join(format!("oxello-arena-{}.ggf.gz", std::process::id()));
    std::fs::remove_file(&games_file).ok();
    let config = MatchConfig {
        engines: [
            spec("depth2", oxello("--depth 2 --threads 1"), Protocol::Gtp),
            spec("depth1", oxello("--depth 1 --threads 1"), Protocol::NBoard),
        ],
        openings: xot(3),
        time: TimeControl::Depth(1),
        time_odds: 1.0,
        margin: Duration::from_millis(500),
        concurrency: 2,
        games_file: Some(games_file.clone()),
        sprt: None,
        shard: (0, 1),
    };
    let mut seen = 0;
    let report = run_match(&config, |report, outcome| {
        seen += 1;
        assert_eq!(report.games, seen);
        assert!(outcome.failure.is_none(), "{:?}", outcome.failure);
    })
    .unwrap();
    assert_eq!(report.games, 6);
    let [first, second] = report.tallies;
    assert_eq!(first.outcomes.games(), 6);
    assert_eq!(first.outcomes.wins, second.outcomes.losses);
    assert_eq!(first.outcomes.draws, second.outcomes.draws);
    assert_eq!(first.disc_sum, -second.disc_sum);
    assert_eq!(first.finished_games, 6);
    // A compressed file is one gzip stream when the match ends: gzip's own reader opens it.
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&games_file).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let games: Vec<GgfGame> = text.lines().map(|l| GgfGame::parse(l).unwrap()).collect();
    assert_eq!(games.len(), 6);
    let mut disc_sum = 0i64;
    for game in &games {
        let end = game.final_position();
        assert!(end.board.is_game_over());
        let result: f64 = game.tag("RE").unwrap().parse().unwrap();
        assert_eq!(result as i32, end.black_final_score());
        disc_sum += i64::from(if game.tag("PB") == Some("depth2") {
            end.black_final_score()
        } else {
            -end.black_final_score()
        });
    }
    assert_eq!(disc_sum, first.disc_sum);
    std::fs::remove_file(&games_file).ok();
}

fn against_fake(mode: &str, time: TimeControl) -> oxello::tools::arena::MatchReport {
    let config = match_config(spec(mode, fake_engine(mode), Protocol::Gtp), 2, time);
    run_match(&config, |_, _| {}).unwrap()
}

#[test]
fn misbehaving_engines_lose_and_the_match_goes_on() {
    let per_move = TimeControl::PerMove(1.0);
    let report = against_fake("illegal", per_move);
    assert_eq!((report.games, report.tallies[0].outcomes.wins), (4, 4));
    assert_eq!(report.tallies[1].illegal_moves, 4);
    let report = against_fake("garbage", per_move);
    assert_eq!((report.games, report.tallies[0].outcomes.wins), (4, 4));
    assert_eq!(report.tallies[1].illegal_moves, 4);
    let report = against_fake("crash", per_move);
    assert_eq!((report.games, report.tallies[0].outcomes.wins), (4, 4));
    assert_eq!(report.tallies[1].crashes, 4);
    let report = against_fake("hang", TimeControl::PerMove(0.5));
    assert_eq!((report.games, report.tallies[0].outcomes.wins), (4, 4));
    assert_eq!(report.tallies[1].time_losses, 4);
    let report = against_fake("slow", TimeControl::PerMove(1.0));
    assert_eq!(
        report.tallies[1].time_losses, 4,
        "two seconds on a one-second move"
    );
    assert_eq!(
        report.tallies[1].illegal_moves, 0,
        "time is checked before the move"
    );
    assert_eq!(
        report.tallies[0].time_losses + report.tallies[0].crashes + report.tallies[0].illegal_moves,
        0
    );
}

#[test]
fn time_odds_give_the_second_engine_its_own_time() {
    let slow = spec("slow", fake_engine("slow"), Protocol::Gtp);
    let config = MatchConfig {
        time_odds: 2.5,
        ..match_config(slow, 2, TimeControl::PerMove(1.0))
    };
    let report = run_match(&config, |_, _| {}).unwrap();
    let second = report.tallies[1];
    assert_eq!(
        (second.time_losses, second.illegal_moves),
        (0, 4),
        "two seconds are within two and a half, so its move is judged (and is illegal)"
    );
}

#[test]
fn games_under_time_odds_record_each_players_clock() {
    let games_file =
        std::env::temp_dir().join(format!("oxello-arena-odds-{}.ggf", std::process::id()));
    std::fs::remove_file(&games_file).ok();
    let second = spec("second", oxello("--depth 1 --threads 1"), Protocol::NBoard);
    let clock = TimeControl::Clock {
        main: 30.0,
        increment: 0.5,
    };
    let config = MatchConfig {
        time_odds: 2.0,
        games_file: Some(games_file.clone()),
        ..match_config(second, 1, clock)
    };
    let report = run_match(&config, |_, outcome| {
        assert!(outcome.failure.is_none(), "{:?}", outcome.failure)
    })
    .unwrap();
    assert_eq!(report.games, 2);
    let text = std::fs::read_to_string(&games_file).unwrap();
    let mut first_colours = Vec::new();
    for line in text.lines() {
        let game = GgfGame::parse(line).unwrap();
        assert_eq!(game.tag("TI"), None, "each player has a clock of its own");
        let first = if game.tag("PB") == Some("oxello") {
            Color::Black
        } else {
            Color::White
        };
        let first_clock = game.clock(first).unwrap().unwrap();
        let second_clock = game.clock(first.other()).unwrap().unwrap();
        assert_eq!((first_clock.main, first_clock.increment), (30.0, 0.5));
        assert_eq!((second_clock.main, second_clock.increment), (60.0, 1.0));
        first_colours.push(first);
    }
    assert_eq!(first_colours, [Color::Black, Color::White]);
    std::fs::remove_file(&games_file).ok();
}

#[test]
fn an_engine_that_cannot_start_loses_every_game() {
    let ghost = spec("ghost", "/nonexistent/engine".to_string(), Protocol::NBoard);
    let config = match_config(ghost, 1, TimeControl::Depth(1));
    let report = run_match(&config, |_, _| {}).unwrap();
    assert_eq!(report.tallies[0].outcomes.wins, 2);
    assert_eq!(report.tallies[1].crashes, 2);
}

#[test]
fn elo_and_likelihood_of_superiority_match_known_values() {
    assert!((score_of_elo(0.0) - 0.5).abs() < 1e-12);
    // 75% is 400 log10(3) = 190.85 Elo; 10^(1/4) odds (64.0%) are 100 Elo.
    assert!((elo_of_score(0.75) - 190.848_501_9).abs() < 1e-6);
    assert!((score_of_elo(100.0) - 0.640_065_0).abs() < 1e-6);
    let even = Outcomes {
        wins: 10,
        draws: 5,
        losses: 10,
    };
    assert!((even.elo().unwrap().0).abs() < 1e-9);
    assert!((even.likelihood_of_superiority() - 0.5).abs() < 1e-9);
    // 10 wins, no losses: LOS = (1 + erf(10 / sqrt(20))) / 2 = 0.9992173.
    let clean = Outcomes {
        wins: 10,
        draws: 0,
        losses: 0,
    };
    assert!((clean.likelihood_of_superiority() - 0.999_217_3).abs() < 1e-6);
    assert!(clean.elo().is_none(), "no finite Elo at 100%");
    // 60/20/20: score 0.7 (147.2 Elo); per-game variance 0.16, so the score's 95% margin is
    // 1.96 * sqrt(0.16 / 100) = 0.0784 and the interval [0.6216, 0.7784] gives [86.2, 218.3].
    let (elo, low, high) = Outcomes {
        wins: 60,
        draws: 20,
        losses: 20,
    }
    .elo()
    .unwrap();
    assert!((elo - 147.19).abs() < 0.01, "{elo}");
    assert!(
        (low - 86.23).abs() < 0.01 && (high - 218.25).abs() < 0.01,
        "{low} {high}"
    );
}

#[test]
fn sprt_bounds_and_log_likelihood_ratio() {
    let sprt = Sprt::parse("elo0=0 elo1=10 alpha=0.05 beta=0.05").unwrap();
    let (lower, upper) = sprt.bounds();
    // ln(0.05 / 0.95) = -2.944439
    assert!((lower + 2.944_439).abs() < 1e-6 && (upper - 2.944_439).abs() < 1e-6);
    // The LLR is that of two normal laws N(s1, var/n) and N(s0, var/n) at the mean score.
    let outcomes = Outcomes {
        wins: 530,
        draws: 300,
        losses: 470,
    };
    let n = 1300.0;
    let m = (530.0 + 150.0) / n;
    let var = (530.0 * (1.0 - m) * (1.0 - m) + 300.0 * (0.5 - m) * (0.5 - m) + 470.0 * m * m) / n;
    let (s0, s1): (f64, f64) = (0.5, 1.0 / (1.0 + 10f64.powf(-10.0 / 400.0)));
    let expected = n * ((m - s0).powi(2) - (m - s1).powi(2)) / (2.0 * var);
    assert!((sprt.llr(&outcomes) - expected).abs() < 1e-9);
    assert_eq!(
        sprt.verdict(&Outcomes {
            wins: 600,
            draws: 200,
            losses: 200
        }),
        SprtVerdict::AcceptH1
    );
    assert_eq!(
        sprt.verdict(&Outcomes {
            wins: 200,
            draws: 200,
            losses: 600
        }),
        SprtVerdict::AcceptH0
    );
    assert_eq!(
        sprt.verdict(&Outcomes {
            wins: 5,
            draws: 0,
            losses: 5
        }),
        SprtVerdict::Continue
    );
    // A first drawn game, or a few games all won, decide nothing.
    for (wins, draws) in [(0, 1), (0, 3), (3, 0)] {
        let few = Outcomes {
            wins,
            draws,
            losses: 0,
        };
        assert_eq!(sprt.verdict(&few), SprtVerdict::Continue, "{few:?}");
    }
    assert!(Sprt::parse("elo0=10 elo1=0 alpha=0.05 beta=0.05").is_err());
    assert!(Sprt::parse("elo0=0 alpha=0.05 beta=0.05").is_err());
    assert!(Sprt::parse("elo0=0 elo1=10 alpha=0.6").is_err());
    // The error rates default to 5%.
    assert_eq!(
        Sprt::parse("elo0=0 elo1=10").unwrap(),
        Sprt::parse("elo1=10 elo0=0 alpha=0.05 beta=0.05").unwrap()
    );
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let illegal = spec("illegal", fake_engine("illegal"), Protocol::Gtp);
    let config = MatchConfig {
        sprt: Some(Sprt::parse("elo0=0 elo1=50 alpha=0.05 beta=0.05").unwrap()),
        ..match_config(illegal, 40, TimeControl::Depth(1))
    };
    let report = run_match(&config, |_, _| {}).unwrap();
    assert!(report.games < 80, "played all {} games", report.games);
    assert_eq!(report.sprt.unwrap().1, SprtVerdict::AcceptH1);
}

#[test]
fn shards_join_into_the_whole_match_and_a_match_resumes_from_its_file() {
    let dir = std::env::temp_dir().join(format!("oxello-arena-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str| dir.join(name);
    let config = |shard: (u64, u64), games_file: &str| MatchConfig {
        engines: [
            spec("depth2", oxello("--depth 2 --threads 1"), Protocol::Gtp),
            spec("depth1", oxello("--depth 1 --threads 1"), Protocol::Gtp),
        ],
        openings: xot(4),
        time: TimeControl::Depth(1),
        time_odds: 1.0,
        margin: Duration::from_millis(500),
        concurrency: 1,
        games_file: Some(file(games_file)),
        sprt: None,
        shard,
    };
    let lines = |name: &str| std::fs::read_to_string(file(name)).unwrap().lines().count();
    let mut reports = Vec::new();
    for (shard, name) in [((0, 2), "shard0.ggf"), ((1, 2), "shard1.ggf")] {
        std::fs::remove_file(file(name)).ok();
        let report = run_match(&config(shard, name), |_, _| {}).unwrap();
        assert_eq!((report.games, report.planned), (4, 4));
        assert_eq!(lines(name), 4);
        reports.push(report);
    }
    // The shards' files joined: the whole match is reported and no game is played again.
    let joined = [
        std::fs::read_to_string(file("shard0.ggf")).unwrap(),
        std::fs::read_to_string(file("shard1.ggf")).unwrap(),
    ]
    .concat();
    std::fs::write(file("all.ggf"), &joined).unwrap();
    let whole = run_match(&config((0, 1), "all.ggf"), |_, _| {}).unwrap();
    assert_eq!((whole.games, whole.planned), (8, 8));
    assert_eq!(lines("all.ggf"), 8);
    for engine in 0..2 {
        let played: Vec<u32> = reports
            .iter()
            .map(|r| r.tallies[engine].outcomes.wins)
            .collect();
        assert_eq!(
            whole.tallies[engine].outcomes.wins,
            played.iter().sum::<u32>()
        );
        let discs: i64 = reports.iter().map(|r| r.tallies[engine].disc_sum).sum();
        assert_eq!(whole.tallies[engine].disc_sum, discs);
    }
    // One shard's file given to the whole match: it plays only the other shard's games.
    // A run killed while writing left half a line: the resumed run drops it and starts the
    // next game on a line of its own.
    let mut cut = std::fs::read_to_string(file("shard0.ggf")).unwrap();
    cut.push_str("(;GM[Othello]PC[oxello match]PB[depth2]PW[dep");
    std::fs::write(file("resumed.ggf"), cut).unwrap();
    let mut new_games = 0;
    let resumed = run_match(&config((0, 1), "resumed.ggf"), |report, _| {
        new_games = report.games;
    })
    .unwrap();
    assert_eq!((resumed.games, new_games), (8, 8));
    assert_eq!(lines("resumed.ggf"), 8);
    let text = std::fs::read_to_string(file("resumed.ggf")).unwrap();
    let parsed = text.lines().filter(|l| GgfGame::parse(l).is_ok()).count();
    assert_eq!(parsed, 8);
    std::fs::remove_dir_all(&dir).ok();
}

/// The games an NBoard engine was sent with `set game`, in order.
fn games_sent(nboard: &[String]) -> Vec<GgfGame> {
    nboard
        .iter()
        .filter_map(|l| l.strip_prefix("set game "))
        .map(|g| GgfGame::parse(g).unwrap())
        .collect()
}

/// Plays one opening (two games) between oxello over GTP and oxello over NBoard under `time`,
/// both recorded; returns the report and the lines each was sent.
fn recorded_match(
    time: TimeControl,
    tag: &str,
) -> (oxello::tools::arena::MatchReport, [Vec<String>; 2]) {
    let logs = ["gtp", "nboard"].map(|protocol| {
        std::env::temp_dir().join(format!(
            "oxello-wire-{tag}-{protocol}-{}.txt",
            std::process::id()
        ))
    });
    for log in &logs {
        std::fs::remove_file(log).ok();
    }
    let config = MatchConfig {
        engines: [
            spec(
                "gtp",
                recorded_oxello(&logs[0], "--threads 1 --hash 16"),
                Protocol::Gtp,
            ),
            spec(
                "nboard",
                recorded_oxello(&logs[1], "--threads 1 --hash 16"),
                Protocol::NBoard,
            ),
        ],
        concurrency: 2,
        margin: Duration::from_millis(500),
        ..match_config(spec("unused", String::new(), Protocol::Gtp), 1, time)
    };
    let report = run_match(&config, |_, outcome| {
        assert!(outcome.failure.is_none(), "{:?}", outcome.failure)
    })
    .unwrap();
    let lines = logs.map(|log| {
        let text = std::fs::read_to_string(&log).unwrap();
        std::fs::remove_file(&log).ok();
        text.lines().map(str::to_string).collect()
    });
    (report, lines)
}

#[test]
fn engines_get_fractional_clocks_and_the_increment_on_the_wire() {
    let (report, [gtp, nboard]) = recorded_match(
        TimeControl::Clock {
            main: 1.5,
            increment: 0.05,
        },
        "clock",
    );
    assert_eq!(report.games, 2);
    assert!(report.tallies.iter().all(|t| t.clock_games == 2));
    // GTP: the increment by kgs-time_settings, the clock left with its fraction before every
    // move.
    assert_eq!(
        gtp.iter()
            .filter(|l| *l == "kgs-time_settings fischer 1.500 0.05")
            .count(),
        2,
        "{gtp:?}"
    );
    let time_left: Vec<f64> = gtp
        .iter()
        .filter_map(|l| l.strip_prefix("time_left "))
        .map(|rest| rest.split(' ').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(time_left.len() >= 20, "{gtp:?}");
    assert!(time_left.iter().all(|t| *t > 0.0 && *t < 1.5 + 30.0 * 0.05));
    assert!(time_left.iter().any(|t| t.fract() != 0.0));
    // NBoard: the record's clock with its increment, and the move times with their fractions.
    let games = games_sent(&nboard);
    assert!(games.len() >= 20);
    for game in &games {
        let clock = game.clock(Color::Black).unwrap().unwrap();
        assert_eq!((clock.main, clock.increment), (1.5, 0.05));
    }
    let last = games.last().unwrap();
    assert!(last
        .moves
        .iter()
        .any(|m| m.seconds.is_some_and(|s| s.fract() != 0.0)));
}

#[test]
fn a_time_per_move_is_no_clock_an_engine_can_overrun() {
    let (report, [gtp, nboard]) = recorded_match(TimeControl::PerMove(0.05), "per-move");
    assert_eq!(report.games, 2);
    assert_eq!(
        gtp.iter()
            .filter(|l| *l == "time_settings 0 0.050 1")
            .count(),
        2,
        "{gtp:?}"
    );
    assert!(!gtp.iter().any(|l| l.starts_with("time_left")));
    // NBoard has no time per move: each request carries a clock of just the move's time.
    let games = games_sent(&nboard);
    assert!(games.len() >= 20);
    for game in &games {
        let to_move = game.final_position().side_to_move;
        assert_eq!(game.time_left(to_move), Some(0.05));
    }
}
