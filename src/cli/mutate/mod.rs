//! `hookharness mutate`: the mutation score of a corpus (see
//! [`crate::mutate`]). Each surviving mutant is printed as
//! `FILE:LINE:COLUMN: survived: WHAT (PLACE)`, the way a compiler points at
//! a line, then `mutation score: K/N killed`; under `--killed-by outcome`,
//! which kills every mutant that changes the outcome, each equivalent one
//! (`FILE:LINE:COLUMN: equivalent: WHAT (PLACE)`) instead.

use super::output::{out, outln};
use super::progress::Progress;
use super::{ExitCode, files};
mod isolated;

pub(super) use isolated::{worker_judge, worker_prepare};

use crate::mutate::{self, Mutant, NotGreen, Oracle, Score, Verdict};
use crate::outcome::ErrorKind;
use crate::replay::Replay;
use isolated::{Judged, Prepared};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// `hookharness mutate` arguments.
#[derive(clap::Args)]
pub(super) struct MutateArgs {
    #[command(flatten)]
    engine: super::engine::EngineArgs,
    /// Scenario files or folders (recursive).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// `human`: the survivors and the score; `json`: one document with
    /// every mutant's verdict, for CI.
    #[arg(long, value_enum, default_value_t = MutateFormat::Human)]
    format: MutateFormat,
    /// Only scenarios whose name or file contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// What kills a mutant: `expect`, the scenario's expectations (it
    /// fails); `outcome`, any difference in the outcome a snapshot holds
    /// (every mutant is then killed or equivalent, and the report lists
    /// the equivalent ones).
    #[arg(long, value_enum, default_value_t = KilledBy::Expect)]
    killed_by: KilledBy,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum KilledBy {
    Expect,
    Outcome,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum MutateFormat {
    Human,
    Json,
}

impl MutateArgs {
    /// The report is for machines (no colour).
    pub(super) fn machine_format(&self) -> bool {
        self.format == MutateFormat::Json
    }
}

/// Why a file gave no mutants.
enum Skipped {
    /// The file is not a valid scenario.
    Invalid(String),
    /// The scenario does not pass as written.
    NotGreen(String),
    /// It uses a `custom:` hook, which the command line does not have.
    NeedsRust(String),
}

impl Skipped {
    fn message(&self) -> &str {
        match self {
            Skipped::Invalid(m) | Skipped::NotGreen(m) | Skipped::NeedsRust(m) => m,
        }
    }
}

/// Why the unmutated run of `file` did not pass, as the report says it: an
/// invalid file in `check`'s words, a `custom:` hook as `explore` says it.
fn not_mutated(file: &Path, not_green: NotGreen) -> Skipped {
    match not_green.outcome.error.clone().map(|e| (e.kind, e.message)) {
        Some((ErrorKind::Invalid, message)) => Skipped::Invalid(message),
        Some((ErrorKind::UnregisteredHook { name }, _)) => Skipped::NeedsRust(
            super::needs_rust::message(file, &name, "mutate", "hookharness::mutate::run"),
        ),
        _ => {
            let path = file.display();
            Skipped::NotGreen(format!(
                "{path}: not mutated: {not_green} (`hookharness run {path}` shows why)"
            ))
        }
    }
}

/// 0 when every viable mutant was killed, 1 when one survived or a scenario
/// does not pass as written, 2 when a file is invalid, 3 when no scenario
/// was found or matched.
pub(super) fn run(args: MutateArgs) -> ExitCode {
    let files = match files(&args.paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    let replay = match args.engine.engines(Replay::new(), "mutate") {
        Ok(engines) => engines.main,
        Err(code) => return code,
    };
    // This crate's loop runs in child processes (isolated.rs); the Haystack
    // engine runs in its own worker already.
    let here = (args.engine.engine != super::engine::Engine::Rust).then_some(&replay);
    let limit = std::time::Duration::from_secs(args.engine.timeout.max(1));
    let mut green = Vec::new();
    let mut skipped = Vec::new();
    let mut matched = 0;
    isolated::prepare(
        &files,
        args.filter.as_deref(),
        here,
        limit,
        |index, prepared| {
            match prepared {
                Prepared::Filtered => return,
                Prepared::Skipped(skip) => skipped.push(skip),
                Prepared::Green => green.push(index),
            }
            matched += 1;
        },
    );
    if matched == 0 {
        super::output::errln!("no scenario matches the filter");
        return ExitCode::NoScenarios;
    }
    // The files that pass as written ran in a child process: loading them
    // here is safe, and gives the same mutants in the same order.
    let mut mutants: Vec<Mutant> = Vec::new();
    let mut units = Vec::new();
    for index in green {
        match crate::scenario::Scenario::from_path(&files[index]) {
            Ok(scenario) => {
                let found = mutate::mutants(&scenario);
                units.extend((0..found.len()).map(|k| (files[index].clone(), k)));
                mutants.extend(found);
            }
            Err(error) => skipped.push(Skipped::Invalid(error.to_string())),
        }
    }

    let oracle = match args.killed_by {
        KilledBy::Expect => Oracle::Expectations,
        KilledBy::Outcome => Oracle::Outcome,
    };
    let mut progress = Progress::new("mutants", mutants.len());
    let mut judged = Vec::with_capacity(mutants.len());
    isolated::judge(&units, oracle, here, limit, |_, one| {
        judged.push(one);
        progress.advance();
    });
    progress.clear();

    let score = Score::of(judged.iter().map(|j| &j.verdict));
    // What the report lists: what the oracle did not kill, and each mutant
    // whose process ended.
    let listed = match args.killed_by {
        KilledBy::Expect => Verdict::Survived,
        KilledBy::Outcome => Verdict::Equivalent,
    };
    match args.format {
        MutateFormat::Human => human(&mutants, &judged, &skipped, &score, listed),
        MutateFormat::Json => outln!("{}", document(&mutants, &judged, &skipped, &score)),
    }
    if skipped.iter().any(|s| matches!(s, Skipped::Invalid(_))) {
        ExitCode::Invalid
    } else if score.survived > 0
        || !skipped.is_empty()
        || judged.iter().any(|j| j.aborted.is_some())
    {
        ExitCode::Failed
    } else {
        ExitCode::Ok
    }
}

/// `FILE:LINE:COLUMN` of a mutant (the file alone when the position is
/// unknown).
fn location(mutant: &Mutant) -> String {
    let file = mutant
        .file()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    match mutant.position {
        Some((line, column)) => format!("{file}:{line}:{column}"),
        None => file,
    }
}

fn human(
    mutants: &[Mutant],
    judged: &[Judged],
    skipped: &[Skipped],
    score: &Score,
    listed: Verdict,
) {
    for skip in skipped {
        outln!("{}", skip.message());
    }
    for (mutant, one) in mutants.iter().zip(judged) {
        if let Some(how) = &one.aborted {
            outln!(
                "{}: killed: {} ({}): {how}",
                location(mutant),
                mutant.description,
                mutant.place
            );
        } else if one.verdict == listed {
            outln!(
                "{}: {}: {} ({})",
                location(mutant),
                one.verdict.as_str(),
                mutant.description,
                mutant.place
            );
        }
    }
    out!("mutation score: {}/{} killed", score.killed, score.viable());
    let uncounted = [
        (score.unviable, "unviable"),
        (score.not_reached, "not reached"),
        (score.equivalent, "equivalent"),
    ];
    let uncounted: Vec<String> = uncounted
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, what)| format!("{count} {what}"))
        .collect();
    if !uncounted.is_empty() {
        out!(" ({})", uncounted.join(", "));
    }
    outln!();
}

fn document(mutants: &[Mutant], judged: &[Judged], skipped: &[Skipped], score: &Score) -> Value {
    let mutants: Vec<Value> = mutants
        .iter()
        .zip(judged)
        .map(|(mutant, one)| {
            let mut entry = json!({
                "file": mutant.file().map(|f| f.display().to_string()),
                "line": mutant.position.map(|p| p.0),
                "column": mutant.position.map(|p| p.1),
                "place": mutant.place,
                "operator": mutant.operator.as_str(),
                "description": mutant.description,
                "verdict": one.verdict.as_str(),
            });
            if let Some(how) = &one.aborted {
                entry["aborted"] = Value::String(how.clone());
            }
            entry
        })
        .collect();
    let (invalid, not_green): (Vec<&Skipped>, Vec<&Skipped>) = skipped
        .iter()
        .partition(|s| matches!(s, Skipped::Invalid(_)));
    let messages = |list: Vec<&Skipped>| -> Vec<String> {
        list.into_iter().map(|s| s.message().to_owned()).collect()
    };
    json!({
        "score": {
            "killed": score.killed,
            "survived": score.survived,
            "unviable": score.unviable,
            "not_reached": score.not_reached,
            "equivalent": score.equivalent,
        },
        "mutants": mutants,
        "invalid": messages(invalid),
        "not_green": messages(not_green),
    })
}
