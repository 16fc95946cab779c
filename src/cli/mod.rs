//! The `hookharness` command line.
//!
//! Exit codes (see [`ExitCode`], the same for every command): 0 every
//! scenario passed, 1 a scenario failed, 2 a scenario file is invalid, 3 no
//! scenario was found, 4 the command line is wrong, 5 the report could not be
//! written, 141 the reader of stdout went away.

mod discover;
mod explain;
#[cfg(feature = "proptest")]
mod generate;
mod import;
mod output;
#[cfg(feature = "http")]
mod record;
mod stream;

use crate::replay::{Outcome, Replay};
use crate::report::Summary;
use crate::scenario::Scenario;
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
    },
    /// Validate scenario files without running them.
    Check {
        /// Scenario files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Print a step-by-step timeline of one run.
    Explain {
        /// One scenario file.
        file: PathBuf,
    },
    /// Write a scenario skeleton from a Haystack Agent (`Agent.to_dict()`
    /// as JSON or YAML, or a pipeline file holding one).
    Import(import::ImportArgs),
    /// Run a scenario against a live OpenAI-compatible server and write a
    /// scenario whose `model` script holds the replies received.
    #[cfg(feature = "http")]
    Record(record::RecordArgs),
    /// Write scenarios generated over the whole scenario contract (for
    /// differential testing against Haystack: conformance/fuzz.sh).
    #[cfg(feature = "proptest")]
    Generate(generate::GenerateArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
    Junit,
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
    let code = match cli.command {
        Command::Run {
            paths,
            format,
            filter,
        } => run(&paths, format, filter.as_deref()),
        Command::Check { paths } => check(&paths),
        Command::Explain { file } => explain(&file),
        Command::Import(args) => import::run(args),
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

fn run(paths: &[PathBuf], format: Format, filter: Option<&str>) -> ExitCode {
    let files = match files(paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    let replay = Replay::new();
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut invalid = false;
    let mut stream = stream::Stream::new(format);
    for (i, file) in files.iter().enumerate() {
        let outcome = match Scenario::from_path(file) {
            Ok(mut scenario) => {
                if filter.is_some_and(|f| {
                    !scenario.name.contains(f) && !file.display().to_string().contains(f)
                }) {
                    stream.progress(i + 1, files.len());
                    continue;
                }
                scenario.file = Some(file.clone());
                if replay.validate(&scenario).is_err() {
                    invalid = true;
                }
                replay.run(&scenario)
            }
            Err(_) => {
                if filter.is_some_and(|f| !file.display().to_string().contains(f)) {
                    stream.progress(i + 1, files.len());
                    continue;
                }
                invalid = true;
                replay.run_file(file)
            }
        };
        stream.outcome(&outcome, i + 1, files.len());
        outcomes.push(outcome);
    }
    if outcomes.is_empty() {
        errln!("no scenario matches the filter");
        return ExitCode::NoScenarios;
    }
    let summary = Summary::of(&outcomes);
    stream.finish(&outcomes, &summary);
    if invalid {
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
    let replay = Replay::new();
    for file in &files {
        let checked = Scenario::from_path(file)
            .map_err(|error| error.to_string())
            .and_then(|scenario| replay.validate(&scenario));
        if let Err(error) = checked {
            invalid += 1;
            outln!("{error}");
        }
    }
    outln!("{} valid, {invalid} invalid", files.len() - invalid);
    if invalid > 0 {
        ExitCode::Invalid
    } else {
        ExitCode::Ok
    }
}

fn explain(file: &std::path::Path) -> ExitCode {
    let scenario = match Scenario::from_path(file) {
        Ok(scenario) => scenario,
        Err(error) => {
            errln!("{error}");
            return ExitCode::Invalid;
        }
    };
    let mut timeline = explain::Timeline::default();
    let outcome = Replay::new().run_observed(&scenario, &mut timeline);
    out!("{}", timeline.text);
    outln!();
    out!("{}", explain::verdict(&outcome));
    if outcome.passed() {
        ExitCode::Ok
    } else {
        ExitCode::Failed
    }
}
