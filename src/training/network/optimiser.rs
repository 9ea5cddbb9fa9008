//! Adam, and the lazy update of the rows a minibatch touched.

use super::model::{add_into, PieceGradients, Rows};
use crate::eval::network::{ACTIVATION_ONE, HIDDEN, ROW_LIMIT};
use rayon::prelude::*;

/// Pieces a minibatch is cut into: fixed, so that results do not depend on the threads.
pub(super) const PIECES: usize = 16;

/// Adam's moments of one parameter vector.
#[derive(Clone)]
pub(super) struct Moments<const N: usize> {
    first: [f32; N],
    second: [f32; N],
}

impl<const N: usize> Moments<N> {
    pub(super) const ZERO: Moments<N> = Moments {
        first: [0.0; N],
        second: [0.0; N],
    };
}

/// Adam's settings and step count.
pub(super) struct Adam {
    pub(super) learning_rate: f32,
    pub(super) l2: f32,
    pub(super) step: i32,
}

impl Adam {
    const BETA1: f32 = 0.9;
    const BETA2: f32 = 0.999;
    const EPSILON: f32 = 1e-8;

    /// One step of `weights` along `gradient`.
    #[inline]
    pub(super) fn update<const N: usize>(
        &self,
        weights: &mut [f32; N],
        gradient: &[f32; N],
        moments: &mut Moments<N>,
    ) {
        let corrected_rate = self.learning_rate * (1.0 - Self::BETA2.powi(self.step)).sqrt()
            / (1.0 - Self::BETA1.powi(self.step));
        for i in 0..N {
            let g = gradient[i] + self.l2 * weights[i];
            moments.first[i] = Self::BETA1 * moments.first[i] + (1.0 - Self::BETA1) * g;
            moments.second[i] = Self::BETA2 * moments.second[i] + (1.0 - Self::BETA2) * g * g;
            weights[i] -=
                corrected_rate * moments.first[i] / (moments.second[i].sqrt() + Self::EPSILON);
        }
    }
}

/// One Adam step of the rows a minibatch touched. `minibatch` is its samples' rows, the
/// length of its pieces and their gradients. The rows are cut into blocks updated in parallel, each
/// taking its rows' gradients from every sample in order, so that the sums do not depend on
/// the threads; `gradients` is all zero before and after.
pub(super) fn update_rows(
    adam: &Adam,
    rows: &mut [[f32; HIDDEN]],
    moments: &mut [Moments<HIDDEN>],
    gradients: &mut [[f32; HIDDEN]],
    (rows_of_samples, piece, pieces): (&[Rows], usize, &[PieceGradients]),
) {
    let block = rows.len().div_ceil(PIECES);
    rows.par_chunks_mut(block)
        .zip(moments.par_chunks_mut(block))
        .zip(gradients.par_chunks_mut(block))
        .enumerate()
        .for_each(|(number, ((weights, moments), gradients))| {
            let first = number * block;
            let mut touched = Vec::new();
            for (part, piece) in rows_of_samples.chunks(piece).zip(pieces) {
                for (sample_rows, to_accumulator) in part.iter().zip(&piece.accumulators) {
                    for &row in sample_rows {
                        let at = (row as usize).wrapping_sub(first);
                        if at >= gradients.len() {
                            continue;
                        }
                        if gradients[at] == [0.0; HIDDEN] {
                            touched.push(at);
                        }
                        add_into(&mut gradients[at], to_accumulator);
                    }
                }
            }
            touched.sort_unstable();
            touched.dedup();
            // What a row's byte holds, so that quantising never clips a trained weight.
            let limit = ROW_LIMIT as f32 / ACTIVATION_ONE as f32;
            for at in touched {
                adam.update(&mut weights[at], &gradients[at], &mut moments[at]);
                for w in &mut weights[at] {
                    *w = w.clamp(-limit, limit);
                }
                gradients[at] = [0.0; HIDDEN];
            }
        });
}
