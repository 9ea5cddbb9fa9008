//! What a search is asked ([`Limits`]) and what it answers ([`SearchResult`], [`Progress`] after
//! each iteration), with the score conventions every part of the search shares.

use std::time::Duration;

/// Scores are discs for the side to move; no real score reaches this.
pub const INFINITY: i32 = 127;

/// Empties above the midgame depth from which a search at that depth solves exactly instead.
pub const EXACT_MARGIN: u32 = 4;

/// The depth limit for a "level" of `depth` plies at `empties` empty squares: the depth, or no
/// limit (solve to the end) once the end is within `depth + EXACT_MARGIN` moves.
pub fn level_depth(depth: u32, empties: u32) -> Option<u32> {
    (empties > depth + EXACT_MARGIN).then_some(depth)
}

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

/// When a search should stop. Every limit given applies; with none, it searches until exact
/// or stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Time for this move.
    pub move_time: Option<Duration>,
    /// The game clock of the side to move.
    pub clock: Option<GameClock>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
}

impl Limits {
    /// These limits for a search that starts `late` after the move's time began to run: the
    /// time for the move and the clock's time left are shortened by it.
    pub fn started_late(&self, late: Duration) -> Limits {
        Limits {
            move_time: self.move_time.map(|time| time.saturating_sub(late)),
            clock: self.clock.map(|clock| GameClock {
                remaining: clock.remaining.saturating_sub(late),
                ..clock
            }),
            ..*self
        }
    }
}

/// Whether a score is exact or only a bound, and what kind of proof it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value at the searched depth (exact game value when the result is exact).
    Exact,
    /// The true value is at most this.
    Upper,
    /// The true value is at least this.
    Lower,
}

/// A root move with what the last iteration learned of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootMove {
    /// The move number (Othello: the square), or `None` for a pass.
    pub mv: Option<u8>,
    pub score: i32,
    pub bound: Bound,
}

/// How far a score is proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// A heuristic value from a search that did not reach the end of the game.
    Heuristic,
    /// Only the outcome is proven: the sign of the score (win, loss, draw) is exact.
    WinLossDraw,
    /// The exact final disc difference.
    Exact,
}

/// Progress of a running search, reported after each completed iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub depth: u32,
    /// The selectivity level of the iteration: Multi-ProbCut in a depth-limited one, the
    /// solver's probable cuts in a search to the end (0: full width).
    pub selectivity: u8,
    /// How far the score is proven.
    pub proof: Proof,
    pub score: i32,
    pub nodes: u64,
    pub elapsed: Duration,
    /// Principal variation as move numbers, `None` for a pass.
    pub pv: Vec<Option<u8>>,
    /// Root moves, best first, as far as the iteration knows them.
    pub root_moves: Vec<RootMove>,
}

impl Progress {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-6)) as u64
    }
}

/// The outcome of a search: the last completed iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play: a move number, or `None` to pass (or when the game is over).
    pub best_move: Option<u8>,
    pub score: i32,
    pub depth: u32,
    /// The selectivity level of the result's iteration (see [`Progress`]; 0: full width).
    pub selectivity: u8,
    /// How far the score is proven.
    pub proof: Proof,
    pub pv: Vec<Option<u8>>,
    pub nodes: u64,
    pub elapsed: Duration,
    /// Every root move with its score (bounds for moves proven worse), best first.
    pub root_moves: Vec<RootMove>,
}
