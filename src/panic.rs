//! The text of a caught panic, for the error that reports it.

use std::any::Any;

/// What `panic!` was given: its message, or a note when it was not text.
pub(crate) fn payload_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic payload".into())
}
