//! `explore` in child processes (`src/cli/isolate.rs`): an abort while a
//! file runs as written or while one variant runs costs that file or that
//! variant alone.
//!
//! Two passes, each a list of units handed to a child: first each file
//! (`PATH`: loaded, filtered, run as written, its variants listed), then
//! each variant of the explored files (`K:PATH`, the `K`-th of its
//! variants), checked, and minimized into the text of its variant file
//! when `--out` is given (the command writes it). A child keeps the last
//! file's variants, so each file is run as written once per child. Under
//! the Haystack engine, or when no child can be started, the same steps run
//! in this process.

use super::super::isolate::{self, Job, Line};
use super::super::output::out;
use crate::explore::{self, Explore, Space};
use crate::invariants::Invariant;
use crate::outcome::{ErrorKind, Status};
use crate::replay::Replay;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The exploration's settings, as the command line gives them to a child.
#[derive(Clone, Default, clap::Args)]
pub(in super::super) struct Settings {
    /// Vary the registration orders.
    #[arg(long)]
    pub(super) explore_orders: bool,
    /// Vary the answers.
    #[arg(long)]
    pub(super) explore_answers: bool,
    /// Inject faults.
    #[arg(long)]
    pub(super) explore_faults: bool,
    /// The most variants run.
    #[arg(long, default_value_t = explore::DEFAULT_MAX_VARIANTS as usize)]
    pub(super) explore_max_variants: usize,
    /// The sampling seed.
    #[arg(long)]
    pub(super) explore_seed: Option<u64>,
    /// The `--out` folder the variant files are written to.
    #[arg(long)]
    pub(super) explore_out: Option<PathBuf>,
}

impl Settings {
    fn config(&self) -> Explore {
        let mut config = Explore::new()
            .orders(self.explore_orders)
            .answers(self.explore_answers)
            .faults(self.explore_faults)
            .max_variants(self.explore_max_variants);
        if let Some(seed) = self.explore_seed {
            config = config.seed(seed);
        }
        config
    }

    /// The settings as the child's arguments.
    fn args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = Vec::new();
        for (on, flag) in [
            (self.explore_orders, "--explore-orders"),
            (self.explore_answers, "--explore-answers"),
            (self.explore_faults, "--explore-faults"),
        ] {
            if on {
                args.push(flag.into());
            }
        }
        args.push("--explore-max-variants".into());
        args.push(self.explore_max_variants.to_string().into());
        if let Some(seed) = self.explore_seed {
            args.push("--explore-seed".into());
            args.push(seed.to_string().into());
        }
        if let Some(out) = &self.explore_out {
            args.push("--explore-out".into());
            args.push(out.clone().into_os_string());
        }
        args
    }
}

/// One variant, as the report names it.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Named {
    /// Its number (1 is the scenario's own orders and answers).
    pub(super) number: usize,
    /// What differs from the scenario as written.
    pub(super) changes: Vec<String>,
    /// A fault is injected.
    pub(super) faulted: bool,
}

/// What the first pass found in a file.
#[derive(Serialize, Deserialize)]
pub(super) enum Prepared {
    /// Outside `--filter`.
    Filtered,
    /// Not a valid scenario.
    Invalid(String),
    /// It uses the `custom:` hook of this name.
    NeedsRust(String),
    /// Not explored, and why (its process ended).
    Ended(String),
    /// Explored: its variants.
    Explored(Summary),
}

/// A file's run as written and its variants.
#[derive(Serialize, Deserialize)]
pub(super) struct Summary {
    pub(super) size: u128,
    pub(super) sampled: Option<u64>,
    pub(super) passes_as_written: bool,
    /// The invariants the run as written breaks, by name.
    pub(super) by_design: Vec<String>,
    pub(super) variants: Vec<Named>,
}

/// What checking one variant found.
#[derive(Serialize, Deserialize)]
pub(super) enum Checked {
    /// It holds.
    Holds,
    /// It needs more than the file scripts (`what` to add), with the
    /// run's error.
    Unscripted { what: String, error: String },
    /// It broke: why, the invariants it broke, and the text of its
    /// minimal variant file under `--out`.
    Broken {
        reasons: Vec<String>,
        invariants: Vec<String>,
        text: Option<String>,
    },
}

/// The first pass over `files`; `each` sees each file's index and what
/// was found. Under `here` (the Haystack engine), in this process.
pub(super) fn prepare(
    files: &[PathBuf],
    filter: Option<&str>,
    settings: &Settings,
    here: Option<&Replay>,
    limit: Duration,
    mut each: impl FnMut(usize, Prepared),
) {
    let from = match here {
        Some(_) => 0,
        None => {
            let args = settings.args();
            let isolated =
                isolate::each_unit(files, Job::Explore, filter, &args, limit, |index, line| {
                    let prepared = match line {
                        Ok(Line::Skipped) => Prepared::Filtered,
                        Ok(Line::Done(json)) => serde_json::from_str(&json).unwrap_or_else(|e| {
                            Prepared::Ended(format!("its report did not read back ({e})"))
                        }),
                        Err(abort) => {
                            let path = files[index].display().to_string();
                            if abort.started.is_none()
                                && !super::super::filter::takes(filter, "", &path)
                            {
                                Prepared::Filtered
                            } else {
                                Prepared::Ended(abort.ended())
                            }
                        }
                    };
                    each(index, prepared);
                });
            isolated.err().unwrap_or(files.len())
        }
    };
    let fallback = Replay::new();
    let replay = here.unwrap_or(&fallback);
    for (index, file) in files.iter().enumerate().skip(from) {
        each(index, prepare_file(replay, settings, file, filter, |_| {}));
    }
}

/// The second pass over the `count` variants of `file`; `each` sees each
/// variant's index and what checking it found.
pub(super) fn check(
    file: &Path,
    count: usize,
    settings: &Settings,
    here: Option<&Replay>,
    limit: Duration,
    mut each: impl FnMut(usize, Checked),
) {
    let from = match here {
        Some(_) => 0,
        None => {
            let units: Vec<PathBuf> = (0..count).map(|k| isolate::unit(file, k)).collect();
            let args = settings.args();
            let isolated = isolate::each_unit(
                &units,
                Job::ExploreVariant,
                None,
                &args,
                limit,
                |k, line| {
                    let checked = match line {
                        Ok(Line::Done(json)) => serde_json::from_str(&json).unwrap_or_else(|e| {
                            failed(format!("its report did not read back ({e})"))
                        }),
                        Ok(Line::Skipped) => failed("it gave no report".to_owned()),
                        Err(abort) => failed(abort.ended()),
                    };
                    each(k, checked);
                },
            );
            isolated.err().unwrap_or(count)
        }
    };
    let fallback = Replay::new();
    let mut variants = Variants::new(here.unwrap_or(&fallback).clone(), settings.clone());
    for k in from..count {
        each(k, variants.check(file, k));
    }
}

/// A variant whose check ended without a report: broken, saying how.
fn failed(how: String) -> Checked {
    Checked::Broken {
        reasons: vec![format!("the run failed: {how}")],
        invariants: Vec::new(),
        text: None,
    }
}

/// The variant number and file of a unit.
fn from_unit(unit: &Path) -> Option<(usize, PathBuf)> {
    let text = isolate::path_bytes(unit);
    let colon = text.iter().position(|&b| b == b':')?;
    let k = std::str::from_utf8(&text[..colon]).ok()?.parse().ok()?;
    Some((k, isolate::path_from(&text[colon + 1..])))
}

/// A file loaded and run as written, and its variants.
struct Explored {
    scenario: Scenario,
    /// The invariants the run as written breaks.
    by_design: Vec<Invariant>,
    space: Space,
    /// The run as written passed.
    passes: bool,
}

/// Loads `file` and runs it as written; `Err` with what the first pass
/// reports instead.
fn explored(replay: &Replay, settings: &Settings, file: &Path) -> Result<Explored, Prepared> {
    let scenario = Scenario::from_path(file).map_err(|e| Prepared::Invalid(e.to_string()))?;
    let config = settings.config();
    let (as_written, by_design) = config.as_written(replay, &scenario);
    if as_written.status == Status::Invalid {
        let message = as_written.error.map(|e| e.message).unwrap_or_default();
        return Err(Prepared::Invalid(message));
    }
    if let Some(ErrorKind::UnregisteredHook { name }) = as_written.error.as_ref().map(|e| &e.kind) {
        return Err(Prepared::NeedsRust(name.clone()));
    }
    let space = config.variants(&scenario, &as_written);
    Ok(Explored {
        scenario,
        by_design,
        space,
        passes: as_written.status == Status::Pass,
    })
}

/// One file's first pass; `started` is told the scenario's name before it
/// runs.
fn prepare_file(
    replay: &Replay,
    settings: &Settings,
    file: &Path,
    filter: Option<&str>,
    started: impl FnOnce(&str),
) -> Prepared {
    let loaded = Scenario::from_path(file);
    let name = loaded.as_ref().map_or("", |s| s.name.as_str());
    if !super::super::filter::takes(filter, name, &file.display().to_string()) {
        return Prepared::Filtered;
    }
    started(name);
    match explored(replay, settings, file) {
        Ok(explored) => Prepared::Explored(Summary {
            size: explored.space.size,
            sampled: explored.space.sampled,
            passes_as_written: explored.passes,
            by_design: explored
                .by_design
                .iter()
                .map(|i| i.name().to_owned())
                .collect(),
            variants: explored
                .space
                .variants
                .iter()
                .map(|v| Named {
                    number: v.number,
                    changes: v.changes.clone(),
                    faulted: v.faulted,
                })
                .collect(),
        }),
        Err(prepared) => prepared,
    }
}

/// Checks variants, keeping the last file's.
struct Variants {
    replay: Replay,
    settings: Settings,
    file: Option<(PathBuf, Result<Explored, String>)>,
}

impl Variants {
    fn new(replay: Replay, settings: Settings) -> Variants {
        Variants {
            replay,
            settings,
            file: None,
        }
    }

    /// Checks variant `k` of `file`.
    fn check(&mut self, file: &Path, k: usize) -> Checked {
        if self.file.as_ref().is_none_or(|(f, _)| f != file) {
            let loaded = explored(&self.replay, &self.settings, file)
                .map_err(|_| "the file no longer loads or runs as it did".to_owned());
            self.file = Some((file.to_owned(), loaded));
        }
        let Some((_, Ok(explored))) = &self.file else {
            return failed("the file changed while explore ran".to_owned());
        };
        let (scenario, by_design) = (&explored.scenario, &explored.by_design);
        let Some(variant) = explored.space.variants.get(k) else {
            return failed(format!("the file has no variant {k} any more"));
        };
        let checked = explore::check(&self.replay, scenario, variant.clone(), by_design);
        if !checked.broken() {
            return Checked::Holds;
        }
        if let Some(needs) = checked.unscripted() {
            // The run's error, or the stale reply's `sees` failure (without
            // its advice to rebase: the scenario as written still holds).
            let error = match checked.outcome.error {
                Some(error) => error.message,
                None => checked
                    .outcome
                    .failures
                    .into_iter()
                    .next()
                    .map(
                        |f| match f.message.split_once("; if the change is intended") {
                            Some((kept, _)) => kept.to_owned(),
                            None => f.message,
                        },
                    )
                    .unwrap_or_default(),
            };
            return Checked::Unscripted {
                what: needs.what().to_owned(),
                error,
            };
        }
        let text = self.settings.explore_out.as_deref().map(|dir| {
            let shrunk = checked.minimize(&self.replay, scenario, by_design);
            // Its `python_path` must still reach the user's code from `dir`.
            let from = file
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            shrunk.relocated(from, dir).to_yaml()
        });
        let mut invariants: Vec<String> = checked
            .violations
            .iter()
            .map(|v| v.invariant.name().to_owned())
            .collect();
        invariants.dedup();
        Checked::Broken {
            reasons: checked.reasons,
            invariants,
            text,
        }
    }
}

/// The child's side of [`Job::Explore`]: each file's first pass.
pub(in super::super) fn worker_prepare(
    files: &[PathBuf],
    filter: Option<&str>,
    settings: &Settings,
) {
    let replay = Replay::new();
    for file in files {
        let started = |name: &str| {
            out!(">{}\n", serde_json::Value::String(name.to_owned()));
        };
        match prepare_file(&replay, settings, file, filter, started) {
            Prepared::Filtered => out!("-\n"),
            prepared => out!(
                "={}\n",
                serde_json::to_string(&prepared).unwrap_or_default()
            ),
        }
    }
}

/// The child's side of [`Job::ExploreVariant`]: each variant checked.
pub(in super::super) fn worker_check(units: &[PathBuf], settings: &Settings) {
    let mut variants = Variants::new(Replay::new(), settings.clone());
    for unit in units {
        let checked = match from_unit(unit) {
            Some((k, file)) => {
                out!(">\"\"\n");
                variants.check(&file, k)
            }
            None => failed(format!("not a variant: {}", unit.display())),
        };
        out!("={}\n", serde_json::to_string(&checked).unwrap_or_default());
    }
}
