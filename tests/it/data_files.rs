//! The data files: every FFO position parses with exactly its legal moves listed, every XOT
//! opening is legal, every WTHOR game of the fixtures replays legally to its recorded score,
//! every packed training shard reads back as its name says, and the match records are one file
//! each, all named by their index, within 5 MB.

use oxello::board::{Move, Squares};
use oxello::notation::{parse_obf_file, read_wthor_file};
use oxello::tools::arena::parse_openings;

#[test]
fn ffo_lines_list_exactly_the_legal_moves() {
    let mut positions = 0;
    for name in ["fforum-1-19.obf", "fforum-20-39.obf", "fforum-40-59.obf"] {
        let text = std::fs::read_to_string(crate::common::data_file(name)).unwrap();
        let entries = parse_obf_file(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!entries.is_empty(), "{name} has no positions");
        for entry in entries {
            let mut listed: Vec<Move> = entry.move_scores.iter().map(|(m, _)| *m).collect();
            listed.sort_by_key(|m| match m {
                Move::Play(sq) => *sq,
                Move::Pass => 64,
            });
            let legal: Vec<Move> = Squares(entry.position.board.moves())
                .map(|sq| Move::Play(sq as u8))
                .collect();
            assert_eq!(listed, legal, "{name}: {}", entry);
            positions += 1;
        }
    }
    assert_eq!(positions, 59);
}

/// Black's count when the empties are shared, the odd one going to the winner: the rule a few
/// games of Logistello's book were scored by.
fn black_discs_with_split_empties(black: u32, white: u32) -> u32 {
    let empties = 64 - black - white;
    black + empties / 2 + u32::from(black > white) * (empties % 2)
}

#[test]
fn every_xot_opening_is_eight_legal_moves() {
    for (name, count) in [
        ("xot-openings-small.txt", 3_623),
        ("xot-openings-large.txt", 10_784),
    ] {
        let text = std::fs::read_to_string(crate::common::data_file(name)).unwrap();
        let openings = parse_openings(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(openings.len(), count, "{name}");
        assert!(openings.iter().all(|o| o.len() == 8), "{name}");
    }
}

#[test]
fn every_wthor_game_of_the_fixtures_replays_to_its_recorded_score() {
    let (mut games, mut finished, mut split_empties) = (0usize, 0usize, 0usize);
    for name in ["WTH_2020.wtb", "logistello-book-excerpt.wtb"] {
        let bytes = std::fs::read(crate::common::fixture(name)).unwrap();
        let file = read_wthor_file(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let is_logistello_book = name.starts_with("logistello");
        for (i, game) in file.games.iter().enumerate() {
            let (_, end) = game
                .replay()
                .unwrap_or_else(|e| panic!("{name} game {}: {e}", i + 1));
            games += 1;
            // A game stopped by resignation, time or agreement has no score on the board.
            if !end.board.is_game_over() {
                continue;
            }
            finished += 1;
            let recorded = u32::from(game.black_discs);
            if recorded == end.black_final_discs() {
                continue;
            }
            let (black, white) = (end.black().count_ones(), end.white().count_ones());
            assert!(
                is_logistello_book && recorded == black_discs_with_split_empties(black, white),
                "{name} game {}: recorded {recorded} black discs, the final position gives {}",
                i + 1,
                end.black_final_discs()
            );
            split_empties += 1;
        }
    }
    // WTH_2020 holds 896 games; the excerpt, 300 games of Logistello's book and 18 more that
    // end with empty squares, 16 of them scored with the empties shared.
    assert_eq!(games, 896 + 318);
    assert_eq!(split_empties, 16, "the excerpt's shared-empties games");
    assert!(
        finished > games * 9 / 10,
        "only {finished} of {games} games finished"
    );
}

#[test]
fn the_wide_bench_set_holds_96_legal_midgame_positions() {
    let positions = oxello::tools::bench::read_positions(&crate::common::data_file("bench-96.txt"))
        .unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(positions.len(), 96);
    for position in positions {
        let discs = 64 - position.board.empties().count_ones();
        // 20 to 36 plies in, passes aside: 24 to 40 discs, and a move or a pass to make.
        assert!((24..=40).contains(&discs), "{discs} discs");
        assert!(!position.board.is_game_over());
    }
}

/// Every packed shard of `data/training/` reads back: its settings and shard are the ones its
/// name says, every game replays, every score is a disc difference, and README lists it with
/// its count of positions.
#[test]
fn every_training_shard_reads_back_as_its_name_says() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/training");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let mut shards = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "lgz") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let file = oxello::training::label_files::packed::read_labels(&path)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // wthor-d10-e20-s<i>of<n> (games of rank i mod n of the database) or
        // xot-d<depth>-e20-s<i>of<n> (selfplay games of its own, ranked from 0; depth 0:
        // static scores) or xotnet-d0-e20-s<i>of<n> (the same, played by the network) or
        // xotfast-d0-e18-s<i>of<n> (the data engine's: the network at depth 4, exact from 18)
        let fields: Vec<&str> = name.split('-').collect();
        assert!(
            ["wthor", "xot", "xotnet", "xotfast"].contains(&fields[0]),
            "{name}"
        );
        let depth: u8 = fields[1].trim_start_matches('d').parse().unwrap();
        let exact: u8 = fields[2].trim_start_matches('e').parse().unwrap();
        let (shard, of) = fields[3].trim_start_matches('s').split_once("of").unwrap();
        let (shard, of): (u32, u32) = (shard.parse().unwrap(), of.parse().unwrap());
        assert_eq!(
            (file.header.depth, file.header.exact_empties),
            (depth, exact),
            "{name}"
        );
        assert!(!file.labels.is_empty(), "{name}");
        for label in &file.labels {
            if fields[0] == "wthor" {
                assert_eq!(label.game % of, shard, "{name}: game {}", label.game);
            }
            assert!((-64..=64).contains(&label.score));
            assert!(label.depth == 0 || label.depth == depth);
            assert!(
                label.board.moves() != 0,
                "{name}: a labelled position has a move"
            );
        }
        let listed = format!("| {name}.lgz | {} |", file.labels.len());
        assert!(readme.contains(&listed), "README lists {listed}");
        shards += 1;
    }
    assert!(shards > 0, "data/training holds shards");
}

#[test]
fn the_validation_positions_read_back_as_listed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/validation");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let path = dir.join("xot-d10-e20-seed99.lgz");
    let file = oxello::training::label_files::packed::read_labels(&path).unwrap();
    assert_eq!((file.header.depth, file.header.exact_empties), (10, 20));
    let listed = format!("| xot-d10-e20-seed99.lgz | {} |", file.labels.len());
    assert!(readme.contains(&listed), "README lists {listed}");
}

/// The folder of match records may hold at most this many bytes.
const RECORDS_LIMIT: u64 = 5_000_000;

/// The record names a row's first cell gives: `` `a-7.ggf.xz` to `-9` `` is a-7 to a-9,
/// `` `a-31.ggf.xz`, `-32` `` is a-31 and a-32, `` `a.ggf.xz`, `-b` `` is a and a-b.
fn row_records(cell: &str) -> Vec<String> {
    let names: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
    let Some(stem) = names.first().and_then(|n| n.strip_suffix(".ggf.xz")) else {
        return Vec::new();
    };
    let numbered = stem
        .rsplit_once('-')
        .and_then(|(base, n)| Some((base, n.parse::<u32>().ok()?)));
    let mut stems = vec![stem.to_string()];
    if let (Some((base, from)), true) = (numbered, cell.contains("` to `-")) {
        let to: u32 = names[1][1..].parse().expect("a range ends in a number");
        stems = (from..=to).map(|i| format!("{base}-{i}")).collect();
    } else {
        for extra in &names[1..] {
            let suffix = extra.strip_prefix('-').expect("a sibling is a suffix");
            let base = match numbered {
                Some((base, _)) if suffix.parse::<u32>().is_ok() => base,
                _ => stem,
            };
            stems.push(format!("{base}-{suffix}"));
        }
    }
    stems.into_iter().map(|s| format!("{s}.ggf.xz")).collect()
}

#[test]
fn match_records_are_one_file_each_all_indexed_within_five_megabytes() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results");
    let index = std::fs::read_to_string(folder.join("README.md")).expect("the records' index");
    let mut files = std::collections::BTreeSet::new();
    let mut bytes = 0;
    for entry in std::fs::read_dir(&folder).expect("benches/results is readable") {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        bytes += entry.metadata().unwrap().len();
        if name != "README.md" {
            assert!(
                name.ends_with(".ggf.xz"),
                "{name}: a record is one .ggf.xz file"
            );
            files.insert(name);
        }
    }
    assert!(
        bytes <= RECORDS_LIMIT,
        "benches/results holds {bytes} bytes"
    );
    let mut indexed = std::collections::BTreeSet::new();
    for row in index.lines().filter(|l| l.starts_with("| `")) {
        let first_cell = row.split(" | ").next().unwrap();
        if first_cell.contains("(in history: ") {
            continue;
        }
        let records = row_records(first_cell);
        assert!(!records.is_empty(), "a row names no record: {first_cell}");
        for record in records {
            assert!(
                files.contains(&record),
                "{record} is indexed but not in the folder"
            );
            indexed.insert(record);
        }
    }
    let unindexed: Vec<_> = files.difference(&indexed).collect();
    assert!(unindexed.is_empty(), "records without a row: {unindexed:?}");
}
