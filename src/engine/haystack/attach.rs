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
    // The worker is a sibling: a fork of the process that started this
    // command. Anything else (a stale variable, a made-up pid) is refused
    // before this command could ever signal it.
    let ours = std::os::unix::process::parent_id();
    match stat(pid) {
        _ if !std::path::Path::new("/proc/self/stat").exists() => {
            return Some(Err(error(
                "a handed worker is checked through /proc, which this system does not have \
                 (Linux has it): run the scenario without fixture objects"
                    .to_owned(),
            )));
        }
        _ if pid <= 1 => {
            return Some(Err(error(format!("{pid} is not a worker's process id"))));
        }
        None => {
            return Some(Err(error(format!(
                "no process {pid} is running: the variable is stale (unset it)"
            ))));
        }
        Some(found) if found.parent != ours => {
            return Some(Err(error(format!(
                "process {pid} was not started by the process that started this command (its \
                 parent is {}, this command's {ours}): the variable is stale (unset it)",
                found.parent
            ))));
        }
        Some(_) => {}
    }
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

/// What `/proc/PID/stat` says of a process.
pub(crate) struct Stat {
    /// Its state letter (`R`, `S`, `Z`, ...).
    pub state: char,
    /// Its parent's process id.
    pub parent: u32,
    /// Its process group.
    pub group: u32,
    /// Its wait status, once it has ended and is not yet reaped (a zombie).
    pub exit_code: Option<i32>,
}

/// `/proc/PID/stat` read, `None` when there is no such process (or no `/proc`).
pub(crate) fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `PID (COMM) STATE PPID PGRP ...`: COMM may hold spaces and parentheses.
    let (_, rest) = text.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    // The 52nd field (the 49th after the group) is the wait status (Linux 3.5+).
    let exit_code = fields
        .nth(46)
        .and_then(|code| code.parse().ok())
        .filter(|_| state == 'Z');
    Some(Stat {
        state,
        parent,
        group,
        exit_code,
    })
}

/// The handed worker `pid`, while it runs and is still this command's
/// sibling (so a pid reused after it ended is never signalled).
pub(crate) fn running_sibling(pid: u32) -> Option<Stat> {
    stat(pid).filter(|found| {
        found.parent == std::os::unix::process::parent_id() && !matches!(found.state, 'Z' | 'X')
    })
}

/// How process `pid` ended, from its wait status while its parent has not
/// reaped it, as `exited with status N` or `was killed by signal N`.
pub(crate) fn how_it_ended(pid: u32) -> Option<String> {
    let status = stat(pid)?.exit_code?;
    let signal = status & 0x7f;
    Some(if signal == 0 {
        format!("exited with status {}", (status >> 8) & 0xff)
    } else {
        format!("was killed by signal {signal}")
    })
}

/// Whether process `pid` has ended (gone, or a zombie its parent has not
/// reaped yet).
pub(crate) fn ended(pid: u32) -> bool {
    stat(pid).is_none_or(|found| matches!(found.state, 'Z' | 'X'))
}
