//! Asking the user: [`ConfirmationUI`] and a scripted UI for scenarios.

use super::decision::ConfirmationUIResult;
use super::ui_error::ConfirmationUIError;
use crate::hooks::component::{FromValueError, component, format_error, open, type_of};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The call the user is asked about.
#[derive(Debug, Clone, Copy)]
pub struct ConfirmationRequest<'a> {
    /// The tool's name.
    pub tool_name: &'a str,
    /// The tool's description.
    pub tool_description: &'a str,
    /// The arguments the model asked for.
    pub tool_params: &'a Map<String, Value>,
    /// The call's id (not passed to UIs by Haystack; given here for messages).
    pub tool_call_id: Option<&'a str>,
}

/// Asks the user to confirm, modify or reject a tool call.
///
/// ```
/// use hookharness::hooks::confirmation::{
///     ConfirmationRequest, ConfirmationUI, ConfirmationUIError, ConfirmationUIResult,
/// };
///
/// /// Confirms read-only tools and refuses to decide for the others.
/// struct ReadOnly;
///
/// impl ConfirmationUI for ReadOnly {
///     fn get_user_confirmation(
///         &self,
///         request: &ConfirmationRequest<'_>,
///     ) -> Result<ConfirmationUIResult, ConfirmationUIError> {
///         if request.tool_name.starts_with("get_") {
///             Ok(ConfirmationUIResult::new("confirm"))
///         } else {
///             Err(format!("no one to ask about `{}`", request.tool_name).into())
///         }
///     }
/// }
/// # let params = serde_json::Map::new();
/// # let request = ConfirmationRequest { tool_name: "delete", tool_description: "", tool_params: &params, tool_call_id: None };
/// # assert_eq!(ReadOnly.get_user_confirmation(&request).unwrap_err().message(), "no one to ask about `delete`");
/// ```
pub trait ConfirmationUI: Send + Sync + 'static {
    /// The user's answer; an error fails the hook, and the run.
    fn get_user_confirmation(
        &self,
        request: &ConfirmationRequest<'_>,
    ) -> Result<ConfirmationUIResult, ConfirmationUIError>;

    /// The serialized form.
    fn to_value(&self) -> Value {
        component(std::any::type_name::<Self>(), Map::new())
    }
}

/// A UI that gives scripted answers in order; asking once more than
/// scripted is an error that names the call. Not part of Haystack.
///
/// ```
/// use hookharness::hooks::confirmation::{ConfirmationRequest, ConfirmationUI, ConfirmationUIResult, ScriptedConfirmationUI};
/// use serde_json::Map;
///
/// let ui = ScriptedConfirmationUI::new([ConfirmationUIResult::new("confirm")]);
/// let params = Map::new();
/// let request = ConfirmationRequest { tool_name: "search", tool_description: "", tool_params: &params, tool_call_id: Some("c1") };
/// assert_eq!(ui.get_user_confirmation(&request).unwrap().action, "confirm");
/// assert_eq!(
///     ui.get_user_confirmation(&request).unwrap_err().to_string(),
///     "the scripted confirmation UI has no answer left for the call to `search`: it scripts 1 answer (call id `c1`)"
/// );
/// ```
#[derive(Debug)]
pub struct ScriptedConfirmationUI {
    answers: Vec<ConfirmationUIResult>,
    next: AtomicUsize,
}

impl ScriptedConfirmationUI {
    /// The qualified class name in the serialized form.
    pub const TYPE: &'static str = "hookharness.hooks.confirmation.ScriptedConfirmationUI";

    /// A UI answering `answers` in order.
    pub fn new(answers: impl IntoIterator<Item = ConfirmationUIResult>) -> Self {
        ScriptedConfirmationUI {
            answers: answers.into_iter().collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// How many answers were given.
    pub fn used(&self) -> usize {
        self.next.load(Ordering::SeqCst).min(self.answers.len())
    }

    /// Reads the serialized form: `init_parameters: {answers: [{action,
    /// feedback?, new_tool_params?}]}`, `action` being `confirm`, `modify`
    /// or `reject` (any other is an error: Haystack's strategy would run
    /// the call).
    pub fn from_value(value: &Value, path: &str) -> Result<Self, FromValueError> {
        let init = open(value, Self::TYPE, path)?;
        init.only(&["answers"])?;
        let Value::Array(items) = init.required("answers")? else {
            return Err(format_error(
                init.at("answers"),
                format!("`{}` must be a list", init.at("answers")),
            ));
        };
        let mut answers = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = format!("{}[{i}]", init.at("answers"));
            let answer = crate::hooks::component::Init::direct(item, &at)?;
            answer.only(&["action", "feedback", "new_tool_params"])?;
            let action = answer.required_one_of("action", &ACTIONS)?;
            answers.push(ConfirmationUIResult {
                action: action.to_owned(),
                feedback: answer.opt_string("feedback", None)?,
                new_tool_params: answer.map("new_tool_params")?.cloned(),
            });
        }
        Ok(Self::new(answers))
    }
}

impl ConfirmationUI for ScriptedConfirmationUI {
    fn get_user_confirmation(
        &self,
        request: &ConfirmationRequest<'_>,
    ) -> Result<ConfirmationUIResult, ConfirmationUIError> {
        let index = self.next.fetch_add(1, Ordering::SeqCst);
        self.answers.get(index).cloned().ok_or_else(|| {
            // The call's id comes last: the text before it is what a UI
            // written against Haystack's protocol (which is not given the id)
            // can say, so the reference runner's text is kept whole inside.
            let id = request
                .tool_call_id
                .map_or_else(String::new, |id| format!(" (call id `{id}`)"));
            let n = self.answers.len();
            ConfirmationUIError::new(format!(
                "{NO_ANSWER_LEFT} for the call to `{}`: it scripts {n} answer{}{id}",
                request.tool_name,
                if n == 1 { "" } else { "s" }
            ))
        })
    }

    fn to_value(&self) -> Value {
        let answers = self
            .answers
            .iter()
            .map(|a| {
                let mut map = Map::new();
                map.insert("action".into(), Value::String(a.action.clone()));
                if let Some(feedback) = &a.feedback {
                    map.insert("feedback".into(), Value::String(feedback.clone()));
                }
                if let Some(params) = &a.new_tool_params {
                    map.insert("new_tool_params".into(), Value::Object(params.clone()));
                }
                Value::Object(map)
            })
            .collect();
        let mut init = Map::new();
        init.insert("answers".into(), Value::Array(answers));
        component(Self::TYPE, init)
    }
}

/// The start of the error of a scripted UI asked once more than it has
/// answers.
pub(crate) const NO_ANSWER_LEFT: &str = "the scripted confirmation UI has no answer left";

/// The actions a scripted answer takes: Haystack's UIs answer these, and its
/// strategy runs the call for any other (so a typo would approve it).
const ACTIONS: [&str; 3] = ["confirm", "modify", "reject"];

/// Reads a serialized UI of a known type.
pub fn confirmation_ui_from_value(
    value: &Value,
    path: &str,
) -> Result<Arc<dyn ConfirmationUI>, FromValueError> {
    match type_of(value, path)? {
        ScriptedConfirmationUI::TYPE => {
            Ok(Arc::new(ScriptedConfirmationUI::from_value(value, path)?))
        }
        super::SimpleConsoleUI::TYPE => {
            Ok(Arc::new(super::SimpleConsoleUI::from_value(value, path)?))
        }
        other => Err(format_error(
            format!("{path}.type"),
            format!(
                "unknown confirmation UI type `{other}` at `{path}`; known: `{}`, `{}`",
                ScriptedConfirmationUI::TYPE,
                super::SimpleConsoleUI::TYPE
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(action: &str) -> Result<ScriptedConfirmationUI, FromValueError> {
        let value = json!({
            "type": ScriptedConfirmationUI::TYPE,
            "init_parameters": {"answers": [{"action": "confirm"}, {"action": action}]}
        });
        ScriptedConfirmationUI::from_value(&value, "ui")
    }

    #[test]
    fn an_action_close_to_one_of_the_three_names_it() {
        assert_eq!(
            read("rejected").unwrap_err().to_string(),
            "invalid value `rejected` for `ui.init_parameters.answers[1].action`; \
             did you mean `reject`? (valid: `confirm`, `modify`, `reject`)"
        );
    }

    #[test]
    fn modify_without_new_parameters_is_an_answer() {
        assert_eq!(read("modify").unwrap().answers[1].action, "modify");
    }
}
