//! What `hookharness import` replaces in an imported Agent so that the
//! skeleton passes its own `check`: the parts of a Haystack Agent that a
//! scenario run refuses (a console that asks a person, a file store whose
//! absolute paths would enter the conversation), each with its scenario
//! stand-in. The importer says what it replaced in a comment.

use crate::hooks::confirmation::{NeverAskPolicy, ScriptedConfirmationUI, SimpleConsoleUI};
use crate::hooks::offload::{FileSystemToolResultStore, InMemoryToolResultStore};
use crate::scenario::{HookEntry, ReadyMadeKind};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

/// Replaces, in the hooks, what a scenario run refuses; returns one line
/// per replacement: where, what and what to do next.
pub(super) fn substitute(hooks: &mut IndexMap<String, Vec<HookEntry>>) -> Vec<String> {
    let mut notes = Vec::new();
    for (point, entries) in hooks.iter_mut() {
        for (index, entry) in entries.iter_mut().enumerate() {
            let HookEntry::ReadyMade { kind, params, .. } = entry else {
                continue;
            };
            let at = format!("hooks.{point}[{index}].{}", kind.as_str());
            match kind {
                ReadyMadeKind::Confirmation => console_uis(params, &at, &mut notes),
                ReadyMadeKind::ToolResultOffload => {
                    if let Some(store) = params.get_mut("store") {
                        file_store(store, &format!("{at}.store"), &mut notes);
                    }
                }
                ReadyMadeKind::Compaction => {
                    let store = params
                        .get_mut("compactor")
                        .and_then(|c| c.get_mut("init_parameters"))
                        .and_then(|i| i.get_mut("store"));
                    if let Some(store) = store {
                        let at = format!("{at}.compactor.init_parameters.store");
                        file_store(store, &at, &mut notes);
                    }
                }
                _ => {}
            }
        }
    }
    notes
}

/// Each strategy's console UI that would ask (any policy but
/// `NeverAskPolicy`) becomes a scripted UI with no answers yet.
fn console_uis(params: &mut Value, at: &str, notes: &mut Vec<String>) {
    let Some(strategies) = params
        .get_mut("confirmation_strategies")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for (key, strategy) in strategies.iter_mut() {
        let Some(init) = strategy
            .get_mut("init_parameters")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        let never_asks = init
            .get("confirmation_policy")
            .and_then(|p| p.get("type"))
            .is_some_and(|t| t == NeverAskPolicy::TYPE);
        let console = init
            .get("confirmation_ui")
            .and_then(|ui| ui.get("type"))
            .is_some_and(|t| t == SimpleConsoleUI::TYPE);
        if !console || never_asks {
            continue;
        }
        init.insert(
            "confirmation_ui".into(),
            json!({"type": ScriptedConfirmationUI::TYPE, "init_parameters": {"answers": []}}),
        );
        notes.push(format!(
            "`{at}.confirmation_strategies.{key}.init_parameters.confirmation_ui`: Haystack's \
             `SimpleConsoleUI` asks a person at the console, whom a scenario run does not have; \
             replaced by `ScriptedConfirmationUI`: give it one answer per question in `answers`, \
             e.g. `[{{action: confirm}}, {{action: reject, feedback: \"...\"}}]`"
        ));
    }
}

/// A file store becomes the in-memory store.
fn file_store(store: &mut Value, at: &str, notes: &mut Vec<String>) {
    if store
        .get("type")
        .is_none_or(|t| t != FileSystemToolResultStore::TYPE)
    {
        return;
    }
    let root = store
        .get("init_parameters")
        .and_then(|i| i.get("root"))
        .and_then(Value::as_str)
        .map(|root| format!(" (root `{root}`)"))
        .unwrap_or_default();
    *store = json!({"type": InMemoryToolResultStore::TYPE, "init_parameters": Map::new()});
    notes.push(format!(
        "`{at}`: Haystack's `FileSystemToolResultStore`{root} puts absolute paths in the \
         conversation, so the outcome would depend on the machine; replaced by \
         `InMemoryToolResultStore`, whose references (`memory://KEY`) are the same everywhere"
    ));
}

#[cfg(test)]
mod tests {
    use super::substitute;
    use crate::scenario::{Format, HookEntry, Scenario};

    fn hooks(text: &str) -> indexmap::IndexMap<String, Vec<HookEntry>> {
        Scenario::from_str(text, "s.yaml", Format::Yaml)
            .unwrap_or_else(|e| panic!("{e}"))
            .hooks
    }

    #[test]
    fn a_console_ui_that_would_ask_becomes_a_scripted_ui() {
        let mut hooks = hooks(
            "hooks:
  before_tool:
    - confirmation:
        confirmation_strategies:
          rm:
            type: haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy
            init_parameters:
              confirmation_policy: {type: haystack.hooks.human_in_the_loop.policies.AlwaysAskPolicy}
              confirmation_ui: {type: haystack.hooks.human_in_the_loop.user_interfaces.SimpleConsoleUI}
model: []
",
        );
        let notes = substitute(&mut hooks);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("`hooks.before_tool[0].confirmation.confirmation_strategies.rm"),
            "{notes:?}"
        );
        let HookEntry::ReadyMade { params, .. } = &hooks["before_tool"][0] else {
            panic!("{hooks:?}")
        };
        let ui = &params["confirmation_strategies"]["rm"]["init_parameters"]["confirmation_ui"];
        assert_eq!(
            ui["type"],
            crate::hooks::confirmation::ScriptedConfirmationUI::TYPE
        );
    }

    #[test]
    fn a_console_ui_under_never_ask_and_an_in_memory_store_stay() {
        let text = "hooks:
  before_tool:
    - confirmation:
        confirmation_strategies:
          rm:
            type: haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy
            init_parameters:
              confirmation_policy: {type: haystack.hooks.human_in_the_loop.policies.NeverAskPolicy}
              confirmation_ui: {type: haystack.hooks.human_in_the_loop.user_interfaces.SimpleConsoleUI}
  after_tool:
    - tool_result_offload:
        store: {type: hookharness.hooks.offload.InMemoryToolResultStore}
model: []
";
        let mut changed = hooks(text);
        assert!(substitute(&mut changed).is_empty());
        assert_eq!(changed, hooks(text));
    }

    #[test]
    fn a_file_store_becomes_the_in_memory_store() {
        let mut hooks = hooks(
            "hooks:
  after_tool:
    - tool_result_offload:
        store:
          type: haystack.hooks.tool_result_offloading.stores.FileSystemToolResultStore
          init_parameters: {root: /tmp/results}
model: []
",
        );
        let notes = substitute(&mut hooks);
        assert!(notes[0].contains("(root `/tmp/results`)"), "{notes:?}");
        let HookEntry::ReadyMade { params, .. } = &hooks["after_tool"][0] else {
            panic!("{hooks:?}")
        };
        assert_eq!(
            params["store"]["type"],
            crate::hooks::offload::InMemoryToolResultStore::TYPE
        );
    }
}
