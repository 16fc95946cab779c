//! Which hooks of a scenario decide on tool calls and which compact the
//! conversation: the trace names of its ready-made `confirmation:` and
//! `compaction:` entries.

use crate::scenario::{HookEntry, ReadyMadeKind, Scenario};

/// The trace names of the ready-made hooks of `kind`, in registration
/// order, each once.
pub(super) fn ready_made(scenario: &Scenario, kind: ReadyMadeKind) -> Vec<String> {
    let mut names = Vec::new();
    for (point, entries) in &scenario.hooks {
        for (index, entry) in entries.iter().enumerate() {
            let (entry, fallback) = match entry {
                HookEntry::Shared(key) => match scenario.shared_hooks.get(key) {
                    Some(definition) => (definition, key.clone()),
                    None => continue,
                },
                other => (other, format!("{point}#{index}")),
            };
            if let HookEntry::ReadyMade {
                kind: found, name, ..
            } = entry
            {
                let name = name.clone().unwrap_or(fallback);
                if *found == kind && !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Format;

    #[test]
    fn named_unnamed_and_shared_ready_made_hooks_are_found_by_their_trace_names() {
        let scenario = Scenario::from_str(
            r#"
shared_hooks:
  gate: {confirmation: {confirmation_strategies: {}}}
hooks:
  before_tool:
    - {name: ask, confirmation: {confirmation_strategies: {}}}
    - {confirmation: {confirmation_strategies: {}}}
    - {shared: gate}
    - {name: other, do: []}
model: []
"#,
            "roles.yaml",
            Format::Yaml,
        )
        .unwrap();
        assert_eq!(
            ready_made(&scenario, ReadyMadeKind::Confirmation),
            ["ask", "before_tool#1", "gate"]
        );
        assert!(ready_made(&scenario, ReadyMadeKind::Compaction).is_empty());
    }
}
