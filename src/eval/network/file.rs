//! The network file: a header, then the network's integer weights and its Multi-ProbCut table
//! gzip-compressed (most rows of the large patterns are never trained and stay zero, which
//! compresses to almost nothing).
//!
//! ```text
//! offset  size  field
//!  0       8    magic "OXELLONN"
//!  8       4    format version (2; version 1 files, without a table, are read too)
//! 12       4    pattern set id (patterns::PATTERN_SET_ID)
//! 16       4    hidden units (HIDDEN)
//! 20       4    phases (patterns::PHASES)
//! 24       4    rows: one per weight slot of the linear evaluation but its bias
//! 28       8    checksum of the linear weights the network corrects (Weights::checksum)
//! 36       8    FNV-1a 64 checksum of the uncompressed payload
//! 44       ...  gzip of the payload, all little-endian:
//!               rows x hidden i16   the rows, in 1/ACTIVATION_ONE
//!               hidden i16          the hidden units' bias, in 1/ACTIVATION_ONE
//!               phases x hidden i16 the output weights, in 1/OUTPUT_ONE disc
//!               phases i32          the output bias, in 1/256 disc
//!               u32                 (version 2) the table's length in bytes, 0 for none
//!               ...                 (version 2) the table fitted to the network, as the
//!                                   text `oxello tune-mpc` writes
//! ```

use super::{HIDDEN, ROW_LIMIT};
use crate::eval::patterns::{tables, PATTERN_SET_ID, PHASES};
use crate::eval::probcut_table::ProbCutTable;
use crate::eval::weights::fnv1a;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use std::io::{Read, Write};

/// The first bytes of a network file.
pub const MAGIC: &[u8; 8] = b"OXELLONN";
const VERSION: u32 = 2;
/// The first version, whose files carry no Multi-ProbCut table.
const VERSION_WITHOUT_TABLE: u32 = 1;
const HEADER_BYTES: usize = 44;
/// The longest Multi-ProbCut table a file may carry (a table of every depth is about 2 KB).
const MAX_TABLE_BYTES: usize = 64 * 1024;

/// Why a network file was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    #[error("not an oxello network file (bad magic)")]
    BadMagic,
    #[error("network format version {0} is not supported (this build reads versions 1 and 2)")]
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
    #[error("the network file is truncated or too long ({0} bytes after decompression)")]
    Size(usize),
    #[error("the network file's compressed weights are damaged: {0}")]
    Compression(String),
    #[error("the network file is corrupt (checksum mismatch)")]
    Checksum,
    #[error("the network's Multi-ProbCut table is damaged: {0}")]
    Table(String),
    #[error("the network has a row weight of {0}, beyond the ±{ROW_LIMIT} its sums allow")]
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
    /// 1/[`super::ACTIVATION_ONE`].
    pub rows: Vec<[i16; HIDDEN]>,
    /// The hidden units' bias, in 1/[`super::ACTIVATION_ONE`].
    pub hidden_bias: [i16; HIDDEN],
    /// Per phase, the output weight of each hidden unit, in 1/[`super::OUTPUT_ONE`] disc.
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

    /// The weights' part of the payload.
    fn weight_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(Self::weight_byte_count(self.rows.len()));
        let words = self
            .rows
            .iter()
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

    /// The size of the weights' part of the payload of a network of `rows` rows.
    fn weight_byte_count(rows: usize) -> usize {
        (rows + 1 + PHASES) * HIDDEN * 2 + PHASES * 4
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
        fnv1a(&self.weight_bytes())
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
        bytes.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        let mut encoder = GzEncoder::new(bytes, flate2::Compression::best());
        encoder
            .write_all(&payload)
            .expect("writing to memory cannot fail");
        encoder.finish().expect("writing to memory cannot fail")
    }

    /// Reads a network file, checking every header field, the checksum and the weights'
    /// range (so that no sum can overflow).
    pub fn from_bytes(bytes: &[u8]) -> Result<NetworkWeights, NetworkError> {
        if !bytes.starts_with(&MAGIC[..bytes.len().min(MAGIC.len())]) {
            return Err(NetworkError::BadMagic);
        }
        if bytes.len() < HEADER_BYTES {
            return Err(NetworkError::Size(bytes.len()));
        }
        let field = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let version = field(8);
        if version != VERSION && version != VERSION_WITHOUT_TABLE {
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
        let size = Self::weight_byte_count(expected);
        let mut payload = Vec::with_capacity(size);
        GzDecoder::new(&bytes[HEADER_BYTES..])
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
            Self::read_table(&payload)?
        };
        let mut words = payload
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]));
        let mut row = || -> [i16; HIDDEN] {
            std::array::from_fn(|_| words.next().expect("the size was checked"))
        };
        let rows: Vec<[i16; HIDDEN]> = (0..expected).map(|_| row()).collect();
        let hidden_bias = row();
        let output = (0..PHASES).map(|_| row()).collect();
        let output_bias = payload[(expected + 1 + PHASES) * HIDDEN * 2..size]
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        if let Some(&beyond) = rows
            .iter()
            .chain(std::iter::once(&hidden_bias))
            .flatten()
            .find(|w| w.unsigned_abs() > ROW_LIMIT as u16)
        {
            return Err(NetworkError::Range(beyond));
        }
        Ok(NetworkWeights {
            rows,
            hidden_bias,
            output,
            output_bias,
            linear_checksum,
            probcut,
        })
    }

    /// The table after the weights of a version 2 payload (whose weights' size was checked by
    /// the caller).
    fn read_table(payload: &[u8]) -> Result<Option<ProbCutTable>, NetworkError> {
        let size = Self::weight_byte_count(Self::row_count());
        let Some(length) = payload.get(size..size + 4) else {
            return Err(NetworkError::Size(payload.len()));
        };
        let length = u32::from_le_bytes(length.try_into().expect("4 bytes")) as usize;
        if payload.len() != size + 4 + length {
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
