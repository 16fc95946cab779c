//! `hookharness rebase FILE`: rewrite each reply's `sees` from the current
//! run, after a change meant to send the model another conversation.

use super::ExitCode;
use super::output::{errln, out, outln};
use super::safe_write;
use crate::rebase::{Change, Written, rebase, rebased_text};
use crate::replay::Replay;
use crate::report::human_outcome;
use crate::scenario::{Format, Scenario, ScenarioError, not_regular};
use std::path::PathBuf;

/// `hookharness rebase` arguments.
#[derive(clap::Args)]
pub(super) struct RebaseArgs {
    #[command(flatten)]
    engine: super::engine::EngineArgs,
    /// The scenario file to rewrite.
    file: PathBuf,
    /// Also write `sees: {messages, tools}` on replies that have none.
    #[arg(long)]
    all: bool,
    /// Write nothing: print what would change and exit 1 if anything would.
    #[arg(long)]
    check: bool,
}

/// Runs the scenario, rewrites its `sees`, prints what changed. 0 when the
/// rebased scenario passes (or, with `--check`, nothing would change), 1
/// when it still fails (or its run aborts, or runs past `--timeout`, in
/// its child process: nothing is written), 2 when the file is invalid, 4 when it is not
/// rewritten (it has several hard links, or changed while the run went on),
/// 5 when it cannot be written.
pub(super) fn run(args: RebaseArgs) -> ExitCode {
    let origin = args.file.display().to_string();
    // The text the rewrite starts from, read before the scenario is: the
    // file is replaced only if it still holds it. (A file that cannot be
    // read gets the loader's words.) What is not a regular file is never
    // opened (a FIFO blocks): the loader refuses it, as `run` does.
    let original = match not_regular(&args.file) {
        Ok(None) => std::fs::read_to_string(&args.file),
        Ok(Some(what)) => Err(std::io::Error::other(format!(
            "not a regular file ({what})"
        ))),
        Err(error) => Err(error),
    };
    let scenario = match Scenario::from_path(&args.file).map_err(ScenarioError::for_one_file) {
        Ok(scenario) => scenario,
        Err(error) => {
            errln!("{error}");
            return ExitCode::Invalid;
        }
    };
    let replay = match args.engine.engines(Replay::new(), "rebase") {
        Ok(engines) => engines.main,
        Err(code) => return code,
    };
    let errors = replay.file_errors(&scenario);
    if !errors.is_empty() {
        for error in errors {
            errln!("{error}");
        }
        return ExitCode::Invalid;
    }
    // The run goes first to a child process, killed past `--timeout`: a
    // run that aborts or does not end is reported, and nothing is written.
    // (The rebase below runs it again, as it ran there.)
    if let super::Isolated::Aborted(outcome) =
        super::run_in_child(&args.file, &scenario, &args.engine)
    {
        outln!("{origin}: the run gave no outcome, so nothing was rebased");
        return finish(&outcome);
    }
    let rebased = rebase(&replay, &scenario, args.all);
    if rebased.changes.is_empty() {
        if !args.all {
            outln!("{origin}: no reply has `sees`; `--all` writes one on every reply");
            return ExitCode::Ok;
        }
        // `--all` and nothing to write: the run made no model call (it
        // failed, hung or stopped before the first); say so, with its report.
        outln!("{origin}: the run made no LLM call, so no `sees` was written");
        return finish(&rebased.outcome);
    }
    let mut rewritten = 0;
    for change in &rebased.changes {
        let what = match &change.change {
            Change::Unchanged => "unchanged".to_owned(),
            Change::Changed(what) => {
                rewritten += 1;
                format!("rewritten ({what})")
            }
            Change::Added => {
                rewritten += 1;
                "added".to_owned()
            }
            Change::NotReached => "kept (the run made fewer LLM calls)".to_owned(),
            Change::MatcherFails { matcher, facts } => {
                let kept = format!("kept: a matcher no longer holds ({matcher}); edit it");
                match facts {
                    Some(what) => {
                        rewritten += 1;
                        format!("rewritten ({what}), but {kept}")
                    }
                    None => kept,
                }
            }
        };
        outln!("model[{}].sees: {what}", change.reply);
    }
    let total = rebased.changes.len();
    let matchers = rebased
        .changes
        .iter()
        .filter(|c| matches!(c.change, Change::MatcherFails { .. }))
        .count();
    if rewritten == 0 {
        if matchers == 0 {
            outln!("{origin}: every `sees` holds; nothing to rewrite");
        } else {
            outln!(
                "{origin}: nothing rewritten: {matchers} `sees` hold{} a matcher that no longer holds; \
                 edit {} by hand",
                if matchers == 1 { "s" } else { "" },
                if matchers == 1 { "it" } else { "them" }
            );
        }
        return finish(&rebased.outcome);
    }
    if args.check {
        outln!(
            "{origin}: {rewritten} of {total} `sees` would be rewritten (--check: nothing written)"
        );
        return ExitCode::Failed;
    }
    let original = match original {
        Ok(text) => text,
        Err(error) => {
            errln!("{origin}: cannot be read: {error}");
            return ExitCode::Invalid;
        }
    };
    let format = Format::from_path(&args.file).unwrap_or(Format::Yaml);
    let (text, written) = rebased_text(&original, format, &rebased.scenario);
    let replaced = safe_write::prepare_rewrite(&args.file, original.as_bytes())
        .and_then(|pending| pending.commit(&text));
    if let Err(refused) = replaced {
        errln!("{origin}: {}", refused.message);
        return refused.code;
    }
    let how = match written {
        Written::SeesOnly => "only `sees` changed",
        _ => "the whole file was written in the scenario writer's form: comments are not kept",
    };
    outln!("rebased {origin}: {rewritten} of {total} `sees` rewritten ({how})");
    finish(&rebased.outcome)
}

/// 0 when the rebased run passes; else its report, and 1.
fn finish(outcome: &crate::outcome::Outcome) -> ExitCode {
    if outcome.passed() {
        return ExitCode::Ok;
    }
    out!("{}", human_outcome(outcome));
    ExitCode::Failed
}
