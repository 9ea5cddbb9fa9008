//! Time control: how long one move may take, from a per-move time or a game clock.

use super::api::{GameClock, Limits};
use std::time::Duration;

/// The time a search may use. At `hard` it stops wherever it is, and the root moves its last
/// iteration completed still count. Under a game clock, `target` is what the move should take
/// on average; with only a time per move there is none, since time a move leaves unused is
/// lost: iterations start until the hard limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimeBudget {
    pub target: Option<Duration>,
    pub hard: Option<Duration>,
}

/// Time kept back from every budget for reading, replying and process scheduling.
const OVERHEAD: Duration = Duration::from_millis(15);

/// How much longer an iteration is taken to be than the one before, when there is no earlier
/// one to measure by.
const DEFAULT_GROWTH: f64 = 3.0;

/// Where iterative deepening stands after an iteration, for deciding whether to start another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IterationReport {
    /// Time since the search started.
    pub elapsed: Duration,
    /// Time the iteration just completed took.
    pub last: Duration,
    /// Time the iteration before it took, if there was one.
    pub before_last: Option<Duration>,
    /// Whether the iteration changed the best move.
    pub best_move_changed: bool,
    /// The iteration's score, and how far it fell from the one before (0 if it rose).
    pub score: i32,
    pub score_drop: i32,
}

impl TimeBudget {
    /// The budget for a search under `limits` with `empties` empty squares on the board.
    pub fn from_limits(limits: &Limits, empties: u32) -> TimeBudget {
        let mut budget = TimeBudget::default();
        if let Some(move_time) = limits.move_time {
            budget.hard = Some(move_time.saturating_sub(OVERHEAD.min(move_time / 5)));
        }
        if let Some(clock) = limits.clock {
            let (target, hard) = clock_budget(&clock, empties);
            budget.hard = Some(budget.hard.map_or(hard, |h| h.min(hard)));
            budget.target = Some(target.min(budget.hard.unwrap_or(target)));
        }
        budget
    }

    /// Whether to start the next iteration. Never past the hard limit; with a target (a game
    /// clock), only when the first half of the next iteration, predicted from how the last
    /// ones grew, ends within the target, which grows for unstable positions (the best move
    /// changed, the score fell) and shrinks for decided ones (a large margin).
    pub fn starts_next_iteration(&self, report: &IterationReport) -> bool {
        if self.hard.is_some_and(|hard| report.elapsed >= hard) {
            return false;
        }
        let Some(target) = self.target else {
            return true;
        };
        let mut factor = 1.0;
        if report.best_move_changed {
            factor *= 1.6;
        }
        if report.score_drop >= 3 {
            factor *= 1.3;
        }
        if report.score.abs() >= 24 {
            factor *= 0.5;
        }
        let target = target
            .mul_f64(factor)
            .min(self.hard.unwrap_or(Duration::MAX));
        let growth = report
            .before_last
            .filter(|before| !before.is_zero())
            .map_or(DEFAULT_GROWTH, |before| {
                (report.last.as_secs_f64() / before.as_secs_f64()).clamp(1.5, 8.0)
            });
        report.elapsed + report.last.mul_f64(growth / 2.0) <= target
    }
}

/// Spread the clock over our remaining moves, keeping a reserve so that the clock never runs
/// out: the hard limit never exceeds half of what is left after the reserve. Returns the
/// target and the hard limit.
fn clock_budget(clock: &GameClock, empties: u32) -> (Duration, Duration) {
    let reserve = OVERHEAD + clock.remaining / 20;
    let usable = clock.remaining.saturating_sub(reserve);
    // Our moves left: half the empties; the last dozen are solved quickly, so plan fewer.
    let planned_moves = clock
        .moves_to_go
        .unwrap_or_else(|| (empties.saturating_sub(10) / 2).max(1))
        .max(1);
    let share = usable / planned_moves + clock.increment.mul_f64(0.8);
    let hard = (share * 3).min(usable / 2);
    (share.min(hard), hard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_time_budget_stays_inside_the_time() {
        let limits = Limits {
            move_time: Some(Duration::from_millis(300)),
            ..Limits::default()
        };
        let budget = TimeBudget::from_limits(&limits, 40);
        assert!(budget.hard.unwrap() < Duration::from_millis(300));
        assert!(budget.hard.unwrap() >= Duration::from_millis(280));
        assert_eq!(budget.target, None, "a time per move is all the move's own");
    }

    #[test]
    fn clock_budget_never_spends_the_reserve() {
        for remaining_ms in [1u64, 50, 1_000, 60_000, 900_000] {
            for empties in [1, 10, 30, 60] {
                let clock = GameClock {
                    remaining: Duration::from_millis(remaining_ms),
                    increment: Duration::ZERO,
                    moves_to_go: None,
                };
                let limits = Limits {
                    clock: Some(clock),
                    ..Limits::default()
                };
                let budget = TimeBudget::from_limits(&limits, empties);
                assert!(budget.hard.unwrap() <= clock.remaining / 2);
                assert!(budget.target.unwrap() <= budget.hard.unwrap());
            }
        }
    }

    fn report(elapsed_ms: u64, last_ms: u64, before_ms: u64) -> IterationReport {
        IterationReport {
            elapsed: Duration::from_millis(elapsed_ms),
            last: Duration::from_millis(last_ms),
            before_last: Some(Duration::from_millis(before_ms)),
            best_move_changed: false,
            score: 2,
            score_drop: 0,
        }
    }

    #[test]
    fn a_time_per_move_starts_iterations_until_the_hard_limit() {
        let budget = TimeBudget {
            target: None,
            hard: Some(Duration::from_millis(85)),
        };
        assert!(budget.starts_next_iteration(&report(80, 50, 10)));
        assert!(!budget.starts_next_iteration(&report(85, 50, 10)));
    }

    #[test]
    fn under_a_clock_the_next_iteration_must_half_fit_the_target() {
        let budget = TimeBudget {
            target: Some(Duration::from_millis(1_000)),
            hard: Some(Duration::from_millis(3_000)),
        };
        // Growing 3x a ply: the next takes 600 ms, half of it ends at 600 ms.
        assert!(budget.starts_next_iteration(&report(300, 200, 67)));
        // Half of the next ends at 1,200 ms, past the target ...
        assert!(!budget.starts_next_iteration(&report(600, 400, 133)));
        // ... unless the best move just changed and the score fell: the target is then 2.08 s.
        let unstable = IterationReport {
            best_move_changed: true,
            score_drop: 5,
            ..report(600, 400, 133)
        };
        assert!(budget.starts_next_iteration(&unstable));
        // A decided game gets half the target, 500 ms: half the next iteration ends at 525 ms.
        let decided = IterationReport {
            score: -30,
            ..report(300, 150, 50)
        };
        assert!(!budget.starts_next_iteration(&decided));
        assert!(budget.starts_next_iteration(&report(300, 150, 50)));
    }
}
