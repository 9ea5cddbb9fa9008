//! `oxello train-network`: trains the network evaluation ([`crate::eval::network`]) on the
//! errors of the built-in linear evaluation.
//!
//! Minibatch gradient descent with Adam on the squared error in discs. A position's gradient
//! reaches only the rows it sums, so a minibatch updates only the rows it touched (lazy Adam:
//! a row's moments move when it has a gradient). Training is deterministic for a seed whatever
//! the threads: each minibatch is cut into a fixed number of pieces worked in parallel and
//! merged in order. Games are split into training and validation as `oxello train` splits
//! them; the weights of the epoch with the least validation error are kept (the midgame error
//! against searched labels where there are any, else the loss), and training stops when
//! `--patience` epochs in a row have not improved on it. The result is quantised to the
//! evaluation's integers and its error measured again. A searched label is first blended with
//! the labels after it in its game (`--label-lambda`; a static one, of a depth-0 file, with
//! `--static-label-lambda`), in training and validation alike.

mod command;
mod model;
mod optimiser;
mod recipe;
mod trainer;
mod training_run;

pub use command::{run, TrainNetworkArgs};
pub use model::{FloatNetwork, Sample};
pub use recipe::{fingerprints, rebuild, Recipe, RecipeName};
pub use trainer::{errors, train_network, EpochReport, NetworkTrainConfig};
pub use training_run::{train_from_files, TrainedNetwork, TrainingPlan};
