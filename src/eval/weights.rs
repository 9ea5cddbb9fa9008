//! The weights file: a header (magic, version, pattern set, phases, slots, scale, checksum) and
//! then `phases * slots` little-endian `i16` weights in units of 1/`scale` disc. Files of the
//! older pattern sets (`READABLE_SETS`: set 1 without the counting features, set 2 without the
//! last two pattern types) still read, what they lack weighing nothing.
//!
//! ```text
//! offset  size  field
//!  0       8    magic "OXELLOEV"
//!  8       4    format version (1)
//! 12       4    pattern set id (patterns::PATTERN_SET_ID)
//! 16       4    phases
//! 20       4    slots per phase
//! 24       4    scale (weight units per disc)
//! 28       8    FNV-1a 64 checksum of the weights that follow
//! 36       ...  weights: phase 0 slots, phase 1 slots, ...
//! ```

use super::patterns::{tables, FEATURE_SLOTS, PATTERN_SET_ID, PHASES, READABLE_SETS};

const MAGIC: &[u8; 8] = b"OXELLOEV";
const VERSION: u32 = 1;
const HEADER_BYTES: usize = 36;
/// Weight units per disc.
pub const SCALE: i32 = 256;

/// Why a weights file was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    #[error("not an oxello weights file (bad magic)")]
    BadMagic,
    #[error("weights format version {0} is not supported (this build reads version 1)")]
    Version(u32),
    #[error("the weights are for pattern set {0}; this build reads sets 1 to {PATTERN_SET_ID}")]
    PatternSet(u32),
    #[error("the weights have {phases} phases of {slots} slots; this build needs {PHASES} of {expected}")]
    Shape {
        phases: u32,
        slots: u32,
        expected: usize,
    },
    #[error("the weights file is truncated or too long ({0} bytes)")]
    Size(usize),
    #[error("the weights file is corrupt (checksum mismatch)")]
    Checksum,
}

/// The FNV-1a 64 hash, the checksum of weights and network files.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV1A_START, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(FNV1A_PRIME)
    })
}

/// FNV-1a 64 over the little-endian 64-bit words of `bytes`, the last padded with zero bytes:
/// the checksum of network files, eight times quicker than [`fnv1a`].
pub fn fnv1a_words(bytes: &[u8]) -> u64 {
    fnv1a_words_on(FNV1A_START, bytes)
}

/// [`fnv1a_words`] carried on from `hash`, the hash of bytes before whose length is a multiple
/// of 8.
pub(crate) fn fnv1a_words_on(hash: u64, bytes: &[u8]) -> u64 {
    let words = bytes.chunks_exact(8);
    let mut last = [0; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    let last = (!words.remainder().is_empty()).then_some(u64::from_le_bytes(last));
    words
        .map(|word| u64::from_le_bytes(word.try_into().expect("8 bytes")))
        .chain(last)
        .fold(hash, |h, w| (h ^ w).wrapping_mul(FNV1A_PRIME))
}

/// The FNV-1a 64 hash's state before any byte, and its prime.
const FNV1A_START: u64 = 0xCBF2_9CE4_8422_2325;
const FNV1A_PRIME: u64 = 0x0100_0000_01B3;

/// Whether reading weights checks their checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Trust {
    /// Bytes from outside: checked.
    Verify,
    /// Bytes built into the binary: checked by a test, not at every start.
    BuiltIn,
}

/// Weights for every phase and slot, in 1/[`SCALE`] disc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub slots: usize,
    pub values: Vec<i16>,
}

impl Weights {
    /// All zero: the evaluation of an untrained set.
    pub fn zero() -> Weights {
        let slots = tables().slots;
        Weights {
            slots,
            values: vec![0; slots * PHASES],
        }
    }

    /// The weights of one phase.
    #[inline]
    pub fn phase(&self, phase: usize) -> &[i16] {
        &self.values[phase * self.slots..(phase + 1) * self.slots]
    }

    /// The weights' bytes as a file holds them, after its header.
    fn payload(&self) -> Vec<u8> {
        self.values.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The checksum a file of these weights carries in its header: it tells weights apart.
    pub fn checksum(&self) -> u64 {
        fnv1a(&self.payload())
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len());
        bytes.extend_from_slice(MAGIC);
        for field in [
            VERSION,
            PATTERN_SET_ID,
            PHASES as u32,
            self.slots as u32,
            SCALE as u32,
        ] {
            bytes.extend_from_slice(&field.to_le_bytes());
        }
        bytes.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// Reads a weights file, checking every header field and the checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<Weights, WeightsError> {
        Weights::read(bytes, Trust::Verify).map(|(weights, _)| weights)
    }

    /// Reads a weights file like [`Weights::from_bytes`] and gives the weights' checksum
    /// ([`Weights::checksum`]) with them, without hashing them again where the header's serves.
    /// `Trust::BuiltIn` skips the checksum's check: for bytes built into the binary, whose
    /// checksum a test checks.
    pub(super) fn read(bytes: &[u8], trust: Trust) -> Result<(Weights, u64), WeightsError> {
        if bytes.len() < HEADER_BYTES {
            return Err(if bytes.starts_with(MAGIC) || bytes.len() < MAGIC.len() {
                WeightsError::Size(bytes.len())
            } else {
                WeightsError::BadMagic
            });
        }
        if &bytes[..8] != MAGIC {
            return Err(WeightsError::BadMagic);
        }
        let field = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let (version, set, phases, slots, scale) =
            (field(8), field(12), field(16), field(20), field(24));
        if version != VERSION {
            return Err(WeightsError::Version(version));
        }
        let Some(&(_, types, has_features)) = READABLE_SETS.iter().find(|(id, ..)| *id == set)
        else {
            return Err(WeightsError::PatternSet(set));
        };
        let tables = tables();
        let pattern_slots = tables.pattern_slots_of_first(types);
        let feature_slots = if has_features { FEATURE_SLOTS } else { 0 };
        let expected = pattern_slots + feature_slots + 1;
        if phases as usize != PHASES || slots as usize != expected || scale != SCALE as u32 {
            return Err(WeightsError::Shape {
                phases,
                slots,
                expected,
            });
        }
        let payload = &bytes[HEADER_BYTES..];
        if payload.len() != PHASES * expected * 2 {
            return Err(WeightsError::Size(bytes.len()));
        }
        let checksum = u64::from_le_bytes(bytes[28..36].try_into().expect("8 bytes"));
        if trust == Trust::Verify && fnv1a(payload) != checksum {
            return Err(WeightsError::Checksum);
        }
        let read: Vec<i16> = payload
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        if set == PATTERN_SET_ID {
            let weights = Weights {
                slots: expected,
                values: read,
            };
            return Ok((weights, checksum));
        }
        let mut weights = Weights::zero();
        let features = tables.feature_base();
        for (phase, old) in read.chunks_exact(expected).enumerate() {
            let new = &mut weights.values[phase * weights.slots..(phase + 1) * weights.slots];
            new[..pattern_slots].copy_from_slice(&old[..pattern_slots]);
            new[features..features + feature_slots]
                .copy_from_slice(&old[pattern_slots..pattern_slots + feature_slots]);
            new[weights.slots - 1] = old[expected - 1];
        }
        let checksum = weights.checksum();
        Ok((weights, checksum))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_damage() {
        let mut weights = Weights::zero();
        for (i, w) in weights.values.iter_mut().enumerate().step_by(97) {
            *w = (i % 2000) as i16 - 1000;
        }
        let bytes = weights.to_bytes();
        assert_eq!(Weights::from_bytes(&bytes).unwrap(), weights);
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert_eq!(Weights::from_bytes(&flipped), Err(WeightsError::Checksum));
        assert_eq!(
            Weights::from_bytes(&bytes[..bytes.len() - 2]),
            Err(WeightsError::Size(bytes.len() - 2))
        );
        assert_eq!(
            Weights::from_bytes(b"hello world, not weights at all....."),
            Err(WeightsError::BadMagic)
        );
        let mut other_set = bytes.clone();
        other_set[12] = 9;
        assert_eq!(
            Weights::from_bytes(&other_set),
            Err(WeightsError::PatternSet(9))
        );
        let mut other_version = bytes.clone();
        other_version[8] = 2;
        assert_eq!(
            Weights::from_bytes(&other_version),
            Err(WeightsError::Version(2))
        );
    }

    /// A file of an older pattern set (`types` pattern types, with or without the counting
    /// features) holding what `weights` has of it, as that set's build wrote it.
    fn older_set_file(weights: &Weights, set: u32, types: usize, has_features: bool) -> Vec<u8> {
        let t = tables();
        let patterns = t.pattern_slots_of_first(types);
        let features = t.feature_base()..t.feature_base() + FEATURE_SLOTS;
        let mut payload = Vec::new();
        let mut slots = 0;
        for phase in 0..PHASES {
            let values = weights.phase(phase);
            let kept: Vec<i16> = values[..patterns]
                .iter()
                .chain(if has_features {
                    &values[features.clone()]
                } else {
                    &[]
                })
                .chain(&values[weights.slots - 1..])
                .copied()
                .collect();
            slots = kept.len();
            payload.extend(kept.iter().flat_map(|w| w.to_le_bytes()));
        }
        let mut bytes = MAGIC.to_vec();
        for field in [VERSION, set, PHASES as u32, slots as u32, SCALE as u32] {
            bytes.extend_from_slice(&field.to_le_bytes());
        }
        bytes.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    #[test]
    fn older_sets_read_with_what_they_lack_at_zero() {
        let mut weights = Weights::zero();
        for (i, w) in weights.values.iter_mut().enumerate() {
            *w = (i % 1999) as i16 - 999;
        }
        let t = tables();
        let features = t.feature_base();
        for &(set, types, has_features) in &READABLE_SETS[..2] {
            let read =
                Weights::from_bytes(&older_set_file(&weights, set, types, has_features)).unwrap();
            let patterns = t.pattern_slots_of_first(types);
            for phase in 0..PHASES {
                let (written, read) = (weights.phase(phase), read.phase(phase));
                assert_eq!(read[..patterns], written[..patterns]);
                assert!(read[patterns..features].iter().all(|&w| w == 0));
                if has_features {
                    assert_eq!(read[features..], written[features..]);
                } else {
                    assert!(read[features..weights.slots - 1].iter().all(|&w| w == 0));
                    assert_eq!(read[weights.slots - 1], written[weights.slots - 1]);
                }
            }
        }
    }

    #[test]
    fn a_read_gives_the_checksum_of_the_weights_as_laid_out() {
        let mut weights = Weights::zero();
        for (i, w) in weights.values.iter_mut().enumerate().step_by(13) {
            *w = (i % 1001) as i16 - 500;
        }
        let (read, checksum) = Weights::read(&weights.to_bytes(), Trust::Verify).unwrap();
        assert_eq!((&read, checksum), (&weights, weights.checksum()));
        for &(set, types, has_features) in &READABLE_SETS[..2] {
            let file = older_set_file(&weights, set, types, has_features);
            let (read, checksum) = Weights::read(&file, Trust::Verify).unwrap();
            assert_eq!(checksum, read.checksum());
            assert_ne!(checksum, weights.checksum(), "set {set} lacks some weights");
        }
    }

    #[test]
    fn only_built_in_bytes_skip_the_checksum() {
        let mut damaged = Weights::zero().to_bytes();
        let last = damaged.len() - 1;
        damaged[last] ^= 1;
        assert_eq!(
            Weights::read(&damaged, Trust::Verify),
            Err(WeightsError::Checksum)
        );
        assert!(Weights::read(&damaged, Trust::BuiltIn).is_ok());
    }
}
