//! The live key/value container shared by the loop, the tools and the hooks.
//!
//! [`State`] follows Haystack's `State`: a schema of typed keys with merge
//! handlers, `set` that goes through the handler, `get` that returns a copy,
//! and live data that hooks mutate in place. Three keys have Rust types of
//! their own: `messages` (a `Vec<ChatMessage>`), `tools` (the tools of the
//! current step) and `hook_context` (see [`HookContext`]); every other key
//! holds a JSON value.

pub(crate) mod find;
mod handler;
mod hook_context;
pub mod keys;
mod schema;

pub use handler::{Handler, HandlerError, merge_lists};
pub use hook_context::{ContextValue, HookContext};
pub use schema::{SchemaEntry, StateSchema, ValueType};

use crate::message::{ChatMessage, MessageFormatError};
use crate::tool::Tool;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A `State` operation that failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// `set` on a key the schema does not declare.
    #[error("State: Key '{key}' not found in schema. Schema: [{schema}]")]
    UnknownKey {
        /// The key.
        key: String,
        /// The declared keys, quoted and comma-separated.
        schema: String,
    },
    /// A handler failed, or a value of the wrong shape for a typed key.
    #[error("State: cannot set '{key}': {message}")]
    InvalidValue {
        /// The key.
        key: String,
        /// What went wrong.
        message: String,
    },
}

/// The live state of one run.
///
/// ```
/// use hookharness::state::{State, StateSchema, ValueType};
/// use hookharness::ChatMessage;
/// use serde_json::json;
///
/// let mut state = State::new(StateSchema::new().key("notes", ValueType::List));
/// state.set("notes", json!("first")).unwrap();          // merge_lists appends
/// state.set("notes", json!(["second"])).unwrap();
/// assert_eq!(state.get("notes"), Some(json!(["first", "second"])));
///
/// state.append_messages(vec![ChatMessage::from_user("hi")]).unwrap();
/// assert_eq!(state.messages().len(), 1);
///
/// assert!(state.set("nope", json!(1)).is_err());        // unknown keys fail
/// ```
#[derive(Clone)]
pub struct State {
    schema: Arc<StateSchema>,
    messages: Option<Vec<ChatMessage>>,
    tools: Option<Arc<[Arc<dyn Tool>]>>,
    tools_written: Option<Value>,
    /// The `messages` handler, looked up once (the schema never changes).
    messages_handler: Handler,
    hook_context: Option<HookContext>,
    /// What a hook set in place of the `hook_context` map when it is not a
    /// map; it hides `hook_context` until a map is set again.
    hook_context_other: Option<Value>,
    data: Map<String, Value>,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("messages", &self.messages)
            .field("data", &self.data)
            .field("hook_context", &self.hook_context)
            .finish_non_exhaustive()
    }
}

impl State {
    /// A state over `schema`; `messages` is added as `list[ChatMessage]`
    /// with `merge_lists` when the schema does not declare it.
    pub fn new(schema: StateSchema) -> Self {
        Self::from_schema(Arc::new(with_messages_key(schema)))
    }

    pub(crate) fn from_schema(schema: Arc<StateSchema>) -> Self {
        let messages_handler = schema
            .get(keys::MESSAGES)
            .map_or(Handler::MergeLists, SchemaEntry::effective_handler);
        State {
            messages_handler,
            schema,
            messages: None,
            tools: None,
            tools_written: None,
            hook_context: None,
            hook_context_other: None,
            data: Map::new(),
        }
    }

    /// The schema.
    pub fn schema(&self) -> &StateSchema {
        &self.schema
    }

    /// `true` when the key holds a value (a key holding `null` counts).
    pub fn has(&self, key: &str) -> bool {
        match key {
            keys::MESSAGES => self.messages.is_some(),
            keys::TOOLS => self.tools.is_some() || self.tools_written.is_some(),
            keys::HOOK_CONTEXT => self.hook_context.is_some() || self.hook_context_other.is_some(),
            _ => self.data.contains_key(key),
        }
    }

    /// A copy of a key's value (`messages` in `to_dict()` form, `tools` as
    /// their specs, `hook_context` without its shared objects).
    pub fn get(&self, key: &str) -> Option<Value> {
        match key {
            keys::MESSAGES => self
                .messages
                .as_ref()
                .map(|m| Value::Array(m.iter().map(ChatMessage::to_value).collect())),
            keys::TOOLS => self.tools_written.clone().or_else(|| {
                self.tools
                    .as_ref()
                    .map(|t| Value::Array(t.iter().map(|tool| tool.spec().to_value()).collect()))
            }),
            keys::HOOK_CONTEXT => self.hook_context_other.clone().or_else(|| {
                self.hook_context
                    .as_ref()
                    .map(|c| Value::Object(c.to_json()))
            }),
            _ => self.data.get(key).cloned(),
        }
    }

    /// Sets a key through its schema handler.
    pub fn set(&mut self, key: &str, value: Value) -> Result<(), StateError> {
        let schema = Arc::clone(&self.schema);
        let handler = match schema.get(key) {
            Some(entry) => entry.handler_ref(),
            None => return Err(self.unknown_key(key)),
        };
        self.set_with(key, value, handler)
    }

    /// Sets a key through `handler` instead of the schema's
    /// (Haystack's `handler_override`).
    pub fn set_with(
        &mut self,
        key: &str,
        value: Value,
        handler: &Handler,
    ) -> Result<(), StateError> {
        self.entry(key)?;
        match key {
            keys::MESSAGES => {
                let messages = parse_messages(value).map_err(|message| invalid(key, message))?;
                self.set_messages_with(messages, handler)
            }
            // As in Haystack, a write is kept until the next step refreshes
            // the list, and never changes what the model is offered.
            keys::TOOLS => match handler.apply(self.get(key), value) {
                Ok(value) => {
                    self.tools_written = Some(value);
                    Ok(())
                }
                Err(message) => Err(invalid(key, message)),
            },
            keys::HOOK_CONTEXT => match handler.apply(self.get(key), value) {
                Ok(Value::Object(map)) => {
                    self.hook_context = Some(HookContext::from(map));
                    self.hook_context_other = None;
                    Ok(())
                }
                // Haystack's `State.set` checks no type: `null`, a string or
                // a list are kept as they are.
                Ok(other) => {
                    self.hook_context_other = Some(other);
                    Ok(())
                }
                Err(message) => Err(invalid(key, message)),
            },
            _ => {
                // The built-in handlers work in place: no copy of the
                // current value, no new key when the key is present.
                match (handler, self.data.get_mut(key)) {
                    (Handler::ReplaceValues, Some(slot)) => *slot = value,
                    (Handler::MergeLists, Some(slot)) => {
                        let current = std::mem::take(slot);
                        *slot = merge_lists(Some(current), value);
                    }
                    (_, current) => {
                        let current = current.map(|v| v.clone());
                        let merged = handler
                            .apply(current, value)
                            .map_err(|message| invalid(key, message))?;
                        self.data.insert(key.to_owned(), merged);
                    }
                }
                Ok(())
            }
        }
    }

    /// The live data of every JSON-valued key: reading and writing it
    /// bypasses handlers, as Haystack's `state.data` does.
    pub fn data(&self) -> &Map<String, Value> {
        &self.data
    }

    /// The live data, mutable.
    pub fn data_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.data
    }

    /// A JSON key's live value, found without hashing in a small map: the
    /// loop's per-step reads.
    pub(crate) fn lookup(&self, key: &str) -> Option<&Value> {
        find::get(&self.data, key)
    }

    /// A JSON key's live value, mutable (see [`lookup`](Self::lookup)).
    pub(crate) fn lookup_mut(&mut self, key: &str) -> Option<&mut Value> {
        find::get_mut(&mut self.data, key)
    }

    /// Writes a JSON key directly (no handler), without allocating the key
    /// when it is already there: the loop's per-step bookkeeping.
    pub(crate) fn put(&mut self, key: &str, value: Value) {
        match find::get_mut(&mut self.data, key) {
            Some(slot) => *slot = value,
            None => {
                self.data.insert(key.to_owned(), value);
            }
        }
    }

    /// The conversation (empty when `messages` was never set).
    pub fn messages(&self) -> &[ChatMessage] {
        self.messages.as_deref().unwrap_or_default()
    }

    /// The live conversation, for in-place edits.
    pub fn messages_mut(&mut self) -> &mut Vec<ChatMessage> {
        self.messages.get_or_insert_with(Vec::new)
    }

    /// `state.set("messages", new)`: through the `messages` handler, which
    /// appends unless the schema redefined it.
    ///
    /// Fails only when the schema gives `messages` a custom handler and that
    /// handler fails.
    pub fn append_messages(&mut self, new: Vec<ChatMessage>) -> Result<(), StateError> {
        if let Handler::MergeLists = self.messages_handler {
            self.messages.get_or_insert_with(Vec::new).extend(new);
            return Ok(());
        }
        let handler = self.messages_handler.clone();
        self.set_messages_with(new, &handler)
    }

    /// [`append_messages`](Self::append_messages) that leaves `new` empty
    /// with its allocation, for the loop to fill again next step.
    pub(crate) fn append_messages_from(
        &mut self,
        new: &mut Vec<ChatMessage>,
    ) -> Result<(), StateError> {
        if let Handler::MergeLists = self.messages_handler {
            self.messages.get_or_insert_with(Vec::new).append(new);
            return Ok(());
        }
        self.append_messages(std::mem::take(new))
    }

    /// Replaces the conversation (`handler_override=replace_values`).
    pub fn replace_messages(&mut self, new: Vec<ChatMessage>) {
        self.messages = Some(new);
    }

    /// Sets `messages` through `handler`.
    pub fn set_messages_with(
        &mut self,
        new: Vec<ChatMessage>,
        handler: &Handler,
    ) -> Result<(), StateError> {
        match handler {
            Handler::MergeLists => {
                let current = self.messages.get_or_insert_with(Vec::new);
                current.extend(new);
            }
            Handler::ReplaceValues => self.messages = Some(new),
            Handler::Custom { .. } => {
                let new = Value::Array(new.iter().map(ChatMessage::to_value).collect());
                let merged = handler
                    .apply(self.get(keys::MESSAGES), new)
                    .map_err(|message| invalid(keys::MESSAGES, message))?;
                let merged =
                    parse_messages(merged).map_err(|message| invalid(keys::MESSAGES, message))?;
                self.messages = Some(merged);
            }
        }
        Ok(())
    }

    /// The tools of the current step (empty before the first step).
    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        self.tools.as_deref().unwrap_or(&[])
    }

    pub(crate) fn set_tools(&mut self, tools: Arc<[Arc<dyn Tool>]>) {
        self.tools = Some(tools);
        self.tools_written = None;
    }

    /// The run's `hook_context` (`None` before the run sets it, or when a
    /// hook set something that is not a map in its place: see
    /// [`hook_context_other`](Self::hook_context_other)).
    pub fn hook_context(&self) -> Option<&HookContext> {
        match self.hook_context_other {
            Some(_) => None,
            None => self.hook_context.as_ref(),
        }
    }

    /// What a hook set in place of the `hook_context` map when it is not a
    /// map (`set: {hook_context: null}`): Haystack's `State.set` checks no
    /// type, so the run goes on with it, and code that reads the context
    /// as a map (`hook_context.get(...)`) sees this value.
    ///
    /// ```
    /// use hookharness::state::{State, StateSchema, ValueType};
    /// use serde_json::json;
    ///
    /// let mut state = State::new(StateSchema::new().key("hook_context", ValueType::Dict));
    /// state.set("hook_context", json!("x")).unwrap();
    /// assert_eq!(state.hook_context_other(), Some(&json!("x")));
    /// assert!(state.hook_context().is_none());
    /// assert_eq!(state.get("hook_context"), Some(json!("x")));
    /// ```
    pub fn hook_context_other(&self) -> Option<&Value> {
        self.hook_context_other.as_ref()
    }

    /// The run's `hook_context`, mutable; it replaces a value that is not
    /// a map (see [`hook_context_other`](Self::hook_context_other)) by the
    /// map it hid, or by an empty map.
    pub fn hook_context_mut(&mut self) -> &mut HookContext {
        self.hook_context_other = None;
        self.hook_context.get_or_insert_with(HookContext::new)
    }

    pub(crate) fn set_hook_context(&mut self, context: HookContext) {
        self.hook_context = Some(context);
        self.hook_context_other = None;
    }

    /// The context for the run's output: the last map it held (a value
    /// that is not a map cannot be handed back as a [`HookContext`]).
    pub(crate) fn take_hook_context(&mut self) -> HookContext {
        self.hook_context.take().unwrap_or_default()
    }

    /// `step_count` when it holds an integer.
    pub fn step_count(&self) -> Option<i64> {
        self.lookup(keys::STEP_COUNT).and_then(Value::as_i64)
    }

    /// `exit_reason` (`None` before any exit).
    pub fn exit_reason(&self) -> Option<&Value> {
        self.lookup(keys::EXIT_REASON).filter(|v| !v.is_null())
    }

    /// `tool_call_counts[tool]`, 0 when absent.
    pub fn tool_call_count(&self, tool: &str) -> i64 {
        self.lookup(keys::TOOL_CALL_COUNTS)
            .and_then(|counts| counts.get(tool))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    }

    /// Sets `continue_run`.
    pub fn set_continue_run(&mut self, value: bool) {
        self.data
            .insert(keys::CONTINUE_RUN.into(), Value::Bool(value));
    }

    /// Sets `stop_run`: the run stops at the next stop check, after the
    /// next step's `before_llm` hooks.
    pub fn set_stop_run(&mut self, reason: impl Into<String>) {
        self.data
            .insert(keys::STOP_RUN.into(), Value::String(reason.into()));
    }

    pub(crate) fn take_messages(&mut self) -> Option<Vec<ChatMessage>> {
        self.messages.take()
    }

    fn entry(&self, key: &str) -> Result<&SchemaEntry, StateError> {
        self.schema.get(key).ok_or_else(|| self.unknown_key(key))
    }

    fn unknown_key(&self, key: &str) -> StateError {
        StateError::UnknownKey {
            key: key.to_owned(),
            schema: self
                .schema
                .keys()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

fn invalid(key: &str, error: impl std::fmt::Display) -> StateError {
    StateError::InvalidValue {
        key: key.to_owned(),
        message: error.to_string(),
    }
}

/// A list of messages, or one message (which `merge_lists` would wrap).
fn parse_messages(value: Value) -> Result<Vec<ChatMessage>, MessageFormatError> {
    match value {
        Value::Array(items) => items.iter().map(ChatMessage::from_value).collect(),
        other => ChatMessage::from_value(&other).map(|m| vec![m]),
    }
}

pub(crate) fn with_messages_key(mut schema: StateSchema) -> StateSchema {
    if !schema.contains(keys::MESSAGES) {
        schema.insert(
            keys::MESSAGES,
            SchemaEntry {
                ty: ValueType::ChatMessages,
                handler: Some(Handler::MergeLists),
            },
        );
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state() -> State {
        State::new(
            StateSchema::new()
                .key("notes", ValueType::List)
                .key("best", ValueType::Int),
        )
    }

    #[test]
    fn set_on_an_unknown_key_names_the_key() {
        let err = state().set("nope", json!(1)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "State: Key 'nope' not found in schema. Schema: ['notes', 'best', 'messages']"
        );
    }

    #[test]
    fn a_list_key_defaults_to_merge_and_a_scalar_key_to_replace() {
        let mut s = state();
        s.set("notes", json!(["a"])).unwrap();
        s.set("notes", json!(null)).unwrap();
        s.set("best", json!(1)).unwrap();
        s.set("best", json!(2)).unwrap();
        assert_eq!(s.get("notes"), Some(json!(["a", null])));
        assert_eq!(s.get("best"), Some(json!(2)));
    }

    #[test]
    fn handler_override_replaces_a_list() {
        let mut s = state();
        s.set("notes", json!(["a"])).unwrap();
        s.set_with("notes", json!(["b"]), &Handler::ReplaceValues)
            .unwrap();
        assert_eq!(s.get("notes"), Some(json!(["b"])));
    }

    #[test]
    fn get_returns_a_copy_and_data_mut_is_live() {
        let mut s = state();
        s.set("notes", json!(["a"])).unwrap();
        let mut copy = s.get("notes").unwrap();
        copy.as_array_mut().unwrap().push(json!("x"));
        assert_eq!(s.get("notes"), Some(json!(["a"])));
        s.data_mut()["notes"]
            .as_array_mut()
            .unwrap()
            .push(json!("y"));
        assert_eq!(s.get("notes"), Some(json!(["a", "y"])));
    }

    #[test]
    fn setting_messages_with_a_single_message_appends_it() {
        let mut s = state();
        s.append_messages(vec![ChatMessage::from_user("a")])
            .unwrap();
        s.set(keys::MESSAGES, ChatMessage::from_system("b").to_value())
            .unwrap();
        assert_eq!(s.messages().len(), 2);
        assert_eq!(s.messages()[1].text(), Some("b"));
    }

    #[test]
    fn a_messages_key_redefined_with_replace_values_replaces_on_every_append() {
        let schema = StateSchema::new().key_with_handler(
            keys::MESSAGES,
            ValueType::ChatMessages,
            Handler::ReplaceValues,
        );
        let mut s = State::new(schema);
        s.append_messages(vec![ChatMessage::from_user("a")])
            .unwrap();
        s.append_messages(vec![ChatMessage::from_user("b")])
            .unwrap();
        assert_eq!(s.messages().len(), 1);
    }

    #[test]
    fn set_with_on_an_unknown_key_fails_as_set_does() {
        let err = state()
            .set_with("nope", json!(1), &Handler::ReplaceValues)
            .unwrap_err();
        assert!(matches!(err, StateError::UnknownKey { key, .. } if key == "nope"));
    }

    #[test]
    fn replace_messages_drops_the_conversation_so_far() {
        let mut s = state();
        s.append_messages(vec![ChatMessage::from_user("a")])
            .unwrap();
        s.replace_messages(vec![ChatMessage::from_user("b")]);
        assert_eq!(s.messages().len(), 1);
        assert_eq!(s.messages()[0].text(), Some("b"));
    }

    #[test]
    fn step_count_reads_only_an_integer() {
        let mut s = state();
        assert_eq!(s.step_count(), None);
        s.put(keys::STEP_COUNT, json!(3));
        assert_eq!(s.step_count(), Some(3));
        s.put(keys::STEP_COUNT, json!(2.5));
        assert_eq!(s.step_count(), None);
    }

    #[test]
    fn exit_reason_is_none_until_a_value_that_is_not_null_is_set() {
        let mut s = state();
        assert_eq!(s.exit_reason(), None);
        s.put(keys::EXIT_REASON, Value::Null);
        assert_eq!(s.exit_reason(), None);
        s.put(keys::EXIT_REASON, json!("text"));
        assert_eq!(s.exit_reason(), Some(&json!("text")));
    }

    #[test]
    fn tool_call_count_reads_the_count_or_zero() {
        let mut s = state();
        assert_eq!(s.tool_call_count("search"), 0);
        s.put(keys::TOOL_CALL_COUNTS, json!({"search": 2}));
        assert_eq!(s.tool_call_count("search"), 2);
        assert_eq!(s.tool_call_count("fetch"), 0);
    }

    #[test]
    fn a_hook_context_that_is_not_a_map_shows_until_a_map_replaces_it() {
        let mut s = State::new(StateSchema::new().key(keys::HOOK_CONTEXT, ValueType::Dict));
        assert_eq!(s.hook_context_other(), None);
        s.set(keys::HOOK_CONTEXT, json!("x")).unwrap();
        assert_eq!(s.hook_context_other(), Some(&json!("x")));
        s.hook_context_mut();
        assert_eq!(s.hook_context_other(), None);
        assert_eq!(s.get(keys::HOOK_CONTEXT), Some(json!({})));
    }

    #[test]
    fn debug_shows_the_conversation_the_data_and_the_hook_context() {
        let mut s = state();
        s.append_messages(vec![ChatMessage::from_user("hi")])
            .unwrap();
        s.set("best", json!(1)).unwrap();
        let shown = format!("{s:?}");
        assert!(shown.starts_with("State { messages: Some(["), "{shown}");
        assert!(
            shown.ends_with(r#"data: {"best": Number(1)}, hook_context: None, .. }"#),
            "{shown}"
        );
    }

    #[test]
    fn get_messages_gives_the_conversation_in_to_dict_form() {
        let mut s = state();
        assert_eq!(s.get(keys::MESSAGES), None);
        s.append_messages(vec![ChatMessage::from_user("hi")])
            .unwrap();
        assert_eq!(
            s.get(keys::MESSAGES),
            Some(json!([{"role": "user", "meta": {}, "name": null, "content": [{"text": "hi"}]}]))
        );
    }

    #[test]
    fn has_counts_a_key_holding_null() {
        let mut s = state();
        assert!(!s.has("best"));
        s.set("best", Value::Null).unwrap();
        assert!(s.has("best"));
    }
}
