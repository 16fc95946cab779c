//! The `hookharness` command line.
//!
//! Exit codes (see [`ExitCode`]): 0 every scenario passed, 1 a scenario
//! failed, 2 a scenario file is invalid, 3 no scenario was found.

mod discover;
mod explain;
#[cfg(feature = "http")]
mod record;

use crate::replay::{Outcome, Replay};
use crate::report::{Summary, human_outcome, human_summary, junit};
use crate::scenario::Scenario;
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    /// Run a scenario against a live OpenAI-compatible server and write a
    /// scenario whose `model` script holds the replies received.
    #[cfg(feature = "http")]
    Record(record::RecordArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
    Junit,
}

/// Parses the arguments, runs the command, and returns the exit code.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Run {
            paths,
            format,
            filter,
        } => run(&paths, format, filter.as_deref()),
        Command::Check { paths } => check(&paths),
        Command::Explain { file } => explain(&file),
        #[cfg(feature = "http")]
        Command::Record(args) => record::run(args),
    };
    std::process::ExitCode::from(code as u8)
}

fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ExitCode> {
    match discover::discover(paths) {
        Ok(files) if files.is_empty() => {
            eprintln!("no scenario files (.yaml, .yml, .json) found under the given paths");
            Err(ExitCode::NoScenarios)
        }
        Ok(files) => Ok(files),
        Err(message) => {
            eprintln!("{message}");
            Err(ExitCode::NoScenarios)
        }
    }
}

fn run(paths: &[PathBuf], format: Format, filter: Option<&str>) -> ExitCode {
    let files = match files(paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    let replay = Replay::new();
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut invalid = false;
    let started = Instant::now();
    let progress = std::io::stderr().is_terminal();
    for (i, file) in files.iter().enumerate() {
        let outcome = match Scenario::from_path(file) {
            Ok(mut scenario) => {
                if filter.is_some_and(|f| {
                    !scenario.name.contains(f) && !file.display().to_string().contains(f)
                }) {
                    continue;
                }
                scenario.file = Some(file.clone());
                replay.run(&scenario)
            }
            Err(_) => {
                if filter.is_some_and(|f| !file.display().to_string().contains(f)) {
                    continue;
                }
                invalid = true;
                replay.run_file(file)
            }
        };
        outcomes.push(outcome);
        if progress && started.elapsed() > Duration::from_millis(300) {
            eprint!("\rrunning scenarios: {}/{}", i + 1, files.len());
        }
    }
    if progress && started.elapsed() > Duration::from_millis(300) {
        eprint!("\r\x1b[2K");
    }
    if outcomes.is_empty() {
        eprintln!("no scenario matches the filter");
        return ExitCode::NoScenarios;
    }
    let mut stdout = std::io::stdout().lock();
    let summary = Summary::of(&outcomes);
    let written = match format {
        Format::Json => outcomes
            .iter()
            .try_for_each(|o| writeln!(stdout, "{}", o.to_json_line())),
        Format::Junit => write!(stdout, "{}", junit(&outcomes)),
        Format::Human => outcomes
            .iter()
            .try_for_each(|o| write!(stdout, "{}", human_outcome(o)))
            .and_then(|()| writeln!(stdout, "\n{}", human_summary(&summary))),
    };
    if written.is_err() {
        return ExitCode::Failed;
    }
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
    for file in &files {
        if let Err(error) = Scenario::from_path(file) {
            invalid += 1;
            println!("{error}");
        }
    }
    println!("{} valid, {invalid} invalid", files.len() - invalid);
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
            eprintln!("{error}");
            return ExitCode::Invalid;
        }
    };
    let mut timeline = explain::Timeline::default();
    let outcome = Replay::new().run_observed(&scenario, &mut timeline);
    print!("{}", timeline.text);
    println!();
    print!("{}", explain::verdict(&outcome));
    if outcome.passed() {
        ExitCode::Ok
    } else {
        ExitCode::Failed
    }
}
