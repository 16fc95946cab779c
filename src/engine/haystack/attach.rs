//! A worker the command is handed instead of starting one: the pytest
//! plugin forks its own process (which holds the fixtures' live objects: a
//! database client, a pre-built Agent, hooks registered by name) into a
//! worker and starts `hookharness run` with that worker's channel.
//!
//! `HOOKHARNESS_ENGINE_ATTACH=PID,REQUESTS,ANSWERS,STDERR`: the worker's
//! process id (also its process group, which a timeout kills) and three
//! descriptors this process inherited: where requests are written, where
//! answers and the worker's stderr are read. The worker serves one command:
//! when it ends (a timeout, a crash, a scenario that leaves a thread behind)
//! no other can be attached, and the scenarios left say so.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;
use std::sync::Mutex;

use super::SetupError;

/// The environment variable that hands the command a running worker.
pub const ATTACH_ENV: &str = "HOOKHARNESS_ENGINE_ATTACH";

/// The attached worker's channel, opened.
pub(crate) struct Attached {
    pub pid: u32,
    pub requests: File,
    pub answers: File,
    pub stderr: File,
}

/// Whether the variable's worker was taken already (it serves one engine).
static TAKEN: Mutex<bool> = Mutex::new(false);

/// The worker `HOOKHARNESS_ENGINE_ATTACH` hands this command, `None` when it
/// is not set.
///
/// # Errors
/// [`SetupError::Attach`] when the variable does not read, a descriptor
/// does not open, or its worker was taken already.
pub(crate) fn take() -> Option<Result<Attached, SetupError>> {
    let raw = std::env::var_os(ATTACH_ENV)?;
    let value = raw.to_string_lossy().into_owned();
    let error = |message: String| SetupError::Attach {
        value: value.clone(),
        message,
    };
    let mut taken = match TAKEN.lock() {
        Ok(taken) => taken,
        Err(poisoned) => poisoned.into_inner(),
    };
    if *taken {
        return Some(Err(error(
            "its worker ended, and an attached worker serves one run: the scenarios after it \
             need a new one (pytest gives each scenario its own)"
                .to_owned(),
        )));
    }
    *taken = true;
    let numbers: Vec<u32> = match value.split(',').map(|part| part.trim().parse()).collect() {
        Ok(numbers) => numbers,
        Err(_) => {
            return Some(Err(error(
                "expected four numbers, PID,REQUESTS,ANSWERS,STDERR (the pytest plugin sets it; \
                 unset it to let the command start its own worker)"
                    .to_owned(),
            )));
        }
    };
    let [pid, requests, answers, stderr] = numbers[..] else {
        return Some(Err(error(format!(
            "expected four numbers, PID,REQUESTS,ANSWERS,STDERR, got {}",
            numbers.len()
        ))));
    };
    let open = |fd: u32, write: bool| {
        let path = descriptor(fd);
        OpenOptions::new()
            .read(!write)
            .write(write)
            .open(&path)
            .map_err(|e| {
                error(format!(
                    "descriptor {fd} does not open ({e}): was this command started with it \
                     inherited (`pass_fds`)?"
                ))
            })
    };
    Some((|| {
        Ok(Attached {
            pid,
            requests: open(requests, true)?,
            answers: open(answers, false)?,
            stderr: open(stderr, false)?,
        })
    })())
}

/// The path that opens inherited descriptor `fd` again (safe code cannot
/// adopt a raw descriptor; a pipe opened through it is the same pipe).
fn descriptor(fd: u32) -> PathBuf {
    PathBuf::from(format!("/dev/fd/{fd}"))
}

/// Whether process `pid` has ended (gone, or a zombie its parent has not
/// reaped yet). Where `/proc` cannot say, it has not.
pub(crate) fn ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `PID (COMM) STATE ...`: COMM may hold spaces and parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => std::path::Path::new("/proc/self").exists(),
    }
}
