//! The pattern evaluation against independent checks: slots from the symmetric images of each
//! pattern, indices kept up to date move by move against indices read square by square, exact
//! symmetry of the evaluation, weights files, training that learns, the error floor of the
//! labels, selfplay that is reproducible and shards cleanly.

use crate::common::{playout, pseudo_random_bytes};
use oxello::board::{Board, Symmetry};
use oxello::cpu::{IsaBaseline, IsaDetected};
use oxello::eval::indices::{for_each_slot, mover_indices, ParentIndices, LANES};
use oxello::eval::patterns::{
    feature_offsets, instance_index, phase_empties, phase_of, tables, PATTERN_TYPES,
};
use oxello::eval::{Evaluation, Evaluator, PatternEvaluator, Weights, WeightsError};
use oxello::search::INFINITY;
use oxello::training::dataset::label_floor;
use oxello::training::dataset::{all_examples, load_games};
use oxello::training::eval_error::evaluation_error;
use oxello::training::selfplay::{selfplay, SelfplayConfig};
use oxello::training::train::{split, train, TrainConfig};
use proptest::prelude::*;
use std::sync::OnceLock;

fn random_board() -> impl Strategy<Value = Board> {
    prop::collection::vec(any::<u8>(), 0..60).prop_map(|choices| playout(&choices))
}

/// The cell of a square read square by square: 0 empty, 1 side to move, 2 other side.
fn cell(board: &Board, square: u8) -> usize {
    if board.player & (1 << square) != 0 {
        1
    } else if board.opponent & (1 << square) != 0 {
        2
    } else {
        0
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Reading each type's own squares on the 8 images of the board gives the same slots as the
    /// instances, each instance counted once per symmetry that produces it.
    #[test]
    fn slots_agree_with_the_symmetric_images(board in random_board()) {
        let t = tables();
        for (kind, (_, squares)) in PATTERN_TYPES.iter().enumerate() {
            let mut reference: Vec<u32> = Symmetry::ALL
                .iter()
                .map(|s| {
                    let image = board.transformed(s.inverse());
                    let index = squares.iter().fold(0, |acc, &sq| acc * 3 + cell(&image, sq));
                    t.slot_of_index[kind][index]
                })
                .collect();
            let instances: Vec<_> = t.instances.iter().filter(|i| i.kind == kind).collect();
            let repeat = 8 / instances.len();
            let mut actual: Vec<u32> = instances
                .iter()
                .flat_map(|i| std::iter::repeat_n(t.slot_of_index[kind][instance_index(&board, &i.squares)], repeat))
                .collect();
            reference.sort_unstable();
            actual.sort_unstable();
            prop_assert_eq!(reference, actual, "pattern {}", PATTERN_TYPES[kind].0);
        }
        // The evaluation's own path (indices summed from powers of 3) visits the same slots,
        // then the counting features' and the bias.
        let mut visited = Vec::new();
        for_each_slot(&board, |slot| visited.push(slot as u32));
        prop_assert_eq!(visited.pop(), Some(t.bias_slot() as u32));
        let features = visited.split_off(visited.len() - 4);
        let offsets = feature_offsets(&board);
        prop_assert_eq!(features, offsets.map(|o| (t.feature_base() + o) as u32).to_vec());
        let mut expected: Vec<u32> = t.instances.iter().map(|i| t.slot_of_index[i.kind][instance_index(&board, &i.squares)]).collect();
        visited.sort_unstable();
        expected.sort_unstable();
        prop_assert_eq!(visited, expected);
    }

    /// Every instance's index, summed from the powers of 3 of its squares, is its squares read
    /// one by one in its type's order; the lanes after the instances stay 0. Both at the CPU's
    /// level (sums in AVX2 vectors where it has them) and lane by lane at the baseline (unless
    /// the build targets a higher level).
    #[test]
    fn indices_read_every_instance_in_its_types_order(board in random_board()) {
        let instances = &tables().instances;
        for indices in [mover_indices(IsaDetected, &board), mover_indices(IsaBaseline, &board)] {
            for (lane, instance) in instances.iter().enumerate() {
                prop_assert_eq!(usize::from(indices.0[lane]), instance_index(&board, &instance.squares), "instance {}", lane);
            }
            prop_assert!(indices.0[instances.len()..LANES].iter().all(|&i| i == 0));
        }
    }

    /// The indices of a node's children, derived from the node's own by the played and flipped
    /// squares, are those of the children computed anew; the evaluation of the children through
    /// them is the plain evaluation of each child.
    #[test]
    fn indices_after_a_move_equal_the_childs_own(board in random_board()) {
        let parent = ParentIndices::of(IsaDetected, &board);
        let evaluation = built_in();
        let evaluate_child = evaluation.children_of(IsaDetected, &board);
        for square in oxello::board::Squares(board.moves()) {
            let flipped = board.flips(square);
            let child = board.play_with_flips(square, flipped);
            prop_assert_eq!(parent.after_move(IsaDetected, square, flipped), mover_indices(IsaDetected, &child));
            prop_assert_eq!(evaluate_child(square, &child, (-INFINITY, INFINITY)), evaluation.evaluate(&child));
        }
    }

    /// The search's evaluation (instances' indices into per-type weights) is the sum training
    /// fits: the weights of the slots the instances visit.
    #[test]
    fn the_evaluation_sums_the_weights_of_its_slots(board in random_board()) {
        let (weights, _) = random_weights();
        let phase = weights.phase(phase_of(board.empty_count()));
        let mut sum = 0i32;
        for_each_slot(&board, |slot| sum += i32::from(phase[slot]));
        for (evaluator, gathers) in random_evaluators().iter().zip([false, true]) {
            prop_assert_eq!(evaluator.raw(&board), sum, "gathers {}", gathers);
        }
    }

    /// The built-in network and linear weights, and random weights, score a position and its
    /// images alike: a slot, and so a row of the network, is shared by symmetric indices.
    #[test]
    fn the_evaluations_are_invariant_under_the_symmetries(board in random_board()) {
        let Evaluation::Network(network) = built_in() else {
            panic!("the built-in evaluation is the network")
        };
        let linear = network.linear();
        let (_, random) = random_weights();
        for symmetry in Symmetry::ALL {
            let image = board.transformed(symmetry);
            prop_assert_eq!(network.raw(&image), network.raw(&board));
            prop_assert_eq!(linear.raw(&image), linear.raw(&board));
            prop_assert_eq!(random.raw(&image), random.raw(&board));
        }
    }
}

/// The built-in evaluation, read once for every case.
fn built_in() -> &'static Evaluation {
    static BUILT_IN: OnceLock<Evaluation> = OnceLock::new();
    BUILT_IN.get_or_init(Evaluation::default)
}

/// Weights drawn at random in -2000..=2000 (once: the cases vary the board), and their
/// evaluator.
fn random_weights() -> &'static (Weights, PatternEvaluator) {
    static RANDOM: OnceLock<(Weights, PatternEvaluator)> = OnceLock::new();
    RANDOM.get_or_init(|| {
        let mut weights = Weights::zero();
        let bytes = pseudo_random_bytes(0x5EED, 2 * weights.values.len());
        for (w, pair) in weights.values.iter_mut().zip(bytes.chunks_exact(2)) {
            *w = (i32::from(u16::from_le_bytes([pair[0], pair[1]])) % 4001 - 2000) as i16;
        }
        (weights.clone(), PatternEvaluator::new(weights))
    })
}

/// The evaluator of [`random_weights`] reading its weights one by one and by AVX2 gathers
/// (where the CPU has AVX2; else both read them one by one).
fn random_evaluators() -> &'static [PatternEvaluator; 2] {
    static BOTH: OnceLock<[PatternEvaluator; 2]> = OnceLock::new();
    BOTH.get_or_init(|| {
        [false, true].map(|gathers| random_weights().1.clone().with_gathers(gathers))
    })
}

#[test]
fn weights_files_round_trip_and_damage_is_refused() {
    let path = std::env::temp_dir().join(format!("oxello-eval-{}.weights", std::process::id()));
    let weights = Weights::zero();
    std::fs::write(&path, weights.to_bytes()).unwrap();
    let loaded = Evaluation::from_name(path.to_str().unwrap()).unwrap();
    assert_eq!(loaded.evaluate(&Board::START), 0);
    let mut bytes = weights.to_bytes();
    bytes[40] ^= 0x55;
    assert_eq!(
        PatternEvaluator::from_bytes(&bytes).unwrap_err(),
        WeightsError::Checksum
    );
    std::fs::write(&path, &bytes).unwrap();
    let error = Evaluation::from_name(path.to_str().unwrap()).unwrap_err();
    assert!(error.contains("corrupt"), "{error}");
    assert!(Evaluation::from_name("/no/such/weights")
        .unwrap_err()
        .contains("cannot read"));
    std::fs::remove_file(&path).ok();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_oxello"))
        .args(["--eval", "/no/such/weights", "bench", "--depth", "1"])
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert!(!status.status.success());
    assert!(String::from_utf8_lossy(&status.stderr).contains("cannot read weights"));
}

#[test]
fn phase_overlap_shares_training_positions_with_neighbouring_phases_only() {
    let games = load_games(&crate::common::fixture("WTH_2020.wtb")).unwrap();
    let per_game: Vec<_> = (0..)
        .zip(all_examples(&games[..60], 8, &Evaluation::default(), &|| {}).unwrap())
        .collect();
    let strict = TrainConfig {
        validation_percent: 20,
        ..TrainConfig::default()
    };
    let overlapping = TrainConfig {
        phase_overlap: 2,
        ..strict
    };
    let (strict_training, strict_validation) = split(per_game.clone(), &strict);
    let (training, validation) = split(per_game, &overlapping);
    let empties_of = |examples: &[oxello::training::dataset::Example]| -> Vec<u32> {
        examples.iter().map(|e| e.board.empty_count()).collect()
    };
    let strict_empties: Vec<u32> = strict_training.iter().flat_map(|p| empties_of(p)).collect();
    for (phase, examples) in training.iter().enumerate() {
        let (low, high) = phase_empties(phase);
        let expected = strict_empties
            .iter()
            .filter(|&&e| e + 2 >= low && e <= high + 2)
            .count();
        assert_eq!(examples.len(), expected, "phase {phase}");
        assert!(empties_of(examples)
            .iter()
            .all(|&e| e + 2 >= low && e <= high + 2));
        assert!(
            examples.len() > strict_training[phase].len(),
            "phase {phase}"
        );
        assert_eq!(
            empties_of(&validation[phase]),
            empties_of(&strict_validation[phase])
        );
    }
}

#[test]
fn a_tiny_training_run_lowers_the_validation_error() {
    let games = load_games(&crate::common::fixture("WTH_2020.wtb")).unwrap();
    let games = &games[..400];
    let config = TrainConfig {
        epochs: 4,
        validation_percent: 20,
        ..TrainConfig::default()
    };
    let per_game = all_examples(games, 8, &Evaluation::default(), &|| {}).unwrap();
    let (training, validation) = split((0..).zip(per_game).collect(), &config);
    let (_, reports) = train(&training, &validation, &Weights::zero(), &config, &|| {});
    let before: f64 = reports
        .iter()
        .map(|r| r.mae_before * r.validation_positions as f64)
        .sum();
    let after: f64 = reports
        .iter()
        .map(|r| r.mae_after * r.validation_positions as f64)
        .sum();
    assert!(
        after < 0.8 * before,
        "validation error {after} against {before} untrained"
    );
    let improved = reports
        .iter()
        .filter(|r| r.mae_after < r.mae_before)
        .count();
    assert!(
        improved >= 10,
        "only {improved} phases improved: {reports:?}"
    );
    let (again, _) = train(&training, &validation, &Weights::zero(), &config, &|| {});
    let (first, _) = train(&training, &validation, &Weights::zero(), &config, &|| {});
    assert_eq!(again, first, "training is reproducible");
}

#[test]
fn the_label_floor_is_the_best_any_answer_per_position_can_do() {
    let games = load_games(&crate::common::fixture("WTH_2020.wtb")).unwrap();
    let examples: Vec<_> = all_examples(&games, 0, &Evaluation::default(), &|| {})
        .unwrap()
        .into_iter()
        .flatten()
        .filter(|e| e.board.empty_count() >= 50)
        .collect();
    // Brute force: group by the set of symmetric images, try every label as the answer.
    let mut groups: std::collections::HashMap<Vec<(u64, u64)>, Vec<f32>> = Default::default();
    for example in &examples {
        let mut images: Vec<(u64, u64)> = Symmetry::ALL
            .iter()
            .map(|&s| {
                let image = example.board.transformed(s);
                (image.player, image.opponent)
            })
            .collect();
        images.sort_unstable();
        groups.entry(images).or_default().push(example.label);
    }
    let best_total: f64 = groups
        .values()
        .map(|labels| {
            labels
                .iter()
                .map(|&answer| {
                    labels
                        .iter()
                        .map(|&l| f64::from((l - answer).abs()))
                        .sum::<f64>()
                })
                .fold(f64::INFINITY, f64::min)
        })
        .sum();
    let floor = label_floor(&examples);
    assert!(
        groups.len() < examples.len(),
        "openings repeat across games"
    );
    assert!(
        floor > 1.0,
        "early positions carry different labels: {floor}"
    );
    assert!((floor - best_total / examples.len() as f64).abs() < 1e-9);

    for evaluation in [Evaluation::Simple, Evaluation::default()] {
        let error = evaluation_error(&games, &evaluation, 0, &|| {}).unwrap();
        for phase in &error.phases {
            assert!(phase.floor <= phase.mae + 1e-9, "{phase:?}");
        }
        assert!(error.midgame_floor <= error.midgame);
    }
}

#[test]
fn selfplay_is_reproducible_and_shards_are_disjoint() {
    let config = SelfplayConfig {
        games: 6,
        depth: 1,
        openings: Vec::new(),
        random_plies: 8,
        exact_empties: 8,
        seed: 5,
        shard: (0, 1),
    };
    let evaluation = Evaluation::default();
    let whole = selfplay(&config, &evaluation, &|| {}).unwrap();
    assert_eq!(whole, selfplay(&config, &evaluation, &|| {}).unwrap());
    let half = |shard| {
        let config = SelfplayConfig {
            shard: (shard, 2),
            ..config.clone()
        };
        selfplay(&config, &evaluation, &|| {}).unwrap()
    };
    let (even, odd) = (half(0), half(1));
    assert_eq!((even.len(), odd.len()), (3, 3));
    for (g, line) in whole.iter().enumerate() {
        let shard_line = if g % 2 == 0 {
            &even[g / 2]
        } else {
            &odd[g / 2]
        };
        assert_eq!(line, shard_line);
    }
    let path = std::env::temp_dir().join(format!("oxello-selfplay-{}.txt", std::process::id()));
    std::fs::write(&path, whole.join("\n")).unwrap();
    let games = load_games(&path).unwrap();
    assert_eq!(games.len(), 6);
    for game in &games {
        let mut position = oxello::Position::START;
        for mv in &game.moves {
            position = position.play(*mv).unwrap();
        }
        assert!(position.board.is_game_over());
        assert_eq!(position.black_final_score(), game.black_score);
    }
    std::fs::remove_file(&path).ok();
}

/// Games opened by lines of an opening list: each begins with one of the lines, then its
/// random moves; different games draw different lines; the same run plays the same games.
#[test]
fn selfplay_opens_games_with_lines_of_a_list() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/xot-openings-small.txt"),
    )
    .unwrap();
    let openings = oxello::tools::arena::parse_openings(&text).unwrap();
    let config = SelfplayConfig {
        games: 6,
        depth: 1,
        openings: openings.clone(),
        random_plies: 2,
        exact_empties: 8,
        seed: 3,
        shard: (0, 1),
    };
    let evaluation = Evaluation::default();
    let lines = selfplay(&config, &evaluation, &|| {}).unwrap();
    assert_eq!(lines, selfplay(&config, &evaluation, &|| {}).unwrap());
    let mut drawn = std::collections::HashSet::new();
    for line in &lines {
        let (game, end) = oxello::training::dataset::parse_game_line(line).unwrap();
        assert!(end.board.is_game_over());
        let line_used = openings
            .iter()
            .position(|o| game.moves.starts_with(o))
            .unwrap_or_else(|| panic!("{line} opens with no line of the list"));
        drawn.insert(line_used);
        assert!(game.moves.len() >= openings[line_used].len() + 2);
    }
    assert!(drawn.len() > 1, "games draw different lines");
}
