//! The streaming callback and Haystack's `select_streaming_callback`.

use super::StreamingChunk;
use crate::future::BoxFuture;
use std::sync::Arc;

type SyncFn = dyn Fn(&StreamingChunk) + Send + Sync;
type AsyncFn = dyn Fn(StreamingChunk) -> BoxFuture<'static, ()> + Send + Sync;

/// A function called with every streamed chunk, sync or async (Haystack's
/// `StreamingCallbackT`).
#[derive(Clone)]
pub struct StreamingCallback(Kind);

#[derive(Clone)]
enum Kind {
    Sync(Arc<SyncFn>),
    Async(Arc<AsyncFn>),
}

impl std::fmt::Debug for StreamingCallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.is_async() { "async" } else { "sync" };
        f.debug_tuple("StreamingCallback").field(&kind).finish()
    }
}

impl StreamingCallback {
    /// A sync callback: usable on both paths (on the async path it runs
    /// inline, as Haystack warns).
    pub fn new<F>(function: F) -> Self
    where
        F: Fn(&StreamingChunk) + Send + Sync + 'static,
    {
        StreamingCallback(Kind::Sync(Arc::new(function)))
    }

    /// An async callback: usable on the async path only.
    pub fn new_async<F>(function: F) -> Self
    where
        F: Fn(StreamingChunk) -> BoxFuture<'static, ()> + Send + Sync + 'static,
    {
        StreamingCallback(Kind::Async(Arc::new(function)))
    }

    /// `true` for a callback made with [`new_async`](StreamingCallback::new_async).
    pub fn is_async(&self) -> bool {
        matches!(self.0, Kind::Async(_))
    }

    /// Calls a sync callback; an async one cannot be awaited here and is
    /// not called (the loop never hands an async callback to a sync run).
    pub fn call(&self, chunk: &StreamingChunk) {
        if let Kind::Sync(function) = &self.0 {
            function(chunk);
        }
    }

    /// Calls the callback and awaits it when it is async (Haystack's
    /// `_invoke_streaming_callback`).
    pub async fn call_async(&self, chunk: StreamingChunk) {
        match &self.0 {
            Kind::Sync(function) => function(&chunk),
            Kind::Async(function) => function(chunk).await,
        }
    }
}

/// An async streaming callback given to a sync run: Haystack's
/// `select_streaming_callback` raises, naming where the callback came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AsyncCallbackError {
    /// The Agent's own callback (given at construction).
    #[error("The init callback cannot be a coroutine.")]
    Init,
    /// The run's callback (given in `RunOptions`).
    #[error("The runtime callback cannot be a coroutine.")]
    Runtime,
}

/// Haystack's `select_streaming_callback`: the run's callback wins over the
/// Agent's; on the sync path an async callback is an error.
pub(crate) fn select_streaming_callback(
    init: Option<&StreamingCallback>,
    runtime: Option<&StreamingCallback>,
    requires_async: bool,
) -> Result<Option<StreamingCallback>, AsyncCallbackError> {
    if !requires_async && init.is_some_and(StreamingCallback::is_async) {
        return Err(AsyncCallbackError::Init);
    }
    if !requires_async && runtime.is_some_and(StreamingCallback::is_async) {
        return Err(AsyncCallbackError::Runtime);
    }
    if requires_async && init.is_some_and(|c| !c.is_async()) {
        tracing::warn!(
            "A sync streaming callback was provided at initialization for use in an async context. \
             It will run synchronously on the event loop and may block it."
        );
    }
    if requires_async && runtime.is_some_and(|c| !c.is_async()) {
        tracing::warn!(
            "A sync streaming callback was provided at runtime for use in an async context. \
             It will run synchronously on the event loop and may block it."
        );
    }
    Ok(runtime.or(init).cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sync() -> StreamingCallback {
        StreamingCallback::new(|_| {})
    }

    fn asynchronous() -> StreamingCallback {
        StreamingCallback::new_async(|_| Box::pin(async {}))
    }

    #[test]
    fn the_runtime_callback_wins_over_the_init_callback() {
        let chosen = select_streaming_callback(Some(&sync()), Some(&asynchronous()), true).unwrap();
        assert!(chosen.unwrap().is_async());
        let chosen = select_streaming_callback(Some(&asynchronous()), None, true).unwrap();
        assert!(chosen.unwrap().is_async());
        assert!(
            select_streaming_callback(None, None, false)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn an_async_callback_cannot_serve_a_sync_run() {
        assert_eq!(
            select_streaming_callback(Some(&asynchronous()), Some(&sync()), false).unwrap_err(),
            AsyncCallbackError::Init
        );
        assert_eq!(
            AsyncCallbackError::Init.to_string(),
            "The init callback cannot be a coroutine."
        );
        assert_eq!(
            select_streaming_callback(Some(&sync()), Some(&asynchronous()), false).unwrap_err(),
            AsyncCallbackError::Runtime
        );
        assert_eq!(
            AsyncCallbackError::Runtime.to_string(),
            "The runtime callback cannot be a coroutine."
        );
    }

    #[test]
    fn a_sync_callback_serves_the_async_path() {
        let chosen = select_streaming_callback(None, Some(&sync()), true).unwrap();
        assert!(!chosen.unwrap().is_async());
    }
}
