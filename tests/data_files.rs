//! The shared data files: every FFO position parses with exactly its legal moves listed, and
//! every WTHOR game replays legally to its recorded score.

mod common;

use oxello::board::{Move, Squares};
use oxello::notation::{parse_obf_file, read_wthor_file};

#[test]
fn ffo_lines_list_exactly_the_legal_moves() {
    let mut positions = 0;
    for name in ["fforum-1-19.obf", "fforum-20-39.obf", "fforum-40-59.obf"] {
        let text = std::fs::read_to_string(common::shared_file(name)).unwrap();
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
fn every_wthor_game_replays_to_its_recorded_score() {
    let dir = common::shared_data().join("wthor");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wtb")))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "no .wtb files found in {}", dir.display());
    let (mut games, mut finished, mut split_empties) = (0usize, 0usize, 0usize);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let file = read_wthor_file(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let is_logistello_book = path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("Logistello");
        for (i, game) in file.games.iter().enumerate() {
            let (_, end) = game
                .replay()
                .unwrap_or_else(|e| panic!("{} game {}: {e}", path.display(), i + 1));
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
                "{} game {}: recorded {recorded} black discs, the final position gives {}",
                path.display(),
                i + 1,
                end.black_final_discs()
            );
            split_empties += 1;
        }
    }
    eprintln!(
        "replayed {games} WTHOR games from {} files: {finished} played to the end, all scored as \
         recorded ({split_empties} of Logistello's book with the empties shared); {} stopped early",
        files.len(),
        games - finished
    );
    assert!(games > 100_000, "only {games} games read");
    assert!(
        finished > games * 9 / 10,
        "only {finished} of {games} games finished"
    );
}
