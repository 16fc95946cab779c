//! The worker process: started once, asked one scenario at a time, killed
//! (its whole process group) when a scenario outlives its deadline, and
//! started again for the next one.
//!
//! Requests go to the worker's stdin and answers come back on its stdout,
//! which the worker moves to a private descriptor before any user code
//! runs: what a hook prints is captured, never mixed into the protocol.
//! Its stderr is kept (the last lines) to say why a worker died.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::SetupError;
use super::interpreter::package_root;

/// The protocol version this binary speaks.
pub(crate) const PROTOCOL: u64 = 1;
/// How long the worker may take to import Haystack and say hello.
const START_TIMEOUT: Duration = Duration::from_secs(120);
/// The stderr lines kept for a crash report.
const STDERR_LINES: usize = 20;
/// The longest answer line read (a record of a huge run is refused, not
/// held whole in memory).
const MAX_LINE: u64 = 512 * 1024 * 1024;

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
    /// No answer within the deadline; the worker was killed.
    Timeout,
    /// The worker exited or closed its end; `stderr` is its last words.
    Died { stderr: String },
    /// The worker answered something that is not an answer.
    Protocol(String),
}

pub(crate) struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Result<String, String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    pub hello: Hello,
    next_id: u64,
}

impl Worker {
    /// Starts `python -m hookharness.engine.worker` and reads its greeting.
    pub(crate) fn start(python: &Path) -> Result<Worker, SetupError> {
        let mut command = Command::new(python);
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
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        spawn_stderr_reader(stderr_pipe, stderr.clone());
        let lines = spawn_line_reader(stdout);
        let mut worker = Worker {
            child,
            stdin,
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
        };
        let python = python.to_owned();
        let first = match worker.lines.recv_timeout(START_TIMEOUT) {
            Ok(Ok(line)) => line,
            Ok(Err(message)) => return Err(SetupError::Protocol { python, message }),
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
        Ok(worker)
    }

    /// Sends one request and waits up to `timeout` for its answer (the
    /// answer object without its `id`).
    pub(crate) fn call(
        &mut self,
        key: &str,
        body: Value,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        self.next_id += 1;
        let id = self.next_id;
        let mut request = serde_json::Map::new();
        request.insert("id".into(), id.into());
        request.insert(key.into(), body);
        let mut line = Value::Object(request).to_string();
        line.push('\n');
        let sent = match self.stdin.as_mut() {
            Some(stdin) => stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.flush()),
            None => Err(std::io::Error::other("stdin closed")),
        };
        if sent.is_err() {
            return Err(self.died());
        }
        loop {
            match self.lines.recv_timeout(timeout) {
                Ok(Ok(line)) => {
                    let value: Value = serde_json::from_str(&line).map_err(|e| {
                        CallError::Protocol(format!(
                            "an answer that is not JSON ({e}): `{}`",
                            cut(&line)
                        ))
                    })?;
                    match value.get("id").and_then(Value::as_u64) {
                        Some(got) if got == id => return Ok(value),
                        // A late answer to a request already given up on.
                        Some(got) if got < id => continue,
                        _ => {
                            return Err(CallError::Protocol(format!(
                                "an answer to another request: `{}`",
                                cut(&line)
                            )));
                        }
                    }
                }
                Ok(Err(message)) => return Err(CallError::Protocol(message)),
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(CallError::Timeout);
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.died()),
            }
        }
    }

    fn died(&mut self) -> CallError {
        let _ = self.child.wait();
        CallError::Died {
            stderr: self.stderr_tail(),
        }
    }

    /// The last lines the worker wrote to stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        // Give the reader thread a moment to drain what a dying worker wrote.
        std::thread::sleep(Duration::from_millis(50));
        let lines = self.stderr.lock().map(|l| l.clone()).unwrap_or_default();
        lines.into_iter().collect::<Vec<_>>().join("\n")
    }

    /// Kills the worker's process group and reaps it.
    pub(crate) fn kill(&mut self) {
        #[cfg(unix)]
        {
            // The group first: a hook may have started processes of its own.
            let _ = Command::new("kill")
                .args(["-KILL", &format!("-{}", self.child.id())])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"{\"id\": 0, \"shutdown\": true}\n");
        }
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }
}

/// Reads stdout line by line on a thread; a line past [`MAX_LINE`] or
/// invalid UTF-8 is an error, the end of the stream a disconnect.
fn spawn_line_reader(stdout: impl Read + Send + 'static) -> Receiver<Result<String, String>> {
    let (send, receive) = channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut buffer = Vec::new();
            match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut buffer) {
                Ok(0) | Err(_) => return,
                Ok(_) if buffer.last() != Some(&b'\n') && buffer.len() as u64 >= MAX_LINE => {
                    let _ = send.send(Err(format!(
                        "an answer longer than {} MiB",
                        MAX_LINE / (1024 * 1024)
                    )));
                    return;
                }
                Ok(_) => {
                    let line = match String::from_utf8(buffer) {
                        Ok(line) => Ok(line),
                        Err(_) => Err("an answer that is not UTF-8".to_owned()),
                    };
                    if send.send(line).is_err() {
                        return;
                    }
                }
            }
        }
    });
    receive
}

fn spawn_stderr_reader(stderr: impl Read + Send + 'static, tail: Arc<Mutex<VecDeque<String>>>) {
    std::thread::spawn(move || {
        let reader = BufReader::new(stderr);
        for line in reader.split(b'\n') {
            let Ok(line) = line else { return };
            let line = String::from_utf8_lossy(&line).into_owned();
            if let Ok(mut tail) = tail.lock() {
                if tail.len() == STDERR_LINES {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        }
    });
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
