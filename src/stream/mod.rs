//! Streaming: the chunks a chat generator streams and the tool results the
//! loop streams, handed to a callback as Haystack's `streaming_callback`.
//!
//! A callback is set on the Agent ([`AgentBuilder::streaming_callback`]) or
//! for one run ([`RunOptions::streaming_callback`]); the run's wins, chosen as
//! Haystack's `select_streaming_callback` chooses: an async callback cannot
//! serve a sync run.
//!
//! ```
//! use hookharness::stream::{StreamingCallback, StreamingChunk};
//! use hookharness::{Agent, AgentError, ChatMessage, RunOptions, generator_fn};
//! use std::sync::{Arc, Mutex};
//!
//! let model = generator_fn(|request| {
//!     if let Some(callback) = request.streaming_callback {
//!         callback.call(&StreamingChunk::text("Hel"));
//!         callback.call(&StreamingChunk::text("lo"));
//!     }
//!     Ok(vec![ChatMessage::from_assistant("Hello")])
//! });
//! let seen = Arc::new(Mutex::new(String::new()));
//! let sink = seen.clone();
//! let agent = Agent::builder().chat_generator(model).build()?;
//! let options = RunOptions::new().streaming_callback(StreamingCallback::new(move |chunk| {
//!     sink.lock().unwrap().push_str(&chunk.content);
//! }));
//! agent.run(vec![ChatMessage::from_user("hi")], options)?;
//! assert_eq!(*seen.lock().unwrap(), "Hello");
//! # Ok::<(), AgentError>(())
//! ```
//!
//! [`AgentBuilder::streaming_callback`]: crate::AgentBuilder::streaming_callback
//! [`RunOptions::streaming_callback`]: crate::RunOptions::streaming_callback

mod callback;
mod chunk;

pub use callback::{AsyncCallbackError, StreamingCallback};
pub use chunk::StreamingChunk;

pub(crate) use callback::select_streaming_callback;
