//! Pondering: thinking on the opponent's time.
//!
//! When the engine has answered a move, it plans what to think about until the opponent's
//! move comes: the position after the reply it expects (the second move of its principal
//! variation), or, with no reply expected, the position its own move leaves, whose search
//! fills the table with the opponent's options. The controller runs that search whenever no
//! input is waiting and stops it as soon as a line arrives. When the opponent plays the
//! expected reply, the engine's own search of that position starts from the table the ponder
//! filled: its first iterations come back at once, and it goes on deeper within the move's
//! own time. Any other reply drops the plan; the table keeps what it learned.

use super::move_choice::MoveChoice;
use crate::board::{Move, Position};

/// What the engine ponders after a move, and for which positions of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PonderPlan {
    /// The position the engine chose its move in (a GUI may send the move back later).
    chosen_at: Position,
    /// The position after the engine's move: the opponent to move.
    after_move: Position,
    /// The position searched: after the expected reply, or `after_move` if none is expected.
    pub target: Position,
    /// The reply expected, if any.
    pub expected: Option<Move>,
    /// Whether a ponder search of the target has ended by itself (it proved the score), so
    /// that there is nothing left to ponder.
    pub finished: bool,
}

impl PonderPlan {
    /// The plan after `choice` was chosen in `chosen_at`: `None` when the game ends with the
    /// move or nothing is left to think about (the engine's next move would be forced).
    pub fn new(chosen_at: Position, choice: &MoveChoice) -> Option<PonderPlan> {
        let after_move = chosen_at.play(choice.mv()).ok()?;
        if after_move.board.is_game_over() {
            return None;
        }
        let expected = match choice {
            MoveChoice::Search(result) => result
                .pv
                .get(1)
                .map(|reply| reply.map_or(Move::Pass, Move::Play))
                .filter(|reply| after_move.play(*reply).is_ok()),
            MoveChoice::Book(_) => None,
        };
        let target = match expected {
            Some(reply) => after_move.play(reply).ok()?,
            None => after_move,
        };
        if target.board.is_game_over()
            || (expected.is_some() && target.board.moves().count_ones() <= 1)
        {
            return None;
        }
        Some(PonderPlan {
            chosen_at,
            after_move,
            target,
            expected,
            finished: false,
        })
    }

    /// Whether the game at `current` is still on the plan's way: where the move was chosen,
    /// after it, or at the target.
    pub fn covers(&self, current: &Position) -> bool {
        [self.chosen_at, self.after_move, self.target].contains(current)
    }

    /// The positions the opponent's replies lead to, for checking them against the book.
    pub fn replies(&self) -> Vec<Position> {
        let moves = self.after_move.board.moves();
        crate::board::Squares(moves)
            .filter_map(|sq| self.after_move.play(Move::Play(sq as u8)).ok())
            .collect()
    }
}

/// How often the expected reply came: predictions made and how many the opponent played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PonderStats {
    pub predictions: u32,
    pub hits: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_move;
    use crate::search::{Bound, Proof, RootMove, SearchResult};
    use std::time::Duration;

    fn searched(pv: &[&str]) -> MoveChoice {
        let pv: Vec<Option<u8>> = pv
            .iter()
            .map(|m| match parse_move(m).unwrap() {
                Move::Play(sq) => Some(sq),
                Move::Pass => None,
            })
            .collect();
        MoveChoice::Search(SearchResult {
            best_move: pv[0],
            score: 0,
            depth: 4,
            selectivity: 0,
            proof: Proof::Heuristic,
            pv: pv.clone(),
            nodes: 1,
            elapsed: Duration::ZERO,
            root_moves: vec![RootMove {
                mv: pv[0],
                score: 0,
                bound: Bound::Exact,
            }],
        })
    }

    #[test]
    fn the_expected_reply_is_the_target() {
        let plan = PonderPlan::new(Position::START, &searched(&["f5", "d6", "c3"])).unwrap();
        let f5 = Position::START.play(parse_move("f5").unwrap()).unwrap();
        let d6 = f5.play(parse_move("d6").unwrap()).unwrap();
        assert_eq!(plan.target, d6);
        assert_eq!(plan.expected, Some(parse_move("d6").unwrap()));
        for covered in [Position::START, f5, d6] {
            assert!(plan.covers(&covered));
        }
        let f6 = f5.play(parse_move("f6").unwrap()).unwrap();
        assert!(!plan.covers(&f6));
        assert_eq!(plan.replies().len(), 3);
    }

    #[test]
    fn without_a_legal_expectation_the_position_after_the_move_is_pondered() {
        let f5 = Position::START.play(parse_move("f5").unwrap()).unwrap();
        for pv in [&["f5"][..], &["f5", "a1"]] {
            let plan = PonderPlan::new(Position::START, &searched(pv)).unwrap();
            assert_eq!((plan.target, plan.expected), (f5, None));
        }
    }
}
