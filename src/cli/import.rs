//! `hookharness import`: a Haystack-serialized Agent becomes a scenario
//! skeleton to fill in.

use super::ExitCode;
use super::output::{errln, out};
use crate::scenario::{Format, import_haystack};
use std::io::Write as _;
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
    /// Where to write the scenario (default: stdout).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Overwrite an existing --output file.
    #[arg(long)]
    force: bool,
}

/// Reads the file, writes the skeleton; 2 when the input cannot be
/// imported, 5 when the output cannot be written.
pub(super) fn run(args: ImportArgs) -> ExitCode {
    let origin = args.file.display().to_string();
    let Some(format) = Format::from_path(&args.file) else {
        errln!("{origin}: not a `.json`, `.yaml` or `.yml` file; name the file after its format");
        return ExitCode::Invalid;
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
    let Some(output) = args.output else {
        out!("{skeleton}");
        return ExitCode::Ok;
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if args.force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let written = options
        .open(&output)
        .and_then(|mut file| file.write_all(skeleton.as_bytes()));
    match written {
        Ok(()) => ExitCode::Ok,
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            errln!(
                "{}: already exists; pass --force to overwrite it",
                output.display()
            );
            ExitCode::OutputFailed
        }
        Err(error) => {
            errln!("{}: cannot be written: {error}", output.display());
            ExitCode::OutputFailed
        }
    }
}
