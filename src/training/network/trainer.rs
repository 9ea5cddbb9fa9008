//! The training loop: minibatches in a seeded order, their gradients on all threads merged in
//! a fixed order, the epoch with the least validation error kept.

use super::model::{add_into, FloatNetwork, PieceGradients, Rows, Sample};
use super::optimiser::{update_rows, Adam, Moments, PIECES};
use crate::eval::network::HIDDEN;
use crate::eval::patterns::PHASES;
use crate::random::seeded_hash;
use rayon::prelude::*;

/// Training settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetworkTrainConfig {
    pub epochs: u32,
    pub batch: usize,
    pub learning_rate: f32,
    /// L2 penalty on the weights a minibatch touches.
    pub l2: f32,
    /// Per cent of the games kept for validation.
    pub validation_percent: u64,
    pub seed: u64,
    /// Epochs without a better validation loss before training stops.
    pub patience: u32,
}

impl Default for NetworkTrainConfig {
    fn default() -> Self {
        NetworkTrainConfig {
            epochs: 30,
            batch: 4096,
            learning_rate: 0.002,
            l2: 0.001,
            validation_percent: 10,
            seed: 1,
            patience: 3,
        }
    }
}

/// What one epoch ended with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    pub epoch: u32,
    /// Weighted mean squared error over the validation samples.
    pub validation_loss: f64,
    /// Mean absolute error over the headline validation samples, in discs.
    pub headline_error: f64,
}

/// The weighted mean squared error and the headline mean absolute error of `network` on
/// `samples`.
pub fn errors(network: &FloatNetwork, samples: &[Sample]) -> (f64, f64) {
    let (squared, weight, absolute, headline) = samples
        .par_iter()
        .map(|s| {
            let error = f64::from(network.predict(s) - s.label);
            let counts = s.is_headline();
            (
                f64::from(s.weight) * error * error,
                f64::from(s.weight),
                if counts { error.abs() } else { 0.0 },
                usize::from(counts),
            )
        })
        .reduce(
            || (0.0, 0.0, 0.0, 0),
            |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3),
        );
    (
        squared / weight.max(f64::MIN_POSITIVE),
        absolute / headline.max(1) as f64,
    )
}

/// Trains a network on `training` from its initial state, keeping the one that does best on
/// `validation`; `progress` is called after each minibatch, `epoch_done` after each epoch.
pub fn train_network(
    training: &[Sample],
    validation: &[Sample],
    config: &NetworkTrainConfig,
    progress: &(dyn Fn() + Sync),
    epoch_done: &mut dyn FnMut(&EpochReport),
) -> FloatNetwork {
    let mut network = FloatNetwork::initial(config.seed);
    // Judged by the midgame error against searched labels where there are any: the endgame's
    // exact labels and games' results, which the loss weighs most, are not what the
    // evaluation is for in play.
    let has_headline = validation.iter().any(Sample::is_headline);
    let criterion = |(loss, headline): (f64, f64)| if has_headline { headline } else { loss };
    let mut best = (criterion(errors(&network, validation)), network.clone());
    let mut row_moments = vec![Moments::<HIDDEN>::ZERO; network.rows.len()];
    let mut row_gradients = vec![[0f32; HIDDEN]; network.rows.len()];
    let mut bias_moments = Moments::<HIDDEN>::ZERO;
    let mut output_moments = vec![Moments::<HIDDEN>::ZERO; PHASES];
    let mut output_bias_moments = vec![Moments::<1>::ZERO; PHASES];
    let mut adam = Adam {
        learning_rate: config.learning_rate,
        l2: config.l2,
        step: 0,
    };
    let mut order: Vec<u32> = (0..training.len() as u32).collect();
    let mut stale_epochs = 0;
    for epoch in 0..config.epochs {
        for i in (1..order.len()).rev() {
            let j = seeded_hash(config.seed ^ u64::from(epoch) << 48, i as u64) % (i as u64 + 1);
            order.swap(i, j as usize);
        }
        for batch in order.chunks(config.batch) {
            let samples: Vec<&Sample> = batch.iter().map(|&i| &training[i as usize]).collect();
            let rows: Vec<Rows> = samples.par_iter().map(|s| s.rows()).collect();
            let total_weight: f32 = samples.iter().map(|s| s.weight).sum();
            let piece = samples.len().div_ceil(PIECES);
            let pieces: Vec<PieceGradients> = samples
                .par_chunks(piece)
                .zip(rows.par_chunks(piece))
                .map(|part| PieceGradients::of(&network, part, total_weight))
                .collect();
            adam.step += 1;
            let mut hidden_bias = [0f32; HIDDEN];
            let mut output = [[0f32; HIDDEN]; PHASES];
            let mut output_bias = [[0f32; 1]; PHASES];
            for gradients in &pieces {
                add_into(&mut hidden_bias, &gradients.hidden_bias);
                for phase in 0..PHASES {
                    add_into(&mut output[phase], &gradients.output[phase]);
                    output_bias[phase][0] += gradients.output_bias[phase];
                }
            }
            update_rows(
                &adam,
                &mut network.rows,
                &mut row_moments,
                &mut row_gradients,
                (&rows, piece, &pieces),
            );
            adam.update(&mut network.hidden_bias, &hidden_bias, &mut bias_moments);
            for phase in 0..PHASES {
                adam.update(
                    &mut network.output[phase],
                    &output[phase],
                    &mut output_moments[phase],
                );
                let mut bias = [network.output_bias[phase]];
                adam.update(
                    &mut bias,
                    &output_bias[phase],
                    &mut output_bias_moments[phase],
                );
                network.output_bias[phase] = bias[0];
            }
            progress();
        }
        let (validation_loss, headline_error) = errors(&network, validation);
        epoch_done(&EpochReport {
            epoch,
            validation_loss,
            headline_error,
        });
        let measure = criterion((validation_loss, headline_error));
        if measure < best.0 {
            best = (measure, network.clone());
            stale_epochs = 0;
        } else {
            stale_epochs += 1;
            if stale_epochs >= config.patience {
                break;
            }
        }
    }
    best.1
}
