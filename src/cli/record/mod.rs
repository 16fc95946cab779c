//! `hookharness record`: run a scenario against a live OpenAI-compatible
//! server and write a new scenario whose `model` script holds the replies.

mod destination;
mod live;
mod python_path;

use super::ExitCode;
use super::output::{errln, out, outln};
use crate::engine::haystack::HaystackEngine;
use crate::openai::{DEFAULT_MAX_REPLY_BYTES, OpenAiChatGenerator};
use crate::outcome::ErrorKind;
use crate::record::{Recording, record_within, same_run};
use crate::replay::{Replay, Status};
use crate::report::human_outcome;
use crate::scenario::{Format, Scenario, ScenarioError};
use destination::Destination;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The default of `--max-total-bytes` (64 MiB): every reply is kept in
/// memory until the recording is written.
const DEFAULT_MAX_TOTAL_BYTES: usize = 64 << 20;

/// The default of `--max-recording-bytes` (256 MiB): the file written holds
/// the replies (at most `--max-total-bytes`) and, in `sees`, each message of
/// the conversation once (the replies again, the tool results, what hooks
/// add), so a recording within the default reply budget stays under it.
const DEFAULT_MAX_RECORDING_BYTES: usize = 256 << 20;

/// The shortest API key the leak check looks for in a recording. A shorter
/// key is no secret worth the name (8 characters is the usual floor for a
/// password, and a real API key is far longer: OpenAI's are over 40), and
/// looking for it reports a leak on nearly every recording: a one-letter
/// key is in every English reply, a four-letter one like `test` in many.
const MIN_SECRET_CHARS: usize = 8;

/// `true` when `text` holds `key` and the key is long enough to be a
/// secret (see [`MIN_SECRET_CHARS`]).
fn holds_key(text: &str, key: &str) -> bool {
    key.chars().count() >= MIN_SECRET_CHARS && text.contains(key)
}

/// `hookharness record` arguments.
#[derive(clap::Args)]
pub(super) struct RecordArgs {
    /// The scenario to run (its tools, hooks and run inputs; its `model` is replaced).
    scenario: PathBuf,
    /// The API's base URL, e.g. http://127.0.0.1:8080/v1 (default: $OPENAI_BASE_URL,
    /// else OpenAI's). The key, if the server needs one, is read from $OPENAI_API_KEY.
    #[arg(long)]
    base_url: Option<String>,
    /// The model to ask for.
    #[arg(long)]
    model: String,
    /// Where to write the recorded scenario, a `.json` file
    /// (default: SCENARIO's folder, `<stem>.recorded.json`).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Seconds to wait for one answer (default: $OPENAI_TIMEOUT, else 30).
    #[arg(long)]
    timeout: Option<f64>,
    /// Retries of a rate-limited or failed request (default: $OPENAI_MAX_RETRIES, else 5).
    #[arg(long)]
    max_retries: Option<u32>,
    /// The longest reply body accepted, in bytes (default: 8 MiB).
    #[arg(long, default_value_t = DEFAULT_MAX_REPLY_BYTES)]
    max_reply_bytes: usize,
    /// The most reply bytes of the whole recording (default: 64 MiB).
    #[arg(long, default_value_t = DEFAULT_MAX_TOTAL_BYTES)]
    max_total_bytes: usize,
    /// The largest recording written, in bytes (default: 256 MiB).
    #[arg(long, default_value_t = DEFAULT_MAX_RECORDING_BYTES)]
    max_recording_bytes: usize,
    /// Overwrite an existing --output file (never the input scenario).
    #[arg(long)]
    force: bool,
    /// `rust`: this crate's loop, the main `model` live; `haystack`: the
    /// real Haystack `Agent` with your Python hooks, tools and agents, every
    /// scripted model live (`model` and each `models:` script, recorded into
    /// its own script); the worker's network stays closed and this process
    /// makes the calls (docs/engines.md).
    #[arg(long, value_enum, default_value_t = super::engine::Engine::Rust)]
    engine: super::engine::Engine,
    /// The Python interpreter with haystack-ai for `--engine haystack`
    /// (default: HOOKHARNESS_PYTHON, else the virtual environment
    /// hookharness was pip-installed into, else `python3`).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// Seconds the Haystack engine's worker may spend on the run, the live
    /// calls' time not counted; past it the worker is killed and nothing
    /// is written.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    run_timeout: u64,
}

fn default_output(scenario: &Path) -> PathBuf {
    let stem = scenario
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scenario".to_owned());
    scenario.with_file_name(format!("{stem}.recorded.json"))
}

/// The replayer `--engine` names: the Haystack engine's worker is started
/// here, before the first live call, so a missing interpreter costs none.
fn replayer(args: &RecordArgs) -> Result<Replay, ExitCode> {
    match args.engine {
        super::engine::Engine::Rust => Ok(Replay::new()),
        super::engine::Engine::Haystack => {
            let timeout = Duration::from_secs(args.run_timeout.max(1));
            match HaystackEngine::start(args.python.as_deref(), timeout) {
                Ok(engine) => Ok(Replay::new().engine(engine)),
                Err(error) => {
                    errln!("error: {error}");
                    Err(ExitCode::Usage)
                }
            }
        }
        super::engine::Engine::Both => {
            errln!(
                "error: `--engine both` compares the engines in `hookharness run`; `record` takes \
                 `--engine rust` or `--engine haystack`"
            );
            Err(ExitCode::Usage)
        }
    }
}

pub(super) fn run(args: RecordArgs) -> ExitCode {
    let scenario = match Scenario::from_path(&args.scenario).map_err(ScenarioError::for_one_file) {
        Ok(scenario) => scenario,
        Err(error) => {
            errln!("{error}");
            return ExitCode::Invalid;
        }
    };
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&args.scenario));
    // Every check of the output before the first live call.
    let destination = match Destination::prepare(&output, &args.scenario, args.force) {
        Ok(destination) => destination,
        Err(refused) => {
            errln!("{}", refused.message);
            return refused.code;
        }
    };
    let mut builder = OpenAiChatGenerator::builder()
        .model(args.model.clone())
        .max_reply_bytes(args.max_reply_bytes)
        .max_total_bytes(args.max_total_bytes);
    if let Some(url) = &args.base_url {
        builder = builder.base_url(url.clone());
    }
    if let Some(seconds) = args.timeout {
        match Duration::try_from_secs_f64(seconds) {
            Ok(timeout) if !timeout.is_zero() => builder = builder.timeout(timeout),
            _ => {
                errln!("--timeout must be a positive number of seconds, got {seconds}");
                return ExitCode::Usage;
            }
        }
    }
    if let Some(retries) = args.max_retries {
        builder = builder.max_retries(retries);
    }
    let generator = match builder.build() {
        Ok(generator) => generator,
        Err(error) => {
            errln!("{error}");
            return ExitCode::Usage;
        }
    };
    let endpoint = generator.config().endpoint();
    let key = generator
        .config()
        .api_key
        .as_ref()
        .map(|k| k.expose().to_owned());

    let replay = match replayer(&args) {
        Ok(replay) => replay,
        Err(code) => return code,
    };

    // Only `record` installs it: the library leaves logging to its users.
    let _ = tracing::subscriber::set_global_default(live::Warnings);
    let generator = live::Progress::new(generator, std::io::stderr().is_terminal());
    let recording = record_within(
        &replay,
        &scenario,
        Arc::new(generator),
        args.max_recording_bytes,
    );
    if let Some(error) = recording.live.error.as_ref().filter(|e| {
        matches!(
            e.kind,
            ErrorKind::Engine | ErrorKind::Panicked | ErrorKind::Invalid
        )
    }) {
        errln!("the live run failed: {}\nnothing written", error.message);
        return ExitCode::Failed;
    }
    if let Some((call, message)) = recording.failed_call() {
        errln!("model call {call} failed: {message}\nnothing written");
        return ExitCode::Failed;
    }
    if let Some((name, call, message)) = recording.failed_named_call() {
        errln!("call {call} of the model `models.{name}` failed: {message}\nnothing written");
        return ExitCode::Failed;
    }
    if recording.calls() == 0 {
        let reason = recording
            .live
            .error
            .as_ref()
            .map_or("no model call", |e| e.message.as_str());
        errln!("the run made no model call ({reason}); nothing written");
        return ExitCode::Failed;
    }
    if let Some(reason) = recording.unloadable() {
        errln!("{reason}; nothing written");
        return ExitCode::Failed;
    }
    let mut recording = recording;
    if recording.scenario.needs_python() || !recording.scenario.python.is_empty() {
        let paths = &mut recording.scenario.python.python_path;
        *paths = python_path::moved(paths, &args.scenario, &output);
    }
    let text = recording.to_json();
    if text.len() > args.max_recording_bytes {
        errln!(
            "the recording is {} bytes, over the {}-byte limit on the whole recording; \
             nothing written (raise the limit with `--max-recording-bytes` if a recording \
             this large is expected)",
            text.len(),
            args.max_recording_bytes
        );
        return ExitCode::Failed;
    }
    if key.as_deref().is_some_and(|k| holds_key(&text, k)) {
        errln!("the recording holds the API key; nothing written");
        return ExitCode::Failed;
    }
    let replies = recording.calls();
    // Only the live run is compared from here: the recorded scenario is
    // read back from its text, as the file will be read.
    let Recording {
        live,
        scenario: recorded,
        ..
    } = recording;
    drop(recorded);
    // What the file's loader would refuse is not written.
    let origin = output.display().to_string();
    let loaded = match Scenario::from_str(&text, &origin, Format::Json) {
        Ok(mut loaded) => {
            loaded.file = Some(output.clone());
            loaded
        }
        Err(error) => {
            errln!("the recording would not load back: {error}; nothing written");
            return ExitCode::Failed;
        }
    };
    if let Err(refused) = destination.commit(&text) {
        errln!("{}", refused.message);
        return refused.code;
    }
    drop(text);
    outln!(
        "recorded {} model replies from {endpoint} (model {}) into {}",
        replies,
        args.model,
        output.display()
    );

    let replayed = replay.run(&loaded);
    if !same_run(&live, &replayed) {
        errln!("replaying the recording offline does not give the live run's result and trace");
        return ExitCode::Failed;
    }
    outln!("replayed offline: same result and trace as the live run");
    out!("{}", human_outcome(&replayed));
    if replayed.status == Status::Pass {
        ExitCode::Ok
    } else {
        ExitCode::Failed
    }
}
