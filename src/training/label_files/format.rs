//! The labels file: positions with search scores, as `oxello label` writes them and `oxello
//! train` and `oxello eval-error` read them.
//!
//! ```text
//! offset  size  field
//!  0       8    magic "OXLABELS"
//!  8       2    format version (2), little-endian
//! 10       1    midgame search depth; 0: the evaluation's static score, no search
//! 11       1    exact empties: positions with at most this many empties are solved
//! 12       8    seed of the game order, little-endian
//! 20       8    fingerprint of the evaluation the searches used, little-endian
//! 28      ...   records of 22 bytes:
//!                 0  4  game: its rank in the run's order (validation splits by it)
//!                 4  8  the side to move's discs (bit 0 = a1 .. bit 63 = h8)
//!                12  8  the other side's discs
//!                20  1  score for the side to move, in discs (i8, -64..=64)
//!                21  1  depth of the search that gave it; 0: exact (in a file of static
//!                       scores, depth 0, every record has 0: the exact ones are those with
//!                       at most the exact empties)
//! ```
//!
//! Records are appended a batch of games at a time, in game order, so a file cut short by an
//! interrupted run is whole up to its last record; `oxello label` resumes from it. Version 1
//! files, whose header stops before the fingerprint, are still read.

use crate::board::Board;
use std::io::{Seek, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"OXLABELS";
const VERSION: u16 = 2;
/// Bytes before the first record.
pub const HEADER_BYTES: usize = 28;
/// Bytes before the first record in a version 1 file, which has no evaluation fingerprint.
const HEADER_BYTES_V1: usize = 20;
/// Bytes of one record.
pub const RECORD_BYTES: usize = 22;

/// How a file's labels were made; a resumed run must use the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelsHeader {
    /// Midgame search depth; 0: labels are the evaluation's static scores.
    pub depth: u8,
    /// Positions with at most this many empties are labelled with their exact score.
    pub exact_empties: u8,
    /// Seed of the order in which games are labelled.
    pub seed: u64,
    /// Fingerprint of the evaluation the searches used ([`Evaluation::fingerprint`]); `None`
    /// for a version 1 file, which did not record it.
    ///
    /// [`Evaluation::fingerprint`]: crate::eval::Evaluation::fingerprint
    pub evaluation: Option<u64>,
}

/// One labelled position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    /// The game's rank in the run's order.
    pub game: u32,
    pub board: Board,
    /// Disc difference for the side to move.
    pub score: i8,
    /// Depth of the search that gave the score; 0 when it is exact, and for every label of a
    /// file of static scores ([`LabelsHeader::is_exact`] tells which are exact).
    pub depth: u8,
}

impl LabelsHeader {
    /// Whether `label`, one of this file's, is the position's exact score: a search that
    /// reached the end, or in a file of static scores a position with at most the exact
    /// empties.
    pub fn is_exact(&self, label: &Label) -> bool {
        label.depth == 0
            && (self.depth != 0 || label.board.empty_count() <= u32::from(self.exact_empties))
    }

    /// Bytes of the header: version 2 with a fingerprint, version 1 without.
    pub fn byte_len(self) -> usize {
        match self.evaluation {
            Some(_) => HEADER_BYTES,
            None => HEADER_BYTES_V1,
        }
    }

    /// The header's bytes (version 1 when the fingerprint is unknown, so that a file read
    /// is written back as it was).
    pub fn to_bytes(self) -> Vec<u8> {
        let version = if self.evaluation.is_some() {
            VERSION
        } else {
            1
        };
        let mut bytes = Vec::with_capacity(self.byte_len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.push(self.depth);
        bytes.push(self.exact_empties);
        bytes.extend_from_slice(&self.seed.to_le_bytes());
        if let Some(fingerprint) = self.evaluation {
            bytes.extend_from_slice(&fingerprint.to_le_bytes());
        }
        bytes
    }

    /// Reads a header, refusing another kind of file or another version.
    pub fn from_bytes(bytes: &[u8]) -> Result<LabelsHeader, String> {
        if bytes.len() < HEADER_BYTES_V1 || &bytes[..8] != MAGIC {
            return Err("not an oxello labels file (bad magic)".to_string());
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        let evaluation = match version {
            1 => None,
            VERSION if bytes.len() >= HEADER_BYTES => Some(word(20)),
            VERSION => return Err("the header is cut short".to_string()),
            _ => {
                return Err(format!(
                    "labels format version {version} is not supported (this build reads versions 1 and {VERSION})"
                ))
            }
        };
        Ok(LabelsHeader {
            depth: bytes[10],
            exact_empties: bytes[11],
            seed: word(12),
            evaluation,
        })
    }
}

impl Label {
    /// Appends the record's bytes to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.game.to_le_bytes());
        out.extend_from_slice(&self.board.player.to_le_bytes());
        out.extend_from_slice(&self.board.opponent.to_le_bytes());
        out.push(self.score as u8);
        out.push(self.depth);
    }

    /// Reads one record, refusing one that cannot be a position with a score.
    pub fn from_bytes(bytes: &[u8; RECORD_BYTES]) -> Result<Label, &'static str> {
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let board = Board {
            player: word(4),
            opponent: word(12),
        };
        if board.player & board.opponent != 0 {
            return Err("a square holds both colours");
        }
        let score = bytes[20] as i8;
        if !(-64..=64).contains(&score) {
            return Err("the score is not between -64 and 64");
        }
        Ok(Label {
            game: u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes")),
            board,
            score,
            depth: bytes[21],
        })
    }
}

/// A labels file read whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelsFile {
    pub header: LabelsHeader,
    pub labels: Vec<Label>,
    /// Bytes at the end that do not make a whole record (an interrupted write).
    pub partial_bytes: usize,
}

impl LabelsFile {
    /// Parses a file's bytes; errors name the record at fault.
    pub fn from_bytes(bytes: &[u8]) -> Result<LabelsFile, String> {
        let header = LabelsHeader::from_bytes(bytes)?;
        let body = &bytes[header.byte_len()..];
        let chunks = body.chunks_exact(RECORD_BYTES);
        let partial_bytes = chunks.remainder().len();
        let labels = chunks
            .enumerate()
            .map(|(i, chunk)| {
                Label::from_bytes(chunk.try_into().expect("exact chunks"))
                    .map_err(|e| format!("record {}: {e}", i + 1))
            })
            .collect::<Result<_, _>>()?;
        Ok(LabelsFile {
            header,
            labels,
            partial_bytes,
        })
    }

    /// Reads a whole labels file for training: a file cut short in a record is an error here
    /// (only `oxello label` resuming mends one).
    pub fn read_complete(path: &Path) -> anyhow::Result<LabelsFile> {
        let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        LabelsFile::complete_from_bytes(path, &bytes)
    }

    /// [`LabelsFile::read_complete`] of bytes already read from `path`.
    pub fn complete_from_bytes(path: &Path, bytes: &[u8]) -> anyhow::Result<LabelsFile> {
        let file = LabelsFile::from_bytes(bytes)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        if file.partial_bytes != 0 {
            anyhow::bail!(
                "{}: truncated after record {} ({} stray bytes); run oxello label on it again to mend it",
                path.display(),
                file.labels.len(),
                file.partial_bytes
            );
        }
        Ok(file)
    }
}

/// Appends records to a labels file, one batch at a time.
pub struct LabelsWriter {
    file: std::fs::File,
}

impl LabelsWriter {
    /// Opens `path`, whose header is `header`, to append after its first `keep_records`
    /// records (dropping what follows), or creates it with `header` when `keep_records` is
    /// `None`.
    pub fn open(
        path: &Path,
        header: LabelsHeader,
        keep_records: Option<usize>,
    ) -> anyhow::Result<LabelsWriter> {
        let error = |e: std::io::Error| anyhow::anyhow!("cannot write {}: {e}", path.display());
        let mut file = match keep_records {
            Some(records) => {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(error)?;
                file.set_len((header.byte_len() + records * RECORD_BYTES) as u64)
                    .map_err(error)?;
                file
            }
            None => {
                let mut file = std::fs::File::create(path).map_err(error)?;
                file.write_all(&header.to_bytes()).map_err(error)?;
                file
            }
        };
        file.seek(std::io::SeekFrom::End(0)).map_err(error)?;
        Ok(LabelsWriter { file })
    }

    /// Appends a batch of records and flushes them to the file.
    pub fn append(&mut self, labels: &[Label]) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(labels.len() * RECORD_BYTES);
        for label in labels {
            label.write_to(&mut bytes);
        }
        self.file.write_all(&bytes)?;
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (LabelsHeader, Vec<Label>) {
        let header = LabelsHeader {
            depth: 8,
            exact_empties: 20,
            seed: 0x0123_4567_89AB_CDEF,
            evaluation: Some(0xFEDC_BA98_7654_3210),
        };
        let labels = vec![
            Label {
                game: 7,
                board: Board::new(0x0000_0008_1000_0000, 0x0000_0010_0800_0000),
                score: -3,
                depth: 8,
            },
            Label {
                game: 70_000,
                board: Board::new(0xFF00_0000_0000_0001, 0x00FF_0000_0000_0002),
                score: 64,
                depth: 0,
            },
        ];
        (header, labels)
    }

    fn bytes_of(header: LabelsHeader, labels: &[Label]) -> Vec<u8> {
        let mut bytes = header.to_bytes();
        for label in labels {
            label.write_to(&mut bytes);
        }
        bytes
    }

    #[test]
    fn files_round_trip() {
        let (header, labels) = sample();
        let bytes = bytes_of(header, &labels);
        assert_eq!(bytes.len(), HEADER_BYTES + 2 * RECORD_BYTES);
        let file = LabelsFile::from_bytes(&bytes).unwrap();
        assert_eq!(file.header, header);
        assert_eq!(file.labels, labels);
        assert_eq!(file.partial_bytes, 0);
    }

    #[test]
    fn version_1_files_without_a_fingerprint_are_read_and_written_back_alike() {
        let (header, labels) = sample();
        let old = LabelsHeader {
            evaluation: None,
            ..header
        };
        let bytes = bytes_of(old, &labels);
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 1);
        assert_eq!(bytes.len(), HEADER_BYTES_V1 + 2 * RECORD_BYTES);
        let file = LabelsFile::from_bytes(&bytes).unwrap();
        assert_eq!(file.header, old);
        assert_eq!(file.labels, labels);
        let current = bytes_of(header, &labels);
        assert_eq!(current[..8], bytes[..8]);
        assert_eq!(current[8..10], [2, 0]);
        assert_eq!(current[10..20], bytes[10..20]);
        assert_eq!(current[20..28], 0xFEDC_BA98_7654_3210u64.to_le_bytes());
    }

    #[test]
    fn a_cut_file_keeps_its_whole_records() {
        let (header, labels) = sample();
        let bytes = bytes_of(header, &labels);
        let file = LabelsFile::from_bytes(&bytes[..bytes.len() - 5]).unwrap();
        assert_eq!(file.labels, labels[..1]);
        assert_eq!(file.partial_bytes, RECORD_BYTES - 5);
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let (header, labels) = sample();
        let good = bytes_of(header, &labels);
        let mut foreign = good.clone();
        foreign[0] = b'X';
        assert!(LabelsFile::from_bytes(&foreign)
            .unwrap_err()
            .contains("magic"));
        let mut newer = good.clone();
        newer[8] = 3;
        assert!(LabelsFile::from_bytes(&newer)
            .unwrap_err()
            .contains("version 3"));
        assert_eq!(
            LabelsFile::from_bytes(&good[..24]).unwrap_err(),
            "the header is cut short"
        );
        let mut overlapping = good.clone();
        overlapping[HEADER_BYTES + RECORD_BYTES + 4] |= 0x02;
        assert_eq!(
            LabelsFile::from_bytes(&overlapping).unwrap_err(),
            "record 2: a square holds both colours"
        );
        let mut wild = good;
        wild[HEADER_BYTES + 20] = 100;
        assert_eq!(
            LabelsFile::from_bytes(&wild).unwrap_err(),
            "record 1: the score is not between -64 and 64"
        );
        assert!(LabelsFile::from_bytes(&[]).is_err());
    }
}
