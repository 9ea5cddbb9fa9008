//! NBoard protocol 2 (the NBoard GUI, NTest, Edax): parse a line, call the engine, print.
//!
//! Errors in known commands are reported in a `status` line and on stderr; unknown lines are
//! ignored with a note on stderr, as the protocol asks. The position never changes on error.

use super::output::Output;
use super::session::{Flow, ServerConfig, Session, DEFAULT_DEPTH};
use crate::board::{Color, Move, Position};
use crate::book::BookFormat;
use crate::engine::{Engine, Game, MoveChoice};
use crate::notation::{format_move, parse_move, GgfGame, GgfMove};
use crate::search::level_depth;
use crate::search::probcut::level_percent;
use crate::search::{Bound, GameClock, Limits, Progress, Proof, SearchOptions, SearchResult};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// A GGF clock main time of a day or more means "no clock".
const NO_CLOCK_SECONDS: f64 = 86_400.0;

/// The NBoard side of a connection: the game record (with its clocks) and the settings.
pub struct NBoardSession {
    search: SearchOptions,
    move_time: Option<Duration>,
    depth: u32,
    game: GgfGame,
    /// Where `learn` saves the book, and in which format (`None`: the built-in book, kept in
    /// memory).
    book_file: Option<(PathBuf, BookFormat)>,
    /// Raised when the session ends: the one thing that cuts learning short.
    ending: Arc<AtomicBool>,
}

/// Whether an NBoard line is `quit`.
pub fn is_quit(line: &str) -> bool {
    line.split_whitespace()
        .next()
        .is_some_and(|command| command.eq_ignore_ascii_case("quit"))
}

impl NBoardSession {
    pub fn new(config: &ServerConfig, ending: Arc<AtomicBool>) -> NBoardSession {
        NBoardSession {
            search: config.search_options(),
            move_time: config.move_time,
            depth: config.depth.unwrap_or(DEFAULT_DEPTH),
            game: GgfGame::new(Position::START),
            book_file: config.book_file.clone(),
            ending,
        }
    }

    fn fail(&self, out: &Output, message: &str) {
        log::warn!("nboard: {message}");
        out.send(&format!("status {message}"));
    }

    fn set(&mut self, rest: &str, engine: &mut Engine, out: &Output) {
        let (what, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let value = value.trim();
        match what.to_ascii_lowercase().as_str() {
            "depth" => match value.parse::<u32>() {
                Ok(depth) if (1..=60).contains(&depth) => self.depth = depth,
                _ => self.fail(
                    out,
                    &format!("set depth needs a depth from 1 to 60, not '{value}'"),
                ),
            },
            "game" => match GgfGame::parse(value) {
                Ok(game) => {
                    let replay = Game::from_moves(game.start, game.moves.iter().map(|m| m.mv))
                        .expect("the GGF parser checked every move");
                    engine.set_game(replay);
                    self.game = game;
                }
                Err(e) => self.fail(out, &format!("set game ignored: {e}")),
            },
            "ponder" => match value.to_ascii_lowercase().as_str() {
                "on" | "1" | "true" => engine.set_pondering(true),
                "off" | "0" | "false" => engine.set_pondering(false),
                _ => self.fail(out, &format!("set ponder takes on or off, not '{value}'")),
            },
            "contempt" => {
                if value.parse::<i32>().is_err() {
                    self.fail(
                        out,
                        &format!("set contempt needs a whole number, not '{value}'"),
                    );
                }
            }
            _ => log::warn!("nboard: ignored unknown setting '{what}'"),
        }
    }

    fn play(&mut self, text: &str, engine: &mut Engine, out: &Output) {
        let mut parts = text.split('/');
        let mv = match parse_move(parts.next().unwrap_or("").trim()) {
            Ok(mv) => mv,
            Err(e) => return self.fail(out, &format!("move ignored: {e}")),
        };
        let number = |part: Option<&str>| {
            part.and_then(|p| p.trim().parse::<f64>().ok())
                .filter(|v| v.is_finite())
        };
        let eval = number(parts.next());
        let seconds = number(parts.next()).filter(|s| *s >= 0.0);
        let position = engine.position();
        if matches!(mv, Move::Play(_)) && position.board.must_pass() {
            self.record(engine, Move::Pass, None, None);
        }
        let side = engine.position().side_to_move;
        match engine.play(mv) {
            Ok(()) => self.game.moves.push(GgfMove {
                color: side,
                mv,
                eval,
                seconds,
            }),
            Err(why) => {
                if engine.position() != position {
                    engine.undo();
                    self.game.moves.pop();
                }
                self.fail(out, &format!("move {} ignored: {why}", format_move(mv)));
            }
        }
    }

    fn record(&mut self, engine: &mut Engine, mv: Move, eval: Option<f64>, seconds: Option<f64>) {
        let color = engine.position().side_to_move;
        if engine.play(mv).is_ok() {
            self.game.moves.push(GgfMove {
                color,
                mv,
                eval,
                seconds,
            });
        }
    }

    /// Limits for a move of the side to move: the depth setting and the GGF clock.
    fn move_limits(&self, position: &Position) -> Limits {
        let empties = position.board.empty_count();
        Limits {
            depth: level_depth(self.depth, empties),
            move_time: self.move_time,
            clock: self.clock(position.side_to_move),
            nodes: None,
        }
    }

    fn clock(&self, color: Color) -> Option<GameClock> {
        let clock = self.game.clock(color).ok().flatten()?;
        if clock.main >= NO_CLOCK_SECONDS {
            return None;
        }
        let remaining = self.game.time_given(&clock, color) - self.game.elapsed(color);
        Some(GameClock {
            remaining: Duration::from_secs_f64(remaining.max(0.0)),
            increment: Duration::from_secs_f64(clock.increment),
            moves_to_go: None,
        })
    }

    fn go(&mut self, engine: &mut Engine, out: &Output) {
        let position = engine.position();
        let limits = self.move_limits(&position);
        let choice = engine.choose_move(&limits, self.search, &mut |p| {
            out.send(&format!(
                "status depth {} score {:+}",
                depth_text(p.depth, p.selectivity, p.proof),
                p.score
            ));
        });
        let mv = format_move(choice.mv());
        engine.plan_ponder(position, &choice);
        match choice {
            MoveChoice::Book(book) => {
                out.send(&format!("=== {mv}/{:.2}/0.000", f64::from(book.value)));
            }
            MoveChoice::Search(result) => {
                let seconds = result.elapsed.as_secs_f64();
                out.send(&format!("nodestats {} {seconds:.3}", result.nodes));
                if position.board.is_game_over() {
                    out.send("=== PA");
                } else {
                    out.send(&format!(
                        "=== {mv}/{:.2}/{seconds:.3}",
                        f64::from(result.score)
                    ));
                }
            }
        }
    }

    fn hint(&mut self, count: &str, engine: &mut Engine, out: &Output) {
        let count = match count.trim().parse::<usize>() {
            Ok(n) if n >= 1 => n.min(64),
            _ => return self.fail(out, &format!("hint needs a number of moves, not '{count}'")),
        };
        let position = engine.position();
        if position.board.is_game_over() {
            return self.fail(out, "hint: the game is over");
        }
        let book_moves = engine.book_moves();
        if !book_moves.is_empty() {
            for m in book_moves.iter().take(count) {
                let depth = if m.exact {
                    "100%".to_string()
                } else {
                    m.depth.to_string()
                };
                out.send(&format!(
                    "book {} {:.2} {} {depth}",
                    format_move(Move::Play(m.square)),
                    f64::from(m.value),
                    m.games
                ));
            }
            return;
        }
        let limits = Limits {
            depth: level_depth(self.depth, position.board.empty_count()),
            ..Limits::default()
        };
        let options = SearchOptions {
            multi_pv: count,
            answer_forced_at_once: false,
            ..self.search
        };
        let result = engine.search(&limits, options, &mut |p| send_hints(out, p, count));
        if result.depth == 0 {
            let pv = format_pv(&result.pv);
            out.send(&format!(
                "search {pv} {:.2} 0 {}",
                f64::from(result.score),
                depth_text(0, 0, result.proof)
            ));
        }
    }

    /// Learns the game into the book and saves the book to its file; `learned` in any case.
    fn learn(&mut self, engine: &mut Engine, out: &Output) {
        match engine.learn_game(&self.ending) {
            None => self.fail(out, "learn: there is no book to learn into (--no-book)"),
            Some(learned) => {
                log::info!(
                    "learn: {} positions of the game joined the book, {} exits searched again{}",
                    learned.added,
                    learned.researched,
                    if learned.complete {
                        ""
                    } else {
                        " (cut short by the end of the session)"
                    }
                );
                let book = engine
                    .book()
                    .expect("the engine just learned into its book");
                match &self.book_file {
                    Some((path, format)) => match book.write_file_as(path, format) {
                        Ok(written) => self.book_file = Some((path.clone(), written)),
                        Err(e) => self.fail(out, &format!("learn: {e}")),
                    },
                    None => log::info!(
                        "learn: the built-in book keeps what it learned until the engine exits; start with --book FILE to save it"
                    ),
                }
            }
        }
        out.send("learned");
    }

    fn analyze(&mut self, engine: &mut Engine, out: &Output) {
        let game = engine.game().clone();
        let positions: Vec<Position> = game.positions().to_vec();
        for (moves_made, position) in positions.iter().enumerate().rev() {
            if engine.stop_requested() {
                return;
            }
            let score = if position.board.is_game_over() {
                position.board.final_score()
            } else {
                let limits = Limits {
                    depth: level_depth(self.depth, position.board.empty_count()),
                    ..Limits::default()
                };
                let result: SearchResult =
                    engine.search_at(position, &limits, self.search, &mut |_| {});
                if engine.stop_requested() {
                    return;
                }
                result.score
            };
            out.send(&format!("analysis {moves_made} {:.2}", f64::from(score)));
        }
    }
}

/// NBoard's depth field: the plies, with the confidence of a selective search (`18@95%`);
/// `100%` when the score is exact, `100%W` when only the outcome is proven.
fn depth_text(depth: u32, selectivity: u8, proof: Proof) -> String {
    match proof {
        Proof::Exact => "100%".to_string(),
        Proof::WinLossDraw => "100%W".to_string(),
        Proof::Heuristic if selectivity == 0 => depth.to_string(),
        Proof::Heuristic => format!("{depth}@{}%", level_percent(selectivity)),
    }
}

fn format_pv(pv: &[Option<u8>]) -> String {
    pv.iter()
        .map(|m| format_move(m.map_or(Move::Pass, Move::Play)))
        .collect()
}

/// One `search` line per move among the `count` best with a proven score.
fn send_hints(out: &Output, progress: &Progress, count: usize) {
    let depth = depth_text(progress.depth, progress.selectivity, progress.proof);
    for (i, root) in progress.root_moves.iter().take(count).enumerate() {
        if root.bound != Bound::Exact && i > 0 {
            continue;
        }
        let pv = if i == 0 {
            format_pv(&progress.pv)
        } else {
            format_pv(&[root.mv])
        };
        out.send(&format!(
            "search {pv} {:.2} 0 {depth}",
            f64::from(root.score)
        ));
    }
}

impl Session for NBoardSession {
    fn search_options(&self) -> SearchOptions {
        self.search
    }

    fn handle(&mut self, line: &str, engine: &mut Engine, out: &Output) -> Flow {
        let line = line.trim();
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match command.to_ascii_lowercase().as_str() {
            "" => {}
            "nboard" => {
                if rest != "2" {
                    log::warn!("nboard: protocol version '{rest}' requested; speaking version 2");
                }
                out.send("set myname oxello");
            }
            "set" => self.set(rest, engine, out),
            "move" => self.play(rest, engine, out),
            "go" => self.go(engine, out),
            "hint" => self.hint(rest, engine, out),
            "ping" => out.send(format!("pong {rest}").trim_end()),
            "learn" => self.learn(engine, out),
            "analyze" => self.analyze(engine, out),
            "quit" => return Flow::Quit,
            other if parse_move(other).is_ok() && rest.is_empty() => self.play(other, engine, out),
            other => log::warn!("nboard: ignored unknown command '{}'", other.escape_debug()),
        }
        Flow::Continue
    }

    fn overlong(&mut self, out: &Output) {
        self.fail(
            out,
            &format!(
                "ignored a line over {} bytes",
                super::session::MAX_LINE_BYTES
            ),
        );
    }
}
