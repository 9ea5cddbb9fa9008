//! GGF game records as GGS archives and NBoard's `set game` carry them:
//! `(;GM[Othello]PC[]DT[]PB[]PW[]RE[]TI[15:00]TY[8]BO[8 <64 squares> <side>]B[F5//1.2]W[PA];)`.
//! Unknown tags are kept and printed back; moves are checked against the rules as they are read.

use super::board_text::parse_position;
use super::error::NotationError;
use super::square::{format_move, parse_move};
use crate::board::{Color, Move, Position};

/// A game clock: main time, increment per move and grace period, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    pub main: f64,
    pub increment: f64,
    pub grace: f64,
}

/// One move of a game record with the optional evaluation and thinking time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfMove {
    pub color: Color,
    pub mv: Move,
    /// The mover's evaluation in discs, if recorded.
    pub eval: Option<f64>,
    /// Seconds the mover spent, if recorded.
    pub seconds: Option<f64>,
}

/// A parsed GGF game: its tags in order, start position and moves (passes explicit).
#[derive(Clone, Debug, PartialEq)]
pub struct GgfGame {
    /// Every tag but `BO`, `B` and `W`, in the order read (GM, PC, TI, ...).
    pub tags: Vec<(String, String)>,
    pub start: Position,
    pub moves: Vec<GgfMove>,
}

impl GgfGame {
    /// A record of a new game from `start` with the tags the NBoard GUI writes.
    pub fn new(start: Position) -> GgfGame {
        GgfGame {
            tags: vec![("GM".to_string(), "Othello".to_string())],
            start,
            moves: Vec::new(),
        }
    }

    /// The value of a tag, if present.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The clock of `color`: its own `TB`/`TW` tag, else the shared `TI`.
    pub fn clock(&self, color: Color) -> Result<Option<Clock>, NotationError> {
        let own = match color {
            Color::Black => "TB",
            Color::White => "TW",
        };
        match self.tag(own).or_else(|| self.tag("TI")) {
            Some(text) if !text.trim().is_empty() => parse_clock(text).map(Some),
            _ => Ok(None),
        }
    }

    /// Seconds `color` has used according to the recorded move times.
    pub fn elapsed(&self, color: Color) -> f64 {
        self.moves
            .iter()
            .filter(|m| m.color == color)
            .filter_map(|m| m.seconds)
            .sum()
    }

    /// Seconds `color` had on its clock after the recorded moves, as GGF counts them: the
    /// main time, less its recorded move times, plus the increment for each of its moves
    /// (passes and moves without a time included). `None` without a clock or with one that
    /// does not parse.
    pub fn time_left(&self, color: Color) -> Option<f64> {
        let clock = self.clock(color).ok().flatten()?;
        Some(self.time_given(&clock, color) - self.elapsed(color))
    }

    /// Seconds `clock` has given `color` so far: its main time and an increment a move made.
    pub fn time_given(&self, clock: &Clock, color: Color) -> f64 {
        let moves_made = self.moves.iter().filter(|m| m.color == color).count();
        clock.main + clock.increment * moves_made as f64
    }

    /// The position after all the moves.
    pub fn final_position(&self) -> Position {
        self.moves.iter().fold(self.start, |position, m| {
            position.play(m.mv).unwrap_or(position)
        })
    }

    /// Parses a GGF game; the moves must be legal (a forced pass may be left out).
    pub fn parse(text: &str) -> Result<GgfGame, NotationError> {
        let open = text
            .find("(;")
            .ok_or_else(|| NotationError::new("a GGF game starts with '(;'"))?;
        let prefix = text[..open].trim();
        if !(prefix.is_empty() || prefix == "1" || prefix == "2") {
            return Err(NotationError::new(format!(
                "unexpected '{prefix}' before '(;'"
            )));
        }
        let mut rest = &text[open + 2..];
        let mut tags = Vec::new();
        let mut start = None;
        let mut raw_moves = Vec::new();
        loop {
            rest = rest.trim_start();
            if rest.starts_with(";)") {
                break;
            }
            let key_len = rest
                .find(|c: char| !c.is_ascii_alphabetic())
                .ok_or_else(|| NotationError::new("GGF game is not closed with ';)'"))?;
            if key_len == 0 {
                return Err(NotationError::new(format!(
                    "expected a tag name at '{}'",
                    rest.chars().take(12).collect::<String>()
                )));
            }
            let key = &rest[..key_len];
            rest = rest[key_len..].trim_start();
            if !rest.starts_with('[') {
                return Err(NotationError::new(format!("tag {key} has no '[value]'")));
            }
            let close = rest
                .find(']')
                .ok_or_else(|| NotationError::new(format!("tag {key} is not closed with ']'")))?;
            let value = &rest[1..close];
            rest = &rest[close + 1..];
            match key {
                "BO" => start = Some(parse_board(value)?),
                "B" | "W" => raw_moves.push((key, value)),
                _ => tags.push((key.to_string(), value.to_string())),
            }
        }
        let start = start.ok_or_else(|| NotationError::new("GGF game has no BO[] board"))?;
        let mut game = GgfGame {
            tags,
            start,
            moves: Vec::with_capacity(raw_moves.len()),
        };
        let mut position = start;
        for (key, value) in raw_moves {
            let color = if key == "B" {
                Color::Black
            } else {
                Color::White
            };
            let record = parse_move_value(color, value)?;
            if color != position.side_to_move && position.board.must_pass() {
                game.moves.push(GgfMove {
                    color: position.side_to_move,
                    mv: Move::Pass,
                    eval: None,
                    seconds: None,
                });
                position = position.play(Move::Pass).expect("forced pass is legal");
            }
            if color != position.side_to_move {
                return Err(NotationError::new(format!(
                    "move {} {key}[{value}] is out of turn",
                    game.moves.len() + 1
                )));
            }
            position = position.play(record.mv).map_err(|why| {
                NotationError::new(format!(
                    "move {} {key}[{value}] is illegal: {why}",
                    game.moves.len() + 1
                ))
            })?;
            game.moves.push(record);
        }
        Ok(game)
    }
}

impl std::fmt::Display for GgfGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "(;")?;
        for (key, value) in &self.tags {
            write!(f, "{key}[{value}]")?;
        }
        write!(f, "BO[8 ")?;
        let (black, white) = (self.start.black(), self.start.white());
        for row in 0..8 {
            for col in 0..8 {
                let bit = 1u64 << (row * 8 + col);
                let c = if black & bit != 0 {
                    '*'
                } else if white & bit != 0 {
                    'O'
                } else {
                    '-'
                };
                write!(f, "{c}")?;
            }
            write!(f, " ")?;
        }
        let side = match self.start.side_to_move {
            Color::Black => '*',
            Color::White => 'O',
        };
        write!(f, "{side}]")?;
        for m in &self.moves {
            let key = match m.color {
                Color::Black => 'B',
                Color::White => 'W',
            };
            write!(f, "{key}[{}", format_move(m.mv))?;
            if m.eval.is_some() || m.seconds.is_some() {
                write!(f, "/")?;
                if let Some(eval) = m.eval {
                    write!(f, "{eval}")?;
                }
                if let Some(seconds) = m.seconds {
                    write!(f, "/{seconds}")?;
                }
            }
            write!(f, "]")?;
        }
        write!(f, ";)")
    }
}

fn parse_board(value: &str) -> Result<Position, NotationError> {
    let value = value.trim_start();
    let squares = value
        .strip_prefix('8')
        .ok_or_else(|| NotationError::new("only 8x8 boards are supported (BO[8 ...])"))?;
    parse_position(squares)
}

fn parse_number(text: &str, what: &str) -> Result<Option<f64>, NotationError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(Some(value)),
        _ => Err(NotationError::new(format!(
            "'{text}' is not a valid {what}"
        ))),
    }
}

fn parse_move_value(color: Color, value: &str) -> Result<GgfMove, NotationError> {
    let mut parts = value.split('/');
    let mv = parse_move(parts.next().unwrap_or("").trim())?;
    let eval = parse_number(parts.next().unwrap_or(""), "evaluation")?;
    let seconds = parse_number(parts.next().unwrap_or(""), "move time")?;
    if seconds.is_some_and(|s| s < 0.0) {
        return Err(NotationError::new("a move time cannot be negative"));
    }
    Ok(GgfMove {
        color,
        mv,
        eval,
        seconds,
    })
}

/// Parses one duration `[[d.]h:]m:]s` into seconds.
fn parse_duration(text: &str) -> Result<f64, NotationError> {
    let bad = || NotationError::new(format!("'{text}' is not a duration [[d.]h:]m:]s"));
    let parts: Vec<&str> = text.trim().split(':').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(bad());
    }
    let mut seconds = 0.0;
    for (i, part) in parts.iter().enumerate() {
        let from_end = parts.len() - 1 - i;
        let value = if from_end == 2 && part.contains('.') {
            let (days, hours) = part.split_once('.').ok_or_else(bad)?;
            let days: u32 = days.parse().map_err(|_| bad())?;
            let hours: u32 = hours.parse().map_err(|_| bad())?;
            f64::from(days) * 24.0 + f64::from(hours)
        } else if from_end == 0 {
            let s: f64 = part.parse().map_err(|_| bad())?;
            if !s.is_finite() || s < 0.0 {
                return Err(bad());
            }
            s
        } else {
            f64::from(part.parse::<u32>().map_err(|_| bad())?)
        };
        seconds = seconds * 60.0 + value;
    }
    Ok(seconds)
}

/// Parses a GGF clock `main[/increment[/grace]]`; increment defaults to 0, grace to 120 s.
pub fn parse_clock(text: &str) -> Result<Clock, NotationError> {
    let mut parts = text.split('/');
    let main = parse_duration(parts.next().unwrap_or(""))?;
    let mut optional = |default: f64| -> Result<f64, NotationError> {
        match parts.next() {
            Some(p) if !p.trim().is_empty() => parse_duration(p),
            _ => Ok(default),
        }
    };
    let increment = optional(0.0)?;
    let grace = optional(120.0)?;
    if parts.next().is_some() {
        return Err(NotationError::new(format!(
            "'{text}' has too many clock fields"
        )));
    }
    Ok(Clock {
        main,
        increment,
        grace,
    })
}

fn format_duration(seconds: f64) -> String {
    let whole = seconds.trunc() as u64;
    let fraction = seconds - whole as f64;
    let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60);
    let mut text = if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    };
    if fraction > 0.0 {
        let digits = format!("{fraction}");
        text.push_str(digits.trim_start_matches('0'));
    }
    text
}

/// Prints a clock as `main/increment/grace` with durations in `[h:]m:ss`.
pub fn format_clock(clock: &Clock) -> String {
    format!(
        "{}/{}/{}",
        format_duration(clock.main),
        format_duration(clock.increment),
        format_duration(clock.grace)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const NBOARD_GAME: &str = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[Player]PW[Edax]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//1.2]W[F6/0.00/2.5]B[e6];)";

    #[test]
    fn parses_an_nboard_game() {
        let game = GgfGame::parse(NBOARD_GAME).unwrap();
        assert_eq!(game.start, Position::START);
        assert_eq!(game.moves.len(), 3);
        assert_eq!(game.moves[0].seconds, Some(1.2));
        assert_eq!(game.moves[1].eval, Some(0.0));
        assert_eq!(game.tag("PW"), Some("Edax"));
        assert_eq!(game.elapsed(Color::White), 2.5);
        assert_eq!(
            game.clock(Color::Black).unwrap(),
            Some(Clock {
                main: 900.0,
                increment: 0.0,
                grace: 120.0
            })
        );
        let again = GgfGame::parse(&game.to_string()).unwrap();
        assert_eq!(again, game);
    }

    #[test]
    fn clocks_in_every_form() {
        let c = parse_clock("5:00//2:00").unwrap();
        assert_eq!((c.main, c.increment, c.grace), (300.0, 0.0, 120.0));
        let c = parse_clock("23/1/14:00").unwrap();
        assert_eq!((c.main, c.increment, c.grace), (23.0, 1.0, 840.0));
        assert_eq!(parse_clock("1.02:00:00").unwrap().main, 26.0 * 3600.0);
        assert_eq!(parse_clock("24:00:00").unwrap().main, 86400.0);
        assert!(parse_clock("1:2:3:4").is_err());
        assert!(parse_clock("abc").is_err());
        assert!(parse_clock("1/2/3/4").is_err());
        let c = parse_clock("1:02:03.5/7/0").unwrap();
        assert_eq!(parse_clock(&format_clock(&c)).unwrap(), c);
    }

    #[test]
    fn rejects_broken_games() {
        assert!(GgfGame::parse("GM[Othello]").is_err());
        assert!(GgfGame::parse("(;GM[Othello];)").is_err());
        assert!(GgfGame::parse("(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[A1];)").is_err());
        assert!(GgfGame::parse("(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]W[F5];)").is_err());
        assert!(GgfGame::parse("(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[F5];").is_err());
        assert!(GgfGame::parse("(;GM[Othello]BO[10 ---------------------------O*------*O--------------------------- *];)").is_err());
    }
}
