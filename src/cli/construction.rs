//! The report of the Agent construction errors a file alone decides
//! (Haystack's `Agent(...)` would raise them before the first step), each
//! at the key it comes from when the error names one: `check` prints it,
//! and every other command that reads scenario files reports such a file
//! as invalid with the same lines (`checked`).
//!
//! The Agent stops at its first error; to report every one, the cause of
//! each is taken out of a copy of the scenario and the Agent is built
//! again, so that the Agent's own checks stay the one source of truth.

use crate::agent::AgentError;
use crate::hook::HookPoint;
use crate::outcome::{ErrorKind, Outcome, RunError, Status};
use crate::prompt::PromptError;
use crate::replay::{PrepareError, Replay};
use crate::scenario::{KeyPath, Located, Scenario, closest, located};
use std::path::Path;

/// At most this many construction errors are reported for one file.
const MAX_REPORTED: usize = 32;

/// Every error `check` reports for a scenario that loaded: a mistake only
/// preparing the run sees (a ready-made hook's parameters, an undefined
/// `shared:` name), else each Agent construction error the file decides.
/// Empty when the file is valid.
pub(super) fn file_errors(replay: &Replay, file: &Path, scenario: &Scenario) -> Vec<String> {
    match replay.validate(scenario) {
        Err(PrepareError::Invalid {
            message,
            place,
            at_value,
        }) => vec![format!(
            "{}: {message}",
            located(file, place.as_deref(), at_value)
        )],
        Err(error) => vec![format!("{}: {error}", file.display())],
        Ok(()) => messages(replay, file, scenario),
    }
}

/// `outcome`, or, when its run could not start because of an Agent
/// construction error the file decides (and does not expect), the file's
/// invalid outcome, with `check`'s messages: the command line reports such
/// a file as `check` does, whatever command reads it. The expectations'
/// verdicts stay those of the failed run (trace-based ones checked against
/// its empty trace, result-based ones failing with "no result to check"),
/// as for any run that fails.
pub(super) fn checked(
    replay: &Replay,
    file: &Path,
    scenario: &Scenario,
    outcome: Outcome,
) -> Outcome {
    // Either engine: a Haystack engine's construction error is located by
    // the same Rust construction of the file (a scenario with Python code
    // has none, and keeps Haystack's text).
    match invalid(replay, file, scenario, &outcome) {
        Some(errors) => Outcome {
            status: Status::Invalid,
            error: Some(RunError::invalid(errors.join("\n"))),
            result: None,
            ..outcome
        },
        None => outcome,
    }
}

/// `check`'s messages for `outcome`'s file when its run ended in a
/// construction error the file decides; `None` for any other outcome.
fn invalid(
    replay: &Replay,
    file: &Path,
    scenario: &Scenario,
    outcome: &Outcome,
) -> Option<Vec<String>> {
    let kind = &outcome.error.as_ref()?.kind;
    let before_the_run = matches!(
        kind,
        ErrorKind::Construction | ErrorKind::ReservedStateKeys | ErrorKind::UnregisteredHook { .. }
    );
    if outcome.status != Status::Error || !before_the_run {
        return None;
    }
    let errors = messages(replay, file, scenario);
    (!errors.is_empty()).then_some(errors)
}

/// One line per construction error, in the order the Agent meets them:
/// `FILE[:LINE:COLUMN]: the Agent cannot be built: ERROR — HINT (or expect
/// the error with `expect.error` to test it)`.
fn messages(replay: &Replay, file: &Path, scenario: &Scenario) -> Vec<String> {
    let located = Located::read(file);
    let mut scenario = scenario.clone();
    let mut out = Vec::new();
    while out.len() < MAX_REPORTED {
        let Some(error) = replay.unexpected_construction_error(&scenario) else {
            break;
        };
        let cause = cause(replay, &scenario, &error);
        let position = cause.place.as_ref().and_then(|place| {
            let located = located.as_ref()?;
            if !cause.at_value {
                return located.position(place);
            }
            let value = located.value_position(place)?;
            let inside = cause
                .template_line
                .and_then(|line| literal_block_line(file, located.position(place)?, value, line));
            Some(inside.unwrap_or(value))
        });
        out.push(message(file, position, &error, cause.hint.as_deref()));
        match cause.without {
            Some(without) if without != scenario => scenario = without,
            _ => break,
        }
    }
    out
}

/// Where an error comes from, what to suggest, and the scenario without it.
#[derive(Default)]
struct Cause {
    place: Option<KeyPath>,
    /// The position is the value's (a template), not its key's.
    at_value: bool,
    /// The line of the template the template engine names.
    template_line: Option<usize>,
    hint: Option<String>,
    without: Option<Scenario>,
}

/// The first hook entry whose removal changes `error`: the one it is about.
fn culprit_hook(
    replay: &Replay,
    scenario: &Scenario,
    error: &AgentError,
) -> Option<(KeyPath, Scenario)> {
    scenario.hooks.iter().find_map(|(point, entries)| {
        (0..entries.len()).find_map(|i| {
            let mut without = scenario.clone();
            without.hooks[point.as_str()].remove(i);
            (replay.unexpected_construction_error(&without).as_ref() != Some(error)).then(|| {
                let place = KeyPath::default().key("hooks").key(point).index(i);
                (place, without)
            })
        })
    })
}

/// The prompt (`system_prompt` or `user_prompt`) whose removal changes `error`.
fn culprit_prompt(
    replay: &Replay,
    scenario: &Scenario,
    error: &AgentError,
) -> Option<(KeyPath, Scenario)> {
    let mut without_system = scenario.clone();
    let mut without_user = scenario.clone();
    let candidates = [
        (
            "system_prompt",
            without_system
                .agent
                .system_prompt
                .take()
                .map(|_| without_system),
        ),
        (
            "user_prompt",
            without_user.agent.user_prompt.take().map(|_| without_user),
        ),
    ];
    candidates.into_iter().find_map(|(key, without)| {
        let without = without?;
        (replay.unexpected_construction_error(&without).as_ref() != Some(error))
            .then(|| (KeyPath::default().key("agent").key(key), without))
    })
}

fn cause(replay: &Replay, scenario: &Scenario, error: &AgentError) -> Cause {
    match error {
        AgentError::InvalidHookPoint(invalid) => {
            let names = HookPoint::ALL.map(HookPoint::as_str);
            let mut without = scenario.clone();
            without.hooks.shift_remove(&invalid.0);
            Cause {
                place: Some(KeyPath::default().key("hooks").key(&invalid.0)),
                hint: closest(&invalid.0, names).map(|name| format!("did you mean `{name}`?")),
                without: Some(without),
                ..Cause::default()
            }
        }
        AgentError::DuplicateToolNames { .. } => {
            let mut seen = std::collections::HashSet::new();
            let second = scenario
                .tools
                .iter()
                .position(|tool| !seen.insert(tool.name.as_str()));
            let mut seen = std::collections::HashSet::new();
            let mut without = scenario.clone();
            without.tools.retain(|tool| seen.insert(tool.name.clone()));
            Cause {
                place: second.map(|j| KeyPath::default().key("tools").index(j).key("name")),
                hint: Some("rename or remove one of the tools".to_owned()),
                without: Some(without),
                ..Cause::default()
            }
        }
        AgentError::HookNotAllowed(not_allowed) => {
            // The entry whose removal changes the error is the one refused.
            let (place, without) = culprit_hook(replay, scenario, error).unzip();
            Cause {
                place,
                hint: Some(if not_allowed.allowed.is_empty() {
                    "its `allowed_hook_points` is empty, so no point takes it: list this \
                     point there, or remove the hook"
                        .to_owned()
                } else {
                    format!(
                        "register the hook at one of its points ({})",
                        not_allowed.allowed
                    )
                }),
                without,
                ..Cause::default()
            }
        }
        AgentError::HookParameters(_) => {
            let (place, without) = culprit_hook(replay, scenario, error).unzip();
            Cause {
                place,
                hint: Some("fix the hook's parameters".to_owned()),
                without,
                ..Cause::default()
            }
        }
        AgentError::Prompt(prompt) => {
            let (place, without) = culprit_prompt(replay, scenario, error).unzip();
            let template_line = match prompt {
                PromptError::Syntax { line, .. } => *line,
                _ => None,
            };
            Cause {
                place,
                at_value: true,
                template_line,
                hint: Some("fix the template".to_owned()),
                without,
            }
        }
        AgentError::ToolConcurrencyLimit => {
            let mut without = scenario.clone();
            without.agent.tool_concurrency_limit = 1;
            Cause {
                place: Some(
                    KeyPath::default()
                        .key("agent")
                        .key("tool_concurrency_limit"),
                ),
                hint: Some("set it to 1 or more".to_owned()),
                without: Some(without),
                ..Cause::default()
            }
        }
        AgentError::ReservedStateKeys { .. } => {
            let mut without = scenario.clone();
            without
                .agent
                .state_schema
                .retain(|key, _| !crate::state::keys::RESERVED_KEYS.contains(&key.as_str()));
            Cause {
                place: Some(KeyPath::default().key("agent").key("state_schema")),
                hint: Some("rename the reserved keys in `agent.state_schema`".to_owned()),
                without: Some(without),
                ..Cause::default()
            }
        }
        _ => Cause::default(),
    }
}

/// Where line `line` of a template written as a YAML literal block (`|`)
/// is in the file, the block starting at `value` under the key at `key`:
/// a literal block keeps the template's lines one for one. `None` for any
/// other way of writing it (quoted or folded text joins lines).
fn literal_block_line(
    file: &Path,
    key: (usize, usize),
    value: (usize, usize),
    line: usize,
) -> Option<(usize, usize)> {
    let text = std::fs::read_to_string(file).ok()?;
    let key_line = text.lines().nth(key.0.checked_sub(1)?)?;
    let from_key: String = key_line.chars().skip(key.1.saturating_sub(1)).collect();
    let (_, indicator) = from_key.split_once(':')?;
    let first_content = text.lines().nth(key.0)?.trim().is_empty();
    (indicator.trim_start().starts_with('|') && !first_content && value.0 == key.0 + 1)
        .then(|| (value.0 + line - 1, value.1))
}

fn message(
    file: &Path,
    position: Option<(usize, usize)>,
    error: &AgentError,
    hint: Option<&str>,
) -> String {
    let place = match position {
        Some((line, column)) => format!("{}:{line}:{column}", file.display()),
        None => file.display().to_string(),
    };
    // Haystack's text whole, so that it stays a substring of this one (the
    // outcome contract compares error texts by substring).
    format!(
        "{place}: the Agent cannot be built: {error} — {} (or expect the error with \
         `expect.error` to test it)",
        hint.unwrap_or("fix the scenario")
    )
}
