//! What the model saw, from the command line: a malformed `sees` is a
//! located file error; `hookharness rebase` rewrites only the stale `sees`
//! of a YAML scenario and keeps its comments and layout; `--check` writes
//! nothing; `--all` adds `sees` where there was none, in place. (The stale replay of
//! a recording, end to end against a local server, is in `tests/record.rs`.)

mod common;

use common::{hookharness, scratch, stdout};
use hookharness::replay::Replay;
use hookharness::scenario::Scenario;

const STALE: &str = r#"# A nudge that changed after the replies were written.
name: nudged
hooks:
  on_exit:
    - name: nudge
      when: {times: 1}
      do:
        - append_messages: [{role: user, text: "Cite a source."}]   # was "Be brief."
        - continue_run: true
model:
  - text: "Fusion is going well."
    sees: {message_count: 1}        # holds: kept as written
  # the answer to the nudge
  - text: "Per ITER, first plasma is planned for 2034."
    sees:
      messages:
        - {role: user, text: "What is new in fusion?"}
        - {role: assistant, text: "Fusion is going well."}
        - {role: user, text: "Be brief."}
      contains: "Fusion"
run:
  messages: [{role: user, text: "What is new in fusion?"}]
"#;

fn write(name: &str, text: &str) -> String {
    let path = scratch("rebase", name).join("scenario.yaml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn a_yaml_rebase_rewrites_only_the_stale_sees_and_keeps_comments() {
    let file = write("yaml", STALE);
    assert_eq!(hookharness(&["run", &file]).status.code(), Some(1));

    let output = hookharness(&["rebase", &file]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        format!(
            "model[0].sees: unchanged\n\
             model[1].sees: rewritten (messages[2] differs)\n\
             rebased {file}: 1 of 2 `sees` rewritten (only `sees` changed)\n"
        )
    );
    let rebased = std::fs::read_to_string(&file).unwrap();
    let expected = STALE.replace(
        r#"    sees:
      messages:
        - {role: user, text: "What is new in fusion?"}
        - {role: assistant, text: "Fusion is going well."}
        - {role: user, text: "Be brief."}
      contains: "Fusion"
"#,
        r#"    sees:
      messages:
        - {"role": "user", "text": "What is new in fusion?"}
        - {"role": "assistant", "text": "Fusion is going well."}
        - {"role": "user", "text": "Cite a source."}
      contains: "Fusion"
"#,
    );
    assert_ne!(expected, STALE);
    assert_eq!(rebased, expected);
    assert!(
        Replay::new()
            .run(&Scenario::from_path(file.as_ref()).unwrap())
            .passed()
    );
}

#[test]
fn a_matcher_that_no_longer_holds_is_kept_reported_and_never_offered_to_rebase() {
    let text = STALE.replace(r#"contains: "Fusion""#, r#"contains: "Be brief.""#);
    let matcher_only = text.replace(
        r#"      messages:
        - {role: user, text: "What is new in fusion?"}
        - {role: assistant, text: "Fusion is going well."}
        - {role: user, text: "Be brief."}
"#,
        "",
    );
    let file = write("matcher", &matcher_only);
    let run = stdout(&hookharness(&["run", &file]));
    assert!(
        run.contains("`sees.contains` is a matcher, which `hookharness rebase` keeps: if the change is intended, edit it"),
        "{run}"
    );
    assert!(!run.contains("rewrites `sees`"), "{run}");
    let output = hookharness(&["rebase", &file]);
    assert_eq!(output.status.code(), Some(1));
    let out = stdout(&output);
    assert!(
        out.starts_with(&format!(
            "model[0].sees: unchanged\n\
             model[1].sees: kept: a matcher no longer holds (contains: no message's text (nor tool \
             result) contains \"Be brief.\"); edit it\n\
             {file}: nothing rewritten: 1 `sees` holds a matcher that no longer holds; edit it by hand\n"
        )),
        "{out}"
    );
    assert!(!out.contains("rewritten ("), "{out}");
    assert!(!out.contains("rewrites `sees`"), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), matcher_only);

    // Facts and a matcher both stale: the facts are rewritten, the matcher kept.
    let file = write("facts_and_matcher", &text);
    let out = stdout(&hookharness(&["rebase", &file]));
    assert!(
        out.contains(
            "model[1].sees: rewritten (messages[2] differs), but kept: a matcher no longer holds"
        ),
        "{out}"
    );
}

#[test]
fn check_reports_what_would_change_and_writes_nothing() {
    let file = write("check", STALE);
    let output = hookharness(&["rebase", &file, "--check"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).ends_with(&format!(
        "{file}: 1 of 2 `sees` would be rewritten (--check: nothing written)\n"
    )));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), STALE);
}

#[test]
fn all_adds_the_whole_request_to_replies_without_sees_in_place() {
    let text = "# keep me\nmodel:\n  - text: hi   # first\n  - {text: bye}\nrun:\n  messages: [{role: user, text: Hello}]\nexpect: {unused_replies: allow}\n";
    let file = write("all", text);
    let output = hookharness(&["rebase", &file]);
    assert_eq!(
        stdout(&output),
        format!("{file}: no reply has `sees`; `--all` writes one on every reply\n")
    );
    let output = hookharness(&["rebase", &file, "--all"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        format!(
            "model[0].sees: added\nrebased {file}: 1 of 1 `sees` rewritten (only `sees` changed)\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# keep me\nmodel:\n  - text: hi   # first\n    sees:\n      messages:\n        - {\"role\": \"user\", \"text\": \"Hello\"}\n      tools: []\n  - {text: bye}\nrun:\n  messages: [{role: user, text: Hello}]\nexpect: {unused_replies: allow}\n"
    );
}

#[test]
fn an_invalid_file_is_not_rebased() {
    let file = write("invalid", "model:\n  - text: hi\n    sees: {mesages: []}\n");
    let output = hookharness(&["rebase", &file]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "{file}:3:12: unknown key `mesages` in `model[0].sees`; did you mean `messages`?\n"
        )
    );
}

#[test]
fn a_message_in_sees_that_is_no_chat_message_is_a_located_file_error() {
    let file = write(
        "malformed",
        "model:\n  - text: hi\n    sees:\n      messages:\n        - {role: tool, content: [{tool_call_result: {result: x}}]}\n",
    );
    let output = hookharness(&["check", &file]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stdout(&output),
        format!(
            "{file}:5:11: `model[0].sees.messages[0]`: fields `result`, `origin`, `error` are \
             required for a tool result, got keys [\"result\"]\n0 valid, 1 invalid\n"
        )
    );
}

/// `sees` written from a run holds on that run's replay, changes nothing
/// else, and survives the writer: over scenarios generated across the whole
/// contract (hook-written messages in both forms, tool results, errors).
#[cfg(feature = "proptest")]
mod generated {
    use hookharness::replay::{Replay, SeenRequest};
    use hookharness::scenario::{Format, Scenario};
    use hookharness::strategies::{Property, contract_scenarios};
    use proptest::prelude::*;

    #[test]
    fn sees_from_a_run_holds_on_its_replay_and_round_trips() {
        let property = Property::new("sees_from_a_run_holds_on_its_replay_and_round_trips");
        property.run(contract_scenarios(), |scenario| {
            let replay = Replay::new();
            let (outcome, requests) = replay.run_seeing(&scenario);
            let mut seeing = scenario.clone();
            seeing.sees = requests
                .iter()
                .take(scenario.model.len())
                .map(SeenRequest::to_sees)
                .enumerate()
                .collect();
            // As a recording writes them too: what is new since the request
            // before, the rest kept.
            let mut recording = scenario.clone();
            recording.sees = requests
                .iter()
                .take(scenario.model.len())
                .enumerate()
                .map(|(i, r)| (i, r.to_sees_after(i.checked_sub(1).map(|p| &requests[p]))))
                .collect();
            let replayed = replay.run(&recording);
            prop_assert!(
                replayed
                    .failures
                    .iter()
                    .all(|f| !f.message.contains(".sees (")),
                "{:?}",
                replayed.failures
            );
            let again = Scenario::from_str(&recording.to_json(), "recording.json", Format::Json)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&again.sees, &recording.sees);
            let written = seeing.to_yaml();
            let again = Scenario::from_str(&written, "seeing.yaml", Format::Yaml)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{written}")))?;
            prop_assert_eq!(&again, &seeing);
            let replayed = replay.run(&again);
            prop_assert!(
                replayed
                    .failures
                    .iter()
                    .all(|f| !f.message.contains(".sees (")),
                "{:?}",
                replayed.failures
            );
            prop_assert_eq!(&replayed.result, &outcome.result);
            prop_assert_eq!(&replayed.trace, &outcome.trace);
            prop_assert_eq!(replayed.status, outcome.status);
            Ok(())
        });
    }
}

/// `rebase --all` edits every corpus YAML file in place: each reply gets
/// its `sees` as its last key, the rest of the text unchanged, and the
/// result loads with the rebased `sees`.
#[test]
fn rebase_all_edits_every_corpus_yaml_file_in_place() {
    use hookharness::rebase::{Written, rebase, rebased_text};
    use hookharness::scenario::Format;
    let mut edited = 0;
    insta::glob!("../scenarios", "**/*.yaml", |path| {
        let original = std::fs::read_to_string(path).unwrap();
        let mut scenario = Scenario::from_path(path).unwrap();
        scenario.file = Some(path.to_owned());
        let rebased = rebase(&Replay::new(), &scenario, true);
        if rebased.scenario.sees.is_empty() {
            return; // the run failed before its first model call
        }
        let (text, written) = rebased_text(&original, Format::Yaml, &rebased.scenario);
        assert_eq!(written, Written::SeesOnly, "{}\n{text}", path.display());
        let again = Scenario::from_str(&text, "again.yaml", Format::Yaml).unwrap();
        assert_eq!(again.sees, rebased.scenario.sees, "{}", path.display());
        // Every line is kept as it was (comments too), in order, but for
        // flow maps, where `sees` is added before the closing brace.
        let lines: Vec<&str> = text.lines().collect();
        let mut at = 0;
        for line in original.lines().filter(|l| !l.contains('{')) {
            let found = lines[at..].iter().position(|l| l == &line);
            assert!(
                found.is_some(),
                "{}: {line:?} is gone\n{text}",
                path.display()
            );
            at += found.unwrap_or(0) + 1;
        }
        edited += 1;
    });
    assert!(edited > 100, "{edited}");
}

/// STALE with the second reply's conversation written as a recording
/// writes it: the first message kept from the reply before, the rest new.
const KEPT: &str = r#"name: kept
hooks:
  on_exit:
    - name: nudge
      when: {times: 1}
      do:
        - append_messages: [{role: user, text: "Cite a source."}]
        - continue_run: true
model:
  - text: "Fusion is going well."
    sees:
      messages: [{role: user, text: "What is new in fusion?"}]
  - text: "Per ITER, first plasma is planned for 2034."
    sees:
      previous_messages: 1
      new_messages:
        - {role: assistant, text: "Fusion is going well."}
        - {role: user, text: "Be brief."}
run:
  messages: [{role: user, text: "What is new in fusion?"}]
"#;

#[test]
fn previous_messages_with_new_messages_is_the_whole_conversation_and_rebases_as_such() {
    let file = write("kept", KEPT);
    let run = stdout(&hookharness(&["run", &file]));
    assert!(
        run.contains(&format!(
            "model[1].sees ({file}:14:5): LLM call 1 was sent another request: messages[2] \
             differs; if the change is intended, `hookharness rebase {file}` rewrites `sees`"
        )) && run.contains("- text: \"Be brief.\"\n        + text: \"Cite a source.\""),
        "{run}"
    );
    let output = hookharness(&["rebase", &file]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        format!(
            "model[0].sees: unchanged\n\
             model[1].sees: rewritten (messages[2] differs)\n\
             rebased {file}: 1 of 2 `sees` rewritten (only `sees` changed)\n"
        )
    );
    let rebased = std::fs::read_to_string(&file).unwrap();
    assert!(
        rebased.contains(
            "      previous_messages: 1\n      new_messages:\n        \
             - {\"role\": \"assistant\", \"text\": \"Fusion is going well.\"}\n        \
             - {\"role\": \"user\", \"text\": \"Cite a source.\"}\n"
        ),
        "{rebased}"
    );
    assert_eq!(hookharness(&["run", &file]).status.code(), Some(0));
    // Fewer or more messages than the request: the count is the whole one.
    let short = KEPT.replace("        - {role: user, text: \"Be brief.\"}\n", "");
    let file = write("kept_short", &short);
    let run = stdout(&hookharness(&["run", &file]));
    assert!(
        run.contains(
            "`sees.previous_messages` and `new_messages` list 2 messages, the request has 3"
        ),
        "{run}"
    );
}

#[test]
fn previous_messages_that_the_reply_before_does_not_list_is_a_located_file_error() {
    let cases = [
        (
            "too_many",
            KEPT.replace("previous_messages: 1", "previous_messages: 2"),
            ":14:5: `model[1].sees.previous_messages` keeps 2 messages of the previous reply's \
             `sees`, which lists 1; keep at most 1, or list the whole conversation in `messages`",
        ),
        (
            "none_listed",
            KEPT.replace(
                "      messages: [{role: user, text: \"What is new in fusion?\"}]",
                "      message_count: 1",
            ),
            ":14:5: `model[1].sees.previous_messages` keeps 1 messages of `model[0].sees`, \
             which lists none; list the whole conversation in `messages`, or give `model[0]` \
             a `sees` with `messages`",
        ),
        (
            "first",
            KEPT.replace(
                "      messages: [{role: user, text: \"What is new in fusion?\"}]",
                "      previous_messages: 1\n      new_messages: []",
            ),
            ":11:5: `model[0].sees.previous_messages` is 1, but the first reply has no \
             previous one; write 0, or list the conversation in `messages`",
        ),
        (
            "without_new",
            KEPT.replace("      new_messages:\n", "      other:\n"),
            "`new_messages`",
        ),
        (
            "both",
            KEPT.replace(
                "previous_messages: 1",
                "previous_messages: 1\n      messages: []",
            ),
            "`previous_messages + new_messages`",
        ),
    ];
    for (name, text, expected) in cases {
        let file = write(name, &text);
        let output = hookharness(&["check", &file]);
        let out = stdout(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {out}");
        assert!(out.contains(expected), "{name}: {out}");
    }
}

#[test]
fn the_requests_of_a_run_hold_each_unchanged_message_once() {
    use std::sync::Arc;
    let scenario =
        Scenario::from_str(KEPT, "kept.yaml", hookharness::scenario::Format::Yaml).unwrap();
    let (_, requests) = Replay::new().run_seeing(&scenario);
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].messages.len(), 3);
    // The question and the first answer are the previous request's, shared:
    // a long run's requests take memory linear in the run, not its square.
    assert!(Arc::ptr_eq(
        &requests[0].messages[0],
        &requests[1].messages[0]
    ));
    assert_eq!(requests[1].shared_prefix(&requests[0]), 1);
    let sees = requests[1].to_sees_after(Some(&requests[0]));
    assert_eq!(sees.previous_messages, Some(1));
    assert_eq!(sees.new_messages.as_ref().map(Vec::len), Some(2));
    assert!(sees.messages.is_none());
    assert_eq!(requests[0].to_sees_after(None), requests[0].to_sees());
}

/// `--all` on a scenario whose run fails before its first model call used to
/// print "no reply has `sees`; `--all` writes one on every reply" and exit 0.
#[test]
fn all_on_a_run_that_makes_no_model_call_says_so_and_fails() {
    let text = "model:\n  - text: hi\nhooks:\n  before_llm:\n    - {name: stop, do: [{fail: \"refused\"}]}\nrun:\n  messages: [{role: user, text: Hello}]\n";
    let file = write("no_call", text);
    let output = hookharness(&["rebase", &file, "--all"]);
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.starts_with(&format!(
            "{file}: the run made no LLM call, so no `sees` was written\n"
        )),
        "{out}"
    );
    assert!(out.contains("refused"), "the run's report follows: {out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

const RESULTS: &str = r#"name: results
tools:
  - {name: search, results: ["Fusion news.", {json: [1, 2]}]}
model:
  - tool_calls: [{tool: search, arguments: {q: a}}, {tool: search, arguments: {q: b}}]
  - text: done
    sees: {tool_results: ["Fusion news.", "[1, 3]"]}
run:
  messages: [{role: user, text: go}]
"#;

#[test]
fn tool_results_pins_every_result_sent_and_rebases_as_a_fact() {
    let file = write("tool_results", RESULTS);
    let output = hookharness(&["run", &file]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        stdout(&output).contains(
            "LLM call 1 was sent another request: tool_results: expected [\"Fusion news.\", \
             \"[1, 3]\"], got [\"Fusion news.\", \"[1, 2]\"]"
        ),
        "{}",
        stdout(&output)
    );
    // A result that a substring test cannot tell apart is told apart: the
    // whole text of each result, in order.
    let reordered = RESULTS.replace(
        r#"["Fusion news.", "[1, 3]"]"#,
        r#"["[1, 2]", "Fusion news."]"#,
    );
    let reordered = write("tool_results_order", &reordered);
    assert_eq!(hookharness(&["run", &reordered]).status.code(), Some(1));

    let output = hookharness(&["rebase", &file]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        stdout(&output).starts_with("model[1].sees: rewritten (tool_results: expected"),
        "{}",
        stdout(&output)
    );
    let rebased = std::fs::read_to_string(&file).unwrap();
    assert!(
        rebased.contains(r#"sees: {"tool_results": ["Fusion news.", "[1, 2]"]}"#),
        "{rebased}"
    );
    assert_eq!(hookharness(&["run", &file]).status.code(), Some(0));
    let scenario = Scenario::from_path(file.as_ref()).unwrap();
    assert!(Replay::new().run(&scenario).passed());
}
