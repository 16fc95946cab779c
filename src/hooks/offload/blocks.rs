//! A tool result's content blocks, how they are written to a store, and the
//! pointer text left in their place (Haystack's `tool_result_offloading.utils`).

use super::store::{StoreError, StoredContent, ToolResultStore};
use crate::hooks::component::py_prefix;
use crate::message::{ChatMessage, ContentPart, ToolCallResult, ToolResult};
use serde_json::{Map, Value};

/// The meta key of an offloaded tool-result message: the list of references.
pub const OFFLOADED_META_KEY: &str = "tool_result_offloaded";

/// One block of a tool result.
pub(crate) enum Block {
    Text(String),
    Image {
        base64: String,
        mime_type: Option<String>,
    },
    File {
        base64: String,
        mime_type: Option<String>,
        filename: Option<String>,
    },
}

impl Block {
    /// What the block occupies in the conversation: its text or base64 payload.
    pub(crate) fn payload(&self) -> &str {
        match self {
            Block::Text(text) => text,
            Block::Image { base64, .. } | Block::File { base64, .. } => base64,
        }
    }
}

/// Haystack's `_offloadable_content_blocks`: `None` for an empty result, for
/// image or file content the store cannot take (with a warning), and for
/// parts that are not text, image or file.
pub(crate) fn offloadable_blocks(
    result: &ToolCallResult,
    store: Option<&dyn ToolResultStore>,
) -> Option<Vec<Block>> {
    let blocks = match &result.result {
        ToolResult::Text(text) => vec![Block::Text(text.clone())],
        ToolResult::Parts(parts) => parts.iter().map(block).collect::<Option<Vec<_>>>()?,
    };
    if blocks
        .iter()
        .all(|b| matches!(b, Block::Text(text) if text.is_empty()))
    {
        return None;
    }
    let binary = blocks.iter().any(|b| !matches!(b, Block::Text(_)));
    if binary && !store.is_some_and(|s| s.supports_binary_content()) {
        tracing::warn!(
            "Tool '{}' produced a result with image or file content, but {} does not support binary content; \
             leaving the result in context.",
            result.origin.tool_name,
            store.map_or("the store", |s| s.class_name())
        );
        return None;
    }
    Some(blocks)
}

fn block(part: &ContentPart) -> Option<Block> {
    let string =
        |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    match part {
        ContentPart::Text(text) => Some(Block::Text(text.clone())),
        ContentPart::Other { kind, value } if kind == "image" => Some(Block::Image {
            base64: string(value, "base64_image")?,
            mime_type: string(value, "mime_type"),
        }),
        ContentPart::Other { kind, value } if kind == "file" => Some(Block::File {
            base64: string(value, "base64_data")?,
            mime_type: string(value, "mime_type"),
            filename: string(value, "filename"),
        }),
        _ => None,
    }
}

/// Haystack's `_offloaded_message`: writes every block and returns the
/// pointer message, or `None` (with a warning) when a write fails.
pub(crate) fn offloaded_message(
    message: &ChatMessage,
    result: &ToolCallResult,
    blocks: &[Block],
    store: Option<&dyn ToolResultStore>,
    key_prefix: &str,
    preview_chars: i64,
    additional_meta: Option<(&str, Value)>,
) -> Option<ChatMessage> {
    let written = match store {
        Some(store) => offload_blocks(blocks, store, key_prefix, preview_chars),
        // Haystack calls `write` on whatever `hook_context` holds; anything
        // but a store raises, which is caught here.
        None => Err(OffloadError::NoStore),
    };
    let (references, pointer) = match written {
        Ok(done) => done,
        Err(error) => {
            tracing::warn!(
                "Failed to offload the result of tool '{}' to {}; leaving the result in context. Error: {}",
                result.origin.tool_name,
                store.map_or("the store", |s| s.class_name()),
                error
            );
            return None;
        }
    };
    let mut meta: Map<String, Value> = message.meta().clone();
    if let Some((key, value)) = additional_meta {
        meta.insert(key.to_owned(), value);
    }
    meta.insert(
        OFFLOADED_META_KEY.into(),
        Value::Array(references.into_iter().map(Value::String).collect()),
    );
    Some(ChatMessage::from_tool(pointer, result.origin.clone(), result.error).with_meta(meta))
}

/// Why a result stays in context (logged as Haystack logs it).
#[derive(Debug, thiserror::Error)]
enum OffloadError {
    /// `hook_context` holds no store under `tool_result_store`: Haystack
    /// calls `write` on whatever is there, which raises.
    #[error("the `tool_result_store` entry of hook_context is not a store")]
    NoStore,
    /// The store refused the write.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An image or file part whose base64 does not decode (Python's
    /// `binascii.Error` text).
    #[error("Incorrect padding")]
    Base64,
}

fn offload_blocks(
    blocks: &[Block],
    store: &dyn ToolResultStore,
    prefix: &str,
    preview_chars: i64,
) -> Result<(Vec<String>, String), OffloadError> {
    let single = blocks.len() == 1;
    let mut references = Vec::with_capacity(blocks.len());
    let mut descriptions = Vec::with_capacity(blocks.len());
    for (position, block) in blocks.iter().enumerate() {
        let key_prefix = if single {
            prefix.to_owned()
        } else {
            format!("{prefix}_{position}")
        };
        let (reference, description) = offload_block(block, store, &key_prefix, preview_chars)?;
        references.push(reference);
        descriptions.push(description);
    }
    if single {
        let pointer = format!("Tool result offloaded to {}", descriptions[0]);
        return Ok((references, pointer));
    }
    let mut pointer = format!("Tool result offloaded to {} files:", descriptions.len());
    for (i, description) in descriptions.iter().enumerate() {
        pointer.push_str(&format!("\n{}. {description}", i + 1));
    }
    Ok((references, pointer))
}

fn offload_block(
    block: &Block,
    store: &dyn ToolResultStore,
    key_prefix: &str,
    preview_chars: i64,
) -> Result<(String, String), OffloadError> {
    let (base64, mime_type, filename, label) = match block {
        Block::Text(text) => {
            let reference = store.write(
                &format!("{key_prefix}.txt"),
                StoredContent::Text(text.clone()),
            )?;
            let length = text.chars().count() as i64;
            let ellipsis = if length > preview_chars { "..." } else { "" };
            let preview = py_prefix(text, preview_chars);
            return Ok((
                reference.clone(),
                format!(
                    "text ({length} characters) at '{reference}'. Preview: {preview}{ellipsis}"
                ),
            ));
        }
        Block::Image { base64, mime_type } => (base64, mime_type, None, "image"),
        Block::File {
            base64,
            mime_type,
            filename,
        } => (base64, mime_type, filename.as_ref(), "file"),
    };
    let data = decode_base64(base64).ok_or(OffloadError::Base64)?;
    let label = mime_type.as_deref().unwrap_or(label);
    let from_name = filename.map(|f| suffix(f)).unwrap_or_default();
    let extension = if !from_name.is_empty() {
        from_name
    } else {
        mime_type
            .as_deref()
            .and_then(guess_extension)
            .unwrap_or(".bin")
    };
    let size = data.len();
    let reference = store.write(
        &format!("{key_prefix}{extension}"),
        StoredContent::Bytes(data),
    )?;
    let named = filename
        .map(|f| format!(" named '{f}'"))
        .unwrap_or_default();
    Ok((
        reference.clone(),
        format!("{label}{named} ({size} bytes) at '{reference}'"),
    ))
}

/// `Path(name).suffix`: the last `.ext` of the last path segment, `""` for
/// none, for a leading dot only, or for a trailing dot.
fn suffix(name: &str) -> &str {
    let last = name.rsplit('/').next().unwrap_or(name);
    match last.rfind('.') {
        Some(i) if i > 0 && i + 1 < last.len() => &last[i..],
        _ => "",
    }
}

/// `mimetypes.guess_extension` for the common types (Python 3.11's answers).
fn guess_extension(mime: &str) -> Option<&'static str> {
    Some(match mime {
        "image/png" => ".png",
        "image/jpeg" => ".jpg",
        "image/gif" => ".gif",
        "image/webp" => ".webp",
        "image/svg+xml" => ".svg",
        "image/bmp" => ".bmp",
        "image/tiff" => ".tiff",
        "application/pdf" => ".pdf",
        "application/json" => ".json",
        "application/zip" => ".zip",
        "application/xml" => ".xsl",
        "application/octet-stream" => ".bin",
        "text/plain" => ".txt",
        "text/csv" => ".csv",
        "text/html" => ".html",
        "text/markdown" => ".md",
        "text/xml" => ".xml",
        "audio/mpeg" => ".mp3",
        _ => return None,
    })
}

/// `base64.b64decode` (non-validating: characters outside the alphabet are
/// skipped); `None` on bad padding.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut values = Vec::with_capacity(text.len());
    let mut padding = 0;
    for byte in text.bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                continue;
            }
            _ => continue,
        };
        if padding > 0 {
            return None;
        }
        values.push(value);
    }
    if values.len() % 4 == 1 || (values.len() + padding) % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(values.len() * 3 / 4);
    for chunk in values.chunks(4) {
        let mut acc: u32 = 0;
        for (i, v) in chunk.iter().enumerate() {
            acc |= u32::from(*v) << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_as_python_does() {
        assert_eq!(decode_base64("aGk=").unwrap(), b"hi");
        assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_base64("aGVs\nbG8h").unwrap(), b"hello!");
        assert!(decode_base64("aGk").is_none());
    }

    #[test]
    fn the_suffix_is_the_last_extension_of_the_file_name() {
        assert_eq!(suffix("report.final.pdf"), ".pdf");
        assert_eq!(suffix(".bashrc"), "");
        assert_eq!(suffix("noext"), "");
        assert_eq!(suffix("dir.d/file"), "");
    }
}
