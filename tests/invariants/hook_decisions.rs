//! The invariants about what hooks decide and rewrite: rejected calls never
//! run, approved arguments are the ones that run, a continue_run loop makes
//! progress, rewrites keep tool calls with their results, compaction never
//! grows the conversation, offloaded results can be read back. Each one
//! holds over the whole corpus and catches a deliberately broken hook.

use crate::support::{corpus_files, reported, scenario};
use hookharness::hooks::offload::{
    AlwaysOffload, InMemoryToolResultStore, OFFLOADED_META_KEY, StoredContent,
    ToolResultOffloadHook, ToolResultStore,
};
use hookharness::invariants::{Invariant, Invariants, Violation};
use hookharness::message::{ChatMessage, ChatRole, ContentPart, ToolCall};
use hookharness::outcome::Detail;
use hookharness::replay::Replay;
use hookharness::scenario::Scenario;
use hookharness::{Hook, HookError, State};
use serde_json::json;
use std::sync::Arc;

/// Runs with the full trace and checks every invariant the scenario shows.
fn checked(replay: Replay, scenario: &Scenario) -> Vec<Violation> {
    let outcome = replay.detail(Detail::Full).run(scenario);
    Invariants::new().scenario(scenario).check(&outcome)
}

#[test]
fn every_corpus_scenario_keeps_the_hook_invariants() {
    let files = corpus_files();
    assert!(files.len() > 100);
    let mut broken = Vec::new();
    for file in &files {
        let scenario = Scenario::from_path(file).unwrap();
        for violation in checked(Replay::new(), &scenario) {
            if violation.invariant.is_about_hooks() {
                broken.push(format!("{}: {violation}", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// A confirmation hook that asks about every call, answering `answers` in
/// order, then `after` (a custom hook) at before_tool.
fn confirmed(answers: &str, after: Option<&str>) -> Scenario {
    let after = after.map_or(String::new(), |name| format!("\n    - custom: {name}"));
    scenario(&format!(
        r#"
tools:
  - {{name: search, results: [found]}}
  - {{name: delete_file, results: [deleted]}}
hooks:
  before_tool:
    - name: confirm
      confirmation:
        confirmation_strategies:
          "*":
            type: haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy
            init_parameters:
              confirmation_policy: {{type: haystack.hooks.human_in_the_loop.policies.AlwaysAskPolicy}}
              confirmation_ui:
                type: hookharness.hooks.confirmation.ScriptedConfirmationUI
                init_parameters:
                  answers: {answers}{after}
model:
  - tool_calls:
      - {{tool: search, arguments: {{query: fusion}}}}
      - {{tool: delete_file, arguments: {{path: /tmp/x}}}}
  - text: done
run:
  messages: [{{role: user, text: go}}]
expect:
  unused_replies: allow
"#
    ))
}

/// Every answer pair: confirm, modify or reject, for each of the two calls.
fn every_answer_pair() -> Vec<String> {
    let answers = [
        "{action: confirm}",
        "{action: modify, new_tool_params: {path: /tmp/safe}}",
        "{action: reject, feedback: no}",
    ];
    let mut pairs = Vec::new();
    for first in answers {
        for second in answers {
            pairs.push(format!("[{first}, {second}]"));
        }
    }
    pairs
}

/// A "retry" hook that puts every call back which a confirmation rejected:
/// the bug of a middleware that re-executes a rejected call.
struct RequeueRejected;
impl Hook for RequeueRejected {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let mut messages = state.messages().to_vec();
        let rejected: Vec<_> = messages
            .iter()
            .filter_map(ChatMessage::tool_call_result)
            .filter(|r| r.error)
            .map(|r| ToolCall::clone(&r.origin))
            .collect();
        if rejected.is_empty() {
            return Ok(());
        }
        messages.push(ChatMessage::from_assistant_parts(None, rejected));
        state.replace_messages(messages);
        Ok(())
    }
}

/// A hook that adds a default argument to every pending call, after the
/// user approved them.
struct AddDefaults;
impl Hook for AddDefaults {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let mut messages = state.messages().to_vec();
        let Some(last) = messages.last_mut() else {
            return Ok(());
        };
        let parts: Vec<ContentPart> = last
            .content()
            .iter()
            .cloned()
            .map(|part| match part {
                ContentPart::ToolCall(mut call) => {
                    Arc::make_mut(&mut call)
                        .arguments
                        .insert("timeout".into(), json!(30));
                    ContentPart::ToolCall(call)
                }
                other => other,
            })
            .collect();
        *last = ChatMessage::new(ChatRole::Assistant, parts);
        state.replace_messages(messages);
        Ok(())
    }
}

#[test]
fn every_confirmation_answer_keeps_the_decision_invariants() {
    for answers in every_answer_pair() {
        let violations = checked(Replay::new(), &confirmed(&answers, None));
        let broken: Vec<_> = violations
            .iter()
            .filter(|v| v.invariant.is_about_hooks())
            .collect();
        assert!(broken.is_empty(), "{answers}: {broken:#?}");
    }
}

#[test]
fn a_hook_that_puts_a_rejected_call_back_breaks_rejected_calls_never_run() {
    let scenario = confirmed(
        "[{action: confirm}, {action: reject, feedback: no}]",
        Some("requeue"),
    );
    let replay = Replay::new().custom_hook("requeue", RequeueRejected);
    let found = reported(
        &checked(replay, &scenario),
        Invariant::RejectedCallsNeverRun,
    );
    assert!(
        found.message.starts_with(
            "`delete_file` ran call \"call_0_1\", which before_tool hook `confirm` had removed at trace["
        ),
        "{found}"
    );
}

#[test]
fn a_hook_that_changes_approved_arguments_breaks_approved_arguments_run() {
    let scenario = confirmed(
        "[{action: confirm}, {action: modify, new_tool_params: {path: /tmp/safe}}]",
        Some("defaults"),
    );
    let replay = Replay::new().custom_hook("defaults", AddDefaults);
    let found = reported(&checked(replay, &scenario), Invariant::ApprovedArgumentsRun);
    assert_eq!(
        found.message,
        "`search` ran call \"call_0_0\" with {\"query\":\"fusion\",\"timeout\":30}, but `confirm` at trace[1] approved {\"query\":\"fusion\"}"
    );
}

/// An on_exit hook that always continues with the same nudge.
struct NudgeForever;
impl Hook for NudgeForever {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        state
            .append_messages(vec![ChatMessage::from_user("Are you sure?")])
            .map_err(|e| HookError::new(e.to_string()))?;
        state.set_continue_run(true);
        Ok(())
    }
}

const SAME_ANSWER: &str = "agent: {max_agent_steps: 3}\nhooks: {on_exit: [{custom: nudge}]}\n\
    model: [{text: done}, {text: done}, {text: done}]\nrun: {messages: [{role: user, text: go}]}";

#[test]
fn an_exit_hook_that_always_continues_breaks_continued_steps_make_progress() {
    let replay = Replay::new().custom_hook("nudge", NudgeForever);
    let found = reported(
        &checked(replay, &scenario(SAME_ANSWER)),
        Invariant::ContinuedStepsMakeProgress,
    );
    assert!(
        found
            .message
            .starts_with("the step continued at trace[2] repeated the one before it"),
        "{found}"
    );
}

#[test]
fn an_exit_hook_that_continues_once_makes_progress() {
    let text = SAME_ANSWER.replace(
        "{custom: nudge}",
        "{name: nudge, when: {times: 1}, do: [{append_messages: [{role: user, text: sure?}]}, {continue_run: true}]}",
    );
    let text = text.replace("max_agent_steps: 3", "max_agent_steps: 2");
    let text = text.replace(", {text: done}]", "]");
    let violations = checked(Replay::new(), &scenario(&text));
    assert!(violations.is_empty(), "{violations:#?}");
}

/// A compaction that keeps the last two messages, whatever they are.
struct KeepLastTwo;
impl Hook for KeepLastTwo {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let messages = state.messages();
        if messages.len() > 2 {
            let kept = messages[messages.len() - 2..].to_vec();
            state.replace_messages(kept);
        }
        Ok(())
    }
}

/// A compaction that puts a long summary in front and removes nothing.
struct SummaryOnTop;
impl Hook for SummaryOnTop {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let mut messages = vec![ChatMessage::from_system("Summary: ".repeat(20))];
        messages.extend(state.messages().iter().cloned());
        state.replace_messages(messages);
        Ok(())
    }
}

const TWO_SEARCHES: &str = "tools: [{name: search, results: [one, two]}]\n\
    hooks: {before_llm: [{custom: compact}]}\n\
    model: [{tool_calls: [{tool: search}, {tool: search}]}, {text: done}]\n\
    run: {messages: [{role: user, text: go}]}";

#[test]
fn a_compaction_that_cuts_between_a_call_and_its_result_breaks_tool_results_stay_with_their_calls()
{
    let replay = Replay::new().custom_hook("compact", KeepLastTwo);
    let found = reported(
        &checked(replay, &scenario(TWO_SEARCHES)),
        Invariant::ToolResultsStayWithTheirCalls,
    );
    assert_eq!(
        found.message,
        "hook `compact` left the tool result of call \"call_0_0\" without its call"
    );
}

#[test]
fn a_compaction_that_adds_more_than_it_removes_breaks_compaction_never_grows() {
    let scenario = scenario(TWO_SEARCHES);
    let outcome = Replay::new()
        .custom_hook("compact", SummaryOnTop)
        .detail(Detail::Full)
        .run(&scenario);
    let unnamed = Invariants::new().scenario(&scenario).check(&outcome);
    assert!(unnamed.is_empty(), "{unnamed:#?}");
    let found = Invariants::new()
        .scenario(&scenario)
        .compactor("compact")
        .check(&outcome);
    let found = reported(&found, Invariant::CompactionNeverGrows);
    assert!(
        found
            .message
            .starts_with("compaction hook `compact` grew the conversation from an estimated "),
        "{found}"
    );
}

/// An offload hook that points to the store but never writes to it.
struct OffloadNowhere;
impl Hook for OffloadNowhere {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        let mut messages = state.messages().to_vec();
        for message in &mut messages {
            let Some(result) = message.tool_call_result().cloned() else {
                continue;
            };
            let reference = format!(
                "memory://{}.txt",
                result.origin.id.clone().unwrap_or_default()
            );
            let mut meta = message.meta().clone();
            meta.insert(OFFLOADED_META_KEY.into(), json!([reference]));
            *message =
                ChatMessage::from_tool(format!("offloaded to {reference}"), result.origin, false)
                    .with_meta(meta);
        }
        state.replace_messages(messages);
        Ok(())
    }
}

const ONE_SEARCH: &str = "tools: [{name: search, results: [a long result]}]\n\
    hooks: {after_tool: [{custom: offload}]}\n\
    model: [{tool_calls: [{tool: search}]}, {text: done}]\n\
    run: {messages: [{role: user, text: go}]}";

#[test]
fn an_offload_hook_that_does_not_write_its_store_breaks_offloaded_results_are_retrievable() {
    let store = InMemoryToolResultStore::new();
    let outcome = Replay::new()
        .custom_hook("offload", OffloadNowhere)
        .run(&scenario(ONE_SEARCH));
    let found = Invariants::new().store(&store).check(&outcome);
    let found = reported(&found, Invariant::OffloadedResultsAreRetrievable);
    assert!(
        found.message.starts_with("the conversation points to offloaded result \"memory://call_0_0.txt\", which no store can read back"),
        "{found}"
    );
}

#[test]
fn the_ready_made_offload_hook_writes_what_it_points_to() {
    let store: Arc<dyn ToolResultStore> = Arc::new(InMemoryToolResultStore::new());
    let hook =
        ToolResultOffloadHook::with_shared_store(Arc::clone(&store)).strategy("*", AlwaysOffload);
    let scenario = scenario(ONE_SEARCH);
    let outcome = Replay::new()
        .custom_hook("offload", hook)
        .detail(Detail::Full)
        .run(&scenario);
    let pointed = outcome.result.as_ref().unwrap().messages[2].meta()[OFFLOADED_META_KEY].clone();
    assert_eq!(pointed, json!(["memory://0_search_call_0_0.txt"]));
    assert_eq!(
        store.read("memory://0_search_call_0_0.txt").unwrap(),
        StoredContent::Text("a long result".into())
    );
    let violations = Invariants::new()
        .scenario(&scenario)
        .store(store.as_ref())
        .check(&outcome);
    assert!(violations.is_empty(), "{violations:#?}");
}

/// Generated scenarios (declarative hooks that drop calls, continue, stop,
/// append, resume or fail) keep the invariants about hooks: the loop and
/// the declarative actions never break them by themselves. Progress is the
/// exception: an `on_exit` hook that nudges twice (`times: 2`) while the
/// script replies the same text twice repeats a step, which is what that
/// invariant reports.
#[test]
fn generated_runs_keep_the_hook_invariants() {
    let replay = Replay::new().detail(Detail::Full);
    hookharness::strategies::Property::new("generated_runs_keep_the_hook_invariants").run(
        hookharness::strategies::scenarios(),
        |scenario| {
            let (_, violations) = hookharness::strategies::replay_and_check(&replay, &scenario);
            let broken: Vec<String> = violations
                .iter()
                .filter(|v| v.invariant.is_about_hooks())
                .filter(|v| v.invariant != Invariant::ContinuedStepsMakeProgress)
                .map(ToString::to_string)
                .collect();
            proptest::prop_assert!(broken.is_empty(), "{}", broken.join("\n"));
            Ok(())
        },
    );
}
