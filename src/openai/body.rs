//! Reading an answer's body within the generator's byte limits, so that a
//! server sending huge or endless replies cannot exhaust memory.

use super::error::{OpenAiError, OpenAiErrorKind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The body of `response`, at most `limit` bytes; `received` counts the
/// bytes of every answer and may not pass `total_limit`. `timeout` is the
/// client's, named when it ends the body midway.
pub(super) async fn read(
    mut response: reqwest::Response,
    endpoint: &str,
    limit: usize,
    received: &AtomicUsize,
    total_limit: Option<usize>,
    timeout: Duration,
) -> Result<Vec<u8>, OpenAiError> {
    let too_large = || {
        OpenAiError::new(
            OpenAiErrorKind::ReplyTooLarge,
            format!(
                "{endpoint} sent an answer over the {limit}-byte limit on one reply; \
                 stopped reading it (raise the limit, `--max-reply-bytes` for \
                 `hookharness record`, if replies this long are expected)"
            ),
        )
    };
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| body_error(&e, endpoint, body.len(), timeout))?
    {
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        let total = received.fetch_add(chunk.len(), Ordering::Relaxed) + chunk.len();
        if let Some(total_limit) = total_limit.filter(|&l| total > l) {
            return Err(OpenAiError::new(
                OpenAiErrorKind::ReplyTooLarge,
                format!(
                    "the answers of {endpoint} passed the {total_limit}-byte limit on all \
                     replies together; stopped (raise the limit, `--max-total-bytes` for \
                     `hookharness record`, if that much is expected)"
                ),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Why the body stopped arriving: the timeout (and what to raise), or the
/// connection's own error with its causes (reqwest's "error decoding
/// response body" alone does not say what happened).
fn body_error(
    error: &reqwest::Error,
    endpoint: &str,
    got: usize,
    timeout: Duration,
) -> OpenAiError {
    if error.is_timeout() {
        return OpenAiError::new(
            OpenAiErrorKind::Timeout,
            format!(
                "{endpoint} stopped sending its answer midway: no complete answer within \
                 {timeout:?} (the timeout), {got} bytes of the body received; raise the \
                 timeout (`--timeout` for `hookharness record`, else $OPENAI_TIMEOUT) if the \
                 server is this slow"
            ),
        );
    }
    let mut detail = error.to_string();
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
    while let Some(cause) = source {
        detail.push_str(": ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    OpenAiError::new(
        OpenAiErrorKind::Connection,
        format!("cannot read the answer of {endpoint} ({got} bytes received): {detail}"),
    )
}
