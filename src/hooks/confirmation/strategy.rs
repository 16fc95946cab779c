//! Turning a pending call into a decision: [`ConfirmationStrategy`] and
//! Haystack's [`BlockingConfirmationStrategy`].

use super::decision::ToolExecutionDecision;
use super::policy::{ConfirmationPolicy, confirmation_policy_from_value};
use super::ui::{ConfirmationRequest, ConfirmationUI, confirmation_ui_from_value};
use crate::future::BoxFuture;
use crate::hook::HookError;
use crate::hooks::component::{FromValueError, component, format_error, open, type_of};
use crate::state::HookContext;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Haystack's `REJECTION_FEEDBACK_TEMPLATE`.
pub const REJECTION_FEEDBACK_TEMPLATE: &str =
    "Tool execution for '{tool_name}' was rejected by the user.";
/// Haystack's `MODIFICATION_FEEDBACK_TEMPLATE`.
pub const MODIFICATION_FEEDBACK_TEMPLATE: &str =
    "The parameters for tool '{tool_name}' were updated by the user to:\n{final_tool_params}";
/// Haystack's `USER_FEEDBACK_TEMPLATE`.
pub const USER_FEEDBACK_TEMPLATE: &str = "With user feedback: {feedback}";

/// Decides what happens to one pending tool call. `context` is the run's
/// `hook_context` (request-scoped resources: a channel, a queue), shared,
/// never copied.
pub trait ConfirmationStrategy: Send + Sync + 'static {
    /// The decision for this call.
    fn run(
        &self,
        request: &ConfirmationRequest<'_>,
        context: Option<&HookContext>,
    ) -> Result<ToolExecutionDecision, HookError>;

    /// The decision on the async path (defaults to [`run`](Self::run)).
    fn run_async<'a>(
        &'a self,
        request: &'a ConfirmationRequest<'a>,
        context: Option<&'a HookContext>,
    ) -> BoxFuture<'a, Result<ToolExecutionDecision, HookError>> {
        Box::pin(std::future::ready(self.run(request, context)))
    }

    /// The serialized form.
    fn to_value(&self) -> Value {
        component(std::any::type_name::<Self>(), Map::new())
    }
}

/// Haystack's `BlockingConfirmationStrategy`: asks the UI when the policy
/// says so, then confirms, modifies (with only the new parameters) or
/// rejects, with Haystack's feedback texts.
#[derive(Clone)]
pub struct BlockingConfirmationStrategy {
    policy: Arc<dyn ConfirmationPolicy>,
    ui: Arc<dyn ConfirmationUI>,
    reject_template: String,
    modify_template: String,
    user_feedback_template: String,
}

impl BlockingConfirmationStrategy {
    /// The qualified class name.
    pub const TYPE: &'static str =
        "haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy";

    /// A strategy with Haystack's default templates.
    pub fn new(policy: impl ConfirmationPolicy, ui: impl ConfirmationUI) -> Self {
        Self::shared(Arc::new(policy), Arc::new(ui))
    }

    /// A strategy over shared parts.
    pub fn shared(policy: Arc<dyn ConfirmationPolicy>, ui: Arc<dyn ConfirmationUI>) -> Self {
        BlockingConfirmationStrategy {
            policy,
            ui,
            reject_template: REJECTION_FEEDBACK_TEMPLATE.into(),
            modify_template: MODIFICATION_FEEDBACK_TEMPLATE.into(),
            user_feedback_template: USER_FEEDBACK_TEMPLATE.into(),
        }
    }

    /// Sets the three templates (Python `str.format` syntax).
    pub fn templates(
        mut self,
        reject: impl Into<String>,
        modify: impl Into<String>,
        user_feedback: impl Into<String>,
    ) -> Self {
        self.reject_template = reject.into();
        self.modify_template = modify.into();
        self.user_feedback_template = user_feedback.into();
        self
    }

    /// Reads the serialized form.
    pub fn from_value(value: &Value, path: &str) -> Result<Self, FromValueError> {
        let init = open(value, Self::TYPE, path)?;
        init.only(&[
            "confirmation_policy",
            "confirmation_ui",
            "reject_template",
            "modify_template",
            "user_feedback_template",
        ])?;
        let policy = confirmation_policy_from_value(
            init.required("confirmation_policy")?,
            &init.at("confirmation_policy"),
        )?;
        let ui = confirmation_ui_from_value(
            init.required("confirmation_ui")?,
            &init.at("confirmation_ui"),
        )?;
        Ok(Self::shared(policy, ui).templates(
            init.string("reject_template", REJECTION_FEEDBACK_TEMPLATE)?,
            init.string("modify_template", MODIFICATION_FEEDBACK_TEMPLATE)?,
            init.string("user_feedback_template", USER_FEEDBACK_TEMPLATE)?,
        ))
    }

    fn with_user_feedback(
        &self,
        mut text: String,
        feedback: Option<&str>,
    ) -> Result<String, HookError> {
        if let Some(feedback) = feedback.filter(|f| !f.is_empty()) {
            text.push(' ');
            text.push_str(&py_format(
                &self.user_feedback_template,
                &[("feedback", &Value::String(feedback.to_owned()))],
            )?);
        }
        Ok(text)
    }
}

impl ConfirmationStrategy for BlockingConfirmationStrategy {
    fn run(
        &self,
        request: &ConfirmationRequest<'_>,
        _context: Option<&HookContext>,
    ) -> Result<ToolExecutionDecision, HookError> {
        let name = request.tool_name;
        let decision = |execute, feedback, params| ToolExecutionDecision {
            tool_name: name.to_owned(),
            execute,
            tool_call_id: request.tool_call_id.map(str::to_owned),
            feedback,
            final_tool_params: params,
        };
        if !self
            .policy
            .should_ask(name, request.tool_description, request.tool_params)
        {
            return Ok(decision(true, None, Some(request.tool_params.clone())));
        }
        let answer = self
            .ui
            .get_user_confirmation(request)
            .map_err(|e| HookError::new(e.to_string()))?;
        self.policy.update_after_confirmation(
            name,
            request.tool_description,
            request.tool_params,
            &answer,
        );
        if answer.action == "reject" {
            let text = py_format(
                &self.reject_template,
                &[("tool_name", &Value::String(name.to_owned()))],
            )?;
            let text = self.with_user_feedback(text, answer.feedback.as_deref())?;
            return Ok(decision(false, Some(text), None));
        }
        if answer.action == "modify"
            && let Some(params) = answer.new_tool_params.as_ref().filter(|p| !p.is_empty())
        {
            let text = py_format(
                &self.modify_template,
                &[
                    ("tool_name", &Value::String(name.to_owned())),
                    ("final_tool_params", &Value::Object(params.clone())),
                ],
            )?;
            let text = self.with_user_feedback(text, answer.feedback.as_deref())?;
            return Ok(decision(true, Some(text), Some(params.clone())));
        }
        Ok(decision(true, None, Some(request.tool_params.clone())))
    }

    fn to_value(&self) -> Value {
        let mut init = Map::new();
        init.insert("confirmation_policy".into(), self.policy.to_value());
        init.insert("confirmation_ui".into(), self.ui.to_value());
        init.insert(
            "reject_template".into(),
            Value::String(self.reject_template.clone()),
        );
        init.insert(
            "modify_template".into(),
            Value::String(self.modify_template.clone()),
        );
        init.insert(
            "user_feedback_template".into(),
            Value::String(self.user_feedback_template.clone()),
        );
        component(Self::TYPE, init)
    }
}

/// Reads a serialized strategy of a known type.
pub fn confirmation_strategy_from_value(
    value: &Value,
    path: &str,
) -> Result<Arc<dyn ConfirmationStrategy>, FromValueError> {
    match type_of(value, path)? {
        BlockingConfirmationStrategy::TYPE => Ok(Arc::new(
            BlockingConfirmationStrategy::from_value(value, path)?,
        )),
        other => Err(format_error(
            format!("{path}.type"),
            format!(
                "unknown confirmation strategy type `{other}` at `{path}`; known: `{}`",
                BlockingConfirmationStrategy::TYPE
            ),
        )),
    }
}

/// Python's `template.format(**fields)`, Python's exception as the hook's
/// error.
pub(crate) fn py_format(template: &str, fields: &[(&str, &Value)]) -> Result<String, HookError> {
    crate::pyfmt::format(template, fields).map_err(|e| HookError::new(e.to_string()))
}
