//! `run.stream`: the recording streaming callback and what `expect.streamed`
//! compares.

use crate::stream::{StreamingCallback, StreamingChunk};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// The chunks a run streamed, as `expect.streamed` writes them.
#[derive(Clone, Default)]
pub(crate) struct Streamed(Arc<Mutex<Vec<Value>>>);

impl Streamed {
    /// A callback that records into this list: async on the async path (so
    /// that it is awaited), sync otherwise.
    pub(crate) fn callback(&self, is_async: bool) -> StreamingCallback {
        let sink = self.0.clone();
        if is_async {
            StreamingCallback::new_async(move |chunk| {
                let sink = sink.clone();
                Box::pin(async move { record(&sink, &chunk) })
            })
        } else {
            StreamingCallback::new(move |chunk| record(&sink, chunk))
        }
    }

    /// What was recorded, in order.
    pub(crate) fn take(&self) -> Vec<Value> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

fn record(sink: &Mutex<Vec<Value>>, chunk: &StreamingChunk) {
    sink.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(summary(chunk));
}

/// A text chunk as its text, a tool result as `{tool_result: TEXT}`, an
/// empty chunk that ends a stream as `{finish_reason: R}`.
fn summary(chunk: &StreamingChunk) -> Value {
    if let Some(result) = &chunk.tool_call_result {
        return json!({"tool_result": result.result.as_text()});
    }
    match &chunk.finish_reason {
        Some(reason) if chunk.content.is_empty() => json!({"finish_reason": reason}),
        _ => Value::String(chunk.content.clone()),
    }
}
