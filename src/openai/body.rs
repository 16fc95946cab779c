//! Reading an answer's body within the generator's byte limits, so that a
//! server sending huge or endless replies cannot exhaust memory.

use super::error::{OpenAiError, OpenAiErrorKind};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The body of `response`, at most `limit` bytes; `received` counts the
/// bytes of every answer and may not pass `total_limit`.
pub(super) async fn read(
    mut response: reqwest::Response,
    endpoint: &str,
    limit: usize,
    received: &AtomicUsize,
    total_limit: Option<usize>,
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
    while let Some(chunk) = response.chunk().await.map_err(|e| {
        OpenAiError::new(
            OpenAiErrorKind::Connection,
            format!("cannot read the answer of {endpoint}: {e}"),
        )
    })? {
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
