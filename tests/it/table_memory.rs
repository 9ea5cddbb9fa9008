//! A big transposition table costs nothing up front, through the real binary: the engine
//! started with `--hash 4096` answers its first command at once, and `solve`'s wall time is
//! its search time (the table's memory is mapped beside the work, not before it). The margins
//! are generous, for a busy machine; mapping 4 GiB before answering took seconds.

use crate::common::cli::{oxello_in, scratch_dir, text};
use crate::common::engine_process::EngineProcess;
use std::time::{Duration, Instant};

#[test]
fn an_engine_with_a_big_table_answers_at_once() {
    for protocol in ["gtp", "nboard"] {
        let started = Instant::now();
        let mut e = EngineProcess::start(&["--hash", "4096", "--threads", "1"]);
        let answer = if protocol == "gtp" {
            e.gtp("name")
        } else {
            e.send("nboard 2");
            e.send("ping 1");
            e.until(Duration::from_secs(60), |l| l == "pong 1")
        };
        let waited = started.elapsed();
        assert!(
            answer.iter().any(|l| l.contains("oxello") || l == "pong 1"),
            "{answer:?}"
        );
        assert!(
            waited < Duration::from_secs(1),
            "{protocol}: the first answer took {waited:?}"
        );
        // The engine searches at once too, from the part of the table mapped so far.
        if protocol == "gtp" {
            let reply = e.gtp("genmove b");
            assert!(reply[0].starts_with("= "), "{reply:?}");
        }
        assert!(e.close(Duration::from_secs(10)).success());
    }
}

#[test]
fn solving_with_a_big_table_takes_its_search_time() {
    let dir = scratch_dir("table-solve");
    let suite = crate::common::data_file("fforum-20-39.obf");
    let first = std::fs::read_to_string(&suite)
        .unwrap()
        .lines()
        .take(5)
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.join("five.obf"), first + "\n").unwrap();
    let started = Instant::now();
    let out = oxello_in(
        &dir,
        &["solve", "five.obf", "--hash", "4096", "--threads", "1"],
    );
    let wall = started.elapsed();
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    let total = report
        .lines()
        .find(|l| l.starts_with("total: 5/5 right"))
        .expect("all five solved");
    let search: f64 = total
        .split(", ")
        .find_map(|field| field.strip_suffix(" s")?.parse().ok())
        .expect("the search time");
    assert!(
        wall.as_secs_f64() < search + 1.0,
        "solve took {wall:?} for {search} s of search"
    );
    std::fs::remove_dir_all(&dir).ok();
}
