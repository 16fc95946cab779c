//! Run-time tool selection by name (Haystack's `_select_tools_by_name`).

use super::AgentError;
use crate::pyfmt;
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
    let known = |name: &str| configured.iter().any(|t| t.spec().name == name);
    let mut invalid: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !known(n))
        .collect();
    if !invalid.is_empty() {
        // Haystack prints Python sets, whose order varies from process to
        // process; sorted here so the text is the same on every run.
        invalid.sort_unstable();
        invalid.dedup();
        let mut valid: Vec<&str> = configured.iter().map(|t| t.spec().name.as_str()).collect();
        valid.sort_unstable();
        valid.dedup();
        return Err(AgentError::InvalidToolNames {
            invalid: pyfmt::set_of_strings(invalid),
            valid: pyfmt::set_of_strings(valid),
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
}
