//! An instruction-count gate for your own hook.
//!
//! Wall-clock time on a shared CI runner is noise; the instructions
//! callgrind counts are not. [`HookGate`] plugs your hook into the standard
//! tool step, counts what it adds per step under `valgrind --tool=callgrind`
//! (the same discipline as the project's own `benches/gate/gate.py`), and
//! compares the count with a baseline committed beside your code. It fails
//! as well when the hook's behaviour changed: the standard run's trace and
//! final State, with the hook, must stay identical to the committed ones, so
//! a "faster" hook that does something else is caught.
//!
//! Make it an example (or a bench with `harness = false`) of your crate:
//!
//! ```no_run
//! use hookharness::bench::HookGate;
//! use hookharness::{hook_fn, HookPoint, State};
//!
//! fn main() -> std::process::ExitCode {
//!     let audit = hook_fn(|state: &mut State| {
//!         let _pending = state.messages().last().map(|m| m.tool_calls().count());
//!     })
//!     .named("audit");
//!     HookGate::new("audit", HookPoint::BeforeTool, audit)
//!         .baseline_dir("benches/hook_gate")
//!         .main()
//! }
//! ```
//!
//! `cargo run --release --example hook_gate -- --update` writes
//! `benches/hook_gate/audit.json` (the count) and `audit.trace.jsonl` (the
//! behaviour); commit both. In CI, `cargo run --release --example hook_gate`
//! exits non-zero when the count grew past the tolerance or the behaviour
//! changed, and says which and what to do.

use super::{StepBench, StepKind};
use crate::HookPoint;
use crate::RunOptions;
use crate::hook::Hook;
use crate::outcome::TraceRecorder;
use serde_json::{Value, json};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;

/// Set in the child processes callgrind runs: `with N` or `without N`.
const CHILD: &str = "HOOKHARNESS_HOOK_GATE_CHILD";
/// Tool steps per run of the standard workload.
const STEPS: i64 = 10;
/// Runs counted per measurement (a zero-run count is subtracted).
const RUNS: usize = 20;
/// Instructions per step a count may move by without being a change:
/// callgrind counts repeat to a few instructions per process.
const SLACK: f64 = 2.0;

/// Why a gate failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GateError {
    /// `valgrind` could not be started.
    #[error(
        "could not run valgrind ({0}): install it (`apt-get install valgrind`) on the machine that runs the gate"
    )]
    Valgrind(std::io::Error),
    /// callgrind ran but printed no instruction count.
    #[error("callgrind printed no instruction count for the `{run}` run:\n{stderr}")]
    NoCount {
        /// `with N` or `without N`.
        run: String,
        /// What valgrind printed.
        stderr: String,
    },
    /// A baseline file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A baseline file is not what `--update` writes.
    #[error("{path}: {message}; write it again with `--update`")]
    BadBaseline {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// No baseline is committed yet.
    #[error("no baseline at {path}: run the gate with `--update`, then commit the files it writes")]
    NoBaseline {
        /// The missing file.
        path: PathBuf,
    },
    /// The hook costs more than the baseline allows.
    #[error(
        "hook `{hook}` at {point} now adds {measured:.0} instructions per standard tool step, baseline {baseline:.0} (+{change:.1}%, more than the {tolerance}% allowed): make it cheaper, or run with `--update` and commit the new baseline if the cost is intended"
    )]
    Slower {
        /// The gate's name.
        hook: String,
        /// Where the hook runs.
        point: HookPoint,
        /// The committed count.
        baseline: f64,
        /// The count now.
        measured: f64,
        /// The change in percent.
        change: f64,
        /// The tolerance in percent.
        tolerance: f64,
    },
    /// The standard run with the hook does something else than the
    /// committed trace says.
    #[error(
        "hook `{hook}` behaves differently: line {line} of {path} was\n  {expected}\nand is now\n  {actual}\nif the change is intended, run with `--update` and commit the new trace"
    )]
    BehaviourChanged {
        /// The gate's name.
        hook: String,
        /// The committed trace.
        path: PathBuf,
        /// The first line that differs (1-based).
        line: usize,
        /// That line in the committed trace (`<end>` past its end).
        expected: String,
        /// That line now.
        actual: String,
    },
}

/// What a passing gate measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateReport {
    /// Instructions per standard tool step without the hook.
    pub step_instructions: f64,
    /// Instructions the hook adds per step.
    pub hook_instructions: f64,
    /// The committed count (`None` right after `--update`).
    pub baseline: Option<f64>,
}

impl fmt::Display for GateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "standard tool step: {:.0} instructions; the hook adds {:.0}",
            self.step_instructions, self.hook_instructions
        )?;
        match self.baseline {
            Some(baseline) => write!(f, " (baseline {baseline:.0})"),
            None => write!(f, " (baseline written)"),
        }
    }
}

/// An instruction-count and behaviour gate for one hook at one point.
pub struct HookGate {
    name: String,
    point: HookPoint,
    hook: Arc<dyn Hook>,
    dir: PathBuf,
    tolerance_percent: f64,
}

impl HookGate {
    /// A gate named `name` (the baseline files' stem) for `hook` at `point`,
    /// with its baseline in `benches/hook_gate` and a 10% tolerance.
    pub fn new(name: impl Into<String>, point: HookPoint, hook: impl Hook) -> Self {
        HookGate {
            name: name.into(),
            point,
            hook: Arc::new(hook),
            dir: PathBuf::from("benches/hook_gate"),
            tolerance_percent: 10.0,
        }
    }

    /// Where the baseline files are (relative to the working directory).
    pub fn baseline_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = dir.into();
        self
    }

    /// How much the count may grow, in percent, before the gate fails.
    pub fn tolerance_percent(mut self, percent: f64) -> Self {
        self.tolerance_percent = percent;
        self
    }

    /// The whole program: under callgrind, the workload; otherwise the gate
    /// (`--update` writes the baseline), its report on stdout, its failure
    /// on stderr and in the exit code.
    pub fn main(self) -> ExitCode {
        if let Ok(spec) = std::env::var(CHILD) {
            return self.child(&spec);
        }
        let update = std::env::args().skip(1).any(|arg| arg == "--update");
        match self.check(update) {
            Ok(report) => {
                println!("{}: {report}", self.name);
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("hook gate failed: {error}");
                ExitCode::FAILURE
            }
        }
    }

    /// Measures the hook and compares (or, with `update`, writes) the
    /// baseline and the trace. The counts come from running this program
    /// under callgrind, so call it from a program whose `main` is
    /// [`HookGate::main`].
    pub fn check(&self, update: bool) -> Result<GateReport, GateError> {
        let trace = self.trace();
        let trace_path = self.dir.join(format!("{}.trace.jsonl", self.name));
        let count_path = self.dir.join(format!("{}.json", self.name));
        if !update {
            compare_trace(&self.name, &trace_path, &trace)?;
        }
        let without = per_step(|runs| count(&format!("without {runs}")))?;
        let with = per_step(|runs| count(&format!("with {runs}")))?;
        let hook_instructions = with - without;
        if update {
            std::fs::create_dir_all(&self.dir).map_err(|source| GateError::Io {
                path: self.dir.clone(),
                source,
            })?;
            write(&trace_path, &trace)?;
            let baseline = json!({
                "hook": self.name,
                "point": self.point.as_str(),
                "instructions_per_step": hook_instructions.round(),
                "tolerance_percent": self.tolerance_percent,
            });
            write(&count_path, &format!("{baseline:#}\n"))?;
            return Ok(GateReport {
                step_instructions: without,
                hook_instructions,
                baseline: None,
            });
        }
        let baseline = read_baseline(&count_path)?;
        let change = 100.0 * (hook_instructions - baseline) / baseline.max(1.0);
        if hook_instructions > baseline * (1.0 + self.tolerance_percent / 100.0) + SLACK {
            return Err(GateError::Slower {
                hook: self.name.clone(),
                point: self.point,
                baseline,
                measured: hook_instructions,
                change,
                tolerance: self.tolerance_percent,
            });
        }
        Ok(GateReport {
            step_instructions: without,
            hook_instructions,
            baseline: Some(baseline),
        })
    }

    fn workload(&self, with_hook: bool) -> super::PreparedBench {
        let mut bench = StepBench::new(StepKind::Tool).steps(STEPS);
        if with_hook {
            bench.hooks.push((self.point, Arc::clone(&self.hook)));
        }
        bench.build()
    }

    /// Runs the counted workload `N` times (`with N` / `without N`).
    fn child(&self, spec: &str) -> ExitCode {
        let parsed = spec
            .split_once(' ')
            .and_then(|(kind, runs)| Some((kind == "with", runs.parse::<usize>().ok()?)));
        let Some((with_hook, runs)) = parsed else {
            eprintln!("{CHILD} must be `with N` or `without N`, not `{spec}`");
            return ExitCode::FAILURE;
        };
        let bench = self.workload(with_hook);
        for _ in 0..runs {
            std::hint::black_box(bench.run());
        }
        ExitCode::SUCCESS
    }

    /// The standard run with the hook, as lines: the outcome's trace, then
    /// the final conversation and State.
    fn trace(&self) -> String {
        let bench = self.workload(true);
        let mut recorder = TraceRecorder::default();
        let result = bench
            .agent
            .run_observed(bench.messages(), RunOptions::new(), &mut recorder);
        let mut lines: Vec<String> = recorder
            .events()
            .iter()
            .filter_map(|event| event.wire_value())
            .map(|event| event.to_string())
            .collect();
        match result {
            Ok(output) => {
                lines.extend(output.messages.iter().map(|m| m.to_value().to_string()));
                lines.push(Value::Object(output.data).to_string());
            }
            Err(error) => lines.push(json!({ "error": error.to_string() }).to_string()),
        }
        lines.join("\n") + "\n"
    }
}

/// Instructions per step: the count of `RUNS` runs less that of none.
fn per_step(count: impl Fn(usize) -> Result<u64, GateError>) -> Result<f64, GateError> {
    let start = count(0)?;
    let total = count(RUNS)?;
    Ok(total.saturating_sub(start) as f64 / (RUNS as f64 * STEPS as f64))
}

/// This program under callgrind, as a child running `run`.
fn count(run: &str) -> Result<u64, GateError> {
    let exe = std::env::current_exe().map_err(GateError::Valgrind)?;
    let done = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .env(CHILD, run)
        .output()
        .map_err(GateError::Valgrind)?;
    let stderr = String::from_utf8_lossy(&done.stderr);
    stderr
        .split("Collected : ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|digits| digits.parse().ok())
        .filter(|_| done.status.success())
        .ok_or_else(|| GateError::NoCount {
            run: run.to_owned(),
            stderr: stderr.into_owned(),
        })
}

/// A committed baseline file's text; a missing one says to run `--update`.
fn read_committed(path: &Path) -> Result<String, GateError> {
    std::fs::read_to_string(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            GateError::NoBaseline {
                path: path.to_owned(),
            }
        } else {
            GateError::Io {
                path: path.to_owned(),
                source,
            }
        }
    })
}

fn compare_trace(hook: &str, path: &Path, actual: &str) -> Result<(), GateError> {
    let expected = read_committed(path)?;
    let mut expected_lines = expected.lines();
    let mut actual_lines = actual.lines();
    let mut line = 0;
    loop {
        line += 1;
        match (expected_lines.next(), actual_lines.next()) {
            (None, None) => return Ok(()),
            (e, a) if e == a => {}
            (e, a) => {
                return Err(GateError::BehaviourChanged {
                    hook: hook.to_owned(),
                    path: path.to_owned(),
                    line,
                    expected: e.unwrap_or("<end>").to_owned(),
                    actual: a.unwrap_or("<end>").to_owned(),
                });
            }
        }
    }
}

fn read_baseline(path: &Path) -> Result<f64, GateError> {
    let text = read_committed(path)?;
    let bad = |message: &str| GateError::BadBaseline {
        path: path.to_owned(),
        message: message.to_owned(),
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
    value
        .get("instructions_per_step")
        .and_then(Value::as_f64)
        .ok_or_else(|| bad("no number under `instructions_per_step`"))
}

fn write(path: &Path, text: &str) -> Result<(), GateError> {
    std::fs::write(path, text).map_err(|source| GateError::Io {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_baseline_or_trace_says_to_run_update() {
        let dir = std::env::temp_dir().join(format!("hook-gate-missing-{}", std::process::id()));
        let count = dir.join("h.json");
        let trace = dir.join("h.trace.jsonl");
        for error in [
            read_baseline(&count).unwrap_err(),
            compare_trace("h", &trace, "a\n").unwrap_err(),
        ] {
            assert!(matches!(error, GateError::NoBaseline { .. }), "{error:?}");
            assert!(error.to_string().contains("run the gate with `--update`"));
        }
    }

    #[test]
    fn a_changed_trace_names_the_first_line_that_differs() {
        let dir = std::env::temp_dir().join(format!("hook-gate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("h.trace.jsonl");
        std::fs::write(&path, "a\nb\nc\n").unwrap();
        assert!(compare_trace("h", &path, "a\nb\nc\n").is_ok());
        match compare_trace("h", &path, "a\nx\nc\n") {
            Err(GateError::BehaviourChanged {
                line,
                expected,
                actual,
                ..
            }) => assert_eq!((line, expected.as_str(), actual.as_str()), (2, "b", "x")),
            other => panic!("unexpected {other:?}"),
        }
        match compare_trace("h", &path, "a\nb\n") {
            Err(GateError::BehaviourChanged {
                line,
                expected,
                actual,
                ..
            }) => assert_eq!(
                (line, expected.as_str(), actual.as_str()),
                (3, "c", "<end>")
            ),
            other => panic!("unexpected {other:?}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_baseline_says_to_write_one_with_update() {
        let error = read_baseline(Path::new("/nonexistent/hook.json")).unwrap_err();
        assert!(matches!(error, GateError::NoBaseline { .. }));
    }

    #[test]
    fn the_trace_of_a_hook_that_changes_state_differs_from_a_no_op_hooks() {
        let noop = HookGate::new("n", HookPoint::BeforeTool, super::super::noop());
        let writer = HookGate::new(
            "w",
            HookPoint::BeforeTool,
            crate::hook_fn(|state: &mut crate::State| state.set_stop_run("enough")),
        );
        assert_eq!(noop.trace(), noop.trace());
        assert_ne!(noop.trace(), writer.trace());
    }
}
