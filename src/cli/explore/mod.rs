//! `hookharness explore`: every hook order, confirmation answer and
//! (with `--faults`) fault of each scenario, checked against the
//! invariants and `expect.always` (see [`crate::explore`]).
//!
//! For each file: a line with the variant count and how many broke, then
//! each broken variant, what differs and why it broke; with `--out DIR`,
//! each broken variant is written there as a scenario file that `run` and
//! `explain` replay. Nothing on stdout depends on the clock or the machine;
//! the progress bar goes to stderr, on a terminal only.

use super::output::{errln, outln};
use super::progress::Progress;
use super::safe_write::{self, Refused};
use super::{ExitCode, files};
mod isolated;

pub(super) use isolated::{Settings, worker_check, worker_prepare};

use crate::explore;
use crate::replay::Replay;
use isolated::{Checked, Named, Prepared, Summary};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// `hookharness explore` arguments.
#[derive(clap::Args)]
pub(super) struct ExploreArgs {
    #[command(flatten)]
    engine: super::engine::EngineArgs,
    /// Scenario files or folders (recursive).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Vary only the registration order of the hooks (and their points).
    #[arg(long)]
    orders: bool,
    /// Vary only the answers of scripted confirmation UIs.
    #[arg(long)]
    answers: bool,
    /// Also inject one fault per variant: a tool call, a model call or a
    /// hook run that fails, at each place the scenario reaches.
    #[arg(long)]
    faults: bool,
    /// Run every variant up to this many; beyond, sample this many with
    /// the seed (printed).
    #[arg(long, value_name = "N", default_value_t = explore::DEFAULT_MAX_VARIANTS,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_variants: u32,
    /// The sampling seed (default: derived from each scenario's name).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Write each broken variant to this folder as a scenario file
    /// (`<stem>.variant-<n>.yaml`; scenarios of the same stem in different
    /// folders are told apart by their folders' names).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Overwrite variant files that already exist in `--out`.
    #[arg(long, requires = "out")]
    force: bool,
    /// Only scenarios whose name or file contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// `human`: a block per file; `json`: one document with every broken
    /// variant, for CI.
    #[arg(long, value_enum, default_value_t = ExploreFormat::Human)]
    format: ExploreFormat,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ExploreFormat {
    Human,
    Json,
}

impl ExploreArgs {
    /// The report is for machines (no colour).
    pub(super) fn machine_format(&self) -> bool {
        self.format == ExploreFormat::Json
    }
}

/// A file to explore: its run as written and its variants.
struct Explored {
    file: PathBuf,
    /// The name its variant files start with, unique among the files.
    stem: String,
    summary: Summary,
}

/// A file to explore, or why not.
enum Entry {
    Explored(Box<Explored>),
    Invalid(String),
    /// It uses a `custom:` hook, which the command line does not have, or
    /// its process ended while it ran as written.
    NotExplored(String),
}

/// 0 when no variant broke, 1 when one did (or a scenario fails as
/// written, or uses a `custom:` hook), 2 when a file is invalid, 3 when no
/// scenario was found or matched, 4 when a variant file is refused (it
/// exists and `--force` is not given, or it is a link), 5 when `--out`
/// cannot be written.
pub(super) fn run(args: ExploreArgs) -> ExitCode {
    let files = match files(&args.paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    // Neither dimension named: both; faults only when asked.
    let both = !args.orders && !args.answers;
    let settings = Settings {
        explore_orders: both || args.orders,
        explore_answers: both || args.answers,
        explore_faults: args.faults,
        explore_max_variants: args.max_variants as usize,
        explore_seed: args.seed,
        explore_out: args.out.clone(),
    };
    if let Some(dir) = &args.out {
        if let Err(error) = std::fs::create_dir_all(dir) {
            errln!("{}: cannot create the --out folder: {error}", dir.display());
            return ExitCode::OutputFailed;
        }
    }
    let replay = match args.engine.engines(Replay::new(), "explore") {
        Ok(engines) => engines.main,
        Err(code) => return code,
    };
    // This crate's loop runs in child processes (isolated.rs); the Haystack
    // engine runs in its own worker already.
    let here = (args.engine.engine != super::engine::Engine::Rust).then_some(&replay);
    let limit = std::time::Duration::from_secs(args.engine.timeout.max(1));
    let mut entries = Vec::new();
    let filter = args.filter.as_deref();
    isolated::prepare(&files, filter, &settings, here, limit, |index, prepared| {
        let file = &files[index];
        entries.push(match prepared {
            Prepared::Filtered => return,
            Prepared::Invalid(message) => Entry::Invalid(message),
            Prepared::NeedsRust(name) => Entry::NotExplored(super::needs_rust::message(
                file,
                &name,
                "explore",
                "hookharness::explore::Explore",
            )),
            Prepared::Ended(how) => {
                Entry::NotExplored(format!("{}: not explored: {how}", file.display()))
            }
            Prepared::Explored(summary) => Entry::Explored(Box::new(Explored {
                file: file.clone(),
                stem: String::new(),
                summary,
            })),
        });
    });
    if entries.is_empty() {
        errln!("no scenario matches the filter");
        return ExitCode::NoScenarios;
    }

    name_variants(&mut entries);
    let total = entries
        .iter()
        .map(|e| match e {
            Entry::Explored(explored) => explored.summary.variants.len(),
            Entry::Invalid(_) | Entry::NotExplored(_) => 0,
        })
        .sum();
    let mut progress = Progress::new("variants", total);
    let mut reports = Vec::new();
    let mut invalid = Vec::new();
    let mut needs_rust = Vec::new();
    for entry in entries {
        let explored = match entry {
            Entry::Explored(explored) => *explored,
            Entry::Invalid(message) => {
                progress.clear();
                if args.format == ExploreFormat::Human {
                    outln!("{message}");
                }
                invalid.push(message);
                continue;
            }
            Entry::NotExplored(message) => {
                progress.clear();
                if args.format == ExploreFormat::Human {
                    outln!("{message}");
                }
                needs_rust.push(message);
                continue;
            }
        };
        let out = args.out.as_deref().map(|dir| Out {
            dir,
            force: args.force,
            inputs: &files,
        });
        let report = match explore_file(explored, &settings, here, limit, out, &mut progress) {
            Ok(report) => report,
            Err(refused) => {
                progress.clear();
                errln!("{}", refused.message);
                return refused.code;
            }
        };
        if args.format == ExploreFormat::Human {
            human(&report, settings.explore_faults);
        }
        reports.push(report);
    }
    drop(progress);
    let variants: usize = reports.iter().map(|r| r.count).sum();
    let broken: usize = reports.iter().map(|r| r.broken.len()).sum();
    let unscripted: usize = reports.iter().map(|r| r.unscripted.len()).sum();
    match args.format {
        ExploreFormat::Human if unscripted > 0 => outln!(
            "explored {variants} variants: {broken} broken, {unscripted} {} the script \
             (add a reply, a result or an answer to explore {})",
            if unscripted == 1 { "leaves" } else { "leave" },
            if unscripted == 1 { "it" } else { "them" }
        ),
        ExploreFormat::Human => outln!("explored {variants} variants: {broken} broken"),
        ExploreFormat::Json => outln!(
            "{}",
            document(
                &reports,
                &invalid,
                &needs_rust,
                variants,
                broken,
                unscripted
            )
        ),
    }
    if !invalid.is_empty() {
        ExitCode::Invalid
    } else if broken > 0 || !needs_rust.is_empty() || reports.iter().any(|r| !r.passes_as_written) {
        ExitCode::Failed
    } else {
        ExitCode::Ok
    }
}

/// What exploring one file found.
struct FileReport {
    file: PathBuf,
    count: usize,
    faults: usize,
    size: u128,
    sampled: Option<u64>,
    passes_as_written: bool,
    by_design: Vec<String>,
    broken: Vec<BrokenReport>,
    /// The variants that leave the script (not broken: the file does not
    /// say what happens there).
    unscripted: Vec<UnscriptedReport>,
}

/// A variant whose run needs more than the file scripts.
struct UnscriptedReport {
    variant: Named,
    /// What to add to the file to explore it.
    needs: String,
    /// The run's error, which says what ran out.
    error: String,
}

/// One broken variant.
struct BrokenReport {
    variant: Named,
    reasons: Vec<String>,
    invariants: Vec<String>,
    written: Option<PathBuf>,
}

/// Where broken variants are written: the `--out` folder, whether
/// existing files may be replaced, and every file the command explores
/// (none of which a variant file may be).
#[derive(Clone, Copy)]
struct Out<'a> {
    dir: &'a Path,
    force: bool,
    inputs: &'a [PathBuf],
}

/// Runs and checks every variant of one file, writing the broken ones to
/// `out`; `Err` when one is refused or cannot be written (the variants
/// after it are not written).
fn explore_file(
    explored: Explored,
    settings: &Settings,
    here: Option<&Replay>,
    limit: std::time::Duration,
    out: Option<Out<'_>>,
    progress: &mut Progress,
) -> Result<FileReport, Refused> {
    let Explored {
        file,
        stem,
        summary,
    } = explored;
    let count = summary.variants.len();
    let faults = summary.variants.iter().filter(|v| v.faulted).count();
    let mut broken = Vec::new();
    let mut unscripted = Vec::new();
    let mut refused = None;
    isolated::check(&file, count, settings, here, limit, |k, checked| {
        progress.advance();
        let variant = summary.variants[k].clone();
        match checked {
            Checked::Holds => {}
            Checked::Unscripted { what, error } => unscripted.push(UnscriptedReport {
                variant,
                needs: what,
                error,
            }),
            Checked::Broken {
                reasons,
                invariants,
                text,
            } => {
                let written = match (out, text) {
                    (Some(out), Some(text)) if refused.is_none() => {
                        match write(out, &stem, &text, variant.number) {
                            Ok(path) => Some(path),
                            Err(error) => {
                                refused = Some(error);
                                None
                            }
                        }
                    }
                    _ => None,
                };
                broken.push(BrokenReport {
                    variant,
                    reasons,
                    invariants,
                    written,
                });
            }
        }
    });
    progress.clear();
    if let Some(refused) = refused {
        return Err(refused);
    }
    Ok(FileReport {
        file,
        count,
        faults,
        size: summary.size,
        sampled: summary.sampled,
        passes_as_written: summary.passes_as_written,
        by_design: summary.by_design,
        broken,
        unscripted,
    })
}

/// A count of orders and answers as the report says it: the count itself,
/// or "more than 10^38" where it saturated (past what 128 bits hold).
fn shown_size(size: u128) -> String {
    if size == u128::MAX {
        "more than 10^38".to_owned()
    } else {
        size.to_string()
    }
}

fn human(report: &FileReport, faults: bool) {
    let path = report.file.display();
    let combined = report.count - report.faults;
    let mut how = match report.sampled {
        None => format!("every one of {combined} orders and answers"),
        Some(seed) => format!(
            "{combined} of {} orders and answers, sampled with seed {seed}: --seed {seed} repeats them",
            shown_size(report.size)
        ),
    };
    if faults {
        how.push_str(&format!("; {} faults", report.faults));
    }
    let leaving = match report.unscripted.len() {
        0 => String::new(),
        1 => ", 1 leaves the script".to_owned(),
        n => format!(", {n} leave the script"),
    };
    outln!(
        "{path}: {} variants ({how}), {} broken{leaving}",
        report.count,
        report.broken.len()
    );
    if !report.passes_as_written {
        outln!("  as written, the scenario does not pass: `hookharness run {path}` shows why");
    }
    if !report.by_design.is_empty() {
        let names: Vec<&str> = report.by_design.iter().map(String::as_str).collect();
        outln!(
            "  as written, the scenario breaks {} (not checked on its variants)",
            names.join(", ")
        );
    }
    for broken in &report.broken {
        outln!(
            "  variant {}: {}",
            broken.variant.number,
            changes(&broken.variant)
        );
        for reason in &broken.reasons {
            for line in reason.lines() {
                outln!("    {line}");
            }
        }
        if let Some(written) = &broken.written {
            outln!("    written: {}", written.display());
        }
    }
    for left in &report.unscripted {
        outln!(
            "  variant {}: {}",
            left.variant.number,
            changes(&left.variant)
        );
        outln!(
            "    leaves the script: add {} to explore it ({})",
            left.needs,
            left.error
        );
    }
}

/// `--format json`: one document for CI.
fn document(
    reports: &[FileReport],
    invalid: &[String],
    needs_rust: &[String],
    variants: usize,
    broken: usize,
    unscripted: usize,
) -> Value {
    let files: Vec<Value> = reports
        .iter()
        .map(|r| {
            let broken: Vec<Value> = r
                .broken
                .iter()
                .map(|b| {
                    json!({
                        "variant": b.variant.number,
                        "changes": b.variant.changes,
                        "faulted": b.variant.faulted,
                        "reasons": b.reasons,
                        "invariants": b.invariants,
                        "written": b.written.as_ref().map(|w| w.display().to_string()),
                    })
                })
                .collect();
            json!({
                "file": r.file.display().to_string(),
                "variants": r.count,
                "faults": r.faults,
                "orders_and_answers": u64::try_from(r.size).unwrap_or(u64::MAX),
                "seed": r.sampled,
                "passes_as_written": r.passes_as_written,
                "by_design": r.by_design,
                "broken": broken,
                "leaves_script": r.unscripted.iter().map(|u| json!({
                    "variant": u.variant.number,
                    "changes": u.variant.changes,
                    "add": u.needs,
                    "error": u.error,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "variants": variants,
        "broken": broken,
        "leaves_script": unscripted,
        "files": files,
        "invalid": invalid,
        "not_explored": needs_rust,
    })
}

fn changes(variant: &Named) -> String {
    if variant.changes.is_empty() {
        "as written".to_owned()
    } else {
        variant.changes.join("; ")
    }
}

/// Writes a broken variant as `DIR/<stem>.variant-<n>.yaml`, with the
/// rules every command writes by: an existing file only with `force`,
/// never a link, never an explored file (nor a hard link to one).
fn write(out: Out<'_>, stem: &str, text: &str, number: usize) -> Result<PathBuf, Refused> {
    let path = out.dir.join(format!("{stem}.variant-{number}.yaml"));
    let inputs: Vec<&Path> = out.inputs.iter().map(PathBuf::as_path).collect();
    let named = safe_write::Named::Chosen {
        what: "the variant",
        by: "explore",
        folder: "--out",
    };
    safe_write::prepare_new(&path, named, &inputs, out.force)?.commit(text)?;
    Ok(path)
}

/// Names the variant files of each explored file: its stem, or, when
/// files in different folders share a stem, its path from the folder they
/// all are in, with `-` between the folders (`a/x.yaml`, `b/x.yaml`:
/// `a-x`, `b-x`, however the paths were given), and a count after a name
/// still taken.
fn name_variants(entries: &mut [Entry]) {
    let stem_of = |file: &Path| {
        file.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scenario".to_owned())
    };
    // The folders a file is in, from the root (an absolute path, so that
    // `a/x.yaml` and `/here/b/x.yaml` share `/here`).
    let folders_of = |file: &Path| -> Vec<String> {
        let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_owned());
        absolute
            .parent()
            .into_iter()
            .flat_map(Path::components)
            .filter_map(|c| match c {
                std::path::Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    };
    let explored: Vec<(String, Vec<String>)> = entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::Explored(explored) => {
                Some((stem_of(&explored.file), folders_of(&explored.file)))
            }
            _ => None,
        })
        .collect();
    // For each stem, how many files have it and the leading folders all of
    // them share (left out of their names).
    let mut shared: std::collections::HashMap<&str, (usize, &[String])> =
        std::collections::HashMap::new();
    for (stem, folders) in &explored {
        let group = shared.entry(stem).or_insert((0, folders));
        let common = group
            .1
            .iter()
            .zip(folders)
            .take_while(|(a, b)| a == b)
            .count();
        *group = (group.0 + 1, &group.1[..common]);
    }
    let mut taken = std::collections::HashSet::new();
    let mut names = explored.iter();
    for entry in entries.iter_mut() {
        let Entry::Explored(explored) = entry else {
            continue;
        };
        let Some((stem, folders)) = names.next() else {
            continue;
        };
        let (files, common) = shared[stem.as_str()];
        let mut name = if files > 1 {
            folders[common.len()..]
                .iter()
                .chain([stem])
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join("-")
        } else {
            stem.clone()
        };
        let base = name.clone();
        let mut count = 1;
        while !taken.insert(name.clone()) {
            count += 1;
            name = format!("{base}-{count}");
        }
        explored.stem = name;
    }
}
