//! Move ordering: the table move first; at high depth a shallow search of each other move (run
//! by the search only once the table move has failed to cut); near the
//! leaves the node's cheap hint (for Othello: fastest first, potential mobility, square
//! priority). Moves are picked best-first lazily, so a cutoff skips sorting the rest.

use super::node::SearchNode;
use super::options::OrderingOptions;
use crate::cpu::Isa;
use arrayvec::ArrayVec;

/// A candidate move with the position it leads to and its ordering key.
#[derive(Clone, Copy)]
pub(crate) struct Candidate<N> {
    pub mv: u8,
    pub child: N,
    pub key: i32,
}

/// The moves of a node, to be taken best first.
pub(crate) struct MoveList<N> {
    candidates: ArrayVec<Candidate<N>, 64>,
    taken: usize,
}

/// Ordering key of the table move: above any heuristic.
const TABLE_MOVE_KEY: i32 = 1 << 28;

impl<N: SearchNode> MoveList<N> {
    /// Builds the list of `node`'s `moves`, keyed by the hint (when on) and the table move.
    #[inline(always)]
    pub fn new<I: Isa>(
        isa: I,
        node: &N,
        moves: u64,
        table_move: u8,
        options: &OrderingOptions,
    ) -> MoveList<N> {
        let mut candidates = ArrayVec::new();
        let mut rest = moves;
        while rest != 0 {
            let mv = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let child = node.play_at(isa, mv);
            let key = if options.table_move && mv == usize::from(table_move) {
                TABLE_MOVE_KEY
            } else if options.hints {
                node.ordering_hint_at(isa, mv, &child)
            } else {
                0
            };
            candidates.push(Candidate {
                mv: mv as u8,
                child,
                key,
            });
        }
        MoveList {
            candidates,
            taken: 0,
        }
    }

    /// Number of moves.
    pub fn len(&self) -> usize {
        self.candidates.len()
    }

    /// The moves not taken yet, in no particular order.
    pub fn remaining(&self) -> &[Candidate<N>] {
        &self.candidates[self.taken..]
    }

    /// Whether the table move is among the moves not taken yet.
    pub fn holds_table_move(&self) -> bool {
        self.candidates[self.taken..]
            .iter()
            .any(|c| c.key == TABLE_MOVE_KEY)
    }

    /// Re-keys every move not taken yet but the table move with `score` (higher is better),
    /// keeping the old key as a tie-break.
    pub fn rekey(&mut self, mut score: impl FnMut(&Candidate<N>) -> i32) {
        for candidate in self.candidates[self.taken..].iter_mut() {
            if candidate.key != TABLE_MOVE_KEY {
                candidate.key = score(candidate) * 4096 + candidate.key.clamp(-2047, 2047);
            }
        }
    }

    /// The best move not taken yet (the first of equals, so equal keys keep move order).
    #[inline]
    pub fn next_best(&mut self) -> Option<Candidate<N>> {
        let rest = &mut self.candidates[self.taken..];
        if rest.is_empty() {
            return None;
        }
        let mut best = 0;
        for i in 1..rest.len() {
            if rest[i].key > rest[best].key {
                best = i;
            }
        }
        let chosen = rest[best];
        rest[..=best].rotate_right(1);
        self.taken += 1;
        Some(chosen)
    }

    /// The moves not taken yet, best first.
    pub fn remaining_sorted(&mut self) -> &[Candidate<N>] {
        let rest = &mut self.candidates[self.taken..];
        rest.sort_by_key(|c| std::cmp::Reverse(c.key));
        let rest = &self.candidates[self.taken..];
        self.taken = self.candidates.len();
        rest
    }
}
