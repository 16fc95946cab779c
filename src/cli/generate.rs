//! `hookharness generate`: write generated scenarios to a folder.

use super::ExitCode;
use super::output::{errln, outln};
use super::safe_write::{self, Named};
use crate::scenario::Scenario;
use crate::strategies::contract_scenarios;
use clap::{Args, ValueEnum};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::PathBuf;

/// Options of `hookharness generate`.
#[derive(Args)]
pub(super) struct GenerateArgs {
    /// The folder to write to (created when missing).
    #[arg(long)]
    out: PathBuf,
    /// How many scenarios.
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// The seed; a random one (printed) when not given. A seed and an index
    /// always give the same scenario.
    #[arg(long)]
    seed: Option<u64>,
    /// The index of the first scenario (to regenerate part of a campaign).
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// The file format.
    #[arg(long, value_enum, default_value_t = FileFormat::Yaml)]
    format: FileFormat,
    /// Overwrite scenario files that already exist in `--out`.
    #[arg(long)]
    force: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum FileFormat {
    Yaml,
    Json,
}

/// A generated scenario the strategy could not build (it rejected too many
/// draws).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("scenario {index} of seed {seed} could not be generated: {reason}")]
pub(crate) struct GenerateError {
    seed: u64,
    index: u64,
    reason: String,
}

/// The scenario of `seed` at `index`: a runner of its own per scenario, so
/// that any one of a campaign can be regenerated alone.
pub(crate) fn scenario_at(seed: u64, index: u64) -> Result<Scenario, GenerateError> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&index.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let mut scenario = contract_scenarios()
        .new_tree(&mut runner)
        .map_err(|reason| GenerateError {
            seed,
            index,
            reason: reason.to_string(),
        })?
        .current();
    scenario.name = format!("generated-{seed}-{index}");
    scenario.description = Some(format!(
        "hookharness generate --seed {seed} --start {index} --count 1"
    ));
    Ok(scenario)
}

pub(super) fn run(args: GenerateArgs) -> ExitCode {
    let seed = args.seed.unwrap_or_else(random_seed);
    let extension = match args.format {
        FileFormat::Yaml => "yaml",
        FileFormat::Json => "json",
    };
    // The last index is in range or the command line is wrong: a range
    // that stops at the largest index would write fewer than asked.
    let indices = match args.count.checked_sub(1) {
        None => None,
        Some(more) => match args.start.checked_add(more) {
            Some(last) => Some(args.start..=last),
            None => {
                errln!(
                    "--start {} with --count {} goes past the last index ({}); give at most --count {}",
                    args.start,
                    args.count,
                    u64::MAX,
                    u64::MAX - args.start + 1
                );
                return ExitCode::Usage;
            }
        },
    };
    let path_of = |index: u64| {
        args.out
            .join(format!("generated_{seed}_{index:06}.{extension}"))
    };
    // As every writing command: an existing file only with --force, never
    // through a link, a whole file or none. Every file is checked before
    // the first is written (and before `--out` is made), so a refusal
    // leaves nothing written; a folder not made yet holds none of them.
    let named = Named::Chosen {
        what: "the scenario file",
        by: "generate",
        folder: "--out",
    };
    if args.out.is_dir() {
        for index in indices.clone().into_iter().flatten() {
            if let Err(refused) = safe_write::check_new(&path_of(index), named, &[], args.force) {
                errln!("{}", refused.message);
                return refused.code;
            }
        }
    }
    if let Err(error) = std::fs::create_dir_all(&args.out) {
        errln!("cannot create {}: {error}", args.out.display());
        return ExitCode::OutputFailed;
    }
    let mut written = 0u64;
    for index in indices.into_iter().flatten() {
        let scenario = match scenario_at(seed, index) {
            Ok(scenario) => scenario,
            Err(error) => {
                errln!("{error}");
                return ExitCode::Failed;
            }
        };
        let text = match args.format {
            FileFormat::Yaml => scenario.to_yaml(),
            FileFormat::Json => scenario.to_json(),
        };
        let committed = safe_write::prepare_new(&path_of(index), named, &[], args.force)
            .and_then(|pending| pending.commit(&text));
        if let Err(refused) = committed {
            errln!("{}", refused.message);
            if written > 0 {
                errln!(
                    "{written} scenarios were written to {} before it",
                    args.out.display()
                );
            }
            return refused.code;
        }
        written += 1;
    }
    outln!(
        "wrote {written} scenarios to {} (seed {seed})",
        args.out.display()
    );
    ExitCode::Ok
}

/// A seed from the clock and the process id, for a campaign that names none.
fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ (u64::from(std::process::id()) << 32)
}
