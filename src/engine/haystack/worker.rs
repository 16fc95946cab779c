//! The worker process: started once, asked one scenario at a time, killed
//! (its whole process group) when a scenario outlives its deadline, and
//! started again for the next one.
//!
//! A caller may send the next request before it reads the answer to the
//! last ([`Worker::ahead`]): the worker finds it waiting when it finishes a
//! scenario, so it never waits on the caller. The worker runs its requests
//! one after another, so a request's deadline runs from when the worker
//! could start it: the later of its sending and the previous answer.
//!
//! Requests go to the worker's stdin and answers come back on its stdout,
//! which the worker moves to a private descriptor before any user code
//! runs: what a hook prints is captured, never mixed into the protocol.
//! Its stderr is kept (the last lines) to say why a worker died.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use super::SetupError;
use super::attach::{self, Attached};
use super::interpreter::package_root;

/// The protocol version this binary speaks (3: record runs, `model_call`).
pub(crate) const PROTOCOL: u64 = 3;
/// How long the worker may take to import Haystack and say hello.
const START_TIMEOUT: Duration = Duration::from_secs(120);
/// The stderr lines kept (a stack dump on a timeout is read from them).
const STDERR_LINES: usize = 400;
/// The stderr lines a crash report shows.
const STDERR_SHOWN: usize = 20;
/// The longest answer line read (a record of a huge run is refused, not
/// held whole in memory).
const MAX_LINE: u64 = 512 * 1024 * 1024;

/// Answers one `model_call` of a record run with the `model_reply` entry;
/// an error is a call the worker should never have sent.
pub(crate) type Relay<'a> = &'a mut dyn FnMut(&Value) -> Result<Value, String>;

/// The worker's greeting.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Hello {
    pub hello: String,
    pub protocol: u64,
    #[serde(default)]
    pub haystack: Option<String>,
    #[serde(default)]
    pub python: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
}

/// Why a call got no answer.
#[derive(Debug)]
pub(crate) enum CallError {
    /// No answer within the deadline; the worker was killed. `stack` is
    /// where its Python code was when it was stopped (innermost first;
    /// empty when the worker could not say).
    Timeout { stack: Vec<String> },
    /// The worker exited or closed its end; `status` is how it ended,
    /// `stderr` its last words.
    Died { status: String, stderr: String },
    /// The worker answered something that is not an answer.
    Protocol(String),
}

/// The worker's process: one this command started, or one it was handed
/// (`HOOKHARNESS_ENGINE_ATTACH`), which its own parent reaps.
enum Process {
    Started(Child),
    /// `greeted`: it said hello on the descriptors it was handed, so it is
    /// the worker: only then may this command signal it.
    Attached {
        pid: u32,
        greeted: bool,
    },
}

impl Process {
    fn id(&self) -> u32 {
        match self {
            Process::Started(child) => child.id(),
            Process::Attached { pid, .. } => *pid,
        }
    }

    /// How the process ended, waiting for it (a handed one: as far as can be told).
    fn wait(&mut self) -> String {
        match self {
            Process::Started(child) => match child.wait() {
                Ok(status) => ended(status),
                Err(e) => format!("could not be waited for ({e})"),
            },
            Process::Attached { pid, .. } => {
                // Its parent (pytest) reaps it; until then its status is in /proc.
                for _ in 0..50 {
                    if let Some(how) = attach::how_it_ended(*pid) {
                        return how;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                "ended".to_owned()
            }
        }
    }

    fn has_ended(&mut self) -> bool {
        match self {
            Process::Started(child) => matches!(child.try_wait(), Ok(Some(_))),
            Process::Attached { pid, .. } => attach::ended(*pid),
        }
    }

    /// Kills the process (its parent reaps a handed one).
    fn kill(&mut self) {
        match self {
            Process::Started(child) => {
                let _ = child.kill();
                let _ = child.wait();
            }
            Process::Attached { pid, greeted } => {
                if !*greeted || attach::running_sibling(*pid).is_none() {
                    return;
                }
                let _ = Command::new("kill")
                    .args(["-s", "KILL", &pid.to_string()])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
            }
        }
    }
}

/// A request written to the worker and not answered yet.
struct Sent {
    id: u64,
    key: String,
    body: String,
    at: Instant,
}

/// Why [`Worker::call`] got no answer, and whether the worker had started
/// on that request: when it had not, an earlier request (one sent ahead and
/// never asked for) is what timed out or killed the worker, and the request
/// itself may go to another worker.
#[derive(Debug)]
pub(crate) struct Failed {
    pub error: CallError,
    pub started: bool,
}

pub(crate) struct Worker {
    child: Process,
    stdin: Option<Box<dyn Write + Send>>,
    lines: Receiver<(Instant, Result<String, String>)>,
    stderr: Arc<Mutex<Tail>>,
    pub hello: Hello,
    next_id: u64,
    /// The requests sent and not answered, oldest first.
    pending: VecDeque<Sent>,
    /// When the last answer (or the greeting) arrived: the worker starts
    /// its next request then, or when that request arrives if later.
    answered: Instant,
}

impl Worker {
    /// Starts `python -m hookharness.engine.worker` (or takes the worker
    /// `HOOKHARNESS_ENGINE_ATTACH` hands the command) and reads its greeting.
    pub(crate) fn start(python: &Path) -> Result<Worker, SetupError> {
        check_output_limit()?;
        if let Some(attached) = attach::take() {
            let Attached {
                pid,
                requests,
                answers,
                stderr,
            } = attached?;
            return Worker::greeted(
                Process::Attached {
                    pid,
                    greeted: false,
                },
                Box::new(requests),
                answers,
                stderr,
                python,
            )
            .map_err(|error| match error {
                // Not a worker that failed to start: a process that is no worker.
                SetupError::NoHello { stderr, .. }
                | SetupError::Protocol {
                    message: stderr, ..
                } => SetupError::Attach {
                    value: std::env::var(attach::ATTACH_ENV).unwrap_or_default(),
                    message: format!(
                        "process {pid} did not greet as a worker on the descriptors it was \
                             handed ({}); the pytest plugin sets this variable: unset it",
                        stderr.trim()
                    ),
                },
                other => other,
            });
        }
        let mut command = if network_namespace() && found(python) {
            // A network namespace of its own, with nothing but a loopback
            // that is down: no process the scenario's code starts reaches a
            // network either (the Python-level closure names the host; this
            // covers subprocesses and C code). Without one, only that closure.
            let mut command = Command::new("unshare");
            command.args(["--net", "--"]).arg(python);
            command
        } else {
            Command::new(python)
        };
        command
            .args(["-m", "hookharness.engine.worker"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Same input, same output: no hash randomisation, no telemetry
            // (Haystack's would reach the network), no bytecode written
            // into the user's tree, nothing buffered past a crash.
            .env("PYTHONHASHSEED", "0")
            .env("HAYSTACK_TELEMETRY_ENABLED", "False")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTHONUNBUFFERED", "1");
        if let Some(root) = package_root(python) {
            let mut paths = vec![root];
            if let Some(existing) = std::env::var_os("PYTHONPATH") {
                paths.extend(std::env::split_paths(&existing));
            }
            if let Ok(joined) = std::env::join_paths(paths) {
                command.env("PYTHONPATH", joined);
            }
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group, so a timeout kills what user code started too.
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|e| SetupError::Spawn {
            python: python.to_owned(),
            message: e.to_string(),
        })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        Worker::greeted(
            Process::Started(child),
            Box::new(stdin),
            stdout,
            stderr_pipe,
            python,
        )
    }

    /// Reads the greeting of a worker whose channel is `stdin`, `stdout`
    /// and `stderr_pipe`.
    fn greeted(
        child: Process,
        stdin: Box<dyn Write + Send>,
        stdout: impl Read + Send + 'static,
        stderr_pipe: impl Read + Send + 'static,
        python: &Path,
    ) -> Result<Worker, SetupError> {
        let stderr = Arc::new(Mutex::new(Tail::default()));
        spawn_stderr_reader(stderr_pipe, stderr.clone());
        let lines = spawn_line_reader(stdout);
        let mut worker = Worker {
            child,
            stdin: Some(stdin),
            lines,
            stderr,
            hello: Hello {
                hello: String::new(),
                protocol: 0,
                haystack: None,
                python: None,
                error: None,
            },
            next_id: 0,
            pending: VecDeque::new(),
            answered: Instant::now(),
        };
        let python = python.to_owned();
        let first = match worker.lines.recv_timeout(START_TIMEOUT) {
            Ok((at, Ok(line))) => {
                worker.answered = at;
                line
            }
            Ok((_, Err(message))) => return Err(SetupError::Protocol { python, message }),
            Err(RecvTimeoutError::Timeout) => {
                worker.kill();
                return Err(SetupError::NoHello {
                    python,
                    stderr: format!("no greeting within {} s", START_TIMEOUT.as_secs()),
                });
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = worker.child.wait();
                return Err(SetupError::NoHello {
                    stderr: worker.stderr_tail(),
                    python,
                });
            }
        };
        let hello: Hello = serde_json::from_str(&first).map_err(|_| SetupError::NoHello {
            python: python.clone(),
            stderr: format!("it printed `{}` instead of a greeting", cut(&first)),
        })?;
        if hello.hello != "hookharness-engine" {
            return Err(SetupError::NoHello {
                python,
                stderr: format!("it greeted as `{}`", cut(&hello.hello)),
            });
        }
        if let Some(error) = hello.error {
            return Err(SetupError::NoHaystack {
                python,
                message: error,
            });
        }
        if hello.protocol != PROTOCOL {
            return Err(SetupError::Version {
                python,
                theirs: hello.protocol,
            });
        }
        worker.hello = hello;
        if let Process::Attached { greeted, .. } = &mut worker.child {
            *greeted = true;
        }
        Ok(worker)
    }

    /// Whether the worker's process group is its own, so that killing the
    /// group ends only what it started (a handed worker sets its own; one
    /// that has not, or has ended, is killed alone).
    fn leads_its_group(&self) -> bool {
        match self.child {
            Process::Started(_) => true,
            Process::Attached { pid, greeted } => {
                greeted && attach::running_sibling(pid).is_some_and(|found| found.group == pid)
            }
        }
    }

    /// Whether this worker was handed to the command (`HOOKHARNESS_ENGINE_ATTACH`).
    pub(crate) fn attached(&self) -> bool {
        matches!(self.child, Process::Attached { .. })
    }

    /// Writes the request `{"id": N, KEY: BODY}` (`body` is JSON text)
    /// and notes it as pending.
    fn send(&mut self, key: &str, body: &str) -> Result<(), CallError> {
        self.next_id += 1;
        let id = self.next_id;
        let line = format!("{{\"id\":{id},{}:{body}}}\n", Value::String(key.to_owned()));
        let sent = match self.stdin.as_mut() {
            Some(stdin) => stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.flush()),
            None => Err(std::io::Error::other("stdin closed")),
        };
        if sent.is_err() {
            return Err(self.died());
        }
        self.pending.push_back(Sent {
            id,
            key: key.to_owned(),
            body: body.to_owned(),
            at: Instant::now(),
        });
        Ok(())
    }

    /// The id of the pending request `KEY: BODY`, if it was sent.
    fn pending_id(&self, key: &str, body: &str) -> Option<u64> {
        self.pending
            .iter()
            .find(|sent| sent.key == key && sent.body == body)
            .map(|sent| sent.id)
    }

    /// Sends `KEY: BODY` now, unless it is pending already, so that the
    /// worker finds it waiting when it finishes what it runs; [`call`]
    /// with the same request then reads its answer. A worker that cannot
    /// take it is left as it is: the answer being waited for says why.
    ///
    /// [`call`]: Self::call
    pub(crate) fn ahead(&mut self, key: &str, body: &str) {
        if self.pending_id(key, body).is_none() {
            let _ = self.send(key, body);
        }
    }

    /// Sends `KEY: BODY` (unless [`ahead`](Self::ahead) did) and waits for
    /// its answer (the answer object), each request given up to `timeout`
    /// from when the worker could start it. Answers to requests sent ahead
    /// and never asked for are read and dropped on the way.
    pub(crate) fn call(
        &mut self,
        key: &str,
        body: &str,
        timeout: Duration,
    ) -> Result<Value, Failed> {
        self.call_relaying(key, body, timeout, None)
    }

    /// [`call`](Self::call) of a record run: each `model_call` the worker
    /// sends before its answer is handed to `relay`, whose reply goes back
    /// as `model_reply` (protocol 3); the time `relay` takes is not the
    /// worker's, so it does not count against `timeout`. Without `relay`
    /// a `model_call` is a protocol error. A record run is never sent
    /// ahead: its exchange needs the worker to itself.
    pub(crate) fn call_relaying(
        &mut self,
        key: &str,
        body: &str,
        timeout: Duration,
        mut relay: Option<Relay<'_>>,
    ) -> Result<Value, Failed> {
        let mut relayed = Duration::ZERO;
        let id = match self.pending_id(key, body) {
            Some(id) => id,
            None => {
                let started = self.pending.is_empty();
                self.send(key, body)
                    .map_err(|error| Failed { error, started })?;
                self.next_id
            }
        };
        loop {
            let Some(head) = self.pending.front() else {
                return Err(Failed {
                    error: CallError::Protocol("no request is waiting for an answer".to_owned()),
                    started: true,
                });
            };
            let started = head.id == id;
            let fail = |error| Failed { error, started };
            let deadline = head.at.max(self.answered) + timeout + relayed;
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(wait) {
                Ok((at, Ok(line))) => {
                    let value: Value = serde_json::from_str(&line).map_err(|e| {
                        fail(CallError::Protocol(format!(
                            "an answer that is not JSON ({e}): `{}`",
                            cut(&line)
                        )))
                    })?;
                    match value.get("id").and_then(Value::as_u64) {
                        Some(got)
                            if got == id && got == head.id && value.get("model_call").is_some() =>
                        {
                            let Some(relay) = relay.as_mut() else {
                                return Err(fail(CallError::Protocol(format!(
                                    "a model call in a run that answers from its scripts: `{}`",
                                    cut(&line)
                                ))));
                            };
                            let asked = Instant::now();
                            let reply = relay(&value["model_call"])
                                .map_err(|message| fail(CallError::Protocol(message)))?;
                            relayed += asked.elapsed();
                            self.send_line(&json!({"id": id, "model_reply": reply}))
                                .map_err(fail)?;
                        }
                        Some(got) if got == head.id => {
                            self.answered = at;
                            self.pending.pop_front();
                            if got == id {
                                return Ok(value);
                            }
                        }
                        // A late answer to a request no longer waited for.
                        Some(got) if got < head.id => {}
                        _ => {
                            return Err(fail(CallError::Protocol(format!(
                                "an answer to another request: `{}`",
                                cut(&line)
                            ))));
                        }
                    }
                }
                Ok((_, Err(message))) => return Err(fail(CallError::Protocol(message))),
                Err(RecvTimeoutError::Timeout) => {
                    let stack = self.stack();
                    self.kill();
                    return Err(fail(CallError::Timeout { stack }));
                }
                Err(RecvTimeoutError::Disconnected) => return Err(fail(self.died())),
            }
        }
    }

    /// Writes one line to the worker's stdin; a worker that cannot take it has died.
    fn send_line(&mut self, message: &Value) -> Result<(), CallError> {
        let mut line = message.to_string();
        line.push('\n');
        let sent = match self.stdin.as_mut() {
            Some(stdin) => stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.flush()),
            None => Err(std::io::Error::other("stdin closed")),
        };
        sent.map_err(|_| self.died())
    }

    fn died(&mut self) -> CallError {
        let status = self.child.wait();
        CallError::Died {
            status,
            stderr: self.stderr_tail(),
        }
    }

    /// Where the worker's Python code is now: it writes every thread's
    /// stack to its stderr on SIGUSR1 (`faulthandler`); the `File` lines of
    /// the first thread it shows, innermost first. Nothing on a worker that
    /// does not answer within half a second.
    fn stack(&self) -> Vec<String> {
        #[cfg(unix)]
        {
            if let Process::Attached { pid, greeted } = self.child {
                if !greeted || attach::running_sibling(pid).is_none() {
                    return Vec::new();
                }
            }
            let before = self.stderr_count();
            let sent = Command::new("kill")
                .args(["-s", "USR1", &self.child.id().to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            if !sent.is_ok_and(|s| s.success()) {
                return Vec::new();
            }
            for _ in 0..50 {
                std::thread::sleep(Duration::from_millis(10));
                let lines = self.stderr_since(before);
                // faulthandler ends each thread's stack with a blank line or the next header.
                if lines.iter().skip(1).any(|l| !l.starts_with("  File ")) {
                    return stack_frames(&lines);
                }
            }
            stack_frames(&self.stderr_since(before))
        }
        #[cfg(not(unix))]
        Vec::new()
    }

    /// How many stderr lines have been read so far.
    fn stderr_count(&self) -> usize {
        self.stderr.lock().map(|t| t.seen).unwrap_or_default()
    }

    /// The stderr lines read after the first `count` (those still kept).
    fn stderr_since(&self, count: usize) -> Vec<String> {
        let Ok(tail) = self.stderr.lock() else {
            return Vec::new();
        };
        let kept_from = tail.seen - tail.lines.len();
        let skip = count.saturating_sub(kept_from);
        tail.lines.iter().skip(skip).cloned().collect()
    }

    /// The last lines the worker wrote to stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        // Give the reader thread a moment to drain what a dying worker wrote.
        std::thread::sleep(Duration::from_millis(50));
        let lines = self
            .stderr
            .lock()
            .map(|t| t.lines.clone())
            .unwrap_or_default();
        // A crash dump (faulthandler's) reads innermost frame first: its head
        // is where the user's code was, its tail the caller's frames (under
        // pytest, dozens of pytest's own).
        let skip = lines
            .iter()
            .rposition(|line| line.starts_with("Fatal Python error"))
            .unwrap_or_else(|| lines.len().saturating_sub(STDERR_SHOWN));
        lines
            .into_iter()
            .skip(skip)
            .take(STDERR_SHOWN)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Kills the worker's process group and reaps it.
    pub(crate) fn kill(&mut self) {
        #[cfg(unix)]
        if self.leads_its_group() {
            // The group first: a hook may have started processes of its own.
            // `-s KILL -- -PGID`, never `-KILL -PGID`: procps-ng 4.0.2's
            // `kill` reads the latter as `kill(-1, SIGKILL)`, every process
            // the user may signal.
            let _ = Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{}", self.child.id())])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        self.child.kill();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"{\"id\": 0, \"shutdown\": true}\n");
        }
        for _ in 0..20 {
            if self.child.has_ended() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Also when the worker has exited: a process a hook or tool started
        // (in the worker's group) must not outlive the command.
        self.kill();
    }
}

/// Whether `unshare --net` runs here (root, or a system that lets this
/// user make a network namespace), asked once per process.
pub(crate) fn network_namespace() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        Command::new("unshare")
            .args(["--net", "--", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// Whether `python` names a file that runs (a path, or a name on `PATH`):
/// only then is it started through `unshare`, so that a missing
/// interpreter stays the spawn error that names it.
fn found(python: &Path) -> bool {
    if python.components().count() > 1 {
        return python.is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(python).is_file()))
}

/// Reads stdout line by line on a thread, each line with when it arrived;
/// a line past [`MAX_LINE`] or invalid UTF-8 is an error, the end of the
/// stream a disconnect.
fn spawn_line_reader(
    stdout: impl Read + Send + 'static,
) -> Receiver<(Instant, Result<String, String>)> {
    let (send, receive) = channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut buffer = Vec::new();
            match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut buffer) {
                Ok(0) | Err(_) => return,
                Ok(_) if buffer.last() != Some(&b'\n') && buffer.len() as u64 >= MAX_LINE => {
                    let _ = send.send((
                        Instant::now(),
                        Err(format!(
                            "an answer longer than {} MiB",
                            MAX_LINE / (1024 * 1024)
                        )),
                    ));
                    return;
                }
                Ok(_) => {
                    let line = match String::from_utf8(buffer) {
                        Ok(line) => Ok(line),
                        Err(_) => Err("an answer that is not UTF-8".to_owned()),
                    };
                    if send.send((Instant::now(), line)).is_err() {
                        return;
                    }
                }
            }
        }
    });
    receive
}

/// The last lines of the worker's stderr, and how many it wrote in all.
#[derive(Default)]
struct Tail {
    lines: VecDeque<String>,
    seen: usize,
}

fn spawn_stderr_reader(stderr: impl Read + Send + 'static, tail: Arc<Mutex<Tail>>) {
    std::thread::spawn(move || {
        let reader = BufReader::new(stderr);
        for line in reader.split(b'\n') {
            let Ok(line) = line else { return };
            let line = String::from_utf8_lossy(&line).into_owned();
            if let Ok(mut tail) = tail.lock() {
                if tail.lines.len() == STDERR_LINES {
                    tail.lines.pop_front();
                }
                tail.lines.push_back(line);
                tail.seen += 1;
            }
        }
    });
}

/// The frames of the first thread in a `faulthandler` dump, as
/// `FILE:LINE in FUNCTION`, innermost first (the dump's own order).
fn stack_frames(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .skip_while(|l| !l.starts_with("  File "))
        .take_while(|l| l.starts_with("  File "))
        .filter_map(|l| {
            // `  File "PATH", line N in FUNCTION`
            let rest = l.strip_prefix("  File \"")?;
            let (file, rest) = rest.split_once("\", line ")?;
            let (line, function) = rest.split_once(" in ")?;
            Some(format!("{file}:{} in {}", line.trim(), function.trim()))
        })
        .collect()
}

/// How a worker process ended, for a message.
fn ended(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    format!("ended ({status})")
}

/// At most 200 characters of `text`, for a message.
fn cut(text: &str) -> String {
    let text = text.trim_end();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The interpreter as messages name it.
pub(crate) fn shown(python: &Path) -> String {
    PathBuf::from(python).display().to_string()
}

/// `HOOKHARNESS_OUTPUT_LIMIT`, when set, is what the worker accepts (capture.py
/// `limit_from_env`): ASCII digits, surrounding spaces allowed, not zero.
fn check_output_limit() -> Result<(), SetupError> {
    let Some(raw) = std::env::var_os(super::OUTPUT_LIMIT_ENV) else {
        return Ok(());
    };
    let text = raw.to_string_lossy();
    let trimmed = text.trim();
    let valid = trimmed.is_empty()
        || (trimmed.bytes().all(|b| b.is_ascii_digit()) && trimmed.bytes().any(|b| b != b'0'));
    if valid {
        Ok(())
    } else {
        Err(SetupError::OutputLimit {
            value: text.into_owned(),
        })
    }
}
