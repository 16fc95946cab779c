//! `hookharness explain --format html` renders in a real browser: headless
//! Chromium loads the page (no network, no script), and its DOM holds one
//! section per step, one element per hook firing, and the failing
//! expectation marked. A screenshot is left in `explain-html/` under the
//! target directory (`CARGO_TARGET_DIR` when set, else `target/`) for CI to
//! keep. Without Chromium the test says so and skips.

use hookharness::outcome::{Detail, TraceKind};
use hookharness::replay::Replay;
use hookharness::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A multi-step run (a hook sends the first answer back, a tool runs) whose
/// `exit_reason` expectation does not hold.
const FAILING: &str = "\
name: require-search-expects-the-wrong-exit
tools:
  - name: search
    results: [\"Fusion startups reported net-energy-gain milestones.\"]
hooks:
  on_exit:
    - name: require_search
      when: {tool_call_counts: {search: 0}}
      do:
        - append_messages: [{role: system, text: \"Search before answering.\"}]
        - continue_run: true
model:
  - text: \"Fusion is going well.\"
  - tool_calls: [{tool: search, arguments: {query: fusion}}]
  - text: \"Here is what I found.\"
run:
  messages: [{role: user, text: \"What is new in fusion energy?\"}]
expect:
  exit_reason: max_agent_steps
";

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        let found = Command::new("which").arg(name).output().ok()?;
        found
            .status
            .success()
            .then(|| PathBuf::from(String::from_utf8_lossy(&found.stdout).trim()))
    })
}

fn headless(browser: &Path, profile: &Path, args: &[&str]) -> std::process::Output {
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium starts")
}

/// The build's target directory, wherever `CARGO_TARGET_DIR` puts it:
/// cargo's scratch folder for integration tests is `<target>/tmp`.
fn target_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).to_path_buf()
}

#[test]
fn the_target_directory_is_the_builds_not_the_checkouts_when_cargo_target_dir_is_set() {
    if let Some(set) = std::env::var_os("CARGO_TARGET_DIR") {
        let set = Path::new(env!("CARGO_MANIFEST_DIR")).join(set);
        assert_eq!(
            target_dir().canonicalize().unwrap(),
            set.canonicalize().unwrap()
        );
    }
    assert!(target_dir().join("tmp").is_dir());
}

#[test]
fn the_html_timeline_renders_in_headless_chromium_with_steps_hooks_and_the_failure_marked() {
    let dir = target_dir().join("explain-html");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scenario_file = dir.join("require_search_fails.yaml");
    std::fs::write(&scenario_file, FAILING).unwrap();

    let page = Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(["explain", "--format", "html"])
        .arg(&scenario_file)
        .output()
        .unwrap();
    assert_eq!(page.status.code(), Some(1), "a failing scenario exits 1");
    let html = String::from_utf8(page.stdout).unwrap();
    assert!(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"));
    let page_file = dir.join("timeline.html");
    std::fs::write(&page_file, &html).unwrap();

    let outcome = Replay::new()
        .detail(Detail::Full)
        .run(&Scenario::from_path(&scenario_file).unwrap());
    let mut steps: Vec<String> = Vec::new();
    for event in &outcome.trace {
        if matches!(
            event.kind,
            TraceKind::HookStarted { .. } | TraceKind::ToolsFinished { .. }
        ) {
            continue;
        }
        let step = event.step().map_or_else(|| "-".into(), |s| s.to_string());
        if steps.last() != Some(&step) {
            steps.push(step);
        }
    }
    let hooks = outcome
        .trace
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::HookFinished { .. }))
        .count();
    assert!(steps.len() >= 3 && hooks >= 2, "{steps:?} {hooks}");

    let Some(browser) = chromium() else {
        eprintln!(
            "skipped: chromium is not installed (apt-get install chromium); the page is at {}",
            page_file.display()
        );
        return;
    };
    let url = format!("file://{}", page_file.display());
    let dom = headless(&browser, &dir.join("profile-dom"), &["--dump-dom", &url]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(
        dom.matches("<section class=\"step\"").count(),
        steps.len(),
        "{dom}"
    );
    assert_eq!(dom.matches("class=\"event hook").count(), hooks, "{dom}");
    assert_eq!(dom.matches("<li class=\"failure\">").count(), 1, "{dom}");
    assert!(dom.contains("exit_reason"), "{dom}");
    assert!(
        dom.contains("<span class=\"fail\" id=\"status\">fail</span>"),
        "{dom}"
    );

    let screenshot = dir.join("timeline.png");
    let shot = headless(
        &browser,
        &dir.join("profile-shot"),
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1000,1400",
            &url,
        ],
    );
    let png = std::fs::read(&screenshot).unwrap_or_else(|e| {
        panic!(
            "no screenshot ({e}): {}",
            String::from_utf8_lossy(&shot.stderr)
        )
    });
    assert!(png.starts_with(b"\x89PNG"), "the screenshot is a PNG");
}

#[test]
fn corpus_timelines_render_one_section_per_step_and_one_element_per_hook_firing() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: chromium is not installed (apt-get install chromium)");
        return;
    };
    let dir = target_dir().join("explain-html-corpus");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for file in [
        "scenarios/docs_examples/require_search.yaml",
        "scenarios/before_llm/stop_at_second_step.yaml",
        "scenarios/after_run/clears_messages.yaml",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let outcome = Replay::new()
            .detail(Detail::Full)
            .run(&Scenario::from_path(&path).unwrap());
        let page = dir.join(file.replace('/', "__") + ".html");
        std::fs::write(&page, hookharness::report::explain_html(&outcome)).unwrap();
        let profile = dir.join(format!("profile-{}", file.replace('/', "__")));
        let url = format!("file://{}", page.display());
        let dom = headless(&browser, &profile, &["--dump-dom", &url]);
        let dom = String::from_utf8_lossy(&dom.stdout);
        let hooks = outcome
            .trace
            .iter()
            .filter(|e| matches!(e.kind, TraceKind::HookFinished { .. }))
            .count();
        assert_eq!(dom.matches("class=\"event hook").count(), hooks, "{file}");
        assert!(
            dom.matches("<section class=\"step\"").count() >= 2,
            "{file}"
        );
        assert!(
            dom.contains("<span class=\"pass\" id=\"status\">pass</span>"),
            "{file}"
        );
        assert!(!dom.contains("class=\"failure\""), "{file}");
    }
}
