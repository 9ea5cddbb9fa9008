//! Packed labels: a labels file's records stored as the games they come from, a byte a move
//! and a byte a label, gzip-compressed. About 1.3 bytes a labelled position against the
//! labels file's 22, so that labels that took many hours of search can be kept in the
//! repository (`data/training/`) and travel with it.
//!
//! ```text
//! gzip of:
//!   8     magic "OXPACKED"
//!   2     format version (1), little-endian
//!   28    the labels file's header (magic "OXLABELS", its version, depth, exact empties,
//!         seed, evaluation fingerprint)
//!   then a record per game that has labels, in the labels file's order:
//!   4     the game's rank in its run, little-endian
//!   1     n: the game's moves, passes left out (they are forced)
//!   n     the moves' squares (a1 = 0 .. h8 = 63)
//!   8     bit i set: the label of the position before move i is exact, little-endian
//!   n     the label of the position before move i: the score for the side to move (-64..=64),
//!         or 127 where the run labelled no position (one labelled in an earlier game)
//! ```
//!
//! Reading a packed file replays each game and gives back the labels file's records exactly
//! ([`LabelsFile`]); packing checks that every record is a position of its game.
//! [`read_labels`] reads either kind of file.

use super::format::{Label, LabelsFile, LabelsHeader};
use crate::board::{Move, Position};
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use std::io::{Read, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"OXPACKED";
const VERSION: u16 = 1;
/// The label byte of a position the run did not label.
const NO_LABEL: u8 = 127;

/// Reads labels for training, from a labels file or a packed one (told apart by gzip's magic;
/// the packed magic is inside).
pub fn read_labels(path: &Path) -> anyhow::Result<LabelsFile> {
    let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        unpack(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    } else {
        LabelsFile::complete_from_bytes(path, &bytes)
    }
}

/// Packs a labels file's records with the games they label: `game_of(rank)` is the moves of
/// the game of that rank in the run's order (passes explicit). An error names a record that is
/// not a position of its game.
pub fn pack<'a>(
    file: &LabelsFile,
    game_of: impl Fn(u32) -> Option<&'a [Move]>,
) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&file.header.to_bytes());
    let mut at = 0;
    while at < file.labels.len() {
        let rank = file.labels[at].game;
        let end = at + file.labels[at..].partition_point(|l| l.game == rank);
        let game = game_of(rank).ok_or_else(|| format!("game {rank} is not in the games given"))?;
        pack_game(&mut out, rank, game, &file.labels[at..end], file.header)?;
        at = end;
    }
    let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&out).map_err(|e| e.to_string())?;
    encoder.finish().map_err(|e| e.to_string())
}

fn pack_game(
    out: &mut Vec<u8>,
    rank: u32,
    game: &[Move],
    labels: &[Label],
    header: LabelsHeader,
) -> Result<(), String> {
    let mut squares = Vec::with_capacity(60);
    let mut scores = Vec::with_capacity(60);
    let mut exact = 0u64;
    let mut position = Position::START;
    let mut next = labels.iter().peekable();
    for &mv in game {
        if let Move::Play(square) = mv {
            let label = next.next_if(|l| l.board == position.board);
            if label.is_some_and(|l| header.is_exact(l)) {
                exact |= 1 << squares.len();
            }
            squares.push(square);
            scores.push(label.map_or(NO_LABEL, |l| l.score as u8));
        }
        position = position
            .play(mv)
            .map_err(|_| format!("game {rank} has an illegal move"))?;
    }
    if let Some(stray) = next.next() {
        return Err(format!(
            "a record of game {rank} is not one of its positions in order (score {}): the games given are not the ones labelled",
            stray.score
        ));
    }
    if labels
        .iter()
        .any(|l| l.depth != 0 && l.depth != header.depth)
    {
        return Err(format!(
            "game {rank} has a label searched at another depth than the file's {}",
            header.depth
        ));
    }
    out.extend_from_slice(&rank.to_le_bytes());
    out.push(squares.len() as u8);
    out.extend_from_slice(&squares);
    out.extend_from_slice(&exact.to_le_bytes());
    out.extend_from_slice(&scores);
    Ok(())
}

/// Reads a packed labels file back into the labels file's records.
pub fn unpack(bytes: &[u8]) -> Result<LabelsFile, String> {
    let mut raw = Vec::new();
    GzDecoder::new(bytes)
        .read_to_end(&mut raw)
        .map_err(|e| format!("not a whole gzip stream: {e}"))?;
    if raw.len() < 10 || &raw[..8] != MAGIC {
        return Err("not a packed labels file (bad magic)".to_string());
    }
    let version = u16::from_le_bytes([raw[8], raw[9]]);
    if version != VERSION {
        return Err(format!(
            "packed labels version {version} is not supported (this build reads version {VERSION})"
        ));
    }
    let header = LabelsHeader::from_bytes(&raw[10..])?;
    let mut rest = &raw[10 + header.byte_len()..];
    let mut labels = Vec::new();
    let mut games = 0usize;
    while !rest.is_empty() {
        games += 1;
        let cut = || format!("game record {games} is cut short");
        let fixed = rest.get(..5).ok_or_else(cut)?;
        let rank = u32::from_le_bytes(fixed[..4].try_into().expect("4 bytes"));
        let n = usize::from(fixed[4]);
        let record = rest.get(..5 + n + 8 + n).ok_or_else(cut)?;
        let squares = &record[5..5 + n];
        let exact = u64::from_le_bytes(record[5 + n..13 + n].try_into().expect("8 bytes"));
        let scores = &record[13 + n..];
        let bad = |what: &str| format!("game {rank} (record {games}): {what}");
        let mut position = Position::START;
        for (i, (&square, &score)) in squares.iter().zip(scores).enumerate() {
            if position.board.moves() == 0 {
                position = position
                    .play(Move::Pass)
                    .map_err(|_| bad("a move after the end of the game"))?;
            }
            if score != NO_LABEL {
                let score = score as i8;
                if !(-64..=64).contains(&score) {
                    return Err(bad("a score out of -64..=64"));
                }
                labels.push(Label {
                    game: rank,
                    board: position.board,
                    score,
                    depth: if exact >> i & 1 == 1 { 0 } else { header.depth },
                });
            }
            position = position
                .play(Move::Play(square))
                .map_err(|_| bad(&format!("move {} is illegal", i + 1)))?;
        }
        rest = &rest[record.len()..];
    }
    Ok(LabelsFile {
        header,
        labels,
        partial_bytes: 0,
    })
}
