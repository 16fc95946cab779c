//! A Haystack-serialized Agent as a scenario skeleton (`hookharness import`).
//!
//! The input is what Haystack writes: `Agent.to_dict()` as JSON or YAML, or
//! a pipeline (`Pipeline.dumps()`) holding an Agent. The Agent is read as
//! [`agent_from_haystack`](super::agent_from_haystack) reads it, except that
//! a hook of the application's own becomes a `custom:` entry instead of an
//! error. The skeleton keeps the settings, the tools (as scripted tools
//! without results), the hooks, and leaves the model script, the run and
//! the expectations to fill in, each with a comment saying how.
//!
//! ```
//! use hookharness::scenario::{Format, Scenario, import_haystack};
//!
//! let dumped = r#"{
//!   "type": "haystack.components.agents.agent.Agent",
//!   "init_parameters": {"system_prompt": "Be brief.", "max_agent_steps": 3}
//! }"#;
//! let skeleton = import_haystack(dumped, "agent.json", Format::Json, None)?;
//! assert!(skeleton.contains("# The model's replies, one per LLM call"));
//! let scenario = Scenario::from_str(&skeleton, "agent.yaml", Format::Yaml)?;
//! assert_eq!(scenario.agent.max_agent_steps, 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde_json::{Map, Value, json};
use std::fmt::Write as _;

use super::agent_dict::{AGENT_TYPE, OtherHooks, custom_hook_name, read_agent};
use crate::scenario::interop::{
    Entry, Node, NodeValue, Pos, needs_explicit_key, parse_json, parse_yaml, write_value,
};
use crate::scenario::{Format, HookEntry, Scenario, ScenarioError};

/// A file `hookharness import` cannot turn into a scenario.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file is not JSON or YAML; the loader's error, with its position.
    #[error(transparent)]
    Syntax(#[from] ScenarioError),
    /// The file holds no Agent that a scenario can express.
    #[error("{file}:{line}:{column}: {message}")]
    Agent {
        /// The file, as given.
        file: String,
        /// The 1-based line of the problem.
        line: usize,
        /// The 1-based column of the problem.
        column: usize,
        /// What is wrong and what to do.
        message: String,
    },
}

fn located(file: &str, pos: Pos, message: impl Into<String>) -> ImportError {
    ImportError::Agent {
        file: file.to_owned(),
        line: pos.line,
        column: pos.column,
        message: message.into(),
    }
}

/// Reads a Haystack-serialized Agent (`text`, from the file `origin`) and
/// returns the text of a YAML scenario skeleton. `component` names the
/// Agent in a pipeline that holds several.
///
/// # Errors
/// [`ImportError::Syntax`] when the text is not JSON or YAML;
/// [`ImportError::Agent`], with the line and column, when it holds no
/// Agent, several without `component`, or an Agent a scenario cannot
/// express (a tool that is not a `Tool`, a state type without a scenario
/// type).
pub fn import_haystack(
    text: &str,
    origin: &str,
    format: Format,
    component: Option<&str>,
) -> Result<String, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let parse = || match format {
        Format::Yaml => parse_yaml(text, origin),
        Format::Json => parse_json(text, origin),
    };
    // The tree is dropped once the Agent is JSON, so that the two are not
    // both held while the scenario and its text are built; an error in
    // the Agent is located by reading the file again.
    let (name, prefix, value) = {
        let root = parse()?;
        let (name, prefix, node) = find_agent(&root, origin, component)?;
        (name, prefix, node.to_json())
    };
    let agent = read_agent(&value, OtherHooks::Custom).map_err(|error| {
        let pos = parse()
            .ok()
            .and_then(|root| {
                let (_, _, node) = find_agent(&root, origin, component).ok()?;
                Some(position(node, error.path()))
            })
            .unwrap_or(Pos { line: 1, column: 1 });
        let full = match (prefix.as_str(), error.path()) {
            ("", path) => path.to_owned(),
            (prefix, "") => prefix.to_owned(),
            (prefix, path) => format!("{prefix}.{path}"),
        };
        located(origin, pos, format!("`{full}`: {}", message_of(&error)))
    })?;
    let mut scenario = Scenario::from_str("model: []\n", origin, Format::Yaml)?;
    scenario.name = name;
    scenario.agent = agent.agent;
    scenario.tools = agent.tools;
    scenario.hooks = agent.hooks;
    let replaced = super::substitute::substitute(&mut scenario.hooks);
    Ok(skeleton(
        &scenario,
        &value,
        origin,
        component_label(&prefix),
        &replaced,
    ))
}

/// The error's message without its key path (which the caller prefixes).
fn message_of(error: &super::HaystackDictError) -> String {
    let text = error.to_string();
    let lead = format!("`{}`: ", error.path());
    text.strip_prefix(&lead).unwrap_or(&text).to_owned()
}

fn component_label(prefix: &str) -> Option<&str> {
    prefix.strip_prefix("components.")
}

fn entries(node: &Node) -> &[Entry] {
    match &node.value {
        NodeValue::Map(entries) => entries,
        _ => &[],
    }
}

fn get<'n>(node: &'n Node, key: &str) -> Option<&'n Node> {
    entries(node)
        .iter()
        .find(|e| e.key == key)
        .map(|e| &e.value)
}

fn type_of(node: &Node) -> Option<&str> {
    match &get(node, "type")?.value {
        NodeValue::String(kind) => Some(kind),
        _ => None,
    }
}

/// The Agent's node: the root, or a pipeline component. Returns the
/// scenario name, the key path of the Agent, and its node.
fn find_agent<'n>(
    root: &'n Node,
    origin: &str,
    component: Option<&str>,
) -> Result<(String, String, &'n Node), ImportError> {
    if type_of(root) == Some(AGENT_TYPE) && component.is_none() {
        let stem = std::path::Path::new(origin)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "imported".into());
        return Ok((stem, String::new(), root));
    }
    let Some(components) = get(root, "components").filter(|c| !entries(c).is_empty()) else {
        return Err(located(
            origin,
            root.pos,
            format!(
                "neither an Agent (`type: {AGENT_TYPE}`) nor a pipeline with `components`; \
                 write the Agent with `Agent.to_dict()` (as JSON or YAML) or its pipeline with `Pipeline.dumps()`"
            ),
        ));
    };
    let agents: Vec<_> = entries(components)
        .iter()
        .filter(|e| type_of(&e.value) == Some(AGENT_TYPE))
        .collect();
    let names = || {
        agents
            .iter()
            .map(|e| format!("`{}`", e.key))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let chosen = match (component, agents.as_slice()) {
        (Some(wanted), _) => agents.iter().find(|e| e.key == wanted).ok_or_else(|| {
            located(
                origin,
                components.pos,
                format!(
                    "the pipeline has no Agent component `{wanted}`; its Agents: {}",
                    if agents.is_empty() {
                        "none".into()
                    } else {
                        names()
                    }
                ),
            )
        })?,
        (None, [one]) => one,
        (None, []) => {
            return Err(located(
                origin,
                components.pos,
                format!("the pipeline's components hold no Agent (`type: {AGENT_TYPE}`)"),
            ));
        }
        (None, _) => {
            return Err(located(
                origin,
                components.pos,
                format!(
                    "the pipeline holds {} Agents ({}); choose one with `--component NAME`",
                    agents.len(),
                    names()
                ),
            ));
        }
    };
    Ok((
        chosen.key.clone(),
        format!("components.{}", chosen.key),
        &chosen.value,
    ))
}

/// The position of a key path like `init_parameters.tools[0].data.name`:
/// the deepest node the path reaches.
fn position(node: &Node, path: &str) -> Pos {
    let mut here = node;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, indexes) = part.split_once('[').unwrap_or((part, ""));
        let next = if key.is_empty() {
            Some(here)
        } else {
            entries(here)
                .iter()
                .find(|e| e.key == key)
                .map(|e| &e.value)
        };
        let Some(mut next) = next else { break };
        for index in indexes.split('[').map(|i| i.trim_end_matches(']')) {
            let item = index.parse::<usize>().ok().and_then(|i| match &next.value {
                NodeValue::Seq(items) => items.get(i),
                _ => None,
            });
            match item {
                Some(item) => next = item,
                None if index.is_empty() => {}
                None => break,
            }
        }
        here = next;
    }
    here.pos
}

/// The skeleton's text: the scenario's keys, each after a comment.
fn skeleton(
    scenario: &Scenario,
    dumped: &Value,
    origin: &str,
    component: Option<&str>,
    replaced: &[String],
) -> String {
    let written = scenario.to_value();
    let mut out = String::new();
    let from = match component {
        Some(name) => format!("{origin} (pipeline component `{name}`)"),
        None => origin.to_owned(),
    };
    let from = comment_safe(&from);
    let _ = writeln!(
        out,
        "# A scenario skeleton written by `hookharness import` from {from}:\n\
         # the Haystack Agent's settings, tools and hooks."
    );
    let params = &dumped["init_parameters"];
    if let Some(generator) = params["chat_generator"]["type"].as_str() {
        let generator = comment_safe(generator);
        let model = params["chat_generator"]["init_parameters"]["model"]
            .as_str()
            .map(|m| format!(", model `{}`", comment_safe(m)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "# Its chat generator ({generator}{model}) is not imported: `model` scripts the replies."
        );
    }
    out.push_str(
        "# Fill in `model`, `run`, the tools' `results` and `expect`, then\n\
         # `hookharness check FILE` validates the file and `hookharness run FILE` replays it.\n",
    );
    key(&mut out, "version", &written["version"]);
    key(&mut out, "name", &written["name"]);
    if let Some(agent) = written.get("agent") {
        out.push_str("\n# The Agent's settings.\n");
        key(&mut out, "agent", agent);
    }
    if let Some(tools) = written.get("tools") {
        out.push_str(
            "\n# The Agent's tools, scripted (their Python functions are not run): give each\n\
             # tool `results`, one per call in call order, e.g. `results: [{\"hits\": [\"...\"]}]`.\n",
        );
        key(&mut out, "tools", tools);
    }
    if let Some(hooks) = written.get("hooks") {
        out.push_str("\n# The Agent's hooks; ready-made ones keep Haystack's parameters.\n");
        if !replaced.is_empty() {
            out.push_str("# The importer replaced what a scenario run cannot use:\n");
        }
        for note in replaced {
            let _ = writeln!(out, "#   {}.", comment_safe(note));
        }
        let customs = custom_hooks(scenario, params);
        if !customs.is_empty() {
            out.push_str(
                "# Each `custom:` entry stands for a hook of your own: write it in Rust and register it\n\
                 # in the test that runs this scenario, e.g. `Replay::new().custom_hook(\"NAME\", hook)`.\n",
            );
            for (name, kind) in customs {
                let _ = writeln!(
                    out,
                    "#   `{}`: {}",
                    comment_safe(&name),
                    comment_safe(&kind)
                );
            }
        }
        key(&mut out, "hooks", hooks);
    }
    out.push_str(
        "\n# The model's replies, one per LLM call in order, for example:\n\
         #   - tool_calls: [{tool: search, arguments: {query: \"...\"}}]\n\
         #   - text: \"The answer.\"\n",
    );
    key(&mut out, "model", &json!([]));
    let mut run = Map::new();
    run.insert("messages".into(), json!([]));
    let variables = required_variables(scenario);
    if !variables.is_empty() {
        run.insert(
            "variables".into(),
            variables.into_iter().map(|v| (v, json!(""))).collect(),
        );
    }
    out.push_str(
        "\n# The run's input: the user's messages, e.g. `{role: user, text: \"...\"}`\n\
         # (and the values of the prompt variables the Agent requires).\n",
    );
    key(&mut out, "run", &Value::Object(run));
    out.push_str(
        "\n# What the run must show, for example:\n\
         # expect:\n\
         #   exit_reason: text\n\
         #   tools_run: [search]\n",
    );
    out
}

/// `text` as it may stand inside a `#` comment: a line break (`\n`, `\r`,
/// U+0085, U+2028, U+2029) would end the comment and make the rest a live
/// key, and any other control character, a bidi control or a byte-order
/// mark has no place in a file people read; each is written as `\u{1b}`.
fn comment_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\t')
            || matches!(
                c,
                '\u{2028}'
                    | '\u{2029}'
                    | '\u{feff}'
                    | '\u{200e}'
                    | '\u{200f}'
                    | '\u{61c}'
                    | '\u{202a}'..='\u{202e}'
                    | '\u{2066}'..='\u{2069}'
            )
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

fn key(out: &mut String, name: &str, value: &Value) {
    out.push_str(name);
    out.push(':');
    block(value, 1, out);
    out.push('\n');
}

/// A value after `key:` in block style (what people edit by hand), its
/// entries `indent` levels in; scalars and strings as JSON, which YAML reads
/// as the same values.
fn block(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (name, item) in map {
                out.push('\n');
                push_indent(indent, out);
                entry(name, item, indent, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                out.push('\n');
                push_indent(indent, out);
                out.push('-');
                match item {
                    Value::Object(map) if !map.is_empty() => {
                        for (i, (name, field)) in map.iter().enumerate() {
                            if i == 0 {
                                out.push(' ');
                            } else {
                                out.push('\n');
                                push_indent(indent + 1, out);
                            }
                            entry(name, field, indent + 1, out);
                        }
                    }
                    _ => {
                        out.push(' ');
                        write_value(item, indent + 1, out);
                    }
                }
            }
        }
        _ => {
            out.push(' ');
            write_value(value, indent, out);
        }
    }
}

fn entry(name: &str, value: &Value, indent: usize, out: &mut String) {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !["null", "true", "false"].contains(&name.to_ascii_lowercase().as_str());
    let start = out.len();
    if plain {
        out.push_str(name);
    } else {
        write_value(&Value::String(name.to_owned()), indent, out);
    }
    if needs_explicit_key(&out[start..]) {
        // YAML's explicit key: an implicit one holds 1024 characters.
        out.insert_str(start, "? ");
        out.push('\n');
        push_indent(indent, out);
    }
    out.push(':');
    block(value, indent + 1, out);
}

fn push_indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// Each `custom:` name with the Haystack type (and function) it stands for.
fn custom_hooks(scenario: &Scenario, params: &Value) -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = Vec::new();
    let dumped = params["hooks"].as_object();
    for (point, hooks) in dumped.into_iter().flatten() {
        for hook in hooks.as_array().into_iter().flatten() {
            let Some(hook) = hook.as_object() else {
                continue;
            };
            let name = custom_hook_name(hook);
            let is_custom = scenario.hooks.get(point).is_some_and(|entries| {
                entries
                    .iter()
                    .any(|e| matches!(e, HookEntry::Custom(n) if *n == name))
            });
            if !is_custom || seen.iter().any(|(n, _)| *n == name) {
                continue;
            }
            // Haystack reads a hook without `init_parameters` (or with no
            // `type`, which its own error names) as one without parameters.
            let kind = hook.get("type").and_then(Value::as_str).unwrap_or_default();
            let function = hook
                .get("init_parameters")
                .and_then(|p| p.get("function"))
                .and_then(Value::as_str);
            let described = match function {
                Some(function) => format!("{kind} (function `{function}`)"),
                None => kind.to_owned(),
            };
            seen.push((name, described));
        }
    }
    seen
}

fn required_variables(scenario: &Scenario) -> Vec<String> {
    match &scenario.agent.required_variables {
        crate::prompt::RequiredVariables::Listed(names) => names.clone(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str, format: Format, component: Option<&str>) -> String {
        import_haystack(text, "in.yaml", format, component)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_hook_of_the_application_becomes_a_custom_entry_named_after_its_class() {
        let text = "type: haystack.components.agents.agent.Agent\n\
                    init_parameters:\n  hooks:\n    on_exit:\n      - type: my_app.hooks.RequireCitation\n        init_parameters: {}\n";
        let skeleton = import_haystack(text, "agent.yaml", Format::Yaml, None).unwrap();
        assert!(
            skeleton.contains("#   `require_citation`: my_app.hooks.RequireCitation\n"),
            "{skeleton}"
        );
        let scenario = Scenario::from_str(&skeleton, "agent.yaml", Format::Yaml).unwrap();
        assert_eq!(
            scenario.hooks["on_exit"],
            [HookEntry::Custom("require_citation".into())]
        );
    }

    #[test]
    fn keys_yaml_would_read_as_other_values_are_quoted() {
        let mut out = String::new();
        key(
            &mut out,
            "state",
            &json!({"null": 1, "True": [{"a b": "x"}], "plain_1": {}}),
        );
        assert_eq!(
            out,
            "state:\n  \"null\": 1\n  \"True\":\n    - \"a b\": \"x\"\n  plain_1: {}\n"
        );
        let read = parse_yaml(&out, "t.yaml").unwrap().to_json();
        assert_eq!(read["state"]["True"][0]["a b"], "x");
    }

    #[test]
    fn a_file_without_an_agent_says_how_to_dump_one() {
        let message = error("type: something.Else\n", Format::Yaml, None);
        assert!(
            message.starts_with("in.yaml:1:1: neither an Agent"),
            "{message}"
        );
        assert!(message.contains("Agent.to_dict()"), "{message}");
    }

    #[test]
    fn a_pipeline_with_two_agents_asks_for_a_component_and_lists_them() {
        let agent = "{type: haystack.components.agents.agent.Agent, init_parameters: {}}";
        let text = format!("components:\n  a: {agent}\n  b: {agent}\n");
        let message = error(&text, Format::Yaml, None);
        assert_eq!(
            message,
            "in.yaml:2:3: the pipeline holds 2 Agents (`a`, `b`); choose one with `--component NAME`"
        );
        assert!(import_haystack(&text, "in.yaml", Format::Yaml, Some("b")).is_ok());
        let missing = error(&text, Format::Yaml, Some("c"));
        assert!(
            missing.ends_with("no Agent component `c`; its Agents: `a`, `b`"),
            "{missing}"
        );
    }

    #[test]
    fn a_value_a_scenario_cannot_express_is_located_at_its_line_and_column() {
        let text = "type: haystack.components.agents.agent.Agent\n\
                    init_parameters:\n  state_schema:\n    when:\n      type: datetime.datetime\n";
        let message = error(text, Format::Yaml, None);
        assert_eq!(
            message,
            "in.yaml:5:13: `init_parameters.state_schema.when.type`: `datetime.datetime` has no scenario type; \
             the scenario types are list, str, int, float, bool, dict and typing.Any"
        );
    }

    #[test]
    fn text_that_is_not_json_is_the_loaders_syntax_error() {
        let message = error("{\"type\": ", Format::Json, None);
        assert!(message.starts_with("in.yaml"), "{message}");
        assert!(matches!(
            import_haystack("{\"type\": ", "in.json", Format::Json, None),
            Err(ImportError::Syntax(_))
        ));
    }
}
