//! What can go wrong talking to an OpenAI-compatible server.
//!
//! Every message names the endpoint and says what was wrong; none ever holds
//! the API key: [`OpenAiError::redacted`] replaces it wherever a server or a
//! lower layer echoed it.

use crate::generator::GeneratorError;

/// How a chat completion failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpenAiErrorKind {
    /// The generator's settings are invalid (an unparsable base URL, a bad
    /// `OPENAI_TIMEOUT`), found when it is built.
    Config,
    /// A message cannot be written in OpenAI's format (a tool call without
    /// an id, a user message with no content), found before any request.
    InvalidMessage,
    /// The server answered with this non-success HTTP status.
    Status(u16),
    /// No complete answer within the timeout.
    Timeout,
    /// The connection failed (refused, reset, closed mid-body).
    Connection,
    /// The body of a success answer is not JSON.
    NotJson,
    /// The JSON answer lacks a field a chat completion must have.
    MissingField,
    /// A field of the JSON answer has the wrong type.
    WrongType,
    /// An answer's body is longer than the generator's `max_reply_bytes`,
    /// or all answers together passed its `max_total_bytes`.
    ReplyTooLarge,
}

impl OpenAiErrorKind {
    /// `true` for failures worth another attempt: 408, 409, 429 and 5xx
    /// answers, timeouts and connection failures (the OpenAI client's rule).
    #[must_use]
    pub fn is_transient(self) -> bool {
        match self {
            OpenAiErrorKind::Status(status) => matches!(status, 408 | 409 | 429) || status >= 500,
            OpenAiErrorKind::Timeout | OpenAiErrorKind::Connection => true,
            _ => false,
        }
    }
}

/// The error of [`OpenAiChatGenerator`](super::OpenAiChatGenerator) and its builder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OpenAiError {
    kind: OpenAiErrorKind,
    message: String,
    attempts: u32,
}

impl OpenAiError {
    pub(crate) fn new(kind: OpenAiErrorKind, message: impl Into<String>) -> Self {
        OpenAiError {
            kind,
            message: message.into(),
            attempts: 0,
        }
    }

    /// How it failed.
    #[must_use]
    pub fn kind(&self) -> OpenAiErrorKind {
        self.kind
    }

    /// The message (never holding the API key).
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// How many HTTP requests were sent before giving up (0: none was).
    #[must_use]
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Notes the attempts in the error and its message.
    pub(crate) fn after_attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts;
        if attempts > 1 {
            self.message = format!("{}; gave up after {attempts} attempts", self.message);
        }
        self
    }

    /// The same error with every occurrence of `secret` replaced by
    /// `[redacted]` (a server may echo the key in an error body).
    pub(crate) fn redacted(mut self, secret: Option<&str>) -> Self {
        self.message = redact(&self.message, secret);
        self
    }
}

impl From<OpenAiError> for GeneratorError {
    fn from(error: OpenAiError) -> Self {
        GeneratorError::new(error.message)
    }
}

/// `text` with every occurrence of `secret` replaced by `[redacted]`.
pub(crate) fn redact(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(secret) if !secret.is_empty() => text.replace(secret, "[redacted]"),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_rate_limits_server_errors_timeouts_and_connection_failures_are_transient() {
        for status in [408, 409, 429, 500, 502, 503, 599] {
            assert!(OpenAiErrorKind::Status(status).is_transient(), "{status}");
        }
        for status in [400, 401, 403, 404, 422] {
            assert!(!OpenAiErrorKind::Status(status).is_transient(), "{status}");
        }
        assert!(OpenAiErrorKind::Timeout.is_transient());
        assert!(OpenAiErrorKind::Connection.is_transient());
        assert!(!OpenAiErrorKind::NotJson.is_transient());
        assert!(!OpenAiErrorKind::MissingField.is_transient());
    }

    #[test]
    fn the_key_is_redacted_wherever_it_appears() {
        let error = OpenAiError::new(
            OpenAiErrorKind::Status(401),
            "bad key sk-123 (sk-123 is not valid)",
        )
        .redacted(Some("sk-123"));
        assert_eq!(
            error.message(),
            "bad key [redacted] ([redacted] is not valid)"
        );
    }

    #[test]
    fn attempts_are_named_once_there_were_retries() {
        let error = OpenAiError::new(OpenAiErrorKind::Timeout, "no answer").after_attempts(3);
        assert_eq!(error.message(), "no answer; gave up after 3 attempts");
        assert_eq!(error.attempts(), 3);
        let once = OpenAiError::new(OpenAiErrorKind::Timeout, "no answer").after_attempts(1);
        assert_eq!(once.message(), "no answer");
    }
}
