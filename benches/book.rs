//! Criterion benchmarks of the opening book in play: the engine's lookup of a move in the
//! built-in book, for positions in the book (in an orientation other than the stored one) and
//! for positions just outside it.

use criterion::{criterion_group, criterion_main, Criterion};
use oxello::board::{Board, Color, Position, Squares, Symmetry};
use oxello::book::Book;
use std::hint::black_box;

/// A position for the lookup; which colour moves only sets the allowance of `--book-random`.
fn black_to_move(board: Board) -> Position {
    Position {
        board,
        side_to_move: Color::Black,
    }
}

fn bench_book(c: &mut Criterion) {
    let book = Book::builtin();
    let step = (book.len() / 256).max(1);
    let in_book: Vec<_> = book
        .entries()
        .iter()
        .step_by(step)
        .take(256)
        .map(|e| black_to_move(e.board.transformed(Symmetry::Rotate90)))
        .collect();
    let outside: Vec<_> = book
        .entries()
        .iter()
        .flat_map(|e| Squares(e.board.moves()).map(move |sq| e.board.play(sq).unwrap()))
        .filter(|next| next.moves() != 0 && !book.contains(next))
        .step_by(7)
        .take(256)
        .map(black_to_move)
        .collect();
    assert!(in_book.iter().all(|b| book.choose(b, 2, 1).is_some()));
    assert!(outside.iter().all(|b| book.choose(b, 2, 1).is_none()));
    c.bench_function("book move, position in the book x256", |bench| {
        bench.iter(|| {
            in_book
                .iter()
                .filter_map(|b| book.choose(black_box(b), 2, 12345))
                .count()
        })
    });
    c.bench_function("book move, position outside the book x256", |bench| {
        bench.iter(|| {
            outside
                .iter()
                .filter_map(|b| book.choose(black_box(b), 2, 12345))
                .count()
        })
    });
}

criterion_group!(benches, bench_book);
criterion_main!(benches);
