//! The network's shape and integer scales, which the evaluator, its file and its arithmetic
//! (and the trainer) share.

/// Hidden units: the accumulator's 16-bit lanes.
pub const HIDDEN: usize = 64;
/// The accumulator's value of a fully active hidden unit (activation 1.0).
pub const ACTIVATION_ONE: i32 = 128;
/// Output weight units per disc (per unit of activation).
pub const OUTPUT_ONE: i32 = 256;
/// The largest row weight: a byte, so that the search reads a row as one cache line (the
/// networks trained so far never came near it: the 64-unit network's largest is 126, and
/// 99.99% of its weights lie within ±61).
pub const ROW_LIMIT: i32 = i8::MAX as i32;
/// The largest hidden bias: a position sums [`SUMMED_ROWS`] rows and the bias, which must stay
/// within 16 bits.
pub const BIAS_LIMIT: i32 = i16::MAX as i32 - SUMMED_ROWS as i32 * ROW_LIMIT;
/// Rows summed for a position: one per pattern instance and per counting feature.
pub const SUMMED_ROWS: usize = 54 + 4;
/// The largest correction, in 1/256 disc (4 discs): the network's output is clipped to it, so
/// that a position whose linear score is further than that outside a search's window needs no
/// network at all (in the first networks trained, 3 positions in 1,000 had a larger one).
pub const CORRECTION_LIMIT: i32 = 4 * 256;
