//! One game between two engines, refereed by the harness's own board.

use super::player::{game_record, record_move, EngineSpec, Failure, Player, TimeControl};
use crate::board::{Color, Move, Position};
use crate::notation::GgfGame;
use std::time::{Duration, Instant};

/// The record's tag naming how a forfeited game was lost (`time`, `illegal`, `garbage`,
/// `crash`), so that a resumed match counts it as it was counted when played.
pub const FORFEIT_TAG: &str = "FO";

/// How long an engine may stay silent when the match has no clock.
const UNTIMED_LIMIT: Duration = Duration::from_secs(600);

/// A game to play: which opening, and whether the first engine has Black.
#[derive(Clone, Copy, Debug)]
pub(super) struct Job {
    pub(super) opening: usize,
    pub(super) first_is_black: bool,
}

/// How a game ended.
#[derive(Clone, Debug)]
pub struct GameOutcome {
    pub record: GgfGame,
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// Black's final disc difference when the game was played to the end.
    pub black_score: Option<i32>,
    /// The side that lost by failing, and how.
    pub failure: Option<(Color, Failure)>,
}

/// The two seats of a game: the spec and the live process (if any) of Black and White.
pub struct Seats<'a> {
    pub specs: [&'a EngineSpec; 2],
    pub players: [&'a mut Option<Player>; 2],
}

fn index(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

impl Seats<'_> {
    /// The player of `color`, started if it is not running.
    fn player(&mut self, color: Color) -> Result<&mut Player, Failure> {
        let i = index(color);
        if self.players[i].is_none() {
            *self.players[i] = Some(Player::start(self.specs[i])?);
        }
        Ok(self.players[i].as_mut().expect("just started"))
    }

    /// Forgets a failed player so that it is restarted for the next game.
    fn drop_player(&mut self, color: Color) {
        *self.players[index(color)] = None;
    }
}

/// Plays one game from `opening`, Black and White each on their own time control of
/// `times`; a failing engine loses it and is dropped.
pub fn play_game(
    seats: &mut Seats<'_>,
    opening: &[Move],
    times: [TimeControl; 2],
    margin: Duration,
) -> GameOutcome {
    let names = [seats.specs[0].name.as_str(), seats.specs[1].name.as_str()];
    let mut record = game_record(names, times);
    let forfeit = |record: GgfGame, seats: &mut Seats<'_>, color: Color, failure: Failure| {
        log::info!(
            "{} ({color:?}) forfeits: {failure:?}",
            seats.specs[index(color)].name
        );
        seats.drop_player(color);
        let tag = if failure == Failure::Time { ":t" } else { ":r" };
        let mut record = record;
        let winner_sign = if color == Color::Black { -64 } else { 64 };
        record
            .tags
            .push(("RE".into(), format!("{winner_sign:+}.000{tag}")));
        record
            .tags
            .push((FORFEIT_TAG.into(), failure.kind().into()));
        GameOutcome {
            record,
            winner: Some(color.other()),
            black_score: None,
            failure: Some((color, failure)),
        }
    };
    for color in [Color::Black, Color::White] {
        let time = times[index(color)];
        if let Err(failure) = seats.player(color).and_then(|p| p.new_game(opening, time)) {
            return forfeit(record, seats, color, failure);
        }
    }
    let mut position = Position::START;
    for &mv in opening {
        record_move(&mut record, position.side_to_move, mv, None);
        position = position.play(mv).expect("openings are checked when loaded");
    }
    while !position.board.is_game_over() {
        let color = position.side_to_move;
        let time = times[index(color)];
        if position.board.must_pass() {
            for teller in [Color::Black, Color::White] {
                if let Err(failure) = seats
                    .player(teller)
                    .and_then(|p| p.tell(&position, Move::Pass))
                {
                    return forfeit(record, seats, teller, failure);
                }
            }
            record_move(&mut record, color, Move::Pass, None);
            position = position.play(Move::Pass).expect("a forced pass is legal");
            continue;
        }
        // The clock as GGF counts it, so that NBoard engines, which read it from the record,
        // see what GTP engines are told.
        let remaining = record.time_left(color).unwrap_or(0.0);
        let allowed = match time {
            TimeControl::PerMove(seconds) => Duration::from_secs_f64(seconds),
            TimeControl::Clock { .. } => Duration::from_secs_f64(remaining.max(0.0)),
            TimeControl::Depth(_) => UNTIMED_LIMIT,
        };
        let deadline = Instant::now() + allowed + margin;
        let answer = seats
            .player(color)
            .and_then(|p| p.choose(&record, &position, time, remaining, deadline));
        let (mv, seconds) = match answer {
            Ok(answer) => answer,
            Err(failure) => return forfeit(record, seats, color, failure),
        };
        if Duration::from_secs_f64(seconds) > allowed + margin {
            return forfeit(record, seats, color, Failure::Time);
        }
        let next = match (mv, position.play(mv)) {
            (Move::Play(_), Ok(next)) => next,
            _ => {
                let text = crate::notation::format_move(mv);
                return forfeit(record, seats, color, Failure::Illegal(text));
            }
        };
        let other = color.other();
        if let Err(failure) = seats.player(other).and_then(|p| p.tell(&position, mv)) {
            return forfeit(record, seats, other, failure);
        }
        record_move(
            &mut record,
            color,
            mv,
            Some((seconds * 1000.0).round() / 1000.0),
        );
        position = next;
    }
    let black_score = position.black_final_score();
    record
        .tags
        .push(("RE".into(), format!("{black_score:+}.000")));
    GameOutcome {
        record,
        winner: match black_score.signum() {
            1 => Some(Color::Black),
            -1 => Some(Color::White),
            _ => None,
        },
        black_score: Some(black_score),
        failure: None,
    }
}
