//! Scenario files handled in a child process, so that an abort costs one
//! file's outcome and never the report of the others.
//!
//! ```text
//!  run / check ──files on stdin──▶ child: hookharness __worker JOB
//!      ▲                              │ per file: `>"name"` (loaded, taken), then `=JSON` or `-` (skipped)
//!      └──────────lines on a pipe─────┘
//!  child ends early, or runs past the time limit on one file (killed)
//!    ─▶ the file it was on gets an `aborted` error ─▶ a new child takes the rest
//! ```
//!
//! Rust ends the process when an allocation fails or the stack overflows,
//! and neither can be caught inside it. The budgets of the templates and the
//! loader are meant to make both impossible; this is what holds when one of
//! them is missing: the files go to a child process of the same executable,
//! which writes one line per file and flushes it, and the parent writes the
//! reports. When the child dies, the file it was on gets an error saying how
//! the process ended (its last words on stderr included), and a new child
//! takes the files after it. A child costs one process start per command
//! (and one more per abort); its outcome lines are the `--trace full` JSON,
//! which reads back into the same outcome.

use super::output::{err, errln, out};
use clap::{Args, ValueEnum};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The hidden command a child runs.
pub(super) const WORKER: &str = "__worker";

/// How many bytes of the child's stderr an abort quotes (its end).
const STDERR_TAIL: usize = 2048;

/// What a child does with each file.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Job {
    /// `run`: the outcome, as `--trace full` JSON.
    Run,
    /// `run --trace full`: the same, with every event recorded.
    RunFull,
    /// `check`: the file's errors and notes, as JSON.
    Check,
    /// `mutate`'s first pass: whether the file passes as written, as JSON.
    Mutate,
    /// `mutate`: a mutant's verdict by the scenario's expectations; the
    /// unit is `K:PATH`, the `K`-th mutant of the file.
    MutateExpect,
    /// `mutate --killed-by outcome`: the same, by the whole outcome.
    MutateOutcome,
    /// `explore`'s first pass: the file run as written and its variants.
    Explore,
    /// `explore`: one variant checked; the unit is `K:PATH`, the `K`-th
    /// variant of the file.
    ExploreVariant,
}

/// The arguments of the hidden `__worker` command; the files come on stdin,
/// each followed by a NUL byte.
#[derive(Args)]
pub(crate) struct WorkerArgs {
    /// What to do with each file.
    #[arg(value_enum)]
    job: Job,
    /// `run --filter`.
    #[arg(long)]
    filter: Option<String>,
    /// `explore`'s settings.
    #[command(flatten)]
    explore: super::explore::Settings,
}

/// One file's line from the child.
pub(super) enum Line {
    /// The file's report: an outcome or a list of errors, as JSON.
    Done(String),
    /// The file is outside `--filter`.
    Skipped,
}

/// How a child ended before it reported a file.
pub(super) struct Abort {
    /// The scenario's name when the file had loaded and the filter took it
    /// (the abort happened in its run); `None` when it happened while the
    /// file was read.
    pub(super) started: Option<String>,
    /// How the process ended, with its last words on stderr.
    pub(super) how: String,
    /// The child was killed past the time limit (not a bug of the
    /// harness: a scenario that does not end).
    pub(super) timed_out: bool,
}

/// Hands `files` to child processes and calls `each` with the index of
/// every file and its line, or its abort. `Err(index)` when no child could
/// be started for the file at `index` (the caller handles the rest in its
/// own process).
///
/// A file that takes more than `limit` (from the end of the file before
/// it, reading and running together) has its child killed: a template or
/// hook that never ends costs that file's outcome, as an abort does.
pub(super) fn each_file(
    files: &[PathBuf],
    job: Job,
    filter: Option<&str>,
    limit: Duration,
    each: impl FnMut(usize, Result<Line, Abort>),
) -> Result<(), usize> {
    each_unit(files, job, filter, &[], limit, each)
}

/// [`each_file`] for any units a job takes (a file, or `K:PATH`), with
/// `args` added to the child's command line.
pub(super) fn each_unit(
    files: &[PathBuf],
    job: Job,
    filter: Option<&str>,
    args: &[std::ffi::OsString],
    limit: Duration,
    mut each: impl FnMut(usize, Result<Line, Abort>),
) -> Result<(), usize> {
    let mut next = 0;
    while next < files.len() {
        let mut worker = Worker::start(&files[next..], job, filter, args).map_err(|_| next)?;
        let mut started = None;
        let mut deadline = Instant::now() + limit;
        loop {
            match worker.line(deadline) {
                Err(TimedOut) => {
                    worker.kill(limit);
                    break;
                }
                Ok(Some(line)) if line.starts_with('>') => {
                    started = Some(serde_json::from_str(&line[1..]).unwrap_or_default());
                }
                Ok(Some(line)) if line == "-" => {
                    each(next, Ok(Line::Skipped));
                    (next, started) = (next + 1, None);
                    deadline = Instant::now() + limit;
                }
                Ok(Some(line)) if line.starts_with('=') => {
                    each(next, Ok(Line::Done(line[1..].to_owned())));
                    (next, started) = (next + 1, None);
                    deadline = Instant::now() + limit;
                }
                // End of the pipe (or a line no child writes): the child
                // is done, or died on the file at `next`.
                _ => break,
            }
        }
        let timed_out = worker.killed.is_some();
        let how = worker.end();
        if next < files.len() {
            each(
                next,
                Err(Abort {
                    started,
                    how,
                    timed_out,
                }),
            );
            next += 1;
        }
    }
    Ok(())
}

/// A child process and its pipes.
struct Worker {
    child: Child,
    /// The child's stdout, line by line, from a thread that reads it
    /// (`None` at its end), so that the parent can wait with a deadline.
    lines: Receiver<Option<String>>,
    stderr: Option<std::thread::JoinHandle<()>>,
    tail: Arc<Mutex<Vec<u8>>>,
    /// Set when the child was killed past its time limit.
    killed: Option<Duration>,
}

/// The deadline of a file passed before the child's next line.
struct TimedOut;

impl Worker {
    fn start(
        files: &[PathBuf],
        job: Job,
        filter: Option<&str>,
        args: &[std::ffi::OsString],
    ) -> std::io::Result<Worker> {
        let mut command = Command::new(std::env::current_exe()?);
        command.arg(WORKER).arg(job_name(job)).args(args);
        if let Some(filter) = filter {
            command.arg("--filter").arg(filter);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let mut list = Vec::new();
        for file in files {
            list.extend_from_slice(path_bytes(file).as_ref());
            list.push(0);
        }
        // The child reads its whole list before it writes a line, so this
        // cannot wait on the child's output. A child that died at once is
        // seen when its output ends.
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(&list);
        }
        let tail = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().map(|pipe| {
            let tail = Arc::clone(&tail);
            std::thread::spawn(move || forward_stderr(pipe, &tail))
        });
        let Some(stdout) = child.stdout.take() else {
            return Err(std::io::Error::other("the child has no stdout"));
        };
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || read_lines(BufReader::new(stdout), &send));
        Ok(Worker {
            child,
            lines,
            stderr,
            tail,
            killed: None,
        })
    }

    /// The child's next line, without its newline; `None` at the end;
    /// `TimedOut` when `deadline` passes first.
    fn line(&mut self, deadline: Instant) -> Result<Option<String>, TimedOut> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Disconnected) => Ok(None),
            Err(RecvTimeoutError::Timeout) => Err(TimedOut),
        }
    }

    /// Kills the child, which ran past `limit` on one file.
    fn kill(&mut self, limit: Duration) {
        let _ = self.child.kill();
        self.killed = Some(limit);
    }

    /// Waits for the child and says how it ended.
    fn end(mut self) -> String {
        let status = self.child.wait();
        if let Some(thread) = self.stderr.take() {
            let _ = thread.join();
        }
        let tail = self.tail.lock().map(|t| t.clone()).unwrap_or_default();
        let said = last_words(&String::from_utf8_lossy(&tail));
        let how = match (status, self.killed) {
            (_, Some(limit)) => format!(
                "it ran for more than {} s on this file (the time limit of a scenario, `--timeout`) \
                 and was killed: look for a loop that does not end",
                limit.as_secs()
            ),
            (Ok(status), None) => describe(status),
            (Err(error), None) => format!("it could not be waited for ({error})"),
        };
        if said.is_empty() {
            how
        } else {
            format!("{how}; its last words on stderr: {said:?}")
        }
    }
}

fn job_name(job: Job) -> &'static str {
    match job {
        Job::Run => "run",
        Job::RunFull => "run-full",
        Job::Check => "check",
        Job::Mutate => "mutate",
        Job::MutateExpect => "mutate-expect",
        Job::MutateOutcome => "mutate-outcome",
        Job::Explore => "explore",
        Job::ExploreVariant => "explore-variant",
    }
}

/// A path's bytes, as the list on a child's stdin holds them.
#[cfg(unix)]
pub(super) fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
pub(super) fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
}

/// The path of bytes from [`path_bytes`].
#[cfg(unix)]
/// The unit of the `k`-th part (variant, mutant) of `file`, as `each_unit`
/// hands it to a child: `K:PATH` (digits hold no `:`).
pub(super) fn unit(file: &Path, k: usize) -> PathBuf {
    let mut unit = std::ffi::OsString::from(format!("{k}:"));
    unit.push(file.as_os_str());
    PathBuf::from(unit)
}

impl Abort {
    /// How the child ended before its line, for the report.
    pub(super) fn ended(&self) -> String {
        let phase = if self.started.is_some() {
            "running"
        } else {
            "reading"
        };
        format!(
            "the process {phase} it ended before its outcome: {}",
            self.how
        )
    }
}

pub(super) fn path_from(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
pub(super) fn path_from(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// Sends the child's lines without their newline, then `None` at the end
/// of its output (a last line without a newline is not a whole line).
fn read_lines(mut lines: impl BufRead, send: &Sender<Option<String>>) {
    loop {
        let mut line = String::new();
        match lines.read_line(&mut line) {
            Ok(_) if line.ends_with('\n') => {
                line.pop();
                if send.send(Some(line)).is_err() {
                    return;
                }
            }
            _ => {
                let _ = send.send(None);
                return;
            }
        }
    }
}

/// Copies the child's stderr to ours as it comes, keeping its end.
fn forward_stderr(mut pipe: impl Read, tail: &Mutex<Vec<u8>>) {
    let mut buffer = [0u8; 4096];
    loop {
        let read = match pipe.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        err!("{}", String::from_utf8_lossy(&buffer[..read]));
        if let Ok(mut tail) = tail.lock() {
            tail.extend_from_slice(&buffer[..read]);
            let excess = tail.len().saturating_sub(STDERR_TAIL);
            tail.drain(..excess);
        }
    }
}

/// The child's stderr without a backtrace's lines (`RUST_BACKTRACE`): what
/// the runtime said when it ended the process.
fn last_words(stderr: &str) -> String {
    let said: Vec<&str> = stderr
        .lines()
        .filter(|line| {
            !line.trim().is_empty()
                && !line.starts_with(char::is_whitespace)
                && !line.starts_with("stack backtrace:")
                && !line.starts_with("note: ")
        })
        .collect();
    said.join("\n")
}

/// How a child that stopped early ended, in words.
fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => " (SIGABRT: an allocation failed or the stack overflowed)",
                9 => " (SIGKILL: killed, often by the kernel when memory ran out)",
                11 => " (SIGSEGV)",
                _ => "",
            };
            return format!("the process was ended by signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("the process exited with status {code} before its report"),
        None => "the process ended before its report".to_owned(),
    }
}

/// The hidden `__worker` command: each file named on stdin, handled as
/// `run` or `check` would, one line each on stdout.
pub(super) fn worker(args: WorkerArgs) -> super::ExitCode {
    let mut list = Vec::new();
    if std::io::stdin().lock().read_to_end(&mut list).is_err() {
        errln!("hookharness {WORKER}: cannot read the list of files on stdin");
        return super::ExitCode::Usage;
    }
    let files: Vec<PathBuf> = list
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(path_from)
        .collect();
    let filter = args.filter.as_deref();
    match args.job {
        Job::Run | Job::RunFull => {
            let detail = if args.job == Job::RunFull {
                crate::outcome::Detail::Full
            } else {
                crate::outcome::Detail::Summary
            };
            let engines = super::engine::Engines {
                main: crate::replay::Replay::new().detail(detail),
                other: None,
            };
            for file in &files {
                let started = |name: &str| {
                    out!(">{}\n", serde_json::Value::String(name.to_owned()));
                };
                match super::replay_file(&engines, file, filter, started) {
                    Some(outcome) => out!("={}\n", outcome.to_full_value()),
                    None => out!("-\n"),
                }
            }
        }
        Job::Check => {
            let replay = crate::replay::Replay::new();
            for file in &files {
                let checked = super::file_check(&replay, file);
                out!("={}\n", serde_json::to_string(&checked).unwrap_or_default());
            }
        }
        Job::Mutate => super::mutate::worker_prepare(&files, filter),
        Job::MutateExpect => {
            super::mutate::worker_judge(&files, crate::mutate::Oracle::Expectations)
        }
        Job::MutateOutcome => super::mutate::worker_judge(&files, crate::mutate::Oracle::Outcome),
        Job::Explore => super::explore::worker_prepare(&files, filter, &args.explore),
        Job::ExploreVariant => super::explore::worker_check(&files, &args.explore),
    }
    super::ExitCode::Ok
}
