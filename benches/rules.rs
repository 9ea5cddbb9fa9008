//! Criterion benchmarks of the rules core: move generation, flips, the last square's flip
//! count, and perft.

use criterion::{criterion_group, criterion_main, Criterion};
#[cfg(target_arch = "x86_64")]
use oxello::board::flips_avx2;
use oxello::board::{
    flips, flips_portable, last_flip_count, legal_moves, legal_moves_portable, Board, Squares,
};
use oxello::tools::perft::{perft, PassCounting};
use std::hint::black_box;

mod common;
use common::sample_boards;

fn bench_rules(c: &mut Criterion) {
    let boards = sample_boards();
    let moves: Vec<(Board, usize)> = boards
        .iter()
        .flat_map(|b| Squares(b.moves()).map(move |sq| (*b, sq)))
        .collect();

    c.bench_function("legal_moves x256", |bench| {
        bench.iter(|| {
            boards.iter().fold(0u64, |acc, b| {
                acc ^ legal_moves(black_box(b.player), b.opponent)
            })
        })
    });
    c.bench_function("legal_moves_portable x256", |bench| {
        bench.iter(|| {
            boards.iter().fold(0u64, |acc, b| {
                acc ^ legal_moves_portable(black_box(b.player), b.opponent)
            })
        })
    });
    c.bench_function(&format!("flips x{}", moves.len()), |bench| {
        bench.iter(|| {
            moves.iter().fold(0u64, |acc, (b, sq)| {
                acc ^ flips(black_box(*sq), b.player, b.opponent)
            })
        })
    });
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        c.bench_function(&format!("flips_avx2 x{}", moves.len()), |bench| {
            bench.iter(|| {
                moves.iter().fold(0u64, |acc, (b, sq)| {
                    // SAFETY: the CPU was just found to support AVX2.
                    acc ^ unsafe { flips_avx2(black_box(*sq), b.player, b.opponent) }
                })
            })
        });
    }
    c.bench_function(&format!("flips_portable x{}", moves.len()), |bench| {
        bench.iter(|| {
            moves.iter().fold(0u64, |acc, (b, sq)| {
                acc ^ flips_portable(black_box(*sq), b.player, b.opponent)
            })
        })
    });
    // The last empty square of a full board: a disc of either colour on every other square.
    let last_squares: Vec<(u64, usize)> = boards
        .iter()
        .map(|b| {
            let square = (b.player ^ b.opponent).trailing_zeros() as usize;
            (b.player & !(1u64 << square), square)
        })
        .collect();
    c.bench_function("last_flip_count x256", |bench| {
        bench.iter(|| {
            last_squares.iter().fold(0u32, |acc, &(mover, sq)| {
                acc ^ last_flip_count(black_box(sq), mover)
            })
        })
    });
    c.bench_function("flips count on the last square x256", |bench| {
        bench.iter(|| {
            last_squares.iter().fold(0u32, |acc, &(mover, sq)| {
                let opponent = !mover & !(1u64 << sq);
                acc ^ flips(black_box(sq), mover, opponent).count_ones()
            })
        })
    });
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("perft 8", |bench| {
        bench.iter(|| perft(black_box(&Board::START), 8, PassCounting::AsPly))
    });
    group.finish();
}

criterion_group!(benches, bench_rules);
criterion_main!(benches);
