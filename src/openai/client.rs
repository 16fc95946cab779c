//! The generator: one request per model call, sent from a small runtime of
//! its own so that the sync path works with or without a surrounding tokio
//! runtime, and the async path works under any executor.
//!
//! ```text
//!  run (sync) ──spawn──▶ ┌ generator's runtime (1 worker) ┐ ──result──▶ channel ──▶ caller's thread
//!  run_async  ──spawn──▶ │  body ─▶ POST ─▶ retry? ─▶ map  │ ──result──▶ JoinHandle (awaited anywhere)
//!                        └────────────────────────────────┘
//! ```

use super::body;
use super::config::{OpenAiChatGeneratorBuilder, OpenAiConfig};
use super::error::{OpenAiError, OpenAiErrorKind};
use super::request;
use super::response;
use super::retry::RetryHint;
use crate::future::CallFuture;
use crate::generator::{ChatGenerator, ChatRequest, GeneratorError, GeneratorFuture};
use crate::message::ChatMessage;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::task::{Context, Poll};
use std::time::SystemTime;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

/// A chat generator for OpenAI's Chat Completions API and the servers that
/// speak it (llama.cpp's server, vLLM, ...), with tools (function calling).
///
/// Replies are mapped as Haystack's `OpenAIChatGenerator` maps them:
/// `meta` = `{model, index, finish_reason, usage}`. Transient failures are
/// retried (see [`RetryPolicy`](super::RetryPolicy)); errors name the
/// endpoint and never hold the API key.
///
/// ```no_run
/// use hookharness::openai::OpenAiChatGenerator;
/// use hookharness::{Agent, ChatMessage, RunOptions};
///
/// let model = OpenAiChatGenerator::builder()
///     .base_url("http://127.0.0.1:8080/v1")
///     .model("local")
///     .build()?;
/// let agent = Agent::builder().chat_generator(model).build()?;
/// let output = agent.run(vec![ChatMessage::from_user("Hello")], RunOptions::new())?;
/// println!("{:?}", output.last_message.and_then(|m| m.text().map(str::to_owned)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct OpenAiChatGenerator {
    shared: Arc<Shared>,
    /// `None` only while dropping.
    runtime: Option<Runtime>,
}

struct Shared {
    config: OpenAiConfig,
    endpoint: String,
    client: reqwest::Client,
    /// Body bytes received so far, against `config.max_total_bytes`.
    received: AtomicUsize,
}

impl std::fmt::Debug for OpenAiChatGenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiChatGenerator")
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

impl OpenAiChatGenerator {
    /// A builder; unset values come from `OPENAI_*` variables, then defaults.
    pub fn builder() -> OpenAiChatGeneratorBuilder {
        OpenAiChatGeneratorBuilder::default()
    }

    /// A generator with these settings.
    ///
    /// # Errors
    /// [`OpenAiErrorKind::Config`] when the HTTP client or its runtime cannot start.
    pub fn from_config(config: OpenAiConfig) -> Result<Self, OpenAiError> {
        // No redirects: following one re-sends the request body (and the
        // conversation in it) to wherever the server points.
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| {
                OpenAiError::new(
                    OpenAiErrorKind::Config,
                    format!("cannot start the HTTP client: {e}"),
                )
            })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("hookharness-http")
            .enable_all()
            .build()
            .map_err(|e| {
                OpenAiError::new(
                    OpenAiErrorKind::Config,
                    format!("cannot start the HTTP runtime: {e}"),
                )
            })?;
        Ok(OpenAiChatGenerator {
            shared: Arc::new(Shared {
                endpoint: config.endpoint(),
                config,
                client,
                received: AtomicUsize::new(0),
            }),
            runtime: Some(runtime),
        })
    }

    /// The resolved settings.
    pub fn config(&self) -> &OpenAiConfig {
        &self.shared.config
    }

    /// The request body for these messages and tools (`None`: no messages,
    /// so no request, as in Haystack).
    fn body(&self, request: &ChatRequest<'_>) -> Result<Option<Value>, OpenAiError> {
        if request.messages.is_empty() {
            return Ok(None);
        }
        let config = &self.shared.config;
        // The run's kwargs are merged key by key over the generator's, the
        // run's winning, as Haystack's `OpenAIChatGenerator` merges them.
        let mut kwargs = config.generation_kwargs.clone();
        if let Some(run) = request.generation_kwargs {
            kwargs.extend(run.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        request::body(&config.model, request.messages, request.tools, &kwargs).map(Some)
    }

    fn runtime(&self) -> &Runtime {
        self.runtime.as_ref().expect("the runtime lives until drop")
    }

    fn spawn(&self, body: Value) -> JoinHandle<Result<Vec<ChatMessage>, OpenAiError>> {
        let shared = self.shared.clone();
        self.runtime()
            .spawn(async move { shared.complete(body).await })
    }
}

impl Drop for OpenAiChatGenerator {
    fn drop(&mut self) {
        // A runtime dropped inside another runtime's task would panic;
        // shutting it down in the background never blocks.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl OpenAiChatGenerator {
    /// One model call on the calling thread, with the typed error. Works
    /// outside any runtime and inside a tokio runtime alike (the request runs
    /// on the generator's own runtime; this thread waits on a channel, never
    /// on `block_on`, which panics inside a runtime).
    ///
    /// # Errors
    /// An [`OpenAiError`] saying what failed; it never holds the API key.
    pub fn chat(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, OpenAiError> {
        let Some(body) = self.body(&request)? else {
            return Ok(Vec::new());
        };
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        let shared = self.shared.clone();
        self.runtime().spawn(async move {
            let _ = sender.send(shared.complete(body).await);
        });
        receiver.recv().unwrap_or_else(|_| Err(stopped()))
    }

    /// One model call as a future that any executor can drive (the request
    /// runs on the generator's own runtime); dropping it cancels the request.
    ///
    /// # Errors
    /// As [`chat`](OpenAiChatGenerator::chat).
    pub fn chat_async(
        &self,
        request: ChatRequest<'_>,
    ) -> impl Future<Output = Result<Vec<ChatMessage>, OpenAiError>> + Send + 'static {
        let task = self
            .body(&request)
            .map(|body| body.map(|b| AbortOnDrop(self.spawn(b))));
        async move {
            match task? {
                None => Ok(Vec::new()),
                Some(task) => task.await.unwrap_or_else(|_| Err(stopped())),
            }
        }
    }
}

fn stopped() -> OpenAiError {
    OpenAiError::new(
        OpenAiErrorKind::Connection,
        "the HTTP request task stopped before answering",
    )
}

impl ChatGenerator for OpenAiChatGenerator {
    fn run(&self, request: ChatRequest<'_>) -> Result<Vec<ChatMessage>, GeneratorError> {
        self.chat(request).map_err(GeneratorError::from)
    }

    fn run_async<'a>(&'a self, request: ChatRequest<'a>) -> GeneratorFuture<'a> {
        let reply = self.chat_async(request);
        CallFuture::new(async move { reply.await.map_err(GeneratorError::from) })
    }
}

/// A task handle that cancels the request when the caller stops waiting.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A failed attempt: the error, and what the server said about retrying.
struct Attempt {
    error: OpenAiError,
    hint: RetryHint,
}

impl From<OpenAiError> for Attempt {
    fn from(error: OpenAiError) -> Self {
        Attempt {
            error,
            hint: RetryHint::default(),
        }
    }
}

impl Shared {
    /// Sends the body until it succeeds or the retry policy says stop.
    async fn complete(&self, body: Value) -> Result<Vec<ChatMessage>, OpenAiError> {
        let body = serde_json::to_vec(&body).map_err(|e| {
            OpenAiError::new(
                OpenAiErrorKind::InvalidMessage,
                format!("cannot encode the request: {e}"),
            )
        })?;
        let policy = self.config.retry;
        let secret = self.config.api_key.as_ref().map(|k| k.expose());
        let mut retry = 0;
        loop {
            match self.attempt(&body).await {
                Ok(replies) => return Ok(replies),
                Err(Attempt { error, hint }) => {
                    let transient = error.kind().is_transient();
                    match policy.wait(retry, transient, hint) {
                        Some(wait) => {
                            tracing::debug!(retry, ?wait, error = %error.clone().redacted(secret), "retrying");
                            tokio::time::sleep(wait).await;
                            retry += 1;
                        }
                        None => return Err(error.after_attempts(retry + 1).redacted(secret)),
                    }
                }
            }
        }
    }

    async fn attempt(&self, body: &[u8]) -> Result<Vec<ChatMessage>, Attempt> {
        let mut request = self
            .client
            .post(&self.endpoint)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key.expose());
        }
        let response = request.send().await.map_err(|e| self.transport_error(&e))?;
        let status = response.status();
        let hint = RetryHint::from_headers(response.headers(), SystemTime::now());
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .map(str::to_owned);
        let bytes = body::read(
            response,
            &self.endpoint,
            self.config.max_reply_bytes,
            &self.received,
            self.config.max_total_bytes,
            self.config.timeout,
        )
        .await
        .map_err(|error| Attempt {
            error,
            hint: RetryHint::default(),
        })?;
        if status.is_success() {
            return response::replies(&bytes, &self.endpoint).map_err(Attempt::from);
        }
        let reason = status.canonical_reason().unwrap_or("");
        let error = OpenAiError::new(
            OpenAiErrorKind::Status(status.as_u16()),
            format!(
                "{} answered {} {reason}: {}{}",
                self.endpoint,
                status.as_u16(),
                error_detail(&bytes),
                redirect_note(status, location.as_deref()),
            ),
        );
        Err(Attempt { error, hint })
    }

    fn transport_error(&self, error: &reqwest::Error) -> OpenAiError {
        let mut causes = Vec::new();
        let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
        while let Some(cause) = source {
            causes.push(cause.to_string());
            source = cause.source();
        }
        let detail = if causes.is_empty() {
            error.to_string()
        } else {
            causes.join(": ")
        };
        if error.is_timeout() {
            OpenAiError::new(
                OpenAiErrorKind::Timeout,
                format!(
                    "no complete answer from {} within {:?} (the timeout: raise it with \
                     `--timeout` for `hookharness record`, else $OPENAI_TIMEOUT, if the server \
                     is this slow)",
                    self.endpoint, self.config.timeout
                ),
            )
        } else {
            OpenAiError::new(
                OpenAiErrorKind::Connection,
                format!("cannot reach {}: {detail}", self.endpoint),
            )
        }
    }
}

/// For a redirect, why it was not followed and what to pass instead.
fn redirect_note(status: reqwest::StatusCode, location: Option<&str>) -> String {
    if !status.is_redirection() {
        return String::new();
    }
    format!(
        " (redirects are not followed, so that the conversation is not sent again \
         elsewhere; pass the final base URL{})",
        location
            .map(|l| format!(", the server points to {l}"))
            .unwrap_or_default()
    )
}

/// OpenAI's `{"error": {"message": ...}}` when the body has it, else the
/// body's first bytes.
fn error_detail(body: &[u8]) -> String {
    let message = serde_json::from_slice::<Value>(body).ok().and_then(|v| {
        let error = v.get("error")?;
        error
            .get("message")
            .and_then(Value::as_str)
            .or_else(|| error.as_str())
            .map(str::to_owned)
    });
    match message {
        Some(message) => message,
        None if body.is_empty() => "(empty body)".to_owned(),
        None => response::excerpt(body),
    }
}
