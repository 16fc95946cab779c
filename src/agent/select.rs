//! Run-time tool selection by name (Haystack's `_select_tools_by_name`).

use super::AgentError;
use crate::pyfmt::pyset::PySet;
use crate::tool::Tool;
use std::sync::Arc;

/// The tools of one run: all configured tools, or those named, in the
/// configured order (not the order of `names`), as Haystack selects them.
pub(super) fn select_tools(
    configured: &Arc<[Arc<dyn Tool>]>,
    names: Option<&[String]>,
) -> Result<Arc<[Arc<dyn Tool>]>, AgentError> {
    let Some(names) = names else {
        return Ok(configured.clone());
    };
    if configured.is_empty() {
        return Err(AgentError::NoToolsConfigured);
    }
    // `requested_names - valid_tool_names`, each set built as Haystack's
    // `_select_tools_by_name` builds it, so the texts list them in CPython's
    // order (a process run with `PYTHONHASHSEED=0`).
    let requested = PySet::from_items(names);
    let valid = PySet::from_items(configured.iter().map(|t| t.spec().name.as_str()));
    let invalid = requested.difference(&valid);
    if !invalid.is_empty() {
        return Err(AgentError::InvalidToolNames {
            invalid: invalid.repr(),
            valid: valid.repr(),
        });
    }
    Ok(configured
        .iter()
        .filter(|t| names.contains(&t.spec().name))
        .cloned()
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{ToolSpec, tool_fn};
    use serde_json::json;

    fn tools(names: &[&str]) -> Arc<[Arc<dyn Tool>]> {
        names
            .iter()
            .map(|n| Arc::new(tool_fn(ToolSpec::new(*n), |_| Ok(json!("")))) as Arc<dyn Tool>)
            .collect()
    }

    fn error(configured: &[&str], names: &[&str]) -> String {
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        match select_tools(&tools(configured), Some(&names)) {
            Ok(_) => panic!("the selection {names:?} was accepted"),
            Err(error) => error.to_string(),
        }
    }

    fn names(selected: &[Arc<dyn Tool>]) -> Vec<&str> {
        selected.iter().map(|t| t.spec().name.as_str()).collect()
    }

    #[test]
    fn selection_keeps_the_configured_order() {
        let configured = tools(&["a", "b", "c"]);
        let picked = select_tools(&configured, Some(&["c".into(), "a".into()])).unwrap();
        assert_eq!(names(&picked), ["a", "c"]);
    }

    #[test]
    fn an_empty_selection_selects_no_tools() {
        let picked = select_tools(&tools(&["a"]), Some(&[])).unwrap();
        assert!(picked.is_empty());
    }

    #[test]
    fn selecting_without_configured_tools_fails_even_when_empty() {
        assert_eq!(
            error(&[], &[]),
            "No tools were configured for the Agent at initialization."
        );
    }

    #[test]
    fn unknown_names_are_listed_with_the_valid_ones() {
        assert_eq!(
            error(&["b", "a"], &["z", "a"]),
            "The following tool names are not valid: {'z'}. Valid tool names are: {'a', 'b'}."
        );
    }

    /// Haystack's text in a process run with `PYTHONHASHSEED=0`.
    #[test]
    fn the_sets_are_in_cpythons_order() {
        assert_eq!(
            error(&["calc", "zeta"], &["search", "ghost", "calc"]),
            "The following tool names are not valid: {'search', 'ghost'}. \
             Valid tool names are: {'zeta', 'calc'}."
        );
    }
}
