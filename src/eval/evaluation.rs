//! [`Evaluation`]: which evaluation an engine uses, named on the command line.

use super::evaluator::Evaluator;
use super::indices::ParentIndices;
use super::network::{self, NetworkEvaluator};
use super::pattern_eval::PatternEvaluator;
use super::probcut_table::ProbCutTable;
use super::simple::SimpleEvaluator;
use crate::board::Board;
use crate::cpu::Isa;
use std::sync::Arc;

/// The evaluation an engine uses.
#[derive(Clone, Debug)]
pub enum Evaluation {
    /// The hand-made evaluation.
    Simple,
    /// Pattern weights: the built-in ones or a file's.
    Patterns(Arc<PatternEvaluator>),
    /// A network over the built-in pattern weights.
    Network(Arc<NetworkEvaluator>),
}

/// The fingerprint of the hand-made evaluation: "simple" in ASCII.
const SIMPLE_FINGERPRINT: u64 = 0x0000_7369_6D70_6C65;

/// The names of the built-in network, the default evaluation.
const NETWORK_NAMES: [&str; 3] = ["network", "builtin", "built-in"];

/// The built-in network.
impl Default for Evaluation {
    fn default() -> Self {
        Evaluation::Network(NetworkEvaluator::built_in())
    }
}

impl Evaluation {
    /// The built-in linear pattern weights, which the built-in network corrects.
    pub fn linear() -> Evaluation {
        Evaluation::Patterns(Arc::new(PatternEvaluator::built_in()))
    }

    /// Whether `name` names the built-in network (the default evaluation).
    pub fn names_built_in_network(name: &str) -> bool {
        NETWORK_NAMES.contains(&name)
    }

    /// `network` (or `builtin`: the built-in network, the default), `linear` (the built-in
    /// pattern weights), `simple`, or the path of a weights file or of a network file (told
    /// apart by their magic).
    pub fn from_name(name: &str) -> Result<Evaluation, String> {
        match name {
            "simple" => Ok(Evaluation::Simple),
            "linear" => Ok(Evaluation::linear()),
            name if Self::names_built_in_network(name) => Ok(Evaluation::default()),
            path => {
                let bytes = std::fs::read(path)
                    .map_err(|e| format!("cannot read weights '{path}': {e}"))?;
                if bytes.starts_with(network::file::MAGIC) {
                    let network =
                        NetworkEvaluator::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
                    if !network.has_probcut_table() {
                        log::warn!(
                            "{path} carries no Multi-ProbCut table: searches cut by the built-in \
                             one, fitted to the linear weights (`oxello --eval {path} tune-mpc \
                             --network-out FILE` fits the network's own)"
                        );
                    }
                    Ok(Evaluation::Network(Arc::new(network)))
                } else {
                    PatternEvaluator::from_bytes(&bytes)
                        .map(|e| Evaluation::Patterns(Arc::new(e)))
                        .map_err(|e| format!("{path}: {e}"))
                }
            }
        }
    }

    /// The bytes of the network file that `--eval name` names: the built-in network's for its
    /// names, else the file's.
    pub fn network_file(name: &str) -> std::io::Result<std::borrow::Cow<'static, [u8]>> {
        if Self::names_built_in_network(name) {
            Ok(network::BUILT_IN.into())
        } else {
            std::fs::read(name).map(Into::into)
        }
    }

    /// A number that tells evaluations apart, so that files made by searches (labels) can
    /// record which evaluation made them: the weights' checksum, or a constant for the
    /// hand-made evaluation.
    pub fn fingerprint(&self) -> u64 {
        match self {
            Evaluation::Simple => SIMPLE_FINGERPRINT,
            Evaluation::Patterns(patterns) => patterns.checksum(),
            Evaluation::Network(network) => network.fingerprint(),
        }
    }
}

impl Evaluator<Board> for Evaluation {
    #[inline(always)]
    fn evaluate(&self, board: &Board) -> i32 {
        match self {
            Evaluation::Simple => SimpleEvaluator.evaluate(board),
            Evaluation::Patterns(patterns) => patterns.evaluate(board),
            Evaluation::Network(network) => network.evaluate(board),
        }
    }

    #[inline(always)]
    fn evaluate_at<I: Isa>(&self, isa: I, board: &Board) -> i32 {
        match self {
            Evaluation::Simple => SimpleEvaluator.evaluate(board),
            Evaluation::Patterns(patterns) => patterns.evaluate_at(isa, board),
            Evaluation::Network(network) => network.evaluate_at(isa, board),
        }
    }

    fn probcut_table(&self) -> &ProbCutTable {
        match self {
            Evaluation::Network(network) => network.probcut_table(),
            Evaluation::Simple | Evaluation::Patterns(_) => ProbCutTable::built_in(),
        }
    }

    #[inline(always)]
    fn evaluate_for_ordering<I: Isa>(&self, isa: I, board: &Board) -> i32 {
        match self {
            Evaluation::Network(network) => network.linear().evaluate_at(isa, board),
            _ => self.evaluate_at(isa, board),
        }
    }

    #[inline(always)]
    fn children_of<I: Isa>(
        &self,
        isa: I,
        parent: &Board,
    ) -> impl Fn(usize, &Board, (i32, i32)) -> i32 + '_
    where
        Self: Sized,
    {
        self.children_with(isa, parent, false)
    }

    #[inline(always)]
    fn children_for_ordering<I: Isa>(
        &self,
        isa: I,
        parent: &Board,
    ) -> impl Fn(usize, &Board) -> i32 + '_
    where
        Self: Sized,
    {
        let children = self.children_with(isa, parent, true);
        #[inline(always)]
        move |square, child| children(square, child, (i32::MIN, i32::MAX))
    }
}

impl Evaluation {
    /// [`Evaluator::children_of`], with the network's linear part alone if `linear_only`.
    #[inline(always)]
    fn children_with<I: Isa>(
        &self,
        isa: I,
        parent: &Board,
        linear_only: bool,
    ) -> impl Fn(usize, &Board, (i32, i32)) -> i32 + '_ {
        /// What the children of one node share: the parent's indices.
        enum Shared<'e> {
            Simple,
            Patterns(&'e PatternEvaluator, ParentIndices),
            Network(&'e NetworkEvaluator, ParentIndices),
        }
        let shared = match self {
            Evaluation::Simple => Shared::Simple,
            Evaluation::Patterns(patterns) => {
                Shared::Patterns(patterns, ParentIndices::of(isa, parent))
            }
            Evaluation::Network(network) if linear_only => {
                Shared::Patterns(network.linear(), ParentIndices::of(isa, parent))
            }
            Evaluation::Network(network) => {
                Shared::Network(network, ParentIndices::of(isa, parent))
            }
        };
        let parent_opponent = parent.opponent;
        #[inline(always)]
        move |square, child, window| {
            // The flipped discs: the parent's opponent's, which the child's side to move lost.
            let flipped = (square, parent_opponent ^ child.player);
            match &shared {
                Shared::Patterns(patterns, indices) => {
                    patterns.evaluate_child(isa, indices, flipped, child)
                }
                Shared::Network(network, indices) => {
                    network.evaluate_child(isa, indices, flipped, child, window)
                }
                Shared::Simple => SimpleEvaluator.evaluate(child),
            }
        }
    }
}
