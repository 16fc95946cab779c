//! The wording of scenario errors: one lowercase line that names the place
//! and says what to do.

use std::fmt;

use super::{ScenarioError, ScenarioErrorKind};
use crate::scenario::text::budget::LEAST;
use crate::scenario::{MEMORY_BYTES_FLOOR, MEMORY_BYTES_PER_FILE_BYTE};
use crate::wording::{cut, did_you_mean, invalid_value_for, tick_list};

impl ScenarioError {
    /// ``in `agent` `` or `at the top level`: the map holding the offending key.
    fn in_parent(&self) -> String {
        match parent_end(&self.0.path) {
            0 => "at the top level".to_owned(),
            end => format!("in `{}`", &self.0.path[..end]),
        }
    }

    /// ``for `agent.max_agent_steps` `` or `for the scenario`.
    fn for_path(&self) -> String {
        if self.0.path.is_empty() {
            "for the scenario".to_owned()
        } else {
            format!("for `{}`", self.0.path)
        }
    }

    /// ``in `model[0]` `` or `at the top level`: the offending map itself.
    fn in_path(&self) -> String {
        if self.0.path.is_empty() {
            "at the top level".to_owned()
        } else {
            format!("in `{}`", self.0.path)
        }
    }
}

/// Where the last step of a written key path starts (`agent.x`: 5,
/// `agent["a.b"]`: 5, `["a.b"]` and `x`: 0, the top level): the last `.` or
/// `[` outside a quoted key and outside the mark of a key cut short
/// (`... (12 more characters)`, which also ends a quoted key cut before its
/// closing quote).
fn parent_end(path: &str) -> usize {
    let mut end = 0;
    let mut quoted = false;
    let mut escaped = false;
    let mut chars = path.char_indices();
    while let Some((at, c)) = chars.next() {
        if let Some(length) = cut_mark(&path[at..]) {
            quoted = false;
            escaped = false;
            // The mark is ASCII: skip its remaining characters.
            for _ in 1..length {
                chars.next();
            }
            continue;
        }
        if quoted {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => quoted = false,
                _ => {}
            }
            continue;
        }
        match c {
            '.' | '[' => end = at,
            '"' => quoted = true,
            _ => {}
        }
    }
    end
}

/// The length of the mark [`crate::elide::elide`] puts after a text it cuts
/// (`... (12 more characters)`), when `text` starts with one.
fn cut_mark(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("... (")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let after = rest[digits..].strip_prefix(" more characters)")?;
    (digits > 0).then(|| text.len() - after.len())
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.file)?;
        if let (Some(line), Some(column)) = (self.0.line, self.0.column) {
            write!(f, ":{line}:{column}")?;
        }
        f.write_str(": ")?;
        self.describe(f)
    }
}

impl ScenarioError {
    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ScenarioErrorKind as K;
        match &self.0.kind {
            K::Io { message, .. } => write!(
                f,
                "cannot read the scenario file: {}",
                lowercase_first(message)
            ),
            K::NotAFile { what } if self.0.one_file => write!(
                f,
                "not a regular file ({what}); this command takes one scenario file \
                 (`run`, `check`, `mutate` and `explore` also search folders)"
            ),
            K::NotAFile { what } => write!(
                f,
                "not a regular file ({what}); pass scenario files, or folders to search for them"
            ),
            K::UnsupportedExtension { extension } => {
                let found = match extension {
                    Some(ext) => format!("`.{ext}`"),
                    None => "no extension".to_owned(),
                };
                write!(
                    f,
                    "unsupported file extension ({found}); name scenario files `*.yaml`, `*.yml` or `*.json`"
                )
            }
            K::InvalidUtf8 => f.write_str("the file is not valid utf-8; save it as utf-8"),
            K::Syntax { format, message } => {
                write!(f, "invalid {format}: {}", lowercase_first(message))?;
                let hint = match format {
                    crate::scenario::Format::Yaml => crate::scenario::yaml::syntax_hint(message),
                    crate::scenario::Format::Json => crate::scenario::json::syntax_hint(message),
                };
                if let Some(hint) = hint {
                    write!(f, "; {hint}")?;
                }
                Ok(())
            }
            K::MultipleDocuments => f.write_str(
                "a second yaml document starts here; a scenario file holds exactly one document (one scenario per file)",
            ),
            K::Empty => f.write_str(
                "the file holds no scenario; write a map with at least a `model` list",
            ),
            K::TooDeep { limit } => write!(
                f,
                "lists and maps are nested more than {limit} levels deep; flatten them"
            ),
            K::AliasBudget { limit } => write!(
                f,
                "yaml aliases expand to more than {limit} values; expand fewer aliases (or write the values out)"
            ),
            K::AliasBytes { limit } => write!(
                f,
                "yaml aliases expand to more than {limit} bytes of text (each alias copies its whole value); alias long values fewer times, or write them once"
            ),
            K::ValueBytes { limit } => write!(
                f,
                "the values up to `{}` would take more than {} MiB in memory once read (each value \
                 at least {LEAST} bytes with its parse tree, `0` too: a file may take \
                 {MEMORY_BYTES_PER_FILE_BYTE} times its size, and at least {} MiB); shorten the long \
                 list or map this value is in, or write its data as one string",
                self.0.path,
                limit.div_ceil(1 << 20),
                MEMORY_BYTES_FLOOR >> 20,
            ),
            K::UnsupportedTag { tag } => {
let tag = cut(tag);
write!(
                f,
                "unsupported yaml tag `{tag}` {}; only the core tags (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!seq`, `!!map`) are read",
                self.in_path()
            )
}
            K::NonFiniteNumber { text } => {
let text = cut(text);
write!(
                f,
                "`{text}` {} is not a finite number, which json cannot hold; write a finite number or quote it as a string",
                self.in_path()
            )
}
            K::NonStringKey { found, text } => {
                let shown = match text {
                    Some(t) => format!(" `{}`", cut(t)),
                    None => String::new(),
                };
                write!(
                    f,
                    "map keys must be strings, found {found}{shown} {}; quote the key",
                    self.in_path()
                )
            }
            K::DuplicateKey {
                key,
                first_line,
                first_column,
            } => {
let key = cut(key);
write!(
                f,
                "duplicate key `{key}` {} (first defined at {first_line}:{first_column}); keep only one",
                self.in_parent()
            )
}
            K::UnknownKey {
                key,
                suggestion,
                valid,
            } => {
let key = cut(key);
write!(
                f,
                "unknown key `{key}` {}; {}",
                self.in_parent(),
                did_you_mean(suggestion.as_ref(), valid, "keys")
            )
}
            K::WrongType { expected, found } => {
                write!(f, "expected {expected} {}, found {found}", self.for_path())
            }
            K::MissingKey { key } => {
                write!(f, "missing required key `{key}` {}", self.in_path())?;
                if key == "model" && self.0.path.is_empty() {
                    f.write_str(
                        "; add `model:` with the chat generator's scripted replies, one per llm call",
                    )?;
                }
                Ok(())
            }
            K::UnsupportedVersion { found, supported } => {
                let list = supported
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>();
                write!(
                    f,
                    "unsupported scenario format `version: {found}`; this harness reads version {}",
                    list.join(", ")
                )
            }
            K::UnknownVariant {
                value,
                suggestion,
                valid,
            } => f.write_str(&invalid_value_for(
                value,
                &self.for_path(),
                suggestion.as_deref(),
                valid,
            )),
            K::ErrorWithOtherKeys { keys } => write!(
                f,
                "an `error` reply takes no other key; remove {} from `{}` (or script it as a reply of its own)",
                tick_list(keys),
                self.0.path
            ),
            K::UnknownHookKind { keys, suggestion } => {
                let found = if keys.is_empty() {
                    "an empty map".to_owned()
                } else {
                    format!("keys {}", tick_list(keys))
                };
                let kinds = "a declarative hook (`name`, `when`, `do`, `allowed_hook_points`), a ready-made hook (`token_budget`, `tool_result_offload`, `compaction` or `confirmation`, with an optional `name`), `shared: NAME` or `custom: NAME`";
                write!(f, "{} is none of the hook kinds ({found}); ", self.path_or_entry())?;
                match suggestion {
                    Some(s) => write!(f, "did you mean `{s}`? (the kinds: {kinds})"),
                    None => write!(f, "write {kinds}"),
                }
            }
            K::ConflictingHookKinds { keys } => write!(
                f,
                "{} mixes the keys of several hook kinds ({}); keep one kind per entry",
                self.path_or_entry(),
                tick_list(keys)
            ),
            K::ActionShape { keys } => write!(
                f,
                "each `do` action is a map with exactly one key, found {} {}; write one action per list item",
                if keys.is_empty() {
                    "none".to_owned()
                } else {
                    tick_list(keys)
                },
                self.in_path()
            ),
            K::UnknownAction { action, suggestion } => {
let action = cut(action);

                write!(f, "unknown action `{action}` {}; ", self.in_parent())?;
                match suggestion {
                    Some(s) => write!(f, "did you mean `{s}`?"),
                    None => write!(f, "valid actions are {}", tick_list(crate::scenario::action::ACTIONS)),
                }
            }
            K::NeedsOneOf { keys, exactly } => write!(
                f,
                "{} takes {} of {}",
                self.path_or_entry(),
                if *exactly { "exactly one" } else { "at least one" },
                tick_list(keys)
            ),
            K::UnknownSharedHook {
                name,
                suggestion,
                defined,
            } => {
let name = cut(name);
write!(
                f,
                "unknown shared hook `{name}` {}; define it under `shared_hooks` or fix the name ({})",
                self.in_path(),
                did_you_mean(suggestion.as_ref(), defined, "shared hooks")
            )
}
            K::NestedSharedHook => write!(
                f,
                "{} is itself `shared: NAME`; define a shared hook as a declarative, ready-made or custom hook",
                self.path_or_entry()
            ),
            K::UnknownStateKey {
                key,
                suggestion,
                schema_keys,
            } => {
let key = cut(key);
write!(
                f,
                "`run.state` key `{key}` is not declared in `agent.state_schema`; declare it there or remove it ({})",
                did_you_mean(suggestion.as_ref(), schema_keys, "schema keys")
            )
            }
            K::VariableAlsoInState { name } => {
                let name = cut(name);
                write!(
                    f,
                    "`{name}` is given in both `run.state` and `run.variables`; both are keyword arguments of `Agent.run`, so give it once"
                )
            }
            K::VariableIsRunParameter { name } => write!(
                f,
                "`run.variables` cannot name `{name}`, a parameter of `Agent.run`; rename the template variable (Haystack rejects it too)"
            ),
            K::MixedMatcherKeys {
                key,
                matchers,
                suggestion,
            } => {
                let key = cut(key);
                let verb = if matchers.len() == 1 { "is" } else { "are" };
                let words = tick_list(crate::scenario::pattern::MATCHER_WORDS);
                let literal = "write a literal map with such keys as `{equals: {...}}`";
                write!(f, "`{key}` is not a matcher key, yet {} {verb}: ", tick_list(matchers))?;
                match suggestion {
                    Some(s) => write!(f, "did you mean `{s}`? (matchers take {words}; {literal})"),
                    None => write!(f, "matchers take {words}; {literal}"),
                }
            }
            K::MatcherCombination { keys } => write!(
                f,
                "{} combines the matchers {}; only `gte` and `lte` combine, so keep one of the others",
                self.path_or_value(),
                tick_list(keys)
            ),
            K::MatcherOnWrongType {
                matcher,
                accepts,
                holds,
            } => {
                let at = match self.0.path.rfind('.') {
                    Some(end) => format!("`{}`", &self.0.path[..end]),
                    None => "this value".to_owned(),
                };
                write!(
                    f,
                    "`{matcher}` applies to {accepts}, and {at} holds {holds}; write a plain value, `equals` or `absent`"
                )
            }
            K::RequiredVariablesString { value } => {
                let value = cut(value);
                write!(
                    f,
                    "`agent.required_variables` is `{value}`; write `\"*\"` (every variable), a list of names, or null (none)"
                )
            }
            K::PythonTarget { value } => {
                let value = cut(value);
                write!(
                    f,
                    "`python` is `{value}`; write the module and the object as `package.module:name` (the form of an entry point)"
                )
            }
            K::UnknownModel {
                name,
                suggestion,
                defined,
            } => {
                let name = cut(name);
                write!(
                    f,
                    "no model script `{name}` {}; {} (define it under the top-level `models`)",
                    self.for_path(),
                    did_you_mean(suggestion.as_ref(), defined, "scripts")
                )
            }
            K::ReservedModelName => write!(
                f,
                "`model` names the main script {}; give this script another name",
                self.in_parent()
            ),
            K::AgentPythonWithKeys { keys } => write!(
                f,
                "`agent.python` builds the Agent from your code, so {} cannot be set here; set them in your factory, or pass them through `agent.args`",
                tick_list(keys)
            ),
            K::AgentCustomWithKeys { keys } => write!(
                f,
                "`agent.custom` takes the Agent your test registers (the pytest plugin's `hookharness_agents` fixture), so {} cannot be set here; set them where you build that Agent",
                tick_list(keys)
            ),
            K::PythonPathNul { value } => {
                let value = cut(&value.replace('\0', "\\0"));
                write!(
                    f,
                    "the `python_path` entry `{value}` holds a NUL character, which no folder's path can; write the folder relative to this file"
                )
            }
            K::ClockFormat { value } => {
                let value = cut(value);
                write!(
                    f,
                    "`clock` is `{value}`; write an ISO 8601 date or date and time, such as `2026-03-01T09:00:00+00:00`"
                )
            }
            K::Prepare { message } | K::Sees { message } => f.write_str(message),
            K::Python { message, hint } => match hint {
                Some(hint) => write!(f, "{message} — {hint}"),
                None => f.write_str(message),
            },
            // Haystack's text whole, so that it stays a substring of this
            // one (the outcome contract compares error texts by substring).
            K::Construction { error, hint } => write!(
                f,
                "the Agent cannot be built: {error} — {} (or expect the error with \
                 `expect.error` to test it)",
                hint.as_deref().unwrap_or("fix the scenario")
            ),
        }
    }

    /// `` `expect.state.count` `` or `the value`.
    fn path_or_value(&self) -> String {
        if self.0.path.is_empty() {
            "the value".to_owned()
        } else {
            format!("`{}`", self.0.path)
        }
    }

    /// `` `hooks.before_llm[0]` `` or `the entry`.
    fn path_or_entry(&self) -> String {
        if self.0.path.is_empty() {
            "the entry".to_owned()
        } else {
            format!("`{}`", self.0.path)
        }
    }
}

#[cfg(test)]
mod parent_tests {
    use super::parent_end;

    #[test]
    fn the_parent_of_a_key_path_ends_before_its_last_step() {
        for (path, parent) in [
            ("agent", ""),
            ("agent.max_steps", "agent"),
            ("hooks.on_exit[0].do", "hooks.on_exit[0]"),
            ("[\"agen\\\"\"]", ""),
            ("agent[\"a.b\"]", "agent"),
            ("agent[\"a[b\"].x", "agent[\"a[b\"]"),
            (
                "run.state[\"a.b... (3 more characters)].x",
                "run.state[\"a.b... (3 more characters)]",
            ),
            (
                "agent.aaaa... (3 more characters).x",
                "agent.aaaa... (3 more characters)",
            ),
        ] {
            assert_eq!(&path[..parent_end(path)], parent, "{path}");
        }
    }
}
