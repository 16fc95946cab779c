//! The `hookharness` command line.
//!
//! Exit codes (see [`ExitCode`], the same for every command): 0 every
//! scenario passed, 1 a scenario failed, 2 a scenario file is invalid, 3 no
//! scenario was found, 4 the command line is wrong, 5 the report could not be
//! written, 141 the reader of stdout went away.

mod color;
mod construction;
mod discover;
mod explore;
mod filter;
#[cfg(feature = "proptest")]
mod generate;
mod import;
mod mutate;
mod needs_rust;
mod output;
mod progress;
mod rebase;
#[cfg(feature = "http")]
mod record;
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
    },
    /// Validate scenario files without running them.
    Check {
        /// Scenario files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
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
    },
    /// Change each scenario's hooks, model script and tool results one at
    /// a time, and report the changes no expectation notices (the
    /// mutation score).
    Mutate(mutate::MutateArgs),
    /// Run every hook order, confirmation answer and (with `--faults`)
    /// fault of each scenario, checking the invariants and `expect.always`.
    Explore(explore::ExploreArgs),
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
        _ => false,
    };
    color::init(cli.color, machine);
    let code = match cli.command {
        Command::Run {
            paths,
            format,
            filter,
            trace,
        } => run(&paths, format, filter.as_deref(), trace),
        Command::Check { paths } => check(&paths),
        Command::Explain {
            file,
            outcome,
            filter,
            format,
        } => match (file, outcome) {
            (_, Some(saved)) => explain_saved(&saved, filter.as_deref(), format),
            (Some(_), None) if filter.is_some() => {
                errln!(
                    "error: `--filter` picks among saved outcomes: use it with `--outcome FILE` (a scenario file is one run)"
                );
                ExitCode::Usage
            }
            (Some(file), None) => explain(&file, format),
            (None, None) => ExitCode::Usage,
        },
        Command::Import(args) => import::run(args),
        Command::Mutate(args) => mutate::run(args),
        Command::Rebase(args) => rebase::run(args),
        Command::Explore(args) => explore::run(args),
        Command::Schema => {
            out!("{}", crate::schema::text());
            ExitCode::Ok
        }
        #[cfg(feature = "http")]
        Command::Record(args) => record::run(args),
        #[cfg(feature = "proptest")]
        Command::Generate(args) => generate::run(args),
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

fn run(paths: &[PathBuf], format: Format, filter: Option<&str>, trace: Trace) -> ExitCode {
    let files = match files(paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    let detail = match trace {
        Trace::Summary => Detail::Summary,
        Trace::Full => Detail::Full,
    };
    let mut stream = stream::Stream::new(format, trace == Trace::Full, files.len());
    let replay = Replay::new().detail(detail);
    let outcomes = replay_files(&replay, &files, filter, |outcome, done| match outcome {
        Some(outcome) => stream.outcome(outcome, done),
        None => stream.skipped(done),
    });
    if outcomes.is_empty() {
        errln!("no scenario matches the filter");
        return ExitCode::NoScenarios;
    }
    let summary = Summary::of(&outcomes);
    stream.finish(&outcomes, &summary);
    exit_code(&summary)
}

/// One pass per file: an invalid file becomes its outcome at once; a valid
/// one is prepared and run once. `each` sees every outcome as it is known,
/// and `None` for a file outside `filter`, with the count of files done.
fn replay_files(
    replay: &Replay,
    files: &[PathBuf],
    filter: Option<&str>,
    mut each: impl FnMut(Option<&Outcome>, usize),
) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let path = file.display().to_string();
        let outcome = match Scenario::from_path(file) {
            Ok(scenario) if !filter::takes(filter, &scenario.name, &path) => None,
            Ok(scenario) => Some(construction::checked(
                replay,
                file,
                &scenario,
                replay.run(&scenario),
            )),
            Err(_) if !filter::takes(filter, "", &path) => None,
            Err(error) => Some(crate::replay::invalid_file(file, &error)),
        };
        each(outcome.as_ref(), i + 1);
        outcomes.extend(outcome);
    }
    outcomes
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

fn check(paths: &[PathBuf]) -> ExitCode {
    let files = match files(paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    let mut invalid = 0;
    let mut needs_rust = 0;
    let replay = Replay::new();
    for file in &files {
        let errors = match Scenario::from_path(file) {
            Err(error) => vec![error.to_string()],
            Ok(scenario) => {
                let errors = construction::file_errors(&replay, file, &scenario);
                if let (true, Some(note)) = (errors.is_empty(), needs_rust::note(file, &scenario)) {
                    needs_rust += 1;
                    outln!("{note}");
                }
                errors
            }
        };
        if !errors.is_empty() {
            invalid += 1;
        }
        for error in errors {
            outln!("{error}");
        }
    }
    let valid = files.len() - invalid;
    if needs_rust > 0 {
        outln!("{valid} valid ({needs_rust} only from a Rust test), {invalid} invalid");
    } else {
        outln!("{valid} valid, {invalid} invalid");
    }
    if invalid > 0 {
        ExitCode::Invalid
    } else {
        ExitCode::Ok
    }
}

fn explain(file: &std::path::Path, format: ExplainFormat) -> ExitCode {
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
    let replay = Replay::new().detail(Detail::Full);
    let outcome = construction::checked(&replay, file, &scenario, replay.run(&scenario));
    if outcome.status == Status::Invalid {
        // Nothing ran: the file's errors, as `check` words them.
        if let Some(error) = &outcome.error {
            errln!("{error}");
        }
        return ExitCode::Invalid;
    }
    print_explained(&outcome, format)
}

/// `explain --outcome FILE`: every line of a `run --format json --trace
/// full` output that `filter` takes, in order, as `explain` prints each
/// scenario, a blank line between two. The file is read whole first, so a
/// line that is not an outcome explains nothing.
fn explain_saved(path: &std::path::Path, filter: Option<&str>, format: ExplainFormat) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => {
            errln!("{}: cannot read the saved outcome: {error}", path.display());
            return ExitCode::Invalid;
        }
    };
    let mut outcomes = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match Outcome::from_full_json(line) {
            Ok(outcome) => outcomes.push(outcome),
            Err(error) => {
                errln!(
                    "{}: line {} is not a saved outcome ({error}); write one with `hookharness run --format json --trace full SCENARIO`",
                    path.display(),
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

        let outcomes = replay_files(&replay, &[file, invalid], None, |_, _| {});
        std::fs::remove_dir_all(&dir).unwrap();

        assert_eq!(counter.0.load(Ordering::SeqCst), 1);
        let statuses: Vec<Status> = outcomes.iter().map(|o| o.status).collect();
        assert_eq!(statuses, [Status::Pass, Status::Invalid]);
        assert_eq!(exit_code(&Summary::of(&outcomes)), ExitCode::Invalid);
    }
}
