//! An Edax book to oxello's book and back, and Edax's negamax of values, bounds and counts.
//!
//! Going back keeps what oxello's book cannot hold: an Edax book read from a file is updated
//! with what oxello's book changed ([`EdaxBook::updated`]), so that every other position, the
//! header's options and the order of the links stay as Edax wrote them.

use super::book::{
    board_index, edax_next, EdaxBook, EdaxLink, EdaxOptions, EdaxPosition, EdaxRelease, PASS,
    SCORE_INF,
};
use super::date::EdaxDate;
use super::level::{edax_level, NO_SELECTIVITY};
use crate::board::{Board, Squares, Symmetry};
use crate::book::{is_book_position, Book, BookEntry, NO_EXIT};
use std::collections::{HashMap, HashSet};

/// Edax's error margins of a new book: the bounds around a midgame search's score, and
/// around a selective search to the end.
const MIDGAME_ERROR: i32 = 2;
const ENDCUT_ERROR: i32 = 1;

impl EdaxBook {
    /// The Edax book of `book`, made afresh: each position with its links (the moves that
    /// reach book positions, with their values) and its exit as the leaf, a position of its own
    /// for each forced pass on the way, and the bounds and counts that Edax's negamax gives
    /// them. The level of a position is the depth of its exit's search; the book's level is
    /// the deepest, and its n_empties the fewest empties of its positions.
    pub fn from_book(book: &Book, date: EdaxDate) -> EdaxBook {
        let entries = book.entries();
        let options = EdaxOptions {
            level: entries
                .iter()
                .map(|e| i32::from(e.depth))
                .max()
                .unwrap_or(0),
            n_empties: entries
                .iter()
                .map(|e| e.board.empty_count() as i32)
                .min()
                .unwrap_or(0),
            midgame_error: MIDGAME_ERROR,
            endcut_error: ENDCUT_ERROR,
            verbosity: 0,
        };
        let blank = EdaxBook {
            release: EdaxRelease::V4_6.release_byte(),
            date,
            options,
            positions: Vec::new(),
        };
        blank.updated(book, date)
    }

    /// This Edax book with what `book` changed in it, `book` being [`EdaxBook::to_book`] of
    /// it grown or searched again (NBoard `learn`, `oxello book extend`): as Edax adds a
    /// position, a new position joins the book with its links and its exit as the leaf, and
    /// the positions that reach it link to it; a position whose exit was searched again takes
    /// the new leaf and keeps its links in their order; then Edax's negamax from the start
    /// position (and from every changed position) sets values, bounds, counts and link scores.
    /// Every other position, the header's options and, when nothing changed, the date stay as
    /// they were. A position of this book that `book` lacks stays too.
    pub fn updated(&self, book: &Book, date: EdaxDate) -> EdaxBook {
        let index_of = board_index(&self.positions);
        let changed: Vec<&BookEntry> = book
            .entries()
            .iter()
            .filter(|entry| {
                !self
                    .entry_before(&index_of, &entry.board)
                    .is_some_and(|old| same_search(&old, entry))
            })
            .collect();
        if changed.is_empty() {
            return self.clone();
        }
        let mut update = Update::new(self.clone(), index_of);
        for entry in changed {
            if update.index_of.contains_key(&entry.board) || !is_pass_leaf(book, entry) {
                let i = update.position(entry.board, entry.depth);
                update.set_leaf(i, leaf_of(entry), entry.depth);
            } else {
                // Reached only through a pass that Edax searched as the leaf of the position
                // that must pass (the position after it is not an Edax position).
                let (must_pass, _) = entry.board.pass().canonical();
                let i = update.position(must_pass, entry.depth);
                let leaf = EdaxLink {
                    score: -entry.value,
                    square: PASS,
                };
                update.set_leaf(i, leaf, entry.depth);
            }
        }
        update.link();
        let mut edax = update.edax;
        edax.date = date;
        let mut roots: Vec<usize> = update.changed.into_iter().collect();
        roots.sort_unstable();
        let index_of = board_index(&edax.positions);
        if let Some(&start) = index_of.get(&Board::START.canonical().0) {
            roots.insert(0, start);
        }
        edax.negamax_from(&roots);
        edax
    }

    /// Sets every position's value, bounds and counts, and every link's score, as Edax's
    /// negamax does.
    pub fn negamax(&mut self) {
        let all: Vec<usize> = (0..self.positions.len()).collect();
        self.negamax_from(&all);
    }

    /// Edax's negamax of the positions `roots` reach through their links, each once: a
    /// position's value is the best of its leaf's score and its links' scores (each the
    /// opposite of the value of the position it reaches), its bounds those of its leaf (exact
    /// where its level solves, else widened by the book's error margins) and its links, and
    /// its counts those of its leaf and of the positions its links reach.
    fn negamax_from(&mut self, roots: &[usize]) {
        let index_of = board_index(&self.positions);
        let mut done = vec![false; self.positions.len()];
        for &root in roots {
            self.negamax_position(root, &index_of, &mut done);
        }
    }

    fn negamax_position(&mut self, i: usize, index_of: &HashMap<Board, usize>, done: &mut [bool]) {
        if done[i] {
            return;
        }
        done[i] = true;
        let children: Vec<Option<usize>> = self.positions[i]
            .links
            .iter()
            .map(|link| {
                let child = edax_next(&self.positions[i].board, link.square)
                    .canonical()
                    .0;
                index_of.get(&child).copied()
            })
            .collect();
        // A link reaches a position with more discs, or after a pass one with a move to make:
        // the recursion ends.
        for &child in children.iter().flatten() {
            self.negamax_position(child, index_of, done);
        }
        let (midgame_error, endcut_error) = (self.options.midgame_error, self.options.endcut_error);
        let mut position = self.positions[i].clone();
        let empties = position.board.empty_count();
        let mut value = -SCORE_INF;
        let (mut lower, mut upper) = (-SCORE_INF, -SCORE_INF);
        let mut counts = [0u64; 4];
        if i16::from(position.leaf.score) > -SCORE_INF {
            let score = i32::from(position.leaf.score);
            value = score as i16;
            let (depth, selectivity) = edax_level(position.level, empties);
            let (low, high) = if depth == empties && selectivity == NO_SELECTIVITY {
                counts[usize::from(score < 0) + usize::from(score <= 0)] += 1;
                (score, score)
            } else if depth == empties {
                (score - endcut_error, score + endcut_error)
            } else {
                let bias = (depth & 1) as i32 - (empties & 1) as i32;
                (score - midgame_error - bias, score + midgame_error - bias)
            };
            (lower, upper) = (low as i16, high as i16);
            counts[3] += 1;
        }
        for (link, child) in position.links.iter_mut().zip(children) {
            let Some(child) = child else { continue };
            let child = &self.positions[child];
            link.score = -child.value as i8;
            value = value.max(-child.value);
            lower = lower.max(-child.upper);
            upper = upper.max(-child.lower);
            counts[0] += u64::from(child.losses);
            counts[1] += u64::from(child.draws);
            counts[2] += u64::from(child.wins);
            counts[3] += u64::from(child.lines);
        }
        let saturate = |count: u64| count.min(u64::from(u32::MAX)) as u32;
        position.value = value;
        position.lower = lower;
        position.upper = upper;
        position.wins = saturate(counts[0]);
        position.draws = saturate(counts[1]);
        position.losses = saturate(counts[2]);
        position.lines = saturate(counts[3]);
        self.positions[i] = position;
    }

    /// oxello's book of the Edax book: every position where the side to move has a move, its
    /// leaf as the exit, searched at its level (exact where Edax's level solves), and its lines
    /// as its games; and where a position that must pass has the pass as its leaf (the
    /// position after it not in the Edax book), the position after the pass, worth the
    /// opposite of the leaf's score, with no exit. Values negamaxed again.
    pub fn to_book(&self) -> Book {
        let index_of = board_index(&self.positions);
        Book::new(self.positions.iter().filter_map(|p| entry_of(p, &index_of)))
    }

    /// The entry [`EdaxBook::to_book`] gives the position on (canonical) `board`, before its
    /// value is negamaxed; `index_of` is [`board_index`] of this book's positions.
    fn entry_before(&self, index_of: &HashMap<Board, usize>, board: &Board) -> Option<BookEntry> {
        let position = match index_of.get(board) {
            Some(&i) => &self.positions[i],
            None => &self.positions[*index_of.get(&board.pass().canonical().0)?],
        };
        entry_of(position, index_of).filter(|e| e.board == *board)
    }
}

/// oxello's entry for an Edax position (see [`EdaxBook::to_book`]), its value not negamaxed.
fn entry_of(p: &EdaxPosition, index_of: &HashMap<Board, usize>) -> Option<BookEntry> {
    let empties = p.board.empty_count();
    let (depth, selectivity) = edax_level(p.level, empties);
    let exact = depth == empties && selectivity == NO_SELECTIVITY;
    let depth = p.level.min(60);
    let games = p.lines;
    if is_book_position(&p.board) {
        let exit_move = if p.leaf.square < 64 {
            p.leaf.square
        } else {
            NO_EXIT
        };
        Some(BookEntry {
            board: p.board,
            value: p.value.clamp(-64, 64) as i8,
            exit_move,
            exit_score: if exit_move == NO_EXIT {
                0
            } else {
                p.leaf.score.clamp(-64, 64)
            },
            depth,
            exact,
            games,
        })
    } else if p.leaf.square == PASS && i16::from(p.leaf.score) > -SCORE_INF {
        let (after_pass, _) = p.board.pass().canonical();
        (!index_of.contains_key(&after_pass)).then_some(BookEntry {
            board: after_pass,
            value: (-p.leaf.score).clamp(-64, 64),
            exit_move: NO_EXIT,
            exit_score: 0,
            depth,
            exact,
            games,
        })
    } else {
        None
    }
}

/// An Edax book being updated: its positions by board, and those added or changed.
struct Update {
    edax: EdaxBook,
    index_of: HashMap<Board, usize>,
    /// Positions of the book before the update (those after it are new).
    original: usize,
    /// Positions new, changed, or given a link: the roots of the negamax.
    changed: HashSet<usize>,
    /// Positions linked to every book position they reach.
    linked: HashSet<usize>,
}

impl Update {
    /// An update of `edax`, whose [`board_index`] is `index_of`.
    fn new(edax: EdaxBook, index_of: HashMap<Board, usize>) -> Update {
        let original = edax.positions.len();
        Update {
            edax,
            index_of,
            original,
            changed: HashSet::new(),
            linked: HashSet::new(),
        }
    }

    /// The index of the position on (canonical) `board`, added with nothing known at `level`
    /// if the book lacks it.
    fn position(&mut self, board: Board, level: u8) -> usize {
        if let Some(&i) = self.index_of.get(&board) {
            return i;
        }
        let i = self.edax.positions.len();
        self.edax.positions.push(EdaxPosition {
            level,
            ..EdaxPosition::empty(board)
        });
        self.index_of.insert(board, i);
        self.changed.insert(i);
        i
    }

    fn set_leaf(&mut self, i: usize, leaf: EdaxLink, level: u8) {
        let position = &mut self.edax.positions[i];
        position.leaf = leaf;
        position.level = level;
        self.changed.insert(i);
    }

    /// Adds a link to `square` unless the position has it, as Edax does: at the end of its
    /// links, and taking the leaf's place if the leaf was that move.
    fn add_link(&mut self, i: usize, square: u8) {
        let position = &mut self.edax.positions[i];
        if position.links.iter().any(|l| l.square == square) {
            return;
        }
        position.links.push(EdaxLink { score: 0, square });
        if position.leaf.square == square {
            position.leaf = EdaxLink::NONE;
        }
        self.changed.insert(i);
    }

    /// The index of the position that `square` (or a pass) reaches from `board`, if it is in
    /// the book; a position that must pass is added, with its pass link, when the position
    /// after the pass is in the book.
    fn reached(&mut self, board: &Board, square: u8, level: u8) -> Option<usize> {
        let child = edax_next(board, square);
        let (canonical, _) = child.canonical();
        if let Some(&i) = self.index_of.get(&canonical) {
            return Some(i);
        }
        let must_pass = child.moves() == 0 && child.opponent_moves() != 0;
        if must_pass && self.index_of.contains_key(&child.pass().canonical().0) {
            let i = self.position(canonical, level);
            self.add_link(i, PASS);
            self.linked.insert(i);
            return Some(i);
        }
        None
    }

    /// Links every move of the position that reaches a book position, as Edax's
    /// `position_link` does.
    fn link_position(&mut self, i: usize) {
        self.linked.insert(i);
        let (board, level) = (self.edax.positions[i].board, self.edax.positions[i].level);
        let moves = board.moves();
        let squares: Vec<u8> = if moves == 0 {
            if board.opponent_moves() == 0 {
                return;
            }
            vec![PASS]
        } else {
            Squares(moves).map(|s| s as u8).collect()
        };
        for square in squares {
            if self.reached(&board, square, level).is_some() {
                self.add_link(i, square);
            }
        }
    }

    /// Links the new and changed positions to every book position they reach, then every
    /// other position to the new positions it reaches, until no position is added.
    fn link(&mut self) {
        let mut changed: Vec<usize> = self.changed.iter().copied().collect();
        changed.sort_unstable();
        for i in changed {
            self.link_position(i);
        }
        let mut first_unreached = self.original;
        while first_unreached < self.edax.positions.len() {
            let unlinked: Vec<usize> = (0..self.edax.positions.len())
                .filter(|i| !self.linked.contains(i))
                .collect();
            if unlinked.is_empty() {
                return;
            }
            let new: Vec<Board> = self.edax.positions[first_unreached..]
                .iter()
                .map(|p| p.board)
                .collect();
            first_unreached = self.edax.positions.len();
            let parent_discs = parent_discs(&new);
            for i in unlinked {
                let board = self.edax.positions[i].board;
                if parent_discs.contains(&(board.player | board.opponent)) {
                    self.link_position(i);
                }
            }
        }
    }
}

/// The discs (in any orientation) of the positions that can reach one of `boards` by a move,
/// or by a pass, or by a move and the opponent's pass: those discs less one, or the same.
fn parent_discs(boards: &[Board]) -> HashSet<u64> {
    let mut discs = HashSet::new();
    for board in boards {
        for symmetry in Symmetry::ALL {
            let occupied = symmetry.apply(board.player | board.opponent);
            discs.insert(occupied);
            for square in Squares(occupied) {
                discs.insert(occupied & !(1 << square));
            }
        }
    }
    discs
}

/// Whether two entries of one position hold the same search of its exit (values and games
/// are negamaxed, not searched).
fn same_search(old: &BookEntry, new: &BookEntry) -> bool {
    (old.exit_move, old.exit_score, old.depth, old.exact)
        == (new.exit_move, new.exit_score, new.depth, new.exact)
}

/// The Edax leaf of an entry's exit.
fn leaf_of(entry: &BookEntry) -> EdaxLink {
    if entry.exit_move == NO_EXIT {
        EdaxLink::NONE
    } else {
        EdaxLink {
            score: entry.exit_score,
            square: entry.exit_move,
        }
    }
}

/// Whether an entry stands for the pass leaf of the position before it (as
/// [`EdaxBook::to_book`] makes them): no exit, no move into the book, and the opponent unable
/// to move, so that the position is reached through the opponent's pass.
fn is_pass_leaf(book: &Book, entry: &BookEntry) -> bool {
    entry.exit_move == NO_EXIT
        && entry.board.opponent_moves() == 0
        && book.moves_in_book(&entry.board) == 0
}
