//! The two protocols from the harness's side: how to set up a game, tell a move and ask for
//! one. The harness keeps the authoritative board; players only relay.

use super::process::{EngineProcess, ProcessError};
use crate::board::{Color, Move, Position};
use crate::notation::{format_clock, format_move, parse_move, Clock, GgfGame, GgfMove};
use std::time::{Duration, Instant};

/// Which protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Gtp,
    NBoard,
}

impl std::str::FromStr for Protocol {
    type Err = String;
    fn from_str(text: &str) -> Result<Protocol, String> {
        match text.to_ascii_lowercase().as_str() {
            "gtp" => Ok(Protocol::Gtp),
            "nboard" => Ok(Protocol::NBoard),
            _ => Err(format!("unknown protocol '{text}' (gtp or nboard)")),
        }
    }
}

/// How an engine is started and spoken to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub name: String,
    pub command: String,
    pub protocol: Protocol,
    /// GTP only: do not send `play <color> pass` (GRhino refuses it and inserts passes itself).
    pub implicit_passes: bool,
    /// Whether the engine may play from its opening book. Off, an engine that knows the GTP
    /// command `oxello-book` is told `oxello-book off`; other engines keep what their command
    /// line chose.
    pub use_book: bool,
}

/// The time control of a match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeControl {
    /// A fixed depth, sent to NBoard engines (GTP engines take it on their command line).
    Depth(u32),
    /// Seconds per move.
    PerMove(f64),
    /// A game clock: main time and increment per move, in seconds.
    Clock { main: f64, increment: f64 },
}

impl TimeControl {
    /// This time control with `factor` times the time: the time per move, or the clock's
    /// main time and increment (a depth stays as it is). For time odds.
    pub fn scaled(self, factor: f64) -> TimeControl {
        match self {
            TimeControl::Depth(depth) => TimeControl::Depth(depth),
            TimeControl::PerMove(seconds) => TimeControl::PerMove(seconds * factor),
            TimeControl::Clock { main, increment } => TimeControl::Clock {
                main: main * factor,
                increment: increment * factor,
            },
        }
    }
}

/// What went wrong with an engine during a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// It answered with something that is not a legal move.
    Illegal(String),
    /// It ran out of time (or never answered).
    Time,
    /// It exited or could not be started.
    Crash(String),
    /// It answered something unexpected.
    Garbage(String),
}

impl Failure {
    /// The failure's kind as a games file records it.
    pub fn kind(&self) -> &'static str {
        match self {
            Failure::Illegal(_) => "illegal",
            Failure::Time => "time",
            Failure::Crash(_) => "crash",
            Failure::Garbage(_) => "garbage",
        }
    }

    /// A failure read back from a games file: its kind, without the details of the moment.
    pub fn of_kind(kind: &str) -> Failure {
        let detail = "as recorded in the games file".to_string();
        match kind {
            "time" => Failure::Time,
            "illegal" => Failure::Illegal(detail),
            "garbage" => Failure::Garbage(detail),
            _ => Failure::Crash(detail),
        }
    }
}

impl From<ProcessError> for Failure {
    fn from(error: ProcessError) -> Failure {
        match error {
            ProcessError::Timeout => Failure::Time,
            other => Failure::Crash(other.to_string()),
        }
    }
}

/// A connected engine.
pub struct Player {
    pub spec: EngineSpec,
    process: EngineProcess,
    ping: u32,
}

/// How long setup commands may take.
const SETUP_TIMEOUT: Duration = Duration::from_secs(30);

impl Player {
    /// Starts the engine and greets it.
    pub fn start(spec: &EngineSpec) -> Result<Player, Failure> {
        let process = EngineProcess::spawn(&spec.command)?;
        let mut player = Player {
            spec: spec.clone(),
            process,
            ping: 0,
        };
        match spec.protocol {
            Protocol::Gtp => {
                player.gtp("protocol_version", SETUP_TIMEOUT)?;
                if !spec.use_book
                    && player
                        .gtp("known_command oxello-book", SETUP_TIMEOUT)
                        .is_ok_and(|known| known == "true")
                {
                    player.gtp("oxello-book off", SETUP_TIMEOUT)?;
                }
            }
            Protocol::NBoard => {
                player.process.send("nboard 2")?;
                player.sync()?;
            }
        }
        Ok(player)
    }

    /// A GTP exchange: the reply text of a success.
    fn gtp(&mut self, command: &str, timeout: Duration) -> Result<String, Failure> {
        self.process.send(command)?;
        let deadline = Instant::now() + timeout;
        let mut reply = loop {
            let line = self.process.line(deadline)?;
            if !line.trim().is_empty() {
                break line;
            }
        };
        loop {
            let line = self.process.line(deadline)?;
            if line.trim().is_empty() {
                break;
            }
            reply.push('\n');
            reply.push_str(&line);
        }
        match reply.chars().next() {
            Some('=') => Ok(reply[1..]
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim()
                .to_string()),
            Some('?') => Err(Failure::Garbage(format!("'{command}' failed: {reply}"))),
            _ => Err(Failure::Garbage(reply)),
        }
    }

    /// NBoard: ping and wait for the matching pong, skipping anything else.
    fn sync(&mut self) -> Result<(), Failure> {
        self.ping += 1;
        let ping = self.ping;
        self.process.send(&format!("ping {ping}"))?;
        let deadline = Instant::now() + SETUP_TIMEOUT;
        let expected = format!("pong {ping}");
        while self.process.line(deadline)?.trim() != expected {}
        Ok(())
    }

    /// Prepares a new game from the start position with `opening` already played.
    pub fn new_game(&mut self, opening: &[Move], time: TimeControl) -> Result<(), Failure> {
        if self.spec.protocol == Protocol::NBoard {
            if let TimeControl::Depth(depth) = time {
                self.process.send(&format!("set depth {depth}"))?;
            }
            return Ok(());
        }
        self.gtp("boardsize 8", SETUP_TIMEOUT)?;
        self.gtp("clear_board", SETUP_TIMEOUT)?;
        match time {
            TimeControl::PerMove(seconds) => {
                self.time_command("time_settings 0 {} 1", seconds)?;
            }
            TimeControl::Clock { main, increment } if increment > 0.0 => {
                let fischer = format!("kgs-time_settings fischer {{}} {increment}");
                if !self.time_command(&fischer, main)? {
                    self.time_command("time_settings {} 0 0", main)?;
                }
            }
            TimeControl::Clock { main, .. } => {
                self.time_command("time_settings {} 0 0", main)?;
            }
            TimeControl::Depth(_) => {}
        }
        let mut position = Position::START;
        for &mv in opening {
            self.tell(&position, mv)?;
            position = position.play(mv).expect("openings are checked");
        }
        Ok(())
    }

    /// Sends a GTP time command with `seconds` in place of `{}`: with decimals, then (for
    /// engines that take only whole seconds, as GTP says) rounded down, so that no engine is
    /// told of time it does not have, but never to 0 (no limit). Whether the engine took one;
    /// an engine that refuses both keeps its own time, and the harness still enforces the
    /// match's.
    fn time_command(&mut self, template: &str, seconds: f64) -> Result<bool, Failure> {
        let whole = seconds.floor().max(1.0) as u64;
        let mut tries = vec![format!("{seconds:.3}")];
        if seconds.fract() != 0.0 {
            tries.push(whole.to_string());
        } else {
            tries[0] = format!("{}", seconds as u64);
        }
        for value in &tries {
            match self.gtp(&template.replace("{}", value), SETUP_TIMEOUT) {
                Ok(_) => return Ok(true),
                Err(Failure::Garbage(why)) => log::debug!("{}: {why}", self.spec.name),
                Err(other) => return Err(other),
            }
        }
        Ok(false)
    }

    /// Tells a GTP engine a move made at `position` (by itself or the other engine).
    pub fn tell(&mut self, position: &Position, mv: Move) -> Result<(), Failure> {
        if self.spec.protocol == Protocol::NBoard || (mv == Move::Pass && self.spec.implicit_passes)
        {
            return Ok(());
        }
        let command = format!(
            "play {} {}",
            color_letter(position.side_to_move),
            gtp_move(mv)
        );
        self.gtp(&command, SETUP_TIMEOUT).map(|_| ())
    }

    /// Asks for a move in `game`'s final position, `remaining` being this engine's clock.
    /// Returns the move and the seconds it took; the move is checked by the caller.
    pub fn choose(
        &mut self,
        game: &GgfGame,
        position: &Position,
        time: TimeControl,
        remaining: f64,
        deadline: Instant,
    ) -> Result<(Move, f64), Failure> {
        let color = position.side_to_move;
        match self.spec.protocol {
            Protocol::Gtp => {
                if let TimeControl::Clock { .. } = time {
                    let command = format!("time_left {} {{}} 0", color_letter(color));
                    self.time_command(&command, remaining.max(0.0))?;
                }
                let started = Instant::now();
                self.process
                    .send(&format!("genmove {}", color_letter(color)))?;
                let reply = self.gtp_reply(deadline)?;
                let seconds = started.elapsed().as_secs_f64();
                let text = reply
                    .strip_prefix('=')
                    .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()).trim())
                    .ok_or_else(|| Failure::Garbage(reply.clone()))?;
                let mv = parse_move(text).map_err(|_| Failure::Illegal(text.to_string()))?;
                Ok((mv, seconds))
            }
            Protocol::NBoard => {
                let mut record = game.clone();
                if let TimeControl::PerMove(seconds) = time {
                    // NBoard has no time per move: a clock that holds just the move's time,
                    // which no engine overruns without losing on its own clock.
                    let clock = Clock {
                        main: seconds,
                        increment: 0.0,
                        grace: 0.0,
                    };
                    record
                        .tags
                        .retain(|(k, _)| k != "TI" && k != "TB" && k != "TW");
                    record.tags.push(("TI".into(), format_clock(&clock)));
                    record.moves.iter_mut().for_each(|m| m.seconds = None);
                }
                self.process.send(&format!("set game {record}"))?;
                self.sync()?;
                let started = Instant::now();
                self.process.send("go")?;
                let answer = loop {
                    let line = self.process.line(deadline)?;
                    if let Some(answer) = line.strip_prefix("===") {
                        break answer.trim().to_string();
                    }
                };
                let seconds = started.elapsed().as_secs_f64();
                let text = answer
                    .split(|c: char| c == '/' || c.is_whitespace())
                    .next()
                    .unwrap_or("");
                let mv = parse_move(text).map_err(|_| Failure::Illegal(answer.clone()))?;
                Ok((mv, seconds))
            }
        }
    }

    /// Reads one GTP reply (first non-empty line up to the blank line).
    fn gtp_reply(&mut self, deadline: Instant) -> Result<String, Failure> {
        let reply = loop {
            let line = self.process.line(deadline)?;
            if !line.trim().is_empty() {
                break line;
            }
        };
        while !self.process.line(deadline)?.trim().is_empty() {}
        Ok(reply)
    }

    /// Ends the session politely.
    pub fn quit(mut self) {
        self.process.send("quit").ok();
    }
}

/// The record of a game in GGF with the players' clocks: `TI` when both have the same one,
/// else `TB` and `TW` (time odds). `times` are Black's and White's.
pub fn game_record(names: [&str; 2], times: [TimeControl; 2]) -> GgfGame {
    let mut game = GgfGame::new(Position::START);
    game.tags.push(("PC".into(), "oxello match".into()));
    game.tags.push(("PB".into(), names[0].into()));
    game.tags.push(("PW".into(), names[1].into()));
    let clock_tag = |time: TimeControl| match time {
        TimeControl::Clock { main, increment } => Some(format_clock(&Clock {
            main,
            increment,
            grace: 0.0,
        })),
        _ => None,
    };
    if times[0] == times[1] {
        if let Some(clock) = clock_tag(times[0]) {
            game.tags.push(("TI".into(), clock));
        }
    } else {
        for (tag, time) in ["TB", "TW"].into_iter().zip(times) {
            if let Some(clock) = clock_tag(time) {
                game.tags.push((tag.into(), clock));
            }
        }
    }
    game.tags.push(("TY".into(), "8".into()));
    game
}

/// Records a move with its time in a game record.
pub fn record_move(game: &mut GgfGame, color: Color, mv: Move, seconds: Option<f64>) {
    game.moves.push(GgfMove {
        color,
        mv,
        eval: None,
        seconds,
    });
}

fn color_letter(color: Color) -> &'static str {
    match color {
        Color::Black => "b",
        Color::White => "w",
    }
}

fn gtp_move(mv: Move) -> String {
    match mv {
        Move::Pass => "pass".to_string(),
        other => format_move(other),
    }
}
