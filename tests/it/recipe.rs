//! `train-network --recipe builtin` rebuilds the same network whatever the threads: the recipe
//! on a subset of its shards, with a small Multi-ProbCut fit, trained on one thread and on two.

use oxello::training::network::{fingerprints, rebuild, Recipe};
use oxello::training::tune_mpc::FitSettings;
use std::path::Path;

/// The built-in recipe on one static shard, its fit on one WTHOR shard and fewer, shallower
/// searches, so that the test takes seconds.
fn small_recipe() -> Recipe {
    let mut recipe = Recipe::builtin(Path::new(env!("CARGO_MANIFEST_DIR")))
        .expect("the checkout holds the recipe's files");
    recipe
        .shards
        .retain(|s| s.ends_with("xot-d0-e20-s0of64.lgz"));
    recipe.fit_positions.truncate(1);
    recipe.fit = FitSettings {
        positions: 60,
        depth: 6,
        seed: 1,
        endgame_positions: 40,
        endgame_empties: 18,
    };
    recipe
}

#[test]
fn the_builtin_recipe_names_the_shards_of_the_built_in_network() {
    let recipe = Recipe::builtin(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert_eq!(recipe.shards.len(), 83);
    assert!(recipe.shards.iter().all(|s| s.is_file()));
    assert_eq!(recipe.fit_positions.len(), 5);
    assert!(Recipe::builtin(Path::new("/nonexistent")).is_err());
}

#[test]
fn a_share_of_the_recipe_takes_the_first_shards_of_each_series() {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    let whole = Recipe::builtin(repository).unwrap();
    let count = |share| {
        let part = Recipe::builtin_share(repository, share).unwrap();
        assert!(part.shards.iter().all(|s| whole.shards.contains(s)));
        assert_eq!(
            (&part.validation, &part.fit_positions, part.fit),
            (&whole.validation, &whole.fit_positions, whole.fit)
        );
        let series = ["wthor-d10-e20-", "xot-d10-e20-", "xot-d0-e20-"].map(|name| {
            part.shards
                .iter()
                .filter(|s| s.file_name().unwrap().to_str().unwrap().starts_with(name))
                .count()
        });
        let first = [
            "wthor-d10-e20-s0of64.lgz",
            "xot-d10-e20-s0of64.lgz",
            "xot-d0-e20-s0of64.lgz",
        ];
        assert!(first
            .iter()
            .all(|f| part.shards.iter().any(|s| s.ends_with(f))));
        series
    };
    // ceil(5/N), ceil(24/N), ceil(54/N): the shards of the points 1.18M, 4.51M, 8.90M.
    assert_eq!(count(1), [5, 24, 54]);
    assert_eq!(count(2), [3, 12, 27]);
    assert_eq!(count(4), [2, 6, 14]);
    assert_eq!(count(8), [1, 3, 7]);
    assert!(Recipe::builtin_share(repository, 0).is_err());
}

#[test]
fn labels_added_to_a_recipe_are_trained_beside_its_shards_and_must_exist() {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    let part = Recipe::builtin_share(repository, 8).unwrap();
    let added = vec![repository.join("data/training/xot-d0-e20-s53of64.lgz")];
    let grown = part.clone().with_added_labels(&added).unwrap();
    assert_eq!(grown.shards.len(), part.shards.len() + 1);
    assert_eq!(grown.shards.last(), added.last());
    assert_eq!(
        (&grown.validation, &grown.fit_positions, grown.fit),
        (&part.validation, &part.fit_positions, part.fit)
    );
    let missing = vec![repository.join("data/training/no-such-shard.lgz")];
    let error = part.with_added_labels(&missing).unwrap_err().to_string();
    assert!(error.contains("no-such-shard.lgz"), "{error}");
}

#[test]
fn a_recipe_rebuilds_the_same_network_on_one_thread_and_on_two() {
    let recipe = small_recipe();
    assert_eq!(recipe.shards.len(), 1);
    let on = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| rebuild(&recipe))
            .expect("the recipe trains")
    };
    let (one, two) = (on(1), on(2));
    assert_eq!(fingerprints(&one), fingerprints(&two));
    assert_eq!(one.to_bytes(), two.to_bytes());
    // A trained network with its own table, not an empty one.
    assert!(one.rows.iter().any(|row| row.iter().any(|&w| w != 0)));
    let table = one
        .probcut
        .as_ref()
        .expect("the rebuilt network carries its table");
    assert!(!table.fits.is_empty());
}
