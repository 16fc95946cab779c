//! The `hookharness` command line.
//!
//! Exit codes (see [`ExitCode`], the same for every command): 0 every
//! scenario passed, 1 a scenario failed, 2 a scenario file is invalid, 3 no
//! scenario was found, 4 the command line is wrong, 5 the report could not be
//! written, 141 the reader of stdout went away.

mod color;
mod discover;
mod drift;
mod engine;
mod explore;
mod filter;
#[cfg(feature = "proptest")]
mod generate;
mod import;
mod isolate;
mod mutate;
mod needs_rust;
mod output;
mod progress;
mod rebase;
#[cfg(feature = "http")]
mod record;
mod safe_write;
mod stream;

use crate::outcome::{Detail, Outcome, Status};
use crate::replay::Replay;
use crate::report::{Summary, explain as timeline, human_outcome};
use crate::scenario::{Scenario, ScenarioError};
use clap::{Parser, Subcommand, ValueEnum};
use output::{errln, out, outln};
use std::path::PathBuf;

/// The documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// Every scenario passed.
    Ok = 0,
    /// A scenario failed (or its run failed unexpectedly).
    Failed = 1,
    /// A scenario file is invalid.
    Invalid = 2,
    /// No scenario was found.
    NoScenarios = 3,
    /// The command line is wrong: an unknown option, a missing or bad value.
    Usage = 4,
    /// The report could not be written (a full disk, a closed stdout); the
    /// cause is on stderr.
    OutputFailed = 5,
    /// The reader of stdout went away (`| head -1`): the process stops
    /// quietly, with the status a shell gives a tool stopped by `SIGPIPE`.
    BrokenPipe = 141,
}

#[derive(Parser)]
#[command(
    name = "hookharness",
    version,
    about = "Replay scripted agent scenarios through Haystack 3.4.1's Agent loop"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour the report: `auto` on a terminal unless `NO_COLOR` is set.
    #[arg(long, global = true, value_enum, default_value_t = color::ColorChoice::Auto)]
    color: color::ColorChoice,
}

#[derive(Subcommand)]
enum Command {
    /// Replay scenario files or folders (recursive) and report.
    Run {
        /// Scenario files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Only scenarios whose name or file contains this text.
        #[arg(long)]
        filter: Option<String>,
        /// How much trace `--format json` writes: the contract's four event
        /// kinds, or every recorded event with the typed error and the
        /// failures' values (what `explain --outcome` reads).
        #[arg(long, value_enum, default_value_t = Trace::Summary)]
        trace: Trace,
        #[command(flatten)]
        engine: engine::EngineArgs,
    },
    /// Validate scenario files without running them (with `--engine
    /// haystack`, also import and build their Python code and Agent).
    Check {
        /// Scenario files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        engine: engine::EngineArgs,
    },
    /// Print a step-by-step timeline of one run, or of every saved outcome.
    Explain {
        /// One scenario file.
        #[arg(required_unless_present = "outcome", conflicts_with = "outcome")]
        file: Option<PathBuf>,
        /// Saved outcomes instead: a file of `run --format json --trace
        /// full` lines, each explained in turn.
        #[arg(long, value_name = "FILE")]
        outcome: Option<PathBuf>,
        /// With `--outcome`: only outcomes whose scenario name or file
        /// contains this text (as `run --filter` picks scenarios).
        #[arg(long)]
        filter: Option<String>,
        /// `text` for a terminal; `html` writes one self-contained page
        /// (no script, no network) to stdout.
        #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
        format: ExplainFormat,
        #[command(flatten)]
        engine: engine::EngineArgs,
    },
    /// Change each scenario's hooks, model script and tool results one at
    /// a time, and report the changes no expectation notices (the
    /// mutation score).
    Mutate(mutate::MutateArgs),
    /// Run every hook order, confirmation answer and (with `--faults`)
    /// fault of each scenario, checking the invariants and `expect.always`.
    Explore(explore::ExploreArgs),
    /// Run scenarios on the Haystack engine under two interpreters (two
    /// haystack-ai versions) and report, per scenario, the first place
    /// their outcomes differ, full trace included.
    Drift(drift::DriftArgs),
    /// Write a scenario skeleton from a Haystack Agent (`Agent.to_dict()`
    /// as JSON or YAML, or a pipeline file holding one).
    Import(import::ImportArgs),
    /// Rewrite the `sees` of a scenario's replies from its current run (after
    /// a change meant to send the model another conversation), and say what
    /// changed.
    Rebase(rebase::RebaseArgs),
    /// Print the JSON Schema of scenario files (editors read it for
    /// completion and checks; `schema/scenario.schema.json` is a copy).
    Schema,
    /// Run a scenario against a live OpenAI-compatible server and write a
    /// scenario whose `model` script holds the replies received.
    #[cfg(feature = "http")]
    Record(record::RecordArgs),
    /// Write scenarios generated over the whole scenario contract (for
    /// differential testing against Haystack: conformance/fuzz.sh).
    #[cfg(feature = "proptest")]
    Generate(generate::GenerateArgs),
    /// Internal: `run`'s and `check`'s files, handled in a child process
    /// (src/cli/isolate.rs).
    #[command(name = "__worker", hide = true)]
    Worker(isolate::WorkerArgs),
}

/// How `explain` writes the timeline.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ExplainFormat {
    Text,
    Html,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
    Junit,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Trace {
    Summary,
    Full,
}

/// Parses the arguments, runs the command, and returns the exit code.
pub fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            if let Err(write) = error.print() {
                output::exit_on_write_error(&write, "stdout");
            }
            let code = if error.use_stderr() {
                ExitCode::Usage
            } else {
                ExitCode::Ok
            };
            return std::process::ExitCode::from(code as u8);
        }
    };
    let machine = match &cli.command {
        Command::Run { format, .. } => !matches!(format, Format::Human),
        Command::Explain { format, .. } => *format == ExplainFormat::Html,
        Command::Mutate(args) => args.machine_format(),
        Command::Explore(args) => args.machine_format(),
        Command::Drift(args) => args.machine_format(),
        _ => false,
    };
    color::init(cli.color, machine);
    let code = match cli.command {
        Command::Run {
            paths,
            format,
            filter,
            trace,
            engine,
        } => run(&paths, format, filter.as_deref(), trace, &engine),
        Command::Check { paths, engine } => check(&paths, &engine),
        Command::Explain {
            file,
            outcome,
            filter,
            format,
            engine,
        } => match (file, outcome) {
            (_, Some(saved)) => explain_saved(&saved, filter.as_deref(), format),
            (Some(_), None) if filter.is_some() => {
                errln!(
                    "error: `--filter` picks among saved outcomes: use it with `--outcome FILE` (a scenario file is one run)"
                );
                ExitCode::Usage
            }
            (Some(file), None) => explain(&file, format, &engine),
            (None, None) => ExitCode::Usage,
        },
        Command::Import(args) => import::run(args),
        Command::Mutate(args) => mutate::run(args),
        Command::Rebase(args) => rebase::run(args),
        Command::Explore(args) => explore::run(args),
        Command::Drift(args) => drift::run(args),
        Command::Schema => {
            out!("{}", crate::schema::text());
            ExitCode::Ok
        }
        #[cfg(feature = "http")]
        Command::Record(args) => record::run(args),
        #[cfg(feature = "proptest")]
        Command::Generate(args) => generate::run(args),
        Command::Worker(args) => isolate::worker(args),
    };
    std::process::ExitCode::from(code as u8)
}

fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ExitCode> {
    let files = discover::discover(paths);
    if files.is_empty() {
        errln!("no scenario files (.yaml, .yml, .json) found under the given paths");
        return Err(ExitCode::NoScenarios);
    }
    Ok(files)
}

fn run(
    paths: &[PathBuf],
    format: Format,
    filter: Option<&str>,
    trace: Trace,
    engine: &engine::EngineArgs,
) -> ExitCode {
    let files = match files(paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    let detail = match trace {
        Trace::Summary => Detail::Summary,
        Trace::Full => Detail::Full,
    };
    let mut stream = stream::Stream::new(format, trace == Trace::Full, files.len());
    let engines = match engine.engines(Replay::new().detail(detail), "run") {
        Ok(engines) => engines,
        Err(code) => return code,
    };
    let mut outcomes = Vec::new();
    let mut report = |outcome: Option<Outcome>, done: usize| {
        match &outcome {
            Some(outcome) => stream.outcome(outcome, done),
            None => stream.skipped(done),
        }
        outcomes.extend(outcome);
    };
    // This crate's loop runs in child processes (src/cli/isolate.rs), on
    // its own and as the side `--engine both` compares (whose outcomes wait
    // here for the Haystack side): a file that ends its process costs only
    // its own outcome. The Haystack engine runs in its own worker already.
    let both = engine.engine == engine::Engine::Both;
    let mut ours: Vec<Option<Outcome>> = Vec::new();
    let mut from = 0;
    if engine.engine != engine::Engine::Haystack {
        let job = match trace {
            Trace::Summary => isolate::Job::Run,
            Trace::Full => isolate::Job::RunFull,
        };
        let limit = std::time::Duration::from_secs(engine.timeout.max(1));
        let isolated = isolate::each_file(&files, job, filter, limit, |index, line| {
            let outcome = isolated_outcome(&files[index], filter, line);
            if both {
                ours.push(outcome);
            } else {
                report(outcome, index + 1);
            }
        });
        // No child process could be started: the rest runs here.
        from = isolated.err().unwrap_or(files.len());
    }
    // On the Haystack engine the next file is read, and its request sent to
    // the worker, before the current one's record is read: the worker finds
    // it waiting when it finishes a scenario instead of waiting for this
    // side (`Engine::ahead`; each outcome is the same as one at a time).
    let ahead = engine.engine != engine::Engine::Rust;
    let start = if both { 0 } else { from };
    let mut ours = ours.into_iter();
    let mut next = files.get(start).map(|file| load_file(file, filter));
    for index in start..files.len() {
        let Some(loaded) = next.take() else { break };
        next = files.get(index + 1).map(|file| load_file(file, filter));
        if ahead {
            for scenario in [Some(&loaded), next.as_ref()].into_iter().flatten() {
                if let Loaded::Scenario(scenario) = scenario {
                    engines.ahead(scenario);
                }
            }
        }
        let outcome = match (index < from).then(|| ours.next()).flatten() {
            Some(rust) => against_haystack(&engines, rust, loaded),
            None => outcome_of(&engines, &files[index], loaded, |_| {}),
        };
        report(outcome, index + 1);
    }
    if outcomes.is_empty() {
        errln!("no scenario matches the filter");
        return ExitCode::NoScenarios;
    }
    let summary = Summary::of(&outcomes);
    stream.finish(&outcomes, &summary);
    exit_code(&summary)
}

/// The outcome a child process reported for `file` (`None`: the filter
/// skipped it), or the outcome of its process ending first.
fn isolated_outcome(
    file: &std::path::Path,
    filter: Option<&str>,
    line: Result<isolate::Line, isolate::Abort>,
) -> Option<Outcome> {
    match line {
        Ok(isolate::Line::Skipped) => None,
        Ok(isolate::Line::Done(json)) => {
            Some(Outcome::from_full_json(&json).unwrap_or_else(|error| {
                aborted(
                    file,
                    Some(String::new()),
                    &isolate::Abort {
                        started: None,
                        how: format!("its report did not read back ({error})"),
                        timed_out: false,
                    },
                )
            }))
        }
        Err(abort) => {
            let path = file.display().to_string();
            match abort.started.clone() {
                None if !filter::takes(filter, "", &path) => None,
                started => Some(aborted(file, started, &abort)),
            }
        }
    }
}

/// With `--engine both`: `rust`, the outcome a child process gave the
/// file, compared with the Haystack engine's run of it.
fn against_haystack(
    engines: &engine::Engines,
    rust: Option<Outcome>,
    loaded: Loaded,
) -> Option<Outcome> {
    let rust = rust?;
    match loaded {
        Loaded::Scenario(scenario) => {
            Some(engines.against_other(rust, |replay| replay.run(&scenario)))
        }
        Loaded::Invalid(_) | Loaded::Outside => Some(rust),
    }
}

/// The outcome of a file whose process ended before its report (`abort`
/// says how): `started` holds the scenario's name when its run had begun.
fn aborted(file: &std::path::Path, started: Option<String>, abort: &isolate::Abort) -> Outcome {
    aborted_then(
        file,
        started,
        abort,
        " The other scenarios ran in a new process.",
    )
}

/// [`aborted`], with `then` (what happened to the other scenarios) after
/// how the process ended.
fn aborted_then(
    file: &std::path::Path,
    started: Option<String>,
    abort: &isolate::Abort,
    then: &str,
) -> Outcome {
    let stem = || {
        file.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let (scenario, phase) = match started {
        Some(name) if !name.is_empty() => (name, "running"),
        Some(_) => (stem(), "running"),
        None => (stem(), "reading"),
    };
    Outcome {
        scenario,
        file: file.display().to_string(),
        status: Status::Error,
        failures: Vec::new(),
        error: Some(crate::outcome::RunError::aborted(format!(
            "{}: the process {phase} this scenario ended before its outcome: {}.{then}{}",
            file.display(),
            abort.how,
            bug_report(abort)
        ))),
        result: None,
        trace: Vec::new(),
    }
}

/// One pass per file: an invalid file becomes its outcome at once; a valid
/// one is prepared and run once. `each` sees every outcome as it is known,
/// and `None` for a file outside `filter`, with the count of files done.
#[cfg(test)]
fn replay_files(
    engines: &engine::Engines,
    files: &[PathBuf],
    filter: Option<&str>,
    mut each: impl FnMut(Option<&Outcome>, usize),
) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let outcome = replay_file(engines, file, filter, |_| {});
        each(outcome.as_ref(), i + 1);
        outcomes.extend(outcome);
    }
    outcomes
}

/// One file's outcome: an invalid file's at once, a valid one's after its
/// run (`started` is told its name first); `None` outside `filter`.
fn replay_file(
    engines: &engine::Engines,
    file: &std::path::Path,
    filter: Option<&str>,
    started: impl FnOnce(&str),
) -> Option<Outcome> {
    outcome_of(engines, file, load_file(file, filter), started)
}

/// A file as `run` reads it, before it runs.
enum Loaded {
    /// Outside the filter.
    Outside,
    /// A scenario to run.
    Scenario(Box<Scenario>),
    /// A file that does not load.
    Invalid(crate::scenario::ScenarioError),
}

/// Reads `file` for [`outcome_of`].
fn load_file(file: &std::path::Path, filter: Option<&str>) -> Loaded {
    let path = file.display().to_string();
    match Scenario::from_path(file) {
        Ok(scenario) if !filter::takes(filter, &scenario.name, &path) => Loaded::Outside,
        Ok(scenario) => Loaded::Scenario(Box::new(scenario)),
        Err(_) if !filter::takes(filter, "", &path) => Loaded::Outside,
        Err(error) => Loaded::Invalid(error),
    }
}

/// [`replay_file`] of a file already read.
fn outcome_of(
    engines: &engine::Engines,
    file: &std::path::Path,
    loaded: Loaded,
    started: impl FnOnce(&str),
) -> Option<Outcome> {
    match loaded {
        Loaded::Outside => None,
        Loaded::Scenario(scenario) => {
            started(&scenario.name);
            Some(engines.run(|replay| replay.run(&scenario)))
        }
        Loaded::Invalid(error) => Some(crate::replay::invalid_file(file, &error)),
    }
}

/// The exit code the outcomes' statuses give: an invalid file first, then
/// any failure or error.
fn exit_code(summary: &Summary) -> ExitCode {
    if summary.invalid > 0 {
        ExitCode::Invalid
    } else if summary.failed + summary.errors > 0 {
        ExitCode::Failed
    } else {
        ExitCode::Ok
    }
}

/// Seconds `check` gives one file (reading it and building its Agent)
/// before the child process checking it is killed: far above what any
/// file takes (a 20 MB recording is checked in a few seconds), so only a
/// check that never ends reaches it.
const CHECK_TIMEOUT: u64 = 120;

/// The request to report an abort as a bug; none after a time limit (a
/// scenario that does not end is the scenario's doing).
fn bug_report(abort: &isolate::Abort) -> &'static str {
    if abort.timed_out {
        ""
    } else {
        " No input should end the process: please report this file as a bug in hookharness"
    }
}

fn check(paths: &[PathBuf], engine: &engine::EngineArgs) -> ExitCode {
    let files = match files(paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    let haystack = match engine.engine {
        engine::Engine::Rust => None,
        engine::Engine::Haystack => match engine.start() {
            Ok(haystack) => Some(haystack),
            Err(code) => return code,
        },
        engine::Engine::Both => {
            errln!(
                "error: `--engine both` compares the engines in `hookharness run`; `check` takes `--engine rust` or `--engine haystack`"
            );
            return ExitCode::Usage;
        }
    };
    let mut invalid = 0;
    let mut needs_rust = 0;
    let mut needs_haystack = 0;
    let mut built = 0;
    let mut report = |index: usize, mut checked: FileCheck| {
        if let Some(haystack) = &haystack {
            if checked.errors.is_empty() && !checked.needs_rust {
                built += usize::from(haystack_check(haystack, &files[index], &mut checked));
            }
        }
        needs_rust += usize::from(checked.needs_rust);
        needs_haystack += usize::from(checked.needs_haystack);
        for note in checked.notes {
            outln!("{note}");
        }
        if !checked.errors.is_empty() {
            invalid += 1;
        }
        for error in checked.errors {
            outln!("{error}");
        }
    };
    let limit = std::time::Duration::from_secs(CHECK_TIMEOUT);
    let isolated = isolate::each_file(&files, isolate::Job::Check, None, limit, |index, line| {
        let file = files[index].display();
        let failed = |error: String| FileCheck {
            errors: vec![error],
            ..FileCheck::default()
        };
        report(
            index,
            match line {
                Ok(isolate::Line::Done(json)) => {
                    serde_json::from_str(&json).unwrap_or_else(|error| {
                        failed(format!(
                            "{file}: the check's report did not read back ({error})"
                        ))
                    })
                }
                Ok(isolate::Line::Skipped) => FileCheck::default(),
                Err(abort) => failed(format!(
                    "{file}: the process checking this file ended before its report: {}.{}",
                    abort.how,
                    bug_report(&abort)
                )),
            },
        );
    });
    if let Err(from) = isolated {
        let replay = Replay::new();
        for (index, file) in files.iter().enumerate().skip(from) {
            report(index, file_check(&replay, file));
        }
    }
    let valid = files.len() - invalid;
    let mut only = Vec::new();
    if needs_rust > 0 {
        only.push(format!("{needs_rust} only from a Rust test"));
    }
    if let Some(haystack) = &haystack {
        if built > 0 {
            only.push(format!(
                "{built} with Python code imported and built on haystack-ai {}",
                haystack.haystack_version()
            ));
        }
    } else if needs_haystack > 0 {
        only.push(format!("{needs_haystack} only with --engine haystack"));
    }
    if only.is_empty() {
        outln!("{valid} valid, {invalid} invalid");
    } else {
        outln!("{valid} valid ({}), {invalid} invalid", only.join(", "));
    }
    if invalid > 0 {
        ExitCode::Invalid
    } else {
        ExitCode::Ok
    }
}

/// What `check` says of one file: its errors (none when it is valid), and
/// the notes of a valid file that only a Rust test or the Haystack engine
/// runs.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct FileCheck {
    notes: Vec<String>,
    errors: Vec<String>,
    needs_rust: bool,
    needs_haystack: bool,
}

/// `check` of one file.
fn file_check(replay: &Replay, file: &std::path::Path) -> FileCheck {
    let scenario = match Scenario::from_path(file) {
        Err(error) => {
            return FileCheck {
                errors: vec![error.to_string()],
                ..FileCheck::default()
            };
        }
        Ok(scenario) => scenario,
    };
    let errors: Vec<String> = replay
        .file_errors(&scenario)
        .iter()
        .map(ToString::to_string)
        .collect();
    let mut checked = FileCheck::default();
    if errors.is_empty() {
        if let Some(note) = needs_rust::note(file, &scenario) {
            checked.needs_rust = true;
            checked.notes.push(note);
        }
        if let Some(name) = &scenario.agent.custom {
            checked.needs_haystack = true;
            checked.notes.push(format!(
                "{}: valid; its Agent is one your test registers (`agent.custom: {name}`): run it \
                 with pytest, your conftest.py's `hookharness_agents` fixture giving it \
                 (docs/pytest.md)",
                file.display()
            ));
        } else if scenario.needs_python() {
            checked.needs_haystack = true;
            checked.notes.push(format!(
                "{}: valid; it runs your Python code, which only the Haystack engine runs: \
                 `hookharness run {} --engine haystack`",
                file.display(),
                file.display()
            ));
        }
    }
    checked.errors = errors;
    checked
}

/// `check --engine haystack` of a file the Rust check found valid: its
/// Python code imported and its Agent built by the worker; the note of a
/// file with Python code says what was checked. `true` when a file with
/// Python code built.
fn haystack_check(
    haystack: &crate::engine::haystack::HaystackEngine,
    file: &std::path::Path,
    checked: &mut FileCheck,
) -> bool {
    // The child process read this file already: the loader's budgets hold.
    let scenario = match Scenario::from_path(file) {
        Ok(scenario) => scenario,
        Err(error) => {
            checked.errors.push(error.to_string());
            return false;
        }
    };
    let found = haystack.check(&scenario);
    checked.needs_haystack = false;
    checked.notes.clear();
    if !found.errors.is_empty() {
        checked.errors = found.errors.iter().map(ToString::to_string).collect();
        return false;
    }
    if !scenario.needs_python() {
        return false;
    }
    let mut did = Vec::new();
    if !found.imported.is_empty() {
        let targets: Vec<String> = found.imported.iter().map(|t| format!("`{t}`")).collect();
        did.push(format!("imported {}", targets.join(", ")));
    }
    if found.hooks > 0 {
        did.push(if found.hooks == 1 {
            "made 1 Python hook and registered it at its point".to_owned()
        } else {
            format!(
                "made {} Python hooks and registered each at its point",
                found.hooks
            )
        });
    }
    if !found.replaced.is_empty() {
        let targets: Vec<String> = found.replaced.iter().map(|t| format!("`{t}`")).collect();
        did.push(format!("scripted {}", targets.join(", ")));
    }
    if let Some(factory) = &found.factory {
        did.push(format!("called the factory `{factory}`"));
    }
    if found.agent {
        did.push("built the Agent".to_owned());
    }
    checked.notes.push(format!(
        "{}: valid on haystack-ai {}: {} (the network closed, every model scripted; the loop not run)",
        file.display(),
        haystack.haystack_version(),
        did.join(", ")
    ));
    true
}

fn explain(file: &std::path::Path, format: ExplainFormat, engine: &engine::EngineArgs) -> ExitCode {
    let lines = file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"));
    if lines {
        errln!(
            "{}: a JSON Lines file, not a scenario; if it holds saved outcomes (`hookharness run \
             --format json --trace full`), `hookharness explain --outcome {}` explains each",
            file.display(),
            file.display()
        );
        return ExitCode::Invalid;
    }
    let scenario = match Scenario::from_path(file).map_err(ScenarioError::for_one_file) {
        Ok(scenario) => scenario,
        Err(error) => {
            errln!("{error}");
            return ExitCode::Invalid;
        }
    };
    let replay = match engine.engines(Replay::new().detail(Detail::Full), "explain") {
        Ok(engines) => engines.main,
        Err(code) => return code,
    };
    // This crate's loop runs in a child process (src/cli/isolate.rs), so
    // that an abort still gives the outcome's explanation.
    let isolated = match run_in_child(file, &scenario, engine) {
        Isolated::Ran(outcome) | Isolated::Aborted(outcome) => Some(outcome),
        Isolated::InProcess => None,
    };
    let outcome = isolated.unwrap_or_else(|| replay.run(&scenario));
    if outcome.status == Status::Invalid {
        // Nothing ran: the file's errors, as `check` words them.
        if let Some(error) = &outcome.error {
            errln!("{error}");
        }
        return ExitCode::Invalid;
    }
    print_explained(&outcome, format)
}

/// How a run of one file in a child process went ([`run_in_child`]).
enum Isolated {
    /// The child gave the outcome (its full trace).
    Ran(Outcome),
    /// The child ended before it (an abort or the time limit), as `run`
    /// reports it.
    Aborted(Outcome),
    /// The engine is Haystack's (its worker is a process already), or no
    /// child could be started: the caller runs the file itself.
    InProcess,
}

/// Runs `file` (holding `scenario`) on this crate's loop in a child
/// process, killed past `--timeout`, so that a command working on one file
/// reports an abort or a run that does not end instead of ending with it.
fn run_in_child(
    file: &std::path::Path,
    scenario: &Scenario,
    engine: &engine::EngineArgs,
) -> Isolated {
    if engine.engine != engine::Engine::Rust {
        return Isolated::InProcess;
    }
    let limit = std::time::Duration::from_secs(engine.timeout.max(1));
    let files = [file.to_owned()];
    let mut isolated = Isolated::InProcess;
    let started = isolate::each_file(&files, isolate::Job::RunFull, None, limit, |_, line| {
        let abort = |how: String| isolate::Abort {
            started: Some(scenario.name.clone()),
            how,
            timed_out: false,
        };
        let abort = match line {
            Ok(isolate::Line::Done(json)) => match Outcome::from_full_json(&json) {
                Ok(outcome) => {
                    isolated = Isolated::Ran(outcome);
                    return;
                }
                Err(error) => abort(format!("its report did not read back ({error})")),
            },
            Ok(isolate::Line::Skipped) => abort("it gave no outcome".to_owned()),
            Err(abort) => abort,
        };
        isolated = Isolated::Aborted(aborted_then(file, abort.started.clone(), &abort, ""));
    });
    if started.is_err() {
        return Isolated::InProcess;
    }
    isolated
}

/// `explain --outcome FILE`: every line of a `run --format json --trace
/// full` output that `filter` takes, in order, as `explain` prints each
/// scenario, a blank line between two. The file is read whole first, so a
/// line that is not an outcome explains nothing.
fn explain_saved(path: &std::path::Path, filter: Option<&str>, format: ExplainFormat) -> ExitCode {
    // A FIFO or a device is never opened (it may block), as for a scenario.
    if let Ok(Some(what)) = crate::scenario::not_regular(path) {
        errln!(
            "{}: not a regular file ({what}); pass a saved outcome file, which \
             `hookharness run --format json --trace full SCENARIO` writes",
            path.display()
        );
        return ExitCode::Invalid;
    }
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => {
            errln!("{}: cannot read the saved outcome: {error}", path.display());
            return ExitCode::Invalid;
        }
    };
    // A byte order mark is read past, as in a scenario file.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut outcomes = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match Outcome::from_full_json(line) {
            Ok(outcome) => outcomes.push(outcome),
            Err(error) => {
                // serde_json's own "at line 1 column N" is replaced by the
                // place in the file.
                let reason = error.to_string();
                let reason = reason
                    .rsplit_once(" at line ")
                    .map_or(reason.as_str(), |(reason, _)| reason);
                errln!(
                    "{}:{}:{}: line {} is not a saved outcome ({reason}); write one with `hookharness run --format json --trace full SCENARIO`",
                    path.display(),
                    index + 1,
                    error.column().max(1),
                    index + 1
                );
                return ExitCode::Invalid;
            }
        }
    }
    if outcomes.is_empty() {
        errln!(
            "{}: no outcome in the file; write one with `hookharness run --format json --trace full SCENARIO > {}`",
            path.display(),
            path.display()
        );
        return ExitCode::Invalid;
    }
    outcomes.retain(|o| filter::takes(filter, &o.scenario, &o.file));
    if outcomes.is_empty() {
        errln!("no saved outcome matches the filter");
        return ExitCode::NoScenarios;
    }
    if format == ExplainFormat::Html && outcomes.len() > 1 {
        errln!(
            "{}: `--format html` writes one page, and {} outcomes are to be explained; pick one with `--filter NAME`",
            path.display(),
            outcomes.len()
        );
        return ExitCode::Usage;
    }
    let mut code = ExitCode::Ok;
    for (i, outcome) in outcomes.iter().enumerate() {
        if i > 0 {
            outln!();
        }
        if print_explained(outcome, format) != ExitCode::Ok {
            code = ExitCode::Failed;
        }
    }
    code
}

fn print_explained(outcome: &Outcome, format: ExplainFormat) -> ExitCode {
    if format == ExplainFormat::Html {
        out!("{}", crate::report::explain_html(outcome));
    } else {
        out!("{}", timeline(outcome));
        outln!();
        out!("{}", human_outcome(outcome));
    }
    if outcome.passed() {
        ExitCode::Ok
    } else {
        ExitCode::Failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::{Hook, HookError, HookPoint};
    use crate::state::State;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts Agent builds: the builder asks each hook where it may be
    /// registered, once per registration.
    #[derive(Default)]
    struct CountsBuilds(AtomicUsize);

    impl Hook for CountsBuilds {
        fn run(&self, _: &mut State) -> Result<(), HookError> {
            Ok(())
        }

        fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
            self.0.fetch_add(1, Ordering::SeqCst);
            None
        }
    }

    #[test]
    fn each_scenario_is_read_once_and_its_agent_built_once() {
        let dir = std::env::temp_dir().join(format!("hookharness-one-pass-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("counted.yaml");
        std::fs::write(
            &file,
            "hooks: {before_llm: [{custom: counted}]}\nmodel: [{text: hi}]\n",
        )
        .unwrap();
        let invalid = dir.join("invalid.yaml");
        std::fs::write(&invalid, "model: [{txt: hi}]\n").unwrap();
        let counter = Arc::new(CountsBuilds::default());
        let replay = Replay::new().custom_hook_arc("counted", counter.clone());

        let engines = engine::Engines {
            main: replay,
            other: None,
        };
        let outcomes = replay_files(&engines, &[file, invalid], None, |_, _| {});
        std::fs::remove_dir_all(&dir).unwrap();

        assert_eq!(counter.0.load(Ordering::SeqCst), 1);
        let statuses: Vec<Status> = outcomes.iter().map(|o| o.status).collect();
        assert_eq!(statuses, [Status::Pass, Status::Invalid]);
        assert_eq!(exit_code(&Summary::of(&outcomes)), ExitCode::Invalid);
    }
}
