//! Inputs that once aborted a run or lost its report: each is run through
//! the `hookharness` binary, as a user or a CI job would.

mod common;

use common::{hookharness, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("cli_hardening", name)
}

fn corpus(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The corpus's confirmation scenario with another reject template.
fn with_reject_template(template: &str) -> String {
    let original = corpus("scenarios/ready_made/confirmation_template_format.yaml");
    let line = original
        .lines()
        .find(|l| l.trim_start().starts_with("reject_template:"))
        .unwrap();
    // The corpus file's `sees` pins its own template's rendering: left out.
    let original: String = original
        .lines()
        .filter(|l| !l.trim_start().starts_with("sees:"))
        .map(|l| format!("{l}\n"))
        .collect();
    original.replace(
        line,
        &format!("              reject_template: {template:?}"),
    )
}

#[test]
fn a_huge_template_width_fails_its_scenario_and_the_others_still_report() {
    let dir = scratch("huge_width");
    for (file, width) in [
        ("max.yaml", "9223372036854775807"),
        ("past_max.yaml", "18446744073709551615"),
        ("billion.yaml", "1000000000"),
    ] {
        let template = format!("{{tool_name:>{width}}}");
        std::fs::write(dir.join(file), with_reject_template(&template)).unwrap();
    }
    std::fs::write(
        dir.join("good.yaml"),
        corpus("scenarios/docs_examples/require_search.yaml"),
    )
    .unwrap();
    let output = hookharness(&["run", dir.to_str().unwrap()]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("PASS  ") && text.contains("good.yaml"),
        "{text}"
    );
    for (file, error) in [
        ("max.yaml", "MemoryError"),
        ("billion.yaml", "MemoryError"),
        (
            "past_max.yaml",
            "ValueError: Too many decimal digits in format string",
        ),
    ] {
        let line = text.lines().position(|l| l.contains(file)).unwrap();
        let report: String = text.lines().skip(line).take(4).collect();
        assert!(
            report.starts_with("ERROR") && report.contains(error),
            "{file}: {text}"
        );
    }
    assert!(
        text.trim_end().ends_with("1 passed, 0 failed, 3 errors"),
        "{text}"
    );
}

#[test]
fn template_field_lookups_render_as_python_does() {
    let dir = scratch("lookups");
    let file = dir.join("lookups.yaml");
    std::fs::write(
        &file,
        with_reject_template("{tool_name[0]}|{tool_name.__class__}|{tool_name[1]!r}"),
    )
    .unwrap();
    let output = hookharness(&["run", file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        stdout(&output).contains(r#""result":"s|<class 'str'>|'e'""#),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_positional_template_field_is_pythons_index_error() {
    let dir = scratch("positional");
    let file = dir.join("positional.yaml");
    std::fs::write(&file, with_reject_template("{0}")).unwrap();
    let output = hookharness(&["run", file.to_str().unwrap()]);
    assert!(
        stdout(&output)
            .contains("IndexError: Replacement index 0 out of range for positional args tuple"),
        "{}",
        stdout(&output)
    );
}

/// `> /dev/full`: every write fails with "no space left on device".
#[cfg(target_os = "linux")]
fn to_dev_full(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn every_command_exits_5_with_the_cause_when_stdout_cannot_be_written() {
    for args in [
        &["check", "scenarios/docs_examples"][..],
        &["explain", "scenarios/docs_examples/require_search.yaml"],
        &["run", "scenarios/docs_examples"],
        &["run", "scenarios/docs_examples", "--format", "json"],
        &["run", "scenarios/docs_examples", "--format", "junit"],
        &["--help"],
    ] {
        let output = to_dev_full(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(5), "{args:?}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            "hookharness: cannot write the report to stdout: No space left on device (os error 28)",
            "{args:?}"
        );
    }
}

#[test]
fn a_run_stops_quietly_with_141_when_the_reader_goes_away() {
    use std::io::{BufRead, BufReader};
    // More than a pipe buffer (64 KiB) of output, so the writer must see
    // the closed pipe whenever the reader leaves. Every command writes
    // through the same path (`cli::output`).
    let args = ["run", "scenarios", "--format", "json"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // `| head -1`: one line read, the pipe closed.
    let output = child.wait_with_output().unwrap();
    assert!(!first.is_empty());
    assert_eq!(output.status.code(), Some(141), "{args:?}");
    assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{args:?}");
}

#[test]
fn a_wrong_command_line_exits_4_for_every_command() {
    for args in [
        &["run", "--bogus", "scenarios"][..],
        &["check"],
        &["explain"],
        &["run", "scenarios", "--format", "yaml"],
        &["nonsense"],
    ] {
        let output = hookharness(args);
        assert_eq!(output.status.code(), Some(4), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).starts_with("error: "));
    }
}

/// Runs the binary, killing it if it has not finished within 20 seconds.
fn hookharness_within_deadline(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("hookharness {args:?} did not finish within 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
#[test]
fn discovery_skips_loops_fifos_hidden_folders_and_target_and_reads_any_case() {
    use std::os::unix::fs::symlink;
    let dir = scratch("discovery");
    let scenario = corpus("scenarios/docs_examples/require_search.yaml");
    for folder in ["sub", ".git", "target", ".cache"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    for file in [
        "a.yaml",
        "B.YAML",
        "sub/c.Yml",
        ".git/x.yaml",
        "target/x.yaml",
    ] {
        std::fs::write(dir.join(file), &scenario).unwrap();
    }
    symlink(".", dir.join("loop")).unwrap();
    symlink("..", dir.join("sub/up")).unwrap();
    symlink("a.yaml", dir.join("link.yaml")).unwrap();
    symlink("missing.yaml", dir.join("dangling.yaml")).unwrap();
    let fifo = dir.join("fifo.yaml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );

    let output = hookharness_within_deadline(&["check", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout(&output), "3 valid, 0 invalid\n");
    for warning in [
        "link.yaml: skipped, the same file as",
        "fifo.yaml: skipped, not a regular file (a FIFO)",
        "dangling.yaml: skipped, a link whose target cannot be read",
        "loop: a link to a folder, not followed",
        "up: a link to a folder, not followed",
    ] {
        assert!(stderr.contains(warning), "{warning}: {stderr}");
    }

    // Named explicitly, a skipped folder is searched; a FIFO is refused
    // without being opened.
    let target = dir.join("target");
    let output =
        hookharness_within_deadline(&["check", target.to_str().unwrap(), fifo.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let text = stdout(&output);
    assert!(
        text.contains("fifo.yaml: not a regular file (a FIFO); pass scenario files")
            && text.ends_with("1 valid, 1 invalid\n"),
        "{text}"
    );
}

/// Every command that reads a file it is named with refuses a FIFO without
/// opening it (an open blocks until a writer comes), as `run` does: exit 2,
/// the loader's words for a scenario file.
#[cfg(unix)]
#[test]
fn rebase_import_and_explain_outcome_refuse_a_fifo_without_opening_it() {
    let dir = scratch("fifo_readers");
    let mut fifos = Vec::new();
    for name in ["f.yaml", "a.json", "saved.jsonl"] {
        let fifo = dir.join(name);
        assert!(
            Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        fifos.push(fifo.display().to_string());
    }
    let out = dir.join("out.yaml").display().to_string();
    for (args, expected) in [
        (
            vec!["rebase", &fifos[0]],
            "f.yaml: not a regular file (a FIFO); this command takes one scenario file",
        ),
        (
            vec!["import", &fifos[1]],
            "a.json: not a regular file (a FIFO); `import` takes one file",
        ),
        (
            vec!["import", &fifos[1], "-o", &out],
            "a.json: not a regular file (a FIFO); `import` takes one file",
        ),
        (
            vec!["explain", "--outcome", &fifos[2]],
            "saved.jsonl: not a regular file (a FIFO); pass a saved outcome file",
        ),
    ] {
        let output = hookharness_within_deadline(&args);
        let said = format!("{}{}", stdout(&output), stderr(&output));
        assert_eq!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains(expected), "{args:?}: {said}");
    }
    assert!(!dir.join("out.yaml").exists());
}

/// An unknown key is placed in the map that holds it, whatever characters
/// it has: a quoted key at the top of the file is `at the top level` (it
/// once read "in ``"), and a `.` or `[` inside a quoted key does not cut
/// its map's path.
#[test]
fn an_unknown_quoted_key_is_placed_in_the_map_that_holds_it() {
    let dir = scratch("quoted_keys");
    for (file, text, expected) in [
        (
            "top.yaml",
            "agent: {}\n'agen\"': 1\nmodel:\n  - text: ok\n",
            "top.yaml:2:1: unknown key `agen\"` at the top level; did you mean `agent`?",
        ),
        (
            "dot.yaml",
            "agent:\n  'a.b': 1\nmodel:\n  - text: ok\n",
            "dot.yaml:2:3: unknown key `a.b` in `agent`; valid keys are",
        ),
        (
            "bracket.yaml",
            "agent:\n  'a[b': 1\nmodel:\n  - text: ok\n",
            "bracket.yaml:2:3: unknown key `a[b` in `agent`; valid keys are",
        ),
    ] {
        std::fs::write(dir.join(file), text).unwrap();
        let output = hookharness(&["check", dir.join(file).to_str().unwrap()]);
        let said = stdout(&output);
        assert_eq!(output.status.code(), Some(2), "{said}");
        assert!(said.contains(expected), "{expected}: {said}");
    }
}

/// A file found in a folder runs once, whichever paths reach it: links to
/// it in its own folder (found before or after it), and the file named on
/// the command line beside the folder it is in. A link to itself is reported, not
/// followed.
#[cfg(unix)]
#[test]
fn a_file_reached_by_several_paths_runs_once() {
    use std::os::unix::fs::symlink;
    let dir = scratch("dedup");
    std::fs::write(
        dir.join("s.yaml"),
        corpus("scenarios/docs_examples/require_search.yaml"),
    )
    .unwrap();
    symlink("s.yaml", dir.join("a.yaml")).unwrap();
    symlink("s.yaml", dir.join("t.yaml")).unwrap();
    symlink("./s.yaml", dir.join("u.yaml")).unwrap();
    symlink("self.yaml", dir.join("self.yaml")).unwrap();
    let folder = dir.to_str().unwrap();

    let output = hookharness_within_deadline(&["run", folder]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let text = stdout(&output);
    assert_eq!(text.matches("PASS").count(), 1, "{text}");
    // The plain file is kept over the links, even one sorted before it.
    assert!(text.contains("s.yaml  (docs-require-search)"), "{text}");
    for skipped in ["a.yaml", "t.yaml", "u.yaml"] {
        let note = format!("{skipped}: skipped, the same file as {folder}/s.yaml");
        assert!(stderr.contains(&note), "{note}: {stderr}");
    }
    assert!(
        stderr.contains("self.yaml: skipped, a link whose target cannot be read"),
        "{stderr}"
    );

    // A path named on the command line is the one kept.
    let named = dir.join("t.yaml");
    let output = hookharness_within_deadline(&["run", folder, named.to_str().unwrap()]);
    let text = stdout(&output);
    assert_eq!(text.matches("PASS").count(), 1, "{text}");
    assert!(text.contains("t.yaml  (docs-require-search)"), "{text}");
    // Named twice, a file runs twice: the command line is taken as given.
    let named = named.to_str().unwrap();
    let output = hookharness_within_deadline(&["run", named, named]);
    assert_eq!(stdout(&output).matches("PASS").count(), 2);
}

#[test]
fn a_json_file_that_is_not_a_scenario_is_skipped_with_a_note_unless_named() {
    let dir = scratch("json_not_scenario");
    std::fs::write(
        dir.join("agent.json"),
        include_str!("fixtures/haystack/import/agent.json"),
    )
    .unwrap();
    std::fs::write(dir.join("report.json"), "[1, 2]").unwrap();
    std::fs::write(dir.join("broken.json"), "{\"model\": [").unwrap();
    std::fs::write(dir.join("ok.json"), "{\"model\": [{\"text\": \"hi\"}]}").unwrap();
    let output = hookharness(&["run", dir.to_str().unwrap()]);
    let err = stderr(&output);
    let agent = dir.join("agent.json");
    assert!(
        err.contains(&format!(
            "note: {}: skipped, a Haystack dump, not a scenario: `hookharness import FILE` writes a \
             scenario from it; name the file on the command line to load it anyway",
            agent.display()
        )),
        "{err}"
    );
    assert!(
        err.contains("report.json: skipped, JSON without a top-level `model`"),
        "{err}"
    );
    // Not JSON at all: the loader's error, so a broken scenario is not lost.
    let text = stdout(&output);
    assert!(text.contains("broken.json"), "{text}");
    assert!(text.contains("PASS"), "{text}");
    assert_eq!(output.status.code(), Some(2), "{text}");
    // Named, it is loaded (and invalid).
    let named = hookharness(&["check", agent.to_str().unwrap()]);
    assert_eq!(named.status.code(), Some(2));
}

#[test]
fn a_missing_path_is_reported_and_the_other_paths_still_run() {
    let output = hookharness(&[
        "run",
        "no/such/folder",
        "scenarios/docs_examples/require_search.yaml",
    ]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains("PASS  scenarios/docs_examples/require_search.yaml"));
    assert!(
        text.contains("no/such/folder: cannot read the scenario file: no such file or directory"),
        "{text}"
    );
}

#[test]
fn run_prints_each_result_as_its_scenario_finishes() {
    use std::io::{BufRead, BufReader};
    let dir = scratch("streaming");
    std::fs::write(
        dir.join("a.yaml"),
        corpus("scenarios/docs_examples/require_search.yaml"),
    )
    .unwrap();
    // A run of 20,000 steps: seconds, even in release.
    let mut slow = String::from(
        "name: slow\nagent: {max_agent_steps: 100000}\ntools:\n  - name: search\n    results: [r]\n    repeat_last: true\nmodel:\n",
    );
    for _ in 0..20_000 {
        slow.push_str("  - tool_calls: [{tool: search, arguments: {q: x}}]\n");
    }
    slow.push_str("  - text: done\nrun:\n  messages: [{role: user, text: hi}]\n");
    std::fs::write(dir.join("b.yaml"), slow).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(["run", dir.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let still_running = child.try_wait().unwrap().is_none();
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(child.wait().unwrap().success());
    assert!(
        first.starts_with("PASS  ") && first.contains("a.yaml"),
        "{first}"
    );
    assert!(
        still_running,
        "the first result came only when the run ended"
    );
    assert!(rest[0].starts_with("PASS  ") && rest[0].contains("b.yaml"));
    assert_eq!(rest.last().unwrap(), "2 passed, 0 failed, 0 errors");
}

#[test]
fn a_failed_run_shows_its_cause_before_the_expectations_it_left_unchecked() {
    let dir = scratch("cause_first");
    let file = dir.join("huge.yaml");
    std::fs::write(
        &file,
        with_reject_template("{tool_name:>9223372036854775807}"),
    )
    .unwrap();
    let output = hookharness(&["run", file.to_str().unwrap()]);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("ERROR "), "{text}");
    assert!(
        lines[1].ends_with("hook `confirm` failed at before_tool (step 0): MemoryError"),
        "{text}"
    );
    assert!(lines[2].contains("no result to check"), "{text}");
}

#[test]
fn check_reports_an_agent_construction_error_the_file_alone_decides() {
    let dir = scratch("construction");
    let scenario = "name: typo\nhooks:\n  befor_llm:\n    - name: x\n      do:\n        - stop_run: done\nmodel:\n  - text: hi\nrun:\n  messages: [{role: user, text: hi}]\n";
    let file = dir.join("typo.yaml");
    std::fs::write(&file, scenario).unwrap();
    let output = hookharness(&["check", file.to_str().unwrap()]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.starts_with(&format!(
            "{}:3:3: the Agent cannot be built: Invalid hook point 'befor_llm'. Valid hook points are: ",
            file.display()
        )) && text.contains(
            " — did you mean `before_llm`? (or expect the error with `expect.error` to test it)"
        ),
        "{text}"
    );
    // Expected, the same error is what the scenario tests: valid.
    let expected = dir.join("expected.yaml");
    std::fs::write(
        &expected,
        format!("{scenario}expect:\n  error: Invalid hook point\n"),
    )
    .unwrap();
    let output = hookharness(&["check", expected.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn the_progress_bar_goes_to_stderr_on_a_terminal_and_nothing_to_a_pipe() {
    let run = |progress: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookharness"));
        command
            .args(["run", "scenarios/docs_examples"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("HOOKHARNESS_PROGRESS");
        if let Some(progress) = progress {
            command.env("HOOKHARNESS_PROGRESS", progress);
        }
        command.output().unwrap()
    };
    let files =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/docs_examples"))
            .unwrap()
            .count();

    let piped = run(None);
    assert!(piped.status.success());
    assert_eq!(String::from_utf8_lossy(&piped.stderr), "");

    // `always` stands for a terminal: the bar is drawn, and erased before
    // each report line, so stdout is the same report.
    let shown = run(Some("always"));
    let stderr = String::from_utf8_lossy(&shown.stderr);
    assert!(
        stderr.contains(&format!("scenarios [####################] {files}/{files}")),
        "{stderr:?}"
    );
    assert!(
        stderr.ends_with("\r\x1b[2K"),
        "the bar is left on screen: {stderr:?}"
    );
    assert_eq!(shown.stdout, piped.stdout);
    assert!(!stdout(&shown).contains('\r'));

    let never = run(Some("never"));
    assert_eq!(String::from_utf8_lossy(&never.stderr), "");
}

#[test]
fn check_reports_every_construction_error_of_a_file_each_at_its_key() {
    let dir = scratch("construction_all");
    let file = dir.join("many.yaml");
    std::fs::write(
        &file,
        "name: many\nhooks:\n  befor_llm:\n    - do: [{stop_run: x}]\n  on_exit:\n    - do: [{stop_run: y}]\n      allowed_hook_points: [before_llm]\n  aftr_tool:\n    - do: []\nmodel: [{text: hi}]\n",
    )
    .unwrap();
    let output = hookharness(&["check", file.to_str().unwrap()]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let places: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split(": the Agent cannot be built: ").next())
        .collect();
    let f = file.display();
    assert_eq!(
        places,
        [
            format!("{f}:3:3"),
            format!("{f}:6:7"),
            format!("{f}:8:3"),
            "0 valid, 1 invalid".to_owned()
        ],
        "{text}"
    );
    assert!(text.contains("did you mean `before_llm`?"), "{text}");
    assert!(text.contains("did you mean `after_tool`?"), "{text}");
    assert!(
        text.contains("register the hook at one of its points (before_llm)"),
        "{text}"
    );
}

#[test]
fn a_mistyped_ready_made_parameter_is_reported_at_its_line_and_column() {
    let dir = scratch("parameter_position");
    let file = dir.join("budget.yaml");
    std::fs::write(
        &file,
        "name: budget\nshared_hooks:\n  confirm:\n    token_budget: {max_total_tokens: 10}\nhooks:\n  before_llm:\n    - token_budget:\n        max_total_tokens: 10\n        add_final_message: 'yes'\n  on_exit:\n    - token_budget:\n        max_total_tokens: 10\n        extra: 1\nmodel: [{text: hi}]\n",
    )
    .unwrap();
    let check = hookharness(&["check", file.to_str().unwrap()]);
    assert_eq!(
        stdout(&check).lines().next().unwrap(),
        format!(
            "{}:9:9: `token_budget.add_final_message` must be true or false, got \"yes\"",
            file.display()
        )
    );
    // `run` reports the same place.
    let run = hookharness(&["run", file.to_str().unwrap()]);
    assert!(
        stdout(&run).contains(&format!("{}:9:9: `token_budget", file.display())),
        "{}",
        stdout(&run)
    );
    // A parameter the hook does not take is located at its key.
    std::fs::write(
        &file,
        "hooks:\n  on_exit:\n    - token_budget:\n        max_total_tokens: 10\n        extra: 1\nmodel: [{text: hi}]\n",
    )
    .unwrap();
    let check = hookharness(&["check", file.to_str().unwrap()]);
    assert!(
        stdout(&check).starts_with(&format!(
            "{}:5:9: unknown parameter `extra` in `token_budget`",
            file.display()
        )),
        "{}",
        stdout(&check)
    );
}

/// A hook refused at its point, copied 1,000 times: its error is reported
/// once, at the first copy (finding it once built the Agent once per copy
/// for each copy, minutes for such a file).
#[test]
fn copies_of_a_refused_hook_are_reported_once_at_the_first() {
    let dir = common::scratch("cli_hardening", "refused_copies");
    let file = dir.join("copies.yaml");
    let copies = "    - {name: audit, allowed_hook_points: [before_llm]}\n".repeat(1000);
    std::fs::write(
        &file,
        format!("name: copies\nhooks:\n  before_llm: [{{name: fine}}]\n  on_exit:\n{copies}model:\n  - text: done\n"),
    )
    .unwrap();
    let output = common::hookharness(&["check", file.to_str().unwrap()]);
    let text = common::stdout(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let errors: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("cannot be built"))
        .collect();
    assert_eq!(errors.len(), 1, "{text}");
    assert!(
        errors[0].contains("copies.yaml:5:7:") && errors[0].contains("'on_exit'"),
        "{text}"
    );
}

/// Several different hooks refused at one point: each is reported at its
/// own line, though the ones before it are taken out of the copy the
/// Agent is built from to find the next.
#[test]
fn refused_hooks_are_each_reported_at_their_own_line() {
    let dir = common::scratch("cli_hardening", "refused_several");
    let file = dir.join("several.yaml");
    std::fs::write(
        &file,
        "name: several\nhooks:\n  on_exit:\n    - {name: a}\n    \
         - {name: b, allowed_hook_points: [before_llm]}\n    - {name: c}\n    \
         - {name: d, allowed_hook_points: [after_run]}\n    \
         - {name: e, allowed_hook_points: [before_run]}\nmodel:\n  - text: done\n",
    )
    .unwrap();
    let output = common::hookharness(&["check", file.to_str().unwrap()]);
    let text = common::stdout(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let lines: Vec<(&str, &str)> = text
        .lines()
        .filter(|l| l.contains("cannot be built"))
        .map(|l| {
            let place = l.split(": the Agent").next().unwrap_or_default();
            let points = l.rsplit("only supports: ").next().unwrap_or_default();
            (
                place.rsplit("several.yaml:").next().unwrap_or_default(),
                points,
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            (
                "5:7",
                "before_llm. — register the hook at one of its points (before_llm) (or expect the error with `expect.error` to test it)"
            ),
            (
                "7:7",
                "after_run. — register the hook at one of its points (after_run) (or expect the error with `expect.error` to test it)"
            ),
            (
                "8:7",
                "before_run. — register the hook at one of its points (before_run) (or expect the error with `expect.error` to test it)"
            ),
        ],
        "{text}"
    );
}
