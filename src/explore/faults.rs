//! The fault dimension (opt-in): a tool call that errors, a model call that
//! errors, a hook that fails, each at one place the scenario as written
//! reaches, one fault per variant.
//!
//! Faults are written into the scenario, so a variant replays from its
//! file: the tool's k-th scripted result becomes `{error: ...}`, the model's
//! k-th reply `{error: ...}`, and a hook's failure a declarative hook
//! placed just before it that fails when `step_count` is the value that
//! hook saw at that run (`when: {step_count: S}, do: [{fail: ...}]`).

use crate::outcome::{Outcome, TraceKind};
use crate::scenario::{Format, Scenario};
use serde_json::Value;
use std::collections::HashMap;

/// One place a fault goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The `call`-th call (0-based) of `tool` errors.
    Tool { tool: String, call: usize },
    /// The `call`-th model call (0-based) errors.
    Model { call: usize },
    /// The hook at `point`/`index` fails when it runs at `step`.
    Hook {
        point: String,
        index: usize,
        hook: String,
        step: i64,
    },
}

/// The text every injected fault raises.
pub(crate) const FAULT_TEXT: &str = "explore: injected fault";

impl Fault {
    /// Every place a fault can go, from the run of the scenario as written.
    pub(crate) fn places(as_written: &Outcome) -> Vec<Fault> {
        let mut faults = Vec::new();
        let mut tool_calls: HashMap<&str, usize> = HashMap::new();
        let mut model_calls = 0;
        for event in &as_written.trace {
            match &event.kind {
                TraceKind::HookStarted { point, index, hook } => {
                    if let Some(step) = event.step().and_then(Value::as_i64) {
                        faults.push(Fault::Hook {
                            point: point.as_str().to_owned(),
                            index: *index,
                            hook: hook.clone(),
                            step,
                        });
                    }
                }
                TraceKind::LlmStarted { model: None, .. } => {
                    faults.push(Fault::Model { call: model_calls });
                    model_calls += 1;
                }
                TraceKind::ToolFinished { tool, .. } => {
                    let seen = tool_calls.entry(tool.as_str()).or_default();
                    faults.push(Fault::Tool {
                        tool: tool.clone(),
                        call: *seen,
                    });
                    *seen += 1;
                }
                _ => {}
            }
        }
        faults
    }

    /// What the fault does, for reports.
    pub(crate) fn describe(&self) -> String {
        match self {
            Fault::Tool { tool, call } => {
                format!("fault: call {} of tool `{tool}` errors", call + 1)
            }
            Fault::Model { call } => format!("fault: model call {} errors", call + 1),
            Fault::Hook {
                point, hook, step, ..
            } => format!("fault: hook `{hook}` fails at {point} (step {step})"),
        }
    }

    /// `scenario` with the fault written in; `None` when the place is not
    /// in the file (a tool or a reply it does not script).
    pub(crate) fn apply(&self, scenario: &mut Scenario) -> Option<()> {
        match self {
            Fault::Tool { tool, call } => {
                let error = template(&format!(
                    "tools: [{{name: t, results: [{{error: \"{FAULT_TEXT}\"}}]}}]\nmodel: []"
                ))
                .tools
                .remove(0)
                .results
                .remove(0);
                let script = scenario.tools.iter_mut().find(|t| &t.name == tool)?;
                while script.results.len() <= *call {
                    let last = script.results.last()?.clone();
                    script.results.push(last);
                }
                script.results[*call] = error;
            }
            Fault::Model { call } => {
                let error = template(&format!("model: [{{error: \"{FAULT_TEXT}\"}}]"))
                    .model
                    .remove(0);
                *scenario.model.get_mut(*call)? = error;
            }
            Fault::Hook {
                point,
                index,
                hook,
                step,
            } => {
                let text = serde_json::json!({
                    "hooks": {point.as_str(): [{
                        "name": "fault",
                        "when": {"step_count": step},
                        "do": [{"fail": format!("{FAULT_TEXT} in hook `{hook}`")}],
                    }]},
                    "model": [],
                });
                let entry = template(&text.to_string())
                    .hooks
                    .swap_remove(point.as_str())?
                    .remove(0);
                let entries = scenario.hooks.get_mut(point.as_str())?;
                entries.insert((*index).min(entries.len()), entry);
            }
        }
        Some(())
    }
}

/// A scenario read from text the explorer writes itself.
fn template(text: &str) -> Scenario {
    match Scenario::from_str(text, "fault.yaml", Format::Yaml) {
        Ok(scenario) => scenario,
        Err(error) => unreachable!("the fault template does not load: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Replay;

    #[test]
    fn every_hook_run_model_call_and_tool_call_is_a_place_for_a_fault() {
        let scenario = Scenario::from_str(
            "tools: [{name: search, results: [found], repeat_last: true}]\n\
             hooks: {before_llm: [{name: guard}]}\n\
             model: [{tool_calls: [{tool: search}, {tool: search}]}, {text: done}]",
            "faults.yaml",
            Format::Yaml,
        )
        .unwrap();
        let places = Fault::places(&Replay::new().run(&scenario));
        let described: Vec<String> = places.iter().map(Fault::describe).collect();
        assert_eq!(
            described,
            [
                "fault: hook `guard` fails at before_llm (step 0)",
                "fault: model call 1 errors",
                "fault: call 1 of tool `search` errors",
                "fault: call 2 of tool `search` errors",
                "fault: hook `guard` fails at before_llm (step 1)",
                "fault: model call 2 errors",
            ]
        );
        // The second call of a repeat_last tool gets its own scripted error.
        let mut faulted = scenario.clone();
        places[3].apply(&mut faulted).unwrap();
        assert_eq!(faulted.tools[0].results.len(), 2);
        let outcome = Replay::new().run(&faulted);
        let errors: Vec<bool> = outcome
            .trace
            .iter()
            .filter_map(|e| match &e.kind {
                TraceKind::ToolFinished { error, .. } => Some(*error),
                _ => None,
            })
            .collect();
        assert_eq!(errors, [false, true]);
        // A hook fault fails the run at that hook's run, not before.
        let mut faulted = scenario.clone();
        places[4].apply(&mut faulted).unwrap();
        let outcome = Replay::new().run(&faulted);
        let error = outcome.error.clone().unwrap();
        assert!(
            error
                .message
                .contains("explore: injected fault in hook `guard`"),
            "{error:?}"
        );
        assert_eq!(
            outcome.wire_trace().filter(|e| e["event"] == "llm").count(),
            1
        );
    }
}
