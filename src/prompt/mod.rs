//! Prompt templates, rendered as Haystack's `ChatPromptBuilder` renders an
//! Agent's `system_prompt` and `user_prompt`.
//!
//! ```text
//!  template ─▶ wrapped in {% message role %} unless it has one ─▶ parsed (Jinja2, minijinja)
//!      run: variables ─▶ required ones checked ─▶ rendered ─▶ one message of the role
//! ```
//!
//! A prompt is plain text or one `{% message role="..." %}` block, with
//! Jinja2 syntax inside. Printed values read as Python prints them (`True`,
//! `None`, `['a', 'b']`), and the message text is stripped, as in Haystack.
//! Rendering is bounded: a template that loops or recurses without end
//! fails with an error instead of hanging.
//!
//! ```
//! use hookharness::{Agent, AgentError, ChatMessage, RunOptions, generator_fn};
//! use serde_json::json;
//!
//! let model = generator_fn(|request| {
//!     let asked = request.messages.last().and_then(|m| m.text()).unwrap_or("").to_owned();
//!     Ok(vec![ChatMessage::from_assistant(format!("echo: {asked}"))])
//! });
//! let agent = Agent::builder()
//!     .chat_generator(model)
//!     .system_prompt("You answer in {{ language }}.")
//!     .user_prompt("What is the weather in {{ city }}?")
//!     .build()?;
//! let options = RunOptions::new()
//!     .variable("language", json!("French"))
//!     .variable("city", json!("Paris"));
//! let output = agent.run(vec![], options)?;
//! assert_eq!(output.messages[0].text(), Some("You answer in French."));
//! assert_eq!(
//!     output.last_message.unwrap().text(),
//!     Some("echo: What is the weather in Paris?")
//! );
//!
//! let missing = agent.run(vec![], RunOptions::new().variable("city", json!("Paris")));
//! assert_eq!(
//!     missing.unwrap_err().to_string(),
//!     "Missing required input variables in ChatPromptBuilder: language. \
//!      Required variables: ['language']. Provided variables: set()."
//! );
//! # Ok::<(), AgentError>(())
//! ```

mod aggregate_filters;
mod arith;
mod batch_filters;
mod bound_method;
mod budget;
mod compare;
mod container_methods;
mod dict_view;
mod error;
mod for_loops;
mod generator;
mod getitem;
mod groupby;
mod iterating_filters;
mod jinja2;
mod list_filters;
mod markup;
mod message_tag;
mod named_tests;
mod namespace;
mod number_filters;
mod py_dict;
mod py_macro;
mod py_range;
mod pybytes;
mod pypercent;
mod pystr;
mod pystr_builtin;
mod pystr_unicode;
mod python_math;
mod python_sort;
mod render;
mod round_filter;
mod select_filters;
mod show;
mod signature;
mod text_filters;
mod textwrap;
mod value_filters;
#[cfg(test)]
mod variables_haystack;

pub use error::PromptError;

use crate::message::{ChatMessage, ChatRole};
use crate::pyfmt::pyset::PySet;
use minijinja::{Environment, ErrorKind};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Which template variables a run must give (Haystack's
/// `required_variables`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequiredVariables {
    /// `"*"` (the default): every variable of both prompts.
    #[default]
    All,
    /// These variables; the others render as empty text when missing.
    Listed(Vec<String>),
    /// `None`: no variable is required.
    None,
}

/// Which prompt of the Agent a template is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PromptKind {
    /// `system_prompt`, prepended to the run's messages.
    System,
    /// `user_prompt`, appended to the run's messages.
    User,
}

impl PromptKind {
    fn label(self) -> &'static str {
        match self {
            PromptKind::System => "system_prompt",
            PromptKind::User => "user_prompt",
        }
    }

    fn role(self) -> ChatRole {
        match self {
            PromptKind::System => ChatRole::System,
            PromptKind::User => ChatRole::User,
        }
    }
}

/// A parsed prompt template with its variables.
#[derive(Clone)]
pub(crate) struct Prompt {
    kind: PromptKind,
    env: Arc<Environment<'static>>,
    /// The template's variables in Haystack's order (`list(set - set)`).
    variables: Vec<String>,
    /// The required ones, in Haystack's order (sorted for `"*"`, else as listed).
    required: Vec<String>,
}

impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompt")
            .field("kind", &self.kind)
            .field("variables", &self.variables)
            .finish_non_exhaustive()
    }
}

/// Haystack's `_validate_prompt_message_blocks`, run on the raw templates
/// before anything is parsed.
pub(crate) fn validate_message_blocks(
    user: Option<&str>,
    system: Option<&str>,
) -> Result<(), PromptError> {
    for (template, kind) in [(user, PromptKind::User), (system, PromptKind::System)] {
        let Some(template) = template else { continue };
        if kind == PromptKind::System && !message_tag::has_message_tag(template) {
            continue;
        }
        let prompt = kind.label();
        let found = message_tag::count_message_tags(template);
        if found > 1 {
            return Err(PromptError::MessageBlocks { prompt, found });
        }
        let expected = kind.role();
        if let Some(role) = message_tag::first_literal_role(template) {
            if role != expected.as_str() {
                return Err(PromptError::BlockRole {
                    prompt,
                    expected,
                    found: role,
                });
            }
        }
    }
    Ok(())
}

impl Prompt {
    /// Parses a template (Haystack builds its `ChatPromptBuilder` here).
    pub(crate) fn new(
        kind: PromptKind,
        template: &str,
        required: &RequiredVariables,
    ) -> Result<Prompt, PromptError> {
        budget::check_expressions(template)?;
        let wrapped = message_tag::template_for_role(template, kind.role().as_str());
        // Jinja2 decides what does not parse, in its words, and which
        // variables the template has, in its order; minijinja renders.
        let (variables, rewritten) =
            jinja2::check(&wrapped).map_err(|error| PromptError::Syntax {
                message: error.message,
                line: Some(error.line),
            })?;
        let source = for_loops::rewrite(&message_tag::rewrite(&rewritten)?);
        let env = render::environment(source).map_err(|e| jinja_error(&e))?;
        let required = match required {
            RequiredVariables::All => {
                let mut sorted = variables.clone();
                sorted.sort_unstable();
                sorted
            }
            RequiredVariables::Listed(names) => names
                .iter()
                .filter(|n| variables.contains(n))
                .cloned()
                .collect(),
            RequiredVariables::None => Vec::new(),
        };
        Ok(Prompt {
            kind,
            env: Arc::new(env),
            variables,
            required,
        })
    }

    /// The template's variables in the order of Haystack's
    /// `ChatPromptBuilder.variables`.
    pub(crate) fn variables(&self) -> &[String] {
        &self.variables
    }

    /// `system_prompt` or `user_prompt`.
    pub(crate) fn label(&self) -> &'static str {
        self.kind.label()
    }

    /// Renders with the run's keyword arguments (those the template uses are
    /// passed), as Haystack's `_render_prompt_messages`.
    pub(crate) fn render(&self, kwargs: &Map<String, Value>) -> Result<ChatMessage, PromptError> {
        let provided: Map<String, Value> = self
            .variables
            .iter()
            .filter_map(|name| kwargs.get(name).map(|v| (name.clone(), v.clone())))
            .collect();
        let missing: Vec<String> = self
            .required
            .iter()
            .filter(|name| !provided.contains_key(*name))
            .cloned()
            .collect();
        if !missing.is_empty() {
            // `set(template_variables_combined.keys())`, the keys given in
            // the order of the builder's variables.
            let provided = PySet::from_items(provided.keys());
            return Err(PromptError::MissingVariables {
                missing,
                required: self.required.clone(),
                provided: provided.iter().map(str::to_owned).collect(),
            });
        }
        let template = self
            .env
            .get_template(render::TEMPLATE)
            .map_err(|e| jinja_error(&e))?;
        let rendered = template
            .render(render::context(&provided))
            .map_err(|e| jinja_error(&e))?;
        let mut messages = render::read_messages(&rendered)?;
        let prompt = self.label();
        let role = self.kind.role();
        if messages.len() != 1 {
            return Err(PromptError::MessageCount {
                prompt,
                role,
                count: messages.len(),
            });
        }
        let message = messages.remove(0);
        if message.role() != role {
            return Err(PromptError::MessageRole {
                prompt,
                expected: role,
                found: message.role(),
            });
        }
        Ok(message)
    }
}

/// The text of a template error: Haystack's own text for what the message
/// tag raises, Jinja2's for an unknown filter or test it calls, minijinja's
/// description otherwise.
fn jinja_error(error: &minijinja::Error) -> PromptError {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(haystack) = cause.downcast_ref::<render::HaystackError>() {
            return PromptError::Template(haystack.0.clone());
        }
        source = cause.source();
    }
    // The renderer's parser nests at most 150 levels, which the harness's
    // rewrites of operations reach at about 50 parentheses: Python's
    // error, as past its own recursion limit, with where to look.
    if error.kind() == ErrorKind::SyntaxError
        && error.detail() == Some("template exceeds maximum recursion limits")
    {
        return PromptError::Template(format!(
            "RecursionError: maximum recursion depth exceeded while calling a Python object \
             (an expression at line {} of the template nests deeper than the harness renders, \
             about 50 parentheses around operations, where Jinja2 reads about 68: \
             split it with `{{% set %}}`)",
            error.line().unwrap_or(1)
        ));
    }
    if error.kind() == ErrorKind::SyntaxError {
        return PromptError::Syntax {
            message: error.to_string(),
            line: error.line(),
        };
    }
    PromptError::Template(match error.kind() {
        // A filter or test Jinja2 does not have, inside an `if` (anywhere
        // else the Agent is not built): Jinja2's text when it is called.
        ErrorKind::UnknownFilter | ErrorKind::UnknownTest => {
            let detail = error.detail().unwrap_or_default();
            let (kind, name) = detail
                .strip_suffix(" is unknown")
                .and_then(|rest| rest.split_once(' '))
                .unwrap_or(("filter", detail));
            format!("No {kind} named '{name}' found.")
        }
        // A call of a name no variable or global holds: Jinja2 calls its
        // `Undefined`, which raises.
        ErrorKind::UnknownFunction => {
            let detail = error.detail().unwrap_or_default();
            let name = detail.strip_suffix(" is unknown").unwrap_or(detail);
            format!("UndefinedError: '{name}' is undefined")
        }
        // Jinja2's `reverse` of what is not iterable.
        ErrorKind::InvalidOperation
            if matches!(
                error.detail(),
                Some(
                    "cannot reverse values of type none"
                        | "cannot reverse values of type number"
                        | "cannot reverse values of type bool"
                        | "cannot reverse values of type plain object"
                )
            ) =>
        {
            "FilterArgumentError: argument must be iterable".to_owned()
        }
        ErrorKind::OutOfFuel => format!(
            "the prompt template used up its budget and was stopped: {} instructions, \
             each also paying for {} bytes of text or list built ({} bytes in all); \
             look for a loop that does not end, or a string or list that keeps growing \
             (docs/deviations.md, `prompt-template-budget`)",
            budget::FUEL,
            budget::BYTES_PER_FUEL,
            budget::FUEL * budget::BYTES_PER_FUEL
        ),
        _ => error.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user(template: &str) -> Prompt {
        Prompt::new(PromptKind::User, template, &RequiredVariables::All).unwrap()
    }

    fn render(template: &str, kwargs: Value) -> Result<String, PromptError> {
        let Value::Object(kwargs) = kwargs else {
            unreachable!()
        };
        user(template)
            .render(&kwargs)
            .map(|m| m.text().unwrap_or_default().to_owned())
    }

    #[test]
    fn values_print_as_python_prints_them() {
        let text = render(
            "{{ a }}|{{ b }}|{{ c }}|{{ d }}|{{ 3/1 }}|{{ 7 // 2 }}|{{ c[2] }}",
            json!({"a": true, "b": null, "c": [1, "x", {"k": null}], "d": 1.5}),
        );
        assert_eq!(
            text.unwrap(),
            "True|None|[1, 'x', {'k': None}]|1.5|3.0|3|{'k': None}"
        );
    }

    #[test]
    fn variables_exclude_assignments_loop_names_and_globals() {
        let prompt = user(
            "{{ y }}{% set y = 1 %}{% for i in range(n) %}{{ i }}{{ loop.index }}{% endfor %}{{ x.z }}",
        );
        // Haystack's order: `list(set - set)` of Jinja2's analysis.
        assert_eq!(prompt.variables(), ["x", "n"]);
    }

    /// `PYTHONHASHSEED=0`, haystack-ai 3.4.1: the builder's variables are
    /// `['extra', 'user', 'style', 'topic', 'limit', 'goal']`, and the
    /// provided ones go into the printed set in that order (sorted, they
    /// would print `{'style', 'goal', 'extra', 'topic', 'limit'}`).
    #[test]
    fn provided_variables_print_in_haystacks_insertion_order() {
        let prompt = user(
            "Write about {{ user }} {{ goal }} {{ limit }} {{ style }} {{ extra }} {{ topic }}",
        );
        assert_eq!(
            prompt.variables(),
            ["extra", "user", "style", "topic", "limit", "goal"]
        );
        let Value::Object(kwargs) =
            json!({"goal": 1, "limit": 1, "style": 1, "extra": 1, "topic": 1})
        else {
            unreachable!()
        };
        assert_eq!(
            prompt.render(&kwargs).unwrap_err().to_string(),
            "Missing required input variables in ChatPromptBuilder: user. Required variables: \
             ['extra', 'goal', 'limit', 'style', 'topic', 'user']. \
             Provided variables: {'topic', 'goal', 'extra', 'style', 'limit'}."
        );
    }

    /// Jinja2's analysis order, measured with haystack-ai 3.4.1: an inline
    /// if loads its test first, a call its arguments before its keywords, a
    /// loop's iterable belongs to the enclosing frame, `{% autoescape %}`
    /// and loop bodies are frames entered later.
    #[test]
    fn variables_follow_jinja2s_frames() {
        for (template, expected) in [
            ("{{ c if b else a }}", &["c", "a", "b"][..]),
            (
                "{{ a | default(b) }} {{ f(g, h=i) }}",
                &["f", "a", "g", "b", "i"],
            ),
            ("{% for i in y if loop %}{% endfor %}", &["y", "loop"]),
            ("{% set ns.a = 1 %}", &["ns"]),
            ("{% if c %}{% set y = 1 %}{% endif %}{{ y }}", &["c"]),
            (
                "{{ self }}{% macro m() %}{{ caller() }}{{ kwargs }}{% endmacro %}",
                &[],
            ),
        ] {
            assert_eq!(user(template).variables(), expected, "{template}");
        }
    }

    #[test]
    fn a_missing_required_variable_gets_haystacks_words() {
        let error = render("{{ b }} {{ a }} {{ c }}", json!({"c": 1})).unwrap_err();
        assert_eq!(
            error,
            PromptError::MissingVariables {
                missing: vec!["a".into(), "b".into()],
                required: vec!["a".into(), "b".into(), "c".into()],
                provided: vec!["c".into()],
            }
        );
        assert_eq!(
            error.to_string(),
            "Missing required input variables in ChatPromptBuilder: a, b. \
             Required variables: ['a', 'b', 'c']. Provided variables: {'c'}."
        );
    }

    #[test]
    fn listed_required_variables_keep_their_order_and_the_others_render_empty() {
        let required = RequiredVariables::Listed(vec!["b".into(), "z".into(), "a".into()]);
        let prompt = Prompt::new(PromptKind::User, "{{ a }}{{ b }}[{{ c }}]", &required).unwrap();
        assert_eq!(
            prompt.render(&Map::new()).unwrap_err().to_string(),
            "Missing required input variables in ChatPromptBuilder: b, a. \
             Required variables: ['b', 'a']. Provided variables: set()."
        );
        let Value::Object(kwargs) = json!({"a": 1, "b": 2}) else {
            unreachable!()
        };
        assert_eq!(prompt.render(&kwargs).unwrap().text(), Some("12[]"));
    }

    #[test]
    fn a_message_block_keeps_its_name_and_meta_and_strips_its_text() {
        let prompt = user(
            "{% message role=\"user\" name=\"ann\" meta={\"k\": 1} %}\n  hi {{ who }}\n{% endmessage %}\n",
        );
        let Value::Object(kwargs) = json!({"who": "bob"}) else {
            unreachable!()
        };
        let message = prompt.render(&kwargs).unwrap();
        assert_eq!(
            message.to_value(),
            json!({"role": "user", "meta": {"k": 1}, "name": "ann", "content": [{"text": "hi bob"}]})
        );
    }

    #[test]
    fn a_blank_message_is_an_error_with_its_content() {
        assert_eq!(
            render("  {{ x }} ", json!({"x": ""}))
                .unwrap_err()
                .to_string(),
            "Message content in template is empty or contains only whitespace characters. Content: '   '"
        );
    }

    #[test]
    fn a_role_given_by_a_variable_is_checked_when_rendered() {
        let prompt = user("{% message role=r %}hi{% endmessage %}");
        let Value::Object(bot) = json!({"r": "bot"}) else {
            unreachable!()
        };
        assert_eq!(
            prompt.render(&bot).unwrap_err().to_string(),
            "Unsupported role: bot"
        );
        let Value::Object(system) = json!({"r": "system"}) else {
            unreachable!()
        };
        assert_eq!(
            prompt.render(&system).unwrap_err().to_string(),
            "user_prompt must render to a user message. Got a message with role ChatRole.SYSTEM."
        );
    }

    #[test]
    fn a_printed_value_cannot_forge_a_content_part() {
        assert_eq!(
            render("{{ x }}", json!({"x": "<haystack_content_part:1>"})).unwrap(),
            "&lt;haystack_content_part:1>"
        );
    }

    #[test]
    fn a_template_that_never_ends_runs_out_of_fuel() {
        let error = render(
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x",
            json!({}),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("the prompt template used up its budget"),
            "{error}"
        );
    }

    #[test]
    fn unbounded_recursion_is_an_error() {
        let error = render(
            "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
            json!({}),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("recursion"), "{error}");
    }

    #[test]
    fn nesting_past_the_renderers_parser_is_pythons_recursion_error() {
        // The stack of the command's main thread (8 MiB): a test thread's
        // 2 MiB is too little for minijinja's parser at its depth in a
        // debug build.
        let checked = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(|| {
                let deep = format!("x\n{{{{ {}1{} }}}}", "(1 + ".repeat(55), ")".repeat(55));
                let error = Prompt::new(PromptKind::User, &deep, &RequiredVariables::All)
                    .unwrap_err()
                    .to_string();
                assert!(
                    error.starts_with(
                        "RecursionError: maximum recursion depth exceeded while calling a \
                         Python object (an expression at line 2 of the template"
                    ),
                    "{error}"
                );
                let shallow = format!("{{{{ {}1{} }}}}", "(1 + ".repeat(45), ")".repeat(45));
                assert_eq!(render(&shallow, json!({})).unwrap(), "46");
            })
            .expect("a thread")
            .join();
        assert!(checked.is_ok());
    }

    #[test]
    fn message_blocks_are_validated_before_parsing() {
        assert_eq!(
            validate_message_blocks(Some("{% message role=\"system\" %}x{% endmessage %}"), None)
                .unwrap_err()
                .to_string(),
            "user_prompt message block must have role 'user', found role 'system'."
        );
        assert_eq!(
            validate_message_blocks(None, Some("{% message role='system' %}a{% endmessage %}{% message role='system' %}b{% endmessage %}")).unwrap_err().to_string(),
            "system_prompt must define exactly one message block, found 2."
        );
        assert!(validate_message_blocks(None, Some("plain {{ x }}")).is_ok());
    }
}
#[cfg(test)]
mod hostile {
    use super::*;

    #[test]
    fn deeply_nested_syntax_is_an_error_not_a_crash() {
        let ifs = format!(
            "{}x{}",
            "{% if true %}".repeat(5000),
            "{% endif %}".repeat(5000)
        );
        let parens = format!("{{{{ {}1{} }}}}", "(".repeat(5000), ")".repeat(5000));
        let lists = format!("{{{{ {}1{} }}}}", "[".repeat(5000), "]".repeat(5000));
        let sets = format!("{}%}}", "{% set ".repeat(100_000));
        for template in [ifs, parens, lists, sets] {
            let result = Prompt::new(PromptKind::User, &template, &RequiredVariables::None);
            assert!(result.is_err(), "{}", &template[..20]);
        }
    }

    /// Jinja2 copies a frame's symbols for each branch of each `if` (about
    /// 7 s of CPU in Haystack for this template); the layered symbols do not.
    #[test]
    fn many_ifs_over_many_names_are_analysed_without_copying_the_frame() {
        let names: String = (0..3000).map(|i| format!("{{{{ v{i} }}}}")).collect();
        let template = format!("{names}{}", "{% if a %}x{% endif %}".repeat(3000));
        let started = std::time::Instant::now();
        let prompt = Prompt::new(PromptKind::User, &template, &RequiredVariables::None).unwrap();
        eprintln!("analysed in {:?}", started.elapsed());
        assert_eq!(prompt.variables().len(), 3001);
        assert!(prompt.variables().iter().any(|v| v == "a"));
    }

    fn rendered(template: &str) -> Result<String, String> {
        let prompt = Prompt::new(PromptKind::User, template, &RequiredVariables::None)
            .map_err(|e| e.to_string())?;
        prompt
            .render(&Map::new())
            .map(|m| m.text().unwrap_or_default().to_owned())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn huge_widths_fail_as_python_fails_before_anything_is_allocated() {
        for (template, error) in [
            ("{{ 'x'|center(500000000000) }}", "MemoryError ("),
            (
                "{{ 'x'|center(100000000000000000000) }}",
                "OverflowError: Python int too large to convert to C ssize_t",
            ),
            ("{{ '{:>100000000000}'.format('x') }}", "MemoryError ("),
            ("{{ 'a\nb'|indent(100000000000) }}", "MemoryError ("),
            ("{{ '%1000000000s'|format('x') }}", "MemoryError ("),
            ("{{ '%1000000000s' % 'x' }}", "MemoryError ("),
            ("{{ '%.1000000000d' % 1 }}", "MemoryError ("),
            ("{{ '%*s' % (1000000000, 'x') }}", "MemoryError ("),
            (
                "{{ '%.2147483648f' % 1.5 }}",
                "ValueError: precision too big",
            ),
        ] {
            let got = rendered(template).unwrap_err();
            assert!(got.starts_with(error), "{template}: {got}");
        }
        assert_eq!(
            rendered("{{ 'ab'|center(7) }}|{{ '{:>4}'.format('x') }}").unwrap(),
            "ab  |   x"
        );
    }

    #[test]
    fn a_huge_precision_fails_as_python_fails_before_anything_is_allocated() {
        for (template, error) in [
            (
                "{{ '{:.100000000000f}'.format(1.5) }}",
                "ValueError: precision too big",
            ),
            (
                "{{ '{:.2147483648e}'.format(1.5) }}",
                "ValueError: precision too big",
            ),
            (
                "{{ '{:.{}f}'.format(1.5, 2**31) }}",
                "ValueError: precision too big",
            ),
            (
                "{{ '{:.1000000000000f}'.format(1) }}",
                "ValueError: precision too big",
            ),
            (
                "{{ '{:.3}'.format(3) }}",
                "ValueError: Precision not allowed in integer format specifier",
            ),
            (
                "{{ '{:.9223372036854775808f}'.format(1.5) }}",
                "ValueError: Too many decimal digits in format string",
            ),
            (
                "{{ '{:9223372036854775808}'.format('x') }}",
                "ValueError: Too many decimal digits in format string",
            ),
            // Allowed by Python, past what the rendering has left.
            ("{{ '{:.2147483647f}'.format(1.5) }}", "MemoryError ("),
            ("{{ '{:#.1000000000g}'.format(1.5) }}", "MemoryError ("),
            // Allowed by Python, past what minijinja's formatter gives.
            (
                "{{ '{:.65536e}'.format(1.5) }}",
                "a precision of 65536 digits for a number",
            ),
        ] {
            let got = rendered(template).unwrap_err();
            assert!(got.starts_with(error), "{template}: {got}");
        }
        assert_eq!(
            rendered("{{ '{:.3f}|{:.100000000000}|{:.65534e}'.format(1.5, 'abc', 2.5)|length }}")
                .unwrap(),
            (6 + 4 + 65540).to_string()
        );
    }

    /// `BURN` pays for most of the budget first, so that what is
    /// left (about 8 MB) is walked quickly.
    const BURN: &str = "{% for i in range(12) %}{% set burn = 'x' * 10000000 %}{% endfor %}";

    #[test]
    fn a_value_printed_past_the_budget_is_memory_error_before_it_is_built() {
        let doubled = "{% set ns = namespace(d=[1]) %}{% for i in range(40) %}{% set ns.d = [ns.d, ns.d] %}{% endfor %}";
        let dict = "{% set ns = namespace(d={}) %}{% for i in range(40) %}{% set ns.d = {'a': ns.d, 'b': ns.d} %}{% endfor %}";
        for (build, show) in [
            (doubled, "{{ ns.d }}"),
            (doubled, "{{ ns.d|tojson }}"),
            (doubled, "{{ ns.d|center(3) }}"),
            (dict, "{{ ns.d }}"),
            (dict, "{{ ns.d|tojson }}"),
            (doubled, "{{ ns.d|string|length }}"),
            (doubled, "{{ ns.d|join(',') }}"),
            (doubled, "{{ ns.d|pprint }}"),
            (doubled, "{{ '{}'.format(ns.d) }}"),
            (doubled, "{{ ns.d ~ '' }}"),
            (doubled, "{{ ns.d|upper }}"),
            (doubled, "{{ ns.d|escape }}"),
            (doubled, "{{ ns.d|wordcount }}"),
        ] {
            let template = format!("{BURN}{build}{show}");
            let got = rendered(&template).unwrap_err();
            assert!(got.starts_with("MemoryError ("), "{show}: {got}");
        }
        let deep = "{% set ns = namespace(d=[1]) %}{% for i in range(3000) %}{% set ns.d = [ns.d] %}{% endfor %}";
        for show in ["{{ ns.d }}", "{{ ns.d|tojson }}"] {
            let got = rendered(&format!("{deep}{show}")).unwrap_err();
            assert!(
                got.starts_with("RecursionError: maximum recursion depth exceeded"),
                "{show}: {got}"
            );
        }
        assert_eq!(
            rendered("{{ (1, 'a') }}|{{ (1,) }}|{{ 'a=b'.partition('=') }}|{{ [1.5, none, true, {'k': (2,)}] }}")
                .unwrap(),
            "(1, 'a')|(1,)|('a', '=', 'b')|[1.5, None, True, {'k': (2,)}]"
        );
    }

    #[test]
    fn a_list_joined_or_repeated_past_the_budget_is_memory_error_when_it_is_made() {
        let doubled = |times: usize, read: &str| {
            format!(
                "{{% set ns = namespace(l=[1]) %}}{{% for i in range({times}) %}}\
                 {{% set ns.l = ns.l + ns.l %}}{{% endfor %}}{read}"
            )
        };
        // Each read of a list 2^60 items long ran for hours.
        for read in ["{{ ns.l|length }}", "{{ ns.l[0] }}", "{{ ns.l|join(',') }}"] {
            let got = rendered(&doubled(60, read)).unwrap_err();
            assert!(
                got.starts_with(
                    "MemoryError (the prompt template would build a list of 4194304 items"
                ),
                "{read}: {got}"
            );
        }
        assert_eq!(rendered(&doubled(10, "{{ ns.l|length }}")).unwrap(), "1024");
        // Reversed lists listed again are built, up to what is left; the
        // iterators themselves are Python's, which `+` refuses.
        let got = rendered(
            "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}\
             {% set ns.l = (ns.l|reverse|list) + (ns.l|reverse|list) %}{% endfor %}",
        )
        .unwrap_err();
        assert!(got.contains("prompt-template-budget"), "{got}");
        assert_eq!(
            rendered("{{ [1]|reverse + [1]|reverse }}").unwrap_err(),
            "TypeError: unsupported operand type(s) for +: 'list_reverseiterator' and 'list_reverseiterator'"
        );
        assert_eq!(
            rendered("{{ 1 + 2 * 3 }}|{{ 'a' + 'b' }}|{{ (1, 2) + (3,) }}|{{ [1] + [2] * 2 }}|{{ ((1|reverse) if false else [1, 2]|reverse|list) + [3] }}")
                .unwrap(),
            "7|ab|(1, 2, 3)|[1, 2, 2]|[2, 1, 3]"
        );
    }

    #[test]
    fn padding_methods_pay_for_their_width_first() {
        for template in [
            "{{ 'x'.ljust(1000000000000) }}",
            "{{ 'x'.rjust(1000000000000, '*') }}",
            "{{ 'x'.center(1000000000000) }}",
            "{{ 'x'.zfill(1000000000000) }}",
            "{{ ('\t' * 1000).expandtabs(2147483647) }}",
            "{{ ('a ' * 1000)|wordwrap(1, wrapstring='x' * 1000000) }}",
            // Each character mapped to a million: a billion bytes.
            "{{ ('a' * 1000).translate({97: 'b' * 1000000}) }}",
            "{{ '{!r:>1000000000000}'.format('x') }}",
        ] {
            let got = rendered(template).unwrap_err();
            assert!(got.starts_with("MemoryError ("), "{template}: {got}");
        }
        // Fifteen million characters of four bytes (60 MB), which encode
        // to ten each, past the 68 MB left.
        for show in [
            "{{ ('\u{1F600}' * 15000000).encode('ascii', 'backslashreplace')|length }}",
            "{{ ('\u{1F600}' * 15000000).encode('ascii', 'xmlcharrefreplace')|length }}",
            "{{ ('\u{1F600}' * 15000000).encode('utf-32')|length }}",
        ] {
            let got = rendered(show).unwrap_err();
            assert!(got.starts_with("MemoryError ("), "{show}: {got}");
        }
        assert_eq!(
            rendered("{{ ('\u{1F600}' * 1000).encode('ascii', 'backslashreplace')|length }}")
                .unwrap(),
            "10000"
        );
    }

    #[test]
    fn growing_strings_stop_at_the_byte_budget() {
        let doubling = format!(
            "{{% set s = 'x' %}}{}{{{{ s|length }}}}",
            "{% set s = s ~ s %}".repeat(40)
        );
        let block = "{% set b %}{% for i in range(100000) %}{{ 'y' * 10000 }}{% endfor %}{% endset %}{{ b|length }}";
        // `~` pays for the string it would build first: Python's MemoryError.
        let got = rendered(&doubling).unwrap_err();
        assert!(
            got.starts_with("MemoryError (the prompt template would build a string"),
            "{got}"
        );
        let got = rendered(block).unwrap_err();
        assert!(
            got.starts_with("the prompt template used up its budget"),
            "{got}"
        );
    }
}
