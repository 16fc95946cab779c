//! The Haystack engine end to end: the `hookharness` binary runs scenarios
//! through the real `Agent` of haystack-ai 3.4.1 in the interpreter that
//! `HOOKHARNESS_PYTHON` names (CI sets it to the reference venv's Python).
//!
//! Each faulty or hostile hook (tests/engine_fixtures/) runs between two
//! well-behaved scenarios: it must cost its own scenario only, say what
//! happened, and leave the worker able to pass the next one.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

use serde_json::Value;

const FIXTURES: &str = "tests/engine_fixtures/scenarios";
const EXAMPLES: &str = "examples/haystack/scenarios";
const ORDER_BUG: &str = "examples/haystack/explore/profile_before_style.yaml";

/// The interpreter with haystack-ai: these tests run the real Haystack, and
/// fail (never skip) without one.
fn python() -> String {
    match std::env::var("HOOKHARNESS_PYTHON") {
        Ok(path) if !path.is_empty() => path,
        _ => panic!(
            "set HOOKHARNESS_PYTHON to a Python with haystack-ai 3.4.1 and time-machine installed \
             (e.g. HOOKHARNESS_PYTHON=.venv-ref/bin/python): these tests run the real Haystack Agent"
        ),
    }
}

/// One command at a time: each starts a worker that imports Haystack, and
/// several at once on a small machine would push a good scenario past the
/// short `--timeout` the hung-hook tests give.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// `hookharness ARGS` in the project folder, with `extra_env` set.
fn hookharness_with(args: &[&str], extra_env: &[(&str, &str)]) -> Output {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookharness"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("HOOKHARNESS_PYTHON", python())
        .env_remove("HOOKHARNESS_PROGRESS")
        .stdin(Stdio::null());
    for (key, value) in extra_env {
        command.env(key, value);
    }
    command.output().expect("the hookharness binary runs")
}

fn hookharness(args: &[&str]) -> Output {
    hookharness_with(args, &[])
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("the output is UTF-8")
}

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}.yaml")
}

/// Each line of a `--format json` run: one outcome per scenario.
fn outcomes(output: &Output) -> Vec<Value> {
    text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is an outcome"))
        .collect()
}

fn status(outcome: &Value) -> &str {
    outcome["status"].as_str().unwrap_or_default()
}

fn error(outcome: &Value) -> &str {
    outcome["error"].as_str().unwrap_or_default()
}

/// Runs `good`, each of `names`, `good` on the Haystack engine and returns
/// the outcomes of `names`, after checking that both good runs passed.
fn beside_good(names: &[&str], extra: &[&str], env: &[(&str, &str)]) -> Vec<Value> {
    let good = fixture("good");
    let files: Vec<String> = names.iter().map(|n| fixture(n)).collect();
    let mut args = vec!["run", good.as_str()];
    args.extend(files.iter().map(String::as_str));
    args.extend([good.as_str(), "--engine", "haystack", "--format", "json"]);
    args.extend(extra);
    let output = hookharness_with(&args, env);
    let all = outcomes(&output);
    assert_eq!(
        all.len(),
        names.len() + 2,
        "one outcome per scenario; stderr: {}",
        text(&output.stderr)
    );
    for good in [&all[0], &all[names.len() + 1]] {
        assert_eq!(
            status(good),
            "pass",
            "the good scenario still passes: {good}"
        );
    }
    all[1..=names.len()].to_vec()
}

fn one_beside_good(name: &str, extra: &[&str]) -> Value {
    beside_good(&[name], extra, &[]).remove(0)
}

fn assert_error_says(outcome: &Value, parts: &[&str]) {
    assert_eq!(status(outcome), "error", "{outcome}");
    for part in parts {
        assert!(
            error(outcome).contains(part),
            "the error says {part:?}: {}",
            error(outcome)
        );
    }
}

// -- what the "Done when" names -----------------------------------------------------------

#[test]
fn a_hung_hook_times_out_naming_where_it_hung_and_the_next_scenario_passes() {
    let hung = one_beside_good("hung", &["--timeout", "3"]);
    assert_error_says(
        &hung,
        &[
            "timed out after 3 s in ",
            "tests/engine_fixtures/hh_fixtures/hooks.py:",
            " in hang",
            "--timeout SECONDS",
        ],
    );
}

#[test]
fn a_worker_that_exits_costs_its_scenario_and_says_how_it_ended() {
    let crash = one_beside_good("crash", &[]);
    assert_error_says(
        &crash,
        &[
            "the Haystack engine's worker died while running this scenario",
            "exited with status 3",
            "restarted for the next scenario",
        ],
    );
}

// -- the next request sent ahead (`Engine::ahead`) -------------------------------------------------

#[test]
fn each_deadline_runs_from_when_the_worker_starts_its_scenario_not_from_its_sending() {
    // `run` sends each request before it reads the previous record: the
    // second nap's request waits 1.2 s in the worker's pipe, and would be
    // past a 2 s deadline counted from its sending.
    let naps = beside_good(&["nap", "nap", "nap"], &["--timeout", "2"], &[]);
    for nap in &naps {
        assert_eq!(status(nap), "pass", "{nap}");
    }
}

#[test]
fn a_worker_that_dies_with_the_next_request_sent_costs_only_its_scenario() {
    // The second crash's request was sent to the first worker, which died
    // before starting it: it runs again on the new worker (and ends that
    // one too, its own error), and the good one after them passes.
    let crashes = beside_good(&["crash", "crash"], &[], &[]);
    for crash in &crashes {
        assert_error_says(
            crash,
            &[
                "the Haystack engine's worker died while running this scenario",
                "exited with status 3",
            ],
        );
    }
}

#[test]
fn a_timeout_with_the_next_request_sent_gives_that_one_its_own_run_and_deadline() {
    let hung = beside_good(&["hung", "hung", "nap"], &["--timeout", "2"], &[]);
    for outcome in &hung[..2] {
        assert_error_says(outcome, &["timed out after 2 s in ", " in hang"]);
    }
    assert_eq!(status(&hung[2]), "pass", "{}", hung[2]);
}

#[test]
fn a_hook_printing_to_stdout_keeps_the_protocol_and_printed_sees_it() {
    let printed = one_beside_good("printed", &["--trace", "full"]);
    assert_eq!(status(&printed), "pass", "{printed}");
    let outputs: Vec<&str> = printed["trace"]
        .as_array()
        .expect("a trace")
        .iter()
        .filter_map(|event| event["output"].as_str())
        .collect();
    assert_eq!(outputs, ["hello from a hook\nsecond line\n"]);
}

#[test]
fn an_exception_in_user_code_names_its_type_message_and_the_users_frame() {
    let boom = one_beside_good("boom", &[]);
    assert_error_says(
        &boom,
        &[
            "ValueError: the hook broke: no budget left (at ",
            "tests/engine_fixtures/hh_fixtures/hooks.py:",
            " in _fail)",
        ],
    );
}

#[test]
fn an_unscripted_model_call_names_the_caller_and_how_to_script_it() {
    let unscripted = one_beside_good("unscripted", &[]);
    assert_error_says(
        &unscripted,
        &[
            "unscripted model call: `OpenAIChatGenerator.run` called at ",
            "hh_fixtures/hooks.py:",
            " in judge_unscripted",
            "models: {NAME: {replies: [...], replaces: ",
        ],
    );
}

#[test]
fn a_network_call_is_refused_inside_the_worker_naming_host_and_port() {
    let refused = beside_good(
        &["connect_ip", "connect_raw_socket", "fetch_hostname"],
        &[],
        &[],
    );
    let wanted = [
        ("10.255.255.1:8081", " in connect_ip"),
        ("10.255.255.1:8082", " in connect_raw_socket"),
        // Refused at the name lookup: not even a DNS packet leaves.
        ("api.example.com:8443", " in fetch_hostname"),
    ];
    for (outcome, (address, function)) in refused.iter().zip(wanted) {
        assert_error_says(
            outcome,
            &[
                &format!("network access to {address} attempted at "),
                function,
                "the network is closed while a scenario runs",
            ],
        );
    }
}

#[test]
fn a_subprocess_reaches_no_network_where_the_worker_has_a_namespace() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port on loopback");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener
        .local_addr()
        .expect("its address")
        .port()
        .to_string();
    let dir = scratch("network");
    let result_file = dir.join("result");
    let result_path = result_file.to_str().expect("a UTF-8 path");
    let outcome = beside_good(
        &["subprocess_connect"],
        &[],
        &[("HH_PORT", &port), ("HH_NET_RESULT", result_path)],
    )
    .remove(0);
    assert_eq!(status(&outcome), "pass", "{outcome}");
    let said =
        std::fs::read_to_string(&result_file).expect("the hook wrote what its subprocess saw");
    // The same question the engine asks before starting its worker.
    let namespaces = Command::new("unshare")
        .args(["--net", "--", "true"])
        .status()
        .is_ok_and(|s| s.success());
    let accepted = listener.accept().is_ok();
    if namespaces {
        assert!(
            said.starts_with("unreachable: "),
            "the subprocess said {said:?}"
        );
        assert!(!accepted, "a connection reached the test's port");
    } else {
        // Documented: without a namespace only Python code is covered.
        assert_eq!(
            said, "reached",
            "without a namespace the subprocess connects"
        );
    }
}

#[test]
fn a_python_target_that_does_not_import_names_the_module_and_python_path() {
    let missing = one_beside_good("missing_module", &[]);
    assert_error_says(
        &missing,
        &[
            "hook `hh_fixtures.missing_module:whatever`: cannot import `hh_fixtures.missing_module`",
            "No module named 'hh_fixtures.missing_module'",
            "`python_path`",
        ],
    );
}

#[test]
fn a_missing_interpreter_is_a_setup_error_with_exit_4() {
    let good = fixture("good");
    let output = hookharness(&[
        "run",
        &good,
        "--engine",
        "haystack",
        "--python",
        "/nonexistent",
    ]);
    assert_eq!(output.status.code(), Some(4), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("the Haystack engine cannot start `/nonexistent`")
            && stderr.contains("haystack-ai")
            && stderr.contains("--python PATH"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "nothing ran");
}

#[test]
fn the_factory_example_replays_byte_identically_twice() {
    let file = format!("{EXAMPLES}/research_factory.yaml");
    let args = [
        "run",
        file.as_str(),
        "--engine",
        "haystack",
        "--format",
        "json",
        "--trace",
        "full",
    ];
    let first = hookharness(&args);
    let second = hookharness(&args);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stdout));
    assert!(!first.stdout.is_empty());
    assert_eq!(text(&first.stdout), text(&second.stdout));
}

#[test]
fn every_example_scenario_passes() {
    let output = hookharness(&["run", EXAMPLES, "--engine", "haystack"]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let count = std::fs::read_dir(examples_dir())
        .expect("the examples folder")
        .count();
    assert!(count >= 8, "{count} examples");
    assert!(
        stdout.contains(&format!("{count} passed, 0 failed, 0 errors")),
        "{stdout}"
    );
}

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLES)
}

/// A fresh folder under the target's tmp dir.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("engine_haystack")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the scratch folder can be made");
    dir
}

#[test]
fn every_example_fails_readably_on_the_broken_copy_of_its_code() {
    // examples/haystack/README.md: the same scenarios with `python_path`
    // pointing at `broken/` instead of the packages they pin.
    let dir = scratch("broken");
    let broken = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/haystack/broken");
    let mut copied = 0;
    for entry in std::fs::read_dir(examples_dir()).expect("the examples folder") {
        let path = entry.expect("an entry").path();
        let scenario = std::fs::read_to_string(&path).expect("a scenario");
        let line = "python_path: [\"..\"]";
        assert!(scenario.contains(line), "{} has {line}", path.display());
        let swapped = scenario.replace(line, &format!("python_path: [{:?}]", broken.display()));
        std::fs::write(dir.join(path.file_name().expect("a file name")), swapped)
            .expect("the copy is written");
        copied += 1;
    }
    let folder = dir.to_str().expect("a UTF-8 path");
    let output = hookharness(&["run", folder, "--engine", "haystack", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let all = outcomes(&output);
    assert_eq!(all.len(), copied);
    for outcome in &all {
        assert_ne!(status(outcome), "pass", "{outcome}");
        let failures: Vec<&str> = outcome["failures"]
            .as_array()
            .expect("failures")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        // Readable: an expectation that names what it wanted and what the run did.
        assert!(
            failures
                .iter()
                .any(|f| f.contains("expected") || f.contains("was sent another request: ")),
            "{}: {failures:?}",
            outcome["file"]
        );
    }
}

// -- hostile hooks --------------------------------------------------------------------------------

#[test]
fn hooks_that_raise_base_exceptions_cost_their_scenario_only() {
    let raised = beside_good(
        &[
            "hostile_raise_base_exception",
            "hostile_raise_keyboard_interrupt",
            "hostile_raise_system_exit",
            "hostile_recurse",
        ],
        &[],
        &[],
    );
    assert_error_says(
        &raised[0],
        &["Custom: not an Exception (at ", "hostile.py:"],
    );
    // KeyboardInterrupt raised by user code is its scenario's error, not the
    // worker's end (no terminal reaches the worker: it has its own group).
    assert_error_says(
        &raised[1],
        &["KeyboardInterrupt (at ", " in raise_keyboard_interrupt)"],
    );
    assert_error_says(
        &raised[2],
        &["the code called sys.exit(7) at ", " in raise_system_exit"],
    );
    assert_error_says(
        &raised[3],
        &[
            "RecursionError: maximum recursion depth exceeded",
            " in down)",
        ],
    );
}

/// How many lists are nested in `value` before the first non-list, and that value.
fn unnest(mut value: &Value) -> (usize, &Value) {
    let mut levels = 0;
    while let Some([inner]) = value.as_array().map(Vec::as_slice) {
        levels += 1;
        value = inner;
    }
    (levels, value)
}

#[test]
fn values_json_cannot_hold_in_state_keep_the_run_and_show_a_marker() {
    // Haystack 3.4.1 runs this hook's agent to the end; the record used to be
    // lost ("not JSON compliant", "Exceeds the limit (4300 digits)"), or the
    // run failed with "maximum recursion depth exceeded", or the Rust side
    // refused a record nested past serde_json's 128 levels.
    let outcome = one_beside_good("hostile_state_values", &["--trace", "full"]);
    assert_eq!(status(&outcome), "pass", "{outcome}");
    let state = &outcome["result"]["state"];
    for key in ["deep", "deeper"] {
        let (levels, inner) = unnest(&state[key]);
        assert_eq!(levels, 64, "{key} is cut at 64 levels");
        assert_eq!(inner, "<list nested deeper than 64 levels>", "{key}");
    }
    let note = outcome["result"]["messages"]
        .as_array()
        .and_then(|messages| {
            messages
                .iter()
                .find(|m| m["content"][0]["text"] == "a note")
        })
        .expect("the hook's message is in the result");
    assert_eq!(note["meta"]["score"], "<float nan>", "{note}");
    assert_eq!(note["meta"]["seen"], "<set>", "{note}");
    // 64 levels from `meta` itself.
    assert_eq!(unnest(&note["meta"]["deep"]).0, 63, "{note}");
    let changed = outcome["trace"]
        .as_array()
        .expect("a trace")
        .iter()
        .find(|event| event["event"] == "hook_finished")
        .expect("the hook's event");
    assert!(
        changed["changes"]["data"]
            .as_array()
            .is_some_and(|data| data.len() == 6),
        "the six keys it set are its changes: {changed}"
    );
}

#[test]
fn a_hook_returning_a_value_is_ignored_as_haystack_ignores_it() {
    let returned = one_beside_good("hostile_returns_value", &[]);
    assert_eq!(status(&returned), "pass", "{returned}");
}

#[test]
fn a_hook_closing_fd_1_and_2_leaves_the_next_scenarios_output_captured() {
    let runs = beside_good(&["printed_fd", "hostile_close_fd1", "printed_fd"], &[], &[]);
    for outcome in &runs {
        assert_eq!(status(outcome), "pass", "{outcome}");
    }
}

#[test]
fn a_hook_writing_to_the_next_free_descriptors_cannot_reach_the_protocol() {
    let wrote = one_beside_good("hostile_write_fd3", &[]);
    assert_eq!(status(&wrote), "pass", "{wrote}");
}

#[test]
fn printed_unicode_control_characters_and_lone_surrogates_survive_the_protocol() {
    let runs = beside_good(
        &["hostile_odd_text", "hostile_lone_surrogate"],
        &["--trace", "full"],
        &[],
    );
    let output = |outcome: &Value| -> String {
        outcome["trace"]
            .as_array()
            .expect("a trace")
            .iter()
            .filter_map(|e| e["output"].as_str())
            .collect()
    };
    assert_eq!(status(&runs[0]), "pass", "{}", runs[0]);
    assert_eq!(
        output(&runs[0]),
        "naïve café ✓ 𝄞 \u{0}\u{1}\u{1b}[31mred\u{1b}[0m\r\n\ttab \u{2028} end\n"
    );
    assert_eq!(status(&runs[1]), "pass", "{}", runs[1]);
    assert_eq!(
        output(&runs[1]),
        "bad \u{fffd} text\nraw \u{fffd}\u{fffd} bytes\n"
    );
}

#[test]
fn a_hook_printing_100_mb_costs_time_not_the_run() {
    let loud = one_beside_good("hostile_print_100mb", &[]);
    assert_eq!(status(&loud), "pass", "{loud}");
}

#[test]
fn a_thread_left_running_does_not_break_the_next_scenarios() {
    let runs = beside_good(&["hostile_leave_thread", "printed"], &[], &[]);
    for outcome in &runs {
        assert_eq!(status(outcome), "pass", "{outcome}");
    }
}

#[test]
fn a_thread_left_writing_to_fd_1_reaches_no_other_scenarios_trace() {
    // The thread's bytes used to land in the next scenario's hook output (fd 1
    // is the worker's, not a call's): a different trace each run, and an
    // `expect.printed` the next scenario passes by accident. The worker that
    // ran it is replaced before the next scenario.
    let runs = beside_good(
        &["hostile_leave_fd_writer", "printed_fd", "printed_fd"],
        &["--trace", "full"],
        &[],
    );
    for outcome in &runs {
        assert_eq!(status(outcome), "pass", "{outcome}");
    }
    for outcome in &runs[1..] {
        let trace = outcome["trace"].to_string();
        assert!(trace.contains("straight to fd 1"), "{trace}");
        assert!(!trace.contains("left behind"), "{trace}");
    }
}

#[test]
fn a_child_process_a_hook_started_does_not_outlive_the_command() {
    let dir = scratch("child");
    let pid_file = dir.join("child.pid");
    let pid_path = pid_file.to_str().expect("a UTF-8 path");
    let spawned = beside_good(
        &["hostile_spawn_child"],
        &[],
        &[("HH_CHILD_PID_FILE", pid_path)],
    );
    assert_eq!(status(&spawned[0]), "pass", "{}", spawned[0]);
    let pid = std::fs::read_to_string(&pid_file).expect("the hook wrote its child's pid");
    let stat = format!("/proc/{}/stat", pid.trim());
    // Killed with its scenario: gone, or a zombie nobody reaps (a container
    // without an init); never still sleeping. SIGKILL is delivered
    // asynchronously, so the state is read until it settles (bounded).
    let state_of = || {
        std::fs::read_to_string(&stat)
            .ok()
            .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| rest.chars().next()))
            .flatten()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut state = state_of();
    while !matches!(state, None | Some('Z' | 'X')) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        state = state_of();
    }
    assert!(
        matches!(state, None | Some('Z' | 'X')),
        "the child {pid} is still alive 10 s after the command ended ({state:?})"
    );
}

#[test]
fn a_timeout_kills_the_workers_group_only() {
    // Killing the worker's process group must never reach another process
    // (procps-ng 4.0.2 reads `kill -KILL -PGID` as `kill(-1, SIGKILL)`).
    let mut bystander = Command::new("sleep")
        .arg("120")
        .spawn()
        .expect("sleep starts");
    let hung = one_beside_good("hung", &["--timeout", "2"]);
    assert_eq!(status(&hung), "error");
    assert!(
        bystander.try_wait().expect("try_wait").is_none(),
        "the bystander was killed"
    );
    bystander.kill().expect("the bystander is ours to end");
    let _ = bystander.wait();
}

#[test]
fn ten_thousand_hooks_at_one_point_run() {
    let dir = scratch("many_hooks");
    let good = std::fs::read_to_string(fixture("good")).expect("good.yaml");
    let entry = "    - python: \"hh_fixtures.hooks:well_behaved\"\n";
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engine_fixtures");
    let many = good
        .replace(entry, &entry.repeat(10_000))
        .replace("name: good", "name: ten-thousand-hooks")
        .replace(
            "python_path: [\"..\"]",
            &format!("python_path: [{:?}]", fixtures.display()),
        );
    let file = dir.join("many.yaml");
    std::fs::write(&file, many).expect("written");
    let output = hookharness(&[
        "run",
        file.to_str().expect("UTF-8"),
        "--engine",
        "haystack",
        "--format",
        "json",
    ]);
    let all = outcomes(&output);
    assert_eq!(status(&all[0]), "pass", "{}", all[0]);
    let hooks = all[0]["trace"]
        .as_array()
        .expect("a trace")
        .iter()
        .filter(|e| e["event"] == "hook")
        .count();
    assert_eq!(hooks, 10_000);
}

#[test]
fn a_builtin_as_a_hook_target_is_an_error_naming_the_call() {
    let dir = scratch("builtin");
    let good = std::fs::read_to_string(fixture("good")).expect("good.yaml");
    let file = dir.join("os_system.yaml");
    std::fs::write(
        &file,
        good.replace("hh_fixtures.hooks:well_behaved", "os:system"),
    )
    .expect("written");
    let output = hookharness(&[
        "run",
        file.to_str().expect("UTF-8"),
        "--engine",
        "haystack",
        "--format",
        "json",
    ]);
    let all = outcomes(&output);
    assert_error_says(
        &all[0],
        &["hook `os:system`: calling `system` failed: ", "'command'"],
    );
}

#[test]
fn python_path_may_reach_outside_the_scenario_folder_and_through_a_symlink() {
    let dir = scratch("symlinked");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engine_fixtures");
    std::os::unix::fs::symlink(&fixtures, dir.join("linked")).expect("a symlink");
    let good = std::fs::read_to_string(fixture("good")).expect("good.yaml");
    std::fs::write(
        dir.join("through_link.yaml"),
        good.replace("python_path: [\"..\"]", "python_path: [\"linked\"]"),
    )
    .expect("written");
    std::fs::write(
        dir.join("outside.yaml"),
        good.replace(
            "python_path: [\"..\"]",
            &format!("python_path: [{:?}]", fixtures.display()),
        ),
    )
    .expect("written");
    let folder = dir.to_str().expect("UTF-8");
    let output = hookharness(&["run", folder, "--engine", "haystack", "--format", "json"]);
    let all = outcomes(&output);
    assert_eq!(all.len(), 2);
    for outcome in &all {
        assert_eq!(status(outcome), "pass", "{outcome}");
    }
}

// -- explore over Python hooks ----------------------------------------------------------------------

#[test]
fn explore_finds_the_planted_order_bug_and_its_variant_fails_on_replay() {
    let dir = scratch("explore");
    let out = dir.to_str().expect("UTF-8");
    let explored = hookharness(&["explore", ORDER_BUG, "--engine", "haystack", "--out", out]);
    let stdout = text(&explored.stdout);
    assert_eq!(
        explored.status.code(),
        Some(1),
        "{stdout}{}",
        text(&explored.stderr)
    );
    assert!(
        stdout.contains("2 variants (every one of 2 orders and answers), 1 broken\n")
            && stdout.contains("  variant 2: before_llm: [tailor_style, load_profile]\n")
            && stdout.contains("state.style: expected \"terse\", got \"step by step\""),
        "{stdout}"
    );
    let written = dir.join("profile_before_style.variant-2.yaml");
    assert!(
        stdout.contains(&format!("    written: {}\n", written.display())),
        "{stdout}"
    );
    // Written elsewhere, the variant still imports the example's package.
    let replayed = hookharness(&[
        "run",
        written.to_str().expect("UTF-8"),
        "--engine",
        "haystack",
        "--format",
        "json",
    ]);
    assert_eq!(replayed.status.code(), Some(1));
    let all = outcomes(&replayed);
    assert_eq!(status(&all[0]), "fail", "{}", all[0]);
    assert!(
        all[0]["failures"]
            .as_array()
            .expect("failures")
            .iter()
            .any(|f| f
                .as_str()
                .is_some_and(|f| f.contains("got \"step by step\""))),
        "{}",
        all[0]
    );
    // As written, the scenario passes.
    let as_written = hookharness(&["run", ORDER_BUG, "--engine", "haystack"]);
    assert_eq!(
        as_written.status.code(),
        Some(0),
        "{}",
        text(&as_written.stdout)
    );
}

#[test]
fn mutate_runs_over_python_hooks_and_kills_their_swap() {
    let output = hookharness(&[
        "mutate", ORDER_BUG, "--engine", "haystack", "--format", "json",
    ]);
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&output.stdout), text(&output.stderr)));
    let mutants = report["mutants"].as_array().expect("mutants");
    let swap = mutants
        .iter()
        .find(|m| m["operator"] == "swap_hooks")
        .expect("a swap of the two Python hooks");
    assert_eq!(swap["verdict"], "killed", "{swap}");
    // Moving `load_profile` to before_run changes nothing the scenario sees:
    // the one survivor, which says the scenario does not pin when it loads.
    let survived: Vec<&Value> = mutants
        .iter()
        .filter(|m| m["verdict"] == "survived")
        .collect();
    assert_eq!(survived.len(), 1, "{survived:?}");
    assert_eq!(
        survived[0]["description"],
        "move the hook from `before_llm` to `before_run`"
    );
    assert_eq!(survived[0]["place"], "hooks.before_llm[0]");
}

/// `check --engine haystack` over `names`' fixtures: each file's lines
/// (those starting with its path) and the summary line, with the exit code.
fn haystack_check(names: &[&str], extra: &[&str]) -> (Vec<String>, String, Option<i32>) {
    let files: Vec<String> = names.iter().map(|n| fixture(n)).collect();
    let mut args = vec!["check"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--engine", "haystack"]);
    args.extend(extra);
    let output = hookharness(&args);
    let stdout = text(&output.stdout);
    let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
    let summary = lines.last().cloned().unwrap_or_default();
    let per_file = files
        .iter()
        .map(|file| {
            let of: Vec<&str> = lines
                .iter()
                .filter(|l| l.starts_with(&format!("{file}:")))
                .map(String::as_str)
                .collect();
            assert_eq!(of.len(), 1, "one line for {file}: {stdout}");
            of[0].to_owned()
        })
        .collect();
    (per_file, summary, output.status.code())
}

#[test]
fn check_on_haystack_imports_builds_and_locates_each_problem_at_its_key() {
    let (lines, summary, code) = haystack_check(
        &[
            "good",
            "missing_module",
            "check_bad_kwarg",
            "check_factory_raises",
            "check_not_allowed",
        ],
        &[],
    );
    assert_eq!(code, Some(2), "{lines:?}");
    let good = "valid on haystack-ai 3.4.1: imported `hh_fixtures.hooks:well_behaved`, made 1 Python \
                hook and registered it at its point, built the Agent";
    assert!(lines[0].contains(good), "{}", lines[0]);
    // Each problem at the key of the file it comes from, with the fix.
    let expected: [(&str, &[&str]); 4] = [
        (
            ":10:15: hook `hh_fixtures.missing_module:whatever`: cannot import `hh_fixtures.missing_module`",
            &[
                "ModuleNotFoundError",
                "— the scenario's `python_path` folders: ",
            ],
        ),
        (
            ":11:24: hook `hh_fixtures.hooks:CountCalls`: calling `CountCalls` failed: ",
            &[
                "unexpected keyword argument 'limt'",
                "— it takes no argument `limt` (its parameters: `limit`); remove or rename it",
            ],
        ),
        (
            ":5:3: agent.python `hh_fixtures.hooks:broken_agent`: calling `broken_agent` failed: \
             RuntimeError: no index configured for billing (at ",
            &[
                "hh_fixtures/hooks.py:",
                " in broken_agent) — your code raised",
            ],
        ),
        (
            ":11:7: the Agent cannot be built: Hook of type 'ToolsOnly' is registered under hook \
             point 'before_llm' but only supports: before_tool.",
            &["— put the entry under one of `before_tool`"],
        ),
    ];
    for (line, (at, parts)) in lines[1..5].iter().zip(expected) {
        assert!(line.contains(at), "{at:?} in {line}");
        for part in parts {
            assert!(line.contains(part), "{part:?} in {line}");
        }
    }
    assert_eq!(
        summary,
        "1 valid (1 with Python code imported and built on haystack-ai 3.4.1), 4 invalid"
    );
}

#[test]
fn check_on_haystack_gives_a_hung_import_its_timeout_and_checks_the_next_file() {
    let (lines, summary, code) =
        haystack_check(&["check_import_hangs", "good"], &["--timeout", "3"]);
    assert_eq!(code, Some(2), "{lines:?}");
    assert!(lines[0].contains("timed out after 3 s"), "{}", lines[0]);
    assert!(lines[0].contains("hangs_on_import.py"), "{}", lines[0]);
    assert!(
        lines[1].contains("valid on haystack-ai 3.4.1"),
        "{}",
        lines[1]
    );
    assert_eq!(
        summary,
        "1 valid (1 with Python code imported and built on haystack-ai 3.4.1), 1 invalid"
    );
}

#[test]
fn check_without_an_engine_still_only_says_which_files_need_haystack() {
    let output = hookharness(&["check", &fixture("check_bad_kwarg")]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("valid; it runs your Python code, which only the Haystack engine runs"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("1 valid (1 only with --engine haystack), 0 invalid\n"),
        "{stdout}"
    );
}

#[test]
fn a_bad_output_limit_is_a_setup_error_naming_the_variable() {
    // It used to say "install the package into that interpreter" above the
    // worker's traceback (and `²`, a digit to `str.isdigit`, failed in `int`).
    for value in ["0", "lots", "-1", "²"] {
        let output = hookharness_with(
            &["run", &fixture("good"), "--engine", "haystack"],
            &[("HOOKHARNESS_OUTPUT_LIMIT", value)],
        );
        assert_eq!(output.status.code(), Some(4), "{value}");
        assert_eq!(
            text(&output.stderr),
            format!(
                "error: HOOKHARNESS_OUTPUT_LIMIT={value:?}: expected a positive number of characters, \
                 e.g. 1048576 (the output kept per hook or tool call); unset it for that default\n"
            ),
            "{value}"
        );
    }
    let output = hookharness_with(
        &["run", &fixture("good"), "--engine", "haystack"],
        &[("HOOKHARNESS_OUTPUT_LIMIT", " 64 ")],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

#[test]
fn both_engines_run_a_python_scenario_on_the_haystack_engine_alone() {
    // `good` names a Python hook, which the Rust engine does not run: with
    // `--engine both` its verdict is the Haystack engine's, not a difference
    // between the engines; a declarative scenario beside it is compared.
    let good = fixture("good");
    let declarative = "scenarios/hooks/list_order.yaml";
    let output = hookharness(&[
        "run",
        good.as_str(),
        declarative,
        "--engine",
        "both",
        "--format",
        "json",
    ]);
    let all = outcomes(&output);
    assert_eq!(all.len(), 2, "stderr: {}", text(&output.stderr));
    for outcome in &all {
        assert_eq!(status(outcome), "pass", "{outcome}");
    }
    assert_eq!(output.status.code(), Some(0));
}

/// A chain of 100,000 dicts, each holding the one before: Jinja2 renders
/// it; the Rust engine's values free it recursively, which a debug build's
/// stack does not hold (a release build's does).
const DEEP_CHAIN: &str = "name: deep\nagent:\n  user_prompt: \"{% set ns = namespace(n=none) %}{% for i in range(100000) %}{% set ns.n = {'k': ns.n} %}{% endfor %}x\"\nmodel:\n  - text: ok\nrun:\n  messages: []\n";

#[test]
fn both_engines_keep_every_report_when_one_files_rust_side_ends_its_process() {
    // The Rust side of `--engine both` runs in child processes, as
    // `--engine rust` does: a file that ends its process costs only its
    // own outcome (an abort in a debug build, a pass in a release one), and
    // the file after it is compared and reported.
    let dir = scratch("both_abort");
    std::fs::write(dir.join("a_deep.yaml"), DEEP_CHAIN).unwrap();
    std::fs::copy("scenarios/hooks/list_order.yaml", dir.join("b_good.yaml")).unwrap();
    let output = hookharness(&[
        "run",
        dir.to_str().unwrap(),
        "--engine",
        "both",
        "--format",
        "json",
    ]);
    let all = outcomes(&output);
    assert_eq!(all.len(), 2, "stderr: {}", text(&output.stderr));
    assert_eq!(status(&all[1]), "pass", "{}", all[1]);
    let deep = &all[0];
    let ended = deep["error"]
        .as_str()
        .is_some_and(|e| e.contains("ended before its outcome"));
    assert!(status(deep) == "pass" || ended, "{deep}");
}

/// `HOOKHARNESS_ENGINE_ATTACH` hands the command a worker only when it names
/// a running sibling (a fork of the process that started the command) that
/// greets as a worker on the descriptors it was handed: a stale or made-up
/// process id is refused with exit 4 and what to do, and no process that
/// never greeted is signalled.
#[test]
fn a_handed_worker_that_is_not_a_greeting_sibling_is_refused_and_never_signalled() {
    // A sibling of the command (both are this test's children), but no worker.
    let mut bystander = Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("sleep starts");
    let this_test = std::process::id();
    let cases = [
        (
            "1,0,0,0".to_owned(),
            "1 is not a worker's process id".to_owned(),
        ),
        (
            "4194304,0,0,0".to_owned(),
            "no process 4194304 is running: the variable is stale (unset it)".to_owned(),
        ),
        (
            format!("{this_test},0,0,0"),
            format!("process {this_test} was not started by the process that started this command"),
        ),
        (
            format!("{},0,0,0", bystander.id()),
            format!(
                "process {} did not greet as a worker on the descriptors it was handed",
                bystander.id()
            ),
        ),
        ("12,x".to_owned(), "expected four numbers".to_owned()),
    ];
    for (value, said) in &cases {
        let output = hookharness_with(
            &["run", "--engine", "haystack", &fixture("good")],
            &[("HOOKHARNESS_ENGINE_ATTACH", value)],
        );
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(4), "{value}: {stderr}");
        assert!(
            stderr.contains(&format!("HOOKHARNESS_ENGINE_ATTACH=\"{value}\": "))
                && stderr.contains(said.as_str()),
            "{value}: {stderr}"
        );
    }
    assert!(
        bystander.try_wait().expect("waits").is_none(),
        "the bystander process was signalled"
    );
    let _ = bystander.kill();
    let _ = bystander.wait();
}
