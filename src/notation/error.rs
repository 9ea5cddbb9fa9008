//! The one error of every parser here.

/// A text that does not follow the format it was given as.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotationError(pub String);

impl NotationError {
    pub(crate) fn new(message: impl Into<String>) -> NotationError {
        NotationError(message.into())
    }
}
