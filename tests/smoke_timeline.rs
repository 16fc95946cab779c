//! The worked timelines of the reference, end to end.

use hookharness::scripted::{ReplyScript, ScriptedChatGenerator, ScriptedTool, ToolOutcome};
use hookharness::{Agent, ChatMessage, HookPoint, RunOptions, State, ToolSpec, hook_fn};
use serde_json::json;
use std::sync::{Arc, Mutex};

fn recorder(log: &Arc<Mutex<Vec<String>>>, point: HookPoint) -> impl hookharness::Hook {
    let log = log.clone();
    hook_fn(move |state: &mut State| {
        log.lock()
            .unwrap()
            .push(format!("{point}({})", state.step_count().unwrap()));
    })
}

#[test]
fn a_tool_step_then_text_runs_hooks_in_the_documented_order() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut builder = Agent::builder()
        .chat_generator(ScriptedChatGenerator::new([
            ReplyScript::tool_call("search", json!({"query": "fusion"})),
            ReplyScript::text("done"),
        ]))
        .tool(ScriptedTool::new(
            ToolSpec::new("search"),
            [ToolOutcome::Text("found".into())],
        ));
    for point in HookPoint::ALL {
        builder = builder.hook(point, recorder(&log, point));
    }
    let output = builder
        .build()
        .unwrap()
        .run(vec![ChatMessage::from_user("go")], RunOptions::new())
        .unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "before_run(0)",
            "before_llm(0)",
            "before_tool(0)",
            "after_tool(0)",
            "before_llm(1)",
            "on_exit(2)",
            "after_run(2)"
        ]
    );
    assert_eq!(output.step_count(), Some(2));
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(output.tool_call_counts(), Some(&json!({"search": 1})));
}
