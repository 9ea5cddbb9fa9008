//! Perft: counts the leaves of the game tree to a fixed depth, to check move generation against
//! published counts and to measure its speed.
//!
//! Two conventions exist. By default a pass is a ply of its own (`PassCounting::AsPly`); with
//! `PassCounting::Free` a pass is made without using up depth. A finished game before the
//! depth is reached counts as one leaf in both.

use crate::board::Board;
use crate::cpu::{per_level, Isa};
use rayon::prelude::*;

/// How passes count towards the depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassCounting {
    /// A pass uses up one ply, like a move.
    AsPly,
    /// A pass uses up no depth.
    Free,
}

/// Leaves of the tree below `board` at `depth` plies, single-threaded, at the instruction-set
/// level the CPU allows.
pub fn perft(board: &Board, depth: u32, passes: PassCounting) -> u64 {
    LeafCounter { passes }.count(board, depth)
}

/// Perft's recursion, compiled once per instruction-set level ([`per_level!`]) like the
/// search's, so that the portable binary counts at the speed of a build for its CPU.
struct LeafCounter {
    passes: PassCounting,
}

impl LeafCounter {
    per_level! {
        /// Leaves below `board` at `depth` plies ([`Self::count_body`]).
        fn count[count_at, count_v4, count_v3, count_baseline](
            &mut self, board: &Board, depth: u32
        ) -> u64 => count_body;
    }

    /// [`perft`] from code at the level of `isa`.
    #[inline(always)]
    fn count_body<I: Isa>(&mut self, isa: I, board: &Board, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut moves = board.moves_at(isa);
        if moves == 0 {
            let passed = board.pass();
            if passed.moves_at(isa) == 0 {
                return 1;
            }
            let depth = match self.passes {
                PassCounting::AsPly => depth - 1,
                PassCounting::Free => depth,
            };
            return self.count_at(isa, &passed, depth);
        }
        if depth == 1 {
            return u64::from(moves.count_ones());
        }
        let mut leaves = 0;
        while moves != 0 {
            let square = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let child = board.play_with_flips(square, board.flips_at(isa, square));
            leaves += self.count_at(isa, &child, depth - 1);
        }
        leaves
    }
}

/// Leaves of the tree below `board` at `depth` plies, the work split over the current rayon
/// pool below the first few plies.
pub fn perft_parallel(board: &Board, depth: u32, passes: PassCounting) -> u64 {
    const SPLIT_DEPTH: u32 = 3;
    let mut frontier = vec![(*board, depth)];
    let mut leaves = 0;
    for _ in 0..SPLIT_DEPTH {
        let mut next = Vec::with_capacity(frontier.len() * 10);
        for (b, d) in frontier {
            if d <= 6 || b.is_game_over() {
                leaves += perft(&b, d, passes);
                continue;
            }
            let moves = b.moves();
            if moves == 0 {
                let used = u32::from(passes == PassCounting::AsPly);
                next.push((b.pass(), d - used));
            } else {
                next.extend(
                    crate::board::Squares(moves)
                        .map(|sq| (b.play_with_flips(sq, b.flips(sq)), d - 1)),
                );
            }
        }
        frontier = next;
    }
    leaves
        + frontier
            .par_iter()
            .map(|(b, d)| perft(b, *d, passes))
            .sum::<u64>()
}
/// `oxello perft`: counts the leaves of the game tree from the start position.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// Plies to search.
    depth: u32,
    /// Do not count a pass as a ply (the other published convention).
    #[arg(long)]
    no_pass_ply: bool,
}

/// Runs `oxello perft` on `threads` threads and prints the count and the speed.
pub fn run(args: &PerftArgs, threads: usize) -> anyhow::Result<()> {
    let passes = if args.no_pass_ply {
        PassCounting::Free
    } else {
        PassCounting::AsPly
    };
    let start = std::time::Instant::now();
    let leaves = if threads <= 1 {
        perft(&Board::START, args.depth, passes)
    } else {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        pool.install(|| perft_parallel(&Board::START, args.depth, passes))
    };
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "perft {}: {leaves} leaves in {seconds:.3} s ({:.0} leaves/s)",
        args.depth,
        leaves as f64 / seconds.max(1e-9)
    );
    Ok(())
}
