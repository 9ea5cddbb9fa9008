//! The tools run from a fresh clone: `match` finds its built-in openings from any directory,
//! `solve` reads the repository's FFO files, and `train` and `eval-error` read game files and
//! data directories, refusing missing or unusable ones with a clear message.

use crate::common::cli::{assert_fails_with, assert_prints, oxello_in, scratch_dir, text};

use oxello::eval::{Evaluation, NetworkWeights, PatternEvaluator, ProbCutTable};
use oxello::training::dataset::label_examples;
use std::path::{Path, PathBuf};

#[test]
fn match_finds_its_openings_from_any_directory() {
    let dir = scratch_dir("match");
    let engine = format!("{} --depth 1 --threads 1", env!("CARGO_BIN_EXE_oxello"));
    let out = oxello_in(
        &dir,
        &[
            "match",
            "--engine1",
            &engine,
            "--engine2",
            &engine,
            "--openings",
            "2",
        ],
    );
    assert_prints(&out, "4 of 4 games played");
    let missing = oxello_in(
        &dir,
        &[
            "match",
            "--engine1",
            &engine,
            "--engine2",
            &engine,
            "--openings-file",
            "no-such-openings.txt",
        ],
    );
    assert_fails_with(&missing, "cannot read openings no-such-openings.txt");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_match_of_one_program_against_itself_records_two_names_and_resumes() {
    let dir = scratch_dir("match-names");
    let program = env!("CARGO_BIN_EXE_oxello");
    let engine1 = format!("{program} --depth 1 --threads 1");
    let engine2 = format!("{program} --depth 2 --threads 1");
    let args = [
        "match",
        "--engine1",
        &engine1,
        "--engine2",
        &engine2,
        "--openings",
        "2",
        "--games-file",
        "games.ggf",
    ];
    assert_prints(&oxello_in(&dir, &args), "4 of 4 games played");
    let records = std::fs::read_to_string(dir.join("games.ggf")).unwrap();
    assert_eq!(records.lines().count(), 4);
    for record in records.lines() {
        let names = (
            record.contains("PB[oxello-1]"),
            record.contains("PW[oxello-2]"),
        );
        let swapped = (
            record.contains("PB[oxello-2]"),
            record.contains("PW[oxello-1]"),
        );
        assert!(names == (true, true) || swapped == (true, true), "{record}");
    }
    assert_prints(&oxello_in(&dir, &args), "4 of 4 games played");
    assert_eq!(
        std::fs::read_to_string(dir.join("games.ggf")).unwrap(),
        records,
        "a resumed match plays nothing more"
    );
    let same_names = oxello_in(
        &dir,
        &[
            "match",
            "--engine1",
            &engine1,
            "--engine2",
            &engine2,
            "--name1",
            "a",
            "--name2",
            "a",
        ],
    );
    assert_fails_with(&same_names, "--name1 and --name2 are both 'a'");
    let one_given = [&args[..args.len() - 1], &["named.ggf", "--name1", "oxello"]].concat();
    assert_prints(&oxello_in(&dir, &one_given), "4 of 4 games played");
    let records = std::fs::read_to_string(dir.join("named.ggf")).unwrap();
    assert_eq!(records.lines().count(), 4);
    for record in records.lines() {
        assert!(
            record.contains("[oxello]") && record.contains("[oxello-2]"),
            "{record}"
        );
        assert!(!record.contains("oxello-1"), "{record}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn solve_reads_the_repository_suites() {
    let suite = crate::common::data_file("fforum-1-19.obf");
    let out = oxello_in(
        &scratch_dir("solve"),
        &[
            "solve",
            suite.to_str().unwrap(),
            "--threads",
            "1",
            "--hash",
            "16",
        ],
    );
    assert_prints(&out, "total: 19/19 right");
}

#[test]
fn train_reads_a_data_directory_and_game_files() {
    let dir = scratch_dir("train");
    let weights = dir.join("fixtures.weights");
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let selfplay = crate::common::fixture("selfplay.txt");
    let out = oxello_in(
        &dir,
        &[
            "train",
            "--data",
            fixtures.to_str().unwrap(),
            selfplay.to_str().unwrap(),
            "--epochs",
            "1",
            "--output",
            weights.to_str().unwrap(),
        ],
    );
    assert_prints(&out, "weights written to");
    // 896 + 318 WTHOR games, minus those stopped early, and the 12 selfplay games.
    let stderr = text(&out.stderr);
    let games: usize = stderr
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no game count in: {stderr}"));
    assert!((1100..=896 + 318 + 12).contains(&games), "{stderr}");
    assert!(stderr.contains("from 3 files"), "{stderr}");
    Evaluation::from_name(weights.to_str().unwrap()).expect("the written weights load");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn train_without_games_or_with_an_empty_directory_is_refused() {
    let dir = scratch_dir("train-refused");
    let none = oxello_in(&dir, &["train"]);
    assert_fails_with(&none, "--data");
    let empty = oxello_in(&dir, &["train", "--data", "."]);
    assert_fails_with(&empty, "holds no .wtb files");
    let truncated = dir.join("truncated.wtb");
    let bytes = std::fs::read(crate::common::fixture("WTH_2020.wtb")).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() - 30]).unwrap();
    let out = oxello_in(&dir, &["train", "truncated.wtb"]);
    assert_fails_with(&out, "truncated.wtb");
    std::fs::remove_dir_all(&dir).ok();
}

/// A recipe pins every training setting: an option it would ignore is refused, so that
/// `--recipe builtin --seed 2` cannot pass for another network; and no tool starts on 0
/// threads. Each refusal comes before any training.
#[test]
fn train_network_refuses_what_a_recipe_would_ignore_and_tools_refuse_no_threads() {
    let dir = scratch_dir("recipe-refused");
    let recipe = ["train-network", "--recipe", "builtin", "--repository"];
    let root = env!("CARGO_MANIFEST_DIR");
    for (extra, message) in [
        (&["--seed", "2"][..], "'--seed <SEED>'"),
        (&["--epochs", "5"][..], "'--epochs <EPOCHS>'"),
        (
            &["--label-lambda", "0.5"][..],
            "'--label-lambda <LABEL_LAMBDA>'",
        ),
        (
            &["--eval", "linear"][..],
            "--eval linear does not apply with --recipe",
        ),
        (
            &["--add-labels", "no-such.lgz"][..],
            "no-such.lgz is not a labels file",
        ),
    ] {
        let args: Vec<&str> = recipe
            .iter()
            .copied()
            .chain([root])
            .chain(extra.iter().copied())
            .collect();
        let out = oxello_in(&dir, &args);
        assert_fails_with(&out, message);
    }
    for (args, message) in [
        (
            &["train-network", "--data-share", "2"][..],
            "--recipe <RECIPE>",
        ),
        (
            &["train-network", "--recipe", "builtin", "--data-share", "0"][..],
            "'--data-share <DATA_SHARE>'",
        ),
        (
            &[
                "train-network",
                "--add-labels",
                "data/training/xot-d0-e20-s0of64.lgz",
            ][..],
            "--recipe <RECIPE>",
        ),
    ] {
        assert_fails_with(&oxello_in(&dir, args), message);
    }
    for args in [
        &["--threads", "0", "train-network", "--recipe", "builtin"][..],
        &["solve", "--threads", "0", "data/fforum-1-19.obf"][..],
    ] {
        assert_fails_with(&oxello_in(&dir, args), "threads must be between 1 and 256");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn eval_error_reads_selfplay_transcripts() {
    let selfplay = crate::common::fixture("selfplay.txt");
    let out = oxello_in(
        &scratch_dir("eval-error"),
        &["eval-error", selfplay.to_str().unwrap()],
    );
    assert_prints(&out, "(12 games)");
}

#[test]
fn selfplay_resumes_its_file_and_refuses_another_runs() {
    let dir = scratch_dir("selfplay-resume");
    let selfplay = |file: &str, games: &str, seed: &str| {
        oxello_in(
            &dir,
            &[
                "selfplay",
                "--games",
                games,
                "--depth",
                "1",
                "--random-plies",
                "8",
                "--exact-empties",
                "6",
                "--seed",
                seed,
                "--output",
                file,
            ],
        )
    };
    let read = |file: &str| std::fs::read_to_string(dir.join(file)).unwrap();
    assert!(selfplay("whole.txt", "80", "3").status.success());
    let whole = read("whole.txt");
    assert_eq!(whole.lines().count(), 80);

    // An interrupted run: complete lines and half of the next one.
    let cut = whole.match_indices('\n').nth(9).unwrap().0 + 20;
    std::fs::write(dir.join("resumed.txt"), &whole[..cut]).unwrap();
    let resumed = selfplay("resumed.txt", "80", "3");
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert!(text(&resumed.stderr).contains("resuming after the 10 games already written"));
    assert_eq!(read("resumed.txt"), whole);

    // A larger run extends a finished file with the games a fresh run would play.
    assert!(selfplay("resumed.txt", "100", "3").status.success());
    assert!(selfplay("fresh.txt", "100", "3").status.success());
    assert_eq!(read("resumed.txt"), read("fresh.txt"));
    assert!(read("resumed.txt").starts_with(&whole));

    assert_fails_with(
        &selfplay("whole.txt", "80", "4"),
        "whole.txt line 1: this is not game 0 of seed 4",
    );
    assert_fails_with(
        &selfplay("whole.txt", "50", "3"),
        "whole.txt line 51: the file holds more games than this shard's 50",
    );
    std::fs::write(dir.join("bad.txt"), "f5d6c3 +4\n").unwrap();
    assert_fails_with(
        &selfplay("bad.txt", "80", "3"),
        "bad.txt line 1: 'f5d6c3 +4' is not a finished game with its score",
    );
    assert_eq!(read("whole.txt"), whole);

    // Games opened by XOT lines: a file begun with random openings is not resumed with lines.
    let xot = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/xot-openings-small.txt");
    let with_lines = |file: &str| {
        oxello_in(
            &dir,
            &[
                "selfplay",
                "--games",
                "4",
                "--depth",
                "1",
                "--random-plies",
                "0",
                "--exact-empties",
                "6",
                "--seed",
                "3",
                "--output",
                file,
                "--openings",
                xot.to_str().unwrap(),
            ],
        )
    };
    assert!(with_lines("xot.txt").status.success());
    let first_lines: Vec<String> = std::fs::read_to_string(&xot)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    for game in read("xot.txt").lines() {
        assert!(
            first_lines
                .iter()
                .any(|line| game.starts_with(line.as_str())),
            "{game}"
        );
    }
    assert_fails_with(
        &with_lines("whole.txt"),
        "after lines of 3623 openings: resume with the settings",
    );
    std::fs::write(dir.join("empty.txt"), "% no openings\n").unwrap();
    assert_fails_with(
        &oxello_in(&dir, &["selfplay", "--openings", "empty.txt"]),
        "empty.txt holds no opening",
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_scaling_reports_a_row_per_thread_count() {
    let out = oxello_in(
        &scratch_dir("bench-scaling"),
        &[
            "bench",
            "--depth",
            "5",
            "--scaling",
            "1,2,64",
            "--rounds",
            "1",
        ],
    );
    let printed = text(&out.stdout);
    let rows: Vec<Vec<&str>> = printed
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 3, "{printed}");
    assert_eq!(
        (rows[0][0], rows[0][4], rows[0][5]),
        ("1", "1.00x", "1.00x"),
        "{printed}"
    );
    let nodes: Vec<u64> = rows.iter().map(|r| r[2].parse().unwrap()).collect();
    assert!(nodes.iter().all(|n| *n > 0), "{printed}");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for ((row, fields), threads) in printed.lines().skip(1).zip(&rows).zip([1, 2, 64]) {
        assert_eq!(row.contains("oversubscribed"), threads > cores, "{printed}");
        // The speedup of as many one-thread benches at once, for 2 threads up to the cores.
        let ceiling = fields[6]
            .strip_suffix('x')
            .and_then(|r| r.parse::<f64>().ok());
        if (2..=cores).contains(&threads) {
            assert!(ceiling.is_some_and(|c| c > 0.0), "{printed}");
        } else {
            assert_eq!(fields[6], "-", "{printed}");
        }
    }
}

/// Column `column` of the twelve position rows `oxello bench` prints after its header.
fn bench_column<T: std::str::FromStr>(printed: &str, column: usize) -> Vec<T> {
    printed
        .lines()
        .skip(1)
        .take(12)
        .map(|l| match l.split_whitespace().nth(column).map(str::parse) {
            Some(Ok(value)) => value,
            _ => panic!("no column {column} in {l:?}:\n{printed}"),
        })
        .collect()
}

#[test]
fn bench_scaling_per_position_gives_each_positions_nodes_and_ratios() {
    let dir = scratch_dir("bench-per-position");
    let one_thread = text(&oxello_in(&dir, &["bench", "--depth", "6", "--threads", "1"]).stdout);
    let single: Vec<u64> = bench_column(&one_thread, 4);
    let per_position: Vec<&str> = "bench --depth 6 --scaling 1,2 --rounds 3 --per-position"
        .split(' ')
        .collect();
    let printed = text(&oxello_in(&dir, &per_position).stdout);
    let rows: Vec<Vec<&str>> = printed
        .lines()
        .skip_while(|l| !l.trim_start().starts_with('#'))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 12, "{printed}");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row[0], (i + 1).to_string(), "{printed}");
        let nodes: u64 = row[1].parse().unwrap();
        assert_eq!(
            nodes, single[i],
            "one thread's nodes are its signature: {printed}"
        );
        let two: u64 = row[2].parse().unwrap();
        assert!(two > 0, "{printed}");
        let ratio = |field: &str| -> f64 {
            field
                .trim_matches(|c| c == '(' || c == ')' || c == 'x')
                .parse()
                .unwrap()
        };
        let (range_low, range_high) = row[4].split_once('-').unwrap();
        let (median, low, high) = (ratio(row[3]), ratio(range_low), ratio(range_high));
        assert!(low <= median && median <= high, "{printed}");
    }
    let refused = oxello_in(&dir, &["bench", "--per-position"]);
    assert!(!refused.status.success(), "--per-position needs --scaling");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_at_a_move_time_reports_the_depth_of_every_position_their_median_and_mean() {
    let out = oxello_in(
        &scratch_dir("bench-move-time"),
        &["bench", "--move-time", "40", "--threads", "1"],
    );
    let printed = text(&out.stdout);
    let depths: Vec<u32> = bench_column(&printed, 3);
    assert!(depths.iter().all(|&d| d >= 4), "{printed}");
    let mut sorted = depths.clone();
    sorted.sort_unstable();
    assert!(
        printed.contains(&format!("median depth {} at 40 ms a move", sorted[6])),
        "{printed}"
    );
    let mean = f64::from(depths.iter().sum::<u32>()) / 12.0;
    assert!(
        printed.contains(&format!("mean depth {mean:.2} at 40 ms a move")),
        "{printed}"
    );
}

#[test]
fn bench_searches_the_games_of_a_file_as_the_built_in_positions() {
    let dir = scratch_dir("bench-positions");
    let first_built_in = oxello::tools::bench::BENCH_TRANSCRIPTS[0];
    std::fs::write(
        dir.join("games.txt"),
        format!("# two games\n\n{first_built_in}\nf5d6c3d3c4f4\n"),
    )
    .unwrap();
    let rows = |out: &std::process::Output| -> Vec<Vec<String>> {
        text(&out.stdout)
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with("effective"))
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect()
    };
    let depth_6 = ["--depth", "6", "--threads", "1"];
    let from_file = oxello_in(
        &dir,
        &[&["bench", "--positions", "games.txt"], &depth_6[..]].concat(),
    );
    let built_in = oxello_in(&dir, &[&["bench"], &depth_6[..]].concat());
    let (file_rows, built_in_rows) = (rows(&from_file), rows(&built_in));
    assert_eq!(file_rows.len(), 2, "{}", text(&from_file.stdout));
    assert_eq!(built_in_rows.len(), 12, "{}", text(&built_in.stdout));
    // The same position gets the same move, score and nodes (one thread is deterministic).
    assert_eq!(file_rows[0][1..5], built_in_rows[0][1..5]);

    std::fs::write(dir.join("bad.txt"), "f5d6c3d3c4f4\nf5f5\n").unwrap();
    let bad = oxello_in(&dir, &["bench", "--positions", "bad.txt", "--depth", "2"]);
    assert_fails_with(&bad, "bad.txt: line 2");
    std::fs::write(dir.join("empty.txt"), "# nothing\n").unwrap();
    let empty = oxello_in(&dir, &["bench", "--positions", "empty.txt", "--depth", "2"]);
    assert_fails_with(&empty, "empty.txt holds no game");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn train_network_writes_a_network_the_engine_plays_with_and_never_trains_on_what_judges() {
    let dir = scratch_dir("train-network");
    let labels = crate::common::data_file("validation/xot-d10-e20-seed99.lgz");
    let labels = labels.to_str().unwrap();
    let trained = oxello_in(
        &dir,
        &[
            "train-network",
            "--labels",
            labels,
            "--epochs",
            "1",
            "--output",
            "net",
        ],
    );
    assert_prints(&trained, "network written to net");
    let measured = oxello_in(&dir, &["--eval", "net", "eval-error", "--labels", labels]);
    assert_prints(&measured, "MAE over 24-59 empties");
    let judged_only = oxello_in(
        &dir,
        &[
            "train-network",
            "--labels",
            labels,
            "--validation-labels",
            labels,
        ],
    );
    assert_fails_with(&judged_only, "too few games to train on");
    let beyond_one = oxello_in(
        &dir,
        &["train-network", "--labels", labels, "--label-lambda", "1.5"],
    );
    assert_fails_with(&beyond_one, "expected a number from 0 to 1, got '1.5'");
    // Judged by other files, every game of the training files is trained on: none held out.
    let shard = crate::common::data_file("training/wthor-d10-e20-s0of64.lgz");
    let judged_apart = oxello_in(
        &dir,
        &[
            "train-network",
            "--labels",
            labels,
            "--validation-labels",
            shard.to_str().unwrap(),
            "--epochs",
            "1",
            "--output",
            "net2",
        ],
    );
    assert_prints(&judged_apart, "network written to net2");
    let log = text(&judged_apart.stderr);
    let count_before = |marker: &str| -> usize {
        let line = log.lines().find(|l| l.contains(marker)).expect(marker);
        line.split_whitespace().next().unwrap().parse().unwrap()
    };
    let positions: usize = label_examples(&[PathBuf::from(labels)])
        .unwrap()
        .iter()
        .map(|(_, examples)| examples.len())
        .sum();
    assert_eq!(
        count_before("training positions dropped") + count_before("training and"),
        positions,
        "{log}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tune_mpc_fits_a_table_to_a_network_and_writes_it_into_the_network_file() {
    let dir = scratch_dir("tune-mpc-network");
    let zero = NetworkWeights::zero(PatternEvaluator::built_in().checksum());
    std::fs::write(dir.join("net"), zero.to_bytes()).unwrap();
    let games = crate::common::fixture("WTH_2020.wtb");
    let tune = |eval: &str, network_out: &str| {
        oxello_in(
            &dir,
            &[
                "--eval",
                eval,
                "tune-mpc",
                games.to_str().unwrap(),
                "--positions",
                "40",
                "--depth",
                "5",
                "--endgame-positions",
                "40",
                "--endgame-empties",
                "18",
                "--output",
                "net.mpc",
                "--network-out",
                network_out,
            ],
        )
    };
    let tuned = tune("net", "net-with-table");
    assert_prints(&tuned, "network with its table written to net-with-table");
    assert!(
        text(&tuned.stderr).contains("carries no Multi-ProbCut table"),
        "a network without a table is reported: {}",
        text(&tuned.stderr)
    );
    let table = ProbCutTable::parse(&std::fs::read_to_string(dir.join("net.mpc")).unwrap())
        .expect("tune-mpc writes a table it reads");
    let written =
        NetworkWeights::from_bytes(&std::fs::read(dir.join("net-with-table")).unwrap()).unwrap();
    assert_eq!(written.probcut.as_ref(), Some(&table));
    assert_eq!(
        NetworkWeights {
            probcut: None,
            ..written
        },
        zero,
        "the weights are the network's"
    );
    let played = oxello_in(&dir, &["--eval", "net-with-table", "bench", "--depth", "4"]);
    assert!(played.status.success(), "{}", text(&played.stderr));
    assert!(
        !text(&played.stderr).contains("Multi-ProbCut"),
        "{}",
        text(&played.stderr)
    );
    assert_fails_with(
        &tune("linear", "never"),
        "--network-out needs a network evaluation",
    );
}
