//! GTP 2 in the Othello dialect (Edax, Egaroucid, GRhino; GoGui, Quarry, gogui-twogtp): parse a
//! command, call the engine, reply `=[id] result` or `?[id] message`, then a blank line.

use super::gtp_args::{argument, parse_color};
use super::gtp_clock::GtpClock;
use super::output::Output;
use super::session::{Flow, ServerConfig, Session, DEFAULT_DEPTH};
use crate::board::{Color, Move, Position};
use crate::engine::{Engine, MoveChoice};
use crate::notation::{format_move, format_square, parse_move};
use crate::search::level_depth;
use crate::search::probcut::level_percent;
use crate::search::{Limits, SearchOptions};
use std::time::{Duration, Instant};

/// Every command, as `list_commands` prints them.
const COMMANDS: [&str; 33] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "reg_genmove",
    "undo",
    "showboard",
    "final_score",
    "time_settings",
    "time_left",
    "kgs-time_settings",
    "set_game",
    "list_games",
    "gogui-rules_game_id",
    "gogui-rules_board_size",
    "gogui-rules_board",
    "gogui-rules_legal_moves",
    "gogui-rules_side_to_move",
    "gogui-rules_final_result",
    "oxello-threads",
    "oxello-hash",
    "oxello-depth",
    "oxello-movetime",
    "oxello-position",
    "oxello-book",
    "oxello-ponder",
];

/// Whether a raw line is the `quit` command (with or without an id).
pub fn is_quit(line: &str) -> bool {
    let cleaned = preprocess(line);
    let mut words = cleaned.split_whitespace();
    let first = words.next().unwrap_or("");
    let command = if first.bytes().all(|b| b.is_ascii_digit()) {
        words.next().unwrap_or("")
    } else {
        first
    };
    command.eq_ignore_ascii_case("quit")
}

/// GTP's preprocessing: control characters other than tab dropped, tabs made spaces,
/// comments after `#` removed.
fn preprocess(line: &str) -> String {
    line.split('#')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_control() || *c == '\t')
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect()
}

/// The GTP side of a connection.
pub struct GtpSession {
    search: SearchOptions,
    depth: Option<u32>,
    move_time: Option<Duration>,
    clock: GtpClock,
}

type Reply = Result<String, String>;

/// The score as GTP writes it: `B+4`, `W+2` or `0`.
fn score_text(black_score: i32) -> String {
    match black_score {
        s if s > 0 => format!("B+{s}"),
        s if s < 0 => format!("W+{}", -s),
        _ => "0".to_string(),
    }
}

impl GtpSession {
    pub fn new(config: &ServerConfig) -> GtpSession {
        GtpSession {
            search: config.search_options(),
            depth: config.depth,
            move_time: config.move_time,
            clock: GtpClock::default(),
        }
    }

    /// Brings the game to `color`'s turn: inserts a forced pass of the other side, or fails.
    fn turn_of(&self, engine: &mut Engine, color: Color) -> Result<(), String> {
        let position = engine.position();
        if position.board.is_game_over() {
            return Err("the game is over".to_string());
        }
        if position.side_to_move == color {
            return Ok(());
        }
        if position.board.must_pass() {
            engine.play(Move::Pass).expect("a forced pass is legal");
            return Ok(());
        }
        Err(format!("it is not {}'s turn", color.name()))
    }

    fn play(&mut self, args: &[&str], engine: &mut Engine) -> Reply {
        let color = parse_color(argument(args, 0, "color")?)?;
        let mv =
            parse_move(argument(args, 1, "move")?).map_err(|e| format!("illegal move: {e}"))?;
        let before = engine.game().clone();
        self.turn_of(engine, color)?;
        engine.play(mv).map_err(|why| {
            engine.set_game(before);
            format!("illegal move: {} ({why})", format_move(mv))
        })?;
        Ok(String::new())
    }

    fn limits(&self, position: &Position) -> Limits {
        let empties = position.board.empty_count();
        let mut limits = Limits {
            move_time: self.move_time,
            ..Limits::default()
        };
        let (clock, move_time) = self.clock.limits(position.side_to_move);
        limits.clock = clock;
        limits.move_time = match (limits.move_time, move_time) {
            (Some(setting), Some(time)) => Some(setting.min(time)),
            (setting, time) => setting.or(time),
        };
        let timed = limits.move_time.is_some() || limits.clock.is_some();
        let depth = self.depth.or((!timed).then_some(DEFAULT_DEPTH));
        limits.depth = depth.and_then(|d| level_depth(d, empties));
        limits
    }

    /// The move to play in the current position, from the book or a search, logging each
    /// iteration of the search.
    fn choose(&self, engine: &mut Engine, position: &Position) -> MoveChoice {
        let limits = self.limits(position);
        let choice = engine.choose_move(&limits, self.search, &mut |p| {
            log::info!(
                "depth {}@{}% score {:+} nodes {} nps {} pv {}",
                p.depth,
                level_percent(p.selectivity),
                p.score,
                p.nodes,
                p.nps(),
                p.pv.iter()
                    .map(|m| format_move(m.map_or(Move::Pass, Move::Play)))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        });
        if let MoveChoice::Book(book) = &choice {
            log::info!(
                "book move {} value {:+}",
                format_square(book.square),
                book.value
            );
        }
        choice
    }

    fn genmove(&mut self, args: &[&str], engine: &mut Engine, commit: bool) -> Reply {
        let color = parse_color(argument(args, 0, "color")?)?;
        if engine.position().board.is_game_over() {
            return Ok("pass".to_string());
        }
        let before = engine.game().clone();
        self.turn_of(engine, color)?;
        let position = engine.position();
        let started = Instant::now();
        let choice = self.choose(engine, &position);
        let mv = choice.mv();
        if commit {
            engine.plan_ponder(position, &choice);
            engine.play(mv).expect("the search returns a legal move");
            self.clock.charge(color, started.elapsed().as_secs_f64());
        } else {
            engine.set_game(before);
        }
        Ok(match mv {
            Move::Pass => "pass".to_string(),
            Move::Play(sq) => format_square(sq),
        })
    }

    fn setting(&mut self, command: &str, args: &[&str], engine: &mut Engine) -> Reply {
        let value = argument(args, 0, "value")?;
        let number = value
            .parse::<u64>()
            .map_err(|_| format!("invalid number '{value}'"))?;
        match command {
            "oxello-threads" => engine
                .set_threads(number as usize)
                .map_err(|e| e.to_string())?,
            "oxello-hash" => engine
                .set_hash_mib(number as usize)
                .map_err(|e| e.to_string())?,
            "oxello-depth" if number <= 60 => self.depth = (number > 0).then_some(number as u32),
            "oxello-depth" => return Err("depth must be 0 (none) to 60".to_string()),
            _ => self.move_time = (number > 0).then(|| Duration::from_millis(number)),
        }
        Ok(String::new())
    }

    fn execute(&mut self, command: &str, args: &[&str], engine: &mut Engine) -> Reply {
        let position = engine.position();
        match command {
            "protocol_version" => Ok("2".to_string()),
            "name" => Ok("oxello".to_string()),
            "version" => Ok(env!("CARGO_PKG_VERSION").to_string()),
            "known_command" => Ok(COMMANDS
                .contains(&argument(args, 0, "command")?)
                .to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "quit" => Ok(String::new()),
            "boardsize" => match argument(args, 0, "size")? {
                "8" => Ok(String::new()),
                _ => Err("unacceptable size".to_string()),
            },
            "clear_board" => {
                engine.new_game(Position::START);
                self.clock.reset();
                Ok(String::new())
            }
            "komi" => argument(args, 0, "komi")?
                .parse::<f64>()
                .map(|_| String::new())
                .map_err(|_| "syntax error: komi must be a number".to_string()),
            "play" => self.play(args, engine),
            "genmove" => self.genmove(args, engine, true),
            "reg_genmove" => self.genmove(args, engine, false),
            "undo" => {
                if engine.undo() {
                    Ok(String::new())
                } else {
                    Err("cannot undo".to_string())
                }
            }
            "showboard" => Ok(format!("\n{}", diagram(&position))),
            "final_score" | "gogui-rules_final_result" => {
                if position.board.is_game_over() {
                    Ok(score_text(position.black_final_score()))
                } else if command == "final_score" {
                    let diff =
                        position.black().count_ones() as i32 - position.white().count_ones() as i32;
                    Ok(score_text(diff))
                } else {
                    Ok("unknown".to_string())
                }
            }
            "time_settings" => self.clock.time_settings(args).map(|()| String::new()),
            "kgs-time_settings" => self.clock.kgs_time_settings(args).map(|()| String::new()),
            "time_left" => self.clock.time_left(args).map(|()| String::new()),
            "set_game" => match args.join(" ").to_ascii_lowercase().as_str() {
                "othello" | "reversi" => Ok(String::new()),
                other => Err(format!("unsupported game '{other}'")),
            },
            "list_games" | "gogui-rules_game_id" => Ok("Othello".to_string()),
            "gogui-rules_board_size" => Ok("8".to_string()),
            "gogui-rules_board" => Ok(format!("\n{}", rules_board(&position))),
            "gogui-rules_legal_moves" => Ok(legal_moves_text(&position)),
            "gogui-rules_side_to_move" => Ok(position.side_to_move.name().to_string()),
            "oxello-threads" | "oxello-hash" | "oxello-depth" | "oxello-movetime" => {
                self.setting(command, args, engine)
            }
            "oxello-position" => Ok(crate::notation::format_position(&position)),
            "oxello-book" => match argument(args, 0, "on or off")? {
                "on" if engine.enable_book(true) => Ok(String::new()),
                "on" => Err("there is no book to play from (started with --no-book)".to_string()),
                "off" => {
                    engine.enable_book(false);
                    Ok(String::new())
                }
                other => Err(format!("oxello-book takes on or off, not '{other}'")),
            },
            "oxello-ponder" => match argument(args, 0, "on or off")? {
                "on" => {
                    engine.set_pondering(true);
                    Ok(String::new())
                }
                "off" => {
                    engine.set_pondering(false);
                    Ok(String::new())
                }
                other => Err(format!("oxello-ponder takes on or off, not '{other}'")),
            },
            _ => Err("unknown command".to_string()),
        }
    }
}

/// The legal moves for GoGui: squares, `pass` when forced, nothing when the game is over.
fn legal_moves_text(position: &Position) -> String {
    let moves = position.board.moves();
    if moves == 0 {
        return if position.board.is_game_over() {
            String::new()
        } else {
            "pass".to_string()
        };
    }
    crate::board::Squares(moves)
        .map(|sq| format_square(sq as u8))
        .collect::<Vec<_>>()
        .join(" ")
}

fn cell(position: &Position, square: usize) -> char {
    if position.black() >> square & 1 == 1 {
        'X'
    } else if position.white() >> square & 1 == 1 {
        'O'
    } else {
        '.'
    }
}

/// The board for `gogui-rules_board`: row 8 first, since GoGui draws row 1 at the bottom.
fn rules_board(position: &Position) -> String {
    (0..8)
        .rev()
        .map(|row| {
            (0..8)
                .map(|col| cell(position, row * 8 + col).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A board diagram for people: a1 top-left, legal moves marked `*`.
fn diagram(position: &Position) -> String {
    let moves = position.board.moves();
    let mut lines = vec!["  A B C D E F G H".to_string()];
    for row in 0..8 {
        let cells: Vec<String> = (0..8)
            .map(|col| {
                let sq = row * 8 + col;
                match cell(position, sq) {
                    '.' if moves >> sq & 1 == 1 => "*".to_string(),
                    c => c.to_string(),
                }
            })
            .collect();
        lines.push(format!("{} {} {}", row + 1, cells.join(" "), row + 1));
    }
    lines.push("  A B C D E F G H".to_string());
    let state = if position.board.is_game_over() {
        "game over".to_string()
    } else {
        format!("{} to move", position.side_to_move.name())
    };
    lines.push(format!(
        "black (X) {}  white (O) {}  {state}",
        position.black().count_ones(),
        position.white().count_ones()
    ));
    lines.join("\n")
}

impl Session for GtpSession {
    fn search_options(&self) -> SearchOptions {
        self.search
    }

    fn handle(&mut self, line: &str, engine: &mut Engine, out: &Output) -> Flow {
        let cleaned = preprocess(line);
        let mut words: Vec<&str> = cleaned.split_whitespace().collect();
        if words.is_empty() {
            return Flow::Continue;
        }
        let id = if words[0].bytes().all(|b| b.is_ascii_digit()) {
            Some(words.remove(0))
        } else {
            None
        };
        let id = id.unwrap_or("");
        let Some((&command, args)) = words.split_first() else {
            out.send(&format!("?{id} syntax error: missing command\n"));
            return Flow::Continue;
        };
        let command = command.to_ascii_lowercase();
        match self.execute(&command, args, engine) {
            Ok(text) => out.send(&format!("={id} {text}\n")),
            Err(message) => {
                log::warn!("gtp: {command}: {message}");
                out.send(&format!("?{id} {message}\n"));
            }
        }
        if command == "quit" {
            Flow::Quit
        } else {
            Flow::Continue
        }
    }

    fn overlong(&mut self, out: &Output) {
        out.send(&format!(
            "? line too long (over {} bytes)\n",
            super::session::MAX_LINE_BYTES
        ));
    }
}
