//! The engine core: one owner for the game, the options, the transposition table, the thread
//! pool and the evaluator. Protocol front ends and tools drive it; it never touches stdin or
//! stdout. It decides between book and search (`choose_move`) and what to ponder (`ponder`).

mod move_choice;
mod ponder;

pub use move_choice::MoveChoice;

use ponder::{PonderPlan, PonderStats};

use crate::board::{IllegalMove, Move, Position};
use crate::book::learn::{learn_game, learning_depth, ExitSearcher, Learned, LEARN_PLIES};
use crate::book::{Book, BookMove};
use crate::eval::{DeferredEvaluation, Evaluation};
use crate::search::{
    self, Limits, Progress, SearchContext, SearchOptions, SearchResult, TableAllocationError,
    TranspositionTable,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Default transposition table size.
pub const DEFAULT_HASH_MIB: usize = 64;

/// Settings chosen when the engine starts (and changeable between searches).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Search threads (the rayon pool size).
    pub threads: usize,
    /// Transposition table size in MiB.
    pub hash_mib: usize,
}

/// All cores of this machine.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            threads: all_cores(),
            hash_mib: DEFAULT_HASH_MIB,
        }
    }
}

/// Why the engine could not apply a setting.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("threads must be between 1 and {MAX_THREADS}")]
    BadThreadCount,
    #[error("hash size must be between 1 and 65536 MiB")]
    BadHashSize,
    #[error(transparent)]
    Table(#[from] TableAllocationError),
    #[error("could not start the thread pool: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
}

/// A game in progress: where it started and every position since.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The positions from the start (index 0) to the current one (last).
    positions: Vec<Position>,
    /// The moves between consecutive positions, passes included.
    moves: Vec<Move>,
}

impl Game {
    /// A game starting at `start`.
    pub fn new(start: Position) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    /// The game from `start` through `moves`, or the index of the first illegal move.
    pub fn from_moves(
        start: Position,
        moves: impl IntoIterator<Item = Move>,
    ) -> Result<Game, (usize, IllegalMove)> {
        let mut game = Game::new(start);
        for (index, mv) in moves.into_iter().enumerate() {
            game.play(mv).map_err(|e| (index, e))?;
        }
        Ok(game)
    }

    /// The current position.
    pub fn position(&self) -> Position {
        *self.positions.last().expect("a game has a start position")
    }

    /// The start position.
    pub fn start(&self) -> Position {
        self.positions[0]
    }

    /// Every position from the start to the current one.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plays a move if legal.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        let next = self.position().play(mv)?;
        self.positions.push(next);
        self.moves.push(mv);
        Ok(())
    }

    /// Takes back the last move; false if there is none.
    pub fn undo(&mut self) -> bool {
        if self.moves.pop().is_some() {
            self.positions.pop();
            true
        } else {
            false
        }
    }
}

/// The engine: game, table, pool and evaluator.
pub struct Engine {
    game: Game,
    options: EngineOptions,
    tt: TranspositionTable,
    pool: rayon::ThreadPool,
    evaluator: DeferredEvaluation,
    stop: Arc<AtomicBool>,
    book: Option<Arc<Book>>,
    /// Whether the book is played from (a protocol may turn it off for a while).
    book_enabled: bool,
    book_randomness: i32,
    /// Draws of the book's random choices.
    book_draws: u64,
    book_seed: u64,
    /// Whether the engine thinks on the opponent's time.
    pondering: bool,
    /// What it ponders after its last move, while the game stays on the plan's way.
    ponder_plan: Option<PonderPlan>,
    ponder_stats: PonderStats,
}

fn build_pool(threads: usize) -> Result<rayon::ThreadPool, EngineError> {
    Ok(rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("oxello-search-{i}"))
        .build()?)
}

impl Engine {
    /// An engine at the start position with the given options and the built-in evaluation.
    pub fn new(options: EngineOptions) -> Result<Engine, EngineError> {
        Engine::with_evaluation(options, Evaluation::default())
    }

    /// An engine with the given options and evaluation (one still being made is waited for
    /// at the first search).
    pub fn with_evaluation(
        options: EngineOptions,
        evaluator: impl Into<DeferredEvaluation>,
    ) -> Result<Engine, EngineError> {
        check_threads(options.threads)?;
        check_hash(options.hash_mib)?;
        Ok(Engine {
            game: Game::new(Position::START),
            options,
            tt: committed_table(options.hash_mib)?,
            pool: build_pool(options.threads)?,
            evaluator: evaluator.into(),
            stop: Arc::new(AtomicBool::new(false)),
            book: None,
            book_enabled: true,
            book_randomness: 0,
            book_draws: 0,
            book_seed: 0,
            pondering: false,
            ponder_plan: None,
            ponder_stats: PonderStats::default(),
        })
    }

    /// The flag that stops a running search when set; clear it before the next search.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Searches under `flag` from now on: a flag that outlives this engine, so that whoever
    /// holds it stops the searches of the engine that replaces this one too.
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop = flag;
    }

    /// The evaluation the engine searches with.
    pub fn evaluation(&self) -> &Evaluation {
        self.evaluator.get()
    }

    /// The current options.
    pub fn options(&self) -> EngineOptions {
        self.options
    }

    /// Changes the number of search threads.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), EngineError> {
        check_threads(threads)?;
        if threads != self.options.threads {
            self.pool = build_pool(threads)?;
            self.options.threads = threads;
        }
        Ok(())
    }

    /// Changes the transposition table size (its contents are lost). If the new table cannot
    /// be allocated the old one stays, contents and all.
    pub fn set_hash_mib(&mut self, mib: usize) -> Result<(), EngineError> {
        check_hash(mib)?;
        if mib != self.options.hash_mib {
            self.tt = committed_table(mib)?;
            self.options.hash_mib = mib;
        }
        Ok(())
    }

    /// Starts a new game from `start`, forgetting what the table learned.
    pub fn new_game(&mut self, start: Position) {
        self.game = Game::new(start);
        self.tt.clear();
    }

    /// Replaces the game (e.g. from a GUI) without clearing the table when it continues the
    /// current one.
    pub fn set_game(&mut self, game: Game) {
        let continues = game.start() == self.game.start();
        self.game = game;
        if !continues {
            self.tt.clear();
        }
    }

    /// The game so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The current position.
    pub fn position(&self) -> Position {
        self.game.position()
    }

    /// Plays a move in the current game.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        self.game.play(mv)
    }

    /// Takes back the last move; false if there is none.
    pub fn undo(&mut self) -> bool {
        self.game.undo()
    }

    /// Searches the current position on the engine's pool. The stop flag is not cleared here:
    /// whoever may stop the search clears it first, so that a stop sent just before the search
    /// starts is not lost.
    pub fn search(
        &mut self,
        limits: &Limits,
        options: SearchOptions,
        on_progress: &mut (dyn FnMut(&Progress) + Send),
    ) -> SearchResult {
        let position = self.game.position();
        self.search_at(&position, limits, options, on_progress)
    }

    /// Searches `position` (not necessarily the game's), sharing the table with the game.
    pub fn search_at(
        &mut self,
        position: &Position,
        limits: &Limits,
        options: SearchOptions,
        on_progress: &mut (dyn FnMut(&Progress) + Send),
    ) -> SearchResult {
        self.search_with_stop(position, limits, options, &self.stop, on_progress)
    }

    fn search_with_stop(
        &self,
        position: &Position,
        limits: &Limits,
        options: SearchOptions,
        stop: &AtomicBool,
        on_progress: &mut (dyn FnMut(&Progress) + Send),
    ) -> SearchResult {
        let board = position.board;
        let waiting = Instant::now();
        let evaluator = self.evaluator.get();
        let limits = limits.started_late(waiting.elapsed());
        let tt = &self.tt;
        self.pool.install(|| {
            let ctx =
                SearchContext::new(tt, evaluator, stop, options, &limits, board.empty_count());
            search::search(&ctx, &board, on_progress)
        })
    }

    /// Plays from `book` where it can: the best book move, or with `randomness` > 0 one of
    /// its [`Book::candidates`], drawn with `seed` (`None`: no book).
    pub fn set_book(&mut self, book: Option<Arc<Book>>, randomness: i32, seed: u64) {
        self.book = book;
        self.book_randomness = randomness.max(0);
        self.book_seed = seed;
        self.book_draws = 0;
    }

    /// The book the engine plays from (even while turned off), if any.
    pub fn book(&self) -> Option<&Arc<Book>> {
        self.book.as_ref()
    }

    /// Learns the game into the book (see [`learn_game`]), at the depth of the book's own
    /// searches, until done or `stop` is raised; `None` when the engine has no book.
    pub fn learn_game(&mut self, stop: &AtomicBool) -> Option<Learned> {
        let mut book = Book::clone(self.book.as_ref()?);
        let positions = self.game.positions().to_vec();
        let depth = learning_depth(&book);
        let learned = learn_game(&mut book, self, &positions, LEARN_PLIES, depth, stop);
        self.book = Some(Arc::new(book));
        Some(learned)
    }

    /// Turns the book on or off; false if there is no book to turn on.
    pub fn enable_book(&mut self, enabled: bool) -> bool {
        self.book_enabled = enabled;
        self.book.is_some() || !enabled
    }

    /// The book played from, unless it is turned off.
    fn active_book(&self) -> Option<&Arc<Book>> {
        self.book.as_ref().filter(|_| self.book_enabled)
    }

    /// The move to play in the current position: the book's, while the position is in the
    /// active book, or else the best move of a search to `limits`. The one place where the
    /// engine decides between book and search, for every front end.
    pub fn choose_move(
        &mut self,
        limits: &Limits,
        options: SearchOptions,
        on_progress: &mut (dyn FnMut(&Progress) + Send),
    ) -> MoveChoice {
        self.settle_ponder_plan();
        if let Some(book) = self.book_move() {
            return MoveChoice::Book(book);
        }
        MoveChoice::Search(self.search(limits, options, on_progress))
    }

    /// Turns pondering on or off (off drops any plan).
    pub fn set_pondering(&mut self, on: bool) {
        self.pondering = on;
        if !on {
            self.ponder_plan = None;
        }
    }

    /// Plans what to ponder after `choice` was played in `chosen_at` (the front end calls it
    /// once it has answered a move that counts). Nothing is planned when pondering is off,
    /// when the engine's next position is in its book (every reply leads into the book when
    /// no reply is expected), or when its next move is forced.
    pub fn plan_ponder(&mut self, chosen_at: Position, choice: &MoveChoice) {
        self.ponder_plan = None;
        if !self.pondering {
            return;
        }
        let Some(plan) = PonderPlan::new(chosen_at, choice) else {
            return;
        };
        let in_book = |position: &Position| {
            self.active_book()
                .is_some_and(|book| !book.moves(&position.board).is_empty())
        };
        let booked = match plan.expected {
            Some(_) => in_book(&plan.target),
            None => {
                let replies = plan.replies();
                !replies.is_empty() && replies.iter().all(in_book)
            }
        };
        if booked {
            log::debug!("ponder: the next position is in the book; nothing to ponder");
            return;
        }
        match plan.expected {
            Some(reply) => {
                self.ponder_stats.predictions += 1;
                log::info!("ponder: expecting {}", crate::notation::format_move(reply));
            }
            None => log::info!("ponder: no reply expected; pondering the opponent's position"),
        }
        self.ponder_plan = Some(plan);
    }

    /// Whether there is something to ponder in the game as it stands.
    pub fn wants_to_ponder(&mut self) -> bool {
        self.settle_ponder_plan();
        self.ponder_plan.is_some_and(|plan| !plan.finished)
    }

    /// Ponders: searches the plan's target with no limit until the stop flag is raised (the
    /// controller raises it as soon as input arrives) or the search proves its score, which
    /// ends the plan's pondering. Does nothing when there is nothing to ponder. Nothing is
    /// printed: what the ponder learned stays in the table.
    pub fn ponder(&mut self, options: SearchOptions) {
        if !self.wants_to_ponder() {
            return;
        }
        let Some(plan) = self.ponder_plan else {
            return;
        };
        let options = SearchOptions {
            answer_forced_at_once: false,
            multi_pv: 1,
            ..options
        };
        let result = self.search_at(&plan.target, &Limits::default(), options, &mut |p| {
            log::debug!(
                "ponder: depth {}@{} score {:+} nodes {}",
                p.depth,
                p.selectivity,
                p.score,
                p.nodes
            );
        });
        let stopped = self.stop_requested();
        log::info!(
            "ponder: {} searched to depth {} in {:.3} s ({} nodes){}",
            plan.expected
                .map_or("the opponent's position".to_string(), |reply| {
                    format!("the expected reply {}", crate::notation::format_move(reply))
                }),
            result.depth,
            result.elapsed.as_secs_f64(),
            result.nodes,
            if stopped { "" } else { ", proven: done" }
        );
        if !stopped {
            if let Some(plan) = self.ponder_plan.as_mut() {
                plan.finished = true;
            }
        }
    }

    /// Drops the ponder plan once the game has left its way, counting a prediction that came
    /// true (the game reached the target with the engine to move) as a hit.
    fn settle_ponder_plan(&mut self) {
        let Some(plan) = self.ponder_plan else {
            return;
        };
        let position = self.position();
        if plan.expected.is_some() && position == plan.target {
            self.ponder_stats.hits += 1;
            log::info!(
                "ponder hit: {} of {} predictions",
                self.ponder_stats.hits,
                self.ponder_stats.predictions
            );
            self.ponder_plan = None;
        } else if !plan.covers(&position) {
            if plan.expected.is_some() {
                log::info!(
                    "ponder miss: {} of {} predictions hit",
                    self.ponder_stats.hits,
                    self.ponder_stats.predictions
                );
            }
            self.ponder_plan = None;
        }
    }

    /// The book's move in the current position, if it is in the book.
    fn book_move(&mut self) -> Option<BookMove> {
        self.book_draws += 1;
        let random = crate::random::seeded_hash(self.book_seed, self.book_draws);
        let position = self.position();
        self.active_book()?
            .choose(&position, self.book_randomness, random)
    }

    /// Every move the book knows in the current position, best first.
    pub fn book_moves(&self) -> Vec<BookMove> {
        self.active_book()
            .map_or_else(Vec::new, |book| book.moves(&self.position().board))
    }

    /// Whether a stop has been requested since the flag was last cleared.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Requests the running search to stop.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A table of `mib` MiB whose memory is mapped without anyone waiting for it (see
/// [`TranspositionTable::commit_memory`]): the first search pays no page faults, and the
/// engine answers at once whatever the size.
fn committed_table(mib: usize) -> Result<TranspositionTable, EngineError> {
    let mut tt = TranspositionTable::try_new(mib)?;
    tt.commit_memory();
    Ok(tt)
}

/// The most search threads an engine takes.
pub const MAX_THREADS: usize = 256;

/// Checks a thread count: from 1 to [`MAX_THREADS`].
pub fn check_threads(threads: usize) -> Result<(), EngineError> {
    if (1..=MAX_THREADS).contains(&threads) {
        Ok(())
    } else {
        Err(EngineError::BadThreadCount)
    }
}

fn check_hash(mib: usize) -> Result<(), EngineError> {
    if (1..=65536).contains(&mib) {
        Ok(())
    } else {
        Err(EngineError::BadHashSize)
    }
}

/// The engine's searches for the book: to the limits or until `stop` is raised, whatever the
/// engine's own stop flag says (lines of input must not interrupt learning a game).
impl ExitSearcher for Engine {
    fn search_until(
        &mut self,
        position: &Position,
        limits: &Limits,
        options: SearchOptions,
        stop: &AtomicBool,
    ) -> SearchResult {
        self.search_with_stop(position, limits, options, stop, &mut |_| {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_move;

    fn moves(text: &[&str]) -> Vec<Move> {
        text.iter().map(|m| parse_move(m).unwrap()).collect()
    }

    #[test]
    fn a_game_from_moves_replays_them_or_names_the_first_illegal_one() {
        let game = Game::from_moves(Position::START, moves(&["f5", "d6", "c3"])).unwrap();
        assert_eq!(game.moves(), moves(&["f5", "d6", "c3"]).as_slice());
        assert_eq!(game.positions().len(), 4);
        assert_eq!(game.start(), Position::START);
        let (index, _) = Game::from_moves(Position::START, moves(&["f5", "d6", "a1", "c3"]))
            .expect_err("a1 is illegal");
        assert_eq!(index, 2);
    }
}
