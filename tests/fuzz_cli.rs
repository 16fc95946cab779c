//! A fuzz target of the whole CLI path: mutated corpus files go through what
//! `hookharness run` does with a file (load, construction checks, the run,
//! the human, JSON and JUnit reports), and none may panic, abort or hang;
//! and through the writing commands (`rebase`, `import --output`, `explore
//! --out`, in `fuzz_cli/writing.rs`), which may write only what they were
//! given.
//!
//! The seeds are every scenario of the corpus, the invalid files and the
//! conformance self-test (and Haystack Agent dicts for `import`); the
//! mutations are line edits, truncations, byte flips and values known to
//! have broken a run (huge format widths, out-of-range integers, FIFOs'
//! names, misspelled hook points, deep nesting, alias bombs). A case that
//! runs past [`DEADLINE`] fails as a hang.
//!
//! `cargo test --test fuzz_cli` runs 64 cases of each target (a few
//! seconds); CI runs 512 (`.ci/run`, about 30 s). A campaign, in a debug
//! build so that integer overflow panics too, with a time budget for each
//! target (the cases after it are skipped; a line every 10,000 cases, and
//! every 500 of the writing commands, shows the count; docs/robustness.md
//! has the last result): `HOOKHARNESS_FUZZ_SECONDS=900
//! PROPTEST_CASES=2000000 cargo test --test fuzz_cli -- --nocapture
//! --test-threads 1` (the two targets one after the other: 30 minutes). A
//! failure prints the mutated file, and proptest keeps its seed in
//! `tests/fuzz_cli.proptest-regressions`
//! (`tests/fuzz_cli/writing.proptest-regressions`).

use hookharness::replay::Replay;
use hookharness::report::{human_outcome, junit};
use hookharness::scenario::{Format, Scenario};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[path = "fuzz_cli/writing.rs"]
mod writing;

/// The longest one case may take before it counts as a hang.
const DEADLINE: Duration = Duration::from_secs(20);

/// Texts that once aborted, hung or panicked a run, and neighbours of them.
const NASTY: &[&str] = &[
    "\"{tool_name:>9223372036854775807}\"",
    "\"{tool_name:>18446744073709551615}\"",
    "\"{tool_name:>1000000000}\"",
    "\"{tool_name:.99999999999999999999}\"",
    "\"{tool_name[0]}{tool_name.__class__}{0}{}\"",
    "\"{final_tool_params[q]:{tool_name}}\"",
    "18446744073709551615",
    "-9223372036854775809",
    "9223372036854775807",
    "1e999",
    "-0.0",
    ".nan",
    "~",
    "[]",
    "{}",
    "\"\"",
    "befor_llm",
    "after_run",
    "&a [*a, *a, *a, *a]",
    "*missing",
    "!!binary aGk=",
    "\"\\ud800\"",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "x.yaml",
    "true",
    "0",
    "-1",
];

/// Every seed file, read once.
fn seeds() -> &'static [(PathBuf, String)] {
    static SEEDS: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in [
            "scenarios",
            "tests/invalid_scenarios",
            "conformance/selftest",
        ] {
            collect(&root.join(dir), &mut files);
        }
        files.sort();
        files
            .into_iter()
            .filter_map(|path| Some((path.clone(), std::fs::read_to_string(&path).ok()?)))
            .collect()
    })
}

fn collect(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, found);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            found.push(path);
        }
    }
}

/// One edit of a file's text.
#[derive(Debug, Clone)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    /// Replaces the value after the first `:` of a line.
    ReplaceValue(usize, &'static str),
    /// Appends `key: value` under a line, at its indentation.
    InsertKey(usize, &'static str, &'static str),
    Truncate(usize),
    FlipByte(usize, u8),
    /// Repeats a line many times (long lists, big files).
    RepeatLine(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let key = prop::sample::select(
        &[
            "reject_template",
            "max_agent_steps",
            "exit_conditions",
            "befor_llm",
            "name",
            "tools",
            "allowed_hook_points",
            "times",
            "finish_reason",
            "state",
        ][..],
    );
    prop_oneof![
        1 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        3 => (any::<usize>(), prop::sample::select(NASTY)).prop_map(|(l, v)| Mutation::ReplaceValue(l, v)),
        2 => (any::<usize>(), key, prop::sample::select(NASTY)).prop_map(|(l, k, v)| Mutation::InsertKey(l, k, v)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::FlipByte(at, b)),
        1 => (any::<usize>(), 1usize..2000).prop_map(|(l, n)| Mutation::RepeatLine(l, n)),
    ]
}

fn apply(text: &str, mutation: &Mutation) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    let n = lines.len();
    match *mutation {
        Mutation::DeleteLine(l) => {
            lines.remove(l % n);
        }
        Mutation::DuplicateLine(l) => lines.insert(l % n, lines[l % n].clone()),
        Mutation::SwapLines(a, b) => lines.swap(a % n, b % n),
        Mutation::ReplaceValue(l, value) => {
            let line = &mut lines[l % n];
            if let Some(at) = line.find(": ") {
                line.truncate(at + 2);
                line.push_str(value);
            }
        }
        Mutation::InsertKey(l, key, value) => {
            let indent: String = lines[l % n]
                .chars()
                .take_while(|c| *c == ' ' || *c == '-')
                .map(|c| if c == '-' { ' ' } else { c })
                .collect();
            lines.insert(l % n + 1, format!("{indent}{key}: {value}"));
        }
        Mutation::Truncate(at) => {
            let mut text = lines.join("\n");
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.truncate(at);
            return text;
        }
        Mutation::FlipByte(at, byte) => {
            let mut bytes = lines.join("\n").into_bytes();
            if !bytes.is_empty() {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        Mutation::RepeatLine(l, times) => {
            let line = lines[l % n].clone();
            for _ in 0..times {
                lines.insert(l % n, line.clone());
            }
        }
    }
    lines.join("\n") + "\n"
}

/// What `hookharness run` does with one file, in process.
fn run_like_the_cli(text: &str, path: &Path) {
    let format = match path.extension().and_then(|e| e.to_str()) {
        Some("json") => Format::Json,
        _ => Format::Yaml,
    };
    let origin = path.display().to_string();
    let Ok(mut scenario) = Scenario::from_str(text, &origin, format) else {
        return;
    };
    scenario.file = Some(path.to_owned());
    let replay = Replay::new();
    let _ = replay.validate(&scenario);
    let outcome = replay.run(&scenario);
    let _ = outcome.to_json_line();
    let _ = human_outcome(&outcome);
    let _ = junit(std::slice::from_ref(&outcome));
}

/// Whether a campaign's time budget (`HOOKHARNESS_FUZZ_SECONDS`, for
/// each target) is left for the target that began at `started` and has run
/// `run` cases; counts the case and prints the count every 10,000.
fn budget_left(started: &OnceLock<Instant>, run: &AtomicUsize, target: &str) -> bool {
    let started = *started.get_or_init(Instant::now);
    let budget = std::env::var("HOOKHARNESS_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Duration::from_secs);
    if budget.is_some_and(|budget| started.elapsed() > budget) {
        return false;
    }
    let run = run.fetch_add(1, Ordering::Relaxed) + 1;
    if run % 10_000 == 0 || (run % 500 == 0 && target.contains("writing")) {
        eprintln!("{target}: {run} cases in {:?}", started.elapsed());
    }
    true
}

/// Runs the case on a thread and fails it when it passes the deadline.
fn within_deadline(text: String, path: PathBuf) {
    let (done, finished) = std::sync::mpsc::channel();
    let shown = text.chars().take(2000).collect::<String>();
    std::thread::spawn(move || {
        let result = std::panic::catch_unwind(|| run_like_the_cli(&text, &path));
        let _ = done.send(result.is_ok());
    });
    match finished.recv_timeout(DEADLINE) {
        Ok(true) => {}
        Ok(false) => panic!("the CLI path panicked on this file:\n{shown}"),
        Err(_) => panic!("the CLI path ran past {DEADLINE:?} on this file:\n{shown}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_corpus_files_never_panic_abort_or_hang_the_cli_path(
        seed in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..5),
    ) {
        static STARTED: OnceLock<Instant> = OnceLock::new();
        static RUN: AtomicUsize = AtomicUsize::new(0);
        if !budget_left(&STARTED, &RUN, "fuzz_cli") {
            return Ok(());
        }
        let (path, text) = &seeds()[seed.index(seeds().len())];
        let mutated = mutations.iter().fold(text.clone(), |text, m| apply(&text, m));
        within_deadline(mutated, path.clone());
    }
}

#[test]
fn the_seeds_hold_the_corpus() {
    assert!(seeds().len() > 150, "{} seed files", seeds().len());
}
