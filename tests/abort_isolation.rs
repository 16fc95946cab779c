//! `explain`, `mutate` and `explore` run scenarios in child processes, as
//! `run` and `check` do: a scenario, mutant or variant that ends its
//! process (here an allocation that fails under a bounded address space)
//! costs its own outcome, and the report of everything else is whole.

#![cfg(target_os = "linux")]

mod common;

use common::{hookharness, hookharness_within_memory, stdout};
use serde_json::Value;

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("abort_isolation", name)
}

/// A scenario whose user prompt builds 50 MB of text: about 130 MB to run,
/// so its allocation fails within 80 MB of address space; it passes
/// without the bound.
const HOSTILE: &str = "name: big\nagent:\n  user_prompt: \"{% set s = \\\"x\\\" * 25000000 %}{{ (s ~ s)|length }}\"\nmodel:\n  - text: ok\nexpect:\n  last_message: {role: assistant, text: ok}\n";

/// A scenario with surviving and killed mutants: its hook stops the run,
/// and only part of what it does is expected.
const WEAK: &str = "name: weak\nhooks:\n  before_llm:\n    - when: {step_count: 1}\n      do:\n        - stop_run: enough\nmodel:\n  - tool_calls: [{tool: search, arguments: {q: rust}}]\n  - text: done\ntools:\n  - name: search\n    results: [found]\nrun:\n  messages: [{role: user, text: hi}]\nexpect:\n  unused_replies: allow\n  tools_run: [search]\n";

const MEMORY: u64 = 80_000;

#[test]
fn explain_of_a_scenario_that_ends_its_process_explains_how_it_ended() {
    let dir = scratch("explain");
    let hostile = dir.join("big.yaml");
    std::fs::write(&hostile, HOSTILE).unwrap();
    let good = dir.join("weak.yaml");
    std::fs::write(&good, WEAK).unwrap();
    let hostile = hostile.to_str().unwrap();

    let human = hookharness_within_memory(MEMORY, &["explain", hostile]);
    let text = stdout(&human);
    assert_eq!(human.status.code(), Some(1), "{text}");
    assert!(text.trim_start().starts_with("ERROR"), "{text}");
    assert!(
        text.contains("ended before its outcome") && text.contains("memory allocation"),
        "{text}"
    );
    assert!(!text.contains("other scenarios"), "{text}");

    let html = hookharness_within_memory(MEMORY, &["explain", "--format", "html", hostile]);
    let page = stdout(&html);
    assert_eq!(html.status.code(), Some(1));
    assert!(page.contains("ended before its outcome"), "{page}");
    assert!(page.trim_end().ends_with("</html>"), "{page}");

    // Beside it, under the same bound, a scenario explains as without it;
    // without the bound, the hostile one passes.
    let bounded = hookharness_within_memory(MEMORY, &["explain", good.to_str().unwrap()]);
    let free = hookharness(&["explain", good.to_str().unwrap()]);
    assert_eq!(bounded.status.code(), Some(0));
    assert_eq!(stdout(&bounded), stdout(&free));
    assert_eq!(hookharness(&["explain", hostile]).status.code(), Some(0));
}

#[test]
fn mutate_of_a_scenario_that_ends_its_process_mutates_every_other_file() {
    let dir = scratch("mutate");
    std::fs::write(dir.join("a_big.yaml"), HOSTILE).unwrap();
    std::fs::write(dir.join("b_weak.yaml"), WEAK).unwrap();
    let alone = scratch("mutate_alone");
    std::fs::write(alone.join("b_weak.yaml"), WEAK).unwrap();
    let (path, alone) = (dir.to_str().unwrap(), alone.to_str().unwrap());

    let human = hookharness_within_memory(MEMORY, &["mutate", path]);
    let text = stdout(&human);
    assert_eq!(human.status.code(), Some(1), "{text}");
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("a_big.yaml: not mutated: the process running it ended before its outcome")
            && first.contains("memory allocation"),
        "{text}"
    );
    // The other file's survivors and score, as when it is mutated alone.
    let alone_text = stdout(&hookharness(&["mutate", alone])).replace(alone, path);
    assert!(alone_text.contains("survived"), "{alone_text}");
    assert_eq!(
        text.lines().skip(1).collect::<Vec<_>>(),
        alone_text.lines().collect::<Vec<_>>()
    );

    let json = hookharness_within_memory(MEMORY, &["mutate", "--format", "json", path]);
    let document: Value = serde_json::from_slice(&json.stdout).unwrap();
    let alone_json = hookharness(&["mutate", "--format", "json", alone]);
    let alone_document: Value = serde_json::from_slice(&alone_json.stdout).unwrap();
    assert_eq!(document["score"], alone_document["score"]);
    assert_eq!(
        document["mutants"].as_array().unwrap().len(),
        alone_document["mutants"].as_array().unwrap().len()
    );
    assert!(!document["mutants"].as_array().unwrap().is_empty());
    let not_green = document["not_green"].as_array().unwrap();
    assert_eq!(not_green.len(), 1, "{document}");
    assert!(not_green[0].as_str().unwrap().contains("memory allocation"));
}

/// An `on_exit` hook that adds 2 MB to the conversation and continues the
/// run, once (`times: 1`): dropping `times` makes it continue until the
/// 60 replies run out, about 370 MB, whose allocation fails within 150 MB.
fn growing() -> String {
    format!(
        "name: grow\nhooks:\n  on_exit:\n    - name: more\n      when: {{times: 1}}\n      do:\n        - append_messages: [{{role: user, text: {}}}]\n        - continue_run: true\nmodel:\n{}run:\n  messages: [{{role: user, text: hi}}]\nexpect:\n  unused_replies: allow\n",
        "y".repeat(2_000_000),
        "  - text: ok\n".repeat(60)
    )
}

#[test]
fn a_mutant_that_ends_its_process_costs_only_its_own_verdict() {
    let dir = scratch("mutant");
    std::fs::write(dir.join("a_grow.yaml"), growing()).unwrap();
    std::fs::write(dir.join("b_weak.yaml"), WEAK).unwrap();
    let path = dir.to_str().unwrap();

    let bounded = hookharness_within_memory(150_000, &["mutate", path]);
    let text = stdout(&bounded);
    assert_eq!(bounded.status.code(), Some(1), "{text}");
    let (ended, listed): (Vec<&str>, Vec<&str>) = text
        .lines()
        .partition(|line| line.contains("ended before its outcome"));
    assert_eq!(ended.len(), 1, "{text}");
    assert!(
        ended[0].contains("a_grow.yaml:5:14: killed: drop `when.times`")
            && ended[0].contains("memory allocation"),
        "{text}"
    );
    // Every other mutant of both files is judged as without the bound,
    // where the same mutant is killed by its error.
    let free = stdout(&hookharness(&["mutate", path]));
    assert_eq!(listed, free.lines().collect::<Vec<_>>());
    assert!(free.contains("b_weak.yaml") && free.contains("survived"));
}

/// Two `on_exit` hooks: as written, `done` ends the run after `more`
/// continued it; in the other order `more` continues it, adding 2 MB a
/// step until the 60 replies run out (about 370 MB).
fn growing_in_the_other_order() -> String {
    format!(
        "name: grow\nhooks:\n  on_exit:\n    - name: more\n      do:\n        - append_messages: [{{role: user, text: {}}}]\n        - continue_run: true\n    - name: done\n      do:\n        - continue_run: false\nmodel:\n{}run:\n  messages: [{{role: user, text: hi}}]\nexpect:\n  unused_replies: allow\n",
        "y".repeat(2_000_000),
        "  - text: ok\n".repeat(60)
    )
}

/// `explore DIR/scenarios --out DIR/out` (bounded to `kib` KiB when
/// given): its stdout, with `DIR/` taken out, its exit code and the names
/// of the files written.
fn explore_in(dir: &std::path::Path, kib: Option<u64>) -> (String, Option<i32>, Vec<String>) {
    let out = dir.join("out");
    let _ = std::fs::remove_dir_all(&out);
    let scenarios = dir.join("scenarios");
    let args = [
        "explore",
        scenarios.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let output = match kib {
        Some(kib) => hookharness_within_memory(kib, &args),
        None => hookharness(&args),
    };
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    written.sort();
    let prefix = format!("{}/", dir.display());
    (
        stdout(&output).replace(&prefix, ""),
        output.status.code(),
        written,
    )
}

/// A folder `name` holding `scenarios/` with `files`.
fn explore_dir(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join("scenarios")).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join("scenarios").join(file), text).unwrap();
    }
    dir
}

const ORDER_MATTERS: &str = include_str!("../examples/explore/order_matters.yaml");

#[test]
fn explore_of_a_scenario_that_ends_its_process_explores_every_other_file() {
    let dir = explore_dir(
        "explore",
        &[("a_big.yaml", HOSTILE), ("b_order.yaml", ORDER_MATTERS)],
    );
    let alone = explore_dir("explore_alone", &[("b_order.yaml", ORDER_MATTERS)]);
    let (text, code, written) = explore_in(&dir, Some(MEMORY));
    assert_eq!(code, Some(1), "{text}");
    let (first, rest) = text.split_once('\n').unwrap();
    assert!(
        first.starts_with(
            "scenarios/a_big.yaml: not explored: the process running it ended before its outcome"
        ) && first.contains("memory allocation"),
        "{text}"
    );
    // The other file's report and variant file, as when explored alone.
    let (alone_text, _, alone_written) = explore_in(&alone, None);
    assert_eq!(rest, alone_text);
    assert_eq!(written, alone_written);
    assert_eq!(written, ["b_order.variant-2.yaml"]);
}

#[test]
fn a_variant_that_ends_its_process_costs_only_its_own_report() {
    let growing = growing_in_the_other_order();
    let dir = explore_dir(
        "variant",
        &[("a_grow.yaml", &growing), ("b_order.yaml", ORDER_MATTERS)],
    );
    let (text, code, written) = explore_in(&dir, Some(150_000));
    assert_eq!(code, Some(1), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "scenarios/a_grow.yaml: 2 variants (every one of 2 orders and answers), 1 broken",
            "  variant 2: on_exit: [done, more]",
        ],
        "{text}"
    );
    assert!(
        lines[2].contains("the run failed: the process running it ended before its outcome")
            && lines[2].contains("memory allocation"),
        "{text}"
    );
    // The other file's report and variant file, as when explored alone.
    let alone = explore_dir("variant_alone", &[("b_order.yaml", ORDER_MATTERS)]);
    let (alone_text, _, alone_written) = explore_in(&alone, None);
    let alone_lines: Vec<&str> = alone_text.lines().collect();
    let n = alone_lines.len();
    assert_eq!(lines[3..lines.len() - 1], alone_lines[..n - 1], "{text}");
    assert_eq!(lines.last(), Some(&"explored 4 variants: 2 broken"));
    assert_eq!(written, alone_written);
}
