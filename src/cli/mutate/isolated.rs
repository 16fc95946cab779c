//! `mutate` in child processes (`src/cli/isolate.rs`): an abort while a
//! file's unmutated run or one mutant runs costs that file or that mutant
//! alone.
//!
//! Two passes, each a list of units handed to a child: first each file
//! (`PATH`: loaded, filtered, its unmutated run), then each mutant of the
//! files that pass (`K:PATH`, the `K`-th of [`mutate::mutants`]). A child
//! keeps the last file's mutants and unmutated run, so each file is loaded
//! and run once per child. When no child can be started, the rest runs in
//! this process, the same way.

use super::super::filter;
use super::super::isolate::{self, Job, Line};
use super::super::output::out;
use super::{Skipped, not_mutated};
use crate::mutate::{self, Baseline, Mutant, Oracle, Verdict};
use crate::replay::Replay;
use crate::scenario::Scenario;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the first pass found in a file.
pub(super) enum Prepared {
    /// Outside `--filter`.
    Filtered,
    /// Not mutated, and why.
    Skipped(Skipped),
    /// Its unmutated run passes: its mutants are judged.
    Green,
}

/// A mutant's verdict, or how the process judging it ended (counted as
/// killed: the mutant's run did not end well).
pub(super) struct Judged {
    /// The verdict.
    pub(super) verdict: Verdict,
    /// How the process ended, when it ended while the mutant ran.
    pub(super) aborted: Option<String>,
}

/// The first pass over `files`; under `here` (the Haystack engine), in
/// this process.
pub(super) fn prepare(
    files: &[PathBuf],
    filter: Option<&str>,
    here: Option<&Replay>,
    limit: Duration,
    mut each: impl FnMut(usize, Prepared),
) {
    if let Some(replay) = here {
        for (index, file) in files.iter().enumerate() {
            each(index, prepare_file(replay, file, filter, |_| {}));
        }
        return;
    }
    let isolated = isolate::each_file(files, Job::Mutate, filter, limit, |index, line| {
        let prepared = match line {
            Ok(Line::Skipped) => Prepared::Filtered,
            Ok(Line::Done(json)) => read_prepared(&files[index], &json),
            Err(abort) => {
                let path = files[index].display().to_string();
                if abort.started.is_none() && !filter::takes(filter, "", &path) {
                    Prepared::Filtered
                } else {
                    Prepared::Skipped(Skipped::NotGreen(format!(
                        "{path}: not mutated: {}",
                        abort.ended()
                    )))
                }
            }
        };
        each(index, prepared);
    });
    let from = isolated.err().unwrap_or(files.len());
    let replay = Replay::new();
    for (index, file) in files.iter().enumerate().skip(from) {
        each(index, prepare_file(&replay, file, filter, |_| {}));
    }
}

/// The second pass: each mutant, given as its file and its number among
/// the file's mutants, judged by `oracle`; under `here` (the Haystack
/// engine), in this process.
pub(super) fn judge(
    mutants: &[(PathBuf, usize)],
    oracle: Oracle,
    here: Option<&Replay>,
    limit: Duration,
    mut each: impl FnMut(usize, Judged),
) {
    if let Some(replay) = here {
        let mut judge = Judge::new(replay.clone(), oracle);
        for (index, (file, k)) in mutants.iter().enumerate() {
            each(index, judged(judge.verdict(file, *k)));
        }
        return;
    }
    let units: Vec<PathBuf> = mutants
        .iter()
        .map(|(file, k)| isolate::unit(file, *k))
        .collect();
    let job = match oracle {
        Oracle::Outcome => Job::MutateOutcome,
        _ => Job::MutateExpect,
    };
    let isolated = isolate::each_file(&units, job, None, limit, |index, line| {
        let judged = match line {
            Ok(Line::Done(json)) => match serde_json::from_str::<String>(&json) {
                Ok(name) => judged(name),
                Err(error) => Judged {
                    verdict: Verdict::Killed,
                    aborted: Some(format!("its verdict did not read back ({error})")),
                },
            },
            Ok(Line::Skipped) => Judged {
                verdict: Verdict::Killed,
                aborted: Some("no verdict was given".to_owned()),
            },
            Err(abort) => Judged {
                verdict: Verdict::Killed,
                aborted: Some(abort.ended()),
            },
        };
        each(index, judged);
    });
    let from = isolated.err().unwrap_or(units.len());
    let mut here = Judge::new(Replay::new(), oracle);
    for (index, (file, k)) in mutants.iter().enumerate().skip(from) {
        each(index, judged(here.verdict(file, *k)));
    }
}

/// The mutant number and file of a unit.
fn from_unit(unit: &Path) -> Option<(usize, PathBuf)> {
    let text = isolate::path_bytes(unit);
    let colon = text.iter().position(|&b| b == b':')?;
    let k = std::str::from_utf8(&text[..colon]).ok()?.parse().ok()?;
    Some((k, isolate::path_from(&text[colon + 1..])))
}

/// A verdict by its name; any other text (why it could not be judged)
/// counts as killed, with the text.
fn judged(name: String) -> Judged {
    let verdict = [
        Verdict::Killed,
        Verdict::Survived,
        Verdict::Unviable,
        Verdict::NotReached,
        Verdict::Equivalent,
    ]
    .into_iter()
    .find(|v| v.as_str() == name);
    match verdict {
        Some(verdict) => Judged {
            verdict,
            aborted: None,
        },
        None => Judged {
            verdict: Verdict::Killed,
            aborted: Some(name),
        },
    }
}

/// The first pass's line for one file, as JSON.
fn prepared_value(prepared: &Prepared) -> Value {
    match prepared {
        Prepared::Filtered | Prepared::Green => json!({}),
        Prepared::Skipped(Skipped::Invalid(m)) => json!({"invalid": m}),
        Prepared::Skipped(Skipped::NotGreen(m)) => json!({"not_green": m}),
        Prepared::Skipped(Skipped::NeedsRust(m)) => json!({"needs_rust": m}),
    }
}

fn read_prepared(file: &Path, json: &str) -> Prepared {
    let value: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    if let Some(m) = text("invalid") {
        Prepared::Skipped(Skipped::Invalid(m))
    } else if let Some(m) = text("not_green") {
        Prepared::Skipped(Skipped::NotGreen(m))
    } else if let Some(m) = text("needs_rust") {
        Prepared::Skipped(Skipped::NeedsRust(m))
    } else if value.is_object() {
        Prepared::Green
    } else {
        Prepared::Skipped(Skipped::NotGreen(format!(
            "{}: not mutated: its report did not read back",
            file.display()
        )))
    }
}

/// One file's first pass in this process; `started` is told the
/// scenario's name before its unmutated run.
fn prepare_file(
    replay: &Replay,
    file: &Path,
    filter: Option<&str>,
    started: impl FnOnce(&str),
) -> Prepared {
    let loaded = Scenario::from_path(file);
    let name = loaded.as_ref().map_or("", |s| s.name.as_str());
    if !filter::takes(filter, name, &file.display().to_string()) {
        return Prepared::Filtered;
    }
    match loaded {
        Ok(scenario) => {
            started(&scenario.name);
            match mutate::baseline(replay, &scenario) {
                Ok(_) => Prepared::Green,
                Err(not_green) => Prepared::Skipped(not_mutated(file, not_green)),
            }
        }
        Err(error) => Prepared::Skipped(Skipped::Invalid(error.to_string())),
    }
}

/// A file's mutants and unmutated run, or why there are none.
type Mutated = Result<(Vec<Mutant>, Baseline), String>;

/// Judges mutants, keeping the last file's mutants and unmutated run.
struct Judge {
    replay: Replay,
    oracle: Oracle,
    file: Option<(PathBuf, Mutated)>,
}

impl Judge {
    fn new(replay: Replay, oracle: Oracle) -> Judge {
        Judge {
            replay,
            oracle,
            file: None,
        }
    }

    /// The verdict's name of mutant `k` of `file`, or why there is none.
    fn verdict(&mut self, file: &Path, k: usize) -> String {
        if self.file.as_ref().is_none_or(|(f, _)| f != file) {
            let prepared = Scenario::from_path(file)
                .map_err(|e| e.to_string())
                .and_then(|scenario| {
                    let baseline =
                        mutate::baseline(&self.replay, &scenario).map_err(|e| e.to_string())?;
                    Ok((mutate::mutants(&scenario), baseline))
                });
            self.file = Some((file.to_owned(), prepared));
        }
        match self.file.as_ref().map(|(_, p)| p) {
            Some(Ok((mutants, baseline))) => match mutants.get(k) {
                Some(mutant) => mutate::judge(&self.replay, mutant, baseline, self.oracle)
                    .as_str()
                    .to_owned(),
                None => format!("the file has no mutant {k} any more: it changed while mutate ran"),
            },
            Some(Err(error)) => format!("the file no longer loads or passes: {error}"),
            None => String::new(),
        }
    }
}

/// The child's side of [`Job::Mutate`]: each file's first pass.
pub(in super::super) fn worker_prepare(files: &[PathBuf], filter: Option<&str>) {
    let replay = Replay::new();
    for file in files {
        let started = |name: &str| {
            out!(">{}\n", Value::String(name.to_owned()));
        };
        match prepare_file(&replay, file, filter, started) {
            Prepared::Filtered => out!("-\n"),
            prepared => out!("={}\n", prepared_value(&prepared)),
        }
    }
}

/// The child's side of [`Job::MutateExpect`] and [`Job::MutateOutcome`]:
/// each unit's verdict, as a JSON string.
pub(in super::super) fn worker_judge(units: &[PathBuf], oracle: Oracle) {
    let mut judge = Judge::new(Replay::new(), oracle);
    for unit in units {
        let verdict = match from_unit(unit) {
            Some((k, file)) => {
                out!(">\"\"\n");
                judge.verdict(&file, k)
            }
            None => format!("not a mutant: {}", unit.display()),
        };
        out!("={}\n", Value::String(verdict));
    }
}
