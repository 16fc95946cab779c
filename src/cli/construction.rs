//! `check`'s report of the Agent construction errors a file alone decides
//! (Haystack's `Agent(...)` would raise them before the first step), each
//! at the key it comes from when the error names one.
//!
//! The Agent stops at its first error; to report every one, the cause of
//! each is taken out of a copy of the scenario and the Agent is built
//! again, so that the Agent's own checks stay the one source of truth.

use crate::agent::AgentError;
use crate::hook::HookPoint;
use crate::replay::Replay;
use crate::scenario::{KeyPath, Located, Scenario, closest};
use std::path::Path;

/// At most this many construction errors are reported for one file.
const MAX_REPORTED: usize = 32;

/// One line per construction error, in the order the Agent meets them:
/// `FILE[:LINE:COLUMN]: the Agent cannot be built: ERROR; HINT (or expect
/// the error with `expect.error` to test it)`.
pub(super) fn messages(replay: &Replay, file: &Path, scenario: &Scenario) -> Vec<String> {
    let located = Located::read(file);
    let mut scenario = scenario.clone();
    let mut out = Vec::new();
    while out.len() < MAX_REPORTED {
        let Some(error) = replay.unexpected_construction_error(&scenario) else {
            break;
        };
        let cause = cause(replay, &scenario, &error);
        let position = cause
            .place
            .as_ref()
            .and_then(|place| located.as_ref()?.position(place));
        out.push(message(file, position, &error, cause.hint.as_deref()));
        match cause.without {
            Some(without) if without != scenario => scenario = without,
            _ => break,
        }
    }
    out
}

/// Where an error comes from, what to suggest, and the scenario without it.
struct Cause {
    place: Option<KeyPath>,
    hint: Option<String>,
    without: Option<Scenario>,
}

fn cause(replay: &Replay, scenario: &Scenario, error: &AgentError) -> Cause {
    let hooks = KeyPath::default().key("hooks");
    match error {
        AgentError::InvalidHookPoint(invalid) => {
            let names = HookPoint::ALL.map(HookPoint::as_str);
            let mut without = scenario.clone();
            without.hooks.shift_remove(&invalid.0);
            Cause {
                place: Some(hooks.key(&invalid.0)),
                hint: closest(&invalid.0, names).map(|name| format!("did you mean `{name}`?")),
                without: Some(without),
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
            }
        }
        AgentError::HookNotAllowed(not_allowed) => {
            // The entry whose removal changes the error is the one refused.
            let point = not_allowed.point.as_str();
            let count = scenario.hooks.get(point).map_or(0, Vec::len);
            let culprit = (0..count).find_map(|i| {
                let mut without = scenario.clone();
                without.hooks[point].remove(i);
                (replay.unexpected_construction_error(&without).as_ref() != Some(error))
                    .then_some((i, without))
            });
            Cause {
                place: culprit.as_ref().map(|(i, _)| hooks.key(point).index(*i)),
                hint: Some(format!(
                    "register the hook at one of its points ({})",
                    not_allowed.allowed
                )),
                without: culprit.map(|(_, without)| without),
            }
        }
        _ => Cause {
            place: None,
            hint: None,
            without: None,
        },
    }
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
    let error = error.to_string();
    format!(
        "{place}: the Agent cannot be built: {}; {} (or expect the error with \
         `expect.error` to test it)",
        error.trim_end_matches('.'),
        hint.unwrap_or("fix the scenario")
    )
}
