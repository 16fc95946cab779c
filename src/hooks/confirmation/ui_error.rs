//! Why a confirmation UI could not get an answer.

/// A [`ConfirmationUI`](super::ConfirmationUI) that could not ask or read
/// the answer; it fails the hook, and the run, with this message. `?` turns
/// a `String`, a `&str` or an I/O error into one, so an implementation stays
/// short.
///
/// ```
/// use hookharness::hooks::confirmation::ConfirmationUIError;
///
/// let error = ConfirmationUIError::new("EOF when reading a line");
/// assert_eq!(error.to_string(), "EOF when reading a line");
/// assert_eq!(ConfirmationUIError::from("EOF when reading a line"), error);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConfirmationUIError {
    message: String,
}

impl ConfirmationUIError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ConfirmationUIError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for ConfirmationUIError {
    fn from(message: String) -> Self {
        ConfirmationUIError::new(message)
    }
}

impl From<&str> for ConfirmationUIError {
    fn from(message: &str) -> Self {
        ConfirmationUIError::new(message)
    }
}

impl From<std::io::Error> for ConfirmationUIError {
    fn from(error: std::io::Error) -> Self {
        ConfirmationUIError::new(error.to_string())
    }
}
