//! `oxello label` end to end: exact scores where it solves, every position once, the same file
//! whatever the threads, interruptions and resumptions, shards that cover the run, and bad
//! input refused with a reason.

use crate::common::cli::{assert_fails_with, assert_prints, oxello_in, scratch_dir};
use crate::common::fixture;
use oxello::board::{Board, Position};
use oxello::engine::{Engine, EngineOptions};
use oxello::eval::{Evaluation, Evaluator};
use oxello::search::{Limits, Proof, SearchOptions};
use oxello::training::dataset::{load_games, positions_of};
use oxello::training::label_files::format::{LabelsFile, HEADER_BYTES, RECORD_BYTES};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

const GAMES: &str = "selfplay.txt";
const EXACT_EMPTIES: u32 = 10;

/// Labels the fixture games into `dir/name` at depth 2, exact from 10 empties, with `extra`
/// options, and returns the file.
fn label(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    assert_prints(&run_label(dir, &out, extra), "positions labelled");
    out
}

/// Runs `oxello label` on the fixture games into `out` at depth 2, exact from 10 empties, on
/// one thread unless `extra` says otherwise.
fn run_label(dir: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let games = fixture(GAMES);
    let exact = EXACT_EMPTIES.to_string();
    let mut args = vec![
        "label",
        games.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--depth",
        "2",
        "--exact-empties",
        &exact,
    ];
    if !extra.contains(&"--threads") {
        args.extend_from_slice(&["--threads", "1"]);
    }
    args.extend_from_slice(extra);
    oxello_in(dir, &args)
}

fn read(path: &Path) -> LabelsFile {
    oxello::training::label_files::packed::read_labels(path).unwrap()
}

/// Every position of the fixture's games where the side to move has a move, in its least
/// symmetric form: worked out here from the transcripts alone.
fn positions_of_the_games() -> HashSet<Board> {
    load_games(&fixture(GAMES))
        .unwrap()
        .iter()
        .flat_map(|game| positions_of(game).0)
        .filter(|p| p.board.moves() != 0)
        .map(|p| p.board.canonical().0)
        .collect()
}

fn exact_score(engine: &mut Engine, board: &Board) -> i32 {
    let position = Position {
        board: *board,
        side_to_move: oxello::board::Color::Black,
    };
    let options = SearchOptions {
        answer_forced_at_once: false,
        ..SearchOptions::default()
    };
    let result = engine.search_at(&position, &Limits::default(), options, &mut |_| {});
    assert_eq!(result.proof, Proof::Exact);
    result.score
}

#[test]
fn every_position_is_labelled_once_and_exactly_near_the_end() {
    let dir = scratch_dir("label-whole");
    let file = read(&label(&dir, "all.labels", &[]));
    assert_eq!(file.header.depth, 2);
    assert_eq!(u32::from(file.header.exact_empties), EXACT_EMPTIES);
    let labelled: Vec<Board> = file.labels.iter().map(|l| l.board.canonical().0).collect();
    let distinct: HashSet<Board> = labelled.iter().copied().collect();
    assert_eq!(distinct.len(), labelled.len(), "a position labelled twice");
    assert_eq!(distinct, positions_of_the_games());
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })
    .unwrap();
    let mut exact = 0;
    for l in &file.labels {
        let empties = l.board.empty_count();
        if empties <= EXACT_EMPTIES {
            assert_eq!(l.depth, 0, "{l:?}");
            assert_eq!(
                i32::from(l.score),
                exact_score(&mut engine, &l.board),
                "{l:?}"
            );
            exact += 1;
        } else if empties > 2 + 4 {
            assert_eq!(l.depth, 2, "{l:?}");
        }
    }
    assert!(exact > 100, "only {exact} exact labels");
    let games: Vec<u32> = file.labels.iter().map(|l| l.game).collect();
    assert!(
        games.windows(2).all(|w| w[0] <= w[1]),
        "records out of game order"
    );
    assert_eq!(games.iter().collect::<HashSet<_>>().len(), 12);
}

#[test]
fn threads_interruptions_and_resumptions_give_the_same_file() {
    let dir = scratch_dir("label-resume");
    let whole = std::fs::read(label(&dir, "whole.labels", &[])).unwrap();
    let two_threads = std::fs::read(label(&dir, "two.labels", &["--threads", "2"])).unwrap();
    assert_eq!(two_threads, whole);

    let resumed = label(&dir, "resumed.labels", &["--games", "5"]);
    let first_part = std::fs::read(&resumed).unwrap();
    assert!(first_part.len() < whole.len());
    assert_eq!(first_part[..], whole[..first_part.len()]);
    // Cut the file inside a record of the last game, as an interrupted write would.
    let cut = first_part.len() - RECORD_BYTES - 7;
    std::fs::write(&resumed, &first_part[..cut]).unwrap();
    label(&dir, "resumed.labels", &[]);
    assert_eq!(std::fs::read(&resumed).unwrap(), whole);
}

/// The bytes of a labels file as format version 1 wrote them: no evaluation fingerprint.
fn as_version_1(bytes: &[u8]) -> Vec<u8> {
    let mut old = bytes[..8].to_vec();
    old.extend_from_slice(&1u16.to_le_bytes());
    old.extend_from_slice(&bytes[10..20]);
    old.extend_from_slice(&bytes[HEADER_BYTES..]);
    old
}

#[test]
fn a_version_1_file_resumes_in_its_own_format() {
    let dir = scratch_dir("label-version-1");
    let whole = std::fs::read(label(&dir, "whole.labels", &[])).unwrap();
    let resumed = label(&dir, "resumed.labels", &["--games", "5"]);
    let first_part = std::fs::read(&resumed).unwrap();
    std::fs::write(&resumed, as_version_1(&first_part)).unwrap();
    let file = read(&resumed);
    assert_eq!(file.header.evaluation, None);
    label(&dir, "resumed.labels", &[]);
    assert_eq!(std::fs::read(&resumed).unwrap(), as_version_1(&whole));
}

#[test]
fn shards_cover_the_run_between_them() {
    let dir = scratch_dir("label-shards");
    let whole = read(&label(&dir, "whole.labels", &[]));
    let mut covered = HashSet::new();
    for shard in 0..3u32 {
        let name = format!("shard{shard}.labels");
        let part = read(&label(&dir, &name, &["--shard", &format!("{shard}/3")]));
        assert!(!part.labels.is_empty());
        assert!(part.labels.iter().all(|l| l.game % 3 == shard));
        covered.extend(part.labels.iter().map(|l| l.board.canonical().0));
    }
    let all: HashSet<Board> = whole.labels.iter().map(|l| l.board.canonical().0).collect();
    assert_eq!(covered, all);
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let dir = scratch_dir("label-bad");
    let out = label(&dir, "depth2.labels", &["--games", "2"]);
    let reseeded = run_label(&dir, &out, &["--seed", "2"]);
    assert_fails_with(&reseeded, "resume it with the same settings");
    let other_shard = run_label(&dir, &out, &["--shard", "1/2"]);
    assert_fails_with(&other_shard, "not in shard 1/2");
    let other_eval = run_label(&dir, &out, &["--eval", "simple"]);
    assert_fails_with(&other_eval, "another evaluation");

    let good = std::fs::read(&out).unwrap();
    let mut foreign = good.clone();
    foreign[..8].copy_from_slice(b"NOTLABEL");
    let foreign_path = dir.join("foreign.labels");
    std::fs::write(&foreign_path, &foreign).unwrap();
    assert_fails_with(&run_label(&dir, &foreign_path, &[]), "bad magic");

    let truncated_path = dir.join("truncated.labels");
    std::fs::write(&truncated_path, &good[..HEADER_BYTES + 5]).unwrap();
    let error = LabelsFile::read_complete(&truncated_path).unwrap_err();
    assert!(
        error.to_string().contains("truncated after record 0"),
        "{error}"
    );

    let broken_games = dir.join("broken.txt");
    std::fs::write(&broken_games, "f5d6c3d3c4 +2\nf5f5 -4\n").unwrap();
    let broken = oxello_in(
        &dir,
        &[
            "label",
            broken_games.to_str().unwrap(),
            "--out",
            dir.join("x.labels").to_str().unwrap(),
        ],
    );
    assert_fails_with(&broken, "line 2");
}

/// The error over 24-59 empties that `eval-error` prints for `eval` on the labels `file`.
fn midgame_error(dir: &Path, file: &Path, eval: &str) -> f64 {
    let out = oxello_in(
        dir,
        &[
            "--eval",
            eval,
            "eval-error",
            "--labels",
            file.to_str().unwrap(),
        ],
    );
    assert_prints(&out, "(12 games)");
    let stdout = crate::common::cli::text(&out.stdout);
    stdout
        .split("24-59 empties: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("no error in: {stdout}"))
}

#[test]
fn train_fits_labels_and_eval_error_measures_them() {
    let dir = scratch_dir("label-train");
    let labels = label(&dir, "all.labels", &[]);
    let weights = dir.join("labels.weights");
    let out = oxello_in(
        &dir,
        &[
            "train",
            "--labels",
            labels.to_str().unwrap(),
            "--epochs",
            "8",
            // Fitted to the scores as searched, which eval-error measures against.
            "--label-lambda",
            "0",
            "--output",
            weights.to_str().unwrap(),
        ],
    );
    assert_prints(&out, "weights written to");
    assert!(crate::common::cli::text(&out.stderr).contains("of 12 games from 1 labels files"));
    let trained = midgame_error(&dir, &labels, weights.to_str().unwrap());
    let built_in = midgame_error(&dir, &labels, "builtin");
    assert!(
        trained < built_in,
        "fitted to these labels {trained}, built-in {built_in}"
    );
    let held_out = oxello_in(
        &dir,
        &[
            "eval-error",
            "--labels",
            labels.to_str().unwrap(),
            "--held-out",
        ],
    );
    assert!(held_out.status.success());
    assert!(!crate::common::cli::text(&held_out.stdout).contains("(12 games)"));
}

/// `train` blends searched labels with the labels after them as `train-network` does: weights
/// fitted to the scores as searched (`--label-lambda 0`) fit those scores better than weights
/// fitted to the labels blended all the way to the endgame's exact scores (`--label-lambda
/// 1`); a λ beyond 1 is refused.
#[test]
fn train_blends_labels_with_the_labels_after_them() {
    let dir = scratch_dir("label-train-blend");
    let labels = label(&dir, "all.labels", &[]);
    let labels = labels.to_str().unwrap();
    let trained_error = |lambda: &str| {
        let weights = format!("lambda-{lambda}.weights");
        let out = oxello_in(
            &dir,
            &[
                "train",
                "--labels",
                labels,
                "--epochs",
                "8",
                "--label-lambda",
                lambda,
                "--output",
                &weights,
            ],
        );
        assert_prints(&out, "weights written to");
        midgame_error(
            &dir,
            Path::new(labels),
            dir.join(&weights).to_str().unwrap(),
        )
    };
    let as_searched = trained_error("0");
    let blended = trained_error("1");
    assert!(
        as_searched < blended,
        "against the searched scores: fitted to them {as_searched}, to the blended labels {blended}"
    );
    let beyond_one = oxello_in(
        &dir,
        &["train", "--labels", labels, "--label-lambda", "1.5"],
    );
    assert_fails_with(&beyond_one, "expected a number from 0 to 1, got '1.5'");
}

/// Labels packed with their games (`--pack`) reads back as the very records of its labels file,
/// in a fraction of the bytes; `eval-error` reads either and measures the same; packing the
/// labels of other games is refused.
#[test]
fn packed_labels_read_back_as_the_labels_file() {
    let dir = scratch_dir("label-pack");
    let packed = dir.join("all.lgz");
    let labels = label(&dir, "all.labels", &["--pack", packed.to_str().unwrap()]);
    let (original, unpacked) = (read(&labels), read(&packed));
    assert_eq!(unpacked, original);
    assert!(original.labels.iter().any(|l| l.depth == 0));
    assert!(original.labels.iter().any(|l| l.depth == 2));
    let (labels_bytes, packed_bytes) = (
        std::fs::metadata(&labels).unwrap().len(),
        std::fs::metadata(&packed).unwrap().len(),
    );
    assert!(
        packed_bytes * 8 < labels_bytes,
        "{packed_bytes} against {labels_bytes} bytes"
    );
    assert_eq!(
        midgame_error(&dir, &packed, "builtin"),
        midgame_error(&dir, &labels, "builtin")
    );

    // The games of another run cannot be packed with these labels.
    let mut other = std::fs::read_to_string(fixture(GAMES)).unwrap();
    other = other.lines().rev().collect::<Vec<_>>().join("\n");
    std::fs::write(dir.join("other.txt"), other).unwrap();
    let out = oxello_in(
        &dir,
        &[
            "label",
            "other.txt",
            "--out",
            "all.labels",
            "--depth",
            "2",
            "--exact-empties",
            "10",
            "--threads",
            "1",
            "--pack",
            "other.lgz",
        ],
    );
    assert_fails_with(&out, "the games given are not the ones labelled");
    assert!(!dir.join("other.lgz").exists());
}

/// Plays `games` selfplay games into `dir/name` at `depth`, exactly from `exact` empties.
fn selfplay(dir: &Path, name: &str, games: &str, depth: &str, exact: &str) -> PathBuf {
    let out = dir.join(name);
    let played = oxello_in(
        dir,
        &[
            "selfplay",
            "--games",
            games,
            "--depth",
            depth,
            "--exact-empties",
            exact,
            "--random-plies",
            "6",
            "--output",
            out.to_str().unwrap(),
        ],
    );
    assert!(played.status.success(), "{played:?}");
    out
}

/// Runs `oxello label` on `games` into `dir/out`, exact from 10 empties, one thread.
fn label_games(dir: &Path, games: &Path, out: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "label",
        games.to_str().unwrap(),
        "--out",
        out,
        "--exact-empties",
        "10",
        "--threads",
        "1",
    ];
    args.extend_from_slice(extra);
    oxello_in(dir, &args)
}

/// Depth 0 labels each position above the exact empties with the evaluation's static score;
/// the header tells those from the exact ones, and packing keeps both.
#[test]
fn depth_0_labels_are_static_scores_and_stay_apart_from_the_exact_ones() {
    let dir = scratch_dir("label-static");
    let packed = dir.join("static.lgz");
    let labelled = label_games(
        &dir,
        &fixture(GAMES),
        "static.labels",
        &["--depth", "0", "--pack", packed.to_str().unwrap()],
    );
    assert_prints(&labelled, "positions packed");
    let file = read(&dir.join("static.labels"));
    assert_eq!(file.header.depth, 0);
    let evaluation = Evaluation::default();
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })
    .unwrap();
    let (mut exact, mut static_scores) = (0, 0);
    for l in &file.labels {
        if l.board.empty_count() <= EXACT_EMPTIES {
            assert!(file.header.is_exact(l), "{l:?}");
            assert_eq!(i32::from(l.score), exact_score(&mut engine, &l.board));
            exact += 1;
        } else {
            assert!(!file.header.is_exact(l), "{l:?}");
            assert_eq!(i32::from(l.score), evaluation.evaluate(&l.board), "{l:?}");
            static_scores += 1;
        }
    }
    assert!(
        exact > 100 && static_scores > 300,
        "{exact} exact, {static_scores} static"
    );
    assert_eq!(read(&packed), file);
}

/// With `--played-exact` the endgame positions of games played perfectly are labelled by the
/// games' results alone: the very file a proving run writes. Games that were not played
/// perfectly are caught by the games it proves all the same.
#[test]
fn played_exact_labels_equal_proved_ones_and_imperfect_games_are_refused() {
    let dir = scratch_dir("label-played");
    let perfect = selfplay(&dir, "perfect.txt", "12", "2", "10");
    let proved = label_games(&dir, &perfect, "proved.labels", &["--depth", "0"]);
    assert_prints(&proved, "positions labelled");
    let trusting = ["--depth", "0", "--played-exact"];
    let trusted = label_games(&dir, &perfect, "trusted.labels", &trusting);
    assert_prints(&trusted, "positions labelled");
    let proved = std::fs::read(dir.join("proved.labels")).unwrap();
    assert_eq!(std::fs::read(dir.join("trusted.labels")).unwrap(), proved);
    assert!(read(&dir.join("proved.labels"))
        .labels
        .iter()
        .any(|l| l.board.empty_count() <= EXACT_EMPTIES));

    let careless = selfplay(&dir, "careless.txt", "200", "1", "2");
    let refused = label_games(&dir, &careless, "careless.labels", &trusting);
    assert_fails_with(&refused, "was not played perfectly from 10 empties");
}
