//! `oxello book show`: the book moves of a position, with their values and how deep they were
//! searched.

use crate::board::{Color, Move, Position};
use crate::book::Book;
use crate::notation::{format_square, parse_position, parse_transcript};
use std::path::PathBuf;

/// `oxello book show`.
#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// The position: moves from the start (e.g. `f5d6c3`, nothing for the start) or a board
    /// string (64 squares `X O -`, then the side to move).
    position: Vec<String>,
    /// The book to read (default: the built-in book).
    #[arg(long)]
    book: Option<PathBuf>,
}

/// The position a `book show` argument names; a position that must pass is shown after the
/// pass.
fn parse_argument(text: &str) -> anyhow::Result<Position> {
    let squares = text.chars().filter(|c| !c.is_whitespace()).count();
    let position = if squares >= 65 {
        parse_position(text).map_err(|e| anyhow::anyhow!("bad board string: {e}"))?
    } else {
        parse_transcript(text, &Position::START)
            .map_err(|e| anyhow::anyhow!("bad moves '{text}': {e}"))?
            .1
    };
    Ok(match position.play(Move::Pass) {
        Ok(passed) if position.board.must_pass() => passed,
        _ => position,
    })
}

/// The report of `book show`: the book's size, then the position's moves.
pub fn report(book: &Book, position: &Position) -> String {
    let mut text = format!("book: {} positions\n", book.len());
    let side = match position.side_to_move {
        Color::Black => "Black",
        Color::White => "White",
    };
    let Some(entry) = book.get(&position.board) else {
        text.push_str(&format!("{side} to move: not in the book\n"));
        return text;
    };
    text.push_str(&format!(
        "{side} to move: value {:+}, {} games\n",
        entry.value, entry.games
    ));
    text.push_str("move  value  searched  games\n");
    for m in book.moves(&position.board) {
        let games = if m.leaves_book {
            "leaves the book".to_string()
        } else {
            m.games.to_string()
        };
        text.push_str(&format!(
            "{:<4}  {:>+5}  {:<8}  {games}\n",
            format_square(m.square).to_ascii_lowercase(),
            m.value,
            depth_text(m.depth, m.exact)
        ));
    }
    text
}

/// Runs `oxello book show`.
pub fn run(args: &ShowArgs) -> anyhow::Result<()> {
    let book = match &args.book {
        Some(path) => std::sync::Arc::new(Book::read_file(path)?),
        None => Book::builtin(),
    };
    let position = parse_argument(&args.position.join(" "))?;
    print!("{}", report(&book, &position));
    Ok(())
}

/// How a book's search depth reads: "exact" or "depth 12".
fn depth_text(depth: u8, exact: bool) -> String {
    if exact {
        "exact".to_string()
    } else {
        format!("depth {depth}")
    }
}
