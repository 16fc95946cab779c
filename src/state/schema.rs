//! The typed keys a `State` accepts.

use super::Handler;
use indexmap::IndexMap;
use std::fmt;

/// The declared type of a state key. As in Haystack, types are not checked
/// on `set`; they choose the default handler and document the key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueType {
    /// `list` (any items).
    List,
    /// `list[ChatMessage]`, the type of `messages`.
    ChatMessages,
    /// `str`.
    Str,
    /// `int`.
    Int,
    /// `float`.
    Float,
    /// `bool`.
    Bool,
    /// `dict`.
    Dict,
    /// `typing.Any`.
    Any,
    /// `Optional[T]`: never a list type, so its default handler replaces.
    Optional(Box<ValueType>),
}

impl ValueType {
    /// `true` for list types, whose default handler is `merge_lists`.
    pub fn is_list(&self) -> bool {
        matches!(self, ValueType::List | ValueType::ChatMessages)
    }

    /// The handler an entry of this type gets when it names none.
    pub fn default_handler(&self) -> Handler {
        if self.is_list() {
            Handler::MergeLists
        } else {
            Handler::ReplaceValues
        }
    }
}

impl fmt::Display for ValueType {
    /// Python's rendering of the type, as Haystack's errors show it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueType::List => f.write_str("<class 'list'>"),
            ValueType::ChatMessages => {
                f.write_str("list[haystack.dataclasses.chat_message.ChatMessage]")
            }
            ValueType::Str => f.write_str("<class 'str'>"),
            ValueType::Int => f.write_str("<class 'int'>"),
            ValueType::Float => f.write_str("<class 'float'>"),
            ValueType::Bool => f.write_str("<class 'bool'>"),
            ValueType::Dict => f.write_str("<class 'dict'>"),
            ValueType::Any => f.write_str("typing.Any"),
            ValueType::Optional(inner) => write!(f, "typing.Optional[{inner}]"),
        }
    }
}

/// One schema entry: a type and an optional handler (a scenario's
/// `state_schema` entry `{type, handler}`).
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaEntry {
    /// The declared type.
    pub ty: ValueType,
    /// The handler; `None` means the type's default.
    pub handler: Option<Handler>,
}

impl SchemaEntry {
    /// An entry of this type with the type's default handler.
    pub fn new(ty: ValueType) -> Self {
        SchemaEntry { ty, handler: None }
    }

    /// An entry of this type with this handler.
    pub fn with_handler(ty: ValueType, handler: Handler) -> Self {
        SchemaEntry {
            ty,
            handler: Some(handler),
        }
    }

    /// The handler `set` uses for this key.
    pub fn effective_handler(&self) -> Handler {
        self.handler_ref().clone()
    }

    /// The handler `set` uses, borrowed (no clone on the hot path).
    pub(crate) fn handler_ref(&self) -> &Handler {
        static MERGE: Handler = Handler::MergeLists;
        static REPLACE: Handler = Handler::ReplaceValues;
        match &self.handler {
            Some(handler) => handler,
            None if self.ty.is_list() => &MERGE,
            None => &REPLACE,
        }
    }
}

/// The keys of a `State`, in declaration order.
///
/// ```
/// use hookharness::state::{StateSchema, ValueType, Handler};
///
/// let schema = StateSchema::new()
///     .key("notes", ValueType::List)
///     .key_with_handler("best", ValueType::Int, Handler::ReplaceValues);
/// assert!(schema.contains("notes"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct StateSchema {
    entries: IndexMap<String, SchemaEntry>,
}

impl StateSchema {
    /// An empty schema.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a key with the type's default handler.
    pub fn key(mut self, name: impl Into<String>, ty: ValueType) -> Self {
        self.entries
            .insert(name.into(), SchemaEntry { ty, handler: None });
        self
    }

    /// Adds a key with an explicit handler.
    pub fn key_with_handler(
        mut self,
        name: impl Into<String>,
        ty: ValueType,
        handler: Handler,
    ) -> Self {
        self.entries.insert(
            name.into(),
            SchemaEntry {
                ty,
                handler: Some(handler),
            },
        );
        self
    }

    /// Adds an entry (replacing one of the same name).
    pub fn insert(&mut self, name: impl Into<String>, entry: SchemaEntry) {
        self.entries.insert(name.into(), entry);
    }

    /// The entry of a key.
    pub fn get(&self, name: &str) -> Option<&SchemaEntry> {
        self.entries.get(name)
    }

    /// `true` when the key is declared.
    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// The keys, in declaration order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The entries, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &SchemaEntry)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` when no key is declared.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
