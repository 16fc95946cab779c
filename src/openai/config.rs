//! The generator's settings: what the builder was given, else the
//! environment, else Haystack's defaults.
//!
//! | setting | builder | environment | default |
//! |---|---|---|---|
//! | base URL | [`base_url`](OpenAiChatGeneratorBuilder::base_url) | `OPENAI_BASE_URL` | `https://api.openai.com/v1` |
//! | API key | [`api_key`](OpenAiChatGeneratorBuilder::api_key) | `OPENAI_API_KEY` | none: no `Authorization` header |
//! | model | [`model`](OpenAiChatGeneratorBuilder::model) | | `gpt-5-mini` (Haystack's) |
//! | timeout | [`timeout`](OpenAiChatGeneratorBuilder::timeout) | `OPENAI_TIMEOUT` (seconds) | 30 s |
//! | retries | [`max_retries`](OpenAiChatGeneratorBuilder::max_retries) | `OPENAI_MAX_RETRIES` | 5 |
//! | largest reply | [`max_reply_bytes`](OpenAiChatGeneratorBuilder::max_reply_bytes) | | 8 MiB |
//! | all replies | [`max_total_bytes`](OpenAiChatGeneratorBuilder::max_total_bytes) | | no limit |

use super::client::OpenAiChatGenerator;
use super::error::{OpenAiError, OpenAiErrorKind};
use super::retry::RetryPolicy;
use serde_json::{Map, Value};
use std::fmt;
use std::time::Duration;

/// The largest reply body read by default (8 MiB); a longer one is an
/// [`OpenAiErrorKind::ReplyTooLarge`] error, never held in memory whole.
pub const DEFAULT_MAX_REPLY_BYTES: usize = 8 << 20;

/// The base URL when neither the builder nor `OPENAI_BASE_URL` gives one.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The model when the builder names none (Haystack's default).
pub const DEFAULT_MODEL: &str = "gpt-5-mini";
/// The timeout of one request when none is given (Haystack's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// An API key. It is sent as `Authorization: Bearer KEY` and nowhere else:
/// its `Debug` form is `ApiKey([redacted])`, and errors never hold it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// The resolved settings of an [`OpenAiChatGenerator`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OpenAiConfig {
    /// The API's base URL, ending before `/chat/completions`.
    pub base_url: String,
    /// The `model` sent with each request.
    pub model: String,
    /// The key, when there is one.
    pub api_key: Option<ApiKey>,
    /// The limit on one request, from connecting to the last byte.
    pub timeout: Duration,
    /// Retries and backoff.
    pub retry: RetryPolicy,
    /// Extra body keys (`temperature`, `max_completion_tokens`, `n`, ...),
    /// as Haystack's `generation_kwargs`.
    pub generation_kwargs: Map<String, Value>,
    /// The largest body one answer may have.
    pub max_reply_bytes: usize,
    /// The most body bytes all answers together may have (`None`: no
    /// limit), for a process that keeps every reply, as `record` does.
    pub max_total_bytes: Option<usize>,
}

impl OpenAiConfig {
    /// `{base_url}/chat/completions`.
    #[must_use]
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// Builds an [`OpenAiChatGenerator`].
///
/// ```no_run
/// use hookharness::openai::OpenAiChatGenerator;
/// use std::time::Duration;
///
/// let model = OpenAiChatGenerator::builder()
///     .base_url("http://127.0.0.1:8080/v1")
///     .model("qwen2.5-7b-instruct")
///     .timeout(Duration::from_secs(60))
///     .build()?;
/// # Ok::<(), hookharness::openai::OpenAiError>(())
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiChatGeneratorBuilder {
    base_url: Option<String>,
    model: Option<String>,
    api_key: Option<ApiKey>,
    timeout: Option<Duration>,
    max_retries: Option<u32>,
    backoff_base: Option<Duration>,
    backoff_max: Option<Duration>,
    max_retry_after: Option<Duration>,
    generation_kwargs: Map<String, Value>,
    max_reply_bytes: Option<usize>,
    max_total_bytes: Option<usize>,
    read_env: bool,
}

impl Default for OpenAiChatGeneratorBuilder {
    fn default() -> Self {
        OpenAiChatGeneratorBuilder {
            base_url: None,
            model: None,
            api_key: None,
            timeout: None,
            max_retries: None,
            backoff_base: None,
            backoff_max: None,
            max_retry_after: None,
            generation_kwargs: Map::new(),
            max_reply_bytes: None,
            max_total_bytes: None,
            read_env: true,
        }
    }
}

impl OpenAiChatGeneratorBuilder {
    /// The API's base URL, such as `http://127.0.0.1:8080/v1`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The model to ask for.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The API key (sent as `Authorization: Bearer KEY`).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(ApiKey::new(key));
        self
    }

    /// The limit on one request, from connecting to the last byte of the body.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How many times a transient failure is retried (0: never).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = Some(retries);
        self
    }

    /// The first backoff wait, doubled on each retry (default 0.5 s).
    pub fn backoff_base(mut self, base: Duration) -> Self {
        self.backoff_base = Some(base);
        self
    }

    /// The longest backoff wait (default 8 s).
    pub fn backoff_max(mut self, max: Duration) -> Self {
        self.backoff_max = Some(max);
        self
    }

    /// The longest `Retry-After` obeyed; a server asking for more ends the
    /// retries at once (default 2 minutes).
    pub fn max_retry_after(mut self, max: Duration) -> Self {
        self.max_retry_after = Some(max);
        self
    }

    /// Adds a key to every request body (`temperature`, `seed`, ...).
    pub fn generation_kwarg(mut self, key: impl Into<String>, value: Value) -> Self {
        self.generation_kwargs.insert(key.into(), value);
        self
    }

    /// The largest body one answer may have (default
    /// [`DEFAULT_MAX_REPLY_BYTES`]); reading stops past it with an
    /// [`OpenAiErrorKind::ReplyTooLarge`] error.
    pub fn max_reply_bytes(mut self, bytes: usize) -> Self {
        self.max_reply_bytes = Some(bytes);
        self
    }

    /// The most body bytes all answers of this generator may have together
    /// (default: no limit); past it every call fails with an
    /// [`OpenAiErrorKind::ReplyTooLarge`] error.
    pub fn max_total_bytes(mut self, bytes: usize) -> Self {
        self.max_total_bytes = Some(bytes);
        self
    }

    /// Does not read `OPENAI_*` environment variables: only what the builder
    /// was given, and the defaults.
    pub fn ignore_env(mut self) -> Self {
        self.read_env = false;
        self
    }

    /// Resolves the settings and builds the generator.
    ///
    /// # Errors
    /// [`OpenAiErrorKind::Config`]: a base URL that is not an `http` or
    /// `https` URL, an unreadable `OPENAI_TIMEOUT` or `OPENAI_MAX_RETRIES`,
    /// or an HTTP client that cannot start.
    pub fn build(self) -> Result<OpenAiChatGenerator, OpenAiError> {
        let config = self.resolve(&|name| std::env::var(name).ok())?;
        OpenAiChatGenerator::from_config(config)
    }

    /// The settings, with `env` standing for the environment.
    pub(crate) fn resolve(
        self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<OpenAiConfig, OpenAiError> {
        let env = |name: &str| {
            if self.read_env {
                env(name).filter(|value| !value.trim().is_empty())
            } else {
                None
            }
        };
        let base_url = self
            .base_url
            .clone()
            .or_else(|| env("OPENAI_BASE_URL"))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        check_base_url(&base_url)?;
        let timeout = match (self.timeout, env("OPENAI_TIMEOUT")) {
            (Some(timeout), _) => timeout,
            (None, Some(text)) => parse_seconds(&text)?,
            (None, None) => DEFAULT_TIMEOUT,
        };
        let defaults = RetryPolicy::default();
        let max_retries = match (self.max_retries, env("OPENAI_MAX_RETRIES")) {
            (Some(retries), _) => retries,
            (None, Some(text)) => text.trim().parse().map_err(|_| {
                config_error(format!(
                    "`OPENAI_MAX_RETRIES` must be a whole number of retries, got `{text}`"
                ))
            })?,
            (None, None) => defaults.max_retries,
        };
        Ok(OpenAiConfig {
            base_url,
            model: self
                .model
                .clone()
                .unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
            api_key: self
                .api_key
                .clone()
                .or_else(|| env("OPENAI_API_KEY").map(ApiKey)),
            timeout,
            retry: RetryPolicy {
                max_retries,
                backoff_base: self.backoff_base.unwrap_or(defaults.backoff_base),
                backoff_max: self.backoff_max.unwrap_or(defaults.backoff_max),
                max_retry_after: self.max_retry_after.unwrap_or(defaults.max_retry_after),
            },
            generation_kwargs: self.generation_kwargs,
            max_reply_bytes: self.max_reply_bytes.unwrap_or(DEFAULT_MAX_REPLY_BYTES),
            max_total_bytes: self.max_total_bytes,
        })
    }
}

fn config_error(message: String) -> OpenAiError {
    OpenAiError::new(OpenAiErrorKind::Config, message)
}

fn check_base_url(url: &str) -> Result<(), OpenAiError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| {
        config_error(format!(
            "the base URL `{url}` is not a URL ({e}); write it like `http://127.0.0.1:8080/v1`"
        ))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(config_error(format!(
            "the base URL `{url}` must start with http:// or https://"
        )));
    }
    Ok(())
}

fn parse_seconds(text: &str) -> Result<Duration, OpenAiError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            config_error(format!(
                "`OPENAI_TIMEOUT` must be a positive number of seconds, got `{text}`"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn the_environment_fills_what_the_builder_left_out() {
        let env = env_of(&[
            ("OPENAI_API_KEY", "sk-env"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
            ("OPENAI_TIMEOUT", "2.5"),
            ("OPENAI_MAX_RETRIES", "1"),
        ]);
        let config = OpenAiChatGeneratorBuilder::default().resolve(&env).unwrap();
        assert_eq!(config.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(config.api_key, Some(ApiKey::new("sk-env")));
        assert_eq!(config.timeout, Duration::from_millis(2500));
        assert_eq!(config.retry.max_retries, 1);
        assert_eq!(config.model, DEFAULT_MODEL);
        assert_eq!(config.endpoint(), "http://127.0.0.1:9/v1/chat/completions");
    }

    #[test]
    fn the_builder_wins_over_the_environment() {
        let env = env_of(&[
            ("OPENAI_API_KEY", "sk-env"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
        ]);
        let config = OpenAiChatGeneratorBuilder::default()
            .api_key("sk-builder")
            .base_url("http://127.0.0.1:8080/v1/")
            .model("local")
            .resolve(&env)
            .unwrap();
        assert_eq!(config.api_key, Some(ApiKey::new("sk-builder")));
        assert_eq!(
            config.endpoint(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        assert_eq!(config.model, "local");
    }

    #[test]
    fn ignore_env_uses_only_the_builder_and_the_defaults() {
        let env = env_of(&[("OPENAI_API_KEY", "sk-env")]);
        let config = OpenAiChatGeneratorBuilder::default()
            .ignore_env()
            .resolve(&env)
            .unwrap();
        assert_eq!(config.api_key, None);
        assert_eq!(config.base_url, DEFAULT_BASE_URL);
        assert_eq!(config.timeout, DEFAULT_TIMEOUT);
        assert_eq!(config.retry, RetryPolicy::default());
    }

    #[test]
    fn bad_settings_are_named() {
        let bad_url = OpenAiChatGeneratorBuilder::default()
            .base_url("127.0.0.1:8080")
            .resolve(&env_of(&[]))
            .unwrap_err();
        assert_eq!(bad_url.kind(), OpenAiErrorKind::Config);
        assert!(bad_url.message().contains("http://"), "{bad_url}");
        let bad_timeout = OpenAiChatGeneratorBuilder::default()
            .resolve(&env_of(&[("OPENAI_TIMEOUT", "soon")]))
            .unwrap_err();
        assert_eq!(
            bad_timeout.message(),
            "`OPENAI_TIMEOUT` must be a positive number of seconds, got `soon`"
        );
    }

    #[test]
    fn the_key_does_not_show_in_debug_output() {
        let builder = OpenAiChatGeneratorBuilder::default().api_key("sk-very-secret");
        assert!(!format!("{builder:?}").contains("sk-very-secret"));
    }
}
