//! The network file: a header, then the network's integer weights and its Multi-ProbCut table.
//!
//! Since version 3 the weights are stored as they are, only the rows that are not all zero
//! (most rows of the large patterns are never trained), so that reading a file is a copy and a
//! checksum over 64-bit words, a few milliseconds; versions 1 and 2 gzip-compressed every row
//! and took about 60 ms to decompress and check (AMD EPYC, first Zen generation).
//!
//! ```text
//! offset  size  field
//!  0       8    magic "OXELLONN"
//!  8       4    format version (3; versions 1 and 2 are read too)
//! 12       4    pattern set id (patterns::PATTERN_SET_ID)
//! 16       4    hidden units (HIDDEN)
//! 20       4    phases (patterns::PHASES)
//! 24       4    rows: one per weight slot of the linear evaluation but its bias
//! 28       8    checksum of the linear weights the network corrects (Weights::checksum)
//! 36       8    checksum of the payload: FNV-1a 64 over its little-endian 64-bit words,
//!               the last padded with zero bytes (weights::fnv1a_words)
//! 44       ...  the payload, all little-endian:
//!               ceil(rows / 64) u64  which rows are stored: bit r % 64 of word r / 64 is set
//!                                    when row r has a weight other than zero
//!               stored x hidden i16  those rows in order, in 1/ACTIVATION_ONE, each
//!                                    within ±ROW_LIMIT
//!               hidden i16           the hidden units' bias, in 1/ACTIVATION_ONE, each
//!                                    within ±BIAS_LIMIT
//!               phases x hidden i16  the output weights, in 1/OUTPUT_ONE disc
//!               phases i32           the output bias, in 1/256 disc
//!               u32                  the table's length in bytes, 0 for none
//!               ...                  the table fitted to the network, as the text
//!                                    `oxello tune-mpc` writes
//! ```
//!
//! The payload up to the table's length, a whole number of words, is the network's weights;
//! their checksum ([`NetworkWeights::checksum`]) tells networks apart.
//!
//! Versions 1 and 2 hold after the same header a gzip stream of: every row (rows x hidden
//! i16), then the fields from the hidden units' bias on (version 1 ends with the output bias:
//! it has no table); their checksum is FNV-1a 64 over the bytes of that stream's content.

use super::shape::{BIAS_LIMIT, HIDDEN, ROW_LIMIT};
use crate::eval::patterns::{tables, PATTERN_SET_ID, PHASES};
use crate::eval::probcut_table::ProbCutTable;
use crate::eval::weights::{fnv1a, fnv1a_words, fnv1a_words_on};
use flate2::read::GzDecoder;
use std::io::Read;

/// The first bytes of a network file.
pub const MAGIC: &[u8; 8] = b"OXELLONN";
const VERSION: u32 = 3;
/// The first version, compressed and without a Multi-ProbCut table (the second is compressed,
/// with a table).
const VERSION_WITHOUT_TABLE: u32 = 1;
const HEADER_BYTES: usize = 44;
/// The bytes of a row.
const ROW_BYTES: usize = HIDDEN * 2;
/// The longest Multi-ProbCut table a file may carry (a table of every depth is about 2 KB).
const MAX_TABLE_BYTES: usize = 64 * 1024;

/// Why a network file was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    #[error("not an oxello network file (bad magic)")]
    BadMagic,
    #[error("network format version {0} is not supported (this build reads versions 1 to 3)")]
    Version(u32),
    #[error(
        "the network has pattern set {set}, {hidden} hidden units, {phases} phases and {rows} \
         rows; this build needs set {PATTERN_SET_ID}, {HIDDEN}, {PHASES} and {expected}"
    )]
    Shape {
        set: u32,
        hidden: u32,
        phases: u32,
        rows: u32,
        expected: usize,
    },
    #[error("the network file's weights are truncated or too long ({0} bytes)")]
    Size(usize),
    #[error("the network file's rows are not stored as the format says: {0}")]
    Layout(&'static str),
    #[error("the network file's compressed weights are damaged: {0}")]
    Compression(String),
    #[error("the network file is corrupt (checksum mismatch)")]
    Checksum,
    #[error("the network's Multi-ProbCut table is damaged: {0}")]
    Table(String),
    #[error(
        "the network has a weight of {0}, beyond the ±{ROW_LIMIT} of a row or the \
         ±{BIAS_LIMIT} of the hidden bias that its sums allow"
    )]
    Range(i16),
    #[error(
        "the network corrects linear weights with checksum {found:016x}, not these \
         ({expected:016x})"
    )]
    Linear { found: u64, expected: u64 },
}

/// A network's integer weights, as its file holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkWeights {
    /// Per row (a weight slot of the linear evaluation), [`HIDDEN`] weights in
    /// 1/[`super::shape::ACTIVATION_ONE`].
    pub rows: Vec<[i16; HIDDEN]>,
    /// The hidden units' bias, in 1/[`super::shape::ACTIVATION_ONE`].
    pub hidden_bias: [i16; HIDDEN],
    /// Per phase, the output weight of each hidden unit, in 1/[`super::shape::OUTPUT_ONE`] disc.
    pub output: Vec<[i16; HIDDEN]>,
    /// Per phase, the output's bias in 1/256 disc.
    pub output_bias: Vec<i32>,
    /// The checksum of the linear weights whose errors the network corrects.
    pub linear_checksum: u64,
    /// The Multi-ProbCut table fitted to the network (`oxello tune-mpc --network-out`), if
    /// one was: without it a search cuts by the built-in table, fitted to the linear weights.
    pub probcut: Option<ProbCutTable>,
}

impl NetworkWeights {
    /// The rows a network has: one per weight slot of the linear evaluation but its bias.
    pub fn row_count() -> usize {
        tables().slots - 1
    }

    /// All zero: a network that adds nothing to the linear evaluation.
    pub fn zero(linear_checksum: u64) -> NetworkWeights {
        NetworkWeights {
            rows: vec![[0; HIDDEN]; Self::row_count()],
            hidden_bias: [0; HIDDEN],
            output: vec![[0; HIDDEN]; PHASES],
            output_bias: vec![0; PHASES],
            linear_checksum,
            probcut: None,
        }
    }

    /// The weights' part of the payload: which rows are stored, those rows, the bias and the
    /// output layers.
    fn weight_bytes(&self) -> Vec<u8> {
        let stored = |row: &&[i16; HIDDEN]| row.iter().any(|&w| w != 0);
        let mut which = vec![0u64; self.rows.len().div_ceil(64)];
        for (r, _) in self.rows.iter().enumerate().filter(|(_, row)| stored(row)) {
            which[r / 64] |= 1 << (r % 64);
        }
        let mut bytes = Vec::new();
        for word in which {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        let words = self
            .rows
            .iter()
            .filter(stored)
            .chain(std::iter::once(&self.hidden_bias))
            .chain(self.output.iter())
            .flatten();
        for w in words {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.output_bias {
            bytes.extend_from_slice(&b.to_le_bytes());
        }
        bytes
    }

    /// The whole payload: the weights, then the table's length and text.
    fn payload(&self) -> Vec<u8> {
        let mut bytes = self.weight_bytes();
        let table = self.probcut.as_ref().map(ProbCutTable::format);
        let table = table.as_deref().unwrap_or("").as_bytes();
        bytes.extend_from_slice(&(table.len() as u32).to_le_bytes());
        bytes.extend_from_slice(table);
        bytes
    }

    /// The checksum of the weights alone (not of the table), which tells networks apart.
    pub fn checksum(&self) -> u64 {
        fnv1a_words(&self.weight_bytes())
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        for field in [
            VERSION,
            PATTERN_SET_ID,
            HIDDEN as u32,
            PHASES as u32,
            self.rows.len() as u32,
        ] {
            bytes.extend_from_slice(&field.to_le_bytes());
        }
        bytes.extend_from_slice(&self.linear_checksum.to_le_bytes());
        bytes.extend_from_slice(&fnv1a_words(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// Reads a network file, checking every header field, the checksum and the weights'
    /// range (so that no sum can overflow).
    pub fn from_bytes(bytes: &[u8]) -> Result<NetworkWeights, NetworkError> {
        NetworkWeights::read(bytes).map(|(weights, _)| weights)
    }

    /// Reads a network file like [`NetworkWeights::from_bytes`] and gives the weights'
    /// checksum ([`NetworkWeights::checksum`]) with them, taken on the way to the file's.
    pub(super) fn read(bytes: &[u8]) -> Result<(NetworkWeights, u64), NetworkError> {
        if !bytes.starts_with(&MAGIC[..bytes.len().min(MAGIC.len())]) {
            return Err(NetworkError::BadMagic);
        }
        if bytes.len() < HEADER_BYTES {
            return Err(NetworkError::Size(bytes.len()));
        }
        let field = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let version = field(8);
        if !(VERSION_WITHOUT_TABLE..=VERSION).contains(&version) {
            return Err(NetworkError::Version(version));
        }
        let (set, hidden, phases, rows) = (field(12), field(16), field(20), field(24));
        let expected = Self::row_count();
        if set != PATTERN_SET_ID
            || hidden as usize != HIDDEN
            || phases as usize != PHASES
            || rows as usize != expected
        {
            return Err(NetworkError::Shape {
                set,
                hidden,
                phases,
                rows,
                expected,
            });
        }
        let (linear_checksum, checksum) = (word(28), word(36));
        if version == VERSION {
            Self::read_stored_rows(&bytes[HEADER_BYTES..], linear_checksum, checksum)
        } else {
            let payload = &bytes[HEADER_BYTES..];
            let weights = Self::read_compressed(payload, version, linear_checksum, checksum)?;
            let checksum = weights.checksum();
            Ok((weights, checksum))
        }
    }

    /// The weights of a version 3 payload, and their checksum.
    fn read_stored_rows(
        payload: &[u8],
        linear_checksum: u64,
        checksum: u64,
    ) -> Result<(NetworkWeights, u64), NetworkError> {
        let expected = Self::row_count();
        let which_bytes = expected.div_ceil(64) * 8;
        let Some(which) = payload.get(..which_bytes) else {
            return Err(NetworkError::Size(payload.len()));
        };
        let which: Vec<u64> = which
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        if !expected.is_multiple_of(64) && which[which.len() - 1] >> (expected % 64) != 0 {
            return Err(NetworkError::Layout(
                "a row beyond the last is marked stored",
            ));
        }
        let stored: usize = which.iter().map(|w| w.count_ones() as usize).sum();
        let rows_end = which_bytes + stored * ROW_BYTES;
        let size = which_bytes + Self::weight_byte_count(stored);
        if payload.len() < size {
            return Err(NetworkError::Size(payload.len()));
        }
        let weights_checksum = fnv1a_words(&payload[..size]);
        if fnv1a_words_on(weights_checksum, &payload[size..]) != checksum {
            return Err(NetworkError::Checksum);
        }
        let probcut = Self::read_table(payload, size)?;
        let mut parsed = payload[which_bytes..rows_end]
            .chunks_exact(ROW_BYTES)
            .map(parse_row);
        let mut rows = vec![[0i16; HIDDEN]; expected];
        for (r, row) in rows.iter_mut().enumerate() {
            if which[r / 64] >> (r % 64) & 1 == 1 {
                *row = parsed.next().expect("the size was counted");
                if row.iter().all(|&w| w == 0) {
                    return Err(NetworkError::Layout("a stored row is all zero"));
                }
            }
        }
        let rest = &payload[rows_end..size];
        let weights = Self::assemble(rows, rest, linear_checksum, probcut)?;
        Ok((weights, weights_checksum))
    }

    /// The weights of a version 1 or 2 payload (gzip-compressed, every row).
    fn read_compressed(
        compressed: &[u8],
        version: u32,
        linear_checksum: u64,
        checksum: u64,
    ) -> Result<NetworkWeights, NetworkError> {
        let expected = Self::row_count();
        let size = Self::weight_byte_count(expected);
        let mut payload = Vec::with_capacity(size);
        GzDecoder::new(compressed)
            .take(size as u64 + 4 + MAX_TABLE_BYTES as u64 + 1)
            .read_to_end(&mut payload)
            .map_err(|e| NetworkError::Compression(e.to_string()))?;
        if fnv1a(&payload) != checksum {
            return Err(NetworkError::Checksum);
        }
        let probcut = if version == VERSION_WITHOUT_TABLE {
            if payload.len() != size {
                return Err(NetworkError::Size(payload.len()));
            }
            None
        } else {
            Self::read_table(&payload, size)?
        };
        let (rows, rest) = payload[..size].split_at(expected * ROW_BYTES);
        let rows = rows.chunks_exact(ROW_BYTES).map(parse_row).collect();
        Self::assemble(rows, rest, linear_checksum, probcut)
    }

    /// The size of the weights' part of a payload holding `rows` rows: those rows, the bias,
    /// the output layers and the output bias.
    fn weight_byte_count(rows: usize) -> usize {
        (rows + 1 + PHASES) * ROW_BYTES + PHASES * 4
    }

    /// The weights of `rows` and of `rest`, the payload's bytes after the rows up to the table
    /// (the bias, the output layers and the output bias), checked against their limits.
    fn assemble(
        rows: Vec<[i16; HIDDEN]>,
        rest: &[u8],
        linear_checksum: u64,
        probcut: Option<ProbCutTable>,
    ) -> Result<NetworkWeights, NetworkError> {
        let (layers, output_bias) = rest.split_at((1 + PHASES) * ROW_BYTES);
        let mut layers = layers.chunks_exact(ROW_BYTES).map(parse_row);
        let hidden_bias = layers.next().expect("the size was checked");
        let output = layers.collect();
        let output_bias = output_bias
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        let weights = NetworkWeights {
            rows,
            hidden_bias,
            output,
            output_bias,
            linear_checksum,
            probcut,
        };
        weights.check_range()?;
        Ok(weights)
    }

    /// Whether every row weight lies within [`ROW_LIMIT`] and every hidden bias within
    /// [`BIAS_LIMIT`], so that no sum of a position can leave 16 bits; else the first weight
    /// beyond.
    pub fn check_range(&self) -> Result<(), NetworkError> {
        let beyond = |row: &[i16; HIDDEN], limit: i32| {
            row.iter()
                .copied()
                .find(|w| i32::from(w.unsigned_abs()) > limit)
        };
        match self
            .rows
            .iter()
            .find_map(|row| beyond(row, ROW_LIMIT))
            .or_else(|| beyond(&self.hidden_bias, BIAS_LIMIT))
        {
            Some(weight) => Err(NetworkError::Range(weight)),
            None => Ok(()),
        }
    }

    /// The table after the `size` bytes of weights of a version 2 or 3 payload.
    fn read_table(payload: &[u8], size: usize) -> Result<Option<ProbCutTable>, NetworkError> {
        let Some(length) = payload.get(size..size + 4) else {
            return Err(NetworkError::Size(payload.len()));
        };
        let length = u32::from_le_bytes(length.try_into().expect("4 bytes")) as usize;
        if length > MAX_TABLE_BYTES || payload.len() != size + 4 + length {
            return Err(NetworkError::Size(payload.len()));
        }
        if length == 0 {
            return Ok(None);
        }
        let text = std::str::from_utf8(&payload[size + 4..])
            .map_err(|_| NetworkError::Table("not text".to_string()))?;
        ProbCutTable::parse(text)
            .map(Some)
            .map_err(NetworkError::Table)
    }
}

/// A row's weights from its little-endian bytes.
fn parse_row(bytes: &[u8]) -> [i16; HIDDEN] {
    let mut row = [0i16; HIDDEN];
    for (weight, pair) in row.iter_mut().zip(bytes.chunks_exact(2)) {
        *weight = i16::from_le_bytes([pair[0], pair[1]]);
    }
    row
}
