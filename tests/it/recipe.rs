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
