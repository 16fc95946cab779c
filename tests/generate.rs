//! `hookharness generate`: scenarios over the whole contract, reproducible
//! from a seed, each one a valid scenario file.

mod common;

use common::hookharness;
use std::path::Path;

fn folder(name: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir.display().to_string()
}

fn read(dir: &str, file: &str) -> String {
    std::fs::read_to_string(Path::new(dir).join(file)).unwrap()
}

#[test]
fn a_seed_and_an_index_always_give_the_same_scenario() {
    let all = folder("generate_all");
    let one = folder("generate_one");
    let output = hookharness(&["generate", "--out", &all, "--seed", "7", "--count", "5"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).contains("(seed 7)"));
    let output = hookharness(&[
        "generate", "--out", &one, "--seed", "7", "--start", "3", "--count", "1",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let file = "generated_7_000003.yaml";
    assert_eq!(read(&all, file), read(&one, file));
    assert!(read(&one, file).contains("hookharness generate --seed 7 --start 3 --count 1"));
    assert_ne!(read(&all, "generated_7_000002.yaml"), read(&all, file));
}

#[test]
fn generated_scenarios_are_valid_files_in_both_formats() {
    for format in ["yaml", "json"] {
        let dir = folder(&format!("generate_valid_{format}"));
        let output = hookharness(&[
            "generate", "--out", &dir, "--seed", "11", "--count", "60", "--format", format,
        ]);
        assert_eq!(output.status.code(), Some(0));
        let check = hookharness(&["check", &dir]);
        let text = String::from_utf8_lossy(&check.stdout);
        // Every file loads; what `check` reports is only the Agent
        // construction errors the generator writes on purpose (Haystack's
        // `Agent(...)` raises them, and `run` reports them as errors).
        let (problems, summary) = text
            .trim_end()
            .rsplit_once('\n')
            .unwrap_or(("", text.trim_end()));
        assert!(
            summary.ends_with(" invalid") && summary.contains(" valid, "),
            "{text}"
        );
        // A message may go on over indented lines (Jinja2's `No filter
        // named 'x'.` names its place on a second line).
        let problems: Vec<&str> = problems
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with(' '))
            .collect();
        for problem in &problems {
            assert!(
                problem.contains(": the Agent cannot be built: "),
                "{problem}"
            );
        }
        // A file may have several construction errors, one line each.
        let files = problems
            .iter()
            .filter_map(|p| p.split(':').next())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        assert!(
            summary.starts_with(&format!("{} valid, {files} invalid", 60 - files)),
            "{text}"
        );
    }
}

#[test]
fn generated_scenarios_reach_every_part_of_the_contract() {
    let dir = folder("generate_coverage");
    let output = hookharness(&[
        "generate", "--out", &dir, "--seed", "3", "--count", "150", "--format", "json",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let mut text = String::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        text.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    for part in [
        "\"before_run\"",
        "\"before_llm\"",
        "\"before_tool\"",
        "\"after_tool\"",
        "\"on_exit\"",
        "\"after_run\"",
        "\"token_budget\"",
        "\"tool_result_offload\"",
        "\"confirmation\"",
        "\"compaction\"",
        "\"shared_hooks\"",
        "\"echo_arguments\"",
        "\"inputs_from_state\"",
        "\"outputs_to_state\"",
        "\"outputs_to_string\"",
        "\"set_tool_arguments\"",
        "\"rewrite_tool_results\"",
        "\"drop_tool_calls\"",
        "\"prepend_messages\"",
        "\"replace_messages\"",
        "\"continue_run\"",
        "\"stop_run\"",
        "\"tool_call_counts\"",
        "\"hook_context\"",
        "\"times\"",
        "\"error\"",
        "\"usage\"",
        "\"finish_reason\"",
        "\"async\": true",
        "\"tool_concurrency_limit\"",
        "\"exit_conditions\"",
        "\"handler\"",
        "SimpleConsoleUI",
        "100000000000000000000",
    ] {
        assert!(text.contains(part), "no generated scenario has {part}");
    }
}

#[test]
fn the_last_index_is_written_and_a_range_past_it_is_refused() {
    let dir = folder("generate_last_index");
    let output = hookharness(&[
        "generate",
        "--out",
        &dir,
        "--seed",
        "7",
        "--start",
        "18446744073709551615",
        "--count",
        "1",
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("wrote 1 scenarios"));
    assert!(
        Path::new(&dir)
            .join("generated_7_18446744073709551615.yaml")
            .is_file()
    );

    let past = hookharness(&[
        "generate",
        "--out",
        &dir,
        "--seed",
        "7",
        "--start",
        "18446744073709551615",
        "--count",
        "2",
    ]);
    assert_eq!(past.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&past.stderr);
    assert!(stderr.contains("give at most --count 1"), "{stderr}");
}

/// `generate --out` writes as every other writing command does: an
/// existing file only with `--force`, and a link planted at a file's name
/// is refused, never followed.
#[test]
fn an_existing_file_is_kept_without_force_and_a_link_is_never_followed() {
    let dir = folder("generate_safe_write");
    std::fs::create_dir_all(&dir).unwrap();
    let file = Path::new(&dir).join("generated_7_000000.yaml");
    std::fs::write(&file, "mine").unwrap();
    let args = ["generate", "--out", &dir, "--seed", "7", "--count", "1"];
    let output = hookharness(&args);
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("pass --force"), "{stderr}");
    assert!(stderr.contains("generated_7_000000.yaml"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");

    let output = hookharness(&[&args[..], &["--force"]].concat());
    assert_eq!(output.status.code(), Some(0));
    assert!(read(&dir, "generated_7_000000.yaml").contains("generated-7-0"));

    #[cfg(unix)]
    {
        let victim = Path::new(&dir).join("victim.txt");
        std::fs::write(&victim, "keep").unwrap();
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&victim, &file).unwrap();
        let output = hookharness(&[&args[..], &["--force"]].concat());
        assert_eq!(output.status.code(), Some(4));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("symbolic link"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// `generate --force` checks every file before it writes the first: a link
/// at the third name leaves none written, with a message about the name
/// generate chose (not a path the user gave).
#[cfg(unix)]
#[test]
fn a_refused_file_leaves_none_written() {
    let dir = folder("generate_all_or_none");
    std::fs::create_dir_all(&dir).unwrap();
    let victim = Path::new(&dir).join("victim.txt");
    std::fs::write(&victim, "keep").unwrap();
    let link = Path::new(&dir).join("generated_7_000002.yaml");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let output = hookharness(&[
        "generate", "--out", &dir, "--seed", "7", "--count", "4", "--force",
    ]);
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr,
        format!(
            "`{}` is a symbolic link, which is not written through; generate chose \
             this name for the scenario file in --out: remove the link, or give another --out\n",
            link.display()
        )
    );
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["generated_7_000002.yaml", "victim.txt"]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
}

/// A range refused on the command line creates nothing, not even `--out`.
#[test]
fn a_refused_range_creates_no_folder() {
    let dir = folder("generate_refused_range");
    let output = hookharness(&[
        "generate",
        "--out",
        &dir,
        "--start",
        "18446744073709551615",
        "--count",
        "2",
    ]);
    assert_eq!(output.status.code(), Some(4));
    assert!(!Path::new(&dir).exists(), "--out was created");
}
