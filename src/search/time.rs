//! Time control: how long one move may take, from a per-move time or a game clock.
//!
//! A time per move is the move's own: iterations start until its hard limit, which keeps back
//! only what the process needs to stop and reply. A game clock is divided by a plan of what is
//! left to search: the moves until the endgame solver takes over, the solver's own predicted
//! time, and a curve over the empties that gives the middle of the game the most.

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
    /// Whether the clock plan has this move solve the game: the search goes to the end as
    /// soon as it would without a deadline, since the time for the solve is set aside.
    pub solve_now: bool,
}

/// Time kept back from a time per move for stopping, replying and process scheduling: a
/// stopped search answers within 2-7 ms at 100 ms a move (measured by `oxello match`; AMD
/// EPYC, Zen 3), so this, plus 1% of the move, at most `MOVE_RESERVE_MAX`.
const MOVE_RESERVE: Duration = Duration::from_millis(5);
const MOVE_RESERVE_MAX: Duration = Duration::from_millis(20);

/// Time kept back from a game clock: this, plus `1 / CLOCK_RESERVE_DIVISOR` of what is left.
const CLOCK_RESERVE: Duration = Duration::from_millis(25);
const CLOCK_RESERVE_DIVISOR: u32 = 50;

/// How much longer an iteration is taken to be than the one before, when there is no earlier
/// one to measure by.
const DEFAULT_GROWTH: f64 = 3.0;

/// The exact solver's nodes at 16 empties for a typical position of a game (the median of 40
/// positions from games at 1 s a move), and how much they grow an empty: medians of 0.006,
/// 0.018, 0.086, 0.47 and 2.0 s at 16, 18, 20, 22 and 24 empties, one thread, AMD EPYC (Zen 3).
const SOLVE_NODES_AT_16: f64 = 80_000.0;
const SOLVE_GROWTH: f64 = 2.07;
/// The solver's speed taken a thread, below the 13M measured there, so that a slower machine
/// does not start solves it cannot finish; a second thread counts three quarters of one.
const SOLVE_NODES_PER_SECOND: f64 = 10.0e6;
/// What the plan sets aside for a solve, as a multiple of its predicted median time (the 90th
/// percentile is 2.4 times the median), and how many midgame shares that may be at most.
const SOLVE_COST_FACTOR: f64 = 2.5;
const SOLVE_MAX_SHARES: f64 = 2.0;
/// Of the clock left when a move solves: what it should take, and the most it may.
const SOLVE_TARGET_PART: f64 = 0.7;
const SOLVE_HARD_PART: f64 = 0.9;
/// The fewest empties at which the plan looks for the solve.
const SOLVE_MIN_EMPTIES: u32 = 10;

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
    /// How many iterations in a row, this one included, chose the same best move.
    pub same_best_move: u32,
    /// The iteration's score, and how far it fell from the one before (0 if it rose).
    pub score: i32,
    pub score_drop: i32,
}

/// Moves under a clock used 35-50% of their targets in the opening when the next iteration
/// had to half fit the target (the iterations' growth there is uneven): the target it must
/// half fit is this much larger, and the time a move leaves unused goes to the later moves.
const START_STRETCH: f64 = 1.5;

/// From this many iterations in a row with the same best move and no fall of the score, a
/// clock's move stops early: its target shrinks by `STABLE_FACTOR`.
const STABLE_ITERATIONS: u32 = 4;
const STABLE_FACTOR: f64 = 0.7;

impl TimeBudget {
    /// The budget for a search under `limits` with `empties` empty squares on the board, on
    /// `threads` threads.
    pub fn from_limits(limits: &Limits, empties: u32, threads: usize) -> TimeBudget {
        let mut budget = TimeBudget::default();
        if let Some(move_time) = limits.move_time {
            budget.hard = Some(move_time.saturating_sub(move_reserve(move_time)));
        }
        if let Some(clock) = limits.clock {
            let plan = clock_plan(&clock, empties, threads);
            let hard = budget.hard.map_or(plan.hard, |h| h.min(plan.hard));
            budget = TimeBudget {
                target: Some(plan.target.min(hard)),
                hard: Some(hard),
                solve_now: plan.solve_now,
            };
        }
        budget
    }

    /// Whether to start the next iteration. Never past the hard limit; with a target (a game
    /// clock), only when the first half of the next iteration, predicted from how the last
    /// ones grew, ends within the target, which grows for unstable positions (the best move
    /// changed, the score fell) and shrinks for decided ones (a large margin) and settled
    /// ones (the same best move iteration after iteration).
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
        if report.same_best_move >= STABLE_ITERATIONS && report.score_drop == 0 {
            factor *= STABLE_FACTOR;
        }
        let target = target
            .mul_f64(factor * START_STRETCH)
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

/// What a time per move keeps back.
fn move_reserve(move_time: Duration) -> Duration {
    (MOVE_RESERVE + move_time / 100)
        .min(MOVE_RESERVE_MAX)
        .min(move_time / 5)
}

/// The predicted median time of an exact solve at `empties` empties on `threads` threads.
pub fn predicted_solve_seconds(empties: u32, threads: usize) -> f64 {
    let nodes = SOLVE_NODES_AT_16 * SOLVE_GROWTH.powf(f64::from(empties) - 16.0);
    let speed = 1.0 + 0.75 * (threads.max(1) - 1) as f64;
    nodes / (SOLVE_NODES_PER_SECOND * speed)
}

/// How much a move at `empties` empties weighs in the division of a clock: a bell over the
/// empties, twice the weight at 30, where the game is decided and the search tree widest.
fn move_weight(empties: u32) -> f64 {
    let from_peak = (f64::from(empties) - 30.0) / 12.0;
    1.0 + (-from_peak * from_peak).exp()
}

/// The empties at which the plan solves, from a move at `empties` with `pot` seconds to spend
/// until the end: the most empties (counting down our moves, two empties each) at which the
/// solve's cost fits in `SOLVE_MAX_SHARES` of an even share of the pot over the moves until
/// then. Returns the empties and the cost set aside.
fn solve_point(empties: u32, pot: f64, threads: usize) -> (u32, f64) {
    let mut point = empties;
    let mut moves_before = 0.0;
    loop {
        let cost = SOLVE_COST_FACTOR * predicted_solve_seconds(point, threads);
        if cost <= SOLVE_MAX_SHARES * pot / (moves_before + 1.0) || point < SOLVE_MIN_EMPTIES + 2 {
            return (point, cost);
        }
        point -= 2;
        moves_before += 1.0;
    }
}

/// What the clock plan gives a move.
struct ClockPlan {
    target: Duration,
    hard: Duration,
    solve_now: bool,
}

/// The plan for a move under a game clock.
fn clock_plan(clock: &GameClock, empties: u32, threads: usize) -> ClockPlan {
    let reserve = CLOCK_RESERVE + clock.remaining / CLOCK_RESERVE_DIVISOR;
    let usable = clock.remaining.saturating_sub(reserve);
    if let Some(moves) = clock.moves_to_go.filter(|&moves| moves > 0) {
        // A period of so many moves (byo-yomi): an even share of it.
        let share = usable / moves + clock.increment.mul_f64(0.8);
        let most = if moves == 1 { usable } else { usable / 2 };
        let hard = (share * 3).min(most);
        return ClockPlan {
            target: share.min(hard),
            hard,
            solve_now: false,
        };
    }
    let our_moves = empties.div_ceil(2).max(1);
    // Increments still to come are spent before they come: the moves after the solve take
    // almost nothing.
    let pot = usable.as_secs_f64() + clock.increment.as_secs_f64() * f64::from(our_moves - 1);
    let (solve_at, cost) = solve_point(empties, pot, threads);
    if solve_at >= empties {
        let hard = usable.mul_f64(SOLVE_HARD_PART);
        return ClockPlan {
            target: usable.mul_f64(SOLVE_TARGET_PART),
            hard,
            solve_now: true,
        };
    }
    let midgame_pot = (pot - cost).max(0.0);
    let weights: f64 = (solve_at + 2..=empties)
        .rev()
        .step_by(2)
        .map(move_weight)
        .sum();
    let share = Duration::from_secs_f64(midgame_pot * move_weight(empties) / weights);
    let hard = (share * 3).min(usable / 2);
    ClockPlan {
        target: share.min(hard),
        hard,
        solve_now: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock_limits(remaining: f64, increment: f64) -> Limits {
        Limits {
            clock: Some(GameClock {
                remaining: Duration::from_secs_f64(remaining),
                increment: Duration::from_secs_f64(increment),
                moves_to_go: None,
            }),
            ..Limits::default()
        }
    }

    #[test]
    fn a_time_per_move_keeps_back_only_what_the_reply_needs() {
        let budget = |ms: u64| {
            let limits = Limits {
                move_time: Some(Duration::from_millis(ms)),
                ..Limits::default()
            };
            TimeBudget::from_limits(&limits, 40, 1)
        };
        assert_eq!(budget(100).hard, Some(Duration::from_millis(94)));
        assert_eq!(budget(1_000).hard, Some(Duration::from_millis(985)));
        assert_eq!(budget(10_000).hard, Some(Duration::from_millis(9_980)));
        assert_eq!(budget(10).hard, Some(Duration::from_millis(8)));
        assert_eq!(
            budget(100).target,
            None,
            "a time per move is all the move's own"
        );
        assert!(!budget(100).solve_now);
    }

    #[test]
    fn clock_budget_never_spends_the_reserve() {
        for remaining_ms in [1u64, 50, 1_000, 60_000, 900_000] {
            for increment_ms in [0u64, 100, 5_000] {
                for empties in [1, 10, 21, 30, 60] {
                    let limits = clock_limits(remaining_ms as f64 / 1e3, increment_ms as f64 / 1e3);
                    let remaining = Duration::from_millis(remaining_ms);
                    for threads in [1, 2] {
                        let budget = TimeBudget::from_limits(&limits, empties, threads);
                        let reserve = CLOCK_RESERVE + remaining / CLOCK_RESERVE_DIVISOR;
                        assert!(budget.hard.unwrap() <= remaining.saturating_sub(reserve));
                        assert!(budget.target.unwrap() <= budget.hard.unwrap());
                    }
                }
            }
        }
    }

    #[test]
    fn the_solve_point_follows_the_clock_and_the_threads() {
        // From an XOT opening (52 empties) the solver takes over at 20 empties under 10 s + 0.1 s
        // on one thread, at 20 under 5 s, at 22 under 30 s on one thread and 24 on two.
        let at = |remaining: f64, increment: f64, threads| {
            let pot = remaining - 0.025 - remaining / 50.0 + increment * 25.0;
            solve_point(52, pot, threads).0
        };
        assert_eq!(at(10.0, 0.1, 1), 20);
        assert_eq!(at(5.0, 0.0, 1), 20);
        assert_eq!(at(30.0, 0.0, 1), 22);
        assert_eq!(at(30.0, 0.0, 2), 24);
        // At the solve point the move itself solves, jumping to the end early.
        let budget = TimeBudget::from_limits(&clock_limits(2.0, 0.1), 22, 1);
        assert!(budget.solve_now);
        assert!(budget.hard.unwrap() > Duration::from_millis(1_500));
        assert!(!TimeBudget::from_limits(&clock_limits(2.0, 0.1), 30, 1).solve_now);
    }

    #[test]
    fn the_middle_of_the_game_gets_the_largest_shares() {
        let share = |empties| {
            TimeBudget::from_limits(&clock_limits(10.0, 0.0), empties, 1)
                .target
                .unwrap()
        };
        assert!(share(32) > share(52));
        assert!(move_weight(30) > move_weight(50) && move_weight(30) > move_weight(20));
    }

    /// Plays a game's clock through: each of our moves, from 52 empties down, takes
    /// `use_of_target` of its target (at most its hard limit), and a move that solves takes
    /// `solve_speed` times the predicted solve (at most its hard limit), after which the moves
    /// take 1 ms (at most their hard limits). Returns the least the clock held after a move and what it held at the end.
    fn play_clock(main: f64, increment: f64, use_of_target: f64, solve_speed: f64) -> (f64, f64) {
        let mut remaining = main;
        let mut least = f64::MAX;
        let mut solved = false;
        for empties in (1..=52).rev().step_by(2) {
            let budget = TimeBudget::from_limits(&clock_limits(remaining, increment), empties, 1);
            let hard = budget.hard.unwrap().as_secs_f64();
            let used = if solved {
                hard.min(0.001)
            } else if budget.solve_now {
                solved = true;
                (solve_speed * predicted_solve_seconds(empties, 1)).min(hard)
            } else {
                (use_of_target * budget.target.unwrap().as_secs_f64()).min(hard)
            };
            remaining -= used;
            least = least.min(remaining);
            remaining += increment;
        }
        (least, remaining)
    }

    #[test]
    fn a_game_under_a_clock_uses_its_time_and_never_runs_out() {
        for (main, increment) in [(5.0, 0.0), (10.0, 0.1), (30.0, 0.0), (1.0, 0.0)] {
            let given = main + 26.0 * increment;
            for use_of_target in [0.5, 1.0, 2.0, 4.0] {
                for solve_speed in [0.2, 1.0, 3.0, 20.0] {
                    let (least, _) = play_clock(main, increment, use_of_target, solve_speed);
                    assert!(least > 0.02, "{main}+{increment}: down to {least:.3} s");
                }
            }
            // Moves that take their targets and a solve as fast as predicted leave little.
            let (_, left) = play_clock(main, increment, 1.0, 1.0);
            let increments_after_solve = 11.0 * increment;
            assert!(
                left - increments_after_solve < 0.1 * given,
                "{main}+{increment}: {left:.2} s left of {given:.1}"
            );
        }
    }

    fn report(elapsed_ms: u64, last_ms: u64, before_ms: u64) -> IterationReport {
        IterationReport {
            elapsed: Duration::from_millis(elapsed_ms),
            last: Duration::from_millis(last_ms),
            before_last: Some(Duration::from_millis(before_ms)),
            best_move_changed: false,
            same_best_move: 1,
            score: 2,
            score_drop: 0,
        }
    }

    #[test]
    fn a_time_per_move_starts_iterations_until_the_hard_limit() {
        let budget = TimeBudget {
            target: None,
            hard: Some(Duration::from_millis(85)),
            solve_now: false,
        };
        assert!(budget.starts_next_iteration(&report(80, 50, 10)));
        assert!(!budget.starts_next_iteration(&report(85, 50, 10)));
    }

    #[test]
    fn under_a_clock_the_next_iteration_must_half_fit_the_target() {
        // A target of 1 s once stretched.
        let budget = TimeBudget {
            target: Some(Duration::from_secs_f64(1.0 / START_STRETCH)),
            hard: Some(Duration::from_millis(3_000)),
            solve_now: false,
        };
        // Growing 3x a ply: the next takes 600 ms, half of it ends at 600 ms.
        assert!(budget.starts_next_iteration(&report(300, 200, 67)));
        // ... but not after four iterations with the same move: the target is then 700 ms.
        let settled = IterationReport {
            same_best_move: 4,
            ..report(450, 200, 67)
        };
        assert!(budget.starts_next_iteration(&report(450, 200, 67)));
        assert!(!budget.starts_next_iteration(&settled));
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
