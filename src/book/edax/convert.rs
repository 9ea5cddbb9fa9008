//! An Edax book to oxello's book and back, and Edax's negamax of values, bounds and counts.

use super::level::{edax_level, NO_SELECTIVITY};
use super::{
    board_index, edax_next, EdaxBook, EdaxDate, EdaxLink, EdaxOptions, EdaxPosition, EdaxRelease,
    PASS, SCORE_INF,
};
use crate::board::{Board, Squares};
use crate::book::{after_move, is_book_position, Book, BookEntry, NO_EXIT};
use std::collections::HashMap;

/// Edax's error margins of a new book: the bounds around a midgame search's score, and
/// around a selective search to the end.
const MIDGAME_ERROR: i32 = 2;
const ENDCUT_ERROR: i32 = 1;

impl EdaxBook {
    /// The Edax book of `book`: each position with its links (the moves that reach book
    /// positions, with their values) and its exit as the leaf, a position of its own for each
    /// forced pass on the way, and the bounds and counts that Edax's negamax gives them. The
    /// level of a position is the depth of its exit's search; the book's level is the deepest,
    /// and its n_empties the fewest empties of its positions.
    pub fn from_book(book: &Book, date: EdaxDate) -> EdaxBook {
        let value_of = |board: &Board| book.get(board).map(|e| i16::from(e.value));
        let mut positions = Vec::new();
        let mut passes: HashMap<Board, EdaxPosition> = HashMap::new();
        for entry in book.entries() {
            let board = entry.board;
            let mut links = Vec::new();
            for square in Squares(board.moves()) {
                let Some((next, passed)) = after_move(&board, square) else {
                    continue;
                };
                let Some(value) = value_of(&next) else {
                    continue;
                };
                if passed {
                    // The position that must pass joins the book, worth the opposite of the
                    // position after its pass.
                    let (canonical, _) = next.pass().canonical();
                    passes.entry(canonical).or_insert_with(|| EdaxPosition {
                        links: vec![EdaxLink {
                            score: -value as i8,
                            square: PASS,
                        }],
                        leaf: EdaxLink::NONE,
                        level: entry.depth,
                        ..EdaxPosition::empty(canonical)
                    });
                }
                let score = if passed { value } else { -value };
                links.push(EdaxLink {
                    score: score as i8,
                    square: square as u8,
                });
            }
            links.sort_by_key(|l| std::cmp::Reverse(l.score));
            let leaf = match entry.exit_move {
                NO_EXIT => EdaxLink::NONE,
                exit if links.iter().any(|l| l.square == exit) => EdaxLink::NONE,
                exit => EdaxLink {
                    score: entry.exit_score,
                    square: exit,
                },
            };
            positions.push(EdaxPosition {
                links,
                leaf,
                level: entry.depth,
                ..EdaxPosition::empty(board)
            });
        }
        positions.extend(passes.into_values().filter(|p| !book.contains(&p.board)));
        positions.sort_by_key(|p| (p.board.player, p.board.opponent));
        let options = EdaxOptions {
            level: positions
                .iter()
                .map(|p| i32::from(p.level))
                .max()
                .unwrap_or(0),
            n_empties: positions
                .iter()
                .map(|p| p.board.empty_count() as i32)
                .min()
                .unwrap_or(0),
            midgame_error: MIDGAME_ERROR,
            endcut_error: ENDCUT_ERROR,
            verbosity: 0,
        };
        let mut edax = EdaxBook {
            release: EdaxRelease::V4_6.release_byte(),
            date,
            options,
            positions,
        };
        edax.negamax();
        edax
    }

    /// Sets every position's value, bounds and counts from its leaf and its links' positions,
    /// as Edax's negamax does (a position's counts add up those of the positions its links
    /// reach, once per link), and every link's score from the position it reaches.
    pub fn negamax(&mut self) {
        let (index_of, _) = board_index(&self.positions);
        let mut done = vec![false; self.positions.len()];
        // Deepest first: a position's links reach positions with more discs, or after a pass
        // the same discs with a move to make, done before it.
        let mut order: Vec<usize> = (0..self.positions.len()).collect();
        order.sort_by_key(|&i| {
            let board = &self.positions[i].board;
            (board.empty_count(), board.moves() == 0)
        });
        for i in order {
            let (midgame_error, endcut_error) =
                (self.options.midgame_error, self.options.endcut_error);
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
            for link in position.links.iter_mut() {
                let child_board = edax_next(&position.board, link.square).canonical().0;
                let Some(&child) = index_of.get(&child_board) else {
                    continue;
                };
                debug_assert!(done[child], "a link reaches a position with more discs");
                let child = &self.positions[child];
                link.score = (-child.value).clamp(-64, 64) as i8;
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
            done[i] = true;
        }
    }

    /// oxello's book of the Edax book: every position where the side to move has a move, its
    /// leaf as the exit, searched at its level (exact where Edax's level solves), and its lines
    /// as its games; values negamaxed again.
    pub fn to_book(&self) -> Book {
        Book::new(
            self.positions
                .iter()
                .filter(|p| is_book_position(&p.board))
                .map(|p| {
                    let empties = p.board.empty_count();
                    let (depth, selectivity) = edax_level(p.level, empties);
                    let exit_move = if p.leaf.square < 64 {
                        p.leaf.square
                    } else {
                        NO_EXIT
                    };
                    BookEntry {
                        board: p.board,
                        value: p.value.clamp(-64, 64) as i8,
                        exit_move,
                        exit_score: if exit_move == NO_EXIT {
                            0
                        } else {
                            p.leaf.score.clamp(-64, 64)
                        },
                        depth: p.level.min(60),
                        exact: depth == empties && selectivity == NO_SELECTIVITY,
                        games: p.lines,
                    }
                }),
        )
    }
}
