//! The positions the fits search: drawn by a seed from games or from labelled positions, each
//! with a number of empties in a given range.

use crate::board::{Board, Color, Position};
use crate::random::seeded_hash;
use crate::training::dataset::{label_examples, LabelledGame};
use std::path::PathBuf;

/// Up to `count` positions drawn by `seed`: for draw `i`, a number of empties from
/// `min_empties` to `max_empties` by the hash of `2i + 1`, and `pick(hash of 2i, empties)`,
/// the position the draw gives, if any (at most `100 * count` draws).
fn draw_positions(
    count: usize,
    seed: u64,
    (min_empties, max_empties): (u32, u32),
    mut pick: impl FnMut(u64, u32) -> Option<Position>,
) -> Vec<Position> {
    let mut positions = Vec::with_capacity(count);
    let mut draw = 0u64;
    while positions.len() < count && draw < 100 * count as u64 {
        let empties = min_empties
            + (seeded_hash(seed, 2 * draw + 1) % u64::from(max_empties - min_empties + 1)) as u32;
        positions.extend(pick(seeded_hash(seed, 2 * draw), empties));
        draw += 1;
    }
    positions
}

/// `count` positions drawn from `games` by `seed`, each with `min_empties` to `max_empties`
/// empty squares and a move to play: a game and a number of empties a draw, the game played
/// up to them (none where it never has that many empties with a move to play).
pub fn sample_positions(
    games: &[LabelledGame],
    count: usize,
    seed: u64,
    empties: (u32, u32),
) -> Vec<Position> {
    if games.is_empty() {
        return Vec::new();
    }
    draw_positions(count, seed, empties, |hash, empties| {
        let game = &games[(hash % games.len() as u64) as usize];
        let mut position = Position::START;
        for &mv in &game.moves {
            if position.board.empty_count() <= empties {
                break;
            }
            match position.play(mv) {
                Ok(next) => position = next,
                Err(_) => break,
            }
        }
        (position.board.empty_count() == empties && position.board.moves() != 0).then_some(position)
    })
}

/// `count` positions drawn from `boards` by `seed`: for each, a number of empties from
/// `min_empties` to `max_empties`, then one of the boards with that many empties and a move to
/// play (none where there is no such board), as [`sample_positions`] draws from games.
pub fn sample_boards(
    boards: &[Board],
    count: usize,
    seed: u64,
    empties: (u32, u32),
) -> Vec<Position> {
    let mut by_empties: Vec<Vec<Board>> = vec![Vec::new(); 61];
    for board in boards.iter().filter(|b| b.moves() != 0) {
        by_empties[board.empty_count() as usize].push(*board);
    }
    draw_positions(count, seed, empties, |hash, empties| {
        let candidates = &by_empties[empties as usize];
        (!candidates.is_empty()).then(|| Position {
            board: candidates[(hash % candidates.len() as u64) as usize],
            side_to_move: Color::Black,
        })
    })
}

/// Where the fits' positions come from: the positions of games, or labelled positions.
pub enum PositionSource {
    Games(Vec<LabelledGame>),
    Boards(Vec<Board>),
}

impl PositionSource {
    /// `count` positions drawn by `seed` with `empties` empty squares (see [`sample_positions`]
    /// and [`sample_boards`]).
    pub fn sample(&self, count: usize, seed: u64, empties: (u32, u32)) -> Vec<Position> {
        match self {
            PositionSource::Games(games) => sample_positions(games, count, seed, empties),
            PositionSource::Boards(boards) => sample_boards(boards, count, seed, empties),
        }
    }

    /// The positions of the labels files `files`.
    pub fn labelled(files: &[PathBuf]) -> anyhow::Result<PositionSource> {
        Ok(PositionSource::Boards(
            label_examples(files)?
                .into_iter()
                .flat_map(|(_, examples)| examples.into_iter().map(|e| e.board))
                .collect(),
        ))
    }
}
