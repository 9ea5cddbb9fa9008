//! Text and file formats: squares and moves, board strings, move transcripts, OBF test suites,
//! GGF game records and WTHOR databases. Each has one parser and one printer, used everywhere.

mod board_text;
mod error;
mod ggf;
mod obf;
mod square;
mod transcript;
mod wthor;

pub use board_text::{format_position, parse_position};
pub use error::NotationError;
pub use ggf::{format_clock, parse_clock, Clock, GgfGame, GgfMove};
pub use obf::{parse_obf_file, ObfEntry};
pub use square::{format_move, format_square, parse_move, parse_square};
pub use transcript::{format_transcript, parse_transcript, parse_transcript_lines};
pub use wthor::{read_wthor_file, write_wthor, WthorFile, WthorGame, WthorHeader};
