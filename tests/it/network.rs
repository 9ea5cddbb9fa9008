//! The network evaluation against a plain reference: its integer score at every
//! instruction-set level the CPU has, move by move through the search's children as from
//! scratch; its file refused when damaged; and its trainer lowering the loss it trains on.

use crate::common::cli::scratch_dir;
use crate::common::{
    data_file, full_width_alpha_beta, full_width_to, minimax, one_thread_pool, playout,
    pseudo_random_bytes,
};
use flate2::write::GzEncoder;
use oxello::board::{Board, Color, Position, Squares};
use oxello::cpu::{self, IsaBaseline, IsaV3, IsaV4, Level};
use oxello::engine::{Engine, EngineOptions};
use oxello::eval::network::{ACTIVATION_ONE, BIAS_LIMIT, CORRECTION_LIMIT, HIDDEN, ROW_LIMIT};
use oxello::eval::patterns::{feature_offsets, instance_index, phase_of, tables, PHASES};
use oxello::eval::weights::{fnv1a, fnv1a_words};
use oxello::eval::{
    DeferredEvaluation, Evaluation, Evaluator, NetworkError, NetworkEvaluator, NetworkWeights,
    PatternEvaluator, ProbCutTable,
};
use oxello::random::seeded_hash;
use oxello::search::{SearchOptions, DEFAULT_SELECTIVITY, INFINITY};
use oxello::training::dataset::label_examples;
use oxello::training::network::{errors, train_network, FloatNetwork, NetworkTrainConfig, Sample};
use std::io::Write;
use std::sync::{Arc, OnceLock};

/// Weights drawn from a seed over the whole range the file allows, some rows small enough to
/// keep hidden units between the activation's bounds, others large enough to clip them; the
/// output layers scaled so that some corrections reach the limit and most do not.
fn random_weights(seed: u64) -> NetworkWeights {
    let linear = PatternEvaluator::built_in();
    let mut weights = NetworkWeights::zero(linear.checksum());
    let value = |n: u64, limit: i32| (seeded_hash(seed, n) % (2 * limit as u64 + 1)) as i32 - limit;
    for (r, row) in weights.rows.iter_mut().enumerate() {
        let limit = ROW_LIMIT >> (seeded_hash(seed ^ 1, r as u64) % 6);
        for (i, w) in row.iter_mut().enumerate() {
            *w = value((r * HIDDEN + i) as u64, limit) as i16;
        }
    }
    for (i, w) in weights.hidden_bias.iter_mut().enumerate() {
        *w = value(1 << 40 | i as u64, ROW_LIMIT) as i16;
    }
    for (p, row) in weights.output.iter_mut().enumerate() {
        let limit = i16::MAX as i32 >> (4 + p % 4);
        for (i, w) in row.iter_mut().enumerate() {
            *w = value(2 << 40 | (p * HIDDEN + i) as u64, limit) as i16;
        }
    }
    for (p, b) in weights.output_bias.iter_mut().enumerate() {
        *b = value(3 << 40 | p as u64, 1 << 10);
    }
    weights
}

fn random_network() -> &'static (NetworkWeights, Arc<NetworkEvaluator>) {
    static NETWORK: OnceLock<(NetworkWeights, Arc<NetworkEvaluator>)> = OnceLock::new();
    NETWORK.get_or_init(|| {
        let weights = random_weights(7);
        let evaluator = NetworkEvaluator::new(PatternEvaluator::built_in(), &weights)
            .expect("weights over the built-in linear ones");
        (weights, Arc::new(evaluator))
    })
}

/// The network's part of the score, in 1/256 disc, computed the plain way: every instance's
/// index read square by square, its slot's row, sums in 32 bits, the result clipped to the
/// correction's limit.
fn reference_correction(weights: &NetworkWeights, board: &Board) -> i32 {
    let tables = tables();
    let mut rows: Vec<usize> = tables
        .instances
        .iter()
        .map(|i| tables.slot_of_index[i.kind][instance_index(board, &i.squares)] as usize)
        .collect();
    rows.extend(feature_offsets(board).map(|offset| tables.feature_base() + offset));
    let phase = phase_of(board.empty_count());
    let mut output = 0i64;
    for unit in 0..HIDDEN {
        let sum: i32 = i32::from(weights.hidden_bias[unit])
            + rows
                .iter()
                .map(|&r| i32::from(weights.rows[r][unit]))
                .sum::<i32>();
        assert!(
            sum.abs() <= i16::MAX as i32,
            "the bounds keep sums in 16 bits"
        );
        output += i64::from(sum.clamp(0, ACTIVATION_ONE)) * i64::from(weights.output[phase][unit]);
    }
    ((output >> 7) as i32 + weights.output_bias[phase]).clamp(-CORRECTION_LIMIT, CORRECTION_LIMIT)
}

/// Positions from random playouts of every length.
fn positions() -> Vec<Board> {
    (0..400u64)
        .map(|n| playout(&pseudo_random_bytes(n, (n % 61) as usize)))
        .filter(|b| !b.is_game_over())
        .collect()
}

#[test]
fn the_integer_network_equals_the_reference_at_every_level() {
    let (weights, network) = random_network();
    let linear = PatternEvaluator::built_in();
    let level = cpu::level();
    let mut corrections = [0usize; 3];
    for board in positions() {
        let correction = reference_correction(weights, &board);
        let expected = linear.raw(&board) + correction;
        assert_eq!(network.correction(&board), expected - linear.raw(&board));
        assert_eq!(network.raw_at(IsaBaseline, &board), expected, "{board:?}");
        if level >= Level::V3 {
            // SAFETY: the CPU has x86-64-v3.
            let v3 = unsafe { IsaV3::new_unchecked() };
            assert_eq!(network.raw_at(v3, &board), expected, "x86-64-v3, {board:?}");
        }
        if level >= Level::V4 {
            // SAFETY: the CPU has x86-64-v4.
            let v4 = unsafe { IsaV4::new_unchecked() };
            assert_eq!(network.raw_at(v4, &board), expected, "x86-64-v4, {board:?}");
        }
        corrections[match correction.abs() {
            0 => 0,
            CORRECTION_LIMIT => 2,
            _ => 1,
        }] += 1;
    }
    assert!(
        corrections[1] > 100 && corrections[2] > 50,
        "the random network corrects scores, some up to the limit (none, some, the limit): \
         {corrections:?}"
    );
}

/// The moves of `board` whose positions are not finished games, with those positions.
fn children_not_over(board: &Board) -> impl Iterator<Item = (usize, Board)> + '_ {
    Squares(board.moves())
        .map(|square| (square, board.play(square).expect("a legal move")))
        .filter(|(_, child)| !child.is_game_over())
}

#[test]
fn children_scored_from_their_parents_indices_equal_their_own_evaluation() {
    let (_, network) = random_network();
    let evaluation = Evaluation::Network(Arc::clone(network));
    for board in positions() {
        let children = evaluation.children_of(IsaBaseline, &board);
        for (square, child) in children_not_over(&board) {
            assert_eq!(
                children(square, &child, (-INFINITY, INFINITY)),
                network.evaluate(&child),
                "{board:?} {square}"
            );
        }
    }
}

/// Move ordering asks the network's linear part alone, which costs what the linear evaluation
/// costs; the other evaluations order by their own scores.
#[test]
fn children_scored_for_ordering_take_the_networks_linear_part() {
    let (_, network) = random_network();
    let linear = PatternEvaluator::built_in();
    let evaluation = Evaluation::Network(Arc::clone(network));
    let mut differ = 0;
    for board in positions() {
        let ordering = evaluation.children_for_ordering(IsaBaseline, &board);
        let own = Evaluation::linear();
        let own_ordering = own.children_for_ordering(IsaBaseline, &board);
        for (square, child) in children_not_over(&board) {
            assert_eq!(ordering(square, &child), linear.evaluate(&child));
            assert_eq!(own_ordering(square, &child), linear.evaluate(&child));
            differ += usize::from(network.evaluate(&child) != linear.evaluate(&child));
        }
    }
    assert!(
        differ > 1000,
        "the network changes the scores it orders by: {differ}"
    );
}

/// Within a window, a child's score is exact inside it and a true bound outside it, and the
/// network is skipped (the bound differs from the score) when the linear score is far enough
/// outside.
#[test]
fn children_scored_within_a_window_are_exact_inside_it_and_bounds_outside() {
    let (_, network) = random_network();
    let evaluation = Evaluation::Network(Arc::clone(network));
    let mut bounded = [0usize; 2];
    for board in positions() {
        let children = evaluation.children_of(IsaBaseline, &board);
        for (square, child) in children_not_over(&board) {
            let exact = network.evaluate(&child);
            for lower in (-20..=20).step_by(5).map(|shift| exact + shift) {
                for width in [1, 3, 9] {
                    let window = (lower, lower + width);
                    let score = children(square, &child, window);
                    let context = format!("{board:?} {square} {window:?}: {score} for {exact}");
                    if score <= window.0 {
                        assert!(exact <= score, "not an upper bound: {context}");
                        bounded[usize::from(score != exact)] += 1;
                    } else if score >= window.1 {
                        assert!(exact >= score, "not a lower bound: {context}");
                        bounded[usize::from(score != exact)] += 1;
                    } else {
                        assert_eq!(score, exact, "not exact inside the window: {context}");
                    }
                }
            }
        }
    }
    assert!(
        bounded[1] > 1000 && bounded[0] > 1000,
        "scores outside the window, exact and only bounds: {bounded:?}"
    );
}

/// Alpha-beta with the network evaluation (its children scored within windows at the frontier)
/// finds what plain minimax finds.
#[test]
fn alpha_beta_with_the_network_equals_plain_minimax() {
    let (_, network) = random_network();
    let evaluation = Evaluation::Network(Arc::clone(network));
    let single = one_thread_pool();
    for board in positions().into_iter().step_by(5) {
        for depth in 1..=4 {
            let score = full_width_alpha_beta(&single, &board, depth, &evaluation);
            assert_eq!(
                score,
                minimax(&board, depth, &evaluation),
                "{board:?} depth {depth}"
            );
        }
    }
}

/// `bytes` with the header's checksum made right for its payload again.
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let checksum = fnv1a_words(&bytes[44..]);
    bytes[36..44].copy_from_slice(&checksum.to_le_bytes());
    bytes
}

#[test]
fn network_files_round_trip_and_damaged_ones_are_refused() {
    let (weights, _) = random_network();
    let bytes = weights.to_bytes();
    assert_eq!(NetworkWeights::from_bytes(&bytes).as_ref(), Ok(weights));
    assert_eq!(
        NetworkWeights::from_bytes(b"OXELLOEV whatever"),
        Err(NetworkError::BadMagic)
    );
    assert!(matches!(
        NetworkWeights::from_bytes(&bytes[..30]),
        Err(NetworkError::Size(30))
    ));
    assert!(NetworkWeights::from_bytes(&bytes[..bytes.len() - 100]).is_err());
    // A flipped bit in the header's checksum, then in the weights.
    for at in [40, bytes.len() / 2] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        assert_eq!(
            NetworkWeights::from_bytes(&damaged),
            Err(NetworkError::Checksum),
            "byte {at}"
        );
    }
    // Weights beyond the bounds that keep the sums in 16 bits.
    let mut beyond = weights.clone();
    beyond.rows[5][3] = (ROW_LIMIT + 1) as i16;
    assert_eq!(
        NetworkWeights::from_bytes(&beyond.to_bytes()),
        Err(NetworkError::Range((ROW_LIMIT + 1) as i16))
    );
    assert_eq!(
        NetworkEvaluator::new(PatternEvaluator::built_in(), &beyond).err(),
        Some(NetworkError::Range((ROW_LIMIT + 1) as i16)),
        "weights made in memory are checked as a file's are"
    );
    let mut bias_beyond = weights.clone();
    bias_beyond.hidden_bias[7] = -(BIAS_LIMIT + 1) as i16;
    assert_eq!(
        NetworkWeights::from_bytes(&bias_beyond.to_bytes()),
        Err(NetworkError::Range(-(BIAS_LIMIT + 1) as i16))
    );
    // Trained over other linear weights.
    let mut other = weights.clone();
    other.linear_checksum ^= 1;
    assert!(matches!(
        NetworkEvaluator::from_bytes(&other.to_bytes()),
        Err(NetworkError::Linear { .. })
    ));
}

#[test]
fn a_network_file_stores_only_the_rows_that_are_not_zero() {
    let (random, _) = random_network();
    let mut weights = random.clone();
    for (r, row) in weights.rows.iter_mut().enumerate() {
        if r % 10 != 3 {
            *row = [0; HIDDEN];
        }
    }
    let rows = weights.rows.len();
    let stored = rows.div_ceil(10);
    let bytes = weights.to_bytes();
    // The header, which rows are stored, those rows, the bias and output layers, the output
    // bias, and the table's length.
    let which = rows.div_ceil(64) * 8;
    let expected = 44 + which + (stored + 1 + PHASES) * HIDDEN * 2 + PHASES * 4 + 4;
    assert_eq!(bytes.len(), expected);
    assert_eq!(
        bytes[44], 0b0000_1000,
        "rows 3 and (in the next byte) 13 are stored"
    );
    assert_eq!(
        bytes[44 + which..44 + which + HIDDEN * 2],
        *weights.rows[3]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    );
    assert_eq!(NetworkWeights::from_bytes(&bytes), Ok(weights.clone()));
    let evaluator = NetworkEvaluator::from_bytes(&bytes).unwrap();
    let built = NetworkEvaluator::new(PatternEvaluator::built_in(), &weights).unwrap();
    assert_eq!(evaluator.fingerprint(), built.fingerprint());
    for board in positions().into_iter().step_by(7) {
        assert_eq!(evaluator.raw(&board), built.raw(&board), "{board:?}");
    }

    // A row marked beyond the last, and a stored row of zeros, are refused even when the
    // checksum agrees.
    let mut beyond_the_last = bytes.clone();
    beyond_the_last[44 + which - 1] |= 0x80;
    assert_eq!(
        NetworkWeights::from_bytes(&resealed(beyond_the_last)),
        Err(NetworkError::Layout(
            "a row beyond the last is marked stored"
        ))
    );
    let mut zero_row = bytes.clone();
    zero_row[44] |= 1;
    zero_row.splice(44 + which..44 + which, [0; HIDDEN * 2]);
    assert_eq!(
        NetworkWeights::from_bytes(&resealed(zero_row)),
        Err(NetworkError::Layout("a stored row is all zero"))
    );
}

/// The built-in Multi-ProbCut table with every deviation scaled by `scale`, to four decimals.
fn scaled_table(scale: f64) -> ProbCutTable {
    let mut table = ProbCutTable::built_in().clone();
    for fit in table
        .fits
        .iter_mut()
        .map(|f| &mut f.fit)
        .chain([&mut table.endgame])
    {
        fit.sigma = fit.sigma.map(|s| s * scale);
    }
    // As a file stores it: to four decimals.
    ProbCutTable::parse(&table.format()).unwrap()
}

/// A file of format version 1 or 2 (every row, gzip-compressed; version 1 without a table),
/// built from the layout documented in `src/eval/network/file.rs`, its payload edited by `edit`
/// before its checksum is taken.
fn compressed_network_file(
    weights: &NetworkWeights,
    version: u32,
    edit: impl Fn(&mut Vec<u8>),
) -> Vec<u8> {
    let mut payload = Vec::new();
    let words = weights
        .rows
        .iter()
        .chain(std::iter::once(&weights.hidden_bias))
        .chain(&weights.output)
        .flatten();
    for w in words {
        payload.extend_from_slice(&w.to_le_bytes());
    }
    for b in &weights.output_bias {
        payload.extend_from_slice(&b.to_le_bytes());
    }
    if version == 2 {
        let table = weights.probcut.as_ref().map(ProbCutTable::format);
        let table = table.unwrap_or_default();
        payload.extend_from_slice(&(table.len() as u32).to_le_bytes());
        payload.extend_from_slice(table.as_bytes());
    }
    edit(&mut payload);
    let mut file = b"OXELLONN".to_vec();
    let fields = [version, 3, HIDDEN as u32, PHASES as u32];
    for field in fields.into_iter().chain([weights.rows.len() as u32]) {
        file.extend_from_slice(&field.to_le_bytes());
    }
    file.extend_from_slice(&weights.linear_checksum.to_le_bytes());
    file.extend_from_slice(&fnv1a(&payload).to_le_bytes());
    let mut encoder = GzEncoder::new(file, flate2::Compression::fast());
    encoder.write_all(&payload).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn a_network_file_carries_its_multi_probcut_table_and_searches_cut_by_it() {
    let (weights, _) = random_network();
    assert_eq!(weights.probcut, None);
    let with_table = |table: ProbCutTable| NetworkWeights {
        probcut: Some(table),
        ..weights.clone()
    };
    let narrow = with_table(scaled_table(0.25));
    let bytes = narrow.to_bytes();
    assert_eq!(NetworkWeights::from_bytes(&bytes).as_ref(), Ok(&narrow));

    // Read as an engine reads it: the table is the network's, and it is part of the
    // fingerprint; without one, the built-in table.
    let path = scratch_dir("network-table").join("narrow.network");
    std::fs::write(&path, &bytes).unwrap();
    let narrow_evaluation = Evaluation::from_name(path.to_str().unwrap()).unwrap();
    assert_eq!(
        narrow_evaluation.probcut_table(),
        narrow.probcut.as_ref().unwrap()
    );
    let plain = Evaluation::Network(Arc::clone(&random_network().1));
    assert_eq!(plain.probcut_table(), ProbCutTable::built_in());
    assert_ne!(narrow_evaluation.fingerprint(), plain.fingerprint());

    // A search at the default selectivity cuts by the evaluation's table: more with narrow
    // deviations, less with wide ones.
    let wide = NetworkEvaluator::new(PatternEvaluator::built_in(), &with_table(scaled_table(4.0)))
        .unwrap();
    let narrow = Arc::new(NetworkEvaluator::new(PatternEvaluator::built_in(), &narrow).unwrap());
    let wide = Arc::new(wide);
    let nodes = |evaluator: &Arc<NetworkEvaluator>| -> u64 {
        positions()
            .into_iter()
            .filter(|board| board.empty_count() >= 30)
            .step_by(6)
            .map(|board| selective_search_nodes(&board, 8, evaluator))
            .sum()
    };
    let (narrow_nodes, wide_nodes) = (nodes(&narrow), nodes(&wide));
    assert!(
        narrow_nodes < wide_nodes,
        "narrow table {narrow_nodes} nodes, wide one {wide_nodes}"
    );
}

/// The nodes of an engine's one-thread search of `board` to `depth` at the default
/// selectivity.
fn selective_search_nodes(board: &Board, depth: u32, evaluator: &Arc<NetworkEvaluator>) -> u64 {
    let options = EngineOptions {
        threads: 1,
        hash_mib: 1,
    };
    let mut engine =
        Engine::with_evaluation(options, Evaluation::Network(Arc::clone(evaluator))).unwrap();
    let (limits, options) = full_width_to(depth);
    let options = SearchOptions {
        selectivity: DEFAULT_SELECTIVITY,
        ..options
    };
    let position = Position {
        board: *board,
        side_to_move: Color::Black,
    };
    let result = engine.search_at(&position, &limits, options, &mut |_| {});
    assert_eq!(
        result.selectivity, DEFAULT_SELECTIVITY,
        "a selective iteration"
    );
    result.nodes
}

#[test]
fn compressed_network_files_of_versions_1_and_2_are_still_read_and_damaged_tables_refused() {
    let (weights, _) = random_network();
    let version_1 = compressed_network_file(weights, 1, |_| {});
    assert_eq!(NetworkWeights::from_bytes(&version_1).as_ref(), Ok(weights));
    let with_table = NetworkWeights {
        probcut: Some(scaled_table(0.5)),
        ..weights.clone()
    };
    let version_2 = compressed_network_file(&with_table, 2, |_| {});
    assert_eq!(
        NetworkWeights::from_bytes(&version_2),
        Ok(with_table.clone())
    );
    // Read as today's files are: the same evaluator.
    let built = NetworkEvaluator::new(PatternEvaluator::built_in(), &with_table).unwrap();
    assert_eq!(
        NetworkEvaluator::from_bytes(&version_2)
            .unwrap()
            .fingerprint(),
        built.fingerprint()
    );

    let damaged = compressed_network_file(&with_table, 2, |payload| {
        let at = payload.len() - 30;
        payload[at] = b'x';
    });
    assert!(
        matches!(
            NetworkWeights::from_bytes(&damaged),
            Err(NetworkError::Table(_))
        ),
        "{:?}",
        NetworkWeights::from_bytes(&damaged).err()
    );
    let cut_short = compressed_network_file(&with_table, 2, |payload| {
        payload.truncate(payload.len() - 1)
    });
    assert!(matches!(
        NetworkWeights::from_bytes(&cut_short),
        Err(NetworkError::Size(_))
    ));
    // The same damage to today's format, its checksum made right.
    let mut damaged = with_table.to_bytes();
    let at = damaged.len() - 30;
    damaged[at] = b'x';
    assert!(matches!(
        NetworkWeights::from_bytes(&resealed(damaged)),
        Err(NetworkError::Table(_))
    ));
}

/// The engine's default is the built-in network, over the built-in linear weights and with a
/// Multi-ProbCut table of its own; `linear` names the linear weights alone, and `tune-mpc`
/// reads the built-in network's file by its names.
#[test]
fn the_built_in_network_is_the_default_and_carries_its_own_table() {
    let Evaluation::Network(network) = Evaluation::default() else {
        panic!("the default evaluation is the network")
    };
    assert!(network.has_probcut_table());
    assert_eq!(
        network.linear().checksum(),
        PatternEvaluator::built_in().checksum()
    );
    for name in ["network", "builtin", "built-in"] {
        let named = Evaluation::from_name(name).unwrap();
        assert_eq!(named.fingerprint(), network.fingerprint(), "{name}");
        let file = Evaluation::network_file(name).unwrap();
        assert_eq!(
            NetworkEvaluator::from_bytes(&file).unwrap().fingerprint(),
            network.fingerprint()
        );
    }
    let linear = Evaluation::from_name("linear").unwrap();
    assert!(matches!(linear, Evaluation::Patterns(_)));
    assert_eq!(
        linear.fingerprint(),
        PatternEvaluator::built_in().checksum()
    );
}

#[test]
fn an_engine_reads_a_network_file_by_its_magic_and_refuses_a_damaged_one() {
    let (weights, network) = random_network();
    let path = scratch_dir("network-file").join("random.network");
    std::fs::write(&path, weights.to_bytes()).unwrap();
    let evaluation = Evaluation::from_name(path.to_str().unwrap()).expect("a network file");
    assert!(matches!(evaluation, Evaluation::Network(_)));
    assert_eq!(evaluation.fingerprint(), network.fingerprint());
    assert_ne!(
        evaluation.fingerprint(),
        Evaluation::default().fingerprint()
    );
    let mut damaged = weights.to_bytes();
    damaged[40] ^= 1;
    std::fs::write(&path, damaged).unwrap();
    let refused = Evaluation::from_name(path.to_str().unwrap()).unwrap_err();
    assert!(refused.contains("checksum"), "{refused}");
}

/// A few thousand labelled positions of the committed training shards.
fn training_samples() -> Vec<Sample> {
    let linear = PatternEvaluator::built_in();
    let games = label_examples(&[data_file("training/wthor-d10-e20-s0of64.lgz")]).unwrap();
    games
        .iter()
        .take(200)
        .flat_map(|(_, examples)| examples)
        .map(|e| Sample::new(&linear, &e.board, e.label, 1.0, true))
        .collect()
}

#[test]
fn training_lowers_the_loss_deterministically_and_quantising_keeps_it() {
    // Validated on the training set itself: the loss it lowers is the one it trains on.
    let training = training_samples();
    let validation = &training;
    assert!(training.len() > 5000, "{}", training.len());
    let config = NetworkTrainConfig {
        epochs: 3,
        batch: 256,
        learning_rate: 0.01,
        patience: 3,
        ..NetworkTrainConfig::default()
    };
    let start = FloatNetwork::initial(config.seed);
    let (before, _) = errors(&start, &training);
    let mut reports = Vec::new();
    let trained = train_network(&training, validation, &config, &|| {}, &mut |r| {
        reports.push(*r)
    });
    let (after, _) = errors(&trained, &training);
    assert!(after < 0.8 * before, "training loss {before} -> {after}");
    assert!(!reports.is_empty());
    let again = train_network(&training, validation, &config, &|| {}, &mut |_| {});
    assert_eq!(trained, again, "the same seed gives the same network");
    // The integer network scores as the float one, within rounding.
    let linear = PatternEvaluator::built_in();
    let weights = trained.quantised(linear.checksum());
    let evaluator = NetworkEvaluator::new(linear, &weights).unwrap();
    let mut off = 0.0;
    for sample in validation {
        off += (evaluator.raw(sample.board()) as f32 / 256.0 - trained.predict(sample)).abs();
    }
    assert!(
        off / (validation.len() as f32) < 0.05,
        "mean rounding {off}"
    );
    assert_eq!(weights.output.len(), PHASES);
}

#[test]
fn the_engine_searches_the_same_with_the_network_laid_out_on_a_thread_of_its_own() {
    let options = EngineOptions {
        threads: 1,
        hash_mib: 1,
    };
    let deferred = DeferredEvaluation::from_name("network").unwrap();
    let mut late = Engine::with_evaluation(options, deferred).unwrap();
    let mut direct = Engine::with_evaluation(options, Evaluation::default()).unwrap();
    assert_eq!(
        late.evaluation().fingerprint(),
        direct.evaluation().fingerprint()
    );
    let (limits, search_options) = full_width_to(6);
    for choices in [&[][..], &[3, 1, 4, 1, 5, 9, 2, 6]] {
        let position = Position {
            board: playout(choices),
            side_to_move: Color::Black,
        };
        let from_late = late.search_at(&position, &limits, search_options, &mut |_| {});
        let from_direct = direct.search_at(&position, &limits, search_options, &mut |_| {});
        assert_eq!(
            (from_late.score, from_late.best_move, from_late.nodes),
            (from_direct.score, from_direct.best_move, from_direct.nodes)
        );
    }
}

#[test]
fn other_evaluations_are_read_at_once_and_a_missing_file_refused_before_the_engine_starts() {
    let linear = DeferredEvaluation::from_name("linear").unwrap();
    assert_eq!(
        linear.get().fingerprint(),
        Evaluation::linear().fingerprint()
    );
    let error = DeferredEvaluation::from_name("/no/such/network").unwrap_err();
    assert!(error.contains("cannot read"), "{error}");
    let mut engine = std::process::Command::new(env!("CARGO_BIN_EXE_oxello"))
        .args(["--eval", "/no/such/network"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    engine.stdin.take().unwrap().write_all(b"name\n").ok();
    let output = engine.wait_with_output().unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "answered before refusing");
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read weights"));
}

#[test]
fn perft_reads_no_evaluation_and_a_tool_that_evaluates_refuses_a_missing_file() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_oxello"))
            .args(["--eval", "/no/such/network"])
            .args(args)
            .output()
            .unwrap()
    };
    let perft = run(&["perft", "3"]);
    assert!(perft.status.success(), "{perft:?}");
    assert!(String::from_utf8_lossy(&perft.stdout).contains("perft 3: 56 leaves"));
    let bench = run(&["bench", "--depth", "1"]);
    assert!(!bench.status.success());
    assert!(bench.stdout.is_empty());
    assert!(String::from_utf8_lossy(&bench.stderr).contains("cannot read weights"));
}
