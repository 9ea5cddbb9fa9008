//! Time control: how long one move may take, from a per-move time or a game clock.

use super::Limits;
use std::time::Duration;

/// A game clock for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameClock {
    /// Time left on the clock.
    pub remaining: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves to play before the next time control, if the clock has one.
    pub moves_to_go: Option<u32>,
}

/// The time a search may use: past `soft` no new iteration starts; at `hard` it stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimeBudget {
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
}

/// Time kept back from every budget for reading, replying and process scheduling.
const OVERHEAD: Duration = Duration::from_millis(15);

impl TimeBudget {
    /// The budget for a search under `limits` with `empties` empty squares on the board.
    pub fn from_limits(limits: &Limits, empties: u32) -> TimeBudget {
        let mut hard: Option<Duration> = None;
        let mut soft: Option<Duration> = None;
        if let Some(move_time) = limits.move_time {
            let usable = move_time.saturating_sub(OVERHEAD.min(move_time / 5));
            hard = Some(usable);
            soft = Some(usable / 2);
        }
        if let Some(clock) = limits.clock {
            let (clock_soft, clock_hard) = clock_budget(&clock, empties);
            hard = Some(hard.map_or(clock_hard, |h| h.min(clock_hard)));
            soft = Some(soft.map_or(clock_soft, |s| s.min(clock_soft)));
        }
        TimeBudget { soft, hard }
    }
}

/// Spread the clock over our remaining moves, keeping a reserve so that the clock never runs
/// out: the hard limit never exceeds half of what is left after the reserve.
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
    let soft = share.min(hard);
    (soft, hard)
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
        assert!(budget.soft.unwrap() <= budget.hard.unwrap());
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
                assert!(budget.soft.unwrap() <= budget.hard.unwrap());
            }
        }
    }
}
