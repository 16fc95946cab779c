//! The request for one scenario: the scenario as the Rust writer writes it
//! (already validated: the worker never reads a file), where it lives, and
//! the names its hooks carry in the trace.

use serde_json::{Map, Value, json};

use super::super::RecordOptions;
use crate::outcome::Detail;
use crate::scenario::{HookEntry, Scenario};

pub(super) fn body(scenario: &Scenario, options: RecordOptions) -> Value {
    let file = scenario
        .file
        .as_ref()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    let dir = scenario
        .file
        .as_ref()
        .and_then(|f| std::path::absolute(f).ok())
        .and_then(|f| f.parent().map(|p| p.display().to_string()))
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string())
        })
        .unwrap_or_default();
    json!({
        "scenario": worker_value(scenario),
        "file": file,
        "dir": dir,
        "hook_names": hook_names(scenario),
        "detail": match options.detail {
            Detail::Full => "full",
            _ => "summary",
        },
        "keep_requests": options.keep_requests || !scenario.sees.is_empty(),
    })
}

/// The scenario as the worker reads it: [`Scenario::to_value`] without
/// what only this side reads (`description`, `expect`: about a quarter of
/// a corpus scenario's request, parsed by the worker for nothing).
fn worker_value(scenario: &Scenario) -> Value {
    let mut value = scenario.to_value();
    if let Value::Object(map) = &mut value {
        map.shift_remove("description");
        map.shift_remove("expect");
    }
    value
}

/// Each `hooks` entry's trace name, per point in order: its `name`, else
/// (for a `shared:` entry) the definition's name or key, else the Python
/// object's name, else `POINT#INDEX`, as the Rust engine names them.
pub(crate) fn hook_names(scenario: &Scenario) -> Value {
    let mut out = Map::new();
    for (point, entries) in &scenario.hooks {
        let names = entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let fallback = format!("{point}#{index}");
                let name = match entry {
                    HookEntry::Shared(key) => scenario
                        .shared_hooks
                        .get(key)
                        .map_or_else(|| key.clone(), |definition| definition.trace_name(key)),
                    other => other.trace_name(&fallback),
                };
                Value::String(name)
            })
            .collect();
        out.insert(point.clone(), Value::Array(names));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Format;

    #[test]
    fn the_worker_is_not_sent_what_only_this_side_reads() {
        let text = "version: 1\nname: n\ndescription: what it shows\nmodel:\n  - text: hi\nrun:\n  messages:\n    - {role: user, text: q}\nexpect:\n  llm_calls: 1\n";
        let scenario =
            Scenario::from_str(text, "inline.yaml", Format::Yaml).expect("a valid scenario");
        let whole = scenario.to_value();
        assert!(whole.get("description").is_some() && whole.get("expect").is_some());
        let sent = body(&scenario, RecordOptions::default())["scenario"].clone();
        assert_eq!(sent.get("description"), None);
        assert_eq!(sent.get("expect"), None);
        let mut rest = whole;
        if let Value::Object(map) = &mut rest {
            map.shift_remove("description");
            map.shift_remove("expect");
        }
        assert_eq!(
            sent, rest,
            "the request lost more than description and expect"
        );
    }
}
