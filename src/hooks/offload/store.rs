//! Where offloaded tool results go: the [`ToolResultStore`] trait, Haystack's
//! [`FileSystemToolResultStore`] and an [`InMemoryToolResultStore`].

use crate::hooks::component::{FromValueError, component, format_error, open, shown, type_of};
use crate::state::HookContext;
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::any::Any;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The `hook_context` key of a per-run store (Haystack's `RESULT_STORE_CONTEXT_KEY`).
pub const RESULT_STORE_CONTEXT_KEY: &str = "tool_result_store";

/// Content written to or read from a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredContent {
    /// Text (written UTF-8 encoded by the file-system store).
    Text(String),
    /// The decoded bytes of an image or file part.
    Bytes(Vec<u8>),
}

/// A store operation that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A key or reference that resolves outside the store root (Haystack's
    /// `ValueError`, same words).
    #[error("{subject} '{path}' resolves outside the store root '{root}'.")]
    OutsideRoot {
        /// `Result key` or `Result reference`.
        subject: &'static str,
        /// The key or reference as given.
        path: String,
        /// The resolved root.
        root: String,
    },
    /// A key or reference holding a NUL byte (Python's `ValueError`).
    #[error("embedded null byte")]
    NulByte,
    /// A reference the store does not hold.
    #[error("no stored result at '{0}'")]
    NotFound(String),
    /// Anything else (an I/O error, a custom store's failure).
    #[error("{0}")]
    Other(String),
}

/// Where a [`ToolResultOffloadHook`](super::ToolResultOffloadHook) writes tool
/// results and a read tool fetches them back.
///
/// `write` returns a reference that the conversation shows instead of the
/// result; only the store interprets it.
///
/// ```
/// use hookharness::hooks::offload::{InMemoryToolResultStore, StoredContent, ToolResultStore};
///
/// let store = InMemoryToolResultStore::new();
/// let reference = store.write("0_search_call_0_0.txt", StoredContent::Text("long".into())).unwrap();
/// assert_eq!(reference, "memory://0_search_call_0_0.txt");
/// assert_eq!(store.read(&reference).unwrap(), StoredContent::Text("long".into()));
/// ```
pub trait ToolResultStore: Send + Sync + 'static {
    /// Persists `content` under `key` and returns a reference to it.
    fn write(&self, key: &str, content: StoredContent) -> Result<String, StoreError>;

    /// The content stored at `reference`.
    fn read(&self, reference: &str) -> Result<StoredContent, StoreError>;

    /// `true` when the store takes bytes; a text-only store is never given
    /// image or file content (it stays in the conversation).
    fn supports_binary_content(&self) -> bool {
        false
    }

    /// The serialized form `{type, init_parameters}`.
    fn to_value(&self) -> Value {
        component(std::any::type_name::<Self>(), Map::new())
    }

    /// The class name shown in warnings (Haystack's `type(store).__name__`).
    fn class_name(&self) -> &str {
        crate::hook::short_type_name(std::any::type_name::<Self>())
    }
}

/// A store that writes each result to a file under a root directory, and
/// never outside it: a key or reference that resolves outside the root
/// (`../`, an absolute path elsewhere, a symlink out) is refused.
///
/// ```
/// use hookharness::hooks::offload::{FileSystemToolResultStore, StoreError, StoredContent, ToolResultStore};
///
/// let root = std::env::temp_dir().join("hookharness-doc-store");
/// let store = FileSystemToolResultStore::new(&root);
/// let reference = store.write("a.txt", StoredContent::Text("hi".into())).unwrap();
/// assert_eq!(store.read(&reference).unwrap(), StoredContent::Text("hi".into()));
/// assert!(matches!(
///     store.write("../escape.txt", StoredContent::Text("x".into())),
///     Err(StoreError::OutsideRoot { .. })
/// ));
/// ```
#[derive(Debug, Clone)]
pub struct FileSystemToolResultStore {
    root: PathBuf,
}

impl FileSystemToolResultStore {
    /// The qualified class name of Haystack's store.
    pub const TYPE: &'static str =
        "haystack.hooks.tool_result_offloading.stores.FileSystemToolResultStore";

    /// A store rooted at `root` (created on first write).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        FileSystemToolResultStore { root: root.into() }
    }

    /// The root as given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Reads the serialized form.
    pub fn from_value(value: &Value) -> Result<Self, FromValueError> {
        let init = open(value, Self::TYPE, "store")?;
        init.only(&["root"])?;
        match init.required("root")? {
            Value::String(root) => Ok(Self::new(root)),
            other => Err(format_error(
                init.at("root"),
                format!(
                    "`{}` must be a string, got {}",
                    init.at("root"),
                    shown(other)
                ),
            )),
        }
    }

    /// Haystack's `_resolve_in_root`: relative values under the root,
    /// absolute ones as they are, symlinks resolved; the result must lie
    /// inside the resolved root.
    fn resolve_in_root(
        &self,
        path_like: &str,
        subject: &'static str,
    ) -> Result<PathBuf, StoreError> {
        if path_like.contains('\0') {
            return Err(StoreError::NulByte);
        }
        let root = resolve(&self.root);
        let path = Path::new(path_like);
        let candidate = if path.is_absolute() {
            path.to_path_buf()
        } else {
            root.join(path)
        };
        let resolved = resolve(&candidate);
        if !resolved.starts_with(&root) {
            return Err(StoreError::OutsideRoot {
                subject,
                path: path_like.to_owned(),
                root: root.display().to_string(),
            });
        }
        Ok(resolved)
    }
}

impl ToolResultStore for FileSystemToolResultStore {
    fn write(&self, key: &str, content: StoredContent) -> Result<String, StoreError> {
        let path = self.resolve_in_root(key, "Result key")?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| StoreError::Other(e.to_string()))?;
        }
        let bytes = match content {
            StoredContent::Text(text) => text.into_bytes(),
            StoredContent::Bytes(bytes) => bytes,
        };
        std::fs::write(&path, bytes).map_err(|e| StoreError::Other(e.to_string()))?;
        Ok(path.display().to_string())
    }

    fn read(&self, reference: &str) -> Result<StoredContent, StoreError> {
        let path = self.resolve_in_root(reference, "Result reference")?;
        let bytes = std::fs::read(&path).map_err(|e| StoreError::Other(e.to_string()))?;
        Ok(match String::from_utf8(bytes) {
            Ok(text) => StoredContent::Text(text),
            Err(e) => StoredContent::Bytes(e.into_bytes()),
        })
    }

    fn supports_binary_content(&self) -> bool {
        true
    }

    fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert(
            "root".into(),
            Value::String(self.root.display().to_string()),
        );
        component(Self::TYPE, init)
    }

    fn class_name(&self) -> &str {
        "FileSystemToolResultStore"
    }
}

/// Python's non-strict `Path.resolve()`: absolute, `.` and `..` folded,
/// symlinks followed as far as the path exists.
fn resolve(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    let mut hops = 0;
    resolve_into(&mut out, &absolute, &mut hops);
    out
}

fn resolve_into(out: &mut PathBuf, path: &Path, hops: &mut u32) {
    for part in path.components() {
        match part {
            Component::Prefix(_) | Component::RootDir => out.push(part.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                // A symlink loop stops resolving, as realpath leaves it.
                if *hops < 40
                    && let Ok(target) = std::fs::read_link(&*out)
                {
                    *hops += 1;
                    out.pop();
                    resolve_into(out, &target, hops);
                }
            }
        }
    }
}

/// A store that keeps results in memory; references are `memory://<key>`.
/// Deterministic, so scenario outcomes stay byte-identical; supports binary
/// content. Not part of Haystack.
#[derive(Debug, Default)]
pub struct InMemoryToolResultStore {
    entries: Mutex<IndexMap<String, StoredContent>>,
}

impl InMemoryToolResultStore {
    /// The qualified class name in the serialized form.
    pub const TYPE: &'static str = "hookharness.hooks.offload.InMemoryToolResultStore";
    const SCHEME: &'static str = "memory://";

    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the serialized form.
    pub fn from_value(value: &Value) -> Result<Self, FromValueError> {
        open(value, Self::TYPE, "store")?.only(&[])?;
        Ok(Self::new())
    }

    /// The stored keys, in write order.
    pub fn keys(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// The content stored under `key`.
    pub fn get(&self, key: &str) -> Option<StoredContent> {
        self.lock().get(key).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, IndexMap<String, StoredContent>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ToolResultStore for InMemoryToolResultStore {
    fn write(&self, key: &str, content: StoredContent) -> Result<String, StoreError> {
        self.lock().insert(key.to_owned(), content);
        Ok(format!("{}{key}", Self::SCHEME))
    }

    fn read(&self, reference: &str) -> Result<StoredContent, StoreError> {
        reference
            .strip_prefix(Self::SCHEME)
            .and_then(|key| self.get(key))
            .ok_or_else(|| StoreError::NotFound(reference.to_owned()))
    }

    fn supports_binary_content(&self) -> bool {
        true
    }

    fn to_value(&self) -> Value {
        component(Self::TYPE, Map::new())
    }

    fn class_name(&self) -> &str {
        "InMemoryToolResultStore"
    }
}

/// Reads a serialized store of a known type.
pub fn store_from_value(value: &Value) -> Result<Arc<dyn ToolResultStore>, FromValueError> {
    match type_of(value, "store")? {
        FileSystemToolResultStore::TYPE => {
            Ok(Arc::new(FileSystemToolResultStore::from_value(value)?))
        }
        InMemoryToolResultStore::TYPE => Ok(Arc::new(InMemoryToolResultStore::from_value(value)?)),
        other => Err(format_error(
            "",
            format!(
                "unknown store type `{other}`; known: `{}`, `{}`",
                FileSystemToolResultStore::TYPE,
                InMemoryToolResultStore::TYPE
            ),
        )),
    }
}

/// Puts a per-run store in `hook_context` under [`RESULT_STORE_CONTEXT_KEY`];
/// it overrides the hook's own store for that run.
pub fn set_context_store(context: &mut HookContext, store: Arc<dyn ToolResultStore>) {
    let shared: Arc<dyn Any + Send + Sync> = Arc::new(store);
    context.insert_arc(RESULT_STORE_CONTEXT_KEY, shared);
}

/// What `hook_context[RESULT_STORE_CONTEXT_KEY]` holds: no entry, a store,
/// or something else (which Haystack would fail to write to).
pub(crate) enum ContextStore {
    Absent,
    Store(Arc<dyn ToolResultStore>),
    NotAStore,
}

pub(crate) fn context_store(context: Option<&HookContext>) -> ContextStore {
    let Some(context) = context else {
        return ContextStore::Absent;
    };
    if !context.contains_key(RESULT_STORE_CONTEXT_KEY) {
        return ContextStore::Absent;
    }
    if let Some(store) = context.get_shared::<Arc<dyn ToolResultStore>>(RESULT_STORE_CONTEXT_KEY) {
        return ContextStore::Store(store.clone());
    }
    match context.entry(RESULT_STORE_CONTEXT_KEY) {
        Some(crate::state::ContextValue::Shared(value)) => {
            let value = value.clone();
            if let Ok(store) = value.clone().downcast::<InMemoryToolResultStore>() {
                ContextStore::Store(store)
            } else if let Ok(store) = value.downcast::<FileSystemToolResultStore>() {
                ContextStore::Store(store)
            } else {
                ContextStore::NotAStore
            }
        }
        _ => ContextStore::NotAStore,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_root(name: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("hookharness-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        root
    }

    fn text(s: &str) -> StoredContent {
        StoredContent::Text(s.into())
    }

    #[test]
    fn a_key_with_parent_segments_is_refused_with_haystacks_words() {
        let root = temp_root("dotdot");
        let store = FileSystemToolResultStore::new(&root);
        for key in ["../x", "sub/../../x", "0_../../../etc_call1.txt"] {
            let err = store.write(key, text("hi")).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "Result key '{key}' resolves outside the store root '{}'.",
                    root.display()
                )
            );
        }
        assert!(!root.parent().unwrap().join("x").exists());
    }

    #[test]
    fn an_absolute_key_is_allowed_only_inside_the_root() {
        let root = temp_root("absolute");
        let store = FileSystemToolResultStore::new(&root);
        let err = store.write("/etc/passwd", text("x")).unwrap_err();
        assert!(matches!(
            err,
            StoreError::OutsideRoot {
                subject: "Result key",
                ..
            }
        ));
        let inside = root.join("ok.txt").display().to_string();
        assert_eq!(store.write(&inside, text("hi")).unwrap(), inside);
        assert_eq!(store.read(&inside).unwrap(), text("hi"));
    }

    #[test]
    fn a_nul_byte_is_refused_in_keys_and_references() {
        let store = FileSystemToolResultStore::new(temp_root("nul"));
        assert_eq!(
            store.write("a\0b", text("x")).unwrap_err(),
            StoreError::NulByte
        );
        assert_eq!(
            store.read("a\0b").unwrap_err().to_string(),
            "embedded null byte"
        );
    }

    #[test]
    fn read_applies_the_same_containment_check() {
        let root = temp_root("read");
        let store = FileSystemToolResultStore::new(&root);
        store.write("a.txt", text("hi")).unwrap();
        let err = store.read("../a.txt").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "Result reference '../a.txt' resolves outside the store root '{}'.",
                root.display()
            )
        );
        assert_eq!(store.read("a.txt").unwrap(), text("hi"));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_root_is_refused() {
        let root = temp_root("symlink");
        let outside = temp_root("symlink-target");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
        let store = FileSystemToolResultStore::new(&root);
        assert!(matches!(
            store.write("out/x.txt", text("x")),
            Err(StoreError::OutsideRoot { .. })
        ));
        assert!(!outside.join("x.txt").exists());
    }

    #[test]
    fn bytes_that_are_not_utf8_read_back_as_bytes() {
        let store = FileSystemToolResultStore::new(temp_root("bytes"));
        let reference = store
            .write("img.png", StoredContent::Bytes(vec![0xff, 0x00]))
            .unwrap();
        assert_eq!(
            store.read(&reference).unwrap(),
            StoredContent::Bytes(vec![0xff, 0x00])
        );
    }

    #[test]
    fn stores_round_trip_through_their_serialized_form() {
        let store = FileSystemToolResultStore::new("/tmp/results");
        let value = store.to_value();
        assert_eq!(
            value,
            serde_json::json!({"type": FileSystemToolResultStore::TYPE, "init_parameters": {"root": "/tmp/results"}})
        );
        assert_eq!(store_from_value(&value).unwrap().to_value(), value);
        let memory = InMemoryToolResultStore::new().to_value();
        assert_eq!(store_from_value(&memory).unwrap().to_value(), memory);
    }
}
