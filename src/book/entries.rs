//! The book in memory: positions in canonical orientation with their values, lookup, negamax,
//! and the choice of a book move.

use crate::board::{Board, Color, Position, Squares, Symmetry};
use std::sync::{Arc, OnceLock};

/// The exit move of a position whose legal moves all stay in the book.
pub const NO_EXIT: u8 = 255;

/// Losses beyond this many discs weigh as this many in [`Book::choose`]'s odds (a 2^-32
/// chance is as good as none, and the shift stays in range).
const MAX_LOSS_WEIGHED: i32 = 32;

/// One book position, stored in its canonical orientation (see [`Board::canonical`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookEntry {
    /// The position, from the side to move.
    pub board: Board,
    /// The negamaxed value for the side to move, in discs.
    pub value: i8,
    /// The best move leaving the book (a square of the canonical board), or [`NO_EXIT`].
    pub exit_move: u8,
    /// The searched score of the exit move for the side to move.
    pub exit_score: i8,
    /// Depth of the exit's search in plies.
    pub depth: u8,
    /// Whether the exit's score is the exact final disc difference.
    pub exact: bool,
    /// How many of the build's games went through the position.
    pub games: u32,
}

impl BookEntry {
    /// The entry turned to its board's canonical orientation, exit move included.
    fn in_canonical_orientation(self) -> BookEntry {
        let (board, symmetry) = self.board.canonical();
        let exit_move = if self.exit_move == NO_EXIT {
            NO_EXIT
        } else {
            symmetry.apply_square(self.exit_move as usize) as u8
        };
        BookEntry {
            board,
            exit_move,
            ..self
        }
    }
}

/// A move the book knows, with its value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The square, in the orientation of the board asked about.
    pub square: u8,
    /// Discs for the side to move after best play along the book, then the searches.
    pub value: i32,
    /// Depth of the search behind the value (of the exit, or of the position reached).
    pub depth: u8,
    /// Whether the value is exact.
    pub exact: bool,
    /// Games of the build through the position the move reaches (0 for an exit).
    pub games: u32,
    /// Whether the move leaves the book.
    pub leaves_book: bool,
}

/// Whether a position belongs in a book: not over, and the side to move has a move (a
/// position that must pass is looked up after the pass).
pub fn is_book_position(board: &Board) -> bool {
    board.moves() != 0
}

/// The position the side to move faces after `square`: after the opponent's forced pass if
/// it has no move. The flag says whether the values there are the mover's (after a pass) or
/// the opponent's.
fn after_move(board: &Board, square: usize) -> Option<(Board, bool)> {
    let child = board.play(square)?;
    if child.moves() != 0 {
        return Some((child, false));
    }
    let passed = child.pass();
    (passed.moves() != 0).then_some((passed, true))
}

/// The legal moves of `board` that reach a position `known` holds (asked in canonical
/// orientation), as a square mask.
pub fn moves_reaching(board: &Board, known: impl Fn(&Board) -> bool) -> u64 {
    Squares(board.moves())
        .filter(|&square| {
            after_move(board, square).is_some_and(|(next, _)| known(&next.canonical().0))
        })
        .fold(0, |mask, square| mask | 1 << square)
}

/// A set of book positions, sorted for binary search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    pub(super) entries: Vec<BookEntry>,
}

impl Book {
    /// A book of `entries`, put in canonical orientation; of two entries for one position the
    /// one searched deeper stays. Values are negamaxed.
    pub fn new(entries: impl IntoIterator<Item = BookEntry>) -> Book {
        let mut book = Book {
            entries: entries
                .into_iter()
                .map(|e| e.in_canonical_orientation())
                .collect(),
        };
        book.entries.sort_by_key(|e| {
            (
                e.board.player,
                e.board.opponent,
                std::cmp::Reverse((e.exact, e.depth)),
            )
        });
        book.entries.dedup_by_key(|e| e.board);
        book.negamax();
        book
    }

    /// The default book, built into the binary.
    pub fn builtin() -> Arc<Book> {
        static BUILTIN: OnceLock<Arc<Book>> = OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                Arc::new(
                    Book::from_bytes(include_bytes!("oxello.book"))
                        .expect("the built-in book is valid"),
                )
            })
            .clone()
    }

    /// Every position, in canonical orientation and sorted order.
    pub fn entries(&self) -> &[BookEntry] {
        &self.entries
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Where a canonical position is in the sorted entries, or where it would go.
    fn search(&self, canonical_board: &Board) -> Result<usize, usize> {
        self.entries
            .binary_search_by_key(&(canonical_board.player, canonical_board.opponent), |e| {
                (e.board.player, e.board.opponent)
            })
    }

    fn index_of(&self, canonical_board: &Board) -> Option<usize> {
        self.search(canonical_board).ok()
    }

    /// The entry of `board` (in any orientation), if it is in the book.
    pub fn get(&self, board: &Board) -> Option<&BookEntry> {
        self.index_of(&board.canonical().0)
            .map(|i| &self.entries[i])
    }

    /// Whether `board` (in any orientation) is in the book.
    pub fn contains(&self, board: &Board) -> bool {
        self.get(board).is_some()
    }

    /// Adds a position or replaces its entry; values are not negamaxed again until
    /// [`Book::negamax`].
    pub fn insert(&mut self, entry: BookEntry) {
        let entry = entry.in_canonical_orientation();
        match self.search(&entry.board) {
            Ok(i) => self.entries[i] = entry,
            Err(i) => self.entries.insert(i, entry),
        }
    }

    /// The legal moves of `board` that reach book positions, as a square mask.
    pub fn moves_in_book(&self, board: &Board) -> u64 {
        moves_reaching(board, |next| self.index_of(next).is_some())
    }

    /// The moves the book knows from `board`, best first: those reaching book positions, and
    /// the exit. Empty when the position is not in the book.
    pub fn moves(&self, board: &Board) -> Vec<BookMove> {
        let Some(index) = self.index_of(&board.canonical().0) else {
            return Vec::new();
        };
        self.moves_of_entry(&self.entries[index], Some(board))
    }

    /// The moves of a book entry, seen on `oriented` (the entry's board in any orientation;
    /// `None`: the canonical one).
    fn moves_of_entry(&self, entry: &BookEntry, oriented: Option<&Board>) -> Vec<BookMove> {
        let board = oriented.copied().unwrap_or(entry.board);
        let to_board = Symmetry::ALL
            .into_iter()
            .find(|s| entry.board.transformed(*s) == board)
            .expect("the board is a symmetric form of the entry");
        let mut moves: Vec<BookMove> = Squares(board.moves())
            .filter_map(|square| {
                let (next, passed) = after_move(&board, square)?;
                let reached = self.get(&next)?;
                let value = i32::from(reached.value);
                Some(BookMove {
                    square: square as u8,
                    value: if passed { value } else { -value },
                    depth: reached.depth,
                    exact: reached.exact,
                    games: reached.games,
                    leaves_book: false,
                })
            })
            .collect();
        if entry.exit_move != NO_EXIT {
            let square = to_board.apply_square(entry.exit_move as usize) as u8;
            if moves.iter().all(|m| m.square != square) {
                moves.push(BookMove {
                    square,
                    value: i32::from(entry.exit_score),
                    depth: entry.depth,
                    exact: entry.exact,
                    games: 0,
                    leaves_book: true,
                });
            }
        }
        moves.sort_by_key(|m| (std::cmp::Reverse(m.value), m.square));
        moves
    }

    /// Recomputes every value from the exits up: a position is worth its best book move. The
    /// positions with the most discs come first, so a position's successors are final before
    /// it is.
    pub fn negamax(&mut self) {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| {
            let b = self.entries[i].board;
            std::cmp::Reverse((b.player | b.opponent).count_ones())
        });
        for i in order {
            let entry = self.entries[i];
            if let Some(best) = self.moves_of_entry(&entry, None).first() {
                self.entries[i].value = best.value.clamp(-64, 64) as i8;
            }
        }
    }

    /// The book moves `randomness` lets the side to move play from `position`, best first:
    /// those within `randomness` discs of the best that also keep it within `randomness` discs
    /// of what the book gives its colour at the start, so that the discs given away for
    /// variety never add up along a game beyond `randomness`. Just the best with randomness 0
    /// (or once a game's allowance is spent); empty out of the book.
    pub fn candidates(&self, position: &Position, randomness: i32) -> Vec<BookMove> {
        let mut moves = self.moves(&position.board);
        let Some(best) = moves.first().map(|m| m.value) else {
            return moves;
        };
        let randomness = randomness.max(0);
        let start_value = self
            .get(&Board::START)
            .map(|start| match position.side_to_move {
                Color::Black => i32::from(start.value),
                Color::White => -i32::from(start.value),
            });
        let floor = match start_value {
            Some(value) => (best - randomness).max((value - randomness).min(best)),
            None => best - randomness,
        };
        moves.retain(|m| m.value >= floor);
        moves
    }

    /// The book's move from `position`: one of its [`Book::candidates`], drawn by `random`
    /// with the odds halving for each disc a move gives away against the best (moves as good
    /// as the best are equally likely: with randomness 0, one of the moves tied for the best).
    /// Every candidate stays possible, but the discs that variety costs are mostly spent where
    /// the alternatives are nearly as good, since a book's values err both ways and the
    /// weakest candidates are the likeliest to be worse than they look.
    pub fn choose(&self, position: &Position, randomness: i32, random: u64) -> Option<BookMove> {
        let candidates = self.candidates(position, randomness);
        let best = candidates.first()?.value;
        let worst = candidates.last()?.value;
        let span = (best - worst).min(MAX_LOSS_WEIGHED);
        let odds = |m: &BookMove| 1u64 << (span - (best - m.value).min(span));
        let total: u64 = candidates.iter().map(odds).sum();
        let mut draw = random % total;
        candidates.into_iter().find(|m| {
            let weight = odds(m);
            let found = draw < weight;
            draw = draw.saturating_sub(weight);
            found
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Move;

    fn entry(board: Board, exit_move: u8, exit_score: i8) -> BookEntry {
        BookEntry {
            board,
            value: 0,
            exit_move,
            exit_score,
            depth: 10,
            exact: false,
            games: 1,
        }
    }

    fn square(text: &str) -> u8 {
        crate::notation::parse_square(text).unwrap()
    }

    #[test]
    fn symmetric_positions_share_one_entry() {
        let start = Board::START;
        let f5 = start.play(square("f5") as usize).unwrap();
        let d3 = start.play(square("d3") as usize).unwrap();
        let book = Book::new([entry(f5, square("d6"), 2)]);
        assert_eq!(book.len(), 1);
        assert_eq!(book.get(&d3), book.get(&f5));
        // The exit follows the orientation asked about: f5 d6 is d3 c5 after the diagonal flip.
        let from_d3 = book.moves(&d3);
        assert_eq!(from_d3.len(), 1);
        assert_eq!(from_d3[0].square, square("c5"));
        assert_eq!(book.moves(&f5)[0].square, square("d6"));
    }

    #[test]
    fn values_are_negamaxed_from_the_exits() {
        let start = Board::START;
        let f5 = start.play(square("f5") as usize).unwrap();
        // Black's exit from the start scores +1; f5 (in the book) lets White reach +3, so for
        // Black it is worth -3 and the exit is better.
        let book = Book::new([entry(start, square("f5"), 1), entry(f5, square("f6"), 3)]);
        // The exit f5 now reaches a book position: the book's own value supersedes it.
        let moves = book.moves(&start);
        assert!(moves.iter().all(|m| !m.leaves_book));
        assert_eq!(moves.len(), 4);
        assert!(moves.iter().all(|m| m.value == -3));
        assert_eq!(book.get(&start).unwrap().value, -3);

        let book = Book::new([entry(start, square("d3"), 1), entry(f5, square("f6"), 3)]);
        // d3 is f5 turned: every first move is in the book, so the exit is stale.
        assert_eq!(book.get(&start).unwrap().value, -3);

        let after_f5_f6 = f5.play(square("f6") as usize).unwrap();
        let book = Book::new([
            entry(start, NO_EXIT, 0),
            entry(f5, square("f4"), -5),
            entry(after_f5_f6, square("e6"), 4),
        ]);
        // White at f5: f6 reaches a position worth +4 to Black, so -4 for White; the exit
        // scores -5: White's value is -4, Black's at the start +4.
        assert_eq!(book.get(&f5).unwrap().value, -4);
        assert_eq!(book.get(&start).unwrap().value, 4);
        let best = book.choose(&Position::START, 0, 12345).unwrap();
        assert_eq!(best.value, 4);
    }

    #[test]
    fn choose_stays_within_the_randomness() {
        let start = Position::START.board;
        let f5 = Position::START.play(Move::Play(square("f5"))).unwrap();
        let book = Book::new([entry(f5.board, square("f6"), 0)]);
        assert_eq!(book.moves(&f5.board).len(), 1);
        for random in 0..20 {
            assert_eq!(book.choose(&f5, 0, random).unwrap().square, square("f6"));
            assert_eq!(book.choose(&f5, 5, random).unwrap().square, square("f6"));
        }
        let passed = Position {
            board: f5.board.pass(),
            side_to_move: Color::Black,
        };
        assert_eq!(book.choose(&passed, 0, 0), None);
        assert!(book.candidates(&Position::START, 3).is_empty());
        assert!(book.moves(&start).is_empty());
    }

    #[test]
    fn randomness_is_an_allowance_for_the_whole_game() {
        let f5 = Position::START.play(Move::Play(square("f5"))).unwrap();
        let f5_f6 = f5.play(Move::Play(square("f6"))).unwrap();
        let f5_f4 = f5.play(Move::Play(square("f4"))).unwrap();
        // White's f6 is worth -1 to White, f4 -3 (the exit, e6 from f5 f6, scores +1 for
        // Black; from f5 f4, e3 scores +3); f5's exit d6 -2. Black's value at the start: +1.
        let book = Book::new([
            entry(Position::START.board, NO_EXIT, 0),
            entry(f5.board, square("d6"), -2),
            entry(f5_f6.board, square("e6"), 1),
            entry(f5_f4.board, square("e3"), 3),
        ]);
        assert_eq!(book.get(&Board::START).unwrap().value, 1);
        let squares = |moves: Vec<BookMove>| moves.iter().map(|m| m.square).collect::<Vec<_>>();
        assert_eq!(squares(book.candidates(&f5, 0)), [square("f6")]);
        // White stands at -1, as the start promised: randomness spends from there.
        assert_eq!(
            squares(book.candidates(&f5, 1)),
            [square("f6"), square("d6")]
        );
        assert_eq!(
            squares(book.candidates(&f5, 2)),
            [square("f6"), square("d6"), square("f4")]
        );
        // The odds halve with each disc below the best: 4 to 2 to 1 over any 7 draws in a row.
        let drawn: Vec<u8> = (70..77)
            .map(|random| book.choose(&f5, 2, random).unwrap().square)
            .collect();
        for (move_square, times) in [("f6", 4), ("d6", 2), ("f4", 1)] {
            let count = drawn.iter().filter(|&&s| s == square(move_square)).count();
            assert_eq!(
                count, times,
                "{move_square} drawn {count} times in {drawn:?}"
            );
        }
        // Black's e3 after f5 f4 leaves White at -3, 2 below the -1 the start promised it:
        // with randomness 2, White may give away no more, though a move 1 below its best is
        // within 2 of it.
        let e3 = f5_f4.play(Move::Play(square("e3"))).unwrap();
        let mut legal = Squares(e3.board.moves());
        let (exit, other) = (legal.next().unwrap() as u8, legal.next().unwrap());
        let other_position = e3.play(Move::Play(other as u8)).unwrap();
        // A position with no exit keeps the value it is given: +4 for Black.
        let dead_end = BookEntry {
            value: 4,
            ..entry(other_position.board, NO_EXIT, 0)
        };
        let book = Book::new(
            book.entries()
                .iter()
                .copied()
                .chain([entry(e3.board, exit, -3), dead_end]),
        );
        assert_eq!(book.get(&Board::START).unwrap().value, 1);
        let moves = book.moves(&e3.board);
        assert_eq!(squares(moves.clone()), [exit, other as u8]);
        assert_eq!((moves[0].value, moves[1].value), (-3, -4));
        assert_eq!(squares(book.candidates(&e3, 2)), [exit]);
        assert_eq!(squares(book.candidates(&e3, 3)), [exit, other as u8]);
    }

    #[test]
    fn insert_replaces_in_any_orientation() {
        let start = Board::START;
        let f5 = start.play(square("f5") as usize).unwrap();
        let c4 = start.play(square("c4") as usize).unwrap();
        let mut book = Book::new([entry(f5, square("d6"), 2)]);
        book.insert(entry(c4, square("e3"), -1));
        assert_eq!(book.len(), 1);
        book.negamax();
        assert_eq!(book.get(&f5).unwrap().value, -1);
        assert_eq!(book.moves_in_book(&start).count_ones(), 4);
    }
}
