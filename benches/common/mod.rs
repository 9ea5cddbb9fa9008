//! What the benchmarks share: a fixed spread of positions to measure on.

use oxello::board::{Board, Squares};

/// A fixed spread of midgame positions reached by a deterministic playout from the start.
pub fn sample_boards() -> Vec<Board> {
    let mut boards = Vec::new();
    let mut board = Board::START;
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    while boards.len() < 256 {
        let moves = board.moves();
        if moves == 0 {
            if board.opponent_moves() == 0 {
                board = Board::START;
            } else {
                board = board.pass();
            }
            continue;
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let pick = (seed % u64::from(moves.count_ones())) as usize;
        let square = Squares(moves)
            .nth(pick)
            .expect("pick is below the move count");
        board = board.play_with_flips(square, board.flips(square));
        boards.push(board);
    }
    boards
}
