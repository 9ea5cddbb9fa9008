//! Every instruction-set level the binary can run its search at gives the same search: the
//! `bench` node signature and the exact FFO scores, through the real binary with the level
//! capped by `OXELLO_CPU`. In the default build (for the lowest x86-64) that runs the
//! baseline, x86-64-v3 and x86-64-v4 clones of the search that the CPU has; a build that
//! targets a level (`RUSTFLAGS="-C target-cpu=native"`) has only that one and must say so
//! whatever the variable asks.

use oxello::cpu::{Level, BUILD_LEVEL, LEVEL_VARIABLE};
use std::process::Command;

const LEVELS: [Level; 3] = [Level::Baseline, Level::V3, Level::V4];

/// Runs the binary with `args`, the level capped at `cap` if given; returns stdout.
fn oxello(cap: Option<Level>, args: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_oxello"));
    command.args(args).env_remove(LEVEL_VARIABLE);
    if let Some(level) = cap {
        command.env(LEVEL_VARIABLE, level.name());
    }
    let out = command.output().expect("the binary runs");
    assert!(
        out.status.success(),
        "{args:?} at {cap:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The level `bench` reports and its signature line.
fn bench(cap: Option<Level>) -> (Level, String) {
    let out = oxello(cap, &["bench", "--depth", "11", "--threads", "1"]);
    let level = out
        .lines()
        .find_map(|line| line.strip_prefix("instruction set "))
        .and_then(Level::from_name)
        .unwrap_or_else(|| panic!("no instruction set line in:\n{out}"));
    let signature = out.lines().last().expect("a signature line").to_string();
    assert!(signature.ends_with("nps"), "{signature}");
    let nodes = signature.split(" nodes").next().unwrap().to_string();
    (level, nodes)
}

#[test]
fn every_level_searches_the_same_tree() {
    let (highest, nodes) = bench(None);
    if let Some(built) = BUILD_LEVEL {
        assert_eq!(highest, built);
    }
    for cap in LEVELS {
        let (level, level_nodes) = bench(Some(cap));
        let expected = BUILD_LEVEL.unwrap_or(cap.min(highest));
        assert_eq!(level, expected, "asked for {}", cap.name());
        assert_eq!(level_nodes, nodes, "bench signature at {}", level.name());
    }
}

#[test]
fn every_level_solves_the_ffo_positions_exactly() {
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/data/fforum-20-39.obf");
    let first_four: String = std::fs::read_to_string(suite)
        .expect("the FFO suite is in the repository")
        .lines()
        .take(4)
        .map(|line| format!("{line}\n"))
        .collect();
    let dir = std::env::temp_dir().join(format!("oxello-cpu-levels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ffo-20-23.obf");
    std::fs::write(&file, first_four).unwrap();
    let path = file.to_str().unwrap();
    for cap in LEVELS {
        let out = oxello(
            Some(cap),
            &["solve", path, "--threads", "1", "--hash", "64"],
        );
        assert!(
            out.contains("total: 4/4 right"),
            "at {}:\n{out}",
            cap.name()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
