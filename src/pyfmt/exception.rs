//! The exception a Python rendering raises, as Python prints it.

use std::fmt;

/// A Python exception (`KeyError: 'nope'`), or a construct the harness does
/// not render (its message says what to write instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PyException {
    kind: &'static str,
    message: String,
}

impl PyException {
    /// `kind` is the exception's class name (`ValueError`); `message` is
    /// `str(exception)`, possibly empty (`MemoryError`).
    pub(crate) fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// A construct Python accepts whose output the harness cannot reproduce.
    pub(crate) fn unsupported(message: String) -> Self {
        Self::new("unsupported", message)
    }
}

impl fmt::Display for PyException {
    /// The last line of Python's traceback: `Type: message`, or `Type` alone
    /// when the message is empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, self.message.is_empty()) {
            ("unsupported", _) => write!(f, "unsupported in the harness: {}", self.message),
            (kind, true) => f.write_str(kind),
            (kind, false) => write!(f, "{kind}: {}", self.message),
        }
    }
}
