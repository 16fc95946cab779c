//! `hookharness record --engine haystack`: the user's Python hooks, agents
//! and tools run in the real Haystack `Agent` (the worker's network closed),
//! each model call relayed to this process, which asks a local
//! OpenAI-compatible server (wiremock on 127.0.0.1); the recording is
//! written, read back and replayed offline on the Haystack engine. Needs
//! `HOOKHARNESS_PYTHON` (a Python with haystack-ai 3.4.1), as
//! tests/engine_haystack.rs.

mod openai_support;

use openai_support::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use wiremock::ResponseTemplate;

/// The interpreter with haystack-ai: these tests fail (never skip) without one.
fn python() -> String {
    match std::env::var("HOOKHARNESS_PYTHON") {
        Ok(path) if !path.is_empty() => path,
        _ => panic!(
            "set HOOKHARNESS_PYTHON to a Python with haystack-ai 3.4.1 installed (e.g. \
             HOOKHARNESS_PYTHON=.venv-ref/bin/python): these tests run the real Haystack Agent"
        ),
    }
}

/// One worker at a time: each imports Haystack, and several at once on a
/// small machine would push a run past the short timeouts some tests give.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A fresh folder for one test.
fn workspace(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("record-haystack")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `text` as `input.yaml` in a fresh folder, its `python_path` the
/// project's `folder` (the examples' or the fixtures').
fn input_in(name: &str, text: &str, folder: &str) -> (PathBuf, PathBuf) {
    let dir = workspace(name);
    let text = text.replace("PYTHON_PATH", &format!("{ROOT}/{folder}"));
    let input = dir.join("input.yaml");
    std::fs::write(&input, text).unwrap();
    (dir, input)
}

/// `hookharness record INPUT --engine haystack` against `server`, the key set.
fn record(server: &Server, input: &Path, output: &Path, extra: &[&str]) -> Output {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(["record", input.to_str().unwrap(), "--engine", "haystack"])
        .args(["--base-url", &server.base_url(), "--model", "m"])
        .args(["--max-retries", "0"])
        .args(["--output", output.to_str().unwrap()])
        .args(extra)
        .env("HOOKHARNESS_PYTHON", python())
        .env("OPENAI_API_KEY", KEY)
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_TIMEOUT")
        .env_remove("OPENAI_MAX_RETRIES")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `hookharness run FILE --engine haystack`, offline.
fn replay(file: &Path) -> Output {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(["run", file.to_str().unwrap(), "--engine", "haystack"])
        .env("HOOKHARNESS_PYTHON", python())
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Whether a request body's conversation holds `needle` in some message.
fn asks(body: &Value, needle: &str) -> bool {
    body["messages"]
        .as_array()
        .is_some_and(|m| m.iter().any(|m| m.to_string().contains(needle)))
}

/// The docs' `GradeFinalAnswer` (an `on_exit` Python hook whose judge is an
/// `OpenAIChatGenerator` it builds itself), scripted by `models.judge`.
const GRADED: &str = r#"
name: graded
python_path: ["PYTHON_PATH"]
models:
  judge:
    replies: [{text: "placeholder"}]
    replaces: "haystack.components.generators.chat:OpenAIChatGenerator"
hooks:
  on_exit:
    - python: "docs_hooks.grading:GradeFinalAnswer"
      name: grade
model:
  - text: "placeholder"
run:
  messages: [{role: user, text: "Explain how vaccines work."}]
expect:
  exit_reason: text
  hooks: ["on_exit:grade", "on_exit:grade"]
"#;

/// The judge fails the first answer and passes the second: main, judge,
/// main, judge.
fn serve_graded(server: &Server) {
    server.answer_with(|request| {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let judged = asks(&body, "Reply with only PASS or FAIL");
        let answer = match (judged, body.to_string().contains("memory cells")) {
            (true, true) => "PASS",
            (true, false) => "FAIL",
            (false, _) if asks(&body, "Your answer was incomplete") => {
                "Vaccines train the immune system; memory cells remember the antigen."
            }
            (false, _) => "Vaccines train the immune system.",
        };
        ResponseTemplate::new(200).set_body_json(completion(
            json!({"role": "assistant", "content": answer}),
            "stop",
            json!({"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}),
        ))
    });
}

#[test]
fn a_python_hook_scenario_records_every_model_live_and_replays_the_same_offline() {
    let server = Server::start();
    serve_graded(&server);
    let (dir, input) = input_in("graded", GRADED, "examples/haystack");
    let output = dir.join("graded.recorded.json");
    let run = record(&server, &input, &output, &[]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("recorded 4 model replies from "),
        "{stdout}"
    );
    assert!(
        stdout.contains("replayed offline: same result and trace as the live run"),
        "{stdout}"
    );

    // The server was asked by this process alone, in the run's order.
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4);
    let judged: Vec<bool> = bodies
        .iter()
        .map(|b| asks(b, "Reply with only PASS or FAIL"))
        .collect();
    assert_eq!(judged, [false, true, false, true]);
    let written = std::fs::read_to_string(&output).unwrap();
    assert!(!written.contains(KEY), "the key is not recorded");
    let recorded: Value = serde_json::from_str(&written).unwrap();
    // The main model: both replies, each with what it was sent.
    let model = recorded["model"].as_array().unwrap();
    assert_eq!(model.len(), 2);
    assert_eq!(model[0]["text"], "Vaccines train the immune system.");
    assert_eq!(
        model[0]["sees"]["messages"],
        json!([{"role": "user", "text": "Explain how vaccines work."}])
    );
    assert_eq!(model[0]["usage"]["total_tokens"], 12);
    // The second request: the first one's message, then what is new since.
    assert_eq!(model[1]["sees"]["previous_messages"], 1);
    let new: Vec<(&str, &str)> = model[1]["sees"]["new_messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        new,
        [
            ("assistant", "Vaccines train the immune system."),
            ("user", "Your answer was incomplete. Please improve it."),
        ]
    );
    // The judge: its own script, in call order.
    let judge = &recorded["models"]["judge"];
    assert_eq!(
        judge["replaces"],
        "haystack.components.generators.chat:OpenAIChatGenerator"
    );
    let texts: Vec<&str> = judge["replies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["FAIL", "PASS"]);

    // The file runs offline on the Haystack engine, and passes.
    let again = replay(&output);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}\n{}",
        text(&again.stdout),
        text(&again.stderr)
    );

    // Recording again against the same server gives the same bytes.
    let second = dir.join("again.recorded.json");
    let run = record(&server, &input, &second, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(std::fs::read_to_string(&second).unwrap(), written);
}

#[test]
fn a_recording_written_to_another_folder_imports_the_same_code() {
    let server = Server::start();
    serve_graded(&server);
    let dir = workspace("moved");
    for sub in ["code/docs_hooks", "scenarios", "out"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::copy(
        Path::new(ROOT).join("examples/haystack/docs_hooks/grading.py"),
        dir.join("code/docs_hooks/grading.py"),
    )
    .unwrap();
    let input = dir.join("scenarios/input.yaml");
    std::fs::write(&input, GRADED.replace("PYTHON_PATH", "../code")).unwrap();
    let output = dir.join("out/graded.json");
    let run = record(&server, &input, &output, &[]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}\n{}",
        text(&run.stdout),
        text(&run.stderr)
    );
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    assert_eq!(recorded["python_path"], json!(["../code"]));
    assert_eq!(replay(&output).status.code(), Some(0));
}

/// The research factory (tests the examples keep): a planner model in a
/// `before_run` hook, an `AgentTool` sub-agent with its own model and
/// tool, two tools in one step.
const FACTORY: &str = r#"
name: factory
python_path: ["PYTHON_PATH"]
models:
  planner:
    replies: []
  researcher:
    replies: []
agent:
  python: "research_pack.agents:make_research_agent"
  args: {topic: "fusion energy"}
  models: {planner_generator: planner, researcher_generator: researcher}
model: []
run:
  messages: [{role: user, text: "What is new in fusion?"}]
expect:
  exit_reason: text
  tools_run: [researcher, word_count]
  state: {sources: ["https://example.org/iter", "word_count"]}
"#;

#[test]
fn an_agent_factory_with_a_sub_agent_records_each_model_into_its_script_and_offers_the_tools() {
    let server = Server::start();
    let answers = [
        text_completion("1. ITER status\n2. Outlook"),
        tool_calls_completion(vec![
            openai_call(
                "call_r",
                "researcher",
                r#"{"messages": [{"role": "user", "content": "What is new at ITER?"}]}"#,
            ),
            openai_call("call_w", "word_count", r#"{"text": "What is new at ITER"}"#),
        ]),
        tool_calls_completion(vec![openai_call(
            "call_f",
            "fetch_page",
            r#"{"url": "https://example.org/iter"}"#,
        )]),
        text_completion("ITER assembled its first vacuum-vessel sector."),
        text_completion("ITER assembled its first vacuum-vessel sector."),
    ];
    for answer in answers {
        server.answer(ResponseTemplate::new(200).set_body_json(answer), Some(1));
    }
    let (dir, input) = input_in("factory", FACTORY, "examples/haystack");
    let output = dir.join("out.json");
    let run = record(&server, &input, &output, &[]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("replayed offline: same result and trace as the live run"),
        "{stdout}"
    );

    // The main model was offered the factory's tools, described as Haystack describes them.
    let bodies = server.bodies();
    let names = |body: &Value| -> Vec<String> {
        body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        names(&bodies[0]),
        Vec::<String>::new(),
        "the planner has none"
    );
    assert_eq!(names(&bodies[1]), ["researcher", "word_count"]);
    assert_eq!(names(&bodies[2]), ["fetch_page"]);
    assert_eq!(
        bodies[2]["tools"][0]["function"]["parameters"]["properties"]["url"]["type"],
        "string"
    );

    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    assert_eq!(recorded["model"].as_array().unwrap().len(), 2);
    assert_eq!(recorded["model"][0]["tool_calls"][0]["id"], "call_r");
    assert_eq!(
        recorded["model"][0]["sees"]["tools"],
        json!(["researcher", "word_count"])
    );
    assert_eq!(
        recorded["models"]["planner"]["replies"],
        json!([{"text": "1. ITER status\n2. Outlook", "finish_reason": "stop"}])
    );
    let researcher = recorded["models"]["researcher"]["replies"]
        .as_array()
        .unwrap();
    assert_eq!(researcher.len(), 2);
    assert_eq!(researcher[0]["tool_calls"][0]["tool"], "fetch_page");
    assert!(
        researcher[0].get("sees").is_none(),
        "named replies have no `sees`"
    );
    let again = replay(&output);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stdout));
}

// ---- failures cost the recording, with a clear error, and leave nothing -------------------------

const HELLO: &str = r#"
name: hello
python_path: ["PYTHON_PATH"]
model: []
hooks:
  on_exit:
    - python: "hh_fixtures.hooks:HOOK"
run:
  messages: [{role: user, text: "Hi"}]
"#;

fn hello_with(name: &str, hook: &str) -> (PathBuf, PathBuf) {
    input_in(name, &HELLO.replace("HOOK", hook), "tests/engine_fixtures")
}

#[test]
fn a_failing_endpoint_fails_the_recording_naming_the_call_and_writes_nothing() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(500).set_body_string("upstream exploded"),
        None,
    );
    let (dir, input) = hello_with("failing", "well_behaved");
    let output = dir.join("out.json");
    let run = record(&server, &input, &output, &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("model call 0 failed: "), "{stderr}");
    assert!(stderr.contains("500"), "{stderr}");
    assert!(stderr.ends_with("nothing written\n"), "{stderr}");
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

#[test]
fn a_failing_call_of_a_named_model_names_that_model() {
    let server = Server::start();
    server.answer_with(|request| {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        if asks(&body, "Reply with only PASS or FAIL") {
            ResponseTemplate::new(200).set_body_string("{not json")
        } else {
            ResponseTemplate::new(200).set_body_json(text_completion("An answer."))
        }
    });
    let (dir, input) = input_in("judge-garbage", GRADED, "examples/haystack");
    let output = dir.join("out.json");
    let run = record(&server, &input, &output, &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("call 0 of the model `models.judge` failed: "),
        "{stderr}"
    );
    assert!(stderr.ends_with("nothing written\n"), "{stderr}");
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

#[test]
fn a_worker_that_dies_mid_record_fails_it_saying_how_and_writes_nothing() {
    let server = Server::start();
    server.answer_json(text_completion("Hello!"));
    let (dir, input) = hello_with("crash", "crash");
    let output = dir.join("out.json");
    let run = record(&server, &input, &output, &[]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert_eq!(
        server.bodies().len(),
        1,
        "the call before the hook was live"
    );
    assert!(stderr.starts_with("the live run failed: "), "{stderr}");
    assert!(stderr.contains("worker died"), "{stderr}");
    assert!(stderr.contains("exited with status 3"), "{stderr}");
    assert!(stderr.ends_with("nothing written\n"), "{stderr}");
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

#[test]
fn a_hook_that_hangs_mid_record_times_out_naming_the_hook_and_writes_nothing() {
    let server = Server::start();
    server.answer_json(text_completion("Hello!"));
    let (dir, input) = hello_with("hang", "hang");
    let output = dir.join("out.json");
    let started = Instant::now();
    let run = record(&server, &input, &output, &["--run-timeout", "3"]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert!(stderr.contains("timed out after 3 s in "), "{stderr}");
    assert!(stderr.contains("hh_fixtures/hooks.py:"), "{stderr}");
    assert!(stderr.ends_with("nothing written\n"), "{stderr}");
    assert_eq!(files_in(&dir), ["input.yaml"]);
}

#[test]
fn the_time_the_live_model_takes_does_not_count_against_the_run_timeout() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(200)
            .set_body_json(text_completion("Hello!"))
            .set_delay(Duration::from_secs(4)),
        None,
    );
    let (dir, input) = hello_with("slow", "well_behaved");
    let output = dir.join("out.json");
    let run = record(&server, &input, &output, &["--run-timeout", "3"]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}\n{}",
        text(&run.stdout),
        text(&run.stderr)
    );
    assert!(output.exists());
}

#[test]
fn a_tool_call_with_arguments_that_are_not_json_is_dropped_with_a_warning_and_replays_the_same() {
    let server = Server::start();
    server.answer(
        ResponseTemplate::new(200).set_body_json(completion(
            json!({"role": "assistant", "content": "Let me look.", "tool_calls": [
                openai_call("call_bad", "fetch_page", "{not json"),
            ]}),
            "tool_calls",
            Value::Null,
        )),
        Some(1),
    );
    server.answer_json(text_completion("Done."));
    let (dir, input) = hello_with("bad-args", "well_behaved");
    let output = dir.join("out.json");
    let run = record(&server, &input, &output, &[]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("warning: "), "{stderr}");
    assert!(
        stderr.contains("call_bad") || stderr.contains("fetch_page"),
        "{stderr}"
    );
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    assert_eq!(recorded["model"][0]["text"], "Let me look.");
    assert!(recorded["model"][0].get("tool_calls").is_none());
}

#[test]
fn the_output_is_checked_before_the_worker_starts_or_any_live_call() {
    let server = Server::start();
    server.answer_json(text_completion("Hello!"));
    let (dir, input) = hello_with("destination", "well_behaved");
    // The input itself, under another name.
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let run = record(&server, &input, &link, &[]);
    assert_ne!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let existing = dir.join("existing.json");
    std::fs::write(&existing, "keep me").unwrap();
    let run = record(&server, &input, &existing, &[]);
    assert_ne!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert!(
        text(&run.stderr).contains("--force"),
        "{}",
        text(&run.stderr)
    );
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
    assert!(server.bodies().is_empty(), "no live call was made");
}

#[test]
fn a_reply_past_the_byte_cap_stops_the_recording_naming_the_flag() {
    let server = Server::start();
    server.answer_json(text_completion(&"x".repeat(20_000)));
    let (dir, input) = hello_with("huge", "well_behaved");
    let output = dir.join("out.json");
    let run = record(&server, &input, &output, &["--max-reply-bytes", "10000"]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--max-reply-bytes"), "{stderr}");
    assert_eq!(files_in(&dir), ["input.yaml"]);
}
