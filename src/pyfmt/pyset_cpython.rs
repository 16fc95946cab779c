//! [`PySet`] against CPython itself: generated sets of names, built by each
//! expression Haystack builds a printed set with, compared with the
//! `repr(...)` of the interpreter named by `HOOKHARNESS_PYTHON` (else
//! `HOOKHARNESS_REF_VENV/bin/python`) run with `PYTHONHASHSEED=0`. Skipped,
//! with the reason printed, when neither is set.

use super::pyset::PySet;
use proptest::prelude::*;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// Reads `{"shape": ..., "a": [...], "b": [...]}` lines, answers with the
/// JSON string of `repr(...)` of the shape's set, one line each.
const EVALUATOR: &str = r#"
import json, sys
for line in sys.stdin:
    case = json.loads(line)
    a, b, shape = case["a"], case["b"], case["shape"]
    if shape == "set_of_list":
        s = set(a)
    elif shape == "comprehension":
        s = {name for name in a}
    elif shape == "set_minus_comprehension":
        s = set(a) - {name for name in b}
    elif shape == "update_with_keys":
        s = set()
        s.update({name: None for name in b}.keys())
        s.update({name: None for name in a}.keys())
    elif shape == "duplicates":
        s = {name for name in a if a.count(name) > 1}
    elif shape == "set_minus_set":
        t = set()
        for name in a:
            t.add(name)
        u = set()
        for name in b:
            u.add(name)
        s = t - u
    elif shape == "list_of_difference_then_set":
        t = set()
        for name in a:
            t.add(name)
        u = set()
        for name in b:
            u.add(name)
        s = set({name: None for name in list(t - u)}.keys())
    else:
        raise SystemExit("unknown shape " + shape)
    print(json.dumps(repr(s)), flush=True)
"#;

/// The shapes, as the evaluator names them.
const SHAPES: [&str; 7] = [
    "set_of_list",
    "comprehension",
    "set_minus_comprehension",
    "update_with_keys",
    "duplicates",
    "set_minus_set",
    "list_of_difference_then_set",
];

/// The set the harness builds for `shape`.
fn harness(shape: &str, a: &[String], b: &[String]) -> String {
    let set = match shape {
        "set_of_list" | "comprehension" => PySet::from_items(a),
        "set_minus_comprehension" | "set_minus_set" => {
            PySet::from_items(a).difference(&PySet::from_items(b))
        }
        "update_with_keys" => {
            let mut s = PySet::new();
            s.update(dedup(b));
            s.update(dedup(a));
            s
        }
        "duplicates" => PySet::from_items(
            a.iter()
                .filter(|name| a.iter().filter(|n| n == name).count() > 1),
        ),
        "list_of_difference_then_set" => {
            let listed: Vec<String> = PySet::from_items(a)
                .difference(&PySet::from_items(b))
                .iter()
                .map(str::to_owned)
                .collect();
            PySet::from_items(listed)
        }
        other => panic!("unknown shape {other}"),
    };
    set.repr()
}

/// A dict's keys: each name once, at its first place.
fn dedup(names: &[String]) -> Vec<&String> {
    let mut out: Vec<&String> = Vec::new();
    for name in names {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

struct Evaluator {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn python() -> Option<String> {
    if let Ok(python) = std::env::var("HOOKHARNESS_PYTHON") {
        return Some(python);
    }
    std::env::var("HOOKHARNESS_REF_VENV")
        .ok()
        .map(|venv| format!("{venv}/bin/python"))
}

/// One interpreter for the whole test, started on first use.
fn evaluator() -> Option<&'static Mutex<Evaluator>> {
    static EVALUATOR_PROCESS: OnceLock<Option<Mutex<Evaluator>>> = OnceLock::new();
    EVALUATOR_PROCESS
        .get_or_init(|| {
            let python = python()?;
            let mut child = Command::new(&python)
                .args(["-c", EVALUATOR])
                .env("PYTHONHASHSEED", "0")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
            let stdin = child.stdin.take().expect("piped stdin");
            let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
            Some(Mutex::new(Evaluator {
                _child: child,
                stdin,
                stdout,
            }))
        })
        .as_ref()
}

fn cpython(evaluator: &Mutex<Evaluator>, shape: &str, a: &[String], b: &[String]) -> String {
    let mut evaluator = evaluator.lock().unwrap_or_else(|e| e.into_inner());
    let case = serde_json::json!({"shape": shape, "a": a, "b": b});
    writeln!(evaluator.stdin, "{case}").expect("the evaluator reads its input");
    let mut line = String::new();
    evaluator
        .stdout
        .read_line(&mut line)
        .expect("the evaluator answers");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("the evaluator printed {line:?}: {e}"))
}

/// Names as Haystack's sets hold them: identifiers, Latin-1, other BMP and
/// astral characters, the empty string; drawn from a small pool so that
/// lists repeat names and the two operands share some.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z_][a-z0-9_]{0,11}",
        1 => "[a-zé_ü]{1,6}",
        1 => "[a-z日本語]{1,4}",
        1 => "[a-z😀𝔘]{1,3}",
        1 => Just(String::new()),
    ]
}

fn names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(name(), 1..=40).prop_flat_map(|pool| {
        let size = pool.len();
        prop::collection::vec(0..size, 1..=40)
            .prop_map(move |picks| picks.into_iter().map(|i| pool[i].clone()).collect())
    })
}

fn case() -> impl Strategy<Value = (usize, Vec<String>, Vec<String>)> {
    (0..SHAPES.len(), names(), names(), any::<bool>()).prop_map(|(shape, a, b, overlap)| {
        // Half the cases share names between the two operands.
        let b = if overlap {
            b.into_iter()
                .zip(a.iter().cycle())
                .enumerate()
                .map(|(i, (own, shared))| if i % 2 == 0 { shared.clone() } else { own })
                .collect()
        } else {
            b
        };
        (shape, a, b)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn sets_print_in_cpythons_order((shape, a, b) in case()) {
        let Some(evaluator) = evaluator() else {
            // Printed once per case; the test body is cheap without Python.
            eprintln!(
                "skipped: set HOOKHARNESS_PYTHON (or HOOKHARNESS_REF_VENV) to a CPython 3.11+ \
                 to compare Python set order with CPython's"
            );
            return Ok(());
        };
        let shape = SHAPES[shape];
        prop_assert_eq!(harness(shape, &a, &b), cpython(evaluator, shape, &a, &b), "{}", shape);
    }
}
