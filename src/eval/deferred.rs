//! An evaluation that may still be in the making when the engine starts.
//!
//! Laying out the built-in network's rows (18 MB) takes tens of milliseconds, about as long
//! as everything else the engine does before its first answer. The engine answers commands
//! that need no evaluation (`name`, `protocol_version`, setting up a game) without waiting
//! for it: the layout runs on a thread of its own, and the first search waits for it only if
//! it has not finished.

use super::evaluation::Evaluation;
use super::network::NetworkEvaluator;
use std::sync::OnceLock;
use std::time::Instant;

/// An evaluation known now, or the built-in network being laid out on another thread.
#[derive(Clone, Debug)]
pub struct DeferredEvaluation {
    /// Empty until the built-in network is asked for; always set for any other evaluation.
    evaluation: OnceLock<Evaluation>,
}

impl DeferredEvaluation {
    /// The evaluation `--eval name` names ([`Evaluation::from_name`]): the built-in network
    /// is laid out on a thread started here, any other evaluation is read now, so that a
    /// file's error is reported at once.
    pub fn from_name(name: &str) -> Result<DeferredEvaluation, String> {
        if Evaluation::names_built_in_network(name) {
            Ok(DeferredEvaluation::built_in_network())
        } else {
            Evaluation::from_name(name).map(DeferredEvaluation::from)
        }
    }

    /// The built-in network, laid out from now on on a thread of its own, which logs (at debug
    /// level) when the network is ready. If no thread can be started the first
    /// [`DeferredEvaluation::get`] lays it out.
    pub fn built_in_network() -> DeferredEvaluation {
        let start = Instant::now();
        let started = std::thread::Builder::new()
            .name("oxello-network-layout".into())
            .spawn(move || {
                NetworkEvaluator::built_in();
                log::debug!(
                    "the network is laid out, {:?} after asking",
                    start.elapsed()
                );
            });
        if let Err(error) = started {
            log::warn!("the network is laid out at the first search: no thread for it ({error})");
        }
        DeferredEvaluation {
            evaluation: OnceLock::new(),
        }
    }

    /// The evaluation, waiting for the built-in network's layout if it is still running (or
    /// doing it here if it has not started).
    pub fn get(&self) -> &Evaluation {
        self.evaluation.get_or_init(|| {
            let waiting = Instant::now();
            let network = Evaluation::Network(NetworkEvaluator::built_in());
            log::debug!("waited {:?} for the network's layout", waiting.elapsed());
            network
        })
    }
}

impl From<Evaluation> for DeferredEvaluation {
    fn from(evaluation: Evaluation) -> DeferredEvaluation {
        DeferredEvaluation {
            evaluation: OnceLock::from(evaluation),
        }
    }
}
