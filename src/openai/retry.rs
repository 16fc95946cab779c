//! When to try a request again, and how long to wait first.
//!
//! The OpenAI client's rule, which Haystack's generator runs under: retry
//! 408, 409, 429 and 5xx answers, timeouts and connection failures; obey
//! `x-should-retry`; wait what `retry-after-ms` or `Retry-After` (seconds,
//! fractions allowed, or an HTTP date) asks when it is positive and at most
//! `max_retry_after`, and do not retry when it asks for more; otherwise back
//! off exponentially from `backoff_base`, capped at `backoff_max`. There is
//! no random jitter, so the waits of a run are the same every time.

use reqwest::header::HeaderMap;
use std::time::{Duration, SystemTime};

/// How many times to retry and how long to wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Retries after the first attempt (Haystack's default: 5).
    pub max_retries: u32,
    /// The first backoff wait (the OpenAI client's: 0.5 s); doubled on each retry.
    pub backoff_base: Duration,
    /// The longest backoff wait (the OpenAI client's: 8 s).
    pub backoff_max: Duration,
    /// The longest `Retry-After` that is obeyed; a longer one ends the
    /// retries (the OpenAI client's: 2 minutes).
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 5,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

/// What the server said about retrying, read from an answer's headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RetryHint {
    /// `x-should-retry: true|false`.
    pub should_retry: Option<bool>,
    /// The parsed `retry-after-ms` / `Retry-After`.
    pub retry_after: Option<Duration>,
}

impl RetryHint {
    pub(crate) fn from_headers(headers: &HeaderMap, now: SystemTime) -> Self {
        let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let should_retry = match text("x-should-retry") {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => None,
        };
        RetryHint {
            should_retry,
            retry_after: retry_after(text("retry-after-ms"), text("retry-after"), now),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (0-based), or `None` when the
    /// failure must not be retried.
    pub(crate) fn wait(&self, retry: u32, transient: bool, hint: RetryHint) -> Option<Duration> {
        if retry >= self.max_retries {
            return None;
        }
        if hint.retry_after.is_some_and(|d| d > self.max_retry_after) {
            return None;
        }
        if !hint.should_retry.unwrap_or(transient) {
            return None;
        }
        match hint.retry_after {
            Some(delay) if !delay.is_zero() => Some(delay),
            _ => Some(self.backoff(retry)),
        }
    }

    /// `backoff_base * 2^retry`, capped at `backoff_max`.
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.min(30));
        self.backoff_base
            .checked_mul(factor)
            .unwrap_or(self.backoff_max)
            .min(self.backoff_max)
    }
}

/// `retry-after-ms` first, then `Retry-After` as seconds (fractions
/// allowed, as the OpenAI client reads it) or as an HTTP date.
fn retry_after(millis: Option<&str>, header: Option<&str>, now: SystemTime) -> Option<Duration> {
    let seconds = |text: &str, divisor: f64| {
        let value: f64 = text.trim().parse().ok()?;
        if value.is_nan() {
            return None;
        }
        Some(Duration::try_from_secs_f64((value / divisor).max(0.0)).unwrap_or(Duration::MAX))
    };
    if let Some(delay) = millis.and_then(|m| seconds(m, 1000.0)) {
        return Some(delay);
    }
    let header = header?;
    if let Some(delay) = seconds(header, 1.0) {
        return Some(delay);
    }
    let date = httpdate::parse_http_date(header.trim()).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn hint(pairs: &[(&'static str, &str)]) -> RetryHint {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        RetryHint::from_headers(
            &headers,
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_000),
        )
    }

    #[test]
    fn retry_after_is_read_in_seconds_fractions_milliseconds_and_dates() {
        assert_eq!(
            hint(&[("retry-after", "2")]).retry_after,
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            hint(&[("retry-after", "0.25")]).retry_after,
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            hint(&[("retry-after-ms", "40"), ("retry-after", "9")]).retry_after,
            Some(Duration::from_millis(40))
        );
        let date = httpdate::fmt_http_date(SystemTime::UNIX_EPOCH + Duration::from_secs(1_003));
        assert_eq!(
            hint(&[("retry-after", &date)]).retry_after,
            Some(Duration::from_secs(3))
        );
        assert_eq!(hint(&[("retry-after", "soon")]).retry_after, None);
        assert_eq!(
            hint(&[("retry-after", "1e300")]).retry_after,
            Some(Duration::MAX)
        );
    }

    #[test]
    fn backoff_doubles_from_the_base_up_to_the_cap() {
        let policy = RetryPolicy::default();
        let waits: Vec<u128> = (0..6).map(|n| policy.backoff(n).as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 8000]);
        assert_eq!(policy.backoff(u32::MAX), Duration::from_secs(8));
    }

    #[test]
    fn a_transient_failure_waits_what_the_server_asks_within_the_limit() {
        let policy = RetryPolicy::default();
        let asked = hint(&[("retry-after", "3")]);
        assert_eq!(policy.wait(0, true, asked), Some(Duration::from_secs(3)));
        assert_eq!(
            policy.wait(0, true, RetryHint::default()),
            Some(Duration::from_millis(500))
        );
        let too_long = hint(&[("retry-after", "600")]);
        assert_eq!(policy.wait(0, true, too_long), None);
        assert_eq!(policy.wait(5, true, asked), None, "retries used up");
        assert_eq!(policy.wait(0, false, RetryHint::default()), None);
    }

    #[test]
    fn x_should_retry_overrides_the_status_rule() {
        let policy = RetryPolicy::default();
        assert!(
            policy
                .wait(0, false, hint(&[("x-should-retry", "true")]))
                .is_some()
        );
        assert!(
            policy
                .wait(0, true, hint(&[("x-should-retry", "false")]))
                .is_none()
        );
    }
}
