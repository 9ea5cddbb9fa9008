//! What the long jobs share (labelling, selfplay, book building, fits, solving suites):
//! engines mapped over many items in parallel, progress bars, `--shard i/n` and opening lists.

pub mod openings;

use crate::engine::{Engine, EngineOptions};
use crate::eval::Evaluation;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Maps `items` in parallel on `workers` single-threaded engines, keeping their order.
///
/// Each worker is a plain thread with an engine of its own, taking the next item not yet
/// taken. (A rayon parallel iterator would not do: a worker blocked in its engine's pool steals
/// other items of the iterator meanwhile, nesting searches on its stack until it overflows.)
pub fn map_on_engines<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    options: EngineOptions,
    evaluation: &Evaluation,
    work: impl Fn(&mut Engine, &T) -> R + Sync,
) -> anyhow::Result<Vec<R>> {
    let next = AtomicUsize::new(0);
    let workers = workers.min(items.len()).max(1);
    let results: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<Vec<(usize, R)>> {
                    let mut engine = Engine::with_evaluation(options, evaluation.clone())?;
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return Ok(done);
                        };
                        done.push((i, work(&mut engine, item)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an engine worker panicked"))
            .collect::<anyhow::Result<_>>()
    })?;
    let mut all: Vec<(usize, R)> = results.into_iter().flatten().collect();
    all.sort_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, r)| r).collect())
}

/// A progress bar on stderr over `len` steps, drawn by an indicatif `template`.
pub fn progress_bar(len: u64, template: &str) -> indicatif::ProgressBar {
    indicatif::ProgressBar::new(len).with_style(
        indicatif::ProgressStyle::with_template(template)
            .expect("the tools' progress templates are valid"),
    )
}

/// Parses a `--shard i/n` option: this machine's share of a run split into `n` (`i < n`).
pub fn parse_shard(text: &str) -> anyhow::Result<(u64, u64)> {
    let bad = || anyhow::anyhow!("--shard takes i/n with i < n, not '{text}'");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (u64, u64) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_i_of_n() {
        assert_eq!(parse_shard("0/1").unwrap(), (0, 1));
        assert_eq!(parse_shard("3/4").unwrap(), (3, 4));
        for bad in ["4/4", "1/0", "1", "a/2", "1/b", "-1/2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }
}
