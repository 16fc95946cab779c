//! `hookharness import`: a Haystack-serialized Agent becomes a scenario
//! skeleton to fill in.

use super::ExitCode;
use super::output::{errln, out};
use super::safe_write::{self, Named};
use crate::scenario::{Format, import_haystack, not_regular};
use std::path::PathBuf;

/// `hookharness import` arguments.
#[derive(clap::Args)]
pub(super) struct ImportArgs {
    /// A Haystack Agent as `Agent.to_dict()` writes it (`.json`, `.yaml`,
    /// `.yml`), or a pipeline file (`Pipeline.dumps()`) holding one.
    file: PathBuf,
    /// The Agent's component name, when the pipeline holds several.
    #[arg(long)]
    component: Option<String>,
    /// Where to write the scenario (default: stdout); a `.json` name gets
    /// JSON, any other YAML.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Overwrite an existing --output file.
    #[arg(long)]
    force: bool,
}

/// Reads the file, writes the skeleton (as JSON into a `.json` output); 2
/// when the input cannot be imported (a FIFO or a device is refused
/// without being opened), 4 when the output is refused (the input itself
/// or a hard link to it, a link, a folder, an existing file without
/// `--force`: checked before the input is read), 5 when it cannot be
/// written.
pub(super) fn run(args: ImportArgs) -> ExitCode {
    let origin = args.file.display().to_string();
    let Some(format) = Format::from_path(&args.file) else {
        errln!("{origin}: not a `.json`, `.yaml` or `.yml` file; name the file after its format");
        return ExitCode::Invalid;
    };
    match not_regular(&args.file) {
        Ok(None) => {}
        Ok(Some(what)) => {
            errln!(
                "{origin}: not a regular file ({what}); `import` takes one file, \
                 a Haystack Agent or pipeline"
            );
            return ExitCode::Invalid;
        }
        Err(error) => {
            errln!("{origin}: cannot be read: {error}");
            return ExitCode::Invalid;
        }
    }
    // The output is checked before any work, as every writing command
    // checks it.
    let pending = match &args.output {
        None => None,
        Some(output) => {
            match safe_write::prepare_new(
                output,
                Named::Given("--output"),
                &[&args.file],
                args.force,
            ) {
                Ok(pending) => Some((output, pending)),
                Err(refused) => {
                    errln!("{}", refused.message);
                    return refused.code;
                }
            }
        }
    };
    let text = match std::fs::read_to_string(&args.file) {
        Ok(text) => text,
        Err(error) => {
            errln!("{origin}: cannot be read: {error}");
            return ExitCode::Invalid;
        }
    };
    let skeleton = match import_haystack(&text, &origin, format, args.component.as_deref()) {
        Ok(skeleton) => skeleton,
        Err(error) => {
            errln!("{error}");
            return ExitCode::Invalid;
        }
    };
    let Some((output, pending)) = pending else {
        out!("{skeleton}");
        return ExitCode::Ok;
    };
    // A `.json` output gets JSON (the skeleton's comments are YAML's).
    let text = if Format::from_path(output) == Some(Format::Json) {
        match crate::scenario::yaml_as_json(&skeleton, &origin) {
            Ok(json) => json,
            Err(error) => {
                errln!("{error}");
                return ExitCode::Invalid;
            }
        }
    } else {
        skeleton
    };
    match pending.commit(&text) {
        Ok(()) => ExitCode::Ok,
        Err(refused) => {
            errln!("{}", refused.message);
            refused.code
        }
    }
}
