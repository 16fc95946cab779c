//! `hookharness drift`: the same scenarios on the Haystack engine under two
//! interpreters (two haystack-ai versions), with what changes between them:
//! per scenario the first place its outcomes differ (the full trace, the
//! result, the error, the status and failures, in that order), and a
//! summary. docs/drift.md holds the report over the project's corpus.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use serde_json::{Map, Value, json};

use super::ExitCode;
use super::engine::first_difference;
use super::output::{errln, out, outln};
use super::{construction, filter};
use crate::engine::haystack::HaystackEngine;
use crate::outcome::{Detail, Outcome};
use crate::replay::Replay;
use crate::scenario::Scenario;

/// `hookharness drift` arguments.
#[derive(Args, Debug)]
pub(super) struct DriftArgs {
    /// Scenario files or folders.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// An interpreter with haystack-ai: give `--python` twice, the one to
    /// compare from first (e.g. the version you run today), then the other.
    #[arg(long, value_name = "PATH", required = true)]
    python: Vec<PathBuf>,
    /// `human`: a line per scenario and a summary; `json`: one JSON object a
    /// line per scenario, then a summary line.
    #[arg(long, value_enum, default_value_t = DriftFormat::Human)]
    format: DriftFormat,
    /// Only scenarios whose name or file contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Seconds a scenario may run under each interpreter before its worker
    /// is killed and the scenario errors there.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    timeout: u64,
}

impl DriftArgs {
    /// The report is for a program (no colour).
    pub(super) fn machine_format(&self) -> bool {
        self.format == DriftFormat::Json
    }
}

/// How `drift` writes its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DriftFormat {
    Human,
    Json,
}

/// One interpreter's side: its engine and what it is called in the report.
struct Side {
    replay: Replay,
    /// `haystack-ai 3.2.0`; the interpreter's path too when both sides run
    /// the same version.
    label: String,
    engine: Arc<HaystackEngine>,
}

/// What drift found for one scenario file.
enum Found {
    /// Invalid before any engine ran (the Rust loader's verdict).
    Invalid(Outcome),
    /// Both runs, and their first difference (`None`: the same outcome).
    Ran {
        first: Box<Outcome>,
        second: Box<Outcome>,
        difference: Option<(String, Option<Value>, Option<Value>)>,
    },
}

/// Counts of the summary.
#[derive(Default)]
struct Counts {
    same: usize,
    differ: usize,
    invalid: usize,
}

pub(super) fn run(args: DriftArgs) -> ExitCode {
    if args.python.len() != 2 {
        errln!(
            "error: `drift` compares two interpreters: give `--python PATH` exactly twice (got {}), e.g. `hookharness drift scenarios --python venv-3.2/bin/python --python venv-3.4/bin/python`",
            args.python.len()
        );
        return ExitCode::Usage;
    }
    let files = match super::files(&args.paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    let Some(sides) = sides(&args.python, args.timeout) else {
        return ExitCode::Usage;
    };
    let mut counts = Counts::default();
    for file in &files {
        let Some(found) = compare_file(&sides, file, args.filter.as_deref()) else {
            continue;
        };
        match &found {
            Found::Invalid(_) => counts.invalid += 1,
            Found::Ran {
                difference: None, ..
            } => counts.same += 1,
            Found::Ran { .. } => counts.differ += 1,
        }
        match args.format {
            DriftFormat::Human => out!("{}", human(&found, &sides)),
            DriftFormat::Json => outln!("{}", json_line(&found, &sides)),
        }
    }
    let total = counts.same + counts.differ + counts.invalid;
    if total == 0 {
        errln!("no scenario matches the filter");
        return ExitCode::NoScenarios;
    }
    match args.format {
        DriftFormat::Human => outln!(
            "\n{total} scenarios: {} same, {} differ, {} invalid ({} against {})",
            counts.same,
            counts.differ,
            counts.invalid,
            sides[0].label,
            sides[1].label
        ),
        DriftFormat::Json => outln!(
            "{}",
            json!({
                "summary": {
                    "scenarios": total,
                    "same": counts.same,
                    "differ": counts.differ,
                    "invalid": counts.invalid,
                },
                "interpreters": sides.iter().map(|side| json!({
                    "python": side.engine.python().display().to_string(),
                    "haystack": side.engine.haystack_version(),
                    "python_version": side.engine.python_version(),
                })).collect::<Vec<_>>(),
            })
        ),
    }
    if counts.invalid > 0 {
        ExitCode::Invalid
    } else if counts.differ > 0 {
        ExitCode::Failed
    } else {
        ExitCode::Ok
    }
}

/// A worker in each interpreter, or `None` (said on stderr) when one
/// cannot start.
fn sides(pythons: &[PathBuf], timeout: u64) -> Option<[Side; 2]> {
    let timeout = Duration::from_secs(timeout.max(1));
    let mut engines = Vec::new();
    for python in pythons {
        match HaystackEngine::start(Some(python), timeout) {
            Ok(engine) => engines.push(Arc::new(engine)),
            Err(error) => {
                errln!("error: {error}");
                return None;
            }
        }
    }
    let same_version = engines[0].haystack_version() == engines[1].haystack_version();
    let side = |engine: &Arc<HaystackEngine>| Side {
        replay: Replay::new()
            .detail(Detail::Full)
            .engine_arc(engine.clone()),
        label: if same_version {
            format!(
                "haystack-ai {} ({})",
                engine.haystack_version(),
                engine.python().display()
            )
        } else {
            format!("haystack-ai {}", engine.haystack_version())
        },
        engine: engine.clone(),
    };
    Some([side(&engines[0]), side(&engines[1])])
}

/// One file under both interpreters; `None` outside `filter`.
fn compare_file(sides: &[Side; 2], file: &Path, filter: Option<&str>) -> Option<Found> {
    let path = file.display().to_string();
    let scenario = match Scenario::from_path(file) {
        Ok(scenario) if !filter::takes(filter, &scenario.name, &path) => return None,
        Ok(scenario) => scenario,
        Err(_) if !filter::takes(filter, "", &path) => return None,
        Err(error) => return Some(Found::Invalid(crate::replay::invalid_file(file, &error))),
    };
    let [first, second] = [&sides[0], &sides[1]].map(|side| {
        construction::checked(&side.replay, file, &scenario, side.replay.run(&scenario))
    });
    let difference = first_drift(&first, &second);
    Some(Found::Ran {
        first: Box::new(first),
        second: Box::new(second),
        difference,
    })
}

/// The first difference between two outcomes of one scenario: the trace
/// first (where a run starts to go another way), then the result, the
/// error, the status and the failures; the error first when a side has no
/// trace (its agent was never built: the error says why). Error texts
/// compare exactly: a reworded message is a change between versions.
fn first_drift(a: &Outcome, b: &Outcome) -> Option<(String, Option<Value>, Option<Value>)> {
    let keys = if a.trace.is_empty() != b.trace.is_empty() {
        ["error", "trace", "result", "status", "failures"]
    } else {
        ["trace", "result", "error", "status", "failures"]
    };
    let ordered = |outcome: &Outcome| {
        let full = outcome.to_full_value();
        let mut map = Map::new();
        for key in keys {
            map.insert(
                key.to_owned(),
                full.get(key).cloned().unwrap_or(Value::Null),
            );
        }
        Value::Object(map)
    };
    first_difference(&ordered(a), &ordered(b), String::new(), false)
}

/// `(absent)` or the value's JSON, cut to a readable length.
fn shown(value: Option<&Value>) -> String {
    const LONGEST: usize = 300;
    let text = value.map_or("(absent)".to_owned(), Value::to_string);
    if text.chars().count() <= LONGEST {
        return text;
    }
    let cut: String = text.chars().take(LONGEST).collect();
    format!("{cut}… ({} characters)", text.chars().count())
}

fn human(found: &Found, sides: &[Side; 2]) -> String {
    match found {
        Found::Invalid(outcome) => {
            let why = outcome
                .error
                .as_ref()
                .map_or(String::new(), |e| format!("\n      {}", e.message));
            format!("INVALID {}{why}\n", outcome.file)
        }
        Found::Ran {
            first,
            difference: None,
            ..
        } => format!("SAME    {}  ({})\n", first.file, first.scenario),
        Found::Ran {
            first,
            second,
            difference: Some((path, a, b)),
        } => format!(
            "DIFFERS {}  ({})\n      status: {} {}, {} {}\n      first difference at `{path}`:\n        {}: {}\n        {}: {}\n",
            first.file,
            first.scenario,
            sides[0].label,
            first.status.wire_str(),
            sides[1].label,
            second.status.wire_str(),
            sides[0].label,
            shown(a.as_ref()),
            sides[1].label,
            shown(b.as_ref()),
        ),
    }
}

fn json_line(found: &Found, sides: &[Side; 2]) -> Value {
    let versions: Vec<&str> = sides.iter().map(|s| s.engine.haystack_version()).collect();
    match found {
        Found::Invalid(outcome) => json!({
            "scenario": outcome.scenario,
            "file": outcome.file,
            "drift": "invalid",
            "error": outcome.error.as_ref().map(|e| e.message.clone()),
        }),
        Found::Ran {
            first,
            second,
            difference,
        } => json!({
            "scenario": first.scenario,
            "file": first.file,
            "drift": if difference.is_some() { "differs" } else { "same" },
            "haystack": versions,
            "status": [first.status.wire_str(), second.status.wire_str()],
            "difference": difference.as_ref().map(|(path, a, b)| json!({
                "path": path,
                "values": [a, b],
            })),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_value_is_cut_with_its_length() {
        let long = Value::String("x".repeat(400));
        let text = shown(Some(&long));
        assert!(text.ends_with("… (402 characters)"), "{text}");
        assert_eq!(shown(None), "(absent)");
        assert_eq!(shown(Some(&json!(1))), "1");
    }
}
