//! GTP's time: `time_settings` (main time and Canadian byo-yomi), `kgs-time_settings` (also
//! Japanese byo-yomi, and `fischer` for an increment), `time_left` with fractions; both
//! players' clocks as the engine keeps them between `time_left`s, and the limits of a move.

use super::gtp_args::{argument, parse_color};
use crate::board::Color;
use crate::search::GameClock;
use std::time::Duration;

/// What follows the main time.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Overtime {
    /// Nothing: the main time (with its increment) is all.
    None,
    /// Canadian byo-yomi: `period` seconds for every `stones` moves.
    Canadian { period: f64, stones: u32 },
    /// Japanese byo-yomi: `period` seconds a move, `periods` times overstepped at most.
    Japanese { period: f64, periods: u32 },
}

/// The time settings of a game.
#[derive(Clone, Copy, Debug, PartialEq)]
struct TimeSettings {
    main: f64,
    /// Seconds added after each move (Fischer).
    increment: f64,
    overtime: Overtime,
}

/// One player's clock as the engine tracks it (or as `time_left` last set it).
#[derive(Clone, Copy, Debug, PartialEq)]
struct PlayerClock {
    /// Seconds left in the current period.
    remaining: f64,
    /// Moves (Canadian) or periods (Japanese) left in byo-yomi; 0 while in main time.
    stones_left: u32,
}

/// The game's time settings and both players' clocks; no settings, no clock.
#[derive(Clone, Debug, Default)]
pub struct GtpClock {
    settings: Option<TimeSettings>,
    clocks: [PlayerClock; 2],
}

impl Default for PlayerClock {
    fn default() -> PlayerClock {
        PlayerClock {
            remaining: 0.0,
            stones_left: 0,
        }
    }
}

fn color_index(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// Seconds as GTP gives them, fractions allowed.
fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=1.0e7).contains(&v) => Ok(v),
        _ => Err(format!("invalid time '{text}'")),
    }
}

fn parse_count(text: &str, what: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .map_err(|_| format!("invalid {what} '{text}'"))
}

impl GtpClock {
    /// `time_settings main byoyomi stones`: main time, then `byoyomi` seconds for every
    /// `stones` moves (GTP 2). Byo-yomi time with no stones means no time limit.
    pub fn time_settings(&mut self, args: &[&str]) -> Result<(), String> {
        let main = parse_seconds(argument(args, 0, "main time")?)?;
        let period = parse_seconds(argument(args, 1, "byo-yomi time")?)?;
        let stones = parse_count(argument(args, 2, "byo-yomi stones")?, "byo-yomi stones")?;
        let overtime = if period > 0.0 && stones > 0 {
            Overtime::Canadian { period, stones }
        } else {
            Overtime::None
        };
        let limited = main > 0.0 || overtime != Overtime::None;
        self.set(limited.then_some(TimeSettings {
            main,
            increment: 0.0,
            overtime,
        }));
        Ok(())
    }

    /// `kgs-time_settings none | absolute main | byoyomi main period periods | canadian main
    /// period stones | fischer main increment`: KGS's modes, and an increment per move.
    pub fn kgs_time_settings(&mut self, args: &[&str]) -> Result<(), String> {
        let mode = argument(args, 0, "time system")?.to_ascii_lowercase();
        let seconds = |index: usize, what: &str| parse_seconds(argument(args, index, what)?);
        let count = |index: usize, what: &str| parse_count(argument(args, index, what)?, what);
        let (main, increment, overtime) = match mode.as_str() {
            "none" => {
                self.set(None);
                return Ok(());
            }
            "absolute" => (seconds(1, "main time")?, 0.0, Overtime::None),
            "fischer" => (
                seconds(1, "main time")?,
                seconds(2, "increment")?,
                Overtime::None,
            ),
            "byoyomi" => (
                seconds(1, "main time")?,
                0.0,
                Overtime::Japanese {
                    period: seconds(2, "period time")?,
                    periods: count(3, "periods")?,
                },
            ),
            "canadian" => (
                seconds(1, "main time")?,
                0.0,
                Overtime::Canadian {
                    period: seconds(2, "period time")?,
                    stones: count(3, "stones")?,
                },
            ),
            other => return Err(format!("unknown time system '{other}'")),
        };
        let overtime = match overtime {
            Overtime::Canadian { period, stones } if period <= 0.0 || stones == 0 => Overtime::None,
            Overtime::Japanese { period, periods } if period <= 0.0 || periods == 0 => {
                Overtime::None
            }
            kept => kept,
        };
        self.set(Some(TimeSettings {
            main,
            increment,
            overtime,
        }));
        Ok(())
    }

    /// `time_left color seconds stones`: the time left of `color`'s current period, and the
    /// moves (Canadian) or periods (Japanese) left in byo-yomi, 0 in main time. Without
    /// settings, it is taken as a clock of that much time.
    pub fn time_left(&mut self, args: &[&str]) -> Result<(), String> {
        let color = parse_color(argument(args, 0, "color")?)?;
        let seconds = parse_seconds(argument(args, 1, "seconds")?)?;
        let stones = parse_count(argument(args, 2, "stones")?, "stones")?;
        if self.settings.is_none() {
            self.settings = Some(TimeSettings {
                main: seconds,
                increment: 0.0,
                overtime: Overtime::None,
            });
        }
        self.clocks[color_index(color)] = PlayerClock {
            remaining: seconds,
            stones_left: stones,
        };
        Ok(())
    }

    fn set(&mut self, settings: Option<TimeSettings>) {
        self.settings = settings;
        self.reset();
    }

    /// Both clocks back to the main time (a new game).
    pub fn reset(&mut self) {
        if let Some(t) = self.settings {
            self.clocks = [PlayerClock {
                remaining: t.main,
                stones_left: 0,
            }; 2];
        }
    }

    /// The time limits of `color`'s move: a clock (with its increment, or the moves left in
    /// a byo-yomi period), a time per move (Japanese byo-yomi, or Canadian periods of one
    /// move), or none.
    pub fn limits(&self, color: Color) -> (Option<GameClock>, Option<Duration>) {
        let Some(t) = self.settings else {
            return (None, None);
        };
        let clock = self.clocks[color_index(color)];
        let in_main_time = clock.stones_left == 0 && clock.remaining > 0.0;
        let game_clock = |remaining: f64, moves_to_go: Option<u32>| GameClock {
            remaining: Duration::from_secs_f64(remaining.max(0.0)),
            increment: Duration::from_secs_f64(t.increment),
            moves_to_go,
        };
        match t.overtime {
            _ if in_main_time => (Some(game_clock(clock.remaining, None)), None),
            Overtime::None => (Some(game_clock(0.0, None)), None),
            Overtime::Japanese { period, .. } => (None, Some(Duration::from_secs_f64(period))),
            Overtime::Canadian { period, stones: 1 } if clock.stones_left <= 1 => {
                let left = if clock.stones_left == 1 {
                    clock.remaining
                } else {
                    period
                };
                (None, Some(Duration::from_secs_f64(left.max(0.0))))
            }
            Overtime::Canadian { period, stones } => {
                let (remaining, moves) = match clock.stones_left {
                    0 => (period, stones),
                    left => (clock.remaining, left),
                };
                (Some(game_clock(remaining, Some(moves))), None)
            }
        }
    }

    /// Charges `seconds` to `color`'s clock after its move: the increment added, and into
    /// byo-yomi (or its next period) when the time runs out.
    pub fn charge(&mut self, color: Color, seconds: f64) {
        let Some(t) = self.settings else { return };
        let clock = &mut self.clocks[color_index(color)];
        match t.overtime {
            Overtime::Canadian { period, stones } => {
                if clock.stones_left == 0 && clock.remaining <= 0.0 {
                    *clock = PlayerClock {
                        remaining: period,
                        stones_left: stones,
                    };
                }
                clock.remaining -= seconds;
                if clock.stones_left > 0 {
                    clock.stones_left -= 1;
                    if clock.stones_left == 0 {
                        *clock = PlayerClock {
                            remaining: period,
                            stones_left: stones,
                        };
                    }
                } else if clock.remaining <= 0.0 {
                    *clock = PlayerClock {
                        remaining: period,
                        stones_left: stones,
                    };
                }
            }
            Overtime::Japanese { period, periods } => {
                if clock.stones_left == 0 {
                    clock.remaining -= seconds;
                    if clock.remaining <= 0.0 {
                        *clock = PlayerClock {
                            remaining: period,
                            stones_left: periods,
                        };
                    }
                } else if seconds > period {
                    clock.stones_left = clock.stones_left.saturating_sub(1).max(1);
                }
            }
            Overtime::None => clock.remaining -= seconds,
        }
        if clock.stones_left == 0 {
            clock.remaining += t.increment;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock as seconds left, increment and moves to go.
    type ClockSeconds = (f64, f64, Option<u32>);

    fn clock_of(settings: &GtpClock, color: Color) -> (Option<ClockSeconds>, Option<f64>) {
        let (clock, move_time) = settings.limits(color);
        (
            clock.map(|c| {
                (
                    c.remaining.as_secs_f64(),
                    c.increment.as_secs_f64(),
                    c.moves_to_go,
                )
            }),
            move_time.map(|t| t.as_secs_f64()),
        )
    }

    #[test]
    fn fischer_clocks_gain_the_increment_after_each_move() {
        let mut clock = GtpClock::default();
        clock.kgs_time_settings(&["fischer", "10", "0.1"]).unwrap();
        assert_eq!(
            clock_of(&clock, Color::Black),
            (Some((10.0, 0.1, None)), None)
        );
        clock.charge(Color::Black, 0.6);
        let (black, _) = clock_of(&clock, Color::Black);
        assert!((black.unwrap().0 - 9.5).abs() < 1e-9);
        clock.time_left(&["w", "7.25", "0"]).unwrap();
        assert_eq!(
            clock_of(&clock, Color::White),
            (Some((7.25, 0.1, None)), None)
        );
    }

    #[test]
    fn canadian_byo_yomi_follows_main_time() {
        let mut clock = GtpClock::default();
        clock.time_settings(&["2", "6", "3"]).unwrap();
        clock.charge(Color::Black, 2.5);
        assert_eq!(
            clock_of(&clock, Color::Black),
            (Some((6.0, 0.0, Some(3))), None)
        );
        clock.charge(Color::Black, 1.0);
        assert_eq!(
            clock_of(&clock, Color::Black),
            (Some((5.0, 0.0, Some(2))), None)
        );
        // A period of one move is a time per move.
        clock.time_settings(&["0", "1.5", "1"]).unwrap();
        assert_eq!(clock_of(&clock, Color::White), (None, Some(1.5)));
        clock.charge(Color::White, 1.2);
        assert_eq!(clock_of(&clock, Color::White), (None, Some(1.5)));
    }

    #[test]
    fn japanese_byo_yomi_is_a_time_per_move_after_main_time() {
        let mut clock = GtpClock::default();
        clock
            .kgs_time_settings(&["byoyomi", "1", "0.5", "3"])
            .unwrap();
        assert_eq!(
            clock_of(&clock, Color::Black),
            (Some((1.0, 0.0, None)), None)
        );
        clock.charge(Color::Black, 1.2);
        assert_eq!(clock_of(&clock, Color::Black), (None, Some(0.5)));
    }

    #[test]
    fn no_settings_or_none_is_no_clock_and_bad_arguments_are_refused() {
        let mut clock = GtpClock::default();
        assert_eq!(clock_of(&clock, Color::Black), (None, None));
        clock.kgs_time_settings(&["absolute", "30"]).unwrap();
        clock.kgs_time_settings(&["none"]).unwrap();
        assert_eq!(clock_of(&clock, Color::Black), (None, None));
        assert!(clock.kgs_time_settings(&["hourglass", "30"]).is_err());
        assert!(clock.kgs_time_settings(&["fischer", "30"]).is_err());
        assert!(clock.time_settings(&["10", "x", "1"]).is_err());
        assert!(clock.time_left(&["b", "-5", "0"]).is_err());
        assert!(clock.time_left(&["b", "5", "many"]).is_err());
    }
}
