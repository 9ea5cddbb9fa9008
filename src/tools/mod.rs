//! Command-line tools, each a module on top of the library.

pub mod arena;
pub mod bench;
pub mod dataset;
pub mod eval_error;
pub mod perft;
pub mod selfplay;
pub mod solve;
pub mod train;

/// A well-mixed hash of `value` under `seed` (SplitMix64's finaliser): the one source of
/// reproducible pseudo-random choices in the tools.
pub fn seeded_hash(seed: u64, value: u64) -> u64 {
    let mut z = seed ^ value.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
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
