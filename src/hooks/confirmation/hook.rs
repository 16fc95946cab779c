//! `ConfirmationHook`: confirm, modify or reject the pending tool calls.

use super::decision::ToolExecutionDecision;
use super::strategy::{
    ConfirmationStrategy, MODIFICATION_FEEDBACK_TEMPLATE, REJECTION_FEEDBACK_TEMPLATE,
    confirmation_strategy_from_value, py_format,
};
use super::ui::ConfirmationRequest;
use crate::hook::{Hook, HookError, HookFuture, HookPoint};
use crate::hooks::component::{FromValueError, Init, component, open};
use crate::hooks::tool_keys::{ToolKey, lookup};
use crate::message::{ChatMessage, ChatRole, ContentPart, ToolCall};
use crate::pyfmt::repr;
use crate::state::{HookContext, State};
use crate::value::json_eq;
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Haystack's `ConfirmationHook` (a `before_tool` hook).
///
/// For each call on the last message, the strategy of its tool (exact name,
/// then a tuple holding it, then `"*"`) decides: **confirm** keeps the call;
/// **modify** runs it with the new arguments after a user message saying so;
/// **reject** replaces it with an assistant message holding only that call
/// and an error tool result with the feedback. Calls to unknown tools and
/// tools without a strategy pass through.
///
/// ```
/// use hookharness::hooks::confirmation::{AlwaysAskPolicy, BlockingConfirmationStrategy, ConfirmationHook, ConfirmationUIResult, ScriptedConfirmationUI};
///
/// let ui = ScriptedConfirmationUI::new([ConfirmationUIResult::new("reject").with_feedback("not now")]);
/// let hook = ConfirmationHook::new().strategy("delete_file", BlockingConfirmationStrategy::new(AlwaysAskPolicy, ui));
/// let again = ConfirmationHook::from_value(&hook.to_value()).unwrap();
/// assert_eq!(again.to_value(), hook.to_value());
/// ```
#[derive(Clone, Default)]
pub struct ConfirmationHook {
    strategies: Vec<(ToolKey, Arc<dyn ConfirmationStrategy>)>,
}

impl std::fmt::Debug for ConfirmationHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfirmationHook")
            .field(
                "strategies",
                &self.strategies.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// One pending call and what to ask about it.
struct Pending {
    call: ToolCall,
    description: Option<String>,
    strategy: Option<Arc<dyn ConfirmationStrategy>>,
}

impl ConfirmationHook {
    /// The qualified class name.
    pub const TYPE: &'static str = "haystack.hooks.human_in_the_loop.hooks.ConfirmationHook";

    /// A hook with no strategies (every call passes).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the strategy of a tool name, a tuple of names, or `"*"`.
    pub fn strategy(
        mut self,
        key: impl Into<ToolKey>,
        strategy: impl ConfirmationStrategy,
    ) -> Self {
        self.insert(key.into(), Arc::new(strategy));
        self
    }

    fn insert(&mut self, key: ToolKey, strategy: Arc<dyn ConfirmationStrategy>) {
        match self.strategies.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = strategy,
            None => self.strategies.push((key, strategy)),
        }
    }

    /// The serialized form (Haystack's `to_dict`).
    pub fn to_value(&self) -> Value {
        let strategies: Map<String, Value> = self
            .strategies
            .iter()
            .map(|(key, strategy)| (key.to_key_string(), strategy.to_value()))
            .collect();
        let mut init = Map::new();
        init.insert("confirmation_strategies".into(), Value::Object(strategies));
        component(Self::TYPE, init)
    }

    /// Reads the serialized form (Haystack's `from_dict`).
    pub fn from_value(value: &Value) -> Result<Self, FromValueError> {
        Self::from_init(&open(value, Self::TYPE, "confirmation")?)
    }

    /// Reads the constructor parameters (a scenario's `confirmation:` entry).
    pub fn from_params(params: &Value) -> Result<Self, FromValueError> {
        Self::from_init(&Init::direct(params, "confirmation")?)
    }

    fn from_init(init: &Init<'_>) -> Result<Self, FromValueError> {
        init.only(&["confirmation_strategies"])?;
        init.required("confirmation_strategies")?;
        let mut hook = Self::new();
        for (raw, strategy) in init.map("confirmation_strategies")?.into_iter().flatten() {
            let path = format!("{}.{raw}", init.at("confirmation_strategies"));
            hook.insert(
                ToolKey::parse(raw)?,
                confirmation_strategy_from_value(strategy, &path)?,
            );
        }
        Ok(hook)
    }

    /// The calls of the last message, or `None` when there is nothing to do.
    fn pending(&self, state: &State) -> Option<Vec<Pending>> {
        let last = state.messages().last()?;
        if !last.has_tool_calls() || self.strategies.is_empty() {
            return None;
        }
        Some(
            last.tool_calls()
                .map(|call| {
                    let tool = state
                        .tools()
                        .iter()
                        .find(|t| t.spec().name == call.tool_name);
                    Pending {
                        call: call.clone(),
                        description: tool.map(|t| t.spec().description.clone()),
                        strategy: tool.and(lookup(&self.strategies, &call.tool_name).cloned()),
                    }
                })
                .collect(),
        )
    }

    fn request<'a>(pending: &'a Pending) -> ConfirmationRequest<'a> {
        ConfirmationRequest {
            tool_name: &pending.call.tool_name,
            tool_description: pending.description.as_deref().unwrap_or_default(),
            tool_params: &pending.call.arguments,
            tool_call_id: pending.call.id.as_deref(),
        }
    }
}

/// The decision when no strategy is asked: run the call as it is.
fn passthrough(call: &ToolCall) -> ToolExecutionDecision {
    let mut decision =
        ToolExecutionDecision::execute(call.tool_name.clone(), call.arguments.clone());
    decision.tool_call_id = call.id.clone();
    decision
}

/// Haystack's `_bind_decision_to_tool_call`.
fn bind(mut decision: ToolExecutionDecision, call: &ToolCall) -> ToolExecutionDecision {
    decision.tool_call_id = call.id.clone();
    decision
}

fn classify(call: &ToolCall, decision: &ToolExecutionDecision) -> &'static str {
    if !decision.execute {
        return "reject";
    }
    let final_params = Value::Object(decision.final_tool_params.clone().unwrap_or_default());
    if !json_eq(&Value::Object(call.arguments.clone()), &final_params) {
        return "modify";
    }
    "confirm"
}

fn strategy_span(pending: &Pending) -> tracing::Span {
    tracing::info_span!(
        "haystack.agent.hook.human_in_the_loop.strategy",
        haystack.tool.name = %pending.call.tool_name,
        haystack.tool.call.id = pending.call.id.as_deref().unwrap_or(""),
        haystack.agent.hook.human_in_the_loop.strategy.decision = tracing::field::Empty,
    )
}

impl Hook for ConfirmationHook {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let Some(pending) = self.pending(state) else {
            return Ok(());
        };
        let context = state.hook_context();
        let mut decisions = Vec::with_capacity(pending.len());
        for p in &pending {
            let decision = match &p.strategy {
                None => passthrough(&p.call),
                Some(strategy) => {
                    let span = strategy_span(p);
                    let _entered = span.enter();
                    let decision = bind(strategy.run(&Self::request(p), context)?, &p.call);
                    span.record(
                        "haystack.agent.hook.human_in_the_loop.strategy.decision",
                        classify(&p.call, &decision),
                    );
                    decision
                }
            };
            decisions.push(decision);
        }
        apply(state, decisions)
    }

    fn run_async<'a>(&'a self, state: &'a mut State) -> HookFuture<'a> {
        HookFuture::new(async move {
            let Some(pending) = self.pending(state) else {
                return Ok(());
            };
            let context: Option<HookContext> = state.hook_context().cloned();
            let mut decisions = Vec::with_capacity(pending.len());
            for p in &pending {
                let decision = match &p.strategy {
                    None => passthrough(&p.call),
                    Some(strategy) => {
                        let request = Self::request(p);
                        bind(
                            strategy.run_async(&request, context.as_ref()).await?,
                            &p.call,
                        )
                    }
                };
                decisions.push(decision);
            }
            apply(state, decisions)
        })
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::BeforeTool])
    }
}

/// Haystack's `_apply_tool_execution_decisions` and `_update_chat_history`
/// on the last message.
fn apply(state: &mut State, decisions: Vec<ToolExecutionDecision>) -> Result<(), HookError> {
    let messages = state.messages();
    let Some(last) = messages.last() else {
        return Ok(());
    };
    let calls: Vec<&ToolCall> = last.tool_calls().collect();
    if calls.len() != decisions.len() {
        return Err(HookError::new(format!(
            "Expected one ToolExecutionDecision for each tool call, but received {} decisions for {} tool calls.",
            decisions.len(),
            calls.len()
        )));
    }
    // Python dicts: a later decision under the same key wins.
    let mut by_id: IndexMap<String, ToolExecutionDecision> = IndexMap::new();
    let mut by_name: IndexMap<String, ToolExecutionDecision> = IndexMap::new();
    for decision in decisions {
        match decision.tool_call_id.clone().filter(|id| !id.is_empty()) {
            Some(id) => {
                by_id.insert(id, decision);
            }
            None if !decision.tool_name.is_empty() => {
                by_name.insert(decision.tool_name.clone(), decision);
            }
            None => {}
        }
    }
    let mut rejections = Vec::new();
    let mut kept_messages = Vec::new();
    let mut kept_calls = Vec::new();
    for call in calls {
        let decision = by_id
            .shift_remove(call.id.as_deref().unwrap_or_default())
            .or_else(|| by_name.shift_remove(&call.tool_name))
            .ok_or_else(|| {
                let id = call.id.clone().map_or(Value::Null, Value::String);
                HookError::new(format!(
                    "No unused ToolExecutionDecision matches tool call {} with ID {}. \
                     Set tool_call_id to match decisions to tool calls reliably.",
                    repr(&Value::String(call.tool_name.clone())),
                    repr(&id)
                ))
            })?;
        let kind = classify(call, &decision);
        let final_params = decision.final_tool_params.clone().unwrap_or_default();
        let feedback = decision.feedback.clone().filter(|f| !f.is_empty());
        if kind == "reject" {
            let text = match feedback {
                Some(text) => text,
                None => py_format(
                    REJECTION_FEEDBACK_TEMPLATE,
                    &[("tool_name", &Value::String(call.tool_name.clone()))],
                )?,
            };
            rejections.push(assistant_like(last, vec![call.clone()]));
            rejections.push(ChatMessage::from_tool(text, call.clone(), true));
            continue;
        }
        if kind == "modify" {
            let text = match feedback {
                Some(text) => text,
                None => py_format(
                    MODIFICATION_FEEDBACK_TEMPLATE,
                    &[
                        ("tool_name", &Value::String(call.tool_name.clone())),
                        ("final_tool_params", &Value::Object(final_params.clone())),
                    ],
                )?,
            };
            kept_messages.push(ChatMessage::from_user(text));
        }
        let mut call = call.clone();
        call.arguments = final_params;
        kept_calls.push(call);
    }
    if !kept_calls.is_empty() {
        kept_messages.push(assistant_like(last, kept_calls));
    }
    let mut history = messages[..messages.len() - 1].to_vec();
    history.extend(rejections);
    history.extend(kept_messages);
    state.replace_messages(history);
    Ok(())
}

/// `ChatMessage.from_assistant(text=m.text, meta=m.meta, name=m.name,
/// tool_calls=calls, reasoning=m.reasoning)`.
fn assistant_like(message: &ChatMessage, calls: Vec<ToolCall>) -> ChatMessage {
    let mut content = Vec::with_capacity(calls.len() + 2);
    content.extend(
        message
            .content()
            .iter()
            .find(|p| matches!(p, ContentPart::Other { kind, .. } if kind == "reasoning"))
            .cloned(),
    );
    content.extend(message.text().map(|t| ContentPart::Text(t.to_owned())));
    content.extend(
        calls
            .into_iter()
            .map(|call| ContentPart::ToolCall(Arc::new(call))),
    );
    let mut new = ChatMessage::new(ChatRole::Assistant, content).with_meta(message.meta().clone());
    if let Some(name) = message.name() {
        new = new.with_name(name);
    }
    new
}
