//! An HTTP chat generator for OpenAI's Chat Completions API and compatible
//! servers (llama.cpp's server, vLLM, ...). Needs the `http` feature (on by
//! default).
//!
//! ```text
//!  config.rs    builder, environment, defaults ─▶ OpenAiConfig
//!  request.rs   messages + tools ─▶ the request body (Haystack's OpenAI format)
//!  client.rs    OpenAiChatGenerator: POST, retries (retry.rs), sync and async
//!  response.rs  a chat completion ─▶ ChatMessages (Haystack's meta mapping)
//!  error.rs     OpenAiError: kinds, messages without the API key
//! ```
//!
//! `hookharness record` runs a scenario against such a server and writes
//! the replies as the scenario's `model` script; see [`crate::record`].

mod body;
mod client;
mod config;
mod error;
mod request;
mod response;
mod retry;

pub use client::OpenAiChatGenerator;
pub use config::{
    ApiKey, DEFAULT_BASE_URL, DEFAULT_MAX_REPLY_BYTES, DEFAULT_MODEL, DEFAULT_TIMEOUT,
    OpenAiChatGeneratorBuilder, OpenAiConfig,
};
pub use error::{OpenAiError, OpenAiErrorKind};
pub use retry::RetryPolicy;
