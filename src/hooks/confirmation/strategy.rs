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
                &[("feedback", Field::Str(feedback))],
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
            .map_err(HookError::new)?;
        self.policy.update_after_confirmation(
            name,
            request.tool_description,
            request.tool_params,
            &answer,
        );
        if answer.action == "reject" {
            let text = py_format(&self.reject_template, &[("tool_name", Field::Str(name))])?;
            let text = self.with_user_feedback(text, answer.feedback.as_deref())?;
            return Ok(decision(false, Some(text), None));
        }
        if answer.action == "modify"
            && let Some(params) = answer.new_tool_params.as_ref().filter(|p| !p.is_empty())
        {
            let shown = crate::pyfmt::repr(&Value::Object(params.clone()));
            let text = py_format(
                &self.modify_template,
                &[
                    ("tool_name", Field::Str(name)),
                    ("final_tool_params", Field::Object(&shown)),
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
        other => Err(format_error(format!(
            "unknown confirmation strategy type `{other}` at `{path}`; known: `{}`",
            BlockingConfirmationStrategy::TYPE
        ))),
    }
}

/// Python's `template.format(**fields)` over string fields: `{name}`,
/// conversions `!s`, `!r`, `!a`, string format specs
/// (`[[fill]align][width][.precision][s]`) and `{{`/`}}` escapes, with
/// Python's errors (a missing field is its `KeyError`). Field lookups with
/// `[key]` or `.attr` are not supported and fail as a missing field.
pub(crate) fn py_format(template: &str, fields: &[(&str, Field<'_>)]) -> Result<String, HookError> {
    let mut out = String::with_capacity(template.len());
    let mut chars = template.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut field = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    field.push(c);
                }
                if !closed {
                    return Err(HookError::new(
                        "ValueError: expected '}' before end of string",
                    ));
                }
                out.push_str(&replacement(&field, fields)?);
            }
            '}' => {
                return Err(HookError::new(
                    "ValueError: Single '}' encountered in format string",
                ));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

/// A template field's value: a Python `str`, or another object given as its
/// rendering (for a dict, `str()` and `repr()` are the same text).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Field<'a> {
    /// A `str`.
    Str(&'a str),
    /// Any other object, as `str(obj)` renders it (equal to its `repr`).
    Object(&'a str),
}

/// One `{field!conversion:spec}`.
fn replacement(field: &str, fields: &[(&str, Field<'_>)]) -> Result<String, HookError> {
    let (head, spec) = field.split_once(':').unwrap_or((field, ""));
    let (name, conversion) = match head.split_once('!') {
        Some((name, conversion)) => (name, Some(conversion)),
        None => (head, None),
    };
    if name.is_empty() {
        return Err(HookError::new(
            "IndexError: Replacement index 0 out of range for positional args tuple",
        ));
    }
    let value = match fields.iter().find(|(k, _)| *k == name) {
        Some((_, value)) => *value,
        None => return Err(HookError::new(format!("KeyError: '{name}'"))),
    };
    let repr = || match value {
        Field::Str(text) => crate::pyfmt::repr(&serde_json::Value::String(text.to_owned())),
        Field::Object(text) => text.to_owned(),
    };
    let converted = match conversion {
        None | Some("s") => match value {
            Field::Str(text) | Field::Object(text) => text.to_owned(),
        },
        Some("r") => repr(),
        Some("a") => ascii(&repr()),
        Some(other) => {
            return Err(HookError::new(format!(
                "ValueError: Unknown conversion specifier {other}"
            )));
        }
    };
    if let (Field::Object(_), false, None) = (value, spec.is_empty(), conversion) {
        // `format(dict, spec)` with a non-empty spec is a TypeError in Python.
        return Err(HookError::new(
            "TypeError: unsupported format string passed to dict.__format__",
        ));
    }
    apply_spec(&converted, spec)
}

/// Python's `ascii()` on a `repr`: non-ASCII as `\x`, `\u` or `\U` escapes.
fn ascii(text: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        let code = ch as u32;
        let _ = match code {
            0..=0x7f => {
                out.push(ch);
                Ok(())
            }
            0x80..=0xff => write!(out, "\\x{code:02x}"),
            0x100..=0xffff => write!(out, "\\u{code:04x}"),
            _ => write!(out, "\\U{code:08x}"),
        };
    }
    out
}

/// A string format spec: `[[fill]align][width][.precision][s]`.
fn apply_spec(text: &str, spec: &str) -> Result<String, HookError> {
    if spec.is_empty() {
        return Ok(text.to_owned());
    }
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '^');
    let (fill, align) = if chars.len() > 1 && is_align(chars[1]) {
        i = 2;
        (chars[0], chars[1])
    } else if is_align(chars[0]) {
        i = 1;
        (' ', chars[0])
    } else {
        (' ', '<')
    };
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
        chars[start..*i]
            .iter()
            .collect::<String>()
            .parse::<usize>()
            .ok()
    };
    let width = digits(&mut i).unwrap_or(0);
    let precision = if i < chars.len() && chars[i] == '.' {
        i += 1;
        digits(&mut i)
    } else {
        None
    };
    match &chars[i..] {
        [] | ['s'] => {}
        [code] => {
            return Err(HookError::new(format!(
                "ValueError: Unknown format code '{code}' for object of type 'str'"
            )));
        }
        _ => return Err(HookError::new("ValueError: Invalid format specifier")),
    }
    let body: String = match precision {
        Some(p) => text.chars().take(p).collect(),
        None => text.to_owned(),
    };
    let pad = width.saturating_sub(body.chars().count());
    let fill_n = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    Ok(match align {
        '>' => format!("{}{body}", fill_n(pad)),
        '^' => format!("{}{body}{}", fill_n(pad / 2), fill_n(pad - pad / 2)),
        _ => format!("{body}{}", fill_n(pad)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_format_as_python_str_format() {
        let fields = [("tool_name", Field::Str("search"))];
        assert_eq!(
            py_format("'{tool_name}' {{x}}", &fields).unwrap(),
            "'search' {x}"
        );
        assert_eq!(
            py_format("{nope}", &fields).unwrap_err().message(),
            "KeyError: 'nope'"
        );
    }

    /// Expected values printed by CPython 3.11's `str.format`.
    #[test]
    fn conversions_and_string_format_specs_render_as_python_does() {
        let fields = [
            ("tool_name", Field::Str("search")),
            ("x", Field::Str("it's")),
            ("u", Field::Str("é")),
            ("params", Field::Object("{'q': 'é'}")),
        ];
        let cases = [
            ("{tool_name!r}", "'search'"),
            ("{tool_name!r:>10}", "  'search'"),
            ("{tool_name:^9}|", " search  |"),
            ("{tool_name:*<8}|", "search**|"),
            ("{tool_name:.3}", "sea"),
            ("{x!r}", "\"it's\""),
            ("{tool_name!s:>7}", " search"),
            ("{u!a}", "'\\xe9'"),
            ("{params!r}", "{'q': 'é'}"),
            ("{params!a}", "{'q': '\\xe9'}"),
        ];
        for (template, expected) in cases {
            assert_eq!(
                py_format(template, &fields).unwrap(),
                expected,
                "{template}"
            );
        }
    }

    #[test]
    fn malformed_templates_fail_with_pythons_errors() {
        let fields = [
            ("tool_name", Field::Str("search")),
            ("params", Field::Object("{}")),
        ];
        let cases = [
            (
                "{}",
                "IndexError: Replacement index 0 out of range for positional args tuple",
            ),
            ("a { b", "ValueError: expected '}' before end of string"),
            (
                "{tool_name!q}",
                "ValueError: Unknown conversion specifier q",
            ),
            (
                "{tool_name:d}",
                "ValueError: Unknown format code 'd' for object of type 'str'",
            ),
            (
                "{params:>5}",
                "TypeError: unsupported format string passed to dict.__format__",
            ),
        ];
        for (template, expected) in cases {
            assert_eq!(
                py_format(template, &fields).unwrap_err().message(),
                expected,
                "{template}"
            );
        }
    }
}
