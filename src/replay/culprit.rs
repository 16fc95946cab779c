//! Each Agent construction error a file decides, at the key it comes from
//! when the error names one, with what to change.
//!
//! The Agent stops at its first error; to report every one, the cause of
//! each is taken out of a copy of the scenario and the Agent is built
//! again, so that the Agent's own checks stay the one source of truth.

use super::Replay;
use crate::agent::AgentError;
use crate::hook::HookPoint;
use crate::prompt::PromptError;
use crate::scenario::{KeyPath, Scenario, ScenarioError, ScenarioErrorKind};
use crate::wording::closest;

/// At most this many construction errors are reported for one file.
const MAX_REPORTED: usize = 32;

/// One error per construction error, in the order the Agent meets them;
/// empty when the Agent builds or `expect.error` expects its error.
pub(super) fn construction_errors(replay: &Replay, scenario: &Scenario) -> Vec<ScenarioError> {
    let file = super::validity::file_name(scenario);
    let source = &scenario.source;
    let mut scenario = scenario.clone();
    let mut entries = Entries::of(&scenario);
    let mut out: Vec<ScenarioError> = Vec::new();
    let mut seen: Vec<(String, Option<String>)> = Vec::new();
    // One build per error, so at most this many builds.
    for _ in 0..MAX_REPORTED {
        let Some(error) = replay.unexpected_construction_error(&scenario) else {
            break;
        };
        let mut cause = cause(replay, &scenario, &error);
        if let Some((point, index)) = cause.hook.take() {
            cause.place = Some(entries.remove(&point, index));
        }
        let position = cause.place.as_ref().and_then(|place| {
            if !cause.at_value {
                return source.position(place);
            }
            let value = source.value_position(place)?;
            let inside = cause
                .template_line
                .and_then(|line| source.line_of_value(place, line));
            Some(inside.unwrap_or(value))
        });
        let path = cause
            .place
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        // An error met again (entries that are copies of each other) is
        // reported once, at the first place it comes from.
        let said = (error.to_string(), cause.hint.clone());
        if !seen.contains(&said) {
            seen.push(said);
            let kind = ScenarioErrorKind::Construction {
                error,
                hint: cause.hint,
            };
            out.push(
                ScenarioError::new(kind, &file)
                    .with_path(path)
                    .at_position(position),
            );
        }
        match cause.without {
            Some(without) if without != scenario => scenario = without,
            _ => break,
        }
    }
    out
}

/// Which entry of the file each hook entry of a reduced copy of the
/// scenario is: entries taken out for an earlier error shift the later
/// ones, whose errors are reported at their place in the file.
struct Entries(std::collections::HashMap<String, Vec<usize>>);

impl Entries {
    fn of(scenario: &Scenario) -> Self {
        Entries(
            scenario
                .hooks
                .iter()
                .map(|(point, entries)| (point.clone(), (0..entries.len()).collect()))
                .collect(),
        )
    }

    /// The file's key path of the entry at `index` of `point` in the
    /// reduced copy, which is then taken out of it.
    fn remove(&mut self, point: &str, index: usize) -> KeyPath {
        let in_file = self
            .0
            .get_mut(point)
            .filter(|origins| index < origins.len())
            .map_or(index, |origins| origins.remove(index));
        KeyPath::default().key("hooks").key(point).index(in_file)
    }
}

/// Where an error comes from, what to suggest, and the scenario without it.
#[derive(Default)]
struct Cause {
    place: Option<KeyPath>,
    /// The hook entry (point, index in the reduced copy) the error is
    /// about, taken out of `without`; its place is the file's.
    hook: Option<(String, usize)>,
    /// The position is the value's (a template), not its key's.
    at_value: bool,
    /// The line of the template the template engine names.
    template_line: Option<usize>,
    hint: Option<String>,
    without: Option<Scenario>,
}

/// The entry of `point` the Agent refused with `error`: the first one that,
/// with the entries after it removed, still gives `error` (the Agent meets
/// a point's entries in order). Found in a number of builds logarithmic in
/// the point's entries, so a file of many hooks is not built once per hook.
fn refused_hook(
    replay: &Replay,
    scenario: &Scenario,
    point: &str,
    error: &AgentError,
) -> Option<((String, usize), Scenario)> {
    let entries = scenario.hooks.get(point)?;
    let gives_error = |kept: usize| {
        let mut prefix = scenario.clone();
        prefix.hooks[point].truncate(kept);
        replay.unexpected_construction_error(&prefix).as_ref() == Some(error)
    };
    // The smallest count of entries kept that gives the error.
    let (mut low, mut high) = (0, entries.len());
    if !gives_error(high) {
        return None;
    }
    while low < high {
        let middle = low + (high - low) / 2;
        if gives_error(middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    let index = low.checked_sub(1)?;
    let mut without = scenario.clone();
    without.hooks[point].remove(index);
    Some(((point.to_owned(), index), without))
}

/// The first hook entry whose removal changes `error`: the one it is about.
/// An entry equal to the one before it is skipped: its removal gives the
/// same scenario.
fn culprit_hook(
    replay: &Replay,
    scenario: &Scenario,
    error: &AgentError,
) -> Option<((String, usize), Scenario)> {
    scenario.hooks.iter().find_map(|(point, entries)| {
        (0..entries.len()).find_map(|i| {
            if i > 0 && entries[i] == entries[i - 1] {
                return None;
            }
            let mut without = scenario.clone();
            without.hooks[point.as_str()].remove(i);
            (replay.unexpected_construction_error(&without).as_ref() != Some(error))
                .then(|| ((point.clone(), i), without))
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
            let (hook, without) = refused_hook(replay, scenario, not_allowed.point.as_str(), error)
                .or_else(|| culprit_hook(replay, scenario, error))
                .unzip();
            Cause {
                hook,
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
            let (hook, without) = culprit_hook(replay, scenario, error).unzip();
            Cause {
                hook,
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
                ..Cause::default()
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
