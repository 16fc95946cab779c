//! Helpers shared by the tests that run the `hookharness` binary, as a user
//! or a CI job would.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `hookharness ARGS` in the project folder, with no progress bar
/// (whatever the environment says), and waits for it.
pub fn hookharness(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("HOOKHARNESS_PROGRESS")
        .output()
        .expect("the hookharness binary runs")
}

/// The command's stdout, as UTF-8.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

/// The command's stderr, as UTF-8.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

/// A fresh, empty folder for one test: `<target tmp>/<area>/<name>`.
pub fn scratch(area: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(area).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the scratch folder can be made");
    dir
}

/// `hookharness ARGS` in a shell that bounds the address space to `kib`
/// KiB (`ulimit -v`), the parent and its child processes alike.
#[cfg(target_os = "linux")]
pub fn hookharness_within_memory(kib: u64, args: &[&str]) -> Output {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_hookharness"))
        .args(args)
        .env_remove("HOOKHARNESS_PROGRESS")
        .env_remove("RUST_BACKTRACE");
    command.output().expect("sh runs")
}
