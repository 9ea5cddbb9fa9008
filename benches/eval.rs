//! Criterion benchmarks of the evaluation: the trained patterns read through per-phase tables
//! indexed directly (what the search uses) against the same sum through weight slots (index to
//! slot, slot to weight: what training uses), and the hand-made evaluation.

use criterion::{criterion_group, criterion_main, Criterion};
use oxello::board::Board;
use oxello::eval::indices::for_each_slot;
use oxello::eval::patterns::phase_of;
use oxello::eval::{Evaluator, PatternEvaluator, SimpleEvaluator};
use std::hint::black_box;

mod common;
use common::sample_boards;

fn bench_eval(c: &mut Criterion) {
    let boards = sample_boards();
    let patterns = PatternEvaluator::built_in();
    let weights = PatternEvaluator::built_in_weights();
    let through_slots = |board: &Board| {
        let phase = weights.phase(phase_of(board.empty_count()));
        let mut sum = 0i32;
        for_each_slot(board, |slot| sum += i32::from(phase[slot]));
        sum
    };
    for board in &boards {
        assert_eq!(patterns.raw(board), through_slots(board), "both sums agree");
    }
    c.bench_function("patterns, direct tables x256", |bench| {
        bench.iter(|| {
            boards
                .iter()
                .map(|b| patterns.raw(black_box(b)))
                .sum::<i32>()
        })
    });
    c.bench_function("patterns, through slots x256", |bench| {
        bench.iter(|| {
            boards
                .iter()
                .map(|b| through_slots(black_box(b)))
                .sum::<i32>()
        })
    });
    c.bench_function("simple x256", |bench| {
        bench.iter(|| {
            boards
                .iter()
                .map(|b| SimpleEvaluator.evaluate(black_box(b)))
                .sum::<i32>()
        })
    });
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
