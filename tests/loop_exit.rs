//! How a run ends: model exits, the no-tools branch, tool exit conditions,
//! `on_exit` and `continue_run`, `max_agent_steps`, `stop_run`, resuming
//! from a restored `step_count`, and when `after_run` runs.

mod support;

use hookharness::scripted::{FinishReason, ModelReply, ScriptedResult, ScriptedTool};
use hookharness::{AgentError, ChatMessage, HookPoint, RunOptions, State, ToolSpec, hook_fn};
use serde_json::{Value, json};
use support::*;

fn step_counts(log: &Log, prefix: &str) -> Vec<String> {
    log.entries()
        .into_iter()
        .filter(|e| e.starts_with(prefix))
        .collect()
}

// ---- model exit reasons ----------------------------------------------------

#[test]
fn a_text_reply_ends_the_run_with_exit_reason_text_and_runs_no_tool_hooks() {
    let log = Log::new();
    let model = model([text("done")]);
    let agent = record_everywhere(agent_with(&model).tool(ok_tool("search")), &log)
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(output.step_count(), Some(1));
    assert_eq!(model.calls(), 1);
    assert_eq!(log.count("before_tool"), 0);
    assert_eq!(log.count("after_tool"), 0);
}

#[test]
fn a_length_finish_ends_the_run_with_exit_reason_length_even_without_text() {
    let model = model([ModelReply::empty().with_finish_reason(FinishReason::Length)]);
    let agent = agent_with(&model).tool(ok_tool("search")).build().unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.exit_reason(), Some("length"));
    assert_eq!(output.step_count(), Some(1));
    assert_eq!(model.calls(), 1);
}

#[test]
fn a_length_finish_wins_over_text() {
    let agent = agent([text("partial answ").with_finish_reason(FinishReason::Length)])
        .tool(ok_tool("search"))
        .build()
        .unwrap();
    assert_eq!(run(&agent).unwrap().exit_reason(), Some("length"));
}

#[test]
fn a_content_filter_finish_ends_the_run_with_exit_reason_content_filter() {
    let agent = agent([text("I cannot").with_finish_reason(FinishReason::ContentFilter)])
        .tool(ok_tool("search"))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.exit_reason(), Some("content_filter"));
    assert_eq!(output.step_count(), Some(1));
}

#[test]
fn a_stop_finish_reason_with_text_exits_as_text() {
    let agent = agent([text("done").with_finish_reason(FinishReason::Stop)])
        .tool(ok_tool("search"))
        .build()
        .unwrap();
    assert_eq!(run(&agent).unwrap().exit_reason(), Some("text"));
}

#[test]
fn an_empty_text_reply_is_not_an_exit_when_tools_exist() {
    let log = Log::new();
    let model = model([text(""), text("done")]);
    let agent = record_everywhere(agent_with(&model).tool(ok_tool("search")), &log)
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 2);
    assert_eq!(output.step_count(), Some(2));
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(step_counts(&log, "before_tool"), ["before_tool(0)"]);
}

#[test]
fn a_finish_reason_of_length_does_not_exit_when_the_reply_calls_a_tool() {
    let search = shared(ok_tool("search"));
    let agent = agent([
        call("search", json!({})).with_finish_reason(FinishReason::Length),
        text("done"),
    ])
    .tool_arc(search.clone())
    .build()
    .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(search.calls(), 1);
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(output.step_count(), Some(2));
}

#[test]
fn a_tool_call_in_an_earlier_reply_of_the_batch_prevents_the_exit() {
    // The last reply is plain text, but the batch holds a tool call: no exit.
    // Only the last message's calls run, and it has none.
    let log = Log::new();
    let search = shared(ok_tool("search"));
    let model = batches(vec![
        vec![
            assistant_calls(None, &["search"]),
            ChatMessage::from_assistant("done"),
        ],
        vec![ChatMessage::from_assistant("really done")],
    ]);
    let agent = record_everywhere(
        hookharness::Agent::builder()
            .chat_generator(model)
            .tool_arc(search.clone()),
        &log,
    )
    .build()
    .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(search.calls(), 0);
    assert_eq!(output.step_count(), Some(2));
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(step_counts(&log, "after_tool"), ["after_tool(0)"]);
}

#[test]
fn a_last_reply_not_from_the_assistant_is_not_an_exit() {
    let log = Log::new();
    let model = batches(vec![
        vec![ChatMessage::from_user("echoed")],
        vec![ChatMessage::from_assistant("done")],
    ]);
    let agent = record_everywhere(
        hookharness::Agent::builder()
            .chat_generator(model)
            .tool(ok_tool("search")),
        &log,
    )
    .build()
    .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.step_count(), Some(2));
    assert_eq!(step_counts(&log, "before_tool"), ["before_tool(0)"]);
}

#[test]
fn a_text_reply_exits_even_when_exit_conditions_lack_text() {
    let agent = agent([text("done")])
        .tool(ok_tool("finish"))
        .exit_conditions(["finish"])
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(output.step_count(), Some(1));
}

#[test]
fn a_text_reply_exits_even_when_exit_conditions_is_empty() {
    let agent = agent([text("done")])
        .tool(ok_tool("finish"))
        .exit_conditions(Vec::<String>::new())
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(output.step_count(), Some(1));
}

// ---- the no-tools branch ---------------------------------------------------

#[test]
fn an_agent_without_tools_stops_after_one_llm_call() {
    let model = model([text("hello"), text("never")]);
    let agent = agent_with(&model).build().unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 1);
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(output.step_count(), Some(1));
}

#[test]
fn an_agent_without_tools_exits_as_text_on_an_empty_reply() {
    for reply in [text(""), ModelReply::empty()] {
        let model = model([reply, text("never")]);
        let agent = agent_with(&model).build().unwrap();
        let output = run(&agent).unwrap();
        assert_eq!(model.calls(), 1);
        assert_eq!(output.exit_reason(), Some("text"));
        assert_eq!(output.step_count(), Some(1));
    }
}

#[test]
fn an_agent_without_tools_exits_as_text_on_an_empty_reply_list() {
    let agent = hookharness::Agent::builder()
        .chat_generator(batches(vec![vec![]]))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(output.step_count(), Some(1));
    assert_eq!(output.messages.len(), 1);
}

#[test]
fn an_agent_without_tools_never_runs_the_tool_calls_of_its_reply() {
    let log = Log::new();
    let agent = record_everywhere(agent([call("search", json!({"q": "x"}))]), &log)
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(output.step_count(), Some(1));
    assert_eq!(output.messages.len(), 2);
    assert!(output.last_message.as_ref().unwrap().has_tool_calls());
    assert_eq!(output.tool_call_counts(), Some(&json!({})));
    assert_eq!(log.count("before_tool"), 0);
    assert_eq!(log.count("on_exit"), 1);
}

#[test]
fn before_tool_and_after_tool_run_on_an_empty_reply_when_tools_exist() {
    for first in [vec![ChatMessage::from_assistant("")], vec![]] {
        let log = Log::new();
        let model = batches(vec![first, vec![ChatMessage::from_assistant("done")]]);
        let agent = record_everywhere(
            hookharness::Agent::builder()
                .chat_generator(model)
                .tool(ok_tool("search")),
            &log,
        )
        .build()
        .unwrap();
        let output = run(&agent).unwrap();
        assert_eq!(log.entries(), TOOL_STEP_THEN_TEXT);
        assert_eq!(output.step_count(), Some(2));
    }
}

// ---- tool exit conditions --------------------------------------------------

#[test]
fn a_tool_in_exit_conditions_ends_the_run_with_its_name() {
    let model = model([call("finish", json!({})), text("never")]);
    let agent = agent_with(&model)
        .tool(ok_tool("finish"))
        .exit_conditions(["finish"])
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 1);
    assert_eq!(output.exit_reason(), Some("finish"));
    assert_eq!(output.step_count(), Some(1));
    assert_eq!(
        output
            .last_message
            .unwrap()
            .tool_call_result()
            .unwrap()
            .origin
            .tool_name,
        "finish"
    );
}

#[test]
fn a_tool_not_in_exit_conditions_keeps_the_run_going() {
    let model = model([call("search", json!({})), text("done")]);
    let agent = agent_with(&model)
        .tool(ok_tool("search"))
        .tool(ok_tool("finish"))
        .exit_conditions(["finish"])
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 2);
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn the_first_exit_tool_in_call_order_wins_over_the_exit_conditions_order() {
    let agent = agent([calls(&["search", "a", "b"])])
        .tool(ok_tool("search"))
        .tool(ok_tool("a"))
        .tool(ok_tool("b"))
        .exit_conditions(["b", "a"])
        .build()
        .unwrap();
    assert_eq!(run(&agent).unwrap().exit_reason(), Some("a"));
}

#[test]
fn an_errored_exit_tool_cancels_the_exit_even_if_another_exit_tool_succeeded() {
    let model = model([calls(&["a", "b"]), text("done")]);
    let agent = agent_with(&model)
        .tool(ok_tool("a"))
        .tool(failing_tool("b", "boom"))
        .exit_conditions(["a", "b"])
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 2);
    assert_eq!(output.exit_reason(), Some("text"));
    assert_eq!(output.step_count(), Some(2));
}

#[test]
fn one_failed_call_of_two_calls_to_the_same_exit_tool_cancels_the_exit() {
    let finish = ScriptedTool::new(
        ToolSpec::new("finish"),
        [
            ScriptedResult::Text("ok".into()),
            ScriptedResult::Error("boom".into()),
        ],
    );
    let model = model([calls(&["finish", "finish"]), text("done")]);
    let agent = agent_with(&model)
        .tool(finish)
        .exit_conditions(["finish"])
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 2);
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn an_unknown_exit_tool_counts_as_errored_and_cancels_the_exit() {
    let model = model([calls(&["finish", "ghost"]), text("done")]);
    let agent = agent_with(&model)
        .tool(ok_tool("finish"))
        .exit_conditions(["finish", "ghost"])
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 2);
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn the_tool_exit_check_is_skipped_only_when_exit_conditions_is_exactly_text() {
    // A tool named `text`: with ["text"] its call is no exit; with
    // ["text", "text"] the check runs and the tool exits the run.
    let model_a = model([call("text", json!({})), text("done")]);
    let skipped = agent_with(&model_a)
        .tool(ok_tool("text"))
        .exit_conditions(["text"])
        .build()
        .unwrap();
    let output = run(&skipped).unwrap();
    assert_eq!(model_a.calls(), 2);
    assert_eq!(output.step_count(), Some(2));

    let model_b = model([call("text", json!({})), text("never")]);
    let checked = agent_with(&model_b)
        .tool(ok_tool("text"))
        .exit_conditions(["text", "text"])
        .build()
        .unwrap();
    let output = run(&checked).unwrap();
    assert_eq!(model_b.calls(), 1);
    assert_eq!(output.step_count(), Some(1));
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn rewriting_a_tool_result_in_after_tool_does_not_change_the_tool_exit() {
    let agent = agent([call("finish", json!({}))])
        .tool(failing_tool("finish", "boom"))
        .exit_conditions(["finish"])
        .hook(
            "after_tool",
            hook_fn(|state: &mut State| {
                let last = state.messages_mut().pop().unwrap();
                let origin = last.tool_call_result().unwrap().origin.clone();
                state
                    .append_messages(vec![ChatMessage::from_tool("fine", origin, false)])
                    .unwrap();
            }),
        )
        .max_agent_steps(1)
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.exit_reason(), Some("max_agent_steps"));
}

// ---- on_exit and continue_run ---------------------------------------------

#[test]
fn continue_run_is_never_read_when_no_on_exit_hook_is_registered() {
    let log = Log::new();
    let after = log.clone();
    let model = model([text("done"), text("never")]);
    let agent = agent_with(&model)
        .hook(
            "before_llm",
            hook_fn(|state: &mut State| state.set_continue_run(true)),
        )
        .hook(
            "after_run",
            hook_fn(move |state: &mut State| {
                after.push(format!("continue_run={}", state.data()["continue_run"]))
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 1);
    assert_eq!(output.exit_reason(), Some("text"));
    // Never reset: the loop did not look at the flag.
    assert_eq!(log.entries(), ["continue_run=true"]);
}

#[test]
fn continue_run_is_reset_before_the_on_exit_hooks_run() {
    let log = Log::new();
    let seen = log.clone();
    let model = model([text("done"), text("never")]);
    let agent = agent_with(&model)
        .hook(
            "before_llm",
            hook_fn(|state: &mut State| state.set_continue_run(true)),
        )
        .hook(
            "on_exit",
            hook_fn(move |state: &mut State| {
                seen.push(format!("on_exit sees {}", state.data()["continue_run"]))
            }),
        )
        .build()
        .unwrap();
    run(&agent).unwrap();
    assert_eq!(model.calls(), 1);
    assert_eq!(log.entries(), ["on_exit sees false"]);
}

#[test]
fn continue_run_is_consumed_after_the_on_exit_hooks() {
    let log = Log::new();
    let seen = log.clone();
    let model = model([text("first"), text("second")]);
    let agent = agent_with(&model)
        .hook(
            "on_exit",
            hook_fn(|state: &mut State| {
                if state.step_count() == Some(1) {
                    state.set_continue_run(true);
                }
            }),
        )
        .hook(
            "before_llm",
            hook_fn(move |state: &mut State| {
                seen.push(format!("continue_run={}", state.data()["continue_run"]))
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 2);
    assert_eq!(output.step_count(), Some(2));
    assert_eq!(log.entries(), ["continue_run=false", "continue_run=false"]);
}

#[test]
fn a_truthy_continue_run_value_keeps_the_run_going_and_a_falsy_one_stops_it() {
    let model = model([text("one"), text("two"), text("three")]);
    let agent = agent_with(&model)
        .hook(
            "on_exit",
            hook_fn(|state: &mut State| {
                let value = match state.step_count() {
                    Some(1) => json!("yes"),
                    Some(2) => json!([0]),
                    _ => json!(""),
                };
                state.data_mut().insert("continue_run".into(), value);
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 3);
    assert_eq!(output.step_count(), Some(3));
}

#[test]
fn on_exit_runs_once_per_exit_and_can_append_a_nudge() {
    let model = model([text("lazy answer"), text("better answer")]);
    let agent = agent_with(&model)
        .hook(
            "on_exit",
            hook_fn(|state: &mut State| {
                if state.step_count() == Some(1) {
                    state
                        .append_messages(vec![ChatMessage::from_user("Try again.")])
                        .unwrap();
                    state.set_continue_run(true);
                }
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    let texts: Vec<_> = output.messages.iter().map(|m| m.text().unwrap()).collect();
    assert_eq!(texts, ["go", "lazy answer", "Try again.", "better answer"]);
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn exit_reason_stays_visible_after_continuing() {
    let log = Log::new();
    let seen = log.clone();
    let model = model([text("one"), call("search", json!({})), text("three")]);
    let agent = agent_with(&model)
        .tool(ok_tool("search"))
        .hook(
            "on_exit",
            hook_fn(|state: &mut State| {
                if state.step_count() == Some(1) {
                    state.set_continue_run(true);
                }
            }),
        )
        .hook(
            "before_llm",
            hook_fn(move |state: &mut State| {
                seen.push(format!("{}:{}", step(state), state.data()["exit_reason"]))
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(log.entries(), ["0:null", "1:\"text\"", "2:\"text\""]);
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn on_exit_runs_for_length_content_filter_and_tool_exits() {
    for (reply, tools, reason) in [
        (
            text("x").with_finish_reason(FinishReason::Length),
            false,
            "length",
        ),
        (
            text("x").with_finish_reason(FinishReason::ContentFilter),
            false,
            "content_filter",
        ),
        (call("finish", json!({})), true, "finish"),
    ] {
        let log = Log::new();
        let mut builder = agent([reply]).hook("on_exit", recorder(&log, HookPoint::OnExit));
        if tools {
            builder = builder.tool(ok_tool("finish")).exit_conditions(["finish"]);
        } else {
            builder = builder.tool(ok_tool("other"));
        }
        let output = run(&builder.build().unwrap()).unwrap();
        assert_eq!(output.exit_reason(), Some(reason));
        assert_eq!(log.entries(), ["on_exit(1)"]);
    }
}

#[test]
fn on_exit_can_continue_a_tool_exit() {
    let model = model([call("finish", json!({})), text("done")]);
    let agent = agent_with(&model)
        .tool(ok_tool("finish"))
        .exit_conditions(["finish"])
        .hook(
            "on_exit",
            hook_fn(|state: &mut State| {
                if state.exit_reason() == Some(&json!("finish")) {
                    state.set_continue_run(true);
                }
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 2);
    assert_eq!(output.exit_reason(), Some("text"));
}

// ---- max_agent_steps -------------------------------------------------------

#[test]
fn on_exit_is_skipped_when_max_steps_is_reached() {
    let log = Log::new();
    let search = shared(ok_tool("search"));
    let model = model([
        call("search", json!({})),
        call("search", json!({})),
        text("never"),
    ]);
    let agent = record_everywhere(agent_with(&model).tool_arc(search.clone()), &log)
        .max_agent_steps(2)
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 2);
    assert_eq!(search.calls(), 2);
    assert_eq!(log.count("on_exit"), 0);
    assert_eq!(log.count("after_run"), 1);
    assert_eq!(output.exit_reason(), Some("max_agent_steps"));
    assert_eq!(output.step_count(), Some(2));
}

#[test]
fn a_continued_last_step_ends_with_exit_reason_max_agent_steps() {
    let log = Log::new();
    let seen = log.clone();
    let model = model([text("one"), text("never")]);
    let agent = agent_with(&model)
        .max_agent_steps(1)
        .hook(
            "on_exit",
            hook_fn(move |state: &mut State| {
                seen.push("on_exit");
                state.set_continue_run(true);
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 1);
    assert_eq!(log.entries(), ["on_exit"]);
    assert_eq!(output.exit_reason(), Some("max_agent_steps"));
    assert_eq!(output.step_count(), Some(1));
}

#[test]
fn max_agent_steps_of_zero_or_less_runs_no_step() {
    for limit in [0, -3] {
        let log = Log::new();
        let model = model([text("never")]);
        let agent = record_everywhere(agent_with(&model), &log)
            .max_agent_steps(limit)
            .build()
            .unwrap();
        let output = run(&agent).unwrap();
        assert_eq!(model.calls(), 0);
        assert_eq!(output.exit_reason(), Some("max_agent_steps"));
        assert_eq!(output.step_count(), Some(0));
        assert_eq!(log.entries(), ["before_run(0)", "after_run(0)"]);
    }
}

// ---- stop_run --------------------------------------------------------------

#[test]
fn stop_run_is_read_once_after_all_before_llm_hooks_have_run() {
    let log = Log::new();
    let model = model([text("never")]);
    let agent = agent_with(&model)
        .hook(
            "before_llm",
            hook_fn(|state: &mut State| state.set_stop_run("halt")),
        )
        .hook("before_llm", labelled(&log, "second"))
        .hook("on_exit", labelled(&log, "on_exit"))
        .hook("after_run", labelled(&log, "after_run"))
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 0);
    assert_eq!(log.entries(), ["second(0)", "after_run(0)"]);
    assert_eq!(output.exit_reason(), Some("halt"));
    assert_eq!(output.step_count(), Some(0));
}

#[test]
fn a_later_before_llm_hook_can_withdraw_a_stop_requested_by_an_earlier_one() {
    let model = model([text("done")]);
    let agent = agent_with(&model)
        .hook(
            "before_llm",
            hook_fn(|state: &mut State| state.set_stop_run("halt")),
        )
        .hook(
            "before_llm",
            hook_fn(|state: &mut State| {
                state.data_mut().insert("stop_run".into(), Value::Null);
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 1);
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn stop_run_set_during_a_tool_step_takes_effect_only_at_the_next_stop_check() {
    for point in ["before_tool", "after_tool"] {
        let log = Log::new();
        let search = shared(ok_tool("search"));
        let model = model([call("search", json!({})), text("never")]);
        let agent = agent_with(&model)
            .tool_arc(search.clone())
            .hook(
                point,
                hook_fn(|state: &mut State| state.set_stop_run("halt")),
            )
            .hook("before_llm", recorder(&log, HookPoint::BeforeLlm))
            .build()
            .unwrap();
        let output = run(&agent).unwrap();
        assert_eq!(search.calls(), 1, "{point}");
        assert_eq!(model.calls(), 1, "{point}");
        assert_eq!(log.entries(), ["before_llm(0)", "before_llm(1)"]);
        assert_eq!(output.exit_reason(), Some("halt"));
        assert_eq!(output.step_count(), Some(1));
    }
}

#[test]
fn stop_run_set_in_before_run_still_runs_the_before_llm_hooks_once() {
    let log = Log::new();
    let model = model([text("never")]);
    let agent = record_everywhere(agent_with(&model), &log)
        .hook(
            "before_run",
            hook_fn(|state: &mut State| state.set_stop_run("budget")),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 0);
    assert_eq!(
        log.entries(),
        ["before_run(0)", "before_llm(0)", "after_run(0)"]
    );
    assert_eq!(output.exit_reason(), Some("budget"));
    assert_eq!(output.step_count(), Some(0));
}

#[test]
fn stop_run_pre_seeded_through_run_options_stops_before_the_first_llm_call() {
    let model = model([text("never")]);
    let agent = agent_with(&model).build().unwrap();
    let output = agent
        .run(
            user("go"),
            RunOptions::new().state("stop_run", json!("pre")),
        )
        .unwrap();
    assert_eq!(model.calls(), 0);
    assert_eq!(output.exit_reason(), Some("pre"));
    assert_eq!(output.step_count(), Some(0));
    assert_eq!(output.get("stop_run"), None);
}

#[test]
fn stop_run_with_continue_run_in_on_exit_ends_the_next_step_at_the_stop_check() {
    let log = Log::new();
    let seen = log.clone();
    let model = model([text("one"), text("never")]);
    let agent = agent_with(&model)
        .hook(
            "on_exit",
            hook_fn(|state: &mut State| {
                state.set_stop_run("halt");
                state.set_continue_run(true);
            }),
        )
        .hook(
            "before_llm",
            hook_fn(move |state: &mut State| {
                seen.push(format!("{}:{}", step(state), state.data()["exit_reason"]))
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 1);
    assert_eq!(log.entries(), ["0:null", "1:\"text\""]);
    assert_eq!(output.exit_reason(), Some("halt"));
    assert_eq!(output.step_count(), Some(1));
}

#[test]
fn stop_run_set_in_on_exit_without_continue_run_keeps_the_natural_exit_reason() {
    let agent = agent([text("one")])
        .hook(
            "on_exit",
            hook_fn(|state: &mut State| state.set_stop_run("halt")),
        )
        .build()
        .unwrap();
    assert_eq!(run(&agent).unwrap().exit_reason(), Some("text"));
}

#[test]
fn a_tool_exit_in_the_same_step_wins_over_stop_run_set_in_after_tool() {
    let agent = agent([call("finish", json!({}))])
        .tool(ok_tool("finish"))
        .exit_conditions(["finish"])
        .hook(
            "after_tool",
            hook_fn(|state: &mut State| state.set_stop_run("halt")),
        )
        .build()
        .unwrap();
    assert_eq!(run(&agent).unwrap().exit_reason(), Some("finish"));
}

#[test]
fn stop_run_set_on_the_last_allowed_step_is_overridden_by_max_agent_steps() {
    let agent = agent([call("search", json!({}))])
        .tool(ok_tool("search"))
        .max_agent_steps(1)
        .hook(
            "after_tool",
            hook_fn(|state: &mut State| state.set_stop_run("halt")),
        )
        .build()
        .unwrap();
    assert_eq!(run(&agent).unwrap().exit_reason(), Some("max_agent_steps"));
}

#[test]
fn stop_run_and_continue_run_set_in_after_run_have_no_effect() {
    let model = model([text("one"), text("never")]);
    let agent = agent_with(&model)
        .hook(
            "after_run",
            hook_fn(|state: &mut State| {
                state.set_stop_run("halt");
                state.set_continue_run(true);
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 1);
    assert_eq!(output.exit_reason(), Some("text"));
}

// ---- resuming from a restored step_count -----------------------------------

#[test]
fn a_step_count_restored_in_before_run_resumes_the_counter() {
    let model = model([text("one"), text("never")]);
    let agent = agent_with(&model)
        .max_agent_steps(6)
        .hook(
            "before_run",
            hook_fn(|state: &mut State| {
                state.data_mut().insert("step_count".into(), json!(5));
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 1);
    assert_eq!(output.step_count(), Some(6));
    assert_eq!(output.exit_reason(), Some("text"));
}

#[test]
fn a_restored_step_count_at_the_limit_runs_no_step() {
    for restored in [5, 9] {
        let log = Log::new();
        let model = model([text("never")]);
        let agent = record_everywhere(agent_with(&model), &log)
            .max_agent_steps(5)
            .hook(
                "before_run",
                hook_fn(move |state: &mut State| {
                    state.set("step_count", json!(restored)).unwrap();
                }),
            )
            .build()
            .unwrap();
        let output = run(&agent).unwrap();
        assert_eq!(model.calls(), 0);
        assert_eq!(log.count("before_llm"), 0);
        assert_eq!(output.step_count(), Some(restored));
        assert_eq!(output.exit_reason(), Some("max_agent_steps"));
    }
}

#[test]
fn step_count_written_after_before_run_is_ignored_by_the_counter_and_overwritten() {
    let search = shared(ok_tool("search"));
    let model = model([call("search", json!({})), call("search", json!({}))]);
    let agent = agent_with(&model)
        .tool_arc(search.clone())
        .max_agent_steps(2)
        .hook(
            "before_tool",
            hook_fn(|state: &mut State| {
                state.data_mut().insert("step_count".into(), json!(99));
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(model.calls(), 2);
    assert_eq!(output.step_count(), Some(2));
}

// ---- after_run -------------------------------------------------------------

#[test]
fn after_run_runs_once_after_every_ending_that_does_not_fail() {
    let endings: Vec<(hookharness::AgentBuilder, &str)> = vec![
        (agent([text("done")]), "text"),
        (
            agent([text("x").with_finish_reason(FinishReason::Length)]).tool(ok_tool("a")),
            "length",
        ),
        (
            agent([call("finish", json!({}))])
                .tool(ok_tool("finish"))
                .exit_conditions(["finish"]),
            "finish",
        ),
        (
            agent([text("never")]).hook(
                "before_llm",
                hook_fn(|state: &mut State| state.set_stop_run("halt")),
            ),
            "halt",
        ),
        (
            agent([call("a", json!({}))])
                .tool(ok_tool("a"))
                .max_agent_steps(1),
            "max_agent_steps",
        ),
        (agent([]).max_agent_steps(0), "max_agent_steps"),
    ];
    for (builder, reason) in endings {
        let log = Log::new();
        let agent = builder
            .hook("after_run", recorder(&log, HookPoint::AfterRun))
            .build()
            .unwrap();
        let output = run(&agent).unwrap();
        assert_eq!(output.exit_reason(), Some(reason));
        assert_eq!(log.count("after_run"), 1, "{reason}");
    }
}

#[test]
fn after_run_can_rewrite_the_result() {
    let agent = agent([text("done")])
        .hook(
            "after_run",
            hook_fn(|state: &mut State| {
                state.set("exit_reason", json!("rewritten")).unwrap();
                state
                    .append_messages(vec![ChatMessage::from_assistant("appended")])
                    .unwrap();
            }),
        )
        .build()
        .unwrap();
    let output = run(&agent).unwrap();
    assert_eq!(output.exit_reason(), Some("rewritten"));
    assert_eq!(output.last_message.unwrap().text(), Some("appended"));
}

#[test]
fn after_run_does_not_run_when_a_hook_fails() {
    let log = Log::new();
    let agent = agent([text("done")])
        .hook("on_exit", hook_fn(|_: &mut State| Err::<(), _>("refused")))
        .hook("after_run", recorder(&log, HookPoint::AfterRun))
        .build()
        .unwrap();
    assert!(matches!(run(&agent), Err(AgentError::Hook { .. })));
    assert_eq!(log.count("after_run"), 0);
}

#[test]
fn after_run_does_not_run_when_the_model_fails() {
    let log = Log::new();
    let agent = agent([ModelReply::error("rate limited")])
        .hook("after_run", recorder(&log, HookPoint::AfterRun))
        .build()
        .unwrap();
    let error = run(&agent).unwrap_err();
    assert_eq!(
        error,
        AgentError::Generator {
            call: 0,
            step: 0,
            message: "rate limited".into()
        }
    );
    assert_eq!(log.count("after_run"), 0);
}

#[test]
fn a_model_failure_names_the_llm_call_and_the_step_it_failed_at() {
    let agent = agent([call("search", json!({})), ModelReply::error("rate limited")])
        .tool(ok_tool("search"))
        .build()
        .unwrap();
    assert_eq!(
        run(&agent).unwrap_err(),
        AgentError::Generator {
            call: 1,
            step: 1,
            message: "rate limited".into()
        }
    );
}

#[test]
fn after_run_does_not_run_when_a_raised_tool_fails() {
    let log = Log::new();
    let agent = agent([call("search", json!({"q": 1}))])
        .tool(failing_tool("search", "boom"))
        .raise_on_tool_invocation_failure(true)
        .hook("after_tool", recorder(&log, HookPoint::AfterTool))
        .hook("after_run", recorder(&log, HookPoint::AfterRun))
        .build()
        .unwrap();
    let error = run(&agent).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Failed to invoke Tool `search` with parameters {'q': 1}. Error: boom"
    );
    assert!(log.entries().is_empty());
}
