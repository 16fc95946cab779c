//! Recording and the scenario writer: a scenario recorded against a local
//! OpenAI-compatible server replays offline as the same run; every scenario
//! round-trips through the JSON writer; recordings hold no key or header.

mod openai_support;

use hookharness::record::{record, same_run};
use hookharness::replay::{Replay, Status};
use hookharness::scenario::{Format, Scenario};
use hookharness::{ChatMessage, GeneratorError, generator_fn};
use openai_support::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use wiremock::ResponseTemplate;

const RESEARCH: &str = r#"
name: fusion-research
tools:
  - name: search
    description: Search the web
    parameters: {type: object, properties: {query: {type: string}}, required: [query]}
    results: ["ITER's first plasma is planned for 2034."]
hooks:
  on_exit:
    - name: require_search
      when: {tool_call_counts: {search: 0}}
      do:
        - append_messages: [{role: user, text: "Search before answering."}]
        - continue_run: true
model:
  - text: "a placeholder the recording replaces"
run:
  messages: [{role: user, text: "What is new in fusion?"}]
expect:
  exit_reason: text
  llm_calls: 3
  tools_run: [search]
  hooks: [on_exit:require_search, on_exit:require_search]
  token_usage: {completion_tokens: 17, prompt_tokens: 150, total_tokens: 167, completion_tokens_details: null, prompt_tokens_details: null}
"#;

fn usage(prompt: u64, completion: u64) -> Value {
    json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
}

/// The three answers of the research conversation, each served once.
fn serve_research(server: &Server) {
    let answers = [
        completion(
            json!({"role": "assistant", "content": "Fusion is going well."}),
            "stop",
            usage(20, 5),
        ),
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": [
                openai_call("call_q1", "search", r#"{"query": "fusion 2025"}"#),
            ]}),
            "tool_calls",
            usage(50, 4),
        ),
        completion(
            json!({"role": "assistant", "content": "ITER plans its first plasma for 2034."}),
            "stop",
            usage(80, 8),
        ),
    ];
    for answer in answers {
        server.answer(ResponseTemplate::new(200).set_body_json(answer), Some(1));
    }
}

fn research(is_async: bool) -> Scenario {
    let text = if is_async {
        RESEARCH.replace("run:\n  messages:", "run:\n  async: true\n  messages:")
    } else {
        RESEARCH.to_owned()
    };
    Scenario::from_str(&text, "fusion-research.yaml", Format::Yaml).unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("record");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn recorded_usage(prompt: u64, completion: u64) -> Value {
    json!({
        "completion_tokens": completion,
        "prompt_tokens": prompt,
        "total_tokens": prompt + completion,
        "completion_tokens_details": null,
        "prompt_tokens_details": null,
    })
}

/// `model` entries without their `sees`.
fn without_sees(model: &Value) -> Value {
    let mut model = model.clone();
    for entry in model.as_array_mut().unwrap() {
        entry.as_object_mut().unwrap().remove("sees");
    }
    model
}

fn record_and_replay(is_async: bool, file: &str) {
    let server = Server::start();
    serve_research(&server);
    let scenario = research(is_async);

    let recording = record(&Replay::new(), &scenario, Arc::new(server.generator()));
    assert_eq!(recording.failed_call(), None);
    let path = tmp(file);
    std::fs::write(&path, recording.to_json()).unwrap();
    let loaded = Scenario::from_path(&path).unwrap();
    let replayed = Replay::new().run(&loaded);

    assert_eq!(replayed.status, Status::Pass, "{:?}", replayed.failures);
    assert_eq!(replayed.result, recording.live.result);
    assert_eq!(replayed.trace, recording.live.trace);
    assert!(same_run(&recording.live, &replayed));
    // The replies as received: text, tool calls with their ids, usage, finish_reason.
    assert_json_eq(
        &without_sees(&loaded.to_value()["model"]),
        &json!([
            {"text": "Fusion is going well.", "usage": recorded_usage(20, 5), "finish_reason": "stop"},
            {"tool_calls": [{"tool": "search", "arguments": {"query": "fusion 2025"}, "id": "call_q1"}],
             "usage": recorded_usage(50, 4), "finish_reason": "tool_calls"},
            {"text": "ITER plans its first plasma for 2034.", "usage": recorded_usage(80, 8), "finish_reason": "stop"},
        ]),
    );
    // Each reply carries the request it answered: the conversation in the
    // scenario's message form (a tool result in Haystack's), and the tools.
    // The first lists it whole; each later one what is new since the request
    // before (`previous_messages` of it kept), so each message is written once.
    let model = loaded.to_value()["model"].clone();
    assert_eq!(model[0]["sees"]["messages"].as_array().unwrap().len(), 1);
    assert_eq!(model[1]["sees"]["previous_messages"], json!(1));
    assert_eq!(
        model[1]["sees"]["new_messages"][1],
        json!({"role": "user", "text": "Search before answering."})
    );
    let last = model[2]["sees"].clone();
    assert_eq!(last["tools"], json!(["search"]));
    assert_eq!(last["previous_messages"], json!(3));
    assert_eq!(last["new_messages"].as_array().unwrap().len(), 2);
    assert_eq!(
        last["new_messages"][1]["content"][0]["tool_call_result"]["result"],
        json!("ITER's first plasma is planned for 2034.")
    );
    assert!(last.get("messages").is_none());
    // The rest of the scenario is kept as it was.
    let mut expected = scenario.clone();
    expected.model = loaded.model.clone();
    expected.sees = loaded.sees.clone();
    expected.file = loaded.file.clone();
    assert_eq!(loaded, expected);
    // The last request carried the whole conversation in OpenAI's format.
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    assert_json_eq(
        &bodies[2],
        &json!({
            "model": "local-model",
            "messages": [
                {"role": "user", "content": "What is new in fusion?"},
                {"role": "assistant", "content": "Fusion is going well."},
                {"role": "user", "content": "Search before answering."},
                {"role": "assistant", "tool_calls": [
                    {"type": "function", "function": {"name": "search", "arguments": "{\"query\": \"fusion 2025\"}"}, "id": "call_q1"},
                ]},
                {"role": "tool", "content": "ITER's first plasma is planned for 2034.", "tool_call_id": "call_q1"},
            ],
            "n": 1,
            "tools": [search_tool_json()],
            "stream": false,
        }),
    );
}

#[test]
fn a_recording_replays_offline_with_the_live_runs_result_and_trace() {
    record_and_replay(false, "research.json");
}

#[test]
fn a_recording_on_the_async_path_replays_the_same() {
    record_and_replay(true, "research-async.json");
}

#[test]
fn a_failed_model_call_is_recorded_as_an_error_reply_that_replays_the_same() {
    let scenario = research(false);
    let live = Arc::new(generator_fn(|request| {
        if request.messages.len() > 1 {
            Err(GeneratorError::new("the server went away"))
        } else {
            Ok(vec![ChatMessage::from_assistant("Fusion is going well.")])
        }
    }));

    let recording = record(&Replay::new(), &scenario, live);

    assert_eq!(recording.failed_call(), Some((1, "the server went away")));
    let model = recording.scenario.to_value()["model"].clone();
    assert_json_eq(
        &without_sees(&model),
        &json!([{"text": "Fusion is going well."}, {"error": "the server went away"}]),
    );
    // The failed call's request is kept too: it is what the error answered.
    assert_eq!(model[1]["sees"]["previous_messages"], json!(1));
    assert_eq!(
        model[1]["sees"]["new_messages"].as_array().unwrap().len(),
        2
    );
    let loaded = Scenario::from_str(&recording.to_json(), "x.json", Format::Json).unwrap();
    assert!(same_run(&recording.live, &Replay::new().run(&loaded)));
}

fn hookharness(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookharness"));
    command
        .args(args)
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_TIMEOUT")
        .env_remove("OPENAI_MAX_RETRIES");
    command
}

#[test]
fn the_record_command_writes_a_scenario_without_the_key_or_any_header() {
    let server = Server::start();
    serve_research(&server);
    let input = tmp("cli-research.yaml");
    std::fs::write(&input, RESEARCH).unwrap();
    let output = tmp("cli-research.recorded.json");
    let base_url = server.base_url();

    let run = hookharness(&["record", input.to_str().unwrap(), "--base-url", &base_url])
        .args([
            "--model",
            "local-model",
            "--output",
            output.to_str().unwrap(),
        ])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();

    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "recorded 3 model replies from {base_url}/chat/completions (model local-model) into {}\n\
             replayed offline: same result and trace as the live run\nPASS ",
            output.display()
        )),
        "{stdout}"
    );
    // The key was sent...
    for request in server.requests() {
        assert_eq!(
            request.headers.get("authorization").unwrap(),
            &format!("Bearer {KEY}")
        );
    }
    // ...and appears nowhere in what was written or printed.
    let written = std::fs::read_to_string(&output).unwrap();
    for secret in [KEY, "Bearer", "uthorization"] {
        assert!(!written.contains(secret), "{secret} in the recording");
        assert!(
            !stdout.contains(secret) && !stderr.contains(secret),
            "{secret} printed"
        );
    }
    let loaded = Scenario::from_path(&output).unwrap();
    assert_eq!(loaded.model.len(), 3);
    assert_eq!(Replay::new().run(&loaded).status, Status::Pass);
}

#[test]
fn the_record_command_writes_nothing_when_a_model_call_fails() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(401).set_body_json(json!({"error": {
            "message": format!("Incorrect API key provided: {KEY}")
        }})),
        None,
    );
    let input = tmp("cli-failing.yaml");
    std::fs::write(&input, RESEARCH).unwrap();
    let output = tmp("cli-failing.recorded.json");

    let run = hookharness(&["record", input.to_str().unwrap()])
        .args(["--base-url", &server.base_url(), "--model", "m"])
        .args(["--output", output.to_str().unwrap()])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();

    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "model call 0 failed: {}/chat/completions answered 401 Unauthorized: \
             Incorrect API key provided: [redacted]\nnothing written\n",
            server.base_url()
        )
    );
    assert!(!output.exists());
}

#[test]
fn the_record_command_takes_only_a_json_output() {
    let input = tmp("cli-yaml-output.yaml");
    std::fs::write(&input, RESEARCH).unwrap();
    let run = hookharness(&["record", input.to_str().unwrap(), "--model", "m"])
        .args([
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--output",
            "out.yaml",
        ])
        .output()
        .unwrap();
    // A bad option value: the usage exit code, as for every command.
    assert_eq!(run.status.code(), Some(4));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        "the recording is written as JSON: give an --output ending in `.json`, got `out.yaml`\n"
    );
}

/// Every valid scenario file in the repository.
fn scenario_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if Format::from_path(&path).is_some() {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("scenarios"), &mut files);
    walk(&root.join("examples/scenarios"), &mut files);
    files
}

#[test]
fn every_scenario_round_trips_through_the_json_writer() {
    let files = scenario_files();
    assert!(files.len() > 100, "found {} scenario files", files.len());
    let mut checked = 0;
    for file in files {
        let Ok(mut scenario) = Scenario::from_path(&file) else {
            continue;
        };
        let text = scenario.to_json();
        let mut again =
            Scenario::from_str(&text, "written.json", Format::Json).unwrap_or_else(|e| {
                panic!(
                    "{}: the written JSON does not load: {e}\n{text}",
                    file.display()
                )
            });
        assert_eq!(
            again.to_json(),
            text,
            "{}: writing is not stable",
            file.display()
        );
        scenario.file = None;
        again.file = None;
        assert_eq!(again, scenario, "{}", file.display());
        let (before, after) = (Replay::new().run(&scenario), Replay::new().run(&again));
        assert_eq!(before, after, "{}", file.display());
        checked += 1;
    }
    assert!(checked > 100, "checked {checked}");
}

#[test]
fn the_writer_keeps_the_formats_key_order_and_every_maps_order() {
    let yaml = r#"
expect: {unused_replies: allow, error: boom, exit_reason: text}
run:
  state: {zeta: 1, alpha: 2}
  messages:
    - {role: assistant, text: "Hi", tool_calls: [{tool: b, arguments: {z: 1, a: 2}, id: c1}], meta: {k: v}, name: bot}
    - {role: tool, content: [{tool_call_result: {result: ok, origin: {tool_name: b, arguments: {}, id: c1}, error: false}}], meta: {}}
  hook_context: {user: u1}
  async: true
model:
  - {tool_calls: [{tool: b, arguments: {y: 1, b: 2}}], usage: {total_tokens: 3, prompt_tokens: 1}}
  - {text: "", finish_reason: length}
  - {error: rate limited}
  - {}
hooks:
  before_llm:
    - {name: ctx, when: {step_count: {gte: 1, lt: 3}, exit_reason: null, last_message: {role: user, has_tool_calls: false, text_contains: x}, times: 2}, do: [{prepend_messages: [{role: system, text: S}]}, {stop_run: null}, {drop_tool_calls: [a, b]}, {rewrite_tool_results: {truncate: 3}}, {set: {messages: [{role: user, text: m}], zeta: 5}}]}
    - {custom: mine}
    - {name: budget, token_budget: {max_total_tokens: 10}}
  after_run: [{shared: audit}]
shared_hooks:
  audit: {name: audit, allowed_hook_points: [after_run]}
tools:
  - {name: b, parameters: {type: object, properties: {z: {type: integer}}}, results: [ok, {json: {n: 1}}, {error: bad}], repeat_last: true}
agent:
  state_schema: {zeta: {type: int}, alpha: {type: any, handler: replace_values}}
  exit_conditions: [text, b]
  max_agent_steps: 7
description: every construct
name: kitchen-sink
version: 1
"#;
    let scenario = Scenario::from_str(yaml, "sink.yaml", Format::Yaml).unwrap();
    let value = scenario.to_value();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        keys(&value),
        [
            "version",
            "name",
            "description",
            "agent",
            "tools",
            "shared_hooks",
            "hooks",
            "model",
            "run",
            "expect"
        ]
    );
    assert_eq!(
        keys(&value["agent"]),
        ["max_agent_steps", "exit_conditions", "state_schema"]
    );
    assert_eq!(keys(&value["agent"]["state_schema"]), ["zeta", "alpha"]);
    assert_eq!(
        keys(&value["run"]),
        ["messages", "hook_context", "state", "async"]
    );
    assert_eq!(keys(&value["run"]["state"]), ["zeta", "alpha"]);
    assert_eq!(
        keys(&value["model"][0]["tool_calls"][0]["arguments"]),
        ["y", "b"]
    );
    assert_eq!(
        keys(&value["model"][0]["usage"]),
        ["total_tokens", "prompt_tokens"]
    );
    assert_eq!(
        keys(&value["expect"]),
        ["exit_reason", "error", "unused_replies"]
    );
    let mut again = Scenario::from_str(&scenario.to_json(), "sink.json", Format::Json).unwrap();
    again.file = scenario.file.clone();
    assert_eq!(again, scenario);
}

// ---- limits and output checks ------------------------------------------------

/// `record INPUT --base-url URL --model m --output OUTPUT EXTRA...`.
fn record_cli(
    server: &Server,
    input: &Path,
    output: &Path,
    extra: &[&str],
) -> std::process::Output {
    hookharness(&["record", input.to_str().unwrap()])
        .args(["--base-url", &server.base_url(), "--model", "m"])
        .args(["--output", output.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap()
}

/// The files of `dir` (temporary files included).
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A fresh folder holding the research scenario as `input.yaml`.
fn workspace(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("record-limits")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("input.yaml"), RESEARCH).unwrap();
    dir
}

#[test]
fn an_oversized_reply_stops_the_recording_with_a_clear_error_and_writes_nothing() {
    let server = Server::start();
    let huge = "x".repeat(2_000_000);
    server.answer_json(text_completion(&huge));
    let dir = workspace("oversized");
    let output = dir.join("out.json");
    let run = record_cli(
        &server,
        &dir.join("input.yaml"),
        &output,
        &["--max-reply-bytes", "1000000", "--max-retries", "0"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("sent an answer over the 1000000-byte limit on one reply")
            && stderr.contains("--max-reply-bytes")
            && stderr.ends_with("nothing written\n"),
        "{stderr}"
    );
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

#[test]
fn the_total_bytes_limit_stops_a_recording_whose_replies_add_up_past_it() {
    let server = Server::start();
    serve_research(&server);
    let dir = workspace("total");
    let run = record_cli(
        &server,
        &dir.join("input.yaml"),
        &dir.join("out.json"),
        &["--max-total-bytes", "400", "--max-retries", "0"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("passed the 400-byte limit on all replies together"),
        "{stderr}"
    );
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

#[test]
fn output_checks_fail_before_any_live_call() {
    let server = Server::start();
    serve_research(&server);
    let dir = workspace("checks");
    let input = dir.join("input.yaml");
    std::fs::write(dir.join("existing.json"), "keep me").unwrap();
    std::fs::write(dir.join("target.json"), "keep me too").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("target.json", dir.join("link.json")).unwrap();
    let json_input = dir.join("input.json");
    std::fs::write(
        &json_input,
        Scenario::from_str(RESEARCH, "input.yaml", Format::Yaml)
            .unwrap()
            .to_json(),
    )
    .unwrap();
    let mut cases = vec![
        (
            input.clone(),
            dir.join("missing/out.json"),
            vec![],
            "the folder `",
        ),
        (
            input.clone(),
            dir.join("existing.json"),
            vec![],
            "exists; pass --force to overwrite it",
        ),
        (
            json_input.clone(),
            json_input.clone(),
            vec!["--force"],
            "is the input file; give another --output",
        ),
    ];
    if cfg!(unix) {
        cases.push((
            input.clone(),
            dir.join("link.json"),
            vec!["--force"],
            "is a symbolic link",
        ));
    }
    for (input, output, extra, expected) in cases {
        let run = record_cli(&server, &input, &output, &extra);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(4), "{stderr}");
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert!(server.requests().is_empty(), "a live call was made");
    assert_eq!(
        std::fs::read_to_string(dir.join("existing.json")).unwrap(),
        "keep me"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("target.json")).unwrap(),
        "keep me too"
    );
    let mut expected_files = vec!["existing.json", "input.json", "input.yaml", "target.json"];
    if cfg!(unix) {
        expected_files.push("link.json");
        expected_files.sort();
    }
    // No temporary file is left behind either.
    assert_eq!(files_in(&dir), expected_files);

    // With --force, an existing recording is replaced.
    let run = record_cli(&server, &input, &dir.join("existing.json"), &["--force"]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written = Scenario::from_path(&dir.join("existing.json")).unwrap();
    assert_eq!(written.model.len(), 3);
}

/// An output that is a hard link to the input scenario is the input under
/// another name: refused before any live call, even with `--force`, and
/// the link is not split.
#[cfg(unix)]
#[test]
fn a_hard_link_to_the_input_is_refused_as_the_input_is() {
    use std::os::unix::fs::MetadataExt;
    let server = Server::start();
    serve_research(&server);
    let dir = workspace("hard_link");
    let input = dir.join("input.json");
    std::fs::write(
        &input,
        Scenario::from_str(RESEARCH, "input.yaml", Format::Yaml)
            .unwrap()
            .to_json(),
    )
    .unwrap();
    let output = dir.join("out.json");
    std::fs::hard_link(&input, &output).unwrap();
    let run = record_cli(&server, &input, &output, &["--force"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "`{}` is a hard link to the input file `{}`; give another --output",
            output.display(),
            input.display()
        )),
        "{stderr}"
    );
    assert!(server.requests().is_empty(), "a live call was made");
    let (a, b) = (
        std::fs::metadata(&input).unwrap(),
        std::fs::metadata(&output).unwrap(),
    );
    assert_eq!((a.dev(), a.ino()), (b.dev(), b.ino()), "the link was split");
}

#[test]
fn a_redirect_is_not_followed_so_the_conversation_is_sent_once() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(307)
            .insert_header("location", "http://127.0.0.1:9/v1/chat/completions"),
        None,
    );
    let dir = workspace("redirect");
    let run = record_cli(
        &server,
        &dir.join("input.yaml"),
        &dir.join("out.json"),
        &["--max-retries", "0"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("answered 307 Temporary Redirect")
            && stderr.contains("redirects are not followed")
            && stderr.contains("the server points to http://127.0.0.1:9/v1/chat/completions"),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), 1);
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

#[test]
fn a_tool_call_with_arguments_that_are_not_json_is_dropped_with_a_warning() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(200).set_body_json(completion(
            json!({"role": "assistant", "content": null, "tool_calls": [
                openai_call("call_bad", "search", "{oops"),
            ]}),
            "tool_calls",
            usage(10, 2),
        )),
        Some(1),
    );
    server.answer_json(text_completion("done"));
    let dir = workspace("dropped");
    let run = record_cli(&server, &dir.join("input.yaml"), &dir.join("out.json"), &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.starts_with(
            "warning: OpenAI returned a malformed JSON string for tool call arguments. \
             This tool call will be skipped. (tool_call_id=call_bad, tool_name=search, \
             arguments=\"{oops\")\n"
        ),
        "{stderr}"
    );
}

/// The line and column of the `"sees"` key of `model[reply]` in a
/// recording's JSON text (each entry's `sees` comes after its reply).
fn sees_key_position(text: &str, reply: usize) -> (usize, usize) {
    let model = text.find("\"model\": [").unwrap();
    let start = text[model..]
        .match_indices("\"sees\": {")
        .nth(reply)
        .map(|(i, _)| model + i)
        .unwrap();
    let line = text[..start].matches('\n').count() + 1;
    let column = start - text[..start].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

#[test]
fn a_stale_replay_of_a_recording_fails_with_the_diff_until_rebased() {
    let server = Server::start();
    serve_research(&server);
    let recording = record(
        &Replay::new(),
        &research(false),
        Arc::new(server.generator()),
    );
    let path = tmp("stale.json");
    let recorded = recording.to_json();
    std::fs::write(&path, &recorded).unwrap();
    let file = path.to_str().unwrap();
    let run = |args: &[&str]| {
        let output = hookharness(args).output().unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        (output.status.code(), stdout)
    };
    assert_eq!(run(&["run", file]).0, Some(0));

    // A hook change: the model would now be sent another nudge.
    let edited = recorded.replacen(
        "\"Search before answering.\"",
        "\"Search first, then answer.\"",
        1,
    );
    assert_ne!(edited, recorded);
    std::fs::write(&path, &edited).unwrap();
    let (code, report) = run(&["run", file]);
    assert_eq!(code, Some(1), "{report}");
    let (line, column) = sees_key_position(&edited, 1);
    assert_eq!(
        report,
        format!(
            "FAIL  {file}  (fusion-research)\n      \
             model[1].sees ({file}:{line}:{column}): LLM call 1 was sent another request: \
             messages[2] differs (1 later reply sees another request too); if the change is \
             intended, `hookharness rebase {file}` rewrites `sees`\n        \
             --- expected / +++ actual\n          \
             role: \"user\"\n        \
             - text: \"Search before answering.\"\n        \
             + text: \"Search first, then answer.\"\n      \
             trace, last events:\n        \
             [step 2] model receives 5 message(s)\n            \
             last: tool: result of search: \"ITER's first plasma is planned for 2034.\"\n            \
             model answers assistant: \"ITER plans its first plasma for 2034.\"\n        \
             [step 3] on_exit: hook `require_search` ran\n        \
             [step 3] exit attempt (\"text\"): the run ends\n        \
             run ends: exit_reason \"text\", step_count 3\n\n\
             0 passed, 1 failed, 0 errors\n"
        )
    );

    // Accepting the change: only `sees` is rewritten, and the replay passes.
    let (code, summary) = run(&["rebase", file]);
    assert_eq!(code, Some(0), "{summary}");
    assert_eq!(
        summary,
        format!(
            "model[0].sees: unchanged\n\
             model[1].sees: rewritten (messages[2] differs)\n\
             model[2].sees: rewritten (messages[2] differs)\n\
             rebased {file}: 2 of 3 `sees` rewritten (only `sees` changed)\n"
        )
    );
    assert_eq!(run(&["run", file]).0, Some(0));
    let rebased = std::fs::read_to_string(&path).unwrap();
    let parse = |text: &str| -> Value { serde_json::from_str(text).unwrap() };
    let (mut before, mut after) = (parse(&edited), parse(&rebased));
    assert_ne!(before, after);
    for scenario in [&mut before, &mut after] {
        for entry in scenario["model"].as_array_mut().unwrap() {
            entry.as_object_mut().unwrap().remove("sees");
        }
    }
    assert_eq!(before, after, "the rebased file differs only in `sees`");
    assert_eq!(
        parse(&rebased)["model"][1]["sees"]["new_messages"][1],
        json!({"role": "user", "text": "Search first, then answer."})
    );
    // The last reply keeps the first three of those: its text is as it was.
    assert_eq!(
        parse(&rebased)["model"][2]["sees"],
        parse(&edited)["model"][2]["sees"]
    );
}

// ---- nothing left behind, the key check, timeouts ------------------------------

/// A scenario of one model call, no tools and no hooks.
const HELLO: &str = "name: hello\nmodel: []\nrun:\n  messages: [{role: user, text: Hi}]\n";

/// A fresh folder holding `text` as `input.yaml`.
fn workspace_with(name: &str, text: &str) -> PathBuf {
    let dir = workspace(name);
    std::fs::write(dir.join("input.yaml"), text).unwrap();
    dir
}

#[test]
fn a_recording_killed_while_it_waits_for_the_model_leaves_no_file() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(200)
            .set_body_json(text_completion("late"))
            .set_delay(std::time::Duration::from_secs(30)),
        None,
    );
    let dir = workspace_with("killed", HELLO);
    let mut child = hookharness(&["record", dir.join("input.yaml").to_str().unwrap()])
        .args(["--base-url", &server.base_url(), "--model", "m"])
        .args(["--output", dir.join("out.json").to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while server.requests().is_empty() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "no request arrived"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Mid-record: the live call is under way. An abort or a kill runs no
    // destructor, so anything created so far would stay.
    assert_eq!(files_in(&dir), ["input.yaml"]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

/// `record` of HELLO with `key` in `OPENAI_API_KEY`, the server answering
/// `text`.
fn record_with_key(name: &str, key: &str, text: &str) -> (std::process::Output, PathBuf) {
    let server = Server::start();
    server.answer_json(text_completion(text));
    let dir = workspace_with(name, HELLO);
    let output = dir.join("out.json");
    let run = hookharness(&["record", dir.join("input.yaml").to_str().unwrap()])
        .args(["--base-url", &server.base_url(), "--model", "m"])
        .args(["--output", output.to_str().unwrap()])
        .env("OPENAI_API_KEY", key)
        .output()
        .unwrap();
    (run, output)
}

#[test]
fn a_key_too_short_to_be_a_secret_does_not_stop_a_recording_that_holds_it() {
    for (name, key) in [("key-1", "a"), ("key-7", "abcdefg")] {
        let (run, output) = record_with_key(name, key, "a reply that says abcdefg");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(0), "{key}: {stderr}");
        assert!(std::fs::read_to_string(&output).unwrap().contains(key));
    }
}

#[test]
fn a_recording_that_holds_a_key_of_eight_characters_or_more_is_not_written() {
    for (name, key) in [("key-8", "abcdefgh"), ("key-long", KEY)] {
        let (run, output) = record_with_key(name, key, &format!("the key is {key}!"));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{key}: {stderr}");
        assert_eq!(
            stderr, "the recording holds the API key; nothing written\n",
            "{key}"
        );
        assert!(!output.exists());
        assert_eq!(files_in(output.parent().unwrap()), ["input.yaml"]);
    }
}

#[test]
fn a_body_that_stops_arriving_is_reported_as_the_timeout_naming_the_flag() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        // Every connection: headers and the start of a body, then silence.
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut buffer = [0_u8; 65536];
                let _ = stream.read(&mut buffer);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                      content-length: 1000\r\n\r\n{\"id\": \"chatcmpl-1\", ",
                );
                let _ = stream.flush();
                std::thread::sleep(std::time::Duration::from_secs(20));
            });
        }
    });
    let dir = workspace_with("stalled", HELLO);
    let run = hookharness(&["record", dir.join("input.yaml").to_str().unwrap()])
        .args(["--base-url", &format!("http://127.0.0.1:{port}/v1")])
        .args(["--model", "m", "--timeout", "1", "--max-retries", "0"])
        .args(["--output", dir.join("out.json").to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "model call 0 failed: http://127.0.0.1:{port}/v1/chat/completions stopped sending \
             its answer midway: no complete answer within 1s (the timeout), 21 bytes of the \
             body received; raise the timeout (`--timeout` for `hookharness record`, else \
             $OPENAI_TIMEOUT) if the server is this slow\nnothing written\n"
        )
    );
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

// ---- a recording's size ----------------------------------------------------------

/// A scenario whose model calls `search` until it answers in text.
const SEARCHING: &str = r#"
name: searching
agent: {max_agent_steps: 200}
tools:
  - name: search
    description: Search
    parameters: {type: object, properties: {query: {type: string}}}
    results: ["a result"]
    repeat_last: true
model: []
run:
  messages: [{role: user, text: "Search until done."}]
"#;

/// Answers each request with a text of `bytes` bytes and a `search` call,
/// until the request holds `replies - 1` assistant messages; then a text.
fn serve_searching(server: &Server, replies: usize, bytes: usize) {
    server.answer_with(move |request: &wiremock::Request| {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let answered = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "assistant")
            .count();
        let text = format!("{answered:04}").repeat(bytes / 4);
        let message = if answered + 1 < replies {
            json!({"role": "assistant", "content": text, "tool_calls": [
                openai_call(&format!("call_{answered}"), "search", r#"{"query": "q"}"#),
            ]})
        } else {
            json!({"role": "assistant", "content": text})
        };
        ResponseTemplate::new(200).set_body_json(completion(message, "stop", usage(1, 1)))
    });
}

#[test]
fn a_recording_holds_each_message_once_so_its_size_grows_linearly_with_the_run() {
    let (replies, bytes) = (40, 20_000);
    let server = Server::start();
    serve_searching(&server, replies, bytes);
    let dir = workspace_with("linear", SEARCHING);
    let output = dir.join("out.json");
    let run = record_cli(&server, &dir.join("input.yaml"), &output, &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    // Every reply's text twice (the reply, and the next request's `sees`),
    // and little else. Each `sees` listing the whole conversation held
    // about `replies / 2` times that: 16 MB here, for 0.8 MB of replies.
    let size = std::fs::metadata(&output).unwrap().len();
    let replied = (replies * bytes) as u64;
    assert!(
        size > 2 * replied && size < 2 * replied + replied / 4,
        "{size}"
    );
    let loaded = Scenario::from_path(&output).unwrap();
    assert_eq!(loaded.model.len(), replies);
    assert_eq!(Replay::new().run(&loaded).status, Status::Pass);
}

#[test]
fn a_recording_over_the_recording_limit_is_not_written_and_names_the_flag() {
    let server = Server::start();
    serve_searching(&server, 5, 1_000);
    let dir = workspace_with("recording-limit", SEARCHING);
    let output = dir.join("out.json");
    let run = record_cli(
        &server,
        &dir.join("input.yaml"),
        &output,
        &["--max-recording-bytes", "7000"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("the recording is ")
            && stderr.ends_with(
                " bytes, over the 7000-byte limit on the whole recording; nothing written \
                 (raise the limit with `--max-recording-bytes` if a recording this large is \
                 expected)\n"
            ),
        "{stderr}"
    );
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

// ---- a recording its loader would refuse ---------------------------------------

/// `{"a": {"a": ... {}}}`, `levels` maps deep.
fn nested(levels: usize) -> String {
    format!(
        "{}{}",
        "{\"a\": ".repeat(levels - 1) + "{}",
        "}".repeat(levels - 1)
    )
}

/// A server answering one `search` call with `arguments`, then a text.
fn serve_deep_call(arguments: &str) -> Server {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(200).set_body_json(completion(
            json!({"role": "assistant", "content": null, "tool_calls": [
                openai_call("call_deep", "search", arguments),
            ]}),
            "tool_calls",
            usage(1, 1),
        )),
        Some(1),
    );
    server.answer_json(text_completion("done"));
    server
}

#[test]
fn a_recording_is_refused_exactly_when_its_loader_would_refuse_it() {
    let scenario = Scenario::from_str(SEARCHING, "searching.yaml", Format::Yaml).unwrap();
    let mut deepest_written = None;
    for levels in 100..=127 {
        let server = serve_deep_call(&nested(levels));
        let recording = record(&Replay::new(), &scenario, Arc::new(server.generator()));
        let refused = match recording.failed_call() {
            Some((0, reason)) => {
                assert!(
                    reason.contains("past the 128 levels the scenario loader reads"),
                    "{reason}"
                );
                // The run stops at that reply: no later live call.
                assert_eq!(server.requests().len(), 1);
                true
            }
            Some(other) => panic!("{levels}: {other:?}"),
            None => recording.unloadable().is_some(),
        };
        if refused {
            continue;
        }
        let text = recording.to_json();
        Scenario::from_str(&text, "deep.json", Format::Json)
            .unwrap_or_else(|e| panic!("{levels}: accepted, yet: {e}"));
        deepest_written = Some((levels, text));
    }
    // The deepest recording written loads; one level more does not: the
    // refusal starts exactly where the loader's limit does.
    let (levels, text) = deepest_written.expect("some depth is recorded");
    assert!((100..127).contains(&levels), "{levels}");
    let deeper = text.replace("\"a\": {}", "\"a\": {\"a\": {}}");
    assert_ne!(deeper, text);
    let error = Scenario::from_str(&deeper, "deeper.json", Format::Json)
        .expect_err("one level deeper loads")
        .to_string();
    assert!(error.contains("128"), "{error}");
}

#[test]
fn the_record_command_writes_nothing_when_the_recording_would_not_load_back() {
    let server = serve_deep_call(&nested(127));
    let dir = workspace_with("deep", SEARCHING);
    let run = record_cli(&server, &dir.join("input.yaml"), &dir.join("out.json"), &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("model call 0 failed: the reply nests lists and maps ")
            && stderr.ends_with(
                "past the 128 levels the scenario loader reads, so the recording would not \
                 load back; it cannot be recorded\nnothing written\n"
            ),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), 1, "no live call after that reply");
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

#[test]
fn a_conversation_growing_past_the_recording_limit_stops_the_live_run() {
    let server = Server::start();
    serve_searching(&server, 5, 1_000);
    let dir = workspace_with("recording-limit-live", SEARCHING);
    let run = record_cli(
        &server,
        &dir.join("input.yaml"),
        &dir.join("out.json"),
        &["--max-recording-bytes", "2500"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    // The request that passes the limit is not sent.
    let sent = server.requests().len();
    assert!(sent < 5, "{sent} requests");
    assert!(
        stderr.starts_with(&format!(
            "model call {sent} failed: the conversation the recording lists would take about "
        )) && stderr.ends_with(
            " bytes, past the 2500-byte limit on the whole recording; stopped before this \
                 call (raise the limit, `--max-recording-bytes` for `hookharness record`, if a \
                 recording this large is expected)\nnothing written\n"
        ),
        "{stderr}"
    );
    assert_eq!(files_in(&dir), ["input.yaml"]);
}
