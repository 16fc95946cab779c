//! Tool scripts: scripted tools that succeed or fail, and never run out.

use crate::scenario::ToolScript;
use crate::scripted::ScriptedResult;
use proptest::prelude::*;
use serde_json::json;

/// The names generated tools take, in order.
///
/// ```
/// use hookharness::strategies::TOOL_NAMES;
/// assert_eq!(TOOL_NAMES[0], "search");
/// ```
pub const TOOL_NAMES: &[&str] = &["search", "lookup", "calc"];

/// One scripted result: a text, a JSON value, or an error.
fn result() -> impl Strategy<Value = ScriptedResult> {
    prop_oneof![
        3 => prop::sample::select(&["Fusion reached net gain.", "", "42"][..])
            .prop_map(|t| ScriptedResult::Text(t.to_owned())),
        1 => (0i64..5).prop_map(|n| ScriptedResult::Json(json!({"hits": n}))),
        1 => Just(ScriptedResult::Error("upstream timeout".to_owned())),
    ]
}

/// A scripted tool named `name`: one to three results, successes and
/// errors mixed, with `repeat_last: true` so that the script never runs out.
///
/// ```
/// use hookharness::strategies::tool_script;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let tool = tool_script("search").new_tree(&mut TestRunner::deterministic()).unwrap().current();
/// assert_eq!(tool.name, "search");
/// assert!(tool.repeat_last && !tool.results.is_empty());
/// ```
pub fn tool_script(name: &str) -> BoxedStrategy<ToolScript> {
    let name = name.to_owned();
    prop::collection::vec(result(), 1..4)
        .prop_map(move |results| ToolScript {
            results,
            repeat_last: true,
            ..ToolScript::new(name.clone())
        })
        .boxed()
}

/// Up to `max` tools, each of the first `max` names of [`TOOL_NAMES`]
/// present or not (shrinking removes tools), in that order.
///
/// ```
/// use hookharness::strategies::tool_scripts;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// for _ in 0..16 {
///     let tools = tool_scripts(2).new_tree(&mut runner).unwrap().current();
///     assert!(tools.len() <= 2);
/// }
/// ```
pub fn tool_scripts(max: usize) -> BoxedStrategy<Vec<ToolScript>> {
    let max = max.min(TOOL_NAMES.len());
    TOOL_NAMES[..max]
        .iter()
        .map(|name| (prop::bool::weighted(0.7), tool_script(name)))
        .collect::<Vec<_>>()
        .prop_map(|tools| {
            tools
                .into_iter()
                .filter_map(|(present, tool)| present.then_some(tool))
                .collect()
        })
        .boxed()
}
