//! `model`: the replies the scripted chat generator returns, one per LLM
//! call, read into [`ModelReply`].

use serde_json::Map;

use super::error::ScenarioErrorKind;
use super::reader::{Field, Read};
use crate::scripted::{FinishReason, ModelReply, ScriptedToolCall};

/// The format's spelling of each finish reason.
fn finish_reasons() -> Vec<(&'static str, FinishReason)> {
    FinishReason::ALL.map(|r| (r.as_str(), r)).to_vec()
}

pub(crate) fn read_reply(field: &Field<'_>) -> Read<ModelReply> {
    if field.is_null() {
        return Ok(ModelReply::empty());
    }
    let mut map = field.map()?;
    if let Some(error) = map.get("error") {
        let others: Vec<String> = map.keys().into_iter().filter(|k| k != "error").collect();
        if !others.is_empty() {
            return Err(field.error(ScenarioErrorKind::ErrorWithOtherKeys { keys: others }));
        }
        return Ok(ModelReply::Error(error.string()?));
    }
    let mut text = match map.get("text") {
        Some(f) => f.opt_string()?,
        None => None,
    };
    let chunks = match map.get("chunks") {
        Some(_) if map.has("text") => {
            return Err(field.error(ScenarioErrorKind::NeedsOneOf {
                keys: vec!["text".to_owned(), "chunks".to_owned()],
                exactly: true,
            }));
        }
        Some(f) => {
            let chunks = f.strings()?;
            text = Some(chunks.concat());
            Some(chunks)
        }
        None => None,
    };
    let tool_calls = match map.get("tool_calls") {
        Some(f) => f.seq()?.iter().map(read_tool_call).collect::<Read<_>>()?,
        None => Vec::new(),
    };
    let usage = match map.get("usage") {
        Some(f) if f.is_null() => None,
        Some(f) => Some(f.json_map()?),
        None => None,
    };
    let finish_reason = match map.get("finish_reason") {
        Some(f) if f.is_null() => None,
        Some(f) => Some(f.variant(&finish_reasons())?),
        None => None,
    };
    // `sees` is read (and taken out) by the caller: suggest it all the same.
    map.finish_suggesting(&["sees"])?;
    Ok(ModelReply::Reply {
        text,
        tool_calls,
        usage,
        finish_reason,
        chunks,
    })
}

/// `{tool, arguments, id}`, in `model` replies and in simple-form messages.
pub(crate) fn read_tool_call(field: &Field<'_>) -> Read<ScriptedToolCall> {
    let mut map = field.map()?;
    let tool = map.get("tool");
    let arguments = match map.get("arguments") {
        Some(f) => f.json_map()?,
        None => Map::new(),
    };
    let id = match map.get("id") {
        Some(f) => f.opt_string()?,
        None => None,
    };
    map.finish_hinting(&[("tool_name", "tool"), ("args", "arguments")])?;
    let tool = tool.ok_or_else(|| map.missing("tool"))?.string()?;
    let call = ScriptedToolCall::new(tool, arguments);
    Ok(match id {
        Some(id) => call.with_id(id),
        None => call,
    })
}
